import MemoSync
#if MEMOSYNC_MUTANTS
import MemoCRDT
#endif

/// Which engine the replicas of a simulation run.
public enum EngineLevel: String, Sendable, Equatable, CaseIterable {
    /// Real `Replica` objects on simulated disks, syncing step by step through the simulated
    /// blob store (`SyncSession`): the whole engine.
    case replica
    /// Bare `Notebook` values exchanging encoded deltas over a simulated network that delays,
    /// duplicates and reorders them: the core alone, faster.
    case notebook
}

/// Something the simulated users do. Each seed turns a random subset on (swarm testing: a
/// run that never trashes memos explores edits more deeply, and the reverse).
public enum WorkloadFeature: String, Sendable, Equatable, CaseIterable, Comparable {
    case typeForward = "type-forward"
    case typeBackward = "type-backward"
    case caretTyping = "caret-typing"
    case paste
    case deleteRange = "delete-range"
    case backspace
    case replaceRange = "replace-range"
    case replaceAll = "replace-all"
    case concurrentTyping = "concurrent-typing"
    case createMemo = "create"
    case trash
    case restore
    case purge
    case undo
    case redo
    case save
    case compact
    case lateJoin = "late-join"
    case clone
    case leave

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A fault the simulation injects. Each seed draws which are on and how often.
public enum FaultKind: String, Sendable, Equatable, CaseIterable, Comparable {
    // The blob store.
    case delayedVisibility = "delay"
    case staleListing = "stale"
    case lossyListing = "lossy"
    case conflictedCopies = "conflicts"
    case tornBlobs = "torn"
    case bitFlips = "bitflips"
    /// A blob rots in the store (a bit flipped in place, every reader reads the same damaged
    /// bytes) and is restored from a backup later (same key, size and bytes).
    case bitRot = "rot"
    case transientErrors = "transient"
    case storeFull = "full"
    /// The store is wiped, or replaced by an older copy of itself (a folder re-created or
    /// restored from a backup).
    case storeLoss = "store-loss"
    /// The store's operator deletes its key blob, replaces it with another library's, or puts
    /// the library's back (encrypted runs only; issue 25).
    case keyBlob = "key-blob"
    /// Files named like segments, snapshots and heads of replicas nobody has, and names that
    /// are no MemoSync key, with junk bytes, appear in the store (issue 25).
    case junkNames = "junk"
    // The replicas.
    case offline
    case crash
    case tornDisk = "torn-disk"
    case restoreOldCopy = "old-copy"
    case clockSkew = "skew"
    case clockDrift = "drift"
    case clockJumps = "jumps"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether the notebook-level engine (no disk, no store) can have this fault.
    public var appliesToNotebookLevel: Bool {
        switch self {
        case .clockSkew, .clockDrift, .clockJumps, .offline, .delayedVisibility: true
        default: false
        }
    }
}

/// Everything that defines a run besides its scheduled events. Written at the top of a trace.
public struct SimulationParameters: Sendable, Equatable {
    /// The seed of every random stream of the run.
    public var seed: UInt64
    /// Which engine the replicas run.
    public var engine: EngineLevel = .replica
    /// Replicas (devices) in the run, founders and late joiners together (2 to 64).
    public var replicaCount: Int
    /// Replicas present from the start; the others join later.
    public var founderCount: Int
    /// Workload events scheduled.
    public var steps: Int
    /// What the users do.
    public var features: [WorkloadFeature]
    /// The faults on, each with its rate (a probability per event for store faults; a weight
    /// among scheduled events for replica faults).
    public var faults: [FaultKind: Double]
    /// The longest delay before a new blob reaches a reader.
    public var visibilityDelayMaxMilliseconds: UInt64 = 2 * SimulatedTime.day
    /// The replicas' sync configuration.
    public var snapshotAfterSegments = 64
    public var snapshotEveryOperations = 20_000
    public var gracePeriodMilliseconds: UInt64 = 7 * SimulatedTime.day
    /// The most memos the users create, and the longest text they grow a memo to.
    public var memosMax = 24
    public var memoScalarsMax = 1_500
    /// Chance that a local action is followed by comparing the memo's whole text with the
    /// model (1: after every action).
    public var intentionCheckProbability = 1.0
    /// The deliberately broken engine variant the run uses, if any (testing builds only).
    public var mutant: String?

    /// Parameters with nothing drawn yet.
    public init(seed: UInt64, replicaCount: Int, founderCount: Int, steps: Int, features: [WorkloadFeature], faults: [FaultKind: Double]) {
        self.seed = seed
        self.replicaCount = replicaCount
        self.founderCount = founderCount
        self.steps = steps
        self.features = features
        self.faults = faults
    }

    /// The names ``mutant`` may take in this build: every `EngineMutant` in a debug build, none
    /// in a release build (which contains no mutant code).
    public static var availableMutants: [String] {
        #if MEMOSYNC_MUTANTS
        EngineMutant.allCases.map(\.rawValue)
        #else
        []
        #endif
    }

    /// Why `name` cannot be a mutant in this build, or nil when it can.
    public static func mutantProblem(_ name: String) -> String? {
        if availableMutants.contains(name) { return nil }
        if availableMutants.isEmpty { return "mutant \(name): mutants exist only in debug builds" }
        return "unknown mutant \(name); one of: \(availableMutants.joined(separator: ", "))"
    }

    /// Whether `feature` is on.
    public func has(_ feature: WorkloadFeature) -> Bool { features.contains(feature) }

    /// The rate of `fault`, 0 when it is off.
    public func rate(_ fault: FaultKind) -> Double { faults[fault] ?? 0 }

    /// The replicas' sync configuration.
    public var syncConfiguration: SyncConfiguration {
        var configuration = SyncConfiguration()
        configuration.snapshotAfterSegments = snapshotAfterSegments
        configuration.snapshotEveryOperations = snapshotEveryOperations
        configuration.gracePeriodMilliseconds = gracePeriodMilliseconds
        configuration.mergePieceOperationsMax = mergePieceOperationsMax
        configuration.snapshotAmortizedAboveBytes = snapshotsAmortized ? 0 : .max
        configuration.snapshotAfterSegmentsMax = snapshotAfterSegmentsMax
        return configuration
    }

    /// Whether snapshots wait until the segments they spare weigh a quarter of the newest
    /// snapshot (issue 28: `SyncConfiguration.snapshotAmortizedAboveBytes`, for notebooks past 1
    /// MiB). Simulated notebooks are small, so in one seed of four every snapshot is amortized
    /// (the threshold 0) and in the others none is (they snapshot by count alone, as before).
    /// Taken from the seed, not drawn, like ``mergePieceOperationsMax`` (and independent of
    /// it and of ``decodedTextLimit``).
    public var snapshotsAmortized: Bool { seed / 40 % 4 == 1 }

    /// The most own segments after a snapshot before the next is due, whatever they weigh:
    /// four times ``snapshotAfterSegments`` in seeds whose snapshots are amortized (a bound the
    /// final checks use).
    public var snapshotAfterSegmentsMax: Int { snapshotsAmortized ? 4 * snapshotAfterSegments : snapshotAfterSegments }

    /// The most operations a sync merges at once (issue 25: received work merges in pieces):
    /// small in most seeds, so that segments and snapshots merge in many pieces (held back
    /// across pieces, tombstones whose deletions come in a later piece). Taken from the seed,
    /// not drawn, so that the other parameters of a seed stay what they were.
    public var mergePieceOperationsMax: Int { [1, 3, 8, 32, 2_048][Int(seed % 5)] }

    /// A ``decodedTextLimit`` to use instead of the seed's (not written to traces): a test runs
    /// one seed with and without texts turned back and compares the runs.
    public var decodedTextLimitOverride: Int?

    /// How many memo texts each replica keeps decoded after a save (issue 28:
    /// `Replica.decodedTextLimit`): none in one seed of eight and two in another, so that texts
    /// go back to their encoded form at nearly every save and are decoded again by the next edit,
    /// merge, journal replay or read; the default in the others (each decode again costs: those
    /// seeds take about twice as long). Taken from the seed, not drawn, like
    /// ``mergePieceOperationsMax`` (and independent of it).
    public var decodedTextLimit: Int {
        if let decodedTextLimitOverride { return decodedTextLimitOverride }
        return switch seed / 5 % 8 {
        case 0: 0
        case 1: 2
        default: Replica.defaultDecodedTextLimit
        }
    }

    /// The smallest state file that gets a state list (issue 28: FORMAT.md, "State list";
    /// `LibraryDisk.stateListMinimumBytes`): 0 in one seed of two, so that every compaction
    /// writes a list, every open reads it, and each memo's text stays in the state file until
    /// first used (edited, merged, read, copied by a compaction or a snapshot); 1 MiB, as on a
    /// real disk, in the others, where simulated libraries never have a list. Taken from the
    /// seed, not drawn, like ``mergePieceOperationsMax`` (and independent of it, of
    /// ``decodedTextLimit`` and of ``snapshotsAmortized``).
    public var stateListMinimumBytes: Int {
        stateListMinimumBytesOverride ?? (seed / 7 % 2 == 0 ? 0 : LibraryCore.stateListWorthBytes)
    }

    /// A ``stateListMinimumBytes`` to use instead of the seed's: a trace names it (line
    /// `state-list-min-bytes`), and a trace written before it existed runs with 1 MiB, as it ran
    /// then, so that its events still do what they did.
    public var stateListMinimumBytesOverride: Int?

    /// The store faults these parameters turn on.
    public var storeFaults: StoreFaults {
        var faults = StoreFaults()
        faults.delayedVisibility = rate(.delayedVisibility)
        faults.visibilityDelayMaxMilliseconds = visibilityDelayMaxMilliseconds
        faults.staleListing = rate(.staleListing)
        faults.lossyListing = rate(.lossyListing)
        faults.conflictedCopies = rate(.conflictedCopies)
        faults.tornBlobs = rate(.tornBlobs)
        faults.bitFlips = rate(.bitFlips)
        faults.bitRot = rate(.bitRot)
        faults.transientErrors = rate(.transientErrors)
        faults.junkNames = rate(.junkNames)
        return faults
    }
}
