import MemoCRDT
import TestSupport
import Testing

@testable import MemoNotes

/// The debug self-check after a mutation that changed one text checks that text's derived values
/// (title and preview prefix, search key) and every record against the logs, and every memo's
/// text at one check in `Notebook.wholeCheckInterval` (Notebook+Invariants.swift).
@Suite struct NotebookSelfCheckScopeTests {
    private let alice = ReplicaID(0xA)
    private let first = MemoID(high: 1, low: 1)
    private let second = MemoID(high: 1, low: 2)

    /// Two memos, their titles and previews taken from their texts.
    private func twoMemos() throws -> Notebook {
        var notebook = Notebook(replica: alice)
        try notebook.createMemo(first, text: "First memo\nbody", wallMilliseconds: 1_000)
        try notebook.createMemo(second, text: "Second memo\nbody", wallMilliseconds: 2_000)
        for id in [first, second] { notebook.memos[existing: id].refreshDerivedText() }
        #expect(!notebook.memos[existing: second].derivedTextIsStale)
        try notebook.checkInvariants()
        return notebook
    }

    /// Two memos, their titles and previews taken, the second's cached title prefix made wrong.
    private func notebookWithAWrongPrefix() throws -> Notebook {
        var notebook = try twoMemos()
        notebook.memos[existing: second].cachedTextPrefix = ArraySlice("Wrong".utf8)
        return notebook
    }

    @Test func aCheckOfOneTextLeavesTheOthersToTheWholeCheck() throws {
        let notebook = try notebookWithAWrongPrefix()
        #expect(throws: InvariantViolation.self) { try notebook.checkInvariants() }
        #expect(throws: InvariantViolation.self) { try notebook.checkInvariants(textsOf: [second], textInvariantsChecked: true) }
        #expect(throws: InvariantViolation.self) { try notebook.checkInvariants(textsOf: [first, second], textInvariantsChecked: false) }
        // The first memo's text is right, and checking only it does not read the second's.
        try notebook.checkInvariants(textsOf: [first], textInvariantsChecked: true)
    }

    @Test func aRecordOutOfStepWithTheLogsIsFoundWhateverTextIsChecked() throws {
        var notebook = try twoMemos()
        notebook.memos[existing: second].modifiedAt = notebook.memos[existing: first].modifiedAt
        #expect(throws: InvariantViolation.self) { try notebook.checkInvariants(textsOf: [first], textInvariantsChecked: true) }
        #expect(throws: InvariantViolation.self) { try notebook.checkInvariants(textsOf: [], textInvariantsChecked: false) }
    }

    #if MEMOSYNC_INTERNAL_CHECKS
    @Test func everyTextIsCheckedAtOneMutationInTheInterval() {
        let interval = Notebook.wholeCheckInterval
        #expect(interval > 1)
        for count in 1...(3 * interval) {
            let whole = count % interval == 0
            let edited = Notebook.selfCheckedTexts(after: .edited(first), mutationCount: count)
            #expect(edited.memos == (whole ? nil : [first]), "mutation \(count)")
            #expect(edited.ownInvariantsChecked == !whole, "mutation \(count)")
            let applied = Notebook.selfCheckedTexts(after: .applied([first, second]), mutationCount: count)
            #expect(applied.memos == (whole ? nil : [first, second]), "mutation \(count)")
            #expect(!applied.ownInvariantsChecked, "mutation \(count)")
            let any = Notebook.selfCheckedTexts(after: .whole, mutationCount: count)
            #expect(any.memos == nil && !any.ownInvariantsChecked, "mutation \(count)")
        }
    }
    #endif
}
