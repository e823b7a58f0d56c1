@testable import MemoCRDT
import TestSupport
import Testing

/// The structures behind the remote apply path: version vectors from entries, the bisecting
/// restriction of text deltas and the deletion coverage of a text, each against a plain
/// recomputation (the notebook's part: `NotebookApplyPathTests`).
@Suite struct ApplyPathTests {
    /// Entries in any order, repeated and zero: sorted, the larger count of a repeated replica
    /// kept, zeros dropped; the same as building the version one replica at a time.
    @Test(arguments: testSeeds(10, salt: 0xA991_0003))
    func versionFromEntriesInAnyOrder(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var entries: [VersionVector.Entry] = []
        var expected: [ReplicaID: UInt32] = [:]
        for _ in 0..<random.int(in: 0...40) {
            let replica = ReplicaID(UInt64(random.int(in: 1...12)))
            let count = UInt32(random.int(in: 0...5))
            entries.append(VersionVector.Entry(replica: replica, operationCount: count))
            expected[replica] = max(expected[replica] ?? 0, count)
        }
        let version = VersionVector(entries: entries)
        #expect(version == VersionVector(expected), "seed \(seed)")
        #expect(version.entries.map(\.replica) == version.entries.map(\.replica).sorted())
        #expect(version.entries.allSatisfy { $0.operationCount > 0 })
    }

    /// `restricted(to:counters:)` and `operationCount(of:counters:)` against a linear scan, for
    /// every range over every replica of deltas with several replicas and both run kinds.
    @Test(arguments: testSeeds(6, salt: 0xA991_0001))
    func restrictionMatchesALinearScan(seed: UInt64) throws {
        let scenario = try DivergedReplicas(seed: seed, replicaCount: 3)
        var merged = scenario.base.fork(replica: ReplicaID(0xFEED))
        for replica in scenario.replicas { try merged.merge(replica) }
        let delta = merged.changes(since: VersionVector())
        for entry in merged.version.entries {
            let count = entry.operationCount
            for lower in 0...count {
                for upper in lower + 1..<count + 2 {
                    let range = lower..<upper
                    let expected = Self.linearRestriction(delta, to: entry.replica, counters: range)
                    #expect(delta.restricted(to: entry.replica, counters: range) == expected, "seed \(seed) \(range)")
                    #expect(delta.operationCount(of: entry.replica, counters: range) == expected.operationCount, "seed \(seed)")
                }
            }
        }
        // A replica the delta does not hold.
        #expect(delta.restricted(to: ReplicaID(1), counters: 0..<5).isEmpty)
        #expect(delta.operationCount(of: ReplicaID(1), counters: 0..<5) == 0)
    }

    /// `deletionsCover` and `firstUndeletedItems` against a set of every item some held
    /// deletion deletes.
    @Test(arguments: testSeeds(6, salt: 0xA991_0002))
    func deletionCoverageMatchesTheDeletedItems(seed: UInt64) throws {
        let scenario = try DivergedReplicas(seed: seed, replicaCount: 3)
        var merged = scenario.base.fork(replica: ReplicaID(0xFEED))
        for replica in scenario.replicas { try merged.merge(replica) }
        var deleted = Set<OperationID>()
        for run in merged.changes(since: VersionVector()).runs {
            guard case let .deletion(target, _) = run.kind else { continue }
            for offset in 0..<run.length { deleted.insert(OperationID(replica: target.replica, counter: target.counter + offset)) }
        }
        func tombstone(_ replica: ReplicaID, _ range: Range<UInt32>) -> TextDelta.Run {
            TextDelta.Run(
                replica: replica, counter: range.lowerBound, lamport: 1, length: UInt32(range.count),
                kind: .insertion(originLeft: nil, originRight: .end, content: nil))
        }
        for entry in merged.version.entries {
            for lower in 0..<entry.operationCount {
                for upper in lower + 1...min(entry.operationCount, lower + 6) {
                    let expected = (lower..<upper).allSatisfy { deleted.contains(OperationID(replica: entry.replica, counter: $0)) }
                    #expect(merged.deletionsCover([tombstone(entry.replica, lower..<upper)]) == expected, "seed \(seed)")
                    let first = (lower..<upper).first { !deleted.contains(OperationID(replica: entry.replica, counter: $0)) }
                    let expectedItems = first.map { [OperationID(replica: entry.replica, counter: $0)] } ?? []
                    #expect(merged.firstUndeletedItems([tombstone(entry.replica, lower..<upper)]).map(\.item) == expectedItems, "seed \(seed)")
                }
            }
        }
        // Several runs at once: covered only when each is.
        if let first = merged.version.entries.first, let last = merged.version.entries.last {
            let runs = [tombstone(first.replica, 0..<1), tombstone(last.replica, 0..<1)]
            let expected = deleted.contains(OperationID(replica: first.replica, counter: 0))
                && deleted.contains(OperationID(replica: last.replica, counter: 0))
            #expect(merged.deletionsCover(runs) == expected)
        }
        #expect(!merged.deletionsCover([tombstone(ReplicaID(1), 0..<1)]))
        let unknown = merged.firstUndeletedItems([tombstone(ReplicaID(1), 3..<5)])
        #expect(unknown.map(\.index) == [0] && unknown.map(\.item) == [OperationID(replica: ReplicaID(1), counter: 3)])
    }

    /// `fillingTombstones(from:)`: a copy of a replica's operations made after some of its
    /// characters were deleted, filled from a copy made before, carries the content of every
    /// item either copy has it for (against a map per item), tombstones for the others, and
    /// applies to the text they were made from exactly as the later copy does.
    @Test(arguments: testSeeds(20, salt: 0xA991_0004))
    func fillingTombstonesTakesTheContentOfAnEarlierCopy(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let scenario = try DivergedReplicas(seed: seed, replicaCount: 3)
        var merged = scenario.base.fork(replica: ReplicaID(0xFEED))
        for replica in scenario.replicas { try merged.merge(replica) }
        let early = merged.changes(since: scenario.base.version)
        // Delete some characters (of any replica), then copy again.
        var later = merged
        for _ in 0..<random.int(in: 1...4) where later.lengthScalars > 0 {
            let lower = random.int(in: 0..<later.lengthScalars)
            try later.delete(scalarRange: lower..<min(later.lengthScalars, lower + random.int(in: 1...3)))
        }
        let late = later.changes(since: scenario.base.version)
        // Item by item: what each copy knows of an insertion's content (nil: a tombstone).
        func contents(_ delta: TextDelta) -> [OperationID: Bool] {
            var known: [OperationID: Bool] = [:]
            for run in delta.runs {
                guard case let .insertion(_, _, content) = run.kind else { continue }
                for offset in 0..<run.length { known[OperationID(replica: run.replica, counter: run.counter + offset)] = content != nil }
            }
            return known
        }
        let filled = late.fillingTombstones(from: early)
        let (earlyKnown, lateKnown, filledKnown) = (contents(early), contents(late), contents(filled))
        #expect(Set(filledKnown.keys) == Set(lateKnown.keys), "seed \(seed)")
        for (item, hasContent) in lateKnown {
            #expect(filledKnown[item] == (hasContent || earlyKnown[item] == true), "seed \(seed): \(item)")
        }
        #expect(filled.operationCount == late.operationCount, "seed \(seed)")
        var fromLate = scenario.base
        var fromFilled = scenario.base
        try fromLate.apply(late)
        try fromFilled.apply(filled)
        #expect(fromFilled.string == fromLate.string, "seed \(seed)")
        #expect(fromFilled.string == later.string, "seed \(seed)")
        #expect(fromFilled.version == fromLate.version, "seed \(seed)")
        // Nothing to take: the same delta back.
        #expect(late.fillingTombstones(from: TextDelta()) == late)
        #expect(early.fillingTombstones(from: late) == early || early.hasTombstones, "seed \(seed)")
    }

    /// The restriction as it was computed before bisection: every run looked at.
    private static func linearRestriction(_ delta: TextDelta, to replica: ReplicaID, counters: Range<UInt32>) -> TextDelta {
        var result: [TextDelta.Run] = []
        for run in delta.runs where run.replica == replica && run.counter < counters.upperBound && counters.lowerBound < run.end {
            var part = run
            if part.counter < counters.lowerBound { part = part.dropping(counters.lowerBound - part.counter) }
            if part.end > counters.upperBound { part = part.prefix(counters.upperBound - part.counter) }
            result.append(part)
        }
        return TextDelta(runs: result)
    }
}
