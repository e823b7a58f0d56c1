@testable import MemoCRDT
import Testing

/// The relationships between limits that the code relies on.
@Suite struct LimitsTests {
    @Test func spanLengthsFitTheirStorage() {
        // Span lengths are stored in 16 bits: scalars, UTF-16 units (2 per scalar at most) and
        // UTF-8 bytes (4 per scalar at most) of a full span must fit.
        #expect(Limits.spanLengthScalarsMax * 4 <= Int(UInt16.max))
        #expect(Limits.spanLengthScalarsMax >= 1)
    }

    @Test func countersAndIndexesLeaveTheirSentinel() {
        #expect(Limits.operationsPerReplicaMax < UInt32.max)
        #expect(Limits.replicasPerTextMax < Int(UInt32.max))
        #expect(Limits.contentBytesMax < Int(UInt32.max))
    }

    @Test func treeShapes() {
        // A split moves half a full node or leaf; both halves stay non-empty.
        #expect(TreeShape.leafCapacity >= 4 && TreeShape.leafCapacity <= Int(UInt16.max))
        #expect(TreeShape.nodeCapacity >= 4 && TreeShape.nodeCapacity <= Int(UInt16.max))
        #expect(TreeShape.blockShift >= 1 && TreeShape.blockShift <= 16)
    }

    @Test func decodingBounds() {
        // An encoded length must be representable, and a body may hold the largest content.
        #expect(Limits.encodedBytesMax <= Int(Int32.max))
        #expect(Limits.pendingOperationsMax <= Int(Limits.operationsPerReplicaMax))
    }
}
