import MemoCRDT
// Undo and redo of this replica's own moves to the trash and restores, one notebook-wide
// history (a memo's text history is per memo, `Notebook+Undo.swift`): Cmd-Z after deleting a
// memo to the trash brings it back. Not replicated, not encoded, like the text histories.

/// A move to the trash or a restore made on this replica.
@usableFromInline
struct TrashUndoStep: Sendable, Equatable {
    var memo: MemoID
    /// Whether the step moved the memo to the trash (else it restored it).
    var trashed: Bool
}

@usableFromInline
struct TrashUndoHistory: Sendable {
    var undo: [TrashUndoStep] = []
    var redo: [TrashUndoStep] = []
    /// Steps kept; older ones are forgotten.
    static let stepsMax = 100

    /// Appends a step the user made; clears redo.
    mutating func record(_ step: TrashUndoStep) {
        redo.removeAll()
        undo.append(step)
        if undo.count > Self.stepsMax { undo.removeFirst(undo.count - Self.stepsMax) }
    }

    /// Forgets every step of `memo` (purged: nothing of it can be undone).
    mutating func forget(_ memo: MemoID) {
        undo.removeAll { $0.memo == memo }
        redo.removeAll { $0.memo == memo }
    }
}

extension Notebook {
    /// Whether ``undoTrash(wallMilliseconds:)`` has a step to undo: a move to the trash or a
    /// restore made on this replica whose memo is still as that step left it.
    ///
    /// - Complexity: O(s) for s steps kept (at most 100).
    public var canUndoTrash: Bool {
        trashUndo.undo.contains { status(of: $0.memo) == ($0.trashed ? .trashed : .active) }
    }

    /// Whether ``redoTrash(wallMilliseconds:)`` has a step to redo.
    ///
    /// - Complexity: O(s) for s steps kept (at most 100).
    public var canRedoTrash: Bool {
        trashUndo.redo.contains { status(of: $0.memo) == ($0.trashed ? .active : .trashed) }
    }

    /// Undoes this replica's latest move to the trash or restore: a memo it moved to the trash
    /// is restored, a memo it restored goes back to the trash. Returns the memo, or nil when
    /// there is nothing to undo (nothing changes).
    ///
    /// One history for the whole notebook, apart from each memo's text history
    /// (``undo(_:wallMilliseconds:)``): an app routes Undo here when the memo list has the
    /// focus (or when the last thing the user did was deleting a memo), to the memo's text
    /// undo in its editor. Only this replica's own moves are undone, newest first; a step whose
    /// memo is no longer as the step left it (restored or trashed since, by this replica or
    /// by a sync, or purged) is skipped and forgotten. A purge is never undone, and forgets the
    /// memo's steps. Emits `.restored` or `.trashed` with origin `.local`, as
    /// ``restore(_:wallMilliseconds:)`` and ``moveToTrash(_:wallMilliseconds:)`` do, and like
    /// them replicates.
    ///
    /// - Complexity: O(s) for s steps kept, plus the trash or restore.
    @discardableResult
    public mutating func undoTrash(wallMilliseconds now: UInt64) -> MemoID? {
        while let step = trashUndo.undo.popLast() {
            guard status(of: step.memo) == (step.trashed ? .trashed : .active) else { continue }
            setTrashed(step.memo, !step.trashed, wallMilliseconds: now)
            trashUndo.redo.append(step)
            return step.memo
        }
        return nil
    }

    /// Redoes the move to the trash or restore last undone by ``undoTrash(wallMilliseconds:)``.
    /// Returns the memo, or nil when there is nothing to redo (nothing changes). A new move to
    /// the trash or restore clears what there was to redo.
    ///
    /// - Complexity: O(s) for s steps kept, plus the trash or restore.
    @discardableResult
    public mutating func redoTrash(wallMilliseconds now: UInt64) -> MemoID? {
        while let step = trashUndo.redo.popLast() {
            guard status(of: step.memo) == (step.trashed ? .active : .trashed) else { continue }
            setTrashed(step.memo, step.trashed, wallMilliseconds: now)
            trashUndo.undo.append(step)
            return step.memo
        }
        return nil
    }
}
