import MemoCRDT
/// Folding text for search.
///
/// A search key is a text with case, diacritics, width, normalization form and (by default) the
/// difference between hiragana and katakana folded away, written in the key encoding (below), so
/// that a plain byte substring search finds "Café" for "cafe", "STRASSE" for "straße", "ＡＢＣ"
/// for "abc", precomposed Hangul for jamo typed one by one, and "ガギ" for "ｶﾞｷﾞ" or "がぎ", as
/// the platforms' searches do. Each Unicode scalar folds on its own, independently of its
/// neighbours, by the first of these rules that applies to it:
///
/// 1. **Marks.** Nonspacing marks (General_Category Mn) are dropped: the combining diacritics
///    U+0300–U+036F, the kana voicing marks U+3099–U+309A, Hebrew and Arabic vowel points, the
///    Greek ypogegrammeni U+0345, variation selectors (so "❤️" and "❤" fold alike), and so on.
///    Spacing and enclosing marks stay (U+20E3 keeps a keycap emoji whole), and conjoining jamo
///    are letters, never marks.
/// 2. **Canonical decomposition.** A Hangul syllable (U+AC00–U+D7A3) becomes its conjoining jamo,
///    leading, vowel and trailing if any (U+1100–U+11FF), computed as Unicode specifies. Any other
///    scalar of the Basic Multilingual Plane becomes its canonical decomposition (NFD), from the
///    generated tables in `SearchFolding+Decompositions.swift`: é → e + U+0301, ệ → e + U+0323 +
///    U+0302, ά → α + U+0301, й → и + U+0306, が → か + U+3099, U+212B ANGSTROM SIGN → A + U+030A,
///    U+F900 → U+8C48. Scalars outside the BMP are not decomposed (none a notes app needs are).
/// 3. **Width.** A scalar whose decomposition type is <wide> or <narrow> becomes its compatibility
///    mapping (`SearchFolding+CaseAndWidth.swift`, generated from Unicode's data): the ideographic
///    space U+3000 → space, fullwidth ASCII U+FF01–U+FF5E → ASCII ("ＡＢＣ" → "ABC"), halfwidth
///    katakana and CJK punctuation U+FF61–U+FF9F → their ordinary forms, the halfwidth voiced and
///    semi-voiced sound marks U+FF9E–U+FF9F → U+3099–U+309A (then dropped as marks), halfwidth
///    Hangul U+FFA0–U+FFDC → Hangul compatibility jamo (U+3130–U+318F, which stay as they are:
///    they are not conjoining jamo), and the fullwidth and halfwidth symbols U+FFE0–U+FFEE.
///    No other compatibility form folds: "ﬁ" folds only by case folding, "①" is not "1", "㌔" is
///    not "キロ".
/// 4. **Case.** Full case folding (Unicode's CaseFolding.txt, statuses C and F): the standard
///    library's full lowercase mapping, corrected where case folding differs from it by the
///    generated `caseFoldingExceptions`: ß and ẞ → "ss", ﬁ → "fi", ﬀ → "ff", ﬆ → "st", ŉ → "ʼn",
///    the Armenian ligatures (և → "եւ"), ς → σ, ſ → s, µ → μ, the Greek symbol forms ϐ ϑ ϕ ϖ ϰ ϱ
///    ϵ, the Cyrillic variant forms U+1C80–U+1C88, and Cherokee small letters → capitals. A
///    precomposed letter whose case folding expands (ΐ, ǰ, ᾳ) has decomposed by rule 2 first, so
///    its marks are dropped like any others': "ᾳ" folds to "α", not "αι".
/// 5. **Kana** (``SearchOptions/foldsKana``, on by default). Katakana U+30A1–U+30F6 become the
///    hiragana U+3041–U+3096, and ヽ ヾ become ゝ ゞ. The prolonged sound mark ー, the middle dot
///    ・ and the small katakana extensions U+31F0–U+31FF stay as they are.
///
/// The rules repeat until nothing changes, so a key never holds a scalar that would fold further,
/// and a text folds to the same key in any normalization form. Everything else, emoji included,
/// is kept exactly. One scalar may fold to several ("ß" → "ss", "한" → three jamo) and several
/// to what one folds to ("ｶﾞ" → "か", like "ガ"); ``SearchQuery/matchRanges(in:)`` maps a match
/// back to the text's own scalars.
///
/// `Tests/Tools/search-folding/generate.py` generates the case and width tables and a reference
/// key for every assigned scalar from Python's `unicodedata` (Unicode 14.0); the tests compare
/// every scalar's key with it. The standard library (Swift 6.3: Unicode 16.0) supplies lowercase
/// mappings and general categories, so scalars added after Unicode 14.0 fold by those alone.
/// Keys are never stored: a change of these rules or of the encoding needs no format version.
///
/// **The key encoding** is UTF-8, except for the scalars Korean and Japanese text folds to
/// most: the conjoining jamo U+1100–U+11FF (every Hangul syllable becomes two or three of them)
/// and the hiragana and katakana block U+3040–U+30FF. Each of those is written in two bytes
/// instead of three: with `k` its index (U+1100 + k for a jamo, U+3040 + k − 256 for kana), a
/// lead byte 0xF5 + `k >> 6` (0xF5–0xFB, bytes UTF-8 never uses) and a continuation byte
/// 0x80 | `k & 0x3F`. A syllable's key is then 4 or 6 bytes instead of 6 or 9, and a kana's 2
/// instead of 3, and a search scans and writes that much less (BENCHMARKS.md, "Search keys in
/// two-byte codes, checked by stamp"). Like UTF-8, the encoding marks where each scalar starts (a
/// lead is never a continuation byte, and a lead tells the length), so a substring match of
/// one key in another starts and ends on scalar boundaries. `keyScalars(_:)` reads a key back.
///
/// Folding is linear in the input and allocates the key and a scratch buffer of at most 48 KiB.
/// The first call builds a lookup table, once per process and kana option (a few milliseconds).
package enum SearchFolding {
    /// The folded `text` in the key encoding (a "search key").
    ///
    /// - Parameters:
    ///   - text: Any text.
    ///   - options: What else to fold (by default, everything: kana too).
    /// - Returns: The key, at most three times as long as `text`'s UTF-8 (an expansion such as
    ///   "ŉ" → "ʼn"; a Hangul syllable's 3 bytes become 4 or 6).
    package static func key(for text: String, options: SearchOptions = SearchOptions()) -> [UInt8] {
        var key: [UInt8] = []
        var text = text
        var invalid = false
        text.withUTF8 { bytes in append(utf8: bytes, to: &key, invalid: &invalid, table: .table(for: options)) }
        return key
    }

    /// Appends the key of valid UTF-8 `bytes` to `key`.
    ///
    /// Appending the keys of two texts gives the key of their concatenation (folding looks at one
    /// scalar at a time), so a key may be built in pieces.
    ///
    /// - Parameters:
    ///   - bytes: Valid UTF-8: an array, a slice of one, `Data`, an `UnsafeBufferPointer`...
    ///     Contiguous storage is read in place; anything else is copied first. Bytes that are not
    ///     valid UTF-8 give an unspecified key, never a crash or a read out of bounds.
    ///   - key: The key to append to.
    ///   - options: What else to fold (by default, everything: kana too).
    package static func appendKey<C: Collection<UInt8>>(
        forUTF8 bytes: C, to key: inout [UInt8], options: SearchOptions = SearchOptions()
    ) where C.Index == Int {
        let table = FoldTable.table(for: options)
        var invalid = false
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            append(utf8: buffer, to: &key, invalid: &invalid, table: table)
        }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBufferPointer { buffer in append(utf8: buffer, to: &key, invalid: &invalid, table: table) }
        }
    }

    /// Whether `bytes` are valid UTF-8 (shortest forms, no surrogates, at most U+10FFFF): what
    /// ``validatedKey(forUTF8:)`` accepts, checked without folding (ASCII eight bytes at a time).
    /// A notebook decoder checks every text with it and leaves folding to the first search.
    package static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        UTF8Scanning.isValid(bytes)
    }

    /// The key of `bytes` if they are valid UTF-8 (shortest forms, no surrogates, at most
    /// U+10FFFF), else nil: validation and folding (with the default options) in one pass
    /// over the bytes.
    package static func validatedKey(forUTF8 bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var key: [UInt8] = []
        var invalid = false
        append(utf8: bytes, to: &key, invalid: &invalid, table: .shared)
        return invalid ? nil : key
    }

    // MARK: Folding loop

    /// Input bytes folded per pass through the scratch buffer.
    static let chunkBytes = 16 * 1024

    /// Folds `input` chunk by chunk (each ending on a scalar boundary) into a scratch buffer
    /// three times the chunk's size, appending each chunk's output to `key`, with `table`; sets
    /// `invalid` when the bytes are not valid UTF-8.
    static func append(
        utf8 input: UnsafeBufferPointer<UInt8>, to key: inout [UInt8], invalid: inout Bool, table: FoldTable
    ) {
        guard let source = input.baseAddress, !input.isEmpty else { return }
        let scratchCount = 3 * min(input.count, chunkBytes) + 16
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratchCount) { scratch in
            let output = scratch.baseAddress!
            table.withLookup { lookup in
                var start = 0
                while start < input.count {
                    var end = min(input.count, start + chunkBytes)
                    // Back up to the start of a scalar (at most 3 bytes in UTF-8).
                    var backedUp = 0
                    while end < input.count, backedUp < 3, source[end] & 0xC0 == 0x80 {
                        end -= 1
                        backedUp += 1
                    }
                    if end == start { end = min(input.count, start + chunkBytes) }
                    let written = fold(source + start, count: end - start, into: output, lookup, invalid: &invalid)
                    key.append(contentsOf: UnsafeBufferPointer(start: output, count: written))
                    start = end
                }
            }
        }
    }

    /// The fold table's arrays, as pointers for the loop.
    struct Lookup {
        let pages: UnsafePointer<UInt16>
        let entries: UnsafePointer<UInt32>
        let expansionBytes: UnsafePointer<UInt8>
        let expansionStarts: UnsafePointer<UInt32>
        let hangulLeadingVowel: UnsafePointer<UInt32>
        let hangulTrailing: UnsafePointer<UInt32>
    }

    /// Folds `count` bytes at `input` into `output`, which has room for `3 * count + 16` bytes,
    /// and returns the bytes written.
    ///
    /// Output never runs ahead of three bytes per input byte consumed: ASCII is 1 for 1, a
    /// two-byte scalar folds to at most 6 bytes (ŉ → "ʼn" is 3, և → "եւ" 4), a three-byte one to
    /// at most 9 (an expansion, which `FoldTable` checks; a Hangul syllable is 6 at most), a
    /// four-byte one to at most 4 (checked). Some paths store a few bytes past what they keep (a
    /// Hangul syllable stores 8 and keeps 4 or 6), never more than 16 past the bound.
    @inline(__always)
    static func fold(
        _ input: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>,
        _ lookup: Lookup, invalid: inout Bool
    ) -> Int {
        var source = input
        let end = input + count
        var target = output
        var errors = false
        // While 8 bytes remain, no scalar can be cut short: no length checks.
        while end - source >= 8 { step(&source, &target, end: end, wide: true, lookup, errors: &errors) }
        while source < end { step(&source, &target, end: end, wide: false, lookup, errors: &errors) }
        if errors { invalid = true }
        return target - output
    }

    /// Folds the scalar at `source` (or the run of ASCII there) to `target` and moves both past
    /// what it read and wrote. `wide`: at least 8 bytes remain before `end`.
    ///
    /// Sets `errors` for anything that is not valid UTF-8 (a bad continuation byte, an overlong
    /// form, a surrogate, a value past U+10FFFF, a bad or truncated lead), folding on regardless.
    @inline(__always)
    static func step(
        _ source: inout UnsafePointer<UInt8>, _ target: inout UnsafeMutablePointer<UInt8>,
        end: UnsafePointer<UInt8>, wide: Bool, _ lookup: Lookup, errors: inout Bool
    ) {
        let remaining = wide ? 8 : end - source
        let lead = source[0]
        if lead < 0x80 {
            if wide {
                foldASCIIRun(&source, &target, end: end)
                return
            }
            target[0] = lead &+ (lead &- 0x41 < 26 ? 0x20 : 0)
            source += 1
            target += 1
        } else if lead & 0xF0 == 0xE0, wide || remaining >= 3 {
            foldThreeByteScalar(&source, &target, lookup, errors: &errors)
        } else if lead >= 0xC2, lead < 0xE0, wide || remaining >= 2 {
            let second = source[1]
            if (second & 0xC0) != 0x80 { errors = true }
            let scalar = UInt32(lead & 0x1F) &<< 6 | UInt32(second & 0x3F)
            let packed = UInt32(lead) | UInt32(second) &<< 8 | 2 &<< 24
            target += emit(scalar, packed: packed, to: target, lookup)
            source += 2
        } else if lead >= 0xF0, lead < 0xF5, wide || remaining >= 4 {
            foldFourByteScalar(&source, &target, errors: &errors)
        } else {
            // Not valid UTF-8 (a stray continuation byte, a bad or truncated lead): copied.
            errors = true
            target[0] = lead
            source += 1
            target += 1
        }
    }

    /// `step` for an ASCII byte with at least 8 bytes left: the run of ASCII bytes among the
    /// next 8 (at least this one), lowercased 8 at a time (all 8 stored, the run kept), and on,
    /// 8 bytes at a time, while they are all ASCII.
    @inline(__always)
    private static func foldASCIIRun(
        _ source: inout UnsafePointer<UInt8>, _ target: inout UnsafeMutablePointer<UInt8>, end: UnsafePointer<UInt8>
    ) {
        let word = UnsafeRawPointer(source).loadUnaligned(as: UInt64.self)
        let high = word & 0x8080_8080_8080_8080
        UnsafeMutableRawPointer(target).storeBytes(
            of: lowercasedASCII(word & 0x7F7F_7F7F_7F7F_7F7F), as: UInt64.self)
        let run = high.trailingZeroBitCount &>> 3  // 8 when all are ASCII
        source += run
        target += run
        guard run == 8 else { return }
        // A longer run of ASCII: on, 8 bytes at a time.
        while end - source >= 8 {
            let word = UnsafeRawPointer(source).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { return }
            UnsafeMutableRawPointer(target).storeBytes(of: lowercasedASCII(word), as: UInt64.self)
            source += 8
            target += 8
        }
    }

    /// `step` for a three-byte lead with its two bytes present: a Hangul syllable becomes its
    /// jamo, any other scalar its fold from the table.
    @inline(__always)
    private static func foldThreeByteScalar(
        _ source: inout UnsafePointer<UInt8>, _ target: inout UnsafeMutablePointer<UInt8>, _ lookup: Lookup,
        errors: inout Bool
    ) {
        let lead = source[0]
        let second = source[1]
        let third = source[2]
        let scalar = UInt32(lead & 0x0F) &<< 12 | UInt32(second & 0x3F) &<< 6 | UInt32(third & 0x3F)
        // Continuations, not overlong (≥ U+0800), not a surrogate (U+D800–U+DFFF).
        if (second & 0xC0) != 0x80 || (third & 0xC0) != 0x80 || scalar < 0x800 || scalar & 0xF800 == 0xD800 {
            errors = true
        }
        let syllable = scalar &- hangulSyllableBase
        if syllable < hangulSyllableCount {
            target += appendHangul(syllable: syllable, to: target, lookup)
        } else {
            let packed = UInt32(lead) | UInt32(second) &<< 8 | UInt32(third) &<< 16 | 3 &<< 24
            target += emit(scalar, packed: packed, to: target, lookup)
        }
        source += 3
    }

    /// `step` for a four-byte lead with its three bytes present: emoji, symbols and CJK
    /// extensions are copied, other scalars folded with the standard library's properties.
    @inline(__always)
    private static func foldFourByteScalar(
        _ source: inout UnsafePointer<UInt8>, _ target: inout UnsafeMutablePointer<UInt8>, errors: inout Bool
    ) {
        let lead = source[0]
        let scalar = UInt32(lead & 0x07) &<< 18 | UInt32(source[1] & 0x3F) &<< 12
            | UInt32(source[2] & 0x3F) &<< 6 | UInt32(source[3] & 0x3F)
        // Continuations, not overlong (≥ U+10000), at most U+10FFFF.
        if (source[1] & 0xC0) != 0x80 || (source[2] & 0xC0) != 0x80 || (source[3] & 0xC0) != 0x80
            || scalar < 0x10000 || scalar > 0x10FFFF
        {
            errors = true
        }
        if scalar &- 0x1F000 < 0xE0000 - 0x1F000 {
            // Emoji and symbols (U+1F000–U+1FFFF), CJK extensions (U+20000–U+3FFFF),
            // unassigned planes: no case, no marks.
            UnsafeMutableRawPointer(target).storeBytes(
                of: UnsafeRawPointer(source).loadUnaligned(as: UInt32.self), as: UInt32.self)
            target += 4
        } else {
            target += appendSupplementary(scalar, from: source, to: target)
        }
        source += 4
    }

    /// `word`'s eight ASCII bytes with A–Z lowercased.
    @inline(__always)
    static func lowercasedASCII(_ word: UInt64) -> UInt64 {
        // No byte is 0x80 or above, so the additions never carry from one byte to the next.
        let atLeastA = word &+ 0x3F3F_3F3F_3F3F_3F3F  // high bit set where the byte is ≥ 0x41
        let aboveZ = word &+ 0x2525_2525_2525_2525  // high bit set where the byte is ≥ 0x5B
        let upper = atLeastA & ~aboveZ & 0x8080_8080_8080_8080
        return word | upper >> 2
    }

    /// Writes the fold of the BMP scalar `scalar`, whose UTF-8 is `packed` (the bytes in memory
    /// order, their count in bits 24–25), at `target`, and returns its length. Stores 4 bytes
    /// (or an expansion's 4 to 9).
    @inline(__always)
    static func emit(
        _ scalar: UInt32, packed: UInt32, to target: UnsafeMutablePointer<UInt8>, _ lookup: Lookup
    ) -> Int {
        let page = Int(truncatingIfNeeded: lookup.pages[Int(truncatingIfNeeded: scalar &>> 8)])
        let entry = lookup.entries[page &<< 8 | Int(truncatingIfNeeded: scalar & 0xFF)]
        if entry & FoldTable.expansionFlag != 0 {
            let index = Int(truncatingIfNeeded: entry & 0xFFFF)
            let from = Int(truncatingIfNeeded: lookup.expansionStarts[index])
            let count = Int(truncatingIfNeeded: lookup.expansionStarts[index &+ 1]) &- from
            target.update(from: lookup.expansionBytes + from, count: count)
            return count
        }
        let folded = entry == FoldTable.identity ? packed : entry
        UnsafeMutableRawPointer(target).storeBytes(of: folded, as: UInt32.self)
        return Int(truncatingIfNeeded: (folded &>> 24) & 3)
    }

    /// The first Hangul syllable, U+AC00, and the number of syllables (Unicode §3.12).
    static let hangulSyllableBase: UInt32 = 0xAC00
    static let hangulSyllableCount: UInt32 = 11172
    /// The first leading consonant, vowel and (one before the first) trailing consonant jamo.
    static let hangulLeadingBase: UInt32 = 0x1100
    static let hangulVowelBase: UInt32 = 0x1161
    static let hangulTrailingBase: UInt32 = 0x11A7
    /// Jamo counts: 19 leading consonants, 21 vowels, 28 trailing consonants (the first: none).
    static let hangulVowelCount: UInt32 = 21
    static let hangulTrailingCount: UInt32 = 28

    /// Writes the conjoining jamo of the Hangul syllable with index `syllable` (its distance from
    /// U+AC00) at `target`: leading consonant (U+1100 + L), vowel (U+1161 + V) and, unless it
    /// has none, trailing consonant (U+11A7 + T); 2 bytes of the key encoding each, from
    /// `FoldTable`'s jamo tables. Always stores 8 bytes; returns 4 or 6, the bytes kept.
    @inline(__always)
    static func appendHangul(syllable: UInt32, to target: UnsafeMutablePointer<UInt8>, _ lookup: Lookup) -> Int {
        let leadingVowel = syllable / hangulTrailingCount
        let trailing = syllable &- leadingVowel &* hangulTrailingCount
        let raw = UnsafeMutableRawPointer(target)
        raw.storeBytes(of: lookup.hangulLeadingVowel[Int(truncatingIfNeeded: leadingVowel)], as: UInt32.self)
        raw.storeBytes(
            of: lookup.hangulTrailing[Int(truncatingIfNeeded: trailing)], toByteOffset: 4, as: UInt32.self)
        return trailing == 0 ? 4 : 6
    }

    // MARK: The key encoding

    /// The first scalar of each block written in two bytes, and the first index of its codes.
    static let jamoBlock: (first: UInt32, count: UInt32) = (0x1100, 0x100)
    static let kanaBlock: (first: UInt32, count: UInt32) = (0x3040, 0xC0)
    /// The lead byte of code index 0; leads run to 0xFB (UTF-8 never uses 0xF5–0xFF).
    static let firstTwoByteLead: UInt8 = 0xF5

    /// The two-byte code index of `value` (a jamo or a kana, see "The key encoding"), or nil for
    /// a scalar written in UTF-8.
    @inline(__always)
    static func twoByteKeyIndex(_ value: UInt32) -> UInt32? {
        if value &- jamoBlock.first < jamoBlock.count { return value &- jamoBlock.first }
        if value &- kanaBlock.first < kanaBlock.count { return jamoBlock.count &+ value &- kanaBlock.first }
        return nil
    }

    /// Appends `scalar` in the key encoding to `bytes`.
    package static func appendKeyEncoding(of scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
        if let index = twoByteKeyIndex(scalar.value) {
            bytes.append(firstTwoByteLead + UInt8(index >> 6))
            bytes.append(0x80 | UInt8(index & 0x3F))
        } else {
            bytes.append(contentsOf: UTF8.encode(scalar)!)
        }
    }

    /// The scalars of `key`, a key in the key encoding (the inverse of `appendKeyEncoding`).
    /// Bytes that are neither give U+FFFD each (a key of text that was not valid UTF-8).
    package static func keyScalars<C: Collection<UInt8>>(_ key: C) -> [Unicode.Scalar] where C.Index == Int {
        var scalars: [Unicode.Scalar] = []
        var position = key.startIndex
        let end = key.endIndex
        func continuation(_ offset: Int) -> UInt32? {
            guard position + offset < end, key[position + offset] & 0xC0 == 0x80 else { return nil }
            return UInt32(key[position + offset] & 0x3F)
        }
        while position < end {
            let lead = key[position]
            var value: UInt32?
            var length = 1
            switch lead {
            case 0x00..<0x80:
                value = UInt32(lead)
            case firstTwoByteLead...0xFB:
                length = 2
                if let low = continuation(1) {
                    let index = UInt32(lead - firstTwoByteLead) << 6 | low
                    value = index < jamoBlock.count
                        ? jamoBlock.first + index : kanaBlock.first + index - jamoBlock.count
                }
            case 0xC2..<0xE0:
                length = 2
                if let a = continuation(1) { value = UInt32(lead & 0x1F) << 6 | a }
            case 0xE0..<0xF0:
                length = 3
                if let a = continuation(1), let b = continuation(2) { value = UInt32(lead & 0x0F) << 12 | a << 6 | b }
            case 0xF0..<0xF5:
                length = 4
                if let a = continuation(1), let b = continuation(2), let c = continuation(3) {
                    value = UInt32(lead & 0x07) << 18 | a << 12 | b << 6 | c
                }
            default:
                break
            }
            if let value, let scalar = Unicode.Scalar(value) {
                scalars.append(scalar)
                position += length
            } else {
                scalars.append("\u{FFFD}")
                position += 1
            }
        }
        return scalars
    }

    /// Writes the fold of a scalar outside the BMP that may have a lowercase form or be a
    /// nonspacing mark (historic and minority scripts, variation selectors U+E0100–U+E01EF), with
    /// the standard library's properties, at `target`; returns its length. Not decomposed. At
    /// most 4 bytes: a lowercase form longer than that (none exists) would be left out.
    @inline(never)
    static func appendSupplementary(
        _ value: UInt32, from bytes: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>
    ) -> Int {
        guard let scalar = Unicode.Scalar(value) else {
            target.update(from: bytes, count: 4)  // not valid UTF-8: copied
            return 4
        }
        let properties = scalar.properties
        if properties.generalCategory == .nonspacingMark { return 0 }
        if properties.changesWhenLowercased {
            var lower = properties.lowercaseMapping
            let written = lower.withUTF8 { utf8 -> Int in
                guard utf8.count <= 4 else { return 0 }
                target.update(from: utf8.baseAddress!, count: utf8.count)
                return utf8.count
            }
            if written > 0 { return written }
        }
        target.update(from: bytes, count: 4)
        return 4
    }
}
