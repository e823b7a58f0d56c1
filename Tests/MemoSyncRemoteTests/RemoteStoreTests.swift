import Foundation
import MemoSync
import MemoSyncTesting
import Testing

@testable import MemoSyncRemote

/// Tells why the remote-store tests did not run, and fails when they must (.ci/run).
@Suite struct RemoteServersPresence {
    @Test func theTestServersAreRunningWhenRequired() {
        if !RemoteServers.available {
            print("Remote-store tests against real servers did not run: \(RemoteServers.whyMissing).")
            #expect(!RemoteServers.required, "MEMOSYNC_REQUIRE_REMOTE_SERVERS=1 but \(RemoteServers.whyMissing)")
        }
    }
}

/// The S3 and WebDAV stores against real servers (SeaweedFS and wsgidav, started by
/// Tests/Servers/servers.sh): each test on both, in a fresh prefix or folder (the test that
/// kills a server starts servers of its own). Serialized, to keep the load on the servers low.
@Suite(.serialized, .enabled(if: RemoteServers.available, "needs the test servers: \(RemoteServers.whyMissing)"))
struct RemoteStoreTests {
    func replica() throws -> Replica { try Replica(disk: MemoryDisk()) }

    @Test(arguments: RemoteKind.allCases)
    func blobsRoundTripAndDeleteIsIdempotent(kind: RemoteKind) async throws {
        let store = try await RemotePlace(kind).store()
        let key = "memosync/v1/0000000000000001/segments/a b+ሴ.seg"
        try await store.write(key: key, bytes: [1, 2, 3])
        try await store.write(key: key, bytes: [1, 2, 3])  // already there: compared, kept
        #expect(try await store.read(key: key) == [1, 2, 3])
        #expect(try await store.list(prefix: "memosync/v1/").map(\.key) == [key])
        #expect(try await store.list(prefix: "memosync/v1/0000000000000001/heads/").isEmpty)
        try await store.delete(key: key)
        try await store.delete(key: key)
        await #expect(throws: BlobStoreError.notFound(key: key)) { try await store.read(key: key) }
        #expect(try await store.list(prefix: "").isEmpty)
    }

    /// Keys are bytes (issue 29): a listing's prefix is compared with the keys by their UTF-8, in
    /// the WebDAV folder walk too ("é" as U+00E9 and as "e" + U+0301 are two keys and folders; a
    /// prefix may end between a letter and its mark; a name may start with a combining mark).
    @Test(arguments: RemoteKind.allCases)
    func listingsCompareKeysByTheirBytes(kind: RemoteKind) async throws {
        let store = try await RemotePlace(kind).store()
        let decomposed = "memosync/v1/e\u{301}x", precomposed = "memosync/v1/\u{E9}y"
        let nested = "memosync/v1/e\u{301}/z", markFirst = "memosync/v1/\u{301}w"
        let keys = [decomposed, precomposed, nested, markFirst]
        for key in keys { try await store.write(key: key, bytes: Array(key.utf8)) }
        for key in keys { #expect(try await store.read(key: key) == Array(key.utf8)) }
        let expectations: [(prefix: String, keys: [String])] = [
            ("memosync/v1/\u{E9}", [precomposed]), ("memosync/v1/e\u{301}", [decomposed, nested]), ("memosync/v1/e", [decomposed, nested]),
            ("memosync/v1/e\u{301}/", [nested]), ("memosync/v1/\u{301}", [markFirst]), ("memosync/v1/", keys), ("memosync/v1/\u{E9}/", []),
        ]
        for (prefix, expected) in expectations {
            let listed = try await store.list(prefix: prefix).map { Array($0.key.utf8) }
            #expect(listed.count == expected.count && Set(listed) == Set(expected.map { Array($0.utf8) }), "\(kind) \(Array(prefix.unicodeScalars)): \(listed.count)")
        }
    }

    @Test(arguments: RemoteKind.allCases)
    func twoAndThreeLibrariesConvergeWithConcurrentEdits(kind: RemoteKind) async throws {
        let place = try await RemotePlace(kind)
        let store = try place.store(retries: RemoteServers.steadyRetries)
        let (alice, bob, carol) = (try replica(), try replica(), try replica())
        let shared = try alice.createMemo(text: "shared memo")
        try await alice.sync(with: store)
        try await bob.sync(with: store)
        // Two libraries edit the same memo concurrently and sync at the same time.
        try alice.edit(shared, replacingUTF16: 0..<0, with: "Alice: ")
        try bob.edit(shared, replacingUTF16: 6..<6, with: " (Bob)")
        try bob.createMemo(text: "bob's own")
        async let first = alice.sync(with: store)
        async let second = bob.sync(with: store)
        _ = try await (first, second)
        try await syncUntilQuiet([(alice, store), (bob, store)])
        expectConverged([alice, bob])
        #expect(alice.notebook.memo(shared)?.text == "Alice: shared (Bob) memo")
        // A third joins and edits; all three converge.
        try await carol.sync(with: store)
        try carol.setText(shared, to: "carol rewrote it")
        try alice.createMemo(text: "alice again")
        async let a = alice.sync(with: store)
        async let c = carol.sync(with: store)
        _ = try await (a, c)
        try await syncUntilQuiet([(alice, store), (bob, store), (carol, store)])
        expectConverged([alice, bob, carol])
        #expect(carol.notebook.memoIDs.count == 3)
    }

    @Test(arguments: RemoteKind.allCases)
    func aListingOfMoreThanAThousandBlobs(kind: RemoteKind) async throws {
        let place = try await RemotePlace(kind)
        let store = try place.store(retries: RemoteServers.steadyRetries)
        let keys = (0..<1_050).map { "memosync/v1/00000000000000aa/segments/\(String(format: "%010d", $0))-x.seg" }
        if kind == .webdav {
            // Put straight into the server's folder (a thousand uploads take long on wsgidav);
            // the listing is what is tested.
            let folder = "\(RemoteServers.davDataFolder)/\(place.name)/memosync/v1/00000000000000aa/segments"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for key in keys { try Data([7, 7]).write(to: URL(fileURLWithPath: "\(RemoteServers.davDataFolder)/\(place.name)/\(key)")) }
        } else {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, key) in keys.enumerated() {
                    if index >= 16 { try await group.next() }
                    group.addTask { try await store.write(key: key, bytes: [7, 7]) }
                }
                try await group.waitForAll()
            }
        }
        let before = store.statistics.requests
        let listed = try await store.list(prefix: "memosync/v1/")
        #expect(listed.map(\.key).sorted() == keys)
        #expect(listed.allSatisfy { $0.sizeBytes == 2 })
        if kind == .s3 { #expect(store.statistics.requests - before >= 2, "a continuation token was followed") }
    }

    @Test(arguments: RemoteKind.allCases)
    func wrongCredentialsAndMissingPlacesGiveClearErrorsAndChangeNothing(kind: RemoteKind) async throws {
        let place = try await RemotePlace(kind)
        let alice = try replica()
        let memo = try alice.createMemo(text: "kept")
        let version = alice.notebook.version
        let wrongSecret: any BlobStore
        let missing: any BlobStore
        switch kind {
        case .s3:
            wrongSecret = try S3BlobStore(configuration: RemoteServers.s3Configuration(prefix: place.name, secret: "wrong-secret"))
            missing = try S3BlobStore(configuration: RemoteServers.s3Configuration(prefix: place.name, bucket: "no-such-bucket-here"))
        case .webdav:
            wrongSecret = try WebDAVBlobStore(configuration: RemoteServers.davConfiguration(folder: place.name, password: "wrong"))
            missing = try WebDAVBlobStore(configuration: RemoteServers.davConfiguration(folder: place.name + "-missing"))
        }
        let refused = try await alice.sync(with: wrongSecret)
        let refusedError = try #require(refused.errors.first?.storeError)
        if case .denied = refusedError {} else { Issue.record("expected refused credentials, got \(refusedError)") }
        #expect(refused.errors.first?.description.contains(kind == .s3 ? "SignatureDoesNotMatch" : "401") == true, "\(refused.errors)")
        let absent = try await alice.sync(with: missing)
        let absentError = try #require(absent.errors.first?.storeError)
        if case let .server(status, code, _) = absentError {
            #expect(status == 404 || status == 409)
            if kind == .s3 { #expect(code == "NoSuchBucket") }
        } else { Issue.record("expected a missing bucket or folder, got \(absentError)") }
        var reports = [refused, absent]
        if kind == .s3 {
            // A clock two hours off: the server refuses the signature's time.
            let skewed = try S3BlobStore(
                configuration: RemoteServers.s3Configuration(prefix: place.name),
                wallClockSeconds: { Int64(Date().timeIntervalSince1970) - 7_200 })
            let report = try await alice.sync(with: skewed)
            #expect(report.errors.first?.storeError == .denied(code: "RequestTimeTooSkewed", message: report.errors.first?.storeError.flatMap(Self.message) ?? ""))
            reports.append(report)
        }
        for report in reports {
            #expect(!report.listedStore && report.blobsWritten == 0 && report.blobsRead == 0)
        }
        #expect(alice.notebook.version == version && alice.notebook.memo(memo)?.text == "kept")
        // The right store still works, and nothing was written to it by the failed syncs.
        let good = try place.store()
        #expect(try await good.list(prefix: "").isEmpty)
        #expect(try await alice.sync(with: good).isComplete)
    }

    private static func message(_ error: BlobStoreError) -> String? {
        if case let .denied(_, message) = error { return message }
        return nil
    }
}
