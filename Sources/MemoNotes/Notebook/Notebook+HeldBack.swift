import MemoCRDT
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
    /// originLeft, its originRight, the character it deletes) is neither in the memo's text nor
    /// among the queued text operations of that memo (an insertion's later operations wait for
    /// its first). If the queued operations below those limits are fewer than the operations
    /// `delta` adds, more are held back afterwards, whatever else happens. (Undoing a call that
    /// would orphan characters keeps every queued run, so it obeys the same bound.)
    ///
    /// - Complexity: O(k log k) for k notebook and text runs in `delta` and held back; the
    ///   references of the runs held back are read only when those of `delta` leave the answer
    ///   open.
    package func mayApplyWithoutHoldingBackMore(_ delta: NotebookDelta) -> Bool {
        if delta.isEmpty { return true }
        var queue = QueuedOperations()
        var added = 0
        for replicaRun in delta.runs {
            added += Int(replicaRun.run.length)
            queue.add(replicaRun.run, of: replicaRun.replica)
        }
        queue.addHeldBack(pending)
        var bound = ReachBound(queue)
        // Each block only lowers the count (a chain cut earlier reaches no further), so once it
        // is below `added` the answer is no, whatever the other references say. The delta's
        // references are read first (the held back runs are many, and the delta is what is new),
        // then the held-back runs' memo by memo, the count taken again after each memo whose
        // runs cut a chain.
        var deltaTexts: [MemoID: [TextDelta]] = [:]
        for (memo, text) in delta.texts { deltaTexts[memo, default: []].append(text) }
        for (memo, list) in deltaTexts { bound.checkReferences(of: memo, list, in: self) }
        if bound.removableCount(in: self) < added { return false }
        var pendingTexts: [MemoID: [TextDelta]] = [:]
        for (_, runs) in pending {
            for item in runs where !item.text.isEmpty { pendingTexts[item.run.memo, default: []].append(item.text) }
        }
        for (memo, list) in pendingTexts {
            let before = bound.blocked
            bound.checkReferences(of: memo, list, in: self)
            if bound.blocked != before && bound.removableCount(in: self) < added { return false }
        }
        return bound.removableCount(in: self) >= added
    }
}

/// Every queued notebook run once a delta is queued with the runs held back: counter ranges per
/// replica, the queued text operations per memo and replica, and the memos that are or can be
/// created.
private struct QueuedOperations {
    var ranges: [ReplicaID: [Range<UInt32>]] = [:]
    var parts: [MemoID: [TextPart]] = [:]
    var creatable = Set<MemoID>()

    /// Queues one run of `replica`.
    @inline(__always)
    mutating func add(_ run: NotebookRun, of replica: ReplicaID) {
        ranges[replica, default: []].append(run.counter..<run.end)
        addText(of: run, replica: replica)
    }

    /// Queues every run held back.
    mutating func addHeldBack(_ pending: [ReplicaID: [Notebook.PendingRun]]) {
        for (replicaID, runs) in pending {
            // One lookup per replica for its counter ranges (the held-back runs are many).
            ranges[replicaID, default: []].append(contentsOf: runs.lazy.map { $0.run.counter..<$0.run.end })
            for item in runs { addText(of: item.run, replica: replicaID) }
        }
    }

    /// Records what a queued run means for the texts: a memo that can be created, or text
    /// operations of a memo.
    @inline(__always)
    private mutating func addText(of run: NotebookRun, replica: ReplicaID) {
        switch run.kind {
        case .create: creatable.insert(run.memo)
        case let .text(textCounter):
            parts[run.memo, default: []].append(
                TextPart(replica: replica, textCounters: textCounter..<textCounter + run.length, counter: run.counter))
        default: break
        }
    }
}

/// How far the queue can drain at most: the queued operations, and per replica the first
/// operation found that certainly cannot be applied.
private struct ReachBound {
    private let parts: [MemoID: [TextPart]]
    private let creatable: Set<MemoID>
    /// Per replica, the queued notebook counter ranges in ascending order.
    private let sortedRanges: [(replica: ReplicaID, ranges: [Range<UInt32>])]
    /// Per memo and replica, the queued text counters as sorted disjoint ranges, and the queued
    /// parts sorted by text counter (to find where a text operation is in the log): worked out
    /// for a memo when its references are first read (an early answer leaves most memos unread).
    private var covered: [MemoID: [ReplicaID: [Range<UInt32>]]] = [:]
    private var sortedParts: [MemoID: [ReplicaID: [TextPart]]] = [:]
    /// Per replica, the first notebook counter that certainly cannot be applied (an upper
    /// bound of it: any later one keeps the bound sound).
    private(set) var blocked: [ReplicaID: UInt32] = [:]

    init(_ queue: QueuedOperations) {
        parts = queue.parts
        creatable = queue.creatable
        sortedRanges = queue.ranges.map { (replica: $0.key, ranges: $0.value.sorted { $0.lowerBound < $1.lowerBound }) }
    }

    /// Operations that can leave the queue, at most. The sum does not depend on the order the
    /// replicas are visited in.
    func removableCount(in notebook: Notebook) -> Int {
        var removable = 0
        for (replicaID, sorted) in sortedRanges {
            let held = notebook.log(of: replicaID).operationCount
            var reach = held
            for range in sorted {
                guard range.lowerBound <= reach else { break }
                reach = max(reach, range.upperBound)
            }
            // A blocked operation (past the log's end) stops it there.
            if let stop = blocked[replicaID] { reach = min(reach, stop) }
            for range in sorted where range.lowerBound < reach {
                removable += Int(min(range.upperBound, reach) - range.lowerBound)
            }
        }
        return removable
    }

    /// Reads the references of every queued text run of `memo` (`list`), blocking the
    /// operations that cannot be applied. Each memo's version is built once per pass.
    mutating func checkReferences(of memo: MemoID, _ list: [TextDelta], in notebook: Notebook) {
        prepare(memo)
        // A memo created now holds nothing yet: every reference must be queued.
        var version = VersionVector()
        if let index = notebook.memos.index(of: memo) {
            version = notebook.memos[at: index].text.version
        } else if !creatable.contains(memo) {
            let memoParts = sortedParts[memo]
            for text in list {
                for run in text.runs { block(memoParts, run.replica, textCounter: run.counter, in: notebook) }
            }
            return
        }
        for text in list { checkReferences(of: memo, text, version: version, in: notebook) }
    }

    /// Works out `covered` and `sortedParts` for `memo`, once.
    private mutating func prepare(_ memo: MemoID) {
        guard covered[memo] == nil, let list = parts[memo] else { return }
        var byReplica: [ReplicaID: [Range<UInt32>]] = [:]
        var partsByReplica: [ReplicaID: [TextPart]] = [:]
        for part in list {
            byReplica[part.replica, default: []].append(part.textCounters)
            partsByReplica[part.replica, default: []].append(part)
        }
        for (replica, unsorted) in partsByReplica {
            partsByReplica[replica] = unsorted.sorted { $0.textCounters.lowerBound < $1.textCounters.lowerBound }
        }
        sortedParts[memo] = partsByReplica
        for (replica, unsorted) in byReplica {
            var merged: [Range<UInt32>] = []
            for range in unsorted.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let last = merged.last, range.lowerBound <= last.upperBound {
                    merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
                } else {
                    merged.append(range)
                }
            }
            byReplica[replica] = merged
        }
        covered[memo] = byReplica
    }

    /// `checkReferences(of:_:in:)` for one text run list of a memo whose text holds `version`.
    private mutating func checkReferences(of memo: MemoID, _ text: TextDelta, version: VersionVector, in notebook: Notebook) {
        var queued = QueuedTextCounters(covered[memo] ?? [:])
        let memoParts = sortedParts[memo]
        // (Runs are read in place, field by field: copying a whole run, content included,
        // is costly.)
        let runs = text.runs
        for index in runs.indices {
            let run = (replica: runs[index].replica, counter: runs[index].counter, length: runs[index].length)
            switch runs[index].kind {
            case let .insertion(originLeft, originRight, _):
                var ready = true
                if let originLeft, queued.missing(originLeft.replica, originLeft.counter..<originLeft.counter + 1, version: version) != nil {
                    ready = false
                }
                if case let .item(id) = originRight, queued.missing(id.replica, id.counter..<id.counter + 1, version: version) != nil {
                    ready = false
                }
                if !ready { block(memoParts, run.replica, textCounter: run.counter, in: notebook) }
            case let .deletion(target, isReversed):
                guard let gap = queued.missing(target.replica, target.counter..<target.counter + run.length, version: version)
                else { break }
                // The first operation whose character is missing.
                let offset = isReversed ? target.counter + run.length - 1 - gap.last : gap.first - target.counter
                block(memoParts, run.replica, textCounter: run.counter + offset, in: notebook)
            }
        }
    }

    /// Blocks the notebook operation of `replica` that stands for its text operation
    /// `textCounter` in a memo whose queued parts are `memoParts`, if one is queued and the log
    /// does not hold it already.
    private mutating func block(
        _ memoParts: [ReplicaID: [TextPart]]?, _ replica: ReplicaID, textCounter: UInt32, in notebook: Notebook
    ) {
        // The last part starting at or before the counter holds it if any does (parts of one
        // memo and replica are distinct text operations, or copies of the same ones).
        guard let list = memoParts?[replica] else { return }
        let index = list.partitioningIndex { $0.textCounters.lowerBound > textCounter }
        guard index > 0, list[index - 1].textCounters.contains(textCounter) else { return }
        let part = list[index - 1]
        let counter = part.counter + (textCounter - part.textCounters.lowerBound)
        // One the log already holds is a duplicate, not a stop.
        guard counter >= notebook.log(of: replica).operationCount else { return }
        blocked[replica] = min(blocked[replica] ?? counter, counter)
    }
}

/// A queued notebook text run: its text counters and where they are in the notebook log.
private struct TextPart {
    var replica: ReplicaID
    var textCounters: Range<UInt32>
    var counter: UInt32
}

/// A memo's queued text counters per replica, with the last replica asked for kept at hand:
/// references mostly name the replica of the one before (typing on, deleting on).
private struct QueuedTextCounters {
    private let byReplica: [ReplicaID: [Range<UInt32>]]
    private var last: (replica: ReplicaID, ranges: [Range<UInt32>])?

    init(_ byReplica: [ReplicaID: [Range<UInt32>]]) {
        self.byReplica = byReplica
    }

    /// The queued counters of `replica` (sorted, disjoint); empty when none.
    mutating func ranges(of replica: ReplicaID) -> [Range<UInt32>] {
        if let last, last.replica == replica { return last.ranges }
        let ranges = byReplica[replica] ?? []
        last = (replica, ranges)
        return ranges
    }

    /// The counters of `counters` (text operations of `replica` in a memo whose text holds
    /// `version`) that the memo cannot hold by the end: the first and the last missing one, or
    /// nil when none is missing.
    mutating func missing(_ replica: ReplicaID, _ counters: Range<UInt32>, version: VersionVector) -> (first: UInt32, last: UInt32)? {
        // Text operations are dense per replica: those below the memo's count are held.
        let held = version[replica]
        guard held < counters.upperBound else { return nil }
        let queued = ranges(of: replica)
        var first: UInt32?
        var last: UInt32?
        var from = max(counters.lowerBound, held)
        for range in queued where range.upperBound > from {
            if from >= counters.upperBound { break }
            if range.lowerBound > from {
                first = first ?? from
                last = min(range.lowerBound, counters.upperBound) - 1
            }
            from = max(from, range.upperBound)
        }
        if from < counters.upperBound {
            first = first ?? from
            last = counters.upperBound - 1
        }
        guard let first, let last else { return nil }
        return (first, last)
    }
}
