import Foundation
import MemoCRDT
@testable import MemoNotes
import TestSupport
import Testing

/// Search folding: case, diacritics, width, kana and normalization form folded away, checked
/// against Foundation (and, in `SearchFoldingReferenceTests`, against a reference built from
/// Unicode's data). Foundation derives the generated decomposition tables again, every scalar of the
/// BMP folds like its decomposition, and random texts fold to exactly what a slow oracle built
/// on Foundation gives.
@Suite struct SearchFoldingTests {
    // MARK: Helpers

    /// Whether `query` finds `text`.
    func finds(_ query: String, in text: String) -> Bool {
        SearchQuery(query).matches(key: SearchFolding.key(for: text))
    }

    /// The scalars of `text`'s key.
    func keyScalars(_ text: String) -> [Unicode.Scalar] {
        SearchFolding.keyScalars(SearchFolding.key(for: text))
    }

    /// The key encoding of `folded`, a text that folds to itself (no folding applied).
    static func keyBytes(_ folded: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in folded.unicodeScalars { SearchFolding.appendKeyEncoding(of: scalar, to: &bytes) }
        return bytes
    }

    /// The text a key holds (its scalars).
    static func keyText(_ key: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: SearchFolding.keyScalars(key))
        return String(scalars)
    }

    func hex(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        scalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    /// Every BMP scalar.
    static let bmp: [Unicode.Scalar] = (0...0xFFFF).compactMap { Unicode.Scalar(UInt32($0)) }

    static func isNonspacingMark(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .nonspacingMark
    }

    static func isHangulSyllable(_ scalar: Unicode.Scalar) -> Bool {
        (0xAC00...0xD7A3).contains(scalar.value)
    }

    // MARK: The generated tables

    /// Derives `canonicalBases` and `canonicalExpansions` again, exactly as their generator did
    /// (Foundation's NFD of every BMP scalar other than a Hangul syllable or a nonspacing mark,
    /// nonspacing marks removed), and checks they are identical: the tables are proven, and this
    /// test is how to regenerate them.
    @Test func decompositionTablesMatchFoundation() {
        var bases: [UInt32] = []
        var expansions: [UInt32] = []
        for scalar in Self.bmp where !Self.isHangulSyllable(scalar) && !Self.isNonspacingMark(scalar) {
            let nfd = Array(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars)
            if nfd == [scalar] { continue }
            let kept = nfd.filter { !Self.isNonspacingMark($0) }.map(\.value)
            if kept.count == 1 && kept[0] <= 0xFFFF {
                bases.append(scalar.value << 16 | kept[0])
            } else {
                expansions += [scalar.value, UInt32(kept.count)] + kept
            }
        }
        #expect(bases == SearchFolding.canonicalBases)
        #expect(expansions == SearchFolding.canonicalExpansions)
        #expect(SearchFolding.canonicalBases.count == 1447)
        #expect(bases == bases.sorted())
    }

    /// The ranges the table skips hold nothing to fold: no nonspacing mark, no lowercase
    /// mapping, no decomposition but the Hangul syllables'. Outside the BMP, the emoji and CJK
    /// planes the loop copies without asking hold none either.
    @Test func plainRangesHoldNothingToFold() {
        for range in SearchFolding.plainRanges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let properties = scalar.properties
                #expect(properties.generalCategory != .nonspacingMark && !properties.changesWhenLowercased)
                if !Self.isHangulSyllable(scalar) {
                    #expect(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual([scalar]))
                }
            }
        }
        var unexpected: [UInt32] = []
        for value in UInt32(0x1F000)..<0xE0000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let properties = scalar.properties
            if properties.generalCategory == .nonspacingMark || properties.changesWhenLowercased {
                unexpected.append(value)
            }
        }
        #expect(unexpected.isEmpty)
    }

    /// The tables the loop uses (kana folded and kana distinct) fold every BMP scalar exactly as
    /// `FoldRules` says, and every Hangul syllable to its jamo as Foundation decomposes it.
    @Test(arguments: [true, false])
    func tableMatchesRulesForEveryBMPScalar(foldsKana: Bool) {
        let rules = SearchFolding.FoldRules(foldsKana: foldsKana)
        let options = SearchOptions(foldsKana: foldsKana)
        var differ = 0
        for scalar in Self.bmp {
            let expected: [Unicode.Scalar]
            if Self.isHangulSyllable(scalar) {
                expected = Array(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars)
            } else {
                expected = rules.fold(scalar)
            }
            let key = SearchFolding.keyScalars(SearchFolding.key(for: String(scalar), options: options))
            #expect(key == expected, "\(hex([scalar])): \(hex(key)), expected \(hex(expected))")
            if key != keyScalars(String(scalar)) { differ += 1 }
        }
        // Kana distinct: the katakana U+30A1–U+30F6 and ヽ ヾ (88), ヷ–ヺ (4, which decompose to
        // katakana) and the halfwidth katakana but ｰ (55) fold differently.
        #expect(differ == (foldsKana ? 0 : 88 + 4 + 55), "\(differ) scalars fold differently")
    }

    /// Every BMP scalar folds exactly like its canonical decomposition by Foundation, and like its
    /// case folding by Foundation when that is one scalar (ß → "ss" and the ligatures are the
    /// documented exceptions), and folding is idempotent.
    @Test func everyBMPScalarFoldsLikeItsDecompositionAndCaseFolding() {
        for scalar in Self.bmp {
            let text = String(scalar)
            let key = SearchFolding.key(for: text)
            let nfd = text.decomposedStringWithCanonicalMapping
            #expect(SearchFolding.key(for: nfd) == key, "\(hex([scalar])) and its NFD \(hex(nfd.unicodeScalars))")
            let caseFolded = text.folding(options: [.caseInsensitive], locale: nil)
            if caseFolded.unicodeScalars.count == 1, !Self.isNonspacingMark(scalar) {
                #expect(
                    SearchFolding.key(for: caseFolded) == key,
                    "\(hex([scalar])) and its case folding \(hex(caseFolded.unicodeScalars))")
            }
            let again = SearchFolding.key(for: SearchFoldingTests.keyText(key))
            #expect(again == key, "\(hex([scalar])) folds again")
        }
    }

    /// The generated case folding exceptions are what their generator says, by the standard
    /// library's data: each differs from the scalar's lowercase mapping, and folds a scalar to a
    /// string of the same case class (its uppercase, or that of its lowercase, is the folding's
    /// uppercase); and the letters the old hand-written list held are among them.
    @Test func caseFoldingExceptionsAgreeWithTheStandardLibrary() {
        let flat = SearchFolding.caseFoldingExceptions
        var index = 0
        var scalars: [UInt32] = []
        while index < flat.count {
            let scalar = Unicode.Scalar(flat[index])!
            let folded = String(String.UnicodeScalarView(flat[(index + 2)..<(index + 2 + Int(flat[index + 1]))].map { Unicode.Scalar($0)! }))
            #expect(!scalar.properties.lowercaseMapping.unicodeScalars.elementsEqual(folded.unicodeScalars), "\(hex([scalar]))")
            #expect(
                folded.uppercased() == String(scalar).uppercased()
                    || folded.uppercased() == scalar.properties.lowercaseMapping.uppercased()
                    || folded == String(scalar),
                "\(hex([scalar])) → \(hex(folded.unicodeScalars))")
            scalars.append(flat[index])
            index += 2 + Int(flat[index + 1])
        }
        #expect(scalars == scalars.sorted())
        #expect(scalars.count == 297)
        for old: UInt32 in [0xB5, 0x17F, 0x3C2, 0x3D0, 0x3D1, 0x3D5, 0x3D6, 0x3F0, 0x3F1, 0x3F5] + Array(0x1C80...0x1C88) {
            #expect(scalars.contains(old), "U+\(String(old, radix: 16))")
        }
        for packed in SearchFolding.widthFoldings {
            let scalar = Unicode.Scalar(packed >> 16)!
            // Foundation's NFKC agrees (it may map the result further: ¯ → space + macron,
            // compatibility jamo → conjoining jamo).
            let target = String(Unicode.Scalar(packed & 0xFFFF)!)
            #expect(
                String(scalar).precomposedStringWithCompatibilityMapping.unicodeScalars.elementsEqual(
                    target.precomposedStringWithCompatibilityMapping.unicodeScalars),
                "\(hex([scalar]))")
        }
        #expect(SearchFolding.widthFoldings.count == 226)
    }

    // MARK: Case

    @Test func caseFolds() {
        #expect(finds("hello", in: "Say HELLO World"))
        #expect(finds("HeLLo WORLD", in: "say hello world"))
        #expect(finds("ÉCOLE", in: "école"))
        #expect(finds("straße", in: "STRAẞE"))  // ẞ folds to "ss", like ß
        #expect(finds("strasse", in: "Straße"))  // full case folding: ß is "ss"
        #expect(finds("STRASSE", in: "straße"))
        #expect(finds("straße", in: "Strasse"))
        #expect(finds("ß", in: "SS"))
        #expect(finds("s", in: "ß"))
        #expect(finds("file", in: "ﬁle"))  // ligatures fold to their letters
        #expect(finds("ﬁ", in: "FI"))
        #expect(finds("ﬃ", in: "office"))
        #expect(finds("ʼn", in: "ŉ"))
        #expect(finds("եւ", in: "և"))
        #expect(!finds("sz", in: "ß"))
        #expect(finds("ΣΟΦΙΑ", in: "σοφία"))
        #expect(finds("ΛΟΓΟΣ", in: "λόγος"))  // final sigma folds to σ
        #expect(finds("λογος", in: "ΛΌΓΟΣ"))
        #expect(finds("ДОМ", in: "дом"))
        #expect(finds("ǆ", in: "Ǆ"))  // titlecase and uppercase digraphs
        #expect(finds("ǆ", in: "ǅ"))
        #expect(finds("kelvin 5k", in: "Kelvin 5\u{212A}"))  // KELVIN SIGN
        #expect(finds("istanbul", in: "İSTANBUL"))  // İ decomposes to I + dot, then lowercases
        #expect(!finds("ı", in: "i"))  // dotless ı is a letter of its own
        #expect(finds("ａｂｃ", in: "ＡＢＣ"))  // fullwidth letters have case too
        #expect(finds("abc", in: "ＡＢＣ"))  // and fold to ASCII
        #expect(finds("ＡＢＣ", in: "abc"))
        #expect(finds("Ꭰ", in: "ꭰ"))  // Cherokee small letters fold to capitals
        #expect(finds("ꭰ", in: "Ꭰ"))
        #expect(SearchFolding.key(for: "ABCxyz[@`{") == Array("abcxyz[@`{".utf8))
    }

    /// Long ASCII runs go 8 bytes at a time: every byte value at every position of a run.
    @Test func asciiRunsLowercaseEveryByte() {
        let all = (0..<128).map { UInt8($0) }
        for shift in 0..<9 {
            let bytes = Array(all[shift...]) + all + Array(all[..<shift])
            var key: [UInt8] = []
            SearchFolding.appendKey(forUTF8: bytes, to: &key)
            #expect(key == bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 })
        }
    }

    // MARK: Accents and normalization

    @Test func accentsFoldComposedOrDecomposed() {
        let composed = "Café crème brûlée à Zürich, São Paulo, Ærøskøbing, Dvořák, Łódź, ệ"
        let decomposed = composed.decomposedStringWithCanonicalMapping
        #expect(!composed.unicodeScalars.elementsEqual(decomposed.unicodeScalars))
        #expect(SearchFolding.key(for: composed) == SearchFolding.key(for: decomposed))
        for text in [composed, decomposed] {
            #expect(finds("cafe", in: text))
            #expect(finds("Café", in: text))
            #expect(finds("cafe\u{301}", in: text))
            #expect(finds("creme brulee", in: text))
            #expect(finds("zurich", in: text))
            #expect(finds("sao paulo", in: text))
            #expect(finds("dvorak", in: text))
            #expect(finds("e", in: text))
        }
        #expect(finds("ÆRØ", in: composed))  // æ and ø are letters, not a letter with a mark
        #expect(!finds("aero", in: composed))
        #expect(!finds("lodz", in: composed))  // ł is a letter of its own too
        #expect(finds("łodz", in: composed))
        #expect(SearchFolding.key(for: "e\u{323}\u{302}") == SearchFolding.key(for: "e\u{302}\u{323}"))
        #expect(SearchFolding.key(for: "\u{212B}") == Array("a".utf8))  // ANGSTROM SIGN
        #expect(SearchFolding.key(for: "\u{2126}") == Array("ω".utf8))  // OHM SIGN
        #expect(SearchFolding.key(for: "\u{F900}") == Array("\u{8C48}".utf8))  // CJK compatibility
    }

    /// A query may start or end anywhere around marks: they are gone from both sides.
    @Test func queryMaySpanACombiningMark() {
        let decomposed = "un cafe\u{301} au lait"
        let composed = "un café au lait"
        for text in [decomposed, composed] {
            #expect(finds("é au", in: text))
            #expect(finds("e\u{301} au", in: text))
            #expect(finds("fe\u{301}", in: text))
            #expect(finds("e au", in: text))
            #expect(finds("\u{301} au", in: text))  // a leading mark folds away
            #expect(finds("afe", in: text))
        }
        #expect(finds("ά", in: "α\u{301}"))
        #expect(!finds("cafeau", in: composed))
    }

    @Test func greekAndCyrillicWithAccents() {
        #expect(finds("αθηνα", in: "Αθήνα"))
        #expect(finds("ΑΘΗΝΑ", in: "αθήνα"))
        #expect(finds("ελλαδα", in: "Ελλάδα"))
        #expect(finds("ϊ", in: "ι"))
        #expect(finds("ΐ", in: "ι"))  // dialytika and tonos
        #expect(finds("αι", in: "ᾼΙ"))  // prosgegrammeni is a nonspacing mark
        #expect(finds("οδυσσευς", in: "Ὀδυσσεύς"))  // polytonic: psili, oxia
        #expect(finds("ΟΔΥΣΣΕΥΣ", in: "ὀδυσσεύς"))
        #expect(finds("ёлка", in: "Елка"))
        #expect(finds("елка", in: "ЁЛКА"))
        #expect(finds("й", in: "и"))  // й is и + breve
        #expect(finds("ЇЖАК", in: "їжак"))
        #expect(finds("ўсё", in: "Усе"))
        #expect(finds("ѐ", in: "е"))
    }

    // MARK: Korean

    static let hangulComposed = "한국어 텍스트를 검색합니다"
    static let hangulDecomposed: String = {
        let nfd = hangulComposed.decomposedStringWithCanonicalMapping
        precondition(nfd.unicodeScalars.contains { (0x1100...0x11FF).contains($0.value) })
        return nfd
    }()

    @Test func hangulComposedAndDecomposedFindEachOther() {
        let composed = Self.hangulComposed
        let decomposed = Self.hangulDecomposed
        #expect(SearchFolding.key(for: composed) == SearchFolding.key(for: decomposed))
        #expect(SearchFolding.key(for: composed) == SearchFoldingTests.keyBytes(decomposed))  // keys hold jamo
        // Query composed, text decomposed, and the other way round.
        #expect(finds("한국어", in: decomposed))
        #expect(finds("\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}", in: composed))
        #expect(finds("텍스트", in: decomposed))
        #expect(finds("검색", in: composed))
        // A syllable followed by a trailing jamo is the syllable with that trailing consonant.
        #expect(finds("각", in: "가\u{11A8}"))
        #expect(finds("가\u{11A8}", in: "각"))
        // Incremental search: a syllable being typed finds syllables that go on.
        #expect(finds("하", in: composed))
        #expect(finds("\u{1112}\u{1161}", in: composed))
        #expect(!finds("한국인", in: composed))
        #expect(!finds("국한", in: composed))
        // Compatibility jamo are not conjoining jamo.
        #expect(!finds("ㅎ", in: composed))
        // Halfwidth Hangul are compatibility jamo.
        #expect(finds("ㅎ", in: "\u{FFBE}"))
        #expect(finds("\u{FFBE}", in: "ㅎ"))
    }

    @Test func everyHangulSyllableDecomposesLikeFoundation() {
        for value in UInt32(0xAC00)...0xD7A3 {
            let syllable = String(Unicode.Scalar(value)!)
            let jamo = syllable.decomposedStringWithCanonicalMapping
            #expect(SearchFolding.key(for: syllable) == SearchFoldingTests.keyBytes(jamo), "U+\(String(value, radix: 16))")
        }
    }

    // MARK: The key encoding

    /// Jamo and kana take two bytes in a key, as "The key encoding" (`SearchFolding`) says,
    /// byte for byte; every other scalar its UTF-8; and keys read back to their scalars.
    @Test func jamoAndKanaTakeTwoBytesEachInAKey() {
        // 한: ᄒ U+1112 (index 0x12), ᅡ U+1161 (0x61), ᆫ U+11AB (0xAB).
        #expect(SearchFolding.key(for: "한") == [0xF5, 0x92, 0xF6, 0xA1, 0xF7, 0xAB])
        // か U+304B: index 256 + 0x0B = 267 = 4 · 64 + 11. ゟ U+309F and ヿ U+30FF end the block.
        #expect(SearchFolding.key(for: "か") == [0xF9, 0x8B])
        #expect(SearchFolding.key(for: "\u{30FF}", options: SearchOptions(foldsKana: false)) == [0xFB, 0xBF])
        #expect(SearchFolding.key(for: "ー") == [0xFB, 0xBC])  // U+30FC, prolonged sound mark
        // Just outside the blocks: UTF-8.
        #expect(SearchFolding.key(for: "\u{1200}") == Array("\u{1200}".utf8))
        #expect(SearchFolding.key(for: "\u{303F}") == Array("\u{303F}".utf8))
        #expect(SearchFolding.key(for: "\u{3100}") == Array("\u{3100}".utf8))
        for value in UInt32(0x10FF)...0x1200 { roundTrips(value) }
        for value in UInt32(0x303F)...0x3100 { roundTrips(value) }
        for value in [UInt32(0), 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xAC00, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF] { roundTrips(value) }
        // Every syllable is 4 or 6 bytes, against 6 or 9 in UTF-8 jamo.
        for value in UInt32(0xAC00)...0xD7A3 {
            let count = SearchFolding.key(for: String(Unicode.Scalar(value)!)).count
            #expect(count == ((value - 0xAC00) % 28 == 0 ? 4 : 6))
        }
        func roundTrips(_ value: UInt32) {
            let scalar = Unicode.Scalar(value)!
            let bytes = Self.keyBytes(String(scalar))
            #expect(bytes.count == ((0x1100...0x11FF).contains(value) || (0x3040...0x30FF).contains(value) ? 2 : UTF8.width(scalar)))
            #expect(SearchFolding.keyScalars(bytes) == [scalar], "U+\(String(value, radix: 16))")
        }
    }

    /// A match in a key starts and ends where scalars do, with jamo and kana in two bytes: a
    /// query's key is found only where the scalars it holds are, compared with a search over
    /// the scalars themselves, in random texts crowded with two-byte codes whose second bytes
    /// look like the continuation bytes of UTF-8 scalars around them.
    @Test(arguments: testSeeds(20, salt: 0x2B7E_C0DE))
    func matchesStartAndEndOnScalarsWithTwoByteCodes(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        // Scalars whose keys share bytes: jamo and kana (two-byte codes, continuation 0x80–0xBF),
        // two- and three-byte UTF-8 with the same continuation bytes, ASCII.
        let alphabet: [Unicode.Scalar] = [
            "\u{1100}", "\u{1161}", "\u{11A8}", "\u{1112}", "\u{11AB}", "\u{1140}", "\u{3041}", "\u{304B}", "\u{3093}",
            "\u{3080}", "\u{30FC}", "\u{0111}", "\u{0441}", "\u{0561}", "\u{4E00}", "\u{4E8B}", "\u{3001}", "a", " ",
            // The low six bits of ᅡ, ᆨ and ᆫ's indexes: were a code's second byte those bits
            // alone, these would match inside it.
            "!", "(", "+",
        ]
        for _ in 0..<200 {
            let text = (0..<random.int(in: 0...24)).map { _ in alphabet[random.int(in: 0..<alphabet.count)] }
            let query = (0..<random.int(in: 1...3)).map { _ in alphabet[random.int(in: 0..<alphabet.count)] }
            func string(_ scalars: [Unicode.Scalar]) -> String {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars)
                return String(view)
            }
            // The alphabet folds to itself (no case, no marks, no decomposition, no katakana).
            let textKey = SearchFolding.key(for: string(text))
            #expect(textKey == Self.keyBytes(string(text)), "seed \(seed)")
            let expected = text.count >= query.count
                && (0...(text.count - query.count)).contains { Array(text[$0..<($0 + query.count)]) == query }
            #expect(
                SearchQuery(string(query)).matches(key: textKey) == expected,
                "seed \(seed): \(hex(query)) in \(hex(text))")
        }
    }

    // MARK: Japanese

    @Test func japaneseKanaKanjiAndVoicedKana() {
        let text = "東京で会議があります。データベースのパフォーマンスを確認。ヴァイオリン"
        #expect(finds("東京", in: text))
        #expect(finds("会議", in: text))
        #expect(finds("があります", in: text))
        #expect(finds("かあります", in: text))  // dakuten folds away
        #expect(finds("テータヘース", in: text))
        #expect(finds("ハフォーマンス", in: text))  // handakuten too
        #expect(finds("ウァイオリン", in: text))  // ヴ is ウ + dakuten
        #expect(finds("パフォーマンス", in: text))
        #expect(finds("が", in: "か"))
        #expect(finds("か\u{3099}", in: "が"))  // decomposed voiced kana
        #expect(finds("が", in: "か\u{3099}"))
        #expect(finds("ぽ", in: "ほ"))
        #expect(finds("ぼ", in: "ぽ"))
        #expect(!finds("トウキョウ", in: text))  // kanji stay distinct from kana
        #expect(finds("とうきょう", in: "トウキョウ"))  // hiragana and katakana fold alike
        #expect(finds("トウキョウ", in: "とうきょう"))
        #expect(finds("カ", in: "ｶ"))  // halfwidth katakana are katakana
        #expect(finds("ガギ", in: "ｶﾞｷﾞ"))
        #expect(finds("ｶﾞｷﾞ", in: "がぎ"))
        #expect(finds("パ", in: "ﾊﾟ"))
        #expect(finds("ゞ", in: "ヾ"))
        #expect(finds("ー", in: "ｰ"))  // the prolonged sound mark stays itself
        #expect(!finds("ー", in: "-"))
        #expect(finds("東京　タワー", in: "東京 タワー"))  // the ideographic space is a space
        #expect(SearchFolding.key(for: "ガギグゲゴ") == SearchFoldingTests.keyBytes("かきくけこ"))
        #expect(SearchFolding.key(for: "ｶﾞｷﾞ") == SearchFoldingTests.keyBytes("かき"))
    }

    /// Kana kept distinct (`SearchOptions(foldsKana: false)`): katakana and hiragana differ,
    /// halfwidth katakana still fold to katakana, and nothing else changes.
    @Test func kanaDistinct() {
        let distinct = SearchOptions(foldsKana: false)
        func findsDistinct(_ query: String, in text: String) -> Bool {
            SearchQuery(query, options: distinct).matches(key: SearchFolding.key(for: text, options: distinct))
        }
        #expect(!findsDistinct("とうきょう", in: "トウキョウ"))
        #expect(!findsDistinct("トウキョウ", in: "とうきょう"))
        #expect(findsDistinct("ガギ", in: "ｶﾞｷﾞ"))
        #expect(findsDistinct("カキ", in: "ｶﾞｷﾞ"))
        #expect(!findsDistinct("がぎ", in: "ｶﾞｷﾞ"))
        #expect(findsDistinct("がぎ", in: "かき"))
        #expect(findsDistinct("ABC", in: "ａｂｃ"))
        #expect(SearchFolding.key(for: "ガギ", options: distinct) == SearchFoldingTests.keyBytes("カキ"))
        #expect(SearchFolding.key(for: "cafe Straße", options: distinct) == SearchFolding.key(for: "cafe strasse"))
        #expect(SearchOptions().foldsKana)
        #expect(SearchQuery("カ").options == SearchOptions())
    }

    // MARK: Emoji

    @Test func emojiMatchThemselves() {
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦"
        let text = "plans 😀 with \(family), 👍🏽 and 🇯🇵🇫🇷 flags, 1️⃣ keycap, 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
        #expect(SearchFolding.key(for: "😀👍🏽🇯🇵") == Array("😀👍🏽🇯🇵".utf8))
        #expect(finds("😀", in: text))
        #expect(finds(family, in: text))
        #expect(finds("👩", in: text))  // a person inside the family
        #expect(finds("👍🏽", in: text))
        #expect(finds("👍", in: text))
        #expect(!finds("👍🏿", in: text))
        #expect(finds("🇯🇵", in: text))
        #expect(finds("🇫🇷", in: text))
        #expect(finds("🇯🇵🇫🇷", in: text))
        #expect(!finds("🇵🇫", in: text))  // straddles two flags
        #expect(finds("🇯", in: text))  // the first half of a flag
        #expect(!finds("🇵", in: text))  // the second half is not a flag's start
        #expect(finds("🇵", in: "🇵🇫"))
        #expect(!finds("🇫", in: "🇵🇫"))
        #expect(finds("🇦🇦", in: "🇦🇦🇦🇦"))
        #expect(finds("1️⃣", in: text))
        #expect(finds("1\u{20E3}", in: text))  // the variation selector folds away, the keycap stays
        #expect(!finds("1 ", in: text))
        #expect(finds("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", in: text))
        #expect(finds("❤", in: "I ❤️ it"))  // variation selectors are nonspacing marks
        #expect(finds("❤️", in: "I ❤ it"))
        #expect(!finds("😃", in: text))
    }

    // MARK: Empty queries

    @Test func emptyQueries() {
        for query in ["", "\u{301}", "\u{301}\u{308}\u{3099}", "\u{FE0F}"] {
            let compiled = SearchQuery(query)
            #expect(compiled.isEmpty)
            #expect(compiled.key.isEmpty)
            #expect(compiled.matches(key: SearchFolding.key(for: "anything")))
            #expect(compiled.matches(key: []))
            #expect(compiled.matches(key: ArraySlice<UInt8>()))
        }
        for query in [" ", "\n", "a", "\u{200D}", "ᄀ"] {
            #expect(!SearchQuery(query).isEmpty, "\(query.debugDescription)")
        }
        #expect(!SearchQuery(" ").matches(key: SearchFolding.key(for: "nospace")))
        #expect(SearchFolding.key(for: "").isEmpty)
        #expect(!SearchQuery("a").matches(key: []))
    }

    // MARK: Keys in pieces

    /// Keys concatenate; `appendKey` takes any collection of bytes with integer indices,
    /// contiguous or not; texts longer than one chunk fold like their pieces, wherever a chunk
    /// boundary falls inside a scalar.
    @Test(arguments: testSeeds(6, salt: 0x5EA2_C001))
    func keysConcatenateAndChunk(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let pieces = (0..<random.int(in: 1...400)).map { _ in
            RandomText.string(random.int(in: 0...120), using: &random)
        }
        let text = pieces.joined()
        let whole = SearchFolding.key(for: text)
        #expect(whole == pieces.flatMap { SearchFolding.key(for: $0) }, "seed \(seed)")
        let utf8 = Array(text.utf8)
        var appended: [UInt8] = [1, 2, 3]
        SearchFolding.appendKey(forUTF8: utf8[...], to: &appended)
        #expect(appended == [1, 2, 3] + whole, "seed \(seed)")
        var lazy: [UInt8] = []
        SearchFolding.appendKey(forUTF8: (0..<utf8.count).lazy.map { utf8[$0] }, to: &lazy)
        #expect(lazy == whole, "seed \(seed)")
        var fromData: [UInt8] = []
        SearchFolding.appendKey(forUTF8: Data(utf8), to: &fromData)
        #expect(fromData == whole, "seed \(seed)")
    }

    /// Chunk boundaries (every 16 KiB of input) inside two-, three- and four-byte scalars.
    @Test func chunkBoundariesInsideScalars() {
        for (prefix, unit) in [("", "한"), ("a", "한"), ("ab", "한"), ("", "É"), ("a", "É"), ("", "😀"), ("a", "😀"), ("ab", "🇯"), ("abc", "Ǆ")] {
            let count = 3 * SearchFolding.chunkBytes / unit.utf8.count + 7
            let text = prefix + String(repeating: unit, count: count)
            let expected = SearchFolding.key(for: prefix) + Array(repeating: SearchFolding.key(for: unit), count: count).joined()
            #expect(SearchFolding.key(for: text) == expected, "\(prefix) + \(unit) × \(count)")
        }
    }

    /// Bytes that are not UTF-8 give some key, without crashing or reading out of bounds; any
    /// bytes read back as a key give scalars (U+FFFD for what is no scalar), one per byte at
    /// most, and a key of valid text reads back exactly.
    @Test(arguments: testSeeds(4, salt: 0x5EA2_C002))
    func invalidUTF8IsHarmless(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            let bytes = (0..<random.int(in: 0...40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var key: [UInt8] = []
            SearchFolding.appendKey(forUTF8: bytes, to: &key)
            #expect(key.count <= 3 * bytes.count, "seed \(seed)")
            var again: [UInt8] = []
            SearchFolding.appendKey(forUTF8: bytes, to: &again)
            #expect(key == again, "seed \(seed)")
            #expect(SearchFolding.keyScalars(bytes).count <= bytes.count, "seed \(seed)")
            #expect(SearchFolding.keyScalars(key).count <= key.count, "seed \(seed)")
            let text = String(decoding: bytes, as: UTF8.self)
            let textKey = SearchFolding.key(for: text)
            #expect(Self.keyBytes(Self.keyText(textKey)) == textKey, "seed \(seed)")
        }
    }

    // MARK: Matching

    /// The scan (sixteen positions at a time, then one at a time) against a naive search, for
    /// every needle length and position near the ends, over a small alphabet so that partial
    /// matches abound; and key slices.
    @Test(arguments: testSeeds(6, salt: 0x5EA2_C003))
    func scanMatchesNaiveSearch(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let alphabet = Array("aab c".utf8)
        for _ in 0..<400 {
            let haystack = (0..<random.int(in: 0...80)).map { _ in random.pick(alphabet) }
            let needle: [UInt8]
            if !haystack.isEmpty, random.chance(0.5) {
                let start = random.int(in: 0..<haystack.count)
                needle = Array(haystack[start..<random.int(in: (start + 1)...haystack.count)])
            } else {
                needle = (0..<random.int(in: 1...6)).map { _ in random.pick(alphabet) }
            }
            let query = SearchQuery(String(decoding: needle, as: UTF8.self))
            #expect(query.key == needle)
            let expected = Self.naiveContains(haystack[...], needle)
            #expect(query.matches(key: haystack) == expected, "seed \(seed)")
            let lower = random.int(in: 0...haystack.count)
            let upper = random.int(in: lower...haystack.count)
            let slice = haystack[lower..<upper]
            #expect(query.matches(key: slice) == Self.naiveContains(slice, needle), "seed \(seed)")
        }
    }

    static func naiveContains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        if needle.isEmpty { return true }
        if haystack.count < needle.count { return false }
        return (haystack.startIndex...(haystack.endIndex - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    /// Probes pick rare bytes, distinct positions, and different bytes when there are some.
    @Test func probesArePlausible() {
        for text in ["ab", "aa", "the cat", "회의록", "東京タワー", "🇯🇵", "zzzzzzzzzzzzzzzzzzzz"] {
            let needle = SearchFolding.key(for: text)
            let (first, second) = SearchQuery.probes(for: needle)
            #expect(first < second && second < needle.count, "\(text)")
            if Set(needle).count > 1 { #expect(needle[first] != needle[second], "\(text)") }
        }
        #expect(SearchQuery.probes(for: [0x61]) == (0, 0))
        let cat = SearchFolding.key(for: "the cat")
        let (first, second) = SearchQuery.probes(for: cat)
        #expect(cat[first] != 0x20 && cat[second] != 0x20)
    }

    // MARK: Differential test against Foundation

    /// Scalars where these rules and Foundation's folding legitimately differ, left out of the
    /// random texts:
    /// - Enclosing marks (Me) such as the keycap U+20E3: Foundation's diacritic folding drops them;
    ///   search keeps them, so "1️⃣" does not match "1".
    /// - Emoji skin-tone modifiers U+1F3FB–U+1F3FF (Sk): Foundation's diacritic folding drops
    ///   them after some letters ("a🏽" → "a"); search keeps them, so "👍🏽" never matches "👍🏿".
    ///
    /// Foundation has no kana folding: the oracle folds katakana to hiragana itself.
    static let excludedFromOracle: Set<UInt32> = [
        0x20DD, 0x20DE, 0x20DF, 0x20E0, 0x20E2, 0x20E3, 0x20E4,  // enclosing marks
        0x1F3FB, 0x1F3FC, 0x1F3FD, 0x1F3FE, 0x1F3FF,  // skin-tone modifiers
    ]

    /// Alphabets beyond `RandomText`'s: accented Latin and Vietnamese, Greek (monotonic and
    /// polytonic), Cyrillic, voiced kana, every kind of Hangul, symbols with decompositions, and
    /// letters that case folding maps elsewhere than lowercase.
    static let alphabets: [[Unicode.Scalar]] = [
        Array("ÀÁÂÃÄÅàáâãäåÇçÈÉÊËèéêëÌÍÎÏìíîïÑñÒÓÔÕÖØòóôõöøÙÚÛÜùúûüÝýÿŒœŁłĐđĞğİıŞşŽžŸ".unicodeScalars)
            + Array("ẠạẢảẤấẦầẨẩẪẫẬậỆệỮữƠơƯư ".unicodeScalars)
            + ["\u{300}", "\u{301}", "\u{302}", "\u{303}", "\u{308}", "\u{323}", "\u{327}", "\u{30C}", "\u{31B}"],
        Array("ΑΒΓΔΕΘΙΛΜΝΟΠΡΣΤΥΦΩαβγδεθιλμνοπρστυφωςάέήίόύώΆΈΉΊΌΎΏϊϋΐΰἀἁᾳᾼῆὈὀ ".unicodeScalars)
            + ["\u{301}", "\u{308}", "\u{313}", "\u{342}", "\u{345}"],
        Array("АБВГДЕЁЖЗИЙКЛМНОПРСТУЭЮЯабвгдеёжзийклмнопрстуэюяЇїЎўҐґ ".unicodeScalars) + ["\u{306}", "\u{308}"],
        Array("がぎぐげござじずぜぞだばびぶべぼぱぴぷぺぽゔガギグゴパピプペポヴヷかきはほカハウ。".unicodeScalars)
            + ["\u{3099}", "\u{309A}", "\u{FF76}", "\u{FF9E}", "\u{FF9F}", "\u{FF8A}", "\u{FF21}", "\u{FF41}", "\u{3000}", "ヽ", "ヾ", "ゝ"],
        Array("가각한국어뷁힣".unicodeScalars) + ["\u{1100}", "\u{1112}", "\u{1161}", "\u{1175}", "\u{11A8}", "\u{11C2}", "\u{3131}", "\u{314F}", " "],
        Array("≠≤≮ÅΩKµſϐϑϕϖϰϱϵ1#*ßẞﬀﬁﬂﬃﬄﬅﬆŉẚﬓﬔﬕﬖﬗևsSfiFIＳ".unicodeScalars)
            + ["\u{FE0F}", "\u{200D}", "\u{1F600}", "\u{1F1EF}", "\u{1F1F5}", "\u{1F3FD}", "\u{F900}", "\u{212B}", "\u{2126}", "\u{212A}"],
    ]

    /// A random text: `RandomText`'s alphabets and the ones above, excluded scalars left out.
    static func randomText(_ length: Int, using random: inout SeededRandom) -> [Unicode.Scalar] {
        var scalars: [Unicode.Scalar] = []
        let mine = random.pick(alphabets)
        while scalars.count < length {
            let scalar: Unicode.Scalar
            if random.chance(0.4) {
                scalar = RandomText.scalars(1, using: &random)[0]
            } else {
                scalar = random.pick(random.chance(0.8) ? mine : random.pick(alphabets))
            }
            if !excludedFromOracle.contains(scalar.value) { scalars.append(scalar) }
        }
        return scalars
    }

    /// The oracle's key: Foundation's NFD, nonspacing marks removed, Foundation's case-, width-
    /// and diacritic-insensitive folding, katakana to hiragana, again until nothing changes.
    static func oracleKey(_ text: String) -> [Unicode.Scalar] {
        var current = Array(text.decomposedStringWithCanonicalMapping.unicodeScalars).filter { !isNonspacingMark($0) }
        let hiragana = { (scalar: Unicode.Scalar) -> Unicode.Scalar in
            (0x30A1...0x30F6).contains(scalar.value) || (0x30FD...0x30FE).contains(scalar.value)
                ? Unicode.Scalar(scalar.value - 0x60)! : scalar
        }
        // Foundation's width folding (on Linux) leaves the ideographic space, and its diacritic
        // folding the halfwidth (semi-)voiced sound marks: folded here as Unicode maps them.
        current = current.compactMap { scalar in
            scalar.value == 0x3000 ? " " : (0xFF9E...0xFF9F).contains(scalar.value) ? nil : scalar
        }
        for _ in 0..<4 {
            let folded = current.string.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            let next = Array(folded.decomposedStringWithCanonicalMapping.unicodeScalars).filter { !isNonspacingMark($0) }.map(hiragana)
            if next == current { return current }
            current = next
        }
        return current
    }

    /// Whether the oracle's key of a text contains the oracle's key of a query, scalar by scalar,
    /// a query that starts with a regional indicator only at the start of a flag.
    static func oracleContains(_ text: [Unicode.Scalar], _ query: [Unicode.Scalar]) -> Bool {
        if query.isEmpty { return true }
        if text.count < query.count { return false }
        let isRegional = { (scalar: Unicode.Scalar) in (0x1F1E6...0x1F1FF).contains(scalar.value) }
        for start in 0...(text.count - query.count) where text[start..<(start + query.count)].elementsEqual(query) {
            if isRegional(query[0]) {
                var before = 0
                while start - before - 1 >= 0, isRegional(text[start - before - 1]) { before += 1 }
                if before % 2 == 1 { continue }
            }
            return true
        }
        return false
    }

    /// `scalars` transformed the way a user's query might differ from the text: each scalar
    /// uppercased or lowercased (simple mappings), the whole in NFC or NFD, marks dropped.
    static func variant(of scalars: [Unicode.Scalar], using random: inout SeededRandom) -> String {
        var changed = scalars.map { scalar -> Unicode.Scalar in
            guard random.chance(0.3) else { return scalar }
            let mapped = random.chance(0.5) ? scalar.properties.uppercaseMapping : scalar.properties.lowercaseMapping
            return mapped.unicodeScalars.count == 1 ? mapped.unicodeScalars.first! : scalar
        }
        if random.chance(0.2) { changed = changed.filter { !isNonspacingMark($0) } }
        let text = changed.string
        switch random.int(in: 0..<3) {
        case 0: return text.precomposedStringWithCanonicalMapping
        case 1: return text.decomposedStringWithCanonicalMapping
        default: return text
        }
    }

    /// Random texts fold to exactly the oracle's key, and random queries (pieces of the text in
    /// another case or normalization form, or unrelated) match exactly when the oracle says.
    @Test(arguments: testSeeds(20, salt: 0x5EA2_C004))
    func differentialAgainstFoundation(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<25 {
            let scalars = Self.randomText(random.int(in: 0...60), using: &random)
            let text = scalars.string
            let key = SearchFolding.key(for: text)
            let expected = Self.oracleKey(text)
            let keyScalars = SearchFolding.keyScalars(key)
            #expect(
                keyScalars == expected,
                "seed \(seed): \(hex(scalars)) folds to \(hex(keyScalars)), oracle \(hex(expected))")
            for _ in 0..<6 {
                let query: String
                if !scalars.isEmpty, random.chance(0.7) {
                    let start = random.int(in: 0..<scalars.count)
                    let end = random.int(in: (start + 1)...min(scalars.count, start + 12))
                    query = Self.variant(of: Array(scalars[start..<end]), using: &random)
                } else {
                    query = Self.randomText(random.int(in: 1...4), using: &random).string
                }
                let matches = SearchQuery(query).matches(key: key)
                let oracle = Self.oracleContains(expected, Self.oracleKey(query))
                #expect(
                    matches == oracle,
                    "seed \(seed): query \(hex(query.unicodeScalars)) in \(hex(scalars)): \(matches), oracle \(oracle)")
            }
        }
    }
}
