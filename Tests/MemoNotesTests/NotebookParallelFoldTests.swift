import MemoCRDT
@testable import MemoNotes
import TestSupport
import Testing

/// The first search after opening folds every text, on every core when there are many bytes
/// (`Notebook+SearchKeys.swift`): the keys are the ones one thread folds, memo by memo, and the
/// search answers the same.
@Suite struct NotebookParallelFoldTests {
    /// A notebook of `count` memos of a few hundred bytes to a few kilobytes, in Latin with
    /// accents, Korean (whose syllables fold to two or three times their bytes) and Japanese.
    static func notebook(count: Int, seed: UInt64) throws -> Notebook {
        var random = SeededRandom(seed: seed)
        let words = ["Café", "crème", "ÉTÉ", "naïve", "한국어", "메모", "日本語", "カタカナ", "ｶﾀｶﾅ", "straße", "ﬁle", "🙂", "note"]
        var notebook = Notebook(replica: ReplicaID(7))
        for index in 0..<count {
            var text = "Memo \(index)\n"
            for _ in 0..<(20 + Int(random.next() % 400)) {
                text += words[Int(random.next() % UInt64(words.count))] + " "
            }
            try notebook.createMemo(MemoID(high: 9, low: UInt64(index + 1)), text: text, wallMilliseconds: 1_000 + UInt64(index))
        }
        return notebook
    }

    @Test func keysFoldedOnEveryCoreAreTheKeysFoldedOneByOne() throws {
        let source = try Self.notebook(count: 300, seed: 0xF01D_0001)
        // Encoded texts (as a library opens) and, for some memos, decoded ones.
        var opened = try Notebook(decoding: source.encoded(), replica: source.replica)
        for low in stride(from: 1, through: 300, by: 7) {
            try opened.edit(MemoID(high: 9, low: UInt64(low)), replacingUTF16: 0..<0, with: "Édité ", wallMilliseconds: 5_000)
        }
        let records = opened.memos.records
        let indices = Array(records.indices)
        let parallel = Notebook.foldedSearchKeys(of: records, at: indices, parallelFromBytes: 0)
        let alone = Notebook.foldedSearchKeys(of: records, at: indices, parallelFromBytes: .max)
        #expect(parallel.count == indices.count)
        #expect(parallel.map { Array($0.bytes) } == alone.map { Array($0.bytes) })
        #expect(alone.map { Array($0.bytes) } == indices.map { records[$0].text.foldedSearchKey })
        // Some keys are longer than their text (Hangul), some decoded: both paths were taken.
        #expect(indices.contains { records[$0].text.foldBytesEstimate < alone[$0].bytes.count })
    }

    /// A notebook of more than a megabyte of text searched right after it is opened (the keys
    /// folded in parallel) finds what a query matched against each memo's own key finds.
    @Test func theFirstSearchOfALargeNotebookFindsWhatEachMemoMatches() throws {
        let source = try Self.notebook(count: 1_200, seed: 0xF01D_0002)
        let bytes = source.encoded()
        #expect(bytes.count > Notebook.parallelFoldBytesMin)
        // Each memo's own key, folded once (folding 1,200 texts for each query was most of the
        // test's time in the debug build).
        let listed = source.list().map { ($0.id, SearchFolding.key(for: source.memo($0.id)!.text)) }
        for query in ["ete", "한국", "かたかな", "STRASSE", "file", "🙂 note", "memo 11"] {
            let opened = try Notebook(decoding: bytes, replica: source.replica)
            let found = opened.search(query).map(\.id)
            let reference = SearchQuery(query)
            let expected = listed.filter { reference.matches(key: $0.1) }.map(\.0)
            #expect(found == expected, "query \(query)")
            #expect(!found.isEmpty, "query \(query) finds something")
            // And again, warm: the same.
            #expect(opened.search(query).map(\.id) == found)
        }
    }

    /// The keys of a first search are slices of the buffers the fold wrote, kept by the shared
    /// cache, and the records' own keys after `refreshSearchKeys`; edits after it give their
    /// memos keys of their own. Whichever a memo's key is (cached, its own, folded again),
    /// searches find what each memo's own text matches, through several rounds of edits.
    @Test func searchesAfterEditsFindWhatEachMemoMatchesWhereverItsKeyIs() throws {
        let source = try Self.notebook(count: 1_200, seed: 0xF01D_0003)
        var notebook = try Notebook(decoding: source.encoded(), replica: source.replica)
        var random = SeededRandom(seed: 0xF01D_0004)
        let queries = ["ete", "한국", "かたかな", "STRASSE", "file", "🙂 note", "memo 11", "zebra"]
        func check(_ round: Int) {
            // Each memo's own key, folded once a round.
            let listed = notebook.list().map { ($0.id, SearchFolding.key(for: notebook.memo($0.id)!.text)) }
            for query in queries {
                let reference = SearchQuery(query)
                let expected = listed.filter { reference.matches(key: $0.1) }.map(\.0)
                #expect(notebook.search(query).map(\.id) == expected, "round \(round), query \(query)")
            }
        }
        check(0)  // the first search: every key folded (in parallel: more than a megabyte)
        for round in 1...6 {
            for _ in 0..<40 {
                let id = MemoID(high: 9, low: 1 + random.next() % 1_200)
                let words = ["zebra ", "ÉTÉ ", "메모 ", "カタカナ "]
                try notebook.edit(id, replacingUTF16: 0..<0, with: words[Int(random.next() % 4)], wallMilliseconds: 9_000 + UInt64(round))
            }
            if round % 2 == 0 { notebook.refreshSearchKeys() }  // the records' own keys, from the cache or folded
            check(round)
        }
        try notebook.checkInvariants()
    }

    /// A key is its range of a shared buffer in 32-bit offsets; one whose range does not fit is
    /// copied out and named whole. Here with the limit lowered to 10 bytes.
    @Test func aKeyBeyondItsOffsetsIsCopiedOutWhole() {
        let buffer = Array(UInt8(0)..<UInt8(40))
        for range in [0..<0, 3..<9, 0..<9, 5..<10, 8..<12, 0..<40, 39..<40] {
            #expect(Array(SearchKey(buffer, range, offsetLimit: 10).bytes) == Array(buffer[range]), "\(range)")
            #expect(Array(SearchKey(buffer, range).bytes) == Array(buffer[range]), "\(range)")
        }
        for count in [0, 9, 10, 11, 40] {
            let bytes = Array(buffer.prefix(count))
            #expect(Array(SearchKey(bytes, offsetLimit: 10).bytes) == bytes, "\(count)")
        }
    }
}
