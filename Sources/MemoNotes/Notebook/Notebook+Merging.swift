import MemoCRDT
// Exchanging notebook operations: the changes since a version, applying a delta in causal order
// (holding back runs whose dependencies have not arrived), merging whole notebooks.

/// What ``Notebook/apply(_:)`` did with a delta.
public struct NotebookApplyReport: Sendable, Equatable {
    /// Notebook operations applied now (including held-back ones whose dependencies arrived).
    public var appliedOperationCount = 0
    /// Operations the notebook already held.
    public var duplicateOperationCount = 0
    /// Operations held back for missing dependencies, after this call.
    public var pendingOperationCount = 0
    /// Memos that changed, in id order.
    public var changedMemos: [MemoID] = []

    /// An empty report.
    public init() {}
}

extension Notebook {
    // MARK: Changes

    /// The operations this notebook holds that `version` lacks: notebook runs, and for each memo
    /// they touch, exactly the text operations behind them.
    ///
    /// - Throws: ``NotebookError/corruptMemo(_:_:)`` when a memo's stored text cannot be decoded.
    /// - Complexity: O(k) in the runs and text operations returned (plus decoding any memo still
    ///   encoded).
    public func changes(since version: VersionVector) throws(NotebookError) -> NotebookDelta {
        var runs: [NotebookDelta.ReplicaRun] = []
        var textRanges: [MemoID: [(replica: ReplicaID, counters: Range<UInt32>)]] = [:]
        for replicaID in logs.keys.sorted() {
            let log = logs[replicaID]!
            let from = version[replicaID]
            guard from < log.operationCount else { continue }
            for var run in log.runs[log.firstRun(endingAfter: from)...] {
                if run.counter < from { run = run.dropping(from - run.counter) }
                #if MEMOSYNC_MUTANTS
                if EngineMutant.active == .deltaOmitsOperation, run.end == log.operationCount, run.length > 1 { run.length -= 1 }
                #endif
                runs.append(NotebookDelta.ReplicaRun(replica: replicaID, run: run))
                if case let .text(textCounter) = run.kind {
                    textRanges[run.memo, default: []].append((replicaID, textCounter..<textCounter + run.length))
                }
            }
        }
        var texts: [(memo: MemoID, delta: TextDelta)] = []
        for memo in textRanges.keys.sorted() {
            let text = try readableText(of: memos[memo]!)
            do throws(TextError) {
                texts.append((memo, try text.changes(in: textRanges[memo]!)))
            } catch {
                // (The notebook's runs cover exactly its texts' operations: checked when decoded.)
                throw .text(memo, error)
            }
        }
        return NotebookDelta(runs: runs, texts: texts)
    }

    // MARK: Applying

    /// Applies the operations of `delta` this notebook does not hold yet.
    ///
    /// Idempotent, commutative and associative, like the text CRDT: notebooks that applied the
    /// same deltas in any order hold the same memos, texts and statuses. Runs whose dependencies
    /// (the memo's creation, text operations they build on, what a trash saw) have not arrived are
    /// held back and applied by the call that brings them. Events for the changes are queued for
    /// ``takeEvents()``, marked remote.
    ///
    /// Characters a delta carries already deleted (without their content) are applied only
    /// together with the operations that delete them, so the notebook never holds a deletion
    /// no operation made: a call applies the largest set of the operations it holds back that
    /// is complete (everything each builds on is in it or applied) and leaves no such
    /// character without its deletion. Which operations that is depends only on what the
    /// notebook received, never on the order or grouping of the calls that brought it.
    ///
    /// - Throws: ``NotebookError/invalidDelta(reason:)`` for a delta no correct replica could
    ///   produce, ``NotebookError/corruptMemo(_:_:)``; nothing changes when it throws.
    @discardableResult
    public mutating func apply(_ delta: NotebookDelta) throws(NotebookError) -> NotebookApplyReport {
        try apply(delta, queueingEvents: true)
    }

    /// ``apply(_:)`` for a caller that discards the events: the same checks, the same errors,
    /// the same memos, texts, logs, held-back runs and report, but no event is queued (and no
    /// text edit is recorded to build one). Events queued before the call stay queued.
    ///
    /// Reopening a library replays its journal with this: what it replays was already reported
    /// when it happened, and recovery drops every event.
    ///
    /// - Throws: as ``apply(_:)``; nothing changes when it throws.
    @discardableResult
    package mutating func applyWithoutEvents(_ delta: NotebookDelta) throws(NotebookError) -> NotebookApplyReport {
        try apply(delta, queueingEvents: false)
    }

    /// `apply(_:)`; `queueingEvents`: false leaves `events` as it was (nothing else depends on
    /// it).
    ///
    /// `heldFrom`: per replica, the first notebook counter this try leaves held back, even when
    /// ready (operations that left a character deleted by no operation in an earlier try of
    /// the call, and everything of their replica after them; see below).
    ///
    /// Why the result is the largest such set, and so the same whatever the order of calls:
    /// call a set of operations *good* when each builds only on operations applied or in the
    /// set, and every character the set brings already deleted is deleted by an operation
    /// applied or in the set. The union of good sets is good, so there is a largest, G. A try
    /// applies every ready operation below the limits (of an honest history: a run older than
    /// its replica's last applied operation waits for good, see `applyReadyRuns(of:_:)`);
    /// while no limit cuts G, what it applies
    /// includes G. If an applied character is then deleted by no applied operation, the
    /// operation that brought it is not in G (its deletion would be), nor is anything its
    /// replica did after it (a replica's operations apply in order), so the next try's limit
    /// cuts none of G either. A try that leaves no such character applied a good set holding
    /// G: G itself. Each try lowers a limit, so tries end. And G only grows as operations
    /// arrive, so a sequence of calls ends with the G of everything they brought.
    private mutating func apply(
        _ delta: NotebookDelta, queueingEvents: Bool, heldFrom: [ReplicaID: UInt32] = [:]
    ) throws(NotebookError) -> NotebookApplyReport {
        if delta.isEmpty && pending.isEmpty { return NotebookApplyReport() }
        try validate(delta)
        // As it was, for the case below where the call must be tried again. Kept only when
        // tombstones are in play: holding it makes the first change copy the memo table.
        let mayOrphan = delta.texts.contains { $0.delta.hasTombstones }
            || pending.values.contains { $0.contains { $0.hasTombstones } }
        let original: Notebook? = mayOrphan ? self : nil
        holdBack(delta)
        var pass = ApplyPass(queueingEvents: queueingEvents, collectingTombstones: mayOrphan, heldFrom: heldFrom)
        try applyReadyRuns(&pass)
        // Characters that arrived already deleted (a delta carries no content for them) whose
        // deletions are still held back (they wait for something else) would be deleted by no
        // operation held: a state that would not encode. Put the notebook back and try again
        // with the operations that brought them held back, and what their replicas did after.
        let orphans = try firstOrphaningOperations(pass.appliedTombstones)
        if !orphans.isEmpty, let original {
            var limits = heldFrom
            for (replicaID, counter) in orphans {
                precondition(counter < limits[replicaID] ?? .max, "an operation held back was applied")
                limits[replicaID] = counter
            }
            self = original
            return try apply(delta, queueingEvents: queueingEvents, heldFrom: limits)
        }
        markTitlesStale(inOrderOfChange: pass.textChanged)
        reportStatusChanges(&pass)
        pass.report.pendingOperationCount = pendingOperationCount
        checkInvariantsIfEnabled(.applied(pass.textChanged))
        return pass.report
    }

    /// What one call of `apply` gathers as it applies runs, for the checks and the report at its
    /// end.
    private struct ApplyPass {
        let queueingEvents: Bool
        /// Whether some queued text has tombstones (`mayOrphan`): only then are the applied ones
        /// collected (the parts of texts without are without).
        let collectingTombstones: Bool
        /// Per replica, the first notebook counter not applied in this pass (see `apply`'s
        /// `heldFrom`).
        var heldFrom: [ReplicaID: UInt32] = [:]
        var report = NotebookApplyReport()
        /// Text runs applied in this call that brought characters already deleted (tombstones),
        /// with where the notebook run that brought them starts (its counter and its first text
        /// counter): their deletions must be held by the end of the call (see `apply`).
        var appliedTombstones: [AppliedTombstones] = []
        /// The status of each memo a run touched, before the call (nil: the memo did not exist).
        var statusBefore: [MemoID: MemoStatus?] = [:]
        /// Memos whose text changed, in order (a memo repeated only when another came between):
        /// their titles are marked stale once each at the end, not after every run.
        var textChanged: [MemoID] = []
    }

    /// The tombstones a held-back run applied in a pass brought, and where that run starts.
    private struct AppliedTombstones {
        let memo: MemoID
        let replica: ReplicaID
        /// The notebook counter of the run's first operation, and its text counter.
        let counter: UInt32
        let textCounter: UInt32
        let runs: [TextDelta.Run]
    }

    /// Queues every run of `delta` with the text operations it stands for. A run the notebook
    /// holds already is only counted as a duplicate (held counts only grow), so it is queued
    /// without them. Runs come grouped by replica: each group is appended at once.
    ///
    /// Copies of one operation held back together share what they know: a copy made after the
    /// operation's character was deleted carries it as a tombstone, an earlier one with its
    /// content, and whichever is queued first must not decide whether it waits for its deletion
    /// (what applies must depend only on what arrived; see `apply`).
    private mutating func holdBack(_ delta: NotebookDelta) {
        var start = 0
        while start < delta.runs.count {
            let replicaID = delta.runs[start].replica
            let held = logs[replicaID]?.operationCount ?? 0
            // Runs held back already (the same segment read again by every sync while what
            // it waits for is missing) are not queued twice: the queue would grow each time.
            let waiting = heldBackRanges(of: replicaID)
            var group: [PendingRun] = []
            var index = start
            while index < delta.runs.count && delta.runs[index].replica == replicaID {
                let run = delta.runs[index].run
                var payload = TextDelta()
                if case let .text(textCounter) = run.kind, run.end > held {
                    payload = delta.text(for: run.memo).restricted(to: replicaID, counters: textCounter..<textCounter + run.length)
                }
                if !waiting.isEmpty && covers(waiting, run.counter..<run.end) {
                    if !payload.isEmpty { shareContent(of: PendingRun(run: run, text: payload), withQueuedOf: replicaID) }
                    index += 1
                    continue
                }
                var item = PendingRun(run: run, text: payload)
                if !waiting.isEmpty && !payload.isEmpty {
                    shareContent(of: item, withQueuedOf: replicaID)
                    item.takeContent(fromQueued: pending[replicaID] ?? [])
                }
                group.append(item)
                index += 1
            }
            pending[replicaID, default: []] += group
            start = index
        }
    }

    /// Gives the queued runs of `replicaID` the content `item` carries for their tombstones.
    private mutating func shareContent(of item: PendingRun, withQueuedOf replicaID: ReplicaID) {
        guard var queue = pending[replicaID], !item.text.isEmpty else { return }
        var changed = false
        for index in queue.indices where queue[index].hasTombstones && queue[index].overlaps(item) {
            let filled = queue[index].text.fillingTombstones(from: item.text)
            if filled != queue[index].text {
                queue[index].text = filled
                changed = true
            }
        }
        if changed { pending[replicaID] = queue }
    }

    /// Applies held-back runs, replica by replica, until none is ready.
    private mutating func applyReadyRuns(_ pass: inout ApplyPass) throws(NotebookError) {
        var progress = true
        while progress {
            progress = false
            for replicaID in pending.keys.sorted() {
                if try applyReadyRuns(of: replicaID, &pass) { progress = true }
            }
        }
    }

    /// Applies the held-back runs of `replicaID` that are next in line and ready, in counter
    /// order, and drops those the log holds; true when it applied any.
    private mutating func applyReadyRuns(of replicaID: ReplicaID, _ pass: inout ApplyPass) throws(NotebookError) -> Bool {
        // Held-back runs are kept in counter order; a sort (stable, so a no-op on sorted
        // runs) is needed only when some arrived out of order or a partly applied run's
        // rest moved past the next one.
        var queue = pending[replicaID]!
        var changed = false
        var progress = false
        if !Self.isInCounterOrder(queue) {
            queue.sort { $0.run.counter < $1.run.counter }
            changed = true
        }
        var index = 0
        let log = logs[replicaID]
        var held = log?.operationCount ?? 0
        // A replica's timestamps never go back: a run older than its replica's last
        // applied operation comes from a forged history and is held back for good
        // (``validate(_:)`` refuses the ones it can see then).
        var heldTimestamp = log?.runs.last?.timestamp
        let limit = pass.heldFrom.isEmpty ? nil : pass.heldFrom[replicaID]
        while index < queue.count {
            var item = queue[index]
            if item.run.end <= held {
                pass.report.duplicateOperationCount += Int(item.run.length)
                index += 1
                continue
            }
            if item.run.counter > held { break }
            if item.run.counter < held {
                pass.report.duplicateOperationCount += Int(held - item.run.counter)
                Self.dropHeldPart(of: &item, from: replicaID, held: held)
            }
            if let heldTimestamp, item.run.timestamp < heldTimestamp { break }
            // Past this pass's limit for the replica: only the part below it may apply, tried
            // as a run of its own (the rest stays queued behind it).
            var beyondLimit: PendingRun?
            if let limit, item.run.end > limit {
                guard item.run.counter < limit else { break }
                let (head, rest) = Self.split(item, from: replicaID, at: limit - item.run.counter, after: heldTimestamp)
                item = head
                beyondLimit = rest
            }
            if pass.statusBefore[item.run.memo] == nil { pass.statusBefore[item.run.memo] = .some(status(of: item.run.memo)) }
            // Found not ready before, and its memo's text unchanged since: still not ready. (The
            // count is taken only for runs that carry a stamp, and for those found not ready.)
            if let stamp = item.notReadyAtTextOperationCount, try heldTextOperationCount(for: item) == stamp {
                assertStillNotReady(item, from: replicaID, after: heldTimestamp)
                break
            }
            guard try isReady(item, from: replicaID) else {
                // A replica's log joins its text operations on one memo into one run,
                // even when a later one builds on a remote operation that itself builds
                // on an earlier one: apply what is ready and hold the rest.
                if let (head, rest) = try readyTextPrefix(of: item, from: replicaID, after: heldTimestamp) {
                    // The clock goes past the whole run's timestamp (an upper bound of the
                    // head's), so what this replica does next is later than all of it.
                    clock.observe(item.run.timestamp, wallMilliseconds: 0)
                    applyReady(head, from: replicaID, &pass)
                    held = head.run.end
                    heldTimestamp = head.run.timestamp
                    queue[index] = rest
                    if let beyondLimit { queue.insert(beyondLimit, at: index + 1) }
                    changed = true
                    progress = true
                } else if beyondLimit == nil, let textOperationCount = try heldTextOperationCount(for: item) {
                    // Neither applied nor changed anything: the text is as the check saw it.
                    // (Not for a part cut at a limit: the stamp is for the whole run.)
                    queue[index].notReadyAtTextOperationCount = textOperationCount
                    changed = true
                }
                break
            }
            applyReady(item, from: replicaID, &pass)
            held = item.run.end
            heldTimestamp = item.run.timestamp
            progress = true
            if let beyondLimit {
                // The rest waits behind the limit: the queue stops there.
                queue[index] = beyondLimit
                changed = true
                break
            }
            index += 1
        }
        // Behind the run the queue stopped at, copies of runs cut elsewhere (made at other
        // times) may lie wholly below the log's end: duplicates, dropped.
        if index < queue.count && queue[index...].contains(where: { $0.run.end <= held }) {
            for item in queue[index...] where item.run.end <= held { pass.report.duplicateOperationCount += Int(item.run.length) }
            queue = queue[..<index] + queue[index...].filter { $0.run.end > held }
            changed = true
        }
        guard changed || index > 0 else { return progress }
        queue.removeFirst(index)
        pending[replicaID] = queue.isEmpty ? nil : queue
        return progress
    }

    /// Drops from a held-back run of `replicaID` its operations below `held`, which the log
    /// holds already, with their text operations.
    @inline(__always)
    private static func dropHeldPart(of item: inout PendingRun, from replicaID: ReplicaID, held: UInt32) {
        item.run = item.run.dropping(held - item.run.counter)
        if case let .text(textCounter) = item.run.kind {
            item.text = item.text.restricted(to: replicaID, counters: textCounter..<textCounter + item.run.length)
        }
    }

    /// A held-back text run of `replicaID` cut after its first `length` operations: the head
    /// takes the lower bound of its timestamp (as in ``readyTextPrefix(of:from:after:)``), the
    /// rest keeps the run's.
    private static func split(
        _ item: PendingRun, from replicaID: ReplicaID, at length: UInt32, after heldTimestamp: HybridTimestamp?
    ) -> (head: PendingRun, rest: PendingRun) {
        guard case let .text(textCounter) = item.run.kind else { preconditionFailure("only text runs have parts") }
        var head = item
        head.run.length = length
        head.run.timestamp = min(heldTimestamp ?? .zero, item.run.timestamp)
        head.text = item.text.restricted(to: replicaID, counters: textCounter..<textCounter + length)
        var rest = item
        rest.run = item.run.dropping(length)
        rest.text = item.text.restricted(to: replicaID, counters: textCounter + length..<textCounter + item.run.length)
        return (head, rest)
    }

    /// Applies a ready run and records it in `pass`.
    @inline(__always)
    private mutating func applyReady(_ item: PendingRun, from replicaID: ReplicaID, _ pass: inout ApplyPass) {
        if pass.collectingTombstones, item.hasTombstones, case let .text(textCounter) = item.run.kind {
            pass.appliedTombstones.append(
                AppliedTombstones(
                    memo: item.run.memo, replica: replicaID, counter: item.run.counter, textCounter: textCounter,
                    runs: item.text.tombstoneRuns))
        }
        applyRemote(item, from: replicaID, queueingEvents: pass.queueingEvents)
        if case .text = item.run.kind, pass.textChanged.last != item.run.memo { pass.textChanged.append(item.run.memo) }
        pass.report.appliedOperationCount += Int(item.run.length)
    }

    /// Per replica, the first notebook operation applied in this pass that brought a character
    /// already deleted (a tombstone) that no operation the memo holds now deletes; empty when
    /// every such character's deletion is held.
    private mutating func firstOrphaningOperations(_ tombstones: [AppliedTombstones]) throws(NotebookError) -> [ReplicaID: UInt32] {
        var byMemo: [MemoID: [AppliedTombstones]] = [:]
        for applied in tombstones { byMemo[applied.memo, default: []].append(applied) }
        var first: [ReplicaID: UInt32] = [:]
        for memo in byMemo.keys.sorted() {
            let applied = byMemo[memo]!
            // All of the memo's at once (one pass over its deletions), each run's owner noted.
            var runs: [TextDelta.Run] = []
            var owners: [Int] = []
            for (position, item) in applied.enumerated() {
                runs += item.runs
                owners += repeatElement(position, count: item.runs.count)
            }
            for (index, orphan) in try materializedText(of: memo).firstUndeletedItems(runs) {
                let item = applied[owners[index]]
                // The text runs of a notebook run are its replica's, at its text counters.
                precondition(orphan.replica == item.replica && orphan.counter >= item.textCounter, "a run's text is its replica's")
                let counter = item.counter + (orphan.counter - item.textCounter)
                first[item.replica] = min(first[item.replica] ?? .max, counter)
            }
        }
        return first
    }

    /// Marks the titles of `changed` stale: in the order of their last change, which leaves
    /// every one but the last refreshed from its final text, as marking after each run would.
    private mutating func markTitlesStale(inOrderOfChange changed: [MemoID]) {
        var marked = Set<MemoID>()
        var staleOrder: [MemoID] = []
        for id in changed.reversed() where marked.insert(id).inserted { staleOrder.append(id) }
        for id in staleOrder.reversed() {
            if let index = memos.index(of: id) { memos.markDerivedTextStale(at: index) }
        }
    }

    /// Status changes, as events, and the changed memos in the report. Runs applied leave
    /// statuses as they were; every memo they touched is in `statusBefore`, so its status is
    /// taken here once.
    private mutating func reportStatusChanges(_ pass: inout ApplyPass) {
        for (id, before) in pass.statusBefore.sorted(by: { $0.key < $1.key }) {
            guard let index = memos.index(of: id) else { continue }
            memos[at: index].refreshStatus()
            let after = memos[at: index].status
            // Purge is the privacy tool: the memo's history goes with it.
            if after == .purged && before != .purged { dropAllHistory(at: index) }
            // A memo created by this delta starts active (its `.added` event said so).
            let previous = before ?? .active
            if pass.queueingEvents && previous != after {
                switch after {
                case .trashed: events.append(.trashed(id, origin: .remote))
                case .purged: events.append(.purged(id, origin: .remote))
                case .active: events.append(.restored(id, origin: .remote))
                }
            }
            pass.report.changedMemos.append(id)
        }
    }

    /// Merges every operation of `other` into this notebook.
    ///
    /// - Throws: ``NotebookError/corruptMemo(_:_:)`` when a stored memo cannot be decoded.
    ///
    /// A notebook that holds nothing yet adopts the other's storage (O(1) until changed) and
    /// reports every memo as added with its text, so a new device loads a snapshot at the speed
    /// of decoding it. Runs it held back (a segment read ahead of the snapshot it builds on)
    /// are then tried again, as ``apply(_:)`` would: what applies depends only on what arrived.
    public mutating func merge(_ other: Notebook) throws(NotebookError) {
        if logs.isEmpty && !other.logs.isEmpty {
            guard !pending.isEmpty else { return adopt(other) }
            // On a copy: nothing changes when the retry throws.
            var merged = self
            merged.adopt(other)
            for replicaID in pending.keys.sorted() { merged.pending[replicaID, default: []] += pending[replicaID]! }
            try merged.apply(NotebookDelta())
            self = merged
            return
        }
        switch version.compare(other.version) {
        case .equal, .after: return
        case .before, .concurrent: break
        }
        try apply(other.changes(since: version))
    }

    /// Takes over `other`'s memos and operations (this notebook holds none), keeping this
    /// replica, and reports each memo as added, with its text as one edit.
    private mutating func adopt(_ other: Notebook) {
        let ownReplica = replica
        let ownClock = clock
        let ownEvents = events
        let ownKeepsHistory = keepsHistoryStorage
        self = other
        replica = ownReplica
        keepsHistory = ownKeepsHistory
        events = ownEvents
        undoHistories = [:]
        trashUndo = TrashUndoHistory()
        clock.observe(ownClock.latest, wallMilliseconds: 0)
        // Records lent, not copied: a copy of each of 100,000 retains and releases its fields.
        var decoded: [Int] = []
        memos.forEachRecord(in: 0..<memos.count) { position, record in
            if case .materialized = record.pointee.text { decoded.append(position) }
        }
        for position in decoded {
            if case let .materialized(text) = memos[at: position].text {
                memos[at: position].text = .materialized(text.fork(replica: ownReplica))
            }
        }
        // The same events as receiving the operations one by one would give: a purged memo is
        // announced too (added, then purged), so that an edit which later brings it back is
        // reported for a memo the listener knows.
        // In id order: the table's own when it is (a decoded state's always is), so nothing is
        // sorted and no record copied (sorting 100,000 records copied 25 MB). A text still
        // encoded goes into its event as the UTF-8 the state holds (checked when decoded), made
        // a string only if the event is read (`TextEdit`).
        var ids: [MemoID] = []
        ids.reserveCapacity(memos.count)
        memos.forEachRecord(in: 0..<memos.count) { _, record in ids.append(record.pointee.id) }
        var positions = Array(ids.indices)
        if zip(ids, ids.dropFirst()).contains(where: { !($0 < $1) }) { positions.sort { ids[$0] < ids[$1] } }
        for position in positions {
            let id = ids[position]
            events.append(.added(id, origin: .remote))
            let edit: TextEdit? =
                switch memos[at: position].text {
                case let .encoded(bytes, _, text, _, _, _, _):
                    text.isEmpty ? nil : TextEdit(rangeUTF16: 0..<0, replacementUTF8: bytes[text])
                case let .materialized(text):
                    text.isEmpty ? nil : TextEdit(rangeUTF16: 0..<0, replacement: text.string)
                case let .stored(stored):
                    stored.textLength == 0 ? nil : TextEdit(rangeUTF16: 0..<0, replacementUTF8: stored.textOrListText)
                }
            if let edit { events.append(.changed(id, edits: [edit], origin: .remote)) }
            switch memos[at: position].status {
            case .active: break
            case .trashed: events.append(.trashed(id, origin: .remote))
            case .purged: events.append(.purged(id, origin: .remote))
            }
        }
        checkInvariantsIfEnabled()
    }

    // MARK: Implementation

    /// The counters of `replica`'s held-back runs, as ascending disjoint ranges (empty when
    /// none is held back).
    private func heldBackRanges(of replica: ReplicaID) -> [Range<UInt32>] {
        pending[replica].map { mergedRanges($0.map { $0.run.counter..<$0.run.end }) } ?? []
    }

    /// Whether held-back runs are in ascending counter order (ties allowed).
    static func isInCounterOrder(_ queue: [PendingRun]) -> Bool {
        var index = 1
        while index < queue.count {
            if queue[index].run.counter < queue[index - 1].run.counter { return false }
            index += 1
        }
        return true
    }

    /// Whether a held run of `replicaID` can be applied now.
    ///
    /// A text run must hold the next text operations of its replica in the memo: every earlier
    /// notebook operation of the replica is applied when it is next in line, so a run at other
    /// text counters comes from a forged history (``validate(_:)`` refuses the ones it can see
    /// then) and is held back for good rather than breaking the log.
    /// For a text run whose memo exists: how many operations the memo's text holds (the stamp
    /// of ``PendingRun/notReadyAtTextOperationCount``); nil for other runs.
    private mutating func heldTextOperationCount(for item: PendingRun) throws(NotebookError) -> Int? {
        guard case .text = item.run.kind, memos.contains(item.run.memo) else { return nil }
        return try materializedText(of: item.run.memo).operationCount
    }

    /// Self-checks (`MEMOSYNC_INTERNAL_CHECKS`): a run skipped as not ready by its stamp is
    /// indeed not ready, and has no ready first part.
    private mutating func assertStillNotReady(_ item: PendingRun, from replicaID: ReplicaID, after heldTimestamp: HybridTimestamp?) {
        #if MEMOSYNC_INTERNAL_CHECKS
        let counted = debugReadinessCheckCount
        defer { debugReadinessCheckCount = counted }
        let ready = (try? isReady(item, from: replicaID)) ?? false
        let prefix = (try? readyTextPrefix(of: item, from: replicaID, after: heldTimestamp)) ?? nil
        precondition(!ready && prefix == nil, "a held-back run skipped by its stamp was ready")
        #endif
    }

    private mutating func isReady(_ item: PendingRun, from replicaID: ReplicaID) throws(NotebookError) -> Bool {
        #if MEMOSYNC_INTERNAL_CHECKS
        debugReadinessCheckCount += 1
        #endif
        let id = item.run.memo
        switch item.run.kind {
        case .create:
            return true
        case let .text(textCounter):
            guard memos.contains(id) else { return false }
            let text = try materializedText(of: id)
            return text.operationCount(of: replicaID) == textCounter && Self.textApplies(item.text, to: text)
        case let .trash(seen), let .purge(seen):
            guard let record = memos[id] else { return false }
            return seen.isIncluded(in: record.text.version)
        case .restore:
            return memos.contains(id)
        }
    }

    /// Whether `delta` applies to `text` completely and without error: valid against the text
    /// as it is now (the notebook validated the whole delta when it arrived, but runs applied
    /// since, of this call or held back, may have changed what its references are), nothing
    /// held back and nothing rejected (an insertion whose origins have an earlier item of its
    /// replica between them: `TextCRDT.appliesWithoutRejection`).
    private static func textApplies(_ delta: TextDelta, to text: TextCRDT) -> Bool {
        do throws(TextError) {
            try text.validate(delta)
        } catch {
            return false
        }
        return text.canApplyCompletely(delta) && text.appliesWithoutRejection(delta)
    }

    /// For a held text run that cannot be applied whole, its longest first part that can, and
    /// the rest; nil when not even its first text run is ready.
    ///
    /// A run's timestamp is its last operation's, so the head's own is not known: it is no
    /// older than `heldTimestamp` (the replica's last operation held), and no newer than the
    /// run's. The head takes the lower bound: the log must never hold a timestamp newer than
    /// its operations', or a later copy of them (a record or segment made before the replica
    /// typed on, exact for its own last operation) would look older than what is held and be
    /// refused as a forged history, or stop the replica's queue for good (seed 346 of
    /// `memo-sim`). The rest brings the run's timestamp back when it applies (runs join with
    /// the later timestamp).
    ///
    /// The text operations of a notebook run come in text runs, each ready or not as a whole (a
    /// text run's dependencies are those of its first operation), and a prefix of ready ones
    /// stays ready when it is shortened, so a binary search over text runs finds the longest.
    ///
    /// - Complexity: O(k log k) for k text runs.
    private mutating func readyTextPrefix(
        of item: PendingRun, from replicaID: ReplicaID, after heldTimestamp: HybridTimestamp?
    ) throws(NotebookError) -> (PendingRun, PendingRun)? {
        guard case let .text(textCounter) = item.run.kind, memos.contains(item.run.memo) else { return nil }
        let text = try materializedText(of: item.run.memo)
        guard text.operationCount(of: replicaID) == textCounter else { return nil }
        let starts = item.text.runs.map(\.counter)
        // `ready` leading text runs apply; `blocked` leading text runs do not (all of them, as
        // the whole run is not ready).
        var ready = 0
        var blocked = starts.count
        while blocked - ready > 1 {
            let middle = (ready + blocked) / 2
            if Self.textApplies(item.text.restricted(to: replicaID, counters: textCounter..<starts[middle]), to: text) {
                ready = middle
            } else {
                blocked = middle
            }
        }
        guard ready > 0 else { return nil }
        let length = starts[ready] - textCounter
        guard length > 0 && length < item.run.length else { return nil }
        return Self.split(item, from: replicaID, at: length, after: heldTimestamp)
    }

    /// Applies one ready run from another replica; `queueingEvents`: false queues no event and
    /// records no text edit (the memo, text and log change the same).
    private mutating func applyRemote(_ item: PendingRun, from replicaID: ReplicaID, queueingEvents: Bool) {
        let run = item.run
        let id = run.memo
        clock.observe(run.timestamp, wallMilliseconds: 0)
        logs.append(run, for: replicaID)
        switch run.kind {
        case .create:
            if var record = memos[id] {
                record.createdAt = min(record.createdAt, run.timestamp)
                record.modifiedAt = max(record.modifiedAt, run.timestamp)
                memos[id] = record
            } else {
                var record = MemoRecord(
                    id: id, text: .materialized(Self.newText(replica: replica, keepingHistory: keepsHistoryStorage)),
                    createdAt: run.timestamp, modifiedAt: run.timestamp)
                record.refreshDerivedText()
                memos[id] = record
                if queueingEvents { events.append(.added(id, origin: .remote)) }
            }
        case .text:
            // Changed in place in the table (no copy of the record).
            guard let index = memos.index(of: id), case .materialized(var text) = memos[at: index].text else {
                preconditionFailure("materialized by isReady")
            }
            // Drop the table's reference to the text, so it is changed in place.
            memos[at: index].text = .placeholder
            // Validated against this very text by `isReady` or `readyTextPrefix` just before.
            let result = text.apply(validated: item.text, recordingEdits: queueingEvents)
            precondition(text.pendingOperationCount == 0 && result.rejectedOperationCount == 0, "checked by isReady")
            lamport = max(lamport, text.lamport)
            memos[at: index].text = .materialized(text)
            memos[at: index].modifiedAt = max(memos[at: index].modifiedAt, run.timestamp)
            // Title and preview go stale while this memo changes (taken on the fly when read, and
            // cached again by refreshSearchKeys()).
            if memos[at: index].searchKeyStamp == MemoRecord.noSearchKeyYet { memos[at: index].refreshDerivedText() }
            // Status and the stale title are taken by `apply` once per memo, after every run.
            if queueingEvents, !result.edits.isEmpty { events.append(.changed(id, edits: result.edits, origin: .remote)) }
        case let .trash(seen):
            appendRemoteLifecycle(.trash(seen: seen), run: run, replica: replicaID)
        case .restore:
            appendRemoteLifecycle(.restore, run: run, replica: replicaID)
        case let .purge(seen):
            appendRemoteLifecycle(.purge(seen: seen), run: run, replica: replicaID)
            undoHistories[id] = nil
            trashUndo.forget(id)
        }
    }

    private mutating func appendRemoteLifecycle(_ kind: LifecycleRecord.Kind, run: NotebookRun, replica replicaID: ReplicaID) {
        var record = memos[run.memo]!
        record.lifecycle.append(LifecycleRecord(kind: kind, timestamp: run.timestamp, replica: replicaID, counter: run.counter))
        record.modifiedAt = max(record.modifiedAt, run.timestamp)
        // (Status is taken by `apply` once all runs are applied.)
        memos[run.memo] = record
    }

    /// Whether the operations of `run` (of `replica`) this notebook holds already are held as
    /// the same operations: on the same memo, of the same kind, text runs at the same text
    /// counters. A delta that spends held ids on other operations comes from a forged or damaged
    /// history (a copy of a replica that went on under the same id).
    ///
    /// - Complexity: O(log r + k) for a replica log of r runs, k of them overlapping `run`; O(1)
    ///   for a run this notebook holds none of.
    private func heldPartMatches(_ run: NotebookRun, of replica: ReplicaID) -> Bool {
        // (The version is read first: it is a bisection, the log a hash lookup.)
        guard run.counter < logs.version[replica], let log = logs[replica] else { return true }
        let heldEnd = min(run.end, log.operationCount)
        var index = log.firstRun(endingAfter: run.counter)
        while index < log.runs.count && log.runs[index].counter < heldEnd {
            let held = log.runs[index]
            guard held.memo == run.memo else { return false }
            switch (held.kind, run.kind) {
            case let (.text(heldTextCounter), .text(runTextCounter)):
                // Operation c stands for the same text operation in both.
                guard Int64(heldTextCounter) - Int64(held.counter) == Int64(runTextCounter) - Int64(run.counter) else { return false }
            default:
                guard held.kind == run.kind else { return false }
            }
            index += 1
        }
        return true
    }

    /// Checks a delta before anything changes: runs in order and not overlapping per replica,
    /// text runs matched by text operations, each memo's text operations consistent with its
    /// text, memos that will be touched decodable, and no held operation id reused for another
    /// operation.
    /// Checks what of `delta` can be checked without its texts' contents: its runs (order,
    /// lengths, limits, agreement with the operations held, timestamps) and that every text
    /// operation has its run. A caller applying a delta in pieces (``NotebookDelta/pieces(maxOperations:)``)
    /// checks this of the whole first; each piece is checked whole as it is applied.
    ///
    /// - Throws: ``NotebookError/invalidDelta(reason:)``.
    package func validateRunsAndTextCounts(of delta: NotebookDelta) throws(NotebookError) {
        let textCounts = try validateRuns(of: delta)
        for (textIndex, (memo, text)) in delta.texts.enumerated() where textCounts[textIndex] != text.operationCount {
            throw .invalidDelta(reason: "text operations for memo \(memo) without notebook runs")
        }
    }

    private mutating func validate(_ delta: NotebookDelta) throws(NotebookError) {
        let textCounts = try validateRuns(of: delta)
        for (textIndex, (memo, text)) in delta.texts.enumerated() {
            guard textCounts[textIndex] == text.operationCount else {
                throw .invalidDelta(reason: "text operations for memo \(memo) without notebook runs")
            }
            if memos.contains(memo) {
                let current = try materializedText(of: memo)
                do throws(TextError) {
                    try current.validate(text)
                } catch {
                    throw .text(memo, error)
                }
            }
        }
        try validateNextTextRuns(of: delta)
        // Memos touched by lifecycle runs must be readable too.
        // (Only a memo still encoded needs decoding; consecutive runs of one memo look once.)
        var checked: MemoID?
        for replicaRun in delta.runs where replicaRun.run.memo != checked {
            checked = replicaRun.run.memo
            guard let index = memos.index(of: replicaRun.run.memo) else { continue }
            if !memos[at: index].text.isMaterialized { _ = try materializedText(of: replicaRun.run.memo) }
        }
    }

    /// Checks the runs of `delta` one by one (order, lengths, limits, text operations present,
    /// agreement with the operations held, timestamps), and returns how many text operations
    /// the runs stand for per entry of `delta.texts` (nil: no run).
    private func validateRuns(of delta: NotebookDelta) throws(NotebookError) -> [Int?] {
        var previous: NotebookDelta.ReplicaRun?
        var textCounts = [Int?](repeating: nil, count: delta.texts.count)
        for replicaRun in delta.runs {
            let run = replicaRun.run
            guard run.length > 0 else { throw .invalidDelta(reason: "empty run") }
            if let previous, previous.replica == replicaRun.replica {
                guard previous.run.end <= run.counter else { throw .invalidDelta(reason: "overlapping runs") }
            } else if let previous, previous.replica > replicaRun.replica {
                throw .invalidDelta(reason: "runs out of order")
            }
            if case let .text(textCounter) = run.kind {
                guard UInt64(textCounter) + UInt64(run.length) <= UInt64(Limits.operationsPerReplicaMax) else {
                    throw .invalidDelta(reason: "text counters past the limit")
                }
                let textIndex = delta.textIndex(for: run.memo)
                let covered = textIndex.map {
                    delta.texts[$0].delta.operationCount(of: replicaRun.replica, counters: textCounter..<textCounter + run.length)
                } ?? 0
                guard let textIndex, covered == Int(run.length) else {
                    throw .invalidDelta(reason: "a text run without its text operations")
                }
                textCounts[textIndex] = (textCounts[textIndex] ?? 0) + Int(run.length)
            } else {
                guard run.length == 1 else { throw .invalidDelta(reason: "a lifecycle run of several operations") }
            }
            guard heldPartMatches(run, of: replicaRun.replica) else {
                throw .invalidDelta(reason: "operations of \(replicaRun.replica) from \(run.counter) are held here as other operations")
            }
            // The run next in line must not be older than its replica's last held operation.
            let held = logs.version[replicaRun.replica]
            if run.counter <= held && run.end > held, held > 0, let last = logs[replicaRun.replica]?.runs.last,
                run.timestamp < last.timestamp
            {
                throw .invalidDelta(reason: "operations of \(replicaRun.replica) from \(run.counter) are older than the ones before them")
            }
            previous = replicaRun
        }
        return textCounts
    }

    /// Checks that a text run next in line (the first each replica's log lacks) stands for the
    /// replica's next text operations in its memo (what a forged history gets wrong; runs
    /// further on are checked when their turn comes, and held back for good if wrong).
    private mutating func validateNextTextRuns(of delta: NotebookDelta) throws(NotebookError) {
        for replicaRun in delta.runs {
            guard case let .text(textCounter) = replicaRun.run.kind else { continue }
            let run = replicaRun.run
            let held = logs.version[replicaRun.replica]
            guard run.counter <= held && run.end > held, memos.contains(run.memo) else { continue }
            let next = try materializedText(of: run.memo).operationCount(of: replicaRun.replica)
            guard textCounter + (held - run.counter) == next else {
                throw .invalidDelta(reason: "text operations of \(replicaRun.replica) from \(run.counter) are not the next in memo \(run.memo)")
            }
        }
    }
}

extension Notebook {
    /// An empty text for a memo, keeping deleted content when the notebook keeps history.
    static func newText(replica: ReplicaID, keepingHistory: Bool) -> TextCRDT {
        var text = TextCRDT(replica: replica)
        text.keepsDeletedContent = keepingHistory
        return text
    }
}
