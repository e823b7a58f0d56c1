// Undo and redo of this replica's own edits. Undoing an insertion deletes the characters it
// inserted that are still there; undoing a deletion inserts the deleted text again where it was
// (next to its deleted characters). Edits by other replicas are never touched, so undo works
// while remote edits keep arriving. Typing and held backspace coalesce into one step.

/// One undoable step: the characters it inserted and the text it deleted.
@usableFromInline
struct UndoStep: Sendable {
    /// Consecutive characters by id.
    struct Run: Sendable {
        var first: OperationID
        var count: Int
    }

    /// Deleted text and the id of its first (now deleted) character, which says where it was.
    struct Piece: Sendable {
        var first: OperationID
        var text: String
    }

    var inserted: [Run]
    var deleted: [Piece]
    /// When the step was made, for coalescing keystrokes.
    var wallMilliseconds: UInt64
    /// Scalar offsets where the edit started and where the caret ended, for coalescing.
    var startScalars: Int
    var endScalars: Int

    var isInsertionOnly: Bool { deleted.isEmpty && !inserted.isEmpty }
    var isDeletionOnly: Bool { inserted.isEmpty && deleted.count == 1 }
}

@usableFromInline
struct UndoHistory: Sendable {
    var undo: [UndoStep] = []
    var redo: [UndoStep] = []
    /// Steps kept per memo; older ones are forgotten.
    static let stepsMax = 500
    /// Keystrokes closer together than this coalesce into one step.
    static let coalescingMilliseconds: UInt64 = 2000
}

extension UndoHistory {
    /// Appends `step`, or coalesces it into the last step (typing on, held backspace, forward
    /// delete within `coalescingMilliseconds`); clears redo.
    mutating func record(_ step: UndoStep) {
        redo.removeAll()
        if let lastIndex = undo.indices.last, step.wallMilliseconds >= undo[lastIndex].wallMilliseconds,
            step.wallMilliseconds - undo[lastIndex].wallMilliseconds <= Self.coalescingMilliseconds,
            undo[lastIndex].coalesce(step)
        {
            return
        }
        undo.append(step)
        if undo.count > Self.stepsMax { undo.removeFirst(undo.count - Self.stepsMax) }
    }

    /// Records the insertion of `count` (> 0) consecutive characters from `first` at scalar
    /// `startScalars`, exactly as ``record(_:)`` records the step that inserts them and deletes
    /// nothing, without building that step when it coalesces into the last one (typing on).
    mutating func recordInsertion(first: OperationID, count: Int, wallMilliseconds: UInt64, startScalars: Int) {
        if let lastIndex = undo.indices.last, wallMilliseconds >= undo[lastIndex].wallMilliseconds,
            wallMilliseconds - undo[lastIndex].wallMilliseconds <= Self.coalescingMilliseconds,
            undo[lastIndex].continuesTyping(first: first, startScalars: startScalars)
        {
            redo.removeAll()
            undo[lastIndex].inserted[undo[lastIndex].inserted.count - 1].count += count
            undo[lastIndex].endScalars = startScalars + count
            undo[lastIndex].wallMilliseconds = wallMilliseconds
            return
        }
        record(
            UndoStep(
                inserted: [UndoStep.Run(first: first, count: count)], deleted: [], wallMilliseconds: wallMilliseconds,
                startScalars: startScalars, endScalars: startScalars + count))
    }
}

extension UndoStep {
    /// Whether an insertion-only step whose first character is `first`, made at scalar
    /// `startScalars`, continues this one (insertion-only too): typing on at the caret with
    /// consecutive ids.
    func continuesTyping(first: OperationID, startScalars: Int) -> Bool {
        guard isInsertionOnly && startScalars == endScalars, let lastRun = inserted.last else { return false }
        return lastRun.first.replica == first.replica && lastRun.first.counter + UInt32(lastRun.count) == first.counter
    }

    /// Merges `step`, made right after this one, into it when it continues it: typing on at the
    /// caret with consecutive ids, backspace just before, forward delete at the same place.
    /// Returns whether it did.
    mutating func coalesce(_ step: UndoStep) -> Bool {
        if step.isInsertionOnly, let newRun = step.inserted.first,
            continuesTyping(first: newRun.first, startScalars: step.startScalars)
        {
            inserted[inserted.count - 1].count += newRun.count
            endScalars = step.endScalars
            wallMilliseconds = step.wallMilliseconds
            return true
        }
        if isDeletionOnly && step.isDeletionOnly {
            // A deletion-only step starts and ends where its deleted range started.
            if step.startScalars == startScalars {
                // Forward delete: the new text was just after the old.
                deleted[0].text += step.deleted[0].text
                wallMilliseconds = step.wallMilliseconds
                return true
            }
            if step.startScalars + step.deleted[0].text.unicodeScalars.count == startScalars {
                // Backspace: the new text was just before the old.
                deleted[0] = UndoStep.Piece(first: step.deleted[0].first, text: step.deleted[0].text + deleted[0].text)
                startScalars = step.startScalars
                endScalars = step.endScalars
                wallMilliseconds = step.wallMilliseconds
                return true
            }
        }
        return false
    }
}

extension Notebook {
    /// Whether ``undo(_:wallMilliseconds:)`` has something to undo in the memo.
    public func canUndo(_ id: MemoID) -> Bool { !(undoHistories[id]?.undo.isEmpty ?? true) }

    /// Whether ``redo(_:wallMilliseconds:)`` has something to redo in the memo.
    public func canRedo(_ id: MemoID) -> Bool { !(undoHistories[id]?.redo.isEmpty ?? true) }

    /// Undoes this replica's latest edit step in the memo, leaving everyone else's edits alone.
    ///
    /// - Throws: ``NotebookError/nothingToUndo(_:)``, ``NotebookError/memoNotFound(_:)``,
    ///   ``NotebookError/memoInTrash(_:)``.
    public mutating func undo(_ id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) {
        guard var history = undoHistories[id], let step = history.undo.popLast() else { throw .nothingToUndo(id) }
        let inverse = try invert(step, in: id, wallMilliseconds: now)
        history.redo.append(inverse)
        undoHistories[id] = history
    }

    /// Redoes the step last undone in the memo.
    ///
    /// - Throws: as ``undo(_:wallMilliseconds:)``.
    public mutating func redo(_ id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) {
        guard var history = undoHistories[id], let step = history.redo.popLast() else { throw .nothingToUndo(id) }
        let inverse = try invert(step, in: id, wallMilliseconds: now)
        history.undo.append(inverse)
        undoHistories[id] = history
    }

    /// Records a local edit step, coalescing typing and held backspace; clears redo. The history
    /// is changed in place (no copy of its steps per keystroke).
    mutating func recordUndo(_ step: UndoStep, in id: MemoID) {
        undoHistories[id, default: UndoHistory()].record(step)
    }

    /// Performs the inverse of `step` as new local edits and returns the step that inverts it
    /// back (for redo, or undo after redo).
    private mutating func invert(_ step: UndoStep, in id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) -> UndoStep {
        let text = try editableText(id)
        // What the step inserted and is still there: its text, for the inverse to insert again.
        var removed: [UndoStep.Piece] = []
        let string = text.string
        for run in step.inserted {
            var counter = run.first.counter
            let end = run.first.counter + UInt32(run.count)
            while counter < end {
                // Find maximal visible stretches of the run, in id order.
                let id = OperationID(replica: run.first.replica, counter: counter)
                guard let position = try? text.visibleScalarsBefore(character: id),
                    let runs = try? text.characterRuns(inScalarRange: position..<min(position + Int(end - counter), text.lengthScalars)),
                    let first = runs.first, first.first == id
                else {
                    counter += 1
                    continue
                }
                let count = first.count
                var view = String.UnicodeScalarView()
                view.append(contentsOf: string.unicodeScalars[scalarIndexRange(position..<position + count, in: string)])
                removed.append(UndoStep.Piece(first: id, text: String(view)))
                counter += UInt32(count)
            }
        }
        var reinserted: [UndoStep.Run] = []
        let localReplica = replica
        try mutateText(id, wallMilliseconds: now) { text, reported throws(TextError) in
            for run in step.inserted {
                reported += try text.deleteCharacters(first: run.first, count: run.count)
            }
            // Insert deleted pieces back where their first character was, rightmost first so
            // earlier positions stay valid.
            var placements: [(offset: Int, piece: UndoStep.Piece)] = []
            for piece in step.deleted {
                placements.append((try text.visibleScalarsBefore(character: piece.first), piece))
            }
            for (offset, piece) in placements.sorted(by: { $0.offset > $1.offset }) where !piece.text.isEmpty {
                let first = OperationID(replica: localReplica, counter: text.version[localReplica])
                let lower = try text.utf16Offset(fromScalar: offset)
                try text.insert(piece.text, atScalar: offset)
                reported.append(TextEdit(rangeUTF16: lower..<lower, replacement: piece.text))
                reinserted.append(UndoStep.Run(first: first, count: piece.text.unicodeScalars.count))
            }
        }
        return UndoStep(inserted: reinserted, deleted: removed, wallMilliseconds: now, startScalars: 0, endScalars: 0)
    }
}
