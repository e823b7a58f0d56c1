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
    func checkHistoryApplies(timelines: [[TextCRDT.LamportTimeline]]) throws(DecodingError) {
        if lamportScheduleExists(timelines: timelines) { return }
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
    private func lamportScheduleExists(timelines: [[TextCRDT.LamportTimeline]]) -> Bool {
        var gate = LamportGate(timelines: timelines, versions: memos.records.map(\.text.version))
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
/// memo and replica, how many of its text operations are applied.
private struct LamportGate {
    /// One replica's text operations in one memo: their Lamport runs, how many are applied, and
    /// per Lamport run the smallest timestamp from it on (a hostile state's need not rise).
    struct Lane {
        var replica: ReplicaID
        var runs: [(counter: UInt32, lamport: UInt64)]
        var suffixMinimum: [UInt64]
        var total: UInt32
        var applied: UInt32 = 0
        /// The Lamport run holding operation `applied`.
        var runIndex = 0

        /// The smallest timestamp of an operation not applied yet (UInt64.max: none).
        var nextLamport: UInt64 {
            guard applied < total else { return .max }
            let run = runs[runIndex]
            let here = run.lamport + UInt64(applied - run.counter)
            return runIndex + 1 < runs.count ? min(here, suffixMinimum[runIndex + 1]) : here
        }

        /// Where the Lamport run holding operation `applied` ends.
        var runEnd: UInt32 { runIndex + 1 < runs.count ? runs[runIndex + 1].counter : total }

        mutating func advance(by count: UInt32) {
            applied += count
            while runIndex + 1 < runs.count && runs[runIndex + 1].counter <= applied { runIndex += 1 }
        }
    }

    var created: [Bool]
    var lanes: [[Lane]]

    /// `versions`: per memo index, its text version (each lane's operation count).
    init(timelines: [[TextCRDT.LamportTimeline]], versions: [VersionVector]) {
        created = [Bool](repeating: false, count: timelines.count)
        lanes = zip(timelines, versions).map { timeline, version in
            timeline.compactMap { entry -> Lane? in
                guard !entry.runs.isEmpty else { return nil }
                var minimum = [UInt64](repeating: .max, count: entry.runs.count)
                var smallest = UInt64.max
                for index in entry.runs.indices.reversed() {
                    smallest = min(smallest, entry.runs[index].lamport)
                    minimum[index] = smallest
                }
                return Lane(replica: entry.replica, runs: entry.runs, suffixMinimum: minimum, total: version[entry.replica])
            }
        }
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
                guard let lane = lanes[memo].first(where: { $0.replica == entry.replica }),
                    lane.applied >= entry.operationCount
                else { return 0 }
            }
            return 1
        case let .text(textCounter):
            guard created[memo], let own = lanes[memo].firstIndex(where: { $0.replica == replica }) else { return 0 }
            let lane = lanes[memo][own]
            // The text operations of one replica in one memo are applied in order.
            guard lane.applied == textCounter + skipping, lane.applied < lane.total else { return 0 }
            let lamportRun = lane.runs[lane.runIndex]
            let lamport = lamportRun.lamport + UInt64(lane.applied - lamportRun.counter)
            var bound = UInt64.max
            for (index, other) in lanes[memo].enumerated() where index != own { bound = min(bound, other.nextLamport) }
            guard lamport <= bound else { return 0 }
            // Within one Lamport run the timestamps rise by one: every operation up to `bound`.
            var count = UInt64(min(run.length - skipping, lane.runEnd - lane.applied))
            if bound != .max { count = min(count, bound - lamport + 1) }
            lanes[memo][own].advance(by: UInt32(count))
            return UInt32(count)
        }
    }
}
