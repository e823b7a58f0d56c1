import MemoCRDT
/// A compiled query: finds its folded form inside search keys.
///
/// The query folds like the texts (`SearchFolding`), so "CAFE" finds "café", "straße" finds
/// "STRASSE", "ＡＢＣ" finds "abc", "한국" typed as jamo finds the precomposed syllables, "か"
/// finds "が", and (unless ``SearchOptions/foldsKana`` is off) "カタカナ" finds "かたかな". A key
/// matches when it contains the folded query as a byte substring. Both are in the key encoding
/// (UTF-8, with jamo and kana in two bytes each; see `SearchFolding`), which marks where each
/// scalar starts as UTF-8 does, so a match always starts and ends on scalar boundaries; it may
/// start or end inside a grapheme cluster or a Hangul syllable, so "하" finds "한" and "👩"
/// finds a family emoji, as incremental search should. One exception keeps flags whole: a
/// query that starts with a regional indicator only matches at the start of a flag (an even
/// position in a run of regional indicators), so "🇵🇫" does not match inside "🇯🇵🇫🇷".
///
/// Matching allocates nothing: it scans the key for two of the query's rarest bytes, sixteen
/// positions at a time, and compares the whole query only where both are found.
public struct SearchQuery: Sendable {
    /// The folded query, with the query's options.
    let needle: [UInt8]
    /// Two positions in `needle` whose bytes are rare in text, and those bytes.
    let firstProbe: Int
    let secondProbe: Int
    let firstByte: UInt8
    let secondByte: UInt8
    /// Whether `needle` starts with a regional indicator (U+1F1E6–U+1F1FF).
    let startsWithRegionalIndicator: Bool
    /// The options the query folds with.
    public let options: SearchOptions

    /// Compiles `query`.
    ///
    /// Leading and trailing whitespace is part of the query (trim it first if it should not be).
    ///
    /// - Parameters:
    ///   - query: The text to look for.
    ///   - options: What else to fold (by default, everything: kana too). Keys it is matched with
    ///     must be folded with the same options.
    public init(_ query: String, options: SearchOptions = SearchOptions()) {
        self.init(folded: SearchFolding.key(for: query, options: options), options: options)
    }

    /// A query for the already folded `needle`.
    init(folded needle: [UInt8], options: SearchOptions) {
        self.needle = needle
        self.options = options
        (firstProbe, secondProbe) = SearchQuery.probes(for: needle)
        firstByte = needle.isEmpty ? 0 : needle[firstProbe]
        secondByte = needle.isEmpty ? 0 : needle[secondProbe]
        startsWithRegionalIndicator = needle.count >= 4 && SearchQuery.isRegionalIndicator(needle, at: 0)
    }

    /// The folded query: what `matches(key:)` looks for. It is in the key encoding of search
    /// keys, which is UTF-8 except that conjoining jamo (U+1100–U+11FF) and hiragana and
    /// katakana (U+3040–U+30FF) take two bytes each, a lead byte 0xF5–0xFB and a continuation
    /// byte; compare it with keys, not with text.
    public var key: [UInt8] { needle }

    /// Whether the query folds to nothing: it is empty or holds only nonspacing marks (a lone
    /// U+0301, a variation selector). Whitespace is not nothing: " " finds spaces. An empty query
    /// matches every key, as the empty string is part of every text; a caller that would rather
    /// find nothing checks `isEmpty` first.
    public var isEmpty: Bool { needle.isEmpty }

    /// Whether `key`, a key from `SearchFolding` folded with this query's options, contains the
    /// query.
    ///
    /// - Parameter key: A search key.
    /// - Returns: True when the folded query occurs in `key` (always, for an empty query).
    public func matches(key: [UInt8]) -> Bool {
        key.withUnsafeBufferPointer { firstMatch(in: $0, from: 0) != nil }
    }

    /// Whether `key`, a key from `SearchFolding` folded with this query's options, or a slice of
    /// one that starts and ends on scalar boundaries, contains the query.
    ///
    /// - Parameter key: A search key, or a part of one.
    /// - Returns: True when the folded query occurs in `key` (always, for an empty query).
    public func matches(key: ArraySlice<UInt8>) -> Bool {
        key.withUnsafeBufferPointer { firstMatch(in: $0, from: 0) != nil }
    }

    /// Whether `text` contains the query, given `defaultKey`, the text's key with the default
    /// options (what a notebook caches): with other options, the default key rules most texts
    /// out (a match with fewer foldings is a match with all of them) and the text is folded
    /// again only when it might match.
    func matches(defaultKey: ArraySlice<UInt8>, text: () -> String) -> Bool {
        if options == SearchOptions() { return matches(key: defaultKey) }
        let folded = SearchQuery(folded: SearchFolding.kanaFolded(needle), options: SearchOptions())
        guard folded.matches(key: defaultKey) else { return false }
        return matches(key: SearchFolding.key(for: text(), options: options))
    }

    // MARK: Ranges in the text

    /// Where the query occurs in `text`, for highlighting: one range for each match of the folded
    /// query in the text's key (left to right, not overlapping), mapped back to the text's own
    /// scalars, ranges that touch or overlap merged.
    ///
    /// A range starts and ends on Unicode scalar boundaries. It covers every scalar of the text
    /// whose folded form the match touches (all of "ß" when the query "s" matches half of its
    /// "ss"; all of "ﬁ" for "f"; both "ｶ" and "ﾞ" of halfwidth "ｶﾞ" for "が") and the nonspacing
    /// marks that follow the last of them (the accent of a decomposed "é" for "e").
    ///
    /// - Parameter text: The text the query was matched in (any normalization form).
    /// - Returns: The ranges, in order; empty for an empty query or when the query does not occur.
    /// - Complexity: O(n) for a text of n scalars.
    public func matchRanges(in text: String) -> [Range<String.Index>] {
        if needle.isEmpty { return [] }
        var key: [UInt8] = []
        // For each scalar, where its fold starts in `key`; one more entry for the end.
        var foldStarts: [Int] = []
        var indices: [String.Index] = []
        let scalars = text.unicodeScalars
        let table = SearchFolding.FoldTable.table(for: options)
        var utf8: [UInt8] = []
        var invalid = false
        for index in scalars.indices {
            foldStarts.append(key.count)
            indices.append(index)
            utf8.removeAll(keepingCapacity: true)
            UTF8.encode(scalars[index]) { utf8.append($0) }
            utf8.withUnsafeBufferPointer { SearchFolding.append(utf8: $0, to: &key, invalid: &invalid, table: table) }
        }
        foldStarts.append(key.count)
        indices.append(scalars.endIndex)
        let count = indices.count - 1
        /// The last scalar whose fold starts at or before `offset` (a byte of the key): the one
        /// whose fold holds it.
        func scalar(holding offset: Int) -> Int {
            var low = 0
            var high = count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if foldStarts[middle] <= offset { low = middle } else { high = middle - 1 }
            }
            return low
        }
        var ranges: [Range<String.Index>] = []
        var lastEnd = -1
        var from = 0
        key.withUnsafeBufferPointer { buffer in
            while let start = firstMatch(in: buffer, from: from) {
                let end = start + needle.count
                let first = scalar(holding: start)
                var past = scalar(holding: end - 1) + 1
                // The nonspacing marks (folded to nothing) after the last scalar.
                while past < count, foldStarts[past + 1] == foldStarts[past] { past += 1 }
                if first <= lastEnd, let last = ranges.popLast() {
                    ranges.append(last.lowerBound..<indices[past])
                } else {
                    ranges.append(indices[first]..<indices[past])
                }
                lastEnd = past
                from = end
            }
        }
        return ranges
    }

    // MARK: Scanning

    /// Where `needle` first occurs in `haystack` at `from` or later (always at `from` for an
    /// empty needle), or nil.
    func firstMatch(in haystack: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let length = needle.count
        if length == 0 { return from }
        guard let base = haystack.baseAddress, haystack.count - from >= length else { return nil }
        let lastStart = haystack.count - length
        return needle.withUnsafeBufferPointer { needleBuffer -> Int? in
            let needle = needleBuffer.baseAddress!
            let first = SIMD16<UInt8>(repeating: firstByte)
            let second = SIMD16<UInt8>(repeating: secondByte)
            let firstBase = UnsafeRawPointer(base + firstProbe)
            let secondBase = UnsafeRawPointer(base + secondProbe)
            var start = from
            // Sixteen candidate starts at a time: start ... start + 15 ≤ lastStart, so both
            // loads stay inside the haystack.
            while start + 15 <= lastStart {
                let a = firstBase.loadUnaligned(fromByteOffset: start, as: SIMD16<UInt8>.self)
                let b = secondBase.loadUnaligned(fromByteOffset: start, as: SIMD16<UInt8>.self)
                let hits = (a .== first) .& (b .== second)
                if any(hits) {
                    for lane in 0..<16 where hits[lane] {
                        if isMatch(base, haystack.count, at: start + lane, needle, length) { return start + lane }
                    }
                }
                start += 16
            }
            while start <= lastStart {
                if base[start + firstProbe] == firstByte, base[start + secondProbe] == secondByte,
                    isMatch(base, haystack.count, at: start, needle, length)
                {
                    return start
                }
                start += 1
            }
            return nil
        }
    }

    /// Whether the needle occurs at `start` in the haystack (and, for a needle that starts with
    /// a regional indicator, starts a flag there).
    @inline(__always)
    func isMatch(
        _ haystack: UnsafePointer<UInt8>, _ count: Int, at start: Int, _ needle: UnsafePointer<UInt8>,
        _ length: Int
    ) -> Bool {
        var k = 0
        while k + 8 <= length {
            let x = UnsafeRawPointer(haystack + start + k).loadUnaligned(as: UInt64.self)
            let y = UnsafeRawPointer(needle + k).loadUnaligned(as: UInt64.self)
            if x != y { return false }
            k += 8
        }
        while k < length {
            if haystack[start + k] != needle[k] { return false }
            k += 1
        }
        if startsWithRegionalIndicator {
            // Regional indicators pair up from the start of their run.
            var before = 0
            var position = start
            while position >= 4,
                SearchQuery.isRegionalIndicator(UnsafeBufferPointer(start: haystack, count: count), at: position - 4)
            {
                before += 1
                position -= 4
            }
            if before % 2 == 1 { return false }
        }
        return true
    }

    /// Whether the 4 bytes at `offset` are a regional indicator (U+1F1E6–U+1F1FF: F0 9F 87 A6–BF).
    @inline(__always)
    static func isRegionalIndicator<C: RandomAccessCollection<UInt8>>(_ bytes: C, at offset: Int) -> Bool
    where C.Index == Int {
        bytes[bytes.startIndex + offset] == 0xF0 && bytes[bytes.startIndex + offset + 1] == 0x9F
            && bytes[bytes.startIndex + offset + 2] == 0x87 && bytes[bytes.startIndex + offset + 3] >= 0xA6
    }

    // MARK: Choosing probes

    /// Two distinct positions in `needle` (the same one if it has one byte) whose bytes are the
    /// least frequent in notes text, by `commonness`; different bytes when there are any.
    static func probes(for needle: [UInt8]) -> (Int, Int) {
        guard needle.count > 1 else { return (0, 0) }
        var rarest = needle.count - 1
        for index in needle.indices.reversed() where commonness(needle[index]) < commonness(needle[rarest]) {
            rarest = index
        }
        var other = -1
        for index in needle.indices.reversed() where index != rarest {
            if other < 0 { other = index; continue }
            let differs = needle[index] != needle[rarest]
            let otherDiffers = needle[other] != needle[rarest]
            if differs != otherDiffers {
                if differs { other = index }
            } else if commonness(needle[index]) < commonness(needle[other]) {
                other = index
            }
        }
        return (min(rarest, other), max(rarest, other))
    }

    /// A rough rank of how often `byte` occurs in folded notes text (Latin, Korean, Japanese):
    /// higher is more frequent.
    static func commonness(_ byte: UInt8) -> Int {
        switch byte {
        case 0x20: return 100  // space
        case 0xF5...0xFB: return 98  // leads of conjoining jamo and kana (two-byte codes)
        case 0xE4...0xE9: return 90  // leads of CJK ideographs
        case UInt8(ascii: "e"), UInt8(ascii: "t"), UInt8(ascii: "a"), UInt8(ascii: "o"),
            UInt8(ascii: "i"), UInt8(ascii: "n"), UInt8(ascii: "s"), UInt8(ascii: "r"),
            UInt8(ascii: "h"):
            return 80
        case UInt8(ascii: "l"), UInt8(ascii: "d"), UInt8(ascii: "c"), UInt8(ascii: "u"),
            UInt8(ascii: "m"), 0x0A:
            return 70
        case 0xCE, 0xCF, 0xD0, 0xD1, 0xF0, 0x9F: return 70  // Greek, Cyrillic, emoji
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "."), UInt8(ascii: ","): return 60
        case 0xC2...0xF4: return 55  // other leads
        case 0x80...0xBF: return 30  // other continuation bytes
        default: return 40  // digits, punctuation, controls
        }
    }
}
