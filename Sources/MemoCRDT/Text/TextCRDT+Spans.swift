// Spans: finding the span that holds an id, creating, splitting and merging spans while keeping
// the per-replica counter-order list and block index in step.

extension TextCRDT {
    /// The span slot holding item `ref` and the item's offset in it, or nil when `ref` is not an
    /// item this text holds (unknown, or a deletion's id).
    ///
    /// - Complexity: O(1): at most `1 << TreeShape.blockShift` links are followed.
    func lookup(_ ref: ItemRef) -> (slot: UInt32, offset: UInt32)? {
        guard ref.replica < logs.count else { return nil }
        let blocks = logs[ref.replica].blockFirstSpan
        let block = Int(ref.counter >> TreeShape.blockShift)
        guard block < blocks.count else { return nil }
        var slot = blocks[block]
        while slot != noIndex {
            let span = spans[slot]
            if ref.counter < span.counter { return nil }
            if ref.counter < span.end { return (slot, ref.counter - span.counter) }
            slot = span.nextInReplica
        }
        return nil
    }

    /// Whether `ref` is an item this text holds.
    func holdsItem(_ ref: ItemRef) -> Bool { lookup(ref) != nil }

    /// Number of items before `ref` in document order, tombstones included.
    ///
    /// - Complexity: O(log r).
    func itemIndex(of ref: ItemRef) -> Int {
        guard let (slot, offset) = lookup(ref) else { preconditionFailure("unknown item") }
        return countsBefore(location(ofSlot: slot)).items + Int(offset)
    }

    /// UTF-8 and UTF-16 lengths of the first `scalars` items of a visible span.
    ///
    /// - Complexity: O(1) for ASCII spans, O(scalars) otherwise.
    @inline(__always)
    func prefixLengths(of span: Span, scalars: UInt32) -> (bytes: Int, utf16: Int) {
        if span.lengthUTF8 == span.lengthScalars { return (Int(scalars), Int(scalars)) }
        // A visible span without bytes is a placeholder being replayed (its content comes later).
        if span.lengthUTF8 == 0 { return (0, 0) }
        return UTF8Scanning.advance(content, from: Int(span.contentOffset), scalars: Int(scalars))
    }

    // MARK: Creating spans

    /// Allocates `span`, which must hold its replica's newest counters, and links it into the
    /// replica's counter-order list and block index. Does not place it in a leaf.
    mutating func registerNewSpan(_ span: Span) -> UInt32 {
        let slot = allocateSpan(span)
        let replica = span.replica
        let last = logs[replica].lastSpan
        if last == noIndex {
            logs[replica].firstSpan = slot
        } else {
            precondition(spans[last].end <= span.counter, "new spans hold a replica's newest counters")
            spans[last].nextInReplica = slot
        }
        logs[replica].lastSpan = slot
        indexBlocks(of: slot, from: span.counter, to: span.end)
        return slot
    }

    /// Points every block touched by counters `start ..< end` that has no span yet at `slot`.
    private mutating func indexBlocks(of slot: UInt32, from start: UInt32, to end: UInt32) {
        let replica = spans[slot].replica
        let firstBlock = Int(start >> TreeShape.blockShift)
        let lastBlock = Int((end - 1) >> TreeShape.blockShift)
        while logs[replica].blockFirstSpan.count <= lastBlock {
            logs[replica].blockFirstSpan.append(noIndex)
        }
        for block in firstBlock...lastBlock where logs[replica].blockFirstSpan[block] == noIndex {
            logs[replica].blockFirstSpan[block] = slot
        }
    }

    /// Appends `scalars` items to the span at `slot`, which must be its replica's newest span.
    mutating func extendSpan(_ slot: UInt32, by scalars: UInt32, utf16: UInt32, utf8: UInt32) {
        let oldEnd = spans[slot].end
        spans[slot].lengthScalars += scalars
        spans[slot].lengthUTF16 += utf16
        spans[slot].lengthUTF8 += utf8
        // Only blocks the span did not reach before need an entry.
        if (oldEnd - 1) >> TreeShape.blockShift != (oldEnd + scalars - 1) >> TreeShape.blockShift {
            indexBlocks(of: slot, from: oldEnd, to: oldEnd + scalars)
        }
    }

    // MARK: Splitting and merging

    /// Splits the span at `location` after its first `offset` items; the rest becomes a new span
    /// right after it in the same leaf (which may then split). Returns the new span's location.
    @discardableResult
    mutating func splitSpan(at location: SpanLocation, offset: UInt32) -> SpanLocation {
        var location = location
        if slotCount(of: location.leaf) == TreeShape.leafCapacity {
            // Split the leaf first: the span's counts must not move between leaves half-changed.
            splitLeaf(location.leaf)
            location = self.location(ofSlot: location.slot)
        }
        var first = spans[location.slot]
        precondition(offset > 0 && offset < first.lengthScalars, "split inside the span")
        var second = first
        second.counter = first.counter + offset
        second.lengthScalars = first.lengthScalars - offset
        second.originLeft = first.item(at: offset - 1)
        if !first.isDeleted {
            let (bytes, utf16) = prefixLengths(of: first, scalars: offset)
            second.contentOffset = first.contentOffset + UInt32(bytes)
            second.lengthUTF8 = first.lengthUTF8 - UInt32(bytes)
            second.lengthUTF16 = first.lengthUTF16 - UInt32(utf16)
            first.lengthUTF8 = UInt32(bytes)
            first.lengthUTF16 = UInt32(utf16)
        }
        first.lengthScalars = offset
        let newSlot = allocateSpan(second)
        first.nextInReplica = newSlot
        spans[location.slot] = first
        let replica = first.replica
        if logs[replica].lastSpan == location.slot { logs[replica].lastSpan = newSlot }
        // Blocks past the first part's last counter that pointed at the span now start at the second.
        let fromBlock = Int((first.end - 1) >> TreeShape.blockShift) + 1
        let toBlock = Int((second.end - 1) >> TreeShape.blockShift)
        if fromBlock <= toBlock {
            for block in fromBlock...toBlock {
                assert(logs[replica].blockFirstSpan[block] == location.slot)
                logs[replica].blockFirstSpan[block] = newSlot
            }
        }
        return insertSlot(newSlot, leaf: location.leaf, index: location.index + 1, countsChange: false)
    }

    /// Whether `right`, directly after `left` in document order, continues it as one run.
    func canMerge(_ left: Span, _ right: Span) -> Bool {
        left.replica == right.replica
            && left.end == right.counter
            && right.originLeft == left.lastItem
            && right.originRight == left.originRight
            && left.isDeleted == right.isDeleted
            && (left.isDeleted || left.contentOffset + left.lengthUTF8 == right.contentOffset)
            && Int(left.lengthScalars + right.lengthScalars) <= Limits.spanLengthScalarsMax
    }

    /// Merges the span after `location` in the same leaf into it, if they form one run.
    /// Returns whether it merged.
    @discardableResult
    mutating func mergeWithNext(_ location: SpanLocation) -> Bool {
        guard location.index + 1 < slotCount(of: location.leaf) else { return false }
        let rightSlot = slot(in: location.leaf, at: location.index + 1)
        let left = spans[location.slot]
        let right = spans[rightSlot]
        guard canMerge(left, right) else { return false }
        assert(left.nextInReplica == rightSlot)
        spans[location.slot].lengthScalars += right.lengthScalars
        spans[location.slot].lengthUTF16 += right.lengthUTF16
        spans[location.slot].lengthUTF8 += right.lengthUTF8
        spans[location.slot].nextInReplica = right.nextInReplica
        let replica = left.replica
        if logs[replica].lastSpan == rightSlot { logs[replica].lastSpan = location.slot }
        let fromBlock = Int((left.end - 1) >> TreeShape.blockShift) + 1
        let toBlock = Int((right.end - 1) >> TreeShape.blockShift)
        if fromBlock <= toBlock {
            for block in fromBlock...toBlock {
                assert(logs[replica].blockFirstSpan[block] == rightSlot)
                logs[replica].blockFirstSpan[block] = location.slot
            }
        }
        removeSlot(leaf: location.leaf, index: location.index + 1)
        freeSpan(rightSlot)
        return true
    }

    /// Merges the span at `location` with its neighbours in the same leaf where they form one
    /// run. Returns the location of the span now holding the original's items.
    @discardableResult
    mutating func mergeWithNeighbours(_ location: SpanLocation) -> SpanLocation {
        mergeWithNext(location)
        if location.index > 0 {
            let previous = SpanLocation(
                leaf: location.leaf, index: location.index - 1, slot: slot(in: location.leaf, at: location.index - 1))
            if mergeWithNext(previous) { return previous }
        }
        return location
    }

    /// After a span was split around an edit (new items put in between, or a piece deleted),
    /// merges the outer pieces with their outer neighbours where they now form one run: the left
    /// piece into the span before it, the span after the right piece into it. Pieces of a run
    /// that was cut at `Limits.spanLengthScalarsMax` can become mergeable once shortened. Never
    /// merges across the edit itself.
    ///
    /// - Complexity: O(1) unless a merge is possible (the candidates come from the replica's
    ///   counter-order list), then O(leaf size).
    mutating func mergeOutward(left: UInt32?, right: UInt32?) {
        if let right {
            let next = spans[right].nextInReplica
            if next != noIndex && spans[next].leaf == spans[right].leaf && canMerge(spans[right], spans[next]) {
                mergeWithNext(location(ofSlot: right))
            }
        }
        if let left, spans[left].counter > 0,
            let (previous, _) = lookup(ItemRef(replica: spans[left].replica, counter: spans[left].counter - 1)),
            spans[previous].leaf == spans[left].leaf && canMerge(spans[previous], spans[left])
        {
            let location = location(ofSlot: left)
            if location.index > 0 && slot(in: location.leaf, at: location.index - 1) == previous {
                mergeWithNext(SpanLocation(leaf: location.leaf, index: location.index - 1, slot: previous))
            }
        }
    }

    // MARK: Deleting

    /// Marks the `length` items starting at `offset` of the span at `location` deleted, splitting
    /// it as needed, and merges the result with deleted neighbours. Returns the slot of the span
    /// now holding the deleted items.
    @discardableResult
    mutating func markDeleted(at location: SpanLocation, offset: UInt32, length: UInt32) -> UInt32 {
        var target = location
        if spans[target.slot].isDeleted { return target.slot }
        var leftPiece: UInt32?
        var rightPiece: UInt32?
        if offset > 0 {
            leftPiece = target.slot
            target = splitSpan(at: target, offset: offset)
        }
        if length < spans[target.slot].lengthScalars {
            rightPiece = splitSpan(at: target, offset: length).slot
            target = self.location(ofSlot: target.slot)
        }
        let before = spans[target.slot].counts
        let span = spans[target.slot]
        contentGarbageBytes += Int(span.lengthUTF8)
        // A placeholder being replayed has no bytes yet: nothing to keep.
        if keepsDeletedContent && span.lengthUTF8 > 0 {
            let start = Int(span.contentOffset)
            retained.record(
                replica: span.replica, counter: span.counter, length: span.lengthScalars,
                utf8: content[start..<start + Int(span.lengthUTF8)])
        }
        spans[target.slot].isDeleted = true
        spans[target.slot].lengthUTF16 = 0
        spans[target.slot].lengthUTF8 = 0
        spans[target.slot].contentOffset = 0
        addCounts(spans[target.slot].counts - before, toLeaf: target.leaf)
        let merged = mergeWithNeighbours(target).slot
        mergeOutward(left: leftPiece, right: rightPiece)
        return merged
    }
}
