// Local edits: insert, delete and replace by UTF-16 or Unicode scalar offsets, and conversion
// between the two kinds of offset.

extension TextCRDT {
    // MARK: Offsets

    /// The scalar offset of the UTF-16 offset `offsetUTF16`.
    ///
    /// - Throws: ``TextError/offsetOutOfBounds(offset:length:)`` outside `0...lengthUTF16`,
    ///   ``TextError/offsetInsideSurrogatePair(offsetUTF16:)`` between the halves of a pair.
    /// - Complexity: O(log r + s) where s is the length of one span (at most
    ///   `Limits.spanLengthScalarsMax`); O(log r) when the span has no astral scalars.
    public func scalarOffset(fromUTF16 offsetUTF16: Int) throws(TextError) -> Int {
        let length = lengthUTF16
        guard offsetUTF16 >= 0 && offsetUTF16 <= length else {
            throw .offsetOutOfBounds(offset: offsetUTF16, length: length)
        }
        if offsetUTF16 == 0 { return 0 }
        let (location, units, scalarsBefore) = locateVisibleUTF16(ordinal: offsetUTF16)
        let span = spans[location.slot]
        if span.lengthUTF16 == span.lengthScalars { return scalarsBefore + units }
        guard let scalars = UTF8Scanning.scalars(content, from: Int(span.contentOffset), utf16: units) else {
            throw .offsetInsideSurrogatePair(offsetUTF16: offsetUTF16)
        }
        return scalarsBefore + scalars
    }

    /// The UTF-16 offset of the scalar offset `offsetScalars`.
    ///
    /// - Throws: ``TextError/offsetOutOfBounds(offset:length:)`` outside `0...lengthScalars`.
    /// - Complexity: O(log r + s), as ``scalarOffset(fromUTF16:)``.
    public func utf16Offset(fromScalar offsetScalars: Int) throws(TextError) -> Int {
        let length = lengthScalars
        guard offsetScalars >= 0 && offsetScalars <= length else {
            throw .offsetOutOfBounds(offset: offsetScalars, length: length)
        }
        if offsetScalars == 0 { return 0 }
        let (location, offset, leafStart, _) = findVisibleScalar(ordinal: offsetScalars)
        let span = spans[location.slot]
        var before = leafStart.utf16
        for index in 0..<location.index { before += spans[slot(in: location.leaf, at: index)].visibleUTF16 }
        if span.lengthUTF16 == span.lengthScalars { return before + offset + 1 }
        return before + UTF8Scanning.advance(content, from: Int(span.contentOffset), scalars: offset + 1).utf16
    }

    // MARK: Inserting

    /// Inserts `text` at the UTF-16 offset `offsetUTF16`.
    ///
    /// - Throws: ``TextError/offsetOutOfBounds(offset:length:)``,
    ///   ``TextError/offsetInsideSurrogatePair(offsetUTF16:)``, or a limit error; the text is
    ///   unchanged when it throws.
    /// - Complexity: O(log r + m) for m inserted scalars.
    public mutating func insert(_ text: String, atUTF16 offsetUTF16: Int) throws(TextError) {
        let offsetScalars = try scalarOffset(fromUTF16: offsetUTF16)
        try withUTF8(of: text) { bytes in insertLocal(bytes, atScalar: offsetScalars) }.get()
    }

    /// Inserts `text` at the Unicode scalar offset `offsetScalars`.
    ///
    /// - Throws: ``TextError/offsetOutOfBounds(offset:length:)`` or a limit error; the text is
    ///   unchanged when it throws.
    /// - Complexity: O(log r + m) for m inserted scalars.
    public mutating func insert(_ text: String, atScalar offsetScalars: Int) throws(TextError) {
        let length = lengthScalars
        guard offsetScalars >= 0 && offsetScalars <= length else {
            throw .offsetOutOfBounds(offset: offsetScalars, length: length)
        }
        try withUTF8(of: text) { bytes in insertLocal(bytes, atScalar: offsetScalars) }.get()
    }

    // MARK: Deleting

    /// Deletes the text in the UTF-16 range `utf16Range`.
    ///
    /// - Throws: ``TextError/rangeOutOfBounds(lowerBound:upperBound:length:)``,
    ///   ``TextError/offsetInsideSurrogatePair(offsetUTF16:)``, or a limit error; the text is
    ///   unchanged when it throws.
    /// - Complexity: O(log r + k) for k spans touched.
    public mutating func delete(utf16Range: Range<Int>) throws(TextError) {
        let scalarRange = try scalarRange(fromUTF16: utf16Range)
        try deleteLocal(scalarRange)
    }

    /// Deletes the text in the Unicode scalar range `scalarRange`.
    ///
    /// - Throws: ``TextError/rangeOutOfBounds(lowerBound:upperBound:length:)`` or a limit error;
    ///   the text is unchanged when it throws.
    /// - Complexity: O(log r + k) for k spans touched.
    public mutating func delete(scalarRange: Range<Int>) throws(TextError) {
        try checkScalarRange(scalarRange)
        try deleteLocal(scalarRange)
    }

    // MARK: Replacing

    /// Replaces the text in the UTF-16 range `utf16Range` with `text`: a deletion then an
    /// insertion at the same place.
    ///
    /// - Throws: as ``delete(utf16Range:)`` and ``insert(_:atUTF16:)``; nothing changes when it
    ///   throws.
    public mutating func replace(utf16Range: Range<Int>, with text: String) throws(TextError) {
        let scalarRange = try scalarRange(fromUTF16: utf16Range)
        try withUTF8(of: text) { bytes in replaceLocal(scalarRange, with: bytes) }.get()
    }

    /// Replaces the text in the Unicode scalar range `scalarRange` with `text`.
    ///
    /// - Throws: as ``delete(scalarRange:)`` and ``insert(_:atScalar:)``; nothing changes when
    ///   it throws.
    public mutating func replace(scalarRange: Range<Int>, with text: String) throws(TextError) {
        try checkScalarRange(scalarRange)
        try withUTF8(of: text) { bytes in replaceLocal(scalarRange, with: bytes) }.get()
    }

    // MARK: Implementation

    private func checkScalarRange(_ range: Range<Int>) throws(TextError) {
        let length = lengthScalars
        guard range.lowerBound >= 0 && range.lowerBound <= range.upperBound && range.upperBound <= length else {
            throw .rangeOutOfBounds(lowerBound: range.lowerBound, upperBound: range.upperBound, length: length)
        }
    }

    private func scalarRange(fromUTF16 range: Range<Int>) throws(TextError) -> Range<Int> {
        let length = lengthUTF16
        guard range.lowerBound >= 0 && range.lowerBound <= range.upperBound && range.upperBound <= length else {
            throw .rangeOutOfBounds(lowerBound: range.lowerBound, upperBound: range.upperBound, length: length)
        }
        let lower = try scalarOffset(fromUTF16: range.lowerBound)
        let upper = range.isEmpty ? lower : try scalarOffset(fromUTF16: range.upperBound)
        return lower..<upper
    }

    /// Checks that `scalars` more operations and `bytes` more content fit the limits.
    package func checkCapacity(operations: Int, bytes: Int) throws(TextError) {
        let next = Int(logs[localReplicaIndex].operationCount) + operations
        guard next <= Int(Limits.operationsPerReplicaMax) else { throw .counterOverflow(replica: replica) }
        try checkClock(operations: operations)
        guard content.count + bytes <= Limits.contentBytesMax else {
            throw .contentTooLarge(bytes: content.count + bytes)
        }
    }

    /// Throws ``TextError/clockExhausted`` unless `operations` new local operations, timestamped
    /// from the clock on, stay within `Limits.lamportMax` (so each one's offset from its counter
    /// is one a state can hold, whatever the counter).
    func checkClock(operations: Int) throws(TextError) {
        guard lamport <= Limits.lamportMax, UInt64(operations) <= Limits.lamportMax - lamport else { throw .clockExhausted }
    }

    private mutating func replaceLocal(_ range: Range<Int>, with bytes: UnsafeBufferPointer<UInt8>) -> Result<Void, TextError> {
        let inserted = UTF8Scanning.counts(of: bytes).scalars
        do {
            try checkCapacity(operations: range.count + inserted, bytes: bytes.count)
            try deleteLocal(range)
        } catch {
            return .failure(error)
        }
        return insertLocal(bytes, atScalar: range.lowerBound)
    }

    /// Calls `body` with the UTF-8 of `text`, without copying when the string is native.
    func withUTF8<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// Inserts valid UTF-8 `bytes` at a checked scalar offset as new local operations.
    mutating func insertLocal(_ bytes: UnsafeBufferPointer<UInt8>, atScalar offsetScalars: Int) -> Result<Void, TextError> {
        if bytes.isEmpty { return .success(()) }
        let (scalars, _) = UTF8Scanning.counts(of: bytes)
        do {
            try checkCapacity(operations: scalars, bytes: bytes.count)
        } catch {
            return .failure(error)
        }
        let counter = logs[localReplicaIndex].operationCount
        let lamportStart = lamport + 1
        if let cursor = typingCursor, cursor.offsetScalars == offsetScalars {
            let span = spans[cursor.slot]
            if span.replica == localReplicaIndex && span.end == counter && !span.isDeleted
                && Int(span.contentOffset + span.lengthUTF8) == content.count
                && Int(span.lengthScalars) + scalars <= Limits.spanLengthScalarsMax
            {
                // Continue typing: nothing has changed since this span's last item was typed,
                // so the new items go right after it with the same originRight.
                let before = span.counts
                let (_, utf16) = UTF8Scanning.counts(of: bytes)
                content.append(contentsOf: bytes)
                extendSpan(cursor.slot, by: UInt32(scalars), utf16: UInt32(utf16), utf8: UInt32(bytes.count))
                addCounts(spans[cursor.slot].counts - before, toLeaf: span.leaf)
                logs[localReplicaIndex].appendTimestamps(counter: counter, lamport: lamportStart)
                logs[localReplicaIndex].operationCount = counter + UInt32(scalars)
                lamport = lamportStart + UInt64(scalars) - 1
                typingCursor = (cursor.slot, offsetScalars + scalars)
                checkInvariantsIfEnabled()
                return .success(())
            }
        }
        let lastSlot = placeItems(
            atScalar: offsetScalars, replica: localReplicaIndex, counter: counter,
            lengthScalars: UInt32(scalars), content: .bytes(bytes))
        typingCursor = (lastSlot, offsetScalars + scalars)
        logs[localReplicaIndex].appendTimestamps(counter: counter, lamport: lamportStart)
        logs[localReplicaIndex].operationCount = counter + UInt32(scalars)
        lamport = lamportStart + UInt64(scalars) - 1
        checkInvariantsIfEnabled()
        return .success(())
    }

    /// Places new items of `replica` with counters `counter...` at visible scalar offset
    /// `offsetScalars`, as a local insertion there would: originLeft the visible item before
    /// the offset, originRight the item right after that one. Does not touch the operation log.
    /// Returns the slot of the span holding the last new item.
    @discardableResult
    mutating func placeItems(
        atScalar offsetScalars: Int, replica: UInt32, counter: UInt32, lengthScalars: UInt32, content: RunContent
    ) -> UInt32 {
        var originLeft = ItemRef.none
        var originRight = ItemRef.none
        var leaf: UInt32
        var index: Int
        var splitPieces: (left: UInt32, right: UInt32)?
        if offsetScalars == 0 {
            leaf = firstLeaf
            index = 0
            if let first = firstLocation { originRight = spans[first.slot].item(at: 0) }
        } else {
            let (location, offset) = locateVisibleScalar(ordinal: offsetScalars)
            let span = spans[location.slot]
            originLeft = span.item(at: UInt32(offset))
            if UInt32(offset) + 1 < span.lengthScalars {
                let second = splitSpan(at: location, offset: UInt32(offset) + 1)
                originRight = spans[second.slot].item(at: 0)
                leaf = second.leaf
                index = second.index
                splitPieces = (location.slot, second.slot)
            } else {
                if let next = self.location(after: location) { originRight = spans[next.slot].item(at: 0) }
                leaf = location.leaf
                index = location.index + 1
            }
        }
        let lastSlot = insertRun(
            leaf: leaf, index: index, replica: replica, counter: counter,
            lengthScalars: lengthScalars, originLeft: originLeft, originRight: originRight, content: content)
        if let splitPieces { mergeOutward(left: splitPieces.left, right: splitPieces.right) }
        return lastSlot
    }

    /// Deletes a checked scalar range as new local operations, one per deleted scalar.
    mutating func deleteLocal(_ range: Range<Int>) throws(TextError) {
        if range.isEmpty { return }
        try checkCapacity(operations: range.count, bytes: 0)
        typingCursor = nil
        let startCounter = logs[localReplicaIndex].operationCount
        #if MEMOSYNC_MUTANTS
        let forgotten = EngineMutant.active == .deleteForgetsID ? logs[localReplicaIndex].deletionRuns : nil
        #endif
        if range.count != 1 || !backspaceOntoDeletedRun(atScalar: range.lowerBound, counter: startCounter) {
            deleteVisible(range, replica: localReplicaIndex, counter: startCounter, backward: false)
        }
        #if MEMOSYNC_MUTANTS
        if let forgotten { logs[localReplicaIndex].deletionRuns = forgotten; return }
        #endif
        let lamportStart = lamport + 1
        logs[localReplicaIndex].appendTimestamps(counter: startCounter, lamport: lamportStart)
        logs[localReplicaIndex].operationCount = startCounter + UInt32(range.count)
        lamport = lamportStart + UInt64(range.count) - 1
        compactContentIfWorthwhile()
        checkInvariantsIfEnabled()
    }

    /// Deletes the single visible item at `offsetScalars` as local operation `counter` when it is
    /// the item typed just before a deleted span of its own run (holding backspace over a typed
    /// word): the deleted span grows back by one item and the visible one shrinks, with no split.
    /// Returns false, changing nothing, when the case does not apply.
    private mutating func backspaceOntoDeletedRun(atScalar offsetScalars: Int, counter: UInt32) -> Bool {
        let (location, offset) = locateVisibleScalar(ordinal: offsetScalars + 1)
        let visible = spans[location.slot]
        guard UInt32(offset) + 1 == visible.lengthScalars, visible.lengthScalars > 1,
            location.index + 1 < slotCount(of: location.leaf)
        else { return false }
        let deletedSlot = slot(in: location.leaf, at: location.index + 1)
        let deleted = spans[deletedSlot]
        guard deleted.isDeleted, deleted.replica == visible.replica, deleted.counter == visible.end,
            deleted.originLeft == visible.lastItem, deleted.originRight == visible.originRight,
            Int(deleted.lengthScalars) < Limits.spanLengthScalarsMax
        else { return false }
        // The last scalar's bytes: step back over continuation bytes.
        let end = Int(visible.contentOffset + visible.lengthUTF8)
        var start = end - 1
        while content[start] & 0xC0 == 0x80 { start -= 1 }
        let width = UInt32(end - start)
        if keepsDeletedContent {
            retained.record(replica: visible.replica, counter: visible.end - 1, length: 1, utf8: content[start..<end])
        }
        let before = visible.counts
        spans[location.slot].lengthScalars -= 1
        spans[location.slot].lengthUTF8 -= width
        spans[location.slot].lengthUTF16 -= width == 4 ? 2 : 1
        spans[deletedSlot].counter -= 1
        spans[deletedSlot].lengthScalars += 1
        spans[deletedSlot].originLeft = spans[location.slot].lastItem
        if end == content.count {
            content.removeLast(Int(width))
        } else {
            contentGarbageBytes += Int(width)
        }
        // The deleted span now starts one counter earlier: a block starting there is its.
        let newStart = deleted.counter - 1
        if newStart & ((1 << TreeShape.blockShift) - 1) == 0 {
            logs[visible.replica].blockFirstSpan[Int(newStart >> TreeShape.blockShift)] = deletedSlot
        }
        // The item moves from the visible span to the deleted one: items do not change.
        var change = spans[location.slot].counts - before
        change.items = 0
        addCounts(change, toLeaf: location.leaf)
        logs[localReplicaIndex].appendDeletions(
            DeletionRun(counter: counter, length: 1, targetReplica: visible.replica, targetCounter: newStart, isReversed: false))
        return true
    }

    /// Deletes the visible scalars in `range` as operations `counter...` of `replica`, recording
    /// the deletion runs (not the timestamps or the count). Forward assigns the counters in
    /// document order; backward assigns them from the end of the range (what holding backspace
    /// produces).
    mutating func deleteVisible(_ range: Range<Int>, replica: UInt32, counter: UInt32, backward: Bool) {
        // With `backward`, counters are assigned from the right and deletion runs must be
        // recorded in counter order: collect the pieces first. Forward records as it goes.
        var pieces: [(replica: UInt32, counter: UInt32, length: UInt32)] = []
        var next = counter
        var remaining = UInt32(range.count)
        var (location, offset) = locateVisibleScalar(ordinal: range.lowerBound + 1)
        var spanOffset = UInt32(offset)
        while remaining > 0 {
            let span = spans[location.slot]
            if span.isDeleted {
                location = self.location(after: location)!
                spanOffset = 0
                continue
            }
            let taken = min(remaining, span.lengthScalars - spanOffset)
            let deleted = markDeleted(at: location, offset: spanOffset, length: taken)
            if backward {
                pieces.append((span.replica, span.counter + spanOffset, taken))
            } else {
                logs[replica].appendDeletions(
                    DeletionRun(
                        counter: next, length: taken, targetReplica: span.replica,
                        targetCounter: span.counter + spanOffset, isReversed: false))
                next += taken
            }
            remaining -= taken
            if remaining > 0 {
                location = self.location(after: self.location(ofSlot: deleted))!
                spanOffset = 0
            }
        }
        for piece in pieces.reversed() {
            logs[replica].appendDeletions(
                DeletionRun(
                    counter: next, length: piece.length, targetReplica: piece.replica,
                    targetCounter: piece.counter, isReversed: backward && piece.length > 1))
            next += piece.length
        }
    }

    /// Places a run of new items at
    /// `index` of `leaf`, extending the span before it when the run continues it. Chunks runs
    /// longer than `Limits.spanLengthScalarsMax`. Does not touch the operation log. Returns the
    /// slot of the span holding the run's last item.
    @discardableResult
    mutating func insertRun(
        leaf: UInt32, index: Int, replica: UInt32, counter: UInt32, lengthScalars: UInt32,
        originLeft: ItemRef, originRight: ItemRef, content runContent: RunContent
    ) -> UInt32 {
        var leaf = leaf
        var index = index
        if index == 0, leafHeaders[leaf].previous != noIndex {
            // The same document position, at the end of the previous leaf, where the run may
            // continue the span before it.
            leaf = leafHeaders[leaf].previous
            index = slotCount(of: leaf)
        }
        var bytes = RunBytes(runContent)
        var counter = counter
        var remaining = lengthScalars
        var originLeft = originLeft
        var lastSlot = noIndex
        if index > 0, let (slot, taken) = extendPreviousSpan(
            before: index, in: leaf, replica: replica, counter: counter, length: remaining,
            originLeft: originLeft, originRight: originRight, bytes: &bytes)
        {
            counter += taken
            remaining -= taken
            originLeft = ItemRef(replica: replica, counter: counter - 1)
            lastSlot = slot
        }
        while remaining > 0 {
            let scalars = min(UInt32(Limits.spanLengthScalarsMax), remaining)
            let offset = UInt32(content.count)
            let (utf8, utf16) = bytes.take(scalars, appendingTo: &content)
            let slot = registerNewSpan(
                Span(
                    replica: replica, counter: counter, lengthScalars: scalars,
                    lengthUTF16: utf16, lengthUTF8: utf8, contentOffset: bytes.isDeleted ? 0 : offset,
                    originLeft: originLeft, originRight: originRight,
                    leaf: leaf, nextInReplica: noIndex, isDeleted: bytes.isDeleted))
            let placed = insertSlot(slot, leaf: leaf, index: index)
            lastSlot = slot
            leaf = placed.leaf
            index = placed.index + 1
            counter += scalars
            remaining -= scalars
            originLeft = ItemRef(replica: replica, counter: counter - 1)
        }
        assert(bytes.isExhausted)
        return lastSlot
    }

    /// Extends the span before `index` of `leaf` with the first items of a run that continues
    /// it: the same replica and deletion status, the next counter, the span's last item as left
    /// origin, the same right origin, and (for visible items) the span's content at the end of
    /// the buffer, where the run's bytes go. Takes as many items as the span has room for, at
    /// most `length`; returns the span's slot and how many it took, or nil when it took none.
    @inline(__always)
    private mutating func extendPreviousSpan(
        before index: Int, in leaf: UInt32, replica: UInt32, counter: UInt32, length: UInt32,
        originLeft: ItemRef, originRight: ItemRef, bytes: inout RunBytes
    ) -> (slot: UInt32, taken: UInt32)? {
        let previousSlot = slot(in: leaf, at: index - 1)
        let previous = spans[previousSlot]
        let room = UInt32(Limits.spanLengthScalarsMax) - previous.lengthScalars
        guard previous.replica == replica && previous.end == counter && previous.lastItem == originLeft
            && previous.originRight == originRight && previous.isDeleted == bytes.isDeleted
            && (bytes.isDeleted || Int(previous.contentOffset + previous.lengthUTF8) == content.count) && room > 0
        else { return nil }
        let scalars = min(room, length)
        let (utf8, utf16) = bytes.take(scalars, appendingTo: &content)
        let before = spans[previousSlot].counts
        extendSpan(previousSlot, by: scalars, utf16: utf16, utf8: utf8)
        addCounts(spans[previousSlot].counts - before, toLeaf: leaf)
        return (previousSlot, scalars)
    }

    /// Copies the live content into a fresh buffer when more than half of it is garbage.
    mutating func compactContentIfWorthwhile() {
        guard contentGarbageBytes > 64 * 1024 && contentGarbageBytes * 2 > content.count else { return }
        compactContent()
    }

    /// Copies the content of visible spans, in document order, into a fresh buffer.
    ///
    /// - Complexity: O(n).
    mutating func compactContent() {
        var fresh: [UInt8] = []
        fresh.reserveCapacity(content.count - contentGarbageBytes)
        var leaf = firstLeaf
        while leaf != noIndex {
            for slot in slots(of: leaf) where !spans[slot].isDeleted {
                let start = Int(spans[slot].contentOffset)
                spans[slot].contentOffset = UInt32(fresh.count)
                fresh.append(contentsOf: content[start..<start + Int(spans[slot].lengthUTF8)])
            }
            leaf = leafHeaders[leaf].next
        }
        content = fresh
        contentGarbageBytes = 0
    }
}

/// The bytes of a run of new items (``TextCRDT/insertRun(leaf:index:replica:counter:lengthScalars:originLeft:originRight:content:)``),
/// taken off its front span by span.
private struct RunBytes {
    private let source: UnsafeBufferPointer<UInt8>
    private var start = 0
    /// Items deleted already, or placeholders: no bytes (yet).
    private let hasNoBytes: Bool
    /// The items arrive deleted.
    let isDeleted: Bool

    @inline(__always)
    init(_ content: RunContent) {
        switch content {
        case let .bytes(bytes):
            (source, hasNoBytes, isDeleted) = (bytes, false, false)
        case .deleted:
            (source, hasNoBytes, isDeleted) = (UnsafeBufferPointer(start: nil, count: 0), true, true)
        case .placeholder:
            (source, hasNoBytes, isDeleted) = (UnsafeBufferPointer(start: nil, count: 0), true, false)
        }
    }

    /// Whether every byte was taken.
    var isExhausted: Bool { start == source.count }

    /// Takes the next `scalars` items' bytes off the front of the run, appending them to
    /// `content`; returns their UTF-8 and UTF-16 lengths.
    @inline(__always)
    mutating func take(_ scalars: UInt32, appendingTo content: inout [UInt8]) -> (utf8: UInt32, utf16: UInt32) {
        if hasNoBytes { return (0, 0) }
        let (byteCount, utf16) = UTF8Scanning.advance(source, from: start, scalars: Int(scalars))
        content.append(contentsOf: UnsafeBufferPointer(rebasing: source[start..<start + byteCount]))
        start += byteCount
        return (UInt32(byteCount), UInt32(utf16))
    }
}
