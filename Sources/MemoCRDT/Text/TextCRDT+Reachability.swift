// A decoded text state must be one the engine could have produced (FORMAT.md, "What a reader
// checks"; issue 25): its visible order and items follow from its operations' origins, and its
// history applies whole to a replica that starts empty. A state that only looks valid (each
// operation checked against the ones before it in its own log) can still place an item where no
// replica applying the same operations would: a peer and the state would then hold the same
// version with different texts, and never converge.

extension TextCRDT {
    /// Checks, after a decode, that this text is what its own history gives on a replica that
    /// starts empty: when some insertion was replayed by its origins (`placedByOrigins`, id form), ``changes(since:)`` from nothing, applied to
    /// an empty text, holds nothing back and gives the same version and the same items (deleted
    /// ones included) in the same order.
    ///
    /// A log whose insertions are all in position form needs no second application: each was
    /// placed as a local edit of the text replayed so far, between two neighbours, by a writer
    /// holding everything before it, which is a history a replica can make; such a history
    /// converges whatever order its operations arrive in.
    ///
    /// - Throws: `DecodingError.malformed` when it is not.
    /// - Complexity: O(d log l) for d deletions and l Lamport runs; with id-form insertions, one
    ///   application of the whole history more.
    func checkProducedByItsHistory(placedByOrigins: Bool) throws(DecodingError) {
        // Deletions are not checked against their targets' timestamps here: a deletion's place
        // in the result does not depend on the order it arrives in (it marks its target), and
        // `apply` takes a deletion whatever its timestamp, so a state refused for it would be
        // one the engine had accepted and could no longer read back (a library that no longer
        // opens). `checkDeletionsAreNewerThanTheirTargets` stays for the day `apply` refuses
        // them too.
        guard placedByOrigins else { return }
        var rebuilt = TextCRDT(replica: replicaNotInTable())
        do {
            _ = try rebuilt.apply(changes(since: VersionVector()))
        } catch {
            throw .malformed("its history does not apply to an empty text (\(error))")
        }
        guard rebuilt.pendingOperationCount == 0, rebuilt.version == version else {
            throw .malformed("an empty text given its history holds another version or holds operations back")
        }
        guard Self.sameItemsInOrder(self, rebuilt) else {
            throw .malformed("its items are not in the order its operations' origins give")
        }
    }

    /// A deletion is newer than its target (a replica's clock passes every operation it holds,
    /// and a replica deletes only what it holds).
    ///
    /// - Complexity: O(d log l) for d deletions and l Lamport runs.
    func checkDeletionsAreNewerThanTheirTargets() throws(DecodingError) {
        for index in logs.indices {
            let log = logs[index]
            for run in log.deletionRuns {
                var hint = 0
                var targetHint = 0
                for offset in 0..<run.length {
                    let target = run.target(at: offset)
                    let lamport = log.lamport(of: run.counter + offset, hint: &hint)
                    guard logs[target.replica].lamport(of: target.counter, hint: &targetHint) < lamport else {
                        throw .malformed("a deletion is not newer than the item it deletes")
                    }
                }
            }
        }
    }

    /// A replica id this text holds no operation of (the rebuilt text's own replica).
    private func replicaNotInTable() -> ReplicaID {
        var candidate = replica
        while replicaTable.index(of: candidate) != nil { candidate = ReplicaID(candidate.rawValue &+ 1) }
        return candidate
    }

    /// Whether `first` and `second` hold the same items in the same document order, each deleted
    /// in both or in neither (compared span piece by span piece, whatever the spans' splits).
    ///
    /// - Complexity: O(s) for s spans.
    package static func sameItemsInOrder(_ first: TextCRDT, _ second: TextCRDT) -> Bool {
        var left = SpanStream(first)
        var right = SpanStream(second)
        while true {
            switch (left.current, right.current) {
            case (nil, nil): return true
            case (nil, _), (_, nil): return false
            case let (a?, b?):
                guard a.replica == b.replica, a.counter == b.counter, a.isDeleted == b.isDeleted else { return false }
                let taken = min(a.length, b.length)
                left.consume(taken)
                right.consume(taken)
            }
        }
    }

    /// The spans of a text in document order, as (replica id, counter, length, deleted) pieces.
    private struct SpanStream {
        let text: TextCRDT
        var leaf: UInt32
        var index = 0
        var current: (replica: ReplicaID, counter: UInt32, length: UInt32, isDeleted: Bool)?

        init(_ text: TextCRDT) {
            self.text = text
            leaf = text.firstLeaf
            advance()
        }

        /// Moves to the next span (nil at the end).
        private mutating func advance() {
            while leaf != noIndex {
                let slots = text.slots(of: leaf)
                if index < slots.count {
                    let span = text.spans[slots[slots.startIndex + index]]
                    index += 1
                    current = (text.replicaTable.ids[span.replica], span.counter, span.lengthScalars, span.isDeleted)
                    return
                }
                leaf = text.leafHeaders[leaf].next
                index = 0
            }
            current = nil
        }

        /// Consumes `count` items of the current piece.
        mutating func consume(_ count: UInt32) {
            guard var piece = current else { return }
            if count < piece.length {
                piece.counter += count
                piece.length -= count
                current = piece
            } else {
                advance()
            }
        }
    }
}
