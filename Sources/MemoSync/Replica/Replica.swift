import Foundation
import Synchronization
import MemoCRDT
import MemoNotes

// The replica's store work is `@concurrent` (SE-0461, Swift 6.2): say so to an older compiler
// instead of failing on the attribute (README: "Requirements").
#if !compiler(>=6.2)
#error("MemoSync needs Swift 6.2 or later: the replica's store work is @concurrent.")
#endif

/// The clock and random source a replica uses, injected so that the simulator can run replicas
/// deterministically.
public struct ReplicaEnvironment: Sendable {
    /// The wall clock, in milliseconds since 1970.
    public var wallMilliseconds: @Sendable () -> UInt64
    /// Uniformly random 64-bit values (for replica and memo ids).
    public var randomUInt64: @Sendable () -> UInt64

    /// An environment from a clock and a random source.
    public init(wallMilliseconds: @escaping @Sendable () -> UInt64, randomUInt64: @escaping @Sendable () -> UInt64) {
        self.wallMilliseconds = wallMilliseconds
        self.randomUInt64 = randomUInt64
    }

    /// The system clock and the system's random number generator.
    public static var system: ReplicaEnvironment {
        ReplicaEnvironment(
            wallMilliseconds: { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) },
            randomUInt64: {
                var generator = SystemRandomNumberGenerator()
                return generator.next()
            })
    }
}

/// What went wrong in a replica.
///
/// ## One mistake, one case, at every layer
///
/// An edit mistake is reported with the same case and the same payload by `TextCRDT`,
/// `Notebook` and `Replica`, and nests at most two levels:
///
/// | Mistake | `TextCRDT` | `Notebook` | `Replica` |
/// |---|---|---|---|
/// | UTF-16 range past the end, negative or reversed | `TextError.rangeOutOfBounds(l, u, length)` | `.text(id, .rangeOutOfBounds(l, u, length))` | ``text(_:_:)``: `.text(id, .rangeOutOfBounds(l, u, length))` |
/// | bound between the halves of a surrogate pair | `TextError.offsetInsideSurrogatePair(o)` | `.text(id, .offsetInsideSurrogatePair(o))` | `.text(id, .offsetInsideSurrogatePair(o))` |
/// | unknown (or purged) memo | - | `.memoNotFound(id)` | ``notebook(_:)``: `.notebook(.memoNotFound(id))` |
/// | memo in the trash | - | `.memoInTrash(id)` | `.notebook(.memoInTrash(id))` |
///
/// (`length` is in the unit of the range: UTF-16 code units for `replacingUTF16`, scalars for
/// `replacingScalars`.) A text failure is never wrapped twice: the replica throws
/// ``text(_:_:)`` for what the notebook reports as `NotebookError.text`, and ``notebook(_:)``
/// for every other notebook refusal, so ``notebook(_:)`` never holds a `.text`. To handle both
/// layers with one `switch`, use ``notebookError`` (the notebook's own error, rebuilt) or
/// ``textError`` (the text's case, with ``memo``).
///
/// Every case has a `LocalizedError` description an app can show as it is.
public enum ReplicaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The local disk failed.
    case disk(DiskError)
    /// A library file is damaged. It is left as it is (replacing it would lose edits).
    case corruptLibrary(file: String, reason: String)
    /// A library file was written by a newer MemoSync.
    case unknownLibraryVersion(file: String, kind: UInt8, version: UInt8)
    /// A purge was refused, nothing changed: the memo's text is also in journal records this
    /// library keeps for operations held back after damage (``LibraryOpenReport/damage``), which
    /// a compaction cannot drop until a sync brings back what the damage took; and those held-back
    /// edits, once they apply, would bring the memo back. Sync, then purge again.
    case purgeWaitsForHeldBackEdits(MemoID)
    /// An edit was refused by the notebook (an unknown memo, a memo in the trash, nothing to
    /// undo, ...). Never `.text`: a text failure is ``text(_:_:)``.
    case notebook(NotebookError)
    /// A text operation on the memo failed (a range outside the text, a bound inside a
    /// surrogate pair, a limit): the same `TextError` a `TextCRDT` throws for the same edit, and
    /// the same payload as `NotebookError.text`.
    case text(MemoID, TextError)
    /// Another sync of this replica is running (one at a time).
    case syncInProgress
    /// The replica was closed.
    case closed
    /// A step of a sync was asked for with no sync begun (package-internal drivers only).
    case noSyncInProgress
    /// The library is encrypted (``Replica/encryption``) and the store is not opened through
    /// encryption: nothing was synced, nothing written. Open the store with ``StoreEncryption``
    /// (its `unlock` for a library puts a lost key blob back), or turn the library's encryption
    /// off (``Replica/turnEncryptionOff()``) when the user asks for it.
    case encryptedLibrary
    /// A history retention period of `days` days was refused (``Replica/setHistoryRetention(_:)``):
    /// a period is 1 through ``HistoryRetention/daysMax`` days, or forever. Nothing changed.
    case invalidHistoryRetention(days: Int)

    /// The replica error for a notebook's: ``text(_:_:)`` for `NotebookError.text`, otherwise
    /// ``notebook(_:)`` (so a text failure nests two levels, not three).
    public init(_ error: NotebookError) {
        if case let .text(id, textError) = error {
            self = .text(id, textError)
        } else {
            self = .notebook(error)
        }
    }

    /// The notebook's error for this one, as `Notebook` throws it for the same mistake
    /// (``text(_:_:)`` becomes `NotebookError.text`); `nil` for a replica-only failure.
    public var notebookError: NotebookError? {
        switch self {
        case let .notebook(error): error
        case let .text(id, error): .text(id, error)
        default: nil
        }
    }

    /// The text's error, as `TextCRDT` throws it for the same edit; `nil` for other failures.
    public var textError: TextError? { notebookError?.textError }

    /// The memo the failure is about, if it is about one.
    public var memo: MemoID? { notebookError?.memo }

    public var description: String {
        switch self {
        case let .disk(error): "\(error)"
        case let .corruptLibrary(file, reason): "the library file \"\(file)\" is damaged: \(reason)"
        case let .unknownLibraryVersion(file, kind, version):
            "the library file \"\(file)\" was written by a newer MemoSync (kind \(kind), version \(version))"
        case let .notebook(error): "\(error)"
        case let .text(id, error): "\(NotebookError.text(id, error))"
        case .syncInProgress: "a sync is in progress"
        case .closed: "the library is closed"
        case .noSyncInProgress: "no sync is in progress"
        case .encryptedLibrary: "the library is encrypted: it syncs only through its store's encryption"
        case let .purgeWaitsForHeldBackEdits(id): "memo \(id) is in journal records kept for edits held back after damage: sync before purging it"
        case let .invalidHistoryRetention(days): "a history retention of \(days) days: a period is 1 through \(HistoryRetention.daysMax) days, or forever"
        }
    }
}

/// One device's replica of a notebook: its local library (state file and journal) and its syncs.
///
/// ```swift
/// let replica = try Replica(libraryPath: "/path/to/library")
/// let id = try replica.createMemo(text: "Groceries\nmilk")
/// try await replica.save()                                     // durable from here on
/// let report = try await replica.sync(with: DirectoryBlobStore(path: "/path/to/Dropbox/notes"))
/// ```
///
/// ## Concurrency
///
/// A replica is `Sendable`: one instance serves the main actor and background tasks at once.
/// Its state sits behind a lock held only for in-memory work, so:
/// - **Cheap and synchronous**, fine on the main actor: reading ``notebook`` (a value: a list,
///   a memo's text, a search), the status properties, and every edit (``createMemo(text:)``,
///   ``edit(_:replacingUTF16:with:)``, undo, ``endUndoGrouping()``, trash...). An edit changes
///   memory only.
/// - **Async, never on the caller's actor**: ``save()`` and ``compact()`` (the disk, with an
///   `fsync`), ``sync(with:progress:)`` (the store and the disk) and ``close()``. The disk's
///   work runs on a thread of its own (neither the caller's actor nor the cooperative pool waits
///   for an `fsync`; a sync's saves too), a sync's store work on the global executor
///   (`@concurrent`), so awaiting them from the main actor never blocks it.
///   ``open(libraryPath:environment:configuration:)`` opens on a thread of its own (the
///   initialisers open on the calling thread: a wait for the folder's lock and a journal replay).
///
/// Edits are accepted while a sync runs: what the sync receives merges into the live notebook
/// (with events), and what was typed meanwhile goes out in that sync or the next. Saves are
/// serialized with each other; a save during a sync is fine.
///
/// Edits change the in-memory notebook at once; ``save()`` makes them durable (one journal
/// record, fsynced). A process killed at any instant reopens with every saved edit.
public final class Replica: Sendable {
    /// What opening the library found and repaired.
    public let openReport: LibraryOpenReport

    /// The library folder. Only used under `diskLock` (or in `init`), so a disk that is not
    /// thread-safe is never used from two threads at once.
    private nonisolated(unsafe) let disk: any LibraryDisk
    let environment: ReplicaEnvironment
    private let configuration: SyncConfiguration
    /// Everything that changes, behind one lock held for in-memory work only.
    private let guarded: Mutex<Guarded>
    /// Held for a whole save, compaction or close (disk work, one at a time), never while
    /// waiting for `guarded`'s holder to wait for it. Holds the sharing of the folder
    /// (``shareFolder()``): nil while the folder's lock is held for the whole session.
    private let diskLock = Mutex<FolderSharing?>(nil)

    /// A folder shared with other processes (``shareFolder()``): its lock, taken for each save
    /// and the close, and the identities of its files as this replica last left them.
    private struct FolderSharing {
        let disk: FileDisk
        var identities: LibraryIdentities?
    }

    /// How long a replica sharing its folder waits for another process to finish a change of
    /// the library before a save fails with ``DiskError/locked(path:)``.
    static let sharedLockWaitMilliseconds = 60_000

    private struct Guarded {
        var notebook: Notebook
        var syncState: SyncState
        var core: LibraryCore
        var session: SyncSession?
        /// The library's encryption (its `encryption` file); nil for a plain library.
        var encryption: LibraryEncryption?
        var isClosed = false
        /// Why the running sync could not encode its snapshot (a memo's text, still in the state
        /// file, failed its read): ``finishSync()`` throws it.
        var snapshotFailure: ReplicaError?
        var events = EventHub()
        /// Memos purged (here or by a sync) since the last compaction began: their text is in
        /// the journal's records until a compaction rewrites the library without it, so the
        /// next save compacts (a purge's promise: the text is gone from this library).
        var purgesNotCompacted = 0
        /// The library's retention period (its `history` file; Replica+Retention.swift).
        var historyRetention: HistoryRetention = .default
        /// The latest retention cutoff applied to the notebook this session (0: none yet).
        var retentionCutoffApplied: UInt64 = 0
        /// Retention passes that dropped deleted content since the last compaction began: the
        /// files still hold that content, so the next save compacts.
        var historyDropsNotCompacted = 0
        /// How many memo texts stay decoded after a save (``Replica/decodedTextLimit``).
        var decodedTextLimit = Replica.defaultDecodedTextLimit
        #if MEMOSYNC_INTERNAL_CHECKS
        /// What each hold of the lock by ``Replica/releaseDecodedTexts(keepingMostRecent:)``
        /// took, in order (self-check builds only: `ReplicaNeverBlocksTests` reads them).
        var debugReleaseHolds: [ReleaseHold] = []

        /// Records `hold`, up to ``Replica/debugReleaseHoldsMax`` since they were last taken (a
        /// self-check build that nobody asks, such as a long `memo serve`, keeps no more).
        mutating func recordReleaseHold(_ hold: ReleaseHold) {
            if debugReleaseHolds.count < Replica.debugReleaseHoldsMax { debugReleaseHolds.append(hold) }
        }
        #endif

        /// Takes the notebook's new events into the hub.
        mutating func deliverEvents() {
            let taken = notebook.takeEvents()
            guard !taken.isEmpty else { return }
            for event in taken {
                if case .purged = event { purgesNotCompacted += 1 }
            }
            events.publish(taken)
        }
    }

    /// Opens the library on `disk`, creating it (with a replica id from the random source) when
    /// the folder holds none.
    ///
    /// - Throws: ``ReplicaError/disk(_:)``, ``ReplicaError/corruptLibrary(file:reason:)``,
    ///   ``ReplicaError/unknownLibraryVersion(file:kind:version:)``.
    public init(disk: any LibraryDisk, environment: ReplicaEnvironment = .system, configuration: SyncConfiguration = SyncConfiguration()) throws(ReplicaError) {
        self.disk = disk
        self.environment = environment
        self.configuration = configuration
        let opened = try Self.open(disk: disk, environment: environment)
        openReport = opened.report
        let encryption: LibraryEncryption?
        let retention: HistoryRetention
        do throws(DiskError) {
            encryption = try LibraryEncryption.read(from: disk)
            retention = try LibraryHistoryFile.read(from: disk)
        } catch {
            throw .disk(error)
        }
        var state = Guarded(notebook: opened.notebook, syncState: opened.syncState, core: opened.core, encryption: encryption)
        state.historyRetention = retention
        guarded = Mutex(state)
    }

    /// The library folder's file names and the bytes of those recovery reads (open, and a shared
    /// folder taken back after another process wrote it).
    ///
    /// A state file with a state list that describes it is not read: `listed` is the state
    /// decoded from the list, its memos' texts left in the file (FORMAT.md, "State list").
    private static func readLibraryFiles(_ disk: any LibraryDisk) throws(ReplicaError)
        -> (files: [String], contents: [String: [UInt8]], listed: (state: LibraryCore.DecodedState, fileBytes: Int)?)
    {
        do throws(DiskError) {
            let files = try disk.listFiles()
            var listed: (state: LibraryCore.DecodedState, fileBytes: Int)?
            if files.contains(LibraryCore.stateListFileName), files.contains(LibraryCore.stateFileName),
                let list = try? disk.read(file: LibraryCore.stateListFileName),
                let reader = try disk.openReader(file: LibraryCore.stateFileName),
                let decoded = LibraryCore.decodeState(list: list, state: reader, minimumBytes: disk.stateListMinimumBytes)
            {
                listed = (decoded, reader.sizeBytes)
            }
            var contents: [String: [UInt8]] = [:]
            for file in LibraryCore.filesToRead(listing: files) where !(listed != nil && file == LibraryCore.stateFileName) {
                if let bytes = try disk.read(file: file) { contents[file] = bytes }
            }
            return (files, contents, listed)
        } catch {
            throw .disk(error)
        }
    }

    /// Reads (or creates) the library on `disk`, repairing what a crash left.
    private static func open(disk: any LibraryDisk, environment: ReplicaEnvironment) throws(ReplicaError)
        -> (notebook: Notebook, syncState: SyncState, core: LibraryCore, report: LibraryOpenReport)
    {
        let (files, contents, listed) = try Self.readLibraryFiles(disk)
        guard
            let recovery = try LibraryCore.recover(
                files: files, contents: contents, listed: listed, stateListMinimumBytes: disk.stateListMinimumBytes)
        else {
            let leftovers = LibraryCore.leftoversWithoutState(files: files, contents: contents)
            return try create(disk: disk, environment: environment, repairs: leftovers.repairs, report: leftovers.report)
        }
        // The id of the last session when its clean close sealed the folder and the folder is
        // still exactly as sealed (read before any repair changes it).
        let kept = LibrarySeal.replicaToKeep(
            seal: contents[LibrarySeal.fileName], recovery: recovery,
            identities: LibraryIdentities.read(from: disk, generation: recovery.core.generation))
        do throws(DiskError) { try disk.perform(recovery.repairs) } catch { throw .disk(error) }
        let notebook: Notebook
        if let kept {
            notebook = kept == recovery.notebook.replica ? recovery.notebook : recovery.notebook.fork(replica: kept)
        } else {
            // A fresh id for this session's operations: a copy of this library (a clone, a
            // restored backup, this folder before a crash) may have continued the earlier ids,
            // which stay in the lineage to be published. Opening changes nothing on disk: the id
            // joins the lineage with its first operation.
            var taken = Set(recovery.notebook.version.replicas)
            taken.formUnion(recovery.syncState.lineage)
            taken.insert(recovery.notebook.replica)
            notebook = recovery.notebook.fork(replica: randomReplicaID(environment, excluding: taken))
        }
        return (notebook, recovery.syncState, recovery.core, recovery.report)
    }

    /// Creates a library in a folder without one, after `repairs` (a temporary file a crash left:
    /// deleted when empty, kept aside otherwise).
    private static func create(disk: any LibraryDisk, environment: ReplicaEnvironment, repairs: [DiskOperation], report leftovers: LibraryOpenReport) throws(ReplicaError)
        -> (notebook: Notebook, syncState: SyncState, core: LibraryCore, report: LibraryOpenReport)
    {
        let replica = randomReplicaID(environment, excluding: [])
        let created = LibraryCore.create(replica: replica, stateListMinimumBytes: disk.stateListMinimumBytes)
        do throws(DiskError) {
            try disk.perform(repairs)
            try disk.perform(created.operations)
        } catch {
            throw .disk(error)
        }
        var report = leftovers
        report.created = true
        var notebook = Notebook(replica: replica)
        notebook.keepsHistory = true
        return (notebook, SyncState(), created.core, report)
    }

    /// Opens (or creates) the library in the folder at `libraryPath` (created if missing).
    /// The folder is locked while the replica is open: another process gets
    /// ``DiskError/locked(path:)``, another replica of this process ``DiskError/alreadyOpen(path:)``.
    public convenience init(
        libraryPath: String, environment: ReplicaEnvironment = .system, configuration: SyncConfiguration = SyncConfiguration()
    ) throws(ReplicaError) {
        let disk: FileDisk
        do throws(DiskError) { disk = try FileDisk(path: libraryPath) } catch { throw .disk(error) }
        try self.init(disk: disk, environment: environment, configuration: configuration)
    }

    /// Opens (or creates) the library in the folder at `libraryPath`, as
    /// ``init(libraryPath:environment:configuration:)`` does, without blocking the caller: call
    /// it from the main actor.
    ///
    /// Opening is blocking work: it waits up to 200 ms for the folder's lock (another replica
    /// closing it) and reads and replays the journal (O(the journal's size)). This runs it on a
    /// thread of its own, so neither the caller's actor nor the cooperative thread pool waits
    /// on the disk, and returns the open replica. Cancelling the calling task does not stop an
    /// open under way (it would leave the folder locked by a replica nobody holds): the replica
    /// is returned all the same, to be closed.
    ///
    /// ```swift
    /// let replica = try await Replica.open(libraryPath: "/path/to/Application Support/Notes")
    /// ```
    ///
    /// - Throws: what the synchronous open throws: ``ReplicaError/disk(_:)`` (with
    ///   `DiskError.locked(path:)` when another process's replica holds the folder,
    ///   `DiskError.alreadyOpen(path:)` when one of this process does), ``ReplicaError/corruptLibrary(file:reason:)``,
    ///   ``ReplicaError/unknownLibraryVersion(file:kind:version:)``.
    public static func open(
        libraryPath: String, environment: ReplicaEnvironment = .system, configuration: SyncConfiguration = SyncConfiguration()
    ) async throws(ReplicaError) -> Replica {
        try await open(
            makingDisk: { () throws(DiskError) -> any LibraryDisk in try FileDisk(path: libraryPath) },
            environment: environment, configuration: configuration)
    }

    /// ``open(libraryPath:environment:configuration:)`` on the disk `makeDisk` returns, called
    /// on the open's thread (a `FileDisk` waits there for the folder's lock): for the tests that
    /// hold opens at a gate of theirs (`ReplicaNeverBlocksTests`).
    package static func open(
        makingDisk makeDisk: @escaping @Sendable () throws(DiskError) -> any LibraryDisk,
        environment: ReplicaEnvironment, configuration: SyncConfiguration
    ) async throws(ReplicaError) -> Replica {
        try await onDiskThread("MemoSync open") { () throws(ReplicaError) -> Replica in
            let disk: any LibraryDisk
            do throws(DiskError) { disk = try makeDisk() } catch { throw .disk(error) }
            return try Replica(disk: disk, environment: environment, configuration: configuration)
        }
    }

    deinit {
        for continuation in guarded.withLock({ $0.events.removeAll() }) { continuation.finish() }
    }

    // MARK: Reading

    /// The notebook: memos, their texts, the list, the trash, search. A value: reading it takes
    /// the lock for a moment (no copy of the memos is made), and later changes do not affect it.
    public var notebook: Notebook { guarded.withLock { $0.notebook } }

    /// The replica id this session's edits are made under. A library keeps its id from one
    /// session to the next while its folder is exactly as its last clean ``close()`` sealed it;
    /// after a crash, or in a copy of the folder (a clone, a restored backup), it takes a fresh
    /// one, so no two copies make different edits under one id. The ids it made edits under
    /// are its ``lineage``.
    public var id: ReplicaID { guarded.withLock { $0.notebook.replica } }

    /// Operations not yet durable: ``save()`` makes them so.
    public var unsavedOperationCount: Int {
        guarded.withLock { guarded in
            var count = 0
            for entry in guarded.notebook.version.entries {
                count += Int(entry.operationCount - min(entry.operationCount, guarded.core.durableVersion[entry.replica]))
            }
            return count
        }
    }

    /// Copies of library files that opening kept aside, sorted: damaged files
    /// ("journal-3.damaged-1", ``LibraryDamage/keptAs``) and leftovers holding operations the
    /// library lacks ("state.tmp.kept-1"). MemoSync never reads, rewrites or deletes them again:
    /// they are the user's, for recovering by hand what damage took, and may hold text that was
    /// purged since. Empty for a library that never met damage.
    ///
    /// - Throws: ``ReplicaError/disk(_:)`` when the folder cannot be listed.
    public func keptAsideFileNames() throws(ReplicaError) -> [String] {
        try diskLock.withLock { _ throws(ReplicaError) -> [String] in
            do throws(DiskError) {
                return try disk.listFiles().filter(LibraryCore.isKeptAside).sorted()
            } catch {
                throw .disk(error)
            }
        }
    }

    /// Operations of this library's ids (its lineage) not yet known to be in the store, those held
    /// back after damage included (see ``LibraryOpenReport``).
    public var unpublishedOperationCount: Int {
        guarded.withLock { $0.syncState.unpublishedOperationCount(in: $0.notebook) }
    }

    /// When this library last completed a sync (``SyncReport/isComplete``), in wall-clock
    /// milliseconds since 1970; 0 before its first. For a "last synced" line.
    public var lastSyncMilliseconds: UInt64 { guarded.withLock { $0.syncState.lastSyncMilliseconds } }

    /// The replica ids this library has made edits under, oldest session first: ``id`` is the
    /// last. It publishes, and collects, what it holds of each.
    public var lineage: [ReplicaID] { guarded.withLock { $0.syncState.lineage } }

    /// Whether a sync is running, and how far it has come.
    public var syncProgress: SyncProgress? { guarded.withLock { $0.session?.progress } }

    /// What this replica remembers about the store.
    package var syncState: SyncState { guarded.withLock { $0.syncState } }

    /// Facts about the library files (generation, journal size), for status displays and tests.
    package var library: LibraryCore { guarded.withLock { $0.core } }

    /// The running sync's session, for the simulator's checks.
    package var syncSession: SyncSession? { guarded.withLock { $0.session } }

    // MARK: Editing

    /// Creates a memo holding `text`, with a new random id.
    ///
    /// It reports two events, in this order: `.added(id, origin: .local)` for the memo, empty,
    /// then, when `text` is not empty, `.changed(id, edits: [TextEdit(rangeUTF16: 0..<0,
    /// replacement: text)], origin: .local)`. An app that follows a memo's text by applying
    /// `.changed` edits to a copy starts from the empty text at `.added` and never misses the
    /// initial text, as for a memo another device created; the list needs only the `.added`.
    /// Creating a memo with text is not an undo step: ``undo(_:)`` has nothing to undo after it.
    @discardableResult
    public func createMemo(text: String = "") throws(ReplicaError) -> MemoID {
        var generator = EnvironmentRandom(environment: environment)
        return try change { notebook, now throws(NotebookError) in
            var id = MemoID(using: &generator)
            while notebook.status(of: id) != nil { id = MemoID(using: &generator) }
            try notebook.createMemo(id, text: text, wallMilliseconds: now)
            return id
        }
    }

    /// Replaces the UTF-16 range `range` of a memo's text with `replacement` (a text view's
    /// `NSRange` edit).
    ///
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.memoNotFound` or `.memoInTrash`;
    ///   ``ReplicaError/text(_:_:)`` with what `Notebook.edit(_:replacingUTF16:with:wallMilliseconds:)`
    ///   and `TextCRDT.replace(utf16Range:with:)` throw for the same range
    ///   (`.rangeOutOfBounds` with the UTF-16 length, `.offsetInsideSurrogatePair`);
    ///   ``ReplicaError/closed``.
    public func edit(_ id: MemoID, replacingUTF16 range: Range<Int>, with replacement: String) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.edit(id, replacingUTF16: range, with: replacement, wallMilliseconds: now) }
    }

    /// Applies `replacements` to a memo's text, one after the other (each range names the
    /// text as the ones before it left it), only when the notebook still holds exactly the
    /// operations of `version`: what a front end read (``notebook``), worked its edit out
    /// against, and must not have changed under it. Returns false, changing nothing, when
    /// something arrived meanwhile (a sync, another process's save merged): read the notebook
    /// again, work the edit out against its text, and try again.
    ///
    /// For a front end whose edits cross a network hop or a queue (`memo serve`'s pages), so
    /// that positions worked out on one text are never applied to another. All or nothing:
    /// when one replacement throws, none is applied.
    ///
    /// - Throws: as ``edit(_:replacingUTF16:with:)``.
    @discardableResult
    public func edit(
        _ id: MemoID, replacingUTF16 replacements: [(range: Range<Int>, text: String)], ifVersionIs version: VersionVector
    ) throws(ReplicaError) -> Bool {
        try change { notebook, now throws(NotebookError) -> Bool in
            guard notebook.version == version else { return false }
            if replacements.count == 1 {
                // (One edit changes nothing when it throws: no copy needed.)
                try notebook.edit(id, replacingUTF16: replacements[0].range, with: replacements[0].text, wallMilliseconds: now)
                return true
            }
            var edited = notebook
            for replacement in replacements {
                try edited.edit(id, replacingUTF16: replacement.range, with: replacement.text, wallMilliseconds: now)
            }
            notebook = edited
            return true
        }
    }

    /// Replaces the Unicode scalar range `range` of a memo's text with `replacement`.
    ///
    /// - Throws: as ``edit(_:replacingUTF16:with:)``, with lengths in scalars.
    public func edit(_ id: MemoID, replacingScalars range: Range<Int>, with replacement: String) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.edit(id, replacingScalars: range, with: replacement, wallMilliseconds: now) }
    }

    /// Sets a memo's whole text, as the smallest edit from the current one. Not an undo step
    /// (it clears redo): an undo after it undoes the edit before it, as it applies now.
    public func setText(_ id: MemoID, to text: String) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.setText(id, to: text, wallMilliseconds: now) }
    }

    /// Moves a memo to the trash (it can be restored, and the move undone with
    /// ``undoTrash()``).
    public func moveToTrash(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.moveToTrash(id, wallMilliseconds: now) }
    }

    /// Restores a memo from the trash (undone with ``undoTrash()``).
    public func restore(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.restore(id, wallMilliseconds: now) }
    }

    /// Undoes this device's latest move to the trash or restore (`Notebook.undoTrash(wallMilliseconds:)`):
    /// a memo it moved to the trash comes back, a memo it restored goes back to the trash.
    /// Returns the memo (to select it), or nil when there was nothing to undo.
    ///
    /// One history for the whole library, apart from each memo's text history (``undo(_:)``):
    /// route the app's Undo here when the memo list has the focus, or right after the user
    /// deleted a memo, so that Cmd-Z brings it back. A step whose memo changed since (restored
    /// or trashed again, here or by a sync) is skipped; a purge is never undone. The change is
    /// an ordinary restore or trash: saved, synced and reported as events like one.
    ///
    /// - Throws: ``ReplicaError/closed``.
    @discardableResult
    public func undoTrash() throws(ReplicaError) -> MemoID? {
        try change { notebook, now throws(NotebookError) in notebook.undoTrash(wallMilliseconds: now) }
    }

    /// Redoes the move to the trash or restore last undone by ``undoTrash()``. Returns the
    /// memo, or nil when there was nothing to redo.
    ///
    /// - Throws: ``ReplicaError/closed``.
    @discardableResult
    public func redoTrash() throws(ReplicaError) -> MemoID? {
        try change { notebook, now throws(NotebookError) in notebook.redoTrash(wallMilliseconds: now) }
    }

    /// Whether ``undoTrash()`` has something to undo (for an Undo command while the list has
    /// the focus).
    public var canUndoTrash: Bool { guarded.withLock { $0.notebook.canUndoTrash } }

    /// Whether ``redoTrash()`` has something to redo.
    public var canRedoTrash: Bool { guarded.withLock { $0.notebook.canRedoTrash } }

    /// Deletes a memo in the trash for good: its text is deleted (on every replica, as
    /// ordinary deletions) and it leaves the trash; it cannot be restored or undone. The next
    /// save (``save()``) compacts the library, so that no library file holds its text any more
    /// (a purge received by a sync does the same); until then the text is in the journal's
    /// records.
    ///
    /// Only a memo in the trash is purged. An active memo is refused, nothing changes: a purge
    /// never takes away text the user still sees in the list, and a memo stays restorable
    /// until it is purged from the trash. To delete an active memo for good, move it to the
    /// trash first (``moveToTrash(_:)``), then purge it. (`Notebook.purge(_:wallMilliseconds:)`,
    /// the layer below, purges a memo in either state.)
    ///
    /// After damage to the library (``LibraryOpenReport/damage``), a memo whose text is in the
    /// journal records kept for held-back operations is not purged until a sync has brought back
    /// what the damage took (``ReplicaError/purgeWaitsForHeldBackEdits(_:)``): a compaction keeps
    /// those records whole. Copies of damaged files kept aside (``keptAsideFileNames``) are
    /// never rewritten or deleted by a purge: they are the user's material for recovering what
    /// the damage took, and may still hold the purged text; tell the user so (`memo purge` names
    /// them).
    ///
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.memoNotInTrash` for an active memo,
    ///   `.memoNotFound` for an unknown or purged one; ``ReplicaError/purgeWaitsForHeldBackEdits(_:)``;
    ///   ``ReplicaError/closed``.
    public func purge(_ id: MemoID) throws(ReplicaError) {
        try purge(id, allowingActive: false)
    }

    /// ``purge(_:)``, and, when `allowingActive`, an active memo too, whatever held-back records
    /// hold (the simulator's purges, which race edits on memos in either state, as the notebook
    /// allows; the simulator judges what replicas converge to, not what library files hold).
    package func purge(_ id: MemoID, allowingActive: Bool) throws(ReplicaError) {
        if !allowingActive, isInHeldBackRecords(id) { throw .purgeWaitsForHeldBackEdits(id) }
        try change { notebook, now throws(NotebookError) in
            if !allowingActive, notebook.status(of: id) == .active { throw .memoNotInTrash(id) }
            try notebook.purge(id, wallMilliseconds: now)
        }
    }

    /// Whether the memo's operations are in journal records this library keeps for operations
    /// held back after damage: ``purge(_:)`` refuses such a memo
    /// (``ReplicaError/purgeWaitsForHeldBackEdits(_:)``) until a sync has brought back what the
    /// damage took. Check it first to purge several memos all or none.
    public func isInHeldBackRecords(_ id: MemoID) -> Bool {
        guarded.withLock { guarded in
            guarded.core.carried.contains { !$0.upperVersion.isIncluded(in: guarded.notebook.version) && $0.memos.contains(id) }
        }
    }

    /// Undoes this replica's last edit of a memo.
    public func undo(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.undo(id, wallMilliseconds: now) }
    }

    /// Redoes the last undone edit of a memo.
    public func redo(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.redo(id, wallMilliseconds: now) }
    }

    /// Ends the current undo step of every memo (`Notebook.endUndoGrouping()`): the next edit
    /// starts a new step, even one that would otherwise coalesce into the last (typing on at the
    /// caret, held backspace, within 2 seconds). Call it when the user moves the caret or the
    /// selection, as an `UndoManager`'s `endUndoGrouping()`. No operation, no event, nothing to
    /// save; a closed replica ignores it.
    public func endUndoGrouping() {
        guarded.withLock { $0.notebook.endUndoGrouping() }
    }

    /// Runs `body` on the notebook under the lock, with the clock's time; its events go out, and
    /// this session's id joins the lineage with its first operation (Replica+History.swift too).
    func change<Result>(_ body: (inout Notebook, UInt64) throws(NotebookError) -> Result) throws(ReplicaError) -> Result {
        let now = environment.wallMilliseconds()
        return try guarded.withLock { guarded throws(ReplicaError) -> Result in
            if guarded.isClosed { throw .closed }
            let result: Result
            do throws(NotebookError) {
                result = try body(&guarded.notebook, now)
            } catch {
                throw ReplicaError(error)
            }
            // This session's id joins the lineage with its first operation (saved in the same
            // journal record), so that it is published even if the library is reopened first.
            if guarded.notebook.operationCount(of: guarded.notebook.replica) > 0 { guarded.syncState.addToLineage(guarded.notebook.replica) }
            guarded.deliverEvents()
            return result
        }
    }

    // MARK: Saving

    /// Makes every edit and everything a sync learned durable. Once it returns, a crash loses
    /// none of it. Runs off the caller's actor; edits go on meanwhile (those made after it
    /// began are saved by the next save).
    ///
    /// - Throws: ``ReplicaError/disk(_:)``; the edits stay in memory and the next save retries.
    public func save() async throws(ReplicaError) {
        try await Self.onDiskThread("MemoSync save") { [self] () throws(ReplicaError) in try saveNow() }
    }

    /// Rewrites the state file from the notebook and starts an empty journal. Runs off the
    /// caller's actor.
    public func compact() async throws(ReplicaError) {
        try await Self.onDiskThread("MemoSync compact") { [self] () throws(ReplicaError) in try compactNow() }
    }

    /// Runs `body` on a thread of its own and returns what it returns (an open, a save, a
    /// compaction, a close): the disk's work (a wait for the folder's lock, a journal replay, an
    /// `fsync` that may take a second on a busy disk) blocks neither the caller's actor nor a
    /// thread of the cooperative pool (two saves at once on it stalled every other task of a 2-core
    /// machine's pool for as long as their fsyncs took).
    private static func onDiskThread<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable () throws(ReplicaError) -> T
    ) async throws(ReplicaError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, ReplicaError>, Never>) in
            let thread = Thread {
                do throws(ReplicaError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = name
            thread.start()
        }
        return try result.get()
    }

    /// ``save()``, on the calling thread: for the simulator and the command line, which have no
    /// user interface to keep responsive.
    package func saveNow() throws(ReplicaError) {
        try writeToDisk(compacting: false)
    }

    /// ``compact()``, on the calling thread.
    package func compactNow() throws(ReplicaError) {
        try writeToDisk(compacting: true)
    }

    /// Saves (or compacts): takes a copy of what is to be saved under the lock (a copy of a
    /// value: no memo is copied), plans and performs it without the lock (encoding a large
    /// notebook takes a while, and edits go on meanwhile), and records what became durable: what
    /// the plan was made from, not what was edited since.
    private func writeToDisk(compacting: Bool) throws(ReplicaError) {
        // The notebook as saved; after a compaction, with the text bodies it encoded, which the
        // texts turned back below copy instead of encoding them again.
        var written: Notebook?
        try diskLock.withLock { sharing throws(ReplicaError) in
            if sharing != nil { try takeFolder(&sharing!) }
            defer { if sharing != nil { releaseFolder(&sharing!) } }
            // Retention runs on the wall clock here, outside the notebook (which takes the cutoff).
            let now = environment.wallMilliseconds()
            let taken = try guarded.withLock { guarded throws(ReplicaError) -> (LibraryCore, Notebook, SyncState, Int, Int)? in
                if guarded.isClosed { throw .closed }
                if Self.applyHistoryRetention(&guarded, nowWallMilliseconds: now, force: compacting) > 0 {
                    guarded.historyDropsNotCompacted += 1
                    #if MEMOSYNC_MUTANTS
                    if EngineMutant.active == .retentionSkipsCompaction { guarded.historyDropsNotCompacted -= 1 }
                    #endif
                }
                let dropped = guarded.historyDropsNotCompacted
                guard compacting || guarded.purgesNotCompacted > 0 || dropped > 0 || guarded.core.needsCompaction
                    || guarded.core.hasUnsavedChanges(notebook: guarded.notebook, syncState: guarded.syncState)
                else { return nil }
                return (guarded.core, guarded.notebook, guarded.syncState, guarded.purgesNotCompacted, dropped)
            }
            guard let (core, notebook, syncState, purges, dropped) = taken else { return }
            var saved = notebook
            let plan = compacting || purges > 0 || dropped > 0
                ? try core.planCompaction(keepingTextBodiesOf: &saved, syncState: syncState)
                : try core.planSave(keepingTextBodiesOf: &saved, syncState: syncState)
            do throws(DiskError) {
                try disk.perform(plan.operations)
            } catch {
                guarded.withLock { $0.core.saveFailed() }
                throw .disk(error)
            }
            try? disk.perform(plan.stateListOperations)
            guarded.withLock { guarded in
                guarded.core.didSave(plan, notebook: notebook, syncState: syncState)
                // Purges made while it was written are the next save's.
                if plan.isCompaction {
                    guarded.purgesNotCompacted -= purges
                    // Drops made while it was written are the next save's.
                    guarded.historyDropsNotCompacted -= dropped
                }
            }
            if plan.isCompaction { written = saved }
        }
        // Out of the disk lock, and with the copies saved gone, so no memo is copied for it.
        releaseDecodedTexts(keepingMostRecent: nil, bodiesEncodedIn: written)
    }

    // MARK: Decoded texts

    /// The default ``decodedTextLimit``: 1,000 memos, a few megabytes of decoded texts for notes
    /// of a few kilobytes.
    public static let defaultDecodedTextLimit = 1_000

    /// How many memo texts stay decoded after each save: the ones used last. The others go back
    /// to their encoded form (`Notebook.releaseDecodedTexts(keepingMostRecent:atMost:)`), as a
    /// library just opened holds them, and are decoded again when next edited, merged or read;
    /// nothing else about them changes. Negative values count as 0.
    ///
    /// A sync that brings changes to thousands of memos decodes each of them; the next save frees
    /// that memory for what the app allocates next (the allocator keeps most of it rather than
    /// returning it to the system at once: BENCHMARKS.md, "Decoded texts given back").
    public var decodedTextLimit: Int {
        get { guarded.withLock { $0.decodedTextLimit } }
        set { guarded.withLock { $0.decodedTextLimit = max(0, newValue) } }
    }

    /// How many memo texts are decoded now (``decodedTextLimit``).
    public var decodedTextCount: Int { guarded.withLock { $0.notebook.decodedTextCount } }

    /// Frees the memory of decoded memo texts now, keeping the `count` used last (nil:
    /// ``decodedTextLimit``); for an app told that memory is low
    /// (`releaseDecodedTexts(keepingMostRecent: 0)`, which also lets go the few texts kept for
    /// reads of memos whose text was not decoded). Texts are turned back a few at a time, the
    /// lock released between, so an edit meanwhile waits for a few at most.
    ///
    /// - Returns: How many texts were turned back.
    @discardableResult
    public func releaseDecodedTexts(keepingMostRecent count: Int?) -> Int {
        releaseDecodedTexts(keepingMostRecent: count, bodiesEncodedIn: nil)
    }

    /// ``releaseDecodedTexts(keepingMostRecent:)``, turning texts still at the version of their
    /// body in `written` (a copy of the notebook a compaction just encoded) into copies of those
    /// bytes rather than encoding them again.
    ///
    /// The lock is held for ``memosListedPerLock`` memos at a time while the decoded texts are
    /// listed, then for ``decodedTextsReleasedPerLock`` texts at a time; the texts are ordered
    /// without it. A text used between two holds is the most recent then, and stays. (Each hold
    /// once sorted every decoded text and turned back 32: after a bootstrap of 10,000 memos an
    /// edit waited up to 10 ms, hundreds of times, `memo-bench remote`.)
    @discardableResult
    private func releaseDecodedTexts(keepingMostRecent count: Int?, bodiesEncodedIn written: Notebook?) -> Int {
        let begun = guarded.withLock { guarded -> Notebook.ReleasePass? in
            if guarded.isClosed { return nil }
            // The few texts kept for reads go only when the app asks for everything.
            return guarded.notebook.beginReleasePass(keepingMostRecent: count ?? guarded.decodedTextLimit, keepingTextsDecodedForReading: count != 0)
        }
        guard let pass = begun else { return 0 }
        var listed: [Notebook.DecodedTextUse] = []
        var from = 0
        while from < pass.memoCount {
            let to = min(pass.memoCount, from + Self.memosListedPerLock)
            guard let slice = guarded.withLock({ guarded -> [Notebook.DecodedTextUse]? in
                if guarded.isClosed { return nil }
                #if MEMOSYNC_INTERNAL_CHECKS
                guarded.recordReleaseHold(.listed(memos: to - from))
                #endif
                return guarded.notebook.decodedTextUses(in: from..<to)
            }) else { return 0 }
            listed += slice
            from = to
        }
        guard listed.count > pass.keep else {
            guarded.withLock { guarded in guarded.notebook.finishReleasePass(pass, listed: listed.count) }
            return 0
        }
        let chosen = Notebook.leastRecentlyUsed(listed, beyond: pass.keep)
        var released = 0
        var start = chosen.startIndex
        while start < chosen.endIndex {
            let end = min(chosen.endIndex, start + Self.decodedTextsReleasedPerLock)
            let open = guarded.withLock { guarded -> Bool in
                guard !guarded.isClosed else { return false }
                #if MEMOSYNC_INTERNAL_CHECKS
                guarded.recordReleaseHold(.released(texts: end - start))
                #endif
                released += guarded.notebook.releaseDecodedTexts(chosen[start..<end], bodiesEncodedIn: written)
                return true
            }
            guard open else { break }
            start = end
        }
        return released
    }

    /// Texts turned back per hold of the replica's lock (``releaseDecodedTexts(keepingMostRecent:)``):
    /// each takes about 0.1 ms (a 2 KB memo's body copied or encoded, and walked).
    static let decodedTextsReleasedPerLock = 4

    /// Memos looked at per hold of the replica's lock while a release lists the decoded texts.
    static let memosListedPerLock = 2_048

    #if MEMOSYNC_INTERNAL_CHECKS
    /// One hold of the replica's lock by a release of decoded texts: listing `memos` memos, or
    /// turning back `texts` texts (self-check builds only).
    package enum ReleaseHold: Equatable, Sendable {
        case listed(memos: Int)
        case released(texts: Int)
    }

    /// The most holds ``takeDebugReleaseHolds()`` returns: those after are not recorded.
    package static let debugReleaseHoldsMax = 65_536

    /// The holds of the lock by ``releaseDecodedTexts(keepingMostRecent:)`` since the last call,
    /// in order; forgets them (self-check builds only).
    package func takeDebugReleaseHolds() -> [ReleaseHold] {
        guarded.withLock { guarded in
            defer { guarded.debugReleaseHolds = [] }
            return guarded.debugReleaseHolds
        }
    }
    #endif

    // MARK: History retention

    /// How long this library keeps the content of deleted text, so that earlier versions of its
    /// memos can be shown (`Notebook.text(of:at:)`): its `history` file, 90 days
    /// (``HistoryRetention/default``) when it has none (FORMAT.md, "History retention").
    ///
    /// A library always keeps history: every deletion keeps the content it deletes, in memory,
    /// in the library's files, and in what it publishes (deltas and snapshots), until the
    /// period has passed since the deletion (by the wall time of the edit that made it, against
    /// this device's clock). Each save applies the period (at the first save of a session, then
    /// whenever the cutoff has moved on by an hour; every ``compact()``); a save that dropped
    /// content compacts, so the files no longer hold it.
    public var historyRetention: HistoryRetention { guarded.withLock { $0.historyRetention } }

    /// Makes `retention` this library's (written to its `history` file, durably), and drops at
    /// once the content it no longer keeps (from memory; the next save compacts the files).
    ///
    /// ```swift
    /// try replica.setHistoryRetention(.days(30))
    /// try await replica.save()   // the files no longer hold what was deleted 30 days ago
    /// ```
    ///
    /// - Returns: how many deleted scalars' content was dropped.
    /// - Throws: ``ReplicaError/invalidHistoryRetention(days:)`` for a period that is not
    ///   ``HistoryRetention/forever`` or 1 through ``HistoryRetention/daysMax`` days (nothing
    ///   changes); ``ReplicaError/disk(_:)``; ``ReplicaError/closed``.
    @discardableResult
    public func setHistoryRetention(_ retention: HistoryRetention) throws(ReplicaError) -> Int {
        guard retention.isValid else {
            if case let .days(days) = retention { throw .invalidHistoryRetention(days: days) }
            return 0
        }
        try diskLock.withLock { sharing throws(ReplicaError) in
            if guarded.withLock({ $0.isClosed }) { throw .closed }
            if sharing != nil { try takeFolder(&sharing!) }
            defer { if sharing != nil { releaseFolder(&sharing!) } }
            do throws(DiskError) { try disk.perform(LibraryHistoryFile.savingOperations(retention)) } catch { throw .disk(error) }
        }
        let now = environment.wallMilliseconds()
        return guarded.withLock { guarded in
            guarded.historyRetention = retention
            let dropped = Self.applyHistoryRetention(&guarded, nowWallMilliseconds: now, force: true)
            if dropped > 0 { guarded.historyDropsNotCompacted += 1 }
            return dropped
        }
    }

    /// How far the retention cutoff moves on before a save applies it again: one hour.
    static let historyRetentionStepMilliseconds: UInt64 = 3_600_000

    /// Drops the content of text deleted before the library's retention cutoff at `now`: at the
    /// first save of a session, when the cutoff moved on by ``historyRetentionStepMilliseconds``
    /// since it was last applied, or always when `force`. A clock that went back gives an
    /// earlier cutoff, which drops nothing more (what was dropped stays dropped).
    ///
    /// - Returns: how many deleted scalars' content was dropped.
    private static func applyHistoryRetention(_ guarded: inout Guarded, nowWallMilliseconds now: UInt64, force: Bool) -> Int {
        guard let cutoff = guarded.historyRetention.cutoffWallMilliseconds(nowWallMilliseconds: now), cutoff > 0 else { return 0 }
        let applied = guarded.retentionCutoffApplied
        guard applied == 0 || (cutoff > applied && (force || cutoff - applied >= historyRetentionStepMilliseconds)) else { return 0 }
        guarded.retentionCutoffApplied = max(applied, cutoff)
        return guarded.notebook.dropHistory(deletedBeforeWallMilliseconds: cutoff)
    }

    // MARK: Sharing the folder

    /// Lets other processes change the library while this replica stays open (a `FileDisk`
    /// library; nothing for another disk): from now on the folder's lock is held only while
    /// this replica reads or writes the library files (each save or compaction, and the close),
    /// not while a sync waits on its store. `memo sync` shares its library, so that `memo edit`
    /// and the other commands that change it do not wait for the store.
    ///
    /// Before each save (and the close) the lock is taken again, and when the library files
    /// changed since this replica last left them (another process saved or compacted), they are
    /// read and what they hold that this notebook lacks is merged in (with events, as remote
    /// changes): the other process's operations, under the fresh id it took, which joins the
    /// lineage and is published with this library's own. Nothing is ever written over another
    /// process's save: a save is one more journal record after it (or a compaction of both).
    /// A crash at any point leaves the files as the last completed save of either left them.
    ///
    /// The seal (the clean close's record) is removed first: another process opening the
    /// library meanwhile must take a fresh id, never this session's (two processes making
    /// operations under one id would break its history). This replica seals the folder again
    /// at its close.
    ///
    /// The caller makes sure that no other replica of the library syncs meanwhile (`memo` holds
    /// the library's sync lock, ``FileDisk/syncLockFileName``, for a whole sync): two syncs
    /// would each record what they published, and the second save would not know the first's.
    ///
    /// - Throws: ``ReplicaError/disk(_:)`` when the seal cannot be removed (the folder stays
    ///   locked then), ``ReplicaError/closed``.
    package func shareFolder() throws(ReplicaError) {
        guard let fileDisk = disk as? FileDisk else { return }
        try diskLock.withLock { sharing throws(ReplicaError) in
            guard sharing == nil else { return }
            let generation = try guarded.withLock { guarded throws(ReplicaError) -> UInt64 in
                if guarded.isClosed { throw .closed }
                return guarded.core.generation
            }
            do throws(DiskError) {
                if try disk.listFiles().contains(LibrarySeal.fileName) {
                    try disk.perform([.delete(file: LibrarySeal.fileName), .syncDirectory])
                }
            } catch {
                throw .disk(error)
            }
            sharing = FolderSharing(disk: fileDisk, identities: LibraryIdentities.read(from: disk, generation: generation))
            fileDisk.releaseLock()
        }
    }

    /// Whether the folder is shared (``shareFolder()``).
    package var sharesFolder: Bool { diskLock.withLock { $0 != nil } }

    /// Merges what other processes saved since this replica last left the library files (with
    /// events, as remote changes), as a save does first, without saving: for a replica sharing
    /// its folder (``shareFolder()``) that wants to see other processes' changes while it has
    /// nothing to save (`memo serve` calls it a few times a second). Takes the folder's lock for
    /// the moment it looks; reads the files only when their identities changed. Nothing for a
    /// folder not shared (no other process can change it).
    ///
    /// - Parameter waitingMilliseconds: how long to wait for another process holding the
    ///   folder's lock (0: not at all).
    /// - Returns: false, with nothing done, when another process held the lock for longer
    ///   than that (try again later); true otherwise.
    /// - Throws: ``ReplicaError/disk(_:)``, ``ReplicaError/corruptLibrary(file:reason:)`` and
    ///   the other failures of reading the library; ``ReplicaError/closed``. The lock is
    ///   released in every case.
    package func refreshFromSharedFolder(waitingMilliseconds: Int) throws(ReplicaError) -> Bool {
        try diskLock.withLock { sharing throws(ReplicaError) -> Bool in
            guard sharing != nil else { return true }
            if guarded.withLock({ $0.isClosed }) { throw .closed }
            do throws(DiskError) {
                try sharing!.disk.takeLock(waitingMilliseconds: waitingMilliseconds)
            } catch .locked {
                return false
            } catch {
                throw .disk(error)
            }
            do throws(ReplicaError) {
                try takeFolder(&sharing!)
            } catch {
                // Not merged: the identities stay as they were, so the next look reads again.
                sharing!.disk.releaseLock()
                throw error
            }
            releaseFolder(&sharing!)
            return true
        }
    }

    /// Takes the shared folder's lock again, and merges what other processes saved since this
    /// replica last left the files (under `diskLock`). When it throws, the lock is not held:
    /// released again if the merge failed (a caller releases only after a successful take).
    private func takeFolder(_ sharing: inout FolderSharing) throws(ReplicaError) {
        do throws(DiskError) {
            try sharing.disk.takeLock(waitingMilliseconds: Self.sharedLockWaitMilliseconds)
        } catch {
            throw .disk(error)
        }
        do throws(ReplicaError) {
            try mergeSharedFolder(&sharing)
        } catch {
            sharing.disk.releaseLock()
            throw error
        }
    }

    /// Merges what other processes saved since this replica last left the files (under
    /// `diskLock`, holding the folder's lock).
    private func mergeSharedFolder(_ sharing: inout FolderSharing) throws(ReplicaError) {
        let generation = guarded.withLock { $0.core.generation }
        if let now = LibraryIdentities.read(from: disk, generation: generation), now == sharing.identities { return }
        // Changed (or the disk cannot tell): read the files as an open does.
        let (files, contents, listed) = try Self.readLibraryFiles(disk)
        guard
            let recovery = try LibraryCore.recover(
                files: files, contents: contents, listed: listed, stateListMinimumBytes: disk.stateListMinimumBytes)
        else {
            throw .corruptLibrary(file: LibraryCore.stateFileName, reason: "the library's files were removed while it was open")
        }
        do throws(DiskError) { try disk.perform(recovery.repairs) } catch { throw .disk(error) }
        try guarded.withLock { guarded throws(ReplicaError) in
            let current = guarded.notebook.replica
            do throws(NotebookError) {
                let theirs = try recovery.notebook.changes(since: guarded.notebook.version)
                if !theirs.isEmpty { try guarded.notebook.apply(theirs) }
            } catch {
                throw ReplicaError(error)
            }
            for id in recovery.syncState.lineage where id != current {
                guarded.syncState.adoptIntoLineage(id, current: current)
                guarded.session?.adoptIntoLineage(id, current: current)
            }
            // The files as they are now: what is durable, where the journal ends.
            guarded.core = recovery.core
            if let retention = try? LibraryHistoryFile.read(from: disk) { guarded.historyRetention = retention }
            guarded.deliverEvents()
        }
        sharing.identities = LibraryIdentities.read(from: disk, generation: recovery.core.generation)
    }

    /// Remembers the files as this replica leaves them (when it holds the lock) and releases
    /// the shared folder's lock (under `diskLock`).
    private func releaseFolder(_ sharing: inout FolderSharing) {
        guard sharing.disk.holdsLock else { return }
        sharing.identities = LibraryIdentities.read(from: disk, generation: guarded.withLock { $0.core.generation })
        sharing.disk.releaseLock()
    }

    // MARK: Syncing

    /// Syncs with `store`: saves, publishes what the store lacks, applies what others
    /// published, saves again. Up to ``SyncConfiguration/maxInFlight`` store operations run at
    /// once. Edits go on meanwhile; what the sync receives merges into the notebook as it
    /// arrives, with events.
    ///
    /// Store failures do not throw: the sync does what it can and lists them in the report's
    /// `errors` (try again later); ``SyncReport/isComplete`` tells whether it did everything,
    /// and only then does ``lastSyncMilliseconds`` move. Entries the store's listing
    /// left out (``BlobStore/listing(prefix:)``) and blobs that could not be used are in the
    /// report's `skipped`.
    ///
    /// Cancelling the task stops the sync at the next safe point: operations in flight end (a
    /// store may cancel them), a write counts as published only when the store said it was
    /// done, what was received is kept and saved, and the next sync does the rest. The report
    /// says ``SyncReport/cancelled``.
    ///
    /// - Parameter progress: called after each store operation (on the sync's task).
    /// An encrypted library (``encryption``) syncs only through an ``EncryptedBlobStore`` (or a
    /// ``ReadOnlyBlobStore``, which publishes nothing); a sync through one makes the library
    /// encrypted, durably, before anything is written.
    ///
    /// - Throws: the local disk's failures (``ReplicaError/disk(_:)``), ``ReplicaError/closed``,
    ///   ``ReplicaError/syncInProgress`` when another sync of this replica runs,
    ///   ``ReplicaError/encryptedLibrary`` for a plain store and an encrypted library.
    @concurrent
    @discardableResult
    public func sync(with store: any BlobStore, progress: (@Sendable (SyncProgress) -> Void)? = nil) async throws(ReplicaError) -> SyncReport {
        let encrypted = store as? EncryptedBlobStore
        let through: SyncStoreEncryption =
            if let encrypted { .encrypted(encrypted.libraryEncryption) } else if store is ReadOnlyBlobStore { .readOnly } else { .plain }
        // The sync's saves (before it starts, before a write when edits came meanwhile, at its
        // end) run on threads of their own, as save() does: no thread of the pool waits on an
        // fsync.
        try await Self.onDiskThread("MemoSync sync") { [self] () throws(ReplicaError) in try beginSync(through: through) }
        let limit = configuration.maxInFlight
        await withTaskGroup(of: (SyncAction, SyncResult, SyncSession.DecodedBlob?).self) { group in
            var inFlight = 0
            while true {
                if Task.isCancelled { cancelSync() }
                let (planned, mustSave) = nextSyncActionsBeforeSaving(limit: limit - inFlight)
                var actions = planned
                if mustSave {
                    do throws(ReplicaError) {
                        try await Self.onDiskThread("MemoSync sync") { [self] () throws(ReplicaError) in try saveBeforeWrites(planned) }
                    } catch {
                        // The disk failed (the sync is cancelled, the actions answered as
                        // failed): finishing it saves again, and throws.
                        actions = []
                    }
                }
                for action in actions {
                    inFlight += 1
                    group.addTask {
                        let result = await Self.perform(action, on: store)
                        return (action, result, self.decodedAnswer(action, result))
                    }
                }
                guard inFlight > 0, let (action, result, decoded) = await group.next() else { break }
                inFlight -= 1
                // An operation that failed because the task was cancelled is no store failure:
                // the sync is cancelled first, so the answer only counts what the store did.
                if Task.isCancelled || result == .failed(.cancelled) { cancelSync() }
                handleSync(action, result, decoded: decoded)
                if let progress, let now = syncProgress { progress(now) }
            }
        }
        var report = try await Self.onDiskThread("MemoSync sync") { [self] () throws(ReplicaError) -> SyncReport in try finishSync() }
        if let encrypted {
            report.encrypted = true
            if report.listedStore { report.plainBlobsIgnored = encrypted.plainBlobKeys }
            // Skipped blobs named as the store lists them (their `memosync/e1/` keys), not as the
            // sync saw them: the names a user finds in the store.
            for index in report.skipped.indices { report.skipped[index].key = encrypted.storedKey(forPlainKey: report.skipped[index].key) }
        }
        return report
    }

    /// ``beginSync(through:)`` on a plain store (tests that drive a plain library's sync).
    package func beginSync() throws(ReplicaError) {
        try beginSync(through: .plain)
    }

    /// Starts a sync that the caller drives step by step (``nextSyncActions(limit:)``,
    /// ``handleSync(_:_:)``, ``finishSync()``): saves first. `through` says how the caller
    /// performs the store operations: an encrypted library refuses a plain store
    /// (``ReplicaError/encryptedLibrary``, before anything is done), and a sync through
    /// encryption makes the library encrypted (durably, before anything is written).
    package func beginSync(through: SyncStoreEncryption) throws(ReplicaError) {
        let current = guarded.withLock { $0.encryption }
        switch through {
        case .plain: if current != nil && !Self.mutantSyncsPlain { throw .encryptedLibrary }
        case .readOnly: break
        case let .encrypted(encryption): if current != encryption { try recordEncryption(encryption) }
        }
        try saveNow()
        let now = environment.wallMilliseconds()
        try guarded.withLock { guarded throws(ReplicaError) in
            if guarded.isClosed { throw .closed }
            if guarded.session != nil { throw .syncInProgress }
            guarded.session = SyncSession(
                notebook: guarded.notebook, state: guarded.syncState, configuration: configuration,
                wallMilliseconds: now)
        }
    }

    /// The running sync's next store operations (at most `limit`); empty while it waits for
    /// answers, when it is over, and when no sync runs.
    ///
    /// Nothing goes to the store that this library could lose: when the operations include a
    /// write (a segment, a snapshot or a head, made from the live notebook) and edits are not
    /// saved yet, everything is saved first. If that save fails, the writes are answered as
    /// failed, the sync is cancelled, and the error is thrown.
    ///
    /// A snapshot the sync writes is encoded here, outside the lock, from a copy of the notebook
    /// (encoding 10,000 memos takes a while; edits go on meanwhile).
    package func nextSyncActions(limit: Int) throws(ReplicaError) -> [SyncAction] {
        let (actions, mustSave) = nextSyncActionsBeforeSaving(limit: limit)
        if mustSave { try saveBeforeWrites(actions) }
        return actions
    }

    /// ``nextSyncActions(limit:)`` without its save: the actions, and whether they must wait
    /// for ``saveBeforeWrites(_:)``.
    private func nextSyncActionsBeforeSaving(limit: Int) -> (actions: [SyncAction], mustSave: Bool) {
        var actions: [SyncAction] = []
        var mustSave = false
        while true {
            let (more, save, toEncode, pieces) = guarded.withLock { guarded -> ([SyncAction], Bool, Notebook?, Bool) in
                guard guarded.session != nil, !guarded.isClosed else { return ([], false, nil, false) }
                let more = guarded.session!.nextActions(limit: limit - actions.count, notebook: &guarded.notebook)
                guarded.deliverEvents()
                let writes = more.contains { if case .write = $0 { true } else { false } }
                let save = writes && guarded.core.hasUnsavedChanges(notebook: guarded.notebook, syncState: guarded.syncState)
                return (more, save, guarded.session!.snapshotToEncode, guarded.session!.hasPieceToApply)
            }
            actions += more
            mustSave = mustSave || save
            if pieces {
                // An answer taken now began a merge in pieces: merged, then the next actions.
                applyReceivedPieces()
                continue
            }
            guard var copy = toEncode else { break }
            var outline: NotebookStateOutline?
            let bytes: [UInt8]
            do throws(NotebookError) {
                bytes = try copy.encodedKeepingTextBodies(headroom: BlobEnvelope.headerBytesMax, wrap: { _, start, _ in start }, outline: &outline)
            } catch {
                // A memo's text could not be read from the state file: no snapshot holds a text
                // other than the one read. The sync stops; finishing it throws why.
                guarded.withLock { guarded in
                    guarded.snapshotFailure = ReplicaError(error)
                    guarded.session?.cancel()
                }
                break
            }
            let key = SyncSession.snapshotKey(of: bytes, from: copy)
            guarded.withLock { guarded in
                guard guarded.session != nil else { return }
                guarded.session!.snapshotEncoded(bytes, from: copy, key: key)
            }
            keepTextBodies(encodedIn: copy)
        }
        return (actions, mustSave)
    }

    /// Saves before `actions`, which include a write, go to the store. If the save fails, the
    /// sync stops here: the actions are answered as failed (nothing written) and the error is
    /// thrown.
    private func saveBeforeWrites(_ actions: [SyncAction]) throws(ReplicaError) {
        do throws(ReplicaError) {
            try saveNow()
        } catch {
            cancelSync()
            for action in actions { handleSync(action, .failed(.io(reason: "not performed: this library could not save first (\(error))"))) }
            throw error
        }
    }

    /// Memos whose encoded text bodies the live notebook takes from a snapshot's copy per hold
    /// of the lock (``keepTextBodies(encodedIn:)``).
    static let keptTextBodiesPerHold = 256

    /// Gives the live notebook the text bodies `copy` kept when the sync encoded its snapshot
    /// (`Notebook.keepTextBodies(encodedIn:memos:)`), ``keptTextBodiesPerHold`` memos per hold
    /// of the lock: for 10,000 memos the whole took 20-40 ms, an edit's wait (issue 25). Only a
    /// cache of encodings: a memo edited between holds keeps none (its version moved on).
    private func keepTextBodies(encodedIn copy: Notebook) {
        let count = copy.memoRecordCount
        var start = 0
        while start < count {
            let end = min(count, start + Self.keptTextBodiesPerHold)
            let open = guarded.withLock { guarded -> Bool in
                guard !guarded.isClosed else { return false }
                guarded.notebook.keepTextBodies(encodedIn: copy, memos: start..<end)
                return true
            }
            guard open else { return }
            start = end
        }
    }

    /// Takes the answer to one of the running sync's operations.
    package func handleSync(_ action: SyncAction, _ result: SyncResult) {
        handleSync(action, result, decoded: decodedAnswer(action, result))
    }

    /// Takes the answer to one of the running sync's operations, its blob already decoded by
    /// ``decodedAnswer(_:_:)``.
    func handleSync(_ action: SyncAction, _ result: SyncResult, decoded: SyncSession.DecodedBlob?) {
        guarded.withLock { guarded in
            guard guarded.session != nil, !guarded.isClosed else { return }
            guarded.session!.handle(action, result, notebook: &guarded.notebook, decoded: decoded)
            guarded.deliverEvents()
        }
        applyReceivedPieces()
    }

    /// The segment or snapshot an answer read, decoded (and, when large, cut into pieces),
    /// without the lock: a large snapshot takes a while, and typing goes on meanwhile. Nil for
    /// any other answer. ``sync(with:progress:)`` calls it in the task that read the blob, so
    /// that blobs decode while the sync takes other answers, on every core.
    func decodedAnswer(_ action: SyncAction, _ result: SyncResult) -> SyncSession.DecodedBlob? {
        var decoded: SyncSession.DecodedBlob?
        if case let .read(key) = action, case let .read(bytes) = result {
            decoded = SyncSession.decode(key: key, bytes: bytes, replica: id)
            // A snapshot for a notebook that holds something: what it holds beyond the notebook
            // is computed here too (it decodes every memo's text), so that the session can
            // merge it in pieces.
            // Cutting those changes (or a large segment) into pieces, and checking the whole, are
            // done here too, against a copy of the notebook.
            switch decoded {
            case let .snapshot(.success(snapshot))?:
                let base = guarded.withLock { $0.notebook.version }
                // The changes hold exactly the operations its version has beyond `base`: when
                // those are few enough to merge at once, they are not computed here.
                if !base.isEmpty, snapshot.version.operationCount(beyond: base) > configuration.mergePieceOperationsMax,
                    let changes = try? snapshot.changes(since: base),
                    changes.operationCount > configuration.mergePieceOperationsMax
                {
                    // (A copy that holds `base`: the notebook only grows.)
                    let current = guarded.withLock { $0.notebook }
                    let prepared = SyncSession.PreparedPieces(changes, checkedAgainst: current, configuration: configuration)
                    decoded = .snapshotChanges(snapshot, base: base, changes: changes, prepared: prepared)
                }
            case let .delta(.success(delta))?:
                if delta.operationCount > configuration.mergePieceOperationsMax, delta.counterRanges.count == 1 {
                    let current = guarded.withLock { $0.notebook }
                    decoded = .segmentPieces(delta, prepared: SyncSession.PreparedPieces(delta, checkedAgainst: current, configuration: configuration))
                }
            default:
                break
            }
        }
        return decoded
    }

    /// Merges a received segment the session cut into pieces, one piece per hold of the lock:
    /// an edit made meanwhile waits for one piece at most, never for the whole segment (issue
    /// 25: 477,000 operations held an edit for 33-48 ms). The notebook between pieces is a
    /// valid one (every invariant holds; see `SyncSession.merging`), and events go out per piece.
    private func applyReceivedPieces() {
        while true {
            let more = guarded.withLock { guarded -> Bool in
                guard guarded.session?.hasPieceToApply == true, !guarded.isClosed else { return false }
                guarded.session!.applyNextPiece(notebook: &guarded.notebook)
                guarded.deliverEvents()
                return guarded.session!.hasPieceToApply
            }
            guard more else { return }
        }
    }

    /// Stops the running sync at the next safe point (see ``sync(with:progress:)``).
    package func cancelSync() {
        guarded.withLock { guarded in guarded.session?.cancel() }
    }

    /// Ends the running sync (finished, or cancelled with nothing in flight): keeps what it
    /// learned of the store, and saves.
    ///
    /// - Throws: ``ReplicaError/noSyncInProgress`` when no sync was begun (nothing changes).
    @discardableResult
    package func finishSync() throws(ReplicaError) -> SyncReport {
        let report = try guarded.withLock { guarded throws(ReplicaError) -> SyncReport in
            guard let session = guarded.session else { throw .noSyncInProgress }
            guarded.session = nil
            guarded.syncState = session.state
            // An id that made its first operation during the sync is in the lineage.
            if guarded.notebook.operationCount(of: guarded.notebook.replica) > 0 { guarded.syncState.addToLineage(guarded.notebook.replica) }
            if guarded.isClosed { throw .closed }
            return session.report
        }
        try saveNow()
        if let failure = guarded.withLock({ guarded -> ReplicaError? in
            defer { guarded.snapshotFailure = nil }
            return guarded.snapshotFailure
        }) {
            throw failure
        }
        return report
    }

    // MARK: Encryption

    /// The library's encryption: nil for a plain library. A library that synced through an
    /// encrypted store is encrypted from then on (its `encryption` file, FORMAT.md "Library
    /// encryption"), in every later session and in every copy of its folder: it syncs only
    /// through encryption (``sync(with:progress:)`` refuses any other store with
    /// ``ReplicaError/encryptedLibrary``), until ``turnEncryptionOff()``.
    public var encryption: LibraryEncryption? { guarded.withLock { $0.encryption } }

    /// Whether the library is encrypted (``encryption``): what it writes to any store is ciphertext.
    public var isEncrypted: Bool { encryption != nil }

    /// Makes the library plain again: its syncs may then write plain blobs, to a store without a
    /// key blob. Call it only when the user asked for it, having checked the passphrase
    /// (``StoreEncryption/verify(passphrase:opens:)``); the store itself stays encrypted until its
    /// key blob is deleted (`memo store decrypt` does both).
    ///
    /// - Throws: ``ReplicaError/syncInProgress`` while a sync runs, ``ReplicaError/closed``,
    ///   ``ReplicaError/disk(_:)``.
    @concurrent
    public func turnEncryptionOff() async throws(ReplicaError) {
        try turnEncryptionOffNow()
    }

    /// ``turnEncryptionOff()``, on the calling thread.
    package func turnEncryptionOffNow() throws(ReplicaError) {
        try diskLock.withLock { sharing throws(ReplicaError) in
            if sharing != nil { try takeFolder(&sharing!) }
            defer { if sharing != nil { releaseFolder(&sharing!) } }
            try guarded.withLock { guarded throws(ReplicaError) in
                if guarded.isClosed { throw .closed }
                if guarded.session != nil { throw .syncInProgress }
            }
            do throws(DiskError) { try disk.perform(LibraryEncryption.removingOperations) } catch { throw .disk(error) }
            guarded.withLock { $0.encryption = nil }
        }
    }

    /// Makes the key blob `store` uses the library's (its `encryption` file, durably), as a sync
    /// through it would. Call it once ``StoreEncryption/changePassphrase(of:to:log2N:random:)``
    /// or ``StoreEncryption/rotateDataKey(of:random:)`` returns, before telling the user the
    /// change is done: a store that loses its key blob (wiped, a new folder) or is rolled back
    /// before the library's next sync then gets the new key blob back, never the one from before
    /// (which would undo the change: the old passphrase would open the store again).
    ///
    /// - Throws: ``ReplicaError/closed``, ``ReplicaError/disk(_:)`` (the file is as before).
    @concurrent
    public func recordKeyBlob(of store: EncryptedBlobStore) async throws(ReplicaError) {
        let encryption = store.libraryEncryption
        if self.encryption != encryption { try recordEncryption(encryption) }
    }

    /// Whether the `encryptedLibrarySyncsPlain` mutant is on (debug builds of the test command only).
    private static var mutantSyncsPlain: Bool {
        #if MEMOSYNC_MUTANTS
        return EngineMutant.active == .encryptedLibrarySyncsPlain
        #else
        return false
        #endif
    }

    /// Makes the library encrypted with `encryption` without syncing (the simulator's libraries
    /// of an encrypted run, from their start).
    package func markEncrypted(_ encryption: LibraryEncryption) throws(ReplicaError) {
        try recordEncryption(encryption)
    }

    /// Makes `encryption` the library's, durably, before a sync through it writes anything.
    private func recordEncryption(_ encryption: LibraryEncryption) throws(ReplicaError) {
        try diskLock.withLock { sharing throws(ReplicaError) in
            // A shared folder (a sync that let other writers in): its lock taken for the write.
            if sharing != nil { try takeFolder(&sharing!) }
            defer { if sharing != nil { releaseFolder(&sharing!) } }
            try guarded.withLock { guarded throws(ReplicaError) in
                if guarded.isClosed { throw .closed }
            }
            do throws(DiskError) { try disk.perform(encryption.savingOperations()) } catch { throw .disk(error) }
            guarded.withLock { $0.encryption = encryption }
        }
    }

    /// Performs one store operation.
    static func perform(_ action: SyncAction, on store: any BlobStore) async -> SyncResult {
        do throws(BlobStoreError) {
            if Task.isCancelled { throw .cancelled }
            switch action {
            case let .list(prefix): return .listed(try await store.listing(prefix: prefix))
            case let .read(key): return .read(try await store.read(key: key))
            case let .write(key, bytes):
                try await store.write(key: key, bytes: bytes)
                return .done
            case let .delete(key):
                try await store.delete(key: key)
                return .done
            }
        } catch {
            return .failed(error)
        }
    }

    // MARK: Events

    /// The changes since the last call (local edits and what syncs applied), oldest first. Every
    /// event goes here and to every ``events(bufferingNewest:)`` stream; the newest
    /// ``EventHub/queuedEventsMax`` are kept for a caller that does not call this.
    public func takeEvents() -> [NotebookEvent] {
        guarded.withLock { $0.events.take() }
    }

    /// A stream of every change from now on: local edits and what syncs applied. Each stream
    /// gets every event; several may be subscribed. A stream ends when its consumer stops (the
    /// task iterating it is cancelled, or it is dropped) or the replica closes, and is removed
    /// then. One not read keeps at most `limit` events, the newest.
    public func events(bufferingNewest limit: Int = 10_000) -> AsyncStream<NotebookEvent> {
        let (stream, continuation) = AsyncStream<NotebookEvent>.makeStream(bufferingPolicy: .bufferingNewest(max(1, limit)))
        let subscriber: UInt64? = guarded.withLock { guarded in
            guarded.isClosed ? nil : guarded.events.subscribe(continuation)
        }
        guard let subscriber else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.guarded.withLock { $0.events.unsubscribe(subscriber) }
        }
        return stream
    }

    /// How many ``events(bufferingNewest:)`` streams are subscribed (a stream whose consumer
    /// stopped is removed).
    public var eventSubscriberCount: Int { guarded.withLock { $0.events.subscriberCount } }

    /// Closes the library (releasing its folder's lock for a `FileDisk`) and ends every event
    /// stream. Unsaved edits are lost: save first. A running sync ends at its next step.
    ///
    /// When everything is saved, the folder is sealed first, so that the next open keeps this
    /// session's replica id (see ``id``). A failure to seal only means a fresh id next time.
    public func close() async {
        try? await Self.onDiskThread("MemoSync close") { [self] () throws(ReplicaError) in closeNow() }
    }

    /// ``close()``, on the calling thread.
    package func closeNow() {
        let continuations = diskLock.withLock { sharing -> [AsyncStream<NotebookEvent>.Continuation] in
            // A shared folder is locked again to seal it, after merging what others saved (so
            // that the seal describes the files as they are); if that fails, it is closed unsealed.
            var folderHeld = true
            if sharing != nil {
                do throws(ReplicaError) { try takeFolder(&sharing!) } catch { folderHeld = false }
            }
            // What the seal records, when everything is saved (nil otherwise); nil when closed.
            typealias Sealed = (replica: ReplicaID, generation: UInt64, journalBytes: Int, operationCount: UInt32)
            let closing = guarded.withLock { guarded -> Sealed?? in
                guard !guarded.isClosed else { return .none }
                guarded.isClosed = true
                guard guarded.session == nil, !guarded.core.needsCompaction,
                    !guarded.core.hasUnsavedChanges(notebook: guarded.notebook, syncState: guarded.syncState)
                else { return .some(nil) }
                let replica = guarded.notebook.replica
                return .some((replica, guarded.core.generation, guarded.core.journalBytes, guarded.notebook.version[replica]))
            }
            guard case let .some(sealed) = closing else { return [] }
            if folderHeld, let sealed, let identities = LibraryIdentities.read(from: disk, generation: sealed.generation) {
                let seal = LibrarySeal(
                    replica: sealed.replica, generation: sealed.generation, journalBytes: sealed.journalBytes,
                    operationCount: sealed.operationCount, identities: identities)
                try? disk.perform([.write(file: LibrarySeal.fileName, bytes: seal.encoded()), .sync(file: LibrarySeal.fileName)])
            }
            (disk as? FileDisk)?.close()
            return guarded.withLock { $0.events.removeAll() }
        }
        for continuation in continuations { continuation.finish() }
    }

    // MARK: Ids

    private static func randomReplicaID(_ environment: ReplicaEnvironment, excluding taken: Set<ReplicaID>) -> ReplicaID {
        while true {
            let id = ReplicaID(environment.randomUInt64())
            if id.rawValue != 0 && !taken.contains(id) { return id }
        }
    }
}

/// How a step-by-step sync's store operations are performed (``Replica/beginSync(through:)``).
package enum SyncStoreEncryption: Sendable, Equatable {
    /// On a plain store: refused for an encrypted library.
    case plain
    /// On a store that refuses writes and deletions (``ReadOnlyBlobStore``): nothing is published.
    case readOnly
    /// Through a store's encryption, with this key blob: the library is encrypted from then on.
    case encrypted(LibraryEncryption)
}

/// The environment's random source as a `RandomNumberGenerator`.
struct EnvironmentRandom: RandomNumberGenerator {
    let environment: ReplicaEnvironment
    mutating func next() -> UInt64 { environment.randomUInt64() }
}
