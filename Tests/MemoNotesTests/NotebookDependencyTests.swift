import MemoCRDT
import Testing

@testable import MemoNotes

/// `Notebook.builds(on:beyond:)`: whether operations about to be published build on an
/// operation the notebook holds that a reader cannot get elsewhere (the check a sync makes
/// before writing a segment; Simulations/README.md, "Seed 3093").
@Suite struct NotebookDependencyTests {
    static let memo = MemoID(high: 0x3093, low: 1)
    static let other = MemoID(high: 0x3093, low: 2)

    /// Alice's notebook after Bob typed "X" in her memo (and created a memo of his own), and
    /// the counters of Alice's operations before her next edit.
    static func setUp() throws -> (alice: Notebook, bob: ReplicaID, aliceBefore: UInt32) {
        var alice = Notebook(replica: ReplicaID(1))
        try alice.createMemo(Self.memo, text: "abc", wallMilliseconds: 1)
        var bob = Notebook(replica: ReplicaID(2))
        _ = try bob.apply(alice.changes(since: bob.version))
        try bob.edit(Self.memo, replacingUTF16: 1..<1, with: "X", wallMilliseconds: 2)
        try bob.createMemo(Self.other, text: "bob's", wallMilliseconds: 3)
        _ = try alice.apply(bob.changes(since: alice.version))
        return (alice, bob.replica, alice.version[alice.replica])
    }

    /// Alice's operations since `before`, as a segment would carry them.
    static func published(_ alice: Notebook, since before: UInt32) throws -> NotebookDelta {
        try alice.changes(of: [(alice.replica, before..<alice.version[alice.replica])])
    }

    @Test func aDeltaBuildsOnlyOnWhatItPlacesAgainstDeletesOrChanges() throws {
        let (start, bob, before) = try Self.setUp()
        let everything: (ReplicaID) -> UInt32 = { start.version[$0] }
        let bobsTextOnly: (ReplicaID) -> UInt32 = { $0 == bob ? 1 : start.version[$0] }  // Bob's "X" offered, nothing after
        let nothingOfBob: (ReplicaID) -> UInt32 = { $0 == bob ? 0 : start.version[$0] }

        // Typing right after Bob's "X": placed against it.
        var typed = start
        try typed.edit(Self.memo, replacingUTF16: 2..<2, with: "Y", wallMilliseconds: 10)
        let typing = try Self.published(typed, since: before)
        #expect(!typed.builds(on: typing, beyond: everything))
        #expect(typed.builds(on: typing, beyond: nothingOfBob))
        // Bob's memo's creation and text are his later operations: not what "Y" builds on.
        #expect(!typed.builds(on: typing, beyond: bobsTextOnly))

        // Deleting Bob's "X" with the "a" before it.
        var deleted = start
        try deleted.edit(Self.memo, replacingUTF16: 0..<2, with: "", wallMilliseconds: 10)
        let deletion = try Self.published(deleted, since: before)
        #expect(deleted.builds(on: deletion, beyond: nothingOfBob))
        #expect(!deleted.builds(on: deletion, beyond: everything))

        // Typing at the end of "abc", away from "X": builds on Alice's own "c" only.
        var away = start
        try away.edit(Self.memo, replacingUTF16: 4..<4, with: "Z", wallMilliseconds: 10)
        #expect(!away.builds(on: try Self.published(away, since: before), beyond: nothingOfBob))

        // Editing Bob's memo builds on its creation; trashing it on the text it saw.
        var inBobs = start
        try inBobs.edit(Self.other, replacingUTF16: 0..<0, with: "Q", wallMilliseconds: 10)
        #expect(inBobs.builds(on: try Self.published(inBobs, since: before), beyond: bobsTextOnly))
        var trashed = start
        try trashed.moveToTrash(Self.other, wallMilliseconds: 10)
        let trash = try Self.published(trashed, since: before)
        #expect(trashed.builds(on: trash, beyond: bobsTextOnly))
        #expect(!trashed.builds(on: trash, beyond: everything))
    }

    /// What the delta carries itself is never something it lacks: a library's two sessions'
    /// operations in one segment.
    @Test func whatADeltaCarriesIsNotADependency() throws {
        let (start, _, before) = try Self.setUp()
        var alice = start
        try alice.edit(Self.memo, replacingUTF16: 2..<2, with: "Y", wallMilliseconds: 10)
        try alice.edit(Self.memo, replacingUTF16: 3..<3, with: "W", wallMilliseconds: 11)
        let delta = try Self.published(alice, since: before)
        // Alice's operations in the delta are carried: offered up to where it starts is enough.
        #expect(!alice.builds(on: delta, beyond: { $0 == alice.replica ? before : alice.version[$0] }))
        // Her earlier ones are not: "Y" goes before her "b".
        #expect(alice.builds(on: delta, beyond: { $0 == alice.replica ? 0 : alice.version[$0] }))
    }
}
