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

    /// The table keeps its records in chunks, so that a copy changes apart from the original
    /// copying only the chunk it changes: copies must still change apart, in every chunk and in
    /// the last one, partly filled, which both may append to.
    @Test func copiesChangeApartInEveryChunk() throws {
        var random = SeededRandom(seed: 0xC40C)
        var notebook = Notebook(replica: ReplicaID(0xA))
        var ids: [MemoID] = []
        for index in 0..<300 {
            let id = MemoID(using: &random)
            try notebook.createMemo(id, text: "m\(index)", wallMilliseconds: 1_000 + UInt64(index))
            ids.append(id)
        }
        let before = notebook
        var copy = notebook
        for index in stride(from: 0, to: 300, by: 37) {
            try copy.edit(ids[index], replacingScalars: 0..<0, with: "c", wallMilliseconds: 5_000)
        }
        let added = MemoID(using: &random)
        try copy.createMemo(added, text: "added", wallMilliseconds: 5_001)
        let elsewhere = MemoID(using: &random)
        try notebook.createMemo(elsewhere, text: "elsewhere", wallMilliseconds: 5_002)
        try notebook.edit(ids[299], replacingScalars: 0..<0, with: "n", wallMilliseconds: 5_003)
        for (index, id) in ids.enumerated() {
            #expect(before.memo(id)?.text == "m\(index)")
            #expect(copy.memo(id)?.text == (index % 37 == 0 ? "c" : "") + "m\(index)")
            #expect(notebook.memo(id)?.text == (index == 299 ? "n" : "") + "m\(index)")
        }
        #expect(copy.memo(added)?.text == "added" && copy.memo(elsewhere) == nil)
        #expect(notebook.memo(elsewhere)?.text == "elsewhere" && notebook.memo(added) == nil)
        #expect(before.memoIDs == ids.sorted())
        try before.checkInvariants()
        try copy.checkInvariants()
        try notebook.checkInvariants()
    }
}
