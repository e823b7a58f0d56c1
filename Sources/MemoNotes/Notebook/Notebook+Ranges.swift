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

extension Notebook {
    /// Whether `delta`, operations of this notebook about to be published, builds on an
    /// operation this notebook holds beyond `offered` (per replica, how many of its operations a
    /// reader can get without this notebook) that `delta` does not carry: the creation of a memo
    /// it changes, a character its insertions are placed against or its deletions delete, or
    /// text its trash or purge saw. A reader that can get only what is offered could not apply
    /// such a delta, and once this notebook is gone nobody could (Simulations/README.md, "Seed
    /// 3093"); a publisher writes everything it holds (a snapshot) instead.
    ///
    /// - Complexity: O(r) for r replicas when nothing held is beyond what is offered (the usual
    ///   case: `delta` is not looked at); else O(u + k) for u runs held beyond it and k runs in
    ///   `delta`.
    package func builds(on delta: NotebookDelta, beyond offered: (ReplicaID) -> UInt32) -> Bool {
        // What is held and not offered, per replica, without the ranges `delta` carries.
        var carried: [(replica: ReplicaID, counters: Range<UInt32>)]?
        var unoffered: [(replica: ReplicaID, counters: Range<UInt32>)] = []
        for entry in version.entries {
            let from = offered(entry.replica)
            guard from < entry.operationCount else { continue }
            if carried == nil { carried = delta.counterRanges }
            var pieces = [from..<entry.operationCount]
            for range in carried! where range.replica == entry.replica {
                pieces = pieces.flatMap { piece -> [Range<UInt32>] in
                    guard piece.overlaps(range.counters) else { return [piece] }
                    let left = piece.lowerBound..<max(piece.lowerBound, range.counters.lowerBound)
                    let right = min(piece.upperBound, range.counters.upperBound)..<piece.upperBound
                    return [left, right].filter { !$0.isEmpty }
                }
            }
            for piece in pieces { unoffered.append((entry.replica, piece)) }
        }
        if unoffered.isEmpty { return false }
        // In the memos `delta` changes: a creation not offered (then it builds on it), or text
        // operations not offered, per replica as text counter ranges.
        let changed = Set(delta.runs.map(\.run.memo))
        var unofferedText: [MemoID: [(replica: ReplicaID, textCounters: Range<UInt32>)]] = [:]
        for (replica, counters) in unoffered {
            let log = log(of: replica)
            var index = log.firstRun(endingAfter: counters.lowerBound)
            while index < log.runs.count, log.runs[index].counter < counters.upperBound {
                let run = log.runs[index]
                index += 1
                guard changed.contains(run.memo) else { continue }
                switch run.kind {
                case .create:
                    return true
                case let .text(textCounter):
                    let start = max(run.counter, counters.lowerBound) - run.counter
                    let end = min(run.end, counters.upperBound) - run.counter
                    unofferedText[run.memo, default: []].append((replica, textCounter + start..<textCounter + end))
                case .trash, .restore, .purge:
                    continue
                }
            }
        }
        if unofferedText.isEmpty { return false }
        func isUnoffered(_ id: OperationID, count: UInt32, in ranges: [(replica: ReplicaID, textCounters: Range<UInt32>)]) -> Bool {
            let referenced = id.counter..<id.counter &+ count
            return ranges.contains { $0.replica == id.replica && $0.textCounters.overlaps(referenced) }
        }
        for (memo, text) in delta.texts {
            guard let ranges = unofferedText[memo] else { continue }
            for run in text.runs {
                switch run.kind {
                case let .insertion(originLeft, originRight, _):
                    // Later items of the run follow its first; an inherited right origin is the
                    // left origin's, which is checked.
                    if let originLeft, isUnoffered(originLeft, count: 1, in: ranges) { return true }
                    if case let .item(right) = originRight, isUnoffered(right, count: 1, in: ranges) { return true }
                case let .deletion(target, _):
                    if isUnoffered(target, count: run.length, in: ranges) { return true }
                }
            }
        }
        for replicaRun in delta.runs {
            guard let ranges = unofferedText[replicaRun.run.memo] else { continue }
            switch replicaRun.run.kind {
            case let .trash(seen), let .purge(seen):
                if ranges.contains(where: { seen[$0.replica] > $0.textCounters.lowerBound }) { return true }
            case .create, .text, .restore:
                continue
            }
        }
        return false
    }
}
