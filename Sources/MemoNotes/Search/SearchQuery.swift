import MemoCRDT
/// A compiled query: finds its folded form inside search keys.
///
/// The query folds like the texts (`SearchFolding`), so "CAFE" finds "café", "한국" typed as
/// jamo finds the precomposed syllables, and "か" finds "が". A key matches when it contains the
/// folded query as a byte substring. Both are UTF-8, so a match always starts and ends on scalar
/// boundaries; it may start or end inside a grapheme cluster or a Hangul syllable, so "하" finds
/// "한" and "👩" finds a family emoji, as incremental search should. One exception keeps flags
/// whole: a query that starts with a regional indicator only matches at the start of a flag (an
/// even position in a run of regional indicators), so "🇵🇫" does not match inside "🇯🇵🇫🇷".
///
/// Matching allocates nothing: it scans the key for two of the query's rarest bytes, sixteen
/// positions at a time, and compares the whole query only where both are found.
public struct SearchQuery: Sendable {
    /// The folded query.
    let needle: [UInt8]
    /// Two positions in `needle` whose bytes are rare in text, and those bytes.
    let firstProbe: Int
    let secondProbe: Int
    let firstByte: UInt8
    let secondByte: UInt8
    /// Whether `needle` starts with a regional indicator (U+1F1E6–U+1F1FF).
    let startsWithRegionalIndicator: Bool

    /// Compiles `query`.
    ///
    /// Leading and trailing whitespace is part of the query (trim it first if it should not be).
    ///
    /// - Parameter query: The text to look for.
    public init(_ query: String) {
        needle = SearchFolding.key(for: query)
        (firstProbe, secondProbe) = SearchQuery.probes(for: needle)
        firstByte = needle.isEmpty ? 0 : needle[firstProbe]
        secondByte = needle.isEmpty ? 0 : needle[secondProbe]
        startsWithRegionalIndicator = needle.count >= 4 && SearchQuery.isRegionalIndicator(needle, at: 0)
    }

    /// The folded query, as UTF-8: what `matches(key:)` looks for.
    public var key: [UInt8] { needle }

    /// Whether the query folds to nothing: it is empty or holds only nonspacing marks (a lone
    /// U+0301, a variation selector). Whitespace is not nothing: " " finds spaces. An empty query
    /// matches every key, as the empty string is part of every text; a caller that would rather
    /// find nothing checks `isEmpty` first.
    public var isEmpty: Bool { needle.isEmpty }

    /// Whether `key`, a key from `SearchFolding`, contains the query.
    ///
    /// - Parameter key: A search key.
    /// - Returns: True when the folded query occurs in `key` (always, for an empty query).
    public func matches(key: [UInt8]) -> Bool {
        key.withUnsafeBufferPointer { find(in: $0) }
    }

    /// Whether `key`, a key from `SearchFolding` or a slice of one that starts and ends on scalar
    /// boundaries, contains the query.
    ///
    /// - Parameter key: A search key, or a part of one.
    /// - Returns: True when the folded query occurs in `key` (always, for an empty query).
    public func matches(key: ArraySlice<UInt8>) -> Bool {
        key.withUnsafeBufferPointer { find(in: $0) }
    }

    // MARK: Scanning

    /// Whether `haystack` contains `needle`.
    func find(in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = needle.count
        if length == 0 { return true }
        guard let base = haystack.baseAddress, haystack.count >= length else { return false }
        let lastStart = haystack.count - length
        return needle.withUnsafeBufferPointer { needleBuffer -> Bool in
            let needle = needleBuffer.baseAddress!
            let first = SIMD16<UInt8>(repeating: firstByte)
            let second = SIMD16<UInt8>(repeating: secondByte)
            let firstBase = UnsafeRawPointer(base + firstProbe)
            let secondBase = UnsafeRawPointer(base + secondProbe)
            var start = 0
            // Sixteen candidate starts at a time: start ... start + 15 ≤ lastStart, so both
            // loads stay inside the haystack.
            while start + 15 <= lastStart {
                let a = firstBase.loadUnaligned(fromByteOffset: start, as: SIMD16<UInt8>.self)
                let b = secondBase.loadUnaligned(fromByteOffset: start, as: SIMD16<UInt8>.self)
                let hits = (a .== first) .& (b .== second)
                if any(hits) {
                    for lane in 0..<16 where hits[lane] {
                        if isMatch(base, haystack.count, at: start + lane, needle, length) { return true }
                    }
                }
                start += 16
            }
            while start <= lastStart {
                if base[start + firstProbe] == firstByte, base[start + secondProbe] == secondByte,
                    isMatch(base, haystack.count, at: start, needle, length)
                {
                    return true
                }
                start += 1
            }
            return false
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
        case 0xE1, 0xE3: return 98  // leads of conjoining jamo, kana
        case 0x84, 0x85, 0x86, 0x81, 0x82, 0x83: return 95  // second bytes of jamo and kana
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
