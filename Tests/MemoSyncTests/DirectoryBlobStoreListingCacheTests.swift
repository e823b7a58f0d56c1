import Foundation
@testable import MemoSync
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder store's listing cache (`DirectoryListingCache`): a listing reads again only the
/// folders whose stamps changed, and never hides what a listing without the cache shows. Every
/// test compares the cached store's listing with a fresh store's (no cache) after each change.
/// Real folders; the store's clock is the test's (advanced by hand, no sleeping); the one wait
/// is for the file system's own clock to pass the folders' times before the second read, which
/// is what the cache's rule assumes of real time (`settledStore`).
@Suite struct DirectoryBlobStoreListingCacheTests {
    /// A store over `folder` with a hand-driven clock, counting the folders each listing reads
    /// (`readdir`) and the entries it asks their status.
    final class Probe: Sendable {
        let store: DirectoryBlobStore
        private let clockSeconds: IOTestBox<Double>
        private let reads: IOTestBox<[String]>

        init(_ folder: IOTestFolder, cacheFile: String? = nil) throws {
            let reads = IOTestBox<[String]>([])
            let clock = IOTestBox<Double>(1_800_000_000)
            self.reads = reads
            self.clockSeconds = clock
            store = try DirectoryBlobStore(
                path: folder.path, listingCachePath: cacheFile,
                injectedFailure: { call, key in
                    if call == "readdir" { reads.withValue { $0.append(key) } }
                    return nil
                },
                clock: { clock.withValue { $0 } })
        }

        /// Moves the store's clock on.
        func advance(_ seconds: Double) { clockSeconds.withValue { $0 += seconds } }

        /// The listing of `prefix`, and the folders it read.
        func list(_ prefix: String = "") throws -> (listing: BlobListing, folders: [String]) {
            reads.withValue { $0.removeAll() }
            let listing = try store.listing(prefix: prefix)
            return (listing, reads.withValue { $0 }.sorted())
        }
    }

    /// Waits until the file system's clock is past every stamp under `folder` (a probe file's
    /// change time is later than each folder's): what the cache's rule takes real time for.
    static func waitForFileSystemClock(past folder: IOTestFolder) throws {
        var latest: (Int64, UInt32) = (Int64.min, 0)
        let walker = FileManager.default.enumerator(atPath: folder.path)
        var paths = [folder.path]
        while let relative = walker?.nextObject() as? String { paths.append(folder.path(relative)) }
        for path in paths {
            let stamp = try POSIX.status(of: path, followLinks: false).stamp
            for time in [(stamp.modifiedSeconds, stamp.modifiedNanoseconds), (stamp.changedSeconds, stamp.changedNanoseconds)] where time > latest {
                latest = time
            }
        }
        let probe = IOTestFolder("clock-probe")
        try probe.createFolder("")
        defer { probe.remove() }
        for attempt in 0..<20_000 {
            try probe.createFile("p\(attempt % 2)", [1])
            let stamp = try POSIX.status(of: probe.path("p\(attempt % 2)"), followLinks: false).stamp
            if (stamp.changedSeconds, stamp.changedNanoseconds) > latest { return }
            usleep(1_000)  // the clock's next tick, without keeping a processor busy
        }
        Issue.record("the file system's clock did not move")
    }

    /// The tree most tests start from: blobs two and three levels down, an empty file, a
    /// hidden file.
    static func makeTree(_ folder: IOTestFolder) throws {
        try folder.createFile("memosync/v1/aaaa/segments/1.seg", [1, 2, 3])
        try folder.createFile("memosync/v1/aaaa/heads/h.head", [4])
        try folder.createFile("memosync/v1/bbbb/snapshots/9.snap", [5, 6])
        try folder.createFile("memosync/v1/bbbb/segments/empty.seg", [])
        try folder.createFile("memosync/v1/.hidden", [7])
        try folder.createFile("top", [8])
    }

    /// A probe whose cache trusts every folder of `folder`'s tree: two reads, 5 s apart by its
    /// clock, after the file system's clock passed the folders' stamps.
    static func settledStore(_ folder: IOTestFolder, cacheFile: String? = nil) throws -> Probe {
        try waitForFileSystemClock(past: folder)
        let probe = try Probe(folder, cacheFile: cacheFile)
        let first = try probe.list()
        probe.advance(5)
        let second = try probe.list()
        #expect(first.listing == second.listing)
        #expect(second.folders.count == first.folders.count)
        probe.advance(5)
        let third = try probe.list()
        #expect(third.folders == [], "a settled tree is read from the cache")
        #expect(third.listing == first.listing)
        return probe
    }

    /// The listing of a store without a cache: what every cached listing must equal.
    static func truth(_ folder: IOTestFolder, _ prefix: String = "") throws -> BlobListing {
        try DirectoryBlobStore(path: folder.path).listing(prefix: prefix)
    }

    @Test func aSettledTreeIsNotReadAgainAndListsTheSame() throws {
        let folder = IOTestFolder("cache-settled")
        defer { folder.remove() }
        try Self.makeTree(folder)
        let probe = try Self.settledStore(folder)
        let listed = try probe.list()
        #expect(listed.folders == [])
        #expect(listed.listing == (try Self.truth(folder)))
        #expect(listed.listing.blobs.map(\.key) == [
            "memosync/v1/aaaa/heads/h.head", "memosync/v1/aaaa/segments/1.seg", "memosync/v1/bbbb/snapshots/9.snap", "top",
        ])
        // A prefix walks only its region, from the cache too.
        let region = try probe.list("memosync/v1/aaaa/")
        #expect(region.listing == (try Self.truth(folder, "memosync/v1/aaaa/")))
    }

    @Test func aFolderReadOnceOrWithinTheSettleTimeIsReadAgain() throws {
        let folder = IOTestFolder("cache-unsettled")
        defer { folder.remove() }
        try Self.makeTree(folder)
        try Self.waitForFileSystemClock(past: folder)
        let probe = try Probe(folder)
        let first = try probe.list()
        #expect(first.folders.count == 9)
        probe.advance(DirectoryListingCache.settleSeconds - 0.5)
        #expect(try probe.list().folders.count == 9, "two reads less than the settle time apart do not settle a folder")
        probe.advance(DirectoryListingCache.settleSeconds)
        #expect(try probe.list().folders.count == 9)
        #expect(try probe.list().folders == [])
        // Past the longest trust every folder is read again; a clock that went back too.
        probe.advance(DirectoryListingCache.maxTrustSeconds + 1)
        #expect(try probe.list().folders.count == 9)
        probe.advance(-3_600)
        #expect(try probe.list().folders.count == 9)
    }

    @Test func aBlobWrittenByRenameShows() throws {
        let folder = IOTestFolder("cache-rename")
        defer { folder.remove() }
        try Self.makeTree(folder)
        let probe = try Self.settledStore(folder)
        try probe.store.write(key: "memosync/v1/aaaa/segments/2.seg", bytes: [9, 9])
        // Renamed in by another program, from a temporary file in the same folder.
        try folder.createFile("memosync/v1/bbbb/snapshots/.incoming", [3, 3, 3])
        try FileManager.default.moveItem(atPath: folder.path("memosync/v1/bbbb/snapshots/.incoming"), toPath: folder.path("memosync/v1/bbbb/snapshots/10.snap"))
        let listed = try probe.list()
        #expect(listed.folders == ["memosync/v1/aaaa/segments", "memosync/v1/bbbb/snapshots"])
        #expect(listed.listing == (try Self.truth(folder)))
        #expect(listed.listing.blobs.contains { $0.key == "memosync/v1/aaaa/segments/2.seg" })
        #expect(listed.listing.blobs.contains { $0.key == "memosync/v1/bbbb/snapshots/10.snap" })
    }

    @Test func aBlobCreatedOrFilledInPlaceShows() throws {
        let folder = IOTestFolder("cache-in-place")
        defer { folder.remove() }
        try Self.makeTree(folder)
        let probe = try Self.settledStore(folder)
        // Created in place: the folder gains a name.
        let created = folder.path("memosync/v1/aaaa/heads/new.head")
        let descriptor = open(created, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(descriptor >= 0)
        #expect(write(descriptor, [UInt8](repeating: 1, count: 10), 10) == 10)
        close(descriptor)
        // Filled in place: the empty file the settled listing left out now has bytes, and its
        // folder's stamp did not change.
        let filled = open(folder.path("memosync/v1/bbbb/segments/empty.seg"), O_WRONLY | O_APPEND)
        #expect(filled >= 0)
        #expect(write(filled, [2, 2, 2, 2], 4) == 4)
        close(filled)
        let listed = try probe.list()
        #expect(listed.folders == ["memosync/v1/aaaa/heads"])
        #expect(listed.listing == (try Self.truth(folder)))
        #expect(listed.listing.blobs.first { $0.key == "memosync/v1/aaaa/heads/new.head" }?.sizeBytes == 10)
        #expect(listed.listing.blobs.first { $0.key == "memosync/v1/bbbb/segments/empty.seg" }?.sizeBytes == 4)
        // A blob grown in place shows its new size and revision.
        let before = listed.listing.blobs.first { $0.key == "memosync/v1/aaaa/segments/1.seg" }
        let grown = open(folder.path("memosync/v1/aaaa/segments/1.seg"), O_WRONLY | O_APPEND)
        #expect(write(grown, [7], 1) == 1)
        close(grown)
        let after = try probe.list().listing.blobs.first { $0.key == "memosync/v1/aaaa/segments/1.seg" }
        #expect(after?.sizeBytes == 4)
        #expect(after?.revision != before?.revision)
    }

    @Test func aBlobInANewSubfolderShows() throws {
        let folder = IOTestFolder("cache-new-folder")
        defer { folder.remove() }
        try Self.makeTree(folder)
        let probe = try Self.settledStore(folder)
        try folder.createFile("memosync/v1/cccc/segments/1.seg", [1])
        try folder.createFile("memosync/v1/aaaa/snapshots/1.snap", [2])
        let listed = try probe.list()
        #expect(listed.listing == (try Self.truth(folder)))
        #expect(listed.listing.blobs.contains { $0.key == "memosync/v1/cccc/segments/1.seg" })
        #expect(listed.listing.blobs.contains { $0.key == "memosync/v1/aaaa/snapshots/1.snap" })
        #expect(listed.folders == [
            "memosync/v1", "memosync/v1/aaaa", "memosync/v1/aaaa/snapshots", "memosync/v1/cccc", "memosync/v1/cccc/segments",
        ])
    }

    @Test func aRemovedBlobOrFolderIsGone() throws {
        let folder = IOTestFolder("cache-removed")
        defer { folder.remove() }
        try Self.makeTree(folder)
        let probe = try Self.settledStore(folder)
        try probe.store.delete(key: "memosync/v1/aaaa/segments/1.seg")
        try FileManager.default.removeItem(atPath: folder.path("memosync/v1/bbbb"))
        let listed = try probe.list()
        #expect(listed.listing == (try Self.truth(folder)))
        #expect(listed.listing.blobs.map(\.key) == ["memosync/v1/aaaa/heads/h.head", "top"])
        // The records of the removed folders are dropped; a listing of one region keeps the rest.
        let root = try POSIX.status(of: folder.path, followLinks: true).stamp
        var records = probe.store.listingCache.current(rootDevice: root.device, rootInode: root.inode).records
        #expect(records.keys.sorted() == ["", "memosync", "memosync/v1", "memosync/v1/aaaa", "memosync/v1/aaaa/heads", "memosync/v1/aaaa/segments"])
        try FileManager.default.removeItem(atPath: folder.path("memosync/v1/aaaa/heads"))
        #expect(try probe.list("memosync/v1/aaaa/").listing == (try Self.truth(folder, "memosync/v1/aaaa/")))
        records = probe.store.listingCache.current(rootDevice: root.device, rootInode: root.inode).records
        #expect(records.keys.sorted() == ["", "memosync", "memosync/v1", "memosync/v1/aaaa", "memosync/v1/aaaa/segments"])
    }

    @Test func aFolderReplacedByALinkIsReportedNotFollowed() throws {
        let folder = IOTestFolder("cache-link")
        let outside = IOTestFolder("cache-link-outside")
        defer {
            folder.remove()
            outside.remove()
        }
        try Self.makeTree(folder)
        try outside.createFile("1.seg", [6, 6])
        let probe = try Self.settledStore(folder)
        try FileManager.default.removeItem(atPath: folder.path("memosync/v1/aaaa/segments"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("memosync/v1/aaaa/segments"), withDestinationPath: outside.path)
        let listed = try probe.list()
        #expect(listed.listing == (try Self.truth(folder)))
        #expect(listed.listing.skipped == [SkippedEntry(key: "memosync/v1/aaaa/segments", problem: .symbolicLink)])
        #expect(!listed.listing.blobs.contains { $0.key.hasPrefix("memosync/v1/aaaa/segments/") })
    }

    @Test func theCacheFileCarriesTheCacheToANewStore() throws {
        let folder = IOTestFolder("cache-file")
        let library = IOTestFolder("cache-file-library")
        defer {
            folder.remove()
            library.remove()
        }
        try library.createFolder("")
        let cacheFile = library.path("store-listing-cache")
        for index in 0..<(DirectoryListingCache.saveAfterChangedRecords + 10) {
            try folder.createFile("memosync/v1/\(String(index, radix: 16))/segments/1.seg", [UInt8(index % 200 + 1)])
        }
        _ = try Self.settledStore(folder, cacheFile: cacheFile)
        let saved = try #require(FileManager.default.contents(atPath: cacheFile))
        let decoded = try #require(DirectoryListingCache.decoded(Array(saved)))
        #expect(decoded.encoded() == Array(saved), "the file's encoding is canonical")
        // A new store (another process) starts from the file: nothing read.
        let next = try Probe(folder, cacheFile: cacheFile)
        next.advance(10)
        let listed = try next.list()
        #expect(listed.folders == [])
        #expect(listed.listing == (try Self.truth(folder)))
        // A new blob still shows.
        try folder.createFile("memosync/v1/5/segments/2.seg", [1])
        let third = try Probe(folder, cacheFile: cacheFile)
        third.advance(10)
        let relisted = try third.list()
        #expect(relisted.listing == (try Self.truth(folder)))
        #expect(relisted.folders == ["memosync/v1/5/segments"])
    }

    @Test func aDamagedUnknownOrForeignCacheFileIsIgnored() throws {
        let folder = IOTestFolder("cache-damaged")
        let other = IOTestFolder("cache-damaged-other")
        let library = IOTestFolder("cache-damaged-library")
        defer {
            folder.remove()
            other.remove()
            library.remove()
        }
        try library.createFolder("")
        let cacheFile = library.path("store-listing-cache")
        for index in 0..<(DirectoryListingCache.saveAfterChangedRecords + 10) {
            try folder.createFile("memosync/v1/\(String(index, radix: 16))/segments/1.seg", [1])
        }
        try Self.makeTree(other)
        _ = try Self.settledStore(folder, cacheFile: cacheFile)
        let good = Array(try #require(FileManager.default.contents(atPath: cacheFile)))
        var flipped = good
        flipped[flipped.count / 2] ^= 0x10
        var otherVersion = good
        otherVersion[4] = 2
        let damaged: [[UInt8]] = [[], [0x4D], Array(good.prefix(good.count - 1)), flipped, otherVersion, [UInt8](repeating: 0xFF, count: 4_096)]
        for bytes in damaged {
            #expect(DirectoryListingCache.decoded(bytes) == nil)
            try Data(bytes).write(to: URL(fileURLWithPath: cacheFile))
            let probe = try Probe(folder, cacheFile: cacheFile)
            let listed = try probe.list()
            #expect(listed.listing == (try Self.truth(folder)))
            #expect(listed.folders.count == 3 + 2 * (DirectoryListingCache.saveAfterChangedRecords + 10), "every folder read again")
        }
        // A folder in the cache file's place: ignored too.
        try FileManager.default.removeItem(atPath: cacheFile)
        try FileManager.default.createDirectory(atPath: cacheFile, withIntermediateDirectories: false)
        #expect(try Probe(folder, cacheFile: cacheFile).list().listing == (try Self.truth(folder)))
        try FileManager.default.removeItem(atPath: cacheFile)
        // Another store folder's cache: not used for this one.
        try Data(good).write(to: URL(fileURLWithPath: cacheFile))
        let foreign = try Probe(other, cacheFile: cacheFile)
        foreign.advance(10)
        let listed = try foreign.list()
        #expect(listed.listing == (try Self.truth(other)))
        #expect(listed.folders.count == 9)
    }
}
