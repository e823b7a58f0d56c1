import MemoCRDT
@testable import MemoNotes
import Testing

/// A memo whose text is more operations than `Limits.pendingOperationsMax` arrives whole in a
/// delta (a journal record's, at every open; a sync's): it was held back, its text empty.
@Suite struct NotebookLargeDeltaTests {
    @Test func aMemoOfMoreOperationsThanTheHeldBackBoundApplies() throws {
        var peer = Notebook(replica: ReplicaID(2))
        let id = MemoID(high: 7, low: 7)
        let text = "Thesis\n" + String(repeating: "y", count: Limits.pendingOperationsMax + 8)
        try peer.createMemo(id, text: text, wallMilliseconds: 1_000)
        var receiver = Notebook(replica: ReplicaID(1))
        try receiver.apply(NotebookDelta(decoding: peer.changes(since: VersionVector()).encoded()))
        #expect(receiver.pendingOperationCount == 0)
        #expect(receiver.memo(id)?.text == text)
    }
}
