import MemoCRDT
@testable import MemoNotes
import Testing

/// Values an app may pass meaning "all" or by mistake: never a trap (exploratory test of
/// 2026-12-02: `list(first: .max)` overflowed, `.max - 1` corrupted the heap in the standard
/// library's `reserveCapacity`, `1 << 40` asked for 17 TB; `LineDiff.unified` trapped on
/// `context: .max` and on a negative context).
@Suite struct NotebookBadValueTests {
    @Test(arguments: [Int.max, Int.max - 1, 1 << 40, 100_000_000, 3])
    func listFirstAnyCountGivesAtMostEveryMemo(count: Int) throws {
        var notebook = Notebook(replica: ReplicaID(1))
        for index in 0..<3 { try notebook.createMemo(MemoID(high: 1, low: UInt64(index)), text: "memo \(index)", wallMilliseconds: 1_000 + UInt64(index)) }
        #expect(notebook.list(first: count).map(\.id) == notebook.list().map(\.id))
    }

    @Test func unifiedDiffContextIsClampedNotTrapped() {
        let old = "a\nb\nc\nd\ne\nf\ng"
        let new = "a\nb\nC\nd\ne\nF\ng"
        let whole = LineDiff.unified(from: old, to: new, fromLabel: "old", toLabel: "new", context: 7)
        #expect(LineDiff.unified(from: old, to: new, fromLabel: "old", toLabel: "new", context: .max) == whole)
        let none = LineDiff.unified(from: old, to: new, fromLabel: "old", toLabel: "new", context: 0)
        #expect(LineDiff.unified(from: old, to: new, fromLabel: "old", toLabel: "new", context: -5) == none)
        #expect(LineDiff.unified(from: old, to: new, fromLabel: "old", toLabel: "new", context: .min) == none)
        #expect(whole.contains(" a\n") && whole.contains(" g\n") && !none.contains(" a\n"))
    }
}
