import MemoCRDT
import MemoNotes

/// One operation a ``SyncSession`` asks its driver to perform on the store.
package enum SyncAction: Sendable, Equatable, CustomStringConvertible {
    /// List every blob whose key starts with `prefix`.
    case list(prefix: String)
    /// Read the blob `key`.
    case read(key: String)
    /// Write `bytes` under `key` (atomically).
    case write(key: String, bytes: [UInt8])
    /// Delete the blob `key`.
    case delete(key: String)

    /// What tells two actions apart: the operation and its key (never the bytes).
    package var identity: String {
        switch self {
        case let .list(prefix): "list " + prefix
        case let .read(key): "read " + key
        case let .write(key, _): "write " + key
        case let .delete(key): "delete " + key
        }
    }

    /// Whether `other` is the same operation on the same key (``identity`` equal), compared
    /// without building either identity: the session asks this of every action in flight for
    /// each one it offers, thousands of times in a sync of a store full of junk.
    package func isSameOperation(as other: SyncAction) -> Bool {
        switch (self, other) {
        case let (.list(mine), .list(theirs)), let (.read(mine), .read(theirs)), let (.delete(mine), .delete(theirs)),
            let (.write(mine, _), .write(theirs, _)):
            mine == theirs
        default: false
        }
    }

    /// The operation a ``SyncProblem`` about this action names.
    var problemOperation: SyncProblem.Operation {
        switch self {
        case .list: .list
        case .read: .read
        case .write: .write
        case .delete: .delete
        }
    }

    /// The blob's key (none for a listing).
    var key: String? {
        switch self {
        case .list: nil
        case let .read(key), let .write(key, _), let .delete(key): key
        }
    }

    /// Whether it writes to the store.
    package var isWrite: Bool {
        if case .write = self { true } else { false }
    }

    /// The key under which an answer waits for the sequential step (reads and writes).
    var answerKey: String? {
        switch self {
        case .list, .delete: nil
        case let .read(key): "read " + key
        case let .write(key, _): "write " + key
        }
    }

    package var description: String {
        switch self {
        case let .list(prefix): "list \(prefix)"
        case let .read(key): "read \(key)"
        case let .write(key, bytes): "write \(key) (\(bytes.count) bytes)"
        case let .delete(key): "delete \(key)"
        }
    }
}

/// The outcome of a ``SyncAction``, handed back to the session.
package enum SyncResult: Sendable, Equatable {
    /// The listing, with the entries it left out.
    case listed(BlobListing)
    /// The blob's bytes.
    case read([UInt8])
    /// A write or delete succeeded.
    case done
    /// The operation failed.
    case failed(BlobStoreError)
}

/// Why a sync skipped a blob. It tries again next time (a half-downloaded file may be whole then).
public enum SkipReason: Sendable, Equatable, CustomStringConvertible {
    /// Shorter than its header says: still being written or downloaded.
    case incomplete
    /// Damaged: a checksum mismatch, or contents no correct replica writes.
    case corrupt(String)
    /// Written by a newer MemoSync (a format version this build does not know).
    case unknownVersion(kind: UInt8, version: UInt8)
    /// Not a MemoSync blob of the kind its name says.
    case notMemoSync
    /// Listed, but gone (or unreadable) when read.
    case unreadable(String)
    /// Listed larger than any writer of the format produces (``StoreLayout/maxListedBlobBytes``):
    /// never read.
    case tooLarge(sizeBytes: Int, limitBytes: Int)
    /// Left out by the store's listing (a folder it cannot read, a symbolic link, a FIFO):
    /// nothing under it was listed.
    case notListed(ListingProblem)

    public var description: String {
        switch self {
        case .incomplete: "incomplete"
        case let .corrupt(reason): "corrupt (\(reason))"
        case let .unknownVersion(kind, version): "unknown version (kind \(kind), version \(version))"
        case .notMemoSync: "not a MemoSync blob"
        case let .unreadable(reason): "unreadable (\(reason))"
        case let .tooLarge(size, limit): "too large (\(size) bytes; no MemoSync blob exceeds \(limit))"
        case let .notListed(problem): "not listed: \(problem)"
        }
    }

    /// The reason's kind as a number, kept in a library's memory of skipped blobs (FORMAT.md,
    /// "Blobs found bad"): 1 incomplete, 2 corrupt, 3 unknown version, 4 not a MemoSync blob,
    /// 5 unreadable, 6 too large, 7 not listed.
    package var code: UInt8 {
        switch self {
        case .incomplete: 1
        case .corrupt: 2
        case .unknownVersion: 3
        case .notMemoSync: 4
        case .unreadable: 5
        case .tooLarge: 6
        case .notListed: 7
        }
    }

    init(_ error: DecodingError) {
        switch error {
        case .truncated: self = .incomplete
        case let .unsupportedVersion(kind, version): self = .unknownVersion(kind: kind, version: version)
        case .notMemoSync, .wrongKind: self = .notMemoSync
        case .checksumMismatch, .malformed, .trailingBytes, .tooLarge: self = .corrupt(error.description)
        }
    }
}

/// What a library remembers of a blob a sync skipped, from one sync to the next and across
/// processes (in its sync state, FORMAT.md "Blobs found bad"), so that each problem is reported
/// once and a blob found bad for good is not read again until the store shows it changed.
///
/// A blob is *found bad for good* (``isConfirmed``) when what was read is the content its name
/// says (its content hash is the one in its name: immutable, so reading it again gives the
/// same), when two syncs read the same bytes and found them bad the same way (a damaged
/// download or a flipped bit on the way does not repeat itself), when the bytes read are no
/// MemoSync envelope at all, as many as listed, from a store that tells revisions (damage on
/// the way leaves an envelope's first bytes an envelope's), or when it was refused from its
/// listing alone. Until then it is read at every sync, as before: what looked damaged may
/// have been damaged on the way, and a download may complete. A blob whose listed size or
/// ``BlobInfo/revision`` changes is read again.
package struct SkipMemory: Sendable, Equatable {
    /// Its listed size when it was skipped, in bytes.
    package var sizeBytes: Int
    /// Its listed revision when it was skipped, as ``revisionHash(_:)`` of it.
    package var revisionHash: UInt64
    /// Why it was skipped (``SkipReason/code``).
    package var reasonCode: UInt8
    /// What was found: the content hash (``StoreLayout/hashValue(_:)``) of the bytes read, or of
    /// the store's refusal; 0 when nothing was read.
    package var evidence: UInt64
    /// Found bad for good: not read again while its size and revision stay.
    package var isConfirmed: Bool

    /// A listing's ``BlobInfo/revision`` as kept: 0 for none, else its content hash
    /// (``StoreLayout/hashValue(_:)``).
    package static func revisionHash(_ revision: String) -> UInt64 {
        revision.isEmpty ? 0 : StoreLayout.hashValue(utf8: revision)
    }

    /// Whether this is the record of a blob listed with `sizeBytes` and `revision`.
    package func matches(sizeBytes: Int, revision: String) -> Bool {
        self.sizeBytes == sizeBytes && revisionHash == Self.revisionHash(revision)
    }

    /// A record of a skipped blob.
    package init(sizeBytes: Int, revisionHash: UInt64, reasonCode: UInt8, evidence: UInt64, isConfirmed: Bool) {
        self.sizeBytes = sizeBytes
        self.revisionHash = revisionHash
        self.reasonCode = reasonCode
        self.evidence = evidence
        self.isConfirmed = isConfirmed
    }
}

/// A blob a sync skipped, and why.
public struct SkippedBlob: Sendable, Equatable, CustomStringConvertible {
    /// Its key.
    public var key: String
    /// Why.
    public var reason: SkipReason

    public var description: String { "\(key): \(reason)" }
}

/// What a sync did.
///
/// Operations are counted one way everywhere: *notebook operations*, as version vectors count
/// them (a character typed or deleted, a memo created, trashed, restored or purged: one each).
/// ``publishedOperationCount`` counts those a sync wrote that the store lacked;
/// ``operationsApplied`` those it applied from the store; `Replica.unpublishedOperationCount`
/// those not yet published. So the operations one library publishes are the operations another
/// receives (unless it had some of them already, or holds some back).
public struct SyncReport: Sendable, Equatable {
    /// Whether the store was listed. A sync whose listing failed did nothing else: it read,
    /// wrote and applied nothing.
    public var listedStore = false
    /// Blobs listed in the store.
    public var blobsListed = 0
    /// Blobs read, and their bytes.
    public var blobsRead = 0
    public var bytesRead = 0
    /// Blobs written, and their bytes.
    public var blobsWritten = 0
    public var bytesWritten = 0
    /// Blobs deleted (this replica's own, covered by its snapshots).
    public var blobsDeleted = 0
    /// Notebook operations applied from other replicas.
    public var operationsApplied = 0
    /// Operations received but held back for missing dependencies (they arrive with a later sync).
    public var pendingOperationCount = 0
    /// The last segment this replica published, if any.
    public var publishedSegment: String?
    /// Every segment this replica published (one per id of its lineage with news).
    public var publishedSegments: [String] = []
    /// The head this replica published, if any (what it holds and lacks).
    public var publishedHead: String?
    /// Operations of this library's lineage it had published that the store no longer held (a
    /// new, wiped or restored store), published again in this sync.
    public var republishedOperationCount = 0
    /// Notebook operations of this library's ids (its lineage) this sync wrote to the store that
    /// the store was not known to hold: every id's operations in the segments it published
    /// (a segment is named after one id's range, but may hold several ids' operations).
    public var publishedOperationCount = 0
    /// The snapshot this replica published, if any.
    public var publishedSnapshot: String?
    /// Blobs skipped, and why: those this library had not reported before (for this reason at
    /// this listed size and revision; the library remembers across syncs and processes, FORMAT.md
    /// "Blobs found bad"). A blob skipped again is counted in ``skippedAgainCount`` instead, so
    /// an app (and `memo sync`) shows each problem once. Each is named by the key the store lists
    /// it under: through an ``EncryptedBlobStore``, its `memosync/e1/` key
    /// (``EncryptedBlobStore/storedKey(forPlainKey:)``), set by ``Replica/sync(with:progress:)``.
    public var skipped: [SkippedBlob] = []
    /// Blobs skipped again: reported by an earlier sync of this library, for the same reason and
    /// at the same listed size and revision. One found bad for good is not even read again
    /// until its listing changes (``blobsRemembered``); any other is read again, and used once
    /// it is whole.
    public var skippedAgainCount = 0
    /// Of ``skippedAgainCount``, the blobs not read at all: found bad for good by an earlier
    /// sync, and listed with the same size and revision since.
    public var blobsRemembered = 0
    /// What the sync could not do (a failed listing, write or deletion, a step on this device),
    /// as typed values: the operation, the blob's key and the ``BlobStoreError`` or a reason.
    /// The sync went on where it could. Skipped blobs are not errors (see ``skipped``).
    public var errors: [SyncProblem] = []
    /// Whether the sync was cancelled (its task was): it stopped at a safe point, what it wrote
    /// and applied until then counts, and the next sync does the rest.
    public var cancelled = false
    /// Whether the sync went through the store's encryption (an ``EncryptedBlobStore``): what it
    /// wrote is ciphertext. Set by ``Replica/sync(with:progress:)``.
    public var encrypted = false
    /// Plain blobs an encrypted sync found beside the ciphertext (``EncryptedBlobStore/plainBlobKeys``,
    /// sorted): never read, never applied. Left from before encryption was turned on (collected
    /// once a snapshot covers them), or put there by someone who can write to the store.
    public var plainBlobsIgnored: [String] = []

    /// Whether the sync did everything it set out to: it listed the store and met no store
    /// error (skipped blobs are not errors). Only a complete sync moves
    /// `Replica.lastSyncMilliseconds`.
    public var isComplete: Bool { listedStore && errors.isEmpty && !cancelled }

    /// An empty report.
    public init() {}
}

/// How a replica uses the store. (Counts, sizes and percentages below 0 are taken as 0.)
public struct SyncConfiguration: Sendable, Equatable {
    /// Publish a snapshot when this many operations arrived since this replica's last one.
    public var snapshotEveryOperations: Int = 20_000 {
        didSet { snapshotEveryOperations = max(0, snapshotEveryOperations) }
    }
    /// Publish a snapshot when the store holds at least this many segments newer than the newest
    /// snapshot whose contents this replica knows (its own, or one named in its writer's head),
    /// so that a new device reads one snapshot and a handful of segments, however long the
    /// history; and when this replica wrote this many segments since its own last snapshot.
    /// With devices syncing one after another, a new device then reads their heads, one
    /// snapshot and at most this many segments (`memo-bench longevity`: at most 8 blobs with
    /// three devices at 4; 10 at 6). For a large notebook, see ``snapshotAmortizedAboveBytes``.
    public var snapshotAfterSegments: Int = 4 {
        didSet { snapshotAfterSegments = max(0, snapshotAfterSegments) }
    }
    /// A snapshot rewrites the whole notebook, so for a large one the segment counts above
    /// make a snapshot due only once it pays for itself: when the newest snapshot listed is
    /// larger than this (bytes), a snapshot is due by count only when the segments it would
    /// spare weigh at least ``snapshotAmortizedSegmentBytesPercent`` percent of that snapshot,
    /// or number ``snapshotAfterSegmentsMax``. A library of 10,000 memos (a 22 MB snapshot)
    /// synced after each small change would otherwise upload 22 MB at every fourth sync; with
    /// this, one snapshot in 128 syncs: under 1% of the snapshot per change on average
    /// (`memo-bench scale`), for a new device reading more, smaller blobs. 1 MiB: smaller
    /// libraries snapshot as before.
    public var snapshotAmortizedAboveBytes: Int = 1 << 20 {
        didSet { snapshotAmortizedAboveBytes = max(0, snapshotAmortizedAboveBytes) }
    }
    /// See ``snapshotAmortizedAboveBytes``: the weight, in percent of the newest snapshot, of
    /// the segments that make a snapshot of a large notebook due.
    public var snapshotAmortizedSegmentBytesPercent: Int = 25 {
        didSet { snapshotAmortizedSegmentBytesPercent = max(0, snapshotAmortizedSegmentBytesPercent) }
    }
    /// See ``snapshotAmortizedAboveBytes``: the most segments after a snapshot of a large
    /// notebook before the next is due, whatever they weigh (what a new device reads at most
    /// beside the snapshot, with devices syncing one after another).
    public var snapshotAfterSegmentsMax: Int = 128 {
        didSet { snapshotAfterSegmentsMax = max(0, snapshotAfterSegmentsMax) }
    }
    /// Own segments covered by an own snapshot, and own snapshots replaced by a newer one, are
    /// deleted once the covering snapshot is this old (so replicas that listed the store earlier
    /// can still read what they saw).
    public var gracePeriodMilliseconds: UInt64 = 7 * 24 * 3_600_000
    /// Store operations a sync keeps in flight at once (reads of different blobs, independent
    /// writes and deletions): 1 performs them one after another. A store over a network
    /// answers in about one round trip for all of them.
    public var maxInFlight: Int = 8 {
        didSet { maxInFlight = max(1, maxInFlight) }
    }
    /// The largest blob this sync writes or reads (``StoreLayout/maxBlobBytes``); a listed
    /// blob larger than ``StoreLayout/listedBytesMax(forBlobBytes:)`` of it is skipped unread.
    package var maxBlobBytes = StoreLayout.maxBlobBytes
    /// The largest listed size of a blob this sync reads.
    package var maxListedBlobBytes: Int { StoreLayout.listedBytesMax(forBlobBytes: maxBlobBytes) }
    /// Blobs read ahead whose answers may wait in memory before the sync uses them.
    package var maxAnswersAhead: Int { max(1, maxInFlight) }
    /// The most operations of a received segment merged at once (`SyncSession`'s pieces): the
    /// replica's lock is released between pieces, so an edit waits for at most one piece.
    /// Package-only: the simulator makes it small to merge in many pieces.
    package var mergePieceOperationsMax: Int = 2_048

    /// The defaults.
    public init() {}
}

/// What a replica remembers about the store between syncs (kept in its library).
///
/// A library keeps its replica id across clean sessions and takes a fresh one after a crash or in
/// a copy, so that no two copies of it (a clone, a restored backup, the library after a crash)
/// ever make different operations under one id. Its *lineage* is the ids it has made operations under: it publishes, and collects, what
/// it holds of each of them.
package struct SyncState: Sendable, Equatable {
    /// One of this library's snapshots in the store.
    package struct OwnSnapshot: Sendable, Equatable {
        /// Its key.
        package var key: String
        /// The operations it holds (of every replica).
        package var version: VersionVector
        /// When it was written, or found (wall clock, milliseconds).
        package var writtenAtMilliseconds: UInt64

        /// A snapshot record.
        package init(key: String, version: VersionVector, writtenAtMilliseconds: UInt64) {
            self.key = key
            self.version = version
            self.writtenAtMilliseconds = writtenAtMilliseconds
        }
    }

    /// The replica ids this library has made operations under, oldest session first.
    package var lineage: [ReplicaID] = []
    /// For each id of the lineage, how many of its operations are known to be in the store.
    package var published = VersionVector()
    /// Segments of lineage ids known to be in the store.
    package var ownSegments: [String] = []
    /// This library's snapshots in the store, oldest first.
    package var ownSnapshots: [OwnSnapshot] = []
    /// A head of another replica this library has read (``SyncHead``), with its key.
    package struct KnownHead: Sendable, Equatable {
        /// The replica that published it.
        package var replica: ReplicaID
        /// Its key.
        package var key: String
        /// What it says.
        package var head: SyncHead

        /// A head record.
        package init(replica: ReplicaID, key: String, head: SyncHead) {
            self.replica = replica
            self.key = key
            self.head = head
        }
    }

    /// A snapshot of another replica this library has read, with the operations it held, so that
    /// it is not read again while it has nothing this library lacks.
    package struct ReadSnapshot: Sendable, Equatable {
        /// Its key.
        package var key: String
        /// The operations it holds.
        package var version: VersionVector

        /// A record of a read snapshot.
        package init(key: String, version: VersionVector) {
            self.key = key
            self.version = version
        }
    }

    /// This library's head in the store (its key and what it says), if it has published one.
    package var ownHead: KnownHead?
    /// The latest head of each other replica, as last read (ascending by replica).
    package var otherHeads: [KnownHead] = []
    /// Other replicas' snapshots this library has read, still listed at its last sync (bounded by
    /// the snapshots in the store).
    package var readSnapshots: [ReadSnapshot] = []
    /// Total operations the notebook held at the last own snapshot.
    package var operationsAtLastSnapshot: UInt64 = 0
    /// Blobs the last syncs skipped, still listed then, by key (``SkipMemory``): at most
    /// ``skippedBlobsMax``.
    package var skippedBlobs: [String: SkipMemory] = [:]
    /// The most blobs ``skippedBlobs`` holds (20,000; the first by key). A store with more
    /// junk than that has the rest read, and reported, at every sync.
    package static let skippedBlobsMax = 20_000
    /// When the last complete sync finished (wall clock, milliseconds; ``SyncReport/isComplete``),
    /// 0 if never. A sync that could not list the store, or met a store error, leaves it.
    package var lastSyncMilliseconds: UInt64 = 0

    /// A fresh state: nothing published.
    package init() {}

    /// Adds `replica` to the end of the lineage, unless it is there already.
    package mutating func addToLineage(_ replica: ReplicaID) {
        guard !lineage.contains(replica) else { return }
        lineage.append(replica)
    }

    /// Adds `replica` (an id another process of this library made operations under, read from
    /// the library files) to the lineage: before `current` when `current` is in it, so that the
    /// id this library edits under now stays the last (its segments are named after it), else
    /// at the end. Nothing when it is there already.
    package mutating func adoptIntoLineage(_ replica: ReplicaID, current: ReplicaID) {
        guard !lineage.contains(replica) else { return }
        if let index = lineage.firstIndex(of: current) {
            lineage.insert(replica, at: index)
        } else {
            lineage.append(replica)
        }
    }

    /// `version` restricted to the lineage's ids.
    package func lineageVersion(of version: VersionVector) -> VersionVector {
        VersionVector(entries: lineage.compactMap { id in
            let count = version[id]
            return count == 0 ? nil : VersionVector.Entry(replica: id, operationCount: count)
        })
    }

    /// Operations of lineage ids that `version` holds and the store is not known to hold.
    package func unpublishedOperationCount(in version: VersionVector) -> Int {
        lineage.reduce(0) { $0 + Int(version[$1] - min(version[$1], published[$1])) }
    }

    /// Operations of lineage ids that `notebook` holds or holds back and the store is not known
    /// to hold. A saved operation of this library held back (it builds on a journal record that
    /// damage took, and waits for a sync to bring that record back) is not published either:
    /// it counts until it applies and a sync publishes it.
    package func unpublishedOperationCount(in notebook: Notebook) -> Int {
        lineage.reduce(unpublishedOperationCount(in: notebook.version)) { $0 + notebook.pendingOperationCount(of: $1) }
    }
}

extension SyncState {
    /// Parts of a sync state a journal record may leave out when they are as before it
    /// (FORMAT.md, "Local library": `hasSyncState` 2).
    package struct Parts: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// ``ownHead``, ``otherHeads`` and ``readSnapshots``.
        package static let heads = Parts(rawValue: 1)
        /// ``skippedBlobs``.
        package static let blobsFoundBad = Parts(rawValue: 2)
        package static let all: Parts = [.heads, .blobsFoundBad]
    }

    /// The parts of this state that are the same as in `other` and hold something (a part
    /// that holds nothing costs a record nothing to write).
    package func partsAsIn(_ other: SyncState) -> Parts {
        var parts: Parts = []
        if ownHead != nil || !otherHeads.isEmpty || !readSnapshots.isEmpty,
            ownHead == other.ownHead, otherHeads == other.otherHeads, readSnapshots == other.readSnapshots
        {
            parts.insert(.heads)
        }
        if !skippedBlobs.isEmpty, skippedBlobs == other.skippedBlobs { parts.insert(.blobsFoundBad) }
        return parts
    }

    /// Takes `parts` from `earlier` (a record that left them out).
    package mutating func takeParts(_ parts: Parts, from earlier: SyncState) {
        if parts.contains(.heads) {
            ownHead = earlier.ownHead
            otherHeads = earlier.otherHeads
            readSnapshots = earlier.readSnapshots
        }
        if parts.contains(.blobsFoundBad) { skippedBlobs = earlier.skippedBlobs }
    }
}
