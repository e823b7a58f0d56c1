import Foundation
import MemoCRDT
@testable import MemoNotes
import TestSupport
import Testing

/// Search folding against a reference built from Unicode's data: `Tests/Fixtures/search-folding/
/// reference.txt`, which `Tests/Tools/search-folding/generate.py` computes from Python's
/// `unicodedata` alone (Unicode 14.0: decompositions, general categories, `str.casefold()`),
/// following the rules `SearchFolding` documents. Every scalar assigned in that version is
/// compared, with kana folded and kept distinct, then random texts; and the ranges a match
/// highlights.
@Suite struct SearchFoldingReferenceTests {
    /// The reference: for each scalar whose key is not itself, its key with kana folded and with
    /// kana kept distinct; the ranges unassigned in the reference's Unicode version.
    struct Reference {
        var folded: [UInt32: (kana: [UInt32], distinct: [UInt32])] = [:]
        var unassigned: [ClosedRange<UInt32>] = []
        var unicodeVersion = ""

        func isAssigned(_ value: UInt32) -> Bool {
            var low = 0
            var high = unassigned.count
            while low < high {
                let middle = (low + high) / 2
                if unassigned[middle].upperBound < value { low = middle + 1 } else { high = middle }
            }
            return low == unassigned.count || !unassigned[low].contains(value)
        }

        /// The reference key of `value` (the scalar itself when the reference lists none).
        func key(_ value: UInt32, foldsKana: Bool) -> [UInt32] {
            guard let entry = folded[value] else { return [value] }
            return foldsKana ? entry.kana : entry.distinct
        }
    }

    static let reference: Reference = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/search-folding/reference.txt")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return Reference() }
        var reference = Reference()
        func scalars(_ field: Substring) -> [UInt32] {
            field.split(separator: " ").map { UInt32($0, radix: 16)! }
        }
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# Search folding reference, Unicode ") {
                reference.unicodeVersion = String(line.dropFirst(36).prefix { $0 != " " })
            } else if line.hasPrefix("#") {
                continue
            } else if line.hasPrefix("!") {
                let bounds = line.dropFirst().split(separator: ".", omittingEmptySubsequences: true)
                reference.unassigned.append(UInt32(bounds[0], radix: 16)!...UInt32(bounds[1], radix: 16)!)
            } else {
                let fields = line.split(separator: ";", omittingEmptySubsequences: false)
                let kana = scalars(fields[1])
                let distinct = fields.count > 2 ? scalars(fields[2]) : kana
                reference.folded[UInt32(fields[0], radix: 16)!] = (kana, distinct)
            }
        }
        return reference
    }()

    /// Scalars whose properties changed between the reference's Unicode version (14.0) and the
    /// standard library's, so that they fold by the newer data: U+1171E AHOM CONSONANT SIGN
    /// MEDIAL RA, a nonspacing mark (Mn) in 14.0, a spacing mark (Mc) later, so kept, not dropped.
    static let changedSince14: Set<UInt32> = [0x1171E]

    func hex(_ values: [UInt32]) -> String {
        values.map { "U+" + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    func keyValues(_ text: String, _ options: SearchOptions = SearchOptions()) -> [UInt32] {
        SearchFolding.keyScalars(SearchFolding.key(for: text, options: options)).map(\.value)
    }

    /// The fixture is there and whole: 16,651 lines, 7 of comments, 696 unassigned ranges and
    /// 15,948 keys (a missing or truncated fixture fails here, not as an empty comparison).
    @Test func referenceIsComplete() {
        let reference = Self.reference
        #expect(reference.unicodeVersion == "14.0.0")
        #expect(reference.unassigned.count == 696)
        #expect(reference.folded.count == 15_948)
        #expect(reference.folded[0xDF]?.kana == [0x73, 0x73])
    }

    /// Every scalar assigned in the reference's Unicode version folds exactly to its reference
    /// key, with kana folded and kept distinct; and the kana-distinct key with its katakana
    /// folded is the default key (what a kana-distinct search relies on).
    @Test(arguments: [true, false])
    func everyAssignedScalarFoldsLikeTheReference(foldsKana: Bool) {
        let reference = Self.reference
        let options = SearchOptions(foldsKana: foldsKana)
        var compared = 0
        var mismatches: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), reference.isAssigned(value) else { continue }
            // The private use planes 15 and 16 are copied like every other four-byte scalar
            // without case or marks; the BMP's private use area is compared.
            if value >= 0xF0000 { continue }
            compared += 1
            var expected = reference.key(value, foldsKana: foldsKana)
            if Self.changedSince14.contains(value) {
                #expect(scalar.properties.generalCategory == .spacingMark && expected == [])
                expected = [value]
            }
            let key = SearchFolding.key(for: String(scalar), options: options)
            let actual = SearchFolding.keyScalars(key).map(\.value)
            if actual != expected {
                mismatches.append("\(hex([value])): \(hex(actual)), reference \(hex(expected))")
            }
            if !foldsKana {
                #expect(SearchFolding.kanaFolded(key) == SearchFolding.key(for: String(scalar)), "\(hex([value]))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(40).joined(separator: "; "))")
        // Unicode 14.0's 144,697 graphic and format characters, 65 controls and the BMP's 6,400
        // private use characters.
        #expect(compared == 144_697 + 65 + 6_400, "compared \(compared)")
    }

    /// Scalars the reference does not know (assigned after its Unicode version) still fold to a
    /// settled key: folding the key again changes nothing.
    @Test func newerScalarsSettle() {
        let reference = Self.reference
        var newer = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), !reference.isAssigned(value), scalar.properties.age != nil else {
                continue
            }
            newer += 1
            let key = SearchFolding.key(for: String(scalar))
            #expect(SearchFolding.key(for: SearchFoldingTests.keyText(key)) == key, "U+\(String(value, radix: 16))")
        }
        print("scalars assigned after Unicode \(reference.unicodeVersion), by the standard library: \(newer)")
        #expect(newer > 0)
    }

    /// Scalars random texts are drawn from: those the reference folds, often; ASCII; and any
    /// assigned BMP scalar.
    static let interesting: [UInt32] = reference.folded.keys.sorted()

    static func randomText(_ length: Int, using random: inout SeededRandom) -> [Unicode.Scalar] {
        var scalars: [Unicode.Scalar] = []
        while scalars.count < length {
            let value: UInt32
            switch random.int(in: 0..<10) {
            case 0..<5: value = random.pick(interesting)
            case 5..<8: value = UInt32(random.int(in: 0x20...0x7E))
            default: value = UInt32(random.int(in: 0...0xFFFF))
            }
            if let scalar = Unicode.Scalar(value), reference.isAssigned(value), !changedSince14.contains(value) {
                scalars.append(scalar)
            }
        }
        return scalars
    }

    /// Random texts (some longer than one 16 KiB chunk) fold to the concatenation of their
    /// scalars' reference keys, with either option; and a query cut from a text matches it.
    @Test(arguments: testSeeds(12, salt: 0x5EA2_C101))
    func randomTextsFoldLikeTheReference(seed: UInt64) {
        print("randomTextsFoldLikeTheReference seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        let reference = Self.reference
        for round in 0..<30 {
            let length = round == 0 ? random.int(in: 6_000...9_000) : random.int(in: 0...80)
            let scalars = Self.randomText(length, using: &random)
            let text = String(String.UnicodeScalarView(scalars))
            for foldsKana in [true, false] {
                let options = SearchOptions(foldsKana: foldsKana)
                let expected = scalars.flatMap { reference.key($0.value, foldsKana: foldsKana) }
                let actual = keyValues(text, options)
                #expect(actual == expected, "seed \(seed), round \(round), kana \(foldsKana): \(hex(scalars.map(\.value)))")
                guard !scalars.isEmpty else { continue }
                let start = random.int(in: 0..<scalars.count)
                let end = random.int(in: (start + 1)...min(scalars.count, start + 8))
                let piece = String(String.UnicodeScalarView(scalars[start..<end]))
                let query = SearchQuery(piece, options: options)
                #expect(query.matches(key: SearchFolding.key(for: text, options: options)), "seed \(seed), round \(round)")
                let ranges = query.matchRanges(in: text)
                #expect(query.isEmpty ? ranges.isEmpty : !ranges.isEmpty, "seed \(seed), round \(round)")
                for range in ranges {
                    #expect(query.matches(key: SearchFolding.key(for: String(text[range]), options: options)), "seed \(seed)")
                }
            }
        }
    }

    // MARK: Ranges to highlight

    /// The text of each range `query` highlights in `text`.
    func highlighted(_ query: String, in text: String, _ options: SearchOptions = SearchOptions()) -> [String] {
        SearchQuery(query, options: options).matchRanges(in: text).map { String(text[$0]) }
    }

    /// One scalar folding to several (ß → ss, ﬁ → fi, ŉ → ʼn, a Hangul syllable → jamo): a
    /// match that covers part of the expansion highlights the whole scalar; matches that meet
    /// inside one scalar merge.
    @Test func rangesCoverExpansions() {
        #expect(highlighted("ss", in: "Straße und Strasse") == ["ß", "ss"])
        #expect(highlighted("ß", in: "STRASSE") == ["SS"])
        #expect(highlighted("s", in: "ß") == ["ß"])  // both halves of "ss", merged
        #expect(highlighted("as", in: "aß") == ["aß"])
        #expect(highlighted("sse", in: "aße") == ["ße"])
        #expect(highlighted("file", in: "ﬁle and file") == ["ﬁle", "file"])
        #expect(highlighted("i", in: "ﬁ") == ["ﬁ"])
        #expect(highlighted("ﬃ", in: "office") == ["ffi"])
        #expect(highlighted("n", in: "ŉ") == ["ŉ"])
        #expect(highlighted("하", in: "한국어") == ["한"])
        #expect(highlighted("국어", in: "한국어") == ["국어"])
    }

    /// Several scalars folding to what one folds to (halfwidth ｶﾞ → か, like ガ; a decomposed
    /// é): the range covers all of them, the trailing marks included.
    @Test func rangesCoverContractions() {
        #expect(highlighted("が", in: "ｶﾞｷﾞ") == ["ｶﾞ"])
        #expect(highlighted("ガギ", in: "xｶﾞｷﾞx") == ["ｶﾞｷﾞ"])
        #expect(highlighted("ｶﾞ", in: "ガがｶﾞ") == ["ガがｶﾞ"])  // three matches that touch: merged
        #expect(highlighted("ｷﾞ", in: "かぎ and カキ") == ["ぎ", "キ"])
        #expect(highlighted("cafe", in: "un cafe\u{301} noir") == ["cafe\u{301}"])
        #expect(highlighted("e", in: "e\u{301}e\u{323}\u{302}") == ["e\u{301}e\u{323}\u{302}"])
        #expect(highlighted("abc", in: "abc ＡＢＣ Abc") == ["abc", "ＡＢＣ", "Abc"])
        #expect(highlighted("東京 タ", in: "東京　タワー") == ["東京　タ"])
        #expect(highlighted("❤", in: "I ❤️ it") == ["❤️"])
    }

    /// With kana kept distinct, only the same kind of kana is highlighted.
    @Test func rangesWithKanaDistinct() {
        let distinct = SearchOptions(foldsKana: false)
        #expect(highlighted("カ", in: "かカｶ", distinct) == ["カｶ"])
        #expect(highlighted("か", in: "かカｶ", distinct) == ["か"])
        #expect(highlighted("か", in: "かカｶ") == ["かカｶ"])
    }

    /// No range for an empty query or a text without the query; flags stay whole.
    @Test func rangesOfNothing() {
        #expect(highlighted("", in: "abc").isEmpty)
        #expect(highlighted("\u{301}", in: "é").isEmpty)
        #expect(highlighted("x", in: "abc").isEmpty)
        #expect(highlighted("x", in: "").isEmpty)
        #expect(highlighted("🇵🇫", in: "🇯🇵🇫🇷").isEmpty)
        #expect(highlighted("🇫🇷", in: "🇯🇵🇫🇷") == ["🇫🇷"])
    }

    // MARK: Notebook

    /// `Notebook.search(_:options:)`: kana folded by default, kept distinct when asked, with
    /// cached keys and with keys folded on the fly.
    @Test func notebookSearchWithOptions() throws {
        var notebook = Notebook(replica: ReplicaID(3))
        let katakana = MemoID(high: 1, low: 1)
        let hiragana = MemoID(high: 1, low: 2)
        let halfwidth = MemoID(high: 1, low: 3)
        let street = MemoID(high: 1, low: 4)
        try notebook.createMemo(katakana, text: "カタカナ", wallMilliseconds: 1_000)
        try notebook.createMemo(hiragana, text: "かたかな", wallMilliseconds: 2_000)
        try notebook.createMemo(halfwidth, text: "ｶﾀｶﾅ", wallMilliseconds: 3_000)
        try notebook.createMemo(street, text: "Straße", wallMilliseconds: 4_000)
        let distinct = SearchOptions(foldsKana: false)
        for pass in 0..<2 {
            #expect(Set(notebook.search("かたかな").map(\.id)) == [katakana, hiragana, halfwidth], "pass \(pass)")
            #expect(Set(notebook.search("ｶﾀｶﾅ").map(\.id)) == [katakana, hiragana, halfwidth], "pass \(pass)")
            #expect(Set(notebook.search("かたかな", options: distinct).map(\.id)) == [hiragana], "pass \(pass)")
            #expect(Set(notebook.search("カタカナ", options: distinct).map(\.id)) == [katakana, halfwidth], "pass \(pass)")
            #expect(notebook.search("STRASSE", options: distinct).map(\.id) == [street], "pass \(pass)")
            #expect(notebook.search("ぱ", options: distinct).isEmpty, "pass \(pass)")
            notebook.refreshSearchKeys()
        }
        let decoded = try Notebook(decoding: notebook.encoded(), replica: ReplicaID(4))
        #expect(Set(decoded.search("かたかな", options: distinct).map(\.id)) == [hiragana])
        #expect(Set(decoded.search("かたかな").map(\.id)) == [katakana, hiragana, halfwidth])
    }
}
