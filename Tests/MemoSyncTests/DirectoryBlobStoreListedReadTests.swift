import Foundation
import TestSupport
import Testing

@testable import MemoSync

/// A read of a blob the store's latest listing found inside folders it opened opens the file by
/// its whole path in one system call, and reads it only when it is that same file, unchanged
/// (device, inode, modification and change times: `DirectoryBlobStore.walkedFiles`); anything
/// else is read folder by folder from the root without following links, as without a listing.
@Suite struct DirectoryBlobStoreListedReadTests {
    static let key = "memosync/v1/00000000000000aa/segments/1.seg"

    /// The file a listing found is read in one call: its folder moved aside and replaced by a
    /// link to where it went, the read still gives it (the same file, unchanged, found inside
    /// the store), while a store that has not listed goes folder by folder and refuses the link.
    /// Fails if reads after a listing went folder by folder.
    @Test func aListedBlobIsOpenedByItsPathWhenItIsTheSameFile() throws {
        let folder = IOTestFolder("listed-read-same")
        defer { folder.remove() }
        try folder.createFile(Self.key, [1, 2, 3])
        let store = try DirectoryBlobStore(path: folder.path)
        #expect(try store.list(prefix: "").map(\.key) == [Self.key])
        try FileManager.default.moveItem(atPath: folder.path("memosync/v1/00000000000000aa"), toPath: folder.path("memosync/v1/moved"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("memosync/v1/00000000000000aa"), withDestinationPath: "moved")
        #expect(try store.read(key: Self.key) == [1, 2, 3])
        let unlisted = try DirectoryBlobStore(path: folder.path)
        expectBlobStoreError({ $0 == .notFound(key: Self.key) }) { try unlisted.read(key: Self.key) }
    }

    /// A folder replaced by a link to a folder outside the store after the listing: the file
    /// the path now reaches is another one, so the read goes folder by folder, meets the link,
    /// and finds no blob; the bytes outside are never returned. Fails if the one-call open
    /// skipped its identity check.
    @Test func anotherFileAtTheListedPathIsNeverReadThroughALink() throws {
        let folder = IOTestFolder("listed-read-link")
        let outside = IOTestFolder("listed-read-outside")
        defer {
            folder.remove()
            outside.remove()
        }
        try folder.createFile(Self.key, [1, 2, 3])
        try outside.createFile("segments/1.seg", [9, 9, 9])
        let store = try DirectoryBlobStore(path: folder.path)
        _ = try store.listing(prefix: "memosync/v1/")
        try FileManager.default.removeItem(atPath: folder.path("memosync/v1/00000000000000aa"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("memosync/v1/00000000000000aa"), withDestinationPath: outside.path)
        expectBlobStoreError({ $0 == .notFound(key: Self.key) }) { try store.read(key: Self.key) }
    }

    /// A blob replaced, rewritten in place or deleted after the listing reads as it is now.
    @Test func aBlobChangedAfterTheListingReadsAsItIsNow() throws {
        let folder = IOTestFolder("listed-read-changed")
        defer { folder.remove() }
        let other = "memosync/v1/00000000000000aa/segments/2.seg"
        let gone = "memosync/v1/00000000000000aa/segments/3.seg"
        try folder.createFile(Self.key, [1, 2, 3])
        try folder.createFile(other, [4, 5])
        try folder.createFile(gone, [6])
        let store = try DirectoryBlobStore(path: folder.path)
        #expect(try store.list(prefix: "").count == 3)
        try store.write(key: Self.key, bytes: [7, 7, 7, 7])  // a new file renamed over the listed one
        let handle = try #require(FileHandle(forWritingAtPath: folder.path(other)))
        try handle.write(contentsOf: Data([8, 8]))  // the same file, rewritten in place
        try handle.close()
        try FileManager.default.removeItem(atPath: folder.path(gone))
        #expect(try store.read(key: Self.key) == [7, 7, 7, 7])
        #expect(try store.read(key: other) == [8, 8])
        expectBlobStoreError({ $0 == .notFound(key: gone) }) { try store.read(key: gone) }
    }

    /// Two names `String` holds equal (canonically equivalent) and a disk holds apart: each key
    /// reads its own file after a listing, though the store remembers one file per `String` key.
    @Test func canonicallyEquivalentKeysReadTheirOwnFiles() throws {
        let folder = IOTestFolder("listed-read-equivalent")
        defer { folder.remove() }
        let decomposed = "memosync/v1/e\u{301}x/a.seg"
        let composed = "memosync/v1/\u{E9}x/a.seg"
        try folder.createFile(decomposed, [1])
        try folder.createFile(composed, [2, 2])
        let store = try DirectoryBlobStore(path: folder.path)
        #expect(try store.list(prefix: "").count == 2)
        #expect(try store.read(key: decomposed) == [1])
        #expect(try store.read(key: composed) == [2, 2])
    }

    /// Invalid keys are refused as before, listed or not.
    @Test func invalidKeysAreRefusedAfterAListing() throws {
        let folder = IOTestFolder("listed-read-invalid")
        defer { folder.remove() }
        try folder.createFile(Self.key, [1])
        let store = try DirectoryBlobStore(path: folder.path)
        _ = try store.list(prefix: "")
        for key in ["", "/" + Self.key, "memosync/../memosync/v1/00000000000000aa/segments/1.seg", Self.key + ".tmp"] {
            expectBlobStoreError({ $0 == .invalidKey(key) }) { try store.read(key: key) }
        }
    }
}
