/// A hybrid logical clock reading: wall time in milliseconds plus a logical counter.
///
/// The two parts are packed into one `UInt64`, wall time in the top 48 bits and the counter in
/// the low 16, so comparing timestamps is comparing their raw values: first by wall time, then
/// by counter. 48 bits of milliseconds since the Unix epoch reach the year 10889.
///
/// Every `UInt64` is a valid timestamp. Timestamps are made by a ``HybridClock``; two replicas
/// can issue the same timestamp, so an order that must be total across replicas breaks ties with
/// something else (a replica id).
public struct HybridTimestamp: RawRepresentable, Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The packed value: `wallMilliseconds << 16 | logical`.
    public var rawValue: UInt64

    /// The largest wall time a timestamp holds: 2^48 − 1 milliseconds after the Unix epoch.
    public static let maxWallMilliseconds: UInt64 = (1 << 48) - 1

    /// The smallest timestamp: wall time 0 (the Unix epoch), counter 0.
    public static let zero = HybridTimestamp(rawValue: 0)

    /// The largest timestamp: the largest wall time, counter 65535.
    public static let max = HybridTimestamp(rawValue: .max)

    /// Creates a timestamp from its packed value.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Creates a timestamp from its parts. A wall time above ``maxWallMilliseconds`` is clamped
    /// to it.
    public init(wallMilliseconds: UInt64, logical: UInt16) {
        rawValue = Swift.min(wallMilliseconds, HybridTimestamp.maxWallMilliseconds) << 16 | UInt64(logical)
    }

    /// The wall-time part: milliseconds since the Unix epoch (1970-01-01T00:00:00Z).
    public var wallMilliseconds: UInt64 { rawValue >> 16 }

    /// The logical counter: orders events that share a wall time.
    public var logical: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

    /// `wallMilliseconds:logical`, for example `1712345678901:3`.
    public var description: String { "\(wallMilliseconds):\(logical)" }

    /// Numeric order of the raw values: by wall time, then by logical counter.
    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// A hybrid logical clock (HLC): timestamps that follow causality like a Lamport clock and stay
/// close to wall time like a physical clock.
///
/// The algorithm is the one of Kulkarni, Demirbas, Madappa, Avva and Leone, "Logical Physical
/// Clocks" (OPODIS 2014). Each timestamp is a pair (l, c): l is the largest wall time the clock
/// has seen, its own or in a timestamp it received, and c counts events that happened while l
/// stood still.
///
/// - A local event (``tick(wallMilliseconds:)``) at wall time `pt`: if `pt > l`, the timestamp
///   is `(pt, 0)`; otherwise it is `(l, c + 1)`.
/// - A receive event (``observe(_:wallMilliseconds:)``) of a remote `(lm, cm)`: with
///   `l' = max(l, lm, pt)`, the counter becomes `max(c, cm) + 1` if `l' == l == lm`,
///   `c + 1` if only `l' == l`, `cm + 1` if only `l' == lm`, and `0` if `l' == pt` is larger
///   than both.
///
/// Because the packed raw value orders `(l, c)` lexicographically, both rules are one
/// expression on raw values: the new timestamp is
/// `max(max(latest, remote).rawValue + 1, pt << 16)` (`remote` is zero for a local event).
/// When `pt` is ahead, this is `(pt, 0)`; otherwise it adds one to the counter of the largest
/// timestamp seen. Adding one to a counter of 65535 carries into the wall part: the wall time
/// advances by 1 ms and the counter restarts at 0, instead of overflowing. (The paper's bound on
/// the counter makes this rare: it needs 65536 events within one millisecond, or a peer whose
/// clock is that far ahead.)
///
/// Guarantees:
/// - Every timestamp the clock issues is strictly greater than every timestamp it issued or
///   observed before, whatever the wall clock does: jumps backwards, skew between devices and
///   repeated readings do not make it go back or repeat. So if one replica observed a timestamp
///   `t` of another, its next tick is greater than `t` (happened-before implies a larger
///   timestamp).
/// - A tick is at least the wall time passed in (`pt << 16`), so timestamps track real time on
///   a correct clock. A clock that has seen a timestamp from a peer whose clock runs ahead stays
///   ahead with it (the HLC trade-off); it never falls behind its own wall clock.
///
/// Limits:
/// - Wall times above ``HybridTimestamp/maxWallMilliseconds`` (2^48 − 1 ms, in the year 10889)
///   are clamped to it.
/// - At the very top of the range (``HybridTimestamp/max``) there is no larger timestamp: the
///   clock saturates there and returns ``HybridTimestamp/max`` again instead of trapping. Only a
///   remote timestamp near the end of the range (from a corrupt or hostile peer) can bring a
///   clock there; callers that receive untrusted timestamps should reject ones too far ahead of
///   their own wall time before observing them.
///
/// The clock reads no clock itself: the caller passes the current wall time to every call.
public struct HybridClock: Sendable {
    /// The largest timestamp the clock has issued or observed: every later tick is greater.
    public private(set) var latest: HybridTimestamp

    /// Creates a clock that will issue timestamps greater than `latest` (`.zero` for a new
    /// clock; a saved ``latest`` to resume one, so it never reissues a timestamp).
    public init(latest: HybridTimestamp = .zero) {
        self.latest = latest
    }

    /// Records a local event at wall time `now` and returns its timestamp.
    ///
    /// The result is strictly greater than every timestamp issued or observed before (except at
    /// the saturation point ``HybridTimestamp/max``), and at least `(now, 0)`.
    ///
    /// - Parameter now: the current wall time in milliseconds since the Unix epoch; values
    ///   above 2^48 − 1 are clamped.
    /// - Complexity: O(1).
    public mutating func tick(wallMilliseconds now: UInt64) -> HybridTimestamp {
        advance(past: latest, now: now)
    }

    /// Records the receipt of a timestamp from another replica at wall time `now`.
    ///
    /// Afterwards ``latest`` is greater than both `remote` and every earlier timestamp, so every
    /// later ``tick(wallMilliseconds:)`` is too.
    ///
    /// - Returns: the timestamp of the receive event itself (the new ``latest``).
    /// - Complexity: O(1).
    @discardableResult
    public mutating func observe(_ remote: HybridTimestamp, wallMilliseconds now: UInt64) -> HybridTimestamp {
        advance(past: Swift.max(latest, remote), now: now)
    }

    /// The next timestamp after `floor`: `max(floor + 1, (now, 0))`, saturating at the top.
    private mutating func advance(past floor: HybridTimestamp, now: UInt64) -> HybridTimestamp {
        let physical = Swift.min(now, HybridTimestamp.maxWallMilliseconds) << 16
        let (successor, overflow) = floor.rawValue.addingReportingOverflow(1)
        let next = HybridTimestamp(rawValue: Swift.max(overflow ? UInt64.max : successor, physical))
        latest = next
        return next
    }
}
