import MemoCRDT
import MemoNotes
import MemoSync

// Replicas starting, saving, crashing, restarting, restored from backups, leaving.

extension Simulation {
    /// Starts `index`: a new library, or a copy of `cloneOf`'s library (replica level).
    func start(peer index: Int, cloneOf: Int?) {
        let peer = peers[index]
        peer.joinedLate = now > 0
        setClock(peer)
        statistics.joins += 1
        if parameters.engine == .notebook {
            var id = ReplicaID(peer.box.random.next())
            while id.rawValue == 0 { id = ReplicaID(peer.box.random.next()) }
            var notebook = Notebook(replica: id)
            // A late joiner starts from a snapshot of someone's whole notebook.
            if peer.joinedLate, let source = livePeers.first(where: { $0.core != nil }) {
                do throws(DecodingError) {
                    notebook = try Notebook(decoding: source.notebook.encoded(), replica: id)
                    if !notebook.memoIDs.isEmpty { sometimes.insert(.lateJoinFromSnapshot) }
                } catch {
                    return fail(.engine, [source.index, index], "a notebook's own encoding does not decode: \(error)")
                }
            }
            peer.core = notebook
            peer.status = .live
            meter?.started(peer: index, at: now)
            rebuildShadows(peer)
            record(peer, .join, id.rawValue) { "starts as \(id)" }
            return
        }
        if let cloneOf, parameters.has(.clone), peers[cloneOf].status == .live || peers[cloneOf].status == .down {
            peer.disk.restore(peers[cloneOf].disk.durableImage())
            peer.isCopy = true
            // The copy holds back what its original holds back for good.
            peer.idsRotBeforePublishing = peers[cloneOf].idsRotBeforePublishing
        }
        guard open(peer, after: "starting"), markEncrypted(peer) else { return }
        if !peer.isCopy { setHistoryRetention(peer) }
        peer.status = .live
        meter?.started(peer: index, at: now)
        peer.savedVersion = peer.replica!.notebook.version
        rebuildShadows(peer)
        let id = peer.replica!.id
        record(peer, .join, id.rawValue, cloneOf.map { UInt64($0) } ?? .max) {
            cloneOf.map { "starts as a copy of r\($0)'s library (\(id))" } ?? "starts as \(id)"
        }
        if peer.joinedLate { startSync(peer) }
    }

    /// Libraries keep history (issue 27) with a retention period of their own: replica 0, 3, 6
    /// ... keep the default (90 days), 1, 4, 7 ... one day (so that clock jumps and long
    /// offline spells drop content), 2, 5, 8 ... forever. A copy keeps its original's (its
    /// `history` file). Dropping content must never change what replicas converge to.
    func setHistoryRetention(_ peer: Peer) {
        guard let replica = peer.replica, peer.index % 3 != 0 else { return }
        let retention: HistoryRetention = peer.index % 3 == 1 ? .days(1) : .forever
        setClock(peer)
        do throws(ReplicaError) {
            let dropped = try replica.setHistoryRetention(retention)
            log.mix(dropped)
        } catch {
            record(peer, .fault, 0) { "history retention not set: \(error)" }
        }
    }

    /// Opens `peer`'s library; a failure is a durability violation.
    func open(_ peer: Peer, after what: String) -> Bool {
        setClock(peer)
        if let mismatch = stateListMismatch(peer.disk) {
            fail(.durability, [peer.index], "after \(what), the library opened from its state list differs from its state read whole: \(mismatch)")
            return false
        }
        do throws(ReplicaError) {
            peer.replica = try Replica(disk: peer.disk, environment: peer.box.environment, configuration: parameters.syncConfiguration)
        } catch {
            fail(.durability, [peer.index], "the library does not open after \(what): \(error)")
            return false
        }
        peer.replica!.decodedTextLimit = parameters.decodedTextLimit
        peer.ownIDs.insert(peer.replica!.id)
        peer.ownIDs.formUnion(peer.replica!.lineage)
        let report = peer.replica!.openReport
        log.mix(report.journalRecords)
        log.mix(report.discardedJournalBytes)
        return true
    }

    /// The state-list oracle (issue 28): when a state list describes `disk`'s state file, the
    /// library recovered from the list (each memo's text left in the state file, read and
    /// checked only when used) must be the one recovered from the state read whole, every check
    /// made: the same version, sync state, generation, memo list (titles and previews, which the
    /// list gives without reading texts) and trash, and the same encoded bytes (which read every
    /// stored text). Nil when they agree or no list describes the state.
    func stateListMismatch(_ disk: SimulatedDisk) -> String? {
        guard let files = try? disk.listFiles(), files.contains(LibraryCore.stateListFileName),
            let list = try? disk.read(file: LibraryCore.stateListFileName), let state = try? disk.read(file: LibraryCore.stateFileName),
            let listed = LibraryCore.decodeState(list: list, state: InMemoryFileReader(bytes: state), minimumBytes: disk.stateListMinimumBytes)
        else { return nil }
        var contents: [String: [UInt8]] = [:]
        for file in LibraryCore.filesToRead(listing: files) {
            if let bytes = try? disk.read(file: file) { contents[file] = bytes }
        }
        var withoutState = contents
        withoutState[LibraryCore.stateFileName] = nil
        let minimum = disk.stateListMinimumBytes
        let fromList: LibraryCore.Recovery
        let whole: LibraryCore.Recovery
        do throws(ReplicaError) {
            guard let recovered = try LibraryCore.recover(files: files, contents: contents, stateListMinimumBytes: minimum) else {
                return "the state read whole holds no library"
            }
            whole = recovered
        } catch {
            return "the state read whole does not open: \(error)"
        }
        do throws(ReplicaError) {
            guard
                let recovered = try LibraryCore.recover(
                    files: files, contents: withoutState, listed: (listed, state.count), stateListMinimumBytes: minimum)
            else { return "the list holds no library" }
            fromList = recovered
        } catch {
            return "the list does not open: \(error)"
        }
        let (a, b) = (fromList.notebook, whole.notebook)
        if a.version != b.version { return "version \(a.version) against \(b.version)" }
        if fromList.syncState != whole.syncState { return "another sync state" }
        if fromList.core.generation != whole.core.generation { return "generation \(fromList.core.generation) against \(whole.core.generation)" }
        if a.list() != b.list() || a.trash() != b.trash() { return "another memo list or trash" }
        if !a.damagedStoredMemoIDs.isEmpty { return "memos damaged: \(a.damagedStoredMemoIDs)" }
        var outline: NotebookStateOutline?
        do throws(NotebookError) {
            let listedBytes = try a.encoded(headroom: BlobEnvelope.headerBytesMax, wrap: { _, start, _ in start }, outline: &outline)
            if listedBytes != b.encoded() { return "other encoded bytes" }
        } catch {
            return "a stored text does not read: \(error)"
        }
        sometimes.insert(.openedFromStateList)
        return nil
    }

    func saveOrCompact(_ peer: Peer, compact: Bool) {
        guard parameters.engine == .replica else { return }
        guard peer.status == .live, let replica = peer.replica else { return skip(peer, "save: not running") }
        setClock(peer)
        do throws(ReplicaError) {
            if compact { try replica.compactNow() } else { try replica.saveNow() }
        } catch {
            return replicaFailure(peer, error, compact ? "compacting" : "saving")
        }
        // A save during a sync saves the notebook as it was when the sync began plus edits:
        // none, since edits wait for the sync.
        didSave(peer)
        record(peer, .action, compact ? 1 : 0, UInt64(replica.library.generation)) {
            compact ? "compact (generation \(replica.library.generation))" : "save"
        }
    }

    // MARK: Crashes

    func crash(_ peer: Peer, at point: CrashPoint, downMilliseconds: UInt64) {
        guard parameters.engine == .replica else { return }
        guard peer.status == .live, peer.replica != nil else { return skip(peer, "crash: not running") }
        peer.downMilliseconds = downMilliseconds
        switch point {
        case .now:
            crashNow(peer, reason: "power failure")
        case let .disk(operations, performs):
            peer.disk.crashAfterOperations = operations
            peer.disk.crashPerformsLastOperation = performs
            record(peer, .fault, UInt64(operations), performs ? 1 : 0) { "a crash at the disk's \(operations). next operation" }
        case let .store(operations, performs):
            peer.storeCrashCountdown = operations
            peer.storeCrashPerforms = performs
            record(peer, .fault, UInt64(operations), performs ? 3 : 2) { "a crash at the store's \(operations). next operation" }
        }
    }

    /// Every live replica whose disk stopped (its crash hook fired) dies now, as the process
    /// killed at that operation would have. Needed for the operations a replica performs best
    /// effort and whose failure it does not report (the state list's write, fsyncs and the
    /// deletion of a list left from before: FORMAT.md, "State list"): a hook that fired there
    /// left the disk stopped under a replica that went on as if nothing had happened, until a
    /// later call met the stopped disk (seeds 168 and 193 of the 1..1000 soak on 2026-12-02: in
    /// the final phase, whose restarts no longer run, so the replica's saved effects were never
    /// resolved).
    func crashStoppedDisks() {
        for peer in peers where peer.status == .live && peer.disk.isStopped {
            crashNow(peer, reason: "disk stopped during an operation the library performs best effort")
        }
    }

    /// The replica dies now: its process is gone, its disk keeps what was durable.
    func crashNow(_ peer: Peer, reason: String) {
        guard peer.status == .live else { return }
        let before = peer.replica?.notebook.version
        let published = peer.replica?.syncState.published
        peer.preCrashVersion = before
        peer.preCrashReplica = peer.replica?.id
        peer.replica = nil
        peer.session = nil
        peer.sessionNumber += 1
        peer.storeCrashCountdown = nil
        peer.leavesAfterSync = false
        peer.disk.crash()
        // Only what the store holds may rot: what the library counts as published, as of a
        // sync that listed the store after its last loss (seed 4: the store, replaced by an
        // older copy, had lost the operations the library's stale listing still showed).
        if parameters.rate(.tornDisk) > 0, let published, let id = peer.preCrashReplica {
            rotRecord(peer, published: published, ownID: id, publishedMayRot: peer.syncedSinceStoreLoss)
        }
        peer.status = .down
        peer.caret = nil
        statistics.crashes += 1
        meter?.crashed(peer: peer.index, at: now)
        record(peer, .crash, peer.downMilliseconds) { "CRASH (\(reason)); down for \(SimulatedTime.short(peer.downMilliseconds))" }
        queue.schedule(.restart(peer: peer.index), at: now + max(1, peer.downMilliseconds))
    }

    /// The torn-disk fault's bit rot: sometimes one bit of a synced journal record goes bad
    /// while the replica is down. Two kinds of record are hit, by turns (the session number's
    /// parity), each when the journal has one:
    ///
    /// - a record whose operations are all published: the store holds what it loses, a sync
    ///   brings it back, and the final checks expect every operation back, nothing held back.
    ///   So it never hits a replica whose last sync did not list the store after its last loss
    ///   (`publishedMayRot`, see `crashNow`), and the store is not lost while a library waits
    ///   for operations bit rot took (`storeMayBeLost`).
    /// - a record of the replica's own operations (`ownID`) not all published: nothing else
    ///   holds them, so they are gone for good (unless a store write the library did not get to
    ///   record holds them), and so are the operations of later records of that id, which build
    ///   on them and stay held back. The oracle takes every effect of the replica the reopened
    ///   library does not show as uncertain (`Oracle.resolveAfterRot`), and the final checks
    ///   allow exactly those held-back operations of that id (`idsRotBeforePublishing`).
    ///
    /// Either way the reopened library must report the damage and miss at most the record's
    /// operations plus what it holds back (`restart`).
    func rotRecord(_ peer: Peer, published: VersionVector, ownID: ReplicaID, publishedMayRot: Bool) {
        guard let files = try? peer.disk.listFiles(), let name = files.filter({ LibraryCore.journalGeneration($0) != nil }).max(by: {
            (LibraryCore.journalGeneration($0) ?? 0) < (LibraryCore.journalGeneration($1) ?? 0)
        }), let generation = LibraryCore.journalGeneration(name), let bytes = try? peer.disk.read(file: name) ?? nil else { return }
        var publishedRecord: (range: Range<Int>, operations: Int, upper: VersionVector)?
        var unpublishedRecord: (range: Range<Int>, operations: Int, upper: VersionVector)?
        for part in LibraryJournal.parts(bytes, belongs: { _, _ in true }) {
            guard case let .record(_, body, version, _) = part,
                let record = LibraryCore.decodeRecordBody(bytes, body, version: version, generation: generation, replica: ReplicaID(1)),
                !record.delta.isEmpty
            else { continue }
            let entries = record.delta.upperVersion.entries
            if entries.allSatisfy({ $0.operationCount <= published[$0.replica] }) {
                if publishedRecord == nil { publishedRecord = (body, record.delta.operationCount, record.delta.upperVersion) }
            } else if unpublishedRecord == nil, entries.allSatisfy({ $0.replica == ownID }) {
                unpublishedRecord = (body, record.delta.operationCount, record.delta.upperVersion)
            }
        }
        let preferUnpublished = peer.sessionNumber % 2 == 0
        let chosen: (range: Range<Int>, operations: Int, upper: VersionVector)?
        let isPublished: Bool
        if let unpublishedRecord, preferUnpublished || publishedRecord == nil || !publishedMayRot {
            (chosen, isPublished) = (unpublishedRecord, false)
        } else if publishedMayRot, let publishedRecord {
            (chosen, isPublished) = (publishedRecord, true)
        } else {
            return
        }
        guard let target = chosen, let offset = peer.disk.rotBit(of: name, in: target.range, probability: 0.3) else { return }
        peer.rottedRecord = (target.operations, target.upper, isPublished)
        if isPublished {
            peer.awaitsRottedOperations = target.upper
            statistics.bitRots += 1
        } else {
            // Any image of this folder from now on (the reopened library, a backup taken while
            // it is down, a copy) may hold the id's later operations back for good.
            if !peer.idsRotBeforePublishing.contains(ownID) { peer.idsRotBeforePublishing.append(ownID) }
            statistics.bitRotsBeforePublishing += 1
        }
        record(peer, .fault, UInt64(offset), isPublished ? 0 : 1) {
            "bit rot in \(name) at byte \(offset) (a record of \(target.operations) \(isPublished ? "published operations" : "operations of its own not all published"))"
        }
    }

    func restart(_ peer: Peer) {
        guard peer.status == .down else { return }
        guard open(peer, after: "a crash") else { return }
        let notebook = peer.replica!.notebook
        let reopened = notebook.version
        let rotted = peer.rottedRecord
        peer.rottedRecord = nil
        if let awaited = peer.awaitsRottedOperations, awaited.isIncluded(in: reopened) { peer.awaitsRottedOperations = nil }
        if let rotted, !peer.replica!.openReport.damage.isEmpty {
            // Exactly the rotted record's operations may be missing, and operations of later
            // records that build on them (of any replica), held back: no more.
            var missing = 0
            for entry in peer.savedVersion.entries where reopened[entry.replica] < entry.operationCount {
                missing += Int(entry.operationCount - reopened[entry.replica])
            }
            if missing > rotted.operations + notebook.pendingOperationCount {
                return fail(
                    .durability, [peer.index],
                    "bit rot lost \(missing) operations; the rotted record held \(rotted.operations), \(notebook.pendingOperationCount) held back")
            }
        } else if rotted != nil, !peer.savedVersion.isIncluded(in: reopened) {
            return fail(.durability, [peer.index], "bit rot in the journal lost operations silently: no damage reported")
        } else if !peer.savedVersion.isIncluded(in: reopened) {
            let report = peer.replica!.openReport
            return fail(
                .durability, [peer.index],
                "saved operations lost in a crash: saved \(peer.savedVersion), reopened \(reopened) (\(notebook.pendingOperationCount) held back; the open replayed \(report.journalRecords) journal records, cut \(report.discardedJournalBytes) bytes, removed \(report.removedFiles))")
        }
        if let before = peer.preCrashVersion, !reopened.isIncluded(in: before) {
            return fail(.durability, [peer.index], "the reopened library holds operations the replica never had: \(reopened) after \(before)")
        }
        let presence = presence(in: notebook)
        let rotLost = rotted != nil && !peer.replica!.openReport.damage.isEmpty
        if let rotted, rotLost, !rotted.published {
            // What the rotted record held, and what later records of its id build on, may be
            // gone for good: every saved effect the reopened library does not show is uncertain.
            oracle.resolveAfterRot(peer: peer.index, presence: presence, reopened: reopened) { m in
                notebook.status(of: oracle.memos[m].id) != nil
            }
            sometimes.insert(.rotBeforePublishing)
        }
        oracle.resolveAfterCrash(peer: peer.index, presence: presence, reopened: reopened, absentIsUncertain: rotLost) { m in
            notebook.status(of: oracle.memos[m].id) != nil
        }
        peer.status = .live
        peer.savedVersion = reopened
        if let meter {
            if let id = peer.preCrashReplica { meter.lose(replica: id, keptOperations: reopened[id]) }
            meter.restarted(peer: peer.index, at: now)
        }
        rebuildShadows(peer)
        record(peer, .restart, UInt64(reopened.operationCount), UInt64(peer.replica!.openReport.discardedJournalBytes)) {
            let damage = peer.replica!.openReport.damage.map { "\($0.file): \($0.damagedByteRanges), \($0.recordsLost) lost, \($0.operationsHeldBack) held back" }
            return "restarts with \(reopened.operationCount) operations (cut \(peer.replica!.openReport.discardedJournalBytes) torn journal bytes)"
                + (damage.isEmpty ? "" : "; damage: \(damage.joined(separator: "; "))")
        }
    }

    // MARK: Backups

    func backup(_ peer: Peer) {
        guard parameters.engine == .replica, peer.status == .live || peer.status == .down else { return }
        peer.backups.append(peer.disk.durableImage())
        if peer.backups.count > 3 { peer.backups.removeFirst() }
        record(peer, .fault, UInt64(peer.backups.last!.totalBytes)) { "backup of the library (\(peer.backups.last!.totalBytes) bytes)" }
    }

    func restoreBackup(_ peer: Peer, which: UInt32) {
        guard parameters.engine == .replica else { return }
        guard peer.status == .live || peer.status == .down, !peer.backups.isEmpty else { return skip(peer, "restore: no backup") }
        let image = peer.backups[Int(which) % peer.backups.count]
        peer.replica?.closeNow()
        peer.replica = nil
        peer.session = nil
        meter?.syncCut(peer: peer.index, at: now)
        peer.sessionNumber += 1
        peer.storeCrashCountdown = nil
        peer.leavesAfterSync = false
        peer.disk.restore(image)
        storeHoldsWhatNoLibraryDoes = true
        statistics.restores += 1
        // The ids are the restored library's: operations of a later id of this peer's came back
        // from the store, or are uncertain (the oracle's business), not this library's to publish.
        peer.ownIDs.removeAll()
        // A record bit rot hit while the replica was down is judged by the restart that follows
        // it; the restored library is judged by `makeUncertain` below instead.
        peer.rottedRecord = nil
        // `idsRotBeforePublishing` stays: a backup taken after the rot holds the same records
        // back (one from before holds them applied, and the allowance is what is held back).
        guard open(peer, after: "restoring a backup") else { return }
        oracle.makeUncertain(peer: peer.index)
        peer.isCopy = true
        peer.status = .live
        peer.savedVersion = peer.replica!.notebook.version
        meter?.makeUncertain(peer: peer.index, beyond: peer.savedVersion)
        meter?.fault(peer: peer.index, at: now, "restore-backup")
        rebuildShadows(peer)
        record(peer, .fault, UInt64(image.totalBytes)) { "library restored from a backup (\(peer.replica!.notebook.version.operationCount) operations)" }
    }

    // MARK: Leaving

    func leave(_ peer: Peer, graceful: Bool) {
        guard peer.status == .live || peer.status == .down else { return skip(peer, "leave: not running") }
        if parameters.engine == .replica, graceful, peer.status == .live, peer.session == nil {
            peer.leavesAfterSync = true
            startSync(peer)
            if peer.session != nil { return }
            peer.leavesAfterSync = false
        }
        depart(peer)
    }

    /// The replica goes away for good.
    func depart(_ peer: Peer) {
        storeHoldsWhatNoLibraryDoes = true
        if parameters.engine == .notebook, peer.status == .live, let target = livePeers.first(where: { $0 !== peer }) {
            // A notebook hands everything to another replica before it goes.
            deliverDirectly(from: peer, to: target)
        }
        if let replica = peer.replica, replica.unpublishedOperationCount == 0, peer.syncedSinceStoreLoss {
            oracle.commit(peer: peer.index)
            oracle.published(peer: peer.index)
        }
        oracle.makeUncertain(peer: peer.index)
        if let meter {
            meter.makeUncertain(peer: peer.index, beyond: nil)
            meter.syncCut(peer: peer.index, at: now)
            meter.fault(peer: peer.index, at: now, "leave")
        }
        peer.replica?.closeNow()
        peer.replica = nil
        peer.session = nil
        peer.sessionNumber += 1
        peer.status = .departed
        peer.caret = nil
        statistics.leaves += 1
        record(peer, .leave) { "leaves for good" }
    }
}

extension Simulation {
    // MARK: The store lost

    /// The store is wiped, or replaced by an older image of itself, at once for every reader
    /// (a synced folder re-created, or restored from a backup). Every library still holds what
    /// it published, and must publish again what the store lacks.
    func loseStore(_ peer: Peer, which: UInt32) {
        guard storeMayBeLost(peer, "store loss") else { return }
        let choice = Int(which) % (storeImages.count + 1)
        let image = choice == 0 ? [] : storeImages[choice - 1]
        // A wiped store lost its key blob too; an older image held the run's.
        replaceStore(with: image, keyBlob: choice == 0 ? .none : .own)
        record(peer, .fault, UInt64(choice), UInt64(image.count)) {
            choice == 0 ? "the store is wiped" : "the store is replaced by an older copy of itself (\(image.count) blobs)"
        }
    }

    /// The operator keeps a copy of the store as it is now under `slot`.
    func backUpStore(_ peer: Peer, slot: UInt32) {
        guard parameters.engine == .replica, let store, !isFinalPhase else { return }
        let image = store.groundTruth(prefix: "").map { ($0.key, store.bytes(of: $0.key)!) }
        storeBackups[slot] = (image, storeKeyBlob, now)
        record(peer, .fault, UInt64(slot), UInt64(image.count)) { "the store's operator keeps a backup of it (\(image.count) blobs)" }
    }

    /// The store is replaced by the copy kept under `slot` (a folder restored from a backup).
    func restoreStore(_ peer: Peer, slot: UInt32) {
        guard let backup = storeBackups[slot] else { return skip(peer, "store restore: no backup was kept in slot \(slot)") }
        guard storeMayBeLost(peer, "store restore") else { return }
        replaceStore(with: backup.image, keyBlob: backup.keyBlob)
        record(peer, .fault, UInt64(slot), UInt64(backup.image.count)) {
            "the store is restored from the backup of \(SimulatedTime.describe(backup.takenAtMilliseconds)), \(SimulatedTime.short(self.now - backup.takenAtMilliseconds)) old (\(backup.image.count) blobs)"
        }
    }

    /// Whether the store may be lost now (a wipe, an older image, a restored backup): not when
    /// it may hold operations no library holds (the loss would not be the engine's).
    private func storeMayBeLost(_ peer: Peer, _ what: String) -> Bool {
        guard parameters.engine == .replica, store != nil, !isFinalPhase else { return false }
        guard !storeHoldsWhatNoLibraryDoes else {
            skip(peer, "\(what): the store may hold what no library does")
            return false
        }
        // Bit rot took published operations from a library that has not got them back yet: the
        // store may be the only place that holds them.
        guard !peers.contains(where: { $0.awaitsRottedOperations != nil && $0.status != .departed }) else {
            skip(peer, "\(what): the store holds operations bit rot took from a library")
            return false
        }
        return true
    }

    /// The store's contents become `image` at once for every reader; `keyBlob`: what it holds
    /// of the run's key blob then.
    private func replaceStore(with image: [(key: String, bytes: [UInt8])], keyBlob: StoreKeyBlob) {
        guard let store else { return }
        // A listing taken before the loss (a stale one) may still show the snapshots it lost:
        // a deletion they covered is the engine's rule applied to what it saw; the listing check
        // publishes what the store lacks again.
        for record in writtenSnapshots where !image.contains(where: { $0.key == record.key }) { snapshotsLostWithTheStore.insert(record.key) }
        store.replaceContents(with: image, now: now)
        if keyBlobs != nil { storeKeyBlob = keyBlob }
        oracle.storeLost()
        storeLossCount += 1
        lastStoreLossMilliseconds = now
        for other in peers { other.syncedSinceStoreLoss = false }
    }

    /// Keeps an image of the store now and then, for ``loseStore(_:which:)``.
    func keepStoreImage() {
        guard let store, statistics.syncsFinished % 16 == 0 else { return }
        storeImages.append(store.groundTruth(prefix: "").map { ($0.key, store.bytes(of: $0.key)!) })
        if storeImages.count > 3 { storeImages.removeFirst() }
    }
}
