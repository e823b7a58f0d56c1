/// Which faults a simulated blob store injects, and how often. Every probability is per event
/// (per write, per read, per listing, per reader of a new blob); zero turns a fault off.
public struct StoreFaults: Sendable, Equatable {
    /// Chance that a new blob (or a deletion) reaches a given reader late.
    public var delayedVisibility = 0.0
    /// The longest such delay (drawn log-uniformly from one second up to this).
    public var visibilityDelayMaxMilliseconds: UInt64 = 3 * SimulatedTime.day
    /// Chance that a listing shows the store as it was a while ago.
    public var staleListing = 0.0
    /// How far back a stale listing looks, at most.
    public var staleListingMaxMilliseconds: UInt64 = 6 * SimulatedTime.hour
    /// Chance that a listing leaves entries out (each entry then dropped with probability 1/4)
    /// or shows some twice.
    public var lossyListing = 0.0
    /// Chance that a write also makes a conflicted copy (a second key, as sync clients do).
    public var conflictedCopies = 0.0
    /// Chance that a new blob shows to a given reader half-written (shorter) for a while.
    public var tornBlobs = 0.0
    /// The longest time a blob shows half-written.
    public var tornMaxMilliseconds: UInt64 = 2 * SimulatedTime.hour
    /// Chance that a read delivers the blob with one bit flipped (and that a conflicted copy is
    /// stored damaged for good).
    public var bitFlips = 0.0
    /// Chance that a new blob rots in the store a while after it is written (one bit flipped,
    /// the same size: every reader then reads the same damaged bytes) and is restored from a
    /// backup later (the same key, size and bytes as written; a new revision in listings).
    public var bitRot = 0.0
    /// Chance that any operation fails with a transient error (a write that fails may still
    /// have happened).
    public var transientErrors = 0.0
    /// Chance that a write is followed by a junk file in the store: named like a segment, a
    /// snapshot or a head of a replica nobody has, or no MemoSync key, with junk bytes.
    public var junkNames = 0.0

    /// No faults at all.
    public init() {}

    /// Whether any fault is on.
    public var isEmpty: Bool { self == StoreFaults() }
}

/// What a simulated store did, for summaries and for the "sometimes" checks.
public struct StoreStatistics: Sendable, Equatable {
    public var lists = 0
    public var reads = 0
    public var writes = 0
    public var deletes = 0
    public var bytesWritten = 0
    public var bytesRead = 0
    /// Versions (blobs or deletions) delivered late to at least one reader.
    public var delayedVersions = 0
    public var staleListings = 0
    public var droppedEntries = 0
    public var duplicatedEntries = 0
    public var conflictedCopies = 0
    public var tornReads = 0
    public var flippedReads = 0
    /// Blobs that rotted in the store (and were restored later).
    public var rottenBlobs = 0
    public var transientErrors = 0
    /// Writes refused because the store was full.
    public var fullRejections = 0
    /// Reads of a key the reader listed that was gone by then.
    public var readsOfMissing = 0
    /// Junk files put in the store, reads of them, and reads of snapshots (for the junk oracle:
    /// syncs with nothing new read neither).
    public var junkBlobs = 0
    public var junkReads = 0
    public var snapshotReads = 0

    /// Nothing yet.
    public init() {}
}
