// `memo-bench remote`: syncing over a store with network latency (issue 14).
//
// The store is a local folder wrapped so that every request waits a fixed latency first
// (`LatencyStore`, `--latency-ms`, default 50), like a cloud bucket or a WebDAV server. It holds
// a snapshot of a 10,000-memo notebook and 300 segments from 3 devices (the writers never write
// a snapshot, so a new device must read them all). Then:
// - bootstrap: a new device's first sync, with the default in-flight limit (8) and with 1;
// - typing during a sync: keystrokes, one every 2 ms, into a 2,000-character memo of a device
//   whose bootstrap runs meanwhile, at least 1,000 and until its sync returns; each keystroke's
//   call is timed;
// - one change: a writer edits one memo and syncs; a bootstrapped reader syncs and gets it.
//   Round trips count the waits a sync makes: one begins with a request made while none is in
//   flight (requests made meanwhile share it); the requests are counted too.

import Foundation
import MemoCRDT
import MemoSync
import Synchronization

/// A store whose every request waits `latency` first, then runs on a folder store.
final class LatencyStore: BlobStore {
    let inner: DirectoryBlobStore
    let latency: Duration
    private let counts = Mutex<(requests: Int, inFlight: Int, maxInFlight: Int, rounds: Int)>((0, 0, 0, 0))

    init(inner: DirectoryBlobStore, latencyMilliseconds: Int, explain: (@Sendable (String) -> Void)? = nil) {
        self.inner = inner
        self.explain = explain
        self.latency = .milliseconds(latencyMilliseconds)
    }

    /// Requests made so far, the most that were in flight at once, and the round trips: a
    /// round trip begins with a request made while none is in flight (requests made meanwhile
    /// share it).
    var requests: (count: Int, maxInFlight: Int, roundTrips: Int) { counts.withLock { ($0.requests, $0.maxInFlight, $0.rounds) } }

    func resetCounts() { counts.withLock { $0 = (0, 0, 0, 0) } }

    /// Set to print each request on standard error (`--explain`).
    let explain: (@Sendable (String) -> Void)?
    private let start = ContinuousClock.now

    private func delayed<T>(_ what: String, _ body: () throws(BlobStoreError) -> T) async throws(BlobStoreError) -> T {
        if let explain { explain("\(Measure.milliseconds(ContinuousClock.now - start)) ms: \(what)") }
        counts.withLock {
            if $0.inFlight == 0 { $0.rounds += 1 }
            $0.requests += 1
            $0.inFlight += 1
            $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
        }
        defer { counts.withLock { $0.inFlight -= 1 } }
        do {
            try await Task.sleep(for: latency)
        } catch {
            throw .cancelled
        }
        return try body()
    }

    func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
        try await delayed("list") { () throws(BlobStoreError) in try inner.list(prefix: prefix) }
    }

    func listing(prefix: String) async throws(BlobStoreError) -> BlobListing {
        try await delayed("list") { () throws(BlobStoreError) in try inner.listing(prefix: prefix) }
    }

    func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        try await delayed("read \(key)") { () throws(BlobStoreError) in try inner.read(key: key) }
    }

    func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
        var what = "write \(key)"
        if explain != nil, key.contains("/heads/"), let head = try? SyncHead(decoding: bytes) {
            what += " holds \(head.holds) lacks \(head.lacks) newest \(head.newestSnapshot.map { "\($0.key) \($0.version)" } ?? "-")"
        }
        try await delayed(what) { () throws(BlobStoreError) in try inner.write(key: key, bytes: bytes) }
    }

    func delete(key: String) async throws(BlobStoreError) {
        try await delayed("delete \(key)") { () throws(BlobStoreError) in try inner.delete(key: key) }
    }
}

enum RemoteBenchmark {
    static let memoCount = 10_000
    static let deviceCount = 3
    static let segmentsPerDevice = 100
    static let keystrokeCount = 1_000
    static let typedMemoLength = 2_000

    static func run(latencyMilliseconds: Int, explain: (@Sendable (String) -> Void)? = nil) async throws -> Report {
        var random = BenchRandom(seed: 0x4E_7000)
        let built = try NotebookBenchmark.build(memoCount: memoCount, random: &random)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memo-bench-remote-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let devices = try Devices(root: root)
        let snapshot = built.encoded()
        try devices.folder.write(
            key: StoreLayout.snapshotKey(replica: built.replica, totalOperations: UInt64(built.version.operationCount), bytes: snapshot),
            bytes: snapshot)
        let (writers, targets) = try await publishSegments(devices)
        var everything = VersionVector()
        for writer in writers { everything.merge(writer.notebook.version) }
        let store = LatencyStore(inner: devices.folder, latencyMilliseconds: latencyMilliseconds)

        let parallel = try await bootstrap(devices, store: store, maxInFlight: SyncConfiguration().maxInFlight, expecting: everything)
        let serial = try await bootstrap(devices, store: store, maxInFlight: 1, expecting: everything)
        await serial.device.close()
        let typing = try await typeDuringBootstrap(devices, store: store)

        // One change, published by a writer and received by the reader, over the latency.
        let explained = LatencyStore(inner: devices.folder, latencyMilliseconds: latencyMilliseconds, explain: explain)
        let reader = parallel.device
        try await writers[0].sync(with: devices.folder)   // both up to date first
        try await reader.sync(with: devices.folder)
        try writers[0].edit(targets[0], replacingUTF16: 0..<0, with: "one change ")
        explain?("one change, published:")
        let published = try await Measure.timed { () async throws(ReplicaError) in try await writers[0].sync(with: explained) }
        let publishRequests = explained.requests
        explained.resetCounts()
        explain?("one change, received:")
        let received = try await Measure.timed { () async throws(ReplicaError) in try await reader.sync(with: explained) }
        let receiveRequests = explained.requests
        guard reader.notebook.memo(targets[0])?.text == writers[0].notebook.memo(targets[0])?.text else {
            throw BenchFailure.usage("the reader did not receive the change")
        }
        // The slowest keystroke during the syncs that merge the most (issue 25): a new device's
        // bootstrap, and a device receiving 2,000 changed memos, each at 0 and 50 ms.
        var editMax: [(String, Double)] = []
        var typedDuring: [(String, Int)] = []
        var slowness: [(String, [Measure.ThreadTiming])] = [("during_sync", typing.keystrokes)]
        for latency in [0, 50] {
            let typed = try await typeDuringBootstrap(devices, store: LatencyStore(inner: devices.folder, latencyMilliseconds: latency))
            editMax.append(("edit_max_ms_bootstrap_\(latency)ms", typed.keystrokes.map(\.wallMilliseconds).max() ?? 0))
            slowness.append(("bootstrap_\(latency)ms", typed.keystrokes))
            typedDuring.append(("keystrokes_during_bootstrap_\(latency)ms", typed.duringSync))
        }
        var receivedOperations = 0
        for latency in [0, 50] {
            let typed = try await typeDuringReceive(
                writer: writers[1], receiver: reader, folder: devices.folder,
                store: LatencyStore(inner: devices.folder, latencyMilliseconds: latency), round: latency)
            receivedOperations = typed.operations
            editMax.append(("edit_max_ms_receive_\(latency)ms", typed.keystrokes.map(\.wallMilliseconds).max() ?? 0))
            slowness.append(("receive_\(latency)ms", typed.keystrokes))
        }

        for writer in writers { await writer.close() }
        await reader.close()

        var report = Report()
        report.add("benchmark", .string("remote"))
        report.add("latency_ms", .integer(latencyMilliseconds))
        report.add("memos", .integer(built.activeMemoCount))
        report.add("segments", .integer(deviceCount * segmentsPerDevice))
        report.add("bootstrap_ms", .milliseconds(parallel.milliseconds))
        report.add("bootstrap_ms_serial", .milliseconds(serial.milliseconds))
        report.add("bootstrap_ratio", .number(parallel.milliseconds / max(serial.milliseconds, 0.001)))
        report.add("bootstrap_blobs_read", .integer(parallel.report.blobsRead))
        report.add("bootstrap_requests", .integer(parallel.requests.count))
        report.add("bootstrap_max_in_flight", .integer(parallel.requests.maxInFlight))
        report.add("sync_one_change_ms", .milliseconds(published.milliseconds))
        report.add("round_trips_one_change", .integer(publishRequests.roundTrips))
        report.add("requests_one_change", .integer(publishRequests.count))
        report.add("receive_one_change_ms", .milliseconds(received.milliseconds))
        report.add("round_trips_receive_one_change", .integer(receiveRequests.roundTrips))
        report.add("requests_receive_one_change", .integer(receiveRequests.count))
        report.add("edit_p99_ms_during_sync", .milliseconds(percentile(typing.keystrokes.map(\.wallMilliseconds), 0.99)))
        report.add("edit_max_ms_during_sync", .milliseconds(typing.keystrokes.map(\.wallMilliseconds).max() ?? 0))
        report.add("keystrokes", .integer(typing.keystrokes.count))
        report.add("keystrokes_during_sync", .integer(typing.duringSync))
        for (key, milliseconds) in editMax { report.add(key, .milliseconds(milliseconds)) }
        for (key, count) in typedDuring { report.add(key, .integer(count)) }
        for (phase, keystrokes) in slowness { Self.addSlowness(of: keystrokes, phase: phase, to: &report) }
        report.add("receive_changed_memos", .integer(receiveMemoCount))
        report.add("receive_operations", .integer(receivedOperations))
        return report
    }

    /// A keystroke slower than this is looked at: whether it computed, waited or was preempted.
    static let slowKeystrokeMilliseconds = 1.0

    /// What made a phase's keystrokes slow: the most processor time one took
    /// (`edit_max_processor_ms_PHASE`: the engine's own work), and on Linux the slowest one the
    /// system never took the processor from (`edit_max_ms_unpreempted_PHASE`: computing and
    /// waiting for locks, without the scheduler's share), and how many keystrokes over 1 ms
    /// there were, how many of them were preempted (`..._preempted_`: another thread ran on
    /// their processor) and how many waited (`..._waited_`: gave the processor up, for a lock
    /// or a page).
    static func addSlowness(of keystrokes: [Measure.ThreadTiming], phase: String, to report: inout Report) {
        let slow = keystrokes.filter { $0.wallMilliseconds > slowKeystrokeMilliseconds }
        report.add("edit_max_processor_ms_\(phase)", .milliseconds(keystrokes.map(\.processorMilliseconds).max() ?? 0))
        #if os(Linux)
            let unpreempted = keystrokes.filter { $0.involuntarySwitches == 0 }
            report.add("edit_max_ms_unpreempted_\(phase)", .milliseconds(unpreempted.map(\.wallMilliseconds).max() ?? 0))
            report.add("slow_keystrokes_\(phase)", .integer(slow.count))
            report.add("slow_keystrokes_preempted_\(phase)", .integer(slow.filter { $0.involuntarySwitches > 0 }.count))
            report.add("slow_keystrokes_waited_\(phase)", .integer(slow.filter { $0.voluntarySwitches > 0 }.count))
        #endif
    }

    /// The store folder and new devices' libraries, under one temporary folder.
    final class Devices {
        let root: URL
        let folder: DirectoryBlobStore
        private var count = 0

        init(root: URL) throws {
            self.root = root
            let storePath = root.appendingPathComponent("store").path
            try FileManager.default.createDirectory(atPath: storePath, withIntermediateDirectories: true)
            folder = try DirectoryBlobStore(path: storePath)
        }

        func new(_ configuration: SyncConfiguration = SyncConfiguration()) throws -> Replica {
            count += 1
            return try Replica(libraryPath: root.appendingPathComponent("device-\(count)").path, configuration: configuration)
        }
    }

    /// The writers, through the folder without latency: 100 syncs each, one edit per sync, and
    /// never a snapshot (so the store keeps every segment). Returns them and the memos they edit.
    static func publishSegments(_ devices: Devices) async throws -> ([Replica], [MemoID]) {
        var quiet = SyncConfiguration()
        quiet.snapshotAfterSegments = .max
        quiet.snapshotEveryOperations = .max
        var writers: [Replica] = []
        for _ in 0..<deviceCount { writers.append(try devices.new(quiet)) }
        for writer in writers { try await writer.sync(with: devices.folder) }
        let targets = writers[0].notebook.list().prefix(segmentsPerDevice).map(\.id)
        for round in 0..<segmentsPerDevice {
            for (index, writer) in writers.enumerated() {
                try writer.edit(targets[(round + index * 7) % targets.count], replacingUTF16: 0..<0, with: "w\(index)r\(round) ")
                let report = try await writer.sync(with: devices.folder)
                guard report.isComplete, report.publishedSegment != nil else {
                    throw BenchFailure.usage("a writer's sync did not publish: \(report.errors)")
                }
            }
        }
        return (writers, targets)
    }

    /// A new device's first sync over `store`, with `maxInFlight` requests in flight.
    static func bootstrap(_ devices: Devices, store: LatencyStore, maxInFlight: Int, expecting everything: VersionVector) async throws
        -> (device: Replica, milliseconds: Double, report: SyncReport, requests: (count: Int, maxInFlight: Int, roundTrips: Int))
    {
        var configuration = SyncConfiguration()
        configuration.maxInFlight = maxInFlight
        let device = try devices.new(configuration)
        store.resetCounts()
        let timed = try await Measure.timed { () async throws(ReplicaError) in try await device.sync(with: store) }
        guard timed.result.isComplete, device.notebook.version == everything else {
            throw BenchFailure.usage("a bootstrap did not get everything: \(timed.result.errors)")
        }
        return (device, timed.milliseconds, timed.result, store.requests)
    }

    /// Keystrokes, one every 2 ms, into a memo of a device whose bootstrap runs meanwhile, at
    /// least ``keystrokeCount`` and until the sync has returned (its last save included: 1,000
    /// keystrokes once ended before a slow bootstrap's merge): each call's time, and how many
    /// were typed before the sync returned.
    static func typeDuringBootstrap(_ devices: Devices, store: LatencyStore) async throws -> (keystrokes: [Measure.ThreadTiming], duringSync: Int) {
        let typist = try devices.new()
        let memo = try typist.createMemo(text: String(repeating: "abcdefghij", count: typedMemoLength / 10))
        try await typist.save()
        let finished = Mutex(false)
        let bootstrapping = Task {
            defer { finished.withLock { $0 = true } }
            return try await typist.sync(with: store)
        }
        let typed = try await typeOnItsOwnThread(atLeast: keystrokeCount, until: { finished.withLock { $0 } }) { index throws(ReplicaError) in
            let position = typedMemoLength / 2 + index
            let letter = String(UnicodeScalar(UInt8(97 + index % 26)))
            try typist.edit(memo, replacingUTF16: position..<position, with: letter)
        }
        let keystrokes = typed.keystrokes
        let duringSync = typed.beforeTheEnd
        let index = keystrokes.count
        let report = try await bootstrapping.value
        guard report.isComplete, typist.notebook.memo(memo)?.text.utf16.count == typedMemoLength + index else {
            throw BenchFailure.usage("typing during the bootstrap lost keystrokes or the sync failed: \(report.errors)")
        }
        await typist.close()
        return (keystrokes, duringSync)
    }

    /// Types on a thread of its own, as an app's main thread does, one keystroke (`keystroke(i)`
    /// for the i-th) every 2 ms: at least `count`, and until `isOver()`. Each keystroke's
    /// timing, and how many were typed before `isOver()` first held. (Typed from a task, the
    /// keystrokes shared the cooperative pool's threads, and so glibc's allocator arenas, with
    /// the sync: a keystroke's allocation then sorted the chunks the sync had just freed,
    /// about 3 ms for the 10,000 chunks glibc sorts at most at once. An app's keystrokes come
    /// from its main thread.)
    static func typeOnItsOwnThread(
        atLeast count: Int, until isOver: @escaping @Sendable () -> Bool,
        keystroke: @escaping @Sendable (Int) throws(ReplicaError) -> Void
    ) async throws -> (keystrokes: [Measure.ThreadTiming], beforeTheEnd: Int) {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                var keystrokes: [Measure.ThreadTiming] = []
                var beforeTheEnd = 0
                do {
                    while keystrokes.count < count || !isOver() {
                        let running = !isOver()
                        let index = keystrokes.count
                        keystrokes.append(try Measure.threadTimed { () throws(ReplicaError) in try keystroke(index) }.timing)
                        if running { beforeTheEnd += 1 }
                        usleep(2_000)
                    }
                    continuation.resume(returning: (keystrokes, beforeTheEnd))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "memo-bench typist"
            thread.start()
        }
    }

    static let receiveMemoCount = 2_000
    static let receiveEditsPerMemo = 4
    static let receiveEditLength = 60

    /// Keystrokes, one every 2 ms, into a memo of `receiver` while it syncs and receives
    /// 2,000 memos `writer` changed (4 insertions of 60 characters each, about 480,000
    /// operations, published as one segment beforehand): each keystroke's time, and the
    /// operations received.
    static func typeDuringReceive(writer: Replica, receiver: Replica, folder: DirectoryBlobStore, store: LatencyStore, round: Int) async throws
        -> (keystrokes: [Measure.ThreadTiming], operations: Int)
    {
        let memos = writer.notebook.list().prefix(receiveMemoCount).map(\.id)
        guard memos.count == receiveMemoCount else { throw BenchFailure.usage("the writer has too few memos") }
        let chunk = String(repeating: "r\(round % 10)xyzw", count: receiveEditLength / 6)
        for memo in memos {
            for edit in 0..<receiveEditsPerMemo {
                let length = writer.notebook.memo(memo)?.text.utf16.count ?? 0
                let at = length * edit / receiveEditsPerMemo
                try writer.edit(memo, replacingUTF16: at..<at, with: chunk)
            }
        }
        let published = try await writer.sync(with: folder)
        guard published.isComplete, published.publishedSegment != nil else { throw BenchFailure.usage("the writer did not publish: \(published.errors)") }
        let typed = try receiver.createMemo(text: String(repeating: "abcdefghij", count: 100))
        let syncing = Task { try await receiver.sync(with: store) }
        // Typing until the sync is over (at least 20 keystrokes).
        let keystrokes = try await typeOnItsOwnThread(atLeast: 20, until: { receiver.syncProgress == nil }) { index throws(ReplicaError) in
            let position = 500 + index
            let letter = String(UnicodeScalar(UInt8(97 + index % 26)))
            try receiver.edit(typed, replacingUTF16: position..<position, with: letter)
        }.keystrokes
        let report = try await syncing.value
        guard report.isComplete, memos.allSatisfy({ receiver.notebook.memo($0)?.text == writer.notebook.memo($0)?.text }) else {
            throw BenchFailure.usage("the receiver did not get the changed memos: \(report.errors)")
        }
        return (keystrokes, report.operationsApplied)
    }

    /// The value below which a share `fraction` of `values` lie (nearest rank).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
