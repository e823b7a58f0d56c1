import MemoCRDT
import MemoNotes
import MemoSync

/// The clock reading and random source a simulated replica's `ReplicaEnvironment` reads.
///
/// `@unchecked Sendable`: `ReplicaEnvironment` wants `@Sendable` closures, and these closures
/// read and advance this box. The simulation is single-threaded (one event loop, no tasks, no
/// threads), so nothing ever touches a box from two threads.
final class EnvironmentBox: @unchecked Sendable {
    /// What the replica's wall clock reads now (set by the simulation before each call).
    var wallMilliseconds: UInt64 = SimulatedClock.epochMilliseconds
    /// The highest reading handed out.
    var highestWallMilliseconds: UInt64 = 0
    /// The replica's random source (replica ids, memo ids).
    var random: SimulationRandom

    init(seed: UInt64, stream: UInt64) {
        random = SimulationRandom(seed: seed, stream: stream)
    }

    /// The environment for a `Replica`.
    var environment: ReplicaEnvironment {
        ReplicaEnvironment(
            wallMilliseconds: { [self] in
                highestWallMilliseconds = max(highestWallMilliseconds, wallMilliseconds)
                return wallMilliseconds
            },
            randomUInt64: { [self] in random.next() })
    }
}

/// The model of one memo as one replica should see it: its status and its text as scalars,
/// built from the replica's own edits (as plain string edits) and the events it reports for
/// what arrives from others.
struct MemoShadow {
    var status: MemoStatus
    var scalars: [UInt32]
}

/// Where a replica's caret is: after a character (by anchor), in a memo.
struct Caret {
    var memo: Int
    var anchor: TextAnchor
    /// The scalar left of the caret when it was set (nil: the start of the text).
    var left: UInt32?
}

/// One simulated device: its disk, its replica (or bare notebook), its clock, and the
/// simulation's model of what it holds.
final class Peer {
    enum Status: Equatable {
        /// Not started yet (a late joiner).
        case absent
        /// Running.
        case live
        /// Crashed; restarts at `restartAt`.
        case down
        /// Gone for good.
        case departed
    }

    let index: Int
    var status: Status
    let box: EnvironmentBox
    var clock: SimulatedClock
    var offlineUntil: UInt64 = 0
    /// True for a replica that joined after the start (its first sync is the interesting one).
    var joinedLate = false
    var completedSyncs = 0
    /// The store-loss count when this replica's current (or last) sync began, and whether a
    /// sync begun after the last loss has published everything it holds.
    var syncStartStoreLossCount = 0
    var syncedSinceStoreLoss = true

    // Replica level.
    let disk: SimulatedDisk
    var replica: Replica?
    /// The sync in progress (the replica holds its session): its store operations in flight,
    /// and how many it may have.
    var session: SimulatedSync?
    /// Incremented for each session, so that steps of an abandoned session are ignored.
    var sessionNumber = 0
    /// Store operations left before a scheduled crash, and whether the last one happens.
    var storeCrashCountdown: Int?
    var storeCrashPerforms = true
    /// How long the next crash keeps the replica down.
    var downMilliseconds: UInt64 = 0
    /// Leave right after the sync in progress.
    var leavesAfterSync = false
    var backups: [DiskImage] = []
    /// The version last saved (a crash must keep at least this).
    var savedVersion = VersionVector()
    /// The replica's wall clock when its current sync began (what the session calls now).
    var sessionWallMilliseconds: UInt64 = 0
    /// The session's latest store write, to tell a crash during publication.
    var lastWriteKey: String?
    /// What the replica held when it crashed, and under which id.
    var preCrashVersion: VersionVector?
    /// The operations of a journal record bit rot hit while the replica was down (torn-disk
    /// fault): the next open may lose exactly these. `published`: the store holds them (they
    /// come back); else no other library does, and they may be gone for good.
    var rottedRecord: (operations: Int, upperVersion: VersionVector, published: Bool)?
    /// Ids of this library whose saved operations bit rot took before any other library or the
    /// store held them: its operations of those ids past the rotted record may stay held back
    /// for good (they build on what is gone), and the final checks allow exactly that.
    var idsRotBeforePublishing: [ReplicaID] = []
    /// The same record's operations until the library holds them again (the store may be the
    /// only place that holds them meanwhile: it is not lost).
    var awaitsRottedOperations: VersionVector?
    var preCrashReplica: ReplicaID?
    /// Every id this peer's library opened under, and every id of a lineage it opened with,
    /// since it started or was last restored from a backup: the ids whose saved operations are
    /// its own to publish (a set only asked for membership).
    var ownIDs: Set<ReplicaID> = []
    /// Started as a copy of another library, or restored from a backup, and not synced since.
    var isCopy = false
    /// Whether the running sync goes through the run's encryption (encrypted runs; issue 25).
    var syncThroughEncryption = true

    // Notebook level.
    var core: Notebook?
    /// What this replica believes each other one holds (from acknowledgements).
    var beliefs: [VersionVector]

    // The model.
    var shadows: [MemoShadow?] = []
    var caret: Caret?

    init(index: Int, peerCount: Int, seed: UInt64, tornWrites: Bool, clock: SimulatedClock) {
        self.index = index
        status = .absent
        box = EnvironmentBox(seed: seed, stream: 0x1000 + UInt64(index))
        disk = SimulatedDisk(seed: seed ^ (UInt64(index) &* 0x9E37_79B9), tornWrites: tornWrites)
        self.clock = clock
        beliefs = Array(repeating: VersionVector(), count: peerCount)
    }

    /// The notebook the replica holds now.
    var notebook: Notebook {
        if let replica { return replica.notebook }
        return core!
    }

    /// Whether local edits can be made now (a replica takes them during a sync too).
    var isEditable: Bool {
        status == .live && (core != nil || replica != nil)
    }

    /// The shadow of memo `memo`, if this replica knows it.
    func shadow(_ memo: Int) -> MemoShadow? {
        memo < shadows.count ? shadows[memo] : nil
    }

    func setShadow(_ memo: Int, _ shadow: MemoShadow?) {
        if memo >= shadows.count { shadows.append(contentsOf: repeatElement(nil, count: memo + 1 - shadows.count)) }
        shadows[memo] = shadow
    }

    /// Memos (dense indices, ascending) whose shadow satisfies `predicate`.
    func memos(where predicate: (MemoShadow) -> Bool) -> [Int] {
        var result: [Int] = []
        for (index, shadow) in shadows.enumerated() {
            if let shadow, predicate(shadow) { result.append(index) }
        }
        return result
    }
}

/// A replica's sync in progress, as the simulator drives it.
struct SimulatedSync {
    /// Store operations handed out and not yet answered.
    var inFlight = 0
    /// The most it may have in flight (1 performs them one at a time).
    var maxInFlight: Int
}
