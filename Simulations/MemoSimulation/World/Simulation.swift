import MemoCRDT
import MemoSync

/// One deterministic run: replicas of the real engine, a simulated store, disks and clocks,
/// one event loop. The trace fully determines the run: same trace, same build, byte-identical
/// event log (``SimulationResult/hash``).
///
/// The loop takes the earliest of the next scripted event (from the trace) and the next
/// event the run scheduled itself (a step of a sync in progress, a restart after a crash, a
/// delta arriving), in time order, dynamic events first at equal times. No threads, no real
/// time, no real files.
///
/// After the script, a final phase: faults stop, every clock is set right, crashed replicas
/// restart, and every live replica syncs until a round of syncs changes nothing; then time
/// passes the grace period twice so garbage collection runs; then the final invariants are
/// checked (`Simulation+Final.swift`).
public final class Simulation {
    /// What the run schedules for itself.
    enum DynamicEvent {
        case syncStep(peer: Int, session: Int)
        case syncAnswer(peer: Int, session: Int, action: SyncAction)
        case restart(peer: Int)
        case deliver(from: Int, to: Int, bytes: [UInt8])
        case acknowledge(peer: Int, holder: Int, version: VersionVector)
    }

    /// Event kinds, as hashed into the log.
    enum LogKind: UInt8 {
        case action = 1, skip, syncStart, syncStep, syncEnd, crash, restart, deliver, fault, final, check, join, leave, storeOp
    }

    /// A snapshot a replica wrote: the operations it holds and when.
    struct SnapshotRecord {
        var key: String
        var writer: Int
        var version: VersionVector
        /// When, by the writer's own clock, the write was handed to the store.
        var writtenAtMilliseconds: UInt64
        /// When, in simulated (true) time.
        var writtenAtSimulatedMilliseconds: UInt64
    }

    public let trace: Trace
    let parameters: SimulationParameters
    var now: UInt64 = 0
    var queue = EventQueue<DynamicEvent>()
    var peers: [Peer] = []
    let store: SimulatedBlobStore?
    /// The store's encryption, on for the seeds that draw it (Simulation+Encryption.swift).
    let encryption: BlobCipher?
    /// The run's key blob, as every library of an encrypted run keeps it, and another library's
    /// (for the key-blob fault); nil in a plain run.
    let keyBlobs: (own: LibraryEncryption, foreign: LibraryEncryption)?
    /// Which key blob the store holds (encrypted runs).
    var storeKeyBlob: StoreKeyBlob = .own
    let oracle: Oracle
    /// The event log and its hash.
    public var log: EventLog
    var content: SimulationRandom
    var latency: SimulationRandom
    var network: SimulationRandom
    var checkRandom: SimulationRandom
    /// The share of typed characters that are untracked ASCII letters.
    let asciiShare: Double
    var violation: SimulationViolation?
    var statistics = SimulationStatistics()
    var sometimes: SometimesFlags = []
    var runs: [RunRecord] = []
    /// Whether the run is in its final phase.
    var isFinalPhase = false
    var syncsSinceConvergenceCheck = 0
    /// Snapshots written, in order, for the collection check.
    var writtenSnapshots: [SnapshotRecord] = []
    /// Older images of the store (ground truth), for the store-loss fault: one every 16
    /// finished syncs, the last three.
    var storeImages: [[(key: String, bytes: [UInt8])]] = []
    /// Copies of the store a scenario's operator kept (``ScriptAction/storeBackup(slot:)``), by
    /// slot: the blobs, the key blob's state and when it was taken.
    var storeBackups: [UInt32: (image: [(key: String, bytes: [UInt8])], keyBlob: StoreKeyBlob, takenAtMilliseconds: UInt64)] = [:]
    /// Set once a replica left for good or had its library restored from a backup: from then on
    /// the store may hold operations no library holds, and losing it would lose them for good
    /// (not the engine's fault), so the store-loss fault no longer fires.
    var storeHoldsWhatNoLibraryDoes = false
    /// Snapshots the store-loss fault took away (see `loseStore`).
    var snapshotsLostWithTheStore: Set<String> = []
    /// Store losses so far, and the simulated time of the last one.
    var storeLossCount = 0
    var lastStoreLossMilliseconds: UInt64 = 0
    /// Scheduled faults that struck, counted for ``SimulationResult/faultsFired``: offline
    /// periods, clock jumps and key blobs the operator changed.
    var offlinePeriods = 0
    var clockJumps = 0
    /// Clocks set off at the start (the final phase sets every clock right again).
    var skewedClocks = 0
    var driftingClocks = 0
    var keyBlobChanges = 0
    /// Engine behaviour worth reporting that is not (yet) treated as a violation.
    var engineNotes: Set<String> = []
    /// Records the run's measurements when set (`memo-sim --measure`, `--report`); it only
    /// reads, so the run is the same with and without it.
    public var meter: Meter?
    /// Whether the world's replicas and oracle share what they decode (`SharedTextDecodes`,
    /// `SharedNotebookDecodes`): on by default; off only to show that a run is the same
    /// without them (`SimulationRunTests`).
    public var sharesDecodes = true

    /// A run of `trace`. `keepsLines`: keep readable log lines (the last ones are in the
    /// result); `lineSink`: receives every line as it is made.
    public init(trace: Trace, keepsLines: Bool = false, lineSink: ((String) -> Void)? = nil) {
        self.trace = trace
        parameters = trace.parameters
        let seed = parameters.seed
        log = EventLog(keepsLines: keepsLines, sink: lineSink)
        content = SimulationRandom(seed: seed, stream: 3)
        latency = SimulationRandom(seed: seed, stream: 4)
        network = SimulationRandom(seed: seed, stream: 5)
        checkRandom = SimulationRandom(seed: seed, stream: 6)
        var clocks = SimulationRandom(seed: seed, stream: 7)
        asciiShare = clocks.pick([0, 0, 0.1, 0.3, 0.6])
        oracle = Oracle(peerCount: parameters.replicaCount, commitsImmediately: parameters.engine == .notebook)
        if parameters.engine == .replica {
            store = SimulatedBlobStore(readerCount: parameters.replicaCount, seed: seed, faults: parameters.storeFaults)
        } else {
            store = nil
        }
        encryption = Self.drawEncryption(seed: seed, engine: parameters.engine)
        keyBlobs = Self.drawKeyBlobs(seed: seed, engine: parameters.engine)
        for index in 0..<parameters.replicaCount {
            var clock = SimulatedClock()
            if parameters.rate(.clockSkew) > 0 && clocks.chance(0.7) {
                let magnitude = Int64(clocks.logUniform(1, 2 * SimulatedTime.day))
                clock.skewMilliseconds = clocks.chance(0.5) ? magnitude : -magnitude
                skewedClocks += 1
            }
            if parameters.rate(.clockDrift) > 0 && clocks.chance(0.7) {
                let magnitude = Int64(clocks.logUniform(1, 5_000))
                clock.driftPartsPerMillion = clocks.chance(0.5) ? magnitude : -magnitude
                driftingClocks += 1
            }
            let peer = Peer(index: index, peerCount: parameters.replicaCount, seed: seed, tornWrites: parameters.rate(.tornDisk) > 0, clock: clock)
            peer.disk.stateListMinimumBytes = parameters.stateListMinimumBytes
            peers.append(peer)
        }
    }

    // MARK: Running

    /// Runs the trace, the final phase and the final checks, under the trace's mutant if it
    /// names one (``SimulationParameters/mutant``; debug builds only).
    ///
    /// - Precondition: the mutant, if any, is one of ``SimulationParameters/availableMutants``
    ///   (`Trace(parsing:)` and `memo-sim` check this).
    public func run() -> SimulationResult {
        guard sharesDecodes else { return runUnderMutant() }
        // The world's replicas and oracle decode the same bytes again and again: a text body
        // or snapshot decoded once is copied instead of decoded again, for any replica
        // (`SharedTextDecodes`, `SharedNotebookDecodes`).
        return SharedTextDecodes.$current.withValue(SharedTextDecodes()) {
            SharedNotebookDecodes.$current.withValue(SharedNotebookDecodes()) { runUnderMutant() }
        }
    }

    private func runUnderMutant() -> SimulationResult {
        guard let name = parameters.mutant else { return runTrace() }
        #if MEMOSYNC_MUTANTS
        guard let mutant = EngineMutant(rawValue: name) else { preconditionFailure("unknown mutant \(name)") }
        return EngineMutant.$active.withValue(mutant) { runTrace() }
        #else
        preconditionFailure("mutant \(name): mutants exist only in debug builds")
        #endif
    }

    private func runTrace() -> SimulationResult {
        for index in 0..<min(parameters.founderCount, peers.count) {
            start(peer: index, cloneOf: nil)
            if violation != nil { break }
        }
        var scriptIndex = 0
        let events = trace.events
        while violation == nil {
            let scriptTime = scriptIndex < events.count ? events[scriptIndex].time : nil
            let dynamicTime = queue.nextTime
            if let dynamicTime, scriptTime == nil || dynamicTime <= scriptTime! {
                let (time, event) = queue.pop()!
                meterStore(at: max(now, time))
                now = max(now, time)
                handle(event)
                crashStoppedDisks()
            } else if let scriptTime {
                meterStore(at: max(now, scriptTime))
                now = max(now, scriptTime)
                perform(events[scriptIndex])
                scriptIndex += 1
                crashStoppedDisks()
            } else {
                break
            }
        }
        if violation == nil { runFinalPhase() }
        if violation == nil { checkFinalState() }
        statistics.simulatedMilliseconds = now
        statistics.junkFiles = store?.statistics.junkBlobs ?? 0
        meterStore(at: now)
        meter?.finish(at: now, live: peers.map { $0.status == .live }, blobs: store?.blobCount ?? 0, bytes: store?.totalBytes ?? 0)
        if let violation {
            log.note("VIOLATION \(violation)")
            log.mix(violation.invariant.rawValue)
        }
        return SimulationResult(
            trace: trace, violation: violation, hash: log.hash, statistics: statistics, sometimes: sometimes,
            storeBlobs: store?.blobCount ?? 0, storeBytes: store?.totalBytes ?? 0, logTail: log.lines,
            faultsFired: faultsFired())
    }

    /// How often each fault struck in this run: for the store's faults what its statistics
    /// counted (a read torn or flipped, a listing made stale or lossy, a write refused as full...), for the replicas'
    /// what the run did (a crash, a torn file, a record rotted, a clock set off). A fault that
    /// is on but never struck has no entry (`FaultsFireTests`).
    func faultsFired() -> [FaultKind: Int] {
        let store = store?.statistics ?? StoreStatistics()
        let counts: [(FaultKind, Int)] = [
            (.delayedVisibility, store.delayedVersions),
            (.staleListing, store.staleListings),
            (.lossyListing, store.droppedEntries + store.duplicatedEntries),
            (.conflictedCopies, store.conflictedCopies),
            (.tornBlobs, store.tornReads),
            (.bitFlips, store.flippedReads),
            (.bitRot, store.rottenBlobs),
            (.transientErrors, store.transientErrors),
            (.storeFull, store.fullRejections),
            (.storeLoss, storeLossCount),
            (.keyBlob, keyBlobChanges),
            (.junkNames, store.junkBlobs),
            (.offline, offlinePeriods),
            (.crash, statistics.crashes),
            (.tornDisk, peers.reduce(0) { $0 + $1.disk.tornFileCount } + statistics.bitRots + statistics.bitRotsBeforePublishing),
            (.restoreOldCopy, statistics.restores),
            (.clockSkew, skewedClocks),
            (.clockDrift, driftingClocks),
            (.clockJumps, clockJumps),
        ]
        var fired: [FaultKind: Int] = [:]
        for (kind, count) in counts where count > 0 { fired[kind] = count }
        return fired
    }

    func handle(_ event: DynamicEvent) {
        switch event {
        case let .syncStep(peer, session): syncStep(peers[peer], session: session)
        case let .syncAnswer(peer, session, action): syncAnswer(peers[peer], session: session, action: action)
        case let .restart(peer): restart(peers[peer])
        case let .deliver(from, to, bytes): deliver(from: from, to: peers[to], bytes: bytes)
        case let .acknowledge(peer, holder, version): peers[peer].beliefs[holder].merge(version)
        }
    }

    /// Runs one scripted event.
    func perform(_ event: ScriptEvent) {
        let peer = peers[event.peer]
        switch event.action {
        case .type, .caretType, .concurrentType, .paste, .deleteRange, .backspace, .replaceRange, .replaceAll,
            .create, .trash, .restore, .purge, .undo, .redo:
            if let meter { performLocal(event, meter) } else { performLocal(event) }
        case .sync:
            startSync(peer)
        case .save, .compact:
            saveOrCompact(peer, compact: event.action == .compact)
        case let .crash(point, down):
            crash(peer, at: point, downMilliseconds: down)
        case .backup:
            backup(peer)
        case let .restoreBackup(which):
            restoreBackup(peer, which: which)
        case let .join(cloneOf):
            guard peer.status == .absent else { return skip(peer, "join: already started") }
            start(peer: peer.index, cloneOf: cloneOf)
        case let .leave(graceful):
            leave(peer, graceful: graceful)
        case let .offline(milliseconds):
            peer.offlineUntil = max(peer.offlineUntil, now + milliseconds)
            offlinePeriods += 1
            meter?.fault(peer: peer.index, at: now, until: now + milliseconds, "offline")
            record(peer, .fault, milliseconds) { "offline until \(SimulatedTime.describe(peer.offlineUntil))" }
        case let .clockJump(milliseconds):
            peer.clock.jump(by: milliseconds)
            clockJumps += 1
            meter?.fault(peer: peer.index, at: now, "clock-jump")
            record(peer, .fault, UInt64(bitPattern: milliseconds)) { "clock jumps \(milliseconds) ms" }
        case let .storeFull(milliseconds):
            guard let store else { return }
            store.fullUntilMilliseconds = max(store.fullUntilMilliseconds, now + milliseconds)
            meter?.fault(peer: peer.index, at: now, until: now + milliseconds, "store-full")
            record(peer, .fault, milliseconds) { "store full until \(SimulatedTime.describe(store.fullUntilMilliseconds))" }
        case let .storeLoss(which):
            let losses = storeLossCount
            loseStore(peer, which: which)
            if storeLossCount > losses { meter?.fault(peer: peer.index, at: now, "store-loss") }
        case let .storeBackup(slot):
            backUpStore(peer, slot: slot)
        case let .storeRestore(slot):
            let losses = storeLossCount
            restoreStore(peer, slot: slot)
            if storeLossCount > losses { meter?.fault(peer: peer.index, at: now, "store-loss") }
        case let .keyBlob(which):
            operatorChangesKeyBlob(peer, which: which)
            meter?.fault(peer: peer.index, at: now, "key-blob")
        }
    }

    // MARK: Helpers

    /// A local action, measured: the edits it made, by each replica that made operations.
    func performLocal(_ event: ScriptEvent, _ meter: Meter) {
        var involved = [event.peer]
        if case let .concurrentType(others, _, _, _, _) = event.action { involved += others.filter { $0 != event.peer } }
        let before = involved.map { index -> (ReplicaID, UInt32)? in
            let peer = peers[index]
            guard peer.isEditable else { return nil }
            let notebook = peer.notebook
            return (notebook.replica, notebook.version[notebook.replica])
        }
        performLocal(event)
        for (index, mark) in zip(involved, before) {
            guard let (replica, counter) = mark, peers[index].isEditable else { continue }
            let notebook = peers[index].notebook
            let after = notebook.version[replica]
            if notebook.replica == replica && after > counter { meter.edit(peer: index, at: now, replica: replica, counter: after) }
        }
    }

    /// Samples the store for the meter, if there is one, before time reaches `time`.
    func meterStore(at time: UInt64) {
        guard let meter else { return }
        meter.observeStore(at: time, blobs: store?.blobCount ?? 0, bytes: store?.totalBytes ?? 0) {
            peers.map { peer in
                (peer.replica != nil || peer.core != nil ? peer.notebook.pendingOperationCount : 0, peer.disk.totalBytes)
            }
        }
    }

    /// Sets `peer`'s environment clock to its wall clock now, plus `offset` milliseconds.
    func setClock(_ peer: Peer, offset: UInt64 = 0) {
        peer.box.wallMilliseconds = peer.clock.wallMilliseconds(at: now) + offset
    }

    /// Records a violation (the first one stops the run).
    func fail(_ invariant: Invariant, _ peers: [Int], _ detail: String) {
        guard violation == nil else { return }
        violation = SimulationViolation(invariant: invariant, peers: peers, detail: detail, time: now)
    }

    /// Logs an event.
    @inline(__always)
    func record(_ peer: Peer?, _ kind: LogKind, _ a: UInt64 = 0, _ b: UInt64 = 0, _ c: UInt64 = 0, _ describe: () -> String) {
        log.record(time: now, peer: peer?.index ?? -1, kind: kind.rawValue, a, b, c, describe: describe)
    }

    func skip(_ peer: Peer, _ reason: @autoclosure () -> String) {
        statistics.skipped += 1
        record(peer, .skip) { "skip: \(reason())" }
    }

    /// The live peers, by index.
    var livePeers: [Peer] { peers.filter { $0.status == .live } }
}
