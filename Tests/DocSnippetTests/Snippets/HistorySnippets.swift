// Doc block: MemoNotes.docc/History.md (a memo's history). Compiled as an app writes it (public
// API only); the block appears here verbatim (DocSnippetTests checks it).
import MemoCRDT
import MemoSync

func memoHistory(id: MemoID, other: MemoID, now: UInt64) throws {
    var notebook = Notebook(replica: ReplicaID(7))
    notebook.keepsHistory = true
    try notebook.createMemo(id, text: "Groceries\nmilk", wallMilliseconds: now)
    try notebook.createMemo(other, text: "Call the plumber", wallMilliseconds: now)
    try notebook.edit(id, replacingUTF16: 10..<14, with: "oat milk", wallMilliseconds: now + 3_600_000)

    let versions = try notebook.versions(of: id)          // oldest first: a history slider
    let first = versions[0]
    print(first.shortName, first.device, first.insertedCount, first.deletedCount)
    let then = try notebook.text(of: id, at: first.cut)   // "Groceries\nmilk"
    let diff = try notebook.difference(in: id, from: first.cut, to: versions.last!.cut)
    print(diff.insertedScalars, diff.deletedScalars)     // 8 4: "milk" became "oat milk"
    print(LineDiff.unified(from: then, to: notebook.memo(id)!.text, fromLabel: first.shortName, toLabel: "now"))
    try notebook.revert(id, to: first.cut, wallMilliseconds: now + 7_200_000)  // a new, undoable edit
    // or bring back one deleted passage where it was:
    // try notebook.restore(diff.changes[0], in: id, wallMilliseconds: now + 7_200_000)
}
