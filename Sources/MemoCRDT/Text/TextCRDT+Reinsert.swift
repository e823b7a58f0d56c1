// Putting deleted text back where it was: right before the (deleted) first character it had,
// after every character that was before that one, visible or not. Inserting at a visible
// offset instead would land before the deleted characters that precede it, so text put back
// in two steps (undo, undo) could come back in the wrong order.

extension TextCRDT {
    /// Whether the character `id` is held here and deleted. A character once deleted stays
    /// deleted, so a passage of this text's deleted text always starts at one; a passage of
    /// another text names ids this text may hold for characters it never deleted.
    package func holdsDeletedCharacter(_ id: OperationID) -> Bool {
        guard let ref = itemRef(id), !ref.isNone, let (slot, _) = lookup(ref) else { return false }
        return spans[slot].isDeleted
    }

    /// Inserts `text` as new local operations immediately before the character `id` (visible or
    /// deleted) in the sequence: its left origin is the character just before `id`, its right
    /// origin `id` itself. Returns the scalar offset in the visible text where it went.
    ///
    /// - Throws: ``TextError/unknownAnchor`` when `id` is not in this text, or a limit error;
    ///   the text is unchanged when it throws.
    /// - Complexity: O(log r + m) for r spans and m inserted scalars.
    @discardableResult
    public mutating func insert(_ text: String, beforeCharacter id: OperationID) throws(TextError) -> Int {
        guard let ref = itemRef(id), !ref.isNone, let (slot, offset) = lookup(ref) else { throw .unknownAnchor }
        let offsetScalars = countsBefore(location(ofSlot: slot)).scalars + (spans[slot].isDeleted ? 0 : Int(offset))
        if text.isEmpty { return offsetScalars }
        try withUTF8(of: text) { bytes -> Result<Void, TextError> in
            let (scalars, _) = UTF8Scanning.counts(of: bytes)
            do throws(TextError) {
                try checkCapacity(operations: scalars, bytes: bytes.count)
            } catch {
                return .failure(error)
            }
            let counter = logs[localReplicaIndex].operationCount
            let lamportStart = lamport + 1
            // Where `id` is, split so that it starts a span.
            var location = self.location(ofSlot: slot)
            var splitPieces: (left: UInt32, right: UInt32)?
            var originLeft = ItemRef.none
            if offset > 0 {
                originLeft = spans[slot].item(at: offset - 1)
                let second = splitSpan(at: location, offset: offset)
                splitPieces = (slot, second.slot)
                location = second
            } else if location.index > 0 {
                originLeft = spans[self.slot(in: location.leaf, at: location.index - 1)].lastItem
            } else if leafHeaders[location.leaf].previous != noIndex {
                let previous = leafHeaders[location.leaf].previous
                originLeft = spans[self.slot(in: previous, at: slotCount(of: previous) - 1)].lastItem
            }
            insertRun(
                leaf: location.leaf, index: location.index, replica: localReplicaIndex, counter: counter,
                lengthScalars: UInt32(scalars), originLeft: originLeft, originRight: spans[location.slot].item(at: 0),
                content: .bytes(bytes))
            if let splitPieces { mergeOutward(left: splitPieces.left, right: splitPieces.right) }
            typingCursor = nil
            logs[localReplicaIndex].appendTimestamps(counter: counter, lamport: lamportStart)
            logs[localReplicaIndex].operationCount = counter + UInt32(scalars)
            lamport = lamportStart + UInt64(scalars) - 1
            checkInvariantsIfEnabled()
            return .success(())
        }.get()
        return offsetScalars
    }
}

extension TextCRDT {
    /// Splits the characters `first ..< first + count` (ids, deleted or not) into stretches that
    /// sit next to each other in the sequence, and returns their lengths in id order. Text put
    /// back for such characters goes back one stretch at a time, each before its own first
    /// character, so that characters placed between them since stay between them.
    ///
    /// The stretches are maximal, whatever the spans that hold the characters: a character
    /// that starts the span right after the one holding the character before it continues that
    /// stretch. So the text put back, and the operations that put it back, depend only on the
    /// sequence, not on how this copy of the text happens to be cut into spans (a text decoded
    /// from its encoding is cut otherwise than the one it was encoded from).
    ///
    /// - Throws: ``TextError/unknownAnchor`` when a character is not in this text.
    /// - Complexity: O(s log r) for s spans holding the characters.
    package func sequenceStretchLengths(first: OperationID, count: Int) throws(TextError) -> [Int] {
        var lengths: [Int] = []
        var done = 0
        // The span the previous piece ended, when it ended at that span's end.
        var previousSlot: UInt32?
        while done < count {
            let id = OperationID(replica: first.replica, counter: first.counter + UInt32(done))
            guard let ref = itemRef(id), !ref.isNone, let (slot, offset) = lookup(ref) else { throw .unknownAnchor }
            let length = min(count - done, Int(spans[slot].lengthScalars - offset))
            precondition(length > 0, "a span holds the character it was found in")
            if offset == 0, let previousSlot, slotAfter(previousSlot) == slot {
                lengths[lengths.count - 1] += length
            } else {
                lengths.append(length)
            }
            previousSlot = slot
            done += length
        }
        return lengths
    }

    /// The span right after the one at `slot` in the sequence, or nil at the end.
    private func slotAfter(_ slot: UInt32) -> UInt32? {
        let location = location(ofSlot: slot)
        if location.index + 1 < slotCount(of: location.leaf) { return self.slot(in: location.leaf, at: location.index + 1) }
        var leaf = leafHeaders[location.leaf].next
        while leaf != noIndex {
            if slotCount(of: leaf) > 0 { return self.slot(in: leaf, at: 0) }
            leaf = leafHeaders[leaf].next
        }
        return nil
    }
}
