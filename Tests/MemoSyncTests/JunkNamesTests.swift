import Foundation
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Junk *names* in a store (issue 25): blobs named like segments, snapshots and heads of
/// replicas nobody has, found bad for good, claim operations nobody holds. Once found bad they
/// must cost a later sync nothing beyond their listing: no snapshot read because of them, and
/// no snapshot written because of them.
@Suite struct JunkNamesTests {
    /// Junk segment names of replicas nobody has (each a range from the start), a junk snapshot
    /// and a junk head.
    static func junkKeys(count: Int) -> [String] {
        (0..<count).flatMap { index -> [String] in
            let replica = String(format: "%016llx", 0xA000 + UInt64(index))
            let hash = String(format: "%016llx", UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
            return [
                "memosync/v1/\(replica)/segments/0000000000-\(String(format: "%010d", 3 + index))-\(hash).seg",
                "memosync/v1/\(replica)/snapshots/\(String(format: "%012d", 5 + index))-\(hash).snap",
                "memosync/v1/\(replica)/heads/\(hash).head",
            ]
        }
    }

    /// What one later sync did, with junk or without.
    struct Later: Equatable, CustomStringConvertible {
        /// The reader's reads of blobs that are not junk, by kind (segment, snapshot, head).
        var readerReads: [String: Int]
        /// Whether the writer's sync wrote a snapshot.
        var writerSnapshot: Bool
        /// How many entries the reader's head says it lacks.
        var readerLacks: Int
        var description: String { "reads \(readerReads.sorted { $0.key < $1.key }), writer snapshot \(writerSnapshot), reader lacks \(readerLacks)" }
    }

    /// A writer with a snapshot in the store and a reader that bootstraps from it; then the
    /// writer changes a memo and syncs, and the reader syncs, `runs` times.
    static func scenario(junk: Int, runs: Int, seed: UInt64) async throws -> (later: [Later], junkReads: [Int]) {
        let environment = TestEnvironment(seed: seed)
        let inner = InMemoryBlobStore()
        let writer = try Replica(disk: MemoryDisk(), environment: environment.environment)
        var memos: [MemoID] = []
        // Four segments, then a snapshot (`snapshotAfterSegments`).
        for index in 0..<5 {
            memos.append(try writer.createMemo(text: "memo \(index) with some text"))
            try await writer.sync(with: inner)
        }
        #expect(inner.keys.contains { $0.contains("/snapshots/") })
        let keys = junkKeys(count: junk)
        for (index, key) in keys.enumerated() {
            try inner.put(key: key, bytes: (0..<(100 + index % 50)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
        }
        let junkSet = Set(keys)
        let store = JunkStoreTests.CountingStore(inner)
        let reader = try Replica(disk: MemoryDisk(), environment: environment.environment)
        var junkReads: [Int] = []
        // First and second sync: junk read (once ever), found bad for good.
        for _ in 0..<2 {
            store.forget()
            #expect(try await reader.sync(with: store).isComplete)
            junkReads.append(keys.reduce(0) { $0 + store.reads(of: $1) })
        }
        var later: [Later] = []
        for run in 0..<runs {
            try writer.edit(memos[run % memos.count], replacingUTF16: 0..<0, with: "edit \(run) ")
            let written = try await writer.sync(with: store)
            #expect(written.isComplete)
            store.forget()
            let report = try await reader.sync(with: store)
            #expect(report.isComplete)
            junkReads.append(keys.reduce(0) { $0 + store.reads(of: $1) })
            var reads: [String: Int] = [:]
            for key in inner.keys where !junkSet.contains(key) && store.reads(of: key) > 0 {
                let kind = key.contains("/segments/") ? "segment" : key.contains("/snapshots/") ? "snapshot" : "head"
                reads[kind, default: 0] += store.reads(of: key)
            }
            later.append(Later(readerReads: reads, writerSnapshot: written.publishedSnapshot != nil,
                               readerLacks: reader.syncState.ownHead?.head.lacks.entries.count ?? 0))
        }
        for memo in memos { #expect(reader.notebook.memo(memo)?.text == writer.notebook.memo(memo)?.text) }
        await writer.close()
        await reader.close()
        return (later, junkReads)
    }

    @Test func laterSyncsOfAStoreWithJunkNamesCostWhatTheyCostWithout() async throws {
        let runs = 10
        let clean = try await Self.scenario(junk: 0, runs: runs, seed: 251)
        let junk = try await Self.scenario(junk: 12, runs: runs, seed: 251)
        // The junk (bytes that are no MemoSync blob at all) is read once ever (found bad for
        // good at once), then never.
        #expect(junk.junkReads == [36, 0] + Array(repeating: 0, count: runs))
        for run in 0..<runs {
            var expected = clean.later[run]
            // The junk names still claim operations nobody is known to hold: the reader's head
            // says it lacks them (so a replica holding them would write a snapshot: FORMAT.md,
            // "Liveness"), and the writer's first sync after the junk came writes its head,
            // which the reader reads once.
            expected.readerLacks = 12
            if run == 0 { expected.readerReads["head", default: 0] += 1 }
            #expect(junk.later[run] == expected, "later sync \(run): junk \(junk.later[run]) against clean \(clean.later[run])")
            #expect(junk.later[run].readerReads["snapshot"] == nil, "later sync \(run) read a snapshot")
        }
    }

    /// A new device starts on the snapshot it bootstraps from with its first reads, before the
    /// heads: a store holding thousands of (junk) heads made it read them all first, with the
    /// snapshot's read and decoding waiting behind them instead of running beside them.
    @Test func aNewDeviceReadsItsSnapshotBeforeTheHeads() async throws {
        let environment = TestEnvironment(seed: 25)
        let store = InMemoryBlobStore()
        let writer = try Replica(disk: MemoryDisk(), environment: environment.environment)
        for index in 0..<5 {
            _ = try writer.createMemo(text: "memo \(index)")
            try await writer.sync(with: store)
        }
        let snapshots = store.keys.filter { $0.contains("/snapshots/") }
        #expect(snapshots.count == 1)
        for key in Self.junkKeys(count: 40) where key.hasSuffix(".head") { try store.put(key: key, bytes: [1, 2, 3]) }
        let reader = try Replica(disk: MemoryDisk(), environment: environment.environment)
        try reader.beginSync()
        let listing = try reader.nextSyncActions(limit: 8)
        #expect(listing.count == 1)
        reader.handleSync(listing[0], await Replica.perform(listing[0], on: store))
        let reads = try reader.nextSyncActions(limit: 8)
        // The sequential step's own head first, then, read ahead, the snapshot before any other.
        #expect(reads.count == 8 && reads[0].key?.hasSuffix(".head") == true, "first reads: \(reads)")
        #expect(reads[1] == .read(key: snapshots[0]), "first reads: \(reads)")
        for action in reads { reader.handleSync(action, await Replica.perform(action, on: store)) }
        try await driveSync(reader, on: store, maxInFlight: 8)
        let report = try reader.finishSync()
        #expect(report.isComplete)
        #expect(reader.notebook.activeMemoCount == 5)
        await writer.close()
        await reader.close()
    }
}
