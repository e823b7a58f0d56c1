import Synchronization
import MemoCRDT
// A decoded notebook state must be one the engine could have produced (FORMAT.md, "What a reader
// checks"; issue 25): its history applies whole to a replica that starts empty. Each replica's
// log is applied in counter order; a run waits for its memo's creation (text, trash, restore,
// purge), for the text operations its trash or purge saw, and a text operation for the text
// operations it builds on. A state whose logs wait on each other in a circle decodes to readable
// memos, but a peer that receives its history as a delta holds it back forever.

extension Notebook {
    /// Checks, after a decode, that this notebook's history applies whole to a replica that
    /// starts empty, without decoding the memos' texts when it can: `timelines` holds, per memo
    /// index (the state's memo order, which is the table's), the Lamport runs of each replica's
    /// text operations in that memo.
    ///
    /// First a schedule is sought in which a text operation waits for every operation of its
    /// memo with a smaller Lamport timestamp (more than it needs: whatever it builds on is older,
    /// which the text decoder checks when the memo is first used). Every history this engine
    /// writes has one, as a replica's clock passes everything it holds. When none is found, the
    /// history itself is applied to an empty notebook (decoding every memo), and the state is
    /// refused unless that holds nothing back and reaches the same version.
    ///
    /// - Throws: `DecodingError.malformed` when the history does not apply.
    /// - Complexity: O(n r) for n notebook runs and Lamport runs and r replicas in a memo, when a
    ///   schedule is found.
    func checkHistoryApplies(timelines: TextCRDT.LamportTimelines) throws(DecodingError) {
        let scheduled = lamportScheduleExists(timelines: timelines)
        #if MEMOSYNC_INTERNAL_CHECKS
        HistoryCheckObserver.current?.record(scheduleFound: scheduled)
        #endif
        if scheduled { return }
        let history: NotebookDelta
        do {
            history = try changes(since: VersionVector())
        } catch {
            throw .malformed("its history cannot be read (\(error))")
        }
        var replicaID = ReplicaID(replica.rawValue &+ 1)
        while logs[replicaID] != nil { replicaID = ReplicaID(replicaID.rawValue &+ 1) }
        var peer = Notebook(replica: replicaID)
        do {
            _ = try peer.applyWithoutEvents(history)
        } catch {
            throw .malformed("its history does not apply to an empty notebook (\(error))")
        }
        guard peer.pendingOperationCount == 0, peer.version == version else {
            throw .malformed("an empty notebook given its history holds \(peer.pendingOperationCount) operations back")
        }
    }

    /// Whether the notebook's runs can all be applied, replica log by replica log, when a text
    /// operation waits for every text operation of its memo with a smaller Lamport timestamp.
    private func lamportScheduleExists(timelines: TextCRDT.LamportTimelines) -> Bool {
        guard timelines.textCount == memos.count else { return false }
        var gate = LamportGate(timelines: timelines)
        let replicas = logs.keys.sorted()
        let replicaLogs = replicas.map { logs[$0]!.runs }
        // Each run's memo index, found once (a run that waits is tried again).
        var memoIndexes: [[Int]] = []
        memoIndexes.reserveCapacity(replicaLogs.count)
        for runs in replicaLogs {
            var indexes: [Int] = []
            indexes.reserveCapacity(runs.count)
            for run in runs {
                guard let memo = memos.index(of: run.memo) else { return false }
                indexes.append(memo)
            }
            memoIndexes.append(indexes)
        }
        var heads = [Int](repeating: 0, count: replicas.count)
        // Operations of the head run applied so far (text runs apply in parts).
        var done = [UInt32](repeating: 0, count: replicas.count)
        // What holds a run back is always its own memo (its creation, the other replicas'
        // operations there), so a replica whose next run waits is tried again only once that
        // memo moved. Applying never tightens what another run waits for, so the order in
        // which replicas are tried does not change the answer.
        var ready = Array(replicas.indices.reversed())
        var waiting = [[Int]](repeating: [], count: memos.records.count)
        while let position = ready.popLast() {
            while heads[position] < replicaLogs[position].count {
                let run = replicaLogs[position][heads[position]]
                let memo = memoIndexes[position][heads[position]]
                let applied = gate.apply(run, from: replicas[position], skipping: done[position], memo: memo)
                if applied == 0 {
                    waiting[memo].append(position)
                    break
                }
                done[position] += applied
                if done[position] == run.length {
                    heads[position] += 1
                    done[position] = 0
                }
                if !waiting[memo].isEmpty {
                    ready.append(contentsOf: waiting[memo].reversed())
                    waiting[memo].removeAll(keepingCapacity: true)
                }
            }
        }
        return zip(heads, replicaLogs).allSatisfy { $0 == $1.count }
    }
}

/// The state of a schedule sought by `lamportScheduleExists`: which memos are created, and per
/// memo and replica (a lane), how many of its text operations are applied. Every lane's runs
/// are in the flat arrays of the timelines it was made from (no array per memo or lane: at
/// 100,000 memos those were most of the check's time).
private struct LamportGate {
    /// One replica's text operations in one memo: how many there are and are applied, and the
    /// Lamport run holding operation `applied` (an index into the flat runs, below `runsEnd`).
    struct Lane {
        var replica: ReplicaID
        var runsEnd: Int
        var total: UInt32
        var applied: UInt32 = 0
        var runIndex: Int
    }

    var created: [Bool]
    /// The lanes of memo `m` are `laneStarts[m] ..< laneStarts[m + 1]`.
    let laneStarts: [Int]
    var lanes: [Lane]
    let counters: [UInt32]
    let lamports: [UInt64]
    /// Per run, the smallest timestamp from it to its lane's end (a hostile state's need not
    /// rise).
    let suffixMinimum: [UInt64]

    init(timelines: TextCRDT.LamportTimelines) {
        created = [Bool](repeating: false, count: timelines.textCount)
        laneStarts = timelines.laneStarts
        counters = timelines.runCounters
        lamports = timelines.runLamports
        var minimum = [UInt64](repeating: .max, count: lamports.count)
        var lanes: [Lane] = []
        lanes.reserveCapacity(timelines.laneReplicas.count)
        for memo in 0..<timelines.textCount {
            for lane in timelines.lanes(ofText: memo) {
                let runs = timelines.runs(ofLane: lane)
                var smallest = UInt64.max
                for index in runs.reversed() {
                    smallest = min(smallest, lamports[index])
                    minimum[index] = smallest
                }
                let replica = timelines.laneReplicas[lane]
                lanes.append(
                    Lane(replica: replica, runsEnd: runs.upperBound, total: timelines.laneOperationCounts[lane], runIndex: runs.lowerBound))
            }
        }
        self.lanes = lanes
        suffixMinimum = minimum
    }

    /// The smallest timestamp of an operation of `lane` not applied yet (UInt64.max: none).
    func nextLamport(_ lane: Lane) -> UInt64 {
        guard lane.applied < lane.total else { return .max }
        let here = lamports[lane.runIndex] + UInt64(lane.applied - counters[lane.runIndex])
        return lane.runIndex + 1 < lane.runsEnd ? min(here, suffixMinimum[lane.runIndex + 1]) : here
    }

    /// Where the Lamport run holding operation `applied` of `lane` ends.
    func runEnd(_ lane: Lane) -> UInt32 { lane.runIndex + 1 < lane.runsEnd ? counters[lane.runIndex + 1] : lane.total }

    /// The lane of `replica` in `memo`, if it has one.
    func lane(of replica: ReplicaID, inMemo memo: Int) -> Int? {
        (laneStarts[memo]..<laneStarts[memo + 1]).first { lanes[$0].replica == replica }
    }

    /// Applies what it can of `run` of `replica` (on memo index `memo`), whose first `skipping`
    /// operations are applied already; returns how many it applied (0: it waits).
    mutating func apply(_ run: NotebookRun, from replica: ReplicaID, skipping: UInt32, memo: Int) -> UInt32 {
        switch run.kind {
        case .create:
            created[memo] = true
            return 1
        case .restore:
            return created[memo] ? 1 : 0
        case let .trash(seen), let .purge(seen):
            guard created[memo] else { return 0 }
            for entry in seen.entries {
                guard let lane = lane(of: entry.replica, inMemo: memo), lanes[lane].applied >= entry.operationCount else { return 0 }
            }
            return 1
        case let .text(textCounter):
            guard created[memo], let own = lane(of: replica, inMemo: memo) else { return 0 }
            let lane = lanes[own]
            // The text operations of one replica in one memo are applied in order.
            guard lane.applied == textCounter + skipping, lane.applied < lane.total else { return 0 }
            let lamport = lamports[lane.runIndex] + UInt64(lane.applied - counters[lane.runIndex])
            var bound = UInt64.max
            for other in laneStarts[memo]..<laneStarts[memo + 1] where other != own { bound = min(bound, nextLamport(lanes[other])) }
            guard lamport <= bound else { return 0 }
            // Within one Lamport run the timestamps rise by one: every operation up to `bound`.
            var count = UInt64(min(run.length - skipping, runEnd(lane) - lane.applied))
            if bound != .max { count = min(count, bound - lamport + 1) }
            lanes[own].applied += UInt32(count)
            while lanes[own].runIndex + 1 < lane.runsEnd && counters[lanes[own].runIndex + 1] <= lanes[own].applied {
                lanes[own].runIndex += 1
            }
            return UInt32(count)
        }
    }
}

#if MEMOSYNC_INTERNAL_CHECKS
/// Self-check builds: what the history checks of the notebook decodes made while one is bound
/// (a test binds one to see which answered by a Lamport schedule and which applied the history).
package final class HistoryCheckObserver: Sendable {
    @TaskLocal package static var current: HistoryCheckObserver?

    private let answers = Mutex<[Bool]>([])

    package init() {}

    /// Per decode that reached the check, in order: whether a Lamport schedule was found (else
    /// the history was applied to an empty notebook).
    package var schedulesFound: [Bool] { answers.withLock { $0 } }

    func record(scheduleFound: Bool) { answers.withLock { $0.append(scheduleFound) } }
}
#endif
