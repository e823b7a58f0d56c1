// Doc block: MemoSync.docc/MemoSync.md (a library keeps history, for its retention period).
// Compiled as an app writes it (public API only); the block appears here verbatim
// (DocSnippetTests checks it).
import MemoSync

func libraryHistory(replica: Replica, id: MemoID) throws {
    try replica.setHistoryRetention(.days(30))
    let versions = try replica.notebook.versions(of: id)
    let before = try replica.notebook.text(of: id, at: versions[0].cut)
    _ = before
}
