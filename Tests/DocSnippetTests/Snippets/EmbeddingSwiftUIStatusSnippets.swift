// Doc blocks: MemoSync.docc/EmbeddingInANotesApp.md ("Showing sync status", "When to save and when
// to sync"). Compiled as an app writes them (public API only); each ```swift block appears here
// verbatim (DocSnippetTests checks it), so a change to one goes in both places.
// Apple platforms only: this file compiles where SwiftUI exists (not on Linux, where the test
// command runs), and DocSnippetTests counts and names its blocks as not compiled there.
#if canImport(SwiftUI)
import MemoSync
import SwiftUI

struct SyncStatusView: View {
    let model: ReplicaModel

    var body: some View {
        switch model.syncStatus {
        case .syncing(let progress?):
            ProgressView(value: Double(progress.blobsDone), total: Double(max(1, progress.blobsPlanned)))
        case .syncing:
            ProgressView()
        case .idle:
            if let error = model.lastError {
                Label(error.localizedDescription, systemImage: "exclamationmark.triangle")
            } else if model.lastSyncMilliseconds > 0 {
                let date = Date(timeIntervalSince1970: Double(model.lastSyncMilliseconds) / 1000)
                Text("Synced \(date, style: .relative) ago")
            } else {
                Text("Not synced yet")
            }
        }
    }
}

import SwiftUI

struct NotesScene: View {
    let controller: NotesController
    @Environment(\.scenePhase) private var scenePhase

    var body: some View {
        NavigationStack {
            MemoList(model: controller.model) { memo in /* show controller.openEditor(for: memo) */ }
                .toolbar { SyncStatusView(model: controller.model) }
        }
        .onChange(of: scenePhase, initial: true) { _, phase in
            switch phase {
            case .active: controller.startSyncing()
            case .background: controller.enterBackground()
            default: break
            }
        }
    }
}
#endif
