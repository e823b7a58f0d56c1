// A cheap bound on what applying a delta can achieve, for callers that try deltas and keep them
// only when they apply whole (a sync's segments of several sessions).

extension Notebook {
    /// False when ``apply(_:)`` of `delta` would certainly end with more operations held back
    /// than now (or throw); true when it may not. Reads counters and the references of the text
    /// runs: no text is decoded and nothing is applied.
    ///
    /// Why the bound holds: applying queues every run of `delta` with the runs already held back,
    /// and an operation leaves that queue only when its replica's log reaches past it (it is
    /// applied, or found to be a duplicate). A replica's log advances one operation at a time,
    /// in counter order, through queued runs that start at or before its end; so it reaches at
    /// most the end of the chain of queued runs that starts at its current end, and never past
    /// a text operation that cannot be applied. A text operation cannot be applied when its memo
    /// does not exist and no queued run creates it, or when an item it refers to (its
    /// originLeft, its originRight, a character it deletes) is neither in the memo's text nor
    /// among the queued text operations of that memo. If the queued operations below those
    /// limits are fewer than the operations `delta` adds, more are held back afterwards,
    /// whatever else happens. (Undoing a call that would orphan characters keeps every queued
    /// run, so it obeys the same bound.)
    ///
    /// - Complexity: O(k log k) for k notebook and text runs in `delta` and held back.
    public func mayApplyWithoutHoldingBackMore(_ delta: NotebookDelta) -> Bool {
        if delta.isEmpty { return true }
        // Every queued notebook run, with the text operations it stands for.
        var queued: [(replica: ReplicaID, run: NotebookRun, text: [TextDelta.Run])] = []
        var added = 0
        for replicaRun in delta.runs {
            added += Int(replicaRun.run.length)
            var text: [TextDelta.Run] = []
            if case let .text(textCounter) = replicaRun.run.kind {
                // As `apply(_:)` queues it.
                text = delta.text(for: replicaRun.run.memo).restricted(
                    to: replicaRun.replica, counters: textCounter..<textCounter + replicaRun.run.length
                ).runs
            }
            queued.append((replicaRun.replica, replicaRun.run, text))
        }
        for (replicaID, runs) in pending {
            for item in runs { queued.append((replicaID, item.run, item.text.runs)) }
        }
        // What each memo can hold by the end: its text, plus the queued text operations (per
        // memo and replica, as text counter ranges); and which memos are or can be created.
        var queuedText: [MemoID: [ReplicaID: [Range<UInt32>]]] = [:]
        var creatable = Set<MemoID>()
        for entry in queued {
            switch entry.run.kind {
            case .create: creatable.insert(entry.run.memo)
            case let .text(textCounter):
                queuedText[entry.run.memo, default: [:]][entry.replica, default: []]
                    .append(textCounter..<textCounter + entry.run.length)
            default: break
            }
        }
        var versions: [MemoID: VersionVector] = [:]
        func version(of memo: MemoID) -> VersionVector {
            if let known = versions[memo] { return known }
            let found = memos[memo]?.text.version ?? VersionVector()
            versions[memo] = found
            return found
        }
        func available(_ memo: MemoID, _ replica: ReplicaID, _ counters: Range<UInt32>) -> Bool {
            // Text operations are dense per replica: those below the memo's count are held.
            var from = max(counters.lowerBound, version(of: memo)[replica])
            guard from < counters.upperBound else { return true }
            // The rest must be queued (ranges may overlap or repeat).
            let ranges = (queuedText[memo]?[replica] ?? []).sorted { $0.lowerBound < $1.lowerBound }
            for range in ranges where range.lowerBound <= from && from < range.upperBound {
                from = range.upperBound
                if from >= counters.upperBound { return true }
            }
            return from >= counters.upperBound
        }
        // Per replica, the first notebook counter that certainly cannot be applied.
        var blocked: [ReplicaID: UInt32] = [:]
        for entry in queued {
            guard case let .text(textCounter) = entry.run.kind else { continue }
            let memo = entry.run.memo
            var first: UInt32?
            if memos[memo] == nil && !creatable.contains(memo) {
                first = entry.run.counter
            } else {
                // (Held-back runs keep their text restricted to them; a run before the notebook
                // run's first text counter is only skipped, which keeps the bound sound.)
                for run in entry.text where run.counter >= textCounter {
                    var ready = true
                    switch run.kind {
                    case let .insertion(originLeft, originRight, _):
                        if let originLeft, !available(memo, originLeft.replica, originLeft.counter..<originLeft.counter + 1) {
                            ready = false
                        }
                        if case let .item(id) = originRight, !available(memo, id.replica, id.counter..<id.counter + 1) {
                            ready = false
                        }
                    case let .deletion(target, _):
                        ready = available(memo, target.replica, target.counter..<target.counter + run.length)
                    }
                    if !ready {
                        first = entry.run.counter + (run.counter - textCounter)
                        break
                    }
                }
            }
            if let first { blocked[entry.replica] = min(blocked[entry.replica] ?? first, first) }
        }
        // Operations that can leave the queue, at most. The sum does not depend on the order
        // the replicas are visited in.
        var ranges: [ReplicaID: [Range<UInt32>]] = [:]
        for entry in queued { ranges[entry.replica, default: []].append(entry.run.counter..<entry.run.end) }
        var removable = 0
        for (replicaID, list) in ranges {
            let sorted = list.sorted { $0.lowerBound < $1.lowerBound }
            let held = log(of: replicaID).operationCount
            var reach = held
            for range in sorted {
                guard range.lowerBound <= reach else { break }
                reach = max(reach, range.upperBound)
            }
            // A blocked operation at or past the log's end stops it there.
            if let stop = blocked[replicaID], stop >= held { reach = min(reach, stop) }
            for range in sorted where range.lowerBound < reach {
                removable += Int(min(range.upperBound, reach) - range.lowerBound)
            }
        }
        return removable >= added
    }
}
