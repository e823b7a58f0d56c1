import Foundation
import MemoCRDT
import Testing

@testable import MemoSync

/// A memo of more characters than `Limits.pendingOperationsMax` saved as a journal record (the
/// state file already larger than the record) reads back whole when the library opens again.
/// Before, replaying the record refused its text for its size: the memo opened empty, its text
/// counted as held back, and later saves lost it (exploratory test of 2026-12-02).
@Suite struct LargeMemoJournalTests {
    @Test func aLargeMemoSavedInAJournalRecordReadsBackWhole() async throws {
        let folder = IOTestFolder("large-memo-journal")
        defer { folder.remove() }
        let first = "Book draft\n" + String(repeating: "x", count: Limits.pendingOperationsMax + 100)
        let second = "Thesis\n" + String(repeating: "y", count: Limits.pendingOperationsMax + 8)
        var ids: [MemoID] = []
        do {
            let replica = try Replica(libraryPath: folder.path)
            ids.append(try replica.createMemo(text: first))
            try await replica.save()
            ids.append(try replica.createMemo(text: second))
            try await replica.save()
            await replica.close()
        }
        // The second memo is in a journal record, not in the state file.
        let journal = try #require(try folder.names().first { LibraryCore.journalGeneration($0) != nil })
        let journalBytes = try #require(try FileManager.default.attributesOfItem(atPath: folder.path(journal))[.size] as? Int)
        let names = try folder.names()
        #expect(journalBytes > second.utf8.count, "\(names)")
        let reopened = try Replica(libraryPath: folder.path)
        #expect(reopened.notebook.memo(ids[0])?.text == first)
        #expect(reopened.notebook.memo(ids[1])?.text == second)
        #expect(reopened.notebook.pendingOperationCount == 0)
        await reopened.close()
    }
}
