import Foundation
@testable import MemoSync
import Testing

/// Temporary files of writes that were killed (`.memosync-tmp-…`, renamed over their blob when a
/// write completes) are deleted by a listing that reads their folder once they are an hour old
/// (`DirectoryBlobStore.leftoverTemporaryFileAgeSeconds`); younger ones, maybe a write still
/// going on, are left alone and their folder is read again by the next listing. Before, nothing
/// ever deleted them: a sync killed while it wrote a snapshot left the whole notebook in the
/// store in plain text, which `--encrypt` did not remove (exploratory test of 2026-12-02).
@Suite struct DirectoryBlobStoreLeftoverTests {
    /// Writes a leftover temporary file holding `text` into `folder`'s subfolder `sub`, last
    /// modified `ageSeconds` ago.
    private func leftover(_ folder: IOTestFolder, _ sub: String, _ name: String, text: String, ageSeconds: Double) throws -> String {
        try folder.createFolder(sub)
        let path = folder.path(sub + "/" + name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -ageSeconds)], ofItemAtPath: path)
        return path
    }

    @Test func aLeftoverOlderThanAnHourIsDeletedByTheListingThatReadsItsFolder() throws {
        let folder = IOTestFolder("store-leftovers")
        defer { folder.remove() }
        try folder.createFolder("")
        let store = try DirectoryBlobStore(path: folder.path, listingCachePath: folder.path + "-cache")
        defer { try? FileManager.default.removeItem(atPath: folder.path + "-cache") }
        try store.write(key: "memosync/v1/0000000000000abc/snapshots/1-aa.snap", bytes: Array("ciphertext".utf8))
        let sub = "memosync/v1/0000000000000abc/snapshots"
        let old = try leftover(folder, sub, ".memosync-tmp-1f2e3d", text: "PLAINWORD memo text", ageSeconds: 2 * 3_600)
        let young = try leftover(folder, sub, ".memosync-tmp-4c5b6a", text: "a write going on", ageSeconds: 60)
        // Not a write's: another program's hidden file, and a folder with our prefix.
        let foreign = try leftover(folder, sub, ".DS_Store", text: "finder", ageSeconds: 2 * 3_600)
        try folder.createFolder(sub + "/.memosync-tmp-folder")

        let listing = try store.listing(prefix: "memosync/")
        #expect(listing.blobs.map(\.key) == ["memosync/v1/0000000000000abc/snapshots/1-aa.snap"] && listing.skipped.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(FileManager.default.fileExists(atPath: young) && FileManager.default.fileExists(atPath: foreign))
        #expect(FileManager.default.fileExists(atPath: folder.path(sub + "/.memosync-tmp-folder")))

        // The folder holding the young one is read again by the next listing (through the
        // cache too), which deletes it once it is old enough.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -2 * 3_600)], ofItemAtPath: young)
        let reopened = try DirectoryBlobStore(path: folder.path, listingCachePath: folder.path + "-cache")
        _ = try reopened.listing(prefix: "memosync/")
        #expect(!FileManager.default.fileExists(atPath: young))
        #expect(FileManager.default.fileExists(atPath: foreign))
    }

    /// Through a sync: a killed write's leftover holding a memo's text is gone after the next
    /// sync that lists its folder.
    @Test func aSyncRemovesAKilledWritesLeftover() async throws {
        let folder = IOTestFolder("store-leftover-sync")
        defer { folder.remove() }
        try folder.createFolder("store")
        let library = IOTestFolder("store-leftover-library")
        defer { library.remove() }
        let replica = try Replica(libraryPath: library.path)
        _ = try replica.createMemo(text: "PLAINWORD secret memo")
        let storePath = folder.path("store")
        let store = try DirectoryBlobStore(path: storePath)
        _ = try await replica.sync(with: store)
        let path = try leftover(folder, "store/memosync/v1", ".memosync-tmp-77aa", text: "PLAINWORD secret memo", ageSeconds: 2 * 3_600)
        _ = try await replica.sync(with: try DirectoryBlobStore(path: storePath))
        #expect(!FileManager.default.fileExists(atPath: path))
        await replica.close()
    }
}
