import MemoCRDT
import MemoNotes
import Testing

/// Issue 29: moving a memo to the trash, and restoring it, is undoable (`undoTrash`,
/// `redoTrash`): newest first, only this replica's own moves, stale steps skipped, a purge never
/// undone; the undo is an ordinary restore or trash, and replicates.
@Suite struct NotebookTrashUndoTests {
    private let first = MemoID(high: 5, low: 1)
    private let second = MemoID(high: 5, low: 2)

    private func notebook() throws -> Notebook {
        var notebook = Notebook(replica: ReplicaID(0xA))
        try notebook.createMemo(first, text: "First\none", wallMilliseconds: 1_000)
        try notebook.createMemo(second, text: "Second\ntwo", wallMilliseconds: 1_100)
        _ = notebook.takeEvents()
        return notebook
    }

    @Test func undoingAMoveToTheTrashBringsTheMemoBack() throws {
        var notebook = try notebook()
        #expect(!notebook.canUndoTrash && !notebook.canRedoTrash)
        #expect(notebook.undoTrash(wallMilliseconds: 1_500) == nil)   // nothing to undo: no change
        #expect(notebook.takeEvents().isEmpty)
        try notebook.moveToTrash(first, wallMilliseconds: 2_000)
        #expect(notebook.canUndoTrash && !notebook.canRedoTrash)
        _ = notebook.takeEvents()

        #expect(notebook.undoTrash(wallMilliseconds: 2_100) == first)
        #expect(notebook.status(of: first) == .active)
        #expect(notebook.list().map(\.id).contains(first))
        #expect(notebook.trash().isEmpty)
        #expect(notebook.memo(first)?.text == "First\none")
        #expect(notebook.takeEvents() == [.restored(first, origin: .local)])
        #expect(!notebook.canUndoTrash && notebook.canRedoTrash)

        #expect(notebook.redoTrash(wallMilliseconds: 2_200) == first)
        #expect(notebook.status(of: first) == .trashed)
        #expect(notebook.takeEvents() == [.trashed(first, origin: .local)])
        #expect(notebook.canUndoTrash && !notebook.canRedoTrash)
        #expect(notebook.redoTrash(wallMilliseconds: 2_300) == nil)
        try notebook.checkInvariants()
    }

    @Test func stepsAreUndoneNewestFirstRestoresToo() throws {
        var notebook = try notebook()
        try notebook.moveToTrash(first, wallMilliseconds: 2_000)
        try notebook.moveToTrash(second, wallMilliseconds: 2_100)
        try notebook.restore(first, wallMilliseconds: 2_200)
        // Undoing the restore puts the memo back in the trash.
        #expect(notebook.undoTrash(wallMilliseconds: 3_000) == first)
        #expect(notebook.status(of: first) == .trashed)
        #expect(notebook.undoTrash(wallMilliseconds: 3_100) == second)
        #expect(notebook.status(of: second) == .active)
        #expect(notebook.undoTrash(wallMilliseconds: 3_200) == first)
        #expect(notebook.status(of: first) == .active)
        #expect(notebook.undoTrash(wallMilliseconds: 3_300) == nil)
        #expect(!notebook.canUndoTrash)
        // Redo goes forward again in the same order.
        #expect(notebook.redoTrash(wallMilliseconds: 3_400) == first)
        #expect(notebook.redoTrash(wallMilliseconds: 3_500) == second)
        #expect(notebook.redoTrash(wallMilliseconds: 3_600) == first)
        #expect(notebook.status(of: first) == .active && notebook.status(of: second) == .trashed)
        try notebook.checkInvariants()
    }

    @Test func aNewMoveClearsRedo() throws {
        var notebook = try notebook()
        try notebook.moveToTrash(first, wallMilliseconds: 2_000)
        notebook.undoTrash(wallMilliseconds: 2_100)
        #expect(notebook.canRedoTrash)
        try notebook.moveToTrash(second, wallMilliseconds: 2_200)
        #expect(!notebook.canRedoTrash)
        #expect(notebook.redoTrash(wallMilliseconds: 2_300) == nil)
        #expect(notebook.status(of: first) == .active)
    }

    /// A step whose memo changed since (here restored by another replica) is skipped and
    /// forgotten; the undo reaches the other replica like any restore.
    @Test func staleStepsAreSkippedAndTheUndoReplicates() throws {
        var notebook = try notebook()
        var other = notebook.fork(replica: ReplicaID(0xB))
        try notebook.moveToTrash(first, wallMilliseconds: 2_000)
        try notebook.moveToTrash(second, wallMilliseconds: 2_100)
        try other.apply(notebook.changes(since: other.version))
        try other.restore(second, wallMilliseconds: 2_200)
        #expect(other.canUndoTrash)   // a fork starts with no history; its own restore is one step
        try notebook.apply(other.changes(since: notebook.version))
        #expect(notebook.status(of: second) == .active)
        _ = notebook.takeEvents()

        #expect(notebook.canUndoTrash)
        #expect(notebook.undoTrash(wallMilliseconds: 3_000) == first)   // the second's step is stale
        #expect(notebook.takeEvents() == [.restored(first, origin: .local)])
        #expect(!notebook.canUndoTrash)
        #expect(notebook.undoTrash(wallMilliseconds: 3_100) == nil)
        #expect(notebook.status(of: second) == .active)

        try other.apply(notebook.changes(since: other.version))
        #expect(other.status(of: first) == .active)
        #expect(other.list().map(\.id) == notebook.list().map(\.id))
        try notebook.checkInvariants()
        try other.checkInvariants()
    }

    @Test func aPurgeIsNeverUndone() throws {
        var notebook = try notebook()
        try notebook.moveToTrash(first, wallMilliseconds: 2_000)
        try notebook.purge(first, wallMilliseconds: 2_100)
        #expect(!notebook.canUndoTrash)
        #expect(notebook.undoTrash(wallMilliseconds: 2_200) == nil)
        #expect(notebook.status(of: first) == .purged)
    }

    /// The memo's text history is its own: undoing the trash leaves it, and the text undo then
    /// undoes the edit made before the trash.
    @Test func theTextHistoryIsSeparate() throws {
        var notebook = try notebook()
        try notebook.edit(first, replacingUTF16: 9..<9, with: "!", wallMilliseconds: 2_000)
        try notebook.moveToTrash(first, wallMilliseconds: 2_100)
        #expect(notebook.undoTrash(wallMilliseconds: 2_200) == first)
        #expect(notebook.canUndo(first))
        try notebook.undo(first, wallMilliseconds: 2_300)
        #expect(notebook.memo(first)?.text == "First\none")
        #expect(!notebook.canUndoTrash)
    }

    /// The history keeps the newest 100 steps.
    @Test func theHistoryIsBounded() throws {
        var notebook = try notebook()
        for step in 0..<101 {
            let now = 2_000 + UInt64(step) * 10
            if step.isMultiple(of: 2) {
                try notebook.moveToTrash(first, wallMilliseconds: now)
            } else {
                try notebook.restore(first, wallMilliseconds: now)
            }
        }
        var undone = 0
        while notebook.undoTrash(wallMilliseconds: 5_000 + UInt64(undone)) != nil { undone += 1 }
        #expect(undone == 100)
        // The oldest step (the first move to the trash) was forgotten: the memo stays trashed.
        #expect(notebook.status(of: first) == .trashed)
    }
}
