import MemoCRDT
import TestSupport
import Testing

@testable import MemoNotes

/// The text of operations held back (`Notebook.heldBackTexts`): what a library shows the user
/// when damage took operations that later ones build on, and nothing will bring them back.
@Suite struct NotebookHeldBackTextTests {
    /// A replica's changes in steps; another replica receives every step but one: everything
    /// after the missing step waits, and its text is what `heldBackTexts` reads out, memo by
    /// memo, in the order typed, without what was deleted. Once the missing step arrives,
    /// nothing is held back and every text shows.
    @Test func theTextOfEveryOperationAfterAGapIsReadOut() throws {
        var writer = Notebook(replica: ReplicaID(0xA1))
        var steps: [NotebookDelta] = []
        var version = VersionVector()
        func step() throws {
            steps.append(try writer.changes(since: version))
            version = writer.version
        }
        let first = MemoID(high: 1, low: 1)
        let second = MemoID(high: 2, low: 2)
        let third = MemoID(high: 3, low: 3)
        try writer.createMemo(first, text: "first memo", wallMilliseconds: 10)
        try step()
        try writer.createMemo(second, text: "second", wallMilliseconds: 20)
        try step()  // the step the receiver never gets
        try writer.edit(second, replacingScalars: 6..<6, with: " more", wallMilliseconds: 30)
        try writer.edit(first, replacingScalars: 0..<0, with: "한국어 ", wallMilliseconds: 31)
        try step()
        try writer.createMemo(third, text: "third, typed later", wallMilliseconds: 40)
        try writer.edit(third, replacingScalars: 5..<18, with: "", wallMilliseconds: 41)
        try writer.edit(third, replacingScalars: 5..<5, with: "!", wallMilliseconds: 42)
        try writer.moveToTrash(first, wallMilliseconds: 43)
        try step()

        var reader = Notebook(replica: ReplicaID(0xB2))
        for (index, delta) in steps.enumerated() where index != 1 { try reader.apply(delta) }
        #expect(reader.memo(first)?.text == "first memo")
        #expect(reader.memo(second) == nil && reader.memo(third) == nil)
        #expect(reader.pendingOperationCount > 0)

        let held = reader.heldBackTexts
        #expect(held.map(\.memo) == [first, second, third])
        #expect(held.map(\.text) == ["한국어 ", " more", "third!"])
        #expect(held.reduce(0) { $0 + $1.operationCount } == reader.pendingOperationCount)
        // Reading changes nothing.
        let before = reader.encoded()
        _ = reader.heldBackTexts
        #expect(reader.encoded() == before)

        try reader.apply(steps[1])
        #expect(reader.heldBackTexts.isEmpty && reader.pendingOperationCount == 0)
        #expect(reader.memo(second)?.text == "second more")
        #expect(reader.memo(third)?.text == "third!")
        #expect(reader.memo(first)?.text == "한국어 first memo" && reader.memo(first)?.status == .trashed)
    }

    /// Insertions at different places are on lines of their own; an operation held back twice
    /// (two records carrying it) counts once.
    @Test func separatePlacesGoOnTheirOwnLinesAndCopiesCountOnce() throws {
        var writer = Notebook(replica: ReplicaID(0xA3))
        let memo = MemoID(high: 9, low: 9)
        try writer.createMemo(memo, text: "abc", wallMilliseconds: 1)
        let created = writer.version
        try writer.edit(memo, replacingScalars: 0..<0, with: "start ", wallMilliseconds: 2)
        try writer.edit(memo, replacingScalars: 9..<9, with: " end", wallMilliseconds: 3)
        let edits = try writer.changes(since: created)

        var reader = Notebook(replica: ReplicaID(0xB4))
        // The edits arrive twice (two records of the same operations), the creation not at all.
        try reader.apply(edits)
        let once = reader.heldBackTexts
        #expect(once == [HeldBackText(memo: memo, text: "start \n end", operationCount: 10)])
        try reader.apply(edits)
        #expect(reader.heldBackTexts == once)
    }
}
