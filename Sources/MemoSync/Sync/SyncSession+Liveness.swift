import MemoCRDT

// What keeps a sync live over time (FORMAT.md, "Liveness"): the listing is checked against what
// this library believes it published (a new, wiped or restored store gets its history again),
// heads say what each replica holds and lacks, and a replica that holds what another lacks, in
// none of its snapshots in the store, writes one.

extension SyncSession {
    // MARK: What the store still holds of this library

    /// Lowers what counts as published to what the listing shows of each lineage id: its listed
    /// segments chained from the start, or from what a listed own snapshot holds. Whatever a new,
    /// wiped or restored store lacks is published again in this sync, as a snapshot of
    /// everything: the operations the store lost may have been published with others no listing
    /// names (an earlier session's, which a later session published in its own segment, and
    /// whose id has left the lineage since), and other replicas' operations may be gone too. A
    /// segment of what the names show lost could hold operations that build on those, which
    /// nobody could apply once this library is gone (Simulations/README.md, "Seed 824"). A
    /// store that lists nothing of what the notebook holds, while the notebook holds operations
    /// of ids outside the lineage, has lost the library's history too (FORMAT.md, "Checking the
    /// store").
    mutating func reconcilePublished() {
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active == .publishCountsFailedWrite { return }
        #endif
        let listedOwnSnapshots = state.ownSnapshots.filter { listedKeys.contains($0.key) }
        for id in state.lineage {
            let published = state.published[id]
            guard published > 0 else { continue }
            var covered: UInt32 = 0
            for snapshot in listedOwnSnapshots { covered = max(covered, snapshot.version[id]) }
            for segment in (segments[id] ?? []).sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) where segment.start <= covered {
                covered = max(covered, segment.end)
            }
            guard covered < published else { continue }
            state.published[id] = covered
            report.republishedOperationCount += Int(published - covered)
            storeLostHistory = true
        }
        guard !storeLostHistory else { return }
        // What the notebook holds of ids outside the lineage (other replicas', and earlier ids
        // of this library that left it) is published again only as part of a snapshot. A store
        // that lists no segment and no snapshot of any replica the notebook holds operations of
        // (a new store, a wiped one, one whose ciphertext `memo store decrypt` deleted) lacks
        // all of it: without this, a library whose earlier ids all left the lineage published
        // nothing there but a head, and a new device's first sync got nothing.
        let version = notebook.version
        guard version.entries.contains(where: { !state.lineage.contains($0.replica) }) else { return }
        if segments.keys.contains(where: { version[$0] > 0 }) || snapshots.contains(where: { version[$0.replica] > 0 }) { return }
        storeLostHistory = true
    }

    // MARK: What the store offers

    /// Per replica, how many of its operations a reader can get from the store or from another
    /// replica than this one: its listed segments chained from what a listed snapshot whose
    /// contents this library knows holds (its own, one it read, one named in a head), what the
    /// listed heads of other libraries say they hold, and, for this library's lineage, what it
    /// published (its earlier sessions' operations travel inside later sessions' segments,
    /// which names do not show; `reconcilePublished()` lowered it to what the store still
    /// holds). What a segment about to be written builds on must be in it or offered
    /// (`Notebook.builds(on:beyond:)`; Simulations/README.md, "Seed 3093").
    func storeOffers() -> [ReplicaID: UInt32] {
        var offered: [ReplicaID: UInt32] = [:]
        func take(_ version: VersionVector) {
            for entry in version.entries { offered[entry.replica] = max(offered[entry.replica] ?? 0, entry.operationCount) }
        }
        for snapshot in state.ownSnapshots where listedKeys.contains(snapshot.key) { take(snapshot.version) }
        for snapshot in state.readSnapshots where listedKeys.contains(snapshot.key) { take(snapshot.version) }
        for other in state.otherHeads where !state.lineage.contains(other.replica) && listedKeys.contains(other.key) {
            take(other.head.holds)
            if let newest = other.head.newestSnapshot, listedKeys.contains(newest.key) { take(newest.version) }
        }
        for id in state.lineage { offered[id] = max(offered[id] ?? 0, state.published[id]) }
        for (replica, list) in segments {
            var covered = offered[replica] ?? 0
            for segment in list.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) where segment.start <= covered {
                covered = max(covered, segment.end)
            }
            offered[replica] = covered
        }
        return offered
    }

    // MARK: Heads

    mutating func nextHeadRead() -> SyncAction? {
        // Heads leave the queue from its front as they are done (never searched: a store may
        // list many).
        var done = 0
        while done < headQueue.count, headsDone.contains(headQueue[done]) || attempted.contains(headQueue[done]) { done += 1 }
        if done > 0 { headQueue.removeFirst(done) }
        return headQueue.first.map { .read(key: $0) }
    }

    /// Takes another replica's head: the newest one of its replica (by the operations it holds;
    /// a replica's heads only grow, but its previous one may still be listed).
    mutating func readHead(key: String, bytes: [UInt8]) {
        headsDone.insert(key)
        guard case let .head(replica)? = StoreLayout.parse(key) else { return }
        let head: SyncHead
        do throws(DecodingError) {
            head = try SyncHead(decoding: bytes)
        } catch {
            skip(key, SkipReason(error), .bytes(bytes))
            return
        }
        let read = SyncState.KnownHead(replica: replica, key: key, head: head)
        if let index = state.otherHeads.firstIndex(where: { $0.replica == replica }) {
            let current = state.otherHeads[index]
            if (head.holds.operationCount, key) > (current.head.holds.operationCount, current.key) { state.otherHeads[index] = read }
        } else {
            let index = state.otherHeads.firstIndex { $0.replica > replica } ?? state.otherHeads.endIndex
            state.otherHeads.insert(read, at: index)
        }
    }

    /// Operations known to exist (held by a replica whose head was read, or named by a listed
    /// segment) that this notebook does not hold (held back ones included: what they wait for
    /// comes with them in a snapshot of a replica that holds them), and that no listed segment it
    /// has not tried in this sync offers: for each replica, how many exist.
    func currentLacks() -> VersionVector {
        currentLacks(restrictedTo: nil)
    }

    /// Whether ``currentLacks()`` has an entry for `replica`.
    func currentLacks(only replica: ReplicaID) -> Bool {
        !currentLacks(restrictedTo: replica).isEmpty
    }

    private func currentLacks(restrictedTo only: ReplicaID?) -> VersionVector {
        // The heads' versions merged (sorted merges: a dictionary of counts hashed a replica id
        // per entry of every head, half a percent of a long simulation), then the segments'.
        func end(of list: [ListedSegment]) -> UInt32 {
            var end: UInt32 = 0
            for segment in list { end = max(end, segment.end) }
            return end
        }
        var known = VersionVector()
        if let only {
            var count: UInt32 = 0
            for other in state.otherHeads { count = max(count, other.head.holds[only]) }
            if let list = segments[only] { count = max(count, end(of: list)) }
            if count > 0 { known = VersionVector(entries: [VersionVector.Entry(replica: only, operationCount: count)]) }
        } else {
            for other in state.otherHeads { known.merge(other.head.holds) }
            var named: [VersionVector.Entry] = []
            named.reserveCapacity(segments.count)
            for (replica, list) in segments {
                let count = end(of: list)
                if count > 0 { named.append(VersionVector.Entry(replica: replica, operationCount: count)) }
            }
            known.merge(VersionVector(entries: named))
        }
        let version = notebook.version
        var lacks: [VersionVector.Entry] = []
        for entry in known.entries where entry.operationCount > version[entry.replica] {
            let held = version[entry.replica]
            // A listed segment that covers the next operation: read next time (or now).
            if let list = segments[entry.replica], list.contains(where: { $0.start <= held && $0.end > held && !attempted.contains($0.key) }) {
                continue
            }
            lacks.append(VersionVector.Entry(replica: entry.replica, operationCount: entry.operationCount))
        }
        return VersionVector(entries: lacks)
    }

    /// This library's snapshots in the listing (or written in this sync).
    var listedOwnSnapshots: [SyncState.OwnSnapshot] {
        state.ownSnapshots.filter { listedKeys.contains($0.key) }
    }

    /// Whether another replica's head lacks operations this notebook holds that none of its
    /// listed snapshots holds: only a new snapshot can give them (their segments are gone).
    func anotherReplicaWaitsForThisOne() -> Bool {
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active == .publishCountsFailedWrite { return false }
        #endif
        let version = notebook.version
        let own = listedOwnSnapshots
        return state.otherHeads.contains { other in
            let wanted = other.head.wanted(from: version)
            guard !wanted.isEmpty else { return false }
            return !own.contains { wanted.isIncluded(in: $0.version) }
        }
    }

    /// The segments a new device reads after the newest snapshot in the store whose contents
    /// this library knows (its own, or one named in another's head) that a new snapshot of this
    /// library would spare it: listed segments, one per range, that end past what that snapshot
    /// holds of their replica and within what this notebook holds. A segment reaching beyond
    /// what this notebook holds (junk named like a segment of a replica nobody has, or one not
    /// fetched yet) is read after any snapshot of this library too: writing one for it would
    /// only add a snapshot at every sync. With them, the bytes their listing gave.
    func segmentsAfterNewestKnownSnapshot() -> (count: Int, listedBytes: Int) {
        var newest: (total: Int, version: VersionVector)?
        for snapshot in listedOwnSnapshots where newest == nil || snapshot.version.operationCount > newest!.total {
            newest = (snapshot.version.operationCount, snapshot.version)
        }
        for other in state.otherHeads {
            guard let snapshot = other.head.newestSnapshot, listedKeys.contains(snapshot.key) else { continue }
            if newest == nil || snapshot.version.operationCount > newest!.total { newest = (snapshot.version.operationCount, snapshot.version) }
        }
        let covered = newest?.version ?? VersionVector()
        let version = notebook.version
        var count = 0
        var bytes = 0
        // One table for every replica, emptied between them: fewer allocations under the
        // replica's lock.
        var ranges = Set<UInt64>()
        for (replica, list) in segments {
            let held = version[replica]
            ranges.removeAll(keepingCapacity: true)
            for segment in list where segment.end > covered[replica] && segment.end <= held {
                if ranges.insert(UInt64(segment.start) << 32 | UInt64(segment.end)).inserted {
                    count += 1
                    bytes += listedSizes[segment.key] ?? 0
                }
            }
        }
        return (count, bytes)
    }

    mutating func nextHeadWrite() -> SyncAction? {
        guard !headAttempted else { return nil }
        headAttempted = true
        // A store that refused this sync's publication gets no head either (it would announce
        // operations the store does not hold yet); the next sync writes both.
        guard !publishFailed else { return nil }
        let version = notebook.version
        var newest: SyncState.ReadSnapshot?
        for snapshot in listedOwnSnapshots where newest == nil || snapshot.version.operationCount >= newest!.version.operationCount {
            newest = SyncState.ReadSnapshot(key: snapshot.key, version: snapshot.version)
        }
        let head = SyncHead(holds: version, lacks: currentLacks(), newestSnapshot: newest)
        // What it holds matters to others only where segment names do not tell them: operations
        // beyond every listed (or just published) segment of their replica. Otherwise a head is
        // rewritten only when what it lacks, or its newest snapshot, changed: in a store where
        // every operation is in a segment, a sync writes no head.
        let beyondNames = version.entries.filter { entry in
            var end = state.lineage.contains(entry.replica) ? state.published[entry.replica] : 0
            for segment in segments[entry.replica] ?? [] { end = max(end, segment.end) }
            return entry.operationCount > end
        }
        let holdsBeyondNames = !beyondNames.isEmpty
        if let own = state.ownHead, listedKeys.contains(own.key) {
            // Of what it holds, news are the counts beyond every segment name (a replica whose
            // operations came in a snapshot only, say) and those of replicas it lacks operations
            // of (others compare them with its lacks to see what it still wants: a stale one
            // would have them write snapshots it does not need). The rest the names tell; a
            // count the head leaves stale is only ever lower than the truth.
            let says = own.head.lacks != head.lacks || own.head.newestSnapshot != head.newestSnapshot
                || beyondNames.contains { own.head.holds[$0.replica] != $0.operationCount }
                || head.lacks.entries.contains { own.head.holds[$0.replica] != head.holds[$0.replica] }
            guard says else { return nil }
        } else if !head.isLacking && head.newestSnapshot == nil && !holdsBeyondNames {
            return nil
        }
        let bytes = head.encoded()
        let key = StoreLayout.headKey(replica: notebook.replica, bytes: bytes)
        pendingHead = (key, head)
        return .write(key: key, bytes: bytes)
    }

    mutating func wroteHead(key: String) {
        guard let written = pendingHead, written.key == key else { return }
        pendingHead = nil
        // The previous head goes, if it is the current id's: a head of an earlier id of the
        // lineage stays (another copy of this library may be going on under that id).
        if let old = state.ownHead, old.key != key, old.replica == notebook.replica, !staleOwnHeads.contains(old.key) {
            staleOwnHeads.append(old.key)
        }
        staleOwnHeads.removeAll { $0 == key }
        state.ownHead = SyncState.KnownHead(replica: notebook.replica, key: key, head: written.head)
        listedKeys.insert(key)
        report.publishedHead = key
    }
}
