import Foundation
import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Settings an app may give out of range: taken as the nearest meaningful value, never a trap
/// (exploratory test of 2026-12-02: a negative `snapshotEveryOperations` trapped in every sync,
/// a percentage of `Int.max` overflowed once the snapshot passed 1 MiB, a grace period of
/// `Int64.max` seconds overflowed, a retry source giving NaN or an attempt of `Int.min` trapped).
@Suite struct SyncConfigurationBadValueTests {
    @Test func negativeCountsAreZeroAndHugeOnesSaturate() async throws {
        var configuration = SyncConfiguration()
        configuration.snapshotEveryOperations = -1
        configuration.snapshotAfterSegments = -5
        configuration.snapshotAmortizedAboveBytes = -1
        configuration.snapshotAmortizedSegmentBytesPercent = -3
        configuration.snapshotAfterSegmentsMax = -2
        #expect(configuration.snapshotEveryOperations == 0 && configuration.snapshotAfterSegments == 0)
        #expect(configuration.snapshotAmortizedAboveBytes == 0 && configuration.snapshotAmortizedSegmentBytesPercent == 0)
        #expect(configuration.snapshotAfterSegmentsMax == 0)
        configuration.gracePeriod = .seconds(Int64.max)
        #expect(configuration.gracePeriodMilliseconds == .max)
        configuration.gracePeriod = .seconds(-3)
        #expect(configuration.gracePeriodMilliseconds == 0)

        // Syncs with extreme settings: every sync snapshots (0 operations), or by weight never.
        for percent in [Int.max, 0] {
            var extreme = SyncConfiguration()
            extreme.snapshotEveryOperations = percent == 0 ? -1 : Int.max
            extreme.snapshotAmortizedAboveBytes = 0
            extreme.snapshotAfterSegments = 1
            extreme.snapshotAmortizedSegmentBytesPercent = percent
            let store = InMemoryBlobStore()
            let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 77).environment, configuration: extreme)
            for round in 0..<3 {
                _ = try replica.createMemo(text: "memo \(round)")
                let report = try await replica.sync(with: store)
                #expect(report.isComplete, "\(report)")
            }
        }
    }

    @Test func retryDecisionsTakeAnyNumbers() {
        let policy = RetryPolicy()
        for unit in [Double.nan, -.infinity, .infinity, -1, 2] {
            for attempt in [Int.min, -1, 0, 1, Int.max] {
                let decision = policy.decision(after: .timedOut, attempt: attempt, elapsedMilliseconds: 0, randomUnit: unit)
                if case let .retry(delay) = decision { #expect(delay >= 0) }
            }
        }
    }
}
