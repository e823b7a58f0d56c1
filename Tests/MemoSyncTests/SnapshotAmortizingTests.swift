import MemoCRDT
import Testing

@testable import MemoSync
import MemoSyncTesting

/// A large notebook's snapshot waits until it pays for itself (issue 28,
/// `SyncConfiguration.snapshotAmortizedAboveBytes`): one small change synced at a time, a
/// notebook past the threshold writes its next snapshot only once the segments it spares weigh a
/// quarter of the newest snapshot, or number `snapshotAfterSegmentsMax`; below it, every
/// `snapshotAfterSegments` as before.
@Suite struct SnapshotAmortizingTests {
    /// What one writer's syncs of a single small change each put in the store: per sync, the
    /// snapshot it wrote (if any) and the bytes of every segment of the writer then listed.
    private struct Run {
        var snapshotSyncs: [Int] = []
        var snapshotBytes: [Int] = []
        /// Per sync, the bytes of the writer's segments written after its newest snapshot
        /// before that sync began (what that sync's listing showed).
        var segmentBytesBefore: [Int] = []
    }

    private func run(_ configuration: SyncConfiguration, syncs: Int, seed: UInt64) async throws -> Run {
        let environment = TestEnvironment(seed: seed)
        let store = InMemoryBlobStore()
        let writer = try Replica(disk: MemoryDisk(), environment: environment.environment, configuration: configuration)
        // About 40 KB of text: its snapshot is far larger than a one-character segment.
        let memo = try writer.createMemo(text: String(repeating: "a line of a long memo\n", count: 1_800))
        var result = Run()
        var segmentsSinceSnapshot: [String] = []
        for index in 0..<syncs {
            result.segmentBytesBefore.append(segmentsSinceSnapshot.reduce(0) { $0 + (store.bytes(key: $1)?.count ?? 0) })
            try writer.edit(memo, replacingUTF16: 0..<0, with: "x")
            let report = try await writer.sync(with: store)
            #expect(report.errors.isEmpty)
            if let segment = report.publishedSegment { segmentsSinceSnapshot.append(segment) }
            if let snapshot = report.publishedSnapshot {
                result.snapshotSyncs.append(index)
                result.snapshotBytes.append(store.bytes(key: snapshot)?.count ?? 0)
                segmentsSinceSnapshot = []
            }
            environment.advance(milliseconds: 60_000)
        }
        return result
    }

    @Test func aLargeNotebooksSnapshotWaitsUntilItsSegmentsWeighAQuarterOfIt() async throws {
        var configuration = SyncConfiguration()
        configuration.snapshotAfterSegments = 4
        // Every notebook counts as large here; the bytes decide, not the most segments.
        configuration.snapshotAmortizedAboveBytes = 1_000
        configuration.snapshotAfterSegmentsMax = 1_000
        let amortized = try await run(configuration, syncs: 160, seed: 71)
        // The first snapshot as before (none listed yet to weigh against; here at the first
        // sync: 40,000 operations are past `snapshotEveryOperations`).
        #expect(amortized.snapshotSyncs.first == 0)
        let snapshotBytes = try #require(amortized.snapshotBytes.first)
        #expect(snapshotBytes > 10_000)
        let second = try #require(amortized.snapshotSyncs.dropFirst().first, "a second snapshot once the segments weigh enough")
        // Due at the first sync whose listing showed segments weighing a quarter of it.
        #expect(amortized.segmentBytesBefore[second] * 100 >= snapshotBytes * 25)
        #expect(amortized.segmentBytesBefore[second - 1] * 100 < snapshotBytes * 25)
        #expect(second > 100, "far more than four segments between them")

        // The same without amortizing: a snapshot every fourth segment.
        let plain = try await run(SyncConfiguration(), syncs: 40, seed: 71)
        #expect(plain.snapshotSyncs.count >= 9)
        for (earlier, later) in zip(plain.snapshotSyncs, plain.snapshotSyncs.dropFirst()) { #expect(later - earlier <= 4) }
    }

    @Test func aLargeNotebooksSnapshotIsDueAfterAtMostTheMostSegments() async throws {
        var configuration = SyncConfiguration()
        configuration.snapshotAfterSegments = 4
        configuration.snapshotAmortizedAboveBytes = 1_000
        configuration.snapshotAmortizedSegmentBytesPercent = 100
        configuration.snapshotAfterSegmentsMax = 10
        let capped = try await run(configuration, syncs: 60, seed: 72)
        #expect(capped.snapshotSyncs.count >= 5)
        for (earlier, later) in zip(capped.snapshotSyncs, capped.snapshotSyncs.dropFirst()) {
            // Ten segments after the snapshot: due at the sync that publishes the tenth.
            #expect(later - earlier == 10, "snapshots at \(capped.snapshotSyncs)")
        }
    }
}
