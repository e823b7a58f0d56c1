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
    /// more); 0 or less keeps none.
    public init(bytesMax: Int = 8 << 20) {
        state = Mutex(BytesKeyedCache(bytesMax: max(0, bytesMax)))
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

    /// Keeps `text`, decoded from the body at `range` of `bytes`. A text decoded with the
    /// history check replaces one kept without it.
    func keep(_ text: TextCRDT, _ bytes: [UInt8], range: Range<Int>, historyChecked: Bool) {
        state.withLock { cache in
            cache.keep(Kept(text: text, historyChecked: historyChecked), for: bytes[range]) { kept in
                if historyChecked && !kept.historyChecked { kept = Kept(text: text, historyChecked: true) }
            }
        }
    }
}

extension SharedTextDecodes {
    /// Keeps `text`, which this process just encoded to the body at `range` of `bytes` (a
    /// text turned back into its encoded form to give back memory), as what decoding those
    /// bytes gives: the operations, items and local replica it holds, without what a body does
    /// not hold (kept deleted content, which travels in its own section, and the local setting
    /// to keep it). A text holding operations back is not kept (its body leaves them out), nor
    /// one whose replicas are not in the order a decode interns them (the body's in ascending
    /// order, then the local one if it has no operation there): an edited text interns them as
    /// they come.
    package func keepEncoding(of text: TextCRDT, _ bytes: [UInt8], range: Range<Int>) {
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active != nil { return }  // a broken engine's texts are not what its bodies decode to
        #endif
        guard text.pending.isEmpty else { return }
        let ids = text.replicaTable.ids
        var previous: ReplicaID?
        for (index, id) in ids.enumerated() {
            if text.logs[index].operationCount == 0 {
                // Only the local replica may have nothing, and it comes last.
                guard id == text.replica, index == ids.count - 1 else { return }
            } else {
                if let previous, previous >= id { return }
                previous = id
            }
        }
        var decoded = text
        decoded.retained = RetainedContent()
        decoded.keepsDeletedContent = false
        decoded.typingCursor = nil
        decoded.cursorLeaf = noIndex
        keep(decoded, bytes, range: range, historyChecked: false)
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
    /// for the same bytes is taken and rebound to `replica` (one kept without the history
    /// check only when `takesUnchecked`: a body this process encoded itself); otherwise the
    /// body is decoded (checked against its history when `checksHistory`) and kept.
    static func decodingVersion2BodySharing(
        _ bytes: [UInt8], range: Range<Int>, replica: ReplicaID, checksHistory: Bool, takesUnchecked: Bool = false
    ) throws(DecodingError) -> TextCRDT {
        #if MEMOSYNC_MUTANTS
        // A broken replay may depend on the replica decoded for: each decodes its own.
        let sharing = EngineMutant.active == nil ? SharedTextDecodes.current : nil
        #else
        let sharing = SharedTextDecodes.current
        #endif
        guard let shared = sharing else {
            return try TextCRDT(decodingVersion2Body: bytes, range: range, replica: replica, checksHistory: checksHistory)
        }
        if let kept = shared.text(bytes, range: range, needsHistoryChecked: !takesUnchecked) {
            let text = kept.rebindingDecoded(to: replica)
            #if MEMOSYNC_INTERNAL_CHECKS
            let fresh = try TextCRDT(decodingVersion2Body: bytes, range: range, replica: replica, checksHistory: checksHistory)
            precondition(
                fresh.replica == text.replica && fresh.replicaTable.ids == text.replicaTable.ids
                    && fresh.localReplicaIndex == text.localReplicaIndex,
                "a shared decode's replicas differ from decoding the body again: \(text.replicaTable.ids) local \(text.localReplicaIndex), \(fresh.replicaTable.ids) local \(fresh.localReplicaIndex)")
            precondition(fresh.version == text.version && fresh.lamport == text.lamport,
                "a shared decode's version or clock differs from decoding the body again: \(text.lamport) \(fresh.lamport)")
            precondition(fresh.string == text.string && TextCRDT.sameItemsInOrder(fresh, text),
                "a shared decode's items differ from decoding the body again")
            precondition(fresh.encodedBody() == text.encodedBody(), "a shared decode encodes otherwise than decoding the body again")
            #endif
            return text
        }
        let text = try TextCRDT(decodingVersion2Body: bytes, range: range, replica: replica, checksHistory: checksHistory)
        shared.keep(text, bytes, range: range, historyChecked: checksHistory)
        return text
    }
}

