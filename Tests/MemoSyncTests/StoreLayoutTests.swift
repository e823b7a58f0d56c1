import MemoCRDT
import Testing

@testable import MemoSync

/// Store keys: what `StoreLayout.parse` reads from a key, on the byte-level path (ASCII keys)
/// and the character-level one (any other key), and what it refuses.
@Suite struct StoreLayoutTests {
    let root = StoreLayout.root
    let replica = ReplicaID(0x0123_4567_89AB_CDEF)

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
}
