// Exchanging operations: extracting the changes since a version, applying a delta (in causal
// order, holding back what cannot be applied yet), merging whole texts, and the FugueMax
// integration that decides where a remote insertion goes.

extension TextCRDT {
    // MARK: Extracting changes

    /// The operations this text holds that `version` does not include.
    ///
    /// Applying the result to a text whose version is `version` gives it every operation this text
    /// has. Deletions are included exactly: every operation has an id, so the delta holds the
    /// deletions made since `version` even when the text they deleted is older.
    ///
    /// - Complexity: O(k + r) for k runs in the result and r replicas.
    public func changes(since version: VersionVector) -> TextDelta {
        var runs: [TextDelta.Run] = []
        let ids = replicaTable.ids
        let order = ids.count == 1 ? [0] : ids.indices.sorted { ids[$0] < ids[$1] }
        for index in order {
            let count = logs[index].operationCount
            let from = version[ids[index]]
            guard from < count else { continue }
            appendChanges(of: UInt32(index), from: from, to: count, into: &runs)
        }
        for index in runs.indices { runs[index] = canonicalOrigins(runs[index]) }
        return TextDelta(runs: runs)
    }

    /// Appends the operations `from ..< to` of one replica, as maximal runs, to `runs`.
    /// Without `includingContent`, insertion runs carry no content (and are not split where
    /// deletion status changes): what the state encoder needs.
    func appendChanges(
        of replicaIndex: UInt32, from: UInt32, to: UInt32, includingContent: Bool = true,
        into runs: inout [TextDelta.Run]
    ) {
        let log = logs[replicaIndex]
        let replicaID = replicaTable.ids[replicaIndex]
        // The first span holding a counter at or after `from`.
        var slot = log.firstSpan
        let block = Int(from >> TreeShape.blockShift)
        if block < log.blockFirstSpan.count, log.blockFirstSpan[block] != noIndex {
            slot = log.blockFirstSpan[block]
        } else if block < log.blockFirstSpan.count {
            slot = noIndex
            for later in block..<log.blockFirstSpan.count where log.blockFirstSpan[later] != noIndex {
                slot = log.blockFirstSpan[later]
                break
            }
        } else {
            slot = noIndex
        }
        while slot != noIndex && spans[slot].end <= from { slot = spans[slot].nextInReplica }
        var deletionIndex = log.deletionRuns.partitioningIndex { $0.end > from }
        var counter = from
        while counter < to {
            let piece: TextDelta.Run
            if slot != noIndex && spans[slot].counter <= counter {
                let span = spans[slot]
                let offset = counter - span.counter
                var bytes: [UInt8]?
                var end = span.end
                if includingContent && !span.isDeleted {
                    let start = Int(span.contentOffset)
                    let skipped = prefixLengths(of: span, scalars: offset).bytes
                    bytes = Array(content[start + skipped..<start + Int(span.lengthUTF8)])
                } else if includingContent && !retained.isEmpty {
                    // Deleted text travels with its content where it is retained (FORMAT.md,
                    // "Text state, version 3", deltas), else as a tombstone: a span retained in
                    // part (its items arrived in two deltas, one with content and one without)
                    // goes as pieces, so the part retained keeps its content.
                    let part = retained.uniformPrefix(replica: replicaIndex, counters: counter..<span.end)
                    end = counter + part.length
                    if part.isRetained { bytes = retained.content(replica: replicaIndex, counters: counter..<end) }
                }
                piece = TextDelta.Run(
                    replica: replicaID, counter: counter, lamport: log.lamport(of: counter),
                    length: end - counter,
                    kind: .insertion(
                        originLeft: operationID(span.originLeft(at: offset)),
                        originRight: rightOrigin(span.originRight), content: bytes))
                if end == span.end { slot = span.nextInReplica }
            } else {
                let run = log.deletionRuns[deletionIndex]
                precondition(run.counter <= counter && counter < run.end, "counters are dense")
                let whole = TextDelta.Run(
                    replica: replicaID, counter: run.counter, lamport: 0, length: run.length,
                    kind: .deletion(
                        target: OperationID(replica: replicaTable.ids[run.targetReplica], counter: run.targetCounter),
                        isReversed: run.isReversed))
                var cut = counter > run.counter ? whole.dropping(counter - run.counter) : whole
                cut.lamport = log.lamport(of: counter)
                piece = cut
                deletionIndex += 1
            }
            // A range may end inside a span or a deletion run.
            let clipped = piece.end > to ? piece.prefix(to - piece.counter) : piece
            counter = clipped.end
            appendSplittingAtTimestampJumps(clipped, log: log, into: &runs)
        }
    }

    /// Appends `piece`, cut where its operations' Lamport timestamps stop rising by one, merging
    /// with the previous run where it continues it.
    private func appendSplittingAtTimestampJumps(_ piece: TextDelta.Run, log: ReplicaLog, into runs: inout [TextDelta.Run]) {
        // Most pieces have no jump inside: appended as they are, without copies.
        let firstJump = log.lamportRuns.partitioningIndex { $0.counter > piece.counter }
        if firstJump == log.lamportRuns.count || log.lamportRuns[firstJump].counter >= piece.end {
            if runs.isEmpty || !runs[runs.count - 1].append(piece) { runs.append(piece) }
            return
        }
        var rest = piece
        while true {
            let next = log.lamportRuns.partitioningIndex { $0.counter > rest.counter }
            var part = rest
            if next < log.lamportRuns.count, log.lamportRuns[next].counter < rest.end {
                part = rest.prefix(log.lamportRuns[next].counter - rest.counter)
            }
            if runs.isEmpty || !runs[runs.count - 1].append(part) { runs.append(part) }
            if part.length == rest.length { return }
            rest = rest.dropping(part.length)
            rest.lamport = log.lamport(of: rest.counter)
        }
    }

    /// `run` with its originRight in canonical form: `.end`, the item after its originLeft in
    /// the same run of ids (`.item`), the originLeft's own originRight (`.inherited`), or named.
    func canonicalOrigins(_ run: TextDelta.Run) -> TextDelta.Run {
        guard case let .insertion(originLeft?, .item(right), content) = run.kind else { return run }
        if right.replica == originLeft.replica && right.counter == originLeft.counter &+ 1 { return run }
        guard let leftRef = itemRef(originLeft), let (slot, _) = lookup(leftRef),
            rightOrigin(spans[slot].originRight) == .item(right)
        else { return run }
        var result = run
        result.kind = .insertion(originLeft: originLeft, originRight: .inherited, content: content)
        return result
    }

    func rightOrigin(_ ref: ItemRef) -> TextDelta.RightOrigin {
        ref.isNone ? .end : .item(OperationID(replica: replicaTable.ids[ref.replica], counter: ref.counter))
    }

    func operationID(_ ref: ItemRef) -> OperationID? {
        ref.isNone ? nil : OperationID(replica: replicaTable.ids[ref.replica], counter: ref.counter)
    }

    func itemRef(_ id: OperationID?) -> ItemRef? {
        guard let id else { return ItemRef.none }
        guard let replicaIndex = replicaTable.index(of: id.replica) else { return nil }
        return ItemRef(replica: replicaIndex, counter: id.counter)
    }

    // MARK: Applying

    /// Applies the operations of `delta` this text does not hold yet.
    ///
    /// Applying is idempotent (operations already held are skipped), commutative and associative
    /// (texts that applied the same deltas in any order and grouping hold the same text). An
    /// operation whose causal dependencies have not arrived is held back and applied, in order,
    /// by the call that brings them.
    ///
    /// - Returns: what was applied, skipped and held back, and the visible changes as UTF-16
    ///   edits in order.
    /// - Throws: ``TextError/invalidDelta(reason:)`` when the delta contradicts what this text
    ///   holds or itself (an origin or deletion target that is itself a deletion, held ids
    ///   arriving as the other kind, an insertion not newer than an origin whose timestamp is
    ///   known), and ``TextError/tooManyPendingOperations(count:)``; the text is unchanged when
    ///   it throws.
    /// - Complexity: O(k log r) for k runs applied, when no concurrent insertions compete for
    ///   the same place.
    @discardableResult
    public mutating func apply(_ delta: TextDelta) throws(TextError) -> TextApplyReport {
        try apply(delta, recordingEdits: false)
    }

    /// Applies `delta` as ``apply(_:)`` does and, when `recordingEdits` is true, reports every
    /// visible change as a UTF-16 edit in the report's `edits` (what a text view needs to follow
    /// along without reloading). Recording costs O(log r) more per run applied.
    ///
    /// Characters that arrive already deleted (tombstones: a delta made after they were deleted
    /// carries no content for them) are applied only together with operations that delete them.
    /// A tombstone whose deletions are missing, or still held back at the end of the call, is
    /// held back itself (with whatever builds on it), so that a text never holds a character
    /// deleted by no operation it holds: two texts with equal versions hold equal texts.
    @discardableResult
    public mutating func apply(_ delta: TextDelta, recordingEdits: Bool) throws(TextError) -> TextApplyReport {
        if delta.isEmpty && pending.isEmpty { return TextApplyReport() }
        try validate(delta)
        // Held-back operations are bounded (`Limits.pendingOperationsMax`), not deltas: most
        // deltas hold nothing back. Only when this one could take the count past the bound is
        // the text kept to go back to, should it be past it afterwards. (Refusing any delta of
        // more operations than the bound refused a memo of 4.3 million characters saved in a
        // journal record: at every open it was held back whole, its text shown empty.)
        guard pendingOperationCount + delta.operationCount > Limits.pendingOperationsMax else {
            return apply(checked: delta, recordingEdits: recordingEdits)
        }
        let original = self
        let report = apply(checked: delta, recordingEdits: recordingEdits)
        guard pendingOperationCount <= Limits.pendingOperationsMax else {
            let count = pendingOperationCount
            self = original
            throw .tooManyPendingOperations(count: count)
        }
        return report
    }

    /// ``apply(_:recordingEdits:)`` after ``validate(_:)`` accepted `delta` (the held-back bound
    /// is checked by the caller, after it).
    private mutating func apply(checked delta: TextDelta, recordingEdits: Bool) -> TextApplyReport {
        guard delta.hasTombstones || pending.contains(where: \.isTombstone) else {
            return apply(validated: delta, recordingEdits: recordingEdits)
        }
        // Every tombstone the text lacks has its deletions in the delta, and every run applies:
        // the deletions are applied with them (the common case: a delta from `changes(since:)`).
        // Checked when copying the text (below) would cost more than checking: a delta smaller
        // than the text.
        // (An insertion rejected by `applyRun` would leave what follows of its replica held
        // back, a tombstone's deletion among it maybe: the fast path only where the tree and the
        // delta's own runs tell, before anything changes, that none is.)
        if pending.isEmpty && spans.count > delta.runs.count && delta.carriesItsDeletions(holding: version)
            && canApplyCompletely(delta) && appliesWithoutRejectionByTree(delta) == true
        {
            let report = apply(validated: delta, recordingEdits: recordingEdits)
            checkInvariantsIfEnabled()
            return report
        }
        // Else apply, and undo if some tombstone applied is not deleted by then; try again with
        // those held back, then (if holding them back left others without their deletions) with
        // every tombstone held back, which cannot leave any. Keeping `original` makes the first
        // change copy the text's storage: only on this path.
        let original = self
        var heldBack = HeldBackTombstones()
        for attempt in 0..<3 {
            var applied: [TextDelta.Run]? = []
            let report = apply(
                validated: delta, recordingEdits: recordingEdits, holdingBack: heldBack, appliedTombstones: &applied)
            let uncovered = uncoveredTombstones(applied!)
            if uncovered.isEmpty {
                checkInvariantsIfEnabled()
                return report
            }
            self = original
            heldBack = HeldBackTombstones(attempt == 0 ? uncovered : (pending + delta.runs).filter(\.isTombstone))
        }
        // Nothing was applied with every tombstone held back... unreachable: the last attempt
        // applies no tombstone. Held back whole rather than trapping.
        pending = Self.withoutOverlaps(pending + delta.runs)
        var report = TextApplyReport()
        report.pendingOperationCount = pendingOperationCount
        return report
    }

    /// ``apply(_:recordingEdits:)`` for a delta that ``validate(_:)`` accepted against this
    /// very text (nothing changed since): the notebook checks each run's text that way before
    /// deciding it is ready, and applies it right after. Tombstones are applied whether or not
    /// their deletions are (the notebook checks that at the end of its own call).
    @discardableResult
    package mutating func apply(validated delta: TextDelta, recordingEdits: Bool) -> TextApplyReport {
        var unused: [TextDelta.Run]?
        return apply(validated: delta, recordingEdits: recordingEdits, holdingBack: HeldBackTombstones(), appliedTombstones: &unused)
    }

    /// The loop of ``apply(_:recordingEdits:)``: runs in Lamport order, again while some
    /// apply. Insertion runs without content overlapping `heldBack` are held back whatever
    /// their dependencies; when `appliedTombstones` is not nil, it receives every tombstone
    /// applied (the part this text did not hold).
    private mutating func apply(
        validated delta: TextDelta, recordingEdits: Bool, holdingBack heldBack: HeldBackTombstones,
        appliedTombstones: inout [TextDelta.Run]?
    ) -> TextApplyReport {
        var report = TextApplyReport()
        if delta.isEmpty && pending.isEmpty { return report }
        typingCursor = nil
        var queue: [TextDelta.Run]
        // With nothing held back, every run here comes from `delta`, which `validate` checked
        // against this very text: the timestamps it compared origins with are those they have
        // when the runs' turns come (`applyRun` need not look them up again).
        let timestampsValidated = pending.isEmpty
        if pending.isEmpty {
            queue = delta.runs
        } else {
            queue = pending + delta.runs
            pending = []
        }
        if queue.count > 1 {
            queue.sort { ($0.lamport, $0.replica, $0.counter) < ($1.lamport, $1.replica, $1.counter) }
        }
        var progress = true
        while progress && !queue.isEmpty {
            progress = false
            var blocked: [TextDelta.Run] = []
            for run in queue {
                if !heldBack.isEmpty && run.isTombstone && heldBack.overlaps(run) {
                    blocked.append(run)
                    continue
                }
                switch applyRun(
                    run, timestampsValidated: timestampsValidated, recordingEdits: recordingEdits, report: &report,
                    appliedTombstones: &appliedTombstones)
                {
                case .done:
                    progress = true
                case let .partial(rest):
                    progress = true
                    blocked.append(rest)
                case .blocked:
                    blocked.append(run)
                case .rejected:
                    report.rejectedOperationCount += Int(run.length)
                }
            }
            queue = blocked
        }
        pending = Self.withoutOverlaps(queue)
        report.pendingOperationCount = pendingOperationCount
        // (Past `Limits.pendingOperationsMax` here, `apply(_:recordingEdits:)` goes back to the
        // text as it was and throws; the notebook applies only runs that hold nothing back.)
        compactContentIfWorthwhile()
        checkInvariantsIfEnabled(orphansAllowed: true)
        return report
    }

    /// Merges every operation of `other` into this text.
    ///
    /// Equivalent to `apply(other.changes(since: version))`, and O(1) when this text holds no
    /// operations yet or already holds all of `other`'s.
    ///
    /// - Throws: ``TextError/invalidDelta(reason:)`` when the two texts used one operation id for
    ///   different operations (a forged or damaged history: a copy of a replica that went on
    ///   under the same id), and the limit errors of ``apply(_:)``; the text is unchanged when it
    ///   throws.
    public mutating func merge(_ other: TextCRDT) throws(TextError) {
        if operationCount == 0 && pending.isEmpty {
            let ownReplica = replica
            let ownLamport = lamport
            let ownKeeping = keepsDeletedContent
            self = other
            keepsDeletedContent = ownKeeping
            typingCursor = nil
            replica = ownReplica
            localReplicaIndex = internReplica(ownReplica)
            lamport = max(lamport, ownLamport)
            return
        }
        switch version.compare(other.version) {
        case .equal, .after: return
        case .before, .concurrent: break
        }
        // `other` is a valid text, so its changes are causally complete on top of this version;
        // they contradict this text only where the two reused an id (checked before anything
        // changes, by `apply`).
        try apply(other.changes(since: version))
    }

    /// Held-back runs sorted by replica and counter, each operation once (a delta that arrives
    /// twice before its dependencies must not be held twice).
    static func withoutOverlaps(_ runs: [TextDelta.Run]) -> [TextDelta.Run] {
        if runs.count < 2 { return runs }
        let sorted = runs.sorted { ($0.replica, $0.counter, $1.length) < ($1.replica, $1.counter, $0.length) }
        var result: [TextDelta.Run] = []
        result.reserveCapacity(sorted.count)
        for run in sorted {
            guard let last = result.last, last.replica == run.replica, run.counter < last.end else {
                result.append(run)
                continue
            }
            if run.end > last.end { result.append(run.dropping(last.end - run.counter)) }
        }
        return result
    }

    /// The tombstone runs of `runs` (applied in this call) that the deletions held do not
    /// delete completely.
    ///
    /// - Complexity: O(d + t log t) for d deletion runs held and t tombstone runs.
    func uncoveredTombstones(_ runs: [TextDelta.Run]) -> [TextDelta.Run] {
        if runs.isEmpty { return [] }
        var deleted = [[Range<UInt32>]](repeating: [], count: logs.count)
        for log in logs {
            for run in log.deletionRuns {
                deleted[Int(run.targetReplica)].append(run.targetCounter..<run.targetCounter + run.length)
            }
        }
        deleted = deleted.map(mergedRanges)
        return runs.filter { run in
            guard let index = replicaTable.index(of: run.replica) else { return true }
            return !covers(deleted[Int(index)], run.counter..<run.end)
        }
    }

    /// Tombstone runs an ``apply(_:recordingEdits:)`` attempt holds back, by replica as ascending
    /// disjoint counter ranges: found by bisection for each tombstone the loop meets.
    struct HeldBackTombstones {
        private var ranges: [ReplicaID: [Range<UInt32>]] = [:]

        init() {}

        init(_ runs: [TextDelta.Run]) {
            for run in runs { ranges[run.replica, default: []].append(run.counter..<run.end) }
            for replica in Array(ranges.keys) { ranges[replica] = mergedRanges(ranges[replica]!) }
        }

        var isEmpty: Bool { ranges.isEmpty }

        /// Whether `run`'s operations overlap a held-back tombstone.
        func overlaps(_ run: TextDelta.Run) -> Bool {
            guard let held = ranges[run.replica] else { return false }
            let index = held.partitioningIndex { $0.upperBound > run.counter }
            return index < held.count && held[index].lowerBound < run.end
        }
    }

    // MARK: Validation

    /// Checks, before anything changes, that every id the delta refers to is an insertion
    /// wherever its kind is already known (held here, held back, or in the delta itself), and
    /// that the delta's own operations held here already are held as the same kind.
    package func validate(_ delta: TextDelta) throws(TextError) {
        var lookups = ValidationLookups()
        var contentBytes = 0
        var newReplicas = 0
        var previousReplica: ReplicaID?
        // (Runs are read in place, field by field: copying a whole run is costly.)
        let runs = delta.runs
        for index in runs.indices {
            let replica = runs[index].replica
            if replica != previousReplica {
                previousReplica = replica
                if replicaIndex(of: replica, &lookups) == nil { newReplicas += 1 }
            }
            try checkHeldOwnIDs(replica, runs[index].counter..<runs[index].end, insertion: runs[index].isInsertion, &lookups)
            // Timestamps a state can hold (its operations' gaps are all the same).
            let lamport = runs[index].lamport
            let counter = UInt64(runs[index].counter)
            guard lamport > counter, lamport - counter <= Limits.lamportOffsetMax, lamport <= Limits.lamportMax,
                UInt64(runs[index].length) - 1 <= Limits.lamportMax - lamport
            else {
                throw .invalidDelta(reason: "operation \(replica).\(counter) has Lamport timestamp \(lamport)")
            }
            switch runs[index].kind {
            case let .insertion(originLeft, originRight, content):
                if let originLeft {
                    try checkReferencedItems(originLeft.replica, originLeft.counter..<originLeft.counter + 1, in: delta, &lookups)
                    try checkNewer(than: originLeft, lamport: lamport, runIndex: index, in: delta, &lookups)
                }
                if case let .item(id) = originRight {
                    try checkReferencedItems(id.replica, id.counter..<id.counter + 1, in: delta, &lookups)
                    try checkNewer(than: id, lamport: lamport, runIndex: index, in: delta, &lookups)
                }
                contentBytes += content?.count ?? 0
            case let .deletion(target, _):
                try checkReferencedItems(target.replica, target.counter..<target.counter + runs[index].length, in: delta, &lookups)
            }
        }
        guard content.count + contentBytes <= Limits.contentBytesMax else {
            throw .contentTooLarge(bytes: content.count + contentBytes)
        }
        guard replicaTable.ids.count + newReplicas <= Limits.replicasPerTextMax else { throw .tooManyReplicas }
    }

    /// What ``validate(_:)`` remembers from one lookup to the next, as they mostly repeat.
    private struct ValidationLookups {
        /// Counter ranges of deletions arriving now or held back, per replica (rarely needed:
        /// only consulted for ids this text does not hold yet), gathered for one replica when
        /// first asked for, the last one asked for at the end.
        var deletionRanges: [(replica: ReplicaID, ranges: [Range<UInt32>])] = []
        /// References mostly name the replica of the run before (typing on, deleting on): the
        /// last replica's index is kept instead of looked up again.
        var lastIndex: (replica: ReplicaID, index: UInt32?)?
        /// Where the last timestamp lookup in a log ended (origins are mostly read in counter
        /// order, one replica after another): the next lookup in that log starts there.
        var lamportHint: (replica: UInt32, position: Int) = (noIndex, 0)
    }

    /// The index of `replica` here (nil: this text has nothing of it), the last answer kept.
    private func replicaIndex(of replica: ReplicaID, _ lookups: inout ValidationLookups) -> UInt32? {
        if let lastIndex = lookups.lastIndex, lastIndex.replica == replica { return lastIndex.index }
        let index = replicaTable.index(of: replica)
        lookups.lastIndex = (replica, index)
        return index
    }

    /// The counter ranges of `replica`'s deletions arriving in `delta` or held back, sorted: the
    /// delta's runs of that replica are found by bisection.
    private func arrivingDeletions(
        of replica: ReplicaID, in delta: TextDelta, _ lookups: inout ValidationLookups
    ) -> [Range<UInt32>] {
        if let last = lookups.deletionRanges.last, last.replica == replica { return last.ranges }
        if let index = lookups.deletionRanges.firstIndex(where: { $0.replica == replica }) {
            lookups.deletionRanges.swapAt(index, lookups.deletionRanges.count - 1)
            return lookups.deletionRanges[lookups.deletionRanges.count - 1].ranges
        }
        var ranges: [Range<UInt32>] = []
        for index in delta.runIndices(of: replica) where !delta.runs[index].isInsertion {
            ranges.append(delta.runs[index].counter..<delta.runs[index].end)
        }
        for run in pending where run.replica == replica && !run.isInsertion { ranges.append(run.counter..<run.end) }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        lookups.deletionRanges.append((replica, ranges))
        return ranges
    }

    /// Checks that the operations `counters` of `replica`, which a run of `delta` refers to as
    /// items, are insertions where their kind is known: held here, or arriving or held back as
    /// deletions.
    private func checkReferencedItems(
        _ replica: ReplicaID, _ counters: Range<UInt32>, in delta: TextDelta, _ lookups: inout ValidationLookups
    ) throws(TextError) {
        var counter = counters.lowerBound
        if let replicaIndex = replicaIndex(of: replica, &lookups) {
            // The part held here must be text.
            let known = min(counters.upperBound, logs[replicaIndex].operationCount)
            while counter < known {
                guard let (slot, offset) = lookup(ItemRef(replica: replicaIndex, counter: counter)) else {
                    throw .invalidDelta(reason: "operation \(replica).\(counter) is a deletion, not text")
                }
                counter += spans[slot].lengthScalars - offset
            }
        }
        guard counter < counters.upperBound else { return }
        // The part not held here must not be a deletion arriving now or held back.
        let ranges = arrivingDeletions(of: replica, in: delta, &lookups)
        let index = ranges.partitioningIndex { $0.upperBound > counter }
        if index < ranges.count && ranges[index].lowerBound < counters.upperBound {
            throw .invalidDelta(reason: "a run refers to deletion operations of \(replica) as text")
        }
    }

    /// A run's own ids that are held here already must be held as operations of its kind: a
    /// delta that spends held ids on other operations comes from a forged or damaged history (a
    /// copy of a replica that went on under the same id), and applying the rest of it would
    /// build on operations this text holds as something else.
    private func checkHeldOwnIDs(
        _ replica: ReplicaID, _ counters: Range<UInt32>, insertion: Bool, _ lookups: inout ValidationLookups
    ) throws(TextError) {
        guard let replicaIndex = replicaIndex(of: replica, &lookups) else { return }
        let log = logs[Int(replicaIndex)]
        let known = min(counters.upperBound, log.operationCount)
        var counter = counters.lowerBound
        while counter < known {
            if insertion {
                guard let (slot, offset) = lookup(ItemRef(replica: replicaIndex, counter: counter)) else {
                    throw .invalidDelta(reason: "operation \(replica).\(counter) arrives as text but is held as a deletion")
                }
                counter += spans[slot].lengthScalars - offset
            } else {
                guard let runIndex = log.deletionRunIndex(of: counter) else {
                    throw .invalidDelta(reason: "operation \(replica).\(counter) arrives as a deletion but is held as text")
                }
                counter = log.deletionRuns[runIndex].end
            }
        }
    }

    /// An insertion is newer than its origins (a replica's clock passes every operation it has
    /// seen): checked here where the origin's timestamp is known (held, or in the delta), else
    /// when the run's turn comes (`applyRun` rejects it).
    private func checkNewer(
        than origin: OperationID, lamport: UInt64, runIndex: Int, in delta: TextDelta, _ lookups: inout ValidationLookups
    ) throws(TextError) {
        var originLamport: UInt64?
        if let index = replicaIndex(of: origin.replica, &lookups), origin.counter < logs[Int(index)].operationCount {
            if lookups.lamportHint.replica != index { lookups.lamportHint = (index, 0) }
            originLamport = logs[Int(index)].lamport(of: origin.counter, hint: &lookups.lamportHint.position)
        } else if runIndex > 0, delta.runs[runIndex - 1].replica == origin.replica,
            delta.runs[runIndex - 1].counter <= origin.counter, origin.counter < delta.runs[runIndex - 1].end
        {
            // Mostly the run before holds it (typing on past a timestamp jump): no search.
            originLamport = delta.runs[runIndex - 1].lamport + UInt64(origin.counter - delta.runs[runIndex - 1].counter)
        } else if let position = delta.runIndex(holding: origin) {
            originLamport = delta.runs[position].lamport + UInt64(origin.counter - delta.runs[position].counter)
        }
        if let originLamport, originLamport >= lamport {
            throw .invalidDelta(reason: "an insertion is not newer than its origin \(origin)")
        }
    }

    /// Whether applying `delta` (accepted by ``validate(_:)`` and ``canApplyCompletely(_:)``
    /// against this very text) rejects none of its runs: no insertion run whose origins have an
    /// earlier item of its own replica between them (what a notebook checks before deciding a
    /// text run is ready, as `applyRun` rejects such a run at its turn).
    ///
    /// - Complexity: mostly (``appliesWithoutRejectionByTree(_:)`` decides) the origin rule's
    ///   check against the tree for each insertion run not held here; else O(n) more: the delta
    ///   is applied to a copy.
    package func appliesWithoutRejection(_ delta: TextDelta) -> Bool {
        if let known = appliesWithoutRejectionByTree(delta) { return known }
        var trial = self
        let report = trial.apply(validated: delta, recordingEdits: false)
        return report.rejectedOperationCount == 0
    }

    /// How many earlier insertion runs of its replica the up-front check compares a run with
    /// (one comparison each); beyond that it gives up (nil) and applying tells.
    static let originRuleComparedRunsMax = 64

    /// ``appliesWithoutRejection(_:)`` decided before anything is applied, from the tree and
    /// the delta's own runs; nil when they do not tell (then only applying does).
    ///
    /// For a delta accepted by ``validate(_:)`` and ``canApplyCompletely(_:)`` against this text
    /// with nothing held back, every run gets its turn unless an earlier one is rejected, and
    /// only the origin rule can reject (validation saw to the rest: origins and targets that are
    /// items, origins older than the run; an inherited right origin is older than the left one).
    /// The rule rejects an insertion of replica R when an item of R lies between its origins at
    /// its turn. The items of R then are those held now and those of R's earlier insertion runs
    /// in the delta; other replicas' insertions add no item of R and never reorder items held.
    /// So each insertion run not held here is decided from its replica's runs before it, in
    /// counter order, in one of three cases (its left origin's place and the order of held items
    /// are what the tree tells):
    ///
    /// 1. Its origins are held (or the start, the end) and no earlier insertion run of its
    ///    replica is in the delta: the tree check (`holdsItem`) is exactly what `applyRun` will
    ///    see, rejection included.
    /// 2. It continues the previous insertion run of its replica (its left origin is that run's
    ///    last item, its right origin the same): it goes into the part of that run's gap after
    ///    all of that run, so it passes when that run passes.
    /// 3. Its origins are held, in order, and every earlier insertion run of its replica lies,
    ///    by the held items bounding it (its first run's origins), wholly before the left origin
    ///    or after the right one: the tree check again.
    ///
    /// Anything else (an origin that arrives in the delta from another replica or not at the
    /// end of the previous run, a partly held run, origins in reverse order, held-back runs)
    /// gives nil.
    func appliesWithoutRejectionByTree(_ delta: TextDelta) -> Bool? {
        guard pending.isEmpty else { return nil }
        let runs = delta.runs
        var start = 0
        while start < runs.count {
            let replica = runs[start].replica
            var end = start + 1
            while end < runs.count && runs[end].replica == replica { end += 1 }
            guard let passes = insertionRunsPassOriginRule(runs[start..<end], of: replica) else { return nil }
            if !passes { return false }
            start = end
        }
        return true
    }

    /// An insertion run that ``insertionRunsPassOriginRule(_:of:)`` decided passes, with the held
    /// items bounding it (`high` is also its right origin) and, once a case 3 needs them, their
    /// positions; a run continuing the previous one extends it.
    private struct PassedRun {
        var end: UInt32
        var low: ItemRef
        var high: ItemRef
        var positions: Range<Int>?
    }

    /// ``appliesWithoutRejectionByTree(_:)`` for the runs of one replica (all of its runs in the
    /// delta, in counter order): true when every insertion run not held here passes, false when
    /// one is rejected, nil when the tree and the runs do not tell.
    private func insertionRunsPassOriginRule(_ runs: ArraySlice<TextDelta.Run>, of replica: ReplicaID) -> Bool? {
        let held = operationCount(of: replica)
        let ownIndex = replicaTable.index(of: replica)
        var passed: [PassedRun] = []
        for index in runs.indices {
            guard case let .insertion(originLeftID, originRightForm, _) = runs[index].kind,
                runs[index].end > held
            else { continue }
            let counter = runs[index].counter
            guard counter >= held,
                let (left, right, continuesPrevious) = originBounds(
                    originLeft: originLeftID, originRight: originRightForm, ofRunAt: counter, by: replica, after: passed)
            else { return nil }
            if continuesPrevious {
                // Case 2: inside the previous run's bounds, after all of it.
                guard right == passed[passed.count - 1].high else { return nil }
                passed[passed.count - 1].end = runs[index].end
                continue
            }
            // Cases 1 and 3: the items of this replica held now.
            if let ownIndex, holdsItem(of: ownIndex, between: left, and: right) { return false }
            if !passed.isEmpty {
                // Case 3: the replica's earlier runs in the delta lie outside the origins.
                guard passed.count <= Self.originRuleComparedRunsMax,
                    earlierRunsLieOutside(&passed, left: left, right: right)
                else { return nil }
            }
            passed.append(PassedRun(end: runs[index].end, low: left, high: right, positions: nil))
        }
        return true
    }

    /// The held origins of an insertion run of `replica` starting at `counter` (none: the start
    /// or the end), or that it continues the last run of `passed` (its left origin that run's
    /// last item; then `left` is none). Nil when an origin is neither.
    private func originBounds(
        originLeft originLeftID: OperationID?, originRight originRightForm: TextDelta.RightOrigin, ofRunAt counter: UInt32,
        by replica: ReplicaID, after passed: [PassedRun]
    ) -> (left: ItemRef, right: ItemRef, continuesPrevious: Bool)? {
        var left = ItemRef.none
        var continuesPrevious = false
        if let originLeftID {
            if let ref = heldItem(originLeftID) {
                left = ref
            } else if originLeftID.replica == replica, let last = passed.last, last.end == counter,
                originLeftID.counter == counter - 1
            {
                continuesPrevious = true
            } else {
                return nil
            }
        }
        let right: ItemRef
        switch originRightForm {
        case .end:
            right = .none
        case let .item(id):
            guard let ref = heldItem(id) else { return nil }
            right = ref
        case .inherited:
            if continuesPrevious {
                right = passed[passed.count - 1].high
            } else {
                guard !left.isNone, let (slot, _) = lookup(left) else { return nil }
                right = spans[slot].originRight
            }
        }
        return (left, right, continuesPrevious)
    }

    /// The item `id` names when this text holds it (nil when it arrives in the delta).
    private func heldItem(_ id: OperationID) -> ItemRef? {
        guard let replicaIndex = replicaTable.index(of: id.replica),
            id.counter < logs[replicaIndex].operationCount
        else { return nil }
        let ref = ItemRef(replica: replicaIndex, counter: id.counter)
        return lookup(ref) == nil ? nil : ref
    }

    /// Whether the held origins `left` and `right` are in order and every run of `passed` lies,
    /// by the held items bounding it, wholly before `left` or after `right` (the positions of
    /// the bounds are found once, and kept in `passed`).
    private func earlierRunsLieOutside(_ passed: inout [PassedRun], left: ItemRef, right: ItemRef) -> Bool {
        let leftPosition = orderPosition(left, isLeft: true)
        let rightPosition = orderPosition(right, isLeft: false)
        guard leftPosition < rightPosition else { return false }
        for earlierIndex in passed.indices {
            if passed[earlierIndex].positions == nil {
                let low = orderPosition(passed[earlierIndex].low, isLeft: true)
                let high = orderPosition(passed[earlierIndex].high, isLeft: false)
                guard low < high else { return false }
                passed[earlierIndex].positions = low..<high
            }
            let bounds = passed[earlierIndex].positions!
            guard bounds.upperBound <= leftPosition || bounds.lowerBound >= rightPosition else { return false }
        }
        return true
    }

    /// Index of a held item in the text (start: -1, end: Int.max), for ordering bounds.
    private func orderPosition(_ ref: ItemRef, isLeft: Bool) -> Int {
        ref.isNone ? (isLeft ? -1 : Int.max) : itemIndex(of: ref)
    }

    // MARK: Applying one run

    enum RunOutcome {
        case done
        case partial(rest: TextDelta.Run)
        case blocked
        case rejected
    }

    /// Where an id stands: held as an item, held as a deletion, or not arrived.
    private enum Presence { case item, deletion, absent }

    /// Where `id` stands, its replica's index here given (nil: the replica has nothing here).
    private func presence(_ id: OperationID, replicaIndex: UInt32?) -> Presence {
        guard let replicaIndex, id.counter < logs[replicaIndex].operationCount else { return .absent }
        return lookup(ItemRef(replica: replicaIndex, counter: id.counter)) == nil ? .deletion : .item
    }

    /// Applies one run, or tells why not. `timestampsValidated`: the run comes from a delta
    /// `validate` accepted against this text as it was when the call began, nothing else in the
    /// call (then the origins `validate` compared timestamps with need no comparing again).
    private mutating func applyRun(
        _ incoming: TextDelta.Run, timestampsValidated: Bool, recordingEdits: Bool, report: inout TextApplyReport,
        appliedTombstones: inout [TextDelta.Run]?
    ) -> RunOutcome {
        let replicaIndex = internReplica(incoming.replica)
        let held = logs[replicaIndex].operationCount
        if incoming.end <= held {
            report.duplicateOperationCount += Int(incoming.length)
            return .done
        }
        if incoming.counter > held { return .blocked }
        var run = incoming
        if run.counter < held {
            report.duplicateOperationCount += Int(held - run.counter)
            run = run.dropping(held - run.counter)
        }
        switch run.kind {
        case let .insertion(originLeftID, originRightForm, bytes):
            let origins: (left: ItemRef, right: ItemRef)
            switch heldOrigins(originLeft: originLeftID, originRight: originRightForm, ofRunBy: run.replica, at: replicaIndex) {
            case let .held(left, right): origins = (left, right)
            case .absent: return .blocked
            case .contradicted: return .rejected
            }
            // `validate` compared the origins a run names with the timestamps they have here (held
            // then, or arriving in the delta and applied with them in this call; one that was
            // neither is not held now): not again for a run of the validated delta as it came
            // (a run cut where its held part ends has another left origin, an inherited right
            // origin is not named).
            let untrimmed = timestampsValidated && run.counter == incoming.counter
            if !originsAreOlder(
                than: run, originLeft: origins.left, originRight: origins.right,
                comparingLeft: !untrimmed, comparingRight: !(untrimmed && originRightForm != .inherited))
            {
                return .rejected
            }
            return applyInsertion(
                run, replicaIndex: replicaIndex, originLeft: origins.left, originRight: origins.right, content: bytes,
                recordingEdits: recordingEdits, report: &report, appliedTombstones: &appliedTombstones)
        case let .deletion(target, isReversed):
            return applyDeletion(
                run, replicaIndex: replicaIndex, target: target, isReversed: isReversed, recordingEdits: recordingEdits,
                report: &report)
        }
    }

    /// The origins of an insertion run as this text holds them, or why it holds them not.
    private enum HeldOrigins {
        case held(originLeft: ItemRef, originRight: ItemRef)
        /// An origin has not arrived: the run waits for it.
        case absent
        /// An origin is held as a deletion, or an inherited right origin has no left origin.
        case contradicted
    }

    /// The held origins of an insertion run of `runReplica` (its index here `replicaIndex`).
    private func heldOrigins(
        originLeft originLeftID: OperationID?, originRight originRightForm: TextDelta.RightOrigin,
        ofRunBy runReplica: ReplicaID, at replicaIndex: UInt32
    ) -> HeldOrigins {
        // Origins mostly name the run's own replica, whose index is known already.
        func index(of replica: ReplicaID) -> UInt32? {
            replica == runReplica ? replicaIndex : replicaTable.index(of: replica)
        }
        var originLeft = ItemRef.none
        if let originLeftID {
            let leftIndex = index(of: originLeftID.replica)
            switch presence(originLeftID, replicaIndex: leftIndex) {
            case .item: originLeft = ItemRef(replica: leftIndex!, counter: originLeftID.counter)
            case .absent: return .absent
            case .deletion: return .contradicted
            }
        }
        let originRight: ItemRef
        switch originRightForm {
        case .end:
            originRight = .none
        case let .item(id):
            let rightIndex = index(of: id.replica)
            switch presence(id, replicaIndex: rightIndex) {
            case .item: break
            case .absent: return .absent
            case .deletion: return .contradicted
            }
            originRight = ItemRef(replica: rightIndex!, counter: id.counter)
        case .inherited:
            guard !originLeft.isNone, let (slot, _) = lookup(originLeft) else { return .contradicted }
            originRight = spans[slot].originRight
        }
        return .held(originLeft: originLeft, originRight: originRight)
    }

    /// Whether `run` is newer than its origins (those asked for; a none origin passes): an
    /// operation is newer than everything it builds on (a replica's clock passes every
    /// operation it has seen), so origins with a later timestamp come from no history.
    @inline(__always)
    private func originsAreOlder(
        than run: TextDelta.Run, originLeft: ItemRef, originRight: ItemRef, comparingLeft: Bool, comparingRight: Bool
    ) -> Bool {
        if !originLeft.isNone && comparingLeft && logs[originLeft.replica].lamport(of: originLeft.counter) >= run.lamport {
            return false
        }
        if !originRight.isNone && comparingRight && logs[originRight.replica].lamport(of: originRight.counter) >= run.lamport {
            return false
        }
        return true
    }

    /// Applies an insertion run whose origins are held and older than it, unless the origin
    /// rule rejects it: places it where FugueMax puts it, records the edit and the operations.
    private mutating func applyInsertion(
        _ run: TextDelta.Run, replicaIndex: UInt32, originLeft: ItemRef, originRight: ItemRef, content bytes: [UInt8]?,
        recordingEdits: Bool, report: inout TextApplyReport, appliedTombstones: inout [TextDelta.Run]?
    ) -> RunOutcome {
        // Where the left origin stands, found once for both the origin rule and the
        // integration below (each would look it up in the tree otherwise).
        var leftPlace: LeftOriginPlace?
        if !originLeft.isNone {
            // (Held as an item: `presence` said so above; never rejected here.)
            guard let (slot, offset) = lookup(originLeft) else { return .rejected }
            leftPlace = LeftOriginPlace(location: location(ofSlot: slot), offset: offset)
        }
        // Its origins were next to each other where it was made, and its replica held all of
        // its own earlier items there: none of them can lie between the two.
        if holdsItem(of: replicaIndex, after: leftPlace, before: originRight) { return .rejected }
        let destination = integrationDestination(
            originLeft: originLeft, leftPlace: leftPlace, originRight: originRight,
            newItem: OperationID(replica: run.replica, counter: run.counter))
        let point = openInsertionPoint(at: destination)
        if let bytes {
            _ = bytes.withUnsafeBufferPointer { buffer in
                insertRun(
                    leaf: point.leaf, index: point.index, replica: replicaIndex, counter: run.counter, lengthScalars: run.length,
                    originLeft: originLeft, originRight: originRight, content: .bytes(buffer))
            }
        } else {
            insertRun(
                leaf: point.leaf, index: point.index, replica: replicaIndex, counter: run.counter, lengthScalars: run.length,
                originLeft: originLeft, originRight: originRight, content: .deleted)
            appliedTombstones?.append(run)
        }
        if let splitPieces = point.splitPieces { mergeOutward(left: splitPieces.left, right: splitPieces.right) }
        if recordingEdits, let bytes { recordInsertionEdit(of: run, replicaIndex: replicaIndex, content: bytes, report: &report) }
        recordApplied(run, replicaIndex: replicaIndex, report: &report)
        return .done
    }

    /// The leaf and index where new items go before the item at `destination` (nil: at the end
    /// of the text), splitting its span when the item is inside it: then the two pieces, to
    /// merge again around the new items where they allow it.
    @inline(__always)
    private mutating func openInsertionPoint(
        at destination: (location: SpanLocation, offset: UInt32)?
    ) -> (leaf: UInt32, index: Int, splitPieces: (left: UInt32, right: UInt32)?) {
        guard let (location, offset) = destination else {
            let leaf = lastLeaf
            return (leaf, slotCount(of: leaf), nil)
        }
        guard offset > 0 else { return (location.leaf, location.index, nil) }
        let second = splitSpan(at: location, offset: offset)
        return (second.leaf, second.index, (location.slot, second.slot))
    }

    /// Reports the insertion just applied as a UTF-16 edit.
    private func recordInsertionEdit(
        of run: TextDelta.Run, replicaIndex: UInt32, content bytes: [UInt8], report: inout TextApplyReport
    ) {
        let placed = lookup(ItemRef(replica: replicaIndex, counter: run.counter))!
        let location = location(ofSlot: placed.slot)
        let before = countsBefore(location).utf16
            + (placed.offset == 0
                ? 0
                : prefixLengths(of: spans[placed.slot], scalars: placed.offset).utf16)
        report.edits.append(TextEdit(rangeUTF16: before..<before, replacement: String(decoding: bytes, as: UTF8.self)))
    }

    /// Applies the longest prefix of a deletion run whose targets have all arrived (reversed
    /// runs: all of it or nothing); rejects it when a target is a deletion.
    private mutating func applyDeletion(
        _ run: TextDelta.Run, replicaIndex: UInt32, target: OperationID, isReversed: Bool, recordingEdits: Bool,
        report: inout TextApplyReport
    ) -> RunOutcome {
        var ready = run.length
        guard let targetIndex = replicaTable.index(of: target.replica) else { return .blocked }
        let targetsHeld = logs[targetIndex].operationCount
        if isReversed {
            if targetsHeld < target.counter + run.length { return .blocked }
        } else {
            if targetsHeld <= target.counter { return .blocked }
            ready = min(run.length, targetsHeld - target.counter)
        }
        let part = ready == run.length ? run : run.prefix(ready)
        guard case let .deletion(partTarget, _) = part.kind else { preconditionFailure() }
        // Every target must be an item.
        var counter = partTarget.counter
        while counter < partTarget.counter + part.length {
            guard let (slot, offset) = lookup(ItemRef(replica: targetIndex, counter: counter)) else {
                return .rejected
            }
            counter += spans[slot].lengthScalars - offset
        }
        deleteItems(
            replica: targetIndex, from: partTarget.counter, count: part.length,
            recordingEdits: recordingEdits, edits: &report.edits)
        logs[replicaIndex].appendDeletions(
            DeletionRun(
                counter: part.counter, length: part.length, targetReplica: targetIndex,
                targetCounter: partTarget.counter, isReversed: isReversed))
        recordApplied(part, replicaIndex: replicaIndex, report: &report)
        return ready == run.length ? .done : .partial(rest: run.dropping(ready))
    }

    private mutating func recordApplied(_ run: TextDelta.Run, replicaIndex: UInt32, report: inout TextApplyReport) {
        logs[replicaIndex].appendTimestamps(counter: run.counter, lamport: run.lamport)
        logs[replicaIndex].operationCount = run.end
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active == .lamportNotObserved { report.appliedOperationCount += Int(run.length); return }
        #endif
        lamport = max(lamport, run.lamport + UInt64(run.length) - 1)
        report.appliedOperationCount += Int(run.length)
    }

    /// Marks the items `from ..< from + count` of one replica deleted, reporting visible changes.
    private mutating func deleteItems(
        replica: UInt32, from: UInt32, count: UInt32, recordingEdits: Bool, edits: inout [TextEdit]
    ) {
        var counter = from
        let end = from + count
        while counter < end {
            let (slot, offset) = lookup(ItemRef(replica: replica, counter: counter))!
            let span = spans[slot]
            let taken = min(end - counter, span.lengthScalars - offset)
            if !span.isDeleted {
                let location = location(ofSlot: slot)
                #if MEMOSYNC_MUTANTS
                let recordingEdits = recordingEdits && EngineMutant.active != .eventsOmitRemoteDeletions
                #endif
                if recordingEdits {
                    let skip = prefixLengths(of: span, scalars: offset)
                    let width = prefixLengths(of: span, scalars: offset + taken).utf16 - skip.utf16
                    let before = countsBefore(location).utf16 + skip.utf16
                    edits.append(TextEdit(rangeUTF16: before..<before + width, replacement: ""))
                }
                markDeleted(at: location, offset: offset, length: taken)
            }
            counter += taken
        }
    }

    /// Whether an item of `replica` lies strictly between `originLeft` (nil: the start) and
    /// `originRight` (nil: the end), both held: an insertion of `replica` naming these origins
    /// comes from no history, as its replica held its own earlier items when it made it and
    /// its origins were next to each other then (fuzz finding F3, third input). Scans the spans
    /// between the two (those of concurrent insertions only, for an honest insertion).
    func holdsItem(of replica: UInt32, between originLeft: ItemRef, and originRight: ItemRef) -> Bool {
        var leftPlace: LeftOriginPlace?
        if !originLeft.isNone {
            guard let (slot, offset) = lookup(originLeft) else { return false }
            leftPlace = LeftOriginPlace(location: location(ofSlot: slot), offset: offset)
        }
        return holdsItem(of: replica, after: leftPlace, before: originRight)
    }

    /// Where a held left origin stands in the tree: its span's location and its offset there.
    struct LeftOriginPlace {
        var location: SpanLocation
        var offset: UInt32
    }

    /// ``holdsItem(of:between:and:)`` with the left origin's place already looked up (nil: the
    /// start of the text), as `applyRun` has it.
    func holdsItem(of replica: UInt32, after leftPlace: LeftOriginPlace?, before originRight: ItemRef) -> Bool {
        var cursor: SpanLocation?
        var offset: UInt32 = 0
        if let leftPlace {
            cursor = leftPlace.location
            offset = leftPlace.offset + 1
        } else {
            cursor = firstLocation
        }
        while let location = cursor {
            let span = spans[location.slot]
            if !originRight.isNone && span.replica == originRight.replica
                && originRight.counter >= span.counter + offset && originRight.counter < span.end
            {
                return span.replica == replica && originRight.counter > span.counter + offset
            }
            if span.replica == replica && offset < span.lengthScalars { return true }
            cursor = self.location(after: location)
            offset = 0
        }
        return false
    }

    // MARK: FugueMax integration

    /// ``integrationDestination(originLeft:leftPlace:originRight:newItem:)``, the left origin
    /// (held, or none) looked up here.
    func integrationDestination(
        originLeft: ItemRef, originRight: ItemRef, newItem: OperationID
    ) -> (location: SpanLocation, offset: UInt32)? {
        var leftPlace: LeftOriginPlace?
        if !originLeft.isNone {
            let (slot, offset) = lookup(originLeft)!
            leftPlace = LeftOriginPlace(location: location(ofSlot: slot), offset: offset)
        }
        return integrationDestination(originLeft: originLeft, leftPlace: leftPlace, originRight: originRight, newItem: newItem)
    }

    /// Where a new item with the given origins goes: before the item at the returned span and
    /// offset, or at the end of the text when nil.
    ///
    /// This is the list form of FugueMax. Starting right after `originLeft`, scan the items up
    /// to `originRight`. An item whose own originLeft lies before ours ends the scan: everything
    /// from there on belongs to an ancestor's later subtree. An item whose originLeft is ours is
    /// a sibling: siblings are ordered by their originRight, the one reaching furthest right
    /// first, and by replica id when both origins are equal. Items whose originLeft lies after
    /// ours are inside a sibling's subtree and are skipped.
    ///
    /// The scan treats a span as one unit: items after a span's first have the item before them
    /// as originLeft, so they are always inside the subtree being skipped.
    ///
    /// `leftPlace` is where `originLeft` stands (nil exactly when `originLeft` is none), looked
    /// up by the caller.
    func integrationDestination(
        originLeft: ItemRef, leftPlace: LeftOriginPlace?, originRight: ItemRef, newItem: OperationID
    ) -> (location: SpanLocation, offset: UInt32)? {
        assert(originLeft.isNone == (leftPlace == nil), "the left origin's place is given when it is held")
        var cursor: (location: SpanLocation, offset: UInt32)?
        var leftIndex: Int?
        if let leftPlace {
            let location = leftPlace.location
            let offset = leftPlace.offset
            let slot = location.slot
            if offset + 1 < spans[slot].lengthScalars {
                cursor = (location, offset + 1)
            } else {
                cursor = self.location(after: location).map { ($0, 0) }
            }
        } else {
            leftIndex = -1
            cursor = firstLocation.map { ($0, 0) }
        }
        var rightIndex: Int?
        var scanning = false
        var destination = cursor
        while let (location, offset) = cursor {
            if !scanning { destination = cursor }
            let span = spans[location.slot]
            if span.item(at: offset) == originRight { break }
            let otherLeft = span.originLeft(at: offset)
            let leftOrder: Int
            if otherLeft == originLeft {
                leftOrder = 0
            } else if offset > 0 {
                leftOrder = 1  // The item before it, which this scan has passed.
            } else {
                if leftIndex == nil { leftIndex = itemIndex(of: originLeft) }
                let otherIndex = otherLeft.isNone ? -1 : itemIndex(of: otherLeft)
                leftOrder = otherIndex < leftIndex! ? -1 : 1
            }
            if leftOrder < 0 { break }
            if leftOrder == 0 {
                if span.originRight == originRight {
                    let other = OperationID(replica: replicaTable.ids[span.replica], counter: span.counter + offset)
                    #if MEMOSYNC_MUTANTS
                    if EngineMutant.active == .tieBreakByLocalIndex
                        ? (replicaTable.index(of: newItem.replica) ?? .max, newItem.counter) < (span.replica, other.counter)
                        : newItem < other { break }
                    #else
                    if newItem < other { break }
                    #endif
                    scanning = false
                } else {
                    if rightIndex == nil { rightIndex = originRight.isNone ? Int.max : itemIndex(of: originRight) }
                    let otherRightIndex = span.originRight.isNone ? Int.max : itemIndex(of: span.originRight)
                    scanning = otherRightIndex < rightIndex!
                    #if MEMOSYNC_MUTANTS
                    if EngineMutant.active == .siblingsIgnoreRightOrigin { scanning = false }
                    #endif
                }
            }
            cursor = self.location(after: location).map { ($0, 0) }
        }
        if cursor == nil && !scanning { destination = nil }
        return destination
    }
}

extension Array {
    /// The first index whose element satisfies `belongsInSecondPartition`, assuming the array is
    /// partitioned (all elements failing the predicate come first).
    package func partitioningIndex(where belongsInSecondPartition: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongsInSecondPartition(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
