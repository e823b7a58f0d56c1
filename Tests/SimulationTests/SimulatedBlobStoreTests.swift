import MemoSimulation
import MemoSync
import Testing

/// The shared store's fault models behave as specified, deterministically.
@Suite struct SimulatedBlobStoreTests {
    let key = "memosync/v1/00000000000000aa/segments/0000000000-0000000003-0123456789abcdef.seg"

    func keys(_ result: SyncResult) -> [String] {
        guard case let .listed(entries) = result else { return [] }
        return entries.blobs.map(\.key).sorted()
    }

    @Test func withoutFaultsEveryReaderSeesEveryWriteAtOnce() {
        let store = SimulatedBlobStore(readerCount: 3, seed: 1)
        #expect(store.perform(.write(key: key, bytes: [1, 2, 3]), reader: 0, now: 10) == .done)
        for reader in 0..<3 {
            #expect(keys(store.perform(.list(prefix: "memosync/"), reader: reader, now: 10)) == [key])
            #expect(store.perform(.read(key: key), reader: reader, now: 10) == .read([1, 2, 3]))
        }
        #expect(store.blobCount == 1 && store.totalBytes == 3)
        #expect(store.perform(.delete(key: key), reader: 1, now: 11) == .done)
        #expect(store.perform(.read(key: key), reader: 2, now: 11) == .failed(.notFound(key: key)))
        #expect(store.blobCount == 0 && store.totalBytes == 0)
    }

    @Test func delayedVisibilityIsPerReaderAndTheWriterSeesAtOnce() {
        var faults = StoreFaults()
        faults.delayedVisibility = 1
        faults.visibilityDelayMaxMilliseconds = 10_000
        let store = SimulatedBlobStore(readerCount: 4, seed: 7, faults: faults)
        #expect(store.perform(.write(key: key, bytes: [1]), reader: 2, now: 1_000) == .done)
        #expect(store.perform(.read(key: key), reader: 2, now: 1_000) == .read([1]))
        for reader in [0, 1, 3] {
            #expect(store.perform(.read(key: key), reader: reader, now: 1_000) == .failed(.notFound(key: key)))
            #expect(keys(store.perform(.list(prefix: ""), reader: reader, now: 1_000)).isEmpty)
        }
        // Everyone sees it once the store has settled.
        let settled = store.settledAfterMilliseconds
        #expect(settled > 1_000 && settled <= 11_000)
        store.faultsEnabled = false
        for reader in 0..<4 { #expect(store.perform(.read(key: key), reader: reader, now: settled) == .read([1])) }
    }

    @Test func deletionsReachReadersLateToo() {
        var faults = StoreFaults()
        faults.delayedVisibility = 1
        let store = SimulatedBlobStore(readerCount: 2, seed: 3, faults: faults)
        store.faultsEnabled = false
        _ = store.perform(.write(key: key, bytes: [1]), reader: 0, now: 0)
        store.faultsEnabled = true
        _ = store.perform(.delete(key: key), reader: 0, now: 100)
        #expect(store.perform(.read(key: key), reader: 0, now: 100) == .failed(.notFound(key: key)))
        #expect(store.perform(.read(key: key), reader: 1, now: 100) == .read([1]))
        #expect(store.blobCount == 0)
    }

    @Test func staleListingsShowAnEarlierView() {
        var faults = StoreFaults()
        faults.staleListing = 1
        faults.staleListingMaxMilliseconds = 1_000
        let store = SimulatedBlobStore(readerCount: 2, seed: 5, faults: faults)
        _ = store.perform(.write(key: key, bytes: [1]), reader: 0, now: 1_000_000)
        // A listing right after the write looks at least a second back: it misses the blob,
        // which reads fine all the same.
        #expect(keys(store.perform(.list(prefix: ""), reader: 1, now: 1_000_000)).isEmpty)
        #expect(store.perform(.read(key: key), reader: 1, now: 1_000_000) == .read([1]))
        #expect(store.statistics.staleListings == 1)
        // The store tells when the reader's listing looked (the simulation judges from it
        // whether a sync saw the store after its last loss: seed 4); a fresh one, now.
        let view = store.listingViewMilliseconds[1]
        #expect(view >= 999_000 && view < 1_000_000)
        #expect(store.listingViewMilliseconds[0] == 0)
        store.faultsEnabled = false
        #expect(keys(store.perform(.list(prefix: ""), reader: 0, now: 2_000_000)) == [key])
        #expect(store.listingViewMilliseconds[0] == 2_000_000)
    }

    @Test func conflictedCopiesParseAsTheOriginal() {
        var faults = StoreFaults()
        faults.conflictedCopies = 1
        let store = SimulatedBlobStore(readerCount: 2, seed: 11, faults: faults)
        _ = store.perform(.write(key: key, bytes: [1, 2]), reader: 0, now: 0)
        store.faultsEnabled = false
        let listed = keys(store.perform(.list(prefix: ""), reader: 1, now: store.settledAfterMilliseconds))
        #expect(listed.count == 2)
        for name in listed { #expect(StoreLayout.parse(name) == StoreLayout.parse(key)) }
        #expect(store.blobCount == 2)
    }

    @Test func tornBlobsShowShortThenWhole() {
        var faults = StoreFaults()
        faults.tornBlobs = 1
        faults.tornMaxMilliseconds = 5_000
        let store = SimulatedBlobStore(readerCount: 2, seed: 13, faults: faults)
        let bytes: [UInt8] = Array(0..<100)
        _ = store.perform(.write(key: key, bytes: bytes), reader: 0, now: 0)
        guard case let .read(torn) = store.perform(.read(key: key), reader: 1, now: 0) else {
            Issue.record("not readable")
            return
        }
        #expect(torn.count < 100 && torn == Array(bytes.prefix(torn.count)))
        store.faultsEnabled = false
        #expect(store.perform(.read(key: key), reader: 1, now: store.settledAfterMilliseconds) == .read(bytes))
    }

    @Test func aFullStoreRefusesWritesButNotDeletes() {
        let store = SimulatedBlobStore(readerCount: 1, seed: 1)
        _ = store.perform(.write(key: key, bytes: [1]), reader: 0, now: 0)
        store.fullUntilMilliseconds = 100
        #expect(store.perform(.write(key: key + "x", bytes: [1]), reader: 0, now: 50) == .failed(.full))
        #expect(store.perform(.delete(key: key), reader: 0, now: 50) == .done)
        #expect(store.perform(.write(key: key + "x", bytes: [1]), reader: 0, now: 100) == .done)
    }

    @Test func transientErrorsAndBitFlipsHappenAtTheirRates() {
        var faults = StoreFaults()
        faults.transientErrors = 0.5
        faults.bitFlips = 0.5
        let store = SimulatedBlobStore(readerCount: 1, seed: 17, faults: faults)
        store.faultsEnabled = false
        _ = store.perform(.write(key: key, bytes: Array(repeating: 0, count: 16)), reader: 0, now: 0)
        store.faultsEnabled = true
        var failures = 0
        var flipped = 0
        for time in 1...400 as ClosedRange<UInt64> {
            switch store.perform(.read(key: key), reader: 0, now: time) {
            case .failed: failures += 1
            case let .read(bytes): if bytes.contains(where: { $0 != 0 }) { flipped += 1 }
            default: break
            }
        }
        #expect(failures > 150 && failures < 250)
        #expect(flipped > 50 && flipped < 150)
    }

    @Test func theSameSeedMakesTheSameStore() {
        func run() -> [String] {
            var faults = StoreFaults()
            faults.delayedVisibility = 0.5
            faults.conflictedCopies = 0.3
            faults.lossyListing = 0.5
            faults.transientErrors = 0.1
            let store = SimulatedBlobStore(readerCount: 3, seed: 99, faults: faults)
            var log: [String] = []
            for step in 0..<200 {
                let action: SyncAction = step % 3 == 0
                    ? .write(key: "memosync/v1/00000000000000aa/segments/\(step)", bytes: [UInt8(step & 0xFF)])
                    : .list(prefix: "memosync/")
                log.append("\(store.perform(action, reader: step % 3, now: UInt64(step) * 500))")
            }
            return log
        }
        #expect(run() == run())
    }

    @Test func pruningKeepsWhatReadersStillSee() {
        var faults = StoreFaults()
        faults.delayedVisibility = 1
        faults.visibilityDelayMaxMilliseconds = 1_000_000
        let store = SimulatedBlobStore(readerCount: 2, seed: 23, faults: faults)
        _ = store.perform(.write(key: key, bytes: [1]), reader: 0, now: 0)
        _ = store.perform(.delete(key: key), reader: 0, now: 10)
        store.prune(now: 20)
        // Reader 1 may not even see the blob yet; whatever it sees later is unchanged by pruning.
        store.faultsEnabled = false
        let settled = store.settledAfterMilliseconds
        store.prune(now: settled)
        #expect(store.perform(.read(key: key), reader: 1, now: settled) == .failed(.notFound(key: key)))
        #expect(store.groundTruth().isEmpty)
    }

    @Test func aReplicaSyncsThroughTheStoreAsABlobStore() async throws {
        let store = SimulatedBlobStore(readerCount: 2, seed: 1)
        let a = TestEnvironment()
        let b = TestEnvironment()
        b.random = SimulationRandom(seed: 43)
        let alice = try Replica(disk: SimulatedDisk(seed: 1), environment: a.environment)
        let bob = try Replica(disk: SimulatedDisk(seed: 2), environment: b.environment)
        let id = try alice.createMemo(text: "hello")
        try await alice.sync(with: store.client(reader: 0) { 1 })
        try await bob.sync(with: store.client(reader: 1) { 2 })
        #expect(bob.notebook.memo(id)?.text == "hello")
    }
}
