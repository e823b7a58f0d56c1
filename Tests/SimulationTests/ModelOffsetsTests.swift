@testable import MemoSimulation
import TestSupport
import Testing

/// The model's UTF-16 to scalar mapping: a range maps in one pass to what each bound maps to.
@Suite struct ModelOffsetsTests {
    @Test func scalarRangeAgreesWithScalarPositions() {
        var random = SeededRandom(seed: 0x0FF5_E7)
        for _ in 0..<200 {
            let scalars = (0..<random.int(in: 0...12)).map { _ in random.chance(0.4) ? UInt32(0x1_F600) : UInt32(0x61) }
            let units = utf16Count(scalars, 0..<scalars.count)
            for lower in -1...units + 1 {
                for upper in max(lower, 0)...units + 2 {
                    let expected: Range<Int>?
                    if let low = scalarPosition(ofUTF16: lower, in: scalars), let high = scalarPosition(ofUTF16: upper, in: scalars), low <= high {
                        expected = low..<high
                    } else {
                        expected = nil
                    }
                    #expect(scalarRange(ofUTF16: lower..<upper, in: scalars) == expected, "\(scalars) \(lower)..<\(upper)")
                }
            }
        }
    }
}
