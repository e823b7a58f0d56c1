import Foundation
import TestSupport
import Testing

@testable import MemoSync

/// A folder with many entries has them walked on several threads, in chunks
/// (`DirectoryBlobStore.visitEntries`). The listing (blobs, sizes, revisions, entries left out,
/// in order) and the listing cache it leaves must be what one thread's walk gives, for folders
/// read and for folders taken from the cache, with links, special files, unreadable folders and
/// deep folders among the entries.
@Suite struct DirectoryBlobStoreParallelWalkTests {
    /// A store folder with `replicas` replica folders under memosync/v1 (segments, heads, the
    /// odd junk), and, among them, links, a FIFO, hidden and partial names, an empty file and a
    /// folder nested too deep.
    static func makeStore(_ folder: IOTestFolder, replicas: Int, random: inout SeededRandom) throws {
        for index in 0..<replicas {
            let replica = String(format: "%016llx", 0xB000 + UInt64(index))
            let base = "memosync/v1/\(replica)"
            for segment in 0..<random.int(in: 0..<4) {
                try folder.createFile("\(base)/segments/\(segment)-x.seg", (0..<random.int(in: 1..<64)).map { UInt8(truncatingIfNeeded: $0) })
            }
            switch random.int(in: 0..<12) {
            case 0: try folder.createFile("\(base)/heads/h.head", [1, 2])
            case 1: try folder.createFile("\(base)/.hidden.seg", [1])
            case 2: try folder.createFile("\(base)/partial.tmp", [1])
            case 3: try folder.createFile("\(base)/empty.seg", [])
            case 4: try folder.createFolder("\(base)/nothing")
            default: break
            }
        }
        // Two names that are one to `String`'s `==` (canonically equivalent) and two to a disk:
        // their order in the listing is the walk's, so a walk in chunks must keep entry order.
        try folder.createFile("memosync/v1/e\u{301}x/a.seg", [1])
        try folder.createFile("memosync/v1/\u{E9}x/a.seg", [2, 2])
        try folder.createFolder("memosync/v1/target")
        try FileManager.default.createSymbolicLink(atPath: folder.path("memosync/v1/a-link"), withDestinationPath: folder.path("memosync/v1/target"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("memosync/v1/dangling"), withDestinationPath: folder.path("memosync/v1/none"))
        #expect(mkfifo(folder.path("memosync/v1/fifo"), 0o644) == 0)
        let deep = (0..<(DirectoryBlobStore.maxFolderDepth + 2)).map { "d\($0)" }.joined(separator: "/")
        try folder.createFile("memosync/v1/deep/" + deep + "/x.seg", [1])
        try folder.createFile("memosync/v1/unreadable/y.seg", [1])
    }

    /// One store's two listings (the first reading every folder, the second taking them from
    /// the cache), and the cache they leave.
    static func listings(_ folder: IOTestFolder, parallelFrom: Int) throws -> (listings: [BlobListing], cache: [UInt8]) {
        let failure: @Sendable (String, String) -> Int32? = { call, key in
            call == "readdir" && key == "memosync/v1/unreadable" ? EACCES : nil
        }
        let store = try DirectoryBlobStore(
            path: folder.path, injectedFailure: failure, clock: { 1_000_000 }, parallelWalkEntriesMin: parallelFrom)
        let first = try store.listing(prefix: "")
        let prefixed = try store.listing(prefix: "memosync/v1/")
        let again = try store.listing(prefix: "")
        var root = stat()
        #expect(stat(folder.path, &root) == 0)
        let cache = store.listingCache.current(rootDevice: UInt64(root.st_dev), rootInode: UInt64(root.st_ino))
        #expect(cache.records.count > 300)
        return ([first, prefixed, again], cache.encoded())
    }

    @Test func aWalkInChunksListsWhatOneThreadLists() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        let folder = IOTestFolder("parallel-walk")
        defer { folder.remove() }
        try Self.makeStore(folder, replicas: 300, random: &random)
        let alone = try Self.listings(folder, parallelFrom: .max)
        let chunked = try Self.listings(folder, parallelFrom: 2)
        let sameCache = alone.cache == chunked.cache
        #expect(sameCache, "seed \(seed): the listing caches differ")
        #expect(alone.listings[0].blobs.count > 300, "seed \(seed)")
        #expect(Set(alone.listings[0].skipped.map(\.key)) == [
            "memosync/v1/a-link", "memosync/v1/dangling", "memosync/v1/fifo", "memosync/v1/unreadable",
            "memosync/v1/deep/" + (0..<DirectoryBlobStore.maxFolderDepth - 2).map { "d\($0)" }.joined(separator: "/"),
        ], "seed \(seed): \(alone.listings[0].skipped)")
        // Compared by the keys' bytes (`BlobListing`'s `==` compares keys as `String`s).
        func bytes(_ listing: BlobListing) -> [String] {
            listing.blobs.map { "\(Array($0.key.utf8)) \($0.sizeBytes) \($0.revision)" }
                + listing.skipped.map { "\(Array($0.key.utf8)) \($0.problem)" }
        }
        for (index, (one, many)) in zip(alone.listings, chunked.listings).enumerated() {
            #expect(one == many, "seed \(seed): listing \(index) differs")
            #expect(bytes(one) == bytes(many), "seed \(seed): listing \(index) differs in its keys' bytes")
        }
    }
}
