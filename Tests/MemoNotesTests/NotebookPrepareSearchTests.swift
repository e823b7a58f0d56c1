import MemoCRDT
@testable import MemoNotes
import Testing

/// `prepareSearch()` (issue 28): a decoded notebook folds no text when it is decoded; an app
/// (and `memo serve`) folds them ahead of the first search, on a copy, into the cache the copies
/// share, and the first search then reads every key from the cache and answers the same.
@Suite struct NotebookPrepareSearchTests {
    @Test func aCopyPreparedAheadFillsTheCacheTheOriginalSearches() throws {
        var source = Notebook(replica: ReplicaID(4))
        let ids = (1...6).map { MemoID(high: 2, low: UInt64($0)) }
        for (index, id) in ids.enumerated() {
            try source.createMemo(id, text: "Memo \(index)\nCafé crème \(index % 2 == 0 ? "été" : "hiver")", wallMilliseconds: 1_000 + UInt64(index))
        }
        try source.moveToTrash(ids[5], wallMilliseconds: 2_000)
        let decoded = try Notebook(decoding: source.encoded(), replica: source.replica)
        #expect(decoded.searchKeyCache.snapshot().compactMap { $0 }.isEmpty, "decoding folds nothing")
        let copy = decoded
        copy.prepareSearch()
        // Every memo (active and trashed) has its key in the cache the original shares.
        let cached = decoded.searchKeyCache.snapshot().compactMap { $0 }
        #expect(Set(cached.map(\.id)) == Set(ids))
        #expect(decoded.search("ETE").map(\.id) == source.search("ETE").map(\.id))
        #expect(decoded.search("ETE").count == 3)
        // A copy that changed a memo does not use the key cached for the old text.
        var edited = decoded
        try edited.edit(ids[1], replacingUTF16: 0..<0, with: "été ", wallMilliseconds: 3_000)
        #expect(edited.search("ete").count == 4)
        #expect(decoded.search("ete").count == 3)
    }
}
