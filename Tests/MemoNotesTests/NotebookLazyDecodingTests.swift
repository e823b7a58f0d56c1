import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// A decoded notebook folds no text for search when it is decoded (issue 28: that was a third of
/// opening 10,000 memos): its first search folds the texts and keeps the keys in a cache its
/// copies share. Differential: over random notebooks, a freshly decoded notebook (keys folded on
/// demand, from the cache on later searches, on copies, after edits) lists, searches, reads and
/// encodes exactly as the notebook it was encoded from with every key cached in its records.
/// `list(first:)` gives exactly `list().prefix(k)`.
@Suite struct NotebookLazyDecodingTests {
    /// A random notebook of two replicas' memos: created, edited, merged, trashed, restored,
    /// purged; many memos share a timestamp, so list ties are broken by id.
    private func randomNotebook(_ random: inout SeededRandom) throws -> Notebook {
        var replicas = [Notebook(replica: ReplicaID(3)), Notebook(replica: ReplicaID(10))]
        var ids: [MemoID] = []
        var now: UInt64 = 1_700_000_000_000
        for _ in 0..<random.int(in: 5...40) {
            let side = random.int(in: 0...1)
            // Often the same millisecond: equal modification times.
            if random.chance(0.5) { now += UInt64(random.int(in: 1...3)) }
            let roll = random.int(in: 0..<10)
            if ids.isEmpty || roll < 4 {
                let id = MemoID(high: random.next(), low: random.next())
                try replicas[side].createMemo(id, text: RandomText.string(random.int(in: 0...30), using: &random), wallMilliseconds: now)
                ids.append(id)
            } else if roll < 7 {
                let id = random.pick(ids)
                guard let memo = replicas[side].memo(id), memo.status == .active else { continue }
                let count = memo.text.utf16.count
                let lower = random.int(in: 0...count)
                var upper = min(count, lower + random.int(in: 0...5))
                let utf16 = Array(memo.text.utf16)
                // Not between the halves of a surrogate pair.
                if lower < count, UTF16.isTrailSurrogate(utf16[lower]) { continue }
                if upper < count, UTF16.isTrailSurrogate(utf16[upper]) { upper = lower }
                try replicas[side].edit(
                    id, replacingUTF16: lower..<upper, with: RandomText.string(random.int(in: 0...6), using: &random), wallMilliseconds: now)
            } else if roll == 7 {
                let id = random.pick(ids)
                if replicas[side].memo(id)?.status == .active { try replicas[side].moveToTrash(id, wallMilliseconds: now) }
            } else if roll == 8 {
                let id = random.pick(ids)
                if replicas[side].memo(id)?.status == .trashed {
                    if random.chance(0.5) {
                        try replicas[side].restore(id, wallMilliseconds: now)
                    } else {
                        try replicas[side].purge(id, wallMilliseconds: now)
                    }
                }
            } else {
                let other = 1 - side
                _ = try replicas[side].apply(try replicas[other].changes(since: replicas[side].version))
            }
        }
        _ = try replicas[0].apply(try replicas[1].changes(since: replicas[0].version))
        return replicas[0]
    }

    /// Queries: pieces of the memos' texts (some in other case or width), random text, letters.
    private func queries(for notebook: Notebook, _ random: inout SeededRandom) -> [String] {
        var result = ["a", "e", "한", "テ", "ß", "SS", "\u{1F600}"]
        let texts = notebook.list().compactMap { notebook.memo($0.id)?.text }
        for _ in 0..<12 {
            if let text = texts.isEmpty ? nil : random.pick(texts), !text.isEmpty {
                let scalars = Array(text.unicodeScalars)
                let lower = random.int(in: 0..<scalars.count)
                let upper = min(scalars.count, lower + random.int(in: 1...4))
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[lower..<upper])
                let piece = String(view)
                result.append(random.chance(0.3) ? piece.uppercased() : piece)
            } else {
                result.append(RandomText.string(random.int(in: 1...3), using: &random))
            }
        }
        return result
    }

    /// `notebook` with every search key, title and preview cached in its records: what searching
    /// a notebook that never went through an encoding reads.
    private func eager(_ notebook: Notebook) -> Notebook {
        var copy = notebook
        copy.refreshSearchKeys()
        return copy
    }

    /// Checks that `lazy` lists, searches and reads as `reference`.
    private func expectSame(_ lazy: Notebook, _ reference: Notebook, queries: [String], seed: UInt64, _ what: String) {
        #expect(lazy.list() == reference.list(), "seed \(seed), \(what): list")
        #expect(lazy.trash() == reference.trash(), "seed \(seed), \(what): trash")
        let count = reference.list().count
        for first in [0, 1, 2, 3, 7, count - 1, count, count + 5] where first >= 0 {
            #expect(lazy.list(first: first) == Array(reference.list().prefix(first)), "seed \(seed), \(what): first \(first)")
        }
        for query in queries {
            for options in [SearchOptions(), SearchOptions(foldsKana: false)] {
                #expect(lazy.search(query, options: options) == reference.search(query, options: options), "seed \(seed), \(what): \(query)")
            }
        }
        for id in reference.memoIDs { #expect(lazy.memo(id) == reference.memo(id), "seed \(seed), \(what): memo \(id)") }
    }

    @Test(arguments: testSeeds(20, salt: 0x1A2E))
    func decodedNotebooksListAndSearchAsTheirSource(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let source = eager(try randomNotebook(&random))
        let queries = queries(for: source, &random)
        var lazy = try Notebook(decoding: source.encoded(), replica: source.replica)
        #expect(lazy.encoded() == source.encoded(), "seed \(seed): encoding")
        // First searches fold, later ones read the cache: the same answers either way.
        expectSame(lazy, source, queries: queries, seed: seed, "decoded")
        expectSame(lazy, source, queries: queries, seed: seed, "decoded, searched again")
        // A copy searched first, then the original edited: its cached keys must not be read for
        // the edited memo.
        let copy = lazy
        expectSame(copy, source, queries: queries, seed: seed, "copy")
        var edited = source
        if let id = source.list().first?.id {
            try lazy.edit(id, replacingUTF16: 0..<0, with: "zq", wallMilliseconds: 1_800_000_000_000)
            try edited.edit(id, replacingUTF16: 0..<0, with: "zq", wallMilliseconds: 1_800_000_000_000)
            expectSame(lazy, eager(edited), queries: queries + ["zq", "ZQ"], seed: seed, "edited")
            expectSame(copy, source, queries: queries + ["zq"], seed: seed, "copy after the original was edited")
        }
        // Two copies adding different memos at the same place in the table after both searched.
        var left = lazy
        var right = lazy
        let newID = MemoID(high: 1, low: 1)
        try left.createMemo(newID, text: "left side", wallMilliseconds: 1_900_000_000_000)
        try right.createMemo(MemoID(high: 2, low: 2), text: "right side", wallMilliseconds: 1_900_000_000_000)
        for (notebook, name) in [(left, "left"), (right, "right"), (left, "left again")] {
            let reference = eager(try Notebook(decoding: notebook.encoded(), replica: notebook.replica))
            expectSame(notebook, reference, queries: queries + ["side", "left", "right"], seed: seed, name)
        }
        // Keys taken into the records: still the same answers, and the same bytes.
        lazy.refreshSearchKeys()
        expectSame(lazy, eager(edited), queries: queries, seed: seed, "refreshed")
        #expect(lazy.encoded() == edited.encoded(), "seed \(seed): encoding after the edit")
    }

    /// The decoder still checks every text is UTF-8 although it no longer folds texts (the check
    /// moved from folding to `SearchFolding.isValidUTF8`): a damaged text section, in a state
    /// whose checksum is right, is refused as before.
    @Test func aTextThatIsNotUTF8IsStillRefusedWhenDecoded() throws {
        var notebook = Notebook(replica: ReplicaID(5))
        try notebook.createMemo(MemoID(high: 9, low: 9), text: "hello lazy texts, hello", wallMilliseconds: 1_000)
        let state = notebook.encoded()
        let (bodyRange, version) = try BlobEnvelope.open(state, kind: .notebookState, versions: 1...15)
        var body = Array(state[bodyRange])
        let needle = Array("lazy".utf8)
        let at = try #require((0...(body.count - needle.count)).first { Array(body[$0..<$0 + needle.count]) == needle })
        for damage: [UInt8] in [[0xFF], [0xC0], [0xED], [0x80]] {
            var damaged = body
            damaged[at + 1] = damage[0]
            let bytes = BlobEnvelope.seal(kind: .notebookState, version: version, body: damaged)
            #expect(throws: DecodingError.self) { try Notebook(decoding: bytes, replica: ReplicaID(5)) }
            do {
                _ = try Notebook(decoding: bytes, replica: ReplicaID(5))
            } catch {
                #expect("\(error)".contains("not valid UTF-8"), "\(error)")
            }
        }
        body[at + 1] = UInt8(ascii: "A")
        let fine = try Notebook(decoding: BlobEnvelope.seal(kind: .notebookState, version: version, body: body), replica: ReplicaID(5))
        #expect(fine.search("lAzy").count == 1)
    }
}
