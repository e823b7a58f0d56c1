/// A small, fast, seedable random source (xoshiro256**, seeded through SplitMix64), so every
/// randomized test can print its seed on failure and be rerun with exactly the same choices.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)
    /// The seed this generator started from.
    public let seed: UInt64

    /// Creates a generator from `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        var mix = seed
        func splitMix() -> UInt64 {
            mix &+= 0x9E37_79B9_7F4A_7C15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A uniformly random integer in `range`.
    public mutating func int(in range: Range<Int>) -> Int { Int.random(in: range, using: &self) }

    /// A uniformly random integer in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }

    /// A random element of `elements`, which must not be empty.
    public mutating func pick<C: Collection>(_ elements: C) -> C.Element {
        elements[elements.index(elements.startIndex, offsetBy: int(in: 0..<elements.count))]
    }
}

/// Seeds for randomized tests: `count` fixed seeds, or the one seed in the environment
/// variable `MEMOSYNC_SEED` when it is set (to rerun a failure). `MEMOSYNC_SEEDS` overrides the
/// count (for long soaks).
public func testSeeds(_ count: Int, salt: UInt64 = 0) -> [UInt64] {
    if let text = environmentValue("MEMOSYNC_SEED"), let seed = UInt64(text) { return [seed] }
    let total = environmentValue("MEMOSYNC_SEEDS").flatMap { Int($0) } ?? count
    return (0..<UInt64(total)).map { $0 &* 0x9E37_79B9 &+ salt }
}

/// Reads an environment variable without Foundation.
public func environmentValue(_ name: String) -> String? {
    guard let pointer = getenv(name) else { return nil }
    return String(cString: pointer)
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
