import Foundation
import MemoCRDT
import Synchronization
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// An in-memory store with a network's manners, for the concurrency tests: each operation
/// pauses for `delay`, operations of the kinds in `holding` wait at a gate until the test opens
/// it, and it counts the operations running at once. Like a network store, an operation whose
/// task is cancelled (waiting at the gate, or pausing) throws ``BlobStoreError/cancelled``.
final class ConcurrencyTestStore: BlobStore, Sendable {
    let base: InMemoryBlobStore
    let delay: Duration
    private let holding: Set<InMemoryBlobStore.Operation>
    private let state: Mutex<State>

    private struct State {
        var running = 0
        var mostRunning = 0
        var gateOpen: Bool
        var nextWaiter = 0
        var held: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before they were held.
        var cancelled: Set<Int> = []
    }

    /// A store over `base`; operations of the kinds in `holding` wait until ``openGate()``.
    init(_ base: InMemoryBlobStore, delay: Duration = .zero, holding: Set<InMemoryBlobStore.Operation> = []) {
        self.base = base
        self.delay = delay
        self.holding = holding
        state = Mutex(State(gateOpen: holding.isEmpty))
    }

    /// The most operations that ran at once.
    var mostRunning: Int { state.withLock { $0.mostRunning } }
    /// Operations waiting at the gate.
    var heldCount: Int { state.withLock { $0.held.count } }

    /// Lets every held operation go on, and every later one through.
    func openGate() {
        let held = state.withLock { state in
            state.gateOpen = true
            defer { state.held = [:] }
            return Array(state.held.values)
        }
        for continuation in held { continuation.resume() }
    }

    func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
        try await run(.list) { () throws(BlobStoreError) in try base.list(prefix: prefix) }
    }

    func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        try await run(.read) { () throws(BlobStoreError) in try base.read(key: key) }
    }

    func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
        try await run(.write) { () throws(BlobStoreError) in try base.write(key: key, bytes: bytes) }
    }

    func delete(key: String) async throws(BlobStoreError) {
        try await run(.delete) { () throws(BlobStoreError) in try base.delete(key: key) }
    }

    private func run<T>(_ operation: InMemoryBlobStore.Operation, _ body: () throws(BlobStoreError) -> T) async throws(BlobStoreError) -> T {
        state.withLock { state in
            state.running += 1
            state.mostRunning = max(state.mostRunning, state.running)
        }
        defer { state.withLock { $0.running -= 1 } }
        if holding.contains(operation) { await passGate() }
        if Task.isCancelled { throw .cancelled }
        if delay > .zero {
            do { try await Task.sleep(for: delay) } catch { throw .cancelled }
        }
        return try body()
    }

    /// Waits until the gate is open or the task is cancelled.
    private func passGate() async {
        let waiter = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let pass = state.withLock { state in
                    let pass = state.gateOpen || state.cancelled.remove(waiter) != nil
                    if !pass { state.held[waiter] = continuation }
                    return pass
                }
                if pass { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                let held = state.held.removeValue(forKey: waiter)
                if held == nil { state.cancelled.insert(waiter) }
                return held
            }
            continuation?.resume()
        }
    }
}

/// Waits until `condition` holds, polling every millisecond on the caller's actor, for at most
/// `timeout` (generous: only a broken engine takes that long); records an issue when it never
/// does.
@discardableResult
func waitUntil(
    _ what: String, timeout: Duration = .seconds(90), isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        if clock.now >= deadline {
            Issue.record("timed out waiting: \(what)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Syncs `replica` with `store` one action at a time, answered in order: deterministic, so that
/// a scenario built from a seed is the same every time.
private func syncInOrder(_ replica: Replica, _ store: InMemoryBlobStore) async throws {
    try replica.beginSync()
    try await driveSync(replica, on: store)
    let report = try replica.finishSync()
    #expect(report.isComplete, "\(report.errors)")
}

/// Drives the sync `replica` began until nothing is left in flight, keeping up to `maxInFlight`
/// actions out and answering them in an order drawn from `random`; each action is performed on
/// the store when it is answered (so completions come out of order).
///
/// After `cancelAfter` answers it cancels the sync (nothing more may be handed out); each
/// action still in flight is then either performed and answered, or answered as failed
/// `.cancelled`, a write sometimes after it was performed (a cancelled write may still happen).
///
/// - Returns: the number of answers given, and whether it cancelled.
private func driveShuffled(
    _ replica: Replica, on store: InMemoryBlobStore, random: inout SeededRandom, maxInFlight: Int, cancelAfter: Int? = nil
) async throws -> (answers: Int, cancelled: Bool) {
    var inFlight: [SyncAction] = []
    var answers = 0
    var cancelled = false
    while true {
        if let cancelAfter, answers == cancelAfter, !cancelled {
            replica.cancelSync()
            cancelled = true
            let after = try replica.nextSyncActions(limit: maxInFlight)
            #expect(after.isEmpty, "a cancelled sync handed out \(after)")
        }
        if !cancelled {
            inFlight += try replica.nextSyncActions(limit: maxInFlight - inFlight.count)
        }
        guard !inFlight.isEmpty else { break }
        let action = inFlight.remove(at: random.int(in: 0..<inFlight.count))
        let result: SyncResult
        if cancelled && random.chance(0.5) {
            if action.isWrite && random.chance(0.5) { _ = await Replica.perform(action, on: store) }
            result = .failed(.cancelled)
        } else {
            result = await Replica.perform(action, on: store)
        }
        replica.handleSync(action, result)
        answers += 1
    }
    return (answers, cancelled)
}

/// A store holding three devices' edits in many segments, and a device that synced once early,
/// then typed offline (its own memo, and the shared one) while the others went on.
private struct Scenario {
    let environment: TestEnvironment
    let store: InMemoryBlobStore
    let writers: [Replica]
    /// The device about to sync.
    let replica: Replica
    /// A memo only `replica` edits, and its text.
    let ownMemo: MemoID
    let ownText: String
    /// A memo every device edits (the writers never before its first character).
    let sharedMemo: MemoID

    /// Builds the scenario from `seed`: the same every time (syncs are driven in order).
    static func make(seed: UInt64, rounds: Int = 3) async throws -> Scenario {
        var random = SeededRandom(seed: seed)
        let environment = TestEnvironment(seed: seed)
        let store = InMemoryBlobStore()
        var quiet = SyncConfiguration()
        quiet.snapshotAfterSegments = 1_000
        quiet.snapshotEveryOperations = 1_000_000
        let writers = try (0..<3).map { _ in try Replica(disk: MemoryDisk(), environment: environment.environment, configuration: quiet) }
        let shared = try writers[0].createMemo(text: "Shared\n")
        try await syncInOrder(writers[0], store)
        let replica = try Replica(disk: MemoryDisk(), environment: environment.environment)
        try await syncInOrder(replica, store)
        for round in 0..<rounds {
            for (index, writer) in writers.enumerated() {
                environment.advance(milliseconds: UInt64(random.int(in: 1...5_000)))
                if round == 0 && index > 0 { try await syncInOrder(writer, store) }
                try writer.createMemo(text: "memo \(index).\(round)\n" + String(repeating: "x", count: random.int(in: 0...40)))
                let length = writer.notebook.memo(shared)!.text.utf16.count
                let offset = random.int(in: 1...length)
                try writer.edit(shared, replacingUTF16: offset..<offset, with: "w\(index).\(round) ")
                try await syncInOrder(writer, store)
            }
        }
        environment.advance(milliseconds: 1_000)
        var ownText = "Own\n"
        let own = try replica.createMemo(text: ownText)
        for step in 0..<5 {
            try replica.edit(own, replacingUTF16: ownText.utf16.count..<ownText.utf16.count, with: "line \(step)\n")
            ownText += "line \(step)\n"
        }
        try replica.edit(shared, replacingUTF16: 1..<1, with: "r ")
        return Scenario(
            environment: environment, store: store, writers: writers, replica: replica, ownMemo: own, ownText: ownText,
            sharedMemo: shared)
    }
}

/// Issue 14, items 2 to 4: several store operations in flight, completing in any order; syncs
/// cancelled at every step; typing while a sync runs.
@Suite struct SyncConcurrencyTests {
    // MARK: Typing during a sync

    /// Edits, an undo and a redo, and a save, made while a sync waits for a read the store
    /// holds back, and while the rest of it runs: each is accepted at once (a test that waited
    /// for the sync would never end: the read is held until the typing is done). What the sync
    /// received is in the notebook with events, what was typed is kept, and the next sync
    /// publishes it to the others.
    @Test(.timeLimit(.minutes(2))) func typingDuringASyncIsKeptAndPublished() async throws {
        let scenario = try await Scenario.make(seed: 41)
        let replica = scenario.replica
        let own = scenario.ownMemo, shared = scenario.sharedMemo
        // What the store holds, as a device that only reads it sees it.
        let reader = try Replica(disk: MemoryDisk(), environment: scenario.environment.environment)
        try await syncInOrder(reader, scenario.store)
        let missing = Set(reader.notebook.list().map(\.id)).subtracting(replica.notebook.list().map(\.id))
        #expect(!missing.isEmpty)
        let sharedBefore = try #require(replica.notebook.memo(shared)?.text)
        let ownBefore = scenario.ownText
        _ = replica.takeEvents()

        let slow = ConcurrencyTestStore(scenario.store, delay: .milliseconds(2), holding: [.read])
        let sync = Task { try await replica.sync(with: slow) }
        await waitUntil("the sync's first read") { slow.heldCount > 0 }
        #expect(replica.syncProgress != nil)

        var ownText = ownBefore
        var typedPrefix = ""
        var typedWhileSyncing = 0
        func type(_ step: Int) throws {
            let token = "t\(step) "
            try replica.edit(own, replacingUTF16: ownText.utf16.count..<ownText.utf16.count, with: token)
            ownText += token
            try replica.edit(shared, replacingUTF16: 0..<0, with: token)
            typedPrefix = token + typedPrefix
            if replica.syncProgress != nil { typedWhileSyncing += 1 }
        }
        // While the read is held: type, undo and redo, save.
        for step in 0..<20 { try type(step) }
        try replica.undo(own)
        try replica.redo(own)
        #expect(replica.notebook.memo(own)?.text == ownText)
        try await replica.save()
        #expect(replica.unsavedOperationCount == 0)
        #expect(slow.heldCount > 0, "the read was let go before the typing was done")
        slow.openGate()
        // While the rest of the sync runs.
        var step = 20
        while replica.syncProgress != nil && step < 20_000 {
            try type(step)
            step += 1
            try await Task.sleep(for: .milliseconds(1))
        }
        let report = try await sync.value
        #expect(report.isComplete, "\(report.errors)")
        #expect(typedWhileSyncing >= 20)

        // What the sync received is in the notebook.
        let notebook = replica.notebook
        for id in reader.notebook.list().map(\.id) where id != shared {
            #expect(notebook.memo(id)?.text == reader.notebook.memo(id)?.text, "memo \(id)")
        }
        // The typing is kept, beside the other devices' edits of the same memo.
        #expect(notebook.memo(own)?.text == ownText)
        let readerShared = try #require(reader.notebook.memo(shared)?.text)
        // What was typed at its start stays there; the rest is the others' text with this
        // device's earlier "r " (its place among their insertions after "S" is the merge's).
        let sharedNow = try #require(notebook.memo(shared)?.text)
        #expect(sharedNow.hasPrefix(typedPrefix + "S"), "\(sharedNow)")
        var others = String(sharedNow.dropFirst(typedPrefix.count))
        if let mine = others.range(of: "r ") { others.removeSubrange(mine) }
        #expect(others == readerShared, "\(sharedNow)")
        // With events: the memos received, and every change of the shared memo in order.
        let events = replica.takeEvents()
        let addedRemotely = Set(events.compactMap { event -> MemoID? in
            if case let .added(id, .remote) = event { id } else { nil }
        })
        #expect(addedRemotely == missing)
        var mirror = Array(sharedBefore.utf16)
        for case let .changed(id, edits, _) in events where id == shared {
            for edit in edits { edit.apply(to: &mirror) }
        }
        #expect(String(decoding: mirror, as: UTF16.self) == notebook.memo(shared)?.text, "the events do not add up to the text")
        #expect(events.contains { if case .changed(shared, _, .remote) = $0 { true } else { false } })

        // The next sync publishes what was typed; the others get all of it.
        let next = try await replica.sync(with: scenario.store)
        #expect(next.isComplete)
        try await syncUntilQuiet([replica, reader] + scenario.writers, store: scenario.store)
        expectConverged([replica, reader] + scenario.writers)
        #expect(reader.notebook.memo(own)?.text == ownText)
        #expect(reader.notebook.memo(shared)?.text.hasPrefix(typedPrefix + "S") == true)
    }

    // MARK: Cancellation

    /// For every k, a sync (up to 4 actions in flight, answered in an order drawn from the seed)
    /// is cancelled after k answers; what is in flight is then answered or fails as cancelled
    /// (some cancelled writes happened all the same). The report says cancelled; nothing is
    /// lost; nothing unwritten counted as published (the next sync republishes nothing); the
    /// next sync completes, and every device converges.
    @Test(.timeLimit(.minutes(10))) func cancellingAtEveryStepLosesNothing() async throws {
        for seed in testSeeds(2, salt: 0xCA_7CE1) {
            let note = "seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))"
            // How many answers a whole sync takes in this order.
            let whole = try await Scenario.make(seed: seed)
            var measuring = SeededRandom(seed: seed)
            try whole.replica.beginSync()
            let total = try await driveShuffled(whole.replica, on: whole.store, random: &measuring, maxInFlight: 4).answers
            let wholeReport = try whole.replica.finishSync()
            #expect(wholeReport.isComplete && total > 10, "\(note): \(total) answers, \(wholeReport.errors)")

            for k in 0..<total {
                let scenario = try await Scenario.make(seed: seed)
                let replica = scenario.replica
                let before = replica.notebook.version
                var random = SeededRandom(seed: seed)
                try replica.beginSync()
                let driven = try await driveShuffled(replica, on: scenario.store, random: &random, maxInFlight: 4, cancelAfter: k)
                let report = try replica.finishSync()
                #expect(driven.cancelled, "\(note), k \(k)")
                #expect(report.cancelled && !report.isComplete, "\(note), k \(k): \(report)")
                #expect(before.isIncluded(in: replica.notebook.version), "\(note), k \(k): operations lost")
                #expect(replica.notebook.memo(scenario.ownMemo)?.text == scenario.ownText, "\(note), k \(k)")
                #expect(replica.unsavedOperationCount == 0, "\(note), k \(k): not saved")

                let next = try await replica.sync(with: scenario.store)
                #expect(next.isComplete && !next.cancelled, "\(note), k \(k): \(next.errors)")
                #expect(next.republishedOperationCount == 0, "\(note), k \(k): a write not done counted as published")
                try await syncUntilQuiet([replica] + scenario.writers, store: scenario.store)
                expectConverged([replica] + scenario.writers, seed: seed)
                #expect(scenario.writers[0].notebook.memo(scenario.ownMemo)?.text == scenario.ownText, "\(note), k \(k)")
            }
        }
    }

    /// Cancelling the task running `sync(with:)` while the store holds its listing, its reads or
    /// its writes (they then fail as cancelled, as a network store's do): no error is thrown; the
    /// report says cancelled and lists no store error (a cancellation is not one); nothing is
    /// lost; a write cut short does not count as published; the next sync completes.
    @Test(.timeLimit(.minutes(2)), arguments: [InMemoryBlobStore.Operation.list, .read, .write])
    func cancellingTheSyncTaskWhileTheStoreHoldsIt(_ operation: InMemoryBlobStore.Operation) async throws {
        let scenario = try await Scenario.make(seed: 7)
        let replica = scenario.replica
        let before = replica.notebook.version
        let store = ConcurrencyTestStore(scenario.store, holding: [operation])
        let task = Task { try await replica.sync(with: store) }
        await waitUntil("a \(operation) held by the store") { store.heldCount > 0 }
        task.cancel()
        let report = try await task.value
        #expect(report.cancelled && !report.isComplete, "\(operation): \(report)")
        #expect(report.errors.isEmpty, "\(operation): a cancellation reported as a store error: \(report.errors)")
        #expect(report.skipped.isEmpty, "\(operation): a cancelled read reported as a skipped blob: \(report.skipped)")
        #expect(replica.syncProgress == nil)
        #expect(before.isIncluded(in: replica.notebook.version))
        #expect(replica.notebook.memo(scenario.ownMemo)?.text == scenario.ownText)
        #expect(replica.unsavedOperationCount == 0)

        store.openGate()
        let next = try await replica.sync(with: store)
        #expect(next.isComplete, "\(next.errors)")
        #expect(next.republishedOperationCount == 0)
        try await syncUntilQuiet([replica] + scenario.writers, store: scenario.store)
        expectConverged([replica] + scenario.writers)
    }

    /// Cancelling the task running `sync(with:)` on a slow store, at several moments: no error
    /// is thrown, the report is cancelled (or complete, when the sync was over first), nothing
    /// is lost, and the next sync completes.
    @Test(.timeLimit(.minutes(2)), arguments: [0, 1, 3, 6, 12, 25, 50])
    func cancellingTheSyncTaskStopsItAtASafePoint(afterMilliseconds: Int) async throws {
        let scenario = try await Scenario.make(seed: 7)
        let replica = scenario.replica
        let before = replica.notebook.version
        let slow = ConcurrencyTestStore(scenario.store, delay: .milliseconds(2))
        let task = Task { try await replica.sync(with: slow) }
        try await Task.sleep(for: .milliseconds(afterMilliseconds))
        task.cancel()
        let report = try await task.value
        #expect(report.cancelled != report.isComplete, "\(report)")
        #expect(report.errors.isEmpty && report.skipped.isEmpty, "a cancellation reported as a store problem: \(report.errors) \(report.skipped)")
        #expect(replica.syncProgress == nil)
        #expect(before.isIncluded(in: replica.notebook.version))
        #expect(replica.notebook.memo(scenario.ownMemo)?.text == scenario.ownText)
        #expect(replica.unsavedOperationCount == 0)

        let next = try await replica.sync(with: slow)
        #expect(next.isComplete, "\(next.errors)")
        #expect(next.republishedOperationCount == 0)
        try await syncUntilQuiet([replica] + scenario.writers, store: scenario.store)
        expectConverged([replica] + scenario.writers)
    }

    // MARK: Several in flight

    /// A new device's first sync from a store of many segments keeps several operations in
    /// flight, never more than `maxInFlight`; with 1, exactly one at a time.
    @Test(.timeLimit(.minutes(2)), arguments: [8, 3, 1])
    func aBootstrapKeepsUpToMaxInFlightOperationsRunning(maxInFlight: Int) async throws {
        let scenario = try await Scenario.make(seed: 5, rounds: 4)
        let segments = scenario.store.keys.filter { $0.contains("/segments/") }
        #expect(segments.count >= 12)
        var configuration = SyncConfiguration()
        configuration.maxInFlight = maxInFlight
        let newcomer = try Replica(disk: MemoryDisk(), environment: scenario.environment.environment, configuration: configuration)
        let counting = ConcurrencyTestStore(scenario.store, delay: .milliseconds(3))
        let report = try await newcomer.sync(with: counting)
        #expect(report.isComplete, "\(report.errors)")
        #expect(report.blobsRead >= 12)
        if maxInFlight == 1 {
            #expect(counting.mostRunning == 1)
        } else {
            #expect(counting.mostRunning > 1 && counting.mostRunning <= maxInFlight, "\(counting.mostRunning) at once")
        }
        try await syncUntilQuiet(scenario.writers, store: scenario.store)
        try await syncUntilQuiet([newcomer] + scenario.writers, store: scenario.store)
        expectConverged([newcomer] + scenario.writers)
    }

    /// A sync with up to 8 actions in flight answered in an order drawn from the seed ends with
    /// the same notebook as the same sync answered in order, and everyone converges after.
    @Test(.timeLimit(.minutes(5))) func outOfOrderCompletionsEndLikeInOrderOnes() async throws {
        for seed in testSeeds(6, salt: 0x0_0D3E) {
            let note = "seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))"
            let inOrder = try await Scenario.make(seed: seed)
            try inOrder.replica.beginSync()
            try await driveSync(inOrder.replica, on: inOrder.store, maxInFlight: 8)
            let inOrderReport = try inOrder.replica.finishSync()

            let shuffled = try await Scenario.make(seed: seed)
            var random = SeededRandom(seed: seed ^ 0x5EED)
            try shuffled.replica.beginSync()
            _ = try await driveShuffled(shuffled.replica, on: shuffled.store, random: &random, maxInFlight: 8)
            let shuffledReport = try shuffled.replica.finishSync()

            #expect(inOrderReport.isComplete && shuffledReport.isComplete, "\(note)")
            #expect(shuffledReport.operationsApplied == inOrderReport.operationsApplied, "\(note)")
            #expect(shuffledReport.publishedOperationCount == inOrderReport.publishedOperationCount, "\(note)")
            expectConverged([inOrder.replica, shuffled.replica], seed: seed)
            try await syncUntilQuiet([shuffled.replica] + shuffled.writers, store: shuffled.store)
            expectConverged([shuffled.replica] + shuffled.writers, seed: seed)
        }
    }
}
