import MemoCRDT

/// A run of characters one replica typed at one place with nothing arriving in between (a
/// typing run, a paste, a replacement's insertion), kept to check non-interleaving at the end.
struct RunRecord {
    /// The start-of-text anchor (no tracked scalar is 0).
    static let startAnchor: UInt32 = 0

    var peer: Int
    var memo: Int
    /// The tracked scalar just left of where the run started, or ``startAnchor``.
    var anchor: UInt32
    /// Its tracked characters, in typing order.
    var scalars: [UInt32] = []
    /// The replica id it was typed under and the first operation counter it used.
    var replica: ReplicaID
    var firstCounter: UInt32
    /// What the replica held when it started typing.
    var seen: VersionVector

    /// Whether the replica that typed `other` had seen this run first.
    func wasSeen(by other: RunRecord) -> Bool {
        other.seen[replica] > firstCounter
    }

    /// Whether the two runs were typed without either replica having seen the other's.
    func isConcurrent(with other: RunRecord) -> Bool {
        peer != other.peer && !wasSeen(by: other) && !other.wasSeen(by: self)
    }
}
