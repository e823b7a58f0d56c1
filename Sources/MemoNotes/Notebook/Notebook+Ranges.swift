import MemoCRDT
// A replica's operations by counter range: what a sync publishes as a segment (one replica's
// new operations, or those of a library's several sessions together) and how it checks that a
// segment holds what its name says.

extension Notebook {
    /// The operations of `replica` with notebook counters in `counters` (as far as held), with
    /// the text operations behind them.
    ///
    /// - Throws: ``NotebookError/corruptMemo(_:_:)``.
    public func changes(of replica: ReplicaID, counters: Range<UInt32>) throws(NotebookError) -> NotebookDelta {
        var since = version
        since[replica] = counters.lowerBound
        let delta = try changes(since: since)
        return delta.restricted(to: replica, below: counters.upperBound)
    }

    /// The operations `ranges` of their replicas (each replica once), with their text
    /// operations: one delta for several replicas' operations, so that an insertion one of them
    /// made and another deleted travels with its deletion.
    ///
    /// - Throws: ``NotebookError/invalidDelta(reason:)`` when a replica appears twice,
    ///   ``NotebookError/corruptMemo(_:_:)``.
    public func changes(of ranges: [(replica: ReplicaID, counters: Range<UInt32>)]) throws(NotebookError) -> NotebookDelta {
        guard Set(ranges.map(\.replica)).count == ranges.count else {
            throw .invalidDelta(reason: "a replica appears twice in the ranges asked for")
        }
        var since = version
        for range in ranges { since[range.replica] = range.counters.lowerBound }
        let delta = try changes(since: since)
        var runs: [NotebookDelta.ReplicaRun] = []
        var texts: [MemoID: [TextDelta.Run]] = [:]
        for range in ranges {
            let part = delta.restricted(to: range.replica, below: range.counters.upperBound)
            runs += part.runs
            for (memo, text) in part.texts { texts[memo, default: []] += text.runs }
        }
        runs.sort { ($0.replica, $0.run.counter) < ($1.replica, $1.run.counter) }
        return NotebookDelta(
            runs: runs,
            texts: texts.keys.sorted().map { memo in
                (memo, TextDelta(runs: texts[memo]!.sorted { ($0.replica, $0.counter) < ($1.replica, $1.counter) }))
            })
    }
}

extension NotebookDelta {
    /// The runs of `replica` below counter `end`, with their text operations; nothing else.
    func restricted(to replica: ReplicaID, below end: UInt32) -> NotebookDelta {
        var runs: [ReplicaRun] = []
        var textRanges: [MemoID: [Range<UInt32>]] = [:]
        for replicaRun in self.runs where replicaRun.replica == replica && replicaRun.run.counter < end {
            var run = replicaRun.run
            if run.end > end { run.length = end - run.counter }
            runs.append(ReplicaRun(replica: replica, run: run))
            if case let .text(textCounter) = run.kind {
                textRanges[run.memo, default: []].append(textCounter..<textCounter + run.length)
            }
        }
        var texts: [(memo: MemoID, delta: TextDelta)] = []
        for memo in textRanges.keys.sorted() {
            var runs: [TextDelta.Run] = []
            for range in textRanges[memo]! { runs += text(for: memo).restricted(to: replica, counters: range).runs }
            texts.append((memo, TextDelta(runs: runs)))
        }
        return NotebookDelta(runs: runs, texts: texts)
    }
}

extension NotebookDelta {
    /// Each replica's operation counters in this delta, as maximal contiguous ranges, sorted by
    /// replica then counter.
    public var counterRanges: [(replica: ReplicaID, counters: Range<UInt32>)] {
        var result: [(replica: ReplicaID, counters: Range<UInt32>)] = []
        for replicaRun in runs {
            let range = replicaRun.run.counter..<replicaRun.run.end
            if let last = result.last, last.replica == replicaRun.replica, last.counters.upperBound == range.lowerBound {
                result[result.count - 1].counters = last.counters.lowerBound..<range.upperBound
            } else {
                result.append((replicaRun.replica, range))
            }
        }
        return result
    }
}

extension Notebook {
    /// Whether every insertion `delta` carries without its content (a tombstone: deleted by the
    /// time the delta was made) is already held here, or deleted by a deletion `delta` carries
    /// too. A delta that fails this would leave a character deleted with no operation that
    /// deletes it; a reader waits for a delta (or a snapshot) that carries both.
    ///
    /// - Complexity: O(k log k) for k text runs, plus decoding the memos with tombstones.
    public func carriesItsDeletions(_ delta: NotebookDelta) -> Bool {
        for (memo, text) in delta.texts where text.hasTombstones {
            var held = VersionVector()
            if let record = memos[memo] {
                guard let decoded = try? readableText(of: record) else { return false }
                held = decoded.version
            }
            if !text.carriesItsDeletions(holding: held) { return false }
        }
        return true
    }
}
