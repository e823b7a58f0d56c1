// `memo demo [--dir DIR]`: the main job in one command. Two devices (two libraries) share a
// folder as their blob store, edit the same memo while offline, sync in turn, and converge.
// Each step prints what happened and the `memo` command that does the same by hand.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync

enum Demo {
    /// Runs the demo; returns the exit status.
    static func run(arguments: [String]) async -> Int32 {
        var folder: String?
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--dir", index + 1 < arguments.count {
                folder = arguments[index + 1]
                index += 2
            } else {
                FileHandle.standardError.write(Data("memo: usage: memo demo [--dir DIR]\n".utf8))
                return 2
            }
        }
        let root = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("memosync-demo-\(UUID().uuidString.prefix(8))").path
        do {
            return try await demo(root: root) ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("memo: demo failed: \(error)\n".utf8))
            return 1
        }
    }

    private static func say(_ text: String) { print(text) }

    private static func show(_ name: String, _ replica: Replica, _ memo: MemoID) {
        let text = replica.notebook.memo(memo)?.text ?? "(missing)"
        say("    \(name): \(text.debugDescription)")
    }

    private static func demo(root: String) async throws -> Bool {
        let store = root + "/shared-folder"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let folder = try DirectoryBlobStore(path: store)
        say("MemoSync demo in \(root)")
        say("  the shared folder (any folder Dropbox, iCloud Drive or Syncthing keeps in step): \(store)\n")

        let alice = try Replica(libraryPath: root + "/alice")
        let bob = try Replica(libraryPath: root + "/bob")
        say("1. Two devices, each with its own library (and a fresh replica id for this session):")
        say("    alice \(alice.id)   bob \(bob.id)\n")

        let memo = try alice.createMemo(text: "Shopping\nmilk")
        try await alice.save()
        try await alice.sync(with: folder)
        say("2. Alice writes a memo and syncs      memo --library \(root)/alice new 'Shopping⏎milk'")
        say("                                       memo --library \(root)/alice sync --store \(store)")
        let bobFirst = try await bob.sync(with: folder)
        say("   Bob syncs and gets it (\(bobFirst.blobsRead) blob read, \(bobFirst.operationsApplied) operations applied):")
        show("bob", bob, memo)
        say("")

        say("3. Both go offline and edit the same memo:")
        try alice.edit(memo, replacingUTF16: 13..<13, with: ", eggs")
        try bob.edit(memo, replacingUTF16: 0..<8, with: "Groceries")
        try bob.edit(memo, replacingUTF16: 10..<10, with: "oat ")
        try await alice.save()
        try await bob.save()
        show("alice", alice, memo)
        show("bob  ", bob, memo)
        say("")

        say("4. They sync through the folder, in turn (any order gives the same result):")
        let aliceReport = try await alice.sync(with: folder)
        say("    alice: published \(aliceReport.blobsWritten) blob(s), read \(aliceReport.blobsRead)")
        let bobReport = try await bob.sync(with: folder)
        say("    bob:   published \(bobReport.blobsWritten) blob(s), read \(bobReport.blobsRead), applied \(bobReport.operationsApplied) operations")
        let aliceAgain = try await alice.sync(with: folder)
        say("    alice: read \(aliceAgain.blobsRead), applied \(aliceAgain.operationsApplied) operations\n")

        say("5. Both hold the same memo, with both edits:")
        show("alice", alice, memo)
        show("bob  ", bob, memo)
        let converged = alice.notebook.encoded() == bob.notebook.encoded()
            && alice.notebook.memo(memo)?.text == "Groceries\noat milk, eggs"
        say("\n   converged: \(converged ? "yes" : "NO")")
        say("   try it by hand: memo --library \(root)/bob show \(memo.description.prefix(8))")
        await alice.close()
        await bob.close()
        return converged
    }
}
