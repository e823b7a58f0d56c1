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
import MemoSync

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
    }

    /// Runs the benchmark: `sessions` sessions on each of `devices` devices.
    static func run(sessions sessionsPerDevice: Int, devices deviceCount: Int, seed: UInt64) throws -> Report {
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
        var operations = 0
        for _ in 0..<sessionsPerDevice {
            for index in Array(0..<deviceCount).shuffled(using: &workload) {
                clock.milliseconds += step / 2 + workload.next() % max(step, 1)
                operations += try session(&devices[index], editing: true, store: store, clock: clock, random: &workload).operations
            }
            peakBlobs = max(peakBlobs, store.keys.count)
        }
        // Every device syncs once more, editing nothing: all then hold everything.
        var notebooks: [Notebook] = []
        for index in devices.indices {
            clock.milliseconds += 60_000
            notebooks.append(try session(&devices[index], editing: false, store: store, clock: clock, random: &workload).notebook)
        }
        let final = notebooks[0]
        for (index, notebook) in notebooks.enumerated() where !sameMemos(notebook, final) {
            throw LongevityFailure(description: "device \(index + 1) did not converge with device 1")
        }

        // The store.
        let keys = store.keys
        let storeBytes = keys.reduce(0) { $0 + (store.bytes(key: $1)?.count ?? 0) }
        let listedKeys = try store.list(prefix: StoreLayout.root).count
        var owner: [ReplicaID: Int] = [:]
        for (index, device) in devices.enumerated() {
            for id in device.replicaIDs { owner[id] = index }
        }
        var blobsPerDevice = Array(repeating: 0, count: deviceCount)
        var segments = 0
        var snapshots = 0
        var heads = 0
        for key in keys {
            let replica: ReplicaID
            switch StoreLayout.parse(key) {
            case let .segment(id, _, _)?:
                segments += 1
                replica = id
            case let .snapshot(id, _)?:
                snapshots += 1
                replica = id
            case let .head(id)?:
                heads += 1
                replica = id
            case nil:
                continue
            }
            if let index = owner[replica] { blobsPerDevice[index] += 1 }
        }

        // A new device's first sync.
        let newcomerEntropy = SimulatedEnvironment(milliseconds: 0, seed: seed &+ 0xB007)
        let newcomer = try Replica(
            disk: MemoryDisk(device: 0xB007), environment: newcomerEntropy.environment(clock: clock))
        let bootstrap = try Measure.timed { () throws(ReplicaError) in try newcomer.sync(with: store) }
        guard bootstrap.result.isComplete, sameMemos(newcomer.notebook, final) else {
            throw LongevityFailure(description: "the new device's first sync did not get every memo: \(bootstrap.result.errors)")
        }
        newcomer.close()

        // The same memos typed in one session into a fresh notebook.
        var fresh = Notebook(replica: final.replica)
        for summary in final.list().reversed() {
            guard let memo = final.memo(summary.id) else { continue }
            try fresh.createMemo(memo.id, text: memo.text, wallMilliseconds: clock.milliseconds)
        }
        let stateBytes = final.encoded().count
        let freshBytes = fresh.encoded().count

        var report = Report()
        report.add("benchmark", .string("longevity"))
        report.add("seed", .integer(Int(truncatingIfNeeded: seed)))
        report.add("devices", .integer(deviceCount))
        report.add("sessions", .integer(sessionsPerDevice * deviceCount))
        report.add("sessions_per_device", .integer(sessionsPerDevice))
        report.add("days", .decimal(Double(clock.milliseconds - startMilliseconds) / Double(dayMilliseconds), places: 1))
        report.add("operations", .integer(operations))
        report.add("memos", .integer(final.activeMemoCount))
        report.add("text_scalars", .integer(final.list().reduce(0) { $0 + (final.memo($1.id)?.text.unicodeScalars.count ?? 0) }))
        report.add("store_blobs", .integer(keys.count))
        report.add("store_bytes", .integer(storeBytes))
        report.add("store_segments", .integer(segments))
        report.add("store_snapshots", .integer(snapshots))
        report.add("store_heads", .integer(heads))
        report.add("store_blobs_peak", .integer(peakBlobs))
        report.add("store_blobs_per_device", .integers(blobsPerDevice))
        report.add("store_blobs_per_device_max", .integer(blobsPerDevice.max() ?? 0))
        report.add("device_replica_ids_max", .integer(devices.map(\.replicaIDs.count).max() ?? 0))
        report.add("list_keys", .integer(listedKeys))
        report.add("bootstrap_blobs_read", .integer(bootstrap.result.blobsRead))
        report.add("bootstrap_bytes_read", .integer(bootstrap.result.bytesRead))
        report.add("bootstrap_ms", .milliseconds(bootstrap.milliseconds))
        report.add("state_bytes", .integer(stateBytes))
        report.add("state_bytes_fresh", .integer(freshBytes))
        report.add("state_ratio", .number(Double(stateBytes) / Double(max(freshBytes, 1))))
        report.add("replica_ids_in_state", .integer(final.version.entries.count))
        return report.sortedByKey()
    }

    /// One session of `device`: open, edit (when `editing`), sync, save, close. Returns the
    /// notebook as the session left it and how many operations it made.
    private static func session(
        _ device: inout Device, editing: Bool, store: InMemoryBlobStore, clock: SimulatedEnvironment, random: inout BenchRandom
    ) throws -> (notebook: Notebook, operations: Int) {
        let replica = try Replica(disk: device.disk, environment: device.entropy.environment(clock: clock))
        if !device.replicaIDs.contains(replica.id) { device.replicaIDs.append(replica.id) }
        let before = replica.notebook.operationCount(of: replica.id)
        if editing { try edit(replica, language: device.language, clock: clock, random: &random) }
        let made = Int(replica.notebook.operationCount(of: replica.id) - before)
        clock.milliseconds += 1_000
        let report = try replica.sync(with: store)
        guard report.isComplete else {
            throw LongevityFailure(description: "a sync did not complete: \(report.errors)")
        }
        try replica.save()
        let notebook = replica.notebook
        replica.close()
        return (notebook, made)
    }

    /// A few edits: now and then a new memo, then one to three edits of recently changed memos
    /// (sometimes an older one): a few words typed keystroke by keystroke at the end or inside
    /// the text, or a deletion (backspaces at the end, or a selection cut).
    private static func edit(_ replica: Replica, language: Int, clock: SimulatedEnvironment, random: inout BenchRandom) throws {
        let words = NotebookBenchmark.words[language]
        var memos = replica.notebook.list()
        if memos.isEmpty || random.int(0..<100) < 6 {
            let title = (0..<(1 + random.int(0..<4))).map { _ in NotebookBenchmark.word(words, random: &random) }
            try replica.createMemo(text: title.joined(separator: " ") + "\n")
            clock.milliseconds += 2_000
            memos = replica.notebook.list()
        }
        for _ in 0..<(1 + random.int(0..<3)) {
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
    }

    /// Whether `a` and `b` hold the same version and the same active memos with the same texts.
    private static func sameMemos(_ a: Notebook, _ b: Notebook) -> Bool {
        guard a.version == b.version else { return false }
        let ids = a.list().map(\.id)
        guard ids.sorted() == b.list().map(\.id).sorted() else { return false }
        return ids.allSatisfy { a.memo($0)?.text == b.memo($0)?.text }
    }
}
