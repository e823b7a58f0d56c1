// `memo sync` holds the library only while it reads or writes the library files, not while it
// waits on the store (issue 25, part 4): commands that change the library do not wait for it.
// The slow store is the test build's gate (Sources/memo/TestHooks.swift, MEMO_TEST_STORE_GATE):
// the sync's first blob read waits for a file the test creates, so the order of events is
// fixed without any timing.

import Foundation
import Testing

@Suite("a sync shares the library while it waits on the store")
struct SyncSharingTests {
    @Test("an edit while a slow sync runs finishes before the sync, and both are in the library afterwards")
    func editDuringSlowSync() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = sandbox.at("store")
        let mine = sandbox.at("mine")
        let other = sandbox.at("other")
        let id = try sandbox.newMemo("Mine\nfirst text", library: mine)
        try sandbox.ok(["sync", "--store", store], library: mine)
        try sandbox.ok(["sync", "--store", store], library: other)
        let theirs = try sandbox.newMemo("Theirs\nfrom the other device", library: other)
        try sandbox.ok(["sync"], library: other)

        let gate = sandbox.at("gate")
        try FileManager.default.createDirectory(atPath: gate, withIntermediateDirectories: true)
        let sync = try sandbox.start(["sync"], library: mine, environment: ["MEMO_TEST_STORE_GATE": gate])
        // The sync listed the store and waits for its first read: the store is "slow" now.
        sandbox.waitForFile(gate + "/reading")
        let edit = try sandbox.memo(["edit", id, "--insert", "0", "typed "], library: mine)
        #expect(edit.status == 0, "\(edit)")
        #expect(!edit.stderr.contains("waiting for another memo command"), "\(edit)")
        // The edit is done and the sync is still waiting on the store.
        #expect(sync.process.isRunning)
        // A second sync waits for the first (one sync of a library at a time): not started here.
        _ = FileManager.default.createFile(atPath: gate + "/go", contents: Data())
        let synced = try sync.wait()
        #expect(synced.status == 0, "\(synced)")

        // Both the edit and what the sync received are in the library.
        #expect(try sandbox.ok(["show", id], library: mine).stdout.hasPrefix("typed Mine\nfirst text"))
        #expect(try sandbox.ok(["show", theirs], library: mine).stdout.hasPrefix("Theirs\nfrom the other device"))
        // And the edit goes out with the next sync: the other device gets it.
        try sandbox.ok(["sync"], library: mine)
        try sandbox.ok(["sync"], library: other)
        #expect(try sandbox.ok(["show", id], library: other).stdout.hasPrefix("typed Mine\nfirst text"))
        #expect(try sandbox.ok(["status", "--json"], library: mine).object()["unpublishedOperations"] as? Int ?? 0 == 0)
    }

    @Test("a second sync of the library waits for the first, and edits made meanwhile are published once")
    func secondSyncWaits() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = sandbox.at("store")
        let mine = sandbox.at("mine")
        let other = sandbox.at("other")
        let id = try sandbox.newMemo("Shared\nmemo", library: mine)
        try sandbox.ok(["sync", "--store", store], library: mine)
        try sandbox.ok(["sync", "--store", store], library: other)
        _ = try sandbox.newMemo("From the other", library: other)
        try sandbox.ok(["sync"], library: other)

        let gate = sandbox.at("gate")
        try FileManager.default.createDirectory(atPath: gate, withIntermediateDirectories: true)
        let first = try sandbox.start(["sync"], library: mine, environment: ["MEMO_TEST_STORE_GATE": gate])
        sandbox.waitForFile(gate + "/reading")
        for round in 0..<3 {
            try sandbox.ok(["edit", id, "--insert", "0", "e\(round) "], library: mine)
        }
        let second = try sandbox.start(["sync"], library: mine)
        // The second waits for the sync lock; the first goes on once the store answers.
        _ = FileManager.default.createFile(atPath: gate + "/go", contents: Data())
        #expect(try first.wait().status == 0)
        #expect(try second.wait().status == 0)
        try sandbox.ok(["sync"], library: other)
        #expect(try sandbox.ok(["show", id], library: other).stdout.hasPrefix("e2 e1 e0 Shared\nmemo"))
        #expect(try sandbox.ok(["show", id], library: mine).stdout.hasPrefix("e2 e1 e0 Shared\nmemo"))
    }
}
