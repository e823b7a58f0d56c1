// `ByteComparison.equal` against `==` of arrays: every length up to 40 at every offset of a
// larger buffer (the eight-byte steps and the tail), with one byte changed at every position.

import MemoCRDT
import TestSupport
import Testing

@Suite struct ByteComparisonTests {
    @Test func equalsWhatArrayEqualitySaysAtEveryLengthOffsetAndDifference() {
        var random = SeededRandom(seed: 0xB17E_C0DE)
        let buffer = (0..<64).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for length in 0...40 {
            for offset in 0...(buffer.count - length) {
                let slice = buffer[offset..<offset + length]
                var copy = Array(slice)
                #expect(ByteComparison.equal(copy, slice), "length \(length) at \(offset)")
                for position in 0..<length {
                    copy[position] ^= 0x20
                    #expect(ByteComparison.equal(copy, slice) == (copy == Array(slice)), "length \(length), byte \(position)")
                    #expect(!ByteComparison.equal(copy[...], slice))
                    copy[position] ^= 0x20
                }
                if length > 0 {
                    #expect(!ByteComparison.equal(Array(copy.dropLast()), slice), "a shorter copy, length \(length)")
                }
            }
        }
    }
}
