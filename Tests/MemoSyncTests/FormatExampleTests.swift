import MemoCRDT
import MemoNotes
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

/// FORMAT.md's worked examples of the notebook kinds (3 and 4): the bytes shown are what the
/// encoder writes for one memo "Hi" created by `0x0A` at 1,000 ms, and decode back to it.
@Suite struct NotebookFormatExampleTests {
    static let memo = MemoID(high: 0x0102, low: 0x0304)

    static func notebook() throws -> Notebook {
        var notebook = Notebook(replica: ReplicaID(0x0A))
        try notebook.createMemo(memo, text: "Hi", wallMilliseconds: 1_000)
        return notebook
    }

    @Test func theNotebookStateExampleIsWhatTheEncoderWritesAndReadsBack() throws {
        let shown = try #require(try formatExamples()["notebook-state-hi"], "FORMAT.md has no notebook-state-hi example")
        let notebook = try Self.notebook()
        #expect(notebook.encoded() == shown, "FORMAT.md shows \(shown.count) bytes, the encoder writes \(notebook.encoded().count)")
        let read = try Notebook(decoding: shown, replica: ReplicaID(0x0B))
        #expect(read.version == notebook.version)
        #expect(read.memo(Self.memo)?.text == "Hi")
    }

    @Test func theNotebookDeltaExampleIsWhatTheEncoderWritesAndApplies() throws {
        let shown = try #require(try formatExamples()["notebook-delta-hi"], "FORMAT.md has no notebook-delta-hi example")
        let notebook = try Self.notebook()
        let written = try notebook.changes(since: VersionVector()).encoded()
        #expect(written == shown, "FORMAT.md shows \(shown.count) bytes, the encoder writes \(written.count)")
        var receiver = Notebook(replica: ReplicaID(0x0B))
        _ = try receiver.apply(try NotebookDelta(decoding: shown))
        #expect(receiver.version == notebook.version && receiver.pendingOperationCount == 0)
        #expect(receiver.memo(Self.memo)?.text == "Hi")
    }
}
