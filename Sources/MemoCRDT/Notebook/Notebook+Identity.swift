// Replica identity: the operations of one replica in a counter range, checking that a delta's
// operations are the ones held here, and moving a replica's operations to a new id (when a
// library turns out to share its replica id with a copy of itself).

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
    /// - Throws: ``NotebookError/corruptMemo(_:_:)``.
    public func changes(of ranges: [(replica: ReplicaID, counters: Range<UInt32>)]) throws(NotebookError) -> NotebookDelta {
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

    /// Whether this notebook holds every operation of `delta` and holds the same ones: the same
    /// runs (memo, kind, text counters, what a trash saw), and text operations that are the same
    /// by id, timestamp, origins, targets and content. Timestamps of runs are not compared (a run
    /// published early ends earlier than the run it grew into).
    public func holdsSameOperations(as delta: NotebookDelta) -> Bool {
        for replicaRun in delta.runs {
            let log = log(of: replicaRun.replica)
            let run = replicaRun.run
            guard run.end <= log.operationCount else { return false }
            var counter = run.counter
            var index = log.firstRun(endingAfter: counter)
            while counter < run.end {
                guard index < log.runs.count else { return false }
                let held = log.runs[index]
                guard held.memo == run.memo else { return false }
                switch (held.kind, run.kind) {
                case let (.text(heldText), .text(text)):
                    guard heldText + (counter - held.counter) == text + (counter - run.counter) else { return false }
                case (.create, .create), (.restore, .restore): break
                case let (.trash(heldSeen), .trash(seen)), let (.purge(heldSeen), .purge(seen)):
                    guard heldSeen == seen else { return false }
                default: return false
                }
                counter = min(run.end, held.end)
                index += 1
            }
        }
        for (memo, text) in delta.texts {
            guard let record = memos[memo], let held = try? readableText(of: record), held.holdsSameOperations(as: text) else {
                return false
            }
        }
        return true
    }

    /// This notebook with the local replica's operations from notebook counter `fork` on moved
    /// to `newReplica` (renumbered from 0), which becomes the local replica. Everything else is
    /// unchanged, so no edit is lost.
    ///
    /// For a library that finds, when it syncs, that another copy of itself (a clone, or the
    /// original of a restored backup) has published different operations under its replica id
    /// from `fork` on: this copy's operations from there move to a fresh id, and the other
    /// copy's become an ordinary other replica's.
    ///
    /// - Throws: ``NotebookError/invalidDelta(reason:)`` when operations of other replicas depend
    ///   on the moved ones (so they were published after all; nothing changes),
    ///   ``NotebookError/corruptMemo(_:_:)``.
    /// - Complexity: O(n): the notebook is rebuilt from its operations.
    public func reidentified(from fork: UInt32, as newReplica: ReplicaID) throws(NotebookError) -> Notebook {
        let old = replica
        let all = try changes(since: VersionVector())
        // Text counter boundary of each memo: the old replica's text operations below `fork`.
        var textBoundary: [MemoID: UInt32] = [:]
        var kept: [NotebookDelta.ReplicaRun] = []
        var moved: [NotebookDelta.ReplicaRun] = []
        var previousTimestamp = HybridTimestamp.zero
        for replicaRun in all.runs {
            guard replicaRun.replica == old, replicaRun.run.end > fork else {
                kept.append(replicaRun)
                if replicaRun.replica == old { previousTimestamp = replicaRun.run.timestamp }
                if replicaRun.replica == old, case let .text(textCounter) = replicaRun.run.kind {
                    textBoundary[replicaRun.run.memo] = textCounter + replicaRun.run.length
                }
                continue
            }
            var run = replicaRun.run
            if run.counter < fork {
                let below = fork - run.counter
                var head = run
                head.length = below
                // A run's timestamp is its last operation's, and that one moves. The kept part's
                // own last timestamp is not known; the previous run's is a lower bound, and the
                // other copy's operations, merged next, carry the right one (runs merge by max).
                head.timestamp = previousTimestamp
                kept.append(NotebookDelta.ReplicaRun(replica: old, run: head))
                if case let .text(textCounter) = head.kind { textBoundary[head.memo] = textCounter + below }
                run = run.dropping(below)
            }
            moved.append(NotebookDelta.ReplicaRun(replica: old, run: run))
        }
        // Rename the moved runs, their text operations, and what their trashes saw.
        func renamedSeen(_ seen: VersionVector, memo: MemoID) -> VersionVector {
            let boundary = textBoundary[memo] ?? 0
            var result = seen
            let count = seen[old]
            if count > boundary {
                result[old] = boundary
                result[newReplica] = count - boundary
            }
            return result
        }
        var movedRenamed: [NotebookDelta.ReplicaRun] = []
        for replicaRun in moved {
            var run = replicaRun.run
            run.counter -= fork
            switch run.kind {
            case let .text(textCounter): run.kind = .text(textCounter: textCounter - (textBoundary[run.memo] ?? 0))
            case let .trash(seen): run.kind = .trash(seen: renamedSeen(seen, memo: run.memo))
            case let .purge(seen): run.kind = .purge(seen: renamedSeen(seen, memo: run.memo))
            case .create, .restore: break
            }
            movedRenamed.append(NotebookDelta.ReplicaRun(replica: newReplica, run: run))
        }
        var keptTexts: [(memo: MemoID, delta: TextDelta)] = []
        var movedTexts: [(memo: MemoID, delta: TextDelta)] = []
        for (memo, text) in all.texts {
            let boundary = textBoundary[memo] ?? 0
            let renamed = text.renaming(old, from: boundary, to: newReplica)
            let keptPart = renamed.excluding(newReplica)
            let movedPart = renamed.restricted(to: newReplica, counters: 0..<UInt32.max)
            if !keptPart.isEmpty { keptTexts.append((memo, keptPart)) }
            if !movedPart.isEmpty { movedTexts.append((memo, movedPart)) }
        }
        var rebuilt = Notebook(replica: newReplica)
        try rebuilt.apply(NotebookDelta(runs: kept, texts: keptTexts))
        try rebuilt.apply(NotebookDelta(runs: movedRenamed, texts: movedTexts))
        _ = rebuilt.takeEvents()
        // Operations of other replicas that build on the moved ones (this copy's operations
        // reached someone after all, e.g. through a copy of its library) would be held back
        // forever under the new id: refuse rather than lose them.
        guard rebuilt.pendingOperationCount == 0 else {
            throw .invalidDelta(reason: "other replicas' operations build on the operations this library would move to a new id")
        }
        return rebuilt
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

extension TextDelta {
    /// This delta without the runs of `replica`.
    func excluding(_ replica: ReplicaID) -> TextDelta {
        TextDelta(runs: runs.filter { $0.replica != replica })
    }
}

/// How a replica's operations in a delta compare with the ones a notebook holds.
public enum OperationComparison: Sendable, Equatable {
    /// The notebook holds every one of them, the same.
    case same
    /// Those the notebook holds are the same; the delta has more after them.
    case extends
    /// They differ from notebook counter `fromCounter` on (the delta's and the notebook's
    /// operations below it are the same).
    case differs(fromCounter: UInt32)
}

extension Notebook {
    /// Compares the operations of `replica` in `delta` with the ones this notebook holds.
    ///
    /// A replica that finds operations under its own id in the store that it did not publish
    /// uses this: `.same` (it published them and forgot, say after a crash), `.extends` (a
    /// restored backup: the store has its later operations), `.differs` (a copy of the library
    /// made different operations under the same ids).
    ///
    /// - Complexity: O(k log k) for k operations of `replica` in the delta, times the cost of
    ///   one comparison when they differ (a binary search finds where).
    public func compareOperations(of replica: ReplicaID, with delta: NotebookDelta) -> OperationComparison {
        let held = log(of: replica).operationCount
        let ranges = delta.counterRanges.filter { $0.replica == replica }
        guard let first = ranges.first?.counters.lowerBound, let last = ranges.last?.counters.upperBound else { return .same }
        if holdsSameOperations(as: delta.restricted(to: replica, below: held)) {
            return last > held ? .extends : .same
        }
        // The longest prefix that is the same: "same below F" holds for F = first and fails
        // for F = min(last, held).
        var low = first
        var high = min(last, held)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if holdsSameOperations(as: delta.restricted(to: replica, below: middle)) { low = middle } else { high = middle }
        }
        return .differs(fromCounter: low)
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
