// Not a doc block. The UIKit, AppKit and SwiftUI blocks compile on Apple platforms only; this
// function makes the same MemoSync calls they make (same expressions, without the views), so
// that on Linux too a change to the API those blocks use fails the build.
import Foundation
import MemoSync

@MainActor
func memoSyncCallsOfTheApplePlatformBlocks(controller: NotesController, editor: MemoEditor, query: String, memo: MemoSummary) {
    // MemoList and MemoRow.
    let model: ReplicaModel = controller.model
    let rows: [MemoSummary] = Bool.random() ? model.trash : query.isEmpty ? model.memos : model.replica.notebook.search(query)
    let open: (MemoID) -> Void = { _ = controller.openEditor(for: $0) }
    if memo.status == .trashed {
        try? model.restore(memo.id)
    } else {
        try? model.moveToTrash(memo.id)
    }
    open(memo.id)
    let modified = Date(timeIntervalSince1970: Double(memo.modifiedAt.wallMilliseconds) / 1000)
    _ = (rows, modified, memo.title.isEmpty ? "New Memo" : memo.title, memo.preview, model.memos == rows)

    // SyncStatusView.
    switch model.syncStatus {
    case .syncing(let progress?):
        _ = (Double(progress.blobsDone), Double(max(1, progress.blobsPlanned)))
    case .syncing:
        break
    case .idle:
        if let error = model.lastError {
            _ = error.localizedDescription
        } else if model.lastSyncMilliseconds > 0 {
            _ = Date(timeIntervalSince1970: Double(model.lastSyncMilliseconds) / 1000)
        }
    }

    // NotesScene.
    controller.startSyncing()
    controller.enterBackground()

    // The UIKit and AppKit text views.
    let range = NSRange(location: 0, length: 1)
    let made: Bool = editor.userWillReplace(utf16: range.location..<range.location + range.length, with: "a")
    let edit = TextEdit(rangeUTF16: 0..<1, replacement: "b")
    _ = (made, NSRange(location: edit.rangeUTF16.lowerBound, length: edit.rangeUTF16.count), edit.replacement)
}
