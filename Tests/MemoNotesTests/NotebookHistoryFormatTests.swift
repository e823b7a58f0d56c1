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
}
