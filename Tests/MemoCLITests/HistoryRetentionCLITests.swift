// A library keeps history (issue 27): the story of a paragraph deleted on the phone, shown and
// brought back on the laptop, and the retention period `memo history --keep` sets (FORMAT.md,
// "History retention"). The clock is the test's (`MEMO_TEST_NOW_MILLISECONDS`, a self-check
// build's test hook).

import Foundation
import Testing

@Suite("memo history across libraries, and history retention")
struct HistoryRetentionCLITests {
    static let start: UInt64 = 1_790_000_000_000
    static let hour: UInt64 = 3_600_000
    static let day: UInt64 = 86_400_000
    static let original = "Plans\nA paragraph deleted on the phone.\nThe rest."

    /// The environment of a command run at `milliseconds` after the test's start.
    static func at(_ milliseconds: UInt64, _ more: [String: String] = [:]) -> [String: String] {
        ["MEMO_TEST_NOW_MILLISECONDS": String(start + milliseconds)].merging(more) { $1 }
    }

    @Test("a paragraph deleted on the phone is shown on the laptop and on a new device, reverted, and the revert undone")
    func deletedOnThePhone() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (laptop, phone, tablet, store) = (sandbox.at("laptop"), sandbox.at("phone"), sandbox.at("tablet"), sandbox.at("store"))
        let id = try sandbox.ok(["new", Self.original], library: laptop, environment: Self.at(0)).stdout.trimmingCharacters(in: .newlines)
        try sandbox.ok(["sync", "--store", store], library: laptop, environment: Self.at(0))
        try sandbox.ok(["sync", "--store", store], library: phone, environment: Self.at(Self.hour))
        // Last Tuesday, on the phone.
        try sandbox.ok(["edit", id, "--delete", "6", "34"], library: phone, environment: Self.at(Self.day))
        try sandbox.ok(["sync"], library: phone, environment: Self.at(Self.day))
        try sandbox.ok(["sync"], library: laptop, environment: Self.at(3 * Self.day))
        #expect(try sandbox.ok(["show", id], library: laptop).stdout == "Plans\nThe rest.")

        let lines = try sandbox.ok(["history", id], library: laptop).stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines[0].contains("+0 -34"), "\(lines)")
        let names = lines.map { String($0.prefix(8)) }
        // The laptop received the deletion, and keeps what it deleted.
        #expect(try sandbox.ok(["show", id, "--at", names[1]], library: laptop).stdout == Self.original)
        let diff = try sandbox.ok(["diff", id], library: laptop).stdout
        #expect(diff.contains("-A paragraph deleted on the phone.\n"), "\(diff)")
        // A device that starts from the store sees it too.
        try sandbox.ok(["sync", "--store", store], library: tablet, environment: Self.at(4 * Self.day))
        #expect(try sandbox.ok(["show", id, "--at", names[1]], library: tablet).stdout == Self.original)
        #expect(try sandbox.ok(["history", id], library: tablet).stdout.split(separator: "\n").map { String($0.prefix(8)) } == names)

        // Back, as an edit on the laptop; undo takes the revert back.
        try sandbox.ok(["revert", id, names[1]], library: laptop, environment: Self.at(4 * Self.day))
        #expect(try sandbox.ok(["show", id], library: laptop).stdout == Self.original)
        try sandbox.ok(["undo", id], library: laptop, environment: Self.at(4 * Self.day))
        #expect(try sandbox.ok(["show", id], library: laptop).stdout == "Plans\nThe rest.")
        // And the revert syncs like any edit.
        try sandbox.ok(["revert", id, names[1]], library: laptop, environment: Self.at(5 * Self.day))
        try sandbox.ok(["sync"], library: laptop, environment: Self.at(5 * Self.day))
        try sandbox.ok(["sync"], library: phone, environment: Self.at(5 * Self.day))
        #expect(try sandbox.ok(["show", id], library: phone).stdout == Self.original)
    }

    @Test("memo history --keep: past the period, show --at says the text is no longer kept; forever keeps it")
    func retentionPeriod() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (library, forever) = (sandbox.at("library"), sandbox.at("forever"))
        var ids: [String: String] = [:]
        for folder in [library, forever] {
            let id = try sandbox.ok(["new", Self.original], library: folder, environment: Self.at(0)).stdout.trimmingCharacters(in: .newlines)
            // Another memo in between: one memo's edits with nothing between are one version.
            try sandbox.ok(["new", "another memo"], library: folder, environment: Self.at(0))
            try sandbox.ok(["edit", id, "--delete", "6", "34"], library: folder, environment: Self.at(Self.hour))
            ids[folder] = id
        }
        let id = ids[library]!
        #expect(try sandbox.ok(["status"], library: library).stdout.contains("deleted text kept for 90 days"))
        #expect(try sandbox.ok(["status", "--json"], library: library).object()["historyKeepDays"] as? Int == 90)
        #expect(try sandbox.ok(["history", "--keep", "2"], library: library, environment: Self.at(Self.hour)).stdout == "Deleted text is kept for 2 days.\n")
        #expect(try sandbox.ok(["status", "--json"], library: library).object()["historyKeepDays"] as? Int == 2)
        let json = try sandbox.ok(["history", "--keep", "forever", "--json"], library: forever, environment: Self.at(Self.hour)).object()
        #expect(json["forever"] as? Bool == true && json["droppedCharacters"] as? Int == 0)
        #expect(try sandbox.ok(["status"], library: forever).stdout.contains("deleted text kept forever"))

        let first = try sandbox.ok(["history", id], library: library).stdout.split(separator: "\n").map { String($0.prefix(8)) }.last!
        #expect(try sandbox.ok(["show", id, "--at", first], library: library).stdout == Self.original)
        // Three days on, the next change drops what was deleted more than two days before.
        try sandbox.ok(["new", "three days later"], library: library, environment: Self.at(3 * Self.day))
        try sandbox.fails(["show", id, "--at", first], status: 1, containing: ["earlier version of the memo cannot be shown"], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Plans\nThe rest.", "the text never changes")
        // Forever: a thousand days on, still shown.
        let foreverID = ids[forever]!
        try sandbox.ok(["new", "much later"], library: forever, environment: Self.at(1_000 * Self.day))
        let foreverFirst = try sandbox.ok(["history", foreverID], library: forever).stdout.split(separator: "\n").map { String($0.prefix(8)) }.last!
        #expect(try sandbox.ok(["show", foreverID, "--at", foreverFirst], library: forever).stdout == Self.original)
        // Setting a shorter period drops at once, and says so.
        let dropped = try sandbox.ok(["history", "--keep", "30"], library: forever, environment: Self.at(1_000 * Self.day)).stdout
        #expect(dropped == "Deleted text is kept for 30 days.\nDropped 34 characters of deleted text older than that.\n", "\(dropped)")

        // Wrong periods: usage errors, nothing changed.
        for bad in ["0", "36501", "abc", "-1", "1.5", ""] {
            try sandbox.fails(["history", "--keep", bad], status: 2, containing: ["36500"], library: library)
        }
        try sandbox.fails(["history", id, "--keep", "5"], status: 2, library: library)
        #expect(try sandbox.ok(["status", "--json"], library: library).object()["historyKeepDays"] as? Int == 2)
        // In Korean and Japanese.
        let korean = try sandbox.ok(["history", "--keep", "30"], library: library, environment: ["LANG": "ko_KR.UTF-8"]).stdout
        #expect(korean.contains("30일 동안"), "\(korean)")
        let japanese = try sandbox.ok(["history", "--keep", "forever"], library: library, environment: ["LANG": "ja_JP.UTF-8"]).stdout
        #expect(japanese.contains("無期限に"), "\(japanese)")
        try sandbox.fails(["history", "--keep", "0"], status: 2, containing: ["1 から 36500"], library: library, environment: ["LANG": "ja_JP.UTF-8"])
    }
}
