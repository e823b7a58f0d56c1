// Doc blocks: MemoSync.docc/EmbeddingInANotesApp.md ("The replica on the main actor"). Compiled as
// an app writes them (public API only); each ```swift block appears here verbatim (DocSnippetTests
// checks it), so a change to one goes in both places.

import Foundation
import MemoSync

/// The app's replica and store, and when they save and sync.
@MainActor
final class NotesController {
    let replica: Replica
    let store: DirectoryBlobStore
    /// What the list and the sync status bind to.
    let model: ReplicaModel
    /// The open memo's editor, if any.
    private(set) weak var editor: MemoEditor?
    /// Where the selection was in the memos the user left (see "Carets across remote edits").
    private var selections: [MemoID: (TextAnchor, TextAnchor)] = [:]

    private var saveTask: Task<Void, Never>?
    private var syncLoop: Task<Void, Never>?

    init(libraryFolder: URL, storeFolder: URL) throws {
        replica = try Replica(libraryPath: libraryFolder.path(percentEncoded: false))
        store = try DirectoryBlobStore(url: storeFolder)
        model = ReplicaModel(replica: replica)
    }

    /// After each edit: save once typing has paused for two seconds.
    func didEdit() {
        saveTask?.cancel()
        saveTask = Task {
            try? await Task.sleep(for: .seconds(2))
            guard !Task.isCancelled else { return }
            await model.save()                    // a failure shows in model.lastError
        }
    }

    /// In the foreground: sync now, then every `interval`, until `enterBackground()`.
    func startSyncing(every interval: Duration = .seconds(60)) {
        if let syncLoop, !syncLoop.isCancelled { return }    // running already
        let previous = syncLoop
        syncLoop = Task {
            await previous?.value                 // a sync being cancelled ends first
            while !Task.isCancelled {
                await model.sync(with: store)     // progress in model.syncStatus
                editor?.verify()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// To the background: stop syncing (at a safe point), and save what is left.
    func enterBackground() {
        syncLoop?.cancel()
        saveTask?.cancel()
        saveTask = Task { await model.save() }
    }

    /// Before the app quits: let the sync stop, save, and close the library.
    func close() async {
        syncLoop?.cancel()
        await syncLoop?.value
        await model.save()
        await replica.close()
    }

    // MARK: The open memo

    /// An editor for `memo`, its selection where the user left it.
    func openEditor(for memo: MemoID) -> MemoEditor {
        let editor = MemoEditor(memo: memo, replica: replica, selection: selections[memo]) { [weak self] in
            self?.didEdit()
        }
        self.editor = editor
        return editor
    }

    /// The user leaves the memo: remember the selection, stop following the memo's changes.
    func closeEditor(_ editor: MemoEditor) {
        selections[editor.memo] = editor.selectionAnchors()
        editor.detach()
    }
}
