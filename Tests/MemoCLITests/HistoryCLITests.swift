// `memo history`, `memo show --at`, `memo diff` and `memo revert` (issue 27), as `memo help`
// describes them: newest first, one version a line starting with its short name, the same
// names on every device holding the same edits; revert as an edit 'memo undo' takes back.

import Foundation
import Testing

@Suite("memo history, show --at, diff, revert")
struct HistoryCLITests {
    @Test("two devices list the same versions; show, diff and revert take their names")
    func versionsAcrossDevices() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (here, there, store) = (sandbox.at("here"), sandbox.at("there"), sandbox.at("store"))
        let id = try sandbox.newMemo("Groceries\nmilk", library: here)
        try sandbox.ok(["sync", "--store", store], library: here)
        try sandbox.ok(["sync", "--store", store], library: there)
        try sandbox.ok(["edit", id, "--insert", "14", "\neggs"], library: there)
        try sandbox.ok(["sync"], library: there)
        try sandbox.ok(["sync"], library: here)

        let lines = try sandbox.ok(["history", id], library: here).stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        let names = lines.map { String($0.prefix(8)) }
        #expect(names.allSatisfy { $0.count == 8 && $0.allSatisfy(\.isHexDigit) })
        #expect(lines[1].hasSuffix("this device"), "the oldest version was made here: \(lines)")
        #expect(lines[0].contains("+5 -0"), "\(lines)")
        // The other device lists the same names, newest first.
        let thereLines = try sandbox.ok(["history", id], library: there).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        #expect(thereLines == names)
        let objects = try sandbox.ok(["history", id, "--json"], library: here).objects()
        #expect(objects.map { $0["version"] as? String } == names)
        #expect(objects.map { $0["inserted"] as? Int } == [5, 14])
        #expect(objects.map { $0["thisDevice"] as? Bool } == [false, true])

        #expect(try sandbox.ok(["show", id, "--at", names[1]], library: here).stdout == "Groceries\nmilk")
        #expect(try sandbox.ok(["show", id, "--at", String(names[0].prefix(5))], library: here).stdout == "Groceries\nmilk\neggs")
        // --before: the newest version made before a time (as memo prints times, or ISO 8601).
        #expect(try sandbox.ok(["show", id, "--before", "2999-01-01"], library: here).stdout == "Groceries\nmilk\neggs")
        #expect(try sandbox.ok(["show", id, "--before", "2999-01-01T00:00:00Z", "--json"], library: here).object()["version"] as? String == names[0])
        try sandbox.fails(["show", id, "--before", "2000-01-01 00:00"], status: 1, containing: ["memo history"], library: here)
        try sandbox.fails(["show", id, "--before", "yesterday"], status: 2, containing: ["2026-11-20"], library: here)
        try sandbox.fails(["show", id, "--before", "2999-01-01", "--at", names[0]], status: 2, library: here)
        let diff = try sandbox.ok(["diff", id], library: here).stdout
        #expect(diff.contains("+eggs\n") && diff.contains(" milk\n") && diff.hasPrefix("--- "), "\(diff)")
        let json = try sandbox.ok(["diff", id, names[1], names[0], "--json"], library: here).object()
        let changes = try #require(json["changes"] as? [[String: Any]])
        #expect(changes.count == 1 && changes[0]["kind"] as? String == "inserted" && changes[0]["text"] as? String == "\neggs")
        #expect(changes[0]["toUTF16"] as? [Int] == [14, 19])

        // Revert is an edit: saved, synced like any other, taken back by undo.
        try sandbox.ok(["revert", id, names[1]], library: here)
        #expect(try sandbox.ok(["show", id], library: here).stdout == "Groceries\nmilk")
        try sandbox.ok(["undo", id], library: here)
        #expect(try sandbox.ok(["show", id], library: here).stdout == "Groceries\nmilk\neggs")

        // Bad names: usage errors (exit 2) and unknown versions (exit 1), with what to do.
        try sandbox.fails(["show", id, "--at", "xyz"], status: 2, containing: ["memo history"], library: here)
        let unknown = ["0000", "1111", "2222", "3333"].first { candidate in !names.contains { $0.hasPrefix(candidate) } }!
        try sandbox.fails(["diff", id, unknown], status: 1, containing: ["memo history"], library: here)
        try sandbox.fails(["diff", id, names[0], names[1], names[0]], status: 2, library: here)
        try sandbox.fails(["revert", id], status: 2, library: here)
        // In Korean and Japanese too.
        let korean = try sandbox.fails(["revert", id, unknown], status: 1, library: here, environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.stderr.contains("버전"), "\(korean)")
        let japanese = try sandbox.fails(["revert", id, unknown], status: 1, library: here, environment: ["LANG": "ja_JP.UTF-8"])
        #expect(japanese.stderr.contains("バージョン"), "\(japanese)")
    }
}
