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
