import Foundation
import MemoSync
import MemoSyncTesting
import Testing

/// The in-memory test store: the `BlobStore` contract, its test hooks (counters, damage,
/// injected failures) and thread safety.
@Suite struct InMemoryBlobStoreTests {
    @Test func roundTripsAndListsSortedByPrefix() throws {
        let store = InMemoryBlobStore()
        let keys = ["b/2", "a/1", "a/10", "a/2", "ab", "c (Alice's conflicted copy 2026-01-02).seg"]
        for key in keys { try store.write(key: key, bytes: Array(key.utf8)) }
        for key in keys { #expect(try store.read(key: key) == Array(key.utf8)) }
        #expect(try store.list(prefix: "").map(\.key) == keys.sorted())
        #expect(try store.list(prefix: "a").map(\.key) == ["a/1", "a/10", "a/2", "ab"])
        #expect(try store.list(prefix: "a/").map(\.key) == ["a/1", "a/10", "a/2"])
        // Revisions: the number of the change that stored each blob (the second and third writes).
        #expect(try store.list(prefix: "a/1") == [BlobInfo(key: "a/1", sizeBytes: 3, revision: "2"), BlobInfo(key: "a/10", sizeBytes: 4, revision: "3")])
        #expect(try store.list(prefix: "z") == [])
        try store.write(key: "a/1", bytes: [7])
        #expect(try store.read(key: "a/1") == [7])
        #expect(store.keys == keys.sorted())
    }

    @Test func missingBlobsAndDeletes() throws {
        let store = InMemoryBlobStore()
        #expect(throws: BlobStoreError.notFound(key: "x")) { try store.read(key: "x") }
        try store.delete(key: "x")
        try store.write(key: "x", bytes: [1])
        try store.delete(key: "x")
        #expect(throws: BlobStoreError.notFound(key: "x")) { try store.read(key: "x") }
        #expect(store.keys == [])
    }

    @Test func emptyBlobsAreKeptButNotListed() throws {
        let store = InMemoryBlobStore()
        try store.write(key: "empty", bytes: [])
        try store.write(key: "full", bytes: [1])
        #expect(try store.list(prefix: "").map(\.key) == ["full"])
        #expect(try store.read(key: "empty") == [])
        #expect(store.keys == ["empty", "full"])
    }

    @Test func rejectsTheKeysADirectoryStoreRejects() throws {
        let store = InMemoryBlobStore()
        for key in ["", "/a", "a//b", "a/", "..", "a/../b", ".hidden", "x.tmp", "x.part", "x~", "nul\u{0}"] {
            #expect(throws: BlobStoreError.invalidKey(key)) { try store.write(key: key, bytes: [1]) }
            #expect(throws: BlobStoreError.invalidKey(key)) { try store.read(key: key) }
            #expect(throws: BlobStoreError.invalidKey(key)) { try store.delete(key: key) }
            #expect(throws: BlobStoreError.invalidKey(key)) { try store.put(key: key, bytes: [1]) }
        }
        #expect(store.keys == [])
        #expect(store.writeCount == 0)
    }

    @Test func countsSuccessfulTraffic() throws {
        let store = InMemoryBlobStore()
        try store.write(key: "a", bytes: [1, 2, 3])
        try store.write(key: "b", bytes: [4, 5])
        _ = try store.read(key: "a")
        _ = try store.read(key: "a")
        _ = try? store.read(key: "missing")
        _ = try store.list(prefix: "")
        try store.delete(key: "b")
        try store.put(key: "c", bytes: [9, 9, 9, 9])  // not counted
        #expect(store.writeCount == 2)
        #expect(store.bytesWritten == 5)
        #expect(store.readCount == 2)
        #expect(store.bytesRead == 6)
        #expect(store.listCount == 1)
        #expect(store.deleteCount == 1)
        store.resetCounters()
        let counters: [Int] = [store.writeCount, store.readCount, store.bytesWritten, store.bytesRead, store.listCount, store.deleteCount]
        #expect(counters == [0, 0, 0, 0, 0, 0])
        #expect(store.bytes(key: "c") == [9, 9, 9, 9])
        #expect(store.bytes(key: "b") == nil)
        #expect(store.readCount == 0)
    }

    @Test func corruptsAndTruncatesBlobs() throws {
        let store = InMemoryBlobStore()
        try store.put(key: "k", bytes: [0x00, 0x0F, 0xF0])
        try store.corrupt(key: "k", byteAt: 1)
        #expect(store.bytes(key: "k") == [0x00, 0xF0, 0xF0])
        try store.truncate(key: "k", to: 2)
        #expect(store.bytes(key: "k") == [0x00, 0xF0])
        try store.truncate(key: "k", to: 0)
        #expect(try store.list(prefix: "") == [])  // an empty blob is not listed
        #expect(throws: BlobStoreError.notFound(key: "none")) { try store.corrupt(key: "none", byteAt: 0) }
        #expect(throws: BlobStoreError.notFound(key: "none")) { try store.truncate(key: "none", to: 0) }
        try store.put(key: "k", bytes: [1, 2])
        for index in [-1, 2, Int.max] {
            #expect(throws: BlobStoreError.self) { try store.corrupt(key: "k", byteAt: index) }
        }
        for length in [-1, 3, Int.max] {
            #expect(throws: BlobStoreError.self) { try store.truncate(key: "k", to: length) }
        }
        #expect(store.bytes(key: "k") == [1, 2])
    }

    @Test func injectedFailuresHitTheChosenOperationsOnly() throws {
        let store = InMemoryBlobStore()
        try store.write(key: "a", bytes: [1])
        store.failNext(2, with: .unavailable(reason: "offline"), on: [.write, .read])
        #expect(store.pendingFailureCount == 2)
        _ = try store.list(prefix: "")  // not chosen: unaffected
        try store.delete(key: "zzz")
        #expect(throws: BlobStoreError.unavailable(reason: "offline")) { try store.write(key: "b", bytes: [2]) }
        #expect(throws: BlobStoreError.unavailable(reason: "offline")) { try store.read(key: "a") }
        #expect(store.pendingFailureCount == 0)
        try store.write(key: "b", bytes: [2])
        #expect(try store.read(key: "a") == [1])
        #expect(store.keys == ["a", "b"])
        #expect(store.writeCount == 2)  // failed calls are not counted

        store.failNext(with: .full)
        #expect(throws: BlobStoreError.full) { try store.list(prefix: "") }
        try store.delete(key: "a")
        #expect(store.keys == ["b"])

        // An invalid key is reported as such and does not use up an injected failure.
        store.failNext(1, with: .io(reason: "boom"), on: [.delete])
        #expect(throws: BlobStoreError.invalidKey("")) { try store.delete(key: "") }
        #expect(throws: BlobStoreError.io(reason: "boom")) { try store.delete(key: "b") }
        #expect(store.keys == ["b"])

        // Cancelling.
        store.failNext(5, with: .full)
        store.failNext(0, with: .full)
        #expect(store.pendingFailureCount == 0)
        try store.write(key: "c", bytes: [3])
    }

    @Test func isSafeUnderConcurrentUse() throws {
        let store = InMemoryBlobStore()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in 0..<200 {
                let key = "w\(worker)/\(index)"
                try? store.write(key: key, bytes: [UInt8(worker), UInt8(truncatingIfNeeded: index)])
                _ = try? store.read(key: key)
                _ = try? store.list(prefix: "w\(worker)/")
            }
        }
        #expect(store.keys.count == 1_600)
        #expect(store.writeCount == 1_600)
        #expect(store.readCount == 1_600)
        #expect(store.bytesWritten == 3_200)
        #expect(try store.read(key: "w3/150") == [3, 150])
    }

    @Test func canStandInForAnyBlobStore() async throws {
        let store: any BlobStore = InMemoryBlobStore()
        try await store.write(key: "x/y", bytes: [1])
        await #expect(try store.list(prefix: "x/") == [BlobInfo(key: "x/y", sizeBytes: 1, revision: "1")])
    }
}
