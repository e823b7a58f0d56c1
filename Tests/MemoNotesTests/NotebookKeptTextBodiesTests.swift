import MemoCRDT
import TestSupport
import Testing

@testable import MemoNotes

/// A sync encodes its snapshot from a copy and gives the live notebook the text bodies it kept
/// (`keepTextBodies(encodedIn:)`), a slice of memos per hold of the replica's lock: the slices
/// together do what the whole does.
@Suite struct NotebookKeptTextBodiesTests {
    @Test func slicesKeepWhatTheWholeKeeps() throws {
        var random = SeededRandom(seed: 0xB0D1)
        var notebook = Notebook(replica: ReplicaID(0xA))
        var ids: [MemoID] = []
        for index in 0..<300 {
            let id = MemoID(using: &random)
            try notebook.createMemo(id, text: "memo \(index)\nbody", wallMilliseconds: 1_000 + UInt64(index))
            ids.append(id)
        }
        var copy = notebook
        let encoded = copy.encodedKeepingTextBodies()
        // The live notebook goes on meanwhile: two memos change, one is added.
        try notebook.edit(ids[5], replacingScalars: 0..<0, with: "x", wallMilliseconds: 9_000)
        try notebook.edit(ids[200], replacingScalars: 0..<0, with: "y", wallMilliseconds: 9_001)
        try notebook.createMemo(MemoID(using: &random), text: "new", wallMilliseconds: 9_002)

        var whole = notebook
        whole.keepTextBodies(encodedIn: copy)
        var sliced = notebook
        var start = 0
        while start < copy.memoRecordCount {
            sliced.keepTextBodies(encodedIn: copy, memos: start..<min(start + 64, copy.memoRecordCount))
            start += 64
        }
        // Past the end: nothing.
        sliced.keepTextBodies(encodedIn: copy, memos: copy.memoRecordCount..<copy.memoRecordCount + 10)
        let kept = { (notebook: Notebook) in notebook.memos.records.filter { $0.encodedTextBody != nil }.map(\.id) }
        #expect(kept(whole).count == 298)
        #expect(kept(sliced) == kept(whole))
        #expect(sliced.encoded() == whole.encoded())
        #expect(sliced.encoded() == notebook.encoded())
        #expect(try Notebook(decoding: encoded, replica: ReplicaID(0xB)).memoIDs == ids.sorted())
    }
}
