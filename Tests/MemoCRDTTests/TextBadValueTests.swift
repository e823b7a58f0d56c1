@testable import MemoCRDT
import Testing

/// Values out of range given to the text's public API: none traps (exploratory test of
/// 2026-12-02).
@Suite struct TextBadValueTests {
    @Test func aPrefixOfNoBytesOrFewerIsEmpty() throws {
        var text = TextCRDT(replica: ReplicaID(1))
        try text.insert("héllo", atUTF16: 0)
        #expect(text.prefix(utf8Bytes: -1) == "" && text.prefix(utf8Bytes: .min) == "" && text.prefix(utf8Bytes: 0) == "")
        #expect(text.prefix(utf8Bytes: 2) == "h" && text.prefix(utf8Bytes: .max) == "héllo")
    }

    @Test func aSharedDecodeCacheOfNegativeSizeKeepsNothing() throws {
        var text = TextCRDT(replica: ReplicaID(1))
        try text.insert("kept?", atUTF16: 0)
        let cache = SharedTextDecodes(bytesMax: -1)
        #expect(cache.count == 0)
    }
}
