import MemoCRDT
import MemoNotes
import MemoSync

// The final phase (faults stop, clocks are set right, every live replica syncs until quiet,
// time passes the grace period so garbage collection runs) and the final checks.

extension Simulation {
    /// Rounds of syncs after which the replicas must be quiet.
    static let quietRoundsMax = 12

    func runFinalPhase() {
        isFinalPhase = true
        meter?.finalPhaseBegins(at: now)
        record(nil, .final) { "final phase: faults stop" }
        store?.faultsEnabled = false
        store?.fullUntilMilliseconds = 0
        // Another library's key blob stops every sync: its user deletes it (then the libraries
        // put theirs back).
        if storeKeyBlob == .foreign { storeKeyBlob = .none }
        for peer in peers {
            peer.offlineUntil = 0
            peer.disk.crashAfterOperations = nil
            peer.storeCrashCountdown = nil
        }
        // Syncs in progress end, crashed replicas restart, deltas in flight arrive.
        crashStoppedDisks()
        while violation == nil, let (time, event) = queue.pop() {
            now = max(now, time)
            handle(event)
            crashStoppedDisks()
        }
        guard violation == nil else { return }
        // Every clock is set right, after the highest time any of them showed.
        let highest = peers.map(\.box.highestWallMilliseconds).max() ?? 0
        for peer in peers { peer.clock = SimulatedClock() }
        if highest > SimulatedClock.epochMilliseconds { now = max(now, highest - SimulatedClock.epochMilliseconds + 1) }
        if let store { now = max(now, store.settledAfterMilliseconds + 1) }
        guard parameters.engine == .replica else { return exchangeUntilQuiet() }
        syncUntilQuiet()
        // Twice past the grace period: the first collects what the last rounds covered, the
        // second what snapshots written meanwhile cover.
        for _ in 0..<2 where violation == nil {
            now += parameters.gracePeriodMilliseconds + SimulatedTime.minute
            store?.prune(now: now)
            syncUntilQuiet()
        }
        if violation == nil && parameters.rate(.junkNames) > 0 { checkJunkCostsNothing() }
    }

    /// The junk-names fault's oracle (issue 25): once the replicas are quiet, junk costs a sync
    /// nothing beyond its listing. Two more rounds of syncs: the first may still read junk
    /// found bad once only (read again to see it is bad for good); in the second, no sync
    /// reads a junk file, and none reads a snapshot (every snapshot listed was read before or
    /// is known to hold nothing the reader lacks, though junk segment names claim operations
    /// nobody holds) or writes anything.
    func checkJunkCostsNothing() {
        guard let store else { return }
        for round in 0..<2 {
            for peer in peers where peer.status == .live {
                let before = store.statistics
                guard let report = syncToCompletion(peer) else {
                    if violation != nil { return }
                    continue
                }
                let after = store.statistics
                guard round == 1 else { continue }
                let junkReads = after.junkReads - before.junkReads
                let snapshotReads = after.snapshotReads - before.snapshotReads
                if junkReads > 0 || snapshotReads > 0 || report.blobsWritten > 0 {
                    return fail(
                        .quiescence, [peer.index],
                        "with \(store.junkKeys.count) junk files in the store, a sync of a quiet replica read \(junkReads) of them and \(snapshotReads) snapshots, and wrote \(report.blobsWritten) blobs")
                }
            }
        }
    }

    /// Every live replica syncs in turn until a round changes nothing.
    func syncUntilQuiet() {
        for round in 0..<Self.quietRoundsMax {
            var changed = false
            for peer in peers where peer.status == .live {
                guard let report = syncToCompletion(peer) else {
                    if violation != nil { return }
                    continue
                }
                if report.operationsApplied > 0 || report.blobsWritten > 0 || report.blobsDeleted > 0
                    || report.pendingOperationCount > heldBackForGood(peer) || !report.errors.isEmpty
                {
                    changed = true
                }
            }
            record(nil, .final, UInt64(round), changed ? 1 : 0) { "quiet round \(round): \(changed ? "changes" : "quiet")" }
            if !changed { return }
        }
        let stuck = livePeers.filter { peer in peer.replica.map { $0.notebook.pendingOperationCount > heldBackForGood(peer) } ?? false }
        fail(
            .quiescence, livePeers.map(\.index),
            "syncs still change something after \(Self.quietRoundsMax) rounds; held back: \(stuck.map { "r\($0.index) \($0.notebook.pendingOperationCount)" })")
    }

    /// Notebook level: everyone hands a hub what it lacks, the hub hands everyone what they lack.
    func exchangeUntilQuiet() {
        for _ in 0..<Self.quietRoundsMax {
            let live = livePeers
            guard let hub = live.first else { return }
            for peer in live.dropFirst() where violation == nil { deliverDirectly(from: peer, to: hub) }
            for peer in live.dropFirst() where violation == nil { deliverDirectly(from: hub, to: peer) }
            if violation != nil { return }
            if live.allSatisfy({ $0.notebook.version == hub.notebook.version && $0.notebook.pendingOperationCount == 0 }) { return }
        }
        let stuck = livePeers.filter { $0.notebook.pendingOperationCount > 0 }
        fail(
            .quiescence, livePeers.map(\.index),
            "deltas still change something after \(Self.quietRoundsMax) rounds; held back: \(stuck.map { "r\($0.index) \($0.notebook.pendingOperationCount)" })")
    }

    /// The operations `peer`'s library may hold back for good: those of its ids whose unpublished
    /// operations bit rot took (`Simulation.rotRecord`), which build on what is gone. Every
    /// other held-back operation is a failure at quiescence.
    func heldBackForGood(_ peer: Peer) -> Int {
        guard let replica = peer.replica else { return 0 }
        return peer.idsRotBeforePublishing.reduce(0) { $0 + replica.notebook.pendingOperationCount(of: $1) }
    }

    // MARK: Final checks

    func checkFinalState() {
        let live = livePeers
        guard let first = live.first else { return }
        let reference = first.notebook
        // Causality: nothing held back, internal invariants.
        for peer in live {
            let notebook = peer.notebook
            if notebook.pendingOperationCount > heldBackForGood(peer) {
                return fail(
                    .causality, [peer.index],
                    "\(notebook.pendingOperationCount) operations still held back for missing dependencies at quiescence"
                        + (peer.idsRotBeforePublishing.isEmpty ? "" : " (\(heldBackForGood(peer)) of them of ids bit rot took unpublished operations of)"))
            }
            do throws(MemoCRDT.InvariantViolation) {
                try notebook.checkInvariants()
            } catch {
                return fail(.causality, [peer.index], "internal invariant broken: \(error)")
            }
        }
        // Convergence: the same operations, memos, texts and bytes everywhere. Bytes without
        // history: each library keeps deleted content for its own retention period (issue 27),
        // which never changes what converges.
        // Encoded keeping the text bodies (the bytes of `encoded()`), so that the states without
        // history below copy those bodies instead of encoding every text again.
        var referenceKeepingBodies = reference
        let bytes = referenceKeepingBodies.encodedKeepingTextBodies()
        var convergedBytes: [UInt8]?
        // The reference's versions and past texts, computed once for every peer compared.
        var referenceVersions: [MemoID: [MemoVersion]?] = [:]
        var referenceTexts: [MemoID: [Int: Result<String, HistoryRefusal>]] = [:]
        for peer in live.dropFirst() {
            var notebook = peer.notebook
            if notebook.version != reference.version {
                return fail(.convergence, [first.index, peer.index], "after the final phase: \(reference.version) vs \(notebook.version)")
            }
            if notebook.encodedKeepingTextBodies() != bytes {
                if convergedBytes == nil { convergedBytes = Self.withoutHistory(referenceKeepingBodies) }
                if Self.withoutHistory(notebook) != convergedBytes {
                    return fail(.convergence, [first.index, peer.index], "the same operations encode differently")
                }
            }
            if notebook.memoIDs != reference.memoIDs || notebook.list().map(\.id) != reference.list().map(\.id) {
                return fail(.convergence, [first.index, peer.index], "different memo lists")
            }
            // History (issue 27): the same operations list the same versions of every memo, and
            // show the same text at a few of them where both still keep what it needs (each
            // library drops deleted content after its own retention period: then a typed
            // refusal, never another text); the newest version is the memo's text.
            for id in reference.memoIDs {
                if referenceVersions[id] == nil { referenceVersions[id] = .some(try? reference.versions(of: id)) }
                let versions = referenceVersions[id]!
                if (try? notebook.versions(of: id)) != versions {
                    return fail(.convergence, [first.index, peer.index], "memo \(id): different versions")
                }
                let listed = versions ?? []
                for index in stride(from: listed.count - 1, through: 0, by: -max(1, listed.count / 4)) {
                    let cut = listed[index].cut
                    let theirs = Self.historyText(notebook, id, cut)
                    let ours: Result<String, HistoryRefusal>
                    if let known = referenceTexts[id]?[index] {
                        ours = known
                    } else {
                        ours = Self.historyText(reference, id, cut)
                        referenceTexts[id, default: [:]][index] = ours
                    }
                    for result in [theirs, ours] {
                        switch result {
                        case let .success(text): if text != notebook.memo(id)?.text { sometimes.insert(.historyShown) }
                        case .failure(.notRetained): sometimes.insert(.historyDropped)
                        case .failure: break
                        }
                    }
                    if case let .success(text) = theirs, case let .success(other) = ours, text == other { continue }
                    if case .failure(.notRetained) = theirs { continue }
                    if case .failure(.notRetained) = ours { continue }
                    if theirs == ours { continue }
                    return fail(.convergence, [first.index, peer.index], "memo \(id): different texts at version \(listed[index].shortName): \(theirs) vs \(ours)")
                }
                if let newest = listed.last, let memo = notebook.memo(id), Self.historyText(notebook, id, newest.cut) != .success(memo.text) {
                    return fail(.convergence, [peer.index], "memo \(id): the newest version \(newest.shortName) is not the memo's text")
                }
            }
        }
        if parameters.engine == .replica { checkHistorySaved(live) }
        guard violation == nil else { return }
        // Each replica's model (its edits and the events it reported) matches its texts.
        for peer in live {
            for m in 0..<oracle.memos.count where violation == nil { verifyMemo(peer, m, as: .events) }
            if violation != nil { return }
        }
        log.mix(StoreLayout.hash(bytes))
        if oracle.pendingCount > 0 {
            return fail(.durability, [], "\(oracle.pendingCount) effects were never saved though every replica saved")
        }
        checkCharacters(in: reference, peers: live.map(\.index))
        guard violation == nil else { return }
        checkRuns(in: reference)
        guard violation == nil else { return }
        if parameters.engine == .replica { checkBounded(reference: reference, encodedBytes: bytes.count) }
        if let store {
            log.mix(store.blobCount)
            log.mix(store.totalBytes)
        }
    }

    /// History kept through the library's own files (issue 27): every replica saved at the end,
    /// so its library read from its disk (as an open reads it) holds the replica's operations and
    /// shows the same past at a quarter of each memo's versions: the same text where both show
    /// one, and never a text the replica dropped for its retention period (a save that drops
    /// compacts). Nor less: a run whose content arrived in part (two deliveries, the sender's
    /// retention dropping part in between) once went into journal records as a tombstone, its
    /// kept part lost (seeds 2 and 4 of `--steps 3000 --replicas 8 --faults all`); deltas now cut
    /// such a run where retention changes.
    ///
    /// Only the libraries that keep one day (replicas 1, 4, 7 ...: those whose saves drop
    /// content in a run), since reading a library costs a decode of its state.
    func checkHistorySaved(_ live: [Peer]) {
        for peer in live where peer.index % 3 == 1 {
            guard let replica = peer.replica else { continue }
            var contents: [String: [UInt8]] = [:]
            let files: [String]
            do throws(DiskError) {
                files = try peer.disk.listFiles()
                for file in LibraryCore.filesToRead(listing: files) {
                    if let bytes = try peer.disk.read(file: file) { contents[file] = bytes }
                }
            } catch {
                continue
            }
            let memory = replica.notebook
            guard let recovery = try? LibraryCore.recover(files: files, contents: contents), recovery.notebook.version == memory.version else {
                continue  // unsaved or unreadable: the durability checks' business
            }
            let saved = recovery.notebook
            for id in memory.memoIDs {
                let listed = (try? memory.versions(of: id)) ?? []
                for index in stride(from: listed.count - 1, through: 0, by: -max(1, listed.count / 4)) {
                    let cut = listed[index].cut
                    let inMemory = Self.historyText(memory, id, cut)
                    let inFiles = Self.historyText(saved, id, cut)
                    if inMemory == inFiles { continue }
                    return fail(
                        .durability, [peer.index],
                        "memo \(id) at version \(listed[index].shortName): the replica shows \(inMemory), its library's files \(inFiles)")
                }
            }
        }
    }

    /// How the text of a memo at a version reads: the text, or why not.
    enum HistoryRefusal: Error, Equatable {
        case notRetained
        case other(String)
    }

    /// The text of `id` at `cut` in `notebook`, or why it cannot be shown.
    static func historyText(_ notebook: Notebook, _ id: MemoID, _ cut: VersionVector) -> Result<String, HistoryRefusal> {
        do throws(NotebookError) {
            return .success(try notebook.text(of: id, at: cut))
        } catch {
            if case .history(_, .contentNotRetained) = error { return .failure(.notRetained) }
            return .failure(.other("\(error)"))
        }
    }

    /// The encoding of `notebook` without the deleted content it keeps: what every replica
    /// holding the same operations encodes to, whatever history each keeps.
    static func withoutHistory(_ notebook: Notebook) -> [UInt8] {
        var copy = notebook
        copy.dropHistory(deletedBeforeWallMilliseconds: .max)
        return copy.encoded()
    }

    /// Nothing lost, deleted stays deleted: every character and memo against the oracle.
    func checkCharacters(in notebook: Notebook, peers involved: [Int]) {
        var counts = oracle.characters.map { [UInt8](repeating: 0, count: $0.count) }
        for id in notebook.memoIDs {
            guard let memo = notebook.memo(id) else { continue }
            let m = oracle.memoIndex(of: id)
            for scalar in memo.text.unicodeScalars {
                guard let (pool, index) = TrackedAlphabet.locate(scalar.value) else { continue }
                guard index < counts[pool].count else {
                    return fail(.deletedStaysDeleted, involved, "memo \(m) holds \(describe(scalar.value)), which nobody typed")
                }
                let record = oracle.characters[pool][index]
                if Int(record.memo) != m {
                    return fail(.deletedStaysDeleted, involved, "\(describe(scalar.value)) typed in memo \(record.memo) by r\(record.peer) shows in memo \(m)")
                }
                counts[pool][index] = counts[pool][index] &+ 1
            }
        }
        for pool in 0..<3 {
            for index in 0..<counts[pool].count {
                let record = oracle.characters[pool][index]
                let count = Int(counts[pool][index])
                // Described only for a failure (this loop visits every character ever typed).
                var scalar: String { describe(TrackedAlphabet.scalar(pool: pool, index: index)) }
                var who: String { "typed by r\(record.peer) in memo \(record.memo)" }
                if record.reinsertions > 0 {
                    if count > 1 + Int(record.reinsertions) {
                        return fail(.deletedStaysDeleted, [Int(record.peer)], "\(scalar) \(who) shows \(count) times")
                    }
                    continue
                }
                switch record.insertion {
                case .lost:
                    if count > 0 { return fail(.deletedStaysDeleted, [Int(record.peer)], "\(scalar) \(who) was lost in a crash but shows") }
                case .committed where record.committedDeletions > 0, .uncertain where record.committedDeletions > 0:
                    if count > 0 { return fail(.deletedStaysDeleted, [Int(record.peer)], "\(scalar) \(who) was deleted but shows") }
                case .committed where record.uncertainDeletions == 0:
                    if count == 0 { return fail(.nothingLost, [Int(record.peer)], "\(scalar) \(who) is gone, and nobody deleted it") }
                    if count > 1 { return fail(.deletedStaysDeleted, [Int(record.peer)], "\(scalar) \(who) shows \(count) times") }
                default:
                    if count > 1 { return fail(.deletedStaysDeleted, [Int(record.peer)], "\(scalar) \(who) shows \(count) times") }
                }
            }
        }
        for (m, record) in oracle.memos.enumerated() {
            let status = notebook.status(of: record.id)
            switch record.creation {
            case .lost:
                if status != nil { return fail(.deletedStaysDeleted, [record.creator], "memo \(m) was lost in a crash but exists") }
            case .committed:
                let maybePurged = record.purges > 0 || record.uncertainLifecycle > 0
                if !maybePurged && (status == nil || status == .purged) {
                    return fail(.nothingLost, [record.creator], "memo \(m) is \(status.map(\.description) ?? "unknown") though nobody purged it")
                }
                if !maybePurged && record.trashes == 0 && status != .active {
                    return fail(.nothingLost, [record.creator], "memo \(m) is \(status.map(\.description) ?? "unknown") though nobody trashed it")
                }
                if (record.trashes > 0 && record.restores == 0 && status == .active) || (record.purges > 0 && notebook.memo(record.id) != nil) {
                    sometimes.insert(.deleteAgainstEdit)
                }
            case .pending, .uncertain:
                break
            }
        }
    }

    /// Non-interleaving: runs typed concurrently after the same character are not interleaved.
    func checkRuns(in notebook: Notebook) {
        var positions = oracle.characters.map { [Int32](repeating: -1, count: $0.count) }
        for id in notebook.memoIDs {
            guard let memo = notebook.memo(id) else { continue }
            var index: Int32 = 0
            for scalar in memo.text.unicodeScalars {
                if let (pool, slot) = TrackedAlphabet.locate(scalar.value), slot < positions[pool].count { positions[pool][slot] = index }
                index += 1
            }
        }
        func excluded(_ run: RunRecord) -> Bool {
            return run.scalars.contains { scalar in
                guard let (pool, index) = TrackedAlphabet.locate(scalar) else { return false }
                return oracle.characters[pool][index].reinsertions > 0
            }
        }
        func survivors(_ run: RunRecord) -> [Int32] {
            run.scalars.compactMap { scalar in
                guard let (pool, index) = TrackedAlphabet.locate(scalar) else { return nil }
                let position = positions[pool][index]
                return position >= 0 ? position : nil
            }.sorted()
        }
        let order = runs.indices.sorted { (runs[$0].memo, runs[$0].anchor, $0) < (runs[$1].memo, runs[$1].anchor, $1) }
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && runs[order[end]].memo == runs[order[start]].memo && runs[order[end]].anchor == runs[order[start]].anchor {
                end += 1
            }
            let group = order[start..<end].filter { !excluded(runs[$0]) }
            start = end
            guard group.count > 1 else { continue }
            let alive = group.map { survivors(runs[$0]) }
            for a in 0..<group.count where !alive[a].isEmpty {
                for b in a + 1..<group.count where !alive[b].isEmpty {
                    let first = runs[group[a]]
                    let second = runs[group[b]]
                    guard first.isConcurrent(with: second) else { continue }
                    sometimes.insert(.concurrentInsertsAtOnePlace)
                    if interleaves(alive[a], alive[b]) || interleaves(alive[b], alive[a]) {
                        return fail(
                            .nonInterleaving, [first.peer, second.peer],
                            "runs of \(first.scalars.count) and \(second.scalars.count) characters typed concurrently after \(first.anchor == RunRecord.startAnchor ? "the start" : describe(first.anchor)) in memo \(first.memo) are interleaved (positions \(alive[a].prefix(8)) and \(alive[b].prefix(8)))")
                    }
                }
            }
        }
    }

    /// Whether a position of `other` falls strictly between the first and last of `run`.
    func interleaves(_ run: [Int32], _ other: [Int32]) -> Bool {
        guard let low = run.first, let high = run.last, high > low else { return false }
        var lower = 0
        var upper = other.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if other[middle] <= low { lower = middle + 1 } else { upper = middle }
        }
        return lower < other.count && other[lower] < high
    }

    /// Bounded: after collection, each live replica's blobs stay within a bound stated in terms
    /// of the configuration and the final state's size.
    func checkBounded(reference: Notebook, encodedBytes: Int) {
        guard let store else { return }
        // Blobs are counted per library: under every id of its lineage (a library takes a new
        // id after a crash or restore; clean sessions keep theirs). Each earlier id keeps its last segment for good once retired
        // from the lineage; those are counted apart, as `retired`.
        var owner: [ReplicaID: Int] = [:]
        var lineageLength: [Int: Int] = [:]
        for peer in livePeers {
            guard let replica = peer.replica else { continue }
            for id in replica.syncState.lineage { owner[id] = peer.index }
            lineageLength[peer.index] = replica.syncState.lineage.count
        }
        var counts: [Int: (blobs: Int, bytes: Int)] = [:]
        var keys: [Int: [String]] = [:]
        var retired = 0
        for info in store.groundTruth(prefix: StoreLayout.root) {
            guard let key = StoreLayout.parse(info.key) else { continue }
            let replica: ReplicaID
            switch key {
            case let .segment(id, _, _): replica = id
            case let .snapshot(id, _): replica = id
            case let .head(id): replica = id
            }
            guard let peer = owner[replica] else {
                retired += 1
                continue
            }
            counts[peer, default: (0, 0)].blobs += 1
            counts[peer, default: (0, 0)].bytes += info.sizeBytes
            keys[peer, default: []].append(String(info.key.dropFirst(StoreLayout.root.count)))
        }
        let blobsBase = parameters.snapshotAfterSegmentsMax + 1
        let largest = counts.values.map(\.blobs).max() ?? 0
        record(nil, .check, UInt64(largest), UInt64(blobsBase), UInt64(retired)) {
            "after garbage collection: at most \(largest) blobs per live library (bound \(blobsBase) + its lineage's length); \(retired) blobs of retired ids or departed replicas"
        }
        for peer in counts.keys.sorted() {
            let (blobs, bytes) = counts[peer]!
            // One kept last segment and one head per id of the lineage.
            let blobsMax = blobsBase + 2 * (lineageLength[peer] ?? 1)
            let bytesMax = 2 * encodedBytes + 64 * parameters.snapshotEveryOperations + 4_096 * blobsMax
            if blobs > blobsMax || bytes > bytesMax {
                return fail(
                    .bounded, [peer],
                    "after garbage collection r\(peer) keeps \(blobs) blobs, \(bytes) bytes under its \(lineageLength[peer] ?? 1) ids; the bound is \(blobsMax) blobs, \(bytesMax) bytes: \(keys[peer, default: []].joined(separator: ", "))")
            }
        }
    }
}
