import MemoCRDT
/// The identity of one memo: 128 random bits chosen by the caller.
///
/// The core has no random source of its own, so a new id is drawn from a generator the caller
/// passes in (`MemoID(using: &generator)`, typically `SystemRandomNumberGenerator`). With 128
/// random bits, two devices creating memos offline never pick the same id in practice (a
/// collision becomes likely only after about 2^64 ids). The bits are used as drawn: no version
/// or variant bits are set, so an id is not an RFC 9562 UUID.
///
/// Ids print and parse as 32 hexadecimal digits, and are totally ordered by `(high, low)`,
/// which is also the numeric order of that hexadecimal form.
public struct MemoID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The upper 64 bits (the first 16 hexadecimal digits).
    public var high: UInt64
    /// The lower 64 bits (the last 16 hexadecimal digits).
    public var low: UInt64

    /// Creates an id from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates a random id from `generator`: two calls to `next()`, the first for `high`.
    ///
    /// The same generator state gives the same id, so seeded generators give reproducible ids
    /// in tests and simulations.
    public init<G: RandomNumberGenerator>(using generator: inout G) {
        let high = generator.next()
        let low = generator.next()
        self.init(high: high, low: low)
    }

    /// Parses exactly 32 hexadecimal digits, lowercase or uppercase (the form `description`
    /// prints).
    ///
    /// Returns `nil` for anything else: another length, a sign, spaces, dashes or any character
    /// that is not `0-9`, `a-f`, `A-F`.
    public init?(_ text: some StringProtocol) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var count = 0
        for byte in text.utf8 {
            guard count < 32, let digit = MemoID.hexDigitValue(byte) else { return nil }
            if count < 16 {
                high = high << 4 | UInt64(digit)
            } else {
                low = low << 4 | UInt64(digit)
            }
            count += 1
        }
        guard count == 32 else { return nil }
        self.init(high: high, low: low)
    }

    /// The id as 32 lowercase hexadecimal digits, zero-padded: `high` then `low`.
    public var description: String {
        var digits = [UInt8](repeating: 0, count: 32)
        for index in 0..<16 {
            let shift = UInt64(60 - 4 * index)
            digits[index] = MemoID.hexDigits[Int(truncatingIfNeeded: high >> shift & 0xF)]
            digits[16 + index] = MemoID.hexDigits[Int(truncatingIfNeeded: low >> shift & 0xF)]
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// Orders by `high`, then `low`: the numeric order of the 128-bit value.
    public static func < (lhs: MemoID, rhs: MemoID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    // MARK: Abbreviations

    /// What an abbreviated id (a prefix of the hexadecimal form) names among a set of ids.
    public enum PrefixMatch: Hashable, Sendable {
        /// No id starts with the prefix, or the prefix is not a valid abbreviation (empty,
        /// longer than 32 digits, or not hexadecimal).
        case none
        /// Exactly one id starts with the prefix.
        case unique(MemoID)
        /// Several ids start with the prefix: all of them, ascending, without duplicates.
        case ambiguous([MemoID])
    }

    /// Resolves an abbreviation: the ids in `ids` whose hexadecimal form starts with `prefix`.
    ///
    /// The prefix is compared case-insensitively. An empty prefix, a prefix longer than 32
    /// digits or one with any non-hexadecimal character (spaces included) matches nothing:
    /// the result is `.none`. An id that appears several times in `ids` counts once.
    ///
    /// - Complexity: O(n) in the number of ids, plus O(k log k) to sort k ambiguous matches.
    ///   No strings are built: the prefix is compared as bits.
    public static func matching(prefix: String, in ids: some Collection<MemoID>) -> PrefixMatch {
        // The prefix as a 128-bit value with the digits in the top bits, and a mask of those bits.
        var value = MemoID(high: 0, low: 0)
        var mask = MemoID(high: 0, low: 0)
        var count = 0
        for byte in prefix.utf8 {
            guard count < 32, let digit = hexDigitValue(byte) else { return .none }
            let shift = UInt64(60 - 4 * (count % 16))
            if count < 16 {
                value.high |= UInt64(digit) << shift
                mask.high |= 0xF << shift
            } else {
                value.low |= UInt64(digit) << shift
                mask.low |= 0xF << shift
            }
            count += 1
        }
        guard count > 0 else { return .none }

        var first: MemoID?
        var matches: [MemoID] = []
        for id in ids where id.high & mask.high == value.high && id.low & mask.low == value.low {
            if let first {
                if matches.isEmpty {
                    if id == first { continue }
                    matches.append(first)
                }
                matches.append(id)
            } else {
                first = id
            }
        }
        guard let first else { return .none }
        if matches.isEmpty { return .unique(first) }
        matches.sort()
        var unique: [MemoID] = []
        unique.reserveCapacity(matches.count)
        for id in matches where unique.last != id { unique.append(id) }
        return unique.count == 1 ? .unique(unique[0]) : .ambiguous(unique)
    }

    // MARK: Hexadecimal

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The value of one ASCII hexadecimal digit, either case; `nil` for any other byte.
    private static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
