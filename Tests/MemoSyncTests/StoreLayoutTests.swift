import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync

/// Store keys: what `StoreLayout.parse` reads from a key, on the byte-level path (ASCII keys)
/// and the character-level one (any other key), and what it refuses.
@Suite struct StoreLayoutTests {
    /// FORMAT.md, "Store layout": the content hash as the table gives it (FNV-1a 64, the byte
    /// count XORed in, SplitMix64's finalizer), worked out apart from the code (Python) for
    /// three inputs: another implementation that follows the text names blobs as this one does.
    @Test func theContentHashIsTheOneFormatDescribes() {
        #expect(StoreLayout.hash([]) == "f52a15e9a9b5e89b")
        #expect(StoreLayout.hash([0x6D]) == "ef69b81f8662c567")
        #expect(StoreLayout.hash((0..<300).map { UInt8($0 % 251) }) == "5f720797308b7f2d")
    }

    let root = StoreLayout.root
    let replica = ReplicaID(0x0123_4567_89AB_CDEF)

    /// The hash of a string's UTF-8 read in place (a listed blob's revision, at every sync) is
    /// the hash of its bytes.
    @Test func theHashOfAStringsUTF8IsTheHashOfItsBytes() {
        for text in ["", "m", "1234:1767225600.5:1767225600.123456789", "café ☕ 한국어 🙂", String(repeating: "ab", count: 300)] {
            #expect(StoreLayout.hashValue(utf8: text) == StoreLayout.hashValue(Array(text.utf8)), "\(text.prefix(20))")
        }
        #expect(StoreLayout.hashValue(utf8: "m") == 0xEF69_B81F_8662_C567)
        #expect(StoreLayout.hashValue(utf8: "") == 0xF52A_15E9_A9B5_E89B)
    }

    @Test func keysMemoSyncWritesParseBack() {
        let bytes: [UInt8] = [1, 2, 3]
        let segment = StoreLayout.segmentKey(replica: replica, counters: 5..<42, bytes: bytes)
        #expect(StoreLayout.parse(segment) == .segment(replica: replica, start: 5, end: 42))
        let snapshot = StoreLayout.snapshotKey(replica: replica, totalOperations: 123_456, bytes: bytes)
        #expect(StoreLayout.parse(snapshot) == .snapshot(replica: replica, totalOperations: 123_456))
    }

    @Test func conflictedCopiesAndUppercaseHexParseLikeTheOriginal() {
        let base = root + "0123456789ABCDEF/segments/0000000005-0000000042-00000000000000ff"
        let expected = StoreLayout.Key.segment(replica: replica, start: 5, end: 42)
        #expect(StoreLayout.parse(base + ".seg") == expected)
        #expect(StoreLayout.parse(base + " (Alice's conflicted copy 2026-01-02).seg") == expected)
        #expect(StoreLayout.parse(base + ".sync-conflict-20260102-101010-ABC.seg") == expected)
        // Non-ASCII (the character-level path) gives the same answers.
        #expect(StoreLayout.parse(base + " (Zoë's conflicted copy).seg") == expected)
        #expect(StoreLayout.parse(root + "0123456789abcdef/snapshots/000000000007-x.snap (é)")
            == .snapshot(replica: replica, totalOperations: 7))
    }

    @Test func otherKeysAreRefused() {
        let refused = [
            "notes.txt",
            root + "notes.txt",
            root + "0123456789abcdef/segments/0000000042-0000000005-00.seg",  // start after end
            root + "0123456789abcdef/segments/0000000005-0000000042-00.txt",  // not a segment
            root + "0123456789abcdef/segments/000000005-0000000042-00.seg",  // 9 digits
            root + "0123456789abcdef/snapshots/00000000007-x.snap",  // 11 digits
            root + "0123456789abcdeg/segments/0000000005-0000000042-00.seg",  // not hex
            root + "0123456789abcde/segments/0000000005-0000000042-00.seg",  // 15 digits
            root + "+123456789abcdef/segments/0000000005-0000000042-00.seg",  // a sign
            root + "0123456789abcdef/segment/0000000005-0000000042-00.seg",  // the kind
            root + "0123456789abcdef/segments/x/0000000005-0000000042-00.seg",  // a fourth part
            root + "0123456789abcdef/segments/0000000005-0000000042-é.txt",
            root + "0123456789abcdef/segments/0000000005-9999999999-00.seg",  // past the limit
        ]
        for key in refused { #expect(StoreLayout.parse(key) == nil, "\(key)") }
    }

    /// `namesContent(key:hashValue:)` (digits compared in place) against the obvious reference
    /// (the name's 16 characters at the kind's offset equal to `hash(_:)`'s text), over keys
    /// named for the bytes, for other bytes, in uppercase, cut short, and junk.
    @Test(arguments: [UInt64(1), 2, 3])
    func namesContentComparesTheDigitsInPlace(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        func reference(_ key: String, _ bytes: [UInt8]) -> Bool {
            guard let parsed = StoreLayout.parse(key), let slash = key.utf8.lastIndex(of: UInt8(ascii: "/")) else { return false }
            let name = Array(key.utf8[key.utf8.index(after: slash)...])
            let offset = switch parsed {
            case .segment: 22
            case .snapshot: 13
            case .head: 0
            }
            guard name.count >= offset + 16 else { return false }
            return name[offset..<(offset + 16)].elementsEqual(StoreLayout.hash(bytes).utf8)
        }
        var named = 0
        for _ in 0..<300 {
            let bytes = (0..<random.int(in: 0..<40)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let other = bytes + [1]
            let id = ReplicaID(random.next())
            var keys = [
                StoreLayout.segmentKey(replica: id, counters: 0..<UInt32(random.int(in: 1..<99)), bytes: bytes),
                StoreLayout.snapshotKey(replica: id, totalOperations: UInt64(random.int(in: 0..<999)), bytes: bytes),
                StoreLayout.headKey(replica: id, bytes: bytes),
                StoreLayout.segmentKey(replica: id, counters: 0..<7, bytes: other),
            ]
            keys += keys.map { $0.uppercased() }
            keys += keys.map { String($0.dropLast(random.int(in: 1..<24))) }
            keys += keys.map { $0 + " (Zoë's conflicted copy).seg" }
            keys.append(root + "0123456789abcdef/segments/junk.seg")
            for key in keys {
                let expected = reference(key, bytes)
                if expected { named += 1 }
                #expect(StoreLayout.namesContent(key: key, hashValue: StoreLayout.hashValue(bytes)) == expected, "seed \(seed): \(key)")
                #expect(StoreLayout.namesContent(key: key, bytes: bytes) == expected, "seed \(seed): \(key)")
            }
        }
        #expect(named >= 900, "seed \(seed): keys named for their bytes are among those compared")
    }
}
