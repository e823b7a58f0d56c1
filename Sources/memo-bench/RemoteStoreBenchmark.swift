// `memo-bench remote --store s3|webdav`: syncing through a real S3 or WebDAV server (issue 15),
// the local ones Tests/Servers/servers.sh starts (SeaweedFS, wsgidav), named by the
// MEMOSYNC_TEST_* variables it exports:
//
//     Tests/Servers/servers.sh swift run -c release memo-bench remote --store s3
//
// Measures, in a fresh prefix or folder of the server:
// - one changed memo: a writer publishes one edit, a reader receives it: requests (all, and
//   those that are not listing pages), bytes sent and received, milliseconds;
// - a new device's bootstrap of a 10,000-memo notebook (a snapshot, and 3 writers' segments):
//   milliseconds, requests, bytes;
// - listing 5,000 blobs (spread over 5 replicas' folders, as MemoSync lays them out): the median
//   of 3 listings, and the listing requests one takes.

import Foundation
import MemoCRDT
import MemoSync
import MemoSyncRemote

enum RemoteStoreBenchmark {
    static let writerCount = 3
    static let segmentsPerWriter = 10
    static let listedBlobCount = 5_000

    enum Kind: String { case s3, webdav }

    static func run(kind: Kind) async throws -> Report {
        let environment = ProcessInfo.processInfo.environment
        guard environment["MEMOSYNC_TEST_S3_ENDPOINT"] != nil else {
            throw BenchFailure.usage("no test servers: run it as 'Tests/Servers/servers.sh swift run -c release memo-bench remote --store \(kind.rawValue)'")
        }
        let place = "bench-\(UUID().uuidString.prefix(8).lowercased())"
        let makeStore = { () throws -> (any BlobStore, () -> RemoteStoreStatistics) in try store(kind, place: place, environment: environment) }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memo-bench-\(place)")
        defer { try? FileManager.default.removeItem(at: root) }
        let devices = try RemoteBenchmark.Devices(root: root)

        var random = BenchRandom(seed: 0x4E_7015)
        let built = try NotebookBenchmark.build(memoCount: RemoteBenchmark.memoCount, random: &random)
        let (seed, _) = try makeStore()
        let snapshot = built.encoded()
        try await seed.write(key: StoreLayout.snapshotKey(replica: built.replica, totalOperations: UInt64(built.version.operationCount), bytes: snapshot), bytes: snapshot)
        let writers = try await publishSegments(devices, store: seed)

        // A new device's bootstrap.
        let (bootStore, bootStatistics) = try makeStore()
        let reader = try devices.new()
        let bootstrap = try await Measure.timed { () async throws(ReplicaError) in try await reader.sync(with: bootStore) }
        guard bootstrap.result.isComplete else { throw BenchFailure.usage("the bootstrap did not complete: \(bootstrap.result.errors)") }
        let boot = bootStatistics()

        // One changed memo, published and received, both sides up to date first.
        try await writers[0].sync(with: bootStore)
        try await reader.sync(with: bootStore)
        let target = try requireValue(writers[0].notebook.list().first?.id)
        try writers[0].edit(target, replacingUTF16: 0..<0, with: "one change ")
        let (publishStore, publishStatistics) = try makeStore()
        let published = try await Measure.timed { () async throws(ReplicaError) in try await writers[0].sync(with: publishStore) }
        let (receiveStore, receiveStatistics) = try makeStore()
        let received = try await Measure.timed { () async throws(ReplicaError) in try await reader.sync(with: receiveStore) }
        guard published.result.isComplete, received.result.isComplete, reader.notebook.memo(target)?.text == writers[0].notebook.memo(target)?.text else {
            throw BenchFailure.usage("the change did not go through: \(published.result.errors) \(received.result.errors)")
        }
        let (publish, receive) = (publishStatistics(), receiveStatistics())
        for writer in writers { await writer.close() }
        await reader.close()

        let listing = try await listingTime(kind, place: place, environment: environment)

        var report = Report()
        report.add("benchmark", .string("remote-\(kind.rawValue)"))
        report.add("memos", .integer(built.activeMemoCount))
        report.add("segments", .integer(writerCount * segmentsPerWriter))
        report.add("bootstrap_ms", .milliseconds(bootstrap.milliseconds))
        report.add("bootstrap_requests", .integer(boot.requests))
        report.add("bootstrap_bytes_received", .integer(boot.bytesReceived))
        report.add("sync_one_change_ms", .milliseconds(published.milliseconds))
        report.add("requests_one_change", .integer(publish.requests))
        report.add("requests_one_change_besides_listing", .integer(publish.requests - publish.listingRequests))
        report.add("bytes_sent_one_change", .integer(publish.bytesSent))
        report.add("bytes_received_one_change", .integer(publish.bytesReceived))
        report.add("receive_one_change_ms", .milliseconds(received.milliseconds))
        report.add("requests_receive_one_change", .integer(receive.requests))
        report.add("requests_receive_one_change_besides_listing", .integer(receive.requests - receive.listingRequests))
        report.add("bytes_received_receive_one_change", .integer(receive.bytesReceived))
        report.add("listed_blobs", .integer(listedBlobCount))
        report.add("listing_ms", .milliseconds(listing.milliseconds))
        report.add("listing_requests", .integer(listing.requests))
        return report
    }

    /// A store in `place` on the test server of `kind`, and a function that reads its counts.
    static func store(_ kind: Kind, place: String, environment: [String: String]) throws -> (any BlobStore, () -> RemoteStoreStatistics) {
        let value = { (name: String) in environment[name] ?? "" }
        switch kind {
        case .s3:
            let store = try S3BlobStore(configuration: .init(
                bucket: value("MEMOSYNC_TEST_S3_BUCKET"), prefix: place + "/", endpoint: URL(string: value("MEMOSYNC_TEST_S3_ENDPOINT")),
                credentials: S3Credentials(accessKeyID: value("MEMOSYNC_TEST_S3_ACCESS_KEY"), secretAccessKey: value("MEMOSYNC_TEST_S3_SECRET_KEY"))))
            return (store, { store.statistics })
        case .webdav:
            let folder = value("MEMOSYNC_TEST_SERVERS_STATE") + "/webdav-data/" + place
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let store = try WebDAVBlobStore(configuration: .init(
                folder: try requireValue(URL(string: value("MEMOSYNC_TEST_DAV_URL") + place + "/")),
                credentials: WebDAVCredentials(user: value("MEMOSYNC_TEST_DAV_USER"), password: value("MEMOSYNC_TEST_DAV_PASSWORD"))))
            return (store, { store.statistics })
        }
    }

    /// Writers that each publish `segmentsPerWriter` segments (one edit per sync, no snapshot).
    static func publishSegments(_ devices: RemoteBenchmark.Devices, store: any BlobStore) async throws -> [Replica] {
        var quiet = SyncConfiguration()
        quiet.snapshotAfterSegments = .max
        quiet.snapshotEveryOperations = .max
        var writers: [Replica] = []
        for _ in 0..<writerCount { writers.append(try devices.new(quiet)) }
        for writer in writers { try await writer.sync(with: store) }
        let targets = writers[0].notebook.list().prefix(segmentsPerWriter).map(\.id)
        for round in 0..<segmentsPerWriter {
            for (index, writer) in writers.enumerated() {
                try writer.edit(targets[(round + index * 7) % targets.count], replacingUTF16: 0..<0, with: "w\(index)r\(round) ")
                let report = try await writer.sync(with: store)
                guard report.isComplete, report.publishedSegment != nil else { throw BenchFailure.usage("a writer's sync did not publish: \(report.errors)") }
            }
        }
        return writers
    }

    /// Puts `listedBlobCount` small blobs under a prefix of their own, then lists them three
    /// times: the median time and one listing's requests.
    static func listingTime(_ kind: Kind, place: String, environment: [String: String]) async throws -> (milliseconds: Double, requests: Int) {
        let (store, _) = try store(kind, place: place + "-listing", environment: environment)
        let keys = (0..<listedBlobCount).map { index in
            "memosync/v1/\(String(format: "%016x", index % 5 + 1))/segments/\(String(format: "%010d", index))-\(String(format: "%010d", index + 1))-0000000000000000.seg"
        }
        if kind == .webdav {
            // Straight into the server's folder: thousands of uploads through wsgidav take
            // minutes, and the listing is what is measured.
            let folder = (environment["MEMOSYNC_TEST_SERVERS_STATE"] ?? "") + "/webdav-data/" + place + "-listing/"
            for key in keys {
                let path = folder + key
                try FileManager.default.createDirectory(atPath: String(path[..<path.lastIndex(of: "/")!]), withIntermediateDirectories: true)
                try Data([1]).write(to: URL(fileURLWithPath: path))
            }
        } else {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, key) in keys.enumerated() {
                    if index >= 16 { try await group.next() }
                    group.addTask { try await store.write(key: key, bytes: [1]) }
                }
                try await group.waitForAll()
            }
        }
        var times: [Double] = []
        var requests = 0
        for _ in 0..<3 {
            let (lister, statistics) = try self.store(kind, place: place + "-listing", environment: environment)
            let timed = try await Measure.timed { () async throws(BlobStoreError) in try await lister.list(prefix: StoreLayout.root) }
            guard timed.result.count == listedBlobCount else { throw BenchFailure.usage("listed \(timed.result.count) blobs, not \(listedBlobCount)") }
            times.append(timed.milliseconds)
            requests = statistics().requests
        }
        return (times.sorted()[1], requests)
    }
}

/// `value`, or a benchmark failure when it is nil.
func requireValue<T>(_ value: T?, _ what: String = "a value") throws -> T {
    guard let value else { throw BenchFailure.usage("missing \(what)") }
    return value
}
