import Foundation
import MemoSync
import MemoSyncTesting
import Testing

@testable import MemoSyncRemote

// Faults against the real servers: a server killed in the middle of a sync (a server of its
// own), a fault-injecting proxy, damaged and foreign objects in the bucket or folder.
extension RemoteStoreTests {
    @Test(arguments: RemoteKind.allCases)
    func aServerKilledInTheMiddleOfASyncThenStartedAgainLosesNothing(kind: RemoteKind) async throws {
        // A server of this test's own, so that no test running beside it sees it stop.
        let server = "\(kind.rawValue)-killed"
        let endpoint = try RemoteServers.control("start", server)
        defer { _ = try? RemoteServers.control("stop", server) }
        let store: any BlobStore
        switch kind {
        case .s3: store = try S3BlobStore(configuration: RemoteServers.s3Configuration(prefix: "killed/", endpoint: endpoint))
        case .webdav: store = try WebDAVBlobStore(configuration: RemoteServers.davConfiguration(folder: "", base: endpoint))
        }
        let (alice, bob) = (try replica(), try replica())
        var written: [String] = []
        for round in 0..<5 {
            for index in 0..<4 {
                try alice.createMemo(text: "alice \(round).\(index)")
                written.append("alice \(round).\(index)")
            }
            let report = try await alice.sync(with: store)
            #expect(report.isComplete, "\(report.errors)")
        }
        for index in 0..<3 {
            try bob.createMemo(text: "bob \(index)")
            written.append("bob \(index)")
        }
        // Bob's sync lists, then the server is killed before its third store operation.
        let killing = HookedStore(store, before: 3) {
            _ = try? RemoteServers.control("stop", server)
        }
        let interrupted = try await bob.sync(with: killing)
        #expect(!interrupted.isComplete && !interrupted.errors.isEmpty, "the sync went on without its server: \(interrupted.errors)")
        #expect(interrupted.errors.allSatisfy { if case .unavailable? = $0.storeError { true } else { false } }, "\(interrupted.errors)")
        try RemoteServers.control("start", server)
        try await syncUntilQuiet([(bob, store), (alice, store)])
        expectConverged([alice, bob])
        #expect(alice.notebook.memoIDs.count == 23)
        // Nothing lost means every text as written, not only as many memos.
        #expect(memoTexts(alice) == written.sorted())
    }

    @Test(arguments: RemoteKind.allCases)
    func everythingConvergesThroughAFaultInjectingProxyOnceTheFaultsStop(kind: RemoteKind) async throws {
        let seed = 7
        let place = try await RemotePlace(kind)
        let proxied = try place.store(viaProxy: true, retries: RemoteServers.patientRetries)
        let replicas = [try replica(), try replica(), try replica()]
        try await RemoteServers.faults(kind, #"{"seed": \#(seed), "delay_ms": 15, "drop": 0.06, "error500": 0.06, "error503": 0.06, "truncate": 0.06}"#)
        var written: [String] = []
        // Four rounds, and more (at most twelve) until every kind of fault has struck: the
        // proxy's draws are seeded, but which request meets which draw depends on how the
        // concurrent syncs interleave, so four rounds alone sometimes saw only two kinds.
        var injected: [String: Int] = [:]
        var round = 0
        while round < 4 || (injected.count < 4 && round < 12) {
            defer { round += 1 }
            for (index, replica) in replicas.enumerated() {
                try replica.createMemo(text: "memo \(round) of replica \(index)")
                written.append("memo \(round) of replica \(index)")
            }
            // Concurrent syncs through the faults: errors are allowed, losses are not.
            try await withThrowingTaskGroup(of: SyncReport.self) { group in
                for replica in replicas { group.addTask { try await replica.sync(with: proxied) } }
                try await group.waitForAll()
            }
            injected = try await RemoteServers.faults(kind)
        }
        _ = try await RemoteServers.faults(kind, "{}")
        #expect(injected.count >= 3, "too few kinds of fault injected in \(round) rounds (seed \(seed)): \(injected)")
        try await syncUntilQuiet(replicas.map { ($0, proxied as any BlobStore) })
        expectConverged(replicas)
        #expect(memoTexts(replicas[0]) == written.sorted(), "memos lost or changed (seed \(seed))")
        #expect(proxied.statistics.retries > 0, "no request was retried (seed \(seed))")
    }

    @Test(arguments: RemoteKind.allCases)
    func garbageTruncatedAndConflictingObjectsAreSkippedAndReported(kind: RemoteKind) async throws {
        let place = try await RemotePlace(kind)
        let store = try place.store()
        let (alice, bob) = (try replica(), try replica())
        let memo = try alice.createMemo(text: "the real text")
        let segment = try #require(try await alice.sync(with: store).publishedSegment)
        let bytes = try await store.read(key: segment)
        // A truncated conflicted copy, garbage under a foreign replica's segment name, a file no
        // MemoSync wrote, and (WebDAV) a crashed upload's hidden temporary file.
        let conflicted = segment.replacingOccurrences(of: ".seg", with: " (Bob's conflicted copy 2026-01-02).seg")
        try await store.write(key: conflicted, bytes: Array(bytes.prefix(bytes.count / 2)))
        let garbage = StoreLayout.root + "000000000000abcd/segments/0000000000-0000000001-0000000000000000.seg"
        try await store.write(key: garbage, bytes: Array("not a segment at all".utf8))
        let foreign = StoreLayout.root + "notes.txt"
        try await store.write(key: foreign, bytes: Array("hello".utf8))
        if kind == .webdav {
            let hidden = Self.folder(of: segment) + ".upload-0123456789abcdef-crashed.seg"
            try await store.write(key: hidden, bytes: Array(bytes.prefix(5)))
            #expect(try await store.list(prefix: "").allSatisfy { !$0.key.contains(".upload-") })
        }
        let report = try await bob.sync(with: store)
        #expect(bob.notebook.memo(memo)?.text == "the real text")
        let skipped = Dictionary(report.skipped.map { ($0.key, $0.reason) }, uniquingKeysWith: { first, _ in first })
        #expect(skipped[foreign] == .notMemoSync, "\(report.skipped)")
        #expect(skipped[garbage] != nil, "\(report.skipped)")
        #expect(!skipped.keys.contains { $0.contains(".upload-") })
        try await syncUntilQuiet([(alice, store), (bob, store)])
        expectConverged([alice, bob])
    }

    private static func folder(of key: String) -> String {
        String(key[...(key.lastIndex(of: "/") ?? key.startIndex)])
    }
}

/// Every memo's text in `replica`, sorted: what a test that says "loses nothing" compares.
private func memoTexts(_ replica: Replica) -> [String] {
    let notebook = replica.notebook
    return notebook.memoIDs.compactMap { notebook.memo($0)?.text }.sorted()
}
