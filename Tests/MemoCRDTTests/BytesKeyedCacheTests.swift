// The cache behind the decodes a process shares (`SharedTextDecodes`, `SharedNotebookDecodes`):
// a value is found only for exactly the bytes it was kept for, whatever their hash, and the
// oldest entries go first once the bytes kept pass the limit.

@testable import MemoCRDT
import TestSupport
import Testing

@Suite struct BytesKeyedCacheTests {
    /// Two byte strings of one length that differ in one byte, at every position of lengths
    /// around the eight-byte words the comparison reads, are told apart; equal ones are not.
    @Test func bytesDifferingAnywhereAreDifferentKeys() {
        for length in 0...40 {
            let key = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(BytesKeyedCache<Int>.same(key, key[...]))
            #expect(!BytesKeyedCache<Int>.same(key, (key + [0])[...]))
            for position in 0..<length {
                var other = key
                other[position] ^= 0x40
                #expect(!BytesKeyedCache<Int>.same(key, other[...]), "length \(length), byte \(position)")
                // And within a larger buffer (a slice not at its start).
                let padded = [9, 9, 9] + other + [9]
                #expect(!BytesKeyedCache<Int>.same(key, padded[3..<3 + length]), "length \(length), byte \(position), sliced")
                #expect(BytesKeyedCache<Int>.same(key, ([9, 9, 9] + key + [9])[3..<3 + length]))
            }
        }
    }

    /// Random keys, some colliding on purpose in their hash's count half (equal lengths), against
    /// a dictionary of the same keys: the cache finds exactly the values the dictionary holds, and
    /// forgets the oldest first once past its limit.
    @Test func findsExactlyWhatADictionaryHolds() {
        var random = SeededRandom(seed: 0xB7E5_CAC4E)
        var cache = BytesKeyedCache<Int>(bytesMax: 4_000)
        var reference: [[UInt8]: Int] = [:]
        var order: [[UInt8]] = []
        for step in 0..<2_000 {
            let length = Int(random.next() % 24)
            let key = (0..<length).map { _ in UInt8(random.next() % 3) }
            if random.next() % 2 == 0 {
                cache.keep(step, for: key[...])
                if reference[key] == nil, key.count <= 4_000 {
                    reference[key] = step
                    order.append(key)
                    var kept = order.reduce(0) { $0 + $1.count }
                    while kept > 4_000 {
                        let oldest = order.removeFirst()
                        reference[oldest] = nil
                        kept -= oldest.count
                    }
                }
            } else {
                #expect(cache.value(for: key[...]) == reference[key], "step \(step), seed \(random.seed)")
            }
        }
    }
}
