// Doc blocks: README.md. Compiled as an app writes them (public API only); each ```swift block
// appears here verbatim (DocSnippetTests checks it), so a change to one goes in both places.
import MemoSync

// "Use it": statements, in a function of their own (never called: paths are placeholders).
func readmeUseIt() async throws {
    let replica = try Replica(libraryPath: "/path/to/library")      // made once, reopened after
    let memo = try replica.createMemo(text: "Groceries\nmilk")
    try replica.edit(memo, replacingUTF16: 14..<14, with: ", eggs")  // NSRange-style offsets
    try await replica.save()                                          // durable once this returns

    // A sync loop: every 30 s, off the main actor. Up to 8 store operations in flight.
    let store = try DirectoryBlobStore(path: "/path/to/Dropbox/memos")
    let syncing = Task {
        while !Task.isCancelled {
            let report = try await replica.sync(with: store)
            print(report.isComplete, report.publishedOperationCount, report.operationsApplied, report.skipped)
            for problem in report.errors { print(problem.localizedDescription) }   // typed: .operation, .key, .storeError
            try await Task.sleep(for: .seconds(30))
        }
    }

    // Meanwhile the user keeps typing: an edit never waits for the network or for another device.
    try replica.edit(memo, replacingUTF16: 0..<9, with: "Shopping")   // goes out in this sync or the next
    let changes = Task { for await event in replica.events() { print(event) } }   // what syncs bring, as it arrives
    // ...
    syncing.cancel()                                                  // stops at a safe point; nothing lost
    changes.cancel()                                                  // the event stream ends
    for summary in replica.notebook.list() { print(summary.title, summary.modifiedAt) }
}

// "End-to-end encryption".
func readmeEncryption(replica: Replica, folder: String, passphrase: String) async throws {
    let store = try await StoreEncryption.unlock(DirectoryBlobStore(path: folder), passphrase: passphrase)
    let report = try await replica.sync(with: store)      // any BlobStore can be wrapped
    _ = report
}
