import MemoCRDT
import MemoNotes

// A sync, as a state machine with no I/O of its own.
//
// The session hands out store operations (`nextActions(limit:notebook:)`), several at once, and
// takes their results in any order (`handle(_:_:notebook:)`). `Replica.sync(with:)` performs
// them on a real store, up to a limit in flight; the simulator performs them on its simulated
// one, completing them out of order from its seed. Every decision comes from what the blobs hold
// (their names carry replica ids and counter ranges, their bodies carry operations with ids),
// never from file dates or the absence of a file.
//
// How several operations can be in flight while every decision stays sequential: the phases
// below decide one step at a time, as if each operation were answered before the next. Reads
// they are about to want (the heads, the snapshots to verify, each replica's chain of segments
// from what the notebook holds) are handed out ahead as *prefetches*; their results wait in a
// buffer until the sequential step asks for them. The publication of this library's own
// operations, when no read can change it, is handed out right after the listing the same way;
// and the collect phase's deletions, which are independent, all go at once. So the outcome is
// the one of the same results answered one at a time, in any order of completion.
//
// The notebook is the replica's live one, lent to the session for each call: edits made between
// calls are the user typing during the sync. What the sync receives merges into it; what was
// typed goes out in this sync (when typed before its publication) or the next.
//
// Identity: a library keeps its replica id from one clean session to the next and takes a fresh
// one after a crash or in a copy (`Replica`, `LibrarySeal`), so copies of one library (a clone,
// a restored backup, the same library after a crash) never make different operations under one
// id, and every id's operations are one history. What a library has made
// under its earlier ids (its lineage, in `SyncState`) it publishes and collects as its own; any
// copy holding part of that history may publish it, and what it writes is the same operations.
//
// One sync runs these phases:
//
// 1. List:    list every blob under `memosync/v1/`. Segments of lineage ids that this library
//             holds but did not know were published (written before a crash, or by another
//             copy) count as published. Snapshots of lineage ids it does not know are read,
//             merged and remembered, so that they can be collected.
// 2. Fetch:   for each replica in the listing, read the segment that covers the next counter
//             this notebook lacks, apply it, repeat. A notebook that holds nothing, that meets a
//             gap (segments deleted by their writer after its snapshot covered them), or that
//             still holds operations back afterwards, reads a snapshot: a whole notebook,
//             merged. Blobs that cannot be used are skipped and reported; another copy (a
//             conflicted copy, a longer segment) is tried.
// 3. Publish: the operations of every lineage id that the store lacks go out as one segment,
//             named after the latest session among them (so an insertion of one session that a
//             later one deleted travels with its deletion).
// 4. Snapshot: after `snapshotAfterSegments` own segments, or `snapshotEveryOperations`
//             operations of anyone, a snapshot of the whole notebook, under the current id (for
//             a notebook past `snapshotAmortizedAboveBytes`, by count only once the segments
//             weigh a share of it or reach `snapshotAfterSegmentsMax`).
// 5. Collect: own segments covered by an own snapshot (except each id's last-ending one), and own
//             snapshots replaced by a newer one, are deleted once the covering snapshot is older
//             than the grace period. Ids whose history is published and collected leave the
//             lineage.

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

    /// Progress with these values: for SwiftUI previews and an app's view tests (a sync reports
    /// its own progress).
    public init(blobsDone: Int, blobsPlanned: Int, bytesRead: Int, bytesWritten: Int) {
        self.blobsDone = blobsDone
        self.blobsPlanned = blobsPlanned
        self.bytesRead = bytesRead
        self.bytesWritten = bytesWritten
    }

    /// The share done, 0 to 1, for a progress bar (0 before anything is planned).
    public var fractionDone: Double { blobsPlanned > 0 ? min(1, Double(blobsDone) / Double(blobsPlanned)) : 0 }
}

/// One sync of a notebook with a store, as a state machine that performs no I/O.
///
/// ```swift
/// var session = SyncSession(notebook: notebook, state: state, configuration: .init(),
///                           wallMilliseconds: now)
/// var inFlight: [SyncAction] = []
/// while !session.isFinished {
///     inFlight += session.nextActions(limit: 8 - inFlight.count, notebook: &notebook)
///     let action = inFlight.removeFirst()            // any of them, in any order
///     session.handle(action, perform(action), notebook: &notebook)
/// }
/// state = session.state
/// ```
///
/// Store failures do not stop a sync: they are reported in ``report`` and the session goes on
/// with what it can do (a failed listing ends it, since nothing else is safe without one).
package struct SyncSession {
    /// The replica's notebook while it is lent to the session (during ``nextActions(limit:notebook:)``
    /// and ``handle(_:_:notebook:)``); an empty placeholder between calls.
    var notebook: Notebook {
        // Without `oldValue`, an observer lets mutations happen in place.
        didSet { notebookRevision &+= 1 }
    }
    /// Bumped by every change of ``notebook`` (by the observer, so no path can miss it, and when
    /// a lent notebook was edited since the last call): a deferred segment that did not apply
    /// whole at one revision does not at the same one.
    var notebookRevision = 0
    /// The lent notebook's operation and held-back counts when it was last given back: a
    /// notebook lent with other counts was edited in between (a new revision).
    var givenBackCounts: (operations: Int, pending: Int) = (-1, -1)
    /// ``progress`` as of the last call.
    package private(set) var progress = SyncProgress(blobsDone: 0, blobsPlanned: 1, bytesRead: 0, bytesWritten: 0)
    /// What the replica remembers about the store, updated.
    package internal(set) var state: SyncState
    /// What the sync did so far.
    package internal(set) var report = SyncReport()

    let configuration: SyncConfiguration
    let nowMilliseconds: UInt64

    enum Phase { case list, heads, verify, fetch, publish, snapshot, head, collect, finished }

    var phase: Phase = .list
    /// The sequential step's action: handed out, or waiting for a prefetch of the same read.
    var wanted: SyncAction?
    /// Every action handed out and not yet answered, in the order handed out.
    var inFlight: [SyncAction] = []
    /// Answers to prefetched reads (and to the early publication) the sequential step has not
    /// asked for yet, by key.
    var answered: [String: SyncResult] = [:]
    /// This library's segment, planned with the listing (no read can change it) and handed out
    /// with the reads (`earlyPublication`, until handed out); the publish phase takes its answer
    /// (`plannedPublication`, until taken).
    var earlyPublication: SyncAction?
    var plannedPublication: SyncAction?
    /// Set by ``cancel()``: nothing new is handed out; the session ends once nothing is in flight.
    var isCancelled = false
    /// Blobs read and decoded by the driver (``decode(key:bytes:replica:)``), by key, until the
    /// sequential step takes them.
    var decodedAnswers: [String: DecodedBlob] = [:]
    /// The parsed listing.
    var segments: [ReplicaID: [ListedSegment]] = [:]
    var snapshots: [ListedSnapshot] = []
    /// Every key of the listing.
    var listedKeys: Set<String> = []
    /// Heads of other replicas to read (listed, not read before), in order.
    var headQueue: [String] = []
    /// This library's heads in the listing that are not its current one: deleted in the collect
    /// phase (a head is replaced, never kept).
    var staleOwnHeads: [String] = []
    /// Set when the listing lacks operations of this library's lineage that it had published,
    /// while none of its snapshots is listed: a new, wiped or replaced store, which gets a
    /// snapshot of everything this library holds in this sync.
    var storeLostHistory = false
    /// Set when the segment this sync would write builds on an operation the store does not
    /// offer and only this library holds (``storeOffers()``): a snapshot goes out instead.
    var segmentBuildsOnWhatOnlyThisLibraryHolds = false
    /// The head being written, and what it says.
    var pendingHead: (key: String, head: SyncHead)?
    var headAttempted = false
    /// Keys read (or given up on) in this session: never read twice.
    var attempted: Set<String> = []
    /// Blobs skipped in earlier syncs of this library (``SkipMemory``, from the sync state);
    /// those skipped in this one go to ``state``'s ``SyncState/skippedBlobs`` once listed.
    let skippedBefore: [String: SkipMemory]
    /// Keys skipped in this sync (each is skipped, and reported, once).
    var skippedKeys: Set<String> = []
    /// Each listed key's size, in bytes, and revision (``BlobInfo/revision``).
    var listedSizes: [String: Int] = [:]
    var listedRevisions: [String: String] = [:]
    /// The replicas whose listed segments the fetch may still read (some not tried in this
    /// sync), ascending; pruned as their segments are tried, so that junk costs each step
    /// nothing once tried. Replicas set aside (``quietReplicas``) while what the fetch holds
    /// stays at ``quietStamp``: no segment of theirs covers what it holds, and none of their
    /// snapshots is left to try.
    var fetchReplicas: [ReplicaID] = []
    var quietReplicas: Set<ReplicaID> = []
    var quietStamp = (operations: -1, fetches: -1)
    /// Bumped whenever ``fetchedThrough`` grows: with the notebook's operation count, it says
    /// when what the fetch holds of any replica may have moved (``heldStamp``).
    var fetchProgress = 0
    /// What the notebook holds and the fetch has fetched, as a stamp that changes whenever
    /// either grows (``notebookRevision`` changes at every lend, so it cannot serve).
    var heldStamp: (operations: Int, fetches: Int) { (notebook.version.operationCount, fetchProgress) }
    /// Listed snapshots by replica (indexes into ``snapshots``), and how far the scans of
    /// ``snapshots`` for an untried one have come (an entry passed over stays passed over:
    /// tried stays tried, described stays described).
    var snapshotsOfReplica: [ReplicaID: [Int]] = [:]
    var untriedSnapshotCursor = 0
    var undescribedSnapshotCursor = 0
    /// Head keys read or given up on, so that ``headQueue`` is not searched.
    var headsDone: Set<String> = []
    /// The estimate of segments still to read, as of ``aheadRevision``: the keys counted.
    var aheadKeys: Set<String> = []
    var aheadStamp = (operations: -1, fetches: -1)
    /// How far ``helpfulSnapshot(version:)`` has scanned, and the last replica
    /// ``lacksSomething()`` found lacking.
    var helpfulSnapshotCursor = 0
    var lacksWitness: ReplicaID?
    /// Snapshots of lineage ids this library does not know of, to read and remember, in order.
    var verifyQueue: [String] = []
    /// Segments holding several sessions' operations that do not apply whole yet, each with the
    /// notebook revision at which it was last tried (applying is deterministic: a segment that
    /// did not apply whole is not tried again until the notebook changed).
    var deferred: [(key: String, delta: NotebookDelta, triedAt: Int?)] = []
    /// Whether a snapshot was read because operations were still held back after fetching.
    var pendingSnapshotRead = false
    /// For each replica, the end of the segments applied so far (operations beyond the notebook's
    /// version are held back for missing dependencies; they must not be fetched again).
    var fetchedThrough: [ReplicaID: UInt32] = [:]
    /// Keys to delete in the collect phase, in order.
    var deletions: [String] = []
    /// The segment or snapshot being written, and what it covers (for a segment, the operations
    /// of its replica; for a snapshot, those of the lineage).
    var pendingWrite: (key: String, version: VersionVector)?
    /// Each of publish and snapshot is tried once per sync.
    var publishAttempted = false
    var snapshotAttempted = false
    /// A copy of the notebook to encode as this sync's snapshot: the sequential step waits
    /// until the driver hands the bytes back (``snapshotEncoded(_:from:)``).
    package private(set) var snapshotToEncode: Notebook?
    /// The snapshot the driver encoded, and the version it holds, to write next.
    var encodedSnapshot: (bytes: [UInt8], version: VersionVector, key: String?)?
    var publishFailed = false
    var blobsDone = 0
    /// A received segment being merged in pieces (``applyNextPiece(notebook:)``): its key, the
    /// end of its replica's counters, and the pieces not applied yet, in order. The sequential
    /// step waits until every piece is applied. Between pieces the notebook holds a prefix of
    /// the segment's operations (for its replica, a counter range from what it held): a valid
    /// notebook, which a save may make durable as it is; the segment counts as fetched
    /// (``fetchedThrough``) only after its last piece, and a later sync that finds the notebook
    /// short of the segment's end reads it again.
    /// A segment's merge records its replica's end as fetched when done; a snapshot's
    /// (`fetched` nil) records nothing more.
    var merging: (key: String, fetched: (replica: ReplicaID, end: UInt32)?, pieces: ArraySlice<NotebookDelta>)?
    /// For a snapshot read into a notebook that holds something, the operations it holds beyond
    /// the notebook's version when the driver decoded it (computed outside the replica's lock,
    /// ``DecodedBlob/snapshotChanges(_:base:changes:)``), by key, until the sequential step
    /// merges it in pieces.
    var snapshotChanges: [String: (base: VersionVector, changes: NotebookDelta)] = [:]
    /// For a large segment or snapshot the driver cut into pieces outside the replica's lock
    /// (``DecodedBlob/pieces(_:)``): the pieces and the check of the whole, by key, until the
    /// sequential step takes the blob.
    var preparedPieces: [String: PreparedPieces] = [:]

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
    ///   - state: what the replica remembered about the store after its last sync, with the
    ///     blobs earlier syncs skipped (``SyncState/skippedBlobs``): not reported again for the
    ///     same reason, and not read again when found bad for good.
    ///   - wallMilliseconds: the wall clock now (only for the grace period of deletions).
    package init(
        notebook: Notebook, state: SyncState, configuration: SyncConfiguration, wallMilliseconds: UInt64
    ) {
        self.notebook = Notebook(replica: notebook.replica)
        self.state = state
        self.skippedBefore = state.skippedBlobs
        self.configuration = configuration
        self.nowMilliseconds = wallMilliseconds
        // The current id is part of the lineage from its first operation on.
        if notebook.version[notebook.replica] > 0 { self.state.addToLineage(notebook.replica) }
    }

    /// Whether a received segment waits to be merged in pieces: the driver calls
    /// ``applyNextPiece(notebook:)`` until this is false, releasing the notebook between
    /// calls (edits go on between pieces), before it asks for the next actions.
    package var hasPieceToApply: Bool { merging != nil }

    /// Merges the next piece of the segment being merged (see ``merging``) into the lent
    /// notebook, with events. A piece the notebook refuses ends the segment's merge: it is
    /// skipped as damaged (what earlier pieces applied stays, as valid operations).
    package mutating func applyNextPiece(notebook lent: inout Notebook) {
        lend(&lent)
        defer { giveBack(&lent) }
        guard var current = merging, let piece = current.pieces.first else {
            merging = nil
            return
        }
        current.pieces.removeFirst()
        do throws(NotebookError) {
            let applied = try notebook.apply(piece)
            report.operationsApplied += applied.appliedOperationCount
        } catch {
            merging = nil
            skip(current.key, .corrupt(error.description), .passing)
            return
        }
        guard current.pieces.isEmpty else {
            merging = current
            return
        }
        merging = nil
        if let fetched = current.fetched {
            fetchedThrough[fetched.replica] = max(fetchedThrough[fetched.replica] ?? 0, fetched.end)
        }
        applyDeferred()
    }

    /// True once the sync is over: every phase done, or cancelled with nothing in flight.
    package var isFinished: Bool { phase == .finished || (isCancelled && inFlight.isEmpty) }

    /// The replica id this session's library makes new operations under.
    package var replica: ReplicaID { notebook.replica }

    /// Stops the sync at the next safe point: nothing new is handed out, and the actions in
    /// flight are answered (or fail) as usual, so a write counts as published only when its
    /// answer says it was done. What was applied stays applied; the next sync does the rest.
    /// A cancelled sync is not complete (``SyncReport/isComplete``).
    package mutating func cancel() {
        guard phase != .finished, !isCancelled else { return }
        isCancelled = true
        report.cancelled = true
        // The pieces applied stay (a prefix of the segment); the next sync reads it again.
        merging = nil
        snapshotChanges = [:]
        preparedPieces = [:]
        wanted = nil
        answered = [:]
        decodedAnswers = [:]
    }

    /// Adds to the session's lineage an id another process of this library made operations
    /// under (read from the library files by a replica sharing its folder: its operations are
    /// now in the notebook, and this library publishes them as its own).
    package mutating func adoptIntoLineage(_ replica: ReplicaID, current: ReplicaID) {
        state.adoptIntoLineage(replica, current: current)
    }

    // MARK: Driving

    /// The store operations to perform now: at most `limit`, none handed out before. Empty while
    /// the session waits for answers, and when it is finished.
    ///
    /// - Parameter notebook: the replica's notebook, lent for the call: what the session has
    ///   received is applied to it (with events).
    package mutating func nextActions(limit: Int, notebook lent: inout Notebook) -> [SyncAction] {
        lend(&lent)
        defer { giveBack(&lent) }
        guard !isCancelled else { return [] }
        var handedOut: [SyncAction] = []
        var room = max(0, limit)
        // The sequential step, as far as the answers go.
        while room > 0 || wanted != nil {
            if wanted == nil {
                guard let action = nextSequentialAction() else { break }
                wanted = action
            }
            let action = wanted!
            if let key = action.answerKey, let result = answered.removeValue(forKey: key) {
                wanted = nil
                take(action, result)
                continue
            }
            if inFlight.contains(where: { $0.isSameOperation(as: action) }) { break }
            guard room > 0 else { break }
            if earlyPublication?.isSameOperation(as: action) == true { earlyPublication = nil }
            inFlight.append(action)
            handedOut.append(action)
            room -= 1
            // Deletions are independent: every one goes at once, each taken as it is answered.
            guard case .delete = action else { break }
            wanted = nil
        }
        // What the sequential step will want next, ahead of it.
        for action in actionsAhead(limit: room) {
            inFlight.append(action)
            handedOut.append(action)
        }
        return handedOut
    }

    /// Takes the answer to `action` (one handed out by ``nextActions(limit:notebook:)``), in any
    /// order. An answer to an action not in flight (answered twice, or never handed out) is
    /// ignored.
    ///
    /// - Parameter decoded: the read blob decoded by ``decode(key:bytes:replica:)``, if the
    ///   driver did (the same value the session would get).
    package mutating func handle(_ action: SyncAction, _ result: SyncResult, notebook lent: inout Notebook, decoded: DecodedBlob? = nil) {
        guard let index = inFlight.firstIndex(where: { $0.isSameOperation(as: action) }) else { return }
        if let decoded, !isCancelled, case let .read(key) = action, case .read = result { decodedAnswers[key] = decoded }
        lend(&lent)
        defer { giveBack(&lent) }
        inFlight.remove(at: index)
        blobsDone += 1
        switch (action, result) {
        case let (.read, .read(bytes)):
            report.blobsRead += 1
            report.bytesRead += bytes.count
        case let (.write(_, bytes), .done):
            report.blobsWritten += 1
            report.bytesWritten += bytes.count
        default: break
        }
        if isCancelled {
            // Only what the store did counts: a write done is published, a deletion done gone.
            switch (action, result) {
            case let (.write(key, _), .done): wrote(key: key)
            case let (.delete(key), .done): deleted(key: key)
            default: break
            }
            return
        }
        if let wanted, wanted.isSameOperation(as: action) {
            self.wanted = nil
            take(action, result)
        } else if case .delete = action {
            take(action, result)
        } else if let key = action.answerKey {
            answered[key] = result
        }
    }

    /// The sequential step's next action, advancing through the phases; nil when finished.
    private mutating func nextSequentialAction() -> SyncAction? {
        // A segment being merged in pieces comes first: its last piece may change what to read.
        if merging != nil { return nil }
        while true {
            let action: SyncAction?
            switch phase {
            case .list: action = .list(prefix: StoreLayout.root)
            case .heads: action = nextHeadRead()
            case .verify: action = nextVerification()
            case .fetch: action = nextFetch()
            case .publish: action = nextPublication()
            case .snapshot:
                // The driver encodes the snapshot outside any lock: nothing until it is back.
                if snapshotToEncode != nil { return nil }
                action = nextSnapshot()
                if snapshotToEncode != nil { return nil }
            case .head: action = nextHeadWrite()
            case .collect:
                // Every deletion goes at once; the phase ends when all are answered.
                if let key = deletions.first(where: { key in !inFlight.contains { $0.isSameOperation(as: .delete(key: key)) } }) {
                    return .delete(key: key)
                }
                if !deletions.isEmpty { return nil }
                action = nil
            case .finished: return nil
            }
            if let action { return action }
            advancePhase()
        }
    }

    /// Takes an answer in the sequential step's order.
    private mutating func take(_ action: SyncAction, _ result: SyncResult) {
        switch (action, result) {
        case let (_, .failed(error)):
            failed(action, error)
        case let (.list, .listed(listing)):
            // A store with a key blob is encrypted: used without its key, the sync stops here,
            // having read and written nothing (issue 16; `EncryptedBlobStore` lists none).
            if listing.blobs.contains(where: { $0.key.hasPrefixBytes(KeyBlob.prefix) }) || listing.skipped.contains(where: { ($0.key + "/").hasPrefixBytes(KeyBlob.prefix) }) {
                return failed(action, .encrypted)
            }
            // What the library remembers of skipped blobs is what this listing still shows (room
            // made once for as many as before: a store of junk remembers thousands).
            state.skippedBlobs = Dictionary(minimumCapacity: min(skippedBefore.count, SyncState.skippedBlobsMax))
            for entry in listing.skipped { skip(entry.key, .notListed(entry.problem), .listing) }
            takeListing(listing.blobs)
            phase = .heads
        case let (.read(key), .read(bytes)):
            took(key: key, bytes: bytes)
        case let (.write(key, _), .done):
            wrote(key: key)
        case let (.delete(key), .done):
            deleted(key: key)
        default:
            report.errors.append(SyncProblem(action.problemOperation, key: action.key, reason: "the store gave an unexpected answer"))
            if case .list = action { phase = .finished }
        }
    }

    /// Reads the sequential step will want (a bootstrap snapshot, the heads to read, the
    /// snapshots to verify, each replica's chain of segments from what the notebook holds), and
    /// the early publication: at most `limit`, each handed out once. Nothing before the
    /// listing, nothing after the fetch phase; at most `limit` answers wait unconsumed.
    private mutating func actionsAhead(limit: Int) -> [SyncAction] {
        guard limit > 0, phase == .heads || phase == .verify || phase == .fetch else { return [] }
        var room = min(limit, max(0, configuration.maxAnswersAhead - answered.count))
        var ahead: [SyncAction] = []
        func offer(_ action: SyncAction) {
            // `attempted` holds blob keys, `answered` answer keys ("read " + blob key): a blob
            // this sync already read, or found bad for good by an earlier one, is not read ahead.
            // (The answer key is built only when an answer waits: most offers find none.)
            guard room > 0 else { return }
            if case let .read(blobKey) = action, attempted.contains(blobKey) { return }
            switch action {
            case .list, .delete: return
            case .read, .write: break
            }
            guard !inFlight.contains(where: { $0.isSameOperation(as: action) }),
                !ahead.contains(where: { $0.isSameOperation(as: action) }),
                answered.isEmpty || action.answerKey.map({ answered[$0] == nil }) == true
            else { return }
            ahead.append(action)
            room -= 1
        }
        if let early = earlyPublication, room > 0 {
            earlyPublication = nil
            ahead.append(early)
            room -= 1
        }
        // A notebook that holds nothing starts from the newest snapshot (``nextFetch()``): read
        // first, so that it is read and decoded while the heads are (a store with thousands of
        // heads made a new device read them all before starting on it).
        let version = notebook.version
        let bootstrap = version.entries.isEmpty ? firstUntriedSnapshot() : nil
        if let bootstrap { offer(.read(key: bootstrap.key)) }
        if phase == .heads {
            for key in headQueue {
                guard room > 0 else { break }
                if !headsDone.contains(key) { offer(.read(key: key)) }
            }
        }
        if phase == .heads || phase == .verify { for key in verifyQueue { offer(.read(key: key)) } }
        var baseline = version
        if let newest = bootstrap {
            // Segments after it, once a head says what it holds.
            guard let known = state.otherHeads.lazy.compactMap(\.head.newestSnapshot).first(where: { $0.key == newest.key }) else {
                return ahead
            }
            baseline = known.version
        }
        for replicaID in fetchReplicas {
            guard room > 0 else { break }
            var held = max(baseline[replicaID], fetchedThrough[replicaID] ?? 0)
            while room > 0, let next = chainSegment(of: replicaID, after: held) {
                offer(.read(key: next.key))
                held = next.end
            }
        }
        return ahead
    }

    /// The listed segment of `replicaID`, not tried in this sync, that covers counter `held`
    /// and reaches furthest (ties: the shorter key, then the smaller): the one the fetch phase
    /// reads next.
    func chainSegment(of replicaID: ReplicaID, after held: UInt32) -> ListedSegment? {
        var best: ListedSegment?
        for segment in segments[replicaID] ?? [] where segment.end > held && segment.start <= held && !attempted.contains(segment.key) {
            if let current = best {
                if (segment.end, current.key.utf8.count, current.key) > (current.end, segment.key.utf8.count, segment.key) {
                    best = segment
                }
            } else {
                best = segment
            }
        }
        return best
    }

    /// Takes the replica's notebook for a call (a move, not a copy: the replica's variable holds
    /// an empty placeholder meanwhile).
    private mutating func lend(_ lent: inout Notebook) {
        let counts = (lent.version.operationCount, lent.pendingOperationCount)
        swap(&notebook, &lent)
        if counts != givenBackCounts { notebookRevision &+= 1 }
        // This session's id is in the lineage from its first operation on, typed during the sync
        // or before.
        if notebook.version[notebook.replica] > 0 { state.addToLineage(notebook.replica) }
    }

    /// Gives the notebook back after a call, with the progress as of now.
    private mutating func giveBack(_ lent: inout Notebook) {
        progress = currentProgress()
        givenBackCounts = (notebook.version.operationCount, notebook.pendingOperationCount)
        swap(&notebook, &lent)
    }

    /// How far the sync has come.
    private mutating func currentProgress() -> SyncProgress {
        var ahead = verifyQueue.count + deletions.count
        if phase == .fetch || phase == .verify || phase == .list || phase == .heads {
            // Counted again only when what the notebook holds grew (that moves what is ahead);
            // in between, segments tried leave the count as they are tried.
            let stamp = heldStamp
            if aheadStamp != stamp {
                aheadStamp = stamp
                // Its table kept: this runs under the replica's lock, where an allocation can
                // take milliseconds after a large free (BENCHMARKS.md, "Keystrokes typed from a
                // thread of their own").
                aheadKeys.removeAll(keepingCapacity: true)
                let version = notebook.version
                for replicaID in fetchReplicas {
                    let held = max(version[replicaID], fetchedThrough[replicaID] ?? 0)
                    for segment in segments[replicaID] ?? [] where segment.end > held && !attempted.contains(segment.key) {
                        aheadKeys.insert(segment.key)
                    }
                }
            }
            ahead += aheadKeys.count
        }
        return SyncProgress(
            blobsDone: blobsDone, blobsPlanned: blobsDone + max(ahead, inFlight.count) + (isFinished ? 0 : 1),
            bytesRead: report.bytesRead, bytesWritten: report.bytesWritten)
    }

    // MARK: Skipping

    /// What a sync found when it skipped a blob, which decides whether the blob is bad for good
    /// (``SkipMemory/isConfirmed``).
    enum SkipEvidence {
        /// Refused from the listing alone, never read: nothing to read again.
        case listing
        /// These bytes were read and cannot be used.
        case bytes([UInt8])
        /// The store refused the read in a way that repeats (an encrypted store's refusal, a
        /// blob the store will not read); `what` says how.
        case refusal(String)
        /// A reason that may not repeat (a failure of the network, a state of this notebook):
        /// never taken as bad for good.
        case passing
    }

    /// Skips `key` for `reason`: reported unless an earlier sync of this library reported it for
    /// the same reason at the same listed size and revision, and remembered (in ``state``) for
    /// the next syncs, as found bad for good when `evidence` shows it.
    mutating func skip(_ key: String, _ reason: SkipReason, _ evidence: SkipEvidence) {
        guard skippedKeys.insert(key).inserted else { return }
        let sizeBytes = listedSizes[key] ?? 0
        let revision = listedRevisions[key] ?? ""
        let before = skippedBefore[key].flatMap { $0.matches(sizeBytes: sizeBytes, revision: revision) ? $0 : nil }
        if let before, before.reasonCode == reason.code {
            report.skippedAgainCount += 1
        } else {
            report.skipped.append(SkippedBlob(key: key, reason: reason))
        }
        let found: UInt64
        let confirmed: Bool
        switch evidence {
        case .listing:
            (found, confirmed) = (0, true)
        case let .bytes(bytes):
            found = StoreLayout.hashValue(bytes)
            confirmed = StoreLayout.namesContent(key: key, hashValue: found) || (before?.reasonCode == reason.code && before?.evidence == found)
                || Self.isJunkAtFirstRead(reason, bytesRead: bytes.count, listedSizeBytes: sizeBytes, revision: revision)
        case let .refusal(what):
            found = StoreLayout.hashValue(Array(what.utf8))
            confirmed = before?.reasonCode == reason.code && before?.evidence == found
        case .passing:
            (found, confirmed) = (0, false)
        }
        remember(key, SkipMemory(sizeBytes: sizeBytes, revisionHash: SkipMemory.revisionHash(revision), reasonCode: reason.code, evidence: found, isConfirmed: confirmed))
    }

    /// Whether a blob skipped for `reason` is bad for good at its first read: bytes that are no
    /// MemoSync envelope at all (not its magic number, or another kind), as many as the listing
    /// said, from a store that tells each blob's revision (FORMAT.md, "Blobs found bad", (d)).
    /// Damage on the way changes a blob's bytes, not its first three: a real blob damaged so
    /// still starts as one and fails its checksum, which is read again; an upload still being
    /// written or filled in place shows another size or revision once done, and is read again.
    static func isJunkAtFirstRead(_ reason: SkipReason, bytesRead: Int, listedSizeBytes: Int, revision: String) -> Bool {
        guard case .notMemoSync = reason else { return false }
        return !revision.isEmpty && bytesRead == listedSizeBytes
    }

    /// Keeps `memory` of `key` in the state, within ``SyncState/skippedBlobsMax``.
    private mutating func remember(_ key: String, _ memory: SkipMemory) {
        guard state.skippedBlobs.count < SyncState.skippedBlobsMax || state.skippedBlobs[key] != nil else { return }
        state.skippedBlobs[key] = memory
    }

    // MARK: Phases

    private mutating func advancePhase() {
        switch phase {
        case .list: phase = .heads
        case .heads: phase = .verify
        case .verify: phase = .fetch
        case .fetch:
            adoptPublishedOwnSegments()
            report.pendingOperationCount = notebook.pendingOperationCount
            phase = .publish
        case .publish: phase = .snapshot
        case .snapshot: phase = .head
        case .head:
            planDeletions()
            planHeadDeletions()
            phase = .collect
        case .collect:
            retireLineage()
            // Only a complete sync counts as one (a failed write, say, leaves it).
            if report.errors.isEmpty { state.lastSyncMilliseconds = nowMilliseconds }
            phase = .finished
        case .finished: break
        }
    }

    private mutating func failed(_ action: SyncAction, _ error: BlobStoreError) {
        switch action {
        case .list:
            report.errors.append(SyncProblem(.list, storeError: error))
            phase = .finished
        case let .read(key):
            // Listed but gone or unreadable now: skipped, tried again next time. A head gone
            // since the listing was replaced by its writer: nothing to report.
            attempted.insert(key)
            headsDone.insert(key)
            aheadKeys.remove(key)
            state.skippedBlobs[key] = nil
            if case .head? = StoreLayout.parse(key), case .notFound = error {
                return
            }
            switch error {
            case .undecryptable, .tooLarge: skip(key, .unreadable(error.description), .refusal(error.description))
            default: skip(key, .unreadable(error.description), .passing)
            }
            verifyQueue.removeAll { $0 == key }
        case let .write(key, _):
            #if MEMOSYNC_MUTANTS
            if EngineMutant.active == .publishCountsFailedWrite, case .segment? = StoreLayout.parse(key) { wrote(key: key) }
            #endif
            report.errors.append(SyncProblem(.write, key: key, storeError: error))
            if case .head? = StoreLayout.parse(key) {
                pendingHead = nil
                return
            }
            pendingWrite = nil
            publishFailed = true
        case let .delete(key):
            if case .notFound = error {
                deleted(key: key)
            } else {
                // The blob may be gone or not (a failed request can still have happened): it is
                // no longer relied on to cover anything. If it is still there, the next listing
                // shows it as an own blob this replica does not know, which is verified and
                // remembered again (as written now, so it ages again before covering anything).
                deletions.removeAll { $0 == key }
                state.ownSegments.removeAll { $0 == key }
                state.ownSnapshots.removeAll { $0.key == key }
                report.errors.append(SyncProblem(.delete, key: key, storeError: error))
            }
        }
    }

    // MARK: Listing

    private mutating func takeListing(_ entries: [BlobInfo]) {
        report.listedStore = true
        report.blobsListed = entries.count
        let knownSnapshots = Set(state.ownSnapshots.map(\.key))
        var unknownSnapshots: [(total: UInt64, key: String)] = []
        var listedHeads: [ReplicaID: [String]] = [:]
        // Each listed blob goes into these: grown once, not by doubling (a store of junk lists
        // tens of thousands).
        listedSizes.reserveCapacity(entries.count)
        listedRevisions.reserveCapacity(entries.count)
        listedKeys.reserveCapacity(entries.count)
        // And these as the sync reads or skips them (most of a store's blobs, on a first sync).
        attempted.reserveCapacity(entries.count)
        headsDone.reserveCapacity(entries.count)
        skippedKeys.reserveCapacity(entries.count)
        // In key order (the order every choice below is made in). A folder store's listing is
        // sorted already: checked in one pass, not sorted again at every sync.
        let inKeyOrder = zip(entries, entries.dropFirst()).allSatisfy { $0.key <= $1.key }
        for entry in inKeyOrder ? entries : entries.sorted(by: { $0.key < $1.key }) {
            guard entry.sizeBytes > 0 else { continue }
            listedSizes[entry.key] = entry.sizeBytes
            listedRevisions[entry.key] = entry.revision
            // Refused from its listed size: no writer of the format makes a blob that large.
            guard entry.sizeBytes <= configuration.maxListedBlobBytes else {
                skip(entry.key, .tooLarge(sizeBytes: entry.sizeBytes, limitBytes: configuration.maxListedBlobBytes), .listing)
                continue
            }
            listedKeys.insert(entry.key)
            // Found bad for good by an earlier sync, and listed the same since: not read again
            // (as if read and skipped again; its name still counts for what it names).
            if let before = skippedBefore[entry.key], before.matches(sizeBytes: entry.sizeBytes, revision: entry.revision) {
                if before.isConfirmed, skippedKeys.insert(entry.key).inserted {
                    attempted.insert(entry.key)
                    headsDone.insert(entry.key)
                    report.skippedAgainCount += 1
                    report.blobsRemembered += 1
                }
                // Else to be read again; remembered meanwhile (a sync cancelled before reading it
                // forgets nothing).
                remember(entry.key, before)
            }
            switch StoreLayout.parse(entry.key) {
            case let .head(replicaID)?:
                // Only the current id's heads are this library's to replace: an earlier id of
                // its lineage may be another copy's current one.
                if replicaID == notebook.replica {
                    if entry.key != state.ownHead?.key { staleOwnHeads.append(entry.key) }
                } else {
                    listedHeads[replicaID, default: []].append(entry.key)
                }
            case nil:
                skip(entry.key, .notMemoSync, .listing)
            case let .segment(replicaID, start, end)?:
                segments[replicaID, default: []].append(ListedSegment(key: entry.key, start: start, end: end))
            case let .snapshot(replicaID, total)?:
                snapshots.append(ListedSnapshot(key: entry.key, replica: replicaID, totalOperations: total))
                if state.lineage.contains(replicaID) && !knownSnapshots.contains(entry.key) {
                    unknownSnapshots.append((total, entry.key))
                }
            }
        }
        // Heads not read before; records of heads and snapshots no longer listed are dropped.
        let knownHeads = Set(state.otherHeads.map(\.key))
        headQueue = listedHeads.keys.sorted().flatMap { id in listedHeads[id]!.filter { !knownHeads.contains($0) && !attempted.contains($0) } }
        state.otherHeads.removeAll { !listedKeys.contains($0.key) }
        state.readSnapshots.removeAll { !listedKeys.contains($0.key) }
        reconcilePublished()
        adoptPublishedOwnSegments()
        verifyQueue = unknownSnapshots.sorted { ($0.total, $0.key) < ($1.total, $1.key) }.map(\.key)
        // Newest first, ties by key, so choices are deterministic.
        snapshots.sort { ($0.totalOperations, $1.key) > ($1.totalOperations, $0.key) }
        for (index, snapshot) in snapshots.enumerated() { snapshotsOfReplica[snapshot.replica, default: []].append(index) }
        fetchReplicas = segments.keys.sorted()
        planEarlyPublication()
    }

    /// Plans the publication now, to go out with the reads, when nothing read in this sync can
    /// change it: the store has not lost this library's history (that takes a snapshot), no own
    /// snapshot is to be verified, and every listed segment of the lineage ends within what the
    /// notebook holds (so fetching adopts nothing more as published). The publish phase then
    /// takes its answer.
    private mutating func planEarlyPublication() {
        guard !storeLostHistory, verifyQueue.isEmpty else { return }
        let version = notebook.version
        for id in state.lineage where (segments[id] ?? []).contains(where: { $0.end > version[id] }) { return }
        guard let action = nextPublication() else { return }
        earlyPublication = action
        plannedPublication = action
    }

    // MARK: Own snapshots found in the store

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

    /// A snapshot under a lineage id this library did not know of: written by this library
    /// before a crash lost the record of it, or by an earlier session of another copy. Its
    /// operations are merged, and it is remembered (as written now, so it ages before it covers
    /// anything) so that a later snapshot can replace it.
    private mutating func verify(key: String, bytes: [UInt8]) {
        verifyQueue.removeAll { $0 == key }
        guard let snapshot = decodeSnapshot(key: key, bytes: bytes) else { return }
        // Merged whole (rare: a snapshot of this library's own lineage it did not know of).
        snapshotChanges[key] = nil
        preparedPieces[key] = nil
        merge(snapshot, key: key)
        guard snapshot.version.isIncluded(in: notebook.version) else { return }
        // Found now, so it ages from now, and never before a snapshot remembered as written later
        // (a wall clock that jumped back must not make a sync client's copy of a young
        // snapshot look old).
        let latest = state.ownSnapshots.map(\.writtenAtMilliseconds).max() ?? 0
        state.ownSnapshots.append(SyncState.OwnSnapshot(key: key, version: snapshot.version, writtenAtMilliseconds: max(nowMilliseconds, latest)))
    }

    // MARK: Fetch

    private mutating func nextFetch() -> SyncAction? {
        guard phase == .fetch else { return nil }
        // The version is built once here (not once per replica below).
        let version = notebook.version
        // A notebook that holds nothing starts from the newest snapshot.
        if version.entries.isEmpty, let snapshot = firstUntriedSnapshot() {
            return .read(key: snapshot.key)
        }
        // Each step looks only at replicas that may still give something: one with no untried
        // segment beyond what the notebook holds is done for this sync (what it holds only
        // grows); one with a gap whose snapshots were all tried waits for the notebook to change.
        // So a store full of junk costs each step nothing once the junk is tried.
        let stamp = heldStamp
        if quietStamp != stamp {
            quietStamp = stamp
            quietReplicas = []
        }
        var gapReplicas: [ReplicaID] = []
        // The positions of the replicas found done, ascending; removed by position, so a step
        // costs no hashing of the replicas it does not visit (a store with thousands of junk
        // replica names made that most of a first sync's own work).
        var donePositions: [Int] = []
        defer { if !donePositions.isEmpty { fetchReplicas.removeAscendingPositions(donePositions) } }
        for (position, replicaID) in fetchReplicas.enumerated() where quietReplicas.isEmpty || !quietReplicas.contains(replicaID) {
            let held = max(version[replicaID], fetchedThrough[replicaID] ?? 0)
            if let best = chainSegment(of: replicaID, after: held) { return .read(key: best.key) }
            if segments[replicaID]!.contains(where: { $0.end > held && !attempted.contains($0.key) }) {
                gapReplicas.append(replicaID)
            } else {
                donePositions.append(position)
            }
        }
        if let key = otherContentOfDeferredRange() { return .read(key: key) }
        // A gap: the writer collected segments its snapshot covers. Its newest snapshot has them.
        for replicaID in gapReplicas {
            if let index = (snapshotsOfReplica[replicaID] ?? []).first(where: { !attempted.contains(snapshots[$0].key) }) {
                return .read(key: snapshots[index].key)
            }
            quietReplicas.insert(replicaID)
        }
        // Not one known to hold nothing this notebook lacks (read before, named in its writer's
        // head, or its own): a gap no snapshot fills (operations bit rot took from a library
        // before any store held them, with a later segment of theirs listed) otherwise had every
        // library read every listed snapshot at every sync, for good.
        if !gapReplicas.isEmpty || stillAGap(among: quietReplicas, version: version), let snapshot = helpfulSnapshot(version: version) {
            return .read(key: snapshot.key)
        }
        // Operations still held back: what they wait for may be only in a snapshot (a writer
        // whose segments were all collected, or whose segment stays torn). The newest first;
        // while operations are still held back after it, every other one that may help, each
        // once per sync (not one this library wrote and holds all of: the newest is often its
        // own, and reading only that would leave it waiting for good).
        // Operations known to exist (from heads and names) and found in no listed segment: a
        // snapshot may hold them too.
        if notebook.pendingOperationCount > 0 || lacksSomething(), let snapshot = helpfulSnapshot(version: version) {
            pendingSnapshotRead = true
            return .read(key: snapshot.key)
        }
        // A snapshot nothing describes may hold operations no segment name and no head shows
        // (its writer published a snapshot, its head write failed, and then its library was
        // lost or restored from an older backup, so no later head will come): read once, and
        // remembered as read. (Scanned from where the last scan stopped: one passed over is
        // tried, or described, for the rest of the sync.)
        while undescribedSnapshotCursor < snapshots.count {
            let snapshot = snapshots[undescribedSnapshotCursor]
            if !attempted.contains(snapshot.key) && !isDescribed(snapshot) { return .read(key: snapshot.key) }
            undescribedSnapshotCursor += 1
        }
        return nil
    }

    /// The newest listed snapshot not tried in this sync (scanned from where the last scan
    /// stopped: a snapshot tried stays tried).
    private mutating func firstUntriedSnapshot() -> ListedSnapshot? {
        while untriedSnapshotCursor < snapshots.count {
            if !attempted.contains(snapshots[untriedSnapshotCursor].key) { return snapshots[untriedSnapshotCursor] }
            untriedSnapshotCursor += 1
        }
        return nil
    }

    /// Whether one of the replicas set aside (``quietReplicas``) still has a gap: an untried
    /// segment beyond what the notebook holds (one with none left leaves the set).
    private mutating func stillAGap(among replicas: Set<ReplicaID>, version: VersionVector) -> Bool {
        for replicaID in replicas.sorted() {
            let held = max(version[replicaID], fetchedThrough[replicaID] ?? 0)
            if (segments[replicaID] ?? []).contains(where: { $0.end > held && !attempted.contains($0.key) }) { return true }
            quietReplicas.remove(replicaID)
        }
        return false
    }

    /// A listed segment not read in this sync that may carry what a deferred segment (several
    /// sessions, not applying whole) waits for: one of the same replica starting before the
    /// deferred one ends, the earliest first (ties by key). A library whose listing was stale
    /// can publish a range again with other earlier-id operations (another content, another
    /// key); the range's segment the fetch chose then applies, but lacks operations only the
    /// other one carries, and the next segment of that replica waits for them (seed 718).
    /// (Reading every listed segment whose range overlaps one read, of any replica, made the
    /// soak's seed 246 show deleted text again: Simulations/README.md, "Seed 233".)
    private func otherContentOfDeferredRange() -> String? {
        for entry in deferred {
            guard case let .segment(replicaID, _, end)? = StoreLayout.parse(entry.key) else { continue }
            let candidates = (segments[replicaID] ?? []).filter { $0.start < end && !attempted.contains($0.key) }
            if let earliest = candidates.min(by: { ($0.start, $0.key) < ($1.start, $1.key) }) { return earliest.key }
        }
        return nil
    }

    /// Whether this library knows what `snapshot` holds without reading it: one of its lineage's,
    /// or another replica's that it read (or a later one of the same id), or that the id's head
    /// names (or a later one). One id's snapshots are written by one library, each holding all
    /// the earlier ones held (a restored or copied library takes a new id), so a later one of an
    /// id, by operation count, describes the earlier ones.
    private func isDescribed(_ snapshot: ListedSnapshot) -> Bool {
        if snapshot.replica == notebook.replica || state.lineage.contains(snapshot.replica) { return true }
        func describes(_ key: String) -> Bool {
            guard case let .snapshot(replica, total)? = StoreLayout.parse(key) else { return false }
            return replica == snapshot.replica && total >= snapshot.totalOperations
        }
        if state.readSnapshots.contains(where: { describes($0.key) }) { return true }
        return state.otherHeads.contains { $0.replica == snapshot.replica && $0.head.newestSnapshot.map { describes($0.key) } == true }
    }

    /// The listed snapshot to read for operations this notebook lacks, newest first: one not
    /// read in this sync, and not one this library wrote and still
    /// holds all of (its version is remembered), nor a sync client's copy of one (same id, same
    /// operation count: the same state). Reading such an own snapshot gains nothing; as it is
    /// often the newest, choosing it would leave a library that waits for operations only
    /// another's snapshot holds (a segment that will stay torn, say) waiting for good.
    ///
    /// Scanned from where the last scan stopped: a snapshot passed over stays so for the rest
    /// of the sync (tried stays tried; what the notebook holds, and what it knows of snapshots,
    /// only grow).
    private mutating func helpfulSnapshot(version: VersionVector) -> ListedSnapshot? {
        while helpfulSnapshotCursor < snapshots.count {
            let snapshot = snapshots[helpfulSnapshotCursor]
            if isHelpful(snapshot, version: version) { return snapshot }
            helpfulSnapshotCursor += 1
        }
        return nil
    }

    private func isHelpful(_ snapshot: ListedSnapshot, version: VersionVector) -> Bool {
        guard !attempted.contains(snapshot.key) else { return false }
        // Another replica's snapshot known (read before, or named in its writer's head) to
        // hold nothing this notebook lacks, or an earlier one of the same id (by operation
        // count: one id's snapshots are written by one library, each holding all the earlier
        // ones held, as ``isDescribed(_:)`` says). Without the second rule, a notebook that
        // lacks what no snapshot holds (operations junk segment names claim) read each
        // replaced snapshot of every writer again at every sync.
        func holdsNothingLacking(key: String, version known: VersionVector) -> Bool {
            guard known.isIncluded(in: version) else { return false }
            if key == snapshot.key { return true }
            guard case let .snapshot(replica, total)? = StoreLayout.parse(key) else { return false }
            return replica == snapshot.replica && total >= snapshot.totalOperations
        }
        if state.readSnapshots.contains(where: { holdsNothingLacking(key: $0.key, version: $0.version) }) {
            return false
        }
        if state.otherHeads.contains(where: { other in
            other.head.newestSnapshot.map { holdsNothingLacking(key: $0.key, version: $0.version) } == true
        }) {
            return false
        }
        return !state.ownSnapshots.contains { own in
            guard own.version.isIncluded(in: version) else { return false }
            if own.key == snapshot.key { return true }
            guard case let .snapshot(ownReplica, ownTotal)? = StoreLayout.parse(own.key) else { return false }
            return ownReplica == snapshot.replica && ownTotal == snapshot.totalOperations
        }
    }

    /// Whether operations are known to exist (``currentLacks()``) that this notebook lacks and
    /// no untried listed segment offers. The replica found lacking last time is checked first:
    /// junk names lack for good, so the answer is cheap while the fetch reads junk.
    private mutating func lacksSomething() -> Bool {
        if let witness = lacksWitness, currentLacks(only: witness) { return true }
        let lacks = currentLacks()
        lacksWitness = lacks.entries.first?.replica
        return !lacks.isEmpty
    }

    private mutating func took(key: String, bytes: [UInt8]) {
        attempted.insert(key)
        headsDone.insert(key)
        aheadKeys.remove(key)
        // Read now: remembered again only if skipped again.
        state.skippedBlobs[key] = nil
        if phase == .verify { return verify(key: key, bytes: bytes) }
        if phase == .heads { return readHead(key: key, bytes: bytes) }
        switch StoreLayout.parse(key) {
        case let .segment(replicaID, start, end)?:
            let decoded = decodeSegment(key: key, bytes: bytes, replica: replicaID, counters: start..<end)
            let prepared = preparedPieces.removeValue(forKey: key)
            guard let delta = decoded else { return }
            // What counts as fetched is only what was applied (or held back): a segment left
            // unapplied (below) must not stop another listed segment of the same range, which
            // may carry what this one waits for, from being read (seed 718).
            if !notebook.carriesItsDeletions(delta) {
                // Characters deleted by operations this segment does not carry (a copy of a
                // library published them again after someone deleted them): not applied; a
                // snapshot holds them with their deletions.
                skip(key, .incomplete, .passing)
                return
            }
            if delta.counterRanges.count > 1 {
                // Several sessions' operations: applied whole or not at all. Held back in part,
                // the rest of another id could be lost in a crash (held-back operations are not
                // saved) with nothing in the listing to say they exist.
                deferred.append((key, delta, nil))
                applyDeferred()
            } else {
                // A large segment is merged in pieces, the replica's lock released between them
                // (``applyNextPiece(notebook:)``), after checking what can be checked of the
                // whole: its runs, and that each text operation has its run.
                let cut = prepared ?? PreparedPieces(delta, checkedAgainst: notebook, configuration: configuration)
                if cut.pieces.count > 1 {
                    if let refusal = cut.refusal {
                        skip(key, .corrupt(refusal.description), .passing)
                        return
                    }
                    merging = (key, (replicaID, end), cut.pieces[...])
                    return
                }
                fetchedThrough[replicaID] = max(fetchedThrough[replicaID] ?? 0, end)
                fetchProgress += 1
                apply(delta, key: key)
                applyDeferred()
            }
        case let .snapshot(writer, _)?:
            guard let snapshot = decodeSnapshot(key: key, bytes: bytes) else { return }
            if writer != notebook.replica {
                state.readSnapshots.removeAll { $0.key == key }
                state.readSnapshots.append(SyncState.ReadSnapshot(key: key, version: snapshot.version))
            }
            // Into a notebook that holds something, a large snapshot merges in pieces, like a
            // large segment: the operations it holds beyond what the notebook held when the
            // driver decoded it (the notebook only grows, so those are all it may lack).
            let prepared = preparedPieces.removeValue(forKey: key)
            if let early = snapshotChanges.removeValue(forKey: key), !notebook.version.isEmpty,
                early.base.isIncluded(in: notebook.version)
            {
                let pieces = prepared ?? PreparedPieces(early.changes, checkedAgainst: notebook, configuration: configuration)
                if pieces.pieces.count > 1 {
                    if let refusal = pieces.refusal {
                        skip(key, .corrupt(refusal.description), .passing)
                        return
                    }
                    merging = (key, nil, pieces.pieces[...])
                    return
                }
            }
            merge(snapshot, key: key)
        case .head?, nil:
            break
        }
    }

    /// Applies the deferred segments that now apply whole, until none does.
    private mutating func applyDeferred() {
        var progress = true
        while progress {
            progress = false
            for index in deferred.indices where deferred[index].triedAt != notebookRevision {
                // A trial costs an apply; the bound rules most failures out from counters and
                // references alone, with the same outcome.
                var trial = notebook
                guard notebook.mayApplyWithoutHoldingBackMore(deferred[index].delta),
                    let applied = try? trial.apply(deferred[index].delta),
                    trial.pendingOperationCount <= notebook.pendingOperationCount
                else {
                    deferred[index].triedAt = notebookRevision
                    continue
                }
                // The trial is what applying it gives (the same value, the same delta): kept.
                if case let .segment(replicaID, _, end)? = StoreLayout.parse(deferred[index].key) {
                    fetchedThrough[replicaID] = max(fetchedThrough[replicaID] ?? 0, end)
                    fetchProgress += 1
                }
                deferred.remove(at: index)
                notebook = trial
                report.operationsApplied += applied.appliedOperationCount
                progress = true
                break
            }
        }
    }

    private mutating func merge(_ snapshot: Notebook, key: String) {
        let before = notebook.version.operationCount
        do throws(NotebookError) {
            try notebook.merge(snapshot)
            report.operationsApplied += notebook.version.operationCount - before
            applyDeferred()
        } catch {
            skip(key, .corrupt(error.description), .passing)
        }
    }

    private mutating func apply(_ delta: NotebookDelta, key: String) {
        do throws(NotebookError) {
            let applied = try notebook.apply(delta)
            report.operationsApplied += applied.appliedOperationCount
        } catch {
            skip(key, .corrupt(error.description), .passing)
        }
    }

    /// A segment's delta, checked to hold exactly the operations its name says; nil (and a
    /// report entry) when it cannot be used.
    private mutating func decodeSegment(key: String, bytes: [UInt8], replica: ReplicaID, counters: Range<UInt32>) -> NotebookDelta? {
        let delta: NotebookDelta
        let decoded: Result<NotebookDelta, DecodingError>
        switch decodedAnswers.removeValue(forKey: key) {
        case let .delta(early)?:
            decoded = early
        case let .segmentPieces(early, prepared)?:
            decoded = .success(early)
            preparedPieces[key] = prepared
        default:
            decoded = Result { () throws(DecodingError) in try NotebookDelta(decoding: bytes) }
        }
        switch decoded {
        case let .success(value): delta = value
        case let .failure(error):
            skip(key, SkipReason(error), .bytes(bytes))
            return nil
        }
        // Exactly the operations its name says of its replica; a library may add the operations
        // of its earlier sessions (other replicas).
        let ranges = delta.counterRanges
        guard ranges.filter({ $0.replica == replica }).map(\.counters) == [counters] else {
            skip(key, .corrupt("its operations are not the ones its name says"), .bytes(bytes))
            return nil
        }
        return delta
    }

    private mutating func decodeSnapshot(key: String, bytes: [UInt8]) -> Notebook? {
        let decoded: Result<Notebook, DecodingError>
        switch decodedAnswers.removeValue(forKey: key) {
        case let .snapshot(early)?:
            decoded = early
        case let .snapshotChanges(snapshot, base, changes, prepared)?:
            decoded = .success(snapshot)
            snapshotChanges[key] = (base, changes)
            preparedPieces[key] = prepared
        default:
            decoded = Result { () throws(DecodingError) in try Notebook(decoding: bytes, replica: notebook.replica) }
        }
        switch decoded {
        case let .success(snapshot): return snapshot
        case let .failure(error):
            skip(key, SkipReason(error), .bytes(bytes))
            return nil
        }
    }

    /// A segment or snapshot read from the store, decoded by the driver before it hands the
    /// answer over (so that the replica's lock is not held while a large blob decodes).
    package enum DecodedBlob: Sendable {
        case delta(Result<NotebookDelta, DecodingError>)
        case snapshot(Result<Notebook, DecodingError>)
        /// A snapshot decoded, with the operations it holds beyond `base` (the notebook's
        /// version when it was decoded), computed by the driver outside any lock.
        ///
        /// `prepared`: those changes cut into pieces and checked whole
        /// (``PreparedPieces``), when the driver did that too.
        case snapshotChanges(Notebook, base: VersionVector, changes: NotebookDelta, prepared: PreparedPieces? = nil)
        /// A segment decoded, cut into pieces and checked whole by the driver outside any lock
        /// (a segment of one replica's operations larger than one piece).
        case segmentPieces(NotebookDelta, prepared: PreparedPieces)
    }

    /// Decodes what `key` names (a segment or a snapshot; nil for anything else) as the session
    /// would: pure, so a driver may call it outside any lock. `replica` is the session's.
    package static func decode(key: String, bytes: [UInt8], replica: ReplicaID) -> DecodedBlob? {
        switch StoreLayout.parse(key) {
        case .segment?: .delta(Result { () throws(DecodingError) in try NotebookDelta(decoding: bytes) })
        case .snapshot?: .snapshot(Result { () throws(DecodingError) in try Notebook(decoding: bytes, replica: replica) })
        case .head?, nil: nil
        }
    }

    /// A large delta cut into pieces (``NotebookDelta/pieces(maxOperations:)``) with the check of
    /// the whole the merge in pieces makes first (`Notebook.validateRunsAndTextCounts(of:)`):
    /// both pure, so a driver makes them outside the replica's lock, against a copy of the
    /// notebook (issue 25: cutting and checking a snapshot of 10,000 memos held an edit for
    /// 200 ms). A copy older than the notebook the pieces merge into is as good a base for the
    /// check: the notebook only grows, and each piece is checked again, whole, as it applies.
    package struct PreparedPieces: Sendable {
        /// The pieces, in order (one: the delta itself).
        package var pieces: [NotebookDelta]
        /// Why the whole is refused, when it is (checked only when there are several pieces).
        package var refusal: NotebookError?

        /// Cuts `delta` into the pieces `configuration` asks for, and checks it against `notebook`.
        package init(_ delta: NotebookDelta, checkedAgainst notebook: Notebook, configuration: SyncConfiguration) {
            pieces = delta.pieces(maxOperations: configuration.mergePieceOperationsMax)
            refusal = nil
            guard pieces.count > 1 else { return }
            do throws(NotebookError) {
                try notebook.validateRunsAndTextCounts(of: delta)
            } catch {
                refusal = error
            }
        }
    }

    /// Segments of lineage ids whose operations this notebook holds are published, whoever
    /// wrote them (every id's operations are one history): they extend what is known published
    /// and are remembered for collection.
    private mutating func adoptPublishedOwnSegments() {
        var known = Set(state.ownSegments)
        let version = notebook.version
        for id in state.lineage {
            guard let listed = segments[id] else { continue }
            let held = version[id]
            var published = state.published[id]
            for segment in listed.sorted(by: { ($0.start, $0.key) < ($1.start, $1.key) }) where segment.end <= held {
                if !known.contains(segment.key) {
                    state.ownSegments.append(segment.key)
                    known.insert(segment.key)
                }
                if segment.start <= published { published = max(published, segment.end) }
            }
            if published > state.published[id] { state.published[id] = published }
        }
    }

    // MARK: Publish

    /// One segment with every lineage id's operations the store lacks, named after the latest
    /// session among them. (Apart, an insertion one session made and a later one deleted would
    /// travel as a tombstone without its deletion.)
    private mutating func nextPublication() -> SyncAction? {
        if let planned = plannedPublication {
            // Planned with the listing: its answer is taken now, in order.
            plannedPublication = nil
            return planned
        }
        guard !publishAttempted else { return nil }
        publishAttempted = true
        // A store that lost this library's history gets a snapshot of everything instead.
        guard !storeLostHistory else { return nil }
        adoptPublishedOwnSegments()
        let version = notebook.version
        let ranges = state.lineage.compactMap { id -> (replica: ReplicaID, counters: Range<UInt32>)? in
            let held = version[id]
            let from = state.published[id]
            return held > from ? (id, from..<held) : nil
        }
        guard let named = ranges.last else { return nil }
        let delta: NotebookDelta
        do throws(NotebookError) {
            delta = try notebook.changes(of: ranges)
        } catch {
            report.errors.append(SyncProblem(.local, reason: "cannot collect this library's operations: \(error)"))
            return nil
        }
        // A segment that builds on an operation only this library can give (the store lost it,
        // and its author never published it again) could be applied by nobody once this library
        // is gone: everything goes out as a snapshot instead (Simulations/README.md, "Seed 3093").
        let offered = storeOffers()
        if notebook.builds(on: delta, beyond: { offered[$0] ?? 0 }) {
            segmentBuildsOnWhatOnlyThisLibraryHolds = true
            return nil
        }
        let bytes = delta.encoded()
        let key = StoreLayout.segmentKey(replica: named.replica, counters: named.counters, bytes: bytes)
        // Never a blob larger than any reader reads: the operations stay unpublished here.
        guard bytes.count <= configuration.maxBlobBytes else {
            report.errors.append(SyncProblem(.write, key: key, storeError: .tooLarge(key: key, sizeBytes: bytes.count, limitBytes: configuration.maxBlobBytes)))
            publishFailed = true
            return nil
        }
        var upTo = VersionVector()
        for range in ranges { upTo[range.replica] = range.counters.upperBound }
        pendingWrite = (key, upTo)
        return .write(key: key, bytes: bytes)
    }

    /// The snapshot's write once the driver encoded it; before that, whether one is due (then
    /// ``snapshotToEncode`` holds a copy of the notebook, and nothing is handed out until the
    /// bytes come back).
    private mutating func nextSnapshot() -> SyncAction? {
        if let encoded = encodedSnapshot {
            encodedSnapshot = nil
            return snapshotWrite(encoded.bytes, version: encoded.version, key: encoded.key)
        }
        guard !snapshotAttempted, !publishFailed else { return nil }
        snapshotAttempted = true
        let version = notebook.version
        guard !version.isEmpty else { return nil }
        let lineageVersion = state.lineageVersion(of: version)
        let lastCovered = state.ownSnapshots.last?.version ?? VersionVector()
        let uncoveredOwnSegments = state.ownSegments.reduce(0) { count, key in
            if case let .segment(id, _, end)? = StoreLayout.parse(key), end > lastCovered[id] { return count + 1 }
            return count
        }
        let total = UInt64(version.operationCount)
        // Operations are counted from the newest snapshot anyone published (a device that
        // bootstrapped from one does not publish the same again).
        let covered = max(state.operationsAtLastSnapshot, snapshots.first?.totalOperations ?? 0)
        let ownNews = !lineageVersion.isIncluded(in: lastCovered)
        // Due when this library wrote that many segments since its last snapshot (only its own
        // snapshots let it collect its segments), when a new device would read too many
        // segments after the newest snapshot it can start from (counted from what this library
        // knows of snapshots' contents), when much happened since the last one, when the store
        // lost this library's history, or when another replica waits for operations only a new
        // snapshot of this one can give.
        //
        // The counts alone make one due only when it pays for itself: a large notebook's
        // snapshot waits until the segments it spares weigh enough, or are many
        // (`SyncConfiguration.snapshotAmortizedAboveBytes`).
        let newestSnapshotBytes = snapshots.first.map { listedSizes[$0.key] ?? 0 } ?? 0
        func worthIt(segments count: Int, listedBytes: Int) -> Bool {
            guard count >= configuration.snapshotAfterSegments else { return false }
            guard newestSnapshotBytes > configuration.snapshotAmortizedAboveBytes else { return true }
            // (Saturating: a percentage of `Int.max` means "never by weight", not a trap.)
            let weight = listedBytes.multipliedReportingOverflow(by: 100)
            let needed = newestSnapshotBytes.multipliedReportingOverflow(by: configuration.snapshotAmortizedSegmentBytesPercent)
            return count >= configuration.snapshotAfterSegmentsMax
                || (needed.overflow ? false : weight.overflow || weight.partialValue >= needed.partialValue)
        }
        let ownUncoveredBytes = state.ownSegments.reduce(0) { bytes, key in
            if case let .segment(id, _, end)? = StoreLayout.parse(key), end > lastCovered[id] { return bytes + (listedSizes[key] ?? 0) }
            return bytes
        }
        let afterNewest = ownNews ? segmentsAfterNewestKnownSnapshot() : (count: 0, listedBytes: 0)
        let byOperations = covered.addingReportingOverflow(UInt64(clamping: configuration.snapshotEveryOperations))
        let due = worthIt(segments: uncoveredOwnSegments, listedBytes: ownUncoveredBytes)
            || (ownNews && worthIt(segments: afterNewest.count, listedBytes: afterNewest.listedBytes))
            || (!byOperations.overflow && total >= byOperations.partialValue && ownNews)
            || storeLostHistory
            || segmentBuildsOnWhatOnlyThisLibraryHolds
            || anotherReplicaWaitsForThisOne()
        guard due else { return nil }
        snapshotToEncode = notebook
        return nil
    }

    /// Takes the snapshot the driver encoded from ``snapshotToEncode`` (with
    /// `Notebook.encodedKeepingTextBodies()`, outside any lock, so that a large notebook's
    /// encoding never holds up an edit); the sequential step goes on with its write.
    ///
    /// - Parameter key: the snapshot's key, ``snapshotKey(of:from:)``, when the driver computed
    ///   it outside the lock too (it hashes every byte: 40 ms for 10,000 memos).
    package mutating func snapshotEncoded(_ bytes: [UInt8], from copy: Notebook, key: String? = nil) {
        guard snapshotToEncode != nil else { return }
        snapshotToEncode = nil
        encodedSnapshot = (bytes, copy.version, key)
    }

    /// The key of this session's snapshot encoded as `bytes` from `copy` (a copy of its
    /// notebook, ``snapshotToEncode``): pure, so a driver may compute it outside any lock.
    package static func snapshotKey(of bytes: [UInt8], from copy: Notebook) -> String {
        StoreLayout.snapshotKey(replica: copy.replica, totalOperations: UInt64(copy.version.operationCount), bytes: bytes)
    }

    private mutating func snapshotWrite(_ bytes: [UInt8], version: VersionVector, key computed: String?) -> SyncAction? {
        let key = computed ?? StoreLayout.snapshotKey(replica: notebook.replica, totalOperations: UInt64(version.operationCount), bytes: bytes)
        // The same snapshot still in the store needs no second copy (one that is gone, in a wiped
        // or restored store, is written again).
        guard !(state.ownSnapshots.contains(where: { $0.key == key }) && listedKeys.contains(key)) else { return nil }
        // Never a blob larger than any reader reads (FORMAT.md, "Size limit").
        guard bytes.count <= configuration.maxBlobBytes else {
            report.errors.append(SyncProblem(.write, key: key, storeError: .tooLarge(key: key, sizeBytes: bytes.count, limitBytes: configuration.maxBlobBytes)))
            return nil
        }
        pendingWrite = (key, version)
        return .write(key: key, bytes: bytes)
    }

    private mutating func wrote(key: String) {
        if case .head? = StoreLayout.parse(key) { return wroteHead(key: key) }
        guard let written = pendingWrite, written.key == key else { return }
        pendingWrite = nil
        switch StoreLayout.parse(key) {
        case .segment?:
            for entry in written.version.entries {
                report.publishedOperationCount += Int(entry.operationCount - min(entry.operationCount, state.published[entry.replica]))
                state.published[entry.replica] = max(state.published[entry.replica], entry.operationCount)
            }
            state.ownSegments.append(key)
            report.publishedSegment = key
            report.publishedSegments.append(key)
        case .snapshot?:
            // Written under the current id, which is then this library's to collect even if it
            // has made no operation.
            state.addToLineage(notebook.replica)
            // It holds every operation of the lineage this notebook holds: published.
            for id in state.lineage where written.version[id] > state.published[id] {
                report.publishedOperationCount += Int(written.version[id] - state.published[id])
                state.published[id] = written.version[id]
            }
            state.ownSnapshots.removeAll { $0.key == key }
            state.ownSnapshots.append(SyncState.OwnSnapshot(key: key, version: written.version, writtenAtMilliseconds: nowMilliseconds))
            listedKeys.insert(key)
            state.operationsAtLastSnapshot = UInt64(written.version.operationCount)
            report.publishedSnapshot = key
        case .head?, nil:
            break
        }
    }

    // MARK: Collect

    private mutating func planDeletions() {
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active == .gcNeverCollects { return }
        #endif
        let grace = configuration.gracePeriodMilliseconds
        func aged(_ snapshot: SyncState.OwnSnapshot) -> Bool {
            #if MEMOSYNC_MUTANTS
            if EngineMutant.active == .gcWithoutGracePeriod { return true }
            #endif
            return nowMilliseconds >= snapshot.writtenAtMilliseconds && nowMilliseconds - snapshot.writtenAtMilliseconds >= grace
        }
        // The aged snapshot that holds the most of this library's operations decides what is
        // covered (ties: the later one in the list, which was written or found later).
        // Only a snapshot this listing shows: the state may be stale (a library restored from a
        // backup remembers snapshots another copy has collected since).
        let listed = Set(snapshots.map(\.key))
        var best: SyncState.OwnSnapshot?
        for snapshot in state.ownSnapshots where aged(snapshot) && listed.contains(snapshot.key) {
            if best == nil || snapshot.version.operationCount >= best!.version.operationCount { best = snapshot }
        }
        guard let covering = best else { return }
        // Each id's segment that ends last stays: its name tells readers how far that id's
        // operations go, so one that lacks collected segments knows to read a snapshot.
        // One key per id stays: the shortest (a sync client's conflicted copies of it go).
        var kept: [ReplicaID: (end: UInt32, key: String)] = [:]
        for key in state.ownSegments {
            guard case let .segment(id, _, end)? = StoreLayout.parse(key) else { continue }
            if let current = kept[id] {
                let better = end > current.end || (end == current.end && (key.utf8.count, key) < (current.key.utf8.count, current.key))
                guard better else { continue }
            }
            kept[id] = (end, key)
        }
        for key in state.ownSegments {
            if case let .segment(id, _, end)? = StoreLayout.parse(key), end <= covering.version[id], kept[id]?.key != key,
                !deletions.contains(key)
            {
                deletions.append(key)
            }
        }
        for snapshot in state.ownSnapshots
        where snapshot.key != covering.key && snapshot.version.isIncluded(in: covering.version) {
            if !deletions.contains(snapshot.key) { deletions.append(snapshot.key) }
        }
    }

    /// Earlier ids whose operations are all published, with nothing of theirs left to collect
    /// but their last segment, leave the lineage (that segment stays in the store for good).
    /// An id whose operations the notebook holds back stays: they are this library's, saved
    /// and not published (they build on a journal record damage took, and wait for a sync to
    /// bring it back); once out of the lineage, nothing would count them as unpublished or
    /// publish them when they apply (Simulations/README.md, "Seed 5042").
    private mutating func retireLineage() {
        let current = notebook.replica
        let version = notebook.version
        state.lineage.removeAll { id in
            guard id != current, state.published[id] >= version[id], notebook.pendingOperationCount(of: id) == 0 else { return false }
            let ownSegments = state.ownSegments.filter { key in
                if case let .segment(owner, _, _)? = StoreLayout.parse(key) { return owner == id }
                return false
            }
            let ownSnapshots = state.ownSnapshots.filter { snapshot in
                if case let .snapshot(owner, _)? = StoreLayout.parse(snapshot.key) { return owner == id }
                return false
            }
            guard ownSegments.count <= 1, ownSnapshots.isEmpty else { return false }
            state.ownSegments.removeAll { ownSegments.contains($0) }
            state.published[id] = 0
            return true
        }
    }

    private mutating func planHeadDeletions() {
        for key in staleOwnHeads where !deletions.contains(key) { deletions.append(key) }
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

