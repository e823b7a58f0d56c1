// The text delta encoding (FORMAT.md, "Text delta"): the replica table, then per replica a group
// of runs with consecutive counters, then one column with the UTF-8 of every inserted run.

/// Header bits of a delta run. Insertions: bit 0 clear, bits 1-2 originLeft mode, bits 3-4
/// originRight mode, bit 5 tombstone (no content), bit 6 Lamport jump, length minus one from bit
/// 7. Deletions: bit 0 set, bit 1 reversed, bit 2 Lamport jump, length minus one from bit 3.
enum DeltaRunHeader {
    static let deletion: UInt64 = 1 << 0
    static let insertionTombstone: UInt64 = 1 << 5
    static let insertionLamportJump: UInt64 = 1 << 6
    static let insertionLengthShift: UInt64 = 7
    static let deletionReversed: UInt64 = 1 << 1
    static let deletionLamportJump: UInt64 = 1 << 2
    static let deletionLengthShift: UInt64 = 3
}

extension TextDelta {
    /// The current format version of a text delta.
    static let formatVersion: UInt8 = 1

    /// The delta as bytes (layout in FORMAT.md). Equal deltas encode to equal bytes.
    ///
    /// - Complexity: O(k + c) for k runs and c bytes of content.
    public func encoded() -> [UInt8] {
        BlobEnvelope.seal(kind: .textDelta, version: Self.formatVersion, body: encodedBody())
    }

    /// The body of the delta encoding, without its envelope (a notebook delta embeds it).
    package func encodedBody() -> [UInt8] {
        let (groupReplicas, extras) = replicaTable()
        let table = groupReplicas + extras
        var tableIndex: [ReplicaID: Int] = [:]
        for (index, id) in table.enumerated() { tableIndex[id] = index }

        var body = ByteWriter()
        body.varint(groupReplicas.count << 2 | min(extras.count, 3))
        if extras.count >= 3 { body.varint(extras.count - 3) }
        for id in table { body.uint64LittleEndian(id.rawValue) }
        var contentColumn: [UInt8] = []
        var runIndex = 0
        for (groupIndex, replica) in groupReplicas.enumerated() {
            var groupEnd = runIndex
            while groupEnd < runs.count && runs[groupEnd].replica == replica { groupEnd += 1 }
            let first = runs[runIndex]
            body.varint(first.counter)
            body.signedVarint(Int64(first.lamport) - Int64(first.counter))
            body.varint(groupEnd - runIndex)
            var expectedLamport = first.lamport
            for run in runs[runIndex..<groupEnd] {
                let jump = run.lamport != expectedLamport
                var fields = ByteWriter()
                let header = Self.encodeRun(
                    run, groupIndex: groupIndex, lamportJumps: jump, tableIndex: tableIndex, fields: &fields,
                    contentColumn: &contentColumn)
                body.varint(header)
                if jump { body.signedVarint(Int64(run.lamport) - Int64(expectedLamport)) }
                body.append(contentsOf: fields.bytes)
                expectedLamport = run.lamport + UInt64(run.length)
            }
            runIndex = groupEnd
        }
        body.append(contentsOf: contentColumn)
        return body.bytes
    }

    /// The replica table: the replicas with runs, in the order of their groups, then the
    /// replicas only referred to (origins, deletion targets), sorted.
    private func replicaTable() -> (groupReplicas: [ReplicaID], extras: [ReplicaID]) {
        var groupReplicas: [ReplicaID] = []
        for run in runs where groupReplicas.last != run.replica { groupReplicas.append(run.replica) }
        let groupSet = Set(groupReplicas)
        var extraSet = Set<ReplicaID>()
        for run in runs {
            switch run.kind {
            case let .insertion(originLeft, originRight, _):
                if let originLeft, !groupSet.contains(originLeft.replica) { extraSet.insert(originLeft.replica) }
                if case let .item(id) = originRight, !groupSet.contains(id.replica) { extraSet.insert(id.replica) }
            case let .deletion(target, _):
                if !groupSet.contains(target.replica) { extraSet.insert(target.replica) }
            }
        }
        return (groupReplicas, extraSet.sorted())
    }

    /// Writes the fields of `run`, of the group `groupIndex` (its replica's index in the table),
    /// into `fields` and its content (if any) onto `contentColumn`; returns its header.
    private static func encodeRun(
        _ run: Run, groupIndex: Int, lamportJumps jump: Bool, tableIndex: [ReplicaID: Int], fields: inout ByteWriter,
        contentColumn: inout [UInt8]
    ) -> UInt64 {
        var header: UInt64
        switch run.kind {
        case let .insertion(originLeft, originRight, content):
            var leftMode = OriginMode.leftExplicit
            if originLeft == nil {
                leftMode = OriginMode.leftStart
            } else if originLeft == OperationID(replica: run.replica, counter: run.counter &- 1) {
                leftMode = OriginMode.leftPrevious
            }
            var rightMode = OriginMode.rightExplicit
            switch originRight {
            case .end: rightMode = OriginMode.rightEnd
            case .inherited: rightMode = OriginMode.rightInherited
            case let .item(id):
                if let originLeft, id.replica == originLeft.replica, id.counter == originLeft.counter &+ 1 {
                    rightMode = OriginMode.rightSuccessor
                }
            }
            header = UInt64(run.length - 1) << DeltaRunHeader.insertionLengthShift
                | UInt64(leftMode) << 1 | UInt64(rightMode) << 3
            if content == nil { header |= DeltaRunHeader.insertionTombstone }
            if jump { header |= DeltaRunHeader.insertionLamportJump }
            if leftMode == OriginMode.leftExplicit {
                writeReference(originLeft!, of: run, groupIndex: groupIndex, tableIndex: tableIndex, into: &fields)
            }
            if rightMode == OriginMode.rightExplicit, case let .item(id) = originRight {
                writeReference(id, of: run, groupIndex: groupIndex, tableIndex: tableIndex, into: &fields)
            }
            if let content { contentColumn.append(contentsOf: content) }
        case let .deletion(target, isReversed):
            header = UInt64(run.length - 1) << DeltaRunHeader.deletionLengthShift | DeltaRunHeader.deletion
            if isReversed { header |= DeltaRunHeader.deletionReversed }
            if jump { header |= DeltaRunHeader.deletionLamportJump }
            writeReference(target, of: run, groupIndex: groupIndex, tableIndex: tableIndex, into: &fields)
        }
        return header
    }

    /// An id a run refers to: its table index, then for the run's own replica the distance back
    /// from the run's counter (zigzag), else the counter.
    private static func writeReference(
        _ id: OperationID, of run: Run, groupIndex: Int, tableIndex: [ReplicaID: Int], into writer: inout ByteWriter
    ) {
        let index = tableIndex[id.replica]!
        writer.varint(index)
        if index == groupIndex {
            writer.signedVarint(Int64(run.counter) - Int64(id.counter))
        } else {
            writer.varint(id.counter)
        }
    }

    /// Decodes a delta written by ``encoded()``.
    ///
    /// - Throws: `DecodingError` for any input that is not such a delta (bad envelope or
    ///   checksum, truncation, counts past the bytes left, references outside the table,
    ///   content that is not UTF-8 or does not match the runs).
    /// - Complexity: O(b) for b bytes.
    public init(decoding bytes: [UInt8]) throws(DecodingError) {
        let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .textDelta, versions: 1...Self.formatVersion)
        try self.init(decodingBody: bytes, range: bodyRange)
    }

    /// Decodes a delta body (version 1) found at `range` of `bytes`.
    package init(decodingBody bytes: [UInt8], range bodyRange: Range<Int>) throws(DecodingError) {
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        let (table, groupCount) = try Self.readReplicaTable(&reader)
        var runsReader = DeltaRunsReader(
            table: table, groupCount: groupCount, operationsMax: max(1 << 20, 256 * bodyRange.count))
        for groupIndex in 0..<groupCount {
            try runsReader.readGroup(groupIndex, from: &reader)
        }
        guard runsReader.referencedExtras.count == table.count - groupCount else {
            throw .malformed("a listed replica is never referred to")
        }
        // The content column: the rest of the body.
        let column = try reader.range(count: reader.remaining)
        try runsReader.fillContent(from: bytes, column: column)
        self.init(runs: runsReader.runs)
    }

    /// The replica table of a delta body: the replicas with runs (one group each), then the
    /// extra ones (sorted), each id once. Returns the table and the number of groups.
    private static func readReplicaTable(_ reader: inout ByteReader) throws(DecodingError) -> (table: [ReplicaID], groupCount: Int) {
        let tableHeader = try reader.count(max: reader.remaining * 4, "replica table header")
        let groupCount = tableHeader >> 2
        var extraCount = tableHeader & 3
        if extraCount == 3 { extraCount += try reader.count(max: reader.remaining / 8, "extra replica count") }
        let replicaCount = groupCount + extraCount
        guard replicaCount <= reader.remaining / 8, replicaCount <= Limits.replicasPerTextMax else {
            throw .malformed("replica table larger than the input")
        }
        var table: [ReplicaID] = []
        for index in 0..<replicaCount {
            let id = ReplicaID(try reader.uint64LittleEndian())
            if index != groupCount, let last = table.last, last >= id {
                throw .malformed("replica ids are not strictly ascending")
            }
            table.append(id)
        }
        guard Set(table).count == table.count else { throw .malformed("a replica is listed twice") }
        return (table, groupCount)
    }
}

/// The runs of a delta body as they are read, group by group, and checked: each number before
/// it meets another (a hostile delta may hold any 64-bit value where a small one belongs).
private struct DeltaRunsReader {
    typealias Run = TextDelta.Run

    let table: [ReplicaID]
    let groupCount: Int
    /// A decoder safety limit: the operations a body of this size may describe.
    let operationsMax: Int
    private var totalOperations = 0
    private(set) var runs: [Run] = []
    /// Content lengths are known only in scalars; bytes are matched after the runs.
    private var contentScalars: [(run: Int, scalars: UInt32)] = []
    /// The extra replicas (not a group's) referred to so far: all must be.
    private(set) var referencedExtras = Set<Int>()

    init(table: [ReplicaID], groupCount: Int, operationsMax: Int) {
        self.table = table
        self.groupCount = groupCount
        self.operationsMax = operationsMax
    }

    /// Reads the group of runs of replica `groupIndex`: its first counter and Lamport offset,
    /// its run count, then each run's header, Lamport jump and fields.
    mutating func readGroup(_ groupIndex: Int, from reader: inout ByteReader) throws(DecodingError) {
        let replica = table[groupIndex]
        var counter = try reader.uint32Varint("first counter")
        guard counter < Limits.operationsPerReplicaMax else { throw .malformed("first counter \(counter) past the limit") }
        let (start, startOverflow) = Int64(counter).addingReportingOverflow(try reader.signedVarint())
        guard !startOverflow else { throw .malformed("Lamport timestamp overflows") }
        var lamport = start
        let runCount = try reader.count(max: reader.remaining, "run count")
        guard runCount > 0 else { throw .malformed("empty group") }
        for _ in 0..<runCount {
            let header = try reader.varint()
            let isDeletion = header & DeltaRunHeader.deletion != 0
            let jump = header & (isDeletion ? DeltaRunHeader.deletionLamportJump : DeltaRunHeader.insertionLamportJump) != 0
            let lengthMinusOne = header >> (isDeletion ? DeltaRunHeader.deletionLengthShift : DeltaRunHeader.insertionLengthShift)
            guard lengthMinusOne < UInt64(Limits.operationsPerReplicaMax) - UInt64(counter) else {
                throw .malformed("run past the largest counter")
            }
            let length = UInt32(lengthMinusOne) + 1
            totalOperations += Int(length)
            guard totalOperations <= operationsMax else { throw .malformed("more operations than the decoder accepts for this size") }
            if jump {
                let change = try reader.signedVarint()
                guard change != 0 else { throw .malformed("empty Lamport jump") }
                let (jumped, overflow) = lamport.addingReportingOverflow(change)
                guard !overflow else { throw .malformed("Lamport timestamp overflows") }
                lamport = jumped
            }
            guard lamport >= 1 && lamport < Int64(1) << 62 else { throw .malformed("Lamport timestamp \(lamport)") }
            let kind: Run.Kind
            if isDeletion {
                guard header & 0b10 == 0 || length > 1 else { throw .malformed("a single deletion marked reversed") }
                let target = try readReference(&reader, group: groupIndex, counter: counter)
                guard UInt64(target.counter) + UInt64(length) <= UInt64(Limits.operationsPerReplicaMax) else {
                    throw .malformed("deletion target past the largest counter")
                }
                kind = .deletion(target: target, isReversed: header & DeltaRunHeader.deletionReversed != 0)
            } else {
                kind = try readInsertion(&reader, header: header, length: length, group: groupIndex, counter: counter)
            }
            runs.append(Run(replica: replica, counter: counter, lamport: UInt64(lamport), length: length, kind: kind))
            counter += length
            lamport += Int64(length)
        }
    }

    /// The origins of an insertion run of group `group` at `counter` (by the modes in its
    /// header); a run with content has its length in scalars noted for ``fillContent(from:column:)``.
    private mutating func readInsertion(
        _ reader: inout ByteReader, header: UInt64, length: UInt32, group: Int, counter: UInt32
    ) throws(DecodingError) -> Run.Kind {
        let leftMode = UInt8((header >> 1) & 3)
        let rightMode = UInt8((header >> 3) & 3)
        var originLeft: OperationID?
        switch leftMode {
        case OriginMode.leftStart: originLeft = nil
        case OriginMode.leftPrevious:
            guard counter > 0 else { throw .malformed("no previous operation") }
            originLeft = OperationID(replica: table[group], counter: counter - 1)
        case OriginMode.leftExplicit: originLeft = try readReference(&reader, group: group, counter: counter)
        default: throw .malformed("originLeft mode \(leftMode)")
        }
        var originRight: TextDelta.RightOrigin
        switch rightMode {
        case OriginMode.rightEnd: originRight = .end
        case OriginMode.rightSuccessor:
            guard let originLeft, originLeft.counter < Limits.operationsPerReplicaMax else {
                throw .malformed("successor of the start")
            }
            originRight = .item(OperationID(replica: originLeft.replica, counter: originLeft.counter + 1))
        case OriginMode.rightInherited:
            guard originLeft != nil else { throw .malformed("inherited origin of the start") }
            originRight = .inherited
        default: originRight = .item(try readReference(&reader, group: group, counter: counter))
        }
        let hasContent = header & DeltaRunHeader.insertionTombstone == 0
        if hasContent { contentScalars.append((runs.count, length)) }
        return .insertion(originLeft: originLeft, originRight: originRight, content: hasContent ? [] : nil)
    }

    /// An id a run of group `group` at `counter` refers to: its table index, then the distance
    /// back from `counter` for the group's own replica, else the counter.
    private mutating func readReference(_ reader: inout ByteReader, group: Int, counter: UInt32) throws(DecodingError) -> OperationID {
        let index = try reader.count(max: table.count - 1, "replica index")
        if index >= groupCount { referencedExtras.insert(index) }
        let target: Int64
        if index == group {
            let (difference, overflow) = Int64(counter).subtractingReportingOverflow(try reader.signedVarint())
            guard !overflow else { throw .malformed("reference overflows") }
            target = difference
        } else {
            target = Int64(try reader.uint32Varint("counter"))
        }
        guard target >= 0 && target < Int64(Limits.operationsPerReplicaMax) else {
            throw .malformed("reference to counter \(target)")
        }
        return OperationID(replica: table[index], counter: UInt32(target))
    }

    /// Gives each insertion run with content its bytes from the content column (`column` of
    /// `bytes`), which they must use up exactly.
    mutating func fillContent(from bytes: [UInt8], column: Range<Int>) throws(DecodingError) {
        guard UTF8Scanning.isValid(bytes[column]) else { throw .malformed("content is not valid UTF-8") }
        var position = column.lowerBound
        for (runIndex, scalars) in contentScalars {
            let start = position
            for _ in 0..<scalars {
                guard position < column.upperBound else { throw .malformed("content shorter than the runs") }
                position += UTF8Scanning.scalarLength(lead: bytes[position])
            }
            guard case let .insertion(originLeft, originRight, _) = runs[runIndex].kind else { preconditionFailure() }
            runs[runIndex].kind = .insertion(
                originLeft: originLeft, originRight: originRight, content: Array(bytes[start..<position]))
        }
        guard position == column.upperBound else { throw .malformed("content longer than the runs") }
    }
}
