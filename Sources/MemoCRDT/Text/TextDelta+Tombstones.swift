// Range helpers and the tombstone checks on text deltas and texts, shared by the text CRDT and the
// notes model.

/// `ranges` sorted and joined where they touch or overlap.
package func mergedRanges(_ ranges: [Range<UInt32>]) -> [Range<UInt32>] {
    var merged: [Range<UInt32>] = []
    for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
        if let last = merged.last, range.lowerBound <= last.upperBound {
            merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
        } else {
            merged.append(range)
        }
    }
    return merged
}

/// Whether the ascending disjoint `ranges` cover all of `counters`.
///
/// - Complexity: O(log n).
package func covers(_ ranges: [Range<UInt32>], _ counters: Range<UInt32>) -> Bool {
    guard !counters.isEmpty else { return true }
    let index = ranges.partitioningIndex { $0.upperBound > counters.lowerBound }
    return index < ranges.count && ranges[index].lowerBound <= counters.lowerBound && counters.upperBound <= ranges[index].upperBound
}

extension TextDelta {
    /// The insertion runs that travel without their content.
    package var tombstoneRuns: [Run] {
        runs.filter { run in
            if case .insertion(_, _, nil) = run.kind { return true }
            return false
        }
    }

    /// Whether some insertion run travels without its content.
    package var hasTombstones: Bool {
        runs.contains { run in
            if case .insertion(_, _, nil) = run.kind { return true }
            return false
        }
    }

    /// Whether every tombstone insertion not within `held` is deleted by a deletion of this
    /// delta that is not within `held` either (a receiver skips the operations it holds: the
    /// deletions it applies are those it lacks).
    package func carriesItsDeletions(holding held: VersionVector) -> Bool {
        guard hasTombstones else { return true }
        var deleted: [ReplicaID: [Range<UInt32>]] = [:]
        for var run in runs where !run.isInsertion {
            let heldCount = held[run.replica]
            if run.end <= heldCount { continue }
            if run.counter < heldCount { run = run.dropping(heldCount - run.counter) }
            if case let .deletion(target, _) = run.kind {
                deleted[target.replica, default: []].append(target.counter..<target.counter + run.length)
            }
        }
        for replica in Array(deleted.keys) { deleted[replica] = mergedRanges(deleted[replica]!) }
        for run in runs {
            guard case .insertion(_, _, nil) = run.kind else { continue }
            let start = max(run.counter, held[run.replica])
            guard start < run.end else { continue }
            if !covers(deleted[run.replica] ?? [], start..<run.end) { return false }
        }
        return true
    }
}

extension TextDelta {
    /// This delta with its tombstones (insertions that travel without their content) given
    /// their content where `other` carries the same operations with it; self when it has none
    /// to take.
    ///
    /// Two copies of one operation made at different times (before and after its character
    /// was deleted) say the same of it, except that the later one has lost the content. A
    /// receiver holding both back uses what either knows: with the content, the insertion
    /// applies without waiting for its deletion. A part of `other` is taken only where it
    /// names the very operations of the tombstone (same counters, Lamport clocks and
    /// origins, a right origin `.inherited` in either matching any); the result is validated against the text before it applies, like any delta.
    ///
    /// - Complexity: O(n + m log m) for n runs here and m in `other`.
    package func fillingTombstones(from other: TextDelta) -> TextDelta {
        guard hasTombstones, other.runs.contains(where: { $0.isInsertion && !$0.isTombstone }) else { return self }
        var result: [Run] = []
        result.reserveCapacity(runs.count)
        var changed = false
        for run in runs {
            guard run.isTombstone else {
                result.append(run)
                continue
            }
            var rest: Run? = run
            let (start, stop) = other.runIndices(of: run.replica, overlapping: run.counter..<run.end)
            for index in start..<stop {
                guard let current = rest else { break }
                let source = other.runs[index]
                guard case .insertion(_, _, .some) = source.kind else { continue }
                let lower = max(source.counter, current.counter)
                let upper = min(source.end, current.end)
                guard lower < upper else { continue }
                var piece = source
                if piece.counter < lower { piece = piece.dropping(lower - piece.counter) }
                if piece.end > upper { piece = piece.prefix(upper - piece.counter) }
                var same = current
                if same.counter < lower { same = same.dropping(lower - same.counter) }
                if same.end > upper { same = same.prefix(upper - same.counter) }
                // (A right origin may be written out in one copy and `.inherited` in the other.)
                guard case let .insertion(left, right, _) = piece.kind, case let .insertion(sameLeft, sameRight, _) = same.kind,
                    left == sameLeft, right == sameRight || right == .inherited || sameRight == .inherited,
                    piece.lamport == same.lamport
                else { continue }
                if current.counter < lower { result.append(current.prefix(lower - current.counter)) }
                result.append(piece)
                changed = true
                rest = upper < current.end ? current.dropping(upper - current.counter) : nil
            }
            if let rest { result.append(rest) }
        }
        return changed ? TextDelta(runs: result) : self
    }
}

extension TextCRDT {
    /// Whether deletion operations held here delete every item of each of `runs` (insertion
    /// runs, taken by their replica and counters): the items a delta brought already deleted
    /// are all deleted by an operation this text holds.
    ///
    /// - Complexity: as ``firstUndeletedItems(_:)``.
    package func deletionsCover(_ runs: [TextDelta.Run]) -> Bool {
        firstUndeletedItems(runs).isEmpty
    }

    /// For each of `runs` (insertion runs, taken by their replica and counters) with an item
    /// that no deletion held here deletes, its index in `runs` and the first such item, in the
    /// order of `runs`.
    ///
    /// Only deletions of the replicas `runs` name are gathered; one pass over the deletion runs.
    ///
    /// - Complexity: O(d + t log t + r log t) for d deletion runs held, t of them deleting items
    ///   of those replicas, and r runs.
    package func firstUndeletedItems(_ runs: [TextDelta.Run]) -> [(index: Int, item: OperationID)] {
        // For each replica index, where its ranges are in `ranges` (-1: not asked for).
        var slots = [Int](repeating: -1, count: replicaTable.ids.count)
        var ranges: [[Range<UInt32>]] = []
        for run in runs {
            guard let index = replicaTable.index(of: run.replica) else { continue }
            if slots[Int(index)] < 0 {
                slots[Int(index)] = ranges.count
                ranges.append([])
            }
        }
        for replicaIndex in logs.indices {
            for run in logs[replicaIndex].deletionRuns {
                let slot = slots[Int(run.targetReplica)]
                if slot >= 0 { ranges[slot].append(run.targetCounter..<run.targetCounter + run.length) }
            }
        }
        for slot in ranges.indices { ranges[slot] = mergedRanges(ranges[slot]) }
        var undeleted: [(index: Int, item: OperationID)] = []
        for (position, run) in runs.enumerated() where run.length > 0 {
            // A replica this text never met deletes nothing here.
            guard let index = replicaTable.index(of: run.replica) else {
                undeleted.append((position, OperationID(replica: run.replica, counter: run.counter)))
                continue
            }
            let deleted = ranges[slots[Int(index)]]
            // The joined range holding the run's first item, if any: its end is not deleted.
            let found = deleted.partitioningIndex { $0.upperBound > run.counter }
            if found < deleted.count && deleted[found].lowerBound <= run.counter {
                if deleted[found].upperBound < run.end {
                    undeleted.append((position, OperationID(replica: run.replica, counter: deleted[found].upperBound)))
                }
            } else {
                undeleted.append((position, OperationID(replica: run.replica, counter: run.counter)))
            }
        }
        return undeleted
    }
}
