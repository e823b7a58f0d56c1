// Blob keys are bytes: compared by their UTF-8, never by Unicode canonical equivalence.

extension String {
    /// Whether this string's UTF-8 bytes start with `prefix`'s: how every store compares a
    /// listing's prefix with its keys (and a WebDAV href with its folder). `String.hasPrefix`
    /// compares Characters by canonical equivalence, so "e\u{301}x" would start with "\u{E9}"
    /// and not with "e", and "a/\u{301}" would not start with "a/"; a key is bytes on a disk or
    /// server, and two spellings of "é" are two keys. O(prefix length).
    package func hasPrefixBytes(_ prefix: String) -> Bool {
        utf8.starts(with: prefix.utf8)
    }
}

extension String {
    /// Whether this string's UTF-8 bytes sort before `other`'s (byte by byte, a prefix first):
    /// the order of every sorted key list a file holds. The same answer as
    /// `utf8.lexicographicallyPrecedes(other.utf8)`, compared over contiguous bytes when both
    /// strings have them (native strings do): sorting a listing cache's 25,000 keys through
    /// the UTF-8 views' iterators was a seventh of a first listing of a store full of junk.
    /// O(common prefix length).
    package func precedesBytes(_ other: String) -> Bool {
        let contiguous = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.precedesBytes(theirs) }
        }
        if let contiguous, let answer = contiguous { return answer }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes sort before `other` (byte by byte, a prefix first). O(common prefix length).
    package func precedesBytes(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = Swift.min(count, other.count)
        var index = 0
        // Eight bytes at a time while they are equal (loads need no alignment).
        if let mine = baseAddress, let theirs = other.baseAddress {
            let raw = UnsafeRawPointer(mine)
            let otherRaw = UnsafeRawPointer(theirs)
            while index + 8 <= common,
                raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) == otherRaw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            {
                index += 8
            }
        }
        while index < common {
            if self[index] != other[index] { return self[index] < other[index] }
            index += 1
        }
        return count < other.count
    }
}

extension Array<UInt8> {
    /// Whether these bytes sort before `other` (byte by byte, a prefix first): the same answer
    /// as `lexicographicallyPrecedes`, over the arrays' storage. O(common prefix length).
    package func precedesBytes(_ other: [UInt8]) -> Bool {
        withUnsafeBufferPointer { mine in other.withUnsafeBufferPointer { mine.precedesBytes($0) } }
    }
}

/// `text` without its first bytes when they are `prefix`'s, compared byte for byte (UTF-8, no
/// Unicode equivalence: keys and paths are bytes, and a name may start with a combining mark);
/// nil when `text` does not start with `prefix`. O(text length).
package func droppingPrefix(_ prefix: String, of text: String) -> String? {
    guard text.hasPrefixBytes(prefix) else { return nil }
    return String(decoding: text.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
}
