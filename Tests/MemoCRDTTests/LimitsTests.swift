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

    /// FORMAT.md "Reader checks": "operation counts are at most 2^32 − 2 per replica and in total
    /// at most max(2^20, 256 × blob size)": counts read from a text state past either limit are
    /// refused before anything is allocated for them.
    @Test func operationCountsAreBoundedPerReplicaAndBySize() throws {
        #expect(Limits.operationsPerReplicaMax == UInt32.max - 1)
        #expect(TextCRDT.decodedOperationsMax(bodyBytes: 100) == 1 << 20)
        #expect(TextCRDT.decodedOperationsMax(bodyBytes: 8_192) == 256 * 8_192)
        func counts(_ values: [UInt64], bodyBytes: Int) throws(DecodingError) -> Int {
            var writer = ByteWriter()
            for value in values { writer.varint(value) }
            var reader = ByteReader(writer.bytes)
            return try TextCRDT.readOperationCounts(
                &reader, replicaCount: values.count, operationsMax: TextCRDT.decodedOperationsMax(bodyBytes: bodyBytes)).total
        }
        #expect(try counts([1 << 19, 1 << 19], bodyBytes: 100) == 1 << 20)
        #expect(throws: DecodingError.self) { try counts([1 << 19, (1 << 19) + 1], bodyBytes: 100) }
        #expect(try counts([1 << 19, (1 << 19) + 1], bodyBytes: 8_192) == (1 << 20) + 1)
        #expect(throws: DecodingError.self) { try counts([0], bodyBytes: 100) }
        #expect(throws: DecodingError.self) { try counts([UInt64(UInt32.max)], bodyBytes: 1 << 30) }
        #expect(try counts([UInt64(UInt32.max - 1)], bodyBytes: 1 << 30) == Int(UInt32.max - 1))
    }
}
