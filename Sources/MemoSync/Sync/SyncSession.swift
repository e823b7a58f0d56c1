import MemoCRDT

// A sync, as a state machine with no I/O of its own.
//
// The session asks for one store operation at a time (`nextAction()`) and takes its result
// (`handle(_:)`). `Replica.sync(with:)` performs the operations on a real store; the simulator
// performs them on its simulated one, interleaving the steps of many replicas. Every decision
// comes from what the blobs hold (their names carry replica ids and counter ranges, their bodies
// carry operations with ids), never from file dates or the absence of a file.
//
// One sync runs these phases:
//
// 1. List:    list every blob under `memosync/v1/`.
// 2. Verify:  blobs under this replica's own prefix that it does not remember writing are read
//             and compared with what it holds. The same operations: it wrote them and forgot
//             (a crash before its state was saved). More operations after the same ones: a
//             library restored from a backup; they are applied like anyone else's. Different
//             operations under the same ids: another copy of this library (a clone, or the
//             original of a restored backup) published them, so this copy moves its operations
//             from the first difference on to a fresh replica id, and deletes what it had
//             published under the shared id from there on.
// 3. Fetch:   for each replica in the listing, read the segment that covers the next counter
//             this notebook lacks, apply it, repeat. A notebook that holds nothing, or that
//             meets a gap (segments deleted by their writer after its snapshot covered them),
//             reads a snapshot first: a whole notebook, merged. Blobs that cannot be used are
//             skipped and reported; another copy (a conflicted copy, a longer segment) is tried.
// 4. Publish: this replica's operations the store lacks go out as one segment under its prefix.
// 5. Snapshot: after `snapshotAfterSegments` own segments, or `snapshotEveryOperations`
//             operations of anyone, a snapshot of the whole notebook.
// 6. Collect: own segments covered by an own snapshot, and own snapshots replaced by a newer one,
//             are deleted once the covering snapshot is older than the grace period.

/// How far a sync has come.
public struct SyncProgress: Sendable, Equatable {
    /// Store operations done.
    public var blobsDone: Int
    /// Store operations done plus those known to be still ahead (an estimate that grows as the
    /// session learns more).
    public var blobsPlanned: Int
    /// Bytes read so far.
    public var bytesRead: Int
    /// Bytes written so far.
    public var bytesWritten: Int
}

/// One sync of a notebook with a store, as a state machine that performs no I/O.
///
/// ```swift
/// var session = SyncSession(notebook: notebook, state: state, configuration: .init(),
///                           wallMilliseconds: now, freshReplicaID: fresh)
/// while let action = session.nextAction() {
///     session.handle(perform(action))   // exactly one action outstanding at a time
/// }
/// notebook = session.notebook
/// state = session.state
/// ```
///
/// Store failures do not stop a sync: they are reported in ``report`` and the session goes on
/// with what it can do (a failed listing ends it, since nothing else is safe without one).
public struct SyncSession {
    /// The notebook, with everything the sync applied.
    public private(set) var notebook: Notebook
    /// What the replica remembers about the store, updated.
    public private(set) var state: SyncState
    /// What the sync did so far.
    public private(set) var report = SyncReport()

    let configuration: SyncConfiguration
    let nowMilliseconds: UInt64
    let freshReplicaID: ReplicaID

    enum Phase { case list, verify, fetch, publish, snapshot, collect, finished }

    var phase: Phase = .list
    /// The action handed out and not yet answered.
    var outstanding: SyncAction?
    /// The parsed listing.
    var segments: [ReplicaID: [ListedSegment]] = [:]
    var snapshots: [ListedSnapshot] = []
    /// Keys read (or given up on) in this session: never read twice.
    var attempted: Set<String> = []
    /// Own blobs to verify, in order.
    var verifyQueue: [String] = []
    /// Segments decoded while verifying, kept for the fetch phase.
    var decodedSegments: [String: NotebookDelta] = [:]
    /// The first own counter at which another copy of this library published different operations.
    var forkCounter: UInt32?
    /// For each replica, the end of the segments applied so far (operations beyond the notebook's
    /// version are held back for missing dependencies; they must not be fetched again).
    var fetchedThrough: [ReplicaID: UInt32] = [:]
    /// Keys to delete in the collect phase, in order.
    var deletions: [String] = []
    /// The segment or snapshot being written, and what it covers.
    var pendingWrite: (key: String, ownOperations: UInt32)?
    /// Each of publish and snapshot is tried once per sync.
    var publishAttempted = false
    var snapshotAttempted = false
    var publishFailed = false
    var blobsDone = 0

    struct ListedSegment {
        var key: String
        var start: UInt32
        var end: UInt32
    }

    struct ListedSnapshot {
        var key: String
        var replica: ReplicaID
        var totalOperations: UInt64
    }

    /// Starts a sync of `notebook`.
    ///
    /// - Parameters:
    ///   - state: what the replica remembered about the store after its last sync.
    ///   - wallMilliseconds: the wall clock now (only for the grace period of deletions).
    ///   - freshReplicaID: the id to continue under if this library turns out to share its id
    ///     with another copy of itself (drawn by the caller from its random source).
    public init(
        notebook: Notebook, state: SyncState, configuration: SyncConfiguration, wallMilliseconds: UInt64,
        freshReplicaID: ReplicaID
    ) {
        precondition(freshReplicaID != notebook.replica, "the fresh replica id must differ from the current one")
        self.notebook = notebook
        self.state = state
        self.configuration = configuration
        self.nowMilliseconds = wallMilliseconds
        self.freshReplicaID = freshReplicaID
    }

    /// True once the sync is over.
    public var isFinished: Bool { phase == .finished }

    /// The replica this session publishes as (it changes when the library is re-identified).
    public var replica: ReplicaID { notebook.replica }

    /// How far the sync has come.
    public var progress: SyncProgress {
        var ahead = verifyQueue.count + deletions.count
        if phase == .fetch || phase == .verify || phase == .list {
            for (replicaID, list) in segments {
                let held = max(notebook.version[replicaID], fetchedThrough[replicaID] ?? 0)
                ahead += list.reduce(0) { $0 + ($1.end > held && !attempted.contains($1.key) ? 1 : 0) }
            }
        }
        return SyncProgress(
            blobsDone: blobsDone, blobsPlanned: blobsDone + ahead + (outstanding == nil ? 0 : 1),
            bytesRead: report.bytesRead, bytesWritten: report.bytesWritten)
    }

    /// The next store operation to perform, or nil when the sync is over. Each action must be
    /// answered with ``handle(_:)`` before the next is asked for.
    public mutating func nextAction() -> SyncAction? {
        precondition(outstanding == nil, "the previous action has not been answered")
        while true {
            let action: SyncAction?
            switch phase {
            case .list: action = .list(prefix: StoreLayout.root)
            case .verify: action = nextVerification()
            case .fetch: action = nextFetch()
            case .publish: action = nextPublication()
            case .snapshot: action = nextSnapshot()
            case .collect: action = nextDeletion()
            case .finished: return nil
            }
            if let action {
                outstanding = action
                return action
            }
            advancePhase()
        }
    }

    /// Takes the result of the action ``nextAction()`` returned.
    public mutating func handle(_ result: SyncResult) {
        guard let action = outstanding else { preconditionFailure("no action is outstanding") }
        outstanding = nil
        blobsDone += 1
        switch (action, result) {
        case let (_, .failed(error)):
            failed(action, error)
        case let (.list, .listed(entries)):
            takeListing(entries)
            phase = .verify
        case let (.read(key), .read(bytes)):
            report.blobsRead += 1
            report.bytesRead += bytes.count
            took(key: key, bytes: bytes)
        case let (.write(key, bytes), .done):
            report.blobsWritten += 1
            report.bytesWritten += bytes.count
            wrote(key: key)
        case let (.delete(key), .done):
            deleted(key: key)
        default:
            report.errors.append("the store answered \(action) with an unexpected result")
            if case .list = action { phase = .finished }
        }
    }

    // MARK: Phases

    private mutating func advancePhase() {
        switch phase {
        case .list: phase = .verify
        case .verify:
            if let forkCounter { reidentify(from: forkCounter) }
            phase = .fetch
        case .fetch:
            adoptPublishedOwnSegments()
            report.pendingOperationCount = notebook.pendingOperationCount
            phase = .publish
        case .publish: phase = .snapshot
        case .snapshot:
            planDeletions()
            phase = .collect
        case .collect:
            state.lastSyncMilliseconds = nowMilliseconds
            phase = .finished
        case .finished: break
        }
    }

    private mutating func failed(_ action: SyncAction, _ error: BlobStoreError) {
        switch action {
        case .list:
            report.errors.append("listing the store failed: \(error)")
            phase = .finished
        case let .read(key):
            // Listed but gone or unreadable now: skipped, tried again next time.
            attempted.insert(key)
            report.skipped.append(SkippedBlob(key: key, reason: .unreadable(error.description)))
            if phase == .verify { verifyQueue.removeAll { $0 == key } }
        case let .write(key, _):
            #if MEMOSYNC_MUTANTS
            if EngineMutant.active == .publishCountsFailedWrite, case .segment? = StoreLayout.parse(key) { wrote(key: key) }
            #endif
            report.errors.append("writing \(key) failed: \(error)")
            pendingWrite = nil
            publishFailed = true
        case let .delete(key):
            if case .notFound = error {
                deleted(key: key)
            } else {
                // Tried again next sync.
                deletions.removeAll { $0 == key }
                report.errors.append("deleting \(key) failed: \(error)")
            }
        }
    }

    // MARK: Listing

    private mutating func takeListing(_ entries: [BlobInfo]) {
        report.blobsListed = entries.count
        let ownKnown = Set(state.ownSegments).union(state.ownSnapshots.map(\.key))
        var ownUnknown: [(start: UInt64, key: String)] = []
        for entry in entries.sorted(by: { $0.key < $1.key }) {
            guard entry.sizeBytes > 0 else { continue }
            switch StoreLayout.parse(entry.key) {
            case nil:
                report.skipped.append(SkippedBlob(key: entry.key, reason: .notMemoSync))
            case let .segment(replicaID, start, end)?:
                segments[replicaID, default: []].append(ListedSegment(key: entry.key, start: start, end: end))
                if replicaID == notebook.replica && !ownKnown.contains(entry.key) {
                    ownUnknown.append((UInt64(start), entry.key))
                }
            case let .snapshot(replicaID, total)?:
                snapshots.append(ListedSnapshot(key: entry.key, replica: replicaID, totalOperations: total))
                if replicaID == notebook.replica && !ownKnown.contains(entry.key) {
                    // Snapshots after segments: a segment is cheaper to compare.
                    ownUnknown.append((UInt64(UInt32.max) + total, entry.key))
                }
            }
        }
        verifyQueue = ownUnknown.sorted { ($0.start, $0.key) < ($1.start, $1.key) }.map(\.key)
        // Newest first, ties by key, so choices are deterministic.
        snapshots.sort { ($0.totalOperations, $1.key) > ($1.totalOperations, $0.key) }
    }

    // MARK: Verify

    private mutating func nextVerification() -> SyncAction? {
        while let key = verifyQueue.first {
            if attempted.contains(key) {
                verifyQueue.removeFirst()
                continue
            }
            return .read(key: key)
        }
        return nil
    }

    /// Compares the operations under this replica's id in a blob it did not know of.
    private mutating func verify(key: String, bytes: [UInt8]) {
        verifyQueue.removeAll { $0 == key }
        let me = notebook.replica
        let delta: NotebookDelta
        switch StoreLayout.parse(key) {
        case let .segment(_, start, end)?:
            guard let decoded = decodeSegment(key: key, bytes: bytes, replica: me, counters: start..<end) else { return }
            delta = decoded
            decodedSegments[key] = decoded
        case .snapshot?:
            guard let snapshot = decodeSnapshot(key: key, bytes: bytes) else { return }
            do throws(NotebookError) {
                delta = try snapshot.changes(of: me, counters: 0..<snapshot.version[me])
            } catch {
                report.skipped.append(SkippedBlob(key: key, reason: .corrupt(error.description)))
                return
            }
            switch notebook.compareOperations(of: me, with: delta) {
            case .same:
                // One of this replica's snapshots, forgotten in a crash: remember it for collection.
                state.ownSnapshots.append(SyncState.OwnSnapshot(key: key, ownOperations: snapshot.version[me], writtenAtMilliseconds: nowMilliseconds))
                state.ownSnapshots.sort { $0.ownOperations < $1.ownOperations }
                merge(snapshot, key: key)
            case .extends:
                // A restored backup: the snapshot holds this replica's later operations.
                merge(snapshot, key: key)
            case let .differs(fromCounter):
                // Another copy's: read again (as another replica's) after re-identification.
                forkCounter = min(forkCounter ?? fromCounter, fromCounter)
                attempted.remove(key)
            }
            return
        case nil:
            return
        }
        switch notebook.compareOperations(of: me, with: delta) {
        case .same, .extends:
            break
        case let .differs(fromCounter):
            forkCounter = min(forkCounter ?? fromCounter, fromCounter)
        }
    }

    /// Moves this replica's operations from `fork` on to the fresh id, and plans the deletion of
    /// what this copy published under the shared id from there on.
    private mutating func reidentify(from fork: UInt32) {
        let old = notebook.replica
        do throws(NotebookError) {
            notebook = try notebook.reidentified(from: fork, as: freshReplicaID)
        } catch {
            report.errors.append("cannot move this library to a new replica id: \(error)")
            phase = .finished
            return
        }
        report.reidentified = SyncReport.Reidentification(from: old, to: freshReplicaID, fromCounter: fork)
        for key in state.ownSegments {
            if case let .segment(_, _, end)? = StoreLayout.parse(key), end > fork { deletions.append(key) }
        }
        for snapshot in state.ownSnapshots where snapshot.ownOperations > fork {
            deletions.append(snapshot.key)
        }
        // What this copy wrote under the old id is not to be fetched back.
        attempted.formUnion(deletions)
        for key in state.ownSegments where !deletions.contains(key) { attempted.insert(key) }
        // Other own-id blobs from this copy below the fork stay; they hold the same operations
        // as the other copy's and are the other copy's to collect.
        state = SyncState()
        state.lastSyncMilliseconds = 0
    }

    // MARK: Fetch

    private mutating func nextFetch() -> SyncAction? {
        guard phase == .fetch else { return nil }
        // A notebook that holds nothing starts from the newest snapshot.
        if notebook.version.entries.isEmpty, let snapshot = snapshots.first(where: { !attempted.contains($0.key) }) {
            return .read(key: snapshot.key)
        }
        var gapReplicas: [ReplicaID] = []
        for replicaID in segments.keys.sorted() {
            let held = max(notebook.version[replicaID], fetchedThrough[replicaID] ?? 0)
            var best: ListedSegment?
            var beyond = false
            for segment in segments[replicaID]! where segment.end > held && !attempted.contains(segment.key) {
                beyond = true
                guard segment.start <= held else { continue }
                if let current = best {
                    if (segment.end, current.key.utf8.count, current.key) > (current.end, segment.key.utf8.count, segment.key) {
                        best = segment
                    }
                } else {
                    best = segment
                }
            }
            if let best { return .read(key: best.key) }
            if beyond { gapReplicas.append(replicaID) }
        }
        // A gap: the writer collected segments its snapshot covers. Its newest snapshot has them.
        for replicaID in gapReplicas {
            if let snapshot = snapshots.first(where: { $0.replica == replicaID && !attempted.contains($0.key) }) {
                return .read(key: snapshot.key)
            }
        }
        if !gapReplicas.isEmpty, let snapshot = snapshots.first(where: { !attempted.contains($0.key) }) {
            return .read(key: snapshot.key)
        }
        return nil
    }

    private mutating func took(key: String, bytes: [UInt8]) {
        attempted.insert(key)
        if phase == .verify {
            verify(key: key, bytes: bytes)
            // A verified segment is applied by the fetch phase (from the decoded copy).
            if decodedSegments[key] != nil { attempted.remove(key) }
            return
        }
        switch StoreLayout.parse(key) {
        case let .segment(replicaID, start, end)?:
            let delta: NotebookDelta
            if let decoded = decodedSegments[key] {
                delta = decoded
            } else {
                guard let decoded = decodeSegment(key: key, bytes: bytes, replica: replicaID, counters: start..<end) else { return }
                delta = decoded
            }
            if replicaID == notebook.replica, case .differs = notebook.compareOperations(of: replicaID, with: delta) {
                // Found only now (a listing that missed it before verification): not applied;
                // the next sync verifies it and moves this library to a new id.
                report.skipped.append(SkippedBlob(key: key, reason: .corrupt("operations under this replica's id that it did not make")))
                return
            }
            apply(delta, key: key)
            fetchedThrough[replicaID] = max(fetchedThrough[replicaID] ?? 0, end)
        case .snapshot?:
            guard let snapshot = decodeSnapshot(key: key, bytes: bytes) else { return }
            let me = notebook.replica
            if snapshot.version[me] > 0 {
                // It holds operations under this replica's id: only if they are the same ones.
                do throws(NotebookError) {
                    let own = try snapshot.changes(of: me, counters: 0..<snapshot.version[me])
                    if case .differs = notebook.compareOperations(of: me, with: own) {
                        report.skipped.append(SkippedBlob(key: key, reason: .corrupt("operations under this replica's id that it did not make")))
                        return
                    }
                } catch {
                    report.skipped.append(SkippedBlob(key: key, reason: .corrupt(error.description)))
                    return
                }
            }
            merge(snapshot, key: key)
        case nil:
            break
        }
    }

    private mutating func merge(_ snapshot: Notebook, key: String) {
        let before = notebook.version.operationCount
        do throws(NotebookError) {
            try notebook.merge(snapshot)
            report.operationsApplied += notebook.version.operationCount - before
        } catch {
            report.skipped.append(SkippedBlob(key: key, reason: .corrupt(error.description)))
        }
    }

    private mutating func apply(_ delta: NotebookDelta, key: String) {
        do throws(NotebookError) {
            let applied = try notebook.apply(delta)
            report.operationsApplied += applied.appliedOperationCount
        } catch {
            report.skipped.append(SkippedBlob(key: key, reason: .corrupt(error.description)))
        }
    }

    /// A segment's delta, checked to hold exactly the operations its name says; nil (and a
    /// report entry) when it cannot be used.
    private mutating func decodeSegment(key: String, bytes: [UInt8], replica: ReplicaID, counters: Range<UInt32>) -> NotebookDelta? {
        let delta: NotebookDelta
        do throws(DecodingError) {
            delta = try NotebookDelta(decoding: bytes)
        } catch {
            report.skipped.append(SkippedBlob(key: key, reason: SkipReason(error)))
            return nil
        }
        let ranges = delta.counterRanges
        guard ranges.count == 1, ranges[0].replica == replica, ranges[0].counters == counters else {
            report.skipped.append(SkippedBlob(key: key, reason: .corrupt("its operations are not the ones its name says")))
            return nil
        }
        return delta
    }

    private mutating func decodeSnapshot(key: String, bytes: [UInt8]) -> Notebook? {
        do throws(DecodingError) {
            return try Notebook(decoding: bytes, replica: notebook.replica)
        } catch {
            report.skipped.append(SkippedBlob(key: key, reason: SkipReason(error)))
            return nil
        }
    }

    /// Own segments found in the store (verified or fetched) extend what is known published.
    private mutating func adoptPublishedOwnSegments() {
        let me = notebook.replica
        guard let own = segments[me] else { return }
        let held = notebook.version[me]
        var known = Set(state.ownSegments)
        for segment in own.sorted(by: { ($0.start, $0.key) < ($1.start, $1.key) })
        where attempted.contains(segment.key) || known.contains(segment.key) || decodedSegments[segment.key] != nil {
            // Only segments whose operations are held and the same (the fetch skipped others).
            guard segment.end <= held, !report.skipped.contains(where: { $0.key == segment.key }) else { continue }
            if !known.contains(segment.key) {
                state.ownSegments.append(segment.key)
                known.insert(segment.key)
            }
            if segment.start <= state.publishedOperations { state.publishedOperations = max(state.publishedOperations, segment.end) }
        }
    }

    // MARK: Publish

    private mutating func nextPublication() -> SyncAction? {
        guard !publishAttempted else { return nil }
        publishAttempted = true
        let me = notebook.replica
        let held = notebook.version[me]
        guard held > state.publishedOperations else { return nil }
        let delta: NotebookDelta
        do throws(NotebookError) {
            delta = try notebook.changes(of: me, counters: state.publishedOperations..<held)
        } catch {
            report.errors.append("cannot collect this replica's operations: \(error)")
            return nil
        }
        let bytes = delta.encoded()
        let key = StoreLayout.segmentKey(replica: me, counters: state.publishedOperations..<held, bytes: bytes)
        pendingWrite = (key, held)
        return .write(key: key, bytes: bytes)
    }

    private mutating func nextSnapshot() -> SyncAction? {
        guard !snapshotAttempted, !publishFailed else { return nil }
        snapshotAttempted = true
        let me = notebook.replica
        let own = notebook.version[me]
        let lastOwn = state.ownSnapshots.last?.ownOperations ?? 0
        let uncoveredSegments = state.ownSegments.reduce(0) { count, key in
            if case let .segment(_, _, end)? = StoreLayout.parse(key), end > lastOwn { return count + 1 }
            return count
        }
        let total = UInt64(notebook.version.operationCount)
        // Operations are counted from the newest snapshot anyone published (a device that
        // bootstrapped from one does not publish the same again).
        let covered = max(state.operationsAtLastSnapshot, snapshots.first?.totalOperations ?? 0)
        let due = uncoveredSegments >= configuration.snapshotAfterSegments
            || (total >= covered + UInt64(configuration.snapshotEveryOperations) && own > lastOwn)
        guard due, own > 0 else { return nil }
        let bytes = notebook.encoded()
        let key = StoreLayout.snapshotKey(replica: me, totalOperations: total, bytes: bytes)
        guard !state.ownSnapshots.contains(where: { $0.key == key }) else { return nil }
        pendingWrite = (key, own)
        return .write(key: key, bytes: bytes)
    }

    private mutating func wrote(key: String) {
        guard let written = pendingWrite, written.key == key else { return }
        pendingWrite = nil
        switch StoreLayout.parse(key) {
        case .segment?:
            state.publishedOperations = written.ownOperations
            state.ownSegments.append(key)
            report.publishedSegment = key
        case .snapshot?:
            state.ownSnapshots.append(SyncState.OwnSnapshot(key: key, ownOperations: written.ownOperations, writtenAtMilliseconds: nowMilliseconds))
            state.operationsAtLastSnapshot = UInt64(notebook.version.operationCount)
            report.publishedSnapshot = key
        case nil:
            break
        }
    }

    // MARK: Collect

    private mutating func planDeletions() {
        let grace = configuration.gracePeriodMilliseconds
        func aged(_ snapshot: SyncState.OwnSnapshot) -> Bool {
            #if MEMOSYNC_MUTANTS
            if EngineMutant.active == .gcWithoutGracePeriod { return true }
            #endif
            return nowMilliseconds >= snapshot.writtenAtMilliseconds && nowMilliseconds - snapshot.writtenAtMilliseconds >= grace
        }
        // The newest aged snapshot decides what is covered.
        guard let covering = state.ownSnapshots.last(where: aged) else { return }
        // The segment that ends last stays: its name tells readers how far this replica has
        // published, so one that lacks collected segments knows to read a snapshot.
        var lastEnd: UInt32 = 0
        for key in state.ownSegments {
            if case let .segment(_, _, end)? = StoreLayout.parse(key) { lastEnd = max(lastEnd, end) }
        }
        for key in state.ownSegments {
            if case let .segment(_, _, end)? = StoreLayout.parse(key), end <= covering.ownOperations, end < lastEnd,
                !deletions.contains(key)
            {
                deletions.append(key)
            }
        }
        for snapshot in state.ownSnapshots where snapshot.key != covering.key && snapshot.ownOperations <= covering.ownOperations {
            if !deletions.contains(snapshot.key) { deletions.append(snapshot.key) }
        }
    }

    private mutating func nextDeletion() -> SyncAction? {
        guard let key = deletions.first else { return nil }
        return .delete(key: key)
    }

    private mutating func deleted(key: String) {
        deletions.removeAll { $0 == key }
        if state.ownSegments.contains(key) || state.ownSnapshots.contains(where: { $0.key == key }) {
            state.ownSegments.removeAll { $0 == key }
            state.ownSnapshots.removeAll { $0.key == key }
        }
        report.blobsDeleted += 1
    }
}

