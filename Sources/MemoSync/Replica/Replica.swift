import Foundation
import MemoCRDT
import MemoNotes

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
public enum ReplicaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The local disk failed.
    case disk(DiskError)
    /// A library file is damaged. It is left as it is (replacing it would lose edits).
    case corruptLibrary(file: String, reason: String)
    /// A library file was written by a newer MemoSync.
    case unknownLibraryVersion(file: String, kind: UInt8, version: UInt8)
    /// An edit was refused (an unknown memo, a range outside the text, ...).
    case notebook(NotebookError)
    /// A sync is running (between ``Replica/beginSync()`` and ``Replica/finishSync(_:)``).
    case syncInProgress
    /// The replica was closed.
    case closed
    /// ``Replica/finishSync(_:)`` was called with no sync begun by ``Replica/beginSync()``.
    case noSyncInProgress

    public var description: String {
        switch self {
        case let .disk(error): "\(error)"
        case let .corruptLibrary(file, reason): "the library file \"\(file)\" is damaged: \(reason)"
        case let .unknownLibraryVersion(file, kind, version):
            "the library file \"\(file)\" was written by a newer MemoSync (kind \(kind), version \(version))"
        case let .notebook(error): "\(error)"
        case .syncInProgress: "a sync is in progress"
        case .closed: "the library is closed"
        case .noSyncInProgress: "no sync is in progress (finishSync without beginSync)"
        }
    }
}

/// One device's replica of a notebook: its local library (state file and journal) and its syncs.
///
/// ```swift
/// let replica = try Replica(libraryPath: "/path/to/library")
/// let id = try replica.createMemo(text: "Groceries\nmilk")
/// try replica.save()                                           // durable from here on
/// let report = try replica.sync(with: DirectoryBlobStore(path: "/path/to/Dropbox/notes"))
/// ```
///
/// Edits change the in-memory notebook at once; ``save()`` makes them durable (one journal
/// record, fsynced). A process killed at any instant reopens with every saved edit.
///
/// A replica is not thread-safe: use it from one thread (or actor) at a time.
public final class Replica {
    /// The notebook: memos, their texts, the list, the trash, search.
    public private(set) var notebook: Notebook
    /// What this replica remembers about the store.
    package private(set) var syncState: SyncState
    /// What opening the library found and repaired.
    public let openReport: LibraryOpenReport

    private let disk: any LibraryDisk
    private let environment: ReplicaEnvironment
    private let configuration: SyncConfiguration
    private var core: LibraryCore
    private var isSyncing = false
    /// The blobs earlier syncs skipped (``SkipMemory``): reported once. In memory only: a
    /// replica opened again reports them again.
    private var skippedBlobs: [String: SkipMemory] = [:]
    private var isClosed = false
    private var pendingEvents: [NotebookEvent] = []
    private var continuations: [UUID: AsyncStream<NotebookEvent>.Continuation] = [:]

    /// Opens the library on `disk`, creating it (with a replica id from the random source) when
    /// the folder holds none.
    ///
    /// - Throws: ``ReplicaError/disk(_:)``, ``ReplicaError/corruptLibrary(file:reason:)``,
    ///   ``ReplicaError/unknownLibraryVersion(file:kind:version:)``.
    public init(disk: any LibraryDisk, environment: ReplicaEnvironment = .system, configuration: SyncConfiguration = SyncConfiguration()) throws(ReplicaError) {
        self.disk = disk
        self.environment = environment
        self.configuration = configuration
        let files: [String]
        var contents: [String: [UInt8]] = [:]
        do throws(DiskError) {
            files = try disk.listFiles()
            for file in LibraryCore.filesToRead(listing: files) {
                if let bytes = try disk.read(file: file) { contents[file] = bytes }
            }
        } catch {
            throw .disk(error)
        }
        if let recovery = try LibraryCore.recover(files: files, contents: contents) {
            // The id of the last session when its clean close sealed the folder and the folder
            // is still exactly as sealed (read before any repair changes it).
            let kept = LibrarySeal.replicaToKeep(
                seal: contents[LibrarySeal.fileName], recovery: recovery,
                identities: LibraryIdentities.read(from: disk, generation: recovery.core.generation))
            do throws(DiskError) { try disk.perform(recovery.repairs) } catch { throw .disk(error) }
            if let kept {
                notebook = kept == recovery.notebook.replica ? recovery.notebook : recovery.notebook.fork(replica: kept)
            } else {
                // A fresh id for this session's operations: a copy of this library (a clone, a
                // restored backup, this folder before a crash) may have continued the earlier
                // ids, which stay in the lineage to be published. Opening changes nothing on
                // disk: the id joins the lineage with its first operation.
                var taken = Set(recovery.notebook.version.replicas)
                taken.formUnion(recovery.syncState.lineage)
                taken.insert(recovery.notebook.replica)
                let fresh = Self.randomReplicaID(environment, excluding: taken)
                notebook = recovery.notebook.fork(replica: fresh)
            }
            syncState = recovery.syncState
            core = recovery.core
            openReport = recovery.report
        } else {
            let leftovers = files.filter { $0 == LibraryCore.temporaryStateFileName }
            let replica = Self.randomReplicaID(environment, excluding: [])
            let created = LibraryCore.create(replica: replica)
            do throws(DiskError) {
                try disk.perform(leftovers.map { DiskOperation.delete(file: $0) })
                try disk.perform(created.operations)
            } catch {
                throw .disk(error)
            }
            notebook = Notebook(replica: replica)
            syncState = SyncState()
            core = created.core
            var report = LibraryOpenReport()
            report.created = true
            report.removedFiles = leftovers
            openReport = report
        }
    }

    /// Opens (or creates) the library in the folder at `libraryPath` (created if missing).
    /// The folder is locked while the replica is open: another process gets
    /// ``DiskError/locked(path:)``.
    public convenience init(
        libraryPath: String, environment: ReplicaEnvironment = .system, configuration: SyncConfiguration = SyncConfiguration()
    ) throws(ReplicaError) {
        let disk: FileDisk
        do throws(DiskError) { disk = try FileDisk(path: libraryPath) } catch { throw .disk(error) }
        try self.init(disk: disk, environment: environment, configuration: configuration)
    }

    deinit {
        for continuation in continuations.values { continuation.finish() }
    }

    // MARK: Identity and status

    /// The replica id this session's edits are made under. A library keeps its id from one
    /// session to the next while its folder is exactly as its last clean ``close()`` sealed it;
    /// after a crash, or in a copy of the folder (a clone, a restored backup), it takes a fresh
    /// one, so no two copies make different edits under one id. The ids it made edits under
    /// are its ``lineage``.
    public var id: ReplicaID { notebook.replica }

    /// Operations not yet durable: ``save()`` makes them so.
    public var unsavedOperationCount: Int {
        var count = 0
        for entry in notebook.version.entries {
            count += Int(entry.operationCount - min(entry.operationCount, core.durableVersion[entry.replica]))
        }
        return count
    }

    /// Operations of this library's ids (its lineage) not yet known to be in the store.
    public var unpublishedOperationCount: Int {
        syncState.unpublishedOperationCount(in: notebook.version)
    }

    /// When this library last completed a sync (``SyncReport/isComplete``), in wall-clock
    /// milliseconds since 1970; 0 before its first. For a "last synced" line.
    public var lastSyncMilliseconds: UInt64 { syncState.lastSyncMilliseconds }

    /// The replica ids this library has made edits under, oldest session first: ``id`` is the
    /// last. It publishes, and collects, what it holds of each.
    public var lineage: [ReplicaID] { syncState.lineage }

    /// Facts about the library files (generation, journal size), for status displays and tests.
    package var library: LibraryCore { core }

    // MARK: Editing

    /// Creates a memo holding `text`, with a new random id.
    @discardableResult
    public func createMemo(text: String = "") throws(ReplicaError) -> MemoID {
        try checkEditable()
        var generator = EnvironmentRandom(environment: environment)
        var id = MemoID(using: &generator)
        while notebook.status(of: id) != nil { id = MemoID(using: &generator) }
        let memoID = id
        try change { notebook, now throws(NotebookError) in try notebook.createMemo(memoID, text: text, wallMilliseconds: now) }
        return memoID
    }

    /// Replaces the UTF-16 range `range` of a memo's text with `replacement`.
    public func edit(_ id: MemoID, replacingUTF16 range: Range<Int>, with replacement: String) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.edit(id, replacingUTF16: range, with: replacement, wallMilliseconds: now) }
    }

    /// Replaces the Unicode scalar range `range` of a memo's text with `replacement`.
    public func edit(_ id: MemoID, replacingScalars range: Range<Int>, with replacement: String) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.edit(id, replacingScalars: range, with: replacement, wallMilliseconds: now) }
    }

    /// Sets a memo's whole text, as the smallest edit from the current one.
    public func setText(_ id: MemoID, to text: String) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.setText(id, to: text, wallMilliseconds: now) }
    }

    /// Moves a memo to the trash (it can be restored).
    public func moveToTrash(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.moveToTrash(id, wallMilliseconds: now) }
    }

    /// Restores a memo from the trash.
    public func restore(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.restore(id, wallMilliseconds: now) }
    }

    /// Deletes a memo in the trash for good.
    public func purge(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.purge(id, wallMilliseconds: now) }
    }

    /// Undoes this replica's last edit of a memo.
    public func undo(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.undo(id, wallMilliseconds: now) }
    }

    /// Redoes the last undone edit of a memo.
    public func redo(_ id: MemoID) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.redo(id, wallMilliseconds: now) }
    }

    private func change(_ body: (inout Notebook, UInt64) throws(NotebookError) -> Void) throws(ReplicaError) {
        try checkEditable()
        do throws(NotebookError) {
            try body(&notebook, environment.wallMilliseconds())
        } catch {
            throw .notebook(error)
        }
        // This session's id joins the lineage with its first operation (saved in the same
        // journal record), so that it is published even if the library is reopened first.
        if notebook.operationCount(of: notebook.replica) > 0 { syncState.addToLineage(notebook.replica) }
        deliverEvents()
    }

    private func checkEditable() throws(ReplicaError) {
        if isClosed { throw .closed }
        if isSyncing { throw .syncInProgress }
    }

    // MARK: Saving

    /// Makes every edit and everything a sync learned durable. Once it returns, a crash loses
    /// none of it.
    ///
    /// - Throws: ``ReplicaError/disk(_:)``; the edits stay in memory and the next save retries.
    public func save() throws(ReplicaError) {
        if isClosed { throw .closed }
        guard core.hasUnsavedChanges(notebook: notebook, syncState: syncState) || core.needsCompaction else { return }
        // Keeping the encoded text bodies when it compacts (the bytes are the same): the next
        // snapshot or compaction copies those of the memos unchanged by then.
        try perform(core.planSave(keepingTextBodiesOf: &notebook, syncState: syncState))
    }

    /// Rewrites the state file from the notebook and starts an empty journal.
    public func compact() throws(ReplicaError) {
        if isClosed { throw .closed }
        try perform(core.planCompaction(keepingTextBodiesOf: &notebook, syncState: syncState))
    }

    private func perform(_ plan: LibraryCore.SavePlan) throws(ReplicaError) {
        do throws(DiskError) {
            try disk.perform(plan.operations)
        } catch {
            core.saveFailed()
            throw .disk(error)
        }
        core.didSave(plan, notebook: notebook, syncState: syncState)
    }

    // MARK: Syncing

    /// Syncs with `store`: saves, publishes what the store lacks, applies what others
    /// published, saves again.
    ///
    /// Store failures do not throw: the sync does what it can and lists them in the report's
    /// `errors` (try again later); ``SyncReport/isComplete`` tells whether it did everything,
    /// and only then does ``lastSyncMilliseconds`` move. Entries the store's listing
    /// left out (``BlobStore/listing(prefix:)``) and blobs that could not be used are in the
    /// report's `skipped`. Only the local disk's failures throw.
    ///
    /// - Parameter progress: called after each store operation.
    @discardableResult
    public func sync(with store: any BlobStore, progress: ((SyncProgress) -> Void)? = nil) throws(ReplicaError) -> SyncReport {
        var session = try beginSync()
        while let action = session.nextAction() {
            if case let .list(prefix) = action {
                // The listing with the entries it left out, which the report shows.
                do throws(BlobStoreError) {
                    session.handle(listing: try store.listing(prefix: prefix))
                } catch {
                    session.handle(.failed(error))
                }
            } else {
                session.handle(Self.perform(action, on: store))
            }
            progress?(session.progress)
        }
        return try finishSync(session)
    }

    /// Starts a sync that the caller drives step by step (the simulator does, to interleave
    /// many replicas): saves first, then hands out a session holding the notebook. No edits are
    /// accepted until ``finishSync(_:)``.
    package func beginSync() throws(ReplicaError) -> SyncSession {
        try checkEditable()
        try save()
        isSyncing = true
        return SyncSession(
            notebook: notebook, state: syncState, configuration: configuration,
            wallMilliseconds: environment.wallMilliseconds(), skippedBefore: skippedBlobs)
    }

    /// Takes back a finished (or abandoned) session's notebook and store state, and saves them.
    ///
    /// - Throws: ``ReplicaError/noSyncInProgress`` when no sync was begun (nothing changes).
    @discardableResult
    package func finishSync(_ session: SyncSession) throws(ReplicaError) -> SyncReport {
        guard isSyncing else { throw .noSyncInProgress }
        isSyncing = false
        notebook = session.notebook
        syncState = session.state
        if session.isFinished || session.report.listedStore { skippedBlobs = session.skippedNow }
        deliverEvents()
        try save()
        return session.report
    }

    /// Performs one store operation.
    static func perform(_ action: SyncAction, on store: any BlobStore) -> SyncResult {
        do throws(BlobStoreError) {
            switch action {
            case let .list(prefix): return .listed(try store.list(prefix: prefix))
            case let .read(key): return .read(try store.read(key: key))
            case let .write(key, bytes):
                try store.write(key: key, bytes: bytes)
                return .done
            case let .delete(key):
                try store.delete(key: key)
                return .done
            }
        } catch {
            return .failed(error)
        }
    }

    // MARK: Events

    /// The changes since the last call (local edits and what syncs applied), oldest first.
    /// Events are delivered either here or to ``events()`` streams, not both.
    public func takeEvents() -> [NotebookEvent] {
        defer { pendingEvents = [] }
        return pendingEvents
    }

    /// A stream of every change from now on: local edits and what syncs applied.
    public func events() -> AsyncStream<NotebookEvent> {
        let (stream, continuation) = AsyncStream<NotebookEvent>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        continuations[key] = continuation
        return stream
    }

    private func deliverEvents() {
        let events = notebook.takeEvents()
        guard !events.isEmpty else { return }
        if continuations.isEmpty {
            if pendingEvents.isEmpty { pendingEvents = events } else { pendingEvents += events }
        } else {
            for key in continuations.keys.sorted(by: { $0.uuidString < $1.uuidString }) {
                for event in events { continuations[key]!.yield(event) }
            }
        }
    }

    /// Closes the library (releasing its folder's lock for a `FileDisk`). Unsaved edits are lost:
    /// save first.
    ///
    /// When everything is saved, the folder is sealed first, so that the next open keeps this
    /// session's replica id (see ``id``). A failure to seal only means a fresh id next time.
    public func close() {
        guard !isClosed else { return }
        if !isSyncing, !core.needsCompaction, !core.hasUnsavedChanges(notebook: notebook, syncState: syncState),
            let identities = LibraryIdentities.read(from: disk, generation: core.generation)
        {
            let seal = LibrarySeal(
                replica: notebook.replica, generation: core.generation, journalBytes: core.journalBytes,
                operationCount: notebook.version[notebook.replica], identities: identities)
            try? disk.perform([.write(file: LibrarySeal.fileName, bytes: seal.encoded()), .sync(file: LibrarySeal.fileName)])
        }
        isClosed = true
        (disk as? FileDisk)?.close()
        for continuation in continuations.values { continuation.finish() }
        continuations = [:]
    }

    // MARK: Ids

    private static func randomReplicaID(_ environment: ReplicaEnvironment, excluding taken: Set<ReplicaID>) -> ReplicaID {
        while true {
            let id = ReplicaID(environment.randomUInt64())
            if id.rawValue != 0 && !taken.contains(id) { return id }
        }
    }
}

/// The environment's random source as a `RandomNumberGenerator`.
struct EnvironmentRandom: RandomNumberGenerator {
    let environment: ReplicaEnvironment
    mutating func next() -> UInt64 { environment.randomUInt64() }
}
