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

extension TextCRDT {
    /// Whether deletion operations held here delete every item of each of `runs` (insertion
    /// runs, taken by their replica and counters): the items a delta brought already deleted
    /// are all deleted by an operation this text holds.
    ///
    /// Only deletions of the replicas `runs` name are gathered; one pass over the deletion runs.
    ///
    /// - Complexity: O(d + t log t) for d deletion runs held, t of them deleting items of those
    ///   replicas.
    package func deletionsCover(_ runs: [TextDelta.Run]) -> Bool {
        // For each replica index, where its ranges are in `ranges` (-1: not asked for).
        var slots = [Int](repeating: -1, count: replicaTable.ids.count)
        var ranges: [[Range<UInt32>]] = []
        for run in runs {
            guard let index = replicaTable.index(of: run.replica) else { return false }
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
        return runs.allSatisfy { run in
            covers(ranges[slots[Int(replicaTable.index(of: run.replica)!)]], run.counter..<run.end)
        }
    }
}
