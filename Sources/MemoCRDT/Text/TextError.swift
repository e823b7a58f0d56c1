/// What went wrong with a text operation. Every failure leaves the text unchanged.
public enum TextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An offset lies past the end of the text (the valid offsets are `0...length`).
    case offsetOutOfBounds(offset: Int, length: Int)
    /// A UTF-16 offset falls between the two halves of a surrogate pair.
    case offsetInsideSurrogatePair(offsetUTF16: Int)
    /// A range is malformed or reaches past the end of the text.
    case rangeOutOfBounds(lowerBound: Int, upperBound: Int, length: Int)
    /// The operation would take a replica's counter past `Limits.operationsPerReplicaMax`.
    case counterOverflow(replica: ReplicaID)
    /// The operation would take the text's content past `Limits.contentBytesMax`.
    case contentTooLarge(bytes: Int)
    /// Too many distinct replicas (`Limits.replicasPerTextMax`).
    case tooManyReplicas
    /// A delta refers to operations in a way no correct replica could produce.
    case invalidDelta(reason: String)
    /// Too many operations are waiting for dependencies (`Limits.pendingOperationsMax`).
    case tooManyPendingOperations(count: Int)
    /// An anchor or character id names a character this text does not hold.
    case unknownAnchor
    /// Operations asked for by id range (``TextCRDT/changes(in:)``) that this text does not hold.
    case operationsNotHeld(replica: ReplicaID, counters: Range<UInt32>)
    /// The text's Lamport clock is at its limit (2^48 − 2^16): no new operation can be ordered
    /// after what it has seen. Honest replicas never get near it (the clock grows by one per
    /// operation); only operations forged with a timestamp at the limit bring it there.
    case clockExhausted

    public var description: String {
        switch self {
        case let .offsetOutOfBounds(offset, length):
            "offset \(offset) is outside the text (valid offsets are 0...\(length))"
        case let .offsetInsideSurrogatePair(offset):
            "UTF-16 offset \(offset) falls inside a surrogate pair"
        case let .rangeOutOfBounds(lower, upper, length):
            "range \(lower)..<\(upper) is not inside the text (length \(length))"
        case let .counterOverflow(replica):
            "replica \(replica) has used every operation counter this text allows"
        case let .contentTooLarge(bytes):
            "the text would hold \(bytes) bytes of content, more than the limit"
        case .tooManyReplicas:
            "the text holds operations from more replicas than the limit"
        case let .invalidDelta(reason):
            "invalid delta: \(reason)"
        case let .tooManyPendingOperations(count):
            "\(count) operations are waiting for their dependencies, more than the limit"
        case .unknownAnchor:
            "the anchor's character is not in this text"
        case let .operationsNotHeld(replica, counters):
            "operations \(counters.lowerBound)..<\(counters.upperBound) of replica \(replica) are not all in this text"
        case .clockExhausted:
            "the text's Lamport clock is at its limit: no new operation can be ordered after what it holds"
        }
    }
}
