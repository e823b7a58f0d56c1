import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// Memos are found by id however many a notebook holds (the table bisects a sorted view while
/// small, and hashes past it).
@Suite struct NotebookMemoTableTests {
    @Test(arguments: [40, 4_200])
    func everyMemoIsFoundByID(count: Int) throws {
        var random = SeededRandom(seed: UInt64(count))
        var notebook = Notebook(replica: ReplicaID(0xA))
        var ids: [MemoID] = []
        for index in 0..<count {
            let id = MemoID(using: &random)
            try notebook.createMemo(id, text: "m\(index)", wallMilliseconds: 1_000 + UInt64(index))
            ids.append(id)
        }
        try notebook.checkInvariants()
        for (index, id) in ids.enumerated() {
            #expect(notebook.memo(id)?.text == "m\(index)")
        }
        #expect(notebook.memo(MemoID(high: 0, low: 0)) == nil)
        #expect(notebook.memoIDs == ids.sorted())
        // Edits and a copy through the codec find them too.
        for id in ids.prefix(20) {
            try notebook.edit(id, replacingScalars: 0..<0, with: "x", wallMilliseconds: 9_000)
        }
        var other = Notebook(replica: ReplicaID(0xB))
        try other.apply(notebook.changes(since: other.version))
        #expect(other.list() == notebook.list())
        let decoded = try Notebook(decoding: notebook.encoded(), replica: ReplicaID(0xC))
        #expect(decoded.memo(ids[count / 2])?.text == "m\(count / 2)")
        try other.checkInvariants()
        try decoded.checkInvariants()
    }
}
