// A replica that shares its library folder (`Replica.shareFolder()`, what `memo sync` does):
// other processes change the library while it stays open, and nothing of theirs or its own is
// lost, published twice or made under one id by two of them.

import Foundation
import MemoCRDT
import MemoNotes
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

@Suite("a replica sharing its folder")
struct SharedFolderTests {
    func temporaryFolder() -> String {
        var generator = SystemRandomNumberGenerator()
        return FileManager.default.temporaryDirectory.appendingPathComponent("shared-folder-\(String(generator.next(), radix: 16))").path
    }

    @Test("another replica edits while it is shared; its save merges them and its sync publishes them")
    func otherWriterBetweenSaves() async throws {
        let path = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = InMemoryBlobStore()
        // A sealed library: the next open keeps its id.
        let first = try Replica(libraryPath: path)
        let memo = try first.createMemo(text: "Shared\nfolder")
        try await first.save()
        let sealedID = first.id
        await first.close()

        let syncing = try Replica(libraryPath: path)
        #expect(syncing.id == sealedID)
        // Not shared: the folder is locked.
        #expect(throws: ReplicaError.self) { _ = try Replica(libraryPath: path) }
        try syncing.shareFolder()
        #expect(syncing.sharesFolder)

        // Another process (here another replica on its own descriptor) opens, edits, saves, closes.
        let editor = try Replica(libraryPath: path)
        #expect(editor.id != sealedID, "the seal must not let a second writer take the open session's id")
        try editor.edit(memo, replacingUTF16: 0..<0, with: "edited ")
        let created = try editor.createMemo(text: "made meanwhile")
        try await editor.save()
        let editorID = editor.id
        await editor.close()

        // Received work and the other's edits meet at the sync's saves.
        _ = syncing.takeEvents()
        let report = try await syncing.sync(with: store)
        #expect(report.isComplete, "\(report.errors)")
        #expect(syncing.notebook.memo(memo)?.text == "edited Shared\nfolder")
        #expect(syncing.notebook.memo(created)?.text == "made meanwhile")
        // The other's operations went out with this sync (its id, all published, then left
        // the lineage).
        #expect(report.publishedOperationCount >= syncing.notebook.version[editorID])
        #expect(syncing.notebook.version[editorID] > 0)
        // The other's changes arrived as events.
        #expect(syncing.takeEvents().contains { if case .added(created, _) = $0 { true } else { false } })
        // Published once: the next sync has nothing to publish.
        let again = try await syncing.sync(with: store)
        #expect(again.publishedOperationCount == 0)
        #expect(syncing.unpublishedOperationCount == 0)
        await syncing.close()

        // A device reading the store gets the other's edits.
        let reader = try Replica(disk: MemoryDisk())
        try await reader.sync(with: store)
        #expect(reader.notebook.memo(memo)?.text == "edited Shared\nfolder")
        #expect(reader.notebook.memo(created)?.text == "made meanwhile")
        // Everything is on disk, and the close sealed the folder again under the sync's id.
        let reopened = try Replica(libraryPath: path)
        #expect(reopened.id == sealedID)
        #expect(reopened.notebook.memo(created)?.text == "made meanwhile")
        #expect(reopened.unpublishedOperationCount == 0)
        await reopened.close()
    }

    @Test("a compaction by another process meanwhile is read, not written over")
    func otherCompaction() async throws {
        let path = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let shared = try Replica(libraryPath: path)
        let memo = try shared.createMemo(text: "one")
        try await shared.save()
        try shared.shareFolder()
        let other = try Replica(libraryPath: path)
        try other.edit(memo, replacingUTF16: 3..<3, with: " two")
        try await other.compact()
        await other.close()
        try shared.edit(memo, replacingUTF16: 0..<0, with: "zero ")
        try await shared.save()
        await shared.close()
        let reopened = try Replica(libraryPath: path)
        #expect(reopened.notebook.memo(memo)?.text == "zero one two")
        await reopened.close()
    }

    @Test("refreshFromSharedFolder merges another process's save without saving, and gives up while the lock is held")
    func refreshWithoutSaving() async throws {
        let path = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let shared = try Replica(libraryPath: path)
        let memo = try shared.createMemo(text: "served")
        try shared.saveNow()
        // Not shared: nothing to look at, nothing done.
        #expect(try shared.refreshFromSharedFolder(waitingMilliseconds: 0))
        try shared.shareFolder()
        // Nothing changed: true, nothing merged.
        let before = shared.notebook.version
        #expect(try shared.refreshFromSharedFolder(waitingMilliseconds: 0))
        #expect(shared.notebook.version == before)

        let writer = try Replica(libraryPath: path)
        let created = try writer.createMemo(text: "written by memo new")
        try writer.edit(memo, replacingUTF16: 0..<0, with: "[cli] ")
        try writer.saveNow()
        // While another process holds the library, the look gives up at once, merging nothing.
        #expect(try shared.refreshFromSharedFolder(waitingMilliseconds: 0) == false)
        #expect(shared.notebook.memo(created) == nil)
        writer.closeNow()

        _ = shared.takeEvents()
        #expect(try shared.refreshFromSharedFolder(waitingMilliseconds: 0))
        #expect(shared.notebook.memo(created)?.text == "written by memo new")
        #expect(shared.notebook.memo(memo)?.text == "[cli] served")
        #expect(shared.takeEvents().contains { if case .added(created, _) = $0 { true } else { false } })
        // The lock was released: another process opens the library at once.
        let reader = try Replica(libraryPath: path)
        #expect(reader.notebook.memo(created) != nil)
        reader.closeNow()
        await shared.close()
        // Closed: refused.
        #expect(throws: ReplicaError.closed) { _ = try shared.refreshFromSharedFolder(waitingMilliseconds: 0) }
    }

    @Test("a merge that fails after the folder's lock was taken again releases the lock")
    func aFailedMergeLeavesTheFolderUnlocked() throws {
        let path = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let shared = try Replica(libraryPath: path)
        _ = try shared.createMemo(text: "served")
        try shared.saveNow()
        try shared.shareFolder()
        // Another process leaves a state file no MemoSync reads: the next save takes the lock,
        // reads the changed files, and fails.
        try Data("not a library state".utf8).write(to: URL(fileURLWithPath: path + "/state"))
        _ = try shared.createMemo(text: "typed meanwhile")
        #expect(throws: ReplicaError.self) { try shared.saveNow() }
        // The lock is free: another process (here another FileDisk) takes it at once. Before,
        // the failed save kept it until this replica closed.
        let other = try FileDisk(path: path)
        #expect(other.holdsLock)
        other.close()
        shared.closeNow()
    }
}
