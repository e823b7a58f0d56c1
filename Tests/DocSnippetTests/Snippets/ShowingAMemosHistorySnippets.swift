// Doc blocks: MemoSync.docc/ShowingAMemosHistory.md (a history slider over a memo's versions).
// Compiled as an app writes it (public API only); each ```swift block appears here verbatim
// (DocSnippetTests checks it), so a change to one goes in both places.
import Foundation
import MemoSync
import Observation

func showingHistoryList(replica: Replica, id: MemoID) throws {
    let history = try replica.history(of: id)
    for version in history.versions.reversed() { print(version.shortName, version.device) }
}

@MainActor @Observable
final class HistoryPanel {
    let replica: Replica
    let memo: MemoID
    private(set) var history: MemoHistory
    private(set) var passages: [MemoHistory.MarkedPassage] = []
    private(set) var problem: String?                     // why the version cannot be shown
    var position: Double = 0 { didSet { show() } }

    init(replica: Replica, memo: MemoID) throws {
        self.replica = replica
        self.memo = memo
        history = try replica.history(of: memo)
        position = Double(lastPosition)
        show()
    }

    var lastPosition: Int { max(0, history.versions.count - 1) }
    var version: MemoVersion? {
        history.versions.isEmpty ? nil : history.versions[min(Int(position), lastPosition)]
    }

    private func show() {
        guard let version else { return }
        do {
            passages = try history.marked(version, comparedWith: .current)
            problem = nil
        } catch {
            passages = []
            problem = error.localizedDescription          // "not retained", in the user's language
        }
    }

    /// Brings the chosen version back as a new edit (undo takes it back), then re-reads.
    func restore() throws {
        guard let version else { return }
        try replica.revert(memo, to: version.cut)
        history = try replica.history(of: memo)
        position = Double(lastPosition)
    }
}
