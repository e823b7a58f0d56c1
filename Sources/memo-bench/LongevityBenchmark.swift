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
import Synchronization

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
/// A sync has several reads in flight at once, so the record is behind a lock.
final class RecordingStore: BlobStore, Sendable {
    let store: InMemoryBlobStore
    private let recorded = Mutex<[(key: String, bytes: Int)]>([])

    init(_ store: InMemoryBlobStore) {
        self.store = store
    }

    /// The keys read, in the order the reads finished, with their sizes.
    var reads: [(key: String, bytes: Int)] { recorded.withLock { $0 } }

    func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] { try store.list(prefix: prefix) }

    func read(key: String) throws(BlobStoreError) -> [UInt8] {
        let bytes = try store.read(key: key)
        recorded.withLock { $0.append((key, bytes.count)) }
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
        /// Its history retention period, set in its first session when not the default.
        var historyRetention: HistoryRetention = .default
        var historyRetentionSet = false
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
        historyRetention: HistoryRetention = .default, explain: ((String) -> Void)? = nil
    ) async throws -> Report {
        let store = InMemoryBlobStore()
        let clock = SimulatedEnvironment(milliseconds: startMilliseconds, seed: 0)
        var workload = BenchRandom(seed: seed)
        var devices = (0..<deviceCount).map { index in
            Device(
                disk: MemoryDisk(device: 0xD15C_0000 + UInt64(index)),
                entropy: SimulatedEnvironment(milliseconds: 0, seed: seed &+ 0x9E37_79B9 &* UInt64(index + 1)),
                language: index % NotebookBenchmark.words.count, historyRetention: historyRetention)
        }
        let year = try await simulateYear(
            &devices, sessionsPerDevice: sessionsPerDevice, keepOpen: keepOpen, store: store, clock: clock, seed: seed,
            workload: &workload)
        let final = try await converge(&devices, store: store, clock: clock, workload: &workload)
        let census = try StoreCensus(store, devices: devices)
        let bootstrap = try await bootstrapNewDevice(from: store, clock: clock, seed: seed, expecting: final)
        if let explain {
            explainStore(census, bootstrapReads: bootstrap.reads, store: store, devices: devices, explain: explain)
        }
        let state = try StateComparison(final, wallMilliseconds: clock.milliseconds)
        if let explain { try state.explain(explain) }

        var report = Report()
        report.add("benchmark", .string("longevity"))
        report.add("seed", .integer(Int(truncatingIfNeeded: seed)))
        report.add("devices", .integer(deviceCount))
        report.add("sessions", .integer(sessionsPerDevice * deviceCount))
        report.add("sessions_per_device", .integer(sessionsPerDevice))
        report.add("libraries_kept_open", .boolean(keepOpen))
        report.add("days", .decimal(Double(clock.milliseconds - startMilliseconds) / Double(dayMilliseconds), places: 1))
        report.add("operations", .integer(year.operations))
        report.add("edits", .integer(year.edits))
        report.add("memos", .integer(final.activeMemoCount))
        report.add("text_scalars", .integer(final.list().reduce(0) { $0 + (final.memo($1.id)?.text.unicodeScalars.count ?? 0) }))
        report.add("store_blobs", .integer(census.keys.count))
        report.add("store_bytes", .integer(census.bytes))
        report.add("store_segments", .integer(census.segments))
        report.add("store_snapshots", .integer(census.snapshots))
        report.add("store_heads", .integer(census.heads))
        report.add("store_blobs_peak", .integer(year.peakBlobs))
        report.add("store_blobs_per_device", .integers(census.perDevice))
        report.add("store_blobs_per_device_max", .integer(census.perDevice.max() ?? 0))
        report.add("store_blobs_per_device_peak", .integer(year.peakBlobsPerDevice))
        report.add("device_replica_ids_max", .integer(devices.map(\.replicaIDs.count).max() ?? 0))
        report.add("list_keys", .integer(census.listedKeys))
        report.add("bootstrap_blobs_read", .integer(bootstrap.sync.blobsRead))
        report.add("bootstrap_bytes_read", .integer(bootstrap.sync.bytesRead))
        report.add("bootstrap_blobs_read_peak", .integer(max(year.peakBootstrapBlobs, bootstrap.sync.blobsRead)))
        report.add("bootstrap_samples", .integer(year.sampledBootstraps + 1))
        report.add("bootstrap_ms", .milliseconds(bootstrap.milliseconds))
        report.add("state_bytes", .integer(state.state.count))
        report.add("state_bytes_fresh", .integer(state.fresh.count))
        // Libraries keep history (issue 27) for their retention period, the default 90 days:
        // the same state without any kept deleted content, and the first device's library files.
        var withoutHistory = final
        withoutHistory.dropHistory(deletedBeforeWallMilliseconds: .max)
        switch historyRetention {
        case let .days(days): report.add("history_retention_days", .integer(days))
        case .forever: report.add("history_retention_days", .string("forever"))
        }
        report.add("state_bytes_without_history", .integer(withoutHistory.encoded().count))
        var libraryBytes = 0
        for file in try devices[0].disk.listFiles() { libraryBytes += try devices[0].disk.read(file: file)?.count ?? 0 }
        report.add("library_bytes", .integer(libraryBytes))
        report.add("state_ratio", .number(Double(state.state.count) / Double(max(state.fresh.count, 1))))
        report.add("state_text_bytes", .integer(state.parts.text))
        report.add("state_text_history_bytes", .integer(state.parts.textHistory))
        report.add("state_log_bytes", .integer(state.parts.log))
        report.add("state_fresh_text_history_bytes", .integer(state.freshParts.textHistory))
        report.add("state_fresh_log_bytes", .integer(state.freshParts.log))
        report.add("replica_ids_in_state", .integer(final.version.entries.count))
        return report.sortedByKey()
    }

    /// What the simulated year records along the way.
    private struct YearFigures {
        /// Operations and edits (`edit`'s count) made by all sessions.
        var operations = 0
        var edits = 0
        /// The most blobs the store held at the end of a round, in all and of one device.
        var peakBlobs = 0
        var peakBlobsPerDevice = 0
        /// New devices bootstrapped from a copy of the store during the year, and the most
        /// blobs one of them read.
        var sampledBootstraps = 0
        var peakBootstrapBlobs = 0
    }

    /// The year: `sessionsPerDevice` rounds in which every device, in a shuffled order, has one
    /// editing session. After each round the store's size is sampled, and about 50 times a
    /// new device bootstraps from a copy of it.
    private static func simulateYear(
        _ devices: inout [Device], sessionsPerDevice: Int, keepOpen: Bool, store: InMemoryBlobStore,
        clock: SimulatedEnvironment, seed: UInt64, workload: inout BenchRandom
    ) async throws -> YearFigures {
        // The gap between two sessions (of any device), on average; a year in all.
        let step = yearMilliseconds / UInt64(sessionsPerDevice * devices.count)
        var figures = YearFigures()
        let sampleEvery = max(1, sessionsPerDevice / 50)
        for round in 1...sessionsPerDevice {
            for index in Array(0..<devices.count).shuffled(using: &workload) {
                clock.milliseconds += step / 2 + workload.next() % max(step, 1)
                let session = try await session(&devices[index], editing: true, keepOpen: keepOpen, store: store, clock: clock, random: &workload)
                figures.operations += session.operations
                figures.edits += session.edits
            }
            let keys = store.keys
            figures.peakBlobs = max(figures.peakBlobs, keys.count)
            figures.peakBlobsPerDevice = max(figures.peakBlobsPerDevice, blobsPerDevice(keys, devices: devices).max() ?? 0)
            if round % sampleEvery == 0 {
                let blobsRead = try await sampleBootstrap(store: store, keys: keys, clock: clock, seed: seed &+ UInt64(round))
                figures.sampledBootstraps += 1
                figures.peakBootstrapBlobs = max(figures.peakBootstrapBlobs, blobsRead)
            }
        }
        return figures
    }

    /// A new device's first sync from a copy of the store (so that it changes nothing in the
    /// store itself). Returns how many blobs it read.
    private static func sampleBootstrap(
        store: InMemoryBlobStore, keys: [String], clock: SimulatedEnvironment, seed: UInt64
    ) async throws -> Int {
        let copy = InMemoryBlobStore()
        for key in keys { try copy.put(key: key, bytes: store.bytes(key: key) ?? []) }
        let entropy = SimulatedEnvironment(milliseconds: 0, seed: seed)
        let newcomer = try Replica(disk: MemoryDisk(device: 0xB007), environment: entropy.environment(clock: clock))
        let report = try await newcomer.sync(with: copy)
        await newcomer.close()
        guard report.isComplete else { throw LongevityFailure(description: "a sampled bootstrap failed: \(report.errors)") }
        return report.blobsRead
    }

    /// Every device syncs once more, editing nothing: all then hold everything. Returns the
    /// notebook they all hold.
    private static func converge(
        _ devices: inout [Device], store: InMemoryBlobStore, clock: SimulatedEnvironment, workload: inout BenchRandom
    ) async throws -> Notebook {
        var notebooks: [Notebook] = []
        for index in devices.indices {
            clock.milliseconds += 60_000
            notebooks.append(try await session(&devices[index], editing: false, keepOpen: false, store: store, clock: clock, random: &workload).notebook)
        }
        let final = notebooks[0]
        for (index, notebook) in notebooks.enumerated() where !sameMemos(notebook, final) {
            throw LongevityFailure(description: "device \(index + 1) did not converge with device 1")
        }
        return final
    }

    /// What the store holds at the end of the year.
    private struct StoreCensus {
        /// The blobs' keys.
        var keys: [String]
        /// Their bytes in all.
        var bytes: Int
        /// The keys one listing of the store returns.
        var listedKeys: Int
        /// The blobs each device wrote, by device.
        var perDevice: [Int]
        var segments = 0
        var snapshots = 0
        var heads = 0

        init(_ store: InMemoryBlobStore, devices: [Device]) throws {
            keys = store.keys
            bytes = keys.reduce(0) { $0 + (store.bytes(key: $1)?.count ?? 0) }
            listedKeys = try store.list(prefix: StoreLayout.root).count
            perDevice = blobsPerDevice(keys, devices: devices)
            for key in keys {
                switch StoreLayout.parse(key) {
                case .segment?: segments += 1
                case .snapshot?: snapshots += 1
                case .head?: heads += 1
                case nil: break
                }
            }
        }
    }

    /// A new device's first sync from the store itself, timed: what it syncs (which must get
    /// every memo of `final`), and the blobs it read.
    private static func bootstrapNewDevice(
        from store: InMemoryBlobStore, clock: SimulatedEnvironment, seed: UInt64, expecting final: Notebook
    ) async throws -> (sync: SyncReport, milliseconds: Double, reads: [(key: String, bytes: Int)]) {
        let newcomerEntropy = SimulatedEnvironment(milliseconds: 0, seed: seed &+ 0xB007)
        let newcomer = try Replica(
            disk: MemoryDisk(device: 0xB007), environment: newcomerEntropy.environment(clock: clock))
        let recording = RecordingStore(store)
        let bootstrap = try await Measure.timed { () async throws(ReplicaError) in try await newcomer.sync(with: recording) }
        guard bootstrap.result.isComplete, sameMemos(newcomer.notebook, final) else {
            throw LongevityFailure(description: "the new device's first sync did not get every memo: \(bootstrap.result.errors)")
        }
        await newcomer.close()
        return (bootstrap.result, bootstrap.milliseconds, recording.reads)
    }

    /// `--explain`: the blobs the store held at the end of the year, and those the new
    /// device's bootstrap read, each with the device that wrote it.
    private static func explainStore(
        _ census: StoreCensus, bootstrapReads: [(key: String, bytes: Int)], store: InMemoryBlobStore, devices: [Device],
        explain: (String) -> Void
    ) {
        let owner = owners(devices)
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
        explain("store at the end (\(census.keys.count) blobs):")
        for key in census.keys { explain("  \(describe(key)) (\(store.bytes(key: key)?.count ?? 0) bytes)") }
        explain("the new device's bootstrap read \(bootstrapReads.count) blobs:")
        for read in bootstrapReads { explain("  \(describe(read.key)) (\(read.bytes) bytes)") }
    }

    /// The final notebook's state against a fresh notebook holding the same memo texts, typed
    /// in one session by the same replica.
    private struct StateComparison {
        var state: [UInt8]
        var fresh: [UInt8]
        var parts: StateParts
        var freshParts: StateParts

        init(_ final: Notebook, wallMilliseconds: UInt64) throws {
            var fresh = Notebook(replica: final.replica)
            for summary in final.list().reversed() {
                guard let memo = final.memo(summary.id) else { continue }
                try fresh.createMemo(memo.id, text: memo.text, wallMilliseconds: wallMilliseconds)
            }
            state = final.encoded()
            self.fresh = fresh.encoded()
            parts = try StateParts(state)
            freshParts = try StateParts(self.fresh)
        }

        /// `--explain`: both states, field by field.
        func explain(_ explain: (String) -> Void) throws {
            for line in try StateBreakdown(state).lines(title: "state (\(state.count) bytes)") { explain(line) }
            for line in try StateBreakdown(fresh).lines(title: "fresh state (\(fresh.count) bytes)") { explain(line) }
        }
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
        if !device.historyRetentionSet {
            if device.historyRetention != .default { try replica.setHistoryRetention(device.historyRetention) }
            device.historyRetentionSet = true
        }
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
