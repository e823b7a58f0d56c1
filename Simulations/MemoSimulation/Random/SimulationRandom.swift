/// The simulation's only source of randomness: xoshiro256** seeded through SplitMix64.
///
/// Every choice a run makes comes from generators like this one, each derived from the run's
/// seed and a fixed stream name, so a seed fully determines a run on every platform (the
/// standard library's `Int.random(in:)` is avoided: its algorithm is not guaranteed to stay the
/// same across releases).
public struct SimulationRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator from `seed`.
    public init(seed: UInt64) {
        var mix = seed
        s0 = SimulationRandom.splitMix(&mix)
        s1 = SimulationRandom.splitMix(&mix)
        s2 = SimulationRandom.splitMix(&mix)
        s3 = SimulationRandom.splitMix(&mix)
    }

    /// A generator for the stream `stream` of the run seeded `seed`: streams are independent,
    /// so drawing more from one never shifts another.
    public init(seed: UInt64, stream: UInt64) {
        var mix = seed ^ (stream &* 0xD6E8_FEB8_6659_FD93)
        self.init(seed: SimulationRandom.splitMix(&mix))
    }

    /// SplitMix64: the seeding step, also a good 64-bit mixer.
    public static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next 64 random bits.
    @inline(__always)
    public mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotate(s3, 45)
        return result
    }

    @inline(__always)
    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    // MARK: Helpers

    /// A uniformly random value in `0 ..< bound` (Lemire's nearly divisionless method, with its
    /// rejection step, so there is no modulo bias). `bound` must be positive.
    public mutating func below(_ bound: UInt64) -> UInt64 {
        precondition(bound > 0, "empty range")
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// A uniformly random integer in `range`, which must not be empty.
    public mutating func int(in range: Range<Int>) -> Int {
        precondition(!range.isEmpty, "empty range")
        return range.lowerBound + Int(below(UInt64(range.count)))
    }

    /// A uniformly random integer in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(below(UInt64(range.count)))
    }

    /// A uniformly random `UInt64` in `range`.
    public mutating func uint64(in range: ClosedRange<UInt64>) -> UInt64 {
        let span = range.upperBound - range.lowerBound
        return span == .max ? next() : range.lowerBound + below(span + 1)
    }

    /// A random value in [0, 1) with 53 random bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `probability` (0 never, 1 always).
    public mutating func chance(_ probability: Double) -> Bool {
        probability >= 1 || (probability > 0 && unit() < probability)
    }

    /// A random element of `elements`, which must not be empty.
    public mutating func pick<C: Collection>(_ elements: C) -> C.Element {
        elements[elements.index(elements.startIndex, offsetBy: int(in: 0..<elements.count))]
    }

    /// An index into `weights` chosen with probability proportional to its weight. The weights
    /// must not be negative and at least one must be positive.
    public mutating func weighted(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        precondition(total > 0, "no positive weight")
        var target = unit() * total
        for (index, weight) in weights.enumerated() where weight > 0 {
            if target < weight { return index }
            target -= weight
        }
        return weights.lastIndex { $0 > 0 }!
    }

    /// A value between `lower` and `upper` (both positive) spread evenly on a logarithmic
    /// scale: as likely to be seconds as hours as days.
    public mutating func logUniform(_ lower: UInt64, _ upper: UInt64) -> UInt64 {
        precondition(lower > 0 && lower <= upper, "bad log-uniform range")
        let low = log2Approximation(lower)
        let high = log2Approximation(upper)
        let exponent = low + unit() * (high - low)
        let value = UInt64(min(Double(upper), max(Double(lower), exp2Approximation(exponent))))
        return value
    }

    /// A wait drawn from the exponential distribution of mean `meanMilliseconds` (the gaps
    /// between events of a Poisson process), rounded down and at least 1 ms. Computed with a
    /// fixed series, not the platform's math library, so a seed draws the same waits everywhere.
    public mutating func exponentialMilliseconds(mean meanMilliseconds: UInt64) -> UInt64 {
        // u in (0, 1]: never 0, whose logarithm is unbounded.
        let u = Double((next() >> 11) + 1) * 0x1.0p-53
        let wait = -naturalLogarithm(u) * Double(meanMilliseconds)
        return max(1, UInt64(min(wait, Double(UInt64.max / 2))))
    }

    /// Shuffles `elements` in place (Fisher–Yates).
    public mutating func shuffle<T>(_ elements: inout [T]) {
        guard elements.count > 1 else { return }
        for index in stride(from: elements.count - 1, to: 0, by: -1) {
            let other = int(in: 0...index)
            if other != index { elements.swapAt(index, other) }
        }
    }
}

// Deterministic log2 and exp2 for `logUniform`, independent of the platform's math library
// (whose last bits may differ between systems): binary exponent plus a fixed polynomial.
private func log2Approximation(_ value: UInt64) -> Double {
    let exponent = 63 - value.leadingZeroBitCount
    let mantissa = Double(value) / Double(UInt64(1) << exponent)  // in [1, 2)
    // log2(m) for m in [1, 2): a few Newton-free terms of log2(1 + x) suffice here.
    let x = mantissa - 1
    return Double(exponent) + x * (1.4425449 + x * (-0.7181452 + x * (0.4575485 + x * (-0.2779042 + x * 0.0959786))))
}

private func exp2Approximation(_ exponent: Double) -> Double {
    let whole = exponent.rounded(.down)
    let fraction = exponent - whole
    let power = 1 + fraction * (0.6931472 + fraction * (0.2402265 + fraction * (0.0555041 + fraction * (0.0096181 + fraction * 0.0013333))))
    var result = power
    var count = Int(whole)
    while count > 0 { result *= 2; count -= 1 }
    while count < 0 { result /= 2; count += 1 }
    return result
}

/// ln(x) for x > 0, to within a few units in the last place: x = m * 2^e with m in [1, 2),
/// ln(m) = 2 atanh((m - 1) / (m + 1)) by its series (the argument is below 1/3, so 24 terms
/// are far more than enough). Only IEEE arithmetic: the same bits on every platform.
func naturalLogarithm(_ x: Double) -> Double {
    precondition(x > 0 && x.isFinite, "logarithm of a non-positive number")
    let exponent = Double(x.exponent)
    let mantissa = x.significand
    let t = (mantissa - 1) / (mantissa + 1)
    let square = t * t
    var term = t
    var sum = 0.0
    var denominator = 1.0
    for _ in 0..<24 {
        sum += term / denominator
        term *= square
        denominator += 2
    }
    return exponent * 0.693_147_180_559_945_3 + 2 * sum
}
