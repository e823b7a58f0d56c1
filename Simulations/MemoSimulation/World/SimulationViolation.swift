/// A property every run must keep. A violation stops the run.
public enum Invariant: String, Sendable, Equatable, CaseIterable {
    /// Replicas holding the same operations have the same memos, texts and encoded bytes; after
    /// the final phase every live replica holds the same operations.
    case convergence
    /// Every character typed and every memo created is still there at the end, unless someone
    /// deleted it (or purged its memo) after seeing it, or it was never saved before a crash.
    case nothingLost = "nothing-lost"
    /// A deleted character never comes back; a character lost in a crash never appears; no
    /// character appears twice or in another memo; no text holds a character nobody typed.
    case deletedStaysDeleted = "deleted-stays-deleted"
    /// Runs typed concurrently at one place end up contiguous, not interleaved.
    case nonInterleaving = "non-interleaving"
    /// Nothing is held back for missing dependencies once the replicas are quiet, and each
    /// replica's internal invariants hold.
    case causality
    /// Every local edit gives what the same plain string edit gives on that replica's text.
    case intention
    /// What a replica reports (events) about changes from others matches its texts.
    case events
    /// A caret anchored after a character stays right after it whatever arrives from others.
    case cursor
    /// A save survives a crash; a library reopens after any crash; a restored backup opens.
    case durability
    /// After garbage collection the store's blob count and bytes stay within the stated bound.
    case bounded
    /// Garbage collection deletes only a replica's own blobs, each covered by one of its
    /// snapshots at least the grace period old by the replica's own clock.
    case collection
    /// The final phase reaches a state where syncing changes nothing.
    case quiescence
    /// The engine failed where it must not (an unexpected error, a delta it cannot decode).
    case engine
    /// In an encrypted run (every library encrypted from its start), no plain blob is ever
    /// written to the store, whatever happened to its key blob (issue 25).
    case plaintext
}

/// A violated invariant: what, where, when.
public struct SimulationViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which invariant.
    public var invariant: Invariant
    /// The replicas involved (0-based).
    public var peers: [Int]
    /// What was found.
    public var detail: String
    /// Simulated time of the finding.
    public var time: UInt64

    public var description: String {
        "\(invariant.rawValue) violated at \(SimulatedTime.describe(time)) on replica(s) \(peers.map { "r\($0)" }.joined(separator: ", ")): \(detail)"
    }
}

/// States worth reaching at least once in a batch of runs: a batch in which no run reached one
/// of them tested less than it seems (the "sometimes" checks).
public struct SometimesFlags: Sendable, Equatable, OptionSet {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Two runs typed concurrently after the same character, both surviving, checked for
    /// interleaving.
    public static let concurrentInsertsAtOnePlace = SometimesFlags(rawValue: 1 << 0)
    /// A trash or purge raced an edit of the same memo, and the edit brought the memo back.
    public static let deleteAgainstEdit = SometimesFlags(rawValue: 1 << 1)
    /// A crash hit right after (or right before) a replica wrote a segment or snapshot.
    public static let crashDuringPublish = SometimesFlags(rawValue: 1 << 2)
    /// A replica that joined late loaded a snapshot in its first sync.
    public static let lateJoinFromSnapshot = SometimesFlags(rawValue: 1 << 3)
    /// A crash hit in the middle of a save or compaction (the disk stopped mid-sequence).
    public static let crashDuringSave = SometimesFlags(rawValue: 1 << 4)
    /// A library copy found its replica id shared and moved to a new one.
    public static let copySynced = SometimesFlags(rawValue: 1 << 5)
    /// Garbage collection deleted blobs.
    public static let collected = SometimesFlags(rawValue: 1 << 6)
    /// A sync was cancelled midway.
    public static let syncCancelled = SometimesFlags(rawValue: 1 << 7)
    /// A replica edited while its sync was running.
    public static let editDuringSync = SometimesFlags(rawValue: 1 << 8)
    /// An encrypted library put its key blob back in a store that had lost it.
    public static let keyBlobRepublished = SometimesFlags(rawValue: 1 << 9)
    /// A library showed an earlier version of a memo from deleted content it keeps (issue 27).
    public static let historyShown = SometimesFlags(rawValue: 1 << 10)
    /// A library no longer showed an earlier version: its retention period dropped the content.
    public static let historyDropped = SometimesFlags(rawValue: 1 << 11)
    /// Bit rot took a journal record of operations no other library or store held, and the
    /// library reopened reporting it (torn-disk fault, issue 25).
    public static let rotBeforePublishing = SometimesFlags(rawValue: 1 << 12)
    /// A library reopened from its state list, its memos' texts left in the state file, and
    /// matched the library read from the whole state (issue 28).
    public static let openedFromStateList = SometimesFlags(rawValue: 1 << 13)

    /// Every flag with its name.
    public static let named: [(SometimesFlags, String)] = [
        (.concurrentInsertsAtOnePlace, "concurrent inserts at one place"),
        (.deleteAgainstEdit, "a delete against an edit"),
        (.crashDuringPublish, "a crash during publish"),
        (.lateJoinFromSnapshot, "a late join from a snapshot"),
        (.crashDuringSave, "a crash during a save"),
        (.copySynced, "a library copy synced"),
        (.collected, "garbage collection"),
        (.syncCancelled, "a sync cancelled"),
        (.editDuringSync, "an edit during a sync"),
        (.keyBlobRepublished, "a key blob put back"),
        (.historyShown, "an earlier version shown"),
        (.historyDropped, "history dropped by retention"),
        (.rotBeforePublishing, "unpublished edits lost to bit rot"),
        (.openedFromStateList, "a library opened from its state list"),
    ]

    /// The flags a batch must reach (the issue's list).
    public static let required: SometimesFlags = [.concurrentInsertsAtOnePlace, .deleteAgainstEdit, .crashDuringPublish, .lateJoinFromSnapshot]

    /// The names of the flags set.
    public var names: [String] { Self.named.filter { contains($0.0) }.map(\.1) }
}

/// Counts of what a run did.
public struct SimulationStatistics: Sendable, Equatable {
    /// Local edit calls into the engine (each keystroke counts once).
    public var edits = 0
    /// Characters inserted and deleted by local edits (a paste of 100 characters counts 100).
    public var characters = 0
    /// Local actions (a typing run, a paste, a trash...).
    public var actions = 0
    /// Scheduled events skipped (the replica was down, busy syncing, or had no memo to act on).
    public var skipped = 0
    public var syncsStarted = 0
    public var syncsFinished = 0
    public var storeOperations = 0
    /// Reads an encrypted run's store answered with bytes that did not open (Simulation+Encryption.swift).
    public var undecryptableReads = 0
    /// Encrypted runs: key blobs the libraries put back in a store that had lost theirs, syncs
    /// refused because the store's key blob did not open, and plain syncs the engine refused.
    public var keyBlobsRepublished = 0
    public var keyBlobRefusals = 0
    public var plainSyncsRefused = 0
    public var deltasDelivered = 0
    public var crashes = 0
    public var restores = 0
    /// Journal records of published operations bit rot hit (torn-disk fault).
    public var bitRots = 0
    /// Journal records bit rot hit before the store held their operations (torn-disk fault):
    /// their operations may be gone for good.
    public var bitRotsBeforePublishing = 0
    /// Junk files the junk-names fault put in the store.
    public var junkFiles = 0
    public var joins = 0
    public var leaves = 0
    public var checks = 0
    public var operationsApplied = 0
    /// Simulated time at the end of the run.
    public var simulatedMilliseconds: UInt64 = 0

    public init() {}
}

/// What a run found.
public struct SimulationResult: Sendable {
    /// The trace that ran.
    public var trace: Trace
    /// The violation that stopped it, if any.
    public var violation: SimulationViolation?
    /// The hash of its event log.
    public var hash: UInt64
    public var statistics: SimulationStatistics
    public var sometimes: SometimesFlags
    /// Store size at the end, and the bound it was checked against.
    public var storeBlobs = 0
    public var storeBytes = 0
    /// The last lines of the event log, when lines were kept.
    public var logTail: [String] = []
    /// How often each fault struck (only faults that did; see `Simulation.faultsFired()`).
    public var faultsFired: [FaultKind: Int] = [:]
}
