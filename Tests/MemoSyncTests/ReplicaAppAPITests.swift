import Foundation
import MemoCRDT
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Issue 29 (for app builders): undo grouping an app ends, what `purge` accepts, and the events
/// of `createMemo(text:)`.
@Suite struct ReplicaAppAPITests {
    private let environment = TestEnvironment(seed: 29)

    private func makeReplica() throws -> Replica {
        try Replica(disk: MemoryDisk(), environment: environment.environment)
    }

    /// Types `string` at UTF-16 offset `start`, one character every 100 ms (within the 2 s window).
    private func type(_ string: String, at start: Int, into memo: MemoID, of replica: Replica) throws {
        for (index, character) in string.enumerated() {
            environment.advance(milliseconds: 100)
            try replica.edit(memo, replacingUTF16: (start + index)..<(start + index), with: String(character))
        }
    }

    /// Two bursts of typing within the coalescing window undo separately when the app ended the
    /// grouping between them (a caret move), and together without it.
    @Test(arguments: [false, true]) func endingTheGroupingSplitsUndo(ended: Bool) throws {
        let replica = try makeReplica()
        let memo = try replica.createMemo(text: "")
        try type("ab", at: 0, into: memo, of: replica)
        if ended { replica.endUndoGrouping() }
        try type("cd", at: 2, into: memo, of: replica)
        #expect(replica.takeEvents().count == 5)   // added, then one change per character: grouping adds none
        environment.advance(milliseconds: 100)
        try replica.undo(memo)
        #expect(replica.notebook.memo(memo)?.text == (ended ? "ab" : ""))
        #expect(replica.notebook.canUndo(memo) == ended)
        if ended {
            try replica.undo(memo)
            #expect(replica.notebook.memo(memo)?.text == "")
        }
        #expect(throws: ReplicaError.notebook(.nothingToUndo(memo))) { try replica.undo(memo) }
    }

    /// `setText(_:to:)` is "not an undo step (it clears redo): an undo after it undoes the edit
    /// before it, as it applies now". Typing, then the whole text set: undo takes out what was
    /// typed, keeping what setText added; nothing more to undo; redo types it again. And a
    /// setText after an undo leaves nothing to redo.
    @Test func setTextIsNotAnUndoStepAndClearsRedo() throws {
        let replica = try makeReplica()
        let memo = try replica.createMemo(text: "Hello world")
        try type(" big", at: 5, into: memo, of: replica)
        #expect(replica.notebook.memo(memo)?.text == "Hello big world")
        environment.advance(milliseconds: 100)
        try replica.setText(memo, to: "Hello big world!!")
        #expect(replica.notebook.canUndo(memo))
        environment.advance(milliseconds: 100)
        try replica.undo(memo)
        #expect(replica.notebook.memo(memo)?.text == "Hello world!!", "the typing undone, against the text as it is now")
        #expect(!replica.notebook.canUndo(memo), "setText added no step")
        #expect(throws: ReplicaError.notebook(.nothingToUndo(memo))) { try replica.undo(memo) }
        #expect(replica.notebook.canRedo(memo))
        try replica.redo(memo)
        #expect(replica.notebook.memo(memo)?.text == "Hello big world!!")
        // Undone again, then the text set: the undone typing cannot be redone any more.
        try replica.undo(memo)
        #expect(replica.notebook.canRedo(memo))
        try replica.setText(memo, to: "Goodbye world!!")
        #expect(!replica.notebook.canRedo(memo), "setText clears redo")
        #expect(throws: ReplicaError.notebook(.nothingToUndo(memo))) { try replica.redo(memo) }
        #expect(replica.notebook.memo(memo)?.text == "Goodbye world!!")
    }

    /// `edit(_:replacingUTF16:ifVersionIs:)` (issue 26: `memo serve` works a page's edit out
    /// against the notebook it read, while syncs merge outside its gate) applies only on the
    /// version read: after a merge it changes nothing and says so; on the version now it applies
    /// every replacement in order; when one throws, none is applied.
    @Test func editIfVersionIsAppliesOnlyOnTheVersionRead() async throws {
        let store = InMemoryBlobStore()
        let typist = try makeReplica()
        let other = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 2629).environment)
        let memo = try typist.createMemo(text: "abc")
        _ = try await syncUntilQuiet([typist, other], store: store)
        let read = typist.notebook.version
        // Another device's edit merged by a sync after the read.
        try other.edit(memo, replacingUTF16: 0..<0, with: ">")
        _ = try await syncUntilQuiet([other, typist], store: store)
        #expect(typist.notebook.memo(memo)?.text == ">abc")
        _ = typist.takeEvents()
        #expect(try typist.edit(memo, replacingUTF16: [(range: 3..<3, text: "X")], ifVersionIs: read) == false)
        #expect(typist.notebook.memo(memo)?.text == ">abc")
        #expect(typist.takeEvents().isEmpty)
        // Read again: applied, replacements one after the other.
        let now = typist.notebook.version
        #expect(try typist.edit(memo, replacingUTF16: [(range: 4..<4, text: "X"), (range: 0..<1, text: "")], ifVersionIs: now))
        #expect(typist.notebook.memo(memo)?.text == "abcX")
        // All or nothing: the second range is past the end.
        let before = typist.notebook.version
        #expect(throws: ReplicaError.self) {
            try typist.edit(memo, replacingUTF16: [(range: 0..<0, text: "Y"), (range: 9..<9, text: "Z")], ifVersionIs: before)
        }
        #expect(typist.notebook.memo(memo)?.text == "abcX")
        #expect(typist.notebook.version == before)
    }

    /// `purge` deletes a memo in the trash for good and refuses an active one: nothing changes
    /// (no operation, no event, the text as saved), whatever the memo held.
    @Test func purgeRefusesAnActiveMemoAndPurgesATrashedOne() async throws {
        let replica = try makeReplica()
        let memo = try replica.createMemo(text: "keep me\nsaved")
        try await replica.save()
        _ = replica.takeEvents()
        let version = replica.notebook.version
        #expect(throws: ReplicaError.notebook(.memoNotInTrash(memo))) { try replica.purge(memo) }
        #expect(replica.notebook.memo(memo)?.text == "keep me\nsaved")
        #expect(replica.notebook.status(of: memo) == .active)
        #expect(replica.notebook.version == version && replica.unsavedOperationCount == 0)
        #expect(replica.takeEvents().isEmpty)
        #expect(ReplicaError.notebook(.memoNotInTrash(memo)).localizedDescription.contains("not in the trash"))

        try replica.moveToTrash(memo)
        try replica.purge(memo)
        #expect(replica.notebook.status(of: memo) == .purged)
        #expect(replica.takeEvents() == [
            .trashed(memo, origin: .local), .changed(memo, edits: [TextEdit(rangeUTF16: 0..<13, replacement: "")], origin: .local),
            .purged(memo, origin: .local),
        ])
        #expect(throws: ReplicaError.notebook(.memoNotFound(memo))) { try replica.purge(memo) }
        let unknown = MemoID(high: 1, low: 2)
        #expect(throws: ReplicaError.notebook(.memoNotFound(unknown))) { try replica.purge(unknown) }
    }

    /// `createMemo(text:)` reports the memo added, empty, then its text as one edit (as the
    /// documentation says), so an app applying edits to a copy never misses the first text; an
    /// empty memo is one event. Neither is an undo step.
    @Test func createMemoReportsTheMemoThenItsTextAsOneEdit() throws {
        let replica = try makeReplica()
        let memo = try replica.createMemo(text: "Groceries\nmilk 🥛")
        #expect(replica.takeEvents() == [
            .added(memo, origin: .local),
            .changed(memo, edits: [TextEdit(rangeUTF16: 0..<0, replacement: "Groceries\nmilk 🥛")], origin: .local),
        ])
        #expect(!replica.notebook.canUndo(memo))
        let empty = try replica.createMemo()
        #expect(replica.takeEvents() == [.added(empty, origin: .local)])
    }
}
