// Doc blocks: MemoSync.docc/EmbeddingInANotesApp.md ("A SwiftUI list from the replica model").
// Compiled as an app writes them (public API only); each ```swift block appears here verbatim
// (DocSnippetTests checks it), so a change to one goes in both places.
// Apple platforms only: this file compiles where SwiftUI exists (not on Linux, where the test
// command runs), and DocSnippetTests counts and names its blocks as not compiled there.
#if canImport(SwiftUI)
import MemoSync
import SwiftUI

struct MemoList: View {
    let model: ReplicaModel
    let open: (MemoID) -> Void
    @State private var query = ""
    @State private var found: [MemoSummary] = []
    @State private var showsTrash = false

    var body: some View {
        List(showsTrash ? model.trash : query.isEmpty ? model.memos : found) { memo in
            Button {
                open(memo.id)
            } label: {
                MemoRow(memo: memo)
            }
            .swipeActions {
                if memo.status == .trashed {
                    Button("Restore") { try? model.restore(memo.id) }
                } else {
                    Button("Delete", role: .destructive) { try? model.moveToTrash(memo.id) }
                }
            }
        }
        .searchable(text: $query)
        .onChange(of: query) { search() }
        .onChange(of: model.memos) { search() }      // an edit or a sync may change the matches
        .toolbar {
            Toggle("Trash", isOn: $showsTrash)
        }
    }

    private func search() {
        found = model.search(query)                 // empty for an empty query
    }
}

struct MemoRow: View {
    let memo: MemoSummary

    var body: some View {
        VStack(alignment: .leading) {
            Text(memo.title.isEmpty ? "New Memo" : memo.title).font(.headline)
            HStack {
                Text(Date(timeIntervalSince1970: Double(memo.modifiedAt.wallMilliseconds) / 1000), style: .date)
                Text(memo.preview).foregroundStyle(.secondary).lineLimit(1)
            }
            .font(.subheadline)
        }
    }
}
#endif
