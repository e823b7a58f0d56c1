import Foundation
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Blob keys are bytes (issue 29): every store compares a listing's prefix with its keys byte for
/// byte (UTF-8), never by Unicode canonical equivalence as `String.hasPrefix` does. "é" written
/// as one scalar (U+00E9) and as "e" and a combining acute accent (U+0301) are two keys; a prefix
/// may end between a base letter and its mark; a name may start with a combining mark.
@Suite struct BlobKeyBytesTests {
    /// "é" as "e" + U+0301.
    static let decomposed = "memosync/v1/e\u{301}x"
    /// "é" as U+00E9.
    static let precomposed = "memosync/v1/\u{E9}y"
    /// In a folder whose name is "e" + U+0301.
    static let nested = "memosync/v1/e\u{301}/z"
    /// A name that starts with a combining mark, right after the "/".
    static let markFirst = "memosync/v1/\u{301}w"
    static let keys = [decomposed, precomposed, nested, markFirst]

    /// Each prefix and the keys a listing of it must give, compared as bytes.
    static let expectations: [(prefix: String, keys: Set<String>)] = [
        ("memosync/v1/\u{E9}", [precomposed]),
        ("memosync/v1/e\u{301}", [decomposed, nested]),
        // Ends between the base letter and its mark.
        ("memosync/v1/e", [decomposed, nested]),
        ("memosync/v1/e\u{301}/", [nested]),
        ("memosync/v1/\u{301}", [markFirst]),
        ("memosync/v1/", Set(keys)),
        ("memosync/v1/\u{E9}/", []),
    ]

    /// Checks every expectation against `list`, by the keys' bytes (a `Set<String>` would merge
    /// canonically equivalent keys).
    private func check(_ store: String, _ list: (String) async throws -> [BlobInfo]) async throws {
        for (prefix, expected) in Self.expectations {
            let listed = try await list(prefix).map { Array($0.key.utf8) }
            let wanted = expected.map { Array($0.utf8) }
            #expect(listed.count == wanted.count, "\(store): prefix \(Array(prefix.unicodeScalars)) listed \(listed.count) keys, not \(wanted.count)")
            #expect(Set(listed) == Set(wanted), "\(store): prefix \(Array(prefix.unicodeScalars))")
        }
    }

    @Test func theFolderStoreComparesKeysByTheirBytes() async throws {
        let folder = IOTestFolder("key-bytes")
        defer { folder.remove() }
        try folder.createFolder("")
        let store = try DirectoryBlobStore(path: folder.path)
        for key in Self.keys { try store.write(key: key, bytes: Array(key.utf8)) }
        // Written as two files, each read back by its own key.
        #expect(try folder.names("memosync/v1").count == 4)
        for key in Self.keys { #expect(try store.read(key: key) == Array(key.utf8)) }
        try await check("folder") { try store.list(prefix: $0) }
    }

    @Test func theInMemoryStoreComparesKeysByTheirBytes() async throws {
        let store = InMemoryBlobStore()
        for key in Self.keys { try store.write(key: key, bytes: Array(key.utf8)) }
        try await check("in-memory") { try store.list(prefix: $0) }
    }

    @Test func theEncryptedStoreComparesKeysByTheirBytes() async throws {
        let raw = InMemoryBlobStore()
        let store = try await StoreEncryption.enable(raw, passphrase: "hunter2 hunter2", log2N: 8, random: SeededEncryptionRandom(seed: 1))
        for key in Self.keys { try await store.write(key: key, bytes: Array(key.utf8)) }
        // Every name is kept under the encrypted root, and each reads back.
        #expect(raw.keys.filter { $0.utf8.starts(with: BlobCipher.encryptedRoot.utf8) }.count == Self.keys.count)
        for key in Self.keys { #expect(try await store.read(key: key) == Array(key.utf8)) }
        try await check("encrypted") { try await store.list(prefix: $0) }
    }

    @Test func theHelpersCompareBytes() {
        #expect("e\u{301}x".hasPrefixBytes("e") && !"e\u{301}x".hasPrefixBytes("\u{E9}") && !"\u{E9}".hasPrefixBytes("e"))
        #expect("a/\u{301}".hasPrefixBytes("a/") && "".hasPrefixBytes("") && !"".hasPrefixBytes("a"))
        #expect(droppingPrefix("a/", of: "a/\u{301}") == "\u{301}" && droppingPrefix("\u{E9}", of: "e\u{301}") == nil)
        #expect(BlobKeyRules.components(of: "a/\u{301}b").map { $0.map(String.init) } == ["a", "\u{301}b"])
    }
}

/// The byte order of sorted key lists (`precedesBytes`), against the UTF-8 views'
/// `lexicographicallyPrecedes`, the obvious reference: keys that share long prefixes, that are
/// prefixes of each other, that differ past an eight-byte stretch, and that hold non-ASCII
/// scalars (whose bytes sort otherwise than `String`'s canonical order).
@Suite struct KeyByteOrderTests {
    static let pieces = ["memosync/v1/", "a", "b", "/", "e\u{301}", "\u{E9}", "\u{1F600}", "0123456789abcdef", "\u{7F}", "\u{80}", ""]

    @Test func precedesBytesAgreesWithTheUTF8ViewsOrder() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        var keys: [String] = ["", "a", "memosync/v1/", "memosync/v1/a", "memosync/v1/b", "memosync/v1/ab"]
        for _ in 0..<400 {
            let count = random.int(in: 0..<8)
            keys.append((0..<count).map { _ in Self.pieces[random.int(in: 0..<Self.pieces.count)] }.joined())
        }
        for first in keys {
            for second in keys {
                let expected = first.utf8.lexicographicallyPrecedes(second.utf8)
                #expect(first.precedesBytes(second) == expected, "seed \(seed): \(Array(first.utf8)) against \(Array(second.utf8))")
                #expect(Array(first.utf8).precedesBytes(Array(second.utf8)) == expected, "seed \(seed): arrays \(Array(first.utf8)) against \(Array(second.utf8))")
            }
        }
        let sorted = keys.sorted { $0.precedesBytes($1) }
        #expect(sorted.map { Array($0.utf8) } == keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }, "seed \(seed)")
    }
}
