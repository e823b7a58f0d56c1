// `memo demo [--dir DIR]`: the main job in one command. Two devices (two libraries) share a
// folder as their blob store, edit the same memo while offline, sync in turn, and converge.
// Each step prints what happened and the `memo` command that does the same by hand.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
                FileHandle.standardError.write(Data(("memo: " + t("demo.usage") + "\n").utf8))
                return 2
            }
        }
        // One folder per user by default, replaced at each run (never a new one per run).
        let root = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("memosync-demo-\(getuid())").path
        do {
            if let refusal = prepare(root) {
                FileHandle.standardError.write(Data(("memo: " + refusal + "\n").utf8))
                return 1
            }
            return try await demo(root: root) ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data(("memo: " + t("demo.failed", ["error": explain(error)]) + "\n").utf8))
            return 1
        }
    }

    /// The file that marks a folder as the demo's own: only such a folder, a new one or an
    /// empty one is written into.
    static let markerName = ".memosync-demo"
    /// What the demo makes in its folder: removed before a run in a folder an earlier run made.
    static let ownEntries = ["alice", "bob", "shared-folder"]

    /// Makes `root` ready for a run, or says (localized) why the demo will not write there: a
    /// file, or a folder that holds other things and no marker (a library of the user's, say).
    static func prepare(_ root: String) -> String? {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: root, isDirectory: &isFolder) {
            guard isFolder.boolValue else { return t("demo.notAFolder", ["path": root]) }
            let entries: [String]
            do {
                entries = try files.contentsOfDirectory(atPath: root)
            } catch {
                return t("demo.unusableFolder", ["path": root, "error": explain(error)])
            }
            if !entries.isEmpty {
                guard entries.contains(markerName) else { return t("demo.notItsFolder", ["path": root]) }
                for entry in ownEntries where entries.contains(entry) {
                    do {
                        try files.removeItem(atPath: root + "/" + entry)
                    } catch {
                        return t("demo.unusableFolder", ["path": root, "error": explain(error)])
                    }
                }
            }
        }
        do {
            try files.createDirectory(atPath: root, withIntermediateDirectories: true)
            try Data("made by memo demo: the next run replaces alice, bob and shared-folder here\n".utf8)
                .write(to: URL(fileURLWithPath: root + "/" + markerName))
        } catch {
            return t("demo.unusableFolder", ["path": root, "error": explain(error)])
        }
        return nil
    }

    private static func say(_ text: String) { print(text) }

    private static func show(_ name: String, _ replica: Replica, _ memo: MemoID) {
        let text = replica.notebook.memo(memo)?.text ?? t("demo.missing")
        say("    \(name): \(text.debugDescription)")
    }

    private static func demo(root: String) async throws -> Bool {
        let store = root + "/shared-folder"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let folder = try DirectoryBlobStore(path: store)
        say(t("demo.title", ["path": root]))
        say("  " + t("demo.folder", ["path": store]) + "\n")

        let alice = try Replica(libraryPath: root + "/alice")
        let bob = try Replica(libraryPath: root + "/bob")
        say("1. " + t("demo.step1"))
        say("    alice \(alice.id)   bob \(bob.id)\n")

        let memo = try alice.createMemo(text: "Shopping\nmilk")
        try await alice.save()
        try await alice.sync(with: folder)
        say("2. " + t("demo.step2"))
        say("     memo --library \(root)/alice new 'Shopping⏎milk'")
        say("     memo --library \(root)/alice sync --store \(store)")
        let bobFirst = try await bob.sync(with: folder)
        say("   " + t("demo.bobGets", ["read": Format.count(bobFirst.blobsRead, "blob"), "applied": Format.count(bobFirst.operationsApplied, "operation")]))
        show("bob", bob, memo)
        say("")

        say("3. " + t("demo.step3"))
        try alice.edit(memo, replacingUTF16: 13..<13, with: ", eggs")
        try bob.edit(memo, replacingUTF16: 0..<8, with: "Groceries")
        try bob.edit(memo, replacingUTF16: 10..<10, with: "oat ")
        try await alice.save()
        try await bob.save()
        show("alice", alice, memo)
        show("bob  ", bob, memo)
        say("")

        say("4. " + t("demo.step4"))
        let aliceReport = try await alice.sync(with: folder)
        say("    alice: " + t("demo.published", ["written": Format.count(aliceReport.blobsWritten, "blob"), "read": Format.count(aliceReport.blobsRead, "blob")]))
        let bobReport = try await bob.sync(with: folder)
        say("    bob:   " + t("demo.publishedApplied", ["written": Format.count(bobReport.blobsWritten, "blob"), "read": Format.count(bobReport.blobsRead, "blob"), "applied": Format.count(bobReport.operationsApplied, "operation")]))
        let aliceAgain = try await alice.sync(with: folder)
        say("    alice: " + t("demo.readApplied", ["read": Format.count(aliceAgain.blobsRead, "blob"), "applied": Format.count(aliceAgain.operationsApplied, "operation")]) + "\n")

        say("5. " + t("demo.step5"))
        show("alice", alice, memo)
        show("bob  ", bob, memo)
        let converged = alice.notebook.encoded() == bob.notebook.encoded()
            && alice.notebook.memo(memo)?.text == "Groceries\noat milk, eggs"
        say("\n   " + t(converged ? "demo.converged" : "demo.diverged"))
        say("   " + t("demo.byHand") + " memo --library \(root)/bob show \(memo.description.prefix(8))")
        await alice.close()
        await bob.close()
        return converged
    }
}
