/// What `memo-sim --measure` and `--report` record (issue 30): per seed, the arrival times of
/// edits at every replica, each replica's store traffic, syncs and crashes, and the store's
/// size over time; and totals over the seeds. Every number is an integer (milliseconds,
/// bytes, counts) and the JSON is canonical (``JSONText``): the same seeds and options give the
/// same bytes, and `memo-sim merge` of files covering parts of a seed range gives the same
/// bytes as one run of the whole range. Simulations/README.md ("Measurements and reports")
/// documents every field.
public struct MeasurementFile: Equatable, Sendable {
    /// The format's name and version, checked when a file is read.
    public static let formatName = "memo-sim measurements"
    public static let formatVersion = 1

    /// The options every seed ran with (the command line without the seed).
    public var options: String
    /// The seeds, in ascending seed order.
    public var seeds: [SeedMeasurements]
    /// A scenario's names of its replicas, replica 0 first (empty for a random profile, whose
    /// replicas have none): written only when there are some.
    public var replicaNames: [String]

    public init(options: String, seeds: [SeedMeasurements], replicaNames: [String] = []) {
        self.options = options
        self.seeds = seeds.sorted { $0.seed < $1.seed }
        self.replicaNames = replicaNames
    }

    /// A compact file's arrival latencies (rounded, ``SeedMeasurements/roundedUp(_:)``) as
    /// read: its seeds carry only their summaries, the file the latencies of all of them.
    /// Seeds compacted in this process still hold their own rounded latencies instead.
    var roundedArrivals: [Int: Int] = [:]

    /// The totals over every seed (computed, never read from a file).
    public var totals: MeasurementTotals { MeasurementTotals(seeds, roundedArrivals: roundedArrivals) }

    /// Every rounded latency of a compact file: its seeds' and those read.
    var allRoundedArrivals: [(value: Int, count: Int)] {
        var counts = roundedArrivals
        for seed in seeds where seed.isCompact {
            for pair in seed.arrivalMilliseconds { counts[pair.value, default: 0] += pair.count }
        }
        return counts.keys.sorted().map { ($0, counts[$0]!) }
    }

    /// Whether the seeds are in the compact form (``SeedMeasurements/compacted()``).
    public var isCompact: Bool { seeds.contains { $0.isCompact } }

    /// Every seed in the compact form.
    public func compacted() -> MeasurementFile {
        var file = MeasurementFile(options: options, seeds: seeds.map { $0.compacted() }, replicaNames: replicaNames)
        file.roundedArrivals = roundedArrivals
        return file
    }

    public var json: JSONText {
        var members: [String: JSONText] = [
            "format": .string(Self.formatName), "version": .integer(Self.formatVersion), "options": .string(options),
            "seeds": .array(seeds.map(\.json)), "totals": totals.json,
        ]
        if !replicaNames.isEmpty { members["replicaNames"] = .array(replicaNames.map { .string($0) }) }
        if isCompact {
            members["compact"] = .bool(true)
            members["arrivalRoundedMilliseconds"] = .array(allRoundedArrivals.map { .array([.integer($0.value), .integer($0.count)]) })
        }
        return .object(members)
    }

    /// Reads a file written by ``json``'s text.
    public init(parsing text: String) throws(MeasurementFileError) {
        let json: JSONText
        do throws(JSONTextError) {
            json = try JSONText(parsing: text)
        } catch {
            throw MeasurementFileError(reason: error.description)
        }
        guard json["format"]?.string == Self.formatName else { throw MeasurementFileError(reason: "not a memo-sim measurements file") }
        guard json["version"]?.int == Self.formatVersion else { throw MeasurementFileError(reason: "an unknown version of the measurements format") }
        guard let options = json["options"]?.string, let seeds = json["seeds"]?.array else {
            throw MeasurementFileError(reason: "options or seeds missing")
        }
        var read: [SeedMeasurements] = []
        for (index, seed) in seeds.enumerated() {
            guard let measurements = SeedMeasurements(json: seed) else {
                throw MeasurementFileError(reason: "seed entry \(index + 1) is incomplete")
            }
            read.append(measurements)
        }
        var names: [String] = []
        if let items = json["replicaNames"] {
            guard let list = items.array, !list.isEmpty else { throw MeasurementFileError(reason: "replicaNames must be a list of names") }
            for item in list {
                guard let name = item.string else { throw MeasurementFileError(reason: "replicaNames must be a list of names") }
                names.append(name)
            }
        }
        self.init(options: options, seeds: read, replicaNames: names)
        if let pairs = json["arrivalRoundedMilliseconds"]?.array {
            guard isCompact || read.isEmpty else { throw MeasurementFileError(reason: "rounded latencies in a file whose seeds are not compact") }
            for pair in pairs {
                guard let items = pair.array, items.count == 2, let value = items[0].int, let count = items[1].int else {
                    throw MeasurementFileError(reason: "arrivalRoundedMilliseconds holds something other than [latency, count] pairs")
                }
                roundedArrivals[value, default: 0] += count
            }
        } else if isCompact {
            throw MeasurementFileError(reason: "a compact file without arrivalRoundedMilliseconds")
        }
    }

    /// Files covering parts of one study, as one: the same options, no seed twice.
    public static func merged(_ files: [MeasurementFile]) throws(MeasurementFileError) -> MeasurementFile {
        guard let first = files.first else { throw MeasurementFileError(reason: "nothing to merge") }
        var seeds: [SeedMeasurements] = []
        var rounded: [Int: Int] = [:]
        var seen: Set<UInt64> = []
        for file in files {
            guard file.options == first.options else {
                throw MeasurementFileError(reason: "the files ran with different options: \"\(first.options)\" and \"\(file.options)\"")
            }
            guard file.replicaNames == first.replicaNames else {
                throw MeasurementFileError(reason: "the files name their replicas differently: \(first.replicaNames) and \(file.replicaNames)")
            }
            for seed in file.seeds {
                guard seen.insert(seed.seed).inserted else { throw MeasurementFileError(reason: "seed \(seed.seed) is in two files") }
                seeds.append(seed)
            }
            for (value, count) in file.roundedArrivals { rounded[value, default: 0] += count }
        }
        // A compact part makes the whole compact: its seeds have no more than that.
        var merged = MeasurementFile(options: first.options, seeds: seeds, replicaNames: first.replicaNames)
        merged.roundedArrivals = rounded
        return merged.isCompact ? merged.compacted() : merged
    }
}

/// Why a measurements file could not be read or merged.
public struct MeasurementFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// One stretch or moment of a replica's timeline (`from == to` for a moment).
public struct TimelineEntry: Equatable, Sendable {
    /// Simulated milliseconds.
    public var from: Int
    public var to: Int
    /// `edit`, `sync`, `sync-cut` (a sync a crash or restore ended), `down` (crashed until it
    /// restarted), `offline`, `join`, `leave`, `restore-backup`, `clock-jump`, `store-full`,
    /// `store-loss`, `key-blob`.
    public var kind: String

    var json: JSONText { .array([.integer(from), .integer(to), .string(kind)]) }

    /// An entry.
    public init(from: Int, to: Int, kind: String) {
        self.from = from
        self.to = to
        self.kind = kind
    }

    init?(json: JSONText) {
        guard let items = json.array, items.count == 3, let from = items[0].int, let to = items[1].int, let kind = items[2].string else { return nil }
        self.init(from: from, to: to, kind: kind)
    }
}

/// One replica's measurements in one run.
public struct ReplicaMeasurements: Equatable, Sendable {
    public var replica: Int
    /// Local actions that made operations (a typing run, a paste, an undo: one each).
    public var edits = 0
    /// Syncs finished (replica engine), deltas applied (notebook engine).
    public var syncs = 0
    public var crashes = 0
    /// Store operations that succeeded, and their payload sizes (plain bytes, before an
    /// encrypted run's sealing).
    public var blobsRead = 0
    public var bytesRead = 0
    public var blobsWritten = 0
    public var bytesWritten = 0
    public var blobsDeleted = 0
    public var listings = 0
    /// Store operations that failed (offline, transient faults, a full store, undecryptable).
    public var operationsFailed = 0
    /// Other replicas' edits that arrived here before the final phase, in it, and never
    /// though this replica was live at the end.
    public var arrivals = 0
    public var arrivedInFinalPhase = 0
    public var neverArrived = 0
    public var timeline: [TimelineEntry] = []
    /// At every store sample: operations the replica's library holds back (waiting for ones
    /// they depend on; 0 when not running) and its library's bytes on disk.
    public var samples: [ReplicaSample] = []

    init(replica: Int) { self.replica = replica }

    static let counterKeys = [
        "edits", "syncs", "crashes", "blobsRead", "bytesRead", "blobsWritten", "bytesWritten", "blobsDeleted", "listings",
        "operationsFailed", "arrivals", "arrivedInFinalPhase", "neverArrived",
    ]

    var counters: [Int] {
        [edits, syncs, crashes, blobsRead, bytesRead, blobsWritten, bytesWritten, blobsDeleted, listings, operationsFailed, arrivals, arrivedInFinalPhase, neverArrived]
    }

    /// The replica's object; the compact form has its counters only.
    func json(compact: Bool) -> JSONText {
        var members: [String: JSONText] = ["replica": .integer(replica)]
        if !compact {
            members["timeline"] = .array(timeline.map(\.json))
            members["samples"] = .array(samples.map { .array([.integer($0.time), .integer($0.heldBack), .integer($0.libraryBytes)]) })
        }
        for (key, value) in zip(Self.counterKeys, counters) { members[key] = .integer(value) }
        return .object(members)
    }

    init?(json: JSONText, compact: Bool) {
        guard let replica = json["replica"]?.int else { return nil }
        let timeline = json["timeline"]?.array ?? []
        let samples = json["samples"]?.array ?? []
        guard compact || (json["timeline"] != nil && json["samples"] != nil) else { return nil }
        var values: [Int] = []
        for key in Self.counterKeys {
            guard let value = json[key]?.int else { return nil }
            values.append(value)
        }
        self.replica = replica
        (edits, syncs, crashes, blobsRead, bytesRead, blobsWritten) = (values[0], values[1], values[2], values[3], values[4], values[5])
        (bytesWritten, blobsDeleted, listings, operationsFailed) = (values[6], values[7], values[8], values[9])
        (arrivals, arrivedInFinalPhase, neverArrived) = (values[10], values[11], values[12])
        var entries: [TimelineEntry] = []
        for item in timeline {
            guard let entry = TimelineEntry(json: item) else { return nil }
            entries.append(entry)
        }
        self.timeline = entries
        for sample in samples {
            guard let items = sample.array, items.count == 3, let time = items[0].int, let held = items[1].int, let size = items[2].int else {
                return nil
            }
            self.samples.append(ReplicaSample(time: time, heldBack: held, libraryBytes: size))
        }
    }
}

/// A sample of one replica: held-back operations and library bytes.
public struct ReplicaSample: Equatable, Sendable {
    /// Simulated milliseconds (a multiple of the sample interval).
    public var time: Int
    public var heldBack: Int
    public var libraryBytes: Int
}

/// A sample of the store's ground truth.
public struct StoreSample: Equatable, Sendable {
    /// Simulated milliseconds (a multiple of the sample interval).
    public var time: Int
    public var blobs: Int
    public var bytes: Int
}

/// The run of one seed.
public struct SeedMeasurements: Equatable, Sendable {
    public var seed: UInt64
    /// `ok`, or the invariant that failed.
    public var verdict: String
    /// The event log's hash, as the run line prints it.
    public var hash: String
    public var simulatedMilliseconds: Int
    /// Edits made; lost in a crash before they were saved (excluded from everything below);
    /// made on a replica that later left or had its library restored from a backup (they may
    /// never arrive: not counted as never arrived).
    public var edits = 0
    public var editsLost = 0
    public var editsUncertain = 0
    /// Arrival latencies in milliseconds as (value, count), ascending: one per edit and other
    /// replica it reached, from the edit (or the replica's start, if later) to the arrival.
    public var arrivalMilliseconds: [(value: Int, count: Int)] = []
    /// Pairs of an edit and a replica live at the end that never held it.
    public var neverArrived = 0
    /// Pairs that arrived only in the final phase (not in ``arrivalMilliseconds``), and when
    /// it began (-1: the run stopped before it).
    public var arrivedInFinalPhase = 0
    public var finalPhaseMilliseconds = -1
    public var replicas: [ReplicaMeasurements] = []
    public var sampleIntervalMilliseconds = 0
    public var storeSamples: [StoreSample] = []
    /// The store at the end of the run.
    public var storeBlobs = 0
    public var storeBytes = 0
    public var snapshotsWritten = 0
    public var snapshotsCollected = 0

    /// The compact form (``compacted()``): latencies rounded, no timelines or samples.
    public private(set) var isCompact = false
    /// A compact seed's store peaks (its samples are gone) and its arrival summary, from its
    /// exact latencies.
    var compactStorePeak: (blobs: Int, bytes: Int)?
    var compactArrival: ArrivalSummary?

    /// The most blobs and bytes the store held at any sample or at the end.
    public var storeBlobsMax: Int { compactStorePeak?.blobs ?? Swift.max(storeBlobs, storeSamples.map(\.blobs).max() ?? 0) }
    public var storeBytesMax: Int { compactStorePeak?.bytes ?? Swift.max(storeBytes, storeSamples.map(\.bytes).max() ?? 0) }

    /// Latencies from 10,000 ms up rounded up to four significant digits (12,345 ms to
    /// 12,350; 601,200,249 to 601,300,000): less than 0.1 % more, and the histogram's buckets
    /// unchanged (their bounds have at most four significant digits).
    public static func roundedUp(_ milliseconds: Int) -> Int {
        guard milliseconds >= 10_000 else { return milliseconds }
        var scale = 1
        while milliseconds / scale >= 10_000 { scale *= 10 }
        return (milliseconds + scale - 1) / scale * scale
    }

    /// This seed for studies of very many seeds: the counters, the verdict, the store's peaks
    /// and its arrival summary, without latencies, timelines and samples. Its latencies rounded
    /// up to four significant digits (``roundedUp(_:)``) stay in memory for the file's totals
    /// (a compact file writes them once, summed over its seeds). Compacting twice changes nothing.
    public func compacted() -> SeedMeasurements {
        guard !isCompact else { return self }
        var copy = self
        copy.compactStorePeak = (storeBlobsMax, storeBytesMax)
        copy.compactArrival = arrival
        copy.isCompact = true
        var counts: [Int: Int] = [:]
        for pair in arrivalMilliseconds { counts[Self.roundedUp(pair.value), default: 0] += pair.count }
        copy.arrivalMilliseconds = counts.keys.sorted().map { ($0, counts[$0]!) }
        copy.storeSamples = []
        for index in copy.replicas.indices {
            copy.replicas[index].timeline = []
            copy.replicas[index].samples = []
        }
        return copy
    }

    public static func == (lhs: SeedMeasurements, rhs: SeedMeasurements) -> Bool { lhs.json == rhs.json }

    public var arrival: ArrivalSummary {
        compactArrival ?? ArrivalSummary(arrivalMilliseconds, neverArrived: neverArrived, arrivedInFinalPhase: arrivedInFinalPhase)
    }

    var json: JSONText {
        var store: [String: JSONText] = [
            "sampleIntervalMilliseconds": .integer(sampleIntervalMilliseconds),
            "blobs": .integer(storeBlobs), "bytes": .integer(storeBytes),
            "snapshotsWritten": .integer(snapshotsWritten), "snapshotsCollected": .integer(snapshotsCollected),
        ]
        if isCompact {
            store["blobsMax"] = .integer(storeBlobsMax)
            store["bytesMax"] = .integer(storeBytesMax)
        } else {
            store["samples"] = .array(storeSamples.map { .array([.integer($0.time), .integer($0.blobs), .integer($0.bytes)]) })
        }
        var members: [String: JSONText] = [
            "seed": .integer(Int(truncatingIfNeeded: seed)), "verdict": .string(verdict), "hash": .string(hash),
            "simulatedMilliseconds": .integer(simulatedMilliseconds), "finalPhaseMilliseconds": .integer(finalPhaseMilliseconds),
            "edits": .integer(edits), "editsLost": .integer(editsLost), "editsUncertain": .integer(editsUncertain),
            "arrival": arrival.json,
            "replicas": .array(replicas.map { $0.json(compact: isCompact) }),
            "store": .object(store),
        ]
        if !isCompact { members["arrivalMilliseconds"] = .array(arrivalMilliseconds.map { .array([.integer($0.value), .integer($0.count)]) }) }
        return .object(members)
    }

    init(seed: UInt64, verdict: String, hash: String, simulatedMilliseconds: Int) {
        self.seed = seed
        self.verdict = verdict
        self.hash = hash
        self.simulatedMilliseconds = simulatedMilliseconds
    }

    init?(json: JSONText) {
        guard let seed = json["seed"]?.int, seed >= 0, let verdict = json["verdict"]?.string, let hash = json["hash"]?.string,
            let simulated = json["simulatedMilliseconds"]?.int, let edits = json["edits"]?.int, let lost = json["editsLost"]?.int,
            let uncertain = json["editsUncertain"]?.int, let never = json["arrival"]?["neverArrived"]?.int,
            let late = json["arrival"]?["arrivedInFinalPhase"]?.int, let finalPhase = json["finalPhaseMilliseconds"]?.int,
            let replicas = json["replicas"]?.array, let store = json["store"],
            let interval = store["sampleIntervalMilliseconds"]?.int,
            let blobs = store["blobs"]?.int, let bytes = store["bytes"]?.int, let written = store["snapshotsWritten"]?.int,
            let collected = store["snapshotsCollected"]?.int
        else { return nil }
        let compact = json["arrivalMilliseconds"] == nil
        let samples: [JSONText]
        let latencies: [JSONText]
        var peak: (blobs: Int, bytes: Int)?
        var summary: ArrivalSummary?
        if compact {
            guard let blobsMax = store["blobsMax"]?.int, let bytesMax = store["bytesMax"]?.int, let arrival = json["arrival"].flatMap(ArrivalSummary.init(json:))
            else { return nil }
            (samples, latencies, peak, summary) = ([], [], (blobsMax, bytesMax), arrival)
        } else {
            guard let items = store["samples"]?.array, let pairs = json["arrivalMilliseconds"]?.array else { return nil }
            (samples, latencies) = (items, pairs)
        }
        self.init(seed: UInt64(seed), verdict: verdict, hash: hash, simulatedMilliseconds: simulated)
        (isCompact, compactStorePeak, compactArrival) = (compact, peak, summary)
        (self.edits, editsLost, editsUncertain, neverArrived) = (edits, lost, uncertain, never)
        (arrivedInFinalPhase, finalPhaseMilliseconds) = (late, finalPhase)
        for pair in latencies {
            guard let items = pair.array, items.count == 2, let value = items[0].int, let count = items[1].int else { return nil }
            arrivalMilliseconds.append((value, count))
        }
        for replica in replicas {
            guard let measured = ReplicaMeasurements(json: replica, compact: compact) else { return nil }
            self.replicas.append(measured)
        }
        sampleIntervalMilliseconds = interval
        for sample in samples {
            guard let items = sample.array, items.count == 3, let time = items[0].int, let count = items[1].int, let size = items[2].int else {
                return nil
            }
            storeSamples.append(StoreSample(time: time, blobs: count, bytes: size))
        }
        (storeBlobs, storeBytes, snapshotsWritten, snapshotsCollected) = (blobs, bytes, written, collected)
    }
}

/// The distribution of arrival latencies: nearest-rank percentiles of the values.
public struct ArrivalSummary: Equatable, Sendable {
    public var count = 0
    public var p50 = 0
    public var p90 = 0
    public var p99 = 0
    public var max = 0
    public var neverArrived = 0
    public var arrivedInFinalPhase = 0

    /// Upper bounds of the histogram's buckets (milliseconds); a last bucket holds the rest.
    public static let bucketBounds = [100, 1_000, 10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000, 604_800_000]
    public static let bucketLabels = ["<=100ms", "<=1s", "<=10s", "<=1min", "<=10min", "<=1h", "<=6h", "<=1d", "<=7d", ">7d"]
    /// How many latencies fall in each bucket.
    public var histogram: [Int] = Array(repeating: 0, count: 10)

    /// A summary as written (a compact seed's).
    init?(json: JSONText) {
        guard let count = json["count"]?.int, let p50 = json["p50Milliseconds"]?.int, let p90 = json["p90Milliseconds"]?.int,
            let p99 = json["p99Milliseconds"]?.int, let max = json["maxMilliseconds"]?.int, let never = json["neverArrived"]?.int,
            let late = json["arrivedInFinalPhase"]?.int, let buckets = json["histogram"]?.array, buckets.count == histogram.count
        else { return nil }
        var counts: [Int] = []
        for bucket in buckets {
            guard let value = bucket["count"]?.int else { return nil }
            counts.append(value)
        }
        (self.count, self.p50, self.p90, self.p99, self.max) = (count, p50, p90, p99, max)
        (neverArrived, arrivedInFinalPhase, histogram) = (never, late, counts)
    }

    init(_ pairs: [(value: Int, count: Int)], neverArrived: Int, arrivedInFinalPhase: Int) {
        self.neverArrived = neverArrived
        self.arrivedInFinalPhase = arrivedInFinalPhase
        count = pairs.reduce(0) { $0 + $1.count }
        guard count > 0 else { return }
        func percentile(_ p: Int) -> Int {
            let rank = (p * count + 99) / 100
            var seen = 0
            for pair in pairs {
                seen += pair.count
                if seen >= rank { return pair.value }
            }
            return pairs.last!.value
        }
        p50 = percentile(50)
        p90 = percentile(90)
        p99 = percentile(99)
        max = pairs.last!.value
        for pair in pairs {
            let bucket = Self.bucketBounds.firstIndex { pair.value <= $0 } ?? Self.bucketBounds.count
            histogram[bucket] += pair.count
        }
    }

    var json: JSONText {
        .object([
            "count": .integer(count), "p50Milliseconds": .integer(p50), "p90Milliseconds": .integer(p90),
            "p99Milliseconds": .integer(p99), "maxMilliseconds": .integer(max), "neverArrived": .integer(neverArrived),
            "arrivedInFinalPhase": .integer(arrivedInFinalPhase),
            "histogram": .array(
                histogram.indices.map { index in
                    .object([
                        "label": .string(Self.bucketLabels[index]), "count": .integer(histogram[index]),
                        "upToMilliseconds": index < Self.bucketBounds.count ? .integer(Self.bucketBounds[index]) : .null,
                    ])
                }),
        ])
    }
}

/// Sums over seeds.
public struct MeasurementTotals: Equatable, Sendable {
    public var seeds = 0
    public var failures = 0
    public var edits = 0
    public var editsLost = 0
    public var editsUncertain = 0
    public var arrival: ArrivalSummary
    /// Every replica of every seed, summed (``ReplicaMeasurements``' counters).
    public var replicaSums: [Int] = Array(repeating: 0, count: ReplicaMeasurements.counterKeys.count)
    public var snapshotsWritten = 0
    public var snapshotsCollected = 0
    /// The most blobs and bytes the store held in any sample or at the end of any seed.
    public var storeBlobsMax = 0
    public var storeBytesMax = 0

    init(_ seeds: [SeedMeasurements], roundedArrivals: [Int: Int] = [:]) {
        var counts = roundedArrivals
        var never = 0
        var late = 0
        for seed in seeds {
            self.seeds += 1
            if seed.verdict != "ok" { failures += 1 }
            edits += seed.edits
            editsLost += seed.editsLost
            editsUncertain += seed.editsUncertain
            never += seed.neverArrived
            late += seed.arrivedInFinalPhase
            for pair in seed.arrivalMilliseconds { counts[pair.value, default: 0] += pair.count }
            for replica in seed.replicas {
                for (index, value) in replica.counters.enumerated() { replicaSums[index] += value }
            }
            snapshotsWritten += seed.snapshotsWritten
            snapshotsCollected += seed.snapshotsCollected
            storeBlobsMax = Swift.max(storeBlobsMax, seed.storeBlobsMax)
            storeBytesMax = Swift.max(storeBytesMax, seed.storeBytesMax)
        }
        arrival = ArrivalSummary(counts.keys.sorted().map { ($0, counts[$0]!) }, neverArrived: never, arrivedInFinalPhase: late)
    }

    var json: JSONText {
        var replicas: [String: JSONText] = [:]
        for (key, value) in zip(ReplicaMeasurements.counterKeys, replicaSums) { replicas[key] = .integer(value) }
        return .object([
            "seeds": .integer(seeds), "failures": .integer(failures), "edits": .integer(edits), "editsLost": .integer(editsLost),
            "editsUncertain": .integer(editsUncertain), "arrival": arrival.json, "replicas": .object(replicas),
            "store": .object([
                "snapshotsWritten": .integer(snapshotsWritten), "snapshotsCollected": .integer(snapshotsCollected),
                "blobsMax": .integer(storeBlobsMax), "bytesMax": .integer(storeBytesMax),
            ]),
        ])
    }
}
