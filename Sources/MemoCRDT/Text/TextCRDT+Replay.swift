// Replaying operation runs into a text, as decoding a text state does (and as the encoder does
// to decide how to write each run). Two forms of a run:
//
// - Position form: "insert n items at visible offset p" or "delete the n visible items from p",
//   exactly as a local edit would make them. Valid when replaying it at this point of the log
//   produces the original operations (same origins, same targets), which is the case for every
//   run made by a replica that had seen everything before it in the log: all of a single
//   writer's history, and most of a collaborative one.
// - Id form: the run's origins or targets by id, integrated like a remote operation. Always valid.
//
// Content is not needed while replaying: items are placed as placeholders and the visible text
// is filled in afterwards, in document order, from the state's text section.

extension TextCRDT {
    /// A text for replaying: the given replicas (already sorted by id) interned in that order,
    /// each with its Lamport runs, and, when known, how many operations each will replay (to
    /// size its structures once).
    init(replaying replicas: [ReplicaID], lamportRuns: [[LamportRun]], operationCount: [UInt32]? = nil, localReplica: ReplicaID) {
        self.init(replica: localReplica)
        // `init(replica:)` interned the local replica first; start over with the sorted table.
        replicaTable = ReplicaTable()
        logs = []
        for (index, id) in replicas.enumerated() {
            _ = replicaTable.intern(id)
            var log = ReplicaLog()
            log.lamportRuns = lamportRuns[index]
            if let operationCount {
                // The block index ends up with at most one entry per block of counters: reserve
                // it once instead of growing it entry by entry during the replay.
                log.blockFirstSpan.reserveCapacity(Int(operationCount[index] >> TreeShape.blockShift) + 1)
            }
            logs.append(log)
        }
        localReplicaIndex = internReplica(localReplica)
    }

    /// The visible offset at which a position-form insertion of a run with these origins would
    /// reproduce them, or nil when it would not.
    func positionForInsertion(originLeft: ItemRef, originRight: ItemRef) -> Int? {
        if originLeft.isNone {
            let first = firstLocation.map { spans[$0.slot].item(at: 0) } ?? .none
            return first == originRight ? 0 : nil
        }
        guard let (slot, offset) = lookup(originLeft), !spans[slot].isDeleted else { return nil }
        let location = location(ofSlot: slot)
        let span = spans[slot]
        let next: ItemRef
        if offset + 1 < span.lengthScalars {
            next = span.item(at: offset + 1)
        } else {
            next = self.location(after: location).map { spans[$0.slot].item(at: 0) } ?? .none
        }
        guard next == originRight else { return nil }
        return countsBefore(location).scalars + Int(offset) + 1
    }

    /// The visible offset and direction at which a position-form deletion would delete exactly
    /// the items `targetCounter ..< targetCounter + length` of `targetReplica` in the order the
    /// run deletes them, or nil when it would not.
    func positionForDeletion(
        targetReplica: UInt32, targetCounter: UInt32, length: UInt32, isReversed: Bool
    ) -> (offset: Int, backward: Bool)? {
        // The targets as pieces of spans, in counter order, with their visible offsets: either
        // ascending (counter order is document order, contiguously) or descending (single
        // items, each right before the previous one). Checked piece by piece, without a list.
        var first = -1
        var previous = (offset: 0, length: 0)
        var ascending = true
        var descending = true
        var counter = targetCounter
        let end = targetCounter + length
        while counter < end {
            guard let (slot, offset) = lookup(ItemRef(replica: targetReplica, counter: counter)),
                !spans[slot].isDeleted
            else { return nil }
            let taken = min(end - counter, spans[slot].lengthScalars - offset)
            let piece = (offset: countsBefore(location(ofSlot: slot)).scalars + Int(offset), length: Int(taken))
            if first < 0 {
                first = piece.offset
                descending = piece.length == 1
            } else {
                if piece.offset != previous.offset + previous.length { ascending = false }
                if piece.length != 1 || piece.offset != previous.offset - 1 { descending = false }
                // Neither: no position form, whatever the rest is.
                if !ascending && !descending { return nil }
            }
            previous = piece
            counter += taken
        }
        if ascending { return (first, isReversed) }
        return (previous.offset, !isReversed)
    }

    /// Replays a position-form insertion of `length` placeholder items of `replica`.
    mutating func replayInsertion(replica: UInt32, length: UInt32, atScalar offset: Int) {
        let counter = logs[replica].operationCount
        placeItems(atScalar: offset, replica: replica, counter: counter, lengthScalars: length, content: .placeholder)
        logs[replica].operationCount = counter + length
    }

    /// Replays a position-form deletion of the `length` visible items from `offset`.
    mutating func replayDeletion(replica: UInt32, length: UInt32, atScalar offset: Int, backward: Bool) {
        let counter = logs[replica].operationCount
        deleteVisible(offset..<offset + Int(length), replica: replica, counter: counter, backward: backward)
        logs[replica].operationCount = counter + length
    }

    /// Replays an id-form insertion: integrated between its origins like a remote operation.
    mutating func replayInsertion(replica: UInt32, length: UInt32, originLeft: ItemRef, originRight: ItemRef) {
        let counter = logs[replica].operationCount
        let newItem = OperationID(replica: replicaTable.ids[replica], counter: counter)
        let destination = integrationDestination(originLeft: originLeft, originRight: originRight, newItem: newItem)
        var leaf: UInt32
        var index: Int
        var splitPieces: (left: UInt32, right: UInt32)?
        if let (location, offset) = destination {
            if offset > 0 {
                let second = splitSpan(at: location, offset: offset)
                (leaf, index) = (second.leaf, second.index)
                splitPieces = (location.slot, second.slot)
            } else {
                (leaf, index) = (location.leaf, location.index)
            }
        } else {
            leaf = lastLeaf
            index = slotCount(of: leaf)
        }
        insertRun(
            leaf: leaf, index: index, replica: replica, counter: counter, lengthScalars: length,
            originLeft: originLeft, originRight: originRight, content: .placeholder)
        if let splitPieces { mergeOutward(left: splitPieces.left, right: splitPieces.right) }
        logs[replica].operationCount = counter + length
    }

    /// Replays an id-form deletion of `target ..< target + length` (all held items).
    mutating func replayDeletion(replica: UInt32, length: UInt32, targetReplica: UInt32, targetCounter: UInt32, isReversed: Bool) {
        let counter = logs[replica].operationCount
        var target = targetCounter
        let end = targetCounter + length
        while target < end {
            let (slot, offset) = lookup(ItemRef(replica: targetReplica, counter: target))!
            let taken = min(end - target, spans[slot].lengthScalars - offset)
            // Items another deletion already removed need no change (markDeleted would return at
            // once): skip finding the span's place in its leaf.
            if !spans[slot].isDeleted { markDeleted(at: location(ofSlot: slot), offset: offset, length: taken) }
            target += taken
        }
        logs[replica].appendDeletions(
            DeletionRun(
                counter: counter, length: length, targetReplica: targetReplica,
                targetCounter: targetCounter, isReversed: isReversed && length > 1))
        logs[replica].operationCount = counter + length
    }

    /// Whether every item `counter ..< counter + length` of `replica` is held.
    func holdsItems(replica: UInt32, counter: UInt32, length: UInt32) -> Bool {
        var current = counter
        let end = counter + length
        while current < end {
            guard let (slot, offset) = lookup(ItemRef(replica: replica, counter: current)) else { return false }
            current += spans[slot].lengthScalars - offset
        }
        return true
    }

    /// After a replay: takes the visible text from `text` in document order, sets every
    /// visible span's content offset and lengths, and recomputes the tree's counts.
    ///
    /// - Throws: when the text holds more or fewer scalars than the replayed items.
    mutating func fillContent(from text: [UInt8]) throws(DecodingError) {
        var position = 0
        var leaf = firstLeaf
        var garbage = 0
        while leaf != noIndex {
            let base = Int(leaf) * TreeShape.leafCapacity
            for index in 0..<slotCount(of: leaf) {
                let slot = leafSlots[base + index]
                if spans[slot].isDeleted { continue }
                let scalars = Int(spans[slot].lengthScalars)
                var end = position
                var utf16 = 0
                for _ in 0..<scalars {
                    guard end < text.count else { throw .malformed("the text section is shorter than the visible items") }
                    let length = UTF8Scanning.scalarLength(lead: text[end])
                    end += length
                    utf16 += length == 4 ? 2 : 1
                }
                spans[slot].contentOffset = UInt32(position)
                spans[slot].lengthUTF8 = UInt32(end - position)
                spans[slot].lengthUTF16 = UInt32(utf16)
                position = end
            }
            leaf = leafHeaders[leaf].next
        }
        guard position == text.count else { throw .malformed("the text section is longer than the visible items") }
        garbage = 0
        content = text
        contentGarbageBytes = garbage
        recomputeCounts()
    }

    /// Recomputes every node entry's counts from the spans, bottom up.
    mutating func recomputeCounts() {
        func total(_ node: UInt32) -> Counts {
            var sum = Counts()
            let base = Int(node) * TreeShape.nodeCapacity
            for index in 0..<entryCount(of: node) {
                let child = nodeEntries[base + index].child
                let counts: Counts
                if nodeHeaders[node].height == 1 {
                    counts = slots(of: child).reduce(Counts()) { $0 + spans[$1].counts }
                } else {
                    counts = total(child)
                }
                nodeEntries[base + index].counts = counts
                sum += counts
            }
            return sum
        }
        totalCounts = total(root)
        cursorLeaf = noIndex
        typingCursor = nil
    }
}
