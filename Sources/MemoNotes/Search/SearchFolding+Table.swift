import MemoCRDT
// The lookup table behind `SearchFolding`: what every scalar of the Basic Multilingual Plane folds
// to, built once per process (once per kana option) from the generated tables (canonical
// decompositions, case folding exceptions, width foldings), the kana rule and the standard
// library's Unicode properties (lowercase mappings and general categories).

extension SearchFolding {
    /// The katakana that fold to hiragana (when kana fold): U+30A1–U+30F6 and the iteration marks
    /// U+30FD–U+30FE, each to the scalar 0x60 below it (U+3041–U+3096, U+309D–U+309E).
    static func isFoldedKatakana(_ value: UInt32) -> Bool {
        value &- 0x30A1 <= 0x30F6 - 0x30A1 || value &- 0x30FD <= 1
    }

    /// What a katakana scalar (`isFoldedKatakana`) folds to.
    static let katakanaToHiragana: UInt32 = 0x60

    /// BMP ranges that hold no nonspacing mark, no letter with a lowercase form and no canonical
    /// decomposition, so the table leaves them out without asking: CJK Unified Ideographs and
    /// Extension A, Yi syllables, Hangul syllables (decomposed algorithmically), surrogates and
    /// the Private Use Area. A test checks the claim.
    static let plainRanges: [ClosedRange<UInt32>] = [
        0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA48F, 0xAC00...0xD7A3, 0xD800...0xDFFF,
        0xE000...0xF8FF,
    ]

    /// The fold of every BMP scalar, as a two-level table: `pages[scalar >> 8]` is a block of 256
    /// entries in `entries`, shared by every page that folds alike (all plain pages share block 0).
    ///
    /// An entry is `identity` (0: the scalar's UTF-8 is its key), or its key ready to store:
    /// up to 3 bytes in memory order in the low 24 bits and their count in bits 24–25 (a count of
    /// 0, for a nonspacing mark, is `drop`), or, with the top bit set, the index of an expansion
    /// too long for that, whose UTF-8 is `expansionBytes[expansionStarts[k] ..<
    /// expansionStarts[k + 1]]`.
    struct FoldTable: Sendable {
        /// The entry of a scalar that folds to itself.
        static let identity: UInt32 = 0
        /// The entry of a scalar that folds to nothing.
        static let drop: UInt32 = 1 << 28
        /// The flag of an expansion's entry.
        static let expansionFlag: UInt32 = 1 << 31

        /// For each of the 256 pages of 256 scalars, its block in `entries`.
        let pages: [UInt16]
        /// Blocks of 256 entries.
        let entries: [UInt32]
        /// The key of every expansion, one after another.
        let expansionBytes: [UInt8]
        /// Where each expansion starts in `expansionBytes`, and where the last one ends.
        let expansionStarts: [UInt32]
        /// For each Hangul syllable index divided by 28 (a leading consonant and a vowel), the
        /// keys of its two jamo (2 bytes each), in memory order (little-endian).
        let hangulLeadingVowel: [UInt32]
        /// For each trailing consonant index (0: none), the key of its jamo in the low 2 bytes.
        let hangulTrailing: [UInt32]

        /// The table that folds kana (the default), built on first use.
        static let shared = FoldTable(foldsKana: true)
        /// The table that keeps hiragana and katakana distinct, built on first use (only by a
        /// search that asks for it).
        static let kanaDistinct = FoldTable(foldsKana: false)

        /// The table for `options`.
        static func table(for options: SearchOptions) -> FoldTable {
            options.foldsKana ? shared : kanaDistinct
        }

        /// Builds the table from `canonicalBases`, `canonicalExpansions`,
        /// `caseFoldingExceptions`, `widthFoldings`, the kana rule (if `foldsKana`) and the
        /// standard library's Unicode properties.
        init(foldsKana: Bool) {
            assert(SearchFolding.plainRanges.allSatisfy { $0.lowerBound >= 0x3400 }, "FoldRules.mayFold looks plain ranges up from U+3400")
            let rules = FoldRules(foldsKana: foldsKana)
            var pages = [UInt16](repeating: 0, count: 256)
            var entries = [UInt32](repeating: FoldTable.identity, count: 256)  // block 0: plain
            var expansionBytes: [UInt8] = []
            var expansionStarts: [UInt32] = [0]
            var expansions: [[UInt8]: UInt32] = [:]
            var block = [UInt32](repeating: FoldTable.identity, count: 256)
            for page in 0..<256 {
                // A page wholly inside a plain range folds nothing (block 0): a third of the
                // pages are CJK, Hangul syllables, surrogates and private use.
                let pageRange = UInt32(page << 8)...UInt32(page << 8 | 0xFF)
                if SearchFolding.plainRanges.contains(where: { $0.contains(pageRange.lowerBound) && $0.contains(pageRange.upperBound) }) {
                    continue
                }
                var folds = false
                for low in 0..<256 {
                    block[low] = FoldTable.identity
                    let value = UInt32(page << 8 | low)
                    guard let scalar = Unicode.Scalar(value) else { continue }
                    // What folds to itself and keeps its UTF-8 in the key encoding is the
                    // identity entry, found without building its key (most scalars).
                    if !rules.mayFold(scalar) && SearchFolding.twoByteKeyIndex(value) == nil { continue }
                    // A scalar that folds to itself keeps its UTF-8 (the identity entry), unless
                    // the key encoding writes it in two bytes.
                    let folded = rules.mayFold(scalar) ? rules.fold(scalar) : [scalar]
                    var utf8: [UInt8] = []
                    for folded in folded { SearchFolding.appendKeyEncoding(of: folded, to: &utf8) }
                    if utf8.elementsEqual(UTF8.encode(scalar)!) { continue }
                    folds = true
                    // The folding loop's output bound: 3 bytes out per byte in. No fold comes
                    // near it (a test checks every scalar); one that did would be left unfolded.
                    guard utf8.count <= 3 * UTF8.width(scalar) else { continue }
                    if utf8.isEmpty {
                        block[low] = FoldTable.drop
                    } else if utf8.count <= 3 {
                        var entry = UInt32(utf8.count) << 24
                        for (k, byte) in utf8.enumerated() { entry |= UInt32(byte) << (8 * k) }
                        block[low] = entry
                    } else if let known = expansions[utf8] {
                        block[low] = known
                    } else {
                        let entry = FoldTable.expansionFlag | UInt32(expansions.count)
                        expansions[utf8] = entry
                        block[low] = entry
                        expansionBytes.append(contentsOf: utf8)
                        expansionStarts.append(UInt32(expansionBytes.count))
                    }
                }
                guard folds else { continue }  // block 0
                let blockCount = entries.count / 256
                let known = (1..<blockCount).first { entries[($0 * 256)..<($0 * 256 + 256)].elementsEqual(block) }
                if let known {
                    pages[page] = UInt16(known)
                } else {
                    pages[page] = UInt16(blockCount)
                    entries.append(contentsOf: block)
                }
            }
            self.pages = pages
            self.entries = entries
            self.expansionBytes = expansionBytes
            self.expansionStarts = expansionStarts

            func jamo(_ value: UInt32) -> UInt32 {
                var bytes: [UInt8] = []
                SearchFolding.appendKeyEncoding(of: Unicode.Scalar(value)!, to: &bytes)
                precondition(bytes.count == 2, "a conjoining jamo's key is 2 bytes")
                return UInt32(bytes[0]) | UInt32(bytes[1]) << 8
            }
            let vowels = SearchFolding.hangulVowelCount
            hangulLeadingVowel = (0..<(19 * vowels)).map { index in
                jamo(SearchFolding.hangulLeadingBase + index / vowels)
                    | jamo(SearchFolding.hangulVowelBase + index % vowels) << 16
            }
            hangulTrailing = (0..<SearchFolding.hangulTrailingCount).map { index in
                index == 0 ? 0 : jamo(SearchFolding.hangulTrailingBase + index)
            }
        }

        /// Calls `body` with pointers to the table's arrays.
        func withLookup<R>(_ body: (SearchFolding.Lookup) -> R) -> R {
            pages.withUnsafeBufferPointer { pages in
                entries.withUnsafeBufferPointer { entries in
                    expansionBytes.withUnsafeBufferPointer { expansionBytes in
                        expansionStarts.withUnsafeBufferPointer { expansionStarts in
                            hangulLeadingVowel.withUnsafeBufferPointer { leadingVowel in
                                hangulTrailing.withUnsafeBufferPointer { trailing in
                                    body(
                                        SearchFolding.Lookup(
                                            pages: pages.baseAddress!, entries: entries.baseAddress!,
                                            expansionBytes: expansionBytes.baseAddress!,
                                            expansionStarts: expansionStarts.baseAddress!,
                                            hangulLeadingVowel: leadingVowel.baseAddress!,
                                            hangulTrailing: trailing.baseAddress!))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The folding rules for one scalar of the BMP other than a Hangul syllable, straight from
    /// the data: what `FoldTable` is built from, and what tests check it against.
    struct FoldRules {
        /// For each BMP scalar: 0, or a tag in bits 24–31 and a value: `single` and the scalar its
        /// canonical decomposition keeps, `expansion` and the offset of its entry in
        /// `canonicalExpansions`, `width` and the scalar it width-folds to, or `caseFolding` and
        /// the offset of its entry in `caseFoldingExceptions`. The first rule that applies wins
        /// (a scalar with a canonical decomposition never has a width folding).
        let special: [UInt32]
        /// Whether katakana fold to hiragana.
        let foldsKana: Bool
        static let single: UInt32 = 1 << 24
        static let expansion: UInt32 = 2 << 24
        static let caseFolding: UInt32 = 3 << 24
        static let width: UInt32 = 4 << 24

        init(foldsKana: Bool = true) {
            self.foldsKana = foldsKana
            var special = [UInt32](repeating: 0, count: 0x10000)
            let cases = SearchFolding.caseFoldingExceptions
            var index = 0
            while index < cases.count {
                special[Int(cases[index])] = FoldRules.caseFolding | UInt32(index)
                index += 2 + Int(cases[index + 1])
            }
            for packed in SearchFolding.widthFoldings {
                special[Int(packed >> 16)] = FoldRules.width | packed & 0xFFFF
            }
            for packed in SearchFolding.canonicalBases {
                special[Int(packed >> 16)] = FoldRules.single | packed & 0xFFFF
            }
            let flat = SearchFolding.canonicalExpansions
            index = 0
            while index < flat.count {
                special[Int(flat[index])] = FoldRules.expansion | UInt32(index)
                index += 2 + Int(flat[index + 1])
            }
            self.special = special
        }

        /// Whether `scalar` may fold to something other than itself (a quick filter: false
        /// for the plain ranges and for most other scalars, without building anything).
        func mayFold(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            if value > 0xFFFF { return true }
            // (Every plain range starts at U+3400 or later: the scripts below it are not looked up.)
            if value >= 0x3400, SearchFolding.plainRanges.contains(where: { $0.contains(value) }) { return false }
            if special[Int(value)] != 0 { return true }
            if foldsKana, SearchFolding.isFoldedKatakana(value) { return true }
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark:
                return true
            case .uppercaseLetter, .titlecaseLetter, .lowercaseLetter, .otherLetter, .modifierLetter,
                .letterNumber, .otherSymbol:
                // Only letters, letter numbers (Ⅻ) and symbols (Ⓐ) have lowercase forms.
                return properties.changesWhenLowercased
            default:
                return false
            }
        }

        /// What `scalar` becomes by the first rule that applies to it (nonspacing mark dropped,
        /// canonical decomposition, width folding, case folding, kana), or nil when none does.
        func step(_ scalar: Unicode.Scalar) -> [Unicode.Scalar]? {
            let value = scalar.value
            let entry = value <= 0xFFFF ? special[Int(value)] : 0
            let properties = scalar.properties
            if properties.generalCategory == .nonspacingMark { return [] }
            switch entry & 0xFF00_0000 {
            case FoldRules.single, FoldRules.width:
                return [Unicode.Scalar(entry & 0xFFFF)!]
            case FoldRules.expansion:
                let offset = Int(entry & 0xFFFF)
                let flat = SearchFolding.canonicalExpansions
                return (0..<Int(flat[offset + 1])).map { Unicode.Scalar(flat[offset + 2 + $0])! }
            case FoldRules.caseFolding:
                let offset = Int(entry & 0xFFFF)
                let flat = SearchFolding.caseFoldingExceptions
                let folded = (0..<Int(flat[offset + 1])).map { Unicode.Scalar(flat[offset + 2 + $0])! }
                return folded == [scalar] ? nil : folded  // a Cherokee capital stays itself
            default:
                if properties.changesWhenLowercased { return Array(properties.lowercaseMapping.unicodeScalars) }
                if foldsKana, SearchFolding.isFoldedKatakana(value) {
                    return [Unicode.Scalar(value - SearchFolding.katakanaToHiragana)!]
                }
                return nil
            }
        }

        /// What `scalar` folds to: the rules of `step`, repeated until nothing changes.
        func fold(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
            var current = [scalar]
            for _ in 0..<8 {
                var next: [Unicode.Scalar] = []
                var changed = false
                for scalar in current {
                    if let folded = step(scalar) {
                        next.append(contentsOf: folded)
                        changed = true
                    } else {
                        next.append(scalar)
                    }
                }
                if !changed { break }
                current = next
            }
            return current  // settled: a test checks that folding twice changes nothing
        }
    }
}
