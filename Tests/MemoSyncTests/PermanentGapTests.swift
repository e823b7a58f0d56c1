import Testing

@testable import MemoSync
import MemoCRDT
import MemoSyncTesting

/// Operations the store will never offer again, with a later segment of theirs still listed:
/// what a library's bit rot leaves when it took a record before any store held it (issue 25;
/// the simulator's torn-disk fault, `Simulations/README.md`), or a store that lost a segment
/// whose writer is gone. Every reader has a gap no snapshot fills. It must not read every
/// listed snapshot again at every sync for good (the simulator's seed 357 once the fault hit
/// unpublished records: every replica read seven snapshots at each sync of the quiet rounds).
@Suite struct PermanentGapTests {
    @Test func aGapNoSnapshotFillsDoesNotMakeEverySyncReadTheSnapshotsAgain() async throws {
        let environment = TestEnvironment(seed: 357)
        let inner = InMemoryBlobStore()
        // Alice publishes two segments, then loses the first from the store for good (her
        // library does not sync again).
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let memo = try alice.createMemo(text: "first")
        try await alice.sync(with: inner)
        let firstSegments = inner.keys.filter { $0.contains("/segments/") }
        #expect(firstSegments.count == 1)
        try alice.edit(memo, replacingUTF16: 5..<5, with: " and second")
        try await alice.sync(with: inner)
        #expect(inner.keys.filter { $0.contains("/segments/") }.count == 2)
        for key in firstSegments { try inner.delete(key: key) }
        // Carol's notebook is in the store as a snapshot (and her segment).
        let carol = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let other = try carol.createMemo(text: "carol's memo")
        try await carol.sync(with: inner)
        let snapshot = carol.notebook.encoded()
        let snapshotKey = StoreLayout.snapshotKey(
            replica: carol.id, totalOperations: UInt64(carol.notebook.version.operationCount), bytes: snapshot)
        try inner.put(key: snapshotKey, bytes: snapshot)

        let store = JunkStoreTests.CountingStore(inner)
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        for sync in 1...4 {
            store.forget()
            let report = try await bob.sync(with: store)
            #expect(bob.notebook.memo(other)?.text == "carol's memo", "sync \(sync)")
            // Alice's second segment builds on the lost first: nothing of hers applies.
            #expect(bob.notebook.memo(memo) == nil, "sync \(sync)")
            #expect(!report.isComplete || report.pendingOperationCount == 0, "sync \(sync)")
            // The snapshot is read at most by the first sync (the bootstrap); later syncs know
            // it holds nothing Bob lacks.
            if sync > 1 {
                #expect(store.reads(of: snapshotKey) == 0, "sync \(sync) read Carol's snapshot again")
            }
        }
    }
}
