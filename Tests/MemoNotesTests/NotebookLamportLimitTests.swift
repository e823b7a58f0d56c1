import Foundation
import MemoCRDT
@testable import MemoNotes
import Testing

/// A notebook shares one Lamport clock across its memos. A peer's memo timestamped at the limit
/// (`Limits.lamportMax`, the most an accepted operation carries) used to be accepted and then made
/// this replica's next edit, in any memo, one that no state holds: the library saved it and could
/// not open again. Now such an edit is refused with a typed error, nothing changes, and every
/// state the notebook encodes decodes (issue: a forged store segment; exploratory test of
/// 2026-12-02).
@Suite struct NotebookLamportLimitTests {
    let victimID = ReplicaID(0xA11CE)

    @Test func editsAfterAPeersTimestampAtTheLimitAreRefusedAndTheNotebookStillDecodes() throws {
        var peer = Notebook(replica: ReplicaID(0xBAD))
        peer.lamport = Limits.lamportMax - 1
        let peerMemo = MemoID(high: 9, low: 9)
        try peer.createMemo(peerMemo, text: "x", wallMilliseconds: 1_000)

        var victim = Notebook(replica: victimID)
        let mine = MemoID(high: 1, low: 1)
        try victim.createMemo(mine, text: "Shopping list\nmilk", wallMilliseconds: 500)
        try victim.apply(NotebookDelta(decoding: peer.changes(since: VersionVector()).encoded()))
        #expect(victim.memo(peerMemo)?.text == "x")
        let before = victim.encoded()

        #expect(throws: NotebookError.text(mine, .clockExhausted)) {
            try victim.edit(mine, replacingUTF16: 0..<0, with: "EDITED ", wallMilliseconds: 2_000)
        }
        let fresh = MemoID(high: 2, low: 2)
        #expect(throws: NotebookError.self) { try victim.createMemo(fresh, text: "new memo", wallMilliseconds: 2_000) }
        #expect(victim.memo(fresh) == nil)
        #expect(victim.memo(mine)?.text == "Shopping list\nmilk")
        #expect(victim.encoded() == before)
        let decoded = try Notebook(decoding: victim.encoded(), replica: victimID)
        #expect(decoded.memo(mine)?.text == "Shopping list\nmilk" && decoded.memo(peerMemo)?.text == "x")

        // A third replica takes everything the victim holds.
        var third = Notebook(replica: ReplicaID(3))
        try third.apply(NotebookDelta(decoding: victim.changes(since: VersionVector()).encoded()))
        #expect(third.memo(mine)?.text == "Shopping list\nmilk" && third.pendingOperationCount == 0)
    }
}
