// Doc blocks: MemoSync.docc/EmbeddingInANotesApp.md ("A SwiftUI list from the replica model"),
// the model's API an app calls outside SwiftUI views (compiled on Linux too). Each ```swift
// block appears here verbatim (DocSnippetTests checks it), so a change to one goes in both places.
import MemoSync

@MainActor
func replicaModelCommands(_ model: ReplicaModel, memo: MemoID) throws {
    model.select(memo)
    let undoEnabled = model.canUndo                       // the Undo menu item
    let edited = model.unsavedOperationCount > 0          // a crash would lose something now
    let notSynced = model.unpublishedOperationCount > 0   // not in the store yet
    let found = model.search("milk")                      // active memos, newest modified first
    try model.moveToTrash(memo)
    try model.undoTrash()                                 // Undo with the list focused: it is back
    try model.redoTrash()                                 // and in the trash again
    try model.purge(memo)                                 // for good: only from the trash
    _ = (undoEnabled, edited, notSynced, found)   // not in the article: they are only read there
}
