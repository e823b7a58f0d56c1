import Foundation
import Synchronization
import Testing

@testable import MemoSync
import MemoSyncTesting

/// A blob a sync cannot use is reported once per problem, read again until found bad for good
/// (issue 25), and used as soon as it is whole (issue 18: "each one is skipped, reported once").
@Suite struct SkippedBlobTests {
    /// A store over an in-memory one that records the keys read and can fail reads of one key.
    final class RecordingStore: BlobStore {
        let inner = InMemoryBlobStore()
        private let state = Mutex<(reads: [String], failingKey: String?)>(([], nil))

        var reads: [String] { state.withLock { $0.reads } }
        func failReads(of key: String?) { state.withLock { $0.failingKey = key } }
        func forgetReads() { state.withLock { $0.reads = [] } }

        func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] { try inner.list(prefix: prefix) }
        func read(key: String) throws(BlobStoreError) -> [UInt8] {
            let failing = state.withLock { state in
                state.reads.append(key)
                return state.failingKey == key
            }
            if failing { throw .io(reason: "connection reset") }
            return try inner.read(key: key)
        }
        func write(key: String, bytes: [UInt8]) throws(BlobStoreError) { try inner.write(key: key, bytes: bytes) }
        func delete(key: String) throws(BlobStoreError) { try inner.delete(key: key) }
    }

    /// Alice and Bob share a memo; Alice then edits it and publishes one segment, returned with
    /// its honest bytes. Bob has not seen it.
    private static func twoDevicesAndANewSegment(_ store: RecordingStore) async throws -> (alice: Replica, bob: Replica, memo: MemoID, segment: String, bytes: [UInt8]) {
        let environment = TestEnvironment(seed: 18)
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let memo = try alice.createMemo(text: "Groceries")
        try await alice.sync(with: store)
        try await bob.sync(with: store)
        try alice.edit(memo, replacingUTF16: 9..<9, with: "\nmilk")
        let report = try await alice.sync(with: store)
        let segment = try #require(report.publishedSegment)
        return (alice, bob, memo, segment, try #require(store.inner.bytes(key: segment)))
    }

    @Test func aDamagedBlobIsReadUntilFoundBadTwiceAndThenNotUntilItChanges() async throws {
        let store = RecordingStore()
        let (alice, bob, memo, segment, bytes) = try await Self.twoDevicesAndANewSegment(store)
        try store.inner.corrupt(key: segment, byteAt: bytes.count / 2)
        for sync in 1...4 {
            store.forgetReads()
            let report = try await bob.sync(with: store)
            // Read by the first two syncs (it may have been damaged on the way); the second
            // reads the same bytes: bad for good, not read again while listed the same.
            #expect(store.reads.contains(segment) == (sync <= 2), "sync \(sync)")
            #expect(report.skipped.map(\.key) == (sync == 1 ? [segment] : []), "sync \(sync)")
            #expect(report.skippedAgainCount == (sync == 1 ? 0 : 1), "sync \(sync)")
            #expect(report.blobsRemembered == (sync <= 2 ? 0 : 1), "sync \(sync)")
            #expect(bob.notebook.memo(memo)?.text == "Groceries")
        }
        // Mended in place (same size, a new revision in the listing): used at the next sync.
        try store.inner.put(key: segment, bytes: bytes)
        let report = try await bob.sync(with: store)
        #expect(report.skipped.isEmpty && report.skippedAgainCount == 0)
        #expect(bob.notebook.memo(memo)?.text == alice.notebook.memo(memo)?.text)
        #expect(bob.syncState.skippedBlobs.isEmpty)
    }

    /// A damaged copy of a library's own snapshot (a sync client's conflicted copy: found in
    /// the verification of its own blobs, which reads ahead) was read at every sync: the
    /// read-ahead compared answer keys ("read …") with blob keys, so a blob found bad for good
    /// was still read, its answer dropped (`memo-sim --seed 510 --steps 3000 --replicas 8
    /// --faults all`, the quiet-sync oracle).
    @Test func aDamagedCopyOfAnOwnSnapshotIsNotReadAheadOnceFoundBad() async throws {
        let store = RecordingStore()
        var configuration = SyncConfiguration()
        configuration.snapshotEveryOperations = 1
        let environment = TestEnvironment(seed: 19)
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment, configuration: configuration)
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        _ = try alice.createMemo(text: "Groceries")
        let first = try await alice.sync(with: store)
        let snapshot = try #require(first.publishedSnapshot)
        var damaged = try #require(store.inner.bytes(key: snapshot))
        damaged[damaged.count / 2] ^= 0x01
        let copy = String(snapshot.dropLast(".snap".count)) + " (device 6's conflicted copy 2026-02-07).snap"
        try store.inner.put(key: copy, bytes: damaged)
        for sync in 1...4 {
            // Another device's new head each time: alice's sync reads it, and reads ahead
            // (its verification of own blobs) while that read is in flight.
            _ = try bob.createMemo(text: "from bob \(sync)")
            try await bob.sync(with: store)
            store.forgetReads()
            _ = try await alice.sync(with: store)
            #expect(store.reads.contains(copy) == (sync <= 2), "sync \(sync): \(store.reads)")
        }
    }

    @Test func anIncompleteBlobIsReportedAgainOnlyForAnotherReason() async throws {
        let store = RecordingStore()
        let (_, bob, memo, segment, bytes) = try await Self.twoDevicesAndANewSegment(store)
        try store.inner.truncate(key: segment, to: bytes.count - 3)
        let first = try await bob.sync(with: store)
        #expect(first.skipped == [SkippedBlob(key: segment, reason: .incomplete)])
        let second = try await bob.sync(with: store)
        #expect(second.skipped.isEmpty && second.skippedAgainCount == 1)
        // Whole now, but damaged: a new problem, reported.
        var damaged = bytes
        damaged[bytes.count / 2] ^= 0x01
        try store.inner.put(key: segment, bytes: damaged)
        let third = try await bob.sync(with: store)
        #expect(third.skipped.map(\.key) == [segment] && third.skippedAgainCount == 0)
        // The download completes: used.
        try store.inner.put(key: segment, bytes: bytes)
        let fourth = try await bob.sync(with: store)
        #expect(fourth.skipped.isEmpty && fourth.skippedAgainCount == 0)
        #expect(bob.notebook.memo(memo)?.text == "Groceries\nmilk")
    }

    @Test func anUnreadableBlobIsTriedAtEverySyncAndReportedOnce() async throws {
        let store = RecordingStore()
        let (_, bob, memo, segment, _) = try await Self.twoDevicesAndANewSegment(store)
        store.failReads(of: segment)
        for sync in 1...3 {
            store.forgetReads()
            let report = try await bob.sync(with: store)
            #expect(store.reads.contains(segment), "sync \(sync)")
            #expect(report.skipped.map(\.key) == (sync == 1 ? [segment] : []), "sync \(sync)")
            #expect(report.skippedAgainCount == (sync == 1 ? 0 : 1), "sync \(sync)")
        }
        store.failReads(of: nil)
        let report = try await bob.sync(with: store)
        #expect(report.skipped.isEmpty && report.skippedAgainCount == 0)
        #expect(bob.notebook.memo(memo)?.text == "Groceries\nmilk")
    }

    @Test func aLibraryOpenedAgainRemembersWhatItReported() async throws {
        let store = RecordingStore()
        let (_, bob, _, segment, bytes) = try await Self.twoDevicesAndANewSegment(store)
        try store.inner.corrupt(key: segment, byteAt: bytes.count / 2)
        #expect(try await bob.sync(with: store).skipped.map(\.key) == [segment])
        #expect(try await bob.sync(with: store).skipped.isEmpty)
        // Another library has no memory of it: it reports it.
        let carol = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 19).environment)
        #expect(try await carol.sync(with: store).skipped.map(\.key) == [segment])
    }
}
