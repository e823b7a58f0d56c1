// FORMAT.md, "Blobs found bad": "A build that reads more than an earlier one (a new blob version,
// a decoder that accepts more) increases the reader generation". Notebook states of versions 3
// and 4 came without it, so a build that had refused one as an unknown version kept refusing it
// after upgrading. This ties each generation to the versions of the store's blobs it reads: a
// new version (a constant raised) without a new generation and a new row fails here.

import MemoCRDT
import Testing

@testable import MemoNotes
@testable import MemoSync

@Suite("the reader generation follows what a build reads")
struct ReaderGenerationTests {
    /// The versions of each store blob kind a generation reads (the highest; every one reads
    /// from version 1). Add a row when the generation rises; never change an old one.
    static let readsByGeneration: [UInt64: [String: UInt8]] = [
        1: ["notebookState": 2, "notebookDelta": 1, "head": 1],
        2: ["notebookState": 4, "notebookDelta": 1, "head": 1],
    ]

    @Test func theCurrentGenerationReadsExactlyItsRow() {
        let reads: [String: UInt8] = [
            "notebookState": Notebook.stateFormatVersionWithHistory,
            "notebookDelta": Notebook.deltaFormatVersion,
            "head": SyncHead.formatVersion,
        ]
        #expect(Self.readsByGeneration[StoreLayout.readerGeneration] == reads,
                "a blob version changed: raise StoreLayout.readerGeneration and add a row (FORMAT.md, \"Blobs found bad\")")
    }

    @Test func theNewestVersionPassesTheVersionCheckAndTheNextIsUnknown() throws {
        // What the row says is what the decoder does: a state marked with the newest version
        // gets past the version check (here it then fails its checksum, the bytes being a
        // version 2 state's), one marked with the next is an unknown version (remembered as
        // bad, to be read again by a later generation).
        var notebook = Notebook(replica: ReplicaID(1))
        try notebook.createMemo(MemoID(high: 1, low: 2), text: "keep me", wallMilliseconds: 1_000)
        let bytes = notebook.encoded()
        // The envelope's third byte: kind << 4 | version.
        func marked(_ version: UInt8) -> [UInt8] {
            var copy = bytes
            copy[2] = copy[2] & 0xF0 | version
            return copy
        }
        do throws(DecodingError) {
            _ = try Notebook(decoding: marked(Notebook.stateFormatVersionWithHistory), replica: ReplicaID(2))
            Issue.record("a version 2 body with a changed header decoded")
        } catch {
            if case .unsupportedVersion = error { Issue.record("the newest version is refused as unknown: \(error)") }
        }
        #expect(throws: DecodingError.unsupportedVersion(kind: BlobKind.notebookState.rawValue, version: Notebook.stateFormatVersionWithHistory + 1)) {
            try Notebook(decoding: marked(Notebook.stateFormatVersionWithHistory + 1), replica: ReplicaID(2))
        }
    }
}
