import Foundation
import MemoCRDT
@testable import MemoNotes
import TestSupport
import Testing

/// Memo histories in notebook states (issue 27, FORMAT.md "Notebook state, version 4" and
/// "version 3"): states with the older history sections still decode to the same histories.
///
/// `Tests/Fixtures/states/notebook-state-v3.bin` was written by the version 3 encoder (main at
/// 937dc1e) from ``NotebookHistoryFormatTests/fixtureHistory()``; set
/// `MEMOSYNC_WRITE_HISTORY_FIXTURES=1` to rewrite it (only ever with a version 3 encoder).
@Suite struct NotebookHistoryFormatTests {
    /// The history of ``NotebookStateVersionTests/history(keepingHistory:)`` with history kept,
    /// then the content deleted in its first part dropped (retention): memos retain some deleted
    /// text and not other.
    static func fixtureHistory() throws -> Notebook {
        var notebook = try NotebookStateVersionTests.history(keepingHistory: true)
        notebook.dropHistory(deletedBeforeWallMilliseconds: 1_780_000_000_000 + 40_000_000)
        return notebook
    }

    /// Every memo's versions and its text at each (or why it cannot be given).
    static func observedHistory(_ notebook: Notebook) throws -> [String] {
        var lines: [String] = []
        for summary in notebook.list() + notebook.trash() {
            let versions = try notebook.versions(of: summary.id)
            lines.append("\(summary.id): \(versions.count) versions")
            for version in versions {
                do throws(NotebookError) {
                    lines.append(try notebook.text(of: summary.id, at: version.cut))
                } catch {
                    lines.append("\(error)")
                }
            }
        }
        return lines
    }

    @Test func writesTheFixtureWhenAsked() throws {
        guard ProcessInfo.processInfo.environment["MEMOSYNC_WRITE_HISTORY_FIXTURES"] == "1" else { return }
        let state = try Self.fixtureHistory().encoded()
        try Data(state).write(to: NotebookStateVersionTests.fixtures.appendingPathComponent("notebook-state-v3.bin"))
    }

    /// The version 3 fixture decodes to the notebook the history builds, with the same memo
    /// histories (read before and after each memo is decoded), and encodes, once every memo is
    /// decoded, to the bytes that notebook encodes to.
    @Test func versionThreeStateDecodesToTheSameHistories() throws {
        let bytes = [UInt8](try Data(contentsOf: NotebookStateVersionTests.fixtures.appendingPathComponent("notebook-state-v3.bin")))
        #expect(try BlobEnvelope.open(bytes, kind: .notebookState, versions: 1...15).version == 3)
        var built = try Self.fixtureHistory()
        let expected = try Self.observedHistory(built)
        // Some past texts are there and some are no longer retained.
        #expect(expected.contains { $0.contains("no longer retained") })
        #expect(built.keptHistoryScalars > 20)
        var decoded = try Notebook(decoding: bytes, replica: NotebookStateVersionTests.a)
        #expect(try NotebookStateVersionTests.observed(decoded) == NotebookStateVersionTests.observed(built))
        #expect(try Self.observedHistory(decoded) == expected)
        for summary in built.list() + built.trash() {
            try built.prepareForEditing(summary.id)
            try decoded.prepareForEditing(summary.id)
        }
        #expect(decoded.keptHistoryScalars == built.keptHistoryScalars)
        #expect(try Self.observedHistory(decoded) == expected)
        #expect(decoded.encoded() == built.encoded())
    }

    static func fixtureBytes() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: NotebookStateVersionTests.fixtures.appendingPathComponent("notebook-state-v3.bin")))
    }

    static func decodeEveryMemo(_ notebook: inout Notebook) throws {
        for summary in notebook.list() + notebook.trash() { try notebook.prepareForEditing(summary.id) }
    }

    /// A version 3 state encoded again before its memos are decoded is version 4, its memos'
    /// version 3 sections written back as read (marked); that decodes to the same histories, and
    /// once every memo is decoded it encodes as the history's notebook does (version 4 sections).
    @Test func versionThreeSectionsCarryOverUntilTheirMemoIsDecoded() throws {
        let built = try Self.fixtureHistory()
        let expected = try Self.observedHistory(built)
        let decoded = try Notebook(decoding: try Self.fixtureBytes(), replica: NotebookStateVersionTests.a)
        let carried = decoded.encoded()
        #expect(try BlobEnvelope.open(carried, kind: .notebookState, versions: 1...15).version == 4)
        #expect(carried != built.encoded(), "the sections of memos not decoded are kept as read")
        var again = try Notebook(decoding: carried, replica: NotebookStateVersionTests.a)
        #expect(try Self.observedHistory(again) == expected)
        #expect(again.encoded() == carried)
        try Self.decodeEveryMemo(&again)
        #expect(try Self.observedHistory(again) == expected)
        #expect(again.encoded() == built.encoded())
    }

    /// Version 4: the history's notebook encodes as version 4, smaller than version 3, and
    /// decodes to the same histories; its bytes are written back unchanged before and after its
    /// memos are decoded.
    @Test func versionFourRoundTrips() throws {
        let built = try Self.fixtureHistory()
        let bytes = built.encoded()
        #expect(try BlobEnvelope.open(bytes, kind: .notebookState, versions: 1...15).version == 4)
        #expect(bytes.count < (try Self.fixtureBytes()).count)
        var decoded = try Notebook(decoding: bytes, replica: NotebookStateVersionTests.b)
        #expect(decoded.encoded() == bytes)
        #expect(try Self.observedHistory(decoded) == Self.observedHistory(built))
        try Self.decodeEveryMemo(&decoded)
        #expect(decoded.keptHistoryScalars == built.keptHistoryScalars)
        #expect(decoded.encoded() == bytes)
    }

    /// A history section that does not fit its memo's text (here a version 4 section marked as
    /// version 3) is reported for that memo when it is decoded; the notebook still opens.
    @Test func aHistoryThatDoesNotFitIsReportedForItsMemo() throws {
        let memo = MemoID(high: 4, low: 27)
        var notebook = Notebook(replica: ReplicaID(1))
        notebook.keepsHistory = true
        try notebook.createMemo(memo, text: "hello world", wallMilliseconds: 1)
        let before = VersionVector([ReplicaID(1): 11])  // the text's 11 insertions
        try notebook.edit(memo, replacingScalars: 0..<6, with: "", wallMilliseconds: 2)
        let bytes = notebook.encoded()
        let section = try #require(try notebook.materializedText(of: memo).encodedHistorySection())
        // The state ends with the one history (memo index, byte count << 1, section), then the
        // checksum.
        let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .notebookState, versions: 1...15)
        var body = Array(bytes[bodyRange])
        let flag = body.count - section.count - 1
        #expect(body[flag] == UInt8(section.count << 1))
        #expect(Array(body[(flag + 1)...]) == section)
        let sound = try Notebook(decoding: bytes, replica: ReplicaID(2))
        #expect(try sound.text(of: memo, at: before) == "hello world")
        body[flag] |= 1
        let damaged = try Notebook(decoding: BlobEnvelope.seal(kind: .notebookState, version: 4, body: body), replica: ReplicaID(2))
        #expect(damaged.memo(memo)?.text == "world")
        #expect(throws: NotebookError.self) { try damaged.text(of: memo, at: before) }
    }
}
