import Foundation
import MemoSync
import MemoSyncTesting
import Synchronization
import Testing

@testable import MemoSyncRemote

/// The servers Tests/Servers/servers.sh started (SeaweedFS for S3, wsgidav for WebDAV, a fault
/// proxy in front of each), from the MEMOSYNC_TEST_* variables it exports.
enum RemoteServers {
    static let environment = ProcessInfo.processInfo.environment

    static var available: Bool { environment["MEMOSYNC_TEST_S3_ENDPOINT"] != nil && environment["MEMOSYNC_TEST_DAV_URL"] != nil }

    /// Why the servers are not there.
    static var whyMissing: String {
        environment["MEMOSYNC_TEST_SERVERS_MISSING"]
            ?? "the test servers are not running (run the tests through Tests/run.sh or Tests/Servers/servers.sh)"
    }

    /// Whether the servers must be there (.ci/run): their absence then fails the run.
    static var required: Bool { environment["MEMOSYNC_REQUIRE_REMOTE_SERVERS"] == "1" }

    static func value(_ name: String) -> String { environment[name] ?? "" }

    /// A retry policy short enough for tests that expect failures.
    static let quickRetries = RetryPolicy(attemptsMax: 4, baseDelayMilliseconds: 20, maxDelayMilliseconds: 200, deadlineMilliseconds: 1_500)
    /// For tests that make many requests and expect them all to succeed: survives a request
    /// that times out on a loaded machine (libcurl can resend a request without its body after
    /// the server closed an idle connection; it then waits for its timeout) and is retried.
    static let steadyRetries = RetryPolicy(attemptsMax: 6, baseDelayMilliseconds: 20, maxDelayMilliseconds: 500, deadlineMilliseconds: 45_000)
    /// A patient one, for tests that go through the fault proxy.
    static let patientRetries = RetryPolicy(attemptsMax: 12, baseDelayMilliseconds: 10, maxDelayMilliseconds: 200, deadlineMilliseconds: 10_000)

    static func uniqueName() -> String { "run-" + UUID().uuidString.lowercased().prefix(13) }

    static func s3Configuration(
        prefix: String, viaProxy: Bool = false, bucket: String? = nil, secret: String? = nil, retries: RetryPolicy = quickRetries,
        endpoint: String? = nil
    ) -> S3BlobStore.Configuration {
        var configuration = S3BlobStore.Configuration(
            bucket: bucket ?? value("MEMOSYNC_TEST_S3_BUCKET"), prefix: prefix, region: "us-east-1",
            endpoint: URL(string: endpoint ?? value(viaProxy ? "MEMOSYNC_TEST_S3_PROXY" : "MEMOSYNC_TEST_S3_ENDPOINT"))!,
            credentials: S3Credentials(accessKeyID: value("MEMOSYNC_TEST_S3_ACCESS_KEY"), secretAccessKey: secret ?? value("MEMOSYNC_TEST_S3_SECRET_KEY")))
        configuration.retryPolicy = retries
        configuration.timeoutMilliseconds = 10_000
        return configuration
    }

    static func davConfiguration(
        folder: String, viaProxy: Bool = false, password: String? = nil, retries: RetryPolicy = quickRetries, base: String? = nil
    ) -> WebDAVBlobStore.Configuration {
        let base = base ?? value(viaProxy ? "MEMOSYNC_TEST_DAV_PROXY" : "MEMOSYNC_TEST_DAV_URL")
        var configuration = WebDAVBlobStore.Configuration(
            folder: URL(string: folder.isEmpty ? base : base + folder + "/")!,
            credentials: WebDAVCredentials(user: value("MEMOSYNC_TEST_DAV_USER"), password: password ?? value("MEMOSYNC_TEST_DAV_PASSWORD")))
        configuration.retryPolicy = retries
        configuration.timeoutMilliseconds = 10_000
        return configuration
    }

    /// Sends one request with the WebDAV credentials (to make a test's folder).
    static func davRequest(_ method: String, path: String) async throws -> Int {
        let transport = URLSessionTransport(timeoutMilliseconds: 10_000, connectionsPerHost: 2)
        let token = Data("\(value("MEMOSYNC_TEST_DAV_USER")):\(value("MEMOSYNC_TEST_DAV_PASSWORD"))".utf8).base64EncodedString()
        let request = HTTPRequest(method: method, url: URL(string: value("MEMOSYNC_TEST_DAV_URL") + path)!, headers: [("Authorization", "Basic \(token)")])
        return try await transport.send(request).status
    }

    /// Sets the faults of the proxy in front of `kind`'s server (an empty object: none), and
    /// returns how many of each it injected since the last setting.
    @discardableResult
    static func faults(_ kind: RemoteKind, _ settings: String? = nil) async throws -> [String: Int] {
        let base = value(kind == .s3 ? "MEMOSYNC_TEST_S3_PROXY" : "MEMOSYNC_TEST_DAV_PROXY")
        let origin = base.hasSuffix("/dav/") ? String(base.dropLast(5)) : base
        let transport = URLSessionTransport(timeoutMilliseconds: 10_000, connectionsPerHost: 2)
        let request = HTTPRequest(method: settings == nil ? "GET" : "POST", url: URL(string: origin + "/__faults__")!, body: Array((settings ?? "").utf8))
        let answer = try await transport.send(request)
        let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        return (object?["injected"] as? [String: Int]) ?? [:]
    }

    /// Stops or starts the server `name` through Tests/Servers/servers.py; returns what it
    /// printed (a started server's endpoint).
    @discardableResult
    static func control(_ verb: String, _ name: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", value("MEMOSYNC_TEST_SERVERS"), verb, name, value("MEMOSYNC_TEST_SERVERS_STATE")]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "servers.py \(verb) \(name) failed")
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The folder where wsgidav keeps the WebDAV files (to put files there directly).
    static var davDataFolder: String { value("MEMOSYNC_TEST_SERVERS_STATE") + "/webdav-data" }
}

/// Which server a test runs against.
enum RemoteKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case s3, webdav
    var testDescription: String { rawValue }
}

/// A fresh, empty place on `kind`'s server for one test: a prefix in the bucket, or a new
/// folder on the WebDAV server.
struct RemotePlace {
    let kind: RemoteKind
    let name = RemoteServers.uniqueName()

    init(_ kind: RemoteKind) async throws {
        self.kind = kind
        if kind == .webdav {
            let status = try await RemoteServers.davRequest("MKCOL", path: name + "/")
            #expect(status == 201, "MKCOL \(name): \(status)")
        }
    }

    func store(viaProxy: Bool = false, retries: RetryPolicy = RemoteServers.quickRetries) throws -> any RemoteTestStore {
        switch kind {
        case .s3: try S3BlobStore(configuration: RemoteServers.s3Configuration(prefix: name + "/", viaProxy: viaProxy, retries: retries))
        case .webdav: try WebDAVBlobStore(configuration: RemoteServers.davConfiguration(folder: name, viaProxy: viaProxy, retries: retries))
        }
    }
}

/// What the tests need of either store.
protocol RemoteTestStore: BlobStore {
    var statistics: RemoteStoreStatistics { get }
}

extension S3BlobStore: RemoteTestStore {}
extension WebDAVBlobStore: RemoteTestStore {}

/// A store that runs `hook` before the `n`th operation (counting from 1), once.
final class HookedStore: BlobStore {
    let base: any BlobStore
    let trigger: Int
    let hook: @Sendable () -> Void
    private let count = Mutex(0)

    init(_ base: any BlobStore, before trigger: Int, hook: @escaping @Sendable () -> Void) {
        self.base = base
        self.trigger = trigger
        self.hook = hook
    }

    private func tick() {
        let now = count.withLock { value in
            value += 1
            return value
        }
        if now == trigger { hook() }
    }

    func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] { tick(); return try await base.list(prefix: prefix) }
    func listing(prefix: String) async throws(BlobStoreError) -> BlobListing { tick(); return try await base.listing(prefix: prefix) }
    func read(key: String) async throws(BlobStoreError) -> [UInt8] { tick(); return try await base.read(key: key) }
    func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) { tick(); try await base.write(key: key, bytes: bytes) }
    func delete(key: String) async throws(BlobStoreError) { tick(); try await base.delete(key: key) }
}


/// Syncs every replica with its store, in rounds, until a round changes nothing (at most
/// `roundsMax`); returns the number of rounds.
@discardableResult
func syncUntilQuiet(_ pairs: [(Replica, any BlobStore)], roundsMax: Int = 8) async throws -> Int {
    for round in 1...roundsMax {
        var changed = false
        for (replica, store) in pairs {
            let report = try await replica.sync(with: store)
            if report.operationsApplied > 0 || report.publishedSegment != nil || !report.isComplete { changed = true }
        }
        if !changed { return round }
    }
    Issue.record("replicas did not go quiet in \(roundsMax) rounds")
    return roundsMax
}

/// Expects every replica to hold the same notebook, byte for byte.
func expectConverged(_ replicas: [Replica], sourceLocation: SourceLocation = #_sourceLocation) {
    guard let first = replicas.first else { return }
    for replica in replicas.dropFirst() {
        #expect(replica.notebook.version == first.notebook.version, "versions differ", sourceLocation: sourceLocation)
        #expect(replica.notebook.encoded() == first.notebook.encoded(), "notebooks differ", sourceLocation: sourceLocation)
    }
}
