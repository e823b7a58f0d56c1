import Foundation
import MemoCRDT
import Testing

@testable import MemoSync

/// A journal shorter than the library's last clean close left it (its seal records the length)
/// lost saved records after the close: cut off by a tool, a bad restore, deleted. That is damage,
/// reported and kept aside, never a torn tail cut silently (which only a save after the close
/// can leave). Before, the open took it for a torn write: the memos saved in the lost bytes were
/// gone without a word, and the next save wrote over the evidence (exploratory test of
/// 2026-12-02).
@Suite struct JournalCutShortTests {
    /// A library with three memos saved as three journal records, closed cleanly (sealed).
    private func makeLibrary(_ folder: IOTestFolder) async throws -> [MemoID] {
        let replica = try Replica(libraryPath: folder.path)
        var ids: [MemoID] = []
        for text in ["first memo", "second memo", "third memo, the last saved"] {
            ids.append(try replica.createMemo(text: text))
            try await replica.save()
        }
        await replica.close()
        #expect(try folder.names().contains(LibrarySeal.fileName))
        return ids
    }

    private func size(_ folder: IOTestFolder, _ file: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: folder.path(file))[.size] as? Int)
    }

    @Test(arguments: [1, 20])
    func aJournalCutShortAfterACleanCloseIsReportedAndKeptAside(cutBytes: Int) async throws {
        let folder = IOTestFolder("journal-cut-short")
        defer { folder.remove() }
        try folder.createFolder("")
        let ids = try await makeLibrary(folder)
        let journal = "journal-0"
        let sealed = try size(folder, journal)
        #expect(truncate(folder.path(journal), off_t(sealed - cutBytes)) == 0)
        let cut = try Data(contentsOf: URL(fileURLWithPath: folder.path(journal)))

        // Read only: reported, nothing changed.
        let snapshot = try #require(try LibrarySnapshot.read(libraryPath: folder.path))
        let seen = try #require(snapshot.report.damage.first)
        #expect(seen.bytesMissing == cutBytes && seen.keptAs == nil && !seen.fileIsMissing)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path(journal))) == cut)

        let replica = try Replica(libraryPath: folder.path)
        let damage = try #require(replica.openReport.damage.first)
        #expect(damage.file == journal && damage.keptAs == journal + ".damaged-1")
        #expect(damage.bytesMissing == cutBytes && damage.damagedByteRanges.last == (sealed - cutBytes)..<sealed)
        #expect(damage.recordsRecovered == 2)
        #expect(replica.notebook.memo(ids[0])?.text == "first memo" && replica.notebook.memo(ids[1])?.text == "second memo")
        #expect(replica.notebook.memo(ids[2]) == nil)
        // Kept aside as it was found, not cut further.
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path(journal + ".damaged-1"))) == cut)
        _ = try replica.createMemo(text: "after")
        try await replica.save()
        await replica.close()
        // Reported once: the next open finds nothing wrong.
        let reopened = try Replica(libraryPath: folder.path)
        #expect(reopened.openReport.damage.isEmpty && reopened.notebook.activeMemoCount == 3)
        await reopened.close()
    }

    @Test func aJournalDeletedAfterACleanCloseIsReported() async throws {
        let folder = IOTestFolder("journal-deleted")
        defer { folder.remove() }
        try folder.createFolder("")
        _ = try await makeLibrary(folder)
        let sealed = try size(folder, "journal-0")
        try FileManager.default.removeItem(atPath: folder.path("journal-0"))
        let replica = try Replica(libraryPath: folder.path)
        let damage = try #require(replica.openReport.damage.first)
        #expect(damage.fileIsMissing && damage.bytesMissing == sealed && damage.keptAs == nil)
        #expect(replica.notebook.activeMemoCount == 0)
        await replica.close()
        let reopened = try Replica(libraryPath: folder.path)
        #expect(reopened.openReport.damage.isEmpty)
        await reopened.close()
    }

    /// The torn tail of a save made after the clean close is still cut silently: the journal is
    /// then longer than the seal says, never shorter.
    @Test func aTornRecordAfterTheSealIsStillATornTail() async throws {
        let folder = IOTestFolder("journal-torn-after-seal")
        defer { folder.remove() }
        try folder.createFolder("")
        _ = try await makeLibrary(folder)
        let sealed = try size(folder, "journal-0")
        let seal = try Data(contentsOf: URL(fileURLWithPath: folder.path(LibrarySeal.fileName)))
        // A save after the close, torn: its first bytes only.
        let replica = try Replica(libraryPath: folder.path)
        _ = try replica.createMemo(text: "a fourth memo, torn while saved")
        try await replica.save()
        let written = try size(folder, "journal-0")
        await replica.close()
        // As a crash during that save leaves the folder: the first close's seal (the session
        // that crashed never sealed), the new record torn.
        #expect(written > sealed)
        try seal.write(to: URL(fileURLWithPath: folder.path(LibrarySeal.fileName)))
        #expect(truncate(folder.path("journal-0"), off_t(written - 3)) == 0)
        let reopened = try Replica(libraryPath: folder.path)
        #expect(reopened.openReport.damage.isEmpty && reopened.openReport.discardedJournalBytes == written - 3 - sealed)
        #expect(reopened.notebook.activeMemoCount == 3)
        await reopened.close()
    }
}
