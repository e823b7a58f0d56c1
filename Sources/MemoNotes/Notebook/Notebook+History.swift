import MemoCRDT

// A memo's history (issue 27): its versions, the text at a version, the difference between two
// versions, who wrote what, and reverting. Versions are derived from the memo's operations and
// the notebook's runs, never stored (FORMAT.md, "Memo history"); the text at an earlier version
// needs the content of text deleted since, which a notebook keeps while ``Notebook/keepsHistory``
// is on (FORMAT.md, "Text state, version 3", "Notebook state, version 3").

/// One version of a memo: where one device's editing paused (FORMAT.md, "Memo history").
public struct MemoVersion: Sendable, Equatable {
    /// The version's name: the operations of the memo's text it includes (a cut, causally
    /// closed). ``Notebook/text(of:at:)`` and ``Notebook/difference(in:from:to:)`` take it.
    public var cut: VersionVector
    /// A short name for people and the command line: 8 hexadecimal digits (``shortName(of:)``).
    public var shortName: String
    /// The device (replica) whose editing made the version.
    public var device: ReplicaID
    /// When (wall clock of that device, milliseconds since the Unix epoch) its last edit was
    /// made.
    public var wallMilliseconds: UInt64
    /// Insertion operations (scalars typed) since the previous version.
    public var insertedCount: Int
    /// Deletion operations (scalars deleted) since the previous version.
    public var deletedCount: Int

    /// The short name of a cut: the top 32 bits of FNV-1a 64 over its entries (replica id as 8
    /// bytes little-endian, count as 4 bytes little-endian, in replica order), as 8 lowercase
    /// hexadecimal digits.
    public static func shortName(of cut: VersionVector) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        for entry in cut.entries {
            for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: entry.replica.rawValue >> UInt64(shift))) }
            for shift in stride(from: 0, to: 32, by: 8) { add(UInt8(truncatingIfNeeded: entry.operationCount >> UInt32(shift))) }
        }
        let top = hash >> 32
        let digits = String(top, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

extension Notebook {
    /// The default pause that separates two versions of one device: 10 minutes.
    public static let defaultHistoryPauseMilliseconds: UInt64 = 10 * 60 * 1000

    /// Whether deleting text in memos keeps its content, so earlier versions can be shown
    /// (``text(of:at:)``). Off by default; a library turns it on (with a retention period).
    /// Content kept already stays until dropped (``dropHistory(deletedBeforeWallMilliseconds:)``,
    /// purge).
    public var keepsHistory: Bool {
        get { keepsHistoryStorage }
        set {
            keepsHistoryStorage = newValue
            for index in 0..<memos.count {
                guard case .materialized = memos[at: index].text else { continue }
                var text = takeText(at: index)
                text.keepsDeletedContent = newValue
                memos[at: index].text = .materialized(text)
            }
        }
    }

    /// The versions of a memo, oldest first: one per pause in a device's editing (a gap of at
    /// least `pauseMilliseconds` between its edits that the operations show, or another
    /// device's edit in between). Two notebooks holding the same operations list the same
    /// versions. A memo in the trash keeps its versions; a purged one has none.
    ///
    /// ```swift
    /// for version in try notebook.versions(of: id).reversed() {
    ///     print(version.shortName, version.device, version.insertedCount, version.deletedCount)
    /// }
    /// let earlier = try notebook.text(of: id, at: versions[0].cut)
    /// ```
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/corruptMemo(_:_:)``.
    /// - Complexity: O(s log s + r) for s stretches of editing and r notebook runs.
    public func versions(
        of id: MemoID, pauseMilliseconds: UInt64 = Notebook.defaultHistoryPauseMilliseconds
    ) throws(NotebookError) -> [MemoVersion] {
        guard let record = memos[id], record.status != .purged else { throw .memoNotFound(id) }
        let text = try readableText(of: record)
        let stretches = text.stretches()
        // Per replica, the memo's text runs: text counters and the timestamp of their last one.
        var runsByReplica: [ReplicaID: [(textCounters: Range<UInt32>, wall: UInt64)]] = [:]
        for stretch in stretches where runsByReplica[stretch.replica] == nil {
            var runs: [(textCounters: Range<UInt32>, wall: UInt64)] = []
            for run in logs[stretch.replica]?.runs ?? [] where run.memo == id {
                if case let .text(textCounter) = run.kind {
                    runs.append((textCounter..<textCounter + run.length, run.timestamp.wallMilliseconds))
                }
            }
            runsByReplica[stretch.replica] = runs
        }
        func wall(of stretch: TextStretch) -> UInt64 {
            let last = stretch.counters.upperBound - 1
            let runs = runsByReplica[stretch.replica] ?? []
            let index = runs.partitioningIndex { $0.textCounters.upperBound > last }
            return index < runs.count ? runs[index].wall : 0
        }
        // Consecutive stretches of one device less than a pause apart are one version.
        var groups: [(last: TextStretch, wall: UInt64)] = []
        for stretch in stretches {
            let time = wall(of: stretch)
            if let group = groups.last, group.last.replica == stretch.replica,
                time < group.wall || time - group.wall < pauseMilliseconds
            {
                groups[groups.count - 1] = (stretch, max(time, group.wall))
            } else {
                groups.append((stretch, time))
            }
        }
        var result: [MemoVersion] = []
        var previous = VersionVector()
        for group in groups {
            let cut = text.cut(through: group.last)
            let counts = text.operationCounts(from: previous, to: cut)
            result.append(
                MemoVersion(
                    cut: cut, shortName: MemoVersion.shortName(of: cut), device: group.last.replica,
                    wallMilliseconds: group.wall, insertedCount: counts.insertions, deletedCount: counts.deletions))
            previous = cut
        }
        return result
    }

    /// The versions of a memo whose short name starts with `prefix` (lowercase hexadecimal; at
    /// least 4 digits to match anything): what the command line resolves a name with.
    public func versions(of id: MemoID, named prefix: String) throws(NotebookError) -> [MemoVersion] {
        let wanted = prefix.lowercased()
        guard wanted.count >= 4 else { return [] }
        return try versions(of: id).filter { $0.shortName.hasPrefix(wanted) }
    }

    /// The text of a memo at a version (a ``MemoVersion/cut``, or any version of its text this
    /// notebook holds).
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``; ``NotebookError/history(_:_:)`` when the
    ///   version is not held or text of it is no longer retained.
    public func text(of id: MemoID, at version: VersionVector) throws(NotebookError) -> String {
        guard let record = memos[id], record.status != .purged else { throw .memoNotFound(id) }
        let text = try readableText(of: record)
        do throws(TextHistoryError) {
            return try text.string(at: version)
        } catch {
            throw .history(id, error)
        }
    }

    /// What changed in a memo between two versions: inserted and deleted passages in UTF-16
    /// and scalar ranges (``TextVersionDiff``). ``LineDiff`` turns the two texts into lines.
    ///
    /// - Throws: as ``text(of:at:)``.
    public func difference(in id: MemoID, from: VersionVector, to: VersionVector) throws(NotebookError) -> TextVersionDiff {
        guard let record = memos[id], record.status != .purged else { throw .memoNotFound(id) }
        let text = try readableText(of: record)
        do throws(TextHistoryError) {
            return try text.difference(from: from, to: to)
        } catch {
            throw .history(id, error)
        }
    }

    /// Which device wrote each passage of a memo's current text.
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/corruptMemo(_:_:)``.
    public func attribution(of id: MemoID) throws(NotebookError) -> [TextAttribution] {
        guard let record = memos[id], record.status != .purged else { throw .memoNotFound(id) }
        return try readableText(of: record).attribution()
    }

    /// Makes the memo's text what it was at `version`, as a new local edit: only what differs
    /// is deleted or typed again (``TextDiff``), so edits made concurrently elsewhere are kept
    /// when they merge, and ``undo(_:wallMilliseconds:)`` takes the whole revert back in one
    /// step.
    ///
    /// - Throws: as ``text(of:at:)``; ``NotebookError/memoInTrash(_:)`` (restore it first).
    public mutating func revert(_ id: MemoID, to version: VersionVector, wallMilliseconds now: UInt64) throws(NotebookError) {
        let earlier = try text(of: id, at: version)
        let index = try editableIndex(id)
        var text = takeText(at: index)
        let edits = TextDiff.scalarEdits(from: Array(text.string.unicodeScalars), to: Array(earlier.unicodeScalars))
        guard !edits.isEmpty else {
            memos[at: index].text = .materialized(text)
            return
        }
        var inserted: [UndoStep.Run] = []
        var deleted: [UndoStep.Piece] = []
        var reported: [TextEdit] = []
        let before = text.localOperationCount
        text.observeLamport(lamport)
        // Last edit first: earlier ranges stay valid.
        for edit in edits.reversed() {
            var replacement = String.UnicodeScalarView()
            replacement.append(contentsOf: edit.replacement)
            if !edit.range.isEmpty { deleted.append(contentsOf: text.undoPieces(deleting: edit.range)) }
            let reportedRange = text.utf16Range(ofScalars: edit.range)
            let firstInserted = OperationID(replica: replica, counter: text.localOperationCount + UInt32(edit.range.count))
            do throws(TextError) {
                try text.replace(scalarRange: edit.range, with: String(replacement))
            } catch {
                memos[at: index].text = .materialized(text)
                if text.localOperationCount > before {
                    lamport = max(lamport, text.lamport)
                    recordLocalTextRun(at: index, from: before, to: text.localOperationCount, wallMilliseconds: now)
                }
                throw .text(id, error)
            }
            if !edit.replacement.isEmpty { inserted.append(UndoStep.Run(first: firstInserted, count: edit.replacement.count)) }
            reported.append(TextEdit(rangeUTF16: reportedRange, replacement: String(replacement)))
        }
        let after = text.localOperationCount
        lamport = max(lamport, text.lamport)
        memos[at: index].text = .materialized(text)
        recordLocalTextRun(at: index, from: before, to: after, wallMilliseconds: now)
        events.append(.changed(id, edits: reported, origin: .local))
        // One step of its own, never coalesced with typing before or after it.
        endUndoGrouping()
        recordUndo(UndoStep(inserted: inserted, deleted: deleted, wallMilliseconds: now, startScalars: 0, endScalars: 0), in: id)
        endUndoGrouping()
        checkInvariantsIfEnabled(.edited(id))
    }

    /// Brings back one deleted passage (a ``TextVersionDiff/Change`` of kind `deleted`, from
    /// ``difference(in:from:to:)``) as a new local edit: its text is typed again where it was,
    /// right before its first (deleted) character, whatever was written around it since.
    /// ``undo(_:wallMilliseconds:)`` takes it back.
    ///
    /// - Returns: the UTF-16 offset in the current text where the passage went.
    /// - Throws: ``NotebookError/memoInTrash(_:)``, ``NotebookError/memoNotFound(_:)``,
    ///   ``NotebookError/text(_:_:)`` (`TextError.unknownAnchor` for a change that is no
    ///   deleted passage of this memo: an insertion, or a passage whose first character this
    ///   memo does not hold deleted, as one of another memo mostly is).
    @discardableResult
    public mutating func restore(
        _ passage: TextVersionDiff.Change, in id: MemoID, wallMilliseconds now: UInt64
    ) throws(NotebookError) -> Int {
        let index = try editableIndex(id)
        var text = takeText(at: index)
        // (Before, an inserted passage was typed again, doubling it, and another memo's passage
        // landed wherever its first character's id fell in this one.)
        guard passage.kind == .deleted, text.holdsDeletedCharacter(passage.firstCharacter) else {
            memos[at: index].text = .materialized(text)
            throw .text(id, .unknownAnchor)
        }
        let before = text.localOperationCount
        let offsetScalars: Int
        // A passage that cannot go back changes nothing, not even the text's clock (it fails
        // before it makes an operation; no copy of the text is kept: `TextCRDT.restoreLamport`).
        let lamportBefore = text.lamport
        text.observeLamport(lamport)
        do throws(TextError) {
            offsetScalars = try text.insert(passage.text, beforeCharacter: passage.firstCharacter)
        } catch {
            if text.localOperationCount == before { text.restoreLamport(lamportBefore) }
            memos[at: index].text = .materialized(text)
            throw .text(id, error)
        }
        let after = text.localOperationCount
        let offsetUTF16 = text.utf16Range(ofScalars: offsetScalars..<offsetScalars).lowerBound
        lamport = max(lamport, text.lamport)
        memos[at: index].text = .materialized(text)
        guard after > before else { return offsetUTF16 }
        recordLocalTextRun(at: index, from: before, to: after, wallMilliseconds: now)
        events.append(.changed(id, edits: [TextEdit(rangeUTF16: offsetUTF16..<offsetUTF16, replacement: passage.text)], origin: .local))
        endUndoGrouping()
        recordUndo(
            UndoStep(
                inserted: [UndoStep.Run(first: OperationID(replica: replica, counter: before), count: Int(after - before))],
                deleted: [], wallMilliseconds: now, startScalars: offsetScalars, endScalars: offsetScalars + Int(after - before)),
            in: id)
        endUndoGrouping()
        checkInvariantsIfEnabled(.edited(id))
        return offsetUTF16
    }

    /// Drops the kept content of text deleted by operations whose notebook run is older than
    /// `cutoff` (wall milliseconds): the retention rule (FORMAT.md, "Memo history"). What every
    /// device converges to does not change; only older versions can no longer be shown.
    ///
    /// - Returns: how many deleted scalars' content was dropped.
    @discardableResult
    public mutating func dropHistory(deletedBeforeWallMilliseconds cutoff: UInt64) -> Int {
        // Only memos keeping something (a library applies this at its saves: most memos keep
        // nothing, and a notebook that keeps nothing costs one pass over its memos).
        var keeping = Set<MemoID>()
        for index in 0..<memos.count {
            let record = memos[at: index]
            if record.holdsUndecodedHistory {
                keeping.insert(record.id)
            } else if case let .materialized(text) = record.text, text.retainedDeletedScalars > 0 {
                keeping.insert(record.id)
            }
        }
        guard !keeping.isEmpty else { return 0 }
        // Per memo, the text counters of each replica's runs older than the cutoff.
        var expired: [MemoID: [(replica: ReplicaID, counters: Range<UInt32>)]] = [:]
        for replica in logs.keys.sorted() {
            for run in logs[replica]?.runs ?? [] where run.timestamp.wallMilliseconds < cutoff && keeping.contains(run.memo) {
                if case let .text(textCounter) = run.kind {
                    expired[run.memo, default: []].append((replica, textCounter..<textCounter + run.length))
                }
            }
        }
        var dropped = 0
        for (id, deletions) in expired.sorted(by: { $0.key < $1.key }) {
            guard let index = memos.index(of: id) else { continue }
            guard case .materialized = memos[at: index].text else {
                // Not decoded: its kept content is decoded (and checked) first.
                if !memos[at: index].holdsUndecodedHistory { continue }
                do throws(NotebookError) { try materializeText(at: index) } catch { continue }
                dropped += dropHistory(at: index, deletions: deletions)
                continue
            }
            dropped += dropHistory(at: index, deletions: deletions)
        }
        return dropped
    }

    private mutating func dropHistory(at index: Int, deletions: [(replica: ReplicaID, counters: Range<UInt32>)]) -> Int {
        var text = takeText(at: index)
        let before = text.retainedDeletedScalars
        text.dropRetainedContent(deletedBy: deletions)
        let dropped = before - text.retainedDeletedScalars
        memos[at: index].text = .materialized(text)
        return dropped
    }

    /// Drops all kept content of the memo at `index` (a purge).
    mutating func dropAllHistory(at index: Int) {
        memos[at: index].pendingHistory = nil
        guard case .materialized = memos[at: index].text else { return }
        var text = takeText(at: index)
        text.dropAllRetainedContent()
        memos[at: index].text = .materialized(text)
    }

    /// Scalars of deleted text whose content the notebook keeps, over all memos (decoded or
    /// not: a memo not decoded yet counts as 0 until it is).
    public var keptHistoryScalars: Int {
        var total = 0
        for index in 0..<memos.count {
            if case let .materialized(text) = memos[at: index].text { total += text.retainedDeletedScalars }
        }
        return total
    }
}

/// Line differences between two texts, for display: a unified diff like `diff -u` prints.
public enum LineDiff {
    /// One changed stretch of lines: `oldLines` (0-based range in the old text's lines) became
    /// `newLines` (in the new text's).
    public struct Hunk: Sendable, Equatable {
        /// Lines of the old text replaced.
        public var oldLines: Range<Int>
        /// Lines of the new text that replace them.
        public var newLines: Range<Int>
    }

    /// The lines of `text`: split at line feeds, without them (a final line feed ends the last
    /// line rather than starting an empty one).
    public static func lines(_ text: String) -> [Substring] {
        var result = text.split(separator: "\n", omittingEmptySubsequences: false)
        if result.last == "" { result.removeLast() }
        return result
    }

    /// The changed stretches that turn the lines of `old` into those of `new`: as few inserted
    /// and deleted lines as ``TextDiff`` finds.
    public static func hunks(from old: String, to new: String) -> [Hunk] {
        let oldLines = lines(old)
        let newLines = lines(new)
        // Each distinct line becomes one private-use scalar; the scalar diff is the line diff.
        var codes: [Substring: Unicode.Scalar] = [:]
        var next: UInt32 = 0xF0000
        func code(_ line: Substring) -> Unicode.Scalar? {
            if let known = codes[line] { return known }
            guard next <= 0x10FFFD else { return nil }
            let scalar = Unicode.Scalar(next)!
            next = next == 0xFFFFD ? 0x100000 : next + 1
            codes[line] = scalar
            return scalar
        }
        var oldCodes: [Unicode.Scalar] = []
        var newCodes: [Unicode.Scalar] = []
        for line in oldLines {
            guard let scalar = code(line) else { return [Hunk(oldLines: 0..<oldLines.count, newLines: 0..<newLines.count)] }
            oldCodes.append(scalar)
        }
        for line in newLines {
            guard let scalar = code(line) else { return [Hunk(oldLines: 0..<oldLines.count, newLines: 0..<newLines.count)] }
            newCodes.append(scalar)
        }
        var shift = 0
        var result: [Hunk] = []
        for edit in TextDiff.scalarEdits(from: oldCodes, to: newCodes) {
            let newStart = edit.range.lowerBound + shift
            result.append(Hunk(oldLines: edit.range, newLines: newStart..<newStart + edit.replacement.count))
            shift += edit.replacement.count - edit.range.count
        }
        return result
    }

    /// A unified diff of `old` and `new` (`---`/`+++` header with the labels, `@@` hunks with
    /// `context` unchanged lines around each change); empty when the texts are equal.
    public static func unified(from old: String, to new: String, fromLabel: String, toLabel: String, context: Int = 3) -> String {
        let changes = hunks(from: old, to: new)
        guard !changes.isEmpty else { return "" }
        let oldLines = lines(old)
        let newLines = lines(new)
        // More context than either text has lines is the whole text (`.max` means that, not a
        // trap); less than none is none.
        let context = min(max(0, context), max(oldLines.count, newLines.count))
        var output = "--- \(fromLabel)\n+++ \(toLabel)\n"
        var index = 0
        while index < changes.count {
            // Changes closer than twice the context share a hunk.
            var last = index
            while last + 1 < changes.count && changes[last + 1].oldLines.lowerBound - changes[last].oldLines.upperBound <= 2 * context {
                last += 1
            }
            let first = changes[index]
            let oldStart = max(0, first.oldLines.lowerBound - context)
            let oldEnd = min(oldLines.count, changes[last].oldLines.upperBound + context)
            let newStart = first.newLines.lowerBound - (first.oldLines.lowerBound - oldStart)
            let newEnd = changes[last].newLines.upperBound + (oldEnd - changes[last].oldLines.upperBound)
            func header(_ start: Int, _ count: Int) -> String {
                count == 0 ? "\(start),0" : count == 1 ? "\(start + 1)" : "\(start + 1),\(count)"
            }
            output += "@@ -\(header(oldStart, oldEnd - oldStart)) +\(header(newStart, newEnd - newStart)) @@\n"
            var position = oldStart
            for change in changes[index...last] {
                for line in oldLines[position..<change.oldLines.lowerBound] { output += " \(line)\n" }
                for line in oldLines[change.oldLines] { output += "-\(line)\n" }
                for line in newLines[change.newLines] { output += "+\(line)\n" }
                position = change.oldLines.upperBound
            }
            for line in oldLines[position..<oldEnd] { output += " \(line)\n" }
            index = last + 1
        }
        return output
    }
}
