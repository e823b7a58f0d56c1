import Foundation
import MemoCRDT
import MemoNotes
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// What a sync reports (issue 12, item 6): one unit for every operation count, no last-sync time
/// for a sync that did not finish, and the store entries a listing left out (item 4).
@Suite struct SyncReportTests {
    private func replica(_ environment: TestEnvironment, _ disk: MemoryDisk = MemoryDisk()) throws -> Replica {
        try Replica(disk: disk, environment: environment.environment)
    }

    // MARK: The numbers agree

    @Test func anOperationIsACharacterOrAMemoChange() async throws {
        let environment = TestEnvironment(seed: 12)
        let store = InMemoryBlobStore()
        let disk = MemoryDisk()
        var alice = try replica(environment, disk)
        let memo = try alice.createMemo(text: "hello")  // 1 creation + 5 characters
        try await alice.save()
        await alice.close()
        alice = try replica(environment, disk)  // a new session, under a fresh id
        try alice.edit(memo, replacingUTF16: 5..<5, with: " world")  // 6 characters
        try alice.edit(memo, replacingUTF16: 0..<2, with: "")  // 2 characters deleted
        try alice.moveToTrash(memo)  // 1
        #expect(alice.unpublishedOperationCount == 15)
        let published = try await alice.sync(with: store)
        #expect(published.publishedOperationCount == 15)
        // One segment, named after the later session's range alone (9 operations): the count is
        // not taken from names.
        #expect(published.publishedSegments.count == 1)
        #expect(alice.unpublishedOperationCount == 0)
        let bob = try replica(environment)
        #expect(try await bob.sync(with: store).operationsApplied == 15)
    }

    /// A sync takes a listing in key order: one already in order as it is, any other sorted
    /// first. A store listing newest-last and one listing in reverse give the same sync: the
    /// same blobs read, the same notebook, the same report.
    @Test func aListingInAnotherOrderSyncsAsTheSortedOne() async throws {
        let environment = TestEnvironment(seed: 0x0D_E5)
        let store = InMemoryBlobStore()
        for writer in 0..<3 {
            let author = try replica(environment)
            for index in 0..<3 { _ = try author.createMemo(text: "writer \(writer), memo \(index)") }
            _ = try await author.sync(with: store)
            _ = try author.createMemo(text: "writer \(writer), later")
            _ = try await author.sync(with: store)
        }
        // And names that are no MemoSync blob: reported in the order the listing is taken in.
        for name in ["a-notes.txt", "m-notes.txt", "z-notes.txt"] { try store.write(key: StoreLayout.root + name, bytes: Array(name.utf8)) }
        let keys = try store.list(prefix: StoreLayout.root).map(\.key)
        #expect(keys.count >= 6 && keys == keys.sorted(), "\(keys)")
        let inOrder = try replica(environment)
        let reversed = try replica(environment)
        let inOrderReport = try await inOrder.sync(with: store)
        let reversedReport = try await reversed.sync(with: ReversedListingStore(inner: store))
        #expect(reversedReport.blobsRead == inOrderReport.blobsRead && reversedReport.operationsApplied == inOrderReport.operationsApplied)
        #expect(reversedReport.operationsApplied > 0)
        #expect(reversedReport.skipped.count == 3 && reversedReport.skipped.map(\.key) == inOrderReport.skipped.map(\.key), "\(reversedReport.skipped.map(\.key))")
        #expect(reversed.notebook.version == inOrder.notebook.version)
        #expect(reversed.notebook.list().map(\.id) == inOrder.notebook.list().map(\.id))
        #expect(reversed.notebook.list().map { reversed.notebook.memo($0.id)?.text } == inOrder.notebook.list().map { inOrder.notebook.memo($0.id)?.text })
    }

    @Test(arguments: testSeeds(12, salt: 0x12_06))
    func publishedReceivedAndUnsyncedCountTheSameOperations(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let environment = TestEnvironment(seed: seed)
        let store = InMemoryBlobStore()
        let disk = MemoryDisk()
        var alice = try replica(environment, disk)
        let bob = try replica(environment)
        var memos: [MemoID] = []
        var receivedByBob = 0
        var publishedByAlice = 0
        for session in 0..<random.int(in: 2...6) {
            for _ in 0..<random.int(in: 1...8) {
                let live = memos.filter { alice.notebook.memo($0)?.status == .active }
                if live.isEmpty || random.chance(0.3) {
                    memos.append(try alice.createMemo(text: String(repeating: "x", count: random.int(in: 0...12))))
                } else {
                    let memo = random.pick(live)
                    let length = alice.notebook.memo(memo)?.text.utf16.count ?? 0
                    let start = random.int(in: 0...length)
                    let end = random.int(in: start...min(length, start + 4))
                    if random.chance(0.1) {
                        try alice.moveToTrash(memo)
                    } else {
                        try alice.edit(memo, replacingUTF16: start..<end, with: String(repeating: "é", count: random.int(in: 0...5)))
                    }
                }
            }
            if random.chance(0.6) {
                let unsynced = alice.unpublishedOperationCount
                let report = try await alice.sync(with: store)
                #expect(report.isComplete, "seed \(seed)")
                #expect(report.publishedOperationCount == unsynced, "seed \(seed), session \(session): published \(report.publishedOperationCount), status said \(unsynced)")
                #expect(alice.unpublishedOperationCount == 0, "seed \(seed)")
                publishedByAlice += report.publishedOperationCount
                if random.chance(0.5) {
                    let received = try await bob.sync(with: store)
                    #expect(received.pendingOperationCount == 0, "seed \(seed)")
                    receivedByBob += received.operationsApplied
                    #expect(receivedByBob == publishedByAlice, "seed \(seed): bob received \(receivedByBob), alice published \(publishedByAlice)")
                }
            }
            try await alice.save()
            await alice.close()
            alice = try replica(environment, disk)
        }
        let unsynced = alice.unpublishedOperationCount
        #expect(try await alice.sync(with: store).publishedOperationCount == unsynced, "seed \(seed)")
        receivedByBob += try await bob.sync(with: store).operationsApplied
        #expect(receivedByBob == alice.notebook.version.operationCount, "seed \(seed)")
    }

    // MARK: A sync that did not finish

    @Test func aSyncThatCannotListTheStoreChangesNothing() async throws {
        let environment = TestEnvironment(seed: 13)
        let store = InMemoryBlobStore()
        let alice = try replica(environment)
        try alice.createMemo(text: "one")
        store.failNext(with: .io(reason: "opendir memosync/v1: Permission denied"), on: [.list])
        let failed = try await alice.sync(with: store)
        #expect(!failed.listedStore && !failed.isComplete)
        #expect(failed.errors.count == 1 && failed.blobsWritten == 0 && failed.publishedOperationCount == 0)
        #expect(store.keys.isEmpty)
        #expect(alice.syncState.lastSyncMilliseconds == 0, "a failed sync set the last-sync time")
        #expect(alice.unpublishedOperationCount == 4)

        environment.advance(milliseconds: 1_000)
        let synced = try await alice.sync(with: store)
        #expect(synced.isComplete && synced.publishedOperationCount == 4)
        let syncedAt = environment.nowMilliseconds
        #expect(alice.syncState.lastSyncMilliseconds == syncedAt)

        environment.advance(milliseconds: 1_000)
        try alice.createMemo(text: "two")
        store.failNext(with: .unavailable(reason: "offline"), on: [.list])
        await #expect(try !alice.sync(with: store).isComplete)
        #expect(alice.syncState.lastSyncMilliseconds == syncedAt, "a failed sync moved the last-sync time")
    }

    @Test func aSyncWhoseWriteFailedIsNotComplete() async throws {
        let environment = TestEnvironment(seed: 14)
        let store = InMemoryBlobStore()
        let alice = try replica(environment)
        try alice.createMemo(text: "one")
        store.failNext(with: .full, on: [.write])
        let failed = try await alice.sync(with: store)
        #expect(failed.listedStore && !failed.isComplete && failed.errors.count == 1)
        #expect(failed.blobsWritten == 0 && failed.publishedOperationCount == 0)
        #expect(alice.syncState.lastSyncMilliseconds == 0)
        #expect(alice.unpublishedOperationCount == 4)
        environment.advance(milliseconds: 5)
        let retried = try await alice.sync(with: store)
        #expect(retried.isComplete && retried.publishedOperationCount == 4)
        #expect(alice.syncState.lastSyncMilliseconds == environment.nowMilliseconds)
    }

    // MARK: Store entries a listing left out

    @Test func entriesTheListingLeftOutAreReportedAndTheRestSyncs() async throws {
        let folder = IOTestFolder("sync-bad-entries")
        defer { folder.remove() }
        let environment = TestEnvironment(seed: 15)
        let junk = StoreLayout.root + "0000000000000bad"
        let store = try DirectoryBlobStore(path: folder.path) { call, key in
            call == "openat" && key == junk ? EACCES : nil
        }
        let alice = try replica(environment)
        let memo = try alice.createMemo(text: "hello")
        try await alice.sync(with: store)
        // An unreadable folder, a symbolic link out of the store, a FIFO, and a sparse 3 GiB
        // file named like a segment.
        try store.write(key: junk + "/segments/0000000000-0000000001-00.seg", bytes: [1])
        let link = StoreLayout.root + "0000000000000abc"
        try FileManager.default.createSymbolicLink(atPath: folder.path(link), withDestinationPath: "/etc")
        let fifo = StoreLayout.root + "\(alice.id)/segments/0000000100-0000000101-00.seg"
        #expect(mkfifo(folder.path(fifo), 0o644) == 0)
        let huge = StoreLayout.root + "\(alice.id)/segments/0000000006-0000000009-00.seg"
        let descriptor = open(folder.path(huge), O_WRONLY | O_CREAT, 0o644)
        try #require(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(3 << 30)) == 0)
        close(descriptor)

        let bob = try replica(environment)
        let report = try await bob.sync(with: store)
        #expect(bob.notebook.memo(memo)?.text == "hello")
        #expect(report.isComplete && report.errors.isEmpty)
        #expect(bob.syncState.lastSyncMilliseconds == environment.nowMilliseconds)
        #expect(report.blobsRead == 1)
        let reasons = Dictionary(report.skipped.map { ($0.key, $0.reason) }, uniquingKeysWith: { first, _ in first })
        #expect(report.skipped.count == 4, "each entry once: \(report.skipped)")
        #expect(reasons[junk] == .notListed(.unreadable(reason: String(cString: strerror(EACCES)))))
        #expect(reasons[link] == .notListed(.symbolicLink))
        #expect(reasons[fifo] == .notListed(.specialFile))
        #expect(reasons[huge] == .tooLarge(sizeBytes: 3 << 30, limitBytes: StoreLayout.maxListedBlobBytes))
    }

    @Test func aListedBlobLargerThanTheFormatAllowsIsNeverRead() async throws {
        let environment = TestEnvironment(seed: 16)
        let alice = try replica(environment)
        try alice.createMemo(text: "hello")
        let inner = InMemoryBlobStore()
        try await alice.sync(with: inner)
        let key = try #require(inner.keys.first { $0.contains("/segments/") })
        // A store that lists the segment one byte over the limit.
        let store = ListedSizeStore(inner: inner, key: key, sizeBytes: StoreLayout.maxListedBlobBytes + 1)
        inner.resetCounters()
        let bob = try replica(environment)
        let report = try await bob.sync(with: store)
        #expect(inner.readCount == 0)
        #expect(report.skipped == [SkippedBlob(key: key, reason: .tooLarge(sizeBytes: StoreLayout.maxListedBlobBytes + 1, limitBytes: StoreLayout.maxListedBlobBytes))])
        #expect(bob.notebook.memoIDs.isEmpty)
        // At the limit it is read.
        let atLimit = ListedSizeStore(inner: inner, key: key, sizeBytes: StoreLayout.maxListedBlobBytes)
        #expect(try await bob.sync(with: atLimit).skipped.isEmpty)
        #expect(inner.readCount == 1 && bob.notebook.memoIDs.count == 1)
    }

    // MARK: Misuse of the step-by-step API is refused, never a trap

    @Test func stepByStepMisuseIsRefusedOrIgnored() async throws {
        let environment = TestEnvironment(seed: 13)
        let store = InMemoryBlobStore()
        let alice = try replica(environment)
        _ = try alice.createMemo(text: "hello")
        // No sync begun: nothing to do, and finishing is a typed error.
        #expect(try alice.nextSyncActions(limit: 8).isEmpty)
        #expect(throws: ReplicaError.noSyncInProgress) { try alice.finishSync() }
        try alice.beginSync()
        // One sync at a time.
        #expect(throws: ReplicaError.syncInProgress) { try alice.beginSync() }
        // Asked again before answering: nothing new (the listing is in flight).
        let first = try alice.nextSyncActions(limit: 8)
        #expect(first.count == 1)
        #expect(try alice.nextSyncActions(limit: 8).isEmpty)
        // An answer to an action never handed out changes nothing.
        alice.handleSync(.read(key: "memosync/v1/never/handed/out"), .read([1, 2, 3]))
        #expect(alice.syncSession?.report.blobsRead == 0)
        alice.handleSync(first[0], await Replica.perform(first[0], on: store))
        try await driveSync(alice, on: store, maxInFlight: 4)
        let report = try #require(alice.syncSession?.report)
        // A stray answer after the end changes nothing.
        alice.handleSync(first[0], .done)
        #expect(alice.syncSession?.report == report)
        #expect(try alice.finishSync().isComplete)
        #expect(throws: ReplicaError.noSyncInProgress) { try alice.finishSync() }
        let stillEditable = try alice.createMemo(text: "still editable")
        #expect(alice.notebook.memo(stillEditable) != nil)
    }
}

/// A store that lists one blob with another size than it has.
private struct ListedSizeStore: BlobStore {
    let inner: InMemoryBlobStore
    let key: String
    let sizeBytes: Int

    func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] {
        try inner.list(prefix: prefix).map { $0.key == key ? BlobInfo(key: key, sizeBytes: sizeBytes) : $0 }
    }

    func read(key: String) throws(BlobStoreError) -> [UInt8] { try inner.read(key: key) }
    func write(key: String, bytes: [UInt8]) throws(BlobStoreError) { try inner.write(key: key, bytes: bytes) }
    func delete(key: String) throws(BlobStoreError) { try inner.delete(key: key) }
}

/// A store that lists its blobs in reverse key order.
private struct ReversedListingStore: BlobStore {
    let inner: InMemoryBlobStore

    func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] { try inner.list(prefix: prefix).reversed() }
    func read(key: String) throws(BlobStoreError) -> [UInt8] { try inner.read(key: key) }
    func write(key: String, bytes: [UInt8]) throws(BlobStoreError) { try inner.write(key: key, bytes: bytes) }
    func delete(key: String) throws(BlobStoreError) { try inner.delete(key: key) }
}
