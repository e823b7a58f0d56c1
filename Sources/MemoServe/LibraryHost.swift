// The library as `memo serve` holds it: one replica, open for the server's whole run, sharing
// its folder with the other `memo` commands (SERVE.md, "Sharing the library").
//
// - The replica shares its folder (`Replica.shareFolder()`, as `memo sync` does): the folder's
//   lock is held only while the replica reads or writes the library files (a save, a look for
//   other processes' saves, the close), so `memo new`, `memo edit` and `memo sync` never wait
//   for the server to stop.
// - Page edits change the replica in memory (fast: no disk). The replica is saved after
//   `saveQuietMilliseconds` without a change, and at least every `maxUnsavedMilliseconds` while
//   changes keep coming.
// - Every `pollMilliseconds` the folder is looked at (`Replica.refreshFromSharedFolder`, without
//   waiting for its lock): what other commands saved is merged into the replica and every open
//   page is told. When another command holds the lock, the look (and the save) waits for the
//   next round; page edits never wait for it.
// - Page edits and the documents that follow the replica's text (`refresh`) run under the
//   gate, one at a time. Merges (a sync, another command's save merged by a look or a save) run
//   outside it, so a keystroke never waits for the store or the disk: a page edit is worked
//   out against the notebook just read and applied only if no merge landed meanwhile
//   (`Replica.edit(_:replacingUTF16:ifVersionIs:)`); when one did, the documents follow it and
//   the edit is worked out again. So an edit's UTF-16 positions always name the text they were
//   transformed against; pages keep typing meanwhile, unconfirmed.
// - Syncs with the store take the library's sync lock (`LibrarySyncLock`) for their whole run,
//   without waiting: while a `memo sync` of the library runs, the server's sync waits for the
//   next round (two syncs of one library must never run at once). They run on a thread of
//   their own: looks and saves go on every `pollMilliseconds` while a sync waits on the store.

import Foundation
import MemoSync
import Synchronization

/// What a sync of the served library reported, for the status line.
public struct ServeSyncOutcome: Sendable {
    /// Whether the sync did everything (`SyncReport.isComplete`).
    public var complete: Bool
    /// Whether it could list the store (false: offline).
    public var reachedStore: Bool
    /// The error to show, in the user's language, if any.
    public var error: String?

    public init(complete: Bool, reachedStore: Bool, error: String?) {
        self.complete = complete
        self.reachedStore = reachedStore
        self.error = error
    }
}

/// Syncs a replica with the library's store (given by `memo`, which knows the store options,
/// encryption and passphrases).
public typealias ServeSyncer = @Sendable (Replica) async -> ServeSyncOutcome

/// How `memo serve` uses the library.
public struct ServeConfiguration: Sendable {
    /// The library folder.
    public var libraryPath: String
    /// Save the library after this long without a change.
    public var saveQuietMilliseconds = 300
    /// Save it at least this often while changes keep coming.
    public var maxUnsavedMilliseconds = 1_000
    /// How often the library's folder is looked at for other commands' saves (and a save that
    /// is due is made).
    public var pollMilliseconds = 200
    /// How long opening the library at the start waits for another command to release it.
    public var lockWaitMilliseconds = 5_000
    /// Sync this long after the last change.
    public var syncQuietMilliseconds = 2_000
    /// Sync at least this often (nil: only after changes and when asked).
    public var syncIntervalMilliseconds: Int? = 30_000

    public init(libraryPath: String) {
        self.libraryPath = libraryPath
    }
}

/// Why an operation failed, for the page.
public struct ServeFailure: Error, Sendable {
    /// The HTTP status.
    public var status: Int
    /// The message, in the user's language.
    public var message: String
    /// Whether the page should reload the memo.
    public var reload = false
    /// What went wrong, for the page to tell in its own language ("notRetained",
    /// "noSuchVersion"); nil when `message` says it all.
    public var code: String? = nil
    /// A number the page's text for `code` names (the scalars not retained).
    public var count: Int? = nil
}

/// The served library: the engine's replica (open while the server runs), the notebook last seen, the open
/// memos' documents (Collab.swift), and the events for the pages.
public final class LibraryHost: Sendable {
    public let configuration: ServeConfiguration
    let syncer: ServeSyncer?
    /// The events pages receive.
    public let events = PageEvents()
    /// Held for every page change and every `refresh`: one at a time (not for syncs, saves
    /// and looks: see the top of the file).
    private let gate = DispatchSemaphore(value: 1)
    /// Held by the housekeeping thread's engine work (a look, a save) and by ``stop()``, so the
    /// library is closed only between them.
    private let work = DispatchSemaphore(value: 1)
    /// Held by the sync thread for a whole sync, and by ``stop()``. Looks and saves go on while
    /// a sync waits on the store: a sync of a slow or unreachable store (tens of seconds) held
    /// them back, and typing was saved again only once it ended.
    private let syncing = DispatchSemaphore(value: 1)
    /// The library, open until ``stop()``, sharing its folder.
    private let replica: Replica
    private let state: Mutex<State>
    /// This run's identifier (128 random bits, hexadecimal), another at each start. Revisions
    /// are numbered from 0 in each run, so a revision means something only with its run: a page
    /// gets the run with the memo (`GET /api/memos/ID`, and the `status` event) and names it in
    /// every edit; an edit naming another run is refused (409) and the page reloads the memo
    /// (SERVE.md, "Between the page and the engine").
    public let runID: String

    struct State {
        var lastChange: UInt64 = 0
        /// Changes made so far (a save that began after the n-th holds the first n).
        var changeCount = 0
        /// When the oldest change not yet saved was made (0: everything is saved).
        var unsavedSince: UInt64 = 0
        var notebook: Notebook
        var version: VersionVector
        var documents: [MemoID: CollabDocument] = [:]
        var listCache: (version: VersionVector, trash: Bool, summaries: [MemoSummary])?
        var listStamp = 0
        var listAnnounced = 0
        var dirtySinceSync = false
        var lastSyncStart: UInt64 = 0
        var sync = SyncStatus()
        var stopped = false
    }

    /// The status line's facts.
    public struct SyncStatus: Sendable {
        /// "local" (no store), "synced", "syncing", "offline", "error".
        public var state = "local"
        public var error: String?
        public var lastSyncMilliseconds: UInt64 = 0
    }

    /// Opens the library at `configuration.libraryPath` (creating it when missing) and shares
    /// its folder with other processes (`Replica.shareFolder()`); it stays open until ``stop()``.
    public init(configuration: ServeConfiguration, syncer: ServeSyncer?) throws(ServeFailure) {
        self.configuration = configuration
        self.syncer = syncer
        let replica = try Self.open(configuration, waitMilliseconds: configuration.lockWaitMilliseconds)
        do throws(ReplicaError) {
            try replica.shareFolder()
        } catch {
            replica.closeNow()
            throw ServeFailure(status: 500, message: Self.message(error))
        }
        self.replica = replica
        var generator = SystemRandomNumberGenerator()
        runID = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(16) }.joined()
        let notebook = replica.notebook
        var initial = State(notebook: notebook, version: notebook.version)
        if syncer != nil { initial.sync.state = "syncing"; initial.dirtySinceSync = true }
        state = Mutex(initial)
        let thread = Thread { [self] in housekeeping() }
        thread.name = "memo serve: library"
        thread.start()
        if syncer != nil {
            let syncThread = Thread { [self] in syncLoop() }
            syncThread.name = "memo serve: sync"
            syncThread.start()
        }
        // The first search of a page answers as fast as later ones: the texts are folded for
        // search now, beside the server, into the cache the replica's notebook shares.
        let warm = Thread { notebook.prepareSearch() }
        warm.name = "memo serve: search keys"
        warm.start()
    }

    /// What opening the library found (``LibraryOpenReport/damage``: files damaged or kept
    /// aside), for the command that serves it to tell.
    public var openReport: LibraryOpenReport { replica.openReport }

    /// Stops watching and syncing, saves and closes the library.
    public func stop() {
        syncing.wait()
        work.wait()
        gate.wait()
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { Self.blocking { [replica] in _ = try? await replica.save(); await replica.close() } }
        gate.signal()
        work.signal()
        syncing.signal()
        events.close()
    }

    // MARK: Reading (the notebook last seen, a value)

    /// The notebook as last seen.
    public var notebook: Notebook { state.withLock { $0.notebook } }

    /// The sync status.
    public var syncStatus: SyncStatus { state.withLock { $0.sync } }

    /// The active memos (or the trash), newest first, as last seen: made once per version of
    /// the notebook (sorting 10,000 memos for every page of the list would be wasted).
    public func summaries(trash: Bool) -> [MemoSummary] {
        let (notebook, cached) = state.withLock { state in
            (state.notebook, state.listCache.flatMap { $0.version == state.version && $0.trash == trash ? $0.summaries : nil })
        }
        if let cached { return cached }
        let summaries = trash ? notebook.trash() : notebook.list()
        state.withLock { state in
            if state.version == notebook.version { state.listCache = (notebook.version, trash, summaries) }
        }
        return summaries
    }

    /// A memo's text and revision, opening its document for pages to edit.
    public func openDocument(_ id: MemoID) throws(ServeFailure) -> (text: String, revision: Int, memo: Memo) {
        try state.withLock { state throws(ServeFailure) in
            guard let memo = state.notebook.memo(id), memo.status != .purged else {
                throw ServeFailure(status: 404, message: ServeText.text("error.noSuchMemo"))
            }
            if let document = state.documents[id] {
                return (String(decoding: document.text, as: UTF16.self), document.revision, memo)
            }
            state.documents[id] = CollabDocument(text: Array(memo.text.utf16))
            return (memo.text, 0, memo)
        }
    }

    /// The changes to open memo `id` after revision `base` of run `run`
    /// (``CollabDocument/changes(since:)``), the revision they reach, and the memo (its status
    /// and times as the library has them). Refused (409, the page reloads the whole text):
    /// another run's revision, a memo not open in this run, a revision the history does not
    /// hold; 404 for a memo the library does not have.
    public func documentChanges(_ id: MemoID, since base: Int, run: String) throws(ServeFailure)
        -> (revision: Int, changes: [(revision: Int, operation: TextOperation, client: String)], memo: Memo)
    {
        let reload = ServeFailure(status: 409, message: ServeText.text("error.reload"), reload: true)
        guard run == runID else { throw reload }
        return try state.withLock { state throws(ServeFailure) in
            guard let memo = state.notebook.memo(id), memo.status != .purged else {
                throw ServeFailure(status: 404, message: ServeText.text("error.noSuchMemo"))
            }
            guard let document = state.documents[id], let changes = try? document.changes(since: base) else { throw reload }
            return (document.revision, changes, memo)
        }
    }

    // MARK: Changing

    /// Creates a memo holding `text`.
    public func create(text: String) throws(ServeFailure) -> MemoID {
        try change { replica throws(ReplicaError) in try replica.createMemo(text: text) }
    }

    /// Applies a page's operation, made on `base` of run `run` (``runID``), to memo `id`: returns
    /// the revision it made. Refused with nothing changed: another run's revision (409, the page
    /// reloads, `code` "staleRun"), a memo that does not exist (404), a revision this run does
    /// not have or an operation that does not fit its text (409, the page reloads).
    ///
    /// The operation is moved over every change since `base` (the documents first follow what
    /// merges brought), then applied to the replica only if nothing arrived meanwhile; when
    /// something did (a sync's merge, made outside the gate), the documents follow it and the
    /// operation is moved again.
    public func edit(_ id: MemoID, operation: TextOperation, base: Int, run: String, client: String) throws(ServeFailure) -> Int {
        guard run == runID else {
            // Made on a revision of an earlier run (revisions restart at 0 each run): its
            // positions name a text this run may never have had.
            throw ServeFailure(status: 409, message: ServeText.text("error.staleRun"), reload: true, code: "staleRun")
        }
        return try change { replica throws(ServeFailure) in
            guard let memo = replica.notebook.memo(id), memo.status != .purged else {
                throw ServeFailure(status: 404, message: ServeText.text("error.noSuchMemo"))
            }
            for _ in 0..<Self.editAttemptsMax {
                let notebook = replica.notebook
                refresh(notebook)
                let applied: TextOperation
                let document: CollabDocument
                do throws(CollabRefusal) {
                    (applied, document) = try state.withLock { state throws(CollabRefusal) in
                        guard var document = state.documents[id] else { throw .unknownRevision(base) }
                        let applied = try document.receive(operation, base: base, client: client)
                        return (applied, document)
                    }
                } catch {
                    throw ServeFailure(status: 409, message: ServeText.text("error.reload"), reload: true)
                }
                let replacements = applied.replacements.map { (range: $0.range, text: String(decoding: $0.text, as: UTF16.self)) }
                let done: Bool
                do throws(ReplicaError) {
                    done = try replica.edit(id, replacingUTF16: replacements, ifVersionIs: notebook.version)
                } catch {
                    // Refused by the engine (the memo went to the trash, an offset inside a
                    // surrogate pair): nothing is recorded or sent to any page, so no page ever
                    // holds it; the sender reloads.
                    throw ServeFailure(status: 409, message: error.localizedDescription, reload: true)
                }
                guard done else { continue }
                state.withLock { $0.documents[id] = document }
                events.post("update", Self.updateJSON(id, revision: document.revision, operation: applied, client: client))
                return document.revision
            }
            // Merges landed between every read and apply: the page sends it again.
            throw ServeFailure(status: 409, message: ServeText.text("error.reload"), reload: true)
        }
    }

    /// How often an edit is worked out again when merges keep landing under it.
    static let editAttemptsMax = 100

    /// Undoes (or redoes) this device's last edit of memo `id`.
    public func undo(_ id: MemoID, redo: Bool) throws(ServeFailure) {
        try change { replica throws(ReplicaError) in redo ? try replica.redo(id) : try replica.undo(id) }
    }

    /// Moves memo `id` to the trash, restores it or purges it.
    public func setStatus(_ id: MemoID, to action: String) throws(ServeFailure) {
        try change { replica throws(ReplicaError) in
            switch action {
            case "trash": try replica.moveToTrash(id)
            case "restore": try replica.restore(id)
            default: try replica.purge(id)
            }
        }
    }

    // MARK: History (issue 27)

    /// Memo `id`'s history as the library holds it now (`Replica.history(of:pauseMilliseconds:)`),
    /// and the replica ids that are this library's (its lineage: "this device").
    public func history(of id: MemoID) throws(ServeFailure) -> (history: MemoHistory, ownDevices: Set<ReplicaID>) {
        do throws(ReplicaError) {
            return (try replica.history(of: id), Set(replica.lineage + [replica.id]))
        } catch {
            throw Self.historyFailure(error)
        }
    }

    /// Makes memo `id`'s text what it was at its version named `name` (a short name), as a new
    /// edit of this library (`Replica.revert(_:to:)`): pages get it as a change, undo takes it
    /// back, it syncs like any edit.
    public func revert(_ id: MemoID, toVersionNamed name: String) throws(ServeFailure) {
        try change { replica throws(ServeFailure) in
            let history: MemoHistory
            do throws(ReplicaError) { history = try replica.history(of: id) } catch { throw Self.historyFailure(error) }
            guard let version = history.version(named: name) else {
                throw ServeFailure(status: 404, message: ServeText.text("history.noSuchVersion"), code: "noSuchVersion")
            }
            do throws(ReplicaError) { try replica.revert(id, to: version.cut) } catch { throw Self.historyFailure(error) }
        }
    }

    /// The page's failure for a history error: a version whose deleted text is no longer
    /// retained (410, "notRetained", with the scalars), a version not held (404), the others as
    /// edits' (409).
    static func historyFailure(_ error: ReplicaError) -> ServeFailure {
        switch error {
        case let .notebook(.history(_, .contentNotRetained(scalars))):
            ServeFailure(status: 410, message: message(error), code: "notRetained", count: scalars)
        case .notebook(.history(_, .versionNotHeld)):
            ServeFailure(status: 404, message: message(error), code: "noSuchVersion")
        case .notebook(.memoNotFound):
            ServeFailure(status: 404, message: ServeText.text("error.noSuchMemo"))
        default:
            ServeFailure(status: 409, message: message(error))
        }
    }

    /// Asks for a sync now (when the library has a store).
    public func syncSoon() {
        state.withLock { $0.dirtySinceSync = true; $0.lastChange = 0 }
    }

    /// Runs `body` on the replica (under the gate), then follows what changed.
    private func change<T, E: Error>(_ body: (Replica) throws(E) -> T) throws(ServeFailure) -> T {
        gate.wait()
        defer { gate.signal() }
        if state.withLock({ $0.stopped }) { throw ServeFailure(status: 503, message: ServeText.text("error.stopped")) }
        let result: T
        do throws(E) {
            result = try body(replica)
        } catch let error as ServeFailure {
            refresh(replica.notebook, evenIfUnchanged: true)
            throw error
        } catch {
            refresh(replica.notebook, evenIfUnchanged: true)
            throw ServeFailure(status: 409, message: (error as? ReplicaError).map(Self.message) ?? String(describing: error))
        }
        let now = Self.now()
        state.withLock { state in
            state.lastChange = now
            state.changeCount += 1
            state.dirtySinceSync = true
            if state.unsavedSince == 0 { state.unsavedSince = now }
        }
        refresh(replica.notebook)
        return result
    }

    private static func open(_ configuration: ServeConfiguration, waitMilliseconds: Int) throws(ServeFailure) -> Replica {
        let start = now()
        while true {
            do throws(ReplicaError) {
                return try Replica(libraryPath: configuration.libraryPath)
            } catch let error where isLocked(error) {
                guard milliseconds(from: start, to: now()) < UInt64(waitMilliseconds) else {
                    throw ServeFailure(status: 503, message: ServeText.text("error.libraryBusy"))
                }
                usleep(20_000)
            } catch {
                throw ServeFailure(status: 500, message: message(error))
            }
        }
    }

    private static func isLocked(_ error: ReplicaError) -> Bool {
        // Another replica of this process (a request's) is as busy as another process's.
        if case .disk(.locked) = error { return true }
        if case .disk(.alreadyOpen) = error { return true }
        return false
    }

    static func message(_ error: ReplicaError) -> String {
        error.localizedDescription
    }

    /// Follows `notebook`: every open document whose text differs gets the difference as a
    /// change (pages are told), and the list is marked changed when the notebook's version moved.
    ///
    /// A notebook of the version last followed changes no text (a text changes only with an
    /// operation), so nothing is compared then (an edit follows twice: before and after it),
    /// unless `evenIfUnchanged`: a failed change may have recorded in a document what the
    /// engine refused.
    private func refresh(_ notebook: Notebook, evenIfUnchanged: Bool = false) {
        let updates = state.withLock { state -> [(MemoID, Int, TextOperation)] in
            var updates: [(MemoID, Int, TextOperation)] = []
            if notebook.version == state.version && !evenIfUnchanged {
                state.notebook = notebook
                return updates
            }
            if notebook.version != state.version { state.listStamp += 1 }
            state.version = notebook.version
            state.notebook = notebook
            for (id, document) in state.documents {
                var document = document
                let text = notebook.memo(id).map { Array($0.text.utf16) } ?? []
                guard text != document.text else { continue }
                let operation = TextOperation.difference(from: document.text, to: text)
                try? document.record(operation)
                state.documents[id] = document
                updates.append((id, document.revision, operation))
            }
            return updates
        }
        for (id, revision, operation) in updates {
            events.post("update", Self.updateJSON(id, revision: revision, operation: operation, client: ""))
        }
    }

    static func updateJSON(_ id: MemoID, revision: Int, operation: TextOperation, client: String) -> String {
        JSON.encode(["memo": id.description, "revision": revision, "operation": JSON.operation(operation), "client": client])
    }

    // MARK: Housekeeping (its own thread)

    private func housekeeping() {
        while !state.withLock({ $0.stopped }) {
            usleep(UInt32(configuration.pollMilliseconds) * 1000)
            lookAndSave()
            announceList()
        }
    }

    /// Syncs when one is due, on a thread of its own (looks and saves go on meanwhile: the
    /// replica takes a save, a look and a sync's merge at once, as it takes an app's).
    private func syncLoop() {
        while !state.withLock({ $0.stopped }) {
            usleep(UInt32(configuration.pollMilliseconds) * 1000)
            syncIfDue(Self.now())
        }
    }

    /// Merges what other commands saved (pages are told), and saves when a save is due; both
    /// wait for the next round while another command holds the library's lock. Neither holds
    /// the gate (page edits go on meanwhile); the documents follow under it afterwards.
    private func lookAndSave() {
        work.wait()
        defer { work.signal() }
        guard !state.withLock({ $0.stopped }) else { return }
        do throws(ReplicaError) {
            guard try replica.refreshFromSharedFolder(waitingMilliseconds: 0) else { return }
        } catch {
            setStatusError(Self.message(error))
            return
        }
        // What another command saved goes to the store with the next sync.
        if follow() { state.withLock { $0.dirtySinceSync = true } }
        let now = Self.now()
        let (due, changesBefore) = state.withLock { state -> (Bool, Int) in
            guard state.unsavedSince > 0 else { return (false, state.changeCount) }
            return (Self.saveIsDue(lastChange: state.lastChange, unsavedSince: state.unsavedSince, now: now, configuration), state.changeCount)
        }
        guard due else { return }
        do throws(ReplicaError) {
            try replica.saveNow()
        } catch {
            // The edits stay in memory; the next round tries again.
            setStatusError(Self.message(error))
            return
        }
        // The save holds every change counted before it began; one made while it ran may not
        // be in it: unsaved since the save began.
        state.withLock { $0.unsavedSince = $0.changeCount == changesBefore ? 0 : now }
        // A save merges too (another command may have saved since the look).
        _ = follow()
    }

    /// The documents follow the replica's notebook (pages are told), under the gate; true when
    /// the notebook's version moved.
    private func follow() -> Bool {
        gate.wait()
        defer { gate.signal() }
        let before = state.withLock { $0.version }
        refresh(replica.notebook)
        return state.withLock { $0.version } != before
    }

    /// Tells pages the list changed, at most once a round.
    private func announceList() {
        let stamp = state.withLock { state -> Int? in
            guard state.listStamp != state.listAnnounced else { return nil }
            state.listAnnounced = state.listStamp
            return state.listStamp
        }
        if let stamp { events.post("list", JSON.encode(["stamp": stamp])) }
    }

    private func syncIfDue(_ now: UInt64) {
        let due = state.withLock { state -> Bool in
            let quiet = state.dirtySinceSync && Self.milliseconds(from: state.lastChange, to: now) >= UInt64(configuration.syncQuietMilliseconds)
            let interval = configuration.syncIntervalMilliseconds.map { Self.milliseconds(from: state.lastSyncStart, to: now) >= UInt64($0) } ?? false
            return quiet || interval
        }
        if due { runSync() }
    }

    /// Syncs with the store, holding the library's sync lock (not the gate: page edits go on
    /// while it merges, see the top of the file). While another process syncs the library
    /// (`memo sync` holds its sync lock), nothing is done: the sync stays due and the next round
    /// tries again.
    private func runSync() {
        guard let syncer else { return }
        syncing.wait()
        defer { syncing.signal() }
        guard !state.withLock({ $0.stopped }) else { return }
        let syncLock: LibrarySyncLock
        do throws(DiskError) {
            syncLock = try LibrarySyncLock(path: configuration.libraryPath)
        } catch .locked {
            return
        } catch {
            setStatusError(Self.message(.disk(error)))
            return
        }
        defer { syncLock.release() }
        state.withLock { $0.sync.state = "syncing"; $0.lastSyncStart = Self.now(); $0.dirtySinceSync = false }
        postStatus()
        let outcome = Self.blocking { [replica] in await syncer(replica) }
        state.withLock { state in
            state.sync.state = outcome.complete ? "synced" : outcome.reachedStore ? "error" : "offline"
            state.sync.error = outcome.error
            if outcome.complete { state.sync.lastSyncMilliseconds = replica.lastSyncMilliseconds }
        }
        _ = follow()
        postStatus()
    }

    private func setStatusError(_ message: String) {
        state.withLock { $0.sync.state = "error"; $0.sync.error = message }
        postStatus()
    }

    private func postStatus() {
        events.post("status", statusJSON)
    }

    /// The damage the open found (records lost, files kept aside) and the operations held back
    /// now, or null when the open found none (SERVE.md, "Damage").
    private var damageJSON: Any {
        let damaged = replica.openReport.damage.filter(\.isDamaged)
        guard !damaged.isEmpty else { return NSNull() }
        return [
            "recordsLost": damaged.reduce(0) { $0 + $1.recordsLost },
            "operationsHeldBack": state.withLock { $0.notebook.pendingOperationCount },
            "keptAs": damaged.compactMap(\.keptAs),
        ] as [String: Any]
    }

    /// The text of the operations held back, memo by memo (`Notebook.heldBackTexts`), for the
    /// page's damage notice: `{memos: [{id, title (null: not in this library), operations, text}]}`.
    public var heldBackJSON: [String: Any] {
        let notebook = self.notebook
        return [
            "memos": notebook.heldBackTexts.map { item -> [String: Any] in
                [
                    "id": item.memo.description, "title": notebook.memo(item.memo).map { $0.title as Any } ?? NSNull(),
                    "operations": item.operationCount, "text": item.text,
                ]
            }
        ]
    }

    /// Puts the text of the operations held back into new memos (`Replica.restoreHeldBackTexts`,
    /// as `memo recover --restore` does): for a memo that is here, a first line in `language`
    /// (a code of ``ServeText/catalogs``; English for any other) naming its title. Once: a
    /// text an active memo already holds is not created again. The operations still wait.
    /// `{restored: [{heldBackMemo, memo, created}]}`.
    public func restoreHeldBackTexts(language: String) throws(ServeFailure) -> [String: Any] {
        let catalog = ServeText.catalogs[language] ?? ServeText.english
        let template = catalog["damage.restoredHeading"] ?? ServeText.text("damage.restoredHeading")
        let untitled = catalog["list.untitled"] ?? ServeText.text("list.untitled")
        let restored = try change { replica throws(ReplicaError) in
            try replica.restoreHeldBackTexts { title in
                template.replacingOccurrences(of: "{title}", with: title.isEmpty ? untitled : title)
            }
        }
        return [
            "restored": restored.map { item -> [String: Any] in
                ["heldBackMemo": item.heldBackMemo.description, "memo": item.memo.description, "created": item.wasCreated]
            }
        ]
    }

    /// The status event's JSON (sent to each new event stream first), with ``runID``: a page
    /// whose event stream reconnects to a later run reloads its memo.
    public var statusJSON: String {
        let status = syncStatus
        let error: Any = status.error ?? NSNull()
        return JSON.encode(["state": status.state, "error": error, "lastSync": status.lastSyncMilliseconds, "damage": damageJSON, "run": runID])
    }

    // MARK: Helpers

    /// Milliseconds of the monotonic clock.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

    /// The milliseconds from `start` to `end`, 0 when `start` is later: another thread may
    /// stamp a change after this one read the clock (an unsigned subtraction trapped there).
    static func milliseconds(from start: UInt64, to end: UInt64) -> UInt64 { end >= start ? end - start : 0 }

    /// Whether a look at `now` (one every `pollMilliseconds`) saves: once the last change is
    /// `saveQuietMilliseconds` old, or when waiting for the next look would leave a change older
    /// than `maxUnsavedMilliseconds` unsaved, so that typing is saved at least that often (a
    /// save due at 1,000 ms and found by the next look came every 1.2 s).
    static func saveIsDue(lastChange: UInt64, unsavedSince: UInt64, now: UInt64, _ configuration: ServeConfiguration) -> Bool {
        milliseconds(from: lastChange, to: now) >= UInt64(configuration.saveQuietMilliseconds)
            || milliseconds(from: unsavedSince, to: now) + UInt64(configuration.pollMilliseconds) > UInt64(configuration.maxUnsavedMilliseconds)
    }

    /// Runs `body` to its end, waiting on the calling thread. The work runs on the host's own
    /// executor (a dispatch queue), never on the cooperative pool: a caller blocking a pool
    /// thread (a test, the `memo` command's task) cannot starve it.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: EngineExecutor.shared) {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}

/// The executor the host's asynchronous engine calls (save, close, sync) run on.
final class EngineExecutor: TaskExecutor {
    static let shared = EngineExecutor()
    private let queue = DispatchQueue(label: "memo serve: engine", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// The events every open page receives (server-sent events), numbered; the newest are kept so
/// a page that reconnects (`Last-Event-ID`) misses none.
public final class PageEvents: Sendable {
    private let condition = NSCondition()
    private let state = Mutex(State())
    /// How many events are kept for reconnecting pages.
    static let kept = 4_096

    private struct State {
        var events: [(id: Int, name: String, data: String)] = []
        var next = 1
        var closed = false
    }

    /// Adds an event.
    public func post(_ name: String, _ data: String) {
        state.withLock { state in
            state.events.append((state.next, name, data))
            state.next += 1
            if state.events.count > Self.kept { state.events.removeFirst(state.events.count - Self.kept) }
        }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Ends every stream.
    public func close() {
        state.withLock { $0.closed = true }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// The id the next event will have.
    public var nextID: Int { state.withLock { $0.next } }

    /// The events after `last`, waiting up to `timeoutMilliseconds` for one; nil when closed,
    /// or when events after `last` were dropped (the page reloads).
    func events(after last: Int, timeoutMilliseconds: Int) -> [(id: Int, name: String, data: String)]? {
        let deadline = Date(timeIntervalSinceNow: Double(timeoutMilliseconds) / 1000)
        while true {
            let (found, closed, lost) = state.withLock { state in
                (state.events.filter { $0.id > last }, state.closed, (state.events.first.map { $0.id > last + 1 } ?? false))
            }
            if closed { return nil }
            if lost { return nil }
            if !found.isEmpty { return found }
            condition.lock()
            let more = state.withLock { $0.events.last.map { $0.id > last } ?? false }
            if !more && !condition.wait(until: deadline) {
                condition.unlock()
                return []
            }
            condition.unlock()
        }
    }
}

/// JSON through Foundation.
enum JSON {
    static func encode(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [])
    }

    /// An operation as ot.js writes it: a number n > 0 retains n, n < 0 deletes -n, a string
    /// inserts.
    static func operation(_ operation: TextOperation) -> [Any] {
        operation.components.map { component -> Any in
            switch component {
            case let .retain(count): count
            case let .delete(count): -count
            case let .insert(text): String(decoding: text, as: UTF16.self)
            }
        }
    }

    /// An element of an operation as a page sends it (ot.js's form): a whole number (n > 0 keeps
    /// n units, n < 0 removes -n) or a text to insert. Decoded strictly (`JSONDecoder`): `true`,
    /// `null`, an object, a fraction or a number beyond `Int` is no element.
    enum OperationElement: Decodable, Sendable {
        case count(Int)
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let count = try? container.decode(Int.self) {
                self = .count(count)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    /// The most elements an operation may have.
    static let operationElementsMax = 10_000

    /// The operation `elements` describe; nil when malformed: more than
    /// ``operationElementsMax`` elements, a count of 0, or a count or a length (of the text it
    /// applies to, or of the text it makes) beyond ``TextOperation/lengthUTF16Max``. Every sum is
    /// checked against that bound before it is made, so no count overflows (a retain of
    /// `Int.max`, a delete of `Int.min` trapped here and took the server down with the edits it
    /// had not saved yet).
    static func operation(from elements: [OperationElement]) -> TextOperation? {
        guard elements.count <= operationElementsMax else { return nil }
        let bound = TextOperation.lengthUTF16Max
        var baseLengthUTF16 = 0, targetLengthUTF16 = 0
        var operation = TextOperation()
        for element in elements {
            switch element {
            case let .text(text):
                let units = Array(text.utf16)
                guard units.count <= bound - targetLengthUTF16 else { return nil }
                targetLengthUTF16 += units.count
                operation.insert(units)
            case let .count(number):
                guard number != 0, number.magnitude <= UInt(bound) else { return nil }
                let count = Int(number.magnitude)
                guard count <= bound - baseLengthUTF16 else { return nil }
                baseLengthUTF16 += count
                if number > 0 {
                    guard count <= bound - targetLengthUTF16 else { return nil }
                    targetLengthUTF16 += count
                    operation.retain(count)
                } else {
                    operation.delete(count)
                }
            }
        }
        return operation
    }
}
