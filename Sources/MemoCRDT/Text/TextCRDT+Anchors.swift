// Anchors (stable caret positions) and edits by item id (what undo and redo need).

/// A stable position in a text, anchored to a character rather than to an offset: the caret
/// sits right after a given character, wherever that character moves.
///
/// A text view keeps two anchors for a selection and turns them back into offsets after remote
/// edits arrive: text inserted elsewhere, or right after the anchor's character, does not move
/// the caret off it; if the character itself is deleted the caret stays where it was.
public struct TextAnchor: Hashable, Sendable, CustomStringConvertible {
    /// The character the caret follows, or nil for the start of the text.
    public var character: OperationID?

    /// An anchor after `character` (nil: the start of the text).
    public init(after character: OperationID?) {
        self.character = character
    }

    /// The start of any text.
    public static let start = TextAnchor(after: nil)

    public var description: String { character.map { "after \($0)" } ?? "start" }
}

extension TextCRDT {
    // MARK: Anchors

    /// An anchor for the caret at UTF-16 offset `offsetUTF16`: after the character before it.
    ///
    /// - Throws: ``TextError/offsetOutOfBounds(offset:length:)``,
    ///   ``TextError/offsetInsideSurrogatePair(offsetUTF16:)``.
    /// - Complexity: O(log r).
    public func anchor(atUTF16 offsetUTF16: Int) throws(TextError) -> TextAnchor {
        try anchor(atScalar: try scalarOffset(fromUTF16: offsetUTF16))
    }

    /// An anchor for the caret at scalar offset `offsetScalars`.
    ///
    /// - Throws: ``TextError/offsetOutOfBounds(offset:length:)``.
    /// - Complexity: O(log r).
    public func anchor(atScalar offsetScalars: Int) throws(TextError) -> TextAnchor {
        let length = lengthScalars
        guard offsetScalars >= 0 && offsetScalars <= length else {
            throw .offsetOutOfBounds(offset: offsetScalars, length: length)
        }
        if offsetScalars == 0 { return .start }
        let (location, offset, _, _) = findVisibleScalar(ordinal: offsetScalars)
        let span = spans[location.slot]
        return TextAnchor(after: operationID(span.item(at: UInt32(offset))))
    }

    /// Where `anchor`'s caret is now, as a UTF-16 offset: right after its character, or where
    /// the character was if it has been deleted.
    ///
    /// - Throws: ``TextError/unknownAnchor`` when the character is not in this text.
    /// - Complexity: O(log r).
    public func utf16Offset(of anchor: TextAnchor) throws(TextError) -> Int {
        guard let character = anchor.character else { return 0 }
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active == .cursorIgnoresRemoteInserts { return try mutantOffsetIgnoringRemoteInserts(of: anchor) }
        #endif
        guard let ref = itemRef(character), !ref.isNone, let (slot, offset) = lookup(ref) else {
            throw .unknownAnchor
        }
        let location = location(ofSlot: slot)
        let before = countsBefore(location).utf16
        let span = spans[slot]
        if span.isDeleted { return before }
        return before + prefixLengths(of: span, scalars: offset + 1).utf16
    }

    /// Where `anchor`'s caret is now, as a scalar offset.
    ///
    /// - Throws: ``TextError/unknownAnchor`` when the character is not in this text.
    public func scalarOffset(of anchor: TextAnchor) throws(TextError) -> Int {
        guard let character = anchor.character else { return 0 }
        guard let ref = itemRef(character), !ref.isNone, let (slot, offset) = lookup(ref) else {
            throw .unknownAnchor
        }
        let before = countsBefore(location(ofSlot: slot)).scalars
        return spans[slot].isDeleted ? before : before + Int(offset) + 1
    }

    // MARK: Items by id

    /// The ids of the visible characters in the scalar range `scalarRange`, in document order, as
    /// runs of consecutive ids.
    ///
    /// Each run is maximal: characters next to each other in the visible text with consecutive
    /// ids are one run, whatever spans hold them. So the runs depend only on the text, not on how
    /// this copy of it is cut into spans (a text decoded from its encoding is cut otherwise than
    /// the one it was encoded from), and neither does what undo records from them.
    ///
    /// - Throws: ``TextError/rangeOutOfBounds(lowerBound:upperBound:length:)``.
    /// - Complexity: O(log r + k) for k spans in the range.
    public func characterRuns(inScalarRange scalarRange: Range<Int>) throws(TextError) -> [(first: OperationID, count: Int)] {
        let length = lengthScalars
        guard scalarRange.lowerBound >= 0 && scalarRange.upperBound <= length else {
            throw .rangeOutOfBounds(lowerBound: scalarRange.lowerBound, upperBound: scalarRange.upperBound, length: length)
        }
        var result: [(first: OperationID, count: Int)] = []
        if scalarRange.isEmpty { return result }
        var (location, offset, _, _) = findVisibleScalar(ordinal: scalarRange.lowerBound + 1)
        var spanOffset = UInt32(offset)
        var remaining = scalarRange.count
        while remaining > 0 {
            let span = spans[location.slot]
            if !span.isDeleted {
                let taken = min(remaining, Int(span.lengthScalars - spanOffset))
                let first = operationID(span.item(at: spanOffset))!
                if let last = result.last, last.first.replica == first.replica,
                    UInt64(last.first.counter) + UInt64(last.count) == UInt64(first.counter)
                {
                    result[result.count - 1].count += taken
                } else {
                    result.append((first, taken))
                }
                remaining -= taken
            }
            guard remaining > 0, let next = self.location(after: location) else { break }
            location = next
            spanOffset = 0
        }
        return result
    }

    /// How many visible scalars come before the character `id` (which may be deleted).
    ///
    /// - Throws: ``TextError/unknownAnchor`` when the character is not in this text.
    public func visibleScalarsBefore(character id: OperationID) throws(TextError) -> Int {
        guard let ref = itemRef(id), !ref.isNone, let (slot, offset) = lookup(ref) else { throw .unknownAnchor }
        let before = countsBefore(location(ofSlot: slot)).scalars
        return spans[slot].isDeleted ? before : before + Int(offset)
    }

    /// Deletes, as new local operations, those of the characters `first ..< first + count` (ids)
    /// that are still visible; characters already deleted (by anyone) are left alone. Returns the
    /// UTF-16 edits made, in order.
    ///
    /// This is how undo removes text this replica inserted without touching anyone else's edits.
    ///
    /// - Throws: ``TextError/unknownAnchor`` when a character is not in this text, or a limit
    ///   error; nothing changes when it throws.
    /// - Complexity: O(k log r) for k visible spans among the characters.
    @discardableResult
    public mutating func deleteCharacters(first: OperationID, count: Int) throws(TextError) -> [TextEdit] {
        guard count > 0 else { return [] }
        // (The sum in 64 bits: a count near the counter limit from a high counter is no character
        // this text holds, not an overflow.)
        guard let start = itemRef(first), !start.isNone,
            UInt64(start.counter) + UInt64(count) <= UInt64(Limits.operationsPerReplicaMax),
            holdsItems(replica: start.replica, counter: start.counter, length: UInt32(count))
        else { throw .unknownAnchor }
        // The visible pieces, as scalar ranges of the current text, found before anything changes.
        var pieces: [Range<Int>] = []
        var counter = start.counter
        let end = start.counter + UInt32(count)
        var visibleTotal = 0
        while counter < end {
            let (slot, offset) = lookup(ItemRef(replica: start.replica, counter: counter))!
            let taken = min(end - counter, spans[slot].lengthScalars - offset)
            if !spans[slot].isDeleted {
                let before = countsBefore(location(ofSlot: slot)).scalars + Int(offset)
                pieces.append(before..<before + Int(taken))
                visibleTotal += Int(taken)
            }
            counter += taken
        }
        guard Int(logs[localReplicaIndex].operationCount) + visibleTotal <= Int(Limits.operationsPerReplicaMax) else {
            throw .counterOverflow(replica: replica)
        }
        // Each piece is its own deletion below: the clock is checked for all of them first, so
        // that none is made when the last could not be.
        try checkClock(operations: visibleTotal)
        // Delete from the last piece back, so earlier ranges stay valid.
        var edits: [TextEdit] = []
        for piece in pieces.sorted(by: { $0.lowerBound > $1.lowerBound }) {
            let lower = try utf16Offset(fromScalar: piece.lowerBound)
            let upper = try utf16Offset(fromScalar: piece.upperBound)
            try deleteLocal(piece)
            edits.append(TextEdit(rangeUTF16: lower..<upper, replacement: ""))
        }
        return edits
    }

    // MARK: Exact ranges of operations

    /// The operations of the given replicas in the given counter ranges (all held here), as a
    /// delta. A notebook uses this to send exactly the text operations a set of notebook
    /// operations stands for.
    ///
    /// Insertions in the result whose characters are deleted here travel as tombstones, and the
    /// deletions are part of the result only if `ranges` include them: a receiver holds such
    /// tombstones back until their deletions arrive (FORMAT.md, "Text delta").
    ///
    /// - Throws: ``TextError/operationsNotHeld(replica:counters:)`` when a range reaches past what
    ///   this text holds of its replica (or names a replica it holds nothing of).
    /// - Complexity: O(k + r log r) for k runs in the result.
    public func changes(in ranges: [(replica: ReplicaID, counters: Range<UInt32>)]) throws(TextError) -> TextDelta {
        let sorted = ranges.filter { !$0.counters.isEmpty }.sorted {
            ($0.replica, $0.counters.lowerBound) < ($1.replica, $1.counters.lowerBound)
        }
        for (replicaID, counters) in sorted where counters.upperBound > operationCount(of: replicaID) {
            throw .operationsNotHeld(replica: replicaID, counters: counters)
        }
        var runs: [TextDelta.Run] = []
        for (replicaID, counters) in sorted {
            let replicaIndex = replicaTable.index(of: replicaID)!
            appendChanges(of: replicaIndex, from: counters.lowerBound, to: counters.upperBound, into: &runs)
        }
        for index in runs.indices { runs[index] = canonicalOrigins(runs[index]) }
        return TextDelta(runs: runs)
    }

    /// Whether `delta` would apply completely, nothing held back: taking its runs in the order
    /// ``apply(_:)`` does (by Lamport timestamp, then again for runs that had to wait), every run
    /// continues what this text (or an earlier run of the delta) holds of its replica, and every
    /// origin and deletion target is held by the time the run's turn comes.
    ///
    /// Exact for deltas no part of which must wait on itself: a run whose origin is one of its
    /// own operations or a later one (a cycle no correct replica makes) is never ready.
    ///
    /// - Complexity: O(k log k) for k runs whose references are in Lamport order (every delta a
    ///   correct replica makes); O(k²) at worst.
    public func canApplyCompletely(_ delta: TextDelta) -> Bool {
        // (Runs are read in place, field by field: copying a whole run is costly.)
        let runs = delta.runs
        guard let first = runs.first else { return true }
        if runs.count == 1 || runs[runs.count - 1].replica == first.replica {
            return canApplyCompletely(runsOf: first.replica, runs)
        }
        // Counts held of each replica the delta names, sorted by replica (runs are sorted by
        // replica, so appending keeps the order): no dictionary.
        var counts: [(replica: ReplicaID, count: UInt32)] = []
        for index in runs.indices where counts.last?.replica != runs[index].replica {
            counts.append((runs[index].replica, operationCount(of: runs[index].replica)))
        }
        func position(of replica: ReplicaID) -> Int? {
            var low = 0
            var high = counts.count
            while low < high {
                let middle = (low + high) / 2
                if counts[middle].replica < replica { low = middle + 1 } else { high = middle }
            }
            return low < counts.count && counts[low].replica == replica ? low : nil
        }
        func holds(_ id: OperationID, length: UInt32) -> Bool {
            let count = position(of: id.replica).map { counts[$0].count } ?? operationCount(of: id.replica)
            return UInt64(id.counter) + UInt64(length) <= UInt64(count)
        }
        // Whether run `index` can apply now, its references held; if so, counts it as held.
        func take(_ index: Int) -> Bool {
            let slot = position(of: runs[index].replica)!
            if runs[index].counter > counts[slot].count { return false }
            if runs[index].end <= counts[slot].count { return true }
            guard Self.referencesHeld(runs, index, holds) else { return false }
            counts[slot].count = runs[index].end
            return true
        }
        // The first pass, in Lamport order (several replicas: one is handled above).
        let order = runs.indices.sorted {
            (runs[$0].lamport, runs[$0].replica, runs[$0].counter) < (runs[$1].lamport, runs[$1].replica, runs[$1].counter)
        }
        var waiting: [Int] = []
        for index in order where !take(index) { waiting.append(index) }
        // Runs that had to wait, again while some apply.
        while !waiting.isEmpty {
            let stillWaiting = waiting.filter { !take($0) }
            if stillWaiting.count == waiting.count { return false }
            waiting = stillWaiting
        }
        return true
    }

    /// ``canApplyCompletely(_:)`` for runs all of `replica` (what a notebook run's text is), in
    /// counter order, which is their Lamport order too: one pass, as a run that must wait can
    /// be helped by no later run (they continue it, and refer to other replicas only as this
    /// text holds them now).
    private func canApplyCompletely(runsOf replica: ReplicaID, _ runs: [TextDelta.Run]) -> Bool {
        var count = operationCount(of: replica)
        func holds(_ id: OperationID, length: UInt32) -> Bool {
            let held = id.replica == replica ? count : operationCount(of: id.replica)
            return UInt64(id.counter) + UInt64(length) <= UInt64(held)
        }
        for index in runs.indices {
            if runs[index].counter > count { return false }
            if runs[index].end <= count { continue }
            guard Self.referencesHeld(runs, index, holds) else { return false }
            count = runs[index].end
        }
        return true
    }

    /// Whether `holds` says every origin (for an insertion) or deletion target of `runs[index]`
    /// is held. (The run is read in place: copying it is costly.)
    @inline(__always)
    private static func referencesHeld(_ runs: [TextDelta.Run], _ index: Int, _ holds: (OperationID, UInt32) -> Bool) -> Bool {
        switch runs[index].kind {
        case let .insertion(originLeft, originRight, _):
            if let originLeft, !holds(originLeft, 1) { return false }
            if case let .item(id) = originRight, !holds(id, 1) { return false }
            return true
        case let .deletion(target, _):
            return holds(target, runs[index].length)
        }
    }
}

extension TextDelta {
    /// The part of this delta made of operations `counters` of `replica`.
    ///
    /// Runs are sorted by replica then counter and do not overlap (every delta is built or
    /// decoded that way), so the first run concerned is found by bisection; a delta that lies
    /// wholly within the range is returned as it is, without copying its runs. An empty range
    /// gives an empty delta.
    ///
    /// Insertions of the result that travel as tombstones keep them even when the deletions that
    /// removed them are outside the range: a receiver holds such tombstones back until their
    /// deletions arrive (``TextCRDT/apply(_:recordingEdits:)``).
    ///
    /// - Complexity: O(log n + k) for n runs in the delta and k in the result.
    public func restricted(to replica: ReplicaID, counters: Range<UInt32>) -> TextDelta {
        if counters.isEmpty { return TextDelta() }
        let (start, stop) = runIndices(of: replica, overlapping: counters)
        if start == 0 && stop == runs.count, let first = runs.first, let last = runs.last,
            first.replica == replica && last.replica == replica,
            counters.lowerBound <= first.counter && last.end <= counters.upperBound
        {
            return self
        }
        func clipped(_ run: Run) -> Run {
            var part = run
            if part.counter < counters.lowerBound { part = part.dropping(counters.lowerBound - part.counter) }
            if part.end > counters.upperBound { part = part.prefix(counters.upperBound - part.counter) }
            return part
        }
        // Runs of one replica are sorted and do not overlap: only the first can start before the
        // range and only the last end after it; those between are taken whole, in one copy.
        var result: [Run] = []
        result.reserveCapacity(stop - start)
        var first = start
        if first < stop && (runs[first].counter < counters.lowerBound || runs[first].end > counters.upperBound) {
            result.append(clipped(runs[first]))
            first += 1
        }
        var end = stop
        if end > first && runs[end - 1].end > counters.upperBound { end -= 1 }
        result.append(contentsOf: runs[first..<end])
        if end < stop { result.append(clipped(runs[end])) }
        return TextDelta(runs: result)
    }

    /// How many operations of `replica` with counters in `counters` this delta holds: the
    /// ``operationCount`` of ``restricted(to:counters:)``, without building it.
    ///
    /// - Complexity: O(log n + k) for n runs in the delta and k overlapping the range.
    package func operationCount(of replica: ReplicaID, counters: Range<UInt32>) -> Int {
        let (start, stop) = runIndices(of: replica, overlapping: counters)
        var total = 0
        for index in start..<stop {
            let run = runs[index]
            total += Int(min(run.end, counters.upperBound) - max(run.counter, counters.lowerBound))
        }
        return total
    }

    /// The indices of all runs of `replica` in ``runs``.
    ///
    /// Both ends are found by bisection over the runs sorted by replica, then counter (not by
    /// walking the replica's runs: validation asks this for every origin a delta names).
    ///
    /// - Complexity: O(log n) for n runs.
    func runIndices(of replica: ReplicaID) -> Range<Int> {
        let start = runs.partitioningIndex { $0.replica >= replica }
        var low = start
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].replica > replica { high = middle } else { low = middle + 1 }
        }
        assert(start <= low, "runs are sorted by replica")
        return start..<low
    }

    /// The index in ``runs`` of the run holding operation `id`, or nil when the delta does not
    /// hold it: one bisection over the runs sorted by replica, then counter.
    ///
    /// - Complexity: O(log n) for n runs.
    func runIndex(holding id: OperationID) -> Int? {
        let index = runs.partitioningIndex { $0.replica > id.replica || ($0.replica == id.replica && $0.end > id.counter) }
        guard index < runs.count, runs[index].replica == id.replica, runs[index].counter <= id.counter else { return nil }
        return index
    }

    /// The indices of the runs of `replica` that overlap `counters` (a possibly empty range of
    /// ``runs``), found by bisection over the runs sorted by replica, then counter.
    ///
    /// - Complexity: O(log n + k) for n runs and k in the result.
    func runIndices(of replica: ReplicaID, overlapping counters: Range<UInt32>) -> (Int, Int) {
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            let runReplica = runs[middle].replica
            if runReplica > replica || (runReplica == replica && runs[middle].end > counters.lowerBound) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        var stop = low
        while stop < runs.count && runs[stop].replica == replica && runs[stop].counter < counters.upperBound { stop += 1 }
        return (low, stop)
    }
}

extension TextCRDT {
    /// The beginning of the visible text: whole scalars, at most `utf8Bytes` bytes.
    ///
    /// - Complexity: O(log r + p) for p bytes returned (spans are walked from the start).
    public func prefix(utf8Bytes: Int) -> String {
        String(decoding: prefixBytes(utf8Bytes: utf8Bytes), as: UTF8.self)
    }

    /// The UTF-8 of ``prefix(utf8Bytes:)`` (content is valid UTF-8 already: no check, no copy
    /// through a `String`).
    package func prefixBytes(utf8Bytes: Int) -> [UInt8] {
        // (None for a count below 1: a negative one made a range that trapped.)
        let utf8Bytes = max(0, utf8Bytes)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(utf8Bytes, content.count))
        var leaf = firstLeaf
        walk: while leaf != noIndex {
            for slot in slots(of: leaf) where !spans[slot].isDeleted {
                let span = spans[slot]
                let start = Int(span.contentOffset)
                let room = utf8Bytes - bytes.count
                if Int(span.lengthUTF8) <= room {
                    bytes.append(contentsOf: content[start..<start + Int(span.lengthUTF8)])
                } else {
                    // Whole scalars only.
                    var end = start + room
                    while end > start && content[end] & 0xC0 == 0x80 { end -= 1 }
                    bytes.append(contentsOf: content[start..<end])
                    break walk
                }
            }
            leaf = leafHeaders[leaf].next
        }
        return bytes
    }
}

extension TextCRDT {
    /// The visible text in the scalar range `range` (which must lie within the text), read
    /// from the spans it covers instead of building the whole string.
    ///
    /// - Complexity: O(log r + k) for k spans and bytes in the range.
    package func string(inScalarRange range: Range<Int>) -> String {
        precondition(range.lowerBound >= 0 && range.upperBound <= lengthScalars, "scalar range out of bounds")
        if range.isEmpty { return "" }
        var bytes: [UInt8] = []
        var (location, offset, _, _) = findVisibleScalar(ordinal: range.lowerBound + 1)
        var remaining = range.count
        while remaining > 0 {
            let span = spans[location.slot]
            if !span.isDeleted {
                // Skip `offset` scalars into the span, take up to `remaining` of the rest.
                var start = Int(span.contentOffset)
                let end = start + Int(span.lengthUTF8)
                var skipped = 0
                while skipped < offset {
                    start += 1
                    while start < end && content[start] & 0xC0 == 0x80 { start += 1 }
                    skipped += 1
                }
                var stop = start
                var taken = 0
                while taken < remaining && stop < end {
                    stop += 1
                    while stop < end && content[stop] & 0xC0 == 0x80 { stop += 1 }
                    taken += 1
                }
                bytes.append(contentsOf: content[start..<stop])
                remaining -= taken
            }
            offset = 0
            guard remaining > 0, let next = self.location(after: location) else { break }
            location = next
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// How many operations of `replica` this text holds (its entry in ``version``, without
    /// building the version).
    package func operationCount(of replica: ReplicaID) -> UInt32 {
        guard let index = replicaTable.index(of: replica) else { return 0 }
        return logs[Int(index)].operationCount
    }
}
