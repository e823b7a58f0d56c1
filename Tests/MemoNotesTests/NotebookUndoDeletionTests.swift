import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// Held backspace and held forward delete: each is one undo step, and undoing it puts the text
/// back as it was, in order.
@Suite struct NotebookUndoDeletionTests {
    private let memo = MemoID(high: 3, low: 2)

    private func notebook(_ text: String) throws -> Notebook {
        var notebook = Notebook(replica: ReplicaID(0xB))
        try notebook.createMemo(memo, text: text, wallMilliseconds: 1_000)
        return notebook
    }

    private func text(_ notebook: Notebook) -> String? { notebook.memo(memo)?.text }

    @Test func heldForwardDeleteIsOneStepInOrder() throws {
        var notebook = try notebook("abcdef")
        for index in 0..<3 {
            try notebook.edit(memo, replacingScalars: 1..<2, with: "", wallMilliseconds: 5_000 + UInt64(index) * 100)
        }
        #expect(text(notebook) == "aef")
        try notebook.undo(memo, wallMilliseconds: 6_000)
        #expect(text(notebook) == "abcdef")
        #expect(!notebook.canUndo(memo) || text(notebook) == "abcdef")
        try notebook.redo(memo, wallMilliseconds: 6_100)
        #expect(text(notebook) == "aef")
        try notebook.checkInvariants()
    }

    @Test func heldForwardDeleteAtTheStart() throws {
        var notebook = try notebook("abc")
        try notebook.edit(memo, replacingScalars: 0..<1, with: "", wallMilliseconds: 5_000)
        try notebook.edit(memo, replacingScalars: 0..<1, with: "", wallMilliseconds: 5_100)
        #expect(text(notebook) == "c")
        try notebook.undo(memo, wallMilliseconds: 6_000)
        #expect(text(notebook) == "abc")
        try notebook.checkInvariants()
    }

    @Test func heldBackspaceIsOneStepInOrder() throws {
        var notebook = try notebook("abcdef")
        for (index, position) in [4, 3, 2].enumerated() {
            try notebook.edit(memo, replacingScalars: position..<position + 1, with: "", wallMilliseconds: 5_000 + UInt64(index) * 100)
        }
        #expect(text(notebook) == "abf")
        try notebook.undo(memo, wallMilliseconds: 6_000)
        #expect(text(notebook) == "abcdef")
        try notebook.redo(memo, wallMilliseconds: 6_100)
        #expect(text(notebook) == "abf")
        try notebook.undo(memo, wallMilliseconds: 6_200)
        #expect(text(notebook) == "abcdef")
        try notebook.checkInvariants()
    }

    @Test func backspaceThenForwardDeleteStaySeparateWhenNotAdjacent() throws {
        var notebook = try notebook("abcdef")
        try notebook.edit(memo, replacingScalars: 4..<5, with: "", wallMilliseconds: 5_000)
        try notebook.edit(memo, replacingScalars: 0..<1, with: "", wallMilliseconds: 5_100)
        #expect(text(notebook) == "bcdf")
        try notebook.undo(memo, wallMilliseconds: 6_000)
        #expect(text(notebook) == "abcdf")
        try notebook.undo(memo, wallMilliseconds: 6_100)
        #expect(text(notebook) == "abcdef")
        try notebook.checkInvariants()
    }
}
