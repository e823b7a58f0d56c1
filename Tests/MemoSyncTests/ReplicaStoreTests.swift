import Foundation
import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Sync against a store that holds damaged and foreign blobs; garbage collection; bootstrap
/// from a snapshot; cloned and restored libraries.
@Suite struct ReplicaStoreTests {
    private func replica(_ environment: TestEnvironment, _ disk: MemoryDisk = MemoryDisk(), _ configuration: SyncConfiguration = SyncConfiguration()) throws -> Replica {
        try Replica(disk: disk, environment: environment.environment, configuration: configuration)
    }

    /// FORMAT.md, "Heads": "In a store where every operation is in a segment, syncs write no
    /// heads: one change costs the writer its segment and the reader that segment."
    @Test func oneChangeCostsTheWriterOneSegmentAndTheReaderOneRead() async throws {
        let environment = TestEnvironment(seed: 31)
        let store = InMemoryBlobStore()
        let writer = try replica(environment)
        let reader = try replica(environment)
        let memo = try writer.createMemo(text: "Groceries\nmilk")
        try await syncUntilQuiet([writer, reader], store: store)
        var plainRounds = 0
        for round in 0..<10 {
            try writer.edit(memo, replacingUTF16: 0..<0, with: "\(round)")
            let headsBefore = store.keys.filter { $0.contains("/heads/") }
            let published = try await writer.sync(with: store)
            #expect(published.isComplete && published.publishedSegment != nil, "round \(round): \(published)")
            let received = try await reader.sync(with: store)
            #expect(received.isComplete && received.blobsWritten == 0, "round \(round): \(received)")
            #expect(reader.notebook.memo(memo)?.text == writer.notebook.memo(memo)?.text)
            // A sync that writes a snapshot (every fourth segment, "Publishing") writes a head
            // naming it; every other one writes its segment alone, and the reader reads it alone.
            guard published.publishedSnapshot == nil else { continue }
            plainRounds += 1
            #expect(published.blobsWritten == 1 && published.publishedHead == nil, "round \(round): \(published)")
            #expect(store.keys.filter { $0.contains("/heads/") } == headsBefore, "round \(round): a head was written")
            #expect(received.blobsRead == 1, "round \(round): \(received)")
        }
        #expect(plainRounds >= 6)
    }

    @Test func damagedAndForeignBlobsAreSkippedAndReported() async throws {
        let environment = TestEnvironment(seed: 41)
        let store = InMemoryBlobStore()
        let alice = try replica(environment)
        let bob = try replica(environment)
        let memo = try alice.createMemo(text: "one")
        let first = try await alice.sync(with: store)
        let good = try #require(first.publishedSegment)
        let goodBytes = try #require(store.bytes(key: good))
        try alice.edit(memo, replacingUTF16: 3..<3, with: " two")
        let second = try #require(try await alice.sync(with: store).publishedSegment)
        let secondBytes = try #require(store.bytes(key: second))
        // A conflicted copy of the first segment, a truncated and a bit-flipped copy of the
        // second under other names, an unknown format version, a file no MemoSync wrote.
        let prefix = StoreLayout.root + "\(alice.id)/segments/"
        let goodName = String(good.dropFirst(prefix.count))
        let secondName = String(second.dropFirst(prefix.count)).replacingOccurrences(of: ".seg", with: "")
        try store.put(key: prefix + goodName.replacingOccurrences(of: ".seg", with: " (Bob's conflicted copy 2026-01-02).seg"), bytes: goodBytes)
        try store.put(key: prefix + secondName + ".sync-conflict-20260102-101010-ABC.seg", bytes: Array(secondBytes.prefix(secondBytes.count / 2)))
        var flipped = secondBytes
        flipped[flipped.count / 2] ^= 0x10
        try store.put(key: prefix + secondName + " (2).seg", bytes: flipped)
        var newer = goodBytes
        newer[2] = (newer[2] & 0xF0) | 0x0F
        try store.put(key: StoreLayout.root + "\(ReplicaID(0xABCD))/segments/0000000000-0000000001-0000000000000000.seg", bytes: newer)
        try store.put(key: StoreLayout.root + "notes.txt", bytes: Array("hello".utf8))

        let report = try await bob.sync(with: store)
        #expect(bob.notebook.memo(memo)?.text == "one two")
        let reasons = Dictionary(report.skipped.map { ($0.key, $0.reason) }, uniquingKeysWith: { first, _ in first })
        #expect(reasons[StoreLayout.root + "notes.txt"] == .notMemoSync)
        #expect(reasons.values.contains(.unknownVersion(kind: 4, version: 15)))
        // The damaged copies are tried only when the good one does not serve; force that by
        // removing the good second segment.
        try store.delete(key: second)
        let carol = try replica(environment)
        let carolReport = try await carol.sync(with: store)
        let carolReasons = carolReport.skipped.map(\.reason)
        #expect(carolReasons.contains(.incomplete))
        #expect(carolReasons.contains { if case .corrupt = $0 { true } else { false } })
        #expect(carol.notebook.memo(memo)?.text == "one", "the damaged copies hold nothing usable; the conflicted copy of the first does")
        // Once the good blob is back, the next sync gets it.
        try store.put(key: second, bytes: secondBytes)
        try await carol.sync(with: store)
        expectConverged([alice, bob, carol])
    }

    @Test func transientStoreErrorsAreReportedAndTheNextSyncCatchesUp() async throws {
        let environment = TestEnvironment(seed: 42)
        let store = InMemoryBlobStore()
        let alice = try replica(environment)
        let bob = try replica(environment)
        try alice.createMemo(text: "hello")
        store.failNext(1, with: .unavailable(reason: "offline"), on: [.write])
        let failed = try await alice.sync(with: store)
        #expect(!failed.errors.isEmpty)
        #expect(failed.publishedSegment == nil)
        #expect(alice.unpublishedOperationCount > 0)
        store.failNext(1, with: .unavailable(reason: "offline"), on: [.list])
        #expect(try await bob.sync(with: store).errors.count == 1)
        try await syncUntilQuiet([alice, bob], store: store)
        expectConverged([alice, bob])
        #expect(alice.unpublishedOperationCount == 0)
    }

    /// FORMAT.md: "A head under an earlier id of the lineage is never deleted (another copy of
    /// the library may be going on under that id)", while a library's previous head under its
    /// current id is deleted once the new one is written.
    @Test func headsOfEarlierIDsOfTheLineageStay() async throws {
        let environment = TestEnvironment(seed: 47)
        let store = InMemoryBlobStore()
        var configuration = SyncConfiguration()
        configuration.snapshotAfterSegments = 1
        let disk = MemoryDisk()
        func heads(of id: ReplicaID) -> [String] {
            store.keys.filter { if case let .head(replica)? = StoreLayout.parse($0) { replica == id } else { false } }
        }
        /// Edits and syncs until `writer` has written two heads (each snapshot it writes changes
        /// what its head says), at most six rounds; the heads it wrote.
        func writeTwoHeads(_ writer: Replica, _ memo: MemoID, _ label: String) async throws -> Set<String> {
            var written = Set<String>()
            for round in 0..<6 where written.count < 2 {
                try writer.edit(memo, replacingUTF16: 0..<0, with: "\(label) \(round) ")
                _ = try await writer.sync(with: store)
                written.formUnion(heads(of: writer.id))
                environment.advance(milliseconds: 60_000)
            }
            return written
        }
        // A session that writes heads.
        let first = try replica(environment, disk, configuration)
        let memo = try first.createMemo(text: "notes\n")
        let headsWritten = try await writeTwoHeads(first, memo, "first")
        #expect(headsWritten.count >= 2, "the first session wrote heads: \(headsWritten)")
        #expect(heads(of: first.id).count == 1, "its previous head went once the next was written")
        let earlierHead = try #require(heads(of: first.id).first)
        let earlierID = first.id
        await first.close()
        // The next session of the library (a new id; the first joins the lineage) writes its own.
        let second = try replica(environment, disk, configuration)
        #expect(second.id != earlierID)
        let secondHeads = try await writeTwoHeads(second, memo, "second")
        #expect(secondHeads.count >= 2, "the second session wrote heads: \(secondHeads)")
        #expect(heads(of: second.id).count == 1)
        #expect(heads(of: earlierID) == [earlierHead], "the earlier id's head is still in the store")
        #expect(second.syncState.lineage.contains(earlierID))
    }

    /// Segments covered by a snapshot are deleted after the grace period; a replica offline far
    /// longer still converges and publishes its offline edits; the store stays bounded.
    @Test func garbageCollectionWithAReplicaOfflinePastTheGracePeriod() async throws {
        let environment = TestEnvironment(seed: 43)
        let store = InMemoryBlobStore()
        var configuration = SyncConfiguration()
        configuration.snapshotAfterSegments = 4
        configuration.gracePeriodMilliseconds = 3_600_000
        let alice = try replica(environment, MemoryDisk(), configuration)
        let bob = try replica(environment, MemoryDisk(), configuration)
        let carol = try replica(environment, MemoryDisk(), configuration)
        let memo = try alice.createMemo(text: "start\n")
        try await syncUntilQuiet([alice, bob, carol], store: store)
        // Carol goes offline for 30 days and edits.
        try carol.edit(memo, replacingUTF16: 0..<0, with: "carol offline\n")
        var deleted = 0
        for day in 0..<30 {
            for hour in 0..<4 {
                try alice.edit(memo, replacingUTF16: 0..<0, with: "a\(day).\(hour) ")
                try bob.edit(memo, replacingUTF16: 0..<0, with: "b\(day).\(hour) ")
                deleted += try await alice.sync(with: store).blobsDeleted
                deleted += try await bob.sync(with: store).blobsDeleted
                environment.advance(milliseconds: 6 * 3_600_000)
            }
        }
        #expect(deleted > 0, "own segments covered by snapshots are collected")
        // Bounded: per replica, the segments since its newest aged snapshot (up to the
        // snapshot threshold, plus those written in the grace period) and two snapshots.
        let keys = store.keys
        for writer in [alice.id, bob.id] {
            let segments = keys.filter { $0.hasPrefix(StoreLayout.root + "\(writer)/segments/") }.count
            let snapshots = keys.filter { $0.hasPrefix(StoreLayout.root + "\(writer)/snapshots/") }.count
            #expect(segments <= 2 * configuration.snapshotAfterSegments + 2)
            #expect(snapshots <= 2)
        }
        // FORMAT.md: collection deletes the segments an aged snapshot covers "except each id's
        // segment that ends last". A quiet day later (every snapshot aged, nothing new written),
        // each writer's newest snapshot covers its last segment, and that segment is still there.
        func ownSnapshotsCover(_ writer: Replica) throws -> Bool {
            try store.keys.filter { $0.hasPrefix(StoreLayout.root + "\(writer.id)/snapshots/") }.contains { key in
                try Notebook(decoding: try store.read(key: key), replica: ReplicaID(1)).version[writer.id] >= writer.notebook.version[writer.id]
            }
        }
        // Each writes on until a sync of its own ends with a snapshot holding all it made.
        for writer in [alice, bob] {
            for round in 0..<2 * configuration.snapshotAfterSegments where try !ownSnapshotsCover(writer) {
                try writer.edit(memo, replacingUTF16: 0..<0, with: "last \(round) ")
                _ = try await writer.sync(with: store)
                environment.advance(milliseconds: 60_000)
            }
        }
        func segmentEnds(_ writer: Replica) -> [UInt32] {
            store.keys.compactMap { key -> UInt32? in
                guard case let .segment(replica, _, end)? = StoreLayout.parse(key), replica == writer.id else { return nil }
                return end
            }
        }
        let lastEnds = [alice, bob].map { segmentEnds($0).max() ?? 0 }
        let countsBefore = [alice, bob].map { segmentEnds($0).count }
        environment.advance(milliseconds: 24 * 3_600_000)
        _ = try await alice.sync(with: store)
        _ = try await bob.sync(with: store)
        for (index, writer) in [alice, bob].enumerated() {
            let ends = segmentEnds(writer)
            #expect(try ownSnapshotsCover(writer), "\(writer.id): no snapshot covers its last segment, so the rule was not reached")
            #expect(ends.count < countsBefore[index], "\(writer.id): nothing was collected (\(ends.count) segments)")
            #expect(ends.contains(lastEnds[index]), "\(writer.id): segments end at \(ends.sorted()), the last ended at \(lastEnds[index])")
        }
        // Carol comes back: her earlier counters' segments are gone, so she reads a snapshot.
        let report = try await carol.sync(with: store)
        #expect(report.operationsApplied > 0)
        try await syncUntilQuiet([alice, bob, carol], store: store)
        expectConverged([alice, bob, carol])
        #expect(alice.notebook.memo(memo)?.text.contains("carol offline") == true)
        #expect(alice.notebook.memo(memo)?.text.contains("a29.3 ") == true)
    }

    @Test func newReplicaBootstrapsFromOneSnapshot() async throws {
        let environment = TestEnvironment(seed: 44)
        let store = InMemoryBlobStore()
        var configuration = SyncConfiguration()
        configuration.snapshotAfterSegments = 8
        let alice = try replica(environment, MemoryDisk(), configuration)
        for index in 0..<40 {
            try alice.createMemo(text: "memo \(index)\nbody")
            try await alice.sync(with: store)
        }
        let newcomer = try replica(environment, MemoryDisk(), configuration)
        let report = try await newcomer.sync(with: store)
        expectConverged([alice, newcomer])
        // One snapshot, then only the segments after it (fewer than the snapshot threshold).
        #expect(report.blobsRead <= 1 + configuration.snapshotAfterSegments, "read \(report.blobsRead) blobs")
        #expect(newcomer.notebook.list().count == 40)
    }

    @Test func aCopiedLibraryNeverSharesAnIDWithItsOriginal() async throws {
        let environment = TestEnvironment(seed: 45)
        let store = InMemoryBlobStore()
        let disk = MemoryDisk()
        let original = try replica(environment, disk)
        let memo = try original.createMemo(text: "shared\n")
        try await original.sync(with: store)
        // The library folder is copied to a second device while the original is open; both edit.
        let clone = try replica(environment, disk.durableCopy())
        #expect(clone.id != original.id, "every open takes a fresh id")
        #expect(clone.syncState.lineage.contains(original.id), "the original's id is in the copy's lineage")
        try original.edit(memo, replacingUTF16: 7..<7, with: "original's line\n")
        environment.advance(milliseconds: 1_000)
        try clone.edit(memo, replacingUTF16: 7..<7, with: "clone's line\n")
        let cloneMemo = try clone.createMemo(text: "clone only")
        try await original.sync(with: store)
        try await clone.sync(with: store)
        let bob = try replica(environment)
        try await syncUntilQuiet([original, clone, bob], store: store)
        expectConverged([original, clone, bob])
        let text = try #require(bob.notebook.memo(memo)?.text)
        #expect(text.contains("original's line"))
        #expect(text.contains("clone's line"))
        #expect(bob.notebook.memo(cloneMemo)?.text == "clone only")
    }

    @Test func restoredBackupRecoversLaterEditsAndKeepsNewOnes() async throws {
        let environment = TestEnvironment(seed: 46)
        let store = InMemoryBlobStore()
        let disk = MemoryDisk()
        let alice = try replica(environment, disk)
        let memo = try alice.createMemo(text: "v1\n")
        try await alice.sync(with: store)
        let backup = disk.durableCopy()
        try alice.edit(memo, replacingUTF16: 3..<3, with: "after the backup\n")
        try await alice.sync(with: store)
        await alice.close()
        // The device is restored from the backup, and edited before it syncs.
        let restored = try replica(environment, backup)
        #expect(restored.id != alice.id)
        try restored.edit(memo, replacingUTF16: 0..<0, with: "after the restore\n")
        try await restored.sync(with: store)
        let text = try #require(restored.notebook.memo(memo)?.text)
        #expect(text.contains("after the backup"))
        #expect(text.contains("after the restore"))
        let bob = try replica(environment)
        try await syncUntilQuiet([restored, bob], store: store)
        expectConverged([restored, bob])
    }

    @Test func restoredBackupWithoutNewEditsCatchesUp() async throws {
        let environment = TestEnvironment(seed: 47)
        let store = InMemoryBlobStore()
        let disk = MemoryDisk()
        let alice = try replica(environment, disk)
        let memo = try alice.createMemo(text: "v1\n")
        try await alice.sync(with: store)
        let backup = disk.durableCopy()
        try alice.edit(memo, replacingUTF16: 3..<3, with: "later")
        try await alice.sync(with: store)
        let restored = try replica(environment, backup)
        let report = try await restored.sync(with: store)
        #expect(report.publishedSegments.isEmpty, "nothing of its own to publish")
        #expect(restored.notebook.memo(memo)?.text == "v1\nlater")
        try restored.edit(memo, replacingUTF16: 0..<0, with: "more ")
        try await restored.sync(with: store)
        let bob = try replica(environment)
        try await syncUntilQuiet([restored, bob], store: store)
        expectConverged([restored, bob])
        #expect(bob.notebook.memo(memo)?.text == "more v1\nlater")
    }

    @Test func unpublishedEditsOfAnEarlierSessionArePublishedAfterReopening() async throws {
        let environment = TestEnvironment(seed: 49)
        let store = InMemoryBlobStore()
        let disk = MemoryDisk()
        let alice = try replica(environment, disk)
        let memo = try alice.createMemo(text: "typed offline")
        try await alice.save()
        let firstID = alice.id
        await alice.close()
        let reopened = try replica(environment, disk)
        #expect(reopened.id != firstID)
        #expect(reopened.unpublishedOperationCount > 0)
        let report = try await reopened.sync(with: store)
        #expect(report.publishedSegments.count == 1)
        #expect(report.publishedSegments.first.map { $0.contains(firstID.description) } == true)
        #expect(reopened.unpublishedOperationCount == 0)
        let bob = try replica(environment)
        try await bob.sync(with: store)
        #expect(bob.notebook.memo(memo)?.text == "typed offline")
    }

    @Test func crashAfterPublishingIsRecognisedAsOwnWork() async throws {
        let environment = TestEnvironment(seed: 48)
        let store = InMemoryBlobStore()
        let disk = MemoryDisk()
        let alice = try replica(environment, disk)
        try alice.createMemo(text: "x")
        // Publish, then die before the sync state is saved.
        try alice.beginSync()
        try await driveSync(alice, on: store)
        disk.crash()
        let reopened = try replica(environment, disk)
        #expect(reopened.syncState.published.isEmpty)
        let report = try await reopened.sync(with: store)
        #expect(report.publishedSegment == nil, "the published segment is recognised, not published again")
        #expect(reopened.unpublishedOperationCount == 0)
    }
}
