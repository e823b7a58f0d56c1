/// Every hard limit of the core, in one place.
///
/// Input that would exceed a limit is refused with a typed error; nothing is truncated silently.
/// The relationships between limits are checked by a unit test (`LimitsTests`).
package enum Limits {
    /// The largest counter a replica may reach in one text. Counters are stored in 32 bits;
    /// the top value is reserved as a sentinel.
    package static let operationsPerReplicaMax: UInt32 = UInt32.max - 1

    /// The most distinct replicas one text may hold operations from. Replica ids are interned
    /// into 32-bit indexes; the top value is reserved as a sentinel.
    package static let replicasPerTextMax: Int = 1 << 24

    /// The longest run of Unicode scalars kept in one span in memory. Longer runs (a large paste)
    /// are stored as several spans, so splitting a span and converting offsets inside it stay
    /// bounded work. The encoding merges them again, so this limit never shows in bytes.
    package static let spanLengthScalarsMax: Int = 4096

    /// The most UTF-8 bytes of text content one text may hold, deleted content included until it
    /// is compacted away. Content offsets are stored in 32 bits.
    package static let contentBytesMax: Int = Int(UInt32.max) - 1

    /// The largest gap between an operation's Lamport timestamp and its counter, which is at
    /// least 1 (a replica's n-th operation has seen its n − 1 before it). A text state stores
    /// timestamps as this gap, so a delta beyond it is refused rather than held in a state that
    /// would not decode.
    package static let lamportOffsetMax: UInt64 = UInt64(UInt32.max) << 16

    /// The largest Lamport timestamp any operation may carry, whatever its counter: a state, a
    /// delta or a local edit that would go past it is refused (`TextError.clockExhausted` for an
    /// edit). A text's clock is shared by every memo of a notebook, and a replica's next
    /// operation in a memo may have counter 0, so a timestamp up to the offset limit is the most
    /// every later operation can still be encoded after: with the offset check alone, a delta
    /// at the limit was accepted and made this replica's own next edit one that no state can
    /// hold (its library then failed to open). Honest replicas stay far below it: a timestamp
    /// grows by one per operation seen.
    package static let lamportMax: UInt64 = lamportOffsetMax

    /// The most operations a text holds back while waiting for their causal dependencies.
    package static let pendingOperationsMax: Int = 1 << 22

    /// The largest encoded text state or delta a decoder accepts, in bytes.
    package static let encodedBytesMax: Int = 1 << 30
}
