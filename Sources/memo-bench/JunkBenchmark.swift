// `memo-bench junk` (issue 25): what junk in a store costs a sync.
//
// Two folder stores hold the same notebook (the `sync` benchmark's N memos, one snapshot); one
// of them also holds 10,000 junk blob names (files named like segments, snapshots and heads of
// replicas nobody has, and names that are no MemoSync key, each 100 to 400 bytes of junk) and
// one 500 MB junk file named like a snapshot (sparse: no disk used; its listed size is what
// counts). On each store, one device bootstraps (its first sync), syncs again (nothing new), then
// receives one change per run from a second device. The first sync is also made by one more new
// device per further run, each with a listing cache of its own: the first-sync figures are the
// medians of `runs` first syncs (one is one sample of a noisy machine), each started after
// `sync()`, so that earlier devices' writes are on disk. Every sync of the junk store is
// compared with the same sync of the clean one (the two alternate, so the machine's load hits both alike):
// target, each at most 2x. Reads are counted through a wrapper: the 500 MB file must be read at
// most once over all syncs (it is larger than any blob a writer makes: never). Each device keeps
// its folder store's listing cache in a file, as `memo` does in its library, and each measured
// sync starts from a new store (the cache as its file holds it), as a `memo sync` process does.
// The listing alone is measured without the cache (every folder read) and with it.

import Foundation
import MemoCRDT
import MemoSync
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum JunkBenchmark {
    static let junkNames = 10_000
    static let bigFileBytes = 500_000_000

    /// Reads counted over every store of one folder (all, and those of one key).
    final class ReadCounts: Sendable {
        let watched: String
        private let counts = Mutex<(reads: Int, bytes: Int, watchedReads: Int)>((0, 0, 0))
        init(watching key: String) { watched = key }
        var watchedReads: Int { counts.withLock { $0.watchedReads } }
        func count(_ key: String, bytes: Int) {
            counts.withLock { state in
                state.reads += 1
                state.bytes += bytes
                if key == watched { state.watchedReads += 1 }
            }
        }
    }

    /// A folder store whose reads are counted. ``reopen()`` replaces it by a new one of the same
    /// folder and listing cache file: what a new `memo sync` process starts from (the cache as
    /// its file holds it).
    final class CountingStore: BlobStore {
        let path: String
        let cachePath: String
        let counts: ReadCounts
        private let current: Mutex<DirectoryBlobStore>

        init(path: String, cachePath: String, counts: ReadCounts) throws {
            self.path = path
            self.cachePath = cachePath
            self.counts = counts
            current = Mutex(try DirectoryBlobStore(path: path, listingCachePath: cachePath))
        }

        var inner: DirectoryBlobStore { current.withLock { $0 } }

        func reopen() throws {
            let store = try DirectoryBlobStore(path: path, listingCachePath: cachePath)
            current.withLock { $0 = store }
        }

        func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] { try inner.list(prefix: prefix) }
        func listing(prefix: String) throws(BlobStoreError) -> BlobListing { try inner.listing(prefix: prefix) }
        func read(key: String) throws(BlobStoreError) -> [UInt8] {
            let bytes = try inner.read(key: key)
            counts.count(key, bytes: bytes.count)
            return bytes
        }
        func write(key: String, bytes: [UInt8]) throws(BlobStoreError) { try inner.write(key: key, bytes: bytes) }
        func delete(key: String) throws(BlobStoreError) { try inner.delete(key: key) }
    }

    static func run(memoCount: Int, runs: Int) async throws -> Report {
        var random = BenchRandom(seed: 0x25_25)
        let built = try NotebookBenchmark.build(memoCount: memoCount, random: &random)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memo-bench-junk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let snapshot = built.encoded()
        let snapshotKey = StoreLayout.snapshotKey(replica: built.replica, totalOperations: UInt64(built.version.operationCount), bytes: snapshot)
        let bigKey = "memosync/v1/00000000000bad00/snapshots/999999999999-0000000000000000.snap"

        // Each folder: the measured device's store and the writer's, each with its own listing
        // cache file (as each device's library holds its own).
        var stores: [CountingStore] = []
        var writerStores: [CountingStore] = []
        for name in ["clean", "junk"] {
            let path = root.appendingPathComponent(name).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let counts = ReadCounts(watching: bigKey)
            let store = try CountingStore(path: path, cachePath: root.appendingPathComponent("cache-device-\(name)").path, counts: counts)
            try store.write(key: snapshotKey, bytes: snapshot)
            stores.append(store)
            writerStores.append(try CountingStore(path: path, cachePath: root.appendingPathComponent("cache-writer-\(name)").path, counts: counts))
        }
        try writeJunk(into: stores[1].inner, bigKey: bigKey, random: &random)

        // Each store: a writer device and a measured device. Every measured sync starts from a
        // new store (the listing cache as its file holds it), as a `memo sync` process does.
        var writers: [Replica] = []
        var devices: [Replica] = []
        for (index, store) in writerStores.enumerated() {
            let writer = try Replica(libraryPath: root.appendingPathComponent("writer-\(index)").path)
            try await requireComplete(try await writer.sync(with: store), "the writer's bootstrap")
            writers.append(writer)
            devices.append(try Replica(libraryPath: root.appendingPathComponent("device-\(index)").path))
        }

        func both(_ body: (Int) async throws -> (result: SyncReport, milliseconds: Double)) async throws -> [(result: SyncReport, milliseconds: Double)] {
            var results: [(result: SyncReport, milliseconds: Double)] = []
            for index in 0..<2 { results.append(try await body(index)) }
            return results
        }
        var firstProcessorMilliseconds: [[Double]] = [[], []]
        let first = try await both { index in
            try stores[index].reopen()
            sync()
            let before = Measure.processorMilliseconds()
            let timed = try await Measure.timed { () async throws(ReplicaError) in try await devices[index].sync(with: stores[index]) }
            firstProcessorMilliseconds[index].append(Measure.processorMilliseconds() - before)
            return timed
        }
        // More first syncs, each by a new device with a listing cache of its own (none yet),
        // for a median: one first sync is one sample of a noisy machine.
        var firstMilliseconds: [[Double]] = [[first[0].milliseconds], [first[1].milliseconds]]
        for run in 1..<max(1, runs) {
            for index in 0..<2 {
                let name = "device-\(index)-first-\(run)"
                let store = try CountingStore(
                    path: stores[index].path, cachePath: root.appendingPathComponent("cache-" + name).path, counts: ReadCounts(watching: bigKey))
                let device = try Replica(libraryPath: root.appendingPathComponent(name).path)
                // The previous devices' library files written out first, so that the disk's
                // write-back of earlier syncs does not land in this one's time.
                sync()
                let before = Measure.processorMilliseconds()
                let timed = try await Measure.timed { () async throws(ReplicaError) in try await device.sync(with: store) }
                firstProcessorMilliseconds[index].append(Measure.processorMilliseconds() - before)
                try await requireComplete(timed.result, "a new device's first sync")
                firstMilliseconds[index].append(timed.milliseconds)
                if store.counts.watchedReads > 0 { throw BenchFailure.usage("a first sync read the 500 MB file") }
                await device.close()
            }
        }
        let second = try await both { index in
            try stores[index].reopen()
            return try await Measure.timed { () async throws(ReplicaError) in try await devices[index].sync(with: stores[index]) }
        }
        for (index, device) in devices.enumerated() where device.notebook.activeMemoCount != built.activeMemoCount {
            throw BenchFailure.usage("device \(index) holds \(device.notebook.activeMemoCount) memos, not \(built.activeMemoCount)")
        }
        var steady: [[Double]] = [[], []]
        var steadyProcessor: [[Double]] = [[], []]
        var steadyLast: [SyncReport] = [SyncReport(), SyncReport()]
        let target = built.list()[memoCount / 2].id
        for run in 0..<runs {
            for index in 0..<2 {
                try writers[index].edit(target, replacingUTF16: 0..<0, with: "edit \(run) ")
                try await requireComplete(try await writers[index].sync(with: writerStores[index]), "a writer's sync")
                try stores[index].reopen()
                let before = Measure.processorMilliseconds()
                let timed = try await Measure.timed { () async throws(ReplicaError) in try await devices[index].sync(with: stores[index]) }
                steadyProcessor[index].append(Measure.processorMilliseconds() - before)
                steady[index].append(timed.milliseconds)
                steadyLast[index] = timed.result
            }
        }
        for index in 0..<2 where devices[index].notebook.memo(target)?.text != writers[index].notebook.memo(target)?.text {
            throw BenchFailure.usage("device \(index) did not receive the change")
        }
        // The listing alone, for scale: with no cache (every folder read), and with the cache
        // (a new store: its file read, each file asked its status, no folder read).
        // Also in processor time (user and system), which the machine's load does not inflate.
        var listing: [[Double]] = [[], []]
        var listingProcessor: [[Double]] = [[], []]
        var cachedListing: [[Double]] = [[], []]
        var cachedListingProcessor: [[Double]] = [[], []]
        for _ in 0..<runs {
            for index in 0..<2 {
                let uncached = try DirectoryBlobStore(path: stores[index].path)
                var before = Measure.processorMilliseconds()
                listing[index].append(try Measure.timed { () throws(BlobStoreError) in try uncached.listing(prefix: StoreLayout.root) }.milliseconds)
                listingProcessor[index].append(Measure.processorMilliseconds() - before)
                try stores[index].reopen()
                before = Measure.processorMilliseconds()
                cachedListing[index].append(try Measure.timed { () throws(BlobStoreError) in try stores[index].inner.listing(prefix: StoreLayout.root) }.milliseconds)
                cachedListingProcessor[index].append(Measure.processorMilliseconds() - before)
            }
        }

        var report = Report()
        report.add("benchmark", .string("junk"))
        report.add("memos", .integer(built.activeMemoCount))
        report.add("snapshot_bytes", .integer(snapshot.count))
        report.add("junk_names", .integer(junkNames))
        report.add("big_file_bytes", .integer(bigFileBytes))
        report.add("first_sync_ms_clean", .milliseconds(Measure.median(firstMilliseconds[0])))
        report.add("first_sync_ms_junk", .milliseconds(Measure.median(firstMilliseconds[1])))
        report.add("first_sync_ratio", .number(Measure.median(firstMilliseconds[1]) / Measure.median(firstMilliseconds[0])))
        report.add("first_sync_ratio_each_run", .numbers(zip(firstMilliseconds[1], firstMilliseconds[0]).map { $0 / $1 }))
        report.add("first_sync_cpu_ms_clean", .milliseconds(Measure.median(firstProcessorMilliseconds[0])))
        report.add("first_sync_cpu_ms_junk", .milliseconds(Measure.median(firstProcessorMilliseconds[1])))
        report.add("first_sync_blobs_read_junk", .integer(first[1].result.blobsRead))
        report.add("first_sync_bytes_read_clean", .integer(first[0].result.bytesRead))
        report.add("first_sync_bytes_read_junk", .integer(first[1].result.bytesRead))
        report.add("first_sync_skipped_junk", .integer(first[1].result.skipped.count))
        report.add("second_sync_ms_clean", .milliseconds(second[0].milliseconds))
        report.add("second_sync_ms_junk", .milliseconds(second[1].milliseconds))
        report.add("second_sync_ratio", .number(second[1].milliseconds / second[0].milliseconds))
        report.add("second_sync_blobs_read_junk", .integer(second[1].result.blobsRead))
        report.add("second_sync_bytes_read_junk", .integer(second[1].result.bytesRead))
        report.add("steady_sync_ms_clean", .milliseconds(Measure.median(steady[0])))
        report.add("steady_sync_ms_junk", .milliseconds(Measure.median(steady[1])))
        report.add("steady_sync_ratio", .number(Measure.median(steady[1]) / Measure.median(steady[0])))
        report.add("steady_sync_blobs_read_junk", .integer(steadyLast[1].blobsRead))
        report.add("steady_sync_bytes_read_junk", .integer(steadyLast[1].bytesRead))
        report.add("steady_sync_skipped_reported_junk", .integer(steadyLast[1].skipped.count))
        report.add("steady_sync_blobs_remembered_junk", .integer(steadyLast[1].blobsRemembered))
        report.add("listing_ms_clean", .milliseconds(Measure.median(listing[0])))
        report.add("listing_ms_junk", .milliseconds(Measure.median(listing[1])))
        report.add("listing_cpu_ms_clean", .milliseconds(Measure.median(listingProcessor[0])))
        report.add("listing_cpu_ms_junk", .milliseconds(Measure.median(listingProcessor[1])))
        report.add("cached_listing_ms_clean", .milliseconds(Measure.median(cachedListing[0])))
        report.add("cached_listing_ms_junk", .milliseconds(Measure.median(cachedListing[1])))
        report.add("cached_listing_cpu_ms_clean", .milliseconds(Measure.median(cachedListingProcessor[0])))
        report.add("cached_listing_cpu_ms_junk", .milliseconds(Measure.median(cachedListingProcessor[1])))
        report.add("steady_sync_cpu_ms_clean", .milliseconds(Measure.median(steadyProcessor[0])))
        report.add("steady_sync_cpu_ms_junk", .milliseconds(Measure.median(steadyProcessor[1])))
        report.add("big_file_reads", .integer(stores[1].counts.watchedReads))
        report.add("runs", .integer(runs))
        for replica in writers + devices { await replica.close() }
        return report
    }

    private static func requireComplete(_ report: SyncReport, _ what: String) async throws {
        guard report.isComplete else { throw BenchFailure.usage("\(what) did not complete: \(report.errors)") }
    }

    /// 10,000 junk names (a quarter each named like segments, snapshots and heads of replicas
    /// nobody has, and names that are no MemoSync key) and the 500 MB file (sparse).
    private static func writeJunk(into store: DirectoryBlobStore, bigKey: String, random: inout BenchRandom) throws {
        for index in 0..<junkNames {
            let replica = String(format: "%016llx", 0xA000_0000 + UInt64(index))
            let hash = String(format: "%016llx", UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
            let key: String = switch index % 4 {
            case 0: "memosync/v1/\(replica)/segments/0000000000-\(String(format: "%010d", 1 + index % 50))-\(hash).seg"
            case 1: "memosync/v1/\(replica)/snapshots/\(String(format: "%012d", index))-\(hash).snap"
            case 2: "memosync/v1/\(replica)/heads/\(hash).head"
            default: "memosync/v1/junk/\(index % 100)/notes-\(index).txt"
            }
            let count = 100 + random.int(0..<300)
            try store.write(key: key, bytes: (0..<count).map { _ in UInt8(truncatingIfNeeded: random.int(0..<256)) })
        }
        let path = store.path + "/" + bigKey
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0, ftruncate(descriptor, off_t(bigFileBytes)) == 0 else {
            throw BenchFailure.usage("cannot create the 500 MB junk file at \(path)")
        }
        close(descriptor)
    }
}
