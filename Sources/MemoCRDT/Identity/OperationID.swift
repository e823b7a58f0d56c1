/// The globally unique name of one operation: the replica that made it and its counter there.
///
/// Each replica numbers its operations 0, 1, 2, ... with no gaps, per document. Every operation
/// gets an id, deletions included, so a version vector (the number of operations seen from each
/// replica) names an exact set of operations, and "everything since version V" is exact for
/// deletions as well as insertions.
///
/// In a text, one inserted Unicode scalar is one operation and so is the deletion of one scalar;
/// a typed run of n characters is n consecutive ids, stored and sent as one run.
public struct OperationID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The replica that made the operation.
    public var replica: ReplicaID
    /// The operation's position in its replica's sequence, starting at 0.
    public var counter: UInt32

    /// Creates an operation id.
    public init(replica: ReplicaID, counter: UInt32) {
        self.replica = replica
        self.counter = counter
    }

    /// `replica.counter`, for example `00000000000000a1.17`.
    public var description: String { "\(replica).\(counter)" }

    /// Orders by replica, then counter. This order is arbitrary but total and the same
    /// everywhere; it is not causal order.
    public static func < (lhs: OperationID, rhs: OperationID) -> Bool {
        (lhs.replica, lhs.counter) < (rhs.replica, rhs.counter)
    }
}
