// `memo-bench longevity`: a year of everyday use by a few devices, and what it leaves behind
// (issue 12, item 3).
//
// Each device is a library on its own in-memory disk (`MemoryDisk`, which reports file
// identities, so a library keeps its replica id across clean sessions as on a real folder).
// All share one `InMemoryBlobStore` and one simulated clock that runs over a year, so the grace
// period of the store's garbage collection passes many times. A session opens the device's
// library, types a little (now and then a new memo; a few words into existing ones, keystroke
// by keystroke; some deletions), syncs, saves and closes. Devices take turns in a shuffled
// order each round. After the last round every device syncs once more without editing (so all
// hold the same notebook), then the figures are taken:
//
// - what the store holds: blobs, bytes, the keys one listing returns, blobs per device (under
//   the replica ids that device used), and the most blobs it held at the end of any round;
// - what a new device reads to bootstrap from it (one sync of a fresh library), and how long
//   that sync takes;
// - the size of the notebook's state against a fresh notebook holding the same memo texts,
//   typed in one session by one replica, and the replica ids the state names.
//
// Everything but `bootstrap_ms` is determined by the seed.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync
import MemoSyncTesting

/// What the environment closures of a `Replica` read: a clock that only the benchmark moves,
/// and a seeded random source.
///
/// `@unchecked Sendable`: `ReplicaEnvironment` wants `@Sendable` closures, and these read and
/// change this box. The benchmark is single-threaded, so nothing touches it from two threads.
final class SimulatedEnvironment: @unchecked Sendable {
    /// The wall clock's reading, in milliseconds since 1970.
    var milliseconds: UInt64
    /// The random source (replica ids, memo ids).
    var random: BenchRandom

    init(milliseconds: UInt64, seed: UInt64) {
        self.milliseconds = milliseconds
        random = BenchRandom(seed: seed)
    }

    /// An environment reading `clock` for the time and this box for random values.
    func environment(clock: SimulatedEnvironment) -> ReplicaEnvironment {
        ReplicaEnvironment(wallMilliseconds: { clock.milliseconds }, randomUInt64: { [self] in random.next() })
    }
}

/// A store that passes everything on to an `InMemoryBlobStore` and records the keys read, to
/// say what a bootstrap reads.
///
/// `@unchecked Sendable`: used from the benchmark's one thread only.
final class RecordingStore: BlobStore, @unchecked Sendable {
    let store: InMemoryBlobStore
    /// The keys read, in order, with their sizes.
    private(set) var reads: [(key: String, bytes: Int)] = []

    init(_ store: InMemoryBlobStore) {
        self.store = store
    }

    func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] { try store.list(prefix: prefix) }

    func read(key: String) throws(BlobStoreError) -> [UInt8] {
        let bytes = try store.read(key: key)
        reads.append((key, bytes.count))
        return bytes
    }

    func write(key: String, bytes: [UInt8]) throws(BlobStoreError) { try store.write(key: key, bytes: bytes) }

    func delete(key: String) throws(BlobStoreError) { try store.delete(key: key) }
}

/// A benchmark run that went wrong: a sync that did not complete, or devices that did not
/// converge.
struct LongevityFailure: Error, CustomStringConvertible {
    var description: String
}

enum LongevityBenchmark {
    /// Sessions per device when `--sessions` is not given: about one every 4.4 hours for a year.
    static let defaultSessions = 2_000
    /// Devices when `--devices` is not given.
    static let defaultDevices = 3
    /// The seed when `--seed` is not given.
    static let defaultSeed: UInt64 = 12

    /// 2026-01-01T00:00:00Z, when the simulated year starts.
    static let startMilliseconds: UInt64 = 1_767_225_600_000
    static let dayMilliseconds: UInt64 = 86_400_000
    static let yearMilliseconds: UInt64 = 365 * dayMilliseconds

    /// One device: its library's disk, its random source, the language it types, and the
    /// replica ids its sessions ran under.
    private struct Device {
        var disk: MemoryDisk
        var entropy: SimulatedEnvironment
        var language: Int
        var replicaIDs: [ReplicaID] = []
        /// The library, when it stays open from one session to the next (`keepOpen`).
        var open: Replica?
    }

    /// Runs the benchmark: `sessions` sessions on each of `devices` devices.
    ///
    /// - Parameter keepOpen: a control: each device's library is opened once and stays open all
    ///   year (its syncs and edits happen at the same moments, it is never closed), so the
    ///   difference from a normal run is what opening and closing sessions costs.
    /// - Parameter explain: when set, receives lines that say which blobs the store holds at the
    ///   end (by device and kind) and which ones the new device's bootstrap read.
    static func run(
        sessions sessionsPerDevice: Int, devices deviceCount: Int, seed: UInt64, keepOpen: Bool = false,
        explain: ((String) -> Void)? = nil
    ) async throws -> Report {
        let store = InMemoryBlobStore()
        let clock = SimulatedEnvironment(milliseconds: startMilliseconds, seed: 0)
        var workload = BenchRandom(seed: seed)
        var devices = (0..<deviceCount).map { index in
            Device(
                disk: MemoryDisk(device: 0xD15C_0000 + UInt64(index)),
                entropy: SimulatedEnvironment(milliseconds: 0, seed: seed &+ 0x9E37_79B9 &* UInt64(index + 1)),
                language: index % NotebookBenchmark.words.count)
        }
        // The gap between two sessions (of any device), on average; a year in all.
        let step = yearMilliseconds / UInt64(sessionsPerDevice * deviceCount)
        var peakBlobs = 0
        var peakBlobsPerDevice = 0
        var sampledBootstraps = 0
        var peakBootstrapBlobs = 0
        var operations = 0
        var edits = 0
        // A new device bootstraps from a copy of the store about 50 times over the year.
        let sampleEvery = max(1, sessionsPerDevice / 50)
        for round in 1...sessionsPerDevice {
            for index in Array(0..<deviceCount).shuffled(using: &workload) {
                clock.milliseconds += step / 2 + workload.next() % max(step, 1)
                let session = try await session(&devices[index], editing: true, keepOpen: keepOpen, store: store, clock: clock, random: &workload)
                operations += session.operations
                edits += session.edits
            }
            let keys = store.keys
            peakBlobs = max(peakBlobs, keys.count)
            peakBlobsPerDevice = max(peakBlobsPerDevice, blobsPerDevice(keys, devices: devices).max() ?? 0)
            if round % sampleEvery == 0 {
                let copy = InMemoryBlobStore()
                for key in keys { try copy.put(key: key, bytes: store.bytes(key: key) ?? []) }
                let entropy = SimulatedEnvironment(milliseconds: 0, seed: seed &+ UInt64(round))
                let newcomer = try Replica(disk: MemoryDisk(device: 0xB007), environment: entropy.environment(clock: clock))
                let report = try await newcomer.sync(with: copy)
                await newcomer.close()
                guard report.isComplete else { throw LongevityFailure(description: "a sampled bootstrap failed: \(report.errors)") }
                sampledBootstraps += 1
                peakBootstrapBlobs = max(peakBootstrapBlobs, report.blobsRead)
            }
        }
        // Every device syncs once more, editing nothing: all then hold everything.
        var notebooks: [Notebook] = []
        for index in devices.indices {
            clock.milliseconds += 60_000
            notebooks.append(try await session(&devices[index], editing: false, keepOpen: false, store: store, clock: clock, random: &workload).notebook)
        }
        let final = notebooks[0]
        for (index, notebook) in notebooks.enumerated() where !sameMemos(notebook, final) {
            throw LongevityFailure(description: "device \(index + 1) did not converge with device 1")
        }

        // The store.
        let keys = store.keys
        let storeBytes = keys.reduce(0) { $0 + (store.bytes(key: $1)?.count ?? 0) }
        let listedKeys = try store.list(prefix: StoreLayout.root).count
        let owner = owners(devices)
        let perDevice = blobsPerDevice(keys, devices: devices)
        var segments = 0
        var snapshots = 0
        var heads = 0
        for key in keys {
            switch StoreLayout.parse(key) {
            case .segment?: segments += 1
            case .snapshot?: snapshots += 1
            case .head?: heads += 1
            case nil: break
            }
        }

        // A new device's first sync.
        let newcomerEntropy = SimulatedEnvironment(milliseconds: 0, seed: seed &+ 0xB007)
        let newcomer = try Replica(
            disk: MemoryDisk(device: 0xB007), environment: newcomerEntropy.environment(clock: clock))
        let recording = RecordingStore(store)
        let bootstrap = try await Measure.timed { () async throws(ReplicaError) in try await newcomer.sync(with: recording) }
        guard bootstrap.result.isComplete, sameMemos(newcomer.notebook, final) else {
            throw LongevityFailure(description: "the new device's first sync did not get every memo: \(bootstrap.result.errors)")
        }
        await newcomer.close()
        if let explain {
            func describe(_ key: String) -> String {
                let device = StoreLayout.parse(key).map { parsed -> String in
                    let id: ReplicaID
                    switch parsed {
                    case let .segment(replica, _, _), let .snapshot(replica, _), let .head(replica): id = replica
                    }
                    return owner[id].map { "device \($0 + 1)" } ?? "unknown"
                } ?? "not MemoSync"
                return "\(device): \(key.dropFirst(StoreLayout.root.count))"
            }
            explain("store at the end (\(keys.count) blobs):")
            for key in keys { explain("  \(describe(key)) (\(store.bytes(key: key)?.count ?? 0) bytes)") }
            explain("the new device's bootstrap read \(recording.reads.count) blobs:")
            for read in recording.reads { explain("  \(describe(read.key)) (\(read.bytes) bytes)") }
        }

        // The same memos typed in one session into a fresh notebook.
        var fresh = Notebook(replica: final.replica)
        for summary in final.list().reversed() {
            guard let memo = final.memo(summary.id) else { continue }
            try fresh.createMemo(memo.id, text: memo.text, wallMilliseconds: clock.milliseconds)
        }
        let state = final.encoded()
        let freshState = fresh.encoded()
        let stateBytes = state.count
        let freshBytes = freshState.count
        let parts = try StateParts(state)
        let freshParts = try StateParts(freshState)
        if let explain {
            for line in try StateBreakdown(state).lines(title: "state (\(stateBytes) bytes)") { explain(line) }
            for line in try StateBreakdown(freshState).lines(title: "fresh state (\(freshBytes) bytes)") { explain(line) }
        }

        var report = Report()
        report.add("benchmark", .string("longevity"))
        report.add("seed", .integer(Int(truncatingIfNeeded: seed)))
        report.add("devices", .integer(deviceCount))
        report.add("sessions", .integer(sessionsPerDevice * deviceCount))
        report.add("sessions_per_device", .integer(sessionsPerDevice))
        report.add("libraries_kept_open", .boolean(keepOpen))
        report.add("days", .decimal(Double(clock.milliseconds - startMilliseconds) / Double(dayMilliseconds), places: 1))
        report.add("operations", .integer(operations))
        report.add("edits", .integer(edits))
        report.add("memos", .integer(final.activeMemoCount))
        report.add("text_scalars", .integer(final.list().reduce(0) { $0 + (final.memo($1.id)?.text.unicodeScalars.count ?? 0) }))
        report.add("store_blobs", .integer(keys.count))
        report.add("store_bytes", .integer(storeBytes))
        report.add("store_segments", .integer(segments))
        report.add("store_snapshots", .integer(snapshots))
        report.add("store_heads", .integer(heads))
        report.add("store_blobs_peak", .integer(peakBlobs))
        report.add("store_blobs_per_device", .integers(perDevice))
        report.add("store_blobs_per_device_max", .integer(perDevice.max() ?? 0))
        report.add("store_blobs_per_device_peak", .integer(peakBlobsPerDevice))
        report.add("device_replica_ids_max", .integer(devices.map(\.replicaIDs.count).max() ?? 0))
        report.add("list_keys", .integer(listedKeys))
        report.add("bootstrap_blobs_read", .integer(bootstrap.result.blobsRead))
        report.add("bootstrap_bytes_read", .integer(bootstrap.result.bytesRead))
        report.add("bootstrap_blobs_read_peak", .integer(max(peakBootstrapBlobs, bootstrap.result.blobsRead)))
        report.add("bootstrap_samples", .integer(sampledBootstraps + 1))
        report.add("bootstrap_ms", .milliseconds(bootstrap.milliseconds))
        report.add("state_bytes", .integer(stateBytes))
        report.add("state_bytes_fresh", .integer(freshBytes))
        report.add("state_ratio", .number(Double(stateBytes) / Double(max(freshBytes, 1))))
        report.add("state_text_bytes", .integer(parts.text))
        report.add("state_text_history_bytes", .integer(parts.textHistory))
        report.add("state_log_bytes", .integer(parts.log))
        report.add("state_fresh_text_history_bytes", .integer(freshParts.textHistory))
        report.add("state_fresh_log_bytes", .integer(freshParts.log))
        report.add("replica_ids_in_state", .integer(final.version.entries.count))
        return report.sortedByKey()
    }

    /// Which device each replica id belongs to (by index).
    private static func owners(_ devices: [Device]) -> [ReplicaID: Int] {
        var owner: [ReplicaID: Int] = [:]
        for (index, device) in devices.enumerated() {
            for id in device.replicaIDs { owner[id] = index }
        }
        return owner
    }

    /// How many of `keys` each device wrote (under one of its replica ids).
    private static func blobsPerDevice(_ keys: [String], devices: [Device]) -> [Int] {
        let owner = owners(devices)
        var counts = Array(repeating: 0, count: devices.count)
        for key in keys {
            let replica: ReplicaID
            switch StoreLayout.parse(key) {
            case let .segment(id, _, _)?, let .snapshot(id, _)?, let .head(id)?: replica = id
            case nil: continue
            }
            if let index = owner[replica] { counts[index] += 1 }
        }
        return counts
    }

    /// One session of `device`: open, edit (when `editing`), sync, save, close. Returns the
    /// notebook as the session left it and how many operations it made.
    private static func session(
        _ device: inout Device, editing: Bool, keepOpen: Bool, store: InMemoryBlobStore, clock: SimulatedEnvironment,
        random: inout BenchRandom
    ) async throws -> (notebook: Notebook, operations: Int, edits: Int) {
        let replica = try device.open ?? Replica(disk: device.disk, environment: device.entropy.environment(clock: clock))
        device.open = keepOpen ? replica : nil
        if !device.replicaIDs.contains(replica.id) { device.replicaIDs.append(replica.id) }
        let before = replica.notebook.operationCount(of: replica.id)
        let edits = editing ? try edit(replica, language: device.language, clock: clock, random: &random) : 0
        let made = Int(replica.notebook.operationCount(of: replica.id) - before)
        clock.milliseconds += 1_000
        let report = try await replica.sync(with: store)
        guard report.isComplete else {
            throw LongevityFailure(description: "a sync did not complete: \(report.errors)")
        }
        try await replica.save()
        let notebook = replica.notebook
        if !keepOpen { await replica.close() }
        return (notebook, made, edits)
    }

    /// A few edits: now and then a new memo, then one to three edits of recently changed memos
    /// (sometimes an older one): a few words typed keystroke by keystroke at the end or inside
    /// the text, or a deletion (backspaces at the end, or a selection cut). Returns how many of
    /// these it made (a memo created, words typed at one place, a deletion: one each).
    private static func edit(_ replica: Replica, language: Int, clock: SimulatedEnvironment, random: inout BenchRandom) throws -> Int {
        let words = NotebookBenchmark.words[language]
        var memos = replica.notebook.list()
        var made = 0
        if memos.isEmpty || random.int(0..<100) < 6 {
            let title = (0..<(1 + random.int(0..<4))).map { _ in NotebookBenchmark.word(words, random: &random) }
            try replica.createMemo(text: title.joined(separator: " ") + "\n")
            clock.milliseconds += 2_000
            memos = replica.notebook.list()
            made += 1
        }
        let count = 1 + random.int(0..<3)
        for _ in 0..<count {
            let index = random.int(0..<100) < 70 ? random.int(0..<min(8, memos.count)) : random.int(0..<memos.count)
            let id = memos[index].id
            let length = replica.notebook.memo(id)?.text.unicodeScalars.count ?? 0
            if length < 8 || random.int(0..<100) < 75 {
                var at = random.int(0..<100) < 60 ? length : random.int(0..<(length + 1))
                for _ in 0..<(1 + random.int(0..<6)) {
                    let word = NotebookBenchmark.word(words, random: &random) + (random.int(0..<10) == 0 ? "\n" : " ")
                    for scalar in word.unicodeScalars {
                        try replica.edit(id, replacingScalars: at..<at, with: String(scalar))
                        at += 1
                    }
                }
            } else if random.int(0..<2) == 0 {
                for end in stride(from: length, to: length - 1 - random.int(0..<min(12, length)), by: -1) {
                    try replica.edit(id, replacingScalars: (end - 1)..<end, with: "")
                }
            } else {
                let count = 1 + random.int(0..<min(20, length))
                let start = random.int(0..<(length - count + 1))
                try replica.edit(id, replacingScalars: start..<(start + count), with: "")
            }
            clock.milliseconds += 5_000
        }
        return made + count
    }

    /// Where the bytes of an encoded notebook state go (FORMAT.md, "Notebook state"): the memos'
    /// visible texts (UTF-8), the rest of their text states (ids, Lamport runs, the operation
    /// log of each text: its history), the notebook's operation log (replica table and runs),
    /// and the rest (envelope, memo ids and lengths).
    struct StateParts {
        var text = 0
        var textHistory = 0
        var log = 0
        var other = 0

        init(_ state: [UInt8]) throws {
            let (body, version) = try BlobEnvelope.open(state, kind: .notebookState, versions: 1...15)
            var reader = ByteReader(state, from: body.lowerBound, to: body.upperBound)
            let memoCount = try reader.varint()
            for _ in 0..<memoCount {
                _ = try reader.range(count: 16)
                // Version 2 writes the body's length shifted left by one (bit 0: a version 1 body).
                let textBody = version == 1 ? try reader.lengthPrefixedRange() : try reader.range(count: Int(try reader.varint() >> 1))
                var textReader = ByteReader(state, from: textBody.lowerBound, to: textBody.upperBound)
                let visible = try textReader.lengthPrefixedRange()
                text += visible.count
                textHistory += textBody.count - visible.count
            }
            log = reader.remaining
            other = state.count - text - textHistory - log
        }
    }

    /// Whether `a` and `b` hold the same version and the same active memos with the same texts.
    private static func sameMemos(_ a: Notebook, _ b: Notebook) -> Bool {
        guard a.version == b.version else { return false }
        let ids = a.list().map(\.id)
        guard ids.sorted() == b.list().map(\.id).sorted() else { return false }
        return ids.allSatisfy { a.memo($0)?.text == b.memo($0)?.text }
    }
}
