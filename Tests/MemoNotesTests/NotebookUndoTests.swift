import MemoCRDT
import MemoNotes
import Testing

/// Undo steps of local edits: how keystrokes coalesce, and what undo and redo give back.
@Suite struct NotebookUndoTests {
    private let memo = MemoID(high: 3, low: 1)

    private func notebook(_ text: String) throws -> Notebook {
        var notebook = Notebook(replica: ReplicaID(0xA))
        try notebook.createMemo(memo, text: text, wallMilliseconds: 1_000)
        return notebook
    }

    private func text(_ notebook: Notebook) -> String? { notebook.memo(memo)?.text }

    /// Types `string` one scalar at a time from scalar `start`, `gap` milliseconds apart, by
    /// scalar offsets or by UTF-16 offsets.
    private func type(_ string: String, at start: Int, into notebook: inout Notebook, from wall: UInt64, gap: UInt64, utf16: Bool) throws {
        var position = start
        var unitPosition = notebook.memo(memo)!.text.unicodeScalars.prefix(start).reduce(0) { $0 + $1.utf16.count }
        for (index, scalar) in string.unicodeScalars.enumerated() {
            let now = wall + UInt64(index) * gap
            if utf16 {
                try notebook.edit(memo, replacingUTF16: unitPosition..<unitPosition, with: String(scalar), wallMilliseconds: now)
            } else {
                try notebook.edit(memo, replacingScalars: position..<position, with: String(scalar), wallMilliseconds: now)
            }
            position += 1
            unitPosition += scalar.utf16.count
        }
    }

    @Test(arguments: [false, true]) func typingOnIsOneStep(utf16: Bool) throws {
        var notebook = try notebook("Title\n")
        try type("hé𝄞llo", at: 6, into: &notebook, from: 2_000, gap: 100, utf16: utf16)
        #expect(text(notebook) == "Title\nhé𝄞llo")
        try notebook.undo(memo, wallMilliseconds: 3_000)
        #expect(text(notebook) == "Title\n")
        #expect(!notebook.canUndo(memo) && notebook.canRedo(memo))
        try notebook.redo(memo, wallMilliseconds: 3_100)
        #expect(text(notebook) == "Title\nhé𝄞llo")
        try notebook.checkInvariants()
    }

    @Test func aPauseOrAJumpStartsANewStep() throws {
        var notebook = try notebook("")
        try type("ab", at: 0, into: &notebook, from: 2_000, gap: 100, utf16: false)
        // A pause longer than the coalescing window.
        try type("cd", at: 2, into: &notebook, from: 10_000, gap: 100, utf16: false)
        // Typing elsewhere, at once.
        try type("XY", at: 0, into: &notebook, from: 10_200, gap: 100, utf16: true)
        #expect(text(notebook) == "XYabcd")
        try notebook.undo(memo, wallMilliseconds: 11_000)
        #expect(text(notebook) == "abcd")
        try notebook.undo(memo, wallMilliseconds: 11_100)
        #expect(text(notebook) == "ab")
        try notebook.undo(memo, wallMilliseconds: 11_200)
        #expect(text(notebook) == "")
        #expect(!notebook.canUndo(memo))
    }

    /// Issue 29: an app ends the grouping (a caret move, `endUndoGrouping()`): typing on and
    /// held backspace within the 2 s window then undo in two steps; without it, in one.
    @Test(arguments: [false, true]) func endingTheGroupingStartsANewStep(ended: Bool) throws {
        var notebook = try notebook("")
        try type("ab", at: 0, into: &notebook, from: 2_000, gap: 100, utf16: false)
        if ended { notebook.endUndoGrouping() }
        try type("cd", at: 2, into: &notebook, from: 2_200, gap: 100, utf16: true)
        #expect(text(notebook) == "abcd")
        try notebook.undo(memo, wallMilliseconds: 2_400)
        #expect(text(notebook) == (ended ? "ab" : ""))
        if ended {
            try notebook.undo(memo, wallMilliseconds: 2_500)
            #expect(text(notebook) == "")
        }
        #expect(!notebook.canUndo(memo))

        // Held backspace: "wxyz", then z and y deleted, then (after the grouping ended) x.
        notebook = try self.notebook("wxyz")
        try notebook.edit(memo, replacingScalars: 3..<4, with: "", wallMilliseconds: 5_000)
        try notebook.edit(memo, replacingScalars: 2..<3, with: "", wallMilliseconds: 5_100)
        if ended { notebook.endUndoGrouping() }
        try notebook.edit(memo, replacingScalars: 1..<2, with: "", wallMilliseconds: 5_200)
        #expect(text(notebook) == "w")
        try notebook.undo(memo, wallMilliseconds: 5_300)
        #expect(text(notebook) == (ended ? "wx" : "wxyz"))
        if ended {
            try notebook.undo(memo, wallMilliseconds: 5_400)
            #expect(text(notebook) == "wxyz")
        }
        #expect(!notebook.canUndo(memo))
        try notebook.checkInvariants()
    }

    @Test func undoingDeletionsPutsTheTextBack() throws {
        var notebook = try notebook("")
        try type("abcdef", at: 0, into: &notebook, from: 2_000, gap: 50, utf16: false)
        // Deletions far enough apart in time to be steps of their own.
        try notebook.edit(memo, replacingScalars: 4..<6, with: "", wallMilliseconds: 5_000)
        try notebook.edit(memo, replacingUTF16: 0..<1, with: "", wallMilliseconds: 8_000)
        #expect(text(notebook) == "bcd")
        try notebook.undo(memo, wallMilliseconds: 11_000)
        #expect(text(notebook) == "abcd")
        try notebook.undo(memo, wallMilliseconds: 11_100)
        #expect(text(notebook) == "abcdef")
        // Text put back is new characters, renamed in the history: undoing the typing removes it too.
        try notebook.undo(memo, wallMilliseconds: 11_200)
        #expect(text(notebook) == "")
        try notebook.checkInvariants()
    }

    @Test func aNewEditClearsRedo() throws {
        var notebook = try notebook("")
        try type("ab", at: 0, into: &notebook, from: 2_000, gap: 100, utf16: false)
        try notebook.undo(memo, wallMilliseconds: 3_000)
        #expect(notebook.canRedo(memo))
        try notebook.edit(memo, replacingScalars: 0..<0, with: "z", wallMilliseconds: 3_100)
        #expect(!notebook.canRedo(memo))
        // A replacement (deleting and inserting) is a step of its own.
        try notebook.edit(memo, replacingScalars: 0..<1, with: "yy", wallMilliseconds: 3_200)
        #expect(text(notebook) == "yy")
        try notebook.undo(memo, wallMilliseconds: 3_300)
        #expect(text(notebook) == "z")
    }

    @Test func invalidEditsChangeNothing() throws {
        var notebook = try notebook("a𝄞b")
        let before = notebook.encoded()
        #expect(throws: NotebookError.self) { try notebook.edit(memo, replacingUTF16: 2..<2, with: "x", wallMilliseconds: 2_000) }
        #expect(throws: NotebookError.self) { try notebook.edit(memo, replacingUTF16: 0..<9, with: "x", wallMilliseconds: 2_000) }
        #expect(throws: NotebookError.self) { try notebook.edit(memo, replacingScalars: 2..<4, with: "x", wallMilliseconds: 2_000) }
        #expect(throws: NotebookError.self) {
            try notebook.edit(MemoID(high: 9, low: 9), replacingScalars: 0..<0, with: "x", wallMilliseconds: 2_000)
        }
        try notebook.edit(memo, replacingScalars: 1..<1, with: "", wallMilliseconds: 2_000)
        #expect(notebook.encoded() == before)
        #expect(text(notebook) == "a𝄞b")
        try notebook.checkInvariants()
    }
}
