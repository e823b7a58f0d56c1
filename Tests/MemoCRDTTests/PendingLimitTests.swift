@testable import MemoCRDT
import Testing

/// `Limits.pendingOperationsMax` bounds the operations a text holds back, not the size of a
/// delta: a delta of more operations than the bound that holds nothing back applies (a memo of
/// 4.3 million characters saved in a journal record was refused at every open, held back whole
/// and shown empty), and one that would hold back more than the bound is refused with the text
/// unchanged.
@Suite struct PendingLimitTests {
    static let length = Limits.pendingOperationsMax + 8

    @Test func aDeltaLargerThanTheBoundThatHoldsNothingBackApplies() throws {
        var peer = TextCRDT(replica: ReplicaID(2))
        try peer.insert(String(repeating: "x", count: Self.length), atUTF16: 0)
        let delta = peer.changes(since: VersionVector())
        #expect(delta.operationCount > Limits.pendingOperationsMax)
        var receiver = TextCRDT(replica: ReplicaID(1))
        try receiver.insert("mine ", atUTF16: 0)
        let report = try receiver.apply(delta)
        #expect(report.appliedOperationCount == Self.length && report.pendingOperationCount == 0)
        #expect(receiver.lengthUTF16 == Self.length + 5)
    }

    @Test func aDeltaThatWouldHoldBackMoreThanTheBoundIsRefusedWithNothingChanged() throws {
        // B's characters all build on A's one character, which the receiver never gets.
        var a = TextCRDT(replica: ReplicaID(1))
        try a.insert("a", atUTF16: 0)
        var b = TextCRDT(replica: ReplicaID(2))
        try b.apply(a.changes(since: VersionVector()))
        try b.insert(String(repeating: "y", count: Self.length), atUTF16: 1)
        let onlyB = try b.changes(in: [(ReplicaID(2), 0..<UInt32(Self.length))])
        var receiver = TextCRDT(replica: ReplicaID(3))
        try receiver.insert("kept", atUTF16: 0)
        let before = receiver.encoded()
        #expect {
            try receiver.apply(onlyB)
        } throws: { error in
            guard case .tooManyPendingOperations = error as? TextError else { return false }
            return true
        }
        #expect(receiver.encoded() == before && receiver.pendingOperationCount == 0)
        // Held back within the bound: a part of the same delta waits for A's character.
        let part = try b.changes(in: [(ReplicaID(2), 0..<1_000)])
        let report = try receiver.apply(part)
        #expect(report.pendingOperationCount == 1_000 && receiver.string == "kept")
    }
}
