import Foundation
import Observation
import Synchronization
import MemoCRDT
import MemoNotes

/// What a SwiftUI memo list and editor bind to: one replica's memo list, trash, selected memo's
/// text and sync status, kept current from the replica's events.
///
/// ```swift
/// @State private var model = ReplicaModel(replica: replica)
///
/// List(model.memos) { memo in Text(memo.title) }
/// Button("Sync") { Task { await model.sync(with: store) } }
/// ```
///
/// The model reads one ``Replica/events(bufferingNewest:)`` stream in a task it owns, off the
/// main actor (ended by ``stop()``, or when the model goes away), and refreshes only what the
/// events name: the list or the trash showing the memo or about to, and the text when it is the
/// selected memo. The events that arrive before the main actor gets to them (a sync applies many
/// at once) are taken in one refresh. Changes made by other code on the same replica (a
/// background task, another window's model) show up the same way.
///
/// Cost on the main actor:
/// - **Cheap**: the edit methods (the replica's synchronous, in-memory edits, then a read of
///   the selected memo's text when they changed it: O(its length)) and ``select(_:)``.
/// - **A refresh**: one `Notebook.list()` or `Notebook.trash()` (O(m log m) for m memos, under
///   a millisecond for 10,000) when an event changed that list, and the unsaved and unpublished
///   counts (O(replica ids)).
/// - **On demand**: ``search(_:options:)`` reads every memo's text (several milliseconds for
///   10,000 memos).
/// - **Async, off the main actor**: ``save()`` and ``sync(with:)`` await the replica's
///   `@concurrent` calls, so the disk and the store are never used on the main actor.
@MainActor
@Observable
public final class ReplicaModel {
    /// Whether a sync started through the model is running, and how far it has come.
    public enum SyncStatus: Sendable, Equatable {
        /// No sync is running.
        case idle
        /// A sync is running: its progress, nil until its first store operation is done.
        case syncing(SyncProgress?)
    }

    /// A failure to show: the last save or sync that went wrong.
    public enum Failure: Error, Sendable, CustomStringConvertible, LocalizedError {
        /// ``ReplicaModel/save()`` threw (the disk failed, or the library is closed). The edits
        /// stay in memory; the next save or sync retries.
        case save(ReplicaError)
        /// ``ReplicaModel/sync(with:)`` threw (the local disk failed, or the library is closed).
        case sync(ReplicaError)
        /// A sync ended without doing everything: the store failed (the report says what). The
        /// next sync tries again.
        case incompleteSync(SyncReport)

        /// One line for an alert or a status bar.
        public var description: String {
            switch self {
            case let .save(error): "Could not save: \(error)"
            case let .sync(error): "Could not sync: \(error)"
            case let .incompleteSync(report):
                report.errors.isEmpty
                    ? "The sync could not list the store"
                    : "The sync did not finish: " + report.errors.map { "\($0)" }.joined(separator: "; ")
            }
        }

        /// What went wrong, in ``MemoLanguage/current`` (the catalogs' texts), as one sentence:
        /// what failed ("Could not save"), then the innermost cause ("the disk is full"). A sync
        /// that met one store error says that error's sentence; one that met several, the first's
        /// cause. Memo ids and blob keys are not shown (``description`` has them, for logs).
        public var errorDescription: String? {
            switch self {
            case let .save(error):
                error.localizedDetail.map { errorSentence("error.ReplicaModel.save.what", detail: $0) } ?? error.errorDescription
            case let .sync(error):
                error.localizedDetail.map { errorSentence("error.ReplicaModel.sync.what", detail: $0) } ?? error.errorDescription
            case let .incompleteSync(report):
                if report.errors.isEmpty {
                    MemoStrings.text("error.ReplicaModel.notListed.description")
                } else if report.errors.count == 1 {
                    report.errors[0].errorDescription
                } else {
                    errorSentence("error.ReplicaModel.unfinished.what", detail: report.errors[0].localizedDetail)
                }
            }
        }

        /// What the user can do, in ``MemoLanguage/current``: the underlying error's suggestion
        /// (the disk's, the store's), else to sync again later.
        public var recoverySuggestion: String? {
            switch self {
            case let .save(error), let .sync(error):
                error.recoverySuggestion ?? MemoStrings.text("error.SyncProblem.suggestion")
            case let .incompleteSync(report):
                report.errors.first?.recoverySuggestion ?? MemoStrings.text("error.SyncProblem.suggestion")
            }
        }
    }

    /// The replica the model shows and edits.
    public let replica: Replica

    /// The active memos, newest modified first (`Notebook.list()`).
    public private(set) var memos: [MemoSummary] = []
    /// The memos in the trash, newest modified first (`Notebook.trash()`).
    public private(set) var trash: [MemoSummary] = []
    /// The memo the editor shows, if any (see ``select(_:)``).
    public private(set) var selection: MemoID?
    /// The selected memo's text: nil when nothing is selected or the memo was purged.
    public private(set) var selectedText: String?
    /// Whether a sync started through the model is running, with its progress.
    public private(set) var syncStatus: SyncStatus = .idle
    /// The last failure of a save or sync; a complete sync clears it, a successful save clears a
    /// save's failure. A cancelled sync is not a failure.
    public private(set) var lastError: Failure?
    /// When the library last completed a sync (``Replica/lastSyncMilliseconds``): wall-clock
    /// milliseconds since 1970, 0 before the first. For a "last synced" line.
    public private(set) var lastSyncMilliseconds: UInt64 = 0
    /// What the last sync started through the model did.
    public private(set) var lastReport: SyncReport?
    /// Whether the selected memo has an edit of this device to undo (`Notebook.canUndo(_:)`):
    /// for an Undo button or menu item. False when nothing is selected, and while the memo is
    /// in the trash (its edits come back with it when it is restored).
    public private(set) var canUndo = false
    /// Whether the selected memo has an undone edit to redo (`Notebook.canRedo(_:)`). False
    /// when nothing is selected, and while the memo is in the trash.
    public private(set) var canRedo = false
    /// Whether ``undoTrash()`` has a move to the trash or restore of this device to undo
    /// (`Notebook.canUndoTrash`): for the Undo command while the memo list has the focus.
    public private(set) var canUndoTrash = false
    /// Whether ``redoTrash()`` has an undone move to the trash or restore to redo.
    public private(set) var canRedoTrash = false
    /// Operations a crash would lose now (``Replica/unsavedOperationCount``): for an "unsaved"
    /// badge. Read again at every change the model sees (its own edits and the replica's
    /// events) and after its ``save()`` and ``sync(with:)``; after saving through the replica
    /// directly, call ``reload()``.
    public private(set) var unsavedOperationCount = 0
    /// Operations of this library not yet known to be in the store
    /// (``Replica/unpublishedOperationCount``): for a "not synced yet" badge. Read again as
    /// ``unsavedOperationCount`` is.
    public private(set) var unpublishedOperationCount = 0

    /// The task reading the replica's events; nil once it ended.
    @ObservationIgnored private var eventTask: Task<Void, Never>?
    /// What the events named since the last refresh.
    @ObservationIgnored private let inbox = Inbox()
    /// Counts the syncs started here, so that a late progress report of one is ignored.
    @ObservationIgnored private var syncNumber = 0

    /// What events named since the last refresh: filled by the task reading the stream, emptied
    /// by the refresh on the main actor.
    private final class Inbox: Sendable {
        struct Pending {
            /// Refresh the list, the trash (a memo moved between them or left).
            var list = false
            var trash = false
            /// Memos added or changed: the list or trash showing them, or about to, is refreshed.
            var touched: Set<MemoID> = []
        }

        private let state = Mutex<(pending: Pending, refreshScheduled: Bool)>((Pending(), false))

        /// Notes what `event` changed; true when no refresh is scheduled yet (the caller
        /// schedules one).
        func note(_ event: NotebookEvent) -> Bool {
            state.withLock { state in
                switch event {
                case .added, .changed:
                    break
                case .trashed, .restored, .purged:
                    state.pending.list = true
                    state.pending.trash = true
                }
                state.pending.touched.insert(event.memo)
                defer { state.refreshScheduled = true }
                return !state.refreshScheduled
            }
        }

        /// What was noted, forgotten; a later event schedules a new refresh.
        func take() -> Pending {
            state.withLock { state in
                defer { state = (Pending(), false) }
                return state.pending
            }
        }
    }

    /// A model of `replica`, showing it as it is now and following its events from now on.
    public init(replica: Replica) {
        self.replica = replica
        // Subscribed before reading, so that no change falls between the read and the stream.
        let events = replica.events()
        reload()
        eventTask = Task.detached { [weak self, inbox] in
            for await event in events where inbox.note(event) {
                Task { @MainActor in self?.refreshPending() }
            }
            // The replica closed, or the task was cancelled.
            await self?.eventsEnded()
        }
    }

    deinit {
        eventTask?.cancel()
    }

    /// Stops following the replica's events (its stream ends and is removed). The model keeps
    /// what it shows; its methods still work, and ``reload()`` reads everything again.
    public func stop() {
        eventTask?.cancel()
        eventTask = nil
    }

    /// Whether the model follows the replica's events (until ``stop()``, or the replica closes).
    public var isFollowingEvents: Bool { eventTask != nil }

    private func eventsEnded() {
        eventTask = nil
    }

    /// Reads the list, the trash, the selected text (and whether it can be undone or redone),
    /// the unsaved and unpublished counts and the last sync time again. O(m log m) for m memos.
    public func reload() {
        refresh(list: true, trash: true, text: true)
        lastSyncMilliseconds = replica.lastSyncMilliseconds
    }

    /// Selects the memo the editor shows (nil: none), and reads its text. O(its length).
    public func select(_ id: MemoID?) {
        selection = id
        refresh(list: false, trash: false, text: true)
    }

    // MARK: Editing (synchronous, in memory)

    /// Creates a memo holding `text` (``Replica/createMemo(text:)``); the list shows it at once.
    @discardableResult
    public func createMemo(text: String = "") throws(ReplicaError) -> MemoID {
        let id = try replica.createMemo(text: text)
        refresh(list: true, trash: false, text: id == selection)
        return id
    }

    /// Puts the text of operations held back after damage into new memos
    /// (``Replica/restoreHeldBackTexts(headingForExistingMemo:)``); the list shows them at once.
    @discardableResult
    public func restoreHeldBackTexts(headingForExistingMemo: (_ title: String) -> String) throws(ReplicaError) -> [RestoredHeldBackText] {
        let restored = try replica.restoreHeldBackTexts(headingForExistingMemo: headingForExistingMemo)
        refresh(list: true, trash: false, text: false)
        return restored
    }

    /// Replaces the UTF-16 range `range` of a memo's text with `replacement` (a text view's
    /// `NSRange` edit, ``Replica/edit(_:replacingUTF16:with:)``). The selected text changes at
    /// once; the list follows with the edit's event.
    public func edit(_ id: MemoID, replacingUTF16 range: Range<Int>, with replacement: String) throws(ReplicaError) {
        try replica.edit(id, replacingUTF16: range, with: replacement)
        if id == selection { refresh(list: false, trash: false, text: true) } else { refreshCounts() }
    }

    /// Sets a memo's whole text (``Replica/setText(_:to:)``), as ``edit(_:replacingUTF16:with:)``.
    public func setText(_ id: MemoID, to text: String) throws(ReplicaError) {
        try replica.setText(id, to: text)
        if id == selection { refresh(list: false, trash: false, text: true) } else { refreshCounts() }
    }

    /// Undoes this replica's last edit of a memo (``Replica/undo(_:)``).
    public func undo(_ id: MemoID) throws(ReplicaError) {
        try replica.undo(id)
        refresh(list: true, trash: true, text: id == selection)
    }

    /// Redoes the last undone edit of a memo (``Replica/redo(_:)``).
    public func redo(_ id: MemoID) throws(ReplicaError) {
        try replica.redo(id)
        refresh(list: true, trash: true, text: id == selection)
    }

    /// Ends the current undo step (``Replica/endUndoGrouping()``): the next edit starts a new
    /// one even within the 2 s typing window. Call it when the user moves the caret or the
    /// selection.
    public func endUndoGrouping() {
        replica.endUndoGrouping()
    }

    /// Moves a memo to the trash (``Replica/moveToTrash(_:)``); the list and the trash show it
    /// at once.
    public func moveToTrash(_ id: MemoID) throws(ReplicaError) {
        try replica.moveToTrash(id)
        refresh(list: true, trash: true, text: id == selection)
    }

    /// Restores a memo from the trash (``Replica/restore(_:)``).
    public func restore(_ id: MemoID) throws(ReplicaError) {
        try replica.restore(id)
        refresh(list: true, trash: true, text: id == selection)
    }

    /// Undoes this device's latest move to the trash or restore (``Replica/undoTrash()``): the
    /// list and the trash show it at once. Returns the memo, or nil when there was nothing to
    /// undo.
    @discardableResult
    public func undoTrash() throws(ReplicaError) -> MemoID? {
        let id = try replica.undoTrash()
        refresh(list: true, trash: true, text: id != nil && id == selection)
        return id
    }

    /// Redoes the move to the trash or restore last undone (``Replica/redoTrash()``).
    @discardableResult
    public func redoTrash() throws(ReplicaError) -> MemoID? {
        let id = try replica.redoTrash()
        refresh(list: true, trash: true, text: id != nil && id == selection)
        return id
    }

    /// Deletes a memo in the trash for good (``Replica/purge(_:)``, which refuses an active
    /// memo: move it to the trash first); the trash stops showing it at once, and the selected
    /// text becomes nil when it was the selected memo. The next save scrubs its text from the
    /// library files.
    ///
    /// - Throws: as ``Replica/purge(_:)``.
    public func purge(_ id: MemoID) throws(ReplicaError) {
        try replica.purge(id)
        refresh(list: true, trash: true, text: id == selection)
    }

    // MARK: Searching

    /// The active memos whose title or body contains `query` (`Notebook.search(_:options:)`:
    /// ignoring case, accents and normalization by default), newest modified first; empty for
    /// an empty query. It reads the text of every memo (several milliseconds for 10,000 memos):
    /// run it when the query or ``memos`` changes, not on every redraw.
    public func search(_ query: String, options: SearchOptions = SearchOptions()) -> [MemoSummary] {
        replica.notebook.search(query, options: options)
    }

    // MARK: Saving and syncing (async, off the main actor)

    /// Makes every edit durable (``Replica/save()``, off the main actor). A failure is in
    /// ``lastError``.
    ///
    /// - Returns: whether it saved.
    @discardableResult
    public func save() async -> Bool {
        defer { refreshCounts() }
        do {
            try await replica.save()
            if case .save = lastError { lastError = nil }
            return true
        } catch {
            lastError = .save(error)
            return false
        }
    }

    /// Syncs with `store` (``Replica/sync(with:progress:)``, off the main actor), showing its
    /// progress in ``syncStatus``. Cancelling the calling task stops the sync at a safe point.
    /// Afterwards ``lastReport`` and ``lastSyncMilliseconds`` are updated, a failure is in
    /// ``lastError``, and everything is read again (a stream drops events it cannot hold).
    ///
    /// - Returns: the sync's report; nil when it threw (see ``lastError``) or when another sync
    ///   of the replica was running (then nothing changes).
    @discardableResult
    public func sync(with store: any BlobStore) async -> SyncReport? {
        guard syncStatus == .idle else { return nil }
        syncNumber += 1
        let number = syncNumber
        syncStatus = .syncing(nil)
        defer { syncStatus = .idle }
        let report: SyncReport
        do {
            report = try await replica.sync(with: store) { progress in
                Task { @MainActor [weak self] in self?.show(progress, ofSync: number) }
            }
        } catch .syncInProgress {
            return nil
        } catch {
            lastError = .sync(error)
            refreshCounts()
            return nil
        }
        lastReport = report
        if report.isComplete {
            lastError = nil
        } else if !report.cancelled {
            lastError = .incompleteSync(report)
        }
        reload()
        return report
    }

    /// Shows a sync's progress, unless that sync is over or a later report was shown already.
    private func show(_ progress: SyncProgress, ofSync number: Int) {
        guard number == syncNumber, case let .syncing(shown) = syncStatus, (shown?.blobsDone ?? -1) < progress.blobsDone else { return }
        syncStatus = .syncing(progress)
    }

    // MARK: Refreshing

    /// Refreshes what the events since the last refresh changed.
    private func refreshPending() {
        let taken = inbox.take()
        var list = taken.list, trash = taken.trash
        if !(list && trash) && !taken.touched.isEmpty {
            let notebook = replica.notebook
            for id in taken.touched where !(list && trash) {
                // Where the memo is now, and where it is shown (it may have just moved).
                switch notebook.status(of: id) {
                case .active?:
                    list = true
                    trash = trash || self.trash.contains { $0.id == id }
                case .trashed?:
                    trash = true
                    list = list || memos.contains { $0.id == id }
                default:
                    list = true
                    trash = true
                }
            }
        }
        refresh(list: list, trash: trash, text: selection.map(taken.touched.contains) ?? false)
    }

    /// Reads the parts asked for from the replica; assigns only what differs (no needless
    /// observation callbacks).
    private func refresh(list: Bool, trash: Bool, text: Bool) {
        guard list || trash || text else { return }
        refreshCounts()
        let notebook = replica.notebook
        if list {
            let memos = notebook.list()
            if memos != self.memos { self.memos = memos }
        }
        if trash {
            let trashed = notebook.trash()
            if trashed != self.trash { self.trash = trashed }
        }
        if list || trash {
            let canUndoTrash = notebook.canUndoTrash
            if canUndoTrash != self.canUndoTrash { self.canUndoTrash = canUndoTrash }
            let canRedoTrash = notebook.canRedoTrash
            if canRedoTrash != self.canRedoTrash { self.canRedoTrash = canRedoTrash }
        }
        if text {
            let selectedText = selection.flatMap { notebook.memo($0)?.text }
            if selectedText != self.selectedText { self.selectedText = selectedText }
            // A memo in the trash is not edited, so neither undone nor redone until restored.
            let editable = selection.map { notebook.status(of: $0) == .active } ?? false
            let canUndo = editable && selection.map(notebook.canUndo) ?? false
            if canUndo != self.canUndo { self.canUndo = canUndo }
            let canRedo = editable && selection.map(notebook.canRedo) ?? false
            if canRedo != self.canRedo { self.canRedo = canRedo }
        }
    }

    /// Reads the unsaved and unpublished counts again; assigns only what differs.
    private func refreshCounts() {
        let unsaved = replica.unsavedOperationCount
        if unsaved != unsavedOperationCount { unsavedOperationCount = unsaved }
        let unpublished = replica.unpublishedOperationCount
        if unpublished != unpublishedOperationCount { unpublishedOperationCount = unpublished }
    }
}
