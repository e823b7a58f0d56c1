/// How two versions relate in causal (happened-before) order.
public enum CausalOrder: Sendable, Equatable, CustomStringConvertible {
    /// Both versions name the same set of operations.
    case equal
    /// The receiver's operations are a strict subset of the other's.
    case before
    /// The receiver's operations are a strict superset of the other's.
    case after
    /// Each side has operations the other lacks.
    case concurrent

    public var description: String {
        switch self {
        case .equal: "equal"
        case .before: "before"
        case .after: "after"
        case .concurrent: "concurrent"
        }
    }
}

/// A version: for each replica, how many of its operations have been seen.
///
/// Because each replica's counters are dense (0, 1, 2, ... with no gaps) and operations are only
/// ever applied in causal order, "`n` operations seen from replica `r`" means exactly the
/// operations `r.0 ..< r.n`, and a version vector names an exact set of operations.
///
/// Entries are kept sorted by replica id, so iteration, equality, hashing and encoding never
/// depend on insertion order. A replica with count 0 is never stored.
///
/// ```swift
/// var seen = VersionVector()
/// seen[alice] = 3                       // alice.0, alice.1, alice.2
/// seen.includes(OperationID(replica: alice, counter: 2))   // true
/// seen.compare(VersionVector([alice: 5]))                  // .before
/// ```
public struct VersionVector: Hashable, Sendable, CustomStringConvertible {
    /// One replica's entry: how many of its operations the version includes.
    public struct Entry: Hashable, Sendable {
        /// The replica.
        public var replica: ReplicaID
        /// The number of that replica's operations included (its next counter).
        public var operationCount: UInt32

        /// Creates an entry.
        public init(replica: ReplicaID, operationCount: UInt32) {
            self.replica = replica
            self.operationCount = operationCount
        }
    }

    /// The entries, sorted by replica, each with a non-zero count.
    public private(set) var entries: [Entry]

    /// The empty version: no operations.
    public init() {
        entries = []
    }

    /// A version from a replica-to-count mapping. Zero counts are dropped.
    public init(_ counts: [ReplicaID: UInt32]) {
        entries = counts.filter { $0.value > 0 }
            .map { Entry(replica: $0.key, operationCount: $0.value) }
            .sorted { $0.replica < $1.replica }
    }

    /// A version from entries in any order. For a replica listed twice the larger count wins.
    ///
    /// - Complexity: O(n log n) for n entries; one array, sorted and compacted in place.
    public init(entries unsorted: some Sequence<Entry>) {
        var sorted: [Entry] = []
        sorted.reserveCapacity(unsorted.underestimatedCount)
        for entry in unsorted where entry.operationCount > 0 { sorted.append(entry) }
        sorted.sort {
            $0.replica != $1.replica ? $0.replica < $1.replica : $0.operationCount < $1.operationCount
        }
        // Keep each replica's last (largest) entry.
        var kept = 0
        for index in sorted.indices {
            if kept > 0 && sorted[kept - 1].replica == sorted[index].replica {
                sorted[kept - 1].operationCount = sorted[index].operationCount
            } else {
                sorted[kept] = sorted[index]
                kept += 1
            }
        }
        sorted.removeLast(sorted.count - kept)
        entries = sorted
    }

    /// The version of `counts[i]` operations of `replicas[i]`, the replicas strictly ascending
    /// (a text body's replica table; a count of 0 leaves its replica out). One array, no sort:
    /// a decoder makes two per memo. The order is checked (a precondition).
    ///
    /// - Complexity: O(r) for r replicas.
    package init(ascendingReplicas replicas: [ReplicaID], counts: [UInt32]) {
        precondition(replicas.count == counts.count, "a count per replica")
        var entries: [Entry] = []
        entries.reserveCapacity(replicas.count)
        for index in replicas.indices {
            precondition(index == 0 || replicas[index - 1] < replicas[index], "replicas strictly ascending")
            if counts[index] > 0 { entries.append(Entry(replica: replicas[index], operationCount: counts[index])) }
        }
        self.entries = entries
    }

    /// The version of `entries`, already in strictly ascending replica order with counts ≥ 1
    /// (checked in builds with internal checks): a decoder that checked them as it read them.
    ///
    /// - Complexity: O(1).
    package init(ascendingEntries entries: [Entry]) {
        #if MEMOSYNC_INTERNAL_CHECKS
        for index in entries.indices {
            precondition(entries[index].operationCount > 0, "counts of at least 1")
            precondition(index == 0 || entries[index - 1].replica < entries[index].replica, "replicas strictly ascending")
        }
        #endif
        self.entries = entries
    }

    /// True when the version includes no operations.
    public var isEmpty: Bool { entries.isEmpty }

    /// The replicas with at least one operation, in ascending order.
    public var replicas: [ReplicaID] { entries.map(\.replica) }

    /// The total number of operations the version includes.
    public var operationCount: Int {
        entries.reduce(0) { $0 + Int($1.operationCount) }
    }

    /// The number of operations seen from `replica` (0 if none). Setting 0 removes the entry.
    ///
    /// - Complexity: O(log r) to read, O(r) to insert a new replica, for r replicas.
    public subscript(replica: ReplicaID) -> UInt32 {
        get {
            let index = lowerBound(replica)
            return index < entries.count && entries[index].replica == replica
                ? entries[index].operationCount : 0
        }
        set {
            let index = lowerBound(replica)
            let present = index < entries.count && entries[index].replica == replica
            switch (present, newValue == 0) {
            case (true, true): entries.remove(at: index)
            case (true, false): entries[index].operationCount = newValue
            case (false, false):
                entries.insert(Entry(replica: replica, operationCount: newValue), at: index)
            case (false, true): break
            }
        }
    }

    /// Whether the operation `id` is part of this version.
    public func includes(_ id: OperationID) -> Bool {
        id.counter < self[id.replica]
    }

    /// Raises every entry to at least the other version's count (the union of both sets).
    ///
    /// - Complexity: O(r + s) for r and s replicas.
    public mutating func merge(_ other: VersionVector) {
        if other.entries.isEmpty { return }
        if entries.isEmpty {
            entries = other.entries
            return
        }
        var result: [Entry] = []
        result.reserveCapacity(entries.count + other.entries.count)
        var left = 0
        var right = 0
        while left < entries.count || right < other.entries.count {
            if right == other.entries.count
                || (left < entries.count && entries[left].replica < other.entries[right].replica)
            {
                result.append(entries[left])
                left += 1
            } else if left == entries.count || other.entries[right].replica < entries[left].replica {
                result.append(other.entries[right])
                right += 1
            } else {
                result.append(
                    Entry(
                        replica: entries[left].replica,
                        operationCount: max(entries[left].operationCount, other.entries[right].operationCount)))
                left += 1
                right += 1
            }
        }
        entries = result
    }

    /// The union of this version and another.
    public func merged(with other: VersionVector) -> VersionVector {
        var copy = self
        copy.merge(other)
        return copy
    }

    /// How this version relates to `other` in causal order.
    ///
    /// - Complexity: O(r + s).
    public func compare(_ other: VersionVector) -> CausalOrder {
        var selfHasMore = false
        var otherHasMore = false
        var left = 0
        var right = 0
        while left < entries.count || right < other.entries.count {
            if right == other.entries.count
                || (left < entries.count && entries[left].replica < other.entries[right].replica)
            {
                selfHasMore = true
                left += 1
            } else if left == entries.count || other.entries[right].replica < entries[left].replica {
                otherHasMore = true
                right += 1
            } else {
                let mine = entries[left].operationCount
                let theirs = other.entries[right].operationCount
                if mine > theirs { selfHasMore = true }
                if theirs > mine { otherHasMore = true }
                left += 1
                right += 1
            }
            if selfHasMore && otherHasMore { return .concurrent }
        }
        switch (selfHasMore, otherHasMore) {
        case (false, false): return .equal
        case (true, false): return .after
        case (false, true): return .before
        case (true, true): return .concurrent
        }
    }

    /// True when every operation of this version is in `other`.
    public func isIncluded(in other: VersionVector) -> Bool {
        let order = compare(other)
        return order == .equal || order == .before
    }

    /// The number of operations this version includes that `other` does not: for each replica,
    /// how far this version's count passes `other`'s.
    ///
    /// - Complexity: O(r + s) for r and s replicas.
    public func operationCount(beyond other: VersionVector) -> Int {
        var count = 0
        var otherIndex = 0
        for entry in entries {
            while otherIndex < other.entries.count && other.entries[otherIndex].replica < entry.replica { otherIndex += 1 }
            let held = otherIndex < other.entries.count && other.entries[otherIndex].replica == entry.replica ? other.entries[otherIndex].operationCount : 0
            if entry.operationCount > held { count += Int(entry.operationCount - held) }
        }
        return count
    }

    /// `{replica: count, ...}` in replica order.
    public var description: String {
        "{" + entries.map { "\($0.replica): \($0.operationCount)" }.joined(separator: ", ") + "}"
    }

    private func lowerBound(_ replica: ReplicaID) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].replica < replica { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
