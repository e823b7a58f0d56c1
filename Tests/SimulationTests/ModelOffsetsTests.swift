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

/// The model's byte comparison (`Simulation.utf8(_:encodes:)`, which checks every replica text
/// against the model) against Swift's own UTF-8 encoder: equal exactly when the bytes are the
/// scalars' encoding, whatever one byte changed, cut or added (short texts of every length of
/// scalar, and longer mostly ASCII ones that take the eight-at-a-time path).
@Suite struct ModelTextBytesTests {
    @Test func bytesEqualTheScalarsExactlyWhenTheyAreTheirUTF8() {
        let seed: UInt64 = 0x7E47_B17E
        var random = SeededRandom(seed: seed)
        // One of each encoded length and its edges, and a few that have no UTF-8.
        let pool: [UInt32] = [0x0, 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0xAC00, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x1_0000, 0x1_F600, 0x10_FFFF]
        let invalid: [UInt32] = [0xD800, 0xDFFF, 0x11_0000]
        for round in 0..<2_000 {
            // Every other round mostly ASCII and longer, so that runs of eight ASCII scalars
            // (compared eight at a time) meet other scalars at every alignment.
            var scalars = round % 2 == 0
                ? (0..<random.int(in: 0...8)).map { _ in pool[random.int(in: 0..<pool.count)] }
                : (0..<random.int(in: 0...40)).map { _ in
                    random.int(in: 0..<8) == 0 ? pool[random.int(in: 0..<pool.count)] : UInt32(random.int(in: 0..<0x80))
                }
            let encoded = Array(String(String.UnicodeScalarView(scalars.map { Unicode.Scalar($0)! })).utf8)
            #expect(Simulation.utf8(encoded[...], encodes: scalars), "seed \(seed) round \(round): \(scalars)")
            // The same bytes inside a larger array (a slice not starting at 0).
            let padded = [0xFF] + encoded + [0xFF]
            #expect(Simulation.utf8(padded[1..<padded.count - 1], encodes: scalars), "seed \(seed) round \(round)")
            var changed = encoded
            switch random.int(in: 0..<4) {
            case 0 where !changed.isEmpty:
                let at = random.int(in: 0..<changed.count)
                changed[at] ^= UInt8(1 << random.int(in: 0..<8))
            case 1 where !changed.isEmpty:
                changed.removeLast()
            case 2:
                changed.append(UInt8(random.int(in: 0..<256)))
            default:
                if !scalars.isEmpty {
                    scalars[random.int(in: 0..<scalars.count)] = invalid[random.int(in: 0..<invalid.count)]
                } else {
                    scalars = [invalid[0]]
                }
            }
            let same = changed == encoded
                && scalars.allSatisfy { Unicode.Scalar($0) != nil }
                && Array(String(String.UnicodeScalarView(scalars.map { Unicode.Scalar($0)! })).utf8) == encoded
            #expect(Simulation.utf8(changed[...], encodes: scalars) == same, "seed \(seed) round \(round): \(scalars) \(changed)")
        }
    }
}
