// `memo purge` says "their text is gone from this library, and from other devices at their
// next sync" (memo help purge). Issue 29, message 9: the text stayed in the journal until a
// compaction. Every file of both libraries is searched for it.

import Foundation
import Testing

@Suite("memo purge leaves no text behind")
struct PurgeCLITests {
    /// The library files (relative paths) whose bytes contain `text`.
    private func files(of sandbox: Sandbox, _ library: String, containing text: String) -> [String] {
        let needle = Array(text.utf8)
        return sandbox.contents(of: library).compactMap { name, bytes in
            guard bytes.count >= needle.count else { return nil }
            let found = (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
            return found ? name : nil
        }.sorted()
    }

    @Test("purged text is in no file of this library, nor of another after its next sync")
    func purgedTextIsGoneFromEveryLibraryFile() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (here, there, store) = (sandbox.at("here"), sandbox.at("there"), sandbox.at("store"))
        let secret = "the door code is 4711"
        let kept = "shopping list: oat milk"
        let id = try sandbox.newMemo(secret, library: here)
        _ = try sandbox.newMemo(kept, library: here)
        try sandbox.ok(["edit", id, "--insert", "0", "Note: "], library: here)
        try sandbox.ok(["sync", "--store", store], library: here)
        try sandbox.ok(["sync", "--store", store], library: there)
        // The text is in both libraries' files (the journals hold it), or the test shows nothing.
        #expect(!files(of: sandbox, here, containing: secret).isEmpty)
        #expect(!files(of: sandbox, there, containing: secret).isEmpty)

        try sandbox.ok(["delete", id], library: here)
        try sandbox.ok(["purge", id], library: here)
        #expect(files(of: sandbox, here, containing: secret) == [], "here, after the purge")
        #expect(files(of: sandbox, here, containing: kept) != [], "the other memo is kept")

        // The other device: the purge arrives with its next sync.
        try sandbox.ok(["sync"], library: here)
        try sandbox.ok(["sync"], library: there)
        #expect(try sandbox.ok(["list"], library: there).stdout.contains("shopping list"))
        #expect(files(of: sandbox, there, containing: secret) == [], "there, after the purge arrived")
        // And stays gone through later edits and syncs.
        _ = try sandbox.newMemo("later", library: there)
        try sandbox.ok(["sync"], library: there)
        #expect(files(of: sandbox, there, containing: secret) == [])
        #expect(files(of: sandbox, here, containing: secret) == [])
    }
}

/// A purge that arrives by sync: the undo history (cli-history.json) kept the purged memo's
/// texts before and after each edit, since only a purge made here forgot them.
@Suite("a purge received by sync leaves no text in the undo history")
struct PurgeHistoryCLITests {
    private func holds(_ path: String, _ text: String) -> Bool {
        guard let bytes = FileManager.default.contents(atPath: path) else { return false }
        return String(decoding: bytes, as: UTF8.self).contains(text)
    }

    @Test("phone edits, laptop purges, phone syncs: the text is in no file of the phone's library")
    func purgeBySyncForgetsTheHistory() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (phone, laptop, store) = (sandbox.at("phone"), sandbox.at("laptop"), sandbox.at("store"))
        let secret = "the safe opens with 0815"
        let id = try sandbox.newMemo("draft", library: phone)
        try sandbox.ok(["edit", id, "--text", secret], library: phone)
        try sandbox.ok(["edit", id, "--insert", "0", "Note: "], library: phone)
        let other = try sandbox.newMemo("groceries", library: phone)
        try sandbox.ok(["edit", other, "--text", "groceries: oat milk"], library: phone)
        let history = phone + "/cli-history.json"
        #expect(holds(history, secret), "the history holds the edit's texts, or the test shows nothing")
        try sandbox.ok(["sync", "--store", store], library: phone)

        try sandbox.ok(["sync", "--store", store], library: laptop)
        try sandbox.ok(["delete", id], library: laptop)
        try sandbox.ok(["purge", id], library: laptop)
        try sandbox.ok(["sync"], library: laptop)

        let stale = try #require(FileManager.default.contents(atPath: history))
        try sandbox.ok(["sync"], library: phone)
        let files = sandbox.contents(of: phone).filter { String(decoding: $0.value, as: UTF8.self).contains(secret) }.keys.sorted()
        #expect(files == [], "the purged text stayed in \(files)")
        // The other memo's steps stay: its edit can still be undone.
        #expect(holds(history, "groceries: oat milk"))
        try sandbox.ok(["undo", other], library: phone)
        #expect(try sandbox.ok(["show", other], library: phone).stdout == "groceries")

        // A history that still holds a purged memo's steps (written by an older memo, or synced
        // by something other than `memo sync`) loses them at the next command that reads it.
        try stale.write(to: URL(fileURLWithPath: history))
        try sandbox.ok(["edit", other, "--text", "groceries: milk"], library: phone)
        #expect(!holds(history, secret))
        #expect(holds(history, "groceries: milk"))
    }
}
