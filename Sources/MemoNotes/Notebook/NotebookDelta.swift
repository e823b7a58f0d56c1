import MemoCRDT
/// Notebook operations to send to another replica: what ``Notebook/changes(since:)`` returns and
/// ``Notebook/apply(_:)`` takes.
///
/// It holds the notebook operation runs the receiver lacks and, for each memo they touch, the
/// text operations behind them, and nothing about other memos: the delta for one edit is as large
/// as that edit, whatever the size of the notebook.
public struct NotebookDelta: Sendable, Equatable {
    /// A notebook operation run with its replica.
    @usableFromInline
    struct ReplicaRun: Sendable, Equatable {
        var replica: ReplicaID
        var run: NotebookRun
    }

    /// Runs sorted by replica, then counter.
    @usableFromInline var runs: [ReplicaRun]
    /// For each memo with text runs, the text operations they stand for; sorted by memo id.
    @usableFromInline var texts: [(memo: MemoID, delta: TextDelta)]

    /// An empty delta.
    public init() {
        runs = []
        texts = []
    }

    init(runs: [ReplicaRun], texts: [(memo: MemoID, delta: TextDelta)]) {
        self.runs = runs
        self.texts = texts
    }

    /// True when the delta holds no operations.
    public var isEmpty: Bool { runs.isEmpty }

    /// How many notebook operation runs the delta holds.
    package var runCount: Int { runs.count }

    /// Whether some character travels already deleted (a tombstone, without its content).
    package var hasTombstones: Bool { texts.contains { $0.delta.hasTombstones } }

    /// How many notebook operations the delta holds (one per text operation, plus one per
    /// create, trash, restore and purge).
    public var operationCount: Int { runs.reduce(0) { $0 + Int($1.run.length) } }

    /// The memos the delta touches, in id order.
    public var memos: [MemoID] {
        var ids = runs.map(\.run.memo)
        ids.sort()
        var unique: [MemoID] = []
        for id in ids where unique.last != id { unique.append(id) }
        return unique
    }

    /// For each replica, the highest notebook counter in this delta plus one.
    public var upperVersion: VersionVector {
        VersionVector(entries: runs.map { VersionVector.Entry(replica: $0.replica, operationCount: $0.run.end) })
    }

    /// The text operations for `memo`.
    func text(for memo: MemoID) -> TextDelta {
        textIndex(for: memo).map { texts[$0].delta } ?? TextDelta()
    }

    /// Where the text operations for `memo` are in ``texts``, if it has some.
    ///
    /// - Complexity: O(log m) for m memos with text operations.
    func textIndex(for memo: MemoID) -> Int? {
        let index = texts.partitioningIndex { $0.memo >= memo }
        return index < texts.count && texts[index].memo == memo ? index : nil
    }

    /// This delta cut into pieces of about `maxOperations` operations each, for a caller that
    /// applies a large delta in steps with other work between them (a sync merging what it
    /// received while the user types).
    ///
    /// The cut is made in three steps:
    ///
    /// 1. Consecutive runs of one replica, at most `maxOperations` operations together (a
    ///    longer run is a cut of its own). For each replica the cuts are successive counter
    ///    ranges, so applied in order every cut builds only on what the notebook held and the
    ///    cuts before it.
    /// 2. The cuts of all replicas in the order of their first run's time (each replica's in
    ///    its own order): what a cut builds on of other replicas (a memo they created, text
    ///    they typed) was made before it, so it comes in an earlier cut, mostly. In replica
    ///    order, a history several replicas wrote by turns was held back nearly whole until
    ///    the last replica's cuts came: millions of operations held back, each cut's apply
    ///    paying for them, then released by one cut at once (issue 25).
    /// 3. Cuts tied by a tombstone are joined with every cut between them. A character the
    ///    delta carries already deleted (a tombstone: no content) applies only in the same
    ///    call as an operation that deletes it (``Notebook/apply(_:)`` tries a call that would
    ///    leave one undeleted again with it held back). Cut apart from its deletion, the tombstone's
    ///    piece would be applied, undone and held back, and so would every piece after it until
    ///    the deletion's piece came: each of those calls applying all that was held back so
    ///    far, a cost quadratic in the pieces (a sync's merge in pieces of 8 operations took
    ///    38 times as long as the whole delta in one call). Joined, each piece applies once.
    ///
    /// Applied in order, the pieces give the notebook what the whole delta gives (apply is
    /// commutative and idempotent; a piece whose operations wait for something is held back
    /// as any delta is). A delta of at most `maxOperations` operations is one piece, itself;
    /// ties can make a piece larger than `maxOperations`, up to the whole delta.
    ///
    /// - Complexity: O(r log r + t log t) for r runs and the text operations t of the memos
    ///   they touch.
    package func pieces(maxOperations: Int) -> [NotebookDelta] {
        guard operationCount > maxOperations else { return [self] }
        let cuts = inTimeOrder(pieceCuts(maxOperations: maxOperations))
        return tiedGroups(of: cuts).map { group in piece(cuts: cuts[group]) }
    }

    /// Step 2 of ``pieces(maxOperations:)``: the cuts (each of one replica, in `runs` order) in
    /// the order of their first run's timestamp, ties by replica; each replica's cuts stay in
    /// their order whatever their timestamps say (a cut's key is never below the key of the
    /// replica's cut before it).
    private func inTimeOrder(_ cuts: [Range<Int>]) -> [Range<Int>] {
        var keys: [(timestamp: HybridTimestamp, replica: ReplicaID, index: Int)] = []
        keys.reserveCapacity(cuts.count)
        for (index, cut) in cuts.enumerated() {
            let replica = runs[cut.lowerBound].replica
            var timestamp = runs[cut.lowerBound].run.timestamp
            if let previous = keys.last, previous.replica == replica, previous.timestamp > timestamp { timestamp = previous.timestamp }
            keys.append((timestamp, replica, index))
        }
        keys.sort { ($0.timestamp, $0.replica, $0.index) < ($1.timestamp, $1.replica, $1.index) }
        return keys.map { cuts[$0.index] }
    }

    /// Step 1 of ``pieces(maxOperations:)``: ranges of ``runs``, each of one replica.
    private func pieceCuts(maxOperations: Int) -> [Range<Int>] {
        var cuts: [Range<Int>] = []
        var start = 0
        while start < runs.count {
            let replica = runs[start].replica
            var end = start
            var operations = 0
            while end < runs.count, runs[end].replica == replica,
                end == start || operations + Int(runs[end].run.length) <= maxOperations
            {
                operations += Int(runs[end].run.length)
                end += 1
            }
            cuts.append(start..<end)
            start = end
        }
        return cuts
    }

    /// For each replica, the text counters of each memo that `runs[range]` stand for. A
    /// replica's text operations on one memo are counted in the order of its notebook
    /// operations, so consecutive runs of a replica stand for one range of text counters per
    /// memo, which no run outside them reaches into.
    private func textCounterRanges(of range: Range<Int>) -> [(replica: ReplicaID, memo: MemoID, counters: Range<UInt32>)] {
        var found: [(replica: ReplicaID, memo: MemoID, counters: Range<UInt32>)] = []
        var index: [Pair: Int] = [:]
        for item in runs[range] {
            guard case let .text(textCounter) = item.run.kind else { continue }
            let counters = textCounter..<textCounter + item.run.length
            let key = Pair(replica: item.replica, memo: item.run.memo)
            if let at = index[key] {
                let known = found[at].counters
                found[at].counters = min(known.lowerBound, counters.lowerBound)..<max(known.upperBound, counters.upperBound)
            } else {
                index[key] = found.count
                found.append((item.replica, item.run.memo, counters))
            }
        }
        return found
    }

    private struct Pair: Hashable {
        var replica: ReplicaID
        var memo: MemoID
    }

    /// Step 2 of ``pieces(maxOperations:)``: the cuts in groups (ranges of cut indices, in
    /// order, covering every cut once) such that each tombstone and the operations of the delta
    /// that delete it are in one group.
    private func tiedGroups(of cuts: [Range<Int>]) -> [Range<Int>] {
        // Where each (replica, memo)'s text counters are: cut by cut, in counter order.
        var holders: [Pair: [(counters: Range<UInt32>, cut: Int)]] = [:]
        for (cut, range) in cuts.enumerated() {
            for entry in textCounterRanges(of: range) {
                holders[Pair(replica: entry.replica, memo: entry.memo), default: []].append((entry.counters, cut))
            }
        }
        /// The first and last cut holding text operations `counters` of `replica` on `memo`.
        func cutsHolding(_ counters: Range<UInt32>, of replica: ReplicaID, on memo: MemoID) -> ClosedRange<Int>? {
            guard let list = holders[Pair(replica: replica, memo: memo)] else { return nil }
            var low = list.partitioningIndex { $0.counters.upperBound > counters.lowerBound }
            var first: Int?
            var last: Int?
            while low < list.count && list[low].counters.lowerBound < counters.upperBound {
                first = first ?? list[low].cut
                last = list[low].cut
                low += 1
            }
            guard let first, let last else { return nil }
            return first...last
        }
        var ties: [ClosedRange<Int>] = []
        for (memo, text) in texts where text.hasTombstones {
            // The delta's tombstones of each replica, in counter order (runs are sorted by
            // replica, then counter).
            let tombstones = text.tombstoneRuns
            for deletion in text.runs {
                guard case let .deletion(target, _) = deletion.kind else { continue }
                let targets = target.counter..<target.counter + deletion.length
                var index = tombstones.partitioningIndex {
                    $0.replica > target.replica || ($0.replica == target.replica && $0.end > targets.lowerBound)
                }
                while index < tombstones.count, tombstones[index].replica == target.replica,
                    tombstones[index].counter < targets.upperBound
                {
                    let tombstone = tombstones[index]
                    let deleted = max(tombstone.counter, targets.lowerBound)..<min(tombstone.end, targets.upperBound)
                    if let holding = cutsHolding(deleted, of: target.replica, on: memo),
                        let deleting = cutsHolding(deletion.counter..<deletion.end, of: deletion.replica, on: memo)
                    {
                        let tie = min(holding.lowerBound, deleting.lowerBound)...max(holding.upperBound, deleting.upperBound)
                        if tie.count > 1 { ties.append(tie) }
                    }
                    index += 1
                }
            }
        }
        // Joined: overlapping ties, then every cut no tie covers on its own.
        ties.sort { $0.lowerBound < $1.lowerBound }
        var groups: [Range<Int>] = []
        var next = 0
        for tie in ties {
            if let last = groups.last, tie.lowerBound < last.upperBound {
                if tie.upperBound + 1 > last.upperBound { groups[groups.count - 1] = last.lowerBound..<tie.upperBound + 1 }
                next = groups[groups.count - 1].upperBound
                continue
            }
            while next < tie.lowerBound {
                groups.append(next..<next + 1)
                next += 1
            }
            groups.append(tie.lowerBound..<tie.upperBound + 1)
            next = tie.upperBound + 1
        }
        while next < cuts.count {
            groups.append(next..<next + 1)
            next += 1
        }
        return groups
    }

    /// The piece of this delta made of the runs of `cuts` (consecutive in the time order of
    /// step 2, so each replica's among them are consecutive in ``runs``: one range per replica)
    /// and exactly the text operations they stand for.
    private func piece(cuts: ArraySlice<Range<Int>>) -> NotebookDelta {
        // One range of `runs` per replica, in `runs` order (replica, then counter).
        var ranges: [Range<Int>] = []
        for cut in cuts.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = ranges.last, last.upperBound == cut.lowerBound, runs[last.lowerBound].replica == runs[cut.lowerBound].replica {
                ranges[ranges.count - 1] = last.lowerBound..<cut.upperBound
            } else {
                ranges.append(cut)
            }
        }
        var byMemo: [MemoID: [(replica: ReplicaID, counters: Range<UInt32>)]] = [:]
        for range in ranges {
            for entry in textCounterRanges(of: range) {
                byMemo[entry.memo, default: []].append((entry.replica, entry.counters))
            }
        }
        let texts = byMemo.keys.sorted().map { memo -> (memo: MemoID, delta: TextDelta) in
            let whole = text(for: memo)
            // Runs sorted by replica, then counter, as a delta's are.
            let parts = byMemo[memo]!.sorted { $0.replica < $1.replica }
            if parts.count == 1 { return (memo, whole.restricted(to: parts[0].replica, counters: parts[0].counters)) }
            return (memo, TextDelta(runs: parts.flatMap { whole.restricted(to: $0.replica, counters: $0.counters).runs }))
        }
        return NotebookDelta(runs: ranges.flatMap { runs[$0] }, texts: texts)
    }

    public static func == (lhs: NotebookDelta, rhs: NotebookDelta) -> Bool {
        lhs.runs == rhs.runs && lhs.texts.count == rhs.texts.count
            && zip(lhs.texts, rhs.texts).allSatisfy { $0.memo == $1.memo && $0.delta == $1.delta }
    }
}
