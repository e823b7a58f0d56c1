import MemoCRDT
// The notebook encodings (FORMAT.md, "Notebook state" and "Notebook delta").

/// Kinds of a notebook run in an encoding.
enum NotebookRunCode {
    static let create: UInt8 = 0
    static let text: UInt8 = 1
    static let trash: UInt8 = 2
    static let restore: UInt8 = 3
    static let purge: UInt8 = 4
}

/// What a version 2 notebook state's runs of one replica refer to as they are read and written:
/// the memos its latest runs touched (most recent first), and the previous run's timestamp.
struct StateRunContext {
    /// How many recent memos a run can refer to by rank.
    static let recentMemoLimit = 16
    /// Memo indices, most recently used first, at most ``recentMemoLimit``.
    var recent: [Int] = []
    /// The wall milliseconds and logical counter of the previous run's timestamp (0 before the
    /// first run).
    var previousWall: UInt64 = 0
    var previousLogical: UInt64 = 0

    init() { recent.reserveCapacity(Self.recentMemoLimit) }

    /// The reference a run on memo `index` writes (its rank among the recent memos, else the
    /// number of recent memos plus its index), and `index` made the most recent.
    mutating func reference(toMemo index: Int) -> Int {
        let reference: Int
        if let rank = recent.firstIndex(of: index) {
            reference = rank
            recent.remove(at: rank)
        } else {
            reference = recent.count + index
            if recent.count == Self.recentMemoLimit { recent.removeLast() }
        }
        recent.insert(index, at: 0)
        return reference
    }

    /// The memo index a read `reference` stands for (of `memoCount` memos), made the most recent.
    mutating func memo(atReference reference: UInt64, memoCount: Int) throws(DecodingError) -> Int {
        let index: Int
        if reference < UInt64(recent.count) {
            index = recent.remove(at: Int(reference))
        } else {
            let absolute = reference - UInt64(recent.count)
            guard absolute < UInt64(memoCount) else { throw .malformed("memo index \(absolute) exceeds \(memoCount - 1)") }
            index = Int(absolute)
            guard !recent.contains(index) else { throw .malformed("a recent memo referred to by index") }
            if recent.count == Self.recentMemoLimit { recent.removeLast() }
        }
        recent.insert(index, at: 0)
        return index
    }
}

extension Notebook {
    /// The current format version of a notebook state.
    static let stateFormatVersion: UInt8 = 2

    /// The format version of a notebook state with memo histories: a version 2 body, then the
    /// memos' kept deleted content, history sections of text state version 4 (FORMAT.md,
    /// "Notebook state, version 4").
    static let stateFormatVersionWithHistory: UInt8 = 4

    /// The format version of a notebook state with memo histories whose sections are those of
    /// text state version 3 (FORMAT.md, "Notebook state, version 3"): written until version 4,
    /// still read.
    static let stateFormatVersionWithCounterRangeHistory: UInt8 = 3
    /// The current format version of a notebook delta.
    static let deltaFormatVersion: UInt8 = 1

    // MARK: State

    /// The whole notebook as bytes: every memo's text state and every notebook operation, enough
    /// to merge with any replica. Two notebooks that hold the same operations encode to the same
    /// bytes. Local state is not included: the replica id, undo history, held-back operations and
    /// untaken events. The layout is in FORMAT.md.
    ///
    /// A memo still in its loaded form is written back unchanged, and so is one whose body
    /// ``encodedKeepingTextBodies()`` kept, if its text has not changed since.
    ///
    /// - Complexity: O(n) for memos still in their loaded form or unchanged since they were
    ///   last encoded, O(n log n) for the others.
    public func encoded() -> [UInt8] {
        encoded(headroom: BlobEnvelope.headerBytesMax) { _, start, _ in start }
    }

    /// ``encoded()`` inside something else, built in one buffer: as
    /// ``encodedKeepingTextBodies(headroom:wrap:)``, keeping nothing.
    package func encoded(
        headroom: Int, wrap: (_ bytes: inout [UInt8], _ envelopeStart: Int, _ envelopeChecksum: UInt32) -> Int
    ) -> [UInt8] {
        var kept: [KeptTextBody]?
        var outline: NotebookStateOutline?
        return Self.readableOrTrap(wrappedState(headroom: headroom, keeping: &kept, outline: &outline, wrap: wrap))
    }

    /// ``encoded(headroom:wrap:)``, throwing when a memo's text stored in the library's state
    /// file cannot be read or fails its check (``NotebookError/corruptMemo(_:_:)``), and giving
    /// where each part went in `outline` when it is not nil (for a state list).
    package func encoded(
        headroom: Int, wrap: (_ bytes: inout [UInt8], _ envelopeStart: Int, _ envelopeChecksum: UInt32) -> Int,
        outline: inout NotebookStateOutline?
    ) throws(NotebookError) -> [UInt8] {
        var kept: [KeptTextBody]?
        return try wrappedState(headroom: headroom, keeping: &kept, outline: &outline, wrap: wrap).get()
    }

    /// The bytes of an encoding, or a stop with the memo whose stored text could not be read:
    /// the public encoders cannot throw, and a state never holds a text other than the one read.
    /// `Replica` encodes through the throwing variants and reports the memo instead.
    private static func readableOrTrap(_ result: Result<[UInt8], NotebookError>) -> [UInt8] {
        switch result {
        case let .success(bytes): return bytes
        case let .failure(error):
            preconditionFailure("\(error): the library's state file was damaged after it was opened; encode through Replica, which reports it")
        }
    }

    /// ``encoded()``, keeping each memo's text body (in the returned buffer, shared) so that the
    /// next encoding copies the bodies of the memos that have not changed by then instead of
    /// encoding them again. The bytes are those of ``encoded()``.
    ///
    /// For a notebook that is encoded again and again as it changes (a replica's snapshots):
    /// the cache holds a reference to the returned buffer, one state's worth of memory.
    ///
    /// - Complexity: as ``encoded()``.
    public mutating func encodedKeepingTextBodies() -> [UInt8] {
        encodedKeepingTextBodies(headroom: BlobEnvelope.headerBytesMax) { _, start, _ in start }
    }

    /// ``encodedKeepingTextBodies()`` inside something else, built in one buffer: the state's
    /// envelope is written after `headroom` bytes of room, and `wrap` gets the buffer, where the
    /// envelope starts in it and its checksum (of its header and body); it writes what goes
    /// before the envelope into the room (and may append after it) and returns where the result
    /// starts. The bytes before that are dropped (moved over in place, not copied to new memory),
    /// and the kept bodies refer to the result. A library's state file wraps its notebook's
    /// state so: at 100,000 memos, sealing the state and then the file copied 220 MB into fresh
    /// memory twice, half of a bootstrap's save (BENCHMARKS.md, "Saves built in one buffer").
    ///
    /// - Complexity: as ``encoded()``, plus a move of the result by at most `headroom` bytes.
    package mutating func encodedKeepingTextBodies(
        headroom: Int, wrap: (_ bytes: inout [UInt8], _ envelopeStart: Int, _ envelopeChecksum: UInt32) -> Int
    ) -> [UInt8] {
        var outline: NotebookStateOutline?
        do throws(NotebookError) {
            return try encodedKeepingTextBodies(headroom: headroom, wrap: wrap, outline: &outline)
        } catch {
            return Self.readableOrTrap(.failure(error))
        }
    }

    /// ``encodedKeepingTextBodies(headroom:wrap:)``, throwing when a memo's stored text cannot be
    /// read (see ``encoded(headroom:wrap:outline:)``); nothing is kept then.
    package mutating func encodedKeepingTextBodies(
        headroom: Int, wrap: (_ bytes: inout [UInt8], _ envelopeStart: Int, _ envelopeChecksum: UInt32) -> Int,
        outline: inout NotebookStateOutline?
    ) throws(NotebookError) -> [UInt8] {
        var kept: [KeptTextBody]? = []
        let bytes = try wrappedState(headroom: headroom, keeping: &kept, outline: &outline, wrap: wrap).get()
        for entry in kept! {
            memos[at: entry.index].encodedTextBody = EncodedTextBody(bytes: bytes, range: entry.body, version: entry.version)
            memos[at: entry.index].encodedTextBodyIsCanonical = true
        }
        return bytes
    }

    /// The state encoded after `headroom` bytes of room, wrapped by `wrap`, the room it left
    /// dropped (moved over in place, not copied to new memory); `kept`'s bodies moved with it.
    private func wrappedState(
        headroom: Int, keeping kept: inout [KeptTextBody]?, outline: inout NotebookStateOutline?,
        wrap: (_ bytes: inout [UInt8], _ envelopeStart: Int, _ envelopeChecksum: UInt32) -> Int
    ) -> Result<[UInt8], NotebookError> {
        var bytes: [UInt8]
        let start: Int
        let checksum: UInt32
        do throws(NotebookError) {
            (bytes, start, checksum) = try encodedState(headroom: headroom, keeping: &kept, outline: &outline)
        } catch {
            return .failure(error)
        }
        let resultStart = wrap(&bytes, start, checksum)
        precondition(resultStart >= 0 && resultStart <= start, "the result starts in the room before the state")
        bytes.removeSubrange(0..<resultStart)
        if kept != nil {
            for index in kept!.indices {
                let range = kept![index].body
                kept![index].body = range.lowerBound - resultStart..<range.upperBound - resultStart
            }
        }
        outline?.shift(by: resultStart)
        return .success(bytes)
    }

    /// Takes the text bodies `copy` kept when it was encoded (``encodedKeepingTextBodies()``),
    /// for this notebook's memos whose texts are still at the version each body stands for.
    /// A sync encodes its snapshot from a copy, away from the live notebook the app keeps
    /// editing; this gives the live notebook the same head start for its next encoding.
    ///
    /// - Complexity: O(*m* log *m*) for *m* memos in `copy`.
    package mutating func keepTextBodies(encodedIn copy: Notebook) {
        keepTextBodies(encodedIn: copy, memos: 0..<copy.memoRecordCount)
    }

    /// ``keepTextBodies(encodedIn:)`` for the memos at `range` of `copy`'s memo table
    /// (``memoRecordCount``): a caller that holds a lock for this takes the memos a slice at a
    /// time, and the slices together do what the whole does.
    ///
    /// - Complexity: O(*k* log *m*) for the *k* memos of the range.
    package mutating func keepTextBodies(encodedIn copy: Notebook, memos range: Range<Int>) {
        let records = copy.memos.records
        for position in range.clamped(to: records.indices) {
            let record = records[position]
            guard let body = record.encodedTextBody, let index = memos.index(of: record.id),
                case let .materialized(text) = memos[at: index].text, text.version == body.version
            else { continue }
            memos[at: index].encodedTextBody = body
            memos[at: index].encodedTextBodyIsCanonical = record.encodedTextBodyIsCanonical
        }
    }

    /// How many memos the notebook's memo table holds (purged ones included): the range of
    /// ``keepTextBodies(encodedIn:memos:)``.
    package var memoRecordCount: Int { memos.count }

    /// A decoded memo's text body in an encoded state: the memo's index in the memo table,
    /// where its body is in the state, and the text version it stands for.
    private typealias KeptTextBody = (index: Int, body: Range<Int>, version: VersionVector)

    /// The state's envelope, written after `headroom` bytes of room (zeros) in one buffer: the
    /// buffer, where the envelope starts in it (at most ``BlobEnvelope/headerBytesMax`` before
    /// `headroom`), and the envelope's checksum. When `kept` is not nil, it receives where the
    /// body of each memo held decoded is in the buffer.
    private func encodedState(
        headroom: Int, keeping kept: inout [KeptTextBody]?, outline: inout NotebookStateOutline?
    ) throws(NotebookError) -> (bytes: [UInt8], start: Int, checksum: UInt32) {
        let memoIDs = memos.ids.sorted()
        // Each memo's place in the state, by its place in the memo table (the table's own index
        // finds a run's memo: a dictionary of ids hashed one per run, half a percent of a long
        // simulation).
        var memoIndex = [Int](repeating: 0, count: memos.count)
        for (index, id) in memoIDs.enumerated() { memoIndex[memos.index(of: id)!] = index }
        let replicas = logs.keys.sorted()
        var replicaIndex: [ReplicaID: Int] = [:]
        for (index, id) in replicas.enumerated() { replicaIndex[id] = index }

        // The buffer reserved at about its final size (the bodies, which most of it is, are
        // known or nearly): grown by doubling, it was copied into fresh memory again and again.
        // Advised onto large pages: the bodies copied into fresh memory took a page fault per
        // 4 KiB (BENCHMARKS.md, "Large pages for the state a save writes").
        var body = ByteWriter(appendingTo: LargePages.emptyBuffer(capacity: headroom + encodedStateBytesEstimate))
        body.zeros(count: headroom)
        body.varint(memoIDs.count)
        for id in memoIDs {
            let written = try writeMemo(id, into: &body, keeping: &kept)
            outline?.bodies.append(written)
        }
        let logsStart = body.count
        body.varint(replicas.count)
        for id in replicas { body.uint64LittleEndian(id.rawValue) }
        writeLogs(of: replicas, memoIndex: memoIndex, replicaIndex: replicaIndex, memoCount: memoIDs.count, into: &body)
        outline?.logs = logsStart..<body.count
        // Memo histories (version 4), only when some memo keeps deleted content. A memo not
        // decoded since it was read keeps its section as read, marked when of version 3.
        var histories: [(memo: Int, section: [UInt8], isVersion3: Bool)] = []
        for (index, id) in memoIDs.enumerated() {
            let record = memos[existing: id]
            guard record.status != .purged else { continue }
            switch record.text {
            case let .materialized(text):
                if let section = text.encodedHistorySection() { histories.append((index, section, false)) }
            case .encoded:
                if let pending = record.pendingHistory {
                    histories.append((index, pending.bytes, pending.sectionVersion == Self.stateFormatVersionWithCounterRangeHistory))
                }
            case let .stored(stored):
                // The section alone (its body was copied and checked by `writeMemo`).
                let pending: PendingHistory?
                do throws(DecodingError) {
                    pending = try stored.loadHistory()
                } catch {
                    throw .corruptMemo(id, error)
                }
                if let pending {
                    histories.append((index, pending.bytes, pending.sectionVersion == Self.stateFormatVersionWithCounterRangeHistory))
                }
            }
        }
        if !histories.isEmpty {
            body.varint(histories.count)
            for history in histories {
                body.varint(history.memo)
                body.varint(UInt64(history.section.count) << 1 | (history.isVersion3 ? 1 : 0))
                let start = body.count
                body.append(contentsOf: history.section)
                outline?.histories.append(
                    (history.memo, start..<body.count,
                     history.isVersion3 ? TextCRDT.stateFormatVersionWithCounterRangeHistory : TextCRDT.stateFormatVersionWithHistory))
            }
        }
        outline?.stateVersion = histories.isEmpty ? Self.stateFormatVersion : Self.stateFormatVersionWithHistory
        var bytes = body.bytes
        body = ByteWriter()  // the buffer's one reference is `bytes`: sealed in place
        let (start, checksum) = BlobEnvelope.sealInPlace(
            &bytes, bodyStart: headroom, kind: .notebookState,
            version: histories.isEmpty ? Self.stateFormatVersion : Self.stateFormatVersionWithHistory)
        return (bytes, start, checksum)
    }

    /// About how many bytes the state takes: its bodies (known for memos still encoded or
    /// with a kept body, about their text's size for others), ids and logs. Only for reserving.
    private var encodedStateBytesEstimate: Int {
        var total = 64
        // Records lent, not copied (a copy retains and releases every field of each record).
        memos.forEachRecord(in: 0..<memos.count) { _, record in
            total += 24
            switch record.pointee.text {
            case let .encoded(_, body, _, _, _, _, _): total += body.count + (record.pointee.pendingHistory?.bytes.count ?? 0)
            case let .materialized(text): total += record.pointee.encodedTextBody?.range.count ?? 4 * text.lengthUTF16 + 64
            case let .stored(stored): total += stored.bodyLength + (stored.history?.length ?? 0)
            }
        }
        for (_, log) in logs { total += 8 * log.runs.count }
        return total
    }

    /// Writes one memo of the state: its id and its text body (the body kept from the last
    /// encoding when the text has not changed since); `kept` receives where a decoded memo's
    /// body is in `body`.
    private func writeMemo(
        _ id: MemoID, into body: inout ByteWriter, keeping kept: inout [KeptTextBody]?
    ) throws(NotebookError) -> (tableIndex: Int, body: Range<Int>, bodyVersion: UInt8) {
        body.uint64LittleEndian(id.high)
        body.uint64LittleEndian(id.low)
        let tableIndex = memos.index(of: id)!
        let record = memos[at: tableIndex]
        switch record.text {
        case let .materialized(text):
            let version = text.version
            let start: Int
            if let cached = record.encodedTextBody, record.encodedTextBodyIsCanonical, cached.version == version {
                #if MEMOSYNC_INTERNAL_CHECKS
                precondition(
                    ByteComparison.equal(text.encodedBody(), cached.bytes[cached.range]),
                    "memo \(id): the kept text body is not the text's encoding")
                #endif
                body.varint(cached.range.count << 1)
                start = body.count
                body.append(contentsOf: cached.bytes[cached.range])
            } else {
                let fresh = text.encodedBody()
                body.varint(fresh.count << 1)
                start = body.count
                body.append(contentsOf: fresh)
            }
            kept?.append((tableIndex, start..<body.count, version))
            return (tableIndex, start..<body.count, TextCRDT.stateFormatVersion)
        case let .encoded(bytes, textBody, _, _, _, _, bodyVersion):
            // A body is written back as it was read: a version 1 body (one that could not be
            // decoded when its version 1 notebook was read) is marked as such.
            body.varint(textBody.count << 1 | (bodyVersion == 1 ? 1 : 0))
            let start = body.count
            body.append(contentsOf: bytes[textBody])
            return (tableIndex, start..<body.count, bodyVersion)
        case let .stored(stored):
            // Copied from the state file, checked: never a body that fails its checksum.
            let loaded: MemoTextStorage
            do throws(DecodingError) {
                loaded = try stored.loadBody()
            } catch {
                throw .corruptMemo(id, error)
            }
            guard case let .encoded(bytes, textBody, _, _, _, _, bodyVersion) = loaded else { preconditionFailure("a loaded body") }
            body.varint(textBody.count << 1 | (bodyVersion == 1 ? 1 : 0))
            let start = body.count
            body.append(contentsOf: bytes[textBody])
            return (tableIndex, start..<body.count, bodyVersion)
        }
    }

    /// Writes every replica's log, in the order of `replicas`: its run count, then its runs.
    /// `memoIndex[p]` is the place in the state of the memo at place `p` of the memo table.
    private func writeLogs(
        of replicas: [ReplicaID], memoIndex: [Int], replicaIndex: [ReplicaID: Int], memoCount: Int,
        into body: inout ByteWriter
    ) {
        // Per memo index, the current replica's text operations so far (what its next text run
        // starts at), and the memos it touched (reset for the next replica).
        var textCounters = [UInt32](repeating: 0, count: memoCount)
        var touched: [Int] = []
        for replicaID in replicas {
            let log = logs[replicaID]!
            body.varint(log.runs.count)
            var context = StateRunContext()
            for run in log.runs {
                let index = memoIndex[memos.index(of: run.memo)!]
                if case let .text(textCounter) = run.kind {
                    // The state leaves the text counter out: a replica's text runs on a memo cover
                    // its text operations there in order, from 0 (what a decoder checks).
                    precondition(textCounter == textCounters[index], "memo \(run.memo): text runs of \(replicaID) skip counters")
                    if textCounter == 0 { touched.append(index) }
                    textCounters[index] = textCounter + run.length
                }
                Self.writeStateRun(run, memoIndex: index, replicaIndex: replicaIndex, context: &context, into: &body)
            }
            for index in touched { textCounters[index] = 0 }
            touched.removeAll(keepingCapacity: true)
        }
    }

    /// The kind code of a run in an encoding.
    static func runCode(_ kind: NotebookRunKind) -> UInt8 {
        switch kind {
        case .create: NotebookRunCode.create
        case .text: NotebookRunCode.text
        case .trash: NotebookRunCode.trash
        case .restore: NotebookRunCode.restore
        case .purge: NotebookRunCode.purge
        }
    }

    /// One run of a version 2 state: kind and memo reference in one varint, length (text runs;
    /// the text counter is implicit), seen version (trash and purge), timestamp as wall
    /// milliseconds and logical counter steps (FORMAT.md, "Notebook state").
    static func writeStateRun(
        _ run: NotebookRun, memoIndex: Int, replicaIndex: [ReplicaID: Int], context: inout StateRunContext,
        into writer: inout ByteWriter
    ) {
        let reference = context.reference(toMemo: memoIndex)
        writer.varint(UInt64(reference) << 3 | UInt64(runCode(run.kind)))
        switch run.kind {
        case .text:
            writer.varint(run.length)
        case let .trash(seen), let .purge(seen):
            writeSeen(seen, replicaIndex: replicaIndex, into: &writer)
        case .create, .restore:
            break
        }
        let wall = run.timestamp.wallMilliseconds
        let logical = UInt64(run.timestamp.logical)
        // A replica's timestamps never go back (its runs are in counter order).
        let step = wall - context.previousWall
        if step == 0 {
            // The same millisecond: 0 for the next logical tick, else 1 and the increase (not 1).
            let increase = logical - context.previousLogical
            if increase == 1 {
                writer.varint(0 as UInt64)
            } else {
                writer.varint(1 as UInt64)
                writer.varint(increase)
            }
        } else if logical == 0 {
            writer.varint(step << 1)
        } else {
            writer.varint(step << 1 | 1)
            writer.varint(logical - 1)
        }
        context.previousWall = wall
        context.previousLogical = logical
    }

    /// Reads one run of a version 2 state (see
    /// ``writeStateRun(_:memoIndex:replicaIndex:context:into:)``); `textCounters` holds, per memo
    /// index, the replica's text operations so far; `memoIndex` receives the run's memo index.
    static func readStateRun(
        _ reader: inout ByteReader, counter: UInt32, memos memoIDs: [MemoID], replicas: [ReplicaID],
        textCounters: [UInt32], context: inout StateRunContext, memoIndex: inout Int
    ) throws(DecodingError) -> NotebookRun {
        let head = try reader.varint()
        memoIndex = try context.memo(atReference: head >> 3, memoCount: memoIDs.count)
        let memo = memoIDs[memoIndex]
        var length: UInt32 = 1
        let kind: NotebookRunKind
        switch UInt8(head & 7) {
        case NotebookRunCode.create: kind = .create
        case NotebookRunCode.text:
            length = try reader.uint32Varint("run length")
            guard length > 0 else { throw .malformed("empty text run") }
            let textCounter = textCounters[memoIndex]
            guard UInt64(textCounter) + UInt64(length) <= UInt64(Limits.operationsPerReplicaMax) else {
                throw .malformed("text counters past the limit")
            }
            kind = .text(textCounter: textCounter)
        case NotebookRunCode.trash: kind = .trash(seen: try readSeen(&reader, replicas: replicas))
        case NotebookRunCode.restore: kind = .restore
        case NotebookRunCode.purge: kind = .purge(seen: try readSeen(&reader, replicas: replicas))
        case let code: throw .malformed("run kind \(code)")
        }
        guard UInt64(counter) + UInt64(length) <= UInt64(Limits.operationsPerReplicaMax) else {
            throw .malformed("notebook counters past the limit")
        }
        let stamp = try reader.varint()
        let step = stamp >> 1
        let (wall, overflow) = context.previousWall.addingReportingOverflow(step)
        guard !overflow, wall <= HybridTimestamp.maxWallMilliseconds else { throw .malformed("timestamp overflows") }
        var logical: UInt64
        if step == 0 {
            // The same millisecond as the previous run: the next tick, or an increase other than 1.
            let increase = stamp & 1 == 0 ? 1 : try reader.varint()
            guard stamp & 1 == 0 || increase != 1 else { throw .malformed("a logical increase of 1 written out") }
            guard increase <= UInt64(UInt16.max) - context.previousLogical else { throw .malformed("logical counter overflows") }
            logical = context.previousLogical + increase
        } else if stamp & 1 == 0 {
            logical = 0
        } else {
            let value = try reader.varint()
            guard value < UInt64(UInt16.max) else { throw .malformed("logical counter overflows") }
            logical = value + 1
        }
        context.previousWall = wall
        context.previousLogical = logical
        return NotebookRun(
            counter: counter, length: length, memo: memo, kind: kind, timestamp: HybridTimestamp(rawValue: wall << 16 | logical))
    }

    /// A trash's or purge's seen version: entry count, then replica index (ascending) and
    /// operation count (≥ 1) per entry.
    static func writeSeen(_ seen: VersionVector, replicaIndex: [ReplicaID: Int], into writer: inout ByteWriter) {
        writer.varint(seen.entries.count)
        for entry in seen.entries {
            writer.varint(replicaIndex[entry.replica]!)
            writer.varint(entry.operationCount)
        }
    }

    /// Reads a seen version (see ``writeSeen(_:replicaIndex:into:)``).
    static func readSeen(_ reader: inout ByteReader, replicas: [ReplicaID]) throws(DecodingError) -> VersionVector {
        let count = try reader.count(max: min(replicas.count, reader.remaining / 2), "seen version size")
        var entries: [VersionVector.Entry] = []
        var previous = -1
        for _ in 0..<count {
            let index = try reader.count(max: replicas.count - 1, "replica index")
            guard index > previous else { throw .malformed("seen version not in replica order") }
            previous = index
            let operations = try reader.uint32Varint("seen operation count")
            guard operations > 0 else { throw .malformed("empty seen entry") }
            entries.append(VersionVector.Entry(replica: replicas[index], operationCount: operations))
        }
        return VersionVector(entries: entries)
    }

    /// One run: kind, memo index, length and text counter (text runs), seen version (trash and
    /// purge), timestamp as the increase over the previous run's.
    static func writeRun(
        _ run: NotebookRun, memoIndex: Int, replicaIndex: [ReplicaID: Int], previousTimestamp: inout UInt64,
        into writer: inout ByteWriter
    ) {
        writer.byte(runCode(run.kind))
        writer.varint(memoIndex)
        switch run.kind {
        case let .text(textCounter):
            writer.varint(run.length)
            writer.varint(textCounter)
        case let .trash(seen), let .purge(seen):
            writeSeen(seen, replicaIndex: replicaIndex, into: &writer)
        case .create, .restore:
            break
        }
        writer.varint(run.timestamp.rawValue - previousTimestamp)
        previousTimestamp = run.timestamp.rawValue
    }

    /// Reads one run (see ``writeRun(_:memoIndex:replicaIndex:previousTimestamp:into:)``);
    /// `memoIndex` receives the index of its memo in `memoIDs`.
    static func readRun(
        _ reader: inout ByteReader, counter: UInt32, memos memoIDs: [MemoID], replicas: [ReplicaID],
        previousTimestamp: inout UInt64, memoIndex: inout Int
    ) throws(DecodingError) -> NotebookRun {
        let code = try reader.byte()
        memoIndex = try reader.count(max: memoIDs.count - 1, "memo index")
        let memo = memoIDs[memoIndex]
        var length: UInt32 = 1
        let kind: NotebookRunKind
        switch code {
        case NotebookRunCode.create: kind = .create
        case NotebookRunCode.text:
            length = try reader.uint32Varint("run length")
            guard length > 0 else { throw .malformed("empty text run") }
            let textCounter = try reader.uint32Varint("text counter")
            guard UInt64(textCounter) + UInt64(length) <= UInt64(Limits.operationsPerReplicaMax) else {
                throw .malformed("text counters past the limit")
            }
            kind = .text(textCounter: textCounter)
        case NotebookRunCode.trash: kind = .trash(seen: try readSeen(&reader, replicas: replicas))
        case NotebookRunCode.restore: kind = .restore
        case NotebookRunCode.purge: kind = .purge(seen: try readSeen(&reader, replicas: replicas))
        default: throw .malformed("run kind \(code)")
        }
        guard UInt64(counter) + UInt64(length) <= UInt64(Limits.operationsPerReplicaMax) else {
            throw .malformed("notebook counters past the limit")
        }
        let step = try reader.varint()
        let (timestamp, overflow) = previousTimestamp.addingReportingOverflow(step)
        guard !overflow else { throw .malformed("timestamp overflows") }
        previousTimestamp = timestamp
        return NotebookRun(counter: counter, length: length, memo: memo, kind: kind, timestamp: HybridTimestamp(rawValue: timestamp))
    }

    /// Decodes a notebook state written by ``encoded()``; local changes are attributed to
    /// `replica`.
    ///
    /// Memos are ready to list and search at once; each memo's text operations are replayed when
    /// it is first edited or merged (``prepareForEditing(_:)`` does it ahead of time).
    ///
    /// - Throws: `DecodingError` for any input that is not such a notebook.
    /// - Complexity: O(b) for b bytes.
    public init(decoding bytes: [UInt8], replica: ReplicaID) throws(DecodingError) {
        let shared = SharedNotebookDecodes.current
        if let kept = shared?.notebook(for: bytes) {
            self = kept.rebindingDecoded(to: replica)
            #if MEMOSYNC_INTERNAL_CHECKS
            let frame = try Self.stateFrame(bytes, in: bytes.indices)
            let fresh = try Notebook(decoding: bytes, checkedFrame: frame, replica: replica)
            precondition(
                fresh.replica == replica && fresh.version == version && fresh.memoIDs == memoIDs && fresh.lamport == lamport
                    && fresh.clock.latest == clock.latest && fresh.encoded() == encoded(),
                "a shared notebook decode differs from decoding the state again")
            #endif
            return
        }
        let frame = try Self.stateFrame(bytes, in: bytes.indices)
        try frame.checkChecksum(CRC32C.checksum(bytes, frame.checksummed))
        try self.init(decoding: bytes, checkedFrame: frame, replica: replica)
        // A version 1 state's texts were decoded for `replica` (see below): not shared.
        if let shared, frame.version >= 2 { shared.keep(self, for: bytes) }
    }

    /// The envelope frame of a notebook state filling `range` of `bytes`, its checksum not yet
    /// checked (``init(decoding:checkedFrame:replica:)``).
    package static func stateFrame(_ bytes: [UInt8], in range: Range<Int>) throws(DecodingError) -> BlobEnvelope.Frame {
        try BlobEnvelope.Frame(bytes, in: range, kind: .notebookState, versions: 1...stateFormatVersionWithHistory)
    }

    /// ``init(decoding:replica:)`` for a notebook state at a range of `bytes` whose frame
    /// (``stateFrame(_:in:)``) the caller read and whose checksum it checked: a library's
    /// state file holds its notebook's state, and its decoder checks both checksums in one pass
    /// and reads the state where it is, without copying it out. The memos' texts keep
    /// referring to `bytes`.
    package init(decoding bytes: [UInt8], checkedFrame frame: BlobEnvelope.Frame, replica: ReplicaID) throws(DecodingError) {
        try self.init(decoding: bytes, checkedFrame: frame, replica: replica, leavingTextsTo: nil)
    }

    /// ``init(decoding:checkedFrame:replica:)``, leaving the check that each memo's text is
    /// UTF-8 to the caller when `unchecked` is given: the decoder lists each text's range there
    /// instead. The caller checks them elsewhere (beside this decoding, on another thread) and
    /// accepts this notebook only if its own list of the state's texts
    /// (``textRanges(ofState:frame:)``) is exactly `unchecked.ranges` and every one is valid;
    /// otherwise it decodes again without `unchecked`, which checks as it goes and so throws
    /// what a plain decoding throws. (A library's open does so: `LibraryCore.decodeState`.)
    package init(
        decoding bytes: [UInt8], checkedFrame frame: BlobEnvelope.Frame, replica: ReplicaID, leavingTextsTo unchecked: UncheckedTexts?
    ) throws(DecodingError) {
        let bodyRange = frame.body
        let envelopeVersion = frame.version
        // Versions 3 and 4 are version 2 with memo histories after the logs.
        let version = min(envelopeVersion, Self.stateFormatVersion)
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        var notebook = Notebook(replica: replica)
        let memoCount = try reader.count(max: reader.remaining / 17, "memo count")
        var memoIDs: [MemoID] = []
        memoIDs.reserveCapacity(memoCount)
        notebook.memos.reserveCapacity(memoCount)
        // Per memo, its replicas' Lamport runs (for the check that the history applies).
        var timelines = TextCRDT.LamportTimelines(reservingTexts: memoCount)
        for _ in 0..<memoCount {
            let id = MemoID(high: try reader.uint64LittleEndian(), low: try reader.uint64LittleEndian())
            if let last = memoIDs.last, last >= id { throw .malformed("memo ids not strictly ascending") }
            memoIDs.append(id)
            try Self.readMemoText(of: id, &reader, in: bytes, version: version, into: &notebook, timelines: &timelines, unchecked: unchecked)
        }
        let replicas = try Self.readStateReplicas(&reader)
        var logs = StateLogReading(memoCount: memoIDs.count)
        for replicaID in replicas {
            try logs.readLog(of: replicaID, &reader, version: version, memos: memoIDs, replicas: replicas, into: &notebook)
        }
        if envelopeVersion >= Self.stateFormatVersionWithCounterRangeHistory {
            let historyCount = try reader.count(max: min(memoIDs.count, reader.remaining / 2), "history count")
            guard historyCount > 0 else { throw .malformed("a version \(envelopeVersion) state without histories") }
            var previous = -1
            for _ in 0..<historyCount {
                let memo = try reader.count(max: memoIDs.count - 1, "history memo index")
                guard memo > previous else { throw .malformed("histories not strictly ascending") }
                previous = memo
                let range: Range<Int>
                let sectionVersion: UInt8
                if envelopeVersion == Self.stateFormatVersionWithCounterRangeHistory {
                    range = try reader.lengthPrefixedRange()
                    sectionVersion = TextCRDT.stateFormatVersionWithCounterRangeHistory
                } else {
                    // Version 4: the byte count << 1 | 1 for a version 3 section.
                    let lengthAndVersion = try reader.varint()
                    guard lengthAndVersion >> 1 <= UInt64(reader.remaining) else {
                        throw .malformed("length prefix \(lengthAndVersion >> 1) exceeds \(reader.remaining)")
                    }
                    range = try reader.range(count: Int(lengthAndVersion >> 1))
                    sectionVersion = lengthAndVersion & 1 == 1
                        ? TextCRDT.stateFormatVersionWithCounterRangeHistory : TextCRDT.stateFormatVersionWithHistory
                }
                guard !range.isEmpty else { throw .malformed("an empty history") }
                notebook.memos[at: memo].pendingHistory = PendingHistory(bytes: Array(bytes[range]), sectionVersion: sectionVersion)
            }
        }
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
        guard logs.createdCount == memoIDs.count else { throw .malformed("a memo was never created") }
        notebook.clock.observe(logs.latest, wallMilliseconds: 0)
        logs.stampRecords(of: &notebook)
        for index in memoIDs.indices { notebook.memos[at: index].refreshDerivedText() }
        if let coverageViolation = logs.coverageViolation { throw .malformed(coverageViolation) }
        try notebook.checkTextsAgainstRuns(logs.coverage, memos: memoIDs)
        if version == 1 {
            // Version 1 text bodies are decoded now, once, so that the notebook encodes in the
            // current version (canonically) from the start. A body that does not decode stays as
            // it was read (its memo reports the error when used) and is written back marked as
            // version 1.
            for index in memoIDs.indices { try? notebook.materializeText(at: index) }
        }
        // A state must be one its own history gives a replica that starts empty.
        try notebook.checkHistoryApplies(timelines: timelines)
        self = notebook
    }

    /// A notebook state's replica list (a count, then ids strictly ascending), before its logs;
    /// a notebook delta begins with the same list.
    static func readStateReplicas(_ reader: inout ByteReader) throws(DecodingError) -> [ReplicaID] {
        let replicaCount = try reader.count(max: reader.remaining / 8, "replica count")
        var replicas: [ReplicaID] = []
        for _ in 0..<replicaCount {
            let id = ReplicaID(try reader.uint64LittleEndian())
            if let last = replicas.last, last >= id { throw .malformed("replica ids not strictly ascending") }
            replicas.append(id)
        }
        return replicas
    }

    /// Reads the text body of memo `id` in a state of format `version` and adds the memo to
    /// `notebook`, its text left encoded: summarized (version, Lamport clock) and folded for
    /// search, not decoded. Adds the Lamport runs of its replicas' text operations to
    /// `timelines`, as its next text.
    private static func readMemoText(
        of id: MemoID, _ reader: inout ByteReader, in bytes: [UInt8], version: UInt8, into notebook: inout Notebook,
        timelines: inout TextCRDT.LamportTimelines, unchecked: UncheckedTexts?
    ) throws(DecodingError) {
        // Version 1: a version 1 text body. Version 2: its length shifted left by one, bit 0
        // set for a version 1 text body, then the body.
        let range: Range<Int>
        let bodyVersion: UInt8
        if version == 1 {
            range = try reader.lengthPrefixedRange()
            bodyVersion = 1
        } else {
            let lengthAndVersion = try reader.varint()
            guard lengthAndVersion >> 1 <= UInt64(reader.remaining) else {
                throw .malformed("length prefix \(lengthAndVersion >> 1) exceeds \(reader.remaining)")
            }
            range = try reader.range(count: Int(lengthAndVersion >> 1))
            bodyVersion = lengthAndVersion & 1 == 1 ? 1 : TextCRDT.stateFormatVersion
        }
        let summary = try TextCRDT.summary(ofBody: bytes, range: range, version: bodyVersion, timelines: &timelines)
        // The text must be UTF-8 (checked here, for every memo, as it always was); it is folded
        // for search only when first searched (`summaries(status:matching:)`, the shared
        // `SearchKeyCache`), not here: folding every text was a third of opening a notebook.
        // Or by the caller, elsewhere (see `UncheckedTexts`).
        if let unchecked {
            unchecked.ranges.append(summary.text)
        } else if !bytes.withUnsafeBufferPointer({ buffer in
            SearchFolding.isValidUTF8(UnsafeBufferPointer(rebasing: buffer[summary.text]))
        }) {
            throw .malformed("memo \(id): the text is not valid UTF-8")
        }
        notebook.lamport = max(notebook.lamport, summary.lamport)
        var record = MemoRecord(
            id: id,
            text: .encoded(
                bytes: bytes, body: range, text: summary.text, version: summary.version,
                insertionVersion: summary.insertionVersion, lamport: summary.lamport, bodyVersion: bodyVersion),
            createdAt: .zero, modifiedAt: .zero)
        // No key cached, and none folded before a search needs it.
        record.searchKey = SearchKey()
        record.searchKeyStamp = MemoRecord.searchKeyLeftToSearches
        // Ids come strictly ascending (checked by the caller): each is new.
        notebook.memos.appendNew(record)
    }

    /// Checks each decoded memo's text against the runs read: its text operations per replica
    /// are those its text runs cover (`coverage`: per memo, in replica order), and no trash or purge saw
    /// more than it holds.
    func checkTextsAgainstRuns(_ coverage: StateLogReading.Coverage, memos memoIDs: [MemoID]) throws(DecodingError) {
        let (starts, entries) = coverage.byMemo(memoCount: memoIDs.count)
        for index in memoIDs.indices {
            let version = memos[at: index].text.version
            let covered = entries[starts[index]..<starts[index + 1]]
            guard covered.count == version.entries.count else {
                throw .malformed("memo \(memoIDs[index]): text replicas differ from the runs")
            }
            guard covered.elementsEqual(version.entries) else {
                throw .malformed("memo \(memoIDs[index]): text operations differ from the runs")
            }
            // A trash or purge applies only once the memo holds the text it saw (and a text only
            // gains operations): one that saw more than the memo holds comes from no history.
            for record in memos[at: index].lifecycle {
                switch record.kind {
                case let .trash(seen), let .purge(seen):
                    guard seen.isIncluded(in: version) else {
                        throw .malformed("memo \(memoIDs[index]): a trash or purge saw text the memo does not hold")
                    }
                case .restore: break
                }
            }
        }
    }
}

/// What reading a notebook state's logs gathers, replica after replica, for the checks after
/// them. Memos were added to the table in id order: a memo's index in the state's memo list is
/// its index in the table.
struct StateLogReading {
    private(set) var createdCount = 0
    /// Per memo index, whether a run created it, and the raw times of its earliest creation and
    /// of its latest run: kept apart from the records, side by side (one cache line per run),
    /// and put into the records in one pass in memo order (``stampRecords(of:)``). Runs come in
    /// time order, their memos at random, and a record (256 bytes, in chunks) or its list key
    /// touched per run cost a cache miss or two each, a tenth of opening 100,000 memos from
    /// their state list (BENCHMARKS.md, "The open's index and its records").
    private var times: [MemoTimes]

    struct MemoTimes {
        var createdAt: UInt64 = 0
        var modifiedAt: UInt64 = 0
        var created = false
    }
    /// The latest timestamp of any run.
    private(set) var latest = HybridTimestamp.zero
    /// Each memo's text runs, per replica, must cover exactly the text operations the memo
    /// holds: per memo, the text operations its runs cover, in replica order (checked after the
    /// structure, as a malformed state).
    private(set) var coverage = Coverage()
    private(set) var coverageViolation: String?

    /// The text operations each replica's runs cover in each memo, in the order found (replica
    /// after replica): one flat array, not an array per memo (10,000 of those were a twentieth
    /// of decoding a notebook of 10,000 memos).
    struct Coverage {
        var memoIndexes: [Int] = []
        var entries: [VersionVector.Entry] = []

        /// The entries grouped by memo, each memo's in the order found (replica order): memo
        /// `m`'s are `entries[starts[m] ..< starts[m + 1]]`. A counting sort: O(m + e).
        func byMemo(memoCount: Int) -> (starts: [Int], entries: [VersionVector.Entry]) {
            var starts = [Int](repeating: 0, count: memoCount + 1)
            for index in memoIndexes { starts[index + 1] += 1 }
            for memo in 0..<memoCount { starts[memo + 1] += starts[memo] }
            var next = starts
            var grouped = entries
            for (position, index) in memoIndexes.enumerated() {
                grouped[next[index]] = entries[position]
                next[index] += 1
            }
            return (starts, grouped)
        }
    }
    /// Per memo index, the text operations of the current replica covered so far (0: none), and
    /// the memos it touched: arrays reused for every replica instead of a dictionary.
    private var covered: [UInt32]
    private var touched: [Int] = []

    init(memoCount: Int) {
        covered = [UInt32](repeating: 0, count: memoCount)
        times = [MemoTimes](repeating: MemoTimes(), count: memoCount)
    }

    /// Puts each memo's creation and modification times into its record (whose times were
    /// zero), and its status from its lifecycle: one access per record, in memo order. Every
    /// log must have been read.
    func stampRecords(of notebook: inout Notebook) {
        for (index, memo) in times.enumerated() {
            Self.stamp(
                &notebook.memos[at: index], createdAt: HybridTimestamp(rawValue: memo.createdAt),
                modifiedAt: HybridTimestamp(rawValue: memo.modifiedAt))
        }
    }

    private static func stamp(_ record: inout MemoRecord, createdAt: HybridTimestamp, modifiedAt: HybridTimestamp) {
        record.createdAt = createdAt
        record.modifiedAt = modifiedAt
        record.refreshStatus()
    }

    /// Reads the log of `replicaID` (a state of format `version`) into `notebook`.
    mutating func readLog(
        of replicaID: ReplicaID, _ reader: inout ByteReader, version: UInt8, memos memoIDs: [MemoID], replicas: [ReplicaID],
        into notebook: inout Notebook
    ) throws(DecodingError) {
        // Version 1 writes the replica's operation count first; version 2 leaves it out.
        let operationCount = version == 1 ? try reader.uint32Varint("operation count") : nil
        let runCount = try reader.count(
            max: min(Int(operationCount ?? UInt32.max), reader.remaining / (version == 1 ? 3 : 2)), "run count")
        // A writer lists only replicas with operations (version 2; issue 25's fuzzing found one
        // without, which its own history cannot give).
        guard version == 1 || runCount > 0 else { throw .malformed("replica \(replicaID) has no operations") }
        // Version 1 may list one with none: it holds nothing, so it is left out (a notebook never
        // lists a replica without operations, and its version 2 encoding would be refused;
        // found by the notebook-state target's re-encoding check).
        if runCount == 0 { return }
        var log = NotebookLog()
        // Room for the runs at once rather than by doubling (a replica's log of a notebook of
        // 10,000 memos holds tens of thousands); at most 2^20 ahead of reading them: the count
        // is bounded by the bytes left (each run at least 2 bytes), but a run in memory is
        // larger than 2 bytes, and a hostile count should not reserve more than a few tens of
        // megabytes before its runs fail to read.
        log.runs.reserveCapacity(min(runCount, 1 << 20))
        var previousTimestamp: UInt64 = 0
        var context = StateRunContext()
        for _ in 0..<runCount {
            var index = 0
            let run = version == 1
                ? try Notebook.readRun(
                    &reader, counter: log.operationCount, memos: memoIDs, replicas: replicas,
                    previousTimestamp: &previousTimestamp, memoIndex: &index)
                : try Notebook.readStateRun(
                    &reader, counter: log.operationCount, memos: memoIDs, replicas: replicas, textCounters: covered,
                    context: &context, memoIndex: &index)
            if var last = log.runs.last, last.append(run) { throw .malformed("runs not maximally merged") }
            log.append(run)
            latest = max(latest, run.timestamp)
            record(run, memoIndex: index, of: replicaID, into: &notebook)
        }
        if let operationCount, log.operationCount != operationCount {
            throw .malformed("replica \(replicaID) runs do not add up to its count")
        }
        notebook.logs[replicaID] = log
        // Replicas come in ascending order: each memo's entries stay sorted.
        for index in touched {
            coverage.memoIndexes.append(index)
            coverage.entries.append(VersionVector.Entry(replica: replicaID, operationCount: covered[index]))
            covered[index] = 0
        }
        touched.removeAll(keepingCapacity: true)
    }

    /// Records what a run read means for its memo (at `memoIndex` in the table): its creation
    /// date, the text operations covered, its lifecycle, its modification date. Only a
    /// lifecycle run (a trash, restore or purge: rare) touches the record now; times go to
    /// ``stampRecords(of:)``.
    private mutating func record(_ run: NotebookRun, memoIndex index: Int, of replicaID: ReplicaID, into notebook: inout Notebook) {
        let timestamp = run.timestamp.rawValue
        if times[index].modifiedAt < timestamp { times[index].modifiedAt = timestamp }
        let lifecycleKind: LifecycleRecord.Kind
        switch run.kind {
        case .create:
            if times[index].created {
                times[index].createdAt = min(times[index].createdAt, timestamp)
            } else {
                times[index].created = true
                times[index].createdAt = timestamp
                createdCount += 1
            }
            return
        case let .text(textCounter):
            let before = covered[index]
            if textCounter != before && coverageViolation == nil {
                coverageViolation = "memo \(run.memo): text runs of \(replicaID) skip counters"
            }
            if before == 0 { touched.append(index) }
            covered[index] = textCounter + run.length
            return
        case let .trash(seen): lifecycleKind = .trash(seen: seen)
        case .restore: lifecycleKind = .restore
        case let .purge(seen): lifecycleKind = .purge(seen: seen)
        }
        notebook.memos[at: index].lifecycle.append(
            LifecycleRecord(kind: lifecycleKind, timestamp: run.timestamp, replica: replicaID, counter: run.counter))
    }
}

extension NotebookDelta {
    // MARK: Delta

    /// The delta as bytes (layout in FORMAT.md). Equal deltas encode to equal bytes.
    public func encoded() -> [UInt8] {
        var replicaSet = Set<ReplicaID>()
        for replicaRun in runs {
            replicaSet.insert(replicaRun.replica)
            switch replicaRun.run.kind {
            case let .trash(seen), let .purge(seen): for entry in seen.entries { replicaSet.insert(entry.replica) }
            default: break
            }
        }
        let replicas = replicaSet.sorted()
        var replicaIndex: [ReplicaID: Int] = [:]
        for (index, id) in replicas.enumerated() { replicaIndex[id] = index }
        let memoIDs = memos
        var memoIndex: [MemoID: Int] = [:]
        for (index, id) in memoIDs.enumerated() { memoIndex[id] = index }

        var body = ByteWriter()
        body.varint(replicas.count)
        for id in replicas { body.uint64LittleEndian(id.rawValue) }
        body.varint(memoIDs.count)
        for id in memoIDs {
            body.uint64LittleEndian(id.high)
            body.uint64LittleEndian(id.low)
        }
        var groups: [(replica: ReplicaID, runs: ArraySlice<ReplicaRun>)] = []
        var start = 0
        while start < runs.count {
            var end = start
            while end < runs.count && runs[end].replica == runs[start].replica { end += 1 }
            groups.append((runs[start].replica, runs[start..<end]))
            start = end
        }
        body.varint(groups.count)
        for group in groups {
            body.varint(replicaIndex[group.replica]!)
            body.varint(group.runs.first!.run.counter)
            body.varint(group.runs.count)
            var previousTimestamp: UInt64 = 0
            for replicaRun in group.runs {
                Notebook.writeRun(
                    replicaRun.run, memoIndex: memoIndex[replicaRun.run.memo]!, replicaIndex: replicaIndex,
                    previousTimestamp: &previousTimestamp, into: &body)
            }
        }
        body.varint(texts.count)
        for (memo, delta) in texts {
            body.varint(memoIndex[memo]!)
            body.lengthPrefixed(delta.encodedBody())
        }
        return BlobEnvelope.seal(kind: .notebookDelta, version: Notebook.deltaFormatVersion, body: body.bytes)
    }

    /// Decodes a delta written by ``encoded()``.
    ///
    /// - Throws: `DecodingError` for any input that is not such a delta.
    public init(decoding bytes: [UInt8]) throws(DecodingError) {
        let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .notebookDelta, versions: 1...Notebook.deltaFormatVersion)
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        // The same replica list as a state's.
        let replicas = try Notebook.readStateReplicas(&reader)
        let memoCount = try reader.count(max: reader.remaining / 16, "memo count")
        var memoIDs: [MemoID] = []
        for _ in 0..<memoCount {
            let id = MemoID(high: try reader.uint64LittleEndian(), low: try reader.uint64LittleEndian())
            if let last = memoIDs.last, last >= id { throw .malformed("memo ids not strictly ascending") }
            memoIDs.append(id)
        }
        var runs: [ReplicaRun] = []
        let groupCount = try reader.count(max: replicas.count, "group count")
        var previousReplica = -1
        for _ in 0..<groupCount {
            let index = try reader.count(max: replicas.count - 1, "replica index")
            guard index > previousReplica else { throw .malformed("groups not in replica order") }
            previousReplica = index
            var counter = try reader.uint32Varint("first counter")
            let runCount = try reader.count(max: reader.remaining / 3, "run count")
            guard runCount > 0 else { throw .malformed("empty group") }
            var previousTimestamp: UInt64 = 0
            var previousRun: NotebookRun?
            for _ in 0..<runCount {
                var memoIndex = 0
                let run = try Notebook.readRun(
                    &reader, counter: counter, memos: memoIDs, replicas: replicas, previousTimestamp: &previousTimestamp,
                    memoIndex: &memoIndex)
                if var last = previousRun, last.append(run) { throw .malformed("runs not maximally merged") }
                runs.append(ReplicaRun(replica: replicas[index], run: run))
                counter = run.end
                previousRun = run
            }
        }
        let textCount = try reader.count(max: memoCount, "text count")
        var texts: [(memo: MemoID, delta: TextDelta)] = []
        var previousMemo = -1
        for _ in 0..<textCount {
            let index = try reader.count(max: memoCount - 1, "memo index")
            guard index > previousMemo else { throw .malformed("texts not in memo order") }
            previousMemo = index
            let range = try reader.lengthPrefixedRange()
            texts.append((memoIDs[index], try TextDelta(decodingBody: bytes, range: range)))
        }
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
        let touched = Set(runs.map(\.run.memo))
        guard touched.count == memoIDs.count else { throw .malformed("a listed memo has no run") }
        self.init(runs: runs, texts: texts)
    }
}

/// The texts a notebook decoder found and left for its caller to check as UTF-8
/// (``Notebook/init(decoding:checkedFrame:replica:leavingTextsTo:)``), in memo order.
package final class UncheckedTexts {
    /// Each memo's text range in the decoded bytes, as far as the decoder got.
    package fileprivate(set) var ranges: [Range<Int>] = []

    package init() {}
}

extension Notebook {
    /// Where each memo's text is in a notebook state of format version 2 or later, in memo
    /// order, read without decoding anything else: the ranges a decoder given
    /// ``UncheckedTexts`` lists, when the state is well formed. Nil for a version 1 state and
    /// for a memo section that does not read (a decoder then says what is wrong). O(memos).
    package static func textRanges(ofState bytes: [UInt8], frame: BlobEnvelope.Frame) -> [Range<Int>]? {
        guard frame.version >= 2 else { return nil }
        do throws(DecodingError) {
            var reader = ByteReader(bytes, from: frame.body.lowerBound, to: frame.body.upperBound)
            let memoCount = try reader.count(max: reader.remaining / 17, "memo count")
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(memoCount)
            for _ in 0..<memoCount {
                _ = try reader.range(count: 16)  // the memo's id
                let lengthAndVersion = try reader.varint()
                guard lengthAndVersion >> 1 <= UInt64(reader.remaining) else { return nil }
                let body = try reader.range(count: Int(lengthAndVersion >> 1))
                // Either body version starts with its text, length-prefixed.
                var bodyReader = ByteReader(bytes, from: body.lowerBound, to: body.upperBound)
                ranges.append(try bodyReader.lengthPrefixedRange())
            }
            return ranges
        } catch {
            return nil
        }
    }

    /// Whether the bytes at every one of `ranges` are valid UTF-8 (``SearchFolding/isValidUTF8(_:)``,
    /// the decoder's check). O(bytes in the ranges).
    package static func areValidUTF8(_ bytes: [UInt8], at ranges: [Range<Int>]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            ranges.allSatisfy { range in
                range.lowerBound >= 0 && range.upperBound <= buffer.count
                    && SearchFolding.isValidUTF8(UnsafeBufferPointer(rebasing: buffer[range]))
            }
        }
    }
}
