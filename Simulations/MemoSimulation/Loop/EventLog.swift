/// The record of what a run did: every event folded into a 64-bit FNV-1a hash, and, when asked
/// for, the readable lines themselves.
///
/// Two runs of one seed on one build must end with the same ``hash``: the determinism test
/// compares them. Lines are built only when ``keepsLines`` is on (or a line sink is set), so a
/// fast run pays for hashing a few integers per event, not for formatting text.
public struct EventLog {
    /// FNV-1a 64 over everything recorded so far.
    public private(set) var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    /// Events recorded.
    public private(set) var count = 0
    /// Whether readable lines are built.
    public let keepsLines: Bool
    /// The last lines (at most ``linesMax``), oldest first, when ``keepsLines`` is on.
    public private(set) var lines: [String] = []
    /// Lines kept in memory; older ones are dropped (the hash still covers them).
    public let linesMax: Int
    /// Receives every line as it is made (for `memo-sim --log`), when set.
    public var sink: ((String) -> Void)?

    /// An empty log.
    public init(keepsLines: Bool = false, linesMax: Int = 2_000, sink: ((String) -> Void)? = nil) {
        self.keepsLines = keepsLines || sink != nil
        self.linesMax = linesMax
        self.sink = sink
    }

    /// Folds one byte into the hash.
    @inline(__always)
    public mutating func mix(byte: UInt8) {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
    }

    /// Folds a 64-bit value into the hash (little-endian bytes).
    @inline(__always)
    public mutating func mix(_ value: UInt64) {
        var remaining = value
        for _ in 0..<8 {
            mix(byte: UInt8(truncatingIfNeeded: remaining))
            remaining >>= 8
        }
    }

    /// Folds an integer into the hash.
    @inline(__always)
    public mutating func mix(_ value: Int) { mix(UInt64(bitPattern: Int64(value))) }

    /// Folds the UTF-8 of `text` into the hash.
    public mutating func mix(_ text: String) {
        for byte in text.utf8 { mix(byte: byte) }
        mix(byte: 0xFF)
    }

    /// Records one event: `kind` and the fields `a`, `b`, `c` go into the hash; the line is built from
    /// `describe` only when lines are kept.
    @inline(__always)
    public mutating func record(
        time: UInt64, peer: Int, kind: UInt8, _ a: UInt64 = 0, _ b: UInt64 = 0, _ c: UInt64 = 0, describe: () -> String
    ) {
        count += 1
        mix(time)
        mix(peer)
        mix(byte: kind)
        mix(a)
        mix(b)
        mix(c)
        if keepsLines { append(line: Self.format(time: time, peer: peer, describe())) }
    }

    /// Adds a readable line without hashing it (notes that do not change the run).
    public mutating func note(_ text: @autoclosure () -> String) {
        if keepsLines { append(line: text()) }
    }

    private mutating func append(line: String) {
        sink?(line)
        lines.append(line)
        if lines.count > linesMax + linesMax / 2 { lines.removeFirst(lines.count - linesMax) }
    }

    /// A line: the simulated time (days, hours, minutes, seconds, milliseconds), the peer, the
    /// text.
    public static func format(time: UInt64, peer: Int, _ text: String) -> String {
        let who = peer < 0 ? "   " : (peer < 10 ? "r0\(peer)" : "r\(peer)")
        return "\(SimulatedTime.describe(time)) \(who) \(text)"
    }

    /// The hash as 16 hexadecimal digits.
    public var hashText: String { Self.hex(hash) }

    /// `value` as 16 lowercase hexadecimal digits.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// Simulated time: milliseconds since the start of a run.
public enum SimulatedTime {
    public static let second: UInt64 = 1_000
    public static let minute: UInt64 = 60 * second
    public static let hour: UInt64 = 60 * minute
    public static let day: UInt64 = 24 * hour

    /// "2d03:04:05.006" for 2 days, 3 hours, 4 minutes, 5.006 seconds.
    public static func describe(_ milliseconds: UInt64) -> String {
        let days = milliseconds / day
        var rest = milliseconds % day
        let hours = rest / hour
        rest %= hour
        let minutes = rest / minute
        rest %= minute
        let seconds = rest / second
        let millis = rest % second
        func two(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        func three(_ value: UInt64) -> String { value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : "\(value)" }
        return "\(days)d\(two(hours)):\(two(minutes)):\(two(seconds)).\(three(millis))"
    }

    /// A short human duration: "350ms", "12.5s", "3.2h", "4.1d".
    public static func short(_ milliseconds: UInt64) -> String {
        if milliseconds < second { return "\(milliseconds)ms" }
        if milliseconds < minute { return oneDecimal(Double(milliseconds) / Double(second)) + "s" }
        if milliseconds < hour { return oneDecimal(Double(milliseconds) / Double(minute)) + "min" }
        if milliseconds < day { return oneDecimal(Double(milliseconds) / Double(hour)) + "h" }
        return oneDecimal(Double(milliseconds) / Double(day)) + "d"
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
