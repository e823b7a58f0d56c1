/// One device's wall clock in a simulation: the simulated time, plus a fixed skew, a drift
/// proportional to the time elapsed, and whatever jumps it made (a user or NTP setting it).
///
/// The result is what `ReplicaEnvironment.wallMilliseconds` returns: milliseconds since 1970,
/// never below ``floorMilliseconds`` and never above the hybrid clock's 48-bit range.
public struct SimulatedClock: Sendable, Equatable {
    /// Wall time at simulated time zero: 2026-01-01T00:00:00Z.
    public static let epochMilliseconds: UInt64 = 1_767_225_600_000
    /// The lowest reading (2001-09-09), so a clock set far back stays a plausible date.
    public static let floorMilliseconds: UInt64 = 1_000_000_000_000
    /// The highest reading (the hybrid clock's limit).
    public static let ceilingMilliseconds: UInt64 = (1 << 48) - 1

    /// Constant offset from true time, in milliseconds (negative: behind).
    public var skewMilliseconds: Int64
    /// Gain in parts per million of elapsed time (negative: the clock runs slow).
    public var driftPartsPerMillion: Int64
    /// Sum of every jump so far, in milliseconds.
    public var jumpsMilliseconds: Int64 = 0

    /// A clock with `skewMilliseconds` and `driftPartsPerMillion`.
    public init(skewMilliseconds: Int64 = 0, driftPartsPerMillion: Int64 = 0) {
        self.skewMilliseconds = skewMilliseconds
        self.driftPartsPerMillion = driftPartsPerMillion
    }

    /// The reading at simulated time `now` (milliseconds since the start of the run).
    public func wallMilliseconds(at now: UInt64) -> UInt64 {
        let elapsed = Int64(clamping: now)
        let drift = elapsed / 1_000_000 * driftPartsPerMillion + (elapsed % 1_000_000) * driftPartsPerMillion / 1_000_000
        let reading = Int64(Self.epochMilliseconds) &+ elapsed &+ skewMilliseconds &+ drift &+ jumpsMilliseconds
        return UInt64(min(max(reading, Int64(Self.floorMilliseconds)), Int64(Self.ceilingMilliseconds)))
    }

    /// Moves the clock by `milliseconds` (forwards when positive).
    public mutating func jump(by milliseconds: Int64) {
        jumpsMilliseconds = jumpsMilliseconds &+ milliseconds
    }
}
