import MemoCRDT
// Local changes: creating memos, editing their text, trash, restore and purge.

extension Notebook {
    // MARK: Creating

    /// Creates a memo with `id` (from the caller's random source) and initial `text`.
    ///
    /// - Throws: ``NotebookError/memoExists(_:)`` when the id is taken (even by a purged memo);
    ///   ``NotebookError/text(_:_:)`` with a limit error when the text cannot be held (nothing is
    ///   created then).
    public mutating func createMemo(_ id: MemoID, text: String = "", wallMilliseconds now: UInt64) throws(NotebookError) {
        guard memos[id] == nil else { throw .memoExists(id) }
        if !text.isEmpty {
            // The text's limits checked before the memo is created: a creation whose text is
            // refused (too large, or the clock at its limit) creates nothing, not an empty memo.
            var probe = TextCRDT(replica: replica)
            probe.observeLamport(lamport)
            do throws(TextError) {
                try probe.checkCapacity(operations: text.unicodeScalars.count, bytes: text.utf8.count)
            } catch {
                throw .text(id, error)
            }
        }
        let timestamp = clock.tick(wallMilliseconds: now)
        logs[replica, default: NotebookLog()].appendNext(length: 1, memo: id, kind: .create, timestamp: timestamp)
        var newText = TextCRDT(replica: replica)
        newText.keepsDeletedContent = keepsHistoryStorage
        var record = MemoRecord(id: id, text: .materialized(newText), createdAt: timestamp, modifiedAt: timestamp)
        record.refreshDerivedText()
        memos[id] = record
        events.append(.added(id, origin: .local))
        if !text.isEmpty {
            try edit(id, replacingScalars: 0..<0, with: text, wallMilliseconds: now, recordingUndo: false)
        }
        checkInvariantsIfEnabled()
    }

    // MARK: Editing

    /// Replaces the UTF-16 range `range` of the memo's text with `replacement`.
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/memoInTrash(_:)``, then
    ///   ``NotebookError/text(_:_:)`` carrying exactly what `TextCRDT.replace(utf16Range:with:)`
    ///   throws: `TextError.rangeOutOfBounds` (UTF-16 length) for a range past the end or
    ///   negative, `TextError.offsetInsideSurrogatePair` for a bound between the halves of a pair.
    public mutating func edit(
        _ id: MemoID, replacingUTF16 range: Range<Int>, with replacement: String, wallMilliseconds now: UInt64
    ) throws(NotebookError) {
        let index = try editableIndex(id)
        try replaceLocally(at: index, .utf16(range), with: replacement, wallMilliseconds: now, recordingUndo: true)
    }

    /// Replaces the Unicode scalar range `range` of the memo's text with `replacement`.
    ///
    /// - Throws: as ``edit(_:replacingUTF16:with:wallMilliseconds:)``.
    public mutating func edit(
        _ id: MemoID, replacingScalars range: Range<Int>, with replacement: String, wallMilliseconds now: UInt64
    ) throws(NotebookError) {
        try edit(id, replacingScalars: range, with: replacement, wallMilliseconds: now, recordingUndo: true)
    }

    /// Sets the memo's whole text to `newText`, as the smallest set of insertions and deletions
    /// that turns the current text into it (so concurrent edits elsewhere in the memo survive).
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/memoInTrash(_:)``, or a
    ///   text limit error.
    /// - Complexity: O((n + m) d) for texts of n and m scalars differing in d scalars (bounded:
    ///   past 4,096 differences one replacement of the differing middle is made instead).
    public mutating func setText(_ id: MemoID, to newText: String, wallMilliseconds now: UInt64) throws(NotebookError) {
        let text = try editableText(id)
        let old = Array(text.string.unicodeScalars)
        let new = Array(newText.unicodeScalars)
        let edits = TextDiff.scalarEdits(from: old, to: new)
        if edits.isEmpty { return }
        // Last edit first: earlier ranges stay valid.
        try mutateText(id, wallMilliseconds: now) { text, reported throws(TextError) in
            for edit in edits.reversed() {
                var replacement = String.UnicodeScalarView()
                replacement.append(contentsOf: edit.replacement)
                let lower = try text.utf16Offset(fromScalar: edit.range.lowerBound)
                let upper = try text.utf16Offset(fromScalar: edit.range.upperBound)
                try text.replace(scalarRange: edit.range, with: String(replacement))
                reported.append(TextEdit(rangeUTF16: lower..<upper, replacement: String(replacement)))
            }
        }
        undoHistories[id, default: UndoHistory()].redo.removeAll()
    }

    /// The shared path of local edits: one replacement, optionally recorded for undo.
    mutating func edit(
        _ id: MemoID, replacingScalars range: Range<Int>, with replacement: String, wallMilliseconds now: UInt64,
        recordingUndo: Bool
    ) throws(NotebookError) {
        let index = try editableIndex(id)
        try replaceLocally(at: index, .scalars(range), with: replacement, wallMilliseconds: now, recordingUndo: recordingUndo)
    }

    /// A range of a text to replace, in the unit the caller gave it.
    fileprivate enum LocalRange {
        case scalars(Range<Int>)
        case utf16(Range<Int>)
    }

    /// One local replacement in the text of the editable memo at `index` (from
    /// ``editableIndex(_:)``): takes the text out of its record (``takeText(at:)``), checks and
    /// converts the range, reads what undo needs, edits the text in place, puts it back (on every
    /// path), and records the run, the event and the undo step.
    ///
    /// Each keystroke looks the memo up once, this replica's log once and its undo history once,
    /// and copies neither the record nor the text.
    ///
    /// - Complexity: O(log r + m) for r runs in the text and m scalars replaced.
    private mutating func replaceLocally(
        at index: Int, _ localRange: LocalRange, with replacement: String, wallMilliseconds now: UInt64,
        recordingUndo: Bool
    ) throws(NotebookError) {
        let id = memos[at: index].id
        var text = takeText(at: index)
        let range: Range<Int>
        do throws(TextError) {
            range = try text.scalarRange(of: localRange)
        } catch {
            memos[at: index].text = .materialized(text)
            throw .text(id, error)
        }
        if range.isEmpty && replacement.isEmpty {
            memos[at: index].text = .materialized(text)
            return
        }
        // What undo and the event need, read before the edit. (Typing, an insertion at a UTF-16
        // offset, needs neither read.)
        let deleted = recordingUndo && !range.isEmpty ? text.undoPieces(deleting: range) : []
        let reportedRange: Range<Int>
        if case let .utf16(units) = localRange {
            reportedRange = units
        } else {
            reportedRange = text.utf16Range(ofScalars: range)
        }
        let before = text.localOperationCount
        let firstInserted = OperationID(replica: replica, counter: before + UInt32(range.count))
        // An edit that fails changes nothing, not even the text's clock (it fails before it
        // makes an operation; no copy of the text is kept: see `TextCRDT.restoreLamport`).
        let lamportBefore = text.lamport
        text.observeLamport(lamport)
        do throws(TextError) {
            try text.replace(scalarRange: range, with: replacement)
        } catch {
            if text.localOperationCount == before { text.restoreLamport(lamportBefore) }
            memos[at: index].text = .materialized(text)
            throw .text(id, error)
        }
        let after = text.localOperationCount
        lamport = max(lamport, text.lamport)
        memos[at: index].text = .materialized(text)
        recordLocalTextRun(at: index, from: before, to: after, wallMilliseconds: now)
        events.append(.changed(id, edits: [TextEdit(rangeUTF16: reportedRange, replacement: replacement)], origin: .local))
        if recordingUndo {
            recordLocalUndo(
                in: id, deleted: deleted, firstInserted: firstInserted, insertedCount: replacement.unicodeScalars.count,
                at: range.lowerBound, wallMilliseconds: now)
        }
        checkInvariantsIfEnabled(.edited(id))
    }

    /// Records a local replacement at scalar `start` for undo: an insertion alone as one that
    /// typing may extend, anything that deleted as a step of its own.
    private mutating func recordLocalUndo(
        in id: MemoID, deleted: [UndoStep.Piece], firstInserted: OperationID, insertedCount: Int, at start: Int,
        wallMilliseconds now: UInt64
    ) {
        if deleted.isEmpty && insertedCount > 0 {
            undoHistories[id, default: UndoHistory()].recordInsertion(
                first: firstInserted, count: insertedCount, wallMilliseconds: now, startScalars: start, group: undoGroup)
        } else {
            recordUndo(
                UndoStep(
                    inserted: insertedCount > 0 ? [UndoStep.Run(first: firstInserted, count: insertedCount)] : [],
                    deleted: deleted, wallMilliseconds: now,
                    startScalars: start, endScalars: start + insertedCount),
                in: id)
        }
    }

    // MARK: Trash, restore, purge

    /// Moves the memo to the trash. It stays there, recoverable with ``restore(_:wallMilliseconds:)``,
    /// until purged; an edit made elsewhere that this replica has not seen brings it back.
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``; ``NotebookError/memoInTrash(_:)`` when it is
    ///   in the trash already.
    public mutating func moveToTrash(_ id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) {
        guard let record = memos[id], record.status != .purged else { throw .memoNotFound(id) }
        guard record.status == .active else { throw .memoInTrash(id) }
        setTrashed(id, true, wallMilliseconds: now)
        trashUndo.record(TrashUndoStep(memo: id, trashed: true))
    }

    /// Takes the memo out of the trash.
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/memoNotInTrash(_:)``.
    public mutating func restore(_ id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) {
        guard let record = memos[id], record.status != .purged else { throw .memoNotFound(id) }
        guard record.status == .trashed else { throw .memoNotInTrash(id) }
        setTrashed(id, false, wallMilliseconds: now)
        trashUndo.record(TrashUndoStep(memo: id, trashed: false))
    }

    /// Moves the memo (active, when `trashed`; in the trash, otherwise) to the trash or out of
    /// it, without recording an undo step.
    mutating func setTrashed(_ id: MemoID, _ trashed: Bool, wallMilliseconds now: UInt64) {
        if trashed {
            appendLifecycle(.trash(seen: memos[existing: id].text.version), to: id, wallMilliseconds: now)
            events.append(.trashed(id, origin: .local))
        } else {
            appendLifecycle(.restore, to: id, wallMilliseconds: now)
            events.append(.restored(id, origin: .local))
        }
        checkInvariantsIfEnabled()
    }

    /// Removes the memo for good: deletes its whole text (on every replica, as ordinary text
    /// deletions) and hides it. Text another replica wrote concurrently, unseen here, survives
    /// and brings the memo back there and here.
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``.
    public mutating func purge(_ id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) {
        guard let record = memos[id], record.status != .purged else { throw .memoNotFound(id) }
        let length = try materializedText(of: id).lengthScalars
        if length > 0 {
            try mutateText(id, wallMilliseconds: now, allowTrashed: true) { text, reported throws(TextError) in
                let upper = text.lengthUTF16
                try text.delete(scalarRange: 0..<text.lengthScalars)
                reported.append(TextEdit(rangeUTF16: 0..<upper, replacement: ""))
            }
        }
        appendLifecycle(.purge(seen: memos[existing: id].text.version), to: id, wallMilliseconds: now)
        // Purge is the privacy tool: the memo's history goes with it.
        if memos[existing: id].status == .purged, let index = memos.index(of: id) { dropAllHistory(at: index) }
        undoHistories[id] = nil
        trashUndo.forget(id)
        events.append(.purged(id, origin: .local))
        checkInvariantsIfEnabled()
    }

    // MARK: Shared machinery

    /// Checks that the memo is active (not trashed or purged), reading its record in place.
    func requireEditable(_ id: MemoID) throws(NotebookError) {
        guard let index = memos.index(of: id) else { throw .memoNotFound(id) }
        try requireEditable(at: index)
    }

    /// Checks that the memo at `index` is active (not trashed or purged).
    func requireEditable(at index: Int) throws(NotebookError) {
        switch memos[at: index].status {
        case .active: return
        case .trashed: throw .memoInTrash(memos[at: index].id)
        case .purged: throw .memoNotFound(memos[at: index].id)
        }
    }

    /// The memo's text, which must be active (not trashed or purged), decoded.
    mutating func editableText(_ id: MemoID) throws(NotebookError) -> TextCRDT {
        let index = try editableIndex(id)
        guard case let .materialized(text) = memos[at: index].text else { preconditionFailure("materialized") }
        return text
    }

    /// Where the memo's record is, checking that the memo is active (not trashed or purged) and
    /// decoding its text: one lookup.
    mutating func editableIndex(_ id: MemoID) throws(NotebookError) -> Int {
        guard let index = memos.index(of: id) else { throw .memoNotFound(id) }
        try requireEditable(at: index)
        try materializeText(at: index)
        return index
    }

    /// Runs `body` on the memo's text (taken out of the notebook so it is edited in place), and
    /// records the text operations it made as one notebook run with a fresh timestamp. Nothing
    /// changes when `body` throws.
    mutating func mutateText(
        _ id: MemoID, wallMilliseconds now: UInt64, allowTrashed: Bool = false,
        _ body: (inout TextCRDT, inout [TextEdit]) throws(TextError) -> Void
    ) throws(NotebookError) {
        let index: Int
        if allowTrashed {
            guard let found = memos.index(of: id) else { throw .memoNotFound(id) }
            try materializeText(at: found)
            index = found
        } else {
            index = try editableIndex(id)
        }
        var text = takeText(at: index)
        let before = text.localOperationCount
        // An edit that fails having made nothing changes nothing, not even the text's clock (no
        // copy of the text is kept for that: see `TextCRDT.restoreLamport`).
        let lamportBefore = text.lamport
        text.observeLamport(lamport)
        var reported: [TextEdit] = []
        do throws(TextError) {
            try body(&text, &reported)
        } catch {
            if text.localOperationCount == before { text.restoreLamport(lamportBefore) }
            memos[at: index].text = .materialized(text)
            throw .text(id, error)
        }
        let after = text.localOperationCount
        lamport = max(lamport, text.lamport)
        memos[at: index].text = .materialized(text)
        recordLocalTextRun(at: index, from: before, to: after, wallMilliseconds: now)
        // An edit of an active memo leaves it active (new characters are unseen by every trash
        // and purge; deletions change no status), so only edits of trashed memos recompute it.
        if allowTrashed { memos[at: index].refreshStatus() }
        if !reported.isEmpty { events.append(.changed(id, edits: reported, origin: .local)) }
        checkInvariantsIfEnabled(.edited(id))
    }

    /// After a local change to the text of the memo at `index` (put back in its record) that
    /// took this replica's text counters `before ..< after`: records them as one notebook run
    /// with a fresh timestamp, and leaves the title and preview stale.
    mutating func recordLocalTextRun(at index: Int, from before: UInt32, to after: UInt32, wallMilliseconds now: UInt64) {
        if after > before {
            let timestamp = clock.tick(wallMilliseconds: now)
            let memo = memos[at: index].id
            logs[replica, default: NotebookLog()].appendNext(
                length: after - before, memo: memo, kind: .text(textCounter: before), timestamp: timestamp)
            memos[at: index].modifiedAt = max(memos[at: index].modifiedAt, timestamp)
        }
        // Title and preview go stale while typing (taken on the fly when listed, cached again by
        // refreshSearchKeys()).
        if memos[at: index].searchKeyStamp == MemoRecord.noSearchKeyYet { memos[at: index].refreshDerivedText() }
        memos.markDerivedTextStale(at: index)
    }

    /// Records a lifecycle operation made here and updates the memo.
    mutating func appendLifecycle(_ kind: LifecycleRecord.Kind, to id: MemoID, wallMilliseconds now: UInt64) {
        let timestamp = clock.tick(wallMilliseconds: now)
        let runKind: NotebookRunKind
        switch kind {
        case let .trash(seen): runKind = .trash(seen: seen)
        case .restore: runKind = .restore
        case let .purge(seen): runKind = .purge(seen: seen)
        }
        let counter = logs[replica, default: NotebookLog()].appendNext(length: 1, memo: id, kind: runKind, timestamp: timestamp)
        memos[existing: id].lifecycle.append(LifecycleRecord(kind: kind, timestamp: timestamp, replica: replica, counter: counter))
        memos[existing: id].modifiedAt = max(memos[existing: id].modifiedAt, timestamp)
        memos[existing: id].refreshStatus()
    }

    /// The index range of the scalars `range` in `string`'s scalar view.
    func scalarIndexRange(_ range: Range<Int>, in string: String) -> Range<String.UnicodeScalarView.Index> {
        let scalars = string.unicodeScalars
        let lower = scalars.index(scalars.startIndex, offsetBy: range.lowerBound)
        let upper = scalars.index(lower, offsetBy: range.count)
        return lower..<upper
    }
}

extension NotebookLog {
    /// Appends a run of `length` operations starting at the next counter (this log's
    /// ``operationCount``), merging it into the last run when it continues it. Returns the run's
    /// first counter.
    @discardableResult
    mutating func appendNext(length: UInt32, memo: MemoID, kind: NotebookRunKind, timestamp: HybridTimestamp) -> UInt32 {
        let counter = operationCount
        append(NotebookRun(counter: counter, length: length, memo: memo, kind: kind, timestamp: timestamp))
        return counter
    }
}

// Reads of a text that a local replacement makes before it edits. Methods of the text, so that
// the caller's text (taken out of its record, edited in place next) is read where it is.
extension TextCRDT {
    /// The scalar range `localRange` stands for in this text.
    ///
    /// - Throws: `TextError` for a UTF-16 offset inside a surrogate pair or a range outside the
    ///   text.
    @inline(__always)
    fileprivate func scalarRange(of localRange: Notebook.LocalRange) throws(TextError) -> Range<Int> {
        let range: Range<Int>
        switch localRange {
        case let .scalars(scalars):
            range = scalars
        case let .utf16(units):
            // The same check, and so the same error, as `TextCRDT.replace(utf16Range:with:)`:
            // a range past the end, negative or reversed is `.rangeOutOfBounds` in UTF-16 units.
            guard units.lowerBound >= 0 && units.lowerBound <= units.upperBound && units.upperBound <= lengthUTF16 else {
                throw .rangeOutOfBounds(lowerBound: units.lowerBound, upperBound: units.upperBound, length: lengthUTF16)
            }
            let lower = try scalarOffset(fromUTF16: units.lowerBound)
            let upper = units.isEmpty ? lower : try scalarOffset(fromUTF16: units.upperBound)
            range = lower..<upper
        }
        guard range.lowerBound >= 0 && range.lowerBound <= range.upperBound && range.upperBound <= lengthScalars else {
            throw .rangeOutOfBounds(lowerBound: range.lowerBound, upperBound: range.upperBound, length: lengthScalars)
        }
        return range
    }

    /// What undo needs of the scalars in `range` (in bounds, not empty) before a replacement
    /// deletes them: their characters and their text.
    @inline(__always)
    func undoPieces(deleting range: Range<Int>) -> [UndoStep.Piece] {
        guard let runs = try? characterRuns(inScalarRange: range), !runs.isEmpty else { return [] }
        return [UndoStep.Piece(characters: runs.map { UndoStep.Run(first: $0.first, count: $0.count) }, text: string(inScalarRange: range))]
    }

    /// The UTF-16 range of the scalars in `range` (in bounds), for the event.
    @inline(__always)
    func utf16Range(ofScalars range: Range<Int>) -> Range<Int> {
        // In bounds: checked by `scalarRange(of:)`.
        let lower = (try? utf16Offset(fromScalar: range.lowerBound)) ?? 0
        let upper = range.isEmpty ? lower : (try? utf16Offset(fromScalar: range.upperBound)) ?? 0
        return lower..<upper
    }
}
