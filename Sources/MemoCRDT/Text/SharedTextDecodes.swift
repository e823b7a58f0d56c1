import Synchronization

// Why this exists
// ---------------
// Several replicas in one process (the simulator's world holds eight) decode the same text
// bodies again and again: a memo every replica holds at the same state has the same canonical
// body everywhere, and each replica decodes it when it merges into it, reads it, or takes it
// from a snapshot; a replica that keeps few texts decoded decodes its own bodies again after
// every save. Measured on long simulator seeds, half to three quarters of the body bytes
// decoded were bytes decoded before (seed 5: 77%).
//
// A decoded text differs between replicas only in the replica its local edits go to: the
// decoder interns the local replica after the body's own replicas (a new, empty log at the
// end when the body holds nothing of it). So a text decoded for one replica becomes the text
// decoded for another by dropping that empty log, if there is one, and interning the other
// (`TextCRDT.rebindingDecoded(to:)`). Builds with internal checks decode again on every hit
// and compare.

/// Text bodies decoded before, shared by every decode that consults it, so that decoding the
/// same bytes again (for any replica) copies the text instead (copy-on-write: nothing is copied
/// until it is edited).
///
/// It is off unless a caller binds one for the work that decodes:
/// `SharedTextDecodes.$current.withValue(SharedTextDecodes()) { ... }`. The simulator binds one
/// per simulated world, shared by its replicas. What a decode gives is the same with or without
/// it.
public final class SharedTextDecodes: Sendable {
    /// The shared decodes this task (or thread) consults; nil: none.
    @TaskLocal public static var current: SharedTextDecodes?

    private struct Kept {
        var text: TextCRDT
        /// Whether the decode checked that the text is produced by its own history (a body the
        /// process encoded itself is decoded without that check, in release builds).
        var historyChecked: Bool
    }

    private let state: Mutex<BytesKeyedCache<Kept>>

    /// Keeps the texts of up to `bytesMax` bytes of bodies (the decoded texts take a few times
    /// more).
    public init(bytesMax: Int = 8 << 20) {
        state = Mutex(BytesKeyedCache(bytesMax: bytesMax))
    }

    /// How many bodies are kept.
    public var count: Int { state.withLock { $0.count } }
    /// How many decodes took a kept text.
    public var hits: Int { state.withLock { $0.hits } }

    /// The text kept for the body at `range` of `bytes`, if any, and (when
    /// `needsHistoryChecked`) only one whose decode checked it against its history.
    func text(_ bytes: [UInt8], range: Range<Int>, needsHistoryChecked: Bool) -> TextCRDT? {
        let kept = state.withLock { $0.value(for: bytes[range]) }
        guard let kept, kept.historyChecked || !needsHistoryChecked else { return nil }
        return kept.text
    }

    /// Keeps `text`, decoded from the body at `range` of `bytes`.
    func keep(_ text: TextCRDT, _ bytes: [UInt8], range: Range<Int>, historyChecked: Bool) {
        state.withLock { cache in
            cache.keep(Kept(text: text, historyChecked: historyChecked), for: bytes[range]) { kept in
                if historyChecked { kept.historyChecked = true }
            }
        }
    }
}

extension TextCRDT {
    /// This text, decoded from a body for its ``replica``, as decoding that body for `other`
    /// gives it: the local replica's empty log (interned after the body's replicas when the
    /// body holds nothing of it) dropped, and `other` interned.
    func rebindingDecoded(to other: ReplicaID) -> TextCRDT {
        if other == replica { return self }
        var text = self
        if let last = text.logs.last, last.operationCount == 0, text.replicaTable.ids.last == text.replica,
            Int(text.localReplicaIndex) == text.logs.count - 1
        {
            var table = ReplicaTable()
            for id in text.replicaTable.ids.dropLast() { _ = table.intern(id) }
            text.replicaTable = table
            text.logs.removeLast()
        }
        text.replica = other
        text.localReplicaIndex = text.internReplica(other)
        return text
    }

    /// A version 2 body decoded through the bound ``SharedTextDecodes`` (if any): a text kept
    /// for the same bytes is taken and rebound to `replica`; otherwise the body is decoded
    /// (checked against its history when `checksHistory`) and kept.
    static func decodingVersion2BodySharing(
        _ bytes: [UInt8], range: Range<Int>, replica: ReplicaID, checksHistory: Bool
    ) throws(DecodingError) -> TextCRDT {
        guard let shared = SharedTextDecodes.current else {
            return try TextCRDT(decodingVersion2Body: bytes, range: range, replica: replica, checksHistory: checksHistory)
        }
        if let kept = shared.text(bytes, range: range, needsHistoryChecked: checksHistory) {
            let text = kept.rebindingDecoded(to: replica)
            #if MEMOSYNC_INTERNAL_CHECKS
            let fresh = try TextCRDT(decodingVersion2Body: bytes, range: range, replica: replica, checksHistory: checksHistory)
            precondition(
                fresh.replica == text.replica && fresh.replicaTable.ids == text.replicaTable.ids
                    && fresh.localReplicaIndex == text.localReplicaIndex && fresh.version == text.version
                    && fresh.lamport == text.lamport && fresh.string == text.string && TextCRDT.sameItemsInOrder(fresh, text)
                    && fresh.encodedBody() == text.encodedBody(),
                "a shared decode differs from decoding the body again")
            #endif
            return text
        }
        let text = try TextCRDT(decodingVersion2Body: bytes, range: range, replica: replica, checksHistory: checksHistory)
        shared.keep(text, bytes, range: range, historyChecked: checksHistory)
        return text
    }
}
