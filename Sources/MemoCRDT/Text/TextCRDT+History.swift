// History (issue 27): the text at an earlier version, the difference between two versions, who
// wrote each part of the text, the stretches versions are made of, and the encoding of retained
// deleted content (FORMAT.md, "Text state, version 4", "version 3" and "Memo history").
//
// The text at a version V is the replay of exactly V's operations. It is read off the sequence
// this text holds: FugueMax never reorders items as others arrive, so the items V inserted are in
// the same relative order here as in a replay of V, and an item is visible at V when V holds its
// insertion and no deletion of it. Only its content may be missing (deleted since, not retained).

/// Why the text at an earlier version cannot be given.
public enum TextHistoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The version names operations this text does not hold.
    case versionNotHeld
    /// Text visible at the version was deleted since and its content is not retained (dropped
    /// after the retention period, or received already deleted from a device that did not
    /// retain it): `scalars` of them.
    case contentNotRetained(scalars: Int)

    public var description: String {
        switch self {
        case .versionNotHeld: "the version names operations this text does not hold"
        case let .contentNotRetained(scalars): "\(scalars) deleted characters of that version are no longer retained"
        }
    }
}

/// The difference between the text at two versions: what was inserted and what was deleted,
/// in document order.
public struct TextVersionDiff: Sendable, Equatable {
    /// One inserted or deleted passage.
    public struct Change: Sendable, Equatable {
        /// Whether the passage is in the newer text only (inserted) or the older only (deleted).
        public enum Kind: Sendable, Equatable {
            /// In the `to` text only.
            case inserted
            /// In the `from` text only.
            case deleted
        }

        /// Inserted or deleted.
        public var kind: Kind
        /// The passage.
        public var text: String
        /// Its range in the `from` text, in UTF-16 units (empty for an insertion: where it goes).
        public var fromRangeUTF16: Range<Int>
        /// Its range in the `from` text, in Unicode scalars (empty for an insertion).
        public var fromRangeScalars: Range<Int>
        /// Its range in the `to` text, in UTF-16 units (empty for a deletion: where it was).
        public var toRangeUTF16: Range<Int>
        /// Its range in the `to` text, in Unicode scalars (empty for a deletion).
        public var toRangeScalars: Range<Int>
        /// The id of the passage's first character in the sequence: where a deleted passage
        /// goes back (``TextCRDT/insert(_:beforeCharacter:)``).
        public var firstCharacter: OperationID
    }

    /// The changes in document order; an insertion and a deletion at one place are listed
    /// deletion first when the deleted items come first in the sequence.
    public var changes: [Change] = []

    /// Scalars inserted in all.
    public var insertedScalars: Int { changes.reduce(0) { $0 + ($1.kind == .inserted ? $1.toRangeScalars.count : 0) } }
    /// Scalars deleted in all.
    public var deletedScalars: Int { changes.reduce(0) { $0 + ($1.kind == .deleted ? $1.fromRangeScalars.count : 0) } }
}

/// A passage of the current text and the device (replica) that typed it.
public struct TextAttribution: Sendable, Equatable {
    /// The replica whose insertions these are.
    public var replica: ReplicaID
    /// The passage, in UTF-16 units of the current text.
    public var rangeUTF16: Range<Int>
    /// The passage, in Unicode scalars of the current text.
    public var rangeScalars: Range<Int>
}

/// A replica's operations in a text whose Lamport timestamps rise by one per operation: what one
/// device did without a pause it can see (another memo edited, operations received). Versions
/// are made of stretches (FORMAT.md, "Memo history").
public struct TextStretch: Sendable, Equatable {
    /// The replica that made the operations.
    public var replica: ReplicaID
    /// The operations' counters.
    public var counters: Range<UInt32>
    /// The Lamport timestamp of the last operation.
    public var lastLamport: UInt64
}

extension TextCRDT {
    // MARK: Reading the past

    /// What a version includes, in this text's replica indices.
    struct VersionView {
        /// Per replica index, the operations included.
        var counts: [UInt32]
        /// Per replica index, its items deleted by operations included: ascending, disjoint.
        var deleted: [[Range<UInt32>]]

        func isVisible(replica: UInt32, counter: UInt32) -> Bool {
            guard counter < counts[Int(replica)] else { return false }
            let ranges = deleted[Int(replica)]
            let index = ranges.partitioningIndex { $0.upperBound > counter }
            return !(index < ranges.count && ranges[index].lowerBound <= counter)
        }
    }

    func view(of version: VersionVector) throws(TextHistoryError) -> VersionView {
        guard version.isIncluded(in: self.version) else { throw .versionNotHeld }
        let ids = replicaTable.ids
        let counts = ids.map { version[$0] }
        var deleted = [[Range<UInt32>]](repeating: [], count: ids.count)
        for replicaIndex in logs.indices {
            let count = counts[replicaIndex]
            for run in logs[replicaIndex].deletionRuns {
                if run.counter >= count { break }
                let taken = min(run.end, count) - run.counter
                let lower = run.isReversed ? run.targetCounter + run.length - taken : run.targetCounter
                deleted[Int(run.targetReplica)].append(lower..<lower + taken)
            }
        }
        return VersionView(counts: counts, deleted: deleted.map { mergedRanges($0) })
    }

    /// Calls `body` with every piece of the sequence in document order (deleted items included):
    /// items `offset ..< offset + length` of the span at `slot`, cut wherever visibility at one
    /// of `views` changes, with whether each view shows them.
    func forEachPiece(views: [VersionView], _ body: (_ slot: UInt32, _ offset: UInt32, _ length: UInt32, _ visible: [Bool]) throws(TextHistoryError) -> Void) throws(TextHistoryError) {
        var leaf = firstLeaf
        var bounds: [UInt32] = []
        var visible = [Bool](repeating: false, count: views.count)
        while leaf != noIndex {
            for slot in slots(of: leaf) {
                let span = spans[slot]
                let start = span.counter
                let end = span.end
                bounds.removeAll(keepingCapacity: true)
                bounds.append(start)
                bounds.append(end)
                for view in views {
                    let cutoff = view.counts[Int(span.replica)]
                    if cutoff > start && cutoff < end { bounds.append(cutoff) }
                    let ranges = view.deleted[Int(span.replica)]
                    var index = ranges.partitioningIndex { $0.upperBound > start }
                    while index < ranges.count && ranges[index].lowerBound < end {
                        if ranges[index].lowerBound > start { bounds.append(ranges[index].lowerBound) }
                        if ranges[index].upperBound < end { bounds.append(ranges[index].upperBound) }
                        index += 1
                    }
                }
                if bounds.count > 2 { bounds.sort() }
                var previous = start
                for bound in bounds where bound > previous {
                    for index in views.indices {
                        visible[index] = views[index].isVisible(replica: span.replica, counter: previous)
                    }
                    try body(slot, previous - start, bound - previous, visible)
                    previous = bound
                }
            }
            leaf = leafHeaders[leaf].next
        }
    }

    /// The UTF-8 of items `offset ..< offset + length` of the span at `slot`: from the text when
    /// visible, else from the retained content (nil when not retained).
    func pieceContent(slot: UInt32, offset: UInt32, length: UInt32) -> ArraySlice<UInt8>? {
        let span = spans[slot]
        if !span.isDeleted {
            let start = Int(span.contentOffset)
            let skip = prefixLengths(of: span, scalars: offset).bytes
            let taken = UTF8Scanning.advance(content, from: start + skip, scalars: Int(length)).bytes
            return content[start + skip..<start + skip + taken]
        }
        return retained.content(replica: span.replica, counters: span.counter + offset..<span.counter + offset + length)?[...]
    }

    /// How many of the deleted items `offset ..< offset + length` of the span at `slot` have no
    /// retained content.
    func missingScalars(slot: UInt32, offset: UInt32, length: UInt32) -> Int {
        let start = spans[slot].counter + offset
        return Int(length) - retained.retainedCount(replica: spans[slot].replica, counters: start..<start + length)
    }

    /// The text as it was at `version`: the replay of exactly the operations `version` names.
    ///
    /// `version` is usually a version a history lists (a cut, causally closed); any version this
    /// text includes is read the same way (the items it inserted, minus those it deleted).
    ///
    /// - Throws: ``TextHistoryError/versionNotHeld`` when this text lacks some of its operations;
    ///   ``TextHistoryError/contentNotRetained(scalars:)`` when text visible then was deleted
    ///   since and its content is not retained.
    /// - Complexity: O(n + d log d) for n spans and d deletion runs.
    public func string(at version: VersionVector) throws(TextHistoryError) -> String {
        let view = try view(of: version)
        var bytes: [UInt8] = []
        var missing = 0
        try forEachPiece(views: [view]) { slot, offset, length, visible throws(TextHistoryError) in
            guard visible[0] else { return }
            if let piece = pieceContent(slot: slot, offset: offset, length: length) {
                bytes.append(contentsOf: piece)
            } else {
                missing += missingScalars(slot: slot, offset: offset, length: length)
            }
        }
        if missing > 0 { throw .contentNotRetained(scalars: missing) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What changed between the text at `from` and the text at `to` (usually an earlier and a
    /// later version; either order works).
    ///
    /// - Throws: as ``string(at:)``, for either version.
    /// - Complexity: O(n + d log d) for n spans and d deletion runs.
    public func difference(from: VersionVector, to: VersionVector) throws(TextHistoryError) -> TextVersionDiff {
        let views = [try view(of: from), try view(of: to)]
        var diff = TextVersionDiff()
        var fromScalars = 0
        var fromUTF16 = 0
        var toScalars = 0
        var toUTF16 = 0
        var missing = 0
        try forEachPiece(views: views) { slot, offset, length, visible throws(TextHistoryError) in
            let inFrom = visible[0]
            let inTo = visible[1]
            guard inFrom || inTo else { return }
            var utf16 = 0
            var text = ""
            if inFrom && inTo, !spans[slot].isDeleted {
                utf16 = prefixLengths(of: spans[slot], scalars: offset + length).utf16 - prefixLengths(of: spans[slot], scalars: offset).utf16
            } else if let piece = pieceContent(slot: slot, offset: offset, length: length) {
                utf16 = UTF8Scanning.counts(of: piece).utf16
                if inFrom != inTo { text = String(decoding: piece, as: UTF8.self) }
            } else {
                missing += missingScalars(slot: slot, offset: offset, length: length)
                return
            }
            let scalars = Int(length)
            let first = OperationID(replica: replicaTable.ids[Int(spans[slot].replica)], counter: spans[slot].counter + offset)
            if inFrom && !inTo {
                let change = TextVersionDiff.Change(
                    kind: .deleted, text: text, fromRangeUTF16: fromUTF16..<fromUTF16 + utf16,
                    fromRangeScalars: fromScalars..<fromScalars + scalars, toRangeUTF16: toUTF16..<toUTF16,
                    toRangeScalars: toScalars..<toScalars, firstCharacter: first)
                Self.appendMerging(change, to: &diff.changes)
            } else if inTo && !inFrom {
                let change = TextVersionDiff.Change(
                    kind: .inserted, text: text, fromRangeUTF16: fromUTF16..<fromUTF16,
                    fromRangeScalars: fromScalars..<fromScalars, toRangeUTF16: toUTF16..<toUTF16 + utf16,
                    toRangeScalars: toScalars..<toScalars + scalars, firstCharacter: first)
                Self.appendMerging(change, to: &diff.changes)
            }
            if inFrom {
                fromScalars += scalars
                fromUTF16 += utf16
            }
            if inTo {
                toScalars += scalars
                toUTF16 += utf16
            }
        }
        if missing > 0 { throw .contentNotRetained(scalars: missing) }
        return diff
    }

    private static func appendMerging(_ change: TextVersionDiff.Change, to changes: inout [TextVersionDiff.Change]) {
        if var last = changes.last, last.kind == change.kind,
            last.fromRangeUTF16.upperBound == change.fromRangeUTF16.lowerBound,
            last.toRangeUTF16.upperBound == change.toRangeUTF16.lowerBound
        {
            last.text += change.text
            last.fromRangeUTF16 = last.fromRangeUTF16.lowerBound..<change.fromRangeUTF16.upperBound
            last.fromRangeScalars = last.fromRangeScalars.lowerBound..<change.fromRangeScalars.upperBound
            last.toRangeUTF16 = last.toRangeUTF16.lowerBound..<change.toRangeUTF16.upperBound
            last.toRangeScalars = last.toRangeScalars.lowerBound..<change.toRangeScalars.upperBound
            changes[changes.count - 1] = last
        } else {
            changes.append(change)
        }
    }

    /// Who typed each part of the current text: passages in document order, each of one
    /// replica's insertions (adjacent passages of one replica joined).
    ///
    /// - Complexity: O(n) for n spans.
    public func attribution() -> [TextAttribution] {
        var result: [TextAttribution] = []
        var scalars = 0
        var utf16 = 0
        var leaf = firstLeaf
        while leaf != noIndex {
            for slot in slots(of: leaf) where !spans[slot].isDeleted {
                let span = spans[slot]
                let id = replicaTable.ids[Int(span.replica)]
                let next = TextAttribution(
                    replica: id, rangeUTF16: utf16..<utf16 + Int(span.lengthUTF16),
                    rangeScalars: scalars..<scalars + Int(span.lengthScalars))
                if let last = result.last, last.replica == id {
                    result[result.count - 1].rangeUTF16 = last.rangeUTF16.lowerBound..<next.rangeUTF16.upperBound
                    result[result.count - 1].rangeScalars = last.rangeScalars.lowerBound..<next.rangeScalars.upperBound
                } else {
                    result.append(next)
                }
                scalars += Int(span.lengthScalars)
                utf16 += Int(span.lengthUTF16)
            }
            leaf = leafHeaders[leaf].next
        }
        return result
    }

    // MARK: Stretches and cuts

    /// Every replica's stretches (operations with Lamport timestamps rising by one), ordered by
    /// (Lamport timestamp of the last operation, replica id): what versions are made of
    /// (FORMAT.md, "Memo history").
    ///
    /// - Complexity: O(s log s) for s stretches.
    public func stretches() -> [TextStretch] {
        var result: [TextStretch] = []
        for index in logs.indices where logs[index].operationCount > 0 {
            let log = logs[index]
            for (position, run) in log.lamportRuns.enumerated() {
                let end = position + 1 < log.lamportRuns.count ? log.lamportRuns[position + 1].counter : log.operationCount
                guard end > run.counter else { continue }
                result.append(
                    TextStretch(
                        replica: replicaTable.ids[index], counters: run.counter..<end,
                        lastLamport: run.lamport + UInt64(end - 1 - run.counter)))
            }
        }
        result.sort { ($0.lastLamport, $0.replica) < ($1.lastLamport, $1.replica) }
        return result
    }

    /// The cut through the last operation of `stretch`: every operation whose (Lamport
    /// timestamp, replica id) is at most that operation's. Causally closed.
    ///
    /// - Complexity: O(r log l) for r replicas and l Lamport runs each.
    public func cut(through stretch: TextStretch) -> VersionVector {
        cut(lamport: stretch.lastLamport, replica: stretch.replica)
    }

    /// Every operation whose (Lamport timestamp, replica id) is at most (`lamport`, `replica`).
    public func cut(lamport: UInt64, replica: ReplicaID) -> VersionVector {
        var entries: [VersionVector.Entry] = []
        for index in logs.indices where logs[index].operationCount > 0 {
            let id = replicaTable.ids[index]
            let threshold: UInt64
            if id <= replica {
                threshold = lamport
            } else {
                guard lamport > 0 else { continue }
                threshold = lamport - 1
            }
            let runs = logs[index].lamportRuns
            // The last Lamport run starting at or before the threshold.
            let position = runs.partitioningIndex { $0.lamport > threshold } - 1
            guard position >= 0 else { continue }
            let run = runs[position]
            let end = position + 1 < runs.count ? runs[position + 1].counter : logs[index].operationCount
            let count = UInt32(min(UInt64(end), UInt64(run.counter) + (threshold - run.lamport) + 1))
            if count > 0 { entries.append(VersionVector.Entry(replica: id, operationCount: count)) }
        }
        return VersionVector(entries: entries)
    }

    /// How many insertion and deletion operations `to` has that `from` lacks (per replica, the
    /// counters between the two).
    public func operationCounts(from: VersionVector, to: VersionVector) -> (insertions: Int, deletions: Int) {
        var insertions = 0
        var deletions = 0
        for index in logs.indices {
            let id = replicaTable.ids[index]
            let lower = from[id]
            let upper = min(to[id], logs[index].operationCount)
            guard upper > lower else { continue }
            var deleted = 0
            for run in logs[index].deletionRuns where run.end > lower && run.counter < upper {
                deleted += Int(min(run.end, upper) - max(run.counter, lower))
            }
            deletions += deleted
            insertions += Int(upper - lower) - deleted
        }
        return (insertions, deletions)
    }

    // MARK: Retained content

    /// Scalars of deleted text whose content this text retains.
    public var retainedDeletedScalars: Int { retained.itemCount }

    /// Drops the retained content of every item deleted by one of the operations in `deletions`
    /// (per replica, counter ranges; insertions in them are ignored): what retention does with
    /// deletions older than its period. Changes nothing else: the text, its operations and what
    /// it converges to are the same.
    public mutating func dropRetainedContent(deletedBy deletions: [(replica: ReplicaID, counters: Range<UInt32>)]) {
        guard !retained.isEmpty else { return }
        var targets: [UInt32: [Range<UInt32>]] = [:]
        for (replica, counters) in deletions {
            guard let index = replicaTable.index(of: replica) else { continue }
            for run in logs[Int(index)].deletionRuns where run.end > counters.lowerBound && run.counter < counters.upperBound {
                let first = max(run.counter, counters.lowerBound) - run.counter
                let last = min(run.end, counters.upperBound) - run.counter
                let lower = run.isReversed ? run.targetCounter + run.length - last : run.targetCounter + first
                targets[run.targetReplica, default: []].append(lower..<lower + (last - first))
            }
        }
        for key in Array(targets.keys) { targets[key] = mergedRanges(targets[key]!) }
        retained.drop(targets)
    }

    /// Drops all retained content (a purge).
    public mutating func dropAllRetainedContent() {
        retained.removeAll()
    }

    // MARK: Encoding retained content

    /// Per replica index, the counters of its insertions this text holds deleted: ascending,
    /// disjoint, maximal. A history section of version 4 counts its runs over them.
    ///
    /// - Complexity: O(n + d log d) for n spans, d of them deleted.
    func deletedInsertionRanges() -> [[Range<UInt32>]] {
        var ranges = [[Range<UInt32>]](repeating: [], count: replicaTable.ids.count)
        var leaf = firstLeaf
        while leaf != noIndex {
            for slot in slots(of: leaf) where spans[slot].isDeleted {
                let span = spans[slot]
                ranges[Int(span.replica)].append(span.counter..<span.end)
            }
            leaf = leafHeaders[leaf].next
        }
        return ranges.map { mergedRanges($0) }
    }

    /// The history section of a text state (FORMAT.md, "Text state, version 4"), or nil when
    /// nothing is retained. Replica indices are the state's table (replicas with operations,
    /// by id).
    ///
    /// - Complexity: O(n + d log d + e + b) for n spans, d deleted, e retained entries and b
    ///   retained bytes.
    package func encodedHistorySection() -> [UInt8]? {
        guard !retained.isEmpty else { return nil }
        let order = replicasWithOperationsByID()
        var tableIndex = [UInt32](repeating: noIndex, count: logs.count)
        for (position, index) in order.enumerated() { tableIndex[index] = UInt32(position) }
        let (entries, content) = retained.canonicalEntries { tableIndex[Int($0)] }
        let deleted = deletedInsertionRanges()
        // Per replica with retained content: alternating runs (retained, not retained, …) over its
        // deleted insertions in counter order, starting with retained, ending with retained.
        var groups: [(replica: UInt32, runs: [UInt32])] = []
        var rangeIndex = 0
        var before: UInt32 = 0  // deleted insertions of the group's replica before `rangeIndex`
        var covered: UInt32 = 0  // deleted insertions the group's runs cover so far
        for entry in entries {
            if groups.last?.replica != entry.replica {
                groups.append((entry.replica, []))
                rangeIndex = 0
                before = 0
                covered = 0
            }
            let ranges = deleted[order[Int(entry.replica)]]
            // Retained items are deleted insertions (`checkInvariants`): the entry lies within one
            // maximal range.
            while ranges[rangeIndex].upperBound <= entry.counter {
                before += UInt32(ranges[rangeIndex].count)
                rangeIndex += 1
            }
            let start = before + (entry.counter - ranges[rangeIndex].lowerBound)
            let last = groups.count - 1
            if groups[last].runs.isEmpty {
                if start > 0 { groups[last].runs += [0, start] }
                groups[last].runs.append(entry.length)
            } else if start == covered {
                groups[last].runs[groups[last].runs.count - 1] += entry.length
            } else {
                groups[last].runs += [start - covered, entry.length]
            }
            covered = start + entry.length
        }
        var writer = ByteWriter(capacity: content.count + 8 * groups.count + 8)
        writer.varint(groups.count)
        for group in groups {
            writer.varint(group.replica)
            writer.varint(group.runs.count)
            for run in group.runs { writer.varint(run) }
        }
        writer.append(contentsOf: content)
        return writer.bytes
    }

    /// Reads a history section of `sectionVersion` (the text state version whose section it is:
    /// 3, counter ranges, or 4, runs over the deleted insertions) into this just-decoded text,
    /// checking it against the text.
    package mutating func attachHistory(_ bytes: [UInt8], range: Range<Int>, sectionVersion: UInt8) throws(DecodingError) {
        if sectionVersion == Self.stateFormatVersionWithCounterRangeHistory {
            try attachCounterRangeHistory(bytes, range: range)
        } else {
            try attachRunHistory(bytes, range: range)
        }
    }

    /// Reads a history section's groups, for the decoders of both section versions: the group
    /// count (at least one; a group is at least 3 bytes), then each group's replica (an index
    /// into this text's replicas with operations, in id order; strictly ascending), handing the
    /// replica's index in this text and the reader to `group`, which reads the rest of it.
    private func readHistoryGroups(
        _ reader: inout ByteReader, _ group: (Int, inout ByteReader) throws(DecodingError) -> Void
    ) throws(DecodingError) {
        let order = replicasWithOperationsByID()
        guard !order.isEmpty else { throw .malformed("a history for a text without operations") }
        let groupCount = try reader.count(max: min(order.count, reader.remaining / 3), "history group count")
        guard groupCount > 0 else { throw .malformed("an empty history section") }
        var previousReplica = -1
        for _ in 0..<groupCount {
            let replica = try reader.count(max: order.count - 1, "history replica index")
            guard replica > previousReplica else { throw .malformed("history groups not strictly ascending") }
            previousReplica = replica
            try group(order[replica], &reader)
        }
    }

    /// Reads a history section of version 4 (`bytes[range]`): groups ascending, run counts odd,
    /// runs of 0 only first, runs within the replica's deleted insertions, content valid UTF-8
    /// with one scalar per retained item.
    private mutating func attachRunHistory(_ bytes: [UInt8], range: Range<Int>) throws(DecodingError) {
        var reader = ByteReader(bytes, from: range.lowerBound, to: range.upperBound)
        let deleted = deletedInsertionRanges()
        var decoded: [(replica: UInt32, counter: UInt32, length: UInt32)] = []
        var totalScalars = 0
        try readHistoryGroups(&reader) { (index: Int, reader: inout ByteReader) throws(DecodingError) in
            let ranges = deleted[index]
            let deletedCount = ranges.reduce(0) { $0 + $1.count }
            let runCount = try reader.count(max: reader.remaining, "history run count")
            guard runCount > 0 else { throw .malformed("an empty history group") }
            guard runCount % 2 == 1 else { throw .malformed("a history group that ends with items not retained") }
            var covered = 0
            var rangeIndex = 0
            var before = 0  // deleted insertions before `ranges[rangeIndex]`
            for position in 0..<runCount {
                let length = try reader.varint()
                guard position == 0 || length > 0 else { throw .malformed("an empty run in a history group") }
                guard length <= UInt64(deletedCount - covered) else {
                    throw .malformed("history runs past the replica's deleted insertions")
                }
                if position % 2 == 0 {
                    // Retained: deleted insertions `covered ..< covered + length`, as counter ranges.
                    var at = covered
                    let end = covered + Int(length)
                    while at < end {
                        while before + ranges[rangeIndex].count <= at {
                            before += ranges[rangeIndex].count
                            rangeIndex += 1
                        }
                        let offset = at - before
                        let taken = min(end - at, ranges[rangeIndex].count - offset)
                        decoded.append((UInt32(index), ranges[rangeIndex].lowerBound + UInt32(offset), UInt32(taken)))
                        at += taken
                    }
                    totalScalars += Int(length)
                }
                covered += Int(length)
            }
            guard covered > 0 else { throw .malformed("an empty history group") }
        }
        try attachContent(bytes, from: reader.position, to: range.upperBound, entries: decoded, scalars: totalScalars)
    }

    /// Takes `bytes[start ..< end]` as the content of `entries` (in their order, `scalars` in
    /// all), checking it is valid UTF-8 with one scalar per item, as this text's retained content.
    private mutating func attachContent(
        _ bytes: [UInt8], from start: Int, to end: Int,
        entries decoded: [(replica: UInt32, counter: UInt32, length: UInt32)], scalars totalScalars: Int
    ) throws(DecodingError) {
        let content = Array(bytes[start..<end])
        guard UTF8Scanning.isValid(content), UTF8Scanning.counts(of: content).scalars == totalScalars else {
            throw .malformed("history content does not hold one valid scalar per item")
        }
        // Split the content entry by entry; the entries sorted by this text's replica indices.
        var withBytes: [(replica: UInt32, counter: UInt32, length: UInt32, byteRange: Range<Int>)] = []
        withBytes.reserveCapacity(decoded.count)
        var position = 0
        for entry in decoded {
            let length = UTF8Scanning.advance(content, from: position, scalars: Int(entry.length)).bytes
            withBytes.append((entry.replica, entry.counter, entry.length, position..<position + length))
            position += length
        }
        withBytes.sort { ($0.replica, $0.counter) < ($1.replica, $1.counter) }
        retained = RetainedContent(decodedEntries: withBytes, content: content)
    }

    /// Reads a history section of version 3 (`bytes[range]`, entries by counter ranges) into
    /// this just-decoded text, checking every entry against it: items it holds, deleted, entries
    /// maximal and ascending, content valid UTF-8 with one scalar per item.
    private mutating func attachCounterRangeHistory(_ bytes: [UInt8], range: Range<Int>) throws(DecodingError) {
        var reader = ByteReader(bytes, from: range.lowerBound, to: range.upperBound)
        var decoded: [(replica: UInt32, counter: UInt32, length: UInt32)] = []
        var totalScalars = 0
        try readHistoryGroups(&reader) { (index: Int, reader: inout ByteReader) throws(DecodingError) in
            let operationCount = UInt64(logs[index].operationCount)
            let entryCount = try reader.count(max: reader.remaining, "history entry count")
            guard entryCount > 0 else { throw .malformed("an empty history group") }
            var previousEnd: UInt64 = 0
            for position in 0..<entryCount {
                let head = try reader.varint()
                let step = head >> 1
                let lengthMinusTwo: UInt64 = head & 1 == 1 ? try reader.varint() : 0
                guard position == 0 || step >= 1 else { throw .malformed("history entries that touch") }
                let first = previousEnd + step
                let length = head & 1 == 1 ? lengthMinusTwo + 2 : 1
                guard step < operationCount, lengthMinusTwo < operationCount, first + length <= operationCount else {
                    throw .malformed("history entry past the replica's operations")
                }
                guard holdsItems(replica: UInt32(index), counter: UInt32(first), length: UInt32(length)),
                    allDeleted(replica: UInt32(index), counter: UInt32(first), length: UInt32(length))
                else { throw .malformed("history entry for items that are not deleted insertions") }
                decoded.append((UInt32(index), UInt32(first), UInt32(length)))
                previousEnd = first + length
                totalScalars += Int(length)
            }
        }
        try attachContent(bytes, from: reader.position, to: range.upperBound, entries: decoded, scalars: totalScalars)
    }

    /// Whether every item `counter ..< counter + length` of `replica` (all held) is deleted.
    private func allDeleted(replica: UInt32, counter: UInt32, length: UInt32) -> Bool {
        var current = counter
        let end = counter + length
        while current < end {
            guard let (slot, offset) = lookup(ItemRef(replica: replica, counter: current)), spans[slot].isDeleted else { return false }
            current += spans[slot].lengthScalars - offset
        }
        return true
    }
}
