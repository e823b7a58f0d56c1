// Doc blocks: MemoSync.docc/GettingStarted.md and MemoSync.docc/MemoSync.md (`import MemoSync`).
// Compiled as an app writes them (public API only); each ```swift block appears here verbatim
// (DocSnippetTests checks it), so a change to one goes in both places.
import MemoSync

// The article's statements in its order, one function (never called: paths are placeholders).
func gettingStarted() async throws {
    let replica = try Replica(libraryPath: "/path/to/Application Support/Notes")
    if replica.openReport.created {
        print("a new library, replica \(replica.id)")
    }

    let opened = try await Replica.open(libraryPath: "/path/to/Application Support/Notes")
    await opened.close()   // not in the article: a second replica of one folder is refused

    let groceries = try replica.createMemo(text: "Groceries\nmilk")
    try replica.edit(groceries, replacingUTF16: 14..<14, with: ", eggs")   // after "milk"
    try replica.edit(groceries, replacingUTF16: 0..<9, with: "Shopping")   // the title
    try replica.setText(groceries, to: "Shopping\nmilk, eggs, bread")      // only what differs changes

    let memo = replica.notebook.memo(groceries)
    print(memo?.title ?? "", "/", memo?.body ?? "")    // Shopping / milk, eggs, bread

    do throws(ReplicaError) {
        try replica.edit(groceries, replacingUTF16: 500..<500, with: "!")
    } catch .text(let memo, .rangeOutOfBounds(let lower, let upper, let length)) {
        print("\(lower)..<\(upper) is past the end of \(memo) (\(length) UTF-16 units)")
    } catch .notebook(.memoInTrash) {
        print("restore it from the trash first")
    } catch {
        print(error.localizedDescription)   // e.g. "Memo … could not be changed: …"
    }

    replica.endUndoGrouping()     // the caret moved: the next keystroke starts a new undo step
    try replica.undo(groceries)   // undoes the last step only

    try await replica.save()       // runs off the caller's actor; edits go on meanwhile

    let store = try DirectoryBlobStore(path: "/path/to/Dropbox/Notes")
    let report = try await replica.sync(with: store)

    print("published \(report.publishedOperationCount), applied \(report.operationsApplied)")
    if !report.isComplete {
        // Each problem is a typed ``SyncProblem``: the operation, the blob's key, the store's error.
        for problem in report.errors {
            print("incomplete, try again later: \(problem)")    // "writing KEY failed: the store is full"
            if case .full? = problem.storeError { print("the store needs space") }
        }
    }
    for skipped in report.skipped {
        print("skipped \(skipped.key): \(skipped.reason)")   // half-downloaded, damaged, foreign...
    }

    try await replica.sync(with: store) { progress in
        print("\(progress.blobsDone) of \(progress.blobsPlanned) files")
    }

    for summary in replica.notebook.list() {          // newest modified first
        print(summary.id, summary.title, summary.preview)
    }
    let found = replica.notebook.search("cafe")       // finds "Café": ignores case and accents
    let trashed = replica.notebook.trash()
    _ = (found, trashed)   // not in the article: they are only read there

    try await replica.save()
    await replica.close()
}
