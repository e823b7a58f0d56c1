// The text state encoding (FORMAT.md, "Text state"): the visible text in document order, the
// replica table, each replica's operation count and Lamport runs, and the operation log in a
// canonical causal order, each run in position form where that replays exactly, else id form.

/// Header bits of an operation-log run in a text state: bit 0 deletion, bit 1 id form; for
/// deletions bit 2 backward (position form) or reversed (id form). The length minus one follows
/// in the higher bits: from bit 2 for insertions, bit 3 for deletions.
enum StateRunHeader {
    static let deletion: UInt64 = 1 << 0
    static let idForm: UInt64 = 1 << 1
    static let backward: UInt64 = 1 << 2
    static let insertionLengthShift: UInt64 = 2
    static let deletionLengthShift: UInt64 = 3

    /// The run's length minus one, read from `header` (the shift depends on the run's kind).
    @inline(__always)
    static func lengthMinusOne(_ header: UInt64) -> UInt64 {
        header >> (header & deletion != 0 ? deletionLengthShift : insertionLengthShift)
    }
}

/// Reference modes of an id-form insertion's origins (FORMAT.md).
enum OriginMode {
    // originLeft
    static let leftStart: UInt8 = 0
    static let leftPrevious: UInt8 = 1
    static let leftExplicit: UInt8 = 2
    // originRight
    static let rightEnd: UInt8 = 0
    static let rightSuccessor: UInt8 = 1
    static let rightInherited: UInt8 = 2
    static let rightExplicit: UInt8 = 3
}

extension TextCRDT {
    /// The current format version of a text state (and of the text bodies in a notebook state).
    package static let stateFormatVersion: UInt8 = 2

    /// The format version of a text state that retains deleted content: a history section (runs
    /// over the deleted insertions), then a version ``stateFormatVersion`` body (FORMAT.md, "Text
    /// state, version 4").
    package static let stateFormatVersionWithHistory: UInt8 = 4

    /// The format version of a text state that retains deleted content with its history section
    /// by counter ranges (FORMAT.md, "Text state, version 3"): written until version 4, still read.
    package static let stateFormatVersionWithCounterRangeHistory: UInt8 = 3

    // MARK: Encoding

    /// The whole text as bytes: every operation, so the result can merge with any replica.
    ///
    /// The visible text is kept; the content of deleted text is dropped (its ids, origins and
    /// deletions are kept). Held-back operations are not part of the state. Two texts that hold
    /// the same operations encode to the same bytes, whichever replica encodes them. The byte
    /// layout is in FORMAT.md.
    ///
    /// - Complexity: O(n log n) for n runs: the encoder replays the log it writes to choose the
    ///   compact form of each run.
    public func encoded() -> [UInt8] {
        guard let history = encodedHistorySection() else {
            return BlobEnvelope.seal(kind: .textState, version: Self.stateFormatVersion, body: encodedBody())
        }
        // Version 4: the retained deleted content, then the version 2 body (FORMAT.md).
        var body = ByteWriter()
        body.lengthPrefixed(history)
        body.append(contentsOf: encodedBody())
        return BlobEnvelope.seal(kind: .textState, version: Self.stateFormatVersionWithHistory, body: body.bytes)
    }

    /// The interned replicas with operations, in replica id order: a state's replica table.
    /// (The ids are read from a local copy: a sort comparator reading `replicaTable` through
    /// `self` copied the whole text at each comparison.)
    func replicasWithOperationsByID() -> [Int] {
        let ids = replicaTable.ids
        return ids.indices.filter { logs[$0].operationCount > 0 }.sorted { ids[$0] < ids[$1] }
    }

    /// The body of the text state encoding, without its envelope (a notebook embeds it).
    package func encodedBody() -> [UInt8] {
        // Replicas with operations, sorted by id: the table.
        let order = replicasWithOperationsByID()
        let table = order.map { replicaTable.ids[$0] }

        var body = ByteWriter(capacity: content.count - contentGarbageBytes + 1024)
        // Text, in document order.
        body.lengthPrefixed(visibleBytes())
        // Replicas, counts, Lamport runs.
        body.varint(table.count)
        for id in table { body.uint64LittleEndian(id.rawValue) }
        for index in order { body.varint(logs[index].operationCount) }
        // The operation log, each run with its Lamport timestamp (against the highest before it)
        // and, where it changes, its replica.
        let log = causalOrder(order: order)
        var replay = TextCRDT(
            replaying: table, lamportRuns: order.map { logs[$0].lamportRuns },
            localReplica: replica)
        var logBytes = ByteWriter()
        var runCount = 0
        var previousReplica = noIndex
        var highestLamport: UInt64 = 0
        // One run's fields, written after its header; one buffer reused for every run.
        var fields = ByteWriter()
        var cursors = [Int](repeating: 0, count: table.count)
        var position = 0
        while position < log.count {
            let run = log[position]
            position += 1
            fields.bytes.removeAll(keepingCapacity: true)
            var header: UInt64
            if !run.isDeletion {
                header = UInt64(run.length - 1) << StateRunHeader.insertionLengthShift
                encodeInsertion(
                    run: run, replicaIndex: run.replica, originLeft: run.first, originRight: run.right,
                    replay: &replay, cursors: &cursors, header: &header, fields: &fields)
            } else {
                header = encodeDeletion(
                    run: run, joiningFollowersIn: log, at: &position, replay: &replay, cursors: &cursors, fields: &fields)
            }
            // Bit 0 of the header: a Lamport field follows (the run's timestamp is not the next
            // one, or its replica changes); most runs of a text with one replica have none.
            let changesReplica = run.replica != previousReplica
            let lamportField = Self.lamportField(lamport: run.lamport, highest: highestLamport, changesReplica: changesReplica)
            if lamportField == 0 {
                logBytes.varint(header << 1)
            } else {
                logBytes.varint(header << 1 | 1)
                logBytes.varint(lamportField)
                if changesReplica { logBytes.varint(run.replica) }
            }
            logBytes.append(contentsOf: fields.bytes)
            // The run as written (deletions joined above are one run): its length from the header.
            highestLamport = max(highestLamport, run.lamport + StateRunHeader.lengthMinusOne(header))
            previousReplica = run.replica
            runCount += 1
        }
        body.varint(runCount)
        body.append(contentsOf: logBytes.bytes)
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active != nil { return body.bytes }  // as in a release build
        #endif
        #if MEMOSYNC_INTERNAL_CHECKS
        checkEncodedLog(replayed: replay)
        #endif
        return body.bytes
    }

    #if MEMOSYNC_INTERNAL_CHECKS
    /// The state encoder's self-check: its runs are the text's changes, and the log it wrote,
    /// replayed into `replay`, gives this very text.
    private func checkEncodedLog(replayed replay: TextCRDT) {
        precondition(stateRunsMatchChanges(), "text state encoder: its runs differ from the text's changes")
        // The log must replay to this very text.
        let replayed = replay.itemsInDocumentOrder
        let original = itemsInDocumentOrder
        precondition(
            replayed.count == original.count && zip(replayed, original).allSatisfy { $0.id == $1.id && $0.isDeleted == $1.isDeleted },
            "text state encoder: the operation log does not replay to the text")
    }
    #endif

    /// Writes the fields of the deletion run `run` (just taken from `log`, whose next run is at
    /// `position`), replays it, and returns its header: in position form when its targets are
    /// exactly the visible items at one place, joined with the deletions that follow it there
    /// (`position` moves past them), else in id form.
    private func encodeDeletion(
        run: StateRun, joiningFollowersIn log: [StateRun], at position: inout Int, replay: inout TextCRDT,
        cursors: inout [Int], fields: inout ByteWriter
    ) -> UInt64 {
        let replicaIndex = run.replica
        let targetRef = run.first
        let isReversed = run.isReversed
        guard let (offset, backward) = replay.positionForDeletion(
            targetReplica: targetRef.replica, targetCounter: targetRef.counter, length: run.length,
            isReversed: isReversed)
        else {
            var header = UInt64(run.length - 1) << StateRunHeader.deletionLengthShift
                | StateRunHeader.deletion | StateRunHeader.idForm
            if isReversed { header |= StateRunHeader.backward }
            Self.writeReference(targetRef, from: replicaIndex, counter: run.counter, into: &fields)
            replay.replayDeletion(
                replica: replicaIndex, length: run.length, targetReplica: targetRef.replica,
                targetCounter: targetRef.counter, isReversed: isReversed)
            return header
        }
        // Replayed by its targets, which were just found to be exactly the visible items there
        // (no second search by position; the same items are deleted).
        replay.replayDeletion(
            replica: replicaIndex, length: run.length, targetReplica: targetRef.replica,
            targetCounter: targetRef.counter, isReversed: isReversed)
        // Deletions that continue this one at the same place (a range crossing spans, held
        // backspace) join it: one run, as the user made it.
        var start = offset
        var length = run.length
        var lamportEnd = run.lamport + UInt64(run.length)
        while position < log.count {
            let next = log[position]
            guard next.replica == run.replica, next.lamport == lamportEnd, next.isDeletion else { break }
            let nextRef = next.first
            guard let (nextOffset, nextBackward) = replay.positionForDeletion(
                targetReplica: nextRef.replica, targetCounter: nextRef.counter, length: next.length,
                isReversed: next.isReversed),
                nextBackward == backward,
                backward ? nextOffset + Int(next.length) == start : nextOffset == start
            else { break }
            replay.replayDeletion(
                replica: replicaIndex, length: next.length, targetReplica: nextRef.replica,
                targetCounter: nextRef.counter, isReversed: next.isReversed)
            if backward { start = nextOffset }
            length += next.length
            lamportEnd += UInt64(next.length)
            position += 1
        }
        var header = UInt64(length - 1) << StateRunHeader.deletionLengthShift | StateRunHeader.deletion
        if backward { header |= StateRunHeader.backward }
        fields.signedVarint(Int64(start - cursors[Int(replicaIndex)]))
        cursors[Int(replicaIndex)] = start
        return header
    }

    private func encodeInsertion(
        run: StateRun, replicaIndex: UInt32, originLeft: ItemRef, originRight: ItemRef,
        replay: inout TextCRDT, cursors: inout [Int], header: inout UInt64, fields: inout ByteWriter
    ) {
        if let offset = replay.positionForInsertion(originLeft: originLeft, originRight: originRight) {
            fields.signedVarint(Int64(offset - cursors[Int(replicaIndex)]))
            cursors[Int(replicaIndex)] = offset + Int(run.length)
            replay.replayInsertion(replica: replicaIndex, length: run.length, atScalar: offset)
            return
        }
        header |= StateRunHeader.idForm
        let counter = run.counter
        var modes: UInt8
        if originLeft.isNone {
            modes = OriginMode.leftStart
        } else if originLeft.replica == replicaIndex && originLeft.counter &+ 1 == counter {
            modes = OriginMode.leftPrevious
        } else {
            modes = OriginMode.leftExplicit
        }
        var rightMode = OriginMode.rightExplicit
        if originRight.isNone {
            rightMode = OriginMode.rightEnd
        } else if !originLeft.isNone && originRight.replica == originLeft.replica && originRight.counter == originLeft.counter &+ 1 {
            rightMode = OriginMode.rightSuccessor
        } else if !originLeft.isNone, let (slot, _) = replay.lookup(originLeft), replay.spans[slot].originRight == originRight {
            rightMode = OriginMode.rightInherited
        }
        modes |= rightMode << 2
        fields.byte(modes)
        if modes & 3 == OriginMode.leftExplicit {
            Self.writeReference(originLeft, from: replicaIndex, counter: counter, into: &fields)
        }
        if rightMode == OriginMode.rightExplicit {
            Self.writeReference(originRight, from: replicaIndex, counter: counter, into: &fields)
        }
        replay.replayInsertion(replica: replicaIndex, length: run.length, originLeft: originLeft, originRight: originRight)
    }

    /// An id: its table index, then for the run's own replica the distance back from the run's
    /// counter (zigzag), else the counter.
    static func writeReference(_ ref: ItemRef, from replicaIndex: UInt32, counter: UInt32, into writer: inout ByteWriter) {
        writer.varint(ref.replica)
        if ref.replica == replicaIndex {
            writer.signedVarint(Int64(counter) - Int64(ref.counter))
        } else {
            writer.varint(ref.counter)
        }
    }

    static func readReference(
        _ reader: inout ByteReader, from replicaIndex: UInt32, counter: UInt32, replicaCount: Int
    ) throws(DecodingError) -> ItemRef {
        let replica = try reader.count(max: replicaCount - 1, "replica index")
        let target: Int64
        if replica == Int(replicaIndex) {
            let (difference, overflow) = Int64(counter).subtractingReportingOverflow(try reader.signedVarint())
            guard !overflow else { throw .malformed("reference overflows") }
            target = difference
        } else {
            target = Int64(try reader.uint32Varint("counter"))
        }
        guard target >= 0 && target < Int64(Limits.operationsPerReplicaMax) else {
            throw .malformed("reference to counter \(target)")
        }
        return ItemRef(replica: UInt32(replica), counter: UInt32(target))
    }

    /// A version 2 log run's second varint: its Lamport timestamp minus (the highest Lamport
    /// timestamp of the runs before it + 1), zigzag, shifted left by one; bit 0 set when the run's
    /// replica index follows (it differs from the previous run's).
    static func lamportField(lamport: UInt64, highest: UInt64, changesReplica: Bool) -> UInt64 {
        let step = Int64(lamport) - Int64(highest) - 1
        let zigzag = UInt64(bitPattern: (step << 1) ^ (step >> 63))
        return zigzag << 1 | (changesReplica ? 1 : 0)
    }

    /// The Lamport timestamp a version 2 log run's second varint `field` gives after runs whose
    /// highest timestamp is `highest`, checked: the offset from `counter` must be a valid one.
    static func lamport(fromField field: UInt64, highest: UInt64, counter: UInt32) throws(DecodingError) -> UInt64 {
        let zigzag = field >> 1
        let step = Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
        // `highest` is at most a valid counter plus a valid offset: far below 2^62.
        let (lamport, overflow) = (Int64(highest) + 1).addingReportingOverflow(step)
        guard !overflow else { throw .malformed("Lamport timestamp overflows") }
        let (offset, offsetOverflow) = lamport.subtractingReportingOverflow(Int64(counter))
        guard !offsetOverflow, offset >= 1, offset <= Int64(Limits.lamportOffsetMax) else { throw .malformed("Lamport offset \(offset)") }
        return UInt64(lamport)
    }

    /// One run of the operation log as the state encoder handles it: a plain value (no content,
    /// no ids to hash), every reference already an index into the state's replica table.
    ///
    /// The same runs as ``appendChanges(of:from:to:includingContent:into:)`` makes without
    /// content (maximal runs, cut where Lamport timestamps jump), with the replicas renumbered.
    struct StateRun: Equatable {
        /// The run's replica, as an index into the state's table.
        var replica: UInt32
        var counter: UInt32
        var lamport: UInt64
        var length: UInt32
        var isDeletion: Bool
        /// Deletions: the targets are deleted in descending order.
        var isReversed: Bool
        /// Insertions: the originLeft of the first item (`.none`: the start); deletions: the
        /// first target (the lowest counter).
        var first: ItemRef
        /// Insertions: the originRight (`.none`: the end); deletions: unused (`.none`).
        var right: ItemRef

        var end: UInt32 { counter + length }

        /// The first `count` operations (as ``TextDelta/Run/prefix(_:)``).
        func prefix(_ count: UInt32) -> StateRun {
            precondition(count > 0 && count <= length)
            var result = self
            result.length = count
            if isDeletion {
                if isReversed { result.first.counter += length - count }
                result.isReversed = isReversed && count > 1
            }
            return result
        }

        /// The run without its first `count` operations (as ``TextDelta/Run/dropping(_:)``).
        func dropping(_ count: UInt32) -> StateRun {
            precondition(count < length)
            var result = self
            result.counter += count
            result.lamport += UInt64(count)
            result.length -= count
            if isDeletion {
                if !isReversed { result.first.counter += count }
                result.isReversed = isReversed && result.length > 1
            } else {
                result.first = ItemRef(replica: replica, counter: counter + count - 1)
            }
            return result
        }

        /// Appends `next` when it continues this run (as ``TextDelta/Run/append(_:)`` for runs
        /// without content).
        mutating func append(_ next: StateRun) -> Bool {
            guard next.replica == replica, next.counter == end, next.lamport == lamport + UInt64(length) else {
                return false
            }
            if !next.isDeletion {
                guard !isDeletion, next.first == ItemRef(replica: replica, counter: end - 1), next.right == right,
                    Int(length) + Int(next.length) <= Int(Limits.operationsPerReplicaMax)
                else { return false }
                length += next.length
                return true
            }
            guard isDeletion, first.replica == next.first.replica else { return false }
            let forward = (!isReversed || length == 1) && (!next.isReversed || next.length == 1)
            let backward = (isReversed || length == 1) && (next.isReversed || next.length == 1)
            if forward && first.counter + length == next.first.counter {
                isReversed = false
            } else if backward && next.first.counter + next.length == first.counter {
                first = next.first
                isReversed = true
            } else {
                return false
            }
            length += next.length
            return true
        }
    }

    /// Appends every operation of replica `interned` as ``StateRun``s, in counter order;
    /// `tableIndex` maps an interned replica index to its index in the state's table.
    ///
    /// - Complexity: O(s + d + l) for s spans, d deletion runs and l Lamport runs of the replica.
    func appendStateRuns(of interned: Int, tableIndex: [UInt32], into runs: inout [StateRun]) {
        let log = logs[interned]
        let me = tableIndex[interned]
        func map(_ ref: ItemRef) -> ItemRef {
            ref.isNone ? .none : ItemRef(replica: tableIndex[Int(ref.replica)], counter: ref.counter)
        }
        func add(_ run: StateRun) {
            if runs.isEmpty || !runs[runs.count - 1].append(run) { runs.append(run) }
        }
        let lamportRuns = log.lamportRuns
        // The Lamport run holding `counter` (counters only grow: a cursor, no search).
        var lamportIndex = 0
        var slot = log.firstSpan
        var deletionIndex = 0
        var counter: UInt32 = 0
        while counter < log.operationCount {
            var piece: StateRun
            if slot != noIndex && spans[slot].counter <= counter {
                let span = spans[slot]
                piece = StateRun(
                    replica: me, counter: counter, lamport: 0, length: span.end - counter, isDeletion: false,
                    isReversed: false, first: map(span.originLeft(at: counter - span.counter)), right: map(span.originRight))
                slot = span.nextInReplica
            } else {
                let run = log.deletionRuns[deletionIndex]
                precondition(run.counter <= counter && counter < run.end, "counters are dense")
                let whole = StateRun(
                    replica: me, counter: run.counter, lamport: 0, length: run.length, isDeletion: true,
                    isReversed: run.isReversed, first: map(ItemRef(replica: run.targetReplica, counter: run.targetCounter)),
                    right: .none)
                piece = counter > run.counter ? whole.dropping(counter - run.counter) : whole
                deletionIndex += 1
            }
            counter = piece.end
            // Cut where the timestamps stop rising by one.
            while lamportIndex + 1 < lamportRuns.count && lamportRuns[lamportIndex + 1].counter <= piece.counter {
                lamportIndex += 1
            }
            piece.lamport = lamportRuns[lamportIndex].lamport + UInt64(piece.counter - lamportRuns[lamportIndex].counter)
            while lamportIndex + 1 < lamportRuns.count && lamportRuns[lamportIndex + 1].counter < piece.end {
                let part = piece.prefix(lamportRuns[lamportIndex + 1].counter - piece.counter)
                add(part)
                piece = piece.dropping(part.length)
                lamportIndex += 1
                piece.lamport = lamportRuns[lamportIndex].lamport
            }
            add(piece)
        }
    }

    /// Whether ``appendStateRuns(of:tableIndex:into:)`` makes, for every replica, the runs
    /// ``appendChanges(of:from:to:includingContent:into:)`` makes without content, renumbered
    /// (what the state encoder relied on before it had its own runs). For tests and internal
    /// checks.
    ///
    /// - Complexity: O(n log n) for n runs.
    func stateRunsMatchChanges() -> Bool {
        let order = replicasWithOperationsByID()
        var tableIndex = [UInt32](repeating: noIndex, count: logs.count)
        for (position, interned) in order.enumerated() { tableIndex[interned] = UInt32(position) }
        func map(_ id: OperationID?) -> ItemRef {
            guard let id, let interned = replicaTable.index(of: id.replica) else { return .none }
            return ItemRef(replica: tableIndex[Int(interned)], counter: id.counter)
        }
        for interned in order {
            var expected: [TextDelta.Run] = []
            appendChanges(of: UInt32(interned), from: 0, to: logs[interned].operationCount, includingContent: false, into: &expected)
            var actual: [StateRun] = []
            appendStateRuns(of: interned, tableIndex: tableIndex, into: &actual)
            let converted = expected.map { run -> StateRun in
                var result = StateRun(
                    replica: tableIndex[interned], counter: run.counter, lamport: run.lamport, length: run.length,
                    isDeletion: false, isReversed: false, first: .none, right: .none)
                switch run.kind {
                case let .insertion(originLeft, originRight, _):
                    result.first = map(originLeft)
                    if case let .item(id) = originRight { result.right = map(id) }
                case let .deletion(target, isReversed):
                    result.isDeletion = true
                    result.isReversed = isReversed
                    result.first = map(target)
                }
                return result
            }
            guard converted == actual else { return false }
        }
        return true
    }

    /// Every operation as runs (no content, explicit origins) in a canonical causal order: of
    /// the runs whose dependencies are all listed already, the one with the smallest (Lamport
    /// timestamp, replica id, counter) goes next; a deletion run whose targets are only partly
    /// listed is split. `order` lists the interned replicas with operations, sorted by id (the
    /// state's table); the runs' references are indices into that table.
    ///
    /// - Complexity: O(n r) for n runs of r replicas.
    func causalOrder(order: [Int]) -> [StateRun] {
        var tableIndex = [UInt32](repeating: noIndex, count: logs.count)
        for (position, interned) in order.enumerated() { tableIndex[interned] = UInt32(position) }
        var perReplica: [[StateRun]] = []
        perReplica.reserveCapacity(order.count)
        var total = 0
        for interned in order {
            var runs: [StateRun] = []
            appendStateRuns(of: interned, tableIndex: tableIndex, into: &runs)
            total += runs.count
            perReplica.append(runs)
        }
        var heads = CausalOrderHeads(perReplica)
        var result: [StateRun] = []
        result.reserveCapacity(total)
        while let index = heads.nextReady() {
            result.append(heads.list(index))
        }
        precondition(heads.allListed, "a valid text's operations are causally closed")
        return result
    }

    /// The replicas' runs not listed yet by ``causalOrder(order:)``: each replica's next run (its
    /// head), what that head waits for, and how many operations of each replica are listed.
    private struct CausalOrderHeads {
        private let perReplica: [[StateRun]]
        /// Each replica's next run, if any (a split deletion's rest until it is listed).
        private var heads: [StateRun?]
        /// Per replica, the index in `perReplica` of the run after its head.
        private var nextIndex: [Int]
        /// Per replica, how many of its operations are listed (its counters below that).
        private var listed: [UInt32]
        // Per head, as plain arrays the scan reads: its timestamp (UInt64.max: no head left) and
        // what it needs listed, twice: `listed[needReplica] > needCounter` (noIndex: nothing).
        private var headLamport: [UInt64]
        private var needs: [(replica: UInt32, counter: UInt32, rightReplica: UInt32, rightCounter: UInt32)]

        init(_ perReplica: [[StateRun]]) {
            self.perReplica = perReplica
            heads = perReplica.map { $0.first }
            nextIndex = [Int](repeating: 1, count: perReplica.count)
            listed = [UInt32](repeating: 0, count: perReplica.count)
            headLamport = [UInt64](repeating: .max, count: perReplica.count)
            needs = .init(repeating: (noIndex, 0, noIndex, 0), count: perReplica.count)
            for index in heads.indices { setNeeds(index) }
        }

        /// Whether every run is listed.
        var allListed: Bool { heads.allSatisfy { $0 == nil } }

        @inline(__always)
        private mutating func setNeeds(_ index: Int) {
            guard let head = heads[index] else {
                headLamport[index] = .max
                return
            }
            headLamport[index] = head.lamport
            if head.isDeletion {
                // Reversed deletions wait for all their targets, the others for the first.
                let counter = head.isReversed ? head.first.counter + head.length - 1 : head.first.counter
                needs[index] = (head.first.replica, counter, noIndex, 0)
            } else {
                needs[index] = (head.first.replica, head.first.counter, head.right.replica, head.right.counter)
            }
        }

        /// The replica whose head is ready (everything it needs listed) and goes next: the
        /// smallest (timestamp, replica id). Nil when no head is ready.
        @inline(__always)
        func nextReady() -> Int? {
            // Heads are visited in table order, which is replica id order, so only a smaller
            // timestamp displaces the best so far (and is tested for readiness at all).
            var best: Int?
            var bestLamport = UInt64.max
            for index in headLamport.indices where headLamport[index] < bestLamport {
                let need = needs[index]
                if need.replica != noIndex && listed[Int(need.replica)] <= need.counter { continue }
                if need.rightReplica != noIndex && listed[Int(need.rightReplica)] <= need.rightCounter { continue }
                best = index
                bestLamport = headLamport[index]
            }
            return best
        }

        /// Lists the ready part of replica `index`'s head (``nextReady()`` chose it) and returns it.
        @inline(__always)
        mutating func list(_ index: Int) -> StateRun {
            let head = heads[index]!
            // A deletion may be ready in part: the targets listed so far.
            var ready = head.length
            if head.isDeletion && !head.isReversed {
                ready = min(head.length, listed[Int(head.first.replica)] - head.first.counter)
            }
            let part: StateRun
            if ready == head.length {
                part = head
                heads[index] = nextIndex[index] < perReplica[index].count ? perReplica[index][nextIndex[index]] : nil
                nextIndex[index] += 1
            } else {
                part = head.prefix(ready)
                heads[index] = head.dropping(ready)
            }
            setNeeds(index)
            listed[index] += ready
            return part
        }
    }

    /// The index of `id` in `sorted` (ascending, holding `id`).
    static func index(of id: ReplicaID, inSorted sorted: [ReplicaID]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < id { low = middle + 1 } else { high = middle }
        }
        precondition(low < sorted.count && sorted[low] == id, "replica missing from the table")
        return low
    }

    // MARK: Decoding

    /// Decodes a text state written by ``encoded()``; local edits of the result are attributed
    /// to `replica`.
    ///
    /// Every byte is checked: the envelope and checksum, every count against the bytes left,
    /// every reference against what the log has replayed so far. Whatever the input, the result
    /// is a valid text or a `DecodingError`; memory use is bounded by a multiple of the input size.
    ///
    /// - Complexity: O(n log n) for n runs in the log.
    public init(decoding bytes: [UInt8], replica: ReplicaID) throws(DecodingError) {
        let (bodyRange, version) = try BlobEnvelope.open(
            bytes, kind: .textState, versions: 1...Self.stateFormatVersionWithHistory)
        // Versions 3 and 4: a history section (of the state's version), then a version 2 body.
        guard version >= Self.stateFormatVersionWithCounterRangeHistory else {
            try self.init(decodingBody: bytes, range: bodyRange, version: version, replica: replica)
            return
        }
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        let history = try reader.lengthPrefixedRange()
        try self.init(decodingBody: bytes, range: reader.position..<bodyRange.upperBound, version: Self.stateFormatVersion, replica: replica)
        try attachHistory(bytes, range: history, sectionVersion: version)
    }

    /// Decodes a version 2 text state body that this process encoded itself (``encodedBody()``)
    /// from a text it holds, and kept in memory since (a notebook's text turned back into its
    /// body to give back memory): every byte is checked as in
    /// ``init(decodingBody:range:version:replica:)``, but the text is not rebuilt a second time
    /// from its own history (``checkProducedByItsHistory(placedByOrigins:)``). That check is for
    /// bytes from elsewhere; these are the canonical encoding of a text the engine built, and
    /// builds with internal checks make it anyway.
    package init(decodingOwnBody bytes: [UInt8], range bodyRange: Range<Int>, replica: ReplicaID) throws(DecodingError) {
        #if MEMOSYNC_INTERNAL_CHECKS
        self = try Self.decodingVersion2BodySharing(bytes, range: bodyRange, replica: replica, checksHistory: true, takesUnchecked: true)
        #else
        self = try Self.decodingVersion2BodySharing(bytes, range: bodyRange, replica: replica, checksHistory: false, takesUnchecked: true)
        #endif
    }

    /// Decodes a text state body of `version` (1 or 2) found at `range` of `bytes`.
    package init(decodingBody bytes: [UInt8], range bodyRange: Range<Int>, version: UInt8, replica: ReplicaID) throws(DecodingError) {
        if version >= 2 {
            self = try Self.decodingVersion2BodySharing(bytes, range: bodyRange, replica: replica, checksHistory: true)
            return
        }
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        let textRange = try reader.lengthPrefixedRange()
        let text = Array(bytes[textRange])
        guard UTF8Scanning.isValid(text) else { throw .malformed("the text section is not valid UTF-8") }

        let table = try Self.readReplicaTable(&reader)
        let replicaCount = table.count
        let (operationCounts, totalOperations) = try Self.readOperationCounts(
            &reader, replicaCount: replicaCount, operationsMax: Self.decodedOperationsMax(bodyBytes: bodyRange.count))
        let lamportRuns = try Self.readVersion1LamportRuns(&reader, operationCounts: operationCounts)
        var decoded = TextCRDT(replaying: table, lamportRuns: lamportRuns, operationCount: operationCounts, localReplica: replica)
        let stretchCount = try reader.count(max: min(totalOperations, reader.remaining / 2), "stretch count")
        var cursors = [Int](repeating: 0, count: replicaCount)
        var previousReplica = -1
        var placedByOrigins = false
        for _ in 0..<stretchCount {
            let replicaIndex = UInt32(try reader.count(max: replicaCount - 1, "replica index"))
            guard Int(replicaIndex) != previousReplica else { throw .malformed("two stretches of one replica in a row") }
            previousReplica = Int(replicaIndex)
            let runCount = try reader.count(max: min(totalOperations, reader.remaining), "run count")
            guard runCount > 0 else { throw .malformed("empty stretch") }
            for _ in 0..<runCount {
                if try decoded.decodeStateRun(
                    &reader, header: try reader.varint(), replicaIndex: replicaIndex, operationCounts: operationCounts,
                    cursors: &cursors)
                {
                    placedByOrigins = true
                }
            }
        }
        try decoded.finishDecoding(reader: reader, operationCounts: operationCounts, text: text, placedByOrigins: placedByOrigins)
        self = decoded
    }

    /// The replica table of a text state (either version): its count, then the ids, strictly
    /// ascending.
    private static func readReplicaTable(_ reader: inout ByteReader) throws(DecodingError) -> [ReplicaID] {
        let replicaCount = try reader.count(max: min(Limits.replicasPerTextMax, reader.remaining / 8), "replica count")
        var ids: [ReplicaID] = []
        ids.reserveCapacity(replicaCount)
        for _ in 0..<replicaCount {
            let id = ReplicaID(try reader.uint64LittleEndian())
            if let last = ids.last, last >= id { throw .malformed("replica ids are not strictly ascending") }
            ids.append(id)
        }
        return ids
    }

    /// A decoder safety limit: a state may not describe vastly more operations than its size (a
    /// tiny hostile input must not make the decoder allocate gigabytes).
    static func decodedOperationsMax(bodyBytes: Int) -> Int {
        max(1 << 20, 256 * bodyBytes)
    }

    /// Each replica's operation count (positive, within the limit), and their total, which may
    /// not pass `operationsMax`.
    static func readOperationCounts(
        _ reader: inout ByteReader, replicaCount: Int, operationsMax: Int
    ) throws(DecodingError) -> (counts: [UInt32], total: Int) {
        var operationCounts: [UInt32] = []
        operationCounts.reserveCapacity(replicaCount)
        var totalOperations = 0
        for _ in 0..<replicaCount {
            let count = try reader.uint32Varint("operation count")
            guard count > 0, count <= Limits.operationsPerReplicaMax else { throw .malformed("operation count \(count)") }
            totalOperations += Int(count)
            guard totalOperations <= operationsMax else { throw .malformed("more operations than the decoder accepts for this size") }
            operationCounts.append(count)
        }
        return (operationCounts, totalOperations)
    }

    /// A version 1 state's Lamport runs: per replica, their count, then each run's counter (the
    /// step from the run before) and timestamp offset (the change from the run before), checked.
    private static func readVersion1LamportRuns(
        _ reader: inout ByteReader, operationCounts: [UInt32]
    ) throws(DecodingError) -> [[LamportRun]] {
        var lamportRuns: [[LamportRun]] = []
        for replicaIndex in operationCounts.indices {
            let runCount = try reader.count(max: min(Int(operationCounts[replicaIndex]), reader.remaining / 2), "Lamport run count")
            guard runCount > 0 else { throw .malformed("replica \(replicaIndex) has no Lamport runs") }
            var runs: [LamportRun] = []
            runs.reserveCapacity(runCount)
            var counter: UInt32 = 0
            var offset: Int64 = 0
            for runIndex in 0..<runCount {
                let step = try reader.uint32Varint("Lamport run counter")
                guard (runIndex == 0 && step == 0) || (runIndex > 0 && step > 0) else { throw .malformed("Lamport run counters") }
                guard UInt64(counter) + UInt64(step) < UInt64(operationCounts[replicaIndex]) else { throw .malformed("Lamport run past the operations") }
                counter += step
                let change = try reader.signedVarint()
                guard runIndex == 0 || change != 0 else { throw .malformed("Lamport runs not minimal") }
                let (next, overflow) = offset.addingReportingOverflow(change)
                guard !overflow, next >= 1, next <= Int64(Limits.lamportOffsetMax) else { throw .malformed("Lamport offset \(next)") }
                offset = next
                runs.append(LamportRun(counter: counter, lamport: UInt64(Int64(counter) + offset)))
            }
            lamportRuns.append(runs)
        }
        return lamportRuns
    }

    /// Decodes a version 2 text state body: a walk of the log (``walkVersion2(_:range:)``) checks
    /// its structure and gives each replica's Lamport runs, then the log is replayed.
    init(
        decodingVersion2Body bytes: [UInt8], range bodyRange: Range<Int>, replica: ReplicaID, checksHistory: Bool = true
    ) throws(DecodingError) {
        let walk = try Self.walkVersion2(bytes, range: bodyRange)
        let text = Array(bytes[walk.text])
        guard UTF8Scanning.isValid(text) else { throw .malformed("the text section is not valid UTF-8") }
        var decoded = TextCRDT(
            replaying: walk.replicas, lamportRuns: walk.lamportRuns, operationCount: walk.operationCounts, localReplica: replica)
        var reader = ByteReader(bytes, from: walk.logStart, to: bodyRange.upperBound)
        let runCount = try reader.varint()
        var cursors = [Int](repeating: 0, count: walk.replicas.count)
        var replicaIndex: UInt32 = 0
        var placedByOrigins = false
        for _ in 0..<runCount {
            let headerAndFlag = try reader.varint()
            let header = headerAndFlag >> 1
            if headerAndFlag & 1 == 1, try reader.varint() & 1 == 1 {
                replicaIndex = UInt32(try reader.count(max: walk.replicas.count - 1, "replica index"))
            }
            if try decoded.decodeStateRun(
                &reader, header: header, replicaIndex: replicaIndex, operationCounts: walk.operationCounts, cursors: &cursors)
            {
                placedByOrigins = true
            }
        }
        try decoded.finishDecoding(
            reader: reader, operationCounts: walk.operationCounts, text: text, placedByOrigins: placedByOrigins && checksHistory)
        self = decoded
    }

    /// The end of a decoding: every byte read, every operation replayed, the text's content
    /// filled in and its clock set, and the text checked to be what its history gives
    /// (``checkProducedByItsHistory(placedByOrigins:)``; `placedByOrigins`: some insertion was
    /// replayed in id form).
    private mutating func finishDecoding(
        reader: ByteReader, operationCounts: [UInt32], text: [UInt8], placedByOrigins: Bool
    ) throws(DecodingError) {
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
        for index in operationCounts.indices where logs[index].operationCount != operationCounts[index] {
            throw .malformed("replica \(index) replayed \(logs[index].operationCount) of \(operationCounts[index]) operations")
        }
        try fillContent(from: text)
        lamport = 0
        for log in logs where log.operationCount > 0 {
            lamport = max(lamport, log.lamport(of: log.operationCount - 1))
        }
        guard lamport <= Limits.lamportMax else { throw .malformed("Lamport timestamp \(lamport) past the limit") }
        checkInvariantsIfEnabled()
        // What was replayed must be what its own history gives a replica that starts empty.
        try checkProducedByItsHistory(placedByOrigins: placedByOrigins)
    }

    /// Reads one run of a text state's operation log and replays it; true when it is an id-form
    /// insertion (placed by its origins, not at a position).
    private mutating func decodeStateRun(
        _ reader: inout ByteReader, header: UInt64, replicaIndex: UInt32, operationCounts: [UInt32], cursors: inout [Int]
    ) throws(DecodingError) -> Bool {
        let replicaCount = operationCounts.count
        let isDeletion = header & StateRunHeader.deletion != 0
        let isIDForm = header & StateRunHeader.idForm != 0
        let backward = isDeletion && header & StateRunHeader.backward != 0
        let lengthMinusOne = StateRunHeader.lengthMinusOne(header)
        let counter = logs[replicaIndex].operationCount
        guard lengthMinusOne < UInt64(operationCounts[Int(replicaIndex)] - counter) else {
            throw .malformed("run past replica \(replicaIndex)'s operation count")
        }
        let length = UInt32(lengthMinusOne) + 1
        let visible = totalCounts.scalars
        switch (isDeletion, isIDForm) {
        case (false, false):
            let offset = try Self.readOffset(&reader, cursor: cursors[Int(replicaIndex)])
            guard offset >= 0 && offset <= visible else { throw .malformed("insertion at \(offset) of \(visible)") }
            replayInsertion(replica: replicaIndex, length: length, atScalar: offset)
            try checkReplayedInsertionIsNewerThanItsOrigins(replica: replicaIndex, counter: counter)
            cursors[Int(replicaIndex)] = offset + Int(length)
        case (true, false):
            let offset = try Self.readOffset(&reader, cursor: cursors[Int(replicaIndex)])
            guard offset >= 0 && offset + Int(length) <= visible else {
                throw .malformed("deletion at \(offset) of \(visible)")
            }
            replayDeletion(replica: replicaIndex, length: length, atScalar: offset, backward: backward)
            cursors[Int(replicaIndex)] = offset
        case (false, true):
            let (originLeft, originRight) = try readIDFormOrigins(
                &reader, replica: replicaIndex, counter: counter, replicaCount: replicaCount)
            replayInsertion(replica: replicaIndex, length: length, originLeft: originLeft, originRight: originRight)
            return true
        case (true, true):
            let target = try Self.readReference(&reader, from: replicaIndex, counter: counter, replicaCount: replicaCount)
            guard UInt64(target.counter) + UInt64(length) <= UInt64(Limits.operationsPerReplicaMax),
                holdsItems(replica: target.replica, counter: target.counter, length: length)
            else { throw .malformed("deletion of items not replayed") }
            replayDeletion(
                replica: replicaIndex, length: length, targetReplica: target.replica,
                targetCounter: target.counter, isReversed: backward)
        }
        return false
    }

    /// Reads the origin modes and origins of an id-form insertion run of `replica` whose first
    /// operation is `counter`, and checks them as `apply` would: held items, older than the
    /// run, and no earlier item of the run's replica between them.
    private func readIDFormOrigins(
        _ reader: inout ByteReader, replica replicaIndex: UInt32, counter: UInt32, replicaCount: Int
    ) throws(DecodingError) -> (originLeft: ItemRef, originRight: ItemRef) {
        let modes = try reader.byte()
        guard modes < 16, modes & 3 != 3 else { throw .malformed("origin modes \(modes)") }
        let originLeft: ItemRef
        switch modes & 3 {
        case OriginMode.leftStart: originLeft = .none
        case OriginMode.leftPrevious:
            guard counter > 0 else { throw .malformed("no previous operation") }
            originLeft = ItemRef(replica: replicaIndex, counter: counter - 1)
        default:
            originLeft = try Self.readReference(&reader, from: replicaIndex, counter: counter, replicaCount: replicaCount)
        }
        if !originLeft.isNone {
            guard holdsItem(originLeft) else { throw .malformed("originLeft is not a replayed item") }
        }
        let originRight: ItemRef
        switch modes >> 2 {
        case OriginMode.rightEnd: originRight = .none
        case OriginMode.rightSuccessor:
            guard !originLeft.isNone else { throw .malformed("successor of the start") }
            originRight = ItemRef(replica: originLeft.replica, counter: originLeft.counter + 1)
        case OriginMode.rightInherited:
            guard let (slot, _) = lookup(originLeft) else { throw .malformed("inherited origin of the start") }
            originRight = spans[slot].originRight
        default:
            originRight = try Self.readReference(&reader, from: replicaIndex, counter: counter, replicaCount: replicaCount)
        }
        if !originRight.isNone {
            guard holdsItem(originRight) else { throw .malformed("originRight is not a replayed item") }
        }
        // As `apply` requires: an insertion is newer than its origins.
        let lamport = logs[replicaIndex].lamport(of: counter)
        for origin in [originLeft, originRight] where !origin.isNone {
            guard logs[origin.replica].lamport(of: origin.counter) < lamport else {
                throw .malformed("an insertion older than its origin")
            }
        }
        // As `apply` requires: no earlier item of its replica between its origins.
        guard !holdsItem(of: replicaIndex, between: originLeft, and: originRight) else {
            throw .malformed("an item of the inserting replica between its origins")
        }
        return (originLeft, originRight)
    }

    /// As `apply` requires of every insertion, and as the id form checks before replaying: a
    /// position-form insertion (placed like a local edit, its origins the items it lands
    /// between) is newer than its origins. The run's first item carries the run's origins; the
    /// later ones follow it (older by one) under the same right origin, which the first item
    /// already passes.
    private func checkReplayedInsertionIsNewerThanItsOrigins(replica: UInt32, counter: UInt32) throws(DecodingError) {
        guard let (slot, offset) = lookup(ItemRef(replica: replica, counter: counter)) else {
            throw .malformed("a replayed insertion is not in the text")
        }
        let lamport = logs[replica].lamport(of: counter)
        let origins = offset == 0 ? [spans[slot].originLeft, spans[slot].originRight] : [spans[slot].originRight]
        for origin in origins where !origin.isNone {
            guard logs[origin.replica].lamport(of: origin.counter) < lamport else {
                throw .malformed("an insertion older than its origin")
            }
        }
    }

    /// A position-form offset: the cursor plus a signed step, checked for overflow (a hostile
    /// step may be any 64-bit value).
    @inline(__always)
    private static func readOffset(_ reader: inout ByteReader, cursor: Int) throws(DecodingError) -> Int {
        let (offset, overflow) = cursor.addingReportingOverflow(Int(try reader.signedVarint()))
        guard !overflow else { throw .malformed("position overflows") }
        return offset
    }

    /// What a text state body says without replaying its operations: the range of the visible
    /// text (not yet checked to be UTF-8: the caller does that), the version, the insertion
    /// version, and the highest Lamport timestamp. Checks everything else it reads.
    ///
    /// - Complexity: O(t + r) for t bytes of text and r Lamport runs.
    package static func summary(ofBody bytes: [UInt8], range bodyRange: Range<Int>, version bodyVersion: UInt8) throws(DecodingError) -> (
        text: Range<Int>, version: VersionVector, insertionVersion: VersionVector, lamport: UInt64
    ) {
        try summary(ofBody: bytes, range: bodyRange, version: bodyVersion, derivingLamportRuns: false).summary
    }

    /// ``summary(ofBody:range:version:)`` of a version 2 body this text just encoded
    /// (``encodedBody()``), taken from the text instead of walking the body: the text section's
    /// range read from the body's first field, the rest from the text. Builds with internal
    /// checks walk the body too and compare.
    package func summary(ofOwnBody bytes: [UInt8], range bodyRange: Range<Int>) throws(DecodingError) -> (
        text: Range<Int>, version: VersionVector, insertionVersion: VersionVector, lamport: UInt64
    ) {
        #if MEMOSYNC_MUTANTS
        // A broken engine's text may not know its own clock: what the body says, as before.
        if EngineMutant.active != nil { return try Self.summary(ofBody: bytes, range: bodyRange, version: Self.stateFormatVersion) }
        #endif
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        // The highest timestamp of an operation, as the body gives it: the text's own clock may
        // be ahead of it (a notebook raises it before an edit that may make nothing).
        var highest: UInt64 = 0
        for log in logs where log.operationCount > 0 { highest = max(highest, log.lamport(of: log.operationCount - 1)) }
        let own = (text: try reader.lengthPrefixedRange(), version: version, insertionVersion: insertionVersion, lamport: highest)
        #if MEMOSYNC_INTERNAL_CHECKS
        let walked = try Self.summary(ofBody: bytes, range: bodyRange, version: Self.stateFormatVersion)
        precondition(
            walked.text == own.text && walked.version == own.version && walked.insertionVersion == own.insertionVersion
                && walked.lamport == own.lamport,
            "a text's own body says otherwise than the text: \(walked), \(own)")
        #endif
        return own
    }

    /// A text state body's replicas (in id order), their text operation counts, and each one's
    /// Lamport runs: where each run starts (`counter`) and the timestamp there, rising by one per
    /// operation until the next run. What a notebook decoder needs to check, without replaying a
    /// memo's text, that the notebook's history can be applied in some order
    /// (``LamportTimelines``, `Notebook(decoding:replica:)`).
    typealias BodyLamportRuns = (replicas: [ReplicaID], operationCounts: [UInt32], runs: [[LamportRun]])

    /// ``summary(ofBody:range:version:)``, and when `derivingLamportRuns`, the body's
    /// ``BodyLamportRuns`` (nil otherwise: a summary alone is spared their allocations).
    static func summary(
        ofBody bytes: [UInt8], range bodyRange: Range<Int>, version bodyVersion: UInt8, derivingLamportRuns: Bool
    ) throws(DecodingError) -> (
        summary: (text: Range<Int>, version: VersionVector, insertionVersion: VersionVector, lamport: UInt64),
        lamportRuns: BodyLamportRuns?
    ) {
        var buffers = WalkBuffers()
        return try summary(ofBody: bytes, range: bodyRange, version: bodyVersion, derivingLamportRuns: derivingLamportRuns, buffers: &buffers)
    }

    /// ``summary(ofBody:range:version:derivingLamportRuns:)`` walking with `buffers`.
    static func summary(
        ofBody bytes: [UInt8], range bodyRange: Range<Int>, version bodyVersion: UInt8, derivingLamportRuns: Bool,
        buffers: inout WalkBuffers
    ) throws(DecodingError) -> (
        summary: (text: Range<Int>, version: VersionVector, insertionVersion: VersionVector, lamport: UInt64),
        lamportRuns: BodyLamportRuns?
    ) {
        if bodyVersion >= 2 {
            let walk = try walkVersion2(bytes, range: bodyRange, derivingLamportRuns: derivingLamportRuns, buffers: &buffers)
            let (version, insertionVersion) = versions(walk.replicas, walk.operationCounts, insertionEnds: walk.insertionEnds)
            guard walk.lamport <= Limits.lamportMax else { throw .malformed("Lamport timestamp \(walk.lamport) past the limit") }
            let summary = (walk.text, version, insertionVersion, walk.lamport)
            return (summary, derivingLamportRuns ? (walk.replicas, walk.operationCounts, walk.lamportRuns) : nil)
        }
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        // The caller validates the text (making a String of it validates it once).
        let textRange = try reader.lengthPrefixedRange()
        let ids = try readReplicaTable(&reader)
        let (operationCounts, _) = try readOperationCounts(&reader, replicaCount: ids.count, operationsMax: .max)
        let lamport: UInt64
        var lamportRuns: BodyLamportRuns?
        if derivingLamportRuns {
            let runs = try readVersion1LamportRuns(&reader, operationCounts: operationCounts)
            lamportRuns = (ids, operationCounts, runs)
            lamport = zip(operationCounts, runs).map { count, runs in
                let last = runs.last!
                return last.lamport + UInt64(count - 1 - last.counter)
            }.max() ?? 0
        } else {
            lamport = try highestVersion1Lamport(&reader, operationCounts: operationCounts)
        }
        // The insertion version: walk the run headers of the log (no replay), checking the runs'
        // fields as far as they can be without the text.
        var check = StateLogCheck(operationCounts: operationCounts)
        var previousReplica = -1
        let stretchCount = try reader.count(max: reader.remaining / 2, "stretch count")
        for _ in 0..<stretchCount {
            let replica = try reader.count(max: ids.count - 1, "replica index")
            guard replica != previousReplica else { throw .malformed("two stretches of one replica in a row") }
            previousReplica = replica
            let runCount = try reader.count(max: reader.remaining, "run count")
            guard runCount > 0 else { throw .malformed("empty stretch") }
            for _ in 0..<runCount {
                let header = try reader.varint()
                let length = try check.length(ofRun: header, replica: replica)
                try check.checkFields(&reader, header: header, length: length, replica: replica)
            }
        }
        try check.checkComplete(reader)
        guard lamport <= Limits.lamportMax else { throw .malformed("Lamport timestamp \(lamport) past the limit") }
        let (version, insertionVersion) = versions(ids, operationCounts, insertionEnds: check.insertionEnds)
        return ((textRange, version, insertionVersion, lamport), lamportRuns)
    }

    /// A body's version and insertion version from its replica table, operation counts and
    /// insertion ends. A text whose replicas' last operations are all insertions has its version
    /// as its insertion version: one array for both (a notebook's decoder makes them per memo).
    private static func versions(
        _ replicas: [ReplicaID], _ operationCounts: [UInt32], insertionEnds: [UInt32]
    ) -> (version: VersionVector, insertionVersion: VersionVector) {
        let version = versionVector(replicas, operationCounts)
        return (version, insertionEnds == operationCounts ? version : versionVector(replicas, insertionEnds))
    }

    /// The version vector of `counts` by replica (a count of 0: not in the vector); `replicas`
    /// is a replica table as read, strictly ascending (``readReplicaTable(_:)`` checks it).
    private static func versionVector(_ replicas: [ReplicaID], _ counts: [UInt32]) -> VersionVector {
        VersionVector(ascendingReplicas: replicas, counts: counts)
    }

    /// Reads a version 1 state's Lamport runs as ``readVersion1LamportRuns(_:operationCounts:)``
    /// does, keeping only the highest timestamp of the replicas' last operations.
    private static func highestVersion1Lamport(
        _ reader: inout ByteReader, operationCounts: [UInt32]
    ) throws(DecodingError) -> UInt64 {
        var lamport: UInt64 = 0
        for operationCount in operationCounts {
            let runCount = try reader.count(max: min(Int(operationCount), reader.remaining / 2), "Lamport run count")
            guard runCount > 0 else { throw .malformed("no Lamport runs") }
            var counter: UInt32 = 0
            var offset: Int64 = 0
            for runIndex in 0..<runCount {
                let step = try reader.uint32Varint("Lamport run counter")
                guard (runIndex == 0) == (step == 0) else { throw .malformed("Lamport run counters") }
                guard UInt64(counter) + UInt64(step) < UInt64(operationCount) else { throw .malformed("Lamport run past the operations") }
                counter += step
                let change = try reader.signedVarint()
                guard runIndex == 0 || change != 0 else { throw .malformed("Lamport runs not minimal") }
                let (next, overflow) = offset.addingReportingOverflow(change)
                guard !overflow, next >= 1, next <= Int64(Limits.lamportOffsetMax) else { throw .malformed("Lamport offset") }
                offset = next
            }
            lamport = max(lamport, UInt64(Int64(operationCount - 1) + offset))
        }
        return lamport
    }

    /// The checks a walk of a text state's operation log makes on each run without replaying
    /// it, as far as they can be made without the text (what the replay of a memo's log, on its
    /// first use, would refuse anyway): each run within its replica's operation count, origin
    /// modes, references to insertions listed before the run, position-form offsets without
    /// overflow and within the items inserted so far. One checker for both versions, whose logs
    /// differ only in how a run's replica and timestamp are written (``summary(ofBody:range:version:)``
    /// for version 1, ``walkVersion2(_:range:derivingLamportRuns:)``).
    private struct StateLogCheck {
        /// Per replica, the operation count the state declares.
        let operationCounts: [UInt32]
        /// Per replica, the operations listed so far.
        private(set) var counts: [UInt32]
        /// Per replica, the end of its last insertion so far (0: none).
        private(set) var insertionEnds: [UInt32]
        /// Per replica, where its last position-form run left the cursor.
        private var cursors: [Int]
        /// Items inserted so far, by all replicas.
        private var inserted = 0
        /// Per replica, the counters of its insertions listed so far (references must name items).
        private var insertionRanges: [[Range<UInt32>]]

        init(operationCounts: [UInt32]) {
            var buffers = WalkBuffers()
            self.init(operationCounts: operationCounts, reusing: &buffers)
        }

        /// A check whose arrays are those of `buffers` (taken, emptied and sized; given back by
        /// ``giveBack(to:)``), so that walking many bodies allocates them once.
        init(operationCounts: [UInt32], reusing buffers: inout WalkBuffers) {
            self.operationCounts = operationCounts
            let replicaCount = operationCounts.count
            counts = WalkBuffers.take(&buffers.counts, count: replicaCount, filledWith: 0)
            insertionEnds = WalkBuffers.take(&buffers.insertionEnds, count: replicaCount, filledWith: 0)
            cursors = WalkBuffers.take(&buffers.cursors, count: replicaCount, filledWith: 0)
            insertionRanges = WalkBuffers.take(&buffers.insertionRanges, count: replicaCount)
        }

        /// Hands this check's arrays back to `buffers` for the next body.
        func giveBack(to buffers: inout WalkBuffers) {
            buffers.counts = counts
            buffers.insertionEnds = insertionEnds
            buffers.cursors = cursors
            buffers.insertionRanges = insertionRanges
        }

        /// The length of the next run of `replica`, written as `header`: within the operations
        /// the replica has left.
        @inline(__always)
        func length(ofRun header: UInt64, replica: Int) throws(DecodingError) -> UInt32 {
            let lengthMinusOne = StateRunHeader.lengthMinusOne(header)
            guard lengthMinusOne < UInt64(operationCounts[replica] - counts[replica]) else {
                throw .malformed("run past the replica's operation count")
            }
            return UInt32(lengthMinusOne) + 1
        }

        /// Reads and checks the fields of the next run of `replica` (`header`, and `length` from
        /// ``length(ofRun:replica:)``), then counts the run.
        @inline(__always)
        mutating func checkFields(
            _ reader: inout ByteReader, header: UInt64, length: UInt32, replica: Int
        ) throws(DecodingError) {
            let isDeletion = header & StateRunHeader.deletion != 0
            let counter = counts[replica]
            switch (isDeletion, header & StateRunHeader.idForm != 0) {
            case (_, false):
                let offset = try readOffset(&reader, cursor: cursors[replica])
                guard offset >= 0, offset + (isDeletion ? Int(length) : 0) <= inserted else {
                    throw .malformed("position \(offset) outside the items listed before it")
                }
                cursors[replica] = isDeletion ? offset : offset + Int(length)
            case (false, true):
                try checkIDFormOrigins(&reader, replica: replica, counter: counter)
            case (true, true):
                _ = try checkReference(&reader, replica: replica, counter: counter, length: length)
            }
            counts[replica] += length
            if !isDeletion {
                insertionEnds[replica] = counts[replica]
                inserted += Int(length)
                if let last = insertionRanges[replica].last, last.upperBound == counter {
                    insertionRanges[replica][insertionRanges[replica].count - 1] = last.lowerBound..<counts[replica]
                } else {
                    insertionRanges[replica].append(counter..<counts[replica])
                }
            }
        }

        /// The origin modes and origins of an id-form insertion, as far as they can be checked
        /// without the text.
        private func checkIDFormOrigins(_ reader: inout ByteReader, replica: Int, counter: UInt32) throws(DecodingError) {
            let modes = try reader.byte()
            guard modes < 16, modes & 3 != 3 else { throw .malformed("origin modes \(modes)") }
            var originLeft = ItemRef.none
            switch modes & 3 {
            case OriginMode.leftStart: break
            case OriginMode.leftPrevious:
                guard counter > 0 else { throw .malformed("no previous operation") }
                originLeft = ItemRef(replica: UInt32(replica), counter: counter - 1)
                try checkItems(originLeft, length: 1)
            default:
                originLeft = try checkReference(&reader, replica: replica, counter: counter, length: 1)
            }
            switch modes >> 2 {
            case OriginMode.rightEnd: break
            case OriginMode.rightSuccessor:
                guard !originLeft.isNone else { throw .malformed("successor of the start") }
                try checkItems(ItemRef(replica: originLeft.replica, counter: originLeft.counter + 1), length: 1)
            case OriginMode.rightInherited:
                guard !originLeft.isNone else { throw .malformed("inherited origin of the start") }
            default:
                _ = try checkReference(&reader, replica: replica, counter: counter, length: 1)
            }
        }

        /// Reads a reference of a run of `replica` whose first operation is `counter`, naming
        /// `length` items from there (``checkItems(_:length:)``).
        private func checkReference(
            _ reader: inout ByteReader, replica: Int, counter: UInt32, length: UInt32
        ) throws(DecodingError) -> ItemRef {
            let target = try readReference(&reader, from: UInt32(replica), counter: counter, replicaCount: operationCounts.count)
            try checkItems(target, length: length)
            return target
        }

        /// A reference must name insertions listed before this run.
        private func checkItems(_ target: ItemRef, length: UInt32) throws(DecodingError) {
            guard UInt64(target.counter) + UInt64(length) <= UInt64(counts[Int(target.replica)]),
                covers(insertionRanges[Int(target.replica)], target.counter..<target.counter + length)
            else {
                throw .malformed("reference to an operation that is not an insertion listed before it")
            }
        }

        /// The end of the log: every byte read, every operation the state counts listed.
        func checkComplete(_ reader: ByteReader) throws(DecodingError) {
            guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
            for index in counts.indices where counts[index] != operationCounts[index] {
                throw .malformed("replica \(index) has \(counts[index]) operations in the log, \(operationCounts[index]) counted")
            }
        }
    }

    /// The arrays a walk of one body uses (per replica: counts, cursors, insertion ranges,
    /// Lamport runs), kept between the bodies of one notebook so that each is allocated once
    /// rather than per memo: their allocations (and, for the arrays of arrays, a look-up of
    /// their generic metadata at each allocation) were a third of summarizing a body (issue 28,
    /// opening 10,000 memos). Their contents mean nothing between walks.
    package struct WalkBuffers: Sendable {
        var counts: [UInt32] = []
        var insertionEnds: [UInt32] = []
        var cursors: [Int] = []
        var insertionRanges: [[Range<UInt32>]] = []
        var lamportRuns: [[LamportRun]] = []
        var lastLamports: [UInt64] = []

        package init() {}

        /// `array`, taken out of the buffers (left empty there), holding `count` times `value`.
        static func take<Element>(_ array: inout [Element], count: Int, filledWith value: Element) -> [Element] {
            var taken: [Element] = []
            swap(&taken, &array)
            taken.removeAll(keepingCapacity: true)
            taken.append(contentsOf: repeatElement(value, count: count))
            return taken
        }

        /// `arrays`, taken out of the buffers, holding `count` empty arrays (each keeping the
        /// room it had).
        static func take<Element>(_ arrays: inout [[Element]], count: Int) -> [[Element]] {
            var taken: [[Element]] = []
            swap(&taken, &arrays)
            if taken.count > count { taken.removeLast(taken.count - count) }
            for index in taken.indices { taken[index].removeAll(keepingCapacity: true) }
            while taken.count < count { taken.append([]) }
            return taken
        }
    }

    /// What a walk of a version 2 text state body finds without replaying it.
    struct StateWalk {
        /// The visible text's bytes (not yet checked to be UTF-8).
        var text: Range<Int>
        var replicas: [ReplicaID]
        var operationCounts: [UInt32]
        /// Per replica, its Lamport runs (minimal: each starts where the timestamps jump).
        var lamportRuns: [[LamportRun]]
        /// Per replica, the end of its last insertion (0: none).
        var insertionEnds: [UInt32]
        /// The highest Lamport timestamp of any replica's last operation.
        var lamport: UInt64
        /// Where the log (its run count) starts.
        var logStart: Int
    }

    /// Walks a version 2 text state body without replaying it, checking what needs no text (as
    /// ``summary(ofBody:range:version:)`` does for version 1): the tables and counts, the decoder
    /// safety limit, each run's replica, length and Lamport timestamp, and its fields
    /// (``StateLogCheck``); and derives each replica's Lamport runs.
    ///
    /// - Complexity: O(t + n) for t bytes of text and n runs.
    /// `derivingLamportRuns`: whether to collect each replica's Lamport runs (a decoder needs
    /// them; a summary needs only the highest timestamp, and is spared the allocations).
    static func walkVersion2(
        _ bytes: [UInt8], range bodyRange: Range<Int>, derivingLamportRuns: Bool = true
    ) throws(DecodingError) -> StateWalk {
        var buffers = WalkBuffers()
        return try walkVersion2(bytes, range: bodyRange, derivingLamportRuns: derivingLamportRuns, buffers: &buffers)
    }

    /// ``walkVersion2(_:range:derivingLamportRuns:)`` with its arrays taken from `buffers` and
    /// given back (all but the walk's Lamport runs, which the caller may give back).
    static func walkVersion2(
        _ bytes: [UInt8], range bodyRange: Range<Int>, derivingLamportRuns: Bool, buffers: inout WalkBuffers
    ) throws(DecodingError) -> StateWalk {
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        let textRange = try reader.lengthPrefixedRange()
        let ids = try readReplicaTable(&reader)
        let replicaCount = ids.count
        let (operationCounts, totalOperations) = try readOperationCounts(
            &reader, replicaCount: replicaCount, operationsMax: decodedOperationsMax(bodyBytes: bodyRange.count))
        let logStart = reader.position
        let runCount = try reader.count(max: min(totalOperations, reader.remaining / 2), "run count")
        var check = StateLogCheck(operationCounts: operationCounts, reusing: &buffers)
        var lamportRuns = WalkBuffers.take(&buffers.lamportRuns, count: derivingLamportRuns ? replicaCount : 0)
        // Per replica, the Lamport timestamp of its last operation so far.
        var lastLamports = WalkBuffers.take(&buffers.lastLamports, count: replicaCount, filledWith: 0)
        var replica = -1
        var highest: UInt64 = 0
        for _ in 0..<runCount {
            let headerAndFlag = try reader.varint()
            let header = headerAndFlag >> 1
            let lamportField = headerAndFlag & 1 == 1 ? try reader.varint() : 0
            guard headerAndFlag & 1 == 0 || lamportField != 0 else { throw .malformed("a Lamport field that says nothing") }
            if lamportField & 1 == 1 {
                let next = try reader.count(max: replicaCount - 1, "replica index")
                guard next != replica else { throw .malformed("a run names the replica of the run before it") }
                replica = next
            } else {
                guard replica >= 0 else { throw .malformed("the first run names no replica") }
            }
            let length = try check.length(ofRun: header, replica: replica)
            let counter = check.counts[replica]
            let lamport = try lamport(fromField: lamportField, highest: highest, counter: counter)
            if derivingLamportRuns {
                if let last = lamportRuns[replica].last, last.lamport + UInt64(counter - last.counter) == lamport {
                    // The run continues the replica's Lamport run.
                } else {
                    lamportRuns[replica].append(LamportRun(counter: counter, lamport: lamport))
                }
            }
            lastLamports[replica] = lamport + UInt64(length) - 1
            highest = max(highest, lastLamports[replica])
            try check.checkFields(&reader, header: header, length: length, replica: replica)
        }
        try check.checkComplete(reader)
        // As version 1 reads it: the highest of the replicas' last operations' timestamps.
        let lamport = lastLamports.max() ?? 0
        let insertionEnds = check.insertionEnds
        check.giveBack(to: &buffers)
        buffers.lastLamports = lastLamports
        return StateWalk(
            text: textRange, replicas: ids, operationCounts: operationCounts, lamportRuns: lamportRuns,
            insertionEnds: insertionEnds, lamport: lamport, logStart: logStart)
    }

    /// The visible text of an encoded text state, without decoding the operations: checks the
    /// envelope, checksum and UTF-8 of the text section only.
    ///
    /// - Complexity: O(b) for b bytes.
    public static func decodeString(fromEncoded bytes: [UInt8]) throws(DecodingError) -> String {
        let (bodyRange, version) = try BlobEnvelope.open(bytes, kind: .textState, versions: 1...Self.stateFormatVersionWithHistory)
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        if version >= Self.stateFormatVersionWithCounterRangeHistory { _ = try reader.lengthPrefixedRange() }
        let textRange = try reader.lengthPrefixedRange()
        guard let text = String(validating: bytes[textRange], as: UTF8.self) else {
            throw .malformed("the text section is not valid UTF-8")
        }
        return text
    }
}
