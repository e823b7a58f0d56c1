// Local changes: creating memos, editing their text, trash, restore and purge.

extension Notebook {
    // MARK: Creating

    /// Creates a memo with `id` (from the caller's random source) and initial `text`.
    ///
    /// - Throws: ``NotebookError/memoExists(_:)`` when the id is taken (even by a purged memo).
    public mutating func createMemo(_ id: MemoID, text: String = "", wallMilliseconds now: UInt64) throws(NotebookError) {
        guard memos[id] == nil else { throw .memoExists(id) }
        let timestamp = clock.tick(wallMilliseconds: now)
        appendLocal(NotebookRun(counter: log(of: replica).operationCount, length: 1, memo: id, kind: .create, timestamp: timestamp))
        var record = MemoRecord(id: id, text: .materialized(TextCRDT(replica: replica)), createdAt: timestamp, modifiedAt: timestamp)
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
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/memoInTrash(_:)``,
    ///   ``NotebookError/text(_:_:)`` for a range outside the text or inside a surrogate pair.
    public mutating func edit(
        _ id: MemoID, replacingUTF16 range: Range<Int>, with replacement: String, wallMilliseconds now: UInt64
    ) throws(NotebookError) {
        let text = try editableText(id)
        let scalarRange: Range<Int>
        do throws(TextError) {
            let lower = try text.scalarOffset(fromUTF16: range.lowerBound)
            let upper = range.isEmpty ? lower : try text.scalarOffset(fromUTF16: range.upperBound)
            scalarRange = lower..<upper
        } catch {
            throw .text(id, error)
        }
        try edit(id, replacingScalars: scalarRange, with: replacement, wallMilliseconds: now, recordingUndo: true)
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
        let before = try editableText(id)
        guard range.lowerBound >= 0 && range.upperBound <= before.lengthScalars else {
            throw .text(id, .rangeOutOfBounds(lowerBound: range.lowerBound, upperBound: range.upperBound, length: before.lengthScalars))
        }
        if range.isEmpty && replacement.isEmpty { return }
        // What undo needs, read before the edit.
        var deleted: [UndoStep.Piece] = []
        if recordingUndo && !range.isEmpty {
            if let first = (try? before.characterRuns(inScalarRange: range))?.first {
                deleted.append(UndoStep.Piece(first: first.first, text: before.string(inScalarRange: range)))
            }
        }
        let firstInserted = OperationID(replica: replica, counter: before.operationCount(of: replica) + UInt32(range.count))
        try mutateText(id, wallMilliseconds: now) { text, reported throws(TextError) in
            let lower = try text.utf16Offset(fromScalar: range.lowerBound)
            let upper = try text.utf16Offset(fromScalar: range.upperBound)
            try text.replace(scalarRange: range, with: replacement)
            reported.append(TextEdit(rangeUTF16: lower..<upper, replacement: replacement))
        }
        if recordingUndo {
            let insertedCount = replacement.unicodeScalars.count
            recordUndo(
                UndoStep(
                    inserted: insertedCount > 0 ? [UndoStep.Run(first: firstInserted, count: insertedCount)] : [],
                    deleted: deleted, wallMilliseconds: now,
                    startScalars: range.lowerBound, endScalars: range.lowerBound + insertedCount),
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
        appendLifecycle(.trash(seen: record.text.version), to: id, wallMilliseconds: now)
        events.append(.trashed(id, origin: .local))
        checkInvariantsIfEnabled()
    }

    /// Takes the memo out of the trash.
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/memoNotInTrash(_:)``.
    public mutating func restore(_ id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) {
        guard let record = memos[id], record.status != .purged else { throw .memoNotFound(id) }
        guard record.status == .trashed else { throw .memoNotInTrash(id) }
        appendLifecycle(.restore, to: id, wallMilliseconds: now)
        events.append(.restored(id, origin: .local))
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
        undoHistories[id] = nil
        events.append(.purged(id, origin: .local))
        checkInvariantsIfEnabled()
    }

    // MARK: Shared machinery

    /// Checks that the memo is active (not trashed or purged), reading its record in place.
    func requireEditable(_ id: MemoID) throws(NotebookError) {
        guard memos.contains(id) else { throw .memoNotFound(id) }
        switch memos[existing: id].status {
        case .active: return
        case .trashed: throw .memoInTrash(id)
        case .purged: throw .memoNotFound(id)
        }
    }

    /// The memo's text, which must be active (not trashed or purged), decoded.
    mutating func editableText(_ id: MemoID) throws(NotebookError) -> TextCRDT {
        try requireEditable(id)
        return try materializedText(of: id)
    }

    /// Runs `body` on the memo's text (taken out of the notebook so it is edited in place), and
    /// records the text operations it made as one notebook run with a fresh timestamp. Nothing
    /// changes when `body` throws.
    mutating func mutateText(
        _ id: MemoID, wallMilliseconds now: UInt64, allowTrashed: Bool = false,
        _ body: (inout TextCRDT, inout [TextEdit]) throws(TextError) -> Void
    ) throws(NotebookError) {
        if !allowTrashed { try requireEditable(id) }
        _ = try materializedText(of: id)
        // The record is changed in place (no copies of it per keystroke).
        guard let index = memos.index(of: id), case .materialized(var text) = memos[at: index].text else {
            preconditionFailure("materialized above")
        }
        // Drop the record's reference to the text, so it is edited in place.
        memos[at: index].text = .placeholder
        let before = text.operationCount(of: replica)
        text.observeLamport(lamport)
        var reported: [TextEdit] = []
        do throws(TextError) {
            try body(&text, &reported)
        } catch {
            memos[at: index].text = .materialized(text)
            throw .text(id, error)
        }
        let after = text.operationCount(of: replica)
        lamport = max(lamport, text.lamport)
        memos[at: index].text = .materialized(text)
        if after > before {
            let timestamp = clock.tick(wallMilliseconds: now)
            appendLocal(
                NotebookRun(
                    counter: log(of: replica).operationCount, length: after - before, memo: id,
                    kind: .text(textCounter: before), timestamp: timestamp))
            memos[at: index].modifiedAt = max(memos[at: index].modifiedAt, timestamp)
        }
        // Title and preview go stale while typing (taken on the fly when listed, cached again by
        // refreshSearchKeys()).
        if memos[at: index].searchKeyVersion == nil { memos[at: index].refreshDerivedText() }
        memos.markDerivedTextStale(at: index)
        // An edit of an active memo leaves it active (new characters are unseen by every trash
        // and purge; deletions change no status), so only edits of trashed memos recompute it.
        if allowTrashed { memos[at: index].refreshStatus() }
        if !reported.isEmpty { events.append(.changed(id, edits: reported, origin: .local)) }
        checkInvariantsIfEnabled()
    }

    /// Records a lifecycle operation made here and updates the memo.
    mutating func appendLifecycle(_ kind: LifecycleRecord.Kind, to id: MemoID, wallMilliseconds now: UInt64) {
        let timestamp = clock.tick(wallMilliseconds: now)
        let counter = log(of: replica).operationCount
        let runKind: NotebookRunKind
        switch kind {
        case let .trash(seen): runKind = .trash(seen: seen)
        case .restore: runKind = .restore
        case let .purge(seen): runKind = .purge(seen: seen)
        }
        appendLocal(NotebookRun(counter: counter, length: 1, memo: id, kind: runKind, timestamp: timestamp))
        memos[existing: id].lifecycle.append(LifecycleRecord(kind: kind, timestamp: timestamp, replica: replica, counter: counter))
        memos[existing: id].modifiedAt = max(memos[existing: id].modifiedAt, timestamp)
        memos[existing: id].refreshStatus()
    }

    /// Appends a run made here to this replica's log.
    mutating func appendLocal(_ run: NotebookRun) {
        logs[replica, default: NotebookLog()].append(run)
    }

    /// The index range of the scalars `range` in `string`'s scalar view.
    func scalarIndexRange(_ range: Range<Int>, in string: String) -> Range<String.UnicodeScalarView.Index> {
        let scalars = string.unicodeScalars
        let lower = scalars.index(scalars.startIndex, offsetBy: range.lowerBound)
        let upper = scalars.index(lower, offsetBy: range.count)
        return lower..<upper
    }
}
