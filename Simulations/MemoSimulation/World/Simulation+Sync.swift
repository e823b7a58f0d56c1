import MemoCRDT
import MemoNotes
import MemoSync

// Syncs at the replica level: `Replica.beginSync()`, then its store operations, several in
// flight (`nextSyncActions(limit:)`), each performed on the simulated store after its own
// simulated latency, so they complete out of order and the steps of many replicas' syncs
// interleave; `handleSync` takes each answer, `finishSync` ends it. A sync is sometimes
// cancelled midway (`cancelSync`), and the replica keeps editing while it runs.

extension Simulation {
    /// Chance that a sync is cancelled after an answer.
    static let syncCancelChance = 0.01

    func startSync(_ peer: Peer) {
        if parameters.engine == .notebook { return sendDeltas(peer) }
        guard peer.status == .live, let replica = peer.replica else { return skip(peer, "sync: not running") }
        guard peer.session == nil else { return skip(peer, "sync: already syncing") }
        setClock(peer)
        peer.sessionWallMilliseconds = peer.box.wallMilliseconds
        peer.syncStartStoreLossCount = storeLossCount
        guard beginSync(peer, replica, refusalsAllowed: !isFinalPhase) else { return }
        didSave(peer)
        statistics.syncsStarted += 1
        meter?.syncStarted(peer: peer.index, at: now)
        peer.session = SimulatedSync(maxInFlight: latency.int(in: 1...8))
        peer.sessionNumber += 1
        peer.lastWriteKey = nil
        record(peer, .syncStart, UInt64(peer.sessionNumber)) { "sync begins" }
        queue.schedule(.syncStep(peer: peer.index, session: peer.sessionNumber), at: now + latency.uint64(in: 1...30))
    }

    /// Hands out the sync's next store operations, each answered after its own latency; ends
    /// the sync when it is over.
    func syncStep(_ peer: Peer, session number: Int) {
        guard number == peer.sessionNumber, var sync = peer.session, let replica = peer.replica else { return }
        let actions: [SyncAction]
        do throws(ReplicaError) {
            actions = try replica.nextSyncActions(limit: sync.maxInFlight - sync.inFlight)
        } catch {
            return replicaFailure(peer, error, "saving before a store write")
        }
        if actions.contains(where: \.isWrite) { didSave(peer) }
        takeSyncEvents(peer)
        for action in actions {
            if let session = replica.syncSession { checkCollection(peer, action, session) }
            if violation != nil { return }
            sync.inFlight += 1
            queue.schedule(.syncAnswer(peer: peer.index, session: number, action: action), at: now + stepLatency(action, nil))
        }
        peer.session = sync
        if sync.inFlight == 0 {
            guard replica.syncSession?.isFinished ?? true else {
                return fail(.quiescence, [peer.index], "a sync waits with nothing in flight")
            }
            finishSync(peer)
        }
    }

    /// One store operation of a sync completes: performed on the store now (or failed: offline),
    /// answered, and the sync goes on (or is cancelled, now and then).
    func syncAnswer(_ peer: Peer, session number: Int, action: SyncAction) {
        guard number == peer.sessionNumber, var sync = peer.session, let replica = peer.replica, let store else { return }
        sync.inFlight -= 1
        peer.session = sync
        if let countdown = peer.storeCrashCountdown {
            if countdown <= 1 {
                peer.storeCrashCountdown = nil
                if peer.storeCrashPerforms { _ = performOnStore(store, action, reader: peer.index) }
                if case let .write(key, _) = action, StoreLayout.parse(key) != nil { sometimes.insert(.crashDuringPublish) }
                return crashNow(peer, reason: "crash \(peer.storeCrashPerforms ? "after" : "before") the store performed: \(action)")
            }
            peer.storeCrashCountdown = countdown - 1
        }
        let result: SyncResult
        if isFinalPhase || now >= peer.offlineUntil {
            result = performOnStore(store, action, reader: peer.index)
        } else {
            result = .failed(.unavailable(reason: "offline"))
        }
        statistics.storeOperations += 1
        logStoreStep(peer, action, result)
        if case let .write(key, bytes) = action {
            peer.lastWriteKey = key
            checkPublished(peer, key: key, bytes: bytes, lineage: replica.syncSession?.state.lineage ?? replica.lineage)
        }
        if case let .read(key) = action, peer.joinedLate, peer.completedSyncs == 0, case .read = result,
            case .snapshot? = StoreLayout.parse(key)
        {
            sometimes.insert(.lateJoinFromSnapshot)
        }
        if violation != nil { return }
        replica.handleSync(action, result)
        takeSyncEvents(peer)
        if !isFinalPhase && latency.chance(Self.syncCancelChance) {
            replica.cancelSync()
            sometimes.insert(.syncCancelled)
            record(peer, .syncStep, UInt64(number)) { "sync cancelled" }
        }
        syncStep(peer, session: number)
    }

    /// What a sync applied, into the model as it happens (the replica keeps editing meanwhile).
    func takeSyncEvents(_ peer: Peer) {
        applyRemoteEvents(peer, peer.takeEvents())
        if violation == nil { checkCaret(peer) }
    }

    func finishSync(_ peer: Peer) {
        guard let replica = peer.replica else { return }
        peer.session = nil
        setClock(peer)
        let report: SyncReport
        do throws(ReplicaError) {
            report = try replica.finishSync()
        } catch {
            return replicaFailure(peer, error, "finishing a sync")
        }
        noteFinishedSync(peer, replica, report)
        if violation == nil, report.pendingOperationCount > 0, isFinalPhase {
            // Checked for good at the end; noted here.
            log.note("r\(peer.index) holds \(report.pendingOperationCount) operations back")
        }
        syncsSinceConvergenceCheck += 1
        if violation == nil && syncsSinceConvergenceCheck >= 16 {
            syncsSinceConvergenceCheck = 0
            checkConvergenceNow()
        }
        if peer.leavesAfterSync { depart(peer) }
    }

    /// Runs a whole sync of `peer` at once (the final phase), time advancing by each step's
    /// latency; up to eight operations in flight, answered in an order drawn from the seed.
    /// Returns the report, or nil when the replica could not sync.
    func syncToCompletion(_ peer: Peer) -> SyncReport? {
        guard peer.status == .live, let replica = peer.replica, peer.session == nil, let store else { return nil }
        setClock(peer)
        peer.sessionWallMilliseconds = peer.box.wallMilliseconds
        peer.syncStartStoreLossCount = storeLossCount
        guard beginSync(peer, replica, refusalsAllowed: false) else { return nil }
        didSave(peer)
        statistics.syncsStarted += 1
        record(peer, .syncStart, 0) { "sync begins (final phase)" }
        meter?.syncStarted(peer: peer.index, at: now)
        let maxInFlight = latency.int(in: 1...8)
        var inFlight: [SyncAction] = []
        var steps = 0
        while true {
            let actions: [SyncAction]
            do throws(ReplicaError) {
                actions = try replica.nextSyncActions(limit: maxInFlight - inFlight.count)
            } catch {
                replicaFailure(peer, error, "saving before a store write")
                return nil
            }
            if actions.contains(where: \.isWrite) { didSave(peer) }
            for action in actions {
                checkCollection(peer, action, replica.syncSession!)
                if violation != nil { return nil }
                inFlight.append(action)
            }
            if inFlight.isEmpty { break }
            steps += 1
            guard steps < 1_000_000 else {
                fail(.quiescence, [peer.index], "a sync did not end after a million store operations")
                return nil
            }
            let action = inFlight.remove(at: latency.int(in: 0...(inFlight.count - 1)))
            let result = performOnStore(store, action, reader: peer.index)
            statistics.storeOperations += 1
            logStoreStep(peer, action, result)
            if case let .write(key, bytes) = action {
                checkPublished(peer, key: key, bytes: bytes, lineage: replica.syncSession?.state.lineage ?? replica.lineage)
            }
            if violation != nil { return nil }
            replica.handleSync(action, result)
            takeSyncEvents(peer)
            if violation != nil { return nil }
            now += stepLatency(action, result)
        }
        guard replica.syncSession?.isFinished ?? true else {
            fail(.quiescence, [peer.index], "a sync waits with nothing in flight")
            return nil
        }
        setClock(peer)
        let report: SyncReport
        do throws(ReplicaError) {
            report = try replica.finishSync()
        } catch {
            replicaFailure(peer, error, "finishing a sync")
            return nil
        }
        noteFinishedSync(peer, replica, report)
        return report
    }

    /// Garbage collection deletes only the replica's own blobs, each covered by one of its
    /// snapshots that was at least the grace period old by the replica's own clock when the
    /// sync began (the rule `SyncSession` documents). Also records the snapshots written, with
    /// the operations of the writer they hold and the writer's clock.
    func checkCollection(_ peer: Peer, _ action: SyncAction, _ session: SyncSession) {
        switch action {
        case let .write(key, _):
            if case .snapshot? = StoreLayout.parse(key) {
                writtenSnapshots.append(
                    SnapshotRecord(
                        key: key, writer: peer.index, version: peer.notebook.version,
                        writtenAtMilliseconds: peer.sessionWallMilliseconds, writtenAtSimulatedMilliseconds: now))
            }
        case let .delete(key):
            let replica: ReplicaID
            var needed = VersionVector()
            var isSnapshot = false
            // A conflicted copy holds what its original holds, and covers what it covers.
            let original = store?.original(ofCopy: key) ?? key
            switch StoreLayout.parse(key) {
            case let .segment(id, _, end)?:
                replica = id
                needed[id] = end
            case let .snapshot(id, _)?:
                replica = id
                needed = writtenSnapshots.first(where: { $0.key == original })?.version ?? VersionVector()
                isSnapshot = true
            case let .head(id)?:
                // A head is replaced, never relied on to cover anything: only its writer's
                // current session deletes it.
                if id != session.replica { fail(.collection, [peer.index], "\(session.replica) deleted \(key), a head of \(id)") }
                return
            case nil:
                return fail(.collection, [peer.index], "deleted \(key), not a MemoSync key")
            }
            guard session.state.lineage.contains(replica) else {
                return fail(.collection, [peer.index], "\(session.replica) deleted \(key), a blob of \(replica), not of its lineage")
            }
            let now = peer.sessionWallMilliseconds
            let grace = parameters.gracePeriodMilliseconds
            // Aged by the writer's clock since the write; or, when the clock jumped back past the
            // write, since the replica found the snapshot in a listing (a write whose answer was
            // lost: FORMAT.md "Garbage collection", a snapshot found ages from when it was found),
            // provided the grace period has truly passed since the write.
            func aged(_ snapshot: SnapshotRecord) -> Bool {
                if now >= snapshot.writtenAtMilliseconds && now - snapshot.writtenAtMilliseconds >= grace { return true }
                guard self.now >= snapshot.writtenAtSimulatedMilliseconds, self.now - snapshot.writtenAtSimulatedMilliseconds >= grace,
                    let found = session.state.ownSnapshots.first(where: { $0.key == snapshot.key })
                else { return false }
                return now >= found.writtenAtMilliseconds && now - found.writtenAtMilliseconds >= grace
            }
            // The covering snapshot (or a copy of it) must still be in the store, and aged.
            let covered = writtenSnapshots.contains { snapshot in
                guard needed.isIncluded(in: snapshot.version), snapshot.writer != peer.index || aged(snapshot) else { return false }
                let candidates = [snapshot.key] + (store?.copies(of: snapshot.key) ?? [])
                return candidates.contains { $0 != key && (store?.bytes(of: $0) != nil || snapshotsLostWithTheStore.contains($0)) }
            }
            if !covered {
                fail(
                    .collection, [peer.index],
                    "deleted \(isSnapshot ? "snapshot" : "segment") \(key) with no snapshot covering it that is \(SimulatedTime.short(grace)) old by its clock (its clock: \(now) ms; it remembers \(session.state.ownSnapshots.map { "\($0.key.dropFirst(StoreLayout.root.count)) holding \($0.version[replica]) written at \($0.writtenAtMilliseconds)" }))")
            }
        case .list, .read:
            break
        }
    }

    /// What a replica publishes must be readable by every other: a segment decodes to exactly
    /// the operations its name says, a snapshot decodes to a notebook.
    func checkPublished(_ peer: Peer, key: String, bytes: [UInt8], lineage: [ReplicaID]) {
        switch StoreLayout.parse(key) {
        case let .segment(replica, start, end)?:
            do throws(DecodingError) {
                let delta = try NotebookDelta(decoding: bytes)
                let ranges = delta.counterRanges
                // Its replica's operations exactly as named, plus those of the library's earlier
                // sessions (published together so deletions travel with what they delete).
                if ranges.filter({ $0.replica == replica }).map(\.counters) != [start..<end]
                    || !ranges.allSatisfy({ lineage.contains($0.replica) })
                {
                    fail(.engine, [peer.index], "published segment \(key) holds \(ranges.map { "\($0.replica) \($0.counters)" })")
                }
            } catch {
                fail(.engine, [peer.index], "published segment \(key) does not decode: \(error)")
            }
        case .snapshot?:
            // Decoding every memo of a snapshot costs as much as writing it: a share of them
            // during the run, all of them in the final phase.
            guard isFinalPhase || checkRandom.chance(0.25) else { return }
            var notebook: Notebook
            do throws(DecodingError) {
                notebook = try Notebook(decoding: bytes, replica: ReplicaID(1))
            } catch {
                return fail(.engine, [peer.index], "published snapshot \(key) does not decode: \(error)")
            }
            for id in notebook.memoIDs where notebook.status(of: id) != .purged {
                do throws(NotebookError) {
                    try notebook.prepareForEditing(id)
                } catch {
                    return fail(.engine, [peer.index], "published snapshot \(key): \(error)")
                }
            }
            do throws(MemoCRDT.InvariantViolation) {
                try notebook.checkInvariants()
            } catch {
                fail(.engine, [peer.index], "published snapshot \(key) breaks an invariant: \(error)")
            }
        case let .head(id)?:
            do throws(DecodingError) {
                let head = try SyncHead(decoding: bytes)
                if id != peer.replica?.id && !lineage.contains(id) {
                    fail(.engine, [peer.index], "published head \(key) under another replica's id")
                }
                _ = head
            } catch {
                fail(.engine, [peer.index], "published head \(key) does not decode: \(error)")
            }
        case nil:
            fail(.engine, [peer.index], "wrote \(key), not a MemoSync key")
        }
    }

    /// What every finished sync updates and checks: statistics, the oracle, the sometimes
    /// flags, the log, the model from the events, the caret.
    func noteFinishedSync(_ peer: Peer, _ replica: Replica, _ report: SyncReport) {
        didSave(peer)
        statistics.syncsFinished += 1
        meter?.syncFinished(peer: peer.index, at: now)
        keepStoreImage()
        statistics.operationsApplied += report.operationsApplied
        peer.completedSyncs += 1
        if let awaited = peer.awaitsRottedOperations, awaited.isIncluded(in: replica.notebook.version) { peer.awaitsRottedOperations = nil }
        // Only a sync that listed the store after its last loss knows what it holds: begun after
        // it, and not with a stale listing that still showed the store as it was before (seed 4).
        let listedAfterLoss = (store?.listingViewMilliseconds[peer.index] ?? 0) >= lastStoreLossMilliseconds
        let unpublished = replica.unpublishedOperationCount
        if unpublished == 0 { checkNothingHeldBackIsCalledPublished(peer, replica) }
        if unpublished == 0 && peer.syncStartStoreLossCount == storeLossCount && report.listedStore && listedAfterLoss {
            oracle.published(peer: peer.index)
            peer.syncedSinceStoreLoss = true
        }
        noteCopySynced(peer, report)
        if report.blobsDeleted > 0 { sometimes.insert(.collected) }
        logReport(peer, report)
        applyRemoteEvents(peer, peer.takeEvents())
        if violation == nil { checkCaret(peer) }
    }

    /// A library that says it has nothing left to publish holds back none of its own saved
    /// operations that the store lacks: such operations wait for a journal record damage took,
    /// are in no blob, and count as unpublished until they apply and a sync publishes them
    /// (seed 5042: an earlier id whose operations were all held back left the lineage, so
    /// nothing counted or published them, and a deletion the oracle then took as published was
    /// lost). Checked on the peer's saved deletions the oracle does not know published yet: one
    /// whose operation the notebook does not hold, is held back, and is in no segment of its id
    /// in the store. (Held-back operations of an id the peer shares with a copy of its library,
    /// or that a segment written before a crash holds, are published: seeds 175 and 5576.)
    func checkNothingHeldBackIsCalledPublished(_ peer: Peer, _ replica: Replica) {
        let notebook = replica.notebook
        for mark in oracle.unpublishedDeletionMarks(peer: peer.index) where !mark.isHeld(in: notebook.version) {
            let held = notebook.pendingOperationCount(of: mark.replica)
            guard held > 0, peer.ownIDs.contains(mark.replica) else { continue }
            let inStore = store?.groundTruth(prefix: "").contains { blob in
                guard case let .segment(id, _, end)? = StoreLayout.parse(blob.key) else { return false }
                return id == mark.replica && end >= mark.operationCount
            } ?? false
            if inStore { continue }
            return fail(
                .nothingLost, [peer.index],
                "r\(peer.index) says nothing is left to publish but holds back \(held) saved operations of its own id \(mark.replica), a deletion among them (lineage \(replica.lineage))")
        }
    }

    /// A copy of a library (a clone, a restored backup) that finished a sync: the state the
    /// session ids exist for.
    func noteCopySynced(_ peer: Peer, _ report: SyncReport) {
        guard peer.isCopy, report.errors.isEmpty else { return }
        peer.isCopy = false
        sometimes.insert(.copySynced)
    }

    /// A store operation's simulated duration: a round trip plus the bytes at about 2 MB/s
    /// (a read's bytes counted when its result is known).
    func stepLatency(_ action: SyncAction, _ result: SyncResult?) -> UInt64 {
        var bytes = 0
        if case let .write(_, written) = action { bytes = written.count }
        if case let .read(read)? = result { bytes = read.count }
        return latency.uint64(in: 2...120) + UInt64(bytes / 2_000)
    }

    func logStoreStep(_ peer: Peer, _ action: SyncAction, _ result: SyncResult) {
        var kind: UInt64 = 0
        var key = ""
        switch action {
        case .list: kind = 1
        case let .read(k): kind = 2; key = k
        case let .write(k, _): kind = 3; key = k
        case let .delete(k): kind = 4; key = k
        }
        var outcome: UInt64 = 0
        var size = 0
        switch result {
        case let .listed(listing): outcome = 1; size = listing.blobs.count
        case let .read(bytes): outcome = 2; size = bytes.count
        case .done: outcome = 3
        case .failed: outcome = 4
        }
        log.mix(key)
        record(peer, .storeOp, kind, outcome, UInt64(size)) {
            switch result {
            case let .failed(error): "store \(action): \(error)"
            case let .listed(listing): "store \(action): \(listing.blobs.count) entries"
            case let .read(bytes): "store \(action): \(bytes.count) bytes"
            case .done: "store \(action): done"
            }
        }
    }

    func logReport(_ peer: Peer, _ report: SyncReport) {
        log.mix(report.skipped.count)
        log.mix(report.errors.count)
        log.mix(report.publishedSegment ?? "-")
        log.mix(report.publishedSnapshot ?? "-")
        record(peer, .syncEnd, UInt64(report.operationsApplied), UInt64(report.blobsWritten), UInt64(report.blobsDeleted)) {
            var text = "sync ends: applied \(report.operationsApplied), read \(report.blobsRead), wrote \(report.blobsWritten), deleted \(report.blobsDeleted), pending \(report.pendingOperationCount)"
            if !report.skipped.isEmpty { text += ", skipped \(report.skipped.count) (\(report.skipped.prefix(2).map(\.description).joined(separator: "; ")))" }
            if !report.errors.isEmpty { text += ", errors: \(report.errors.prefix(2).map(\.description).joined(separator: "; "))" }
            return text
        }
    }

    /// The replica saved successfully: its pending effects are committed.
    func didSave(_ peer: Peer) {
        oracle.commit(peer: peer.index)
        if let replica = peer.replica { peer.savedVersion = replica.notebook.version }
    }

    /// A replica call failed: a crash the disk was told to make, or an engine failure.
    func replicaFailure(_ peer: Peer, _ error: ReplicaError, _ what: String) {
        if peer.disk.isStopped {
            if case .disk = error, peer.disk.operationCount > 0 { sometimes.insert(.crashDuringSave) }
            return crashNow(peer, reason: "disk stopped while \(what)")
        }
        fail(.engine, [peer.index], "\(what) failed: \(error)")
    }
}
