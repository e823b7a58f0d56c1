import Foundation
import MemoCRDT
import Observation
import Synchronization
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Set when an observed property changes (observation callbacks may come from any thread).
private final class Fired: Sendable {
    private let flag = Mutex(false)
    var value: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}

/// Tracks what `read` reads of the model; the result is set at its first change.
@MainActor
private func observe(_ read: @escaping @MainActor () -> Void) -> Fired {
    let fired = Fired()
    withObservationTracking { read() } onChange: { fired.set() }
    return fired
}

/// Issue 14, item 7: the `@Observable` model a SwiftUI list and editor bind to.
@MainActor
@Suite struct ReplicaModelTests {
    private let environment = TestEnvironment(seed: 14)

    private func makeReplica(_ disk: MemoryDisk = MemoryDisk()) throws -> Replica {
        try Replica(disk: disk, environment: environment.environment)
    }

    /// The model starts from the replica as it is; the list changes (and observers hear of it)
    /// for the model's own edits at once, and for edits made on the replica elsewhere through
    /// its events; newest modified first, as `Notebook.list()`.
    @Test(.timeLimit(.minutes(1))) func theListFollowsEdits() async throws {
        let replica = try makeReplica()
        let older = try replica.createMemo(text: "older")
        environment.advance(milliseconds: 10)
        let newer = try replica.createMemo(text: "newer")
        let model = ReplicaModel(replica: replica)
        #expect(model.memos.map(\.id) == [newer, older])
        #expect(model.trash.isEmpty && model.selection == nil && model.selectedText == nil)
        #expect(model.syncStatus == .idle && model.lastError == nil && model.lastSyncMilliseconds == 0)

        // Through the model: at once.
        var fired = observe { _ = model.memos }
        environment.advance(milliseconds: 10)
        let created = try model.createMemo(text: "created")
        #expect(fired.value)
        #expect(model.memos.map(\.id) == [created, newer, older])

        // On the replica, from elsewhere: through the events.
        fired = observe { _ = model.memos }
        environment.advance(milliseconds: 10)
        try replica.edit(older, replacingUTF16: 5..<5, with: "!")
        await waitUntil("the list changed") { fired.value }
        #expect(model.memos.map(\.id) == [older, created, newer])
        #expect(model.memos == replica.notebook.list())

        // Trash and restore move it between the lists.
        let trashFired = observe { _ = model.trash }
        try model.moveToTrash(newer)
        #expect(trashFired.value)
        #expect(model.trash.map(\.id) == [newer] && !model.memos.contains { $0.id == newer })
        try model.restore(newer)
        #expect(model.trash.isEmpty && model.memos.contains { $0.id == newer })
        try replica.moveToTrash(created)
        await waitUntil("the model shows the replica's lists") {
            model.memos == replica.notebook.list() && model.trash == replica.notebook.trash()
        }
        #expect(model.trash.map(\.id) == [created] && !model.memos.contains { $0.id == created })
    }

    /// The selected memo's text changes (and observers hear of it) for the model's edits at
    /// once and for the replica's through events; an edit of another memo leaves it alone.
    /// Issue 29: purge and search through the model. Purging a trashed memo takes it out of the
    /// trash (and out of the selection's text) at once; an active memo is refused, as by the
    /// replica, and stays listed. Search gives what the notebook's gives.
    @Test(.timeLimit(.minutes(1))) func purgeAndSearch() async throws {
        let replica = try makeReplica()
        let groceries = try replica.createMemo(text: "Groceries\nmilk")
        environment.advance(milliseconds: 10)
        let garden = try replica.createMemo(text: "Garden\nbuy GROUT and milk")
        let model = ReplicaModel(replica: replica)
        #expect(model.search("milk").map(\.id) == [garden, groceries])
        #expect(model.search("grout").map(\.id) == [garden])
        #expect(model.search("MILK").map(\.id) == replica.notebook.search("MILK").map(\.id))
        #expect(model.search("").isEmpty)

        try model.moveToTrash(groceries)
        model.select(groceries)
        #expect(model.selectedText == "Groceries\nmilk")
        #expect(model.search("milk").map(\.id) == [garden])   // active memos only
        let fired = observe { _ = model.trash }
        try model.purge(groceries)
        #expect(fired.value)
        #expect(model.trash.isEmpty && model.selectedText == nil)
        #expect(replica.notebook.status(of: groceries) == .purged)

        #expect(throws: ReplicaError.notebook(.memoNotInTrash(garden))) { try model.purge(garden) }
        #expect(model.memos.map(\.id) == [garden])
        #expect(replica.notebook.memo(garden)?.text == "Garden\nbuy GROUT and milk")
    }

    /// Issue 29: `canUndo`/`canRedo` of the selected memo follow the model's edits, undo and
    /// redo, edits made on the replica elsewhere, and the selection; `endUndoGrouping()` splits
    /// two bursts of typing into two steps.
    @Test(.timeLimit(.minutes(1))) func undoAndRedoAvailabilityFollowTheSelectedMemo() async throws {
        let replica = try makeReplica()
        let memo = try replica.createMemo(text: "Title\n")
        let other = try replica.createMemo(text: "Other")
        let model = ReplicaModel(replica: replica)
        #expect(!model.canUndo && !model.canRedo)
        model.select(memo)
        #expect(!model.canUndo && !model.canRedo)   // creating with text is no undo step

        var fired = observe { _ = model.canUndo }
        try model.edit(memo, replacingUTF16: 6..<6, with: "a")
        #expect(fired.value && model.canUndo && !model.canRedo)
        environment.advance(milliseconds: 100)
        model.endUndoGrouping()
        try model.edit(memo, replacingUTF16: 7..<7, with: "b")
        try model.undo(memo)
        #expect(model.selectedText == "Title\na")   // the second burst only
        #expect(model.canUndo && model.canRedo)
        try model.undo(memo)
        #expect(model.selectedText == "Title\n" && !model.canUndo && model.canRedo)
        try model.redo(memo)
        #expect(model.canUndo && model.canRedo)

        // On the replica, from elsewhere (an editor): through the events. The edit clears redo.
        fired = observe { _ = model.canRedo }
        try replica.edit(memo, replacingUTF16: 0..<0, with: "x")
        await waitUntil("redo went") { fired.value }
        #expect(model.canUndo && !model.canRedo)

        // In the trash: nothing to undo or redo (the replica refuses), until it is restored.
        try model.moveToTrash(memo)
        #expect(!model.canUndo && !model.canRedo)
        #expect(throws: ReplicaError.notebook(.memoInTrash(memo))) { try replica.undo(memo) }
        try model.restore(memo)
        #expect(model.canUndo && !model.canRedo)

        // Another memo selected: its own history (none).
        model.select(other)
        #expect(!model.canUndo && !model.canRedo)
        model.select(nil)
        #expect(!model.canUndo && !model.canRedo)
    }

    /// Issue 29: deleting a memo to the trash is undoable: `undoTrash()` brings it back (list
    /// and trash at once), `redoTrash()` trashes it again; `canUndoTrash` and `canRedoTrash`
    /// follow, for the Undo command while the list has the focus; the replica's own calls too,
    /// and a closed replica refuses them.
    @Test(.timeLimit(.minutes(1))) func movingToTheTrashIsUndoable() async throws {
        let replica = try makeReplica()
        let memo = try replica.createMemo(text: "Groceries\nmilk")
        environment.advance(milliseconds: 10)
        let other = try replica.createMemo(text: "Garden")
        let model = ReplicaModel(replica: replica)
        #expect(!model.canUndoTrash && !model.canRedoTrash)
        #expect(try model.undoTrash() == nil)

        let fired = observe { _ = model.canUndoTrash }
        try model.moveToTrash(memo)
        #expect(fired.value && model.canUndoTrash && !model.canRedoTrash)
        #expect(model.memos.map(\.id) == [other] && model.trash.map(\.id) == [memo])
        #expect(try model.undoTrash() == memo)
        #expect(Set(model.memos.map(\.id)) == [memo, other] && model.trash.isEmpty)
        #expect(!model.canUndoTrash && model.canRedoTrash)
        #expect(try model.redoTrash() == memo)
        #expect(model.trash.map(\.id) == [memo] && model.canUndoTrash && !model.canRedoTrash)

        // Through the replica (Cmd-Z routed there by an app without the model).
        #expect(replica.canUndoTrash && !replica.canRedoTrash)
        #expect(try replica.undoTrash() == memo)
        #expect(replica.notebook.status(of: memo) == .active)
        #expect(replica.notebook.memo(memo)?.text == "Groceries\nmilk")
        #expect(!replica.canUndoTrash && replica.canRedoTrash)
        #expect(try replica.redoTrash() == memo)
        #expect(replica.notebook.status(of: memo) == .trashed)
        #expect(try replica.undoTrash() == memo)
        #expect(replica.unsavedOperationCount > 0)   // an ordinary restore: saved and synced like one

        await replica.close()
        #expect(throws: ReplicaError.closed) { try replica.undoTrash() }
        #expect(throws: ReplicaError.closed) { try replica.redoTrash() }
    }

    /// Issue 29: the unsaved and unpublished counts follow edits (the model's at once, others'
    /// through the events), the model's save and its sync.
    @Test(.timeLimit(.minutes(1))) func unsavedAndUnpublishedCountsFollowSavesAndSyncs() async throws {
        let replica = try makeReplica()
        let model = ReplicaModel(replica: replica)
        #expect(model.unsavedOperationCount == 0 && model.unpublishedOperationCount == 0)
        let memo = try model.createMemo(text: "abc")
        #expect(model.unsavedOperationCount == replica.unsavedOperationCount)
        #expect(model.unsavedOperationCount == 4)   // the creation and three characters
        #expect(model.unpublishedOperationCount == 4)

        #expect(await model.save())
        #expect(model.unsavedOperationCount == 0 && model.unpublishedOperationCount == 4)

        let fired = observe { _ = model.unsavedOperationCount }
        try replica.edit(memo, replacingUTF16: 3..<3, with: "d")   // elsewhere: through the events
        await waitUntil("the count followed") { fired.value }
        #expect(model.unsavedOperationCount == 1 && model.unpublishedOperationCount == 5)

        let report = try #require(await model.sync(with: InMemoryBlobStore()))
        #expect(report.isComplete)
        #expect(model.unsavedOperationCount == 0 && model.unpublishedOperationCount == 0)
    }

    @Test(.timeLimit(.minutes(1))) func theSelectedTextFollowsEdits() async throws {
        let replica = try makeReplica()
        let memo = try replica.createMemo(text: "Hello")
        let other = try replica.createMemo(text: "Other")
        let model = ReplicaModel(replica: replica)
        model.select(memo)
        #expect(model.selectedText == "Hello")

        var fired = observe { _ = model.selectedText }
        try model.edit(memo, replacingUTF16: 5..<5, with: ", world")
        #expect(fired.value)
        #expect(model.selectedText == "Hello, world")

        fired = observe { _ = model.selectedText }
        try replica.edit(memo, replacingUTF16: 0..<5, with: "Goodbye")
        await waitUntil("the text changed") { fired.value }
        #expect(model.selectedText == "Goodbye, world")

        // Another memo's edit refreshes the list, not the text.
        fired = observe { _ = model.selectedText }
        try replica.edit(other, replacingUTF16: 5..<5, with: "!")
        await waitUntil("the list changed") { model.memos.first?.id == other }
        #expect(!fired.value)

        try model.setText(memo, to: "Set")
        #expect(model.selectedText == "Set")
        try model.edit(memo, replacingUTF16: 3..<3, with: "!")
        #expect(model.selectedText == "Set!")
        try model.undo(memo)
        #expect(model.selectedText == "Set")
        try model.redo(memo)
        #expect(model.selectedText == "Set!")
        model.select(nil)
        #expect(model.selectedText == nil)
    }

    /// A sync through the model: the status goes to syncing (with progress) and back to idle,
    /// observers hearing of each; the last sync time and report are set. What another device
    /// published arrives in the list and the selected text.
    @Test(.timeLimit(.minutes(1))) func aSyncShowsItsStatusAndWhatItBrought() async throws {
        let store = InMemoryBlobStore()
        let replica = try makeReplica()
        let other = try makeReplica()
        let shared = try replica.createMemo(text: "Shared")
        try await replica.sync(with: store)
        try await other.sync(with: store)
        try other.edit(shared, replacingUTF16: 6..<6, with: " by two")
        let theirs = try other.createMemo(text: "Theirs")
        try await other.sync(with: store)

        let model = ReplicaModel(replica: replica)
        model.select(shared)
        #expect(model.lastSyncMilliseconds == replica.lastSyncMilliseconds)
        environment.advance(milliseconds: 1_000)
        let held = ConcurrencyTestStore(store, holding: [.read])
        let started = observe { _ = model.syncStatus }
        let sync = Task { await model.sync(with: held) }
        await waitUntil("the sync started") { started.value }
        // The listing is done and the reads are held: progress is shown.
        await waitUntil("progress shown") {
            if case let .syncing(progress?) = model.syncStatus { progress.blobsDone > 0 } else { false }
        }
        let ended = observe { _ = model.syncStatus }
        held.openGate()
        let report = try #require(await sync.value)
        #expect(ended.value)
        #expect(model.syncStatus == .idle)
        #expect(report.isComplete && model.lastReport == report)
        #expect(model.lastError == nil)
        #expect(model.lastSyncMilliseconds == environment.nowMilliseconds)
        #expect(model.memos.contains { $0.id == theirs })
        #expect(model.selectedText == "Shared by two")
    }

    /// EmbeddingInANotesApp.md: `.syncing` "with a `SyncProgress` (nil until the first store
    /// operation is done)": while the listing, the first operation, is held, the status says
    /// syncing without progress; once it is done, with progress (or the sync is over).
    @Test(.timeLimit(.minutes(1))) func aSyncShowsNoProgressUntilItsFirstStoreOperationIsDone() async throws {
        let store = InMemoryBlobStore()
        let replica = try makeReplica()
        _ = try replica.createMemo(text: "Mine")
        let model = ReplicaModel(replica: replica)
        let held = ConcurrencyTestStore(store, holding: [.list])
        let sync = Task { await model.sync(with: held) }
        await waitUntil("the listing is held") { held.heldCount > 0 }
        #expect(model.syncStatus == .syncing(nil))
        held.openGate()
        await waitUntil("progress shown, or the sync over") { model.syncStatus != .syncing(nil) }
        let report = try #require(await sync.value)
        #expect(report.isComplete && model.syncStatus == .idle)
    }

    /// EmbeddingInANotesApp.md: `sync(with:)` "returns nil when another sync of the replica is
    /// running" (through the model, or on the replica elsewhere), changing nothing; and "a
    /// cancelled sync is not a failure": cancelling the task calling it gives a report that
    /// says so, and no error.
    @Test(.timeLimit(.minutes(1))) func aSecondSyncReturnsNilAndACancelledOneIsNoFailure() async throws {
        let store = InMemoryBlobStore()
        let writer = try makeReplica()
        _ = try writer.createMemo(text: "in the store")
        try await writer.sync(with: store)
        let replica = try makeReplica()
        let model = ReplicaModel(replica: replica)
        let held = ConcurrencyTestStore(store, holding: [.read])
        let started = observe { _ = model.syncStatus }
        let sync = Task { await model.sync(with: held) }
        await waitUntil("the sync started") { started.value }
        // Another sync through the model: nil at once, nothing changed.
        #expect(await model.sync(with: store) == nil)
        #expect(model.syncStatus != .idle && model.lastReport == nil && model.lastError == nil)
        // The first one cancelled: a report that says so, no error.
        sync.cancel()
        held.openGate()
        let report = try #require(await sync.value)
        #expect(report.cancelled)
        #expect(model.lastError == nil && model.syncStatus == .idle)

        // A sync of the replica run elsewhere: the model's gives nil and leaves no error.
        let elsewhereStore = ConcurrencyTestStore(store, holding: [.read])
        let elsewhere = Task { try await replica.sync(with: elsewhereStore) }
        await waitUntil("the other sync holds its reads") { elsewhereStore.heldCount > 0 }
        #expect(await model.sync(with: store) == nil)
        #expect(model.lastError == nil && model.syncStatus == .idle)
        elsewhereStore.openGate()
        _ = try await elsewhere.value
    }

    /// A sync run on the replica elsewhere (not through the model) brings its changes in
    /// through the events.
    @Test(.timeLimit(.minutes(1))) func aRemoteChangeArrivesThroughEvents() async throws {
        let store = InMemoryBlobStore()
        let replica = try makeReplica()
        let other = try makeReplica()
        let shared = try replica.createMemo(text: "Shared")
        try await replica.sync(with: store)
        try await other.sync(with: store)
        let model = ReplicaModel(replica: replica)
        model.select(shared)

        try other.edit(shared, replacingUTF16: 0..<0, with: "Remote ")
        let theirs = try other.createMemo(text: "Theirs")
        try await other.sync(with: store)
        let listFired = observe { _ = model.memos }
        let textFired = observe { _ = model.selectedText }
        try await replica.sync(with: store)
        await waitUntil("the list and text changed") { listFired.value && textFired.value }
        await waitUntil("both arrived") { model.memos.contains { $0.id == theirs } && model.selectedText == "Remote Shared" }
        #expect(model.memos == replica.notebook.list())
    }

    /// A store that fails shows in `lastError` (the sync's report); a complete sync clears it.
    /// A sync that throws (the replica is closed) and a save the disk refuses show too.
    @Test(.timeLimit(.minutes(1))) func failuresShowInLastError() async throws {
        let store = InMemoryBlobStore()
        let disk = MemoryDisk()
        let replica = try makeReplica(disk)
        let model = ReplicaModel(replica: replica)
        try model.createMemo(text: "memo")

        store.failNext(10, with: .unavailable(reason: "offline"), on: [.list])
        let fired = observe { _ = model.lastError }
        let failed = try #require(await model.sync(with: store))
        #expect(fired.value)
        #expect(!failed.isComplete)
        guard case let .incompleteSync(report)? = model.lastError else {
            Issue.record("no incomplete sync in lastError: \(String(describing: model.lastError))")
            return
        }
        #expect(report == failed)
        #expect(model.lastError?.description.contains("offline") == true)
        #expect(model.lastSyncMilliseconds == 0)
        #expect(model.syncStatus == .idle)

        store.failNext(0, with: .unavailable(reason: "offline"))
        let complete = try #require(await model.sync(with: store))
        #expect(complete.isComplete)
        #expect(model.lastError == nil)
        #expect(model.lastSyncMilliseconds > 0)

        // A save the disk refuses, then one it takes.
        try model.createMemo(text: "unsaved")
        disk.failAtOperation = disk.operationCount + 1
        #expect(await model.save() == false)
        guard case .save(.disk)? = model.lastError else {
            Issue.record("no save failure in lastError: \(String(describing: model.lastError))")
            return
        }
        disk.failAtOperation = nil
        #expect(await model.save())
        #expect(model.lastError == nil)

        // A sync that throws.
        await replica.close()
        #expect(await model.sync(with: store) == nil)
        guard case .sync(.closed)? = model.lastError else {
            Issue.record("no sync failure in lastError: \(String(describing: model.lastError))")
            return
        }
        #expect(model.syncStatus == .idle)
    }

    /// `stop()` ends the model's task: its stream is removed and later changes no longer reach
    /// it. A model that goes away removes its stream too, and closing the replica ends the task.
    @Test(.timeLimit(.minutes(1))) func stoppingEndsTheEventTask() async throws {
        let replica = try makeReplica()
        let model = ReplicaModel(replica: replica)
        #expect(model.isFollowingEvents && replica.eventSubscriberCount == 1)
        model.stop()
        #expect(!model.isFollowingEvents)
        await waitUntil("the stream removed") { replica.eventSubscriberCount == 0 }
        // A change the model no longer hears of (another subscriber shows it was delivered).
        var witness = replica.events().makeAsyncIterator()
        try replica.createMemo(text: "unseen")
        #expect(await witness.next() != nil)
        try await Task.sleep(for: .milliseconds(20))
        #expect(model.memos.isEmpty)
        model.reload()
        #expect(model.memos.count == 1)

        // A model dropped without stop().
        do {
            let dropped = ReplicaModel(replica: replica)
            #expect(dropped.memos.count == 1)
            #expect(replica.eventSubscriberCount == 2)
        }
        await waitUntil("the dropped model's stream removed") { replica.eventSubscriberCount == 1 }

        // The replica closing ends the task.
        let following = ReplicaModel(replica: replica)
        #expect(following.isFollowingEvents)
        await replica.close()
        await waitUntil("the task ended") { !following.isFollowingEvents }
        _ = witness
    }
}
