import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync

/// FORMAT.md's worked examples of MemoSync's kinds (the text kinds: MemoCRDTTests'
/// `FormatExampleTests`): the bytes shown are what the encoder writes, and decode back.
@Suite struct SyncFormatExampleTests {
    @Test func theHeadExampleIsWhatTheEncoderWrites() throws {
        let shown = try #require(try formatExamples()["head"], "FORMAT.md has no head example")
        var holds = VersionVector()
        holds[ReplicaID(0x0A)] = 3
        holds[ReplicaID(0x0B)] = 1
        var lacks = VersionVector()
        lacks[ReplicaID(0x0B)] = 4
        let head = SyncHead(holds: holds, lacks: lacks)
        #expect(head.encoded() == shown)
        #expect(try SyncHead(decoding: shown) == head)
    }
}
