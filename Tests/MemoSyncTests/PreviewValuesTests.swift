import Foundation
import MemoSync
import MemoSyncTesting
import Testing

/// What an app builds for SwiftUI previews and view tests (issue 29): summaries, memos and sync
/// progress made from values, and times as `Date` and `Duration`.
@Suite struct PreviewValuesTests {
    let created = HybridTimestamp(wallMilliseconds: 1_767_225_600_000, logical: 0)  // 2026-01-01
    let modified = HybridTimestamp(wallMilliseconds: 1_767_312_000_500, logical: 3)

    @Test func aSummaryMadeFromATextShowsItsTitleAndPreviewAsTheListWould() throws {
        var notebook = Notebook(replica: ReplicaID(7))
        let id = MemoID(high: 1, low: 2)
        let text = "Groceries\nmilk, eggs\nbread"
        try notebook.createMemo(id, text: text, wallMilliseconds: 1_767_225_600_000)
        let listed = try #require(notebook.list().first)
        let made = MemoSummary(id: id, text: text, createdAt: listed.createdAt, modifiedAt: listed.modifiedAt)
        #expect(made == listed)
        #expect(made.title == "Groceries" && made.preview == listed.preview)
        // A long text keeps only its beginning, cut between scalars (3-byte Hangul here).
        let long = MemoSummary(id: id, text: String(repeating: "가", count: 5_000), createdAt: created, modifiedAt: modified)
        #expect(long.title.unicodeScalars.allSatisfy { $0 == "가" })
        #expect(long.title.utf8.count <= 4_096 && long.title.utf8.count >= 4_090)
        #expect(long.status == .active)
    }

    @Test func aMemoAndProgressMadeFromValues() {
        let memo = Memo(id: MemoID(high: 0, low: 9), text: "Title\nbody", createdAt: created, modifiedAt: modified, status: .trashed)
        #expect(memo.title == "Title" && memo.body == "body" && memo.status == .trashed)
        #expect(memo.createdDate == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(memo.modifiedDate == Date(timeIntervalSince1970: 1_767_312_000.5))
        let progress = SyncProgress(blobsDone: 3, blobsPlanned: 12, bytesRead: 100, bytesWritten: 0)
        #expect(progress.fractionDone == 0.25)
        #expect(SyncProgress(blobsDone: 0, blobsPlanned: 0, bytesRead: 0, bytesWritten: 0).fractionDone == 0)
        #expect(SyncProgress(blobsDone: 5, blobsPlanned: 4, bytesRead: 0, bytesWritten: 0).fractionDone == 1)
    }

    @Test func durationsAndDatesReadTheSameMilliseconds() async throws {
        var configuration = SyncConfiguration()
        #expect(configuration.gracePeriod == .seconds(7 * 24 * 3_600))
        configuration.gracePeriod = .milliseconds(1_500)
        #expect(configuration.gracePeriodMilliseconds == 1_500)
        configuration.gracePeriod = .seconds(-5)
        #expect(configuration.gracePeriodMilliseconds == 0)
        let replica = try Replica(disk: MemoryDisk())
        #expect(replica.lastSyncDate == nil)
        try replica.createMemo(text: "x")
        try await replica.sync(with: InMemoryBlobStore())
        let date = try #require(replica.lastSyncDate)
        #expect(date.timeIntervalSince1970 * 1_000 == Double(replica.lastSyncMilliseconds))
    }
}
