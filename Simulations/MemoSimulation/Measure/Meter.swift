import MemoCRDT
import MemoSync

/// Records a run's measurements (issue 30) from hooks where the simulation already observes
/// what happens: local edits, versions as operations arrive, store operations, syncs, crashes,
/// faults, and the store's size as time passes. It only reads: it draws no random numbers and
/// writes nothing to the event log, so a run's behaviour and hash are the same with and
/// without it (`MeasurementTests` checks).
public final class Meter {
    /// The store's size is sampled at every multiple of this many simulated milliseconds.
    public let sampleIntervalMilliseconds: UInt64
    public static let defaultSampleIntervalMilliseconds: UInt64 = 3_600_000

    enum EditState: UInt8 { case normal, lost, uncertain }

    struct Edit {
        var time: UInt64
        var peer: Int
        var replica: ReplicaID
        var counter: UInt32
        var state: EditState = .normal
    }

    let peerCount: Int
    var edits: [Edit] = []
    /// `arrivals[edit * peerCount + peer]`: when the edit arrived there (`.max`: not yet).
    var arrivals: [UInt64] = []
    /// Parallel to `arrivals`: whether the arrival came in the final phase.
    var arrivedInFinalPhase: [Bool] = []
    /// Each replica id's edits, in the order made (counters ascending).
    var editsByReplica: [ReplicaID: [Int]] = [:]
    /// Per peer and replica id: how many of that id's edits it was checked for already.
    var cursors: [[ReplicaID: Int]]
    var startedAt: [UInt64?]
    var syncStartedAt: [UInt64?]
    var downSince: [UInt64?]
    var replicas: [ReplicaMeasurements]
    var nextSampleAt: UInt64 = 0
    var samples: [StoreSample] = []
    var snapshotsWritten = 0
    var snapshotsCollected = 0
    var finalTime: UInt64 = 0
    var finalBlobs = 0
    var finalBytes = 0
    var liveAtEnd: [Bool]
    /// When the final phase began (nil: the run stopped before it).
    var finalPhaseStart: UInt64?

    /// A meter for a run of `peerCount` replicas.
    public init(peerCount: Int, sampleIntervalMilliseconds: UInt64 = Meter.defaultSampleIntervalMilliseconds) {
        self.peerCount = peerCount
        self.sampleIntervalMilliseconds = max(1, sampleIntervalMilliseconds)
        cursors = Array(repeating: [:], count: peerCount)
        startedAt = Array(repeating: nil, count: peerCount)
        syncStartedAt = Array(repeating: nil, count: peerCount)
        downSince = Array(repeating: nil, count: peerCount)
        replicas = (0..<peerCount).map { ReplicaMeasurements(replica: $0) }
        liveAtEnd = Array(repeating: false, count: peerCount)
    }

    func mark(_ peer: Int, _ from: UInt64, _ to: UInt64, _ kind: String) {
        replicas[peer].timeline.append(TimelineEntry(from: Int(from), to: Int(to), kind: kind))
    }

    // MARK: Edits and arrivals

    /// `peer` made an edit at `time` whose last operation is `counter` of `replica`.
    func edit(peer: Int, at time: UInt64, replica: ReplicaID, counter: UInt32) {
        edits.append(Edit(time: time, peer: peer, replica: replica, counter: counter))
        arrivals.append(contentsOf: repeatElement(.max, count: peerCount))
        arrivedInFinalPhase.append(contentsOf: repeatElement(false, count: peerCount))
        editsByReplica[replica, default: []].append(edits.count - 1)
        replicas[peer].edits += 1
        mark(peer, time, time, "edit")
    }

    /// `peer` holds `version` at `time`: every edit it covers has arrived (if not before).
    func observe(peer: Int, version: VersionVector, at time: UInt64) {
        for entry in version.entries {
            guard let list = editsByReplica[entry.replica] else { continue }
            var cursor = cursors[peer][entry.replica] ?? 0
            while cursor < list.count, edits[list[cursor]].counter <= entry.operationCount {
                let slot = list[cursor] * peerCount + peer
                if arrivals[slot] == .max {
                    arrivals[slot] = time
                    arrivedInFinalPhase[slot] = finalPhaseStart != nil
                }
                cursor += 1
            }
            cursors[peer][entry.replica] = cursor
        }
    }

    /// `replica`'s edits past `kept` operations were lost (a crash before they were saved):
    /// their counters will be used again, by other edits.
    func lose(replica: ReplicaID, keptOperations kept: UInt32) {
        guard var list = editsByReplica[replica] else { return }
        while let last = list.last, edits[last].counter > kept {
            edits[last].state = .lost
            list.removeLast()
        }
        editsByReplica[replica] = list
        for peer in 0..<peerCount {
            if let cursor = cursors[peer][replica], cursor > list.count { cursors[peer][replica] = list.count }
        }
    }

    /// `peer`'s edits not held in `version` may never arrive (its library was replaced by a
    /// backup, or it left for good: nil).
    func makeUncertain(peer: Int, beyond version: VersionVector?) {
        for index in edits.indices where edits[index].peer == peer && edits[index].state == .normal {
            if let version, edits[index].counter <= version[edits[index].replica] { continue }
            edits[index].state = .uncertain
        }
    }

    // MARK: Replicas

    func started(peer: Int, at time: UInt64) {
        if startedAt[peer] == nil { startedAt[peer] = time }
        mark(peer, time, time, "join")
    }

    func syncStarted(peer: Int, at time: UInt64) {
        syncStartedAt[peer] = time
    }

    func syncFinished(peer: Int, at time: UInt64) {
        replicas[peer].syncs += 1
        mark(peer, syncStartedAt[peer] ?? time, time, "sync")
        syncStartedAt[peer] = nil
    }

    /// A sync in progress ended without finishing (a crash, a restore, a departure).
    func syncCut(peer: Int, at time: UInt64) {
        guard let start = syncStartedAt[peer] else { return }
        mark(peer, start, time, "sync-cut")
        syncStartedAt[peer] = nil
    }

    func crashed(peer: Int, at time: UInt64) {
        syncCut(peer: peer, at: time)
        replicas[peer].crashes += 1
        downSince[peer] = time
    }

    func restarted(peer: Int, at time: UInt64) {
        mark(peer, downSince[peer] ?? time, time, "down")
        downSince[peer] = nil
    }

    /// A fault or event lasting from `time` to `until` (a moment when equal).
    func fault(peer: Int, at time: UInt64, until: UInt64? = nil, _ kind: String) {
        mark(peer, time, until ?? time, kind)
    }

    // MARK: The store

    /// `reader` performed `action` on the store, with `result`.
    func storeOperation(reader: Int, _ action: SyncAction, _ result: SyncResult) {
        switch (action, result) {
        case (.list, .listed):
            replicas[reader].listings += 1
        case let (.read, .read(bytes)):
            replicas[reader].blobsRead += 1
            replicas[reader].bytesRead += bytes.count
        case let (.write(key, bytes), .done):
            replicas[reader].blobsWritten += 1
            replicas[reader].bytesWritten += bytes.count
            if case .snapshot? = StoreLayout.parse(key) { snapshotsWritten += 1 }
        case let (.delete(key), .done):
            replicas[reader].blobsDeleted += 1
            if case .snapshot? = StoreLayout.parse(key) { snapshotsCollected += 1 }
        case (_, .failed):
            replicas[reader].operationsFailed += 1
        default:
            break
        }
    }

    /// Time is about to reach `time`, and the store holds `blobs` blobs of `bytes` bytes:
    /// samples every interval boundary up to `time` with them (what the store held at the
    /// start of that millisecond).
    /// `replicas` gives each replica's held-back operations and library bytes, asked only
    /// when a boundary is crossed.
    func observeStore(at time: UInt64, blobs: Int, bytes: Int, replicas states: () -> [(heldBack: Int, libraryBytes: Int)] = { [] }) {
        guard nextSampleAt <= time else { return }
        let states = states()
        while nextSampleAt <= time {
            samples.append(StoreSample(time: Int(nextSampleAt), blobs: blobs, bytes: bytes))
            for (peer, state) in states.enumerated() where peer < replicas.count {
                replicas[peer].samples.append(ReplicaSample(time: Int(nextSampleAt), heldBack: state.heldBack, libraryBytes: state.libraryBytes))
            }
            nextSampleAt += sampleIntervalMilliseconds
        }
    }

    // MARK: The end

    /// The final phase begins: faults stop and every replica syncs until quiet, after which
    /// time jumps past clock skews and grace periods. Arrivals from now on are counted apart.
    func finalPhaseBegins(at time: UInt64) {
        finalPhaseStart = time
    }

    /// The run ended at `time`: which replicas are live, what the store holds.
    func finish(at time: UInt64, live: [Bool], blobs: Int, bytes: Int) {
        observeStore(at: time, blobs: blobs, bytes: bytes)
        for peer in 0..<peerCount {
            syncCut(peer: peer, at: time)
            if let since = downSince[peer] { mark(peer, since, time, "down") }
            downSince[peer] = nil
        }
        finalTime = time
        liveAtEnd = live
        finalBlobs = blobs
        finalBytes = bytes
    }

    /// The measurements of the run that gave `result`.
    public func measurements(for result: SimulationResult) -> SeedMeasurements {
        measurements(
            seed: result.trace.parameters.seed, verdict: result.violation?.invariant.rawValue ?? "ok", hash: EventLog.hex(result.hash),
            simulatedMilliseconds: Int(result.statistics.simulatedMilliseconds))
    }

    func measurements(seed number: UInt64, verdict: String, hash: String, simulatedMilliseconds: Int) -> SeedMeasurements {
        var seed = SeedMeasurements(seed: number, verdict: verdict, hash: hash, simulatedMilliseconds: simulatedMilliseconds)
        var replicas = self.replicas
        var counts: [Int: Int] = [:]
        for (index, edit) in edits.enumerated() {
            seed.edits += 1
            switch edit.state {
            case .lost: seed.editsLost += 1; continue
            case .uncertain: seed.editsUncertain += 1
            case .normal: break
            }
            for peer in 0..<peerCount where peer != edit.peer {
                guard let start = startedAt[peer] else { continue }
                let arrival = arrivals[index * peerCount + peer]
                if arrival == .max {
                    if edit.state == .normal && liveAtEnd[peer] {
                        seed.neverArrived += 1
                        replicas[peer].neverArrived += 1
                    }
                    continue
                }
                if arrivedInFinalPhase[index * peerCount + peer] {
                    seed.arrivedInFinalPhase += 1
                    replicas[peer].arrivedInFinalPhase += 1
                    continue
                }
                let from = max(edit.time, start)
                counts[Int(arrival >= from ? arrival - from : 0), default: 0] += 1
                replicas[peer].arrivals += 1
            }
        }
        seed.arrivalMilliseconds = counts.keys.sorted().map { ($0, counts[$0]!) }
        seed.replicas = replicas
        seed.finalPhaseMilliseconds = finalPhaseStart.map { Int($0) } ?? -1
        seed.sampleIntervalMilliseconds = Int(sampleIntervalMilliseconds)
        seed.storeSamples = samples
        seed.storeBlobs = finalBlobs
        seed.storeBytes = finalBytes
        seed.snapshotsWritten = snapshotsWritten
        seed.snapshotsCollected = snapshotsCollected
        return seed
    }
}
