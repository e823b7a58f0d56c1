import Foundation
import MemoCRDT
import Synchronization
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// A clock tests move by hand, and a seeded random source, as a replica environment.
final class TestEnvironment: @unchecked Sendable {
    private let state: Mutex<(now: UInt64, random: SeededRandom)>

    init(seed: UInt64, startMilliseconds: UInt64 = 1_790_000_000_000) {
        state = Mutex((startMilliseconds, SeededRandom(seed: seed)))
    }

    var nowMilliseconds: UInt64 { state.withLock { $0.now } }

    func advance(milliseconds: UInt64) { state.withLock { $0.now += milliseconds } }

    var environment: ReplicaEnvironment {
        ReplicaEnvironment(
            wallMilliseconds: { self.state.withLock { $0.now } },
            randomUInt64: { self.state.withLock { $0.random.next() } })
    }
}

/// Syncs every replica with `store`, in rounds, until a whole round changes nothing.
@discardableResult
func syncUntilQuiet(_ replicas: [Replica], store: any BlobStore, roundsMax: Int = 10) async throws -> Int {
    for round in 1...roundsMax {
        var changed = false
        for replica in replicas {
            let report = try await replica.sync(with: store)
            if ProcessInfo.processInfo.environment["MEMOSYNC_TRACE_SYNC"] != nil {
                print("sync \(replica.id): read \(report.blobsRead) wrote \(report.blobsWritten) deleted \(report.blobsDeleted) applied \(report.operationsApplied) pending \(report.pendingOperationCount) skipped \(report.skipped) errors \(report.errors) version \(replica.notebook.version)")
            }
            if report.operationsApplied > 0 || report.publishedSegment != nil { changed = true }
        }
        if !changed { return round }
    }
    Issue.record("replicas did not go quiet in \(roundsMax) rounds")
    return roundsMax
}

/// Expects every replica to hold the same notebook: same operations, same memos and texts, and
/// byte-identical encodings.
func expectConverged(_ replicas: [Replica], seed: UInt64? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let first = replicas.first else { return }
    let seedNote = seed.map { " (seed \($0))" } ?? ""
    for replica in replicas.dropFirst() {
        let sameVersion = replica.notebook.version == first.notebook.version
        #expect(sameVersion, "versions differ\(seedNote): \(replica.notebook.version) vs \(first.notebook.version)", sourceLocation: sourceLocation)
        let sameBytes = replica.notebook.encoded() == first.notebook.encoded()
        #expect(sameBytes, "encodings differ\(seedNote)", sourceLocation: sourceLocation)
        guard sameVersion && sameBytes else { return }
        #expect(replica.notebook.pendingOperationCount == 0, "operations held back\(seedNote)", sourceLocation: sourceLocation)
        for id in first.notebook.memoIDs {
            let same = replica.notebook.memo(id)?.text == first.notebook.memo(id)?.text
            #expect(same, "memo \(id) differs\(seedNote)", sourceLocation: sourceLocation)
        }
    }
}

/// Drives the sync `replica` began (`beginSync()`) on `store` to its end, `maxInFlight` store
/// operations at a time answered in the order handed out, without finishing it.
func driveSync(_ replica: Replica, on store: any BlobStore, maxInFlight: Int = 1) async throws {
    var inFlight: [SyncAction] = []
    while true {
        inFlight += try replica.nextSyncActions(limit: maxInFlight - inFlight.count)
        guard !inFlight.isEmpty else { return }
        let action = inFlight.removeFirst()
        replica.handleSync(action, await Replica.perform(action, on: store))
    }
}
