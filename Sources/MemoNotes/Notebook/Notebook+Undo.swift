import MemoCRDT
// Undo and redo of this replica's own edits. Undoing an insertion deletes the characters it
// inserted that are still there; undoing a deletion inserts the deleted text again where it was
// (next to its deleted characters). Edits by other replicas are never touched, so undo works
// while remote edits keep arriving. Typing, held backspace and held forward delete coalesce
// into one step.
//
// Text put back is new characters (a deleted character never comes back to life), so putting
// text back renames its characters: every other step of the memo's history that refers to the
// old ones is made to refer to the new ones, and undo keeps retracing the texts the memo had
// (undo typing, undo its deletion, undo the typing again: the new characters go).

/// One undoable step: the characters it inserted and the text it deleted.
@usableFromInline
struct UndoStep: Sendable {
    /// Consecutive characters by id.
    struct Run: Sendable {
        var first: OperationID
        var count: Int
    }

    /// Deleted text and the ids of its (now deleted) characters in text order: the first says
    /// where the text was, all of them are renamed when the text is put back.
    struct Piece: Sendable {
        /// Runs of consecutive ids whose counts add up to the scalars of `text`.
        var characters: [Run]
        var text: String

        var first: OperationID { characters[0].first }

        /// Appends `runs`, joining the first to the last run when its ids follow on.
        mutating func appendCharacters(_ runs: [Run]) {
            for run in runs {
                if let last = characters.last, last.first.replica == run.first.replica,
                    last.first.counter + UInt32(last.count) == run.first.counter
                {
                    characters[characters.count - 1].count += run.count
                } else {
                    characters.append(run)
                }
            }
        }
    }

    /// Characters renamed by putting deleted text back: `old` now goes by the ids from
    /// `newFirst` on.
    struct Renaming: Sendable {
        var old: Run
        var newFirst: OperationID
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
    /// The notebook's ``Notebook/undoGroup`` when the last step was recorded or extended: a
    /// step recorded in another group never coalesces into it (the app ended the grouping,
    /// ``Notebook/endUndoGrouping()``).
    var group: UInt64 = 0
    /// Steps kept per memo; older ones are forgotten.
    static let stepsMax = 500
    /// Keystrokes closer together than this coalesce into one step.
    static let coalescingMilliseconds: UInt64 = 2000
}

extension UndoHistory {
    /// Appends `step`, or coalesces it into the last step (typing on, held backspace, forward
    /// delete within `coalescingMilliseconds`, in the same undo `group`); clears redo.
    mutating func record(_ step: UndoStep, group: UInt64) {
        redo.removeAll()
        defer { self.group = group }
        if group == self.group, let lastIndex = undo.indices.last, step.wallMilliseconds >= undo[lastIndex].wallMilliseconds,
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
    mutating func recordInsertion(first: OperationID, count: Int, wallMilliseconds: UInt64, startScalars: Int, group: UInt64) {
        if group == self.group, let lastIndex = undo.indices.last, wallMilliseconds >= undo[lastIndex].wallMilliseconds,
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
                startScalars: startScalars, endScalars: startScalars + count),
            group: group)
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
                deleted[0].appendCharacters(step.deleted[0].characters)
                wallMilliseconds = step.wallMilliseconds
                return true
            }
            if step.startScalars + step.deleted[0].text.unicodeScalars.count == startScalars {
                // Backspace: the new text was just before the old.
                var joined = step.deleted[0]
                joined.text += deleted[0].text
                joined.appendCharacters(deleted[0].characters)
                deleted[0] = joined
                startScalars = step.startScalars
                endScalars = step.endScalars
                wallMilliseconds = step.wallMilliseconds
                return true
            }
        }
        return false
    }

    /// Makes the runs this step inserted refer to the new names of renamed characters.
    ///
    /// - Complexity: O(r · n) for r runs in the step and n renamings.
    mutating func rename(_ renamings: [Renaming]) {
        guard !renamings.isEmpty, !inserted.isEmpty else { return }
        var result: [Run] = []
        result.reserveCapacity(inserted.count)
        for run in inserted {
            // Split the run where renamed stretches begin and end, in id order.
            var counter = run.first.counter
            let end = run.first.counter + UInt32(run.count)
            while counter < end {
                var pieceEnd = end
                var renamedFirst: OperationID?
                for renaming in renamings where renaming.old.first.replica == run.first.replica {
                    let oldStart = renaming.old.first.counter
                    let oldEnd = oldStart + UInt32(renaming.old.count)
                    if oldStart <= counter && counter < oldEnd {
                        pieceEnd = min(end, oldEnd)
                        renamedFirst = OperationID(replica: renaming.newFirst.replica, counter: renaming.newFirst.counter + (counter - oldStart))
                        break
                    }
                    if oldStart > counter { pieceEnd = min(pieceEnd, oldStart) }
                }
                let first = renamedFirst ?? OperationID(replica: run.first.replica, counter: counter)
                let count = Int(pieceEnd - counter)
                if let last = result.last, last.first.replica == first.replica, last.first.counter + UInt32(last.count) == first.counter {
                    result[result.count - 1].count += count
                } else {
                    result.append(Run(first: first, count: count))
                }
                counter = pieceEnd
            }
        }
        inserted = result
    }
}

extension UndoHistory {
    /// Renames characters in every step kept (see ``UndoStep/rename(_:)``).
    mutating func rename(_ renamings: [UndoStep.Renaming]) {
        guard !renamings.isEmpty else { return }
        for index in undo.indices { undo[index].rename(renamings) }
        for index in redo.indices { redo[index].rename(renamings) }
    }
}

extension Notebook {
    /// Whether ``undo(_:wallMilliseconds:)`` has something to undo in the memo.
    public func canUndo(_ id: MemoID) -> Bool { !(undoHistories[id]?.undo.isEmpty ?? true) }

    /// Whether ``redo(_:wallMilliseconds:)`` has something to redo in the memo.
    public func canRedo(_ id: MemoID) -> Bool { !(undoHistories[id]?.redo.isEmpty ?? true) }

    /// Ends the current undo step of every memo: the next local edit starts a new step, even
    /// one that would otherwise coalesce into the last (typing on at the caret, held backspace
    /// or forward delete, within 2 seconds). An editor calls it when the user moves the caret
    /// or the selection, or at any point it wants undo to stop at, as `UndoManager`'s
    /// `endUndoGrouping()` does. Changes nothing else: no operation, no event, nothing to save.
    ///
    /// - Complexity: O(1).
    public mutating func endUndoGrouping() {
        undoGroup &+= 1
    }

    /// Undoes this replica's latest edit step in the memo, leaving everyone else's edits alone.
    ///
    /// - Throws: ``NotebookError/nothingToUndo(_:)``, ``NotebookError/memoNotFound(_:)``,
    ///   ``NotebookError/memoInTrash(_:)``.
    public mutating func undo(_ id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) {
        guard var history = undoHistories[id], let step = history.undo.popLast() else { throw .nothingToUndo(id) }
        let (inverse, renamings) = try invert(step, in: id, wallMilliseconds: now)
        history.rename(renamings)
        history.redo.append(inverse)
        undoHistories[id] = history
    }

    /// Redoes the step last undone in the memo.
    ///
    /// - Throws: as ``undo(_:wallMilliseconds:)``.
    public mutating func redo(_ id: MemoID, wallMilliseconds now: UInt64) throws(NotebookError) {
        guard var history = undoHistories[id], let step = history.redo.popLast() else { throw .nothingToUndo(id) }
        let (inverse, renamings) = try invert(step, in: id, wallMilliseconds: now)
        history.rename(renamings)
        history.undo.append(inverse)
        undoHistories[id] = history
    }

    /// Records a local edit step, coalescing typing and held backspace; clears redo. The history
    /// is changed in place (no copy of its steps per keystroke).
    mutating func recordUndo(_ step: UndoStep, in id: MemoID) {
        undoHistories[id, default: UndoHistory()].record(step, group: undoGroup)
    }

    /// Performs the inverse of `step` as new local edits and returns the step that inverts it
    /// back (for redo, or undo after redo) and the characters renamed by putting text back.
    private mutating func invert(
        _ step: UndoStep, in id: MemoID, wallMilliseconds now: UInt64
    ) throws(NotebookError) -> (inverse: UndoStep, renamings: [UndoStep.Renaming]) {
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
                removed.append(UndoStep.Piece(characters: [UndoStep.Run(first: id, count: count)], text: String(view)))
                counter += UInt32(count)
            }
        }
        var reinserted: [UndoStep.Run] = []
        var renamings: [UndoStep.Renaming] = []
        let localReplica = replica
        try mutateText(id, wallMilliseconds: now) { text, reported throws(TextError) in
            for run in step.inserted {
                reported += try text.deleteCharacters(first: run.first, count: run.count)
            }
            // Put each stretch of a deleted piece back right before its own first (deleted)
            // character, after everything that was before it: a piece's characters need not
            // sit next to each other in the sequence (characters inserted and deleted between
            // them stay between them, where a later undo puts them back).
            for piece in step.deleted {
                var scalars = piece.text.unicodeScalars[...]
                var stretches: [UndoStep.Run] = []
                for run in piece.characters {
                    var counter = run.first.counter
                    for length in try text.sequenceStretchLengths(first: run.first, count: run.count) {
                        stretches.append(UndoStep.Run(first: OperationID(replica: run.first.replica, counter: counter), count: length))
                        counter += UInt32(length)
                    }
                }
                for old in stretches {
                    let end = scalars.index(scalars.startIndex, offsetBy: old.count, limitedBy: scalars.endIndex) ?? scalars.endIndex
                    let part = String(String.UnicodeScalarView(scalars[..<end]))
                    scalars = scalars[end...]
                    guard !part.isEmpty else { continue }
                    let first = OperationID(replica: localReplica, counter: text.version[localReplica])
                    let lower = try text.utf16Offset(fromScalar: text.visibleScalarsBefore(character: old.first))
                    try text.insert(part, beforeCharacter: old.first)
                    reported.append(TextEdit(rangeUTF16: lower..<lower, replacement: part))
                    reinserted.append(UndoStep.Run(first: first, count: old.count))
                    renamings.append(UndoStep.Renaming(old: old, newFirst: first))
                }
            }
        }
        return (UndoStep(inserted: reinserted, deleted: removed, wallMilliseconds: now, startScalars: 0, endScalars: 0), renamings)
    }
}
