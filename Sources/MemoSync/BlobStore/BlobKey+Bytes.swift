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

/// `text` without its first bytes when they are `prefix`'s, compared byte for byte (UTF-8, no
/// Unicode equivalence: keys and paths are bytes, and a name may start with a combining mark);
/// nil when `text` does not start with `prefix`. O(text length).
package func droppingPrefix(_ prefix: String, of text: String) -> String? {
    guard text.hasPrefixBytes(prefix) else { return nil }
    return String(decoding: text.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
}
