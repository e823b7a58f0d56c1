/// The identity of one replica: one device's copy of a document or notebook.
///
/// A replica id is 64 bits chosen by the caller (typically from a random source the caller
/// owns), so the core never needs a random number generator of its own. Two replicas must never
/// share an id: every operation a replica makes is named by `(replica, counter)`, and a reused id
/// would give two different operations the same name.
///
/// Replica ids are totally ordered by their raw value. FugueMax uses that order to break ties
/// between concurrent insertions at the same place, so the order is part of the merge semantics.
public struct ReplicaID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 64-bit value of this id.
    public var rawValue: UInt64

    /// Creates a replica id from its raw 64-bit value.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Creates a replica id from its raw 64-bit value.
    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Parses the 16-digit lowercase or uppercase hexadecimal form that `description` prints.
    ///
    /// Returns `nil` for anything else (wrong length, a non-hex character).
    public init?(hexString: some StringProtocol) {
        guard hexString.utf8.count == 16, hexString.utf8.allSatisfy({ byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
        }), let value = UInt64(hexString, radix: 16) else { return nil }
        self.rawValue = value
    }

    /// The id as 16 lowercase hexadecimal digits, zero-padded.
    public var description: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    public static func < (lhs: ReplicaID, rhs: ReplicaID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
