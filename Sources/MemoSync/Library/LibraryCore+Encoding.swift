import MemoCRDT
import MemoNotes

// The local files' encodings (FORMAT.md, "Local library"). Both are MemoSync envelopes of kind 6
// ("local file"), version 4 (versions 1 to 3 are read); since version 4 each journal record's
// envelope is framed (`LibraryJournal`):
//
//     state:   tag 1 | generation (varint) | replica id (u64 LE) | sync state (length-prefixed)
//              | notebook state (length-prefixed; its own envelope, kind 3)
//     record:  tag 2 | generation (varint) | notebook delta (length-prefixed; kind 4)
//              | 0, or 1 and the sync state (length-prefixed) when it changed, or (version 5
//              only) 2, which of its parts are as before (heads, blobs found bad), and the
//              sync state without them
//
// A sync state (format version 2): last sync (ms), operations at last snapshot (varints); the
// lineage: a count, then per id (oldest session first) the id (u64 LE) and its published operations
// (varint); own segment count, then each key (length-prefixed UTF-8); own snapshot count, then
// each key, written-at (ms), and its lineage version (a count, then id and operations per entry).

extension LibraryCore {
    /// A state file decoded (``decodeState(_:checksBesideFromBytes:)``).
    package struct DecodedState {
        package var generation: UInt64
        package var notebook: Notebook
        package var syncState: SyncState
        /// The envelope version it was written in.
        package var version: UInt8
    }

    /// The state file of `notebook` and the state list beside it (FORMAT.md, "State list"):
    /// a list for a state of `listFromBytes` or more, else none.
    ///
    /// - Throws: ``ReplicaError`` when a memo's text, still in the current state file, cannot be
    ///   read from it or fails its check (the file was damaged since the open): nothing is written.
    static func encodeState(
        generation: UInt64, notebook: Notebook, syncState: SyncState, listFromBytes: Int = stateListWorthBytes
    ) throws(ReplicaError) -> (state: [UInt8], list: [UInt8]?) {
        let file = StateFileWrapping(generation: generation, replica: notebook.replica, syncState: syncState)
        var outline: NotebookStateOutline? = NotebookStateOutline()
        let state: [UInt8]
        do throws(NotebookError) {
            state = try notebook.encoded(headroom: file.headroom, wrap: file.wrap, outline: &outline)
        } catch {
            throw ReplicaError(error)
        }
        guard state.count >= listFromBytes else { return (state, nil) }
        return (state, encodeStateList(state: state, file: file, generation: generation, notebook: notebook, outline: outline!))
    }

    /// ``encodeState(generation:notebook:syncState:listFromBytes:)`` (the same bytes), keeping the memos'
    /// encoded text bodies in `notebook` (``Notebook/encodedKeepingTextBodies()``).
    static func encodeState(
        generation: UInt64, keepingTextBodiesOf notebook: inout Notebook, syncState: SyncState, listFromBytes: Int = stateListWorthBytes
    ) throws(ReplicaError) -> (state: [UInt8], list: [UInt8]?) {
        let file = StateFileWrapping(generation: generation, replica: notebook.replica, syncState: syncState)
        var outline: NotebookStateOutline? = NotebookStateOutline()
        let state: [UInt8]
        do throws(NotebookError) {
            state = try notebook.encodedKeepingTextBodies(headroom: file.headroom, wrap: file.wrap, outline: &outline)
        } catch {
            throw ReplicaError(error)
        }
        guard state.count >= listFromBytes else { return (state, nil) }
        return (state, encodeStateList(state: state, file: file, generation: generation, notebook: notebook, outline: outline!))
    }

    /// The state list of the state file `state` (FORMAT.md, "State list"): the state file's
    /// size and checksum (what ties the list to it), its generation, replica and sync state, and
    /// the notebook's list (``Notebook/stateList(ofState:outline:)``).
    private static func encodeStateList(
        state: [UInt8], file: StateFileWrapping, generation: UInt64, notebook: Notebook, outline: NotebookStateOutline
    ) -> [UInt8] {
        var body = ByteWriter()
        body.byte(stateListTag)
        body.uint64LittleEndian(UInt64(state.count))
        body.append(contentsOf: state.suffix(4))
        body.append(contentsOf: file.fields.dropFirst())  // generation, replica, sync state
        body.lengthPrefixed(notebook.stateList(ofState: state, outline: outline))
        return BlobEnvelope.seal(kind: .localFile, version: formatVersion, body: body.bytes)
    }

    /// The state file described by the state list `listBytes`, its memos' texts left in the
    /// file `state` reads: nil when the list is damaged, of another version, or describes
    /// another file than `state` (its size and checksum differ), or the state is smaller than
    /// `minimumBytes` (the disk's ``LibraryDisk/stateListMinimumBytes``). The caller then reads
    /// the state file whole (``decodeState(_:checksBesideFromBytes:)``).
    package static func decodeState(
        list listBytes: [UInt8], state: any LibraryFileReader, minimumBytes: Int = stateListWorthBytes
    ) -> DecodedState? {
        guard state.sizeBytes >= max(4, minimumBytes) else { return nil }
        do throws(DecodingError) {
            let frame = try BlobEnvelope.Frame(listBytes, in: listBytes.indices, kind: .localFile, versions: formatVersion...formatVersion)
            try frame.checkChecksum(CRC32C.checksum(listBytes, frame.checksummed))
            var reader = ByteReader(listBytes, from: frame.body.lowerBound, to: frame.body.upperBound)
            guard try reader.byte() == stateListTag else { return nil }
            let stateBytes = try reader.uint64LittleEndian()
            let checksum = try reader.range(count: 4)
            guard stateBytes == UInt64(state.sizeBytes), stateBytes >= 4,
                let trailer = try? state.read(offset: Int(stateBytes) - 4, count: 4), trailer.elementsEqual(listBytes[checksum])
            else { return nil }
            let generation = try reader.varint()
            guard generation <= maxGeneration else { return nil }
            let replica = ReplicaID(try reader.uint64LittleEndian())
            let syncRange = try reader.lengthPrefixedRange()
            let notebookRange = try reader.lengthPrefixedRange()
            guard reader.isAtEnd else { return nil }
            let syncState = try decodeSyncState(Array(listBytes[syncRange]), version: formatVersion, replica: replica)
            let notebook = try Notebook(
                decodingStateList: listBytes, range: notebookRange, source: StateFileBodySource(file: state), fileBytes: state.sizeBytes,
                replica: replica)
            return DecodedState(generation: generation, notebook: notebook, syncState: syncState, version: formatVersion)
        } catch {
            return nil
        }
    }

    /// A state file around a notebook's state, built in the notebook state's own buffer: the
    /// file's header and fields go into the room the notebook's encoder leaves before its state,
    /// the file's checksum after it, combined from the checksums of the pieces (the state is
    /// read once, for its own checksum). The bytes are those of sealing the fields and the state
    /// (FORMAT.md, "Local library"); `StateFileEncodingTests` compares the two.
    struct StateFileWrapping {
        /// The file's body up to the notebook state: tag, generation, replica, sync state.
        let fields: [UInt8]

        init(generation: UInt64, replica: ReplicaID, syncState: SyncState) {
            var fields = ByteWriter()
            fields.byte(stateTag)
            fields.varint(generation)
            fields.uint64LittleEndian(replica.rawValue)
            fields.lengthPrefixed(encodeSyncState(syncState))
            self.fields = fields.bytes
        }

        /// Room for the file's header, the fields and the state's length before the state's own
        /// header (a varint of a length at most 2^30: 5 bytes).
        var headroom: Int { BlobEnvelope.headerBytesMax + fields.count + 5 + BlobEnvelope.headerBytesMax }

        func wrap(_ bytes: inout [UInt8], envelopeStart: Int, envelopeChecksum: UInt32) -> Int {
            let envelopeCount = bytes.count - envelopeStart
            var prefix = fields
            var length = ByteWriter()
            length.varint(envelopeCount)
            prefix.append(contentsOf: length.bytes)
            let header = BlobEnvelope.header(kind: .localFile, version: formatVersion, bodyCount: prefix.count + envelopeCount)
            let start = envelopeStart - prefix.count - header.count
            bytes.replaceSubrange(start..<envelopeStart, with: header + prefix)
            // The file's checksum: of its header and fields, then of the state's header and body,
            // then of the state's 4 checksum bytes.
            var checksumBytes: [UInt8] = []
            BlobEnvelope.appendLittleEndian(envelopeChecksum, to: &checksumBytes)
            let beforeState = CRC32C.checksum(bytes, start..<envelopeStart)
            let throughBody = CRC32C.combine(beforeState, envelopeChecksum, secondLength: envelopeCount - 4)
            let checksum = CRC32C.combine(throughBody, CRC32C.checksum(checksumBytes, checksumBytes.indices), secondLength: 4)
            BlobEnvelope.appendLittleEndian(checksum, to: &bytes)
            return start
        }
    }

    /// The largest generation a state file may name (2^62): each compaction adds one, so no
    /// library written by MemoSync comes near it, and the next compaction's never overflows.
    static let maxGeneration: UInt64 = 1 << 62

    /// The state file `bytes` decoded, or why it cannot be.
    ///
    /// `checksBesideFromBytes`: the smallest file whose checks run beside its decoding
    /// (LibraryCore+OpenChecks.swift); tests and the `library-state` fuzz target set it to
    /// compare both ways.
    package static func decodeState(_ bytes: [UInt8], checksBesideFromBytes: Int = openChecksBesideBytesMin) throws(ReplicaError) -> DecodedState {
        let file = stateFileName
        do throws(DecodingError) {
            // The file's checksum covers the notebook state inside it, which has its own: both
            // are checked in one pass (the state's CRC, then the file's combined from the pieces
            // around it), and the state is decoded where it is, not copied out (issue 28: the
            // second pass and the copy were a quarter of opening 10,000 memos). Whatever is
            // wrong, the file's checksum is checked first, as a plain open of the file would.
            let frame = try BlobEnvelope.Frame(bytes, in: bytes.indices, kind: .localFile, versions: 1...formatVersion)
            let layout: (generation: UInt64, replica: ReplicaID, sync: Range<Int>, notebook: Range<Int>, notebookFrame: BlobEnvelope.Frame)
            do throws(DecodingError) {
                var reader = ByteReader(bytes, from: frame.body.lowerBound, to: frame.body.upperBound)
                guard try reader.byte() == stateTag else { throw DecodingError.malformed("not a state file") }
                let generation = try reader.varint()
                // Each compaction adds one: a count no library reaches, and room for the next.
                guard generation <= maxGeneration else { throw DecodingError.malformed("generation \(generation) out of range") }
                let replica = ReplicaID(try reader.uint64LittleEndian())
                let syncRange = try reader.lengthPrefixedRange()
                let notebookRange = try reader.lengthPrefixedRange()
                guard reader.isAtEnd else { throw DecodingError.trailingBytes(count: reader.remaining) }
                layout = (generation, replica, syncRange, notebookRange, try Notebook.stateFrame(bytes, in: notebookRange))
            } catch {
                try frame.checkChecksum(CRC32C.checksum(bytes, frame.checksummed))
                throw error
            }
            let version = frame.version
            if bytes.count >= checksBesideFromBytes, layout.notebookFrame.version >= 2 {
                // The checks on a thread of their own, beside the decoding (LibraryCore+OpenChecks.swift).
                let unchecked = UncheckedTexts()
                let notebookFrame = layout.notebookFrame
                let (decoded, found) = decodingWithChecksBeside({ () -> Result<(SyncState, Notebook), DecodingError> in
                    do throws(DecodingError) {
                        let syncState = try decodeSyncState(Array(bytes[layout.sync]), version: version, replica: layout.replica)
                        let notebook = try Notebook(
                            decoding: bytes, checkedFrame: notebookFrame, replica: layout.replica, leavingTextsTo: unchecked)
                        return .success((syncState, notebook))
                    } catch {
                        return .failure(error)
                    }
                }, check: { openChecks(bytes, file: frame, notebook: notebookFrame) })
                try frame.checkChecksum(found.fileChecksum)
                try layout.notebookFrame.checkChecksum(found.notebookChecksum)
                if found.textsAreValid, found.textRanges == unchecked.ranges {
                    let (syncState, notebook) = try decoded.get()
                    return DecodedState(generation: layout.generation, notebook: notebook, syncState: syncState, version: version)
                }
                // Else decoded again below, each text checked as it is read: the refusal a
                // decoding on one thread gives.
            }
            let checksums = stateChecksums(bytes, file: frame, notebook: layout.notebookFrame)
            try frame.checkChecksum(checksums.file)
            try layout.notebookFrame.checkChecksum(checksums.notebook)
            let syncState = try decodeSyncState(Array(bytes[layout.sync]), version: version, replica: layout.replica)
            let notebook = try Notebook(decoding: bytes, checkedFrame: layout.notebookFrame, replica: layout.replica)
            return DecodedState(generation: layout.generation, notebook: notebook, syncState: syncState, version: version)
        } catch let .unsupportedVersion(kind, version) {
            throw .unknownLibraryVersion(file: file, kind: kind, version: version)
        } catch {
            throw .corruptLibrary(file: file, reason: error.description)
        }
    }

    /// A journal record, framed (FORMAT.md, "Journal records and their frames"). With
    /// `partsAsBefore` not empty, its sync state leaves those parts out (they are those of the
    /// sync state in effect before it: `hasSyncState` 2, record version 5).
    static func encodeRecord(
        generation: UInt64, delta: NotebookDelta, syncState: SyncState?, partsAsBefore: SyncState.Parts = []
    ) -> [UInt8] {
        let deltaBytes = delta.encoded()
        var body = ByteWriter(capacity: deltaBytes.count + 64)
        body.byte(recordTag)
        body.varint(generation)
        body.lengthPrefixed(deltaBytes)
        var version = formatVersion
        if let syncState, !partsAsBefore.isEmpty {
            body.byte(2)
            body.byte(partsAsBefore.rawValue)
            body.lengthPrefixed(encodeSyncState(syncState, omitting: partsAsBefore))
            version = recordVersionWithPartsAsBefore
        } else if let syncState {
            body.byte(1)
            body.lengthPrefixed(encodeSyncState(syncState))
        } else {
            body.byte(0)
        }
        return LibraryJournal.frame(BlobEnvelope.seal(kind: .localFile, version: version, body: body.bytes))
    }

    /// A journal record decoded: its delta, its sync state if it has one, and the parts of that
    /// sync state that are those in effect before the record (left out of it).
    package struct DecodedRecord {
        package var delta: NotebookDelta
        package var syncState: SyncState?
        package var partsAsBefore: SyncState.Parts = []
    }

    /// The record whose envelope body is `journal[body]`, or nil when it is not a record of
    /// `generation` (another tag or generation, a delta or sync state that does not decode).
    package static func decodeRecordBody(
        _ journal: [UInt8], _ body: Range<Int>, version: UInt8, generation: UInt64, replica: ReplicaID
    ) -> DecodedRecord? {
        do throws(DecodingError) {
            var reader = ByteReader(journal, from: body.lowerBound, to: body.upperBound)
            guard try reader.byte() == recordTag, try reader.varint() == generation else { return nil }
            let deltaRange = try reader.lengthPrefixedRange()
            let delta = try NotebookDelta(decoding: Array(journal[deltaRange]))
            var record = DecodedRecord(delta: delta)
            switch try reader.byte() {
            case 0: break
            case 1: record.syncState = try decodeSyncState(Array(journal[try reader.lengthPrefixedRange()]), version: version, replica: replica)
            case 2 where version >= recordVersionWithPartsAsBefore:
                let parts = SyncState.Parts(rawValue: try reader.byte())
                guard !parts.isEmpty, parts.isSubset(of: .all) else { return nil }
                record.syncState = try decodeSyncState(
                    Array(journal[try reader.lengthPrefixedRange()]), version: version, replica: replica, omitting: parts)
                record.partsAsBefore = parts
            default: return nil
            }
            guard reader.isAtEnd else { return nil }
            return record
        } catch {
            return nil
        }
    }

    /// The sync state's bytes (version 4), without the parts `omitting` names (a record's
    /// `hasSyncState` 2).
    static func encodeSyncState(_ state: SyncState, omitting: SyncState.Parts = []) -> [UInt8] {
        var writer = ByteWriter()
        writer.varint(state.lastSyncMilliseconds)
        writer.varint(state.operationsAtLastSnapshot)
        writer.varint(state.lineage.count)
        for id in state.lineage {
            writer.uint64LittleEndian(id.rawValue)
            writer.varint(state.published[id])
        }
        writer.varint(state.ownSegments.count)
        for key in state.ownSegments { writer.lengthPrefixed(Array(key.utf8)) }
        writer.varint(state.ownSnapshots.count)
        for snapshot in state.ownSnapshots {
            writer.lengthPrefixed(Array(snapshot.key.utf8))
            writer.varint(snapshot.writtenAtMilliseconds)
            writer.versionVector(snapshot.version)
        }
        // Version 3: heads and read snapshots (unless left out).
        func head(_ known: SyncState.KnownHead) {
            writer.uint64LittleEndian(known.replica.rawValue)
            writer.lengthPrefixed(Array(known.key.utf8))
            writer.lengthPrefixed(known.head.encoded())
        }
        if !omitting.contains(.heads) {
            if let own = state.ownHead {
                writer.byte(1)
                head(own)
            } else {
                writer.byte(0)
            }
            writer.varint(state.otherHeads.count)
            for other in state.otherHeads { head(other) }
            writer.varint(state.readSnapshots.count)
            for snapshot in state.readSnapshots {
                writer.lengthPrefixed(Array(snapshot.key.utf8))
                writer.versionVector(snapshot.version)
            }
        }
        guard !omitting.contains(.blobsFoundBad) else { return writer.bytes }
        // Version 4: the blobs found bad (FORMAT.md, "Blobs found bad"), keys ascending by
        // their UTF-8 bytes, each written as what it shares with the one before and the rest.
        writer.varint(StoreLayout.readerGeneration)
        let skipped = state.skippedBlobs.map { (key: Array($0.key.utf8), memory: $0.value) }.sorted { $0.key.precedesBytes($1.key) }
        writer.varint(skipped.count)
        var previous: [UInt8] = []
        for (key, memory) in skipped {
            var shared = 0
            while shared < min(previous.count, key.count), previous[shared] == key[shared] { shared += 1 }
            writer.varint(shared)
            writer.lengthPrefixed(Array(key[shared...]))
            writer.varint(memory.sizeBytes)
            writer.uint64LittleEndian(memory.revisionHash)
            writer.byte(memory.reasonCode)
            if memory.isConfirmed {
                writer.byte(1)
            } else {
                writer.byte(0)
                writer.uint64LittleEndian(memory.evidence)
            }
            previous = key
        }
        return writer.bytes
    }

    /// Decodes a sync state; `replica` is the state file's replica id, which version 1 (before
    /// lineages) kept its published operations and snapshots under.
    /// `omitting`: the parts a record's `hasSyncState` 2 left out (version 5 only).
    static func decodeSyncState(
        _ bytes: [UInt8], version: UInt8, replica: ReplicaID, omitting: SyncState.Parts = []
    ) throws(DecodingError) -> SyncState {
        if version == 1 { return try decodeSyncStateVersion1(bytes, replica: replica) }
        var input = SyncStateReader(bytes)
        var state = SyncState()
        state.lastSyncMilliseconds = try input.reader.varint()
        state.operationsAtLastSnapshot = try input.reader.varint()
        for (id, published) in try input.versionEntries("lineage", ascending: false) {
            state.lineage.append(id)
            state.published[id] = published
        }
        state.ownSegments = try input.keys("segment count")
        let snapshotCount = try input.reader.count(max: input.reader.remaining, "snapshot count")
        for _ in 0..<snapshotCount {
            let snapshotKey = try input.key()
            let writtenAt = try input.reader.varint()
            let covered = try input.versionEntries("snapshot lineage version")
            state.ownSnapshots.append(
                SyncState.OwnSnapshot(
                    key: snapshotKey,
                    version: VersionVector(entries: covered.filter { $0.1 > 0 }.map { VersionVector.Entry(replica: $0.0, operationCount: $0.1) }),
                    writtenAtMilliseconds: writtenAt))
        }
        if version >= 3 && !omitting.contains(.heads) { try input.readHeadsAndReadSnapshots(into: &state) }
        if version >= 4 && !omitting.contains(.blobsFoundBad) { try input.readSkippedBlobs(into: &state) }
        guard input.reader.isAtEnd else { throw .trailingBytes(count: input.reader.remaining) }
        return state
    }

    /// Version 1: published operations, last sync (ms), operations at last snapshot (varints);
    /// own segment count, then each key; own snapshot count, then each key, own operations and
    /// written-at (ms). Everything was under the one replica id, which becomes the lineage.
    static func decodeSyncStateVersion1(_ bytes: [UInt8], replica: ReplicaID) throws(DecodingError) -> SyncState {
        var input = SyncStateReader(bytes)
        var state = SyncState()
        let published = try input.reader.uint32Varint("published operations")
        state.lastSyncMilliseconds = try input.reader.varint()
        state.operationsAtLastSnapshot = try input.reader.varint()
        state.lineage = [replica]
        state.published[replica] = published
        state.ownSegments = try input.keys("segment count")
        let snapshotCount = try input.reader.count(max: input.reader.remaining, "snapshot count")
        for _ in 0..<snapshotCount {
            let snapshotKey = try input.key()
            let ownOperations = try input.reader.uint32Varint("own operations")
            let writtenAt = try input.reader.varint()
            var covered = VersionVector()
            covered[replica] = ownOperations
            state.ownSnapshots.append(SyncState.OwnSnapshot(key: snapshotKey, version: covered, writtenAtMilliseconds: writtenAt))
        }
        guard input.reader.isAtEnd else { throw .trailingBytes(count: input.reader.remaining) }
        return state
    }
}

/// The parts a sync state is made of (store keys, version entries, heads), read from its bytes.
private struct SyncStateReader {
    let bytes: [UInt8]
    var reader: ByteReader

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.reader = ByteReader(bytes)
    }

    /// A length-prefixed key that parses as a store key.
    mutating func key() throws(DecodingError) -> String {
        let range = try reader.lengthPrefixedRange()
        guard let key = String(validating: bytes[range], as: UTF8.self), StoreLayout.parse(key) != nil else {
            throw .malformed("not a store key")
        }
        return key
    }

    /// A count, then that many keys.
    mutating func keys(_ what: String) throws(DecodingError) -> [String] {
        let count = try reader.count(max: reader.remaining, what)
        var keys: [String] = []
        for _ in 0..<count { keys.append(try key()) }
        return keys
    }

    /// Distinct replica ids (ascending when `ascending`) with their counts.
    mutating func versionEntries(_ what: String, ascending: Bool = true) throws(DecodingError) -> [(ReplicaID, UInt32)] {
        let count = try reader.count(max: reader.remaining / 9, what)
        var result: [(ReplicaID, UInt32)] = []
        var seen = Set<ReplicaID>()
        for _ in 0..<count {
            let id = ReplicaID(try reader.uint64LittleEndian())
            let operations = try reader.uint32Varint("operation count")
            if ascending, let last = result.last, last.0 >= id { throw .malformed("\(what): replica ids not ascending") }
            if !seen.insert(id).inserted { throw .malformed("\(what): a replica id twice") }
            result.append((id, operations))
        }
        return result
    }

    /// A head: its replica, its key (a head key of that replica) and its blob.
    mutating func head() throws(DecodingError) -> SyncState.KnownHead {
        let replica = ReplicaID(try reader.uint64LittleEndian())
        let headKey = try key()
        guard case .head(replica)? = StoreLayout.parse(headKey) else { throw .malformed("a head key of another replica") }
        let body = try reader.lengthPrefixedRange()
        return SyncState.KnownHead(replica: replica, key: headKey, head: try SyncHead(decoding: Array(bytes[body])))
    }

    /// What version 4 added: the reader generation, then the blobs found bad (keys strictly
    /// ascending, prefix-coded). Under another generation than this build's, they are read
    /// (checked) and forgotten.
    mutating func readSkippedBlobs(into state: inout SyncState) throws(DecodingError) {
        let generation = try reader.varint()
        let count = try reader.count(max: reader.remaining / 12, "skipped blob count")
        guard count <= SyncState.skippedBlobsMax else { throw .malformed("more skipped blobs than a library keeps") }
        var previous: [UInt8] = []
        var skipped: [String: SkipMemory] = [:]
        for index in 0..<count {
            let shared = try reader.count(max: previous.count, "shared key bytes")
            let rest = try reader.lengthPrefixedRange()
            let key = Array(previous[..<shared]) + Array(bytes[rest])
            guard !key.isEmpty, let text = String(validating: key, as: UTF8.self) else { throw .malformed("a skipped blob key that is not UTF-8") }
            guard index == 0 || previous.precedesBytes(key) else { throw .malformed("skipped blob keys not ascending") }
            // Canonical: the shared part is exactly what the key has in common with the one before.
            guard shared == previous.count || shared == key.count || previous[shared] != key[shared] else {
                throw .malformed("a skipped blob key sharing less than it could")
            }
            let sizeBytes = try reader.varint()
            guard sizeBytes <= UInt64(Int.max) else { throw .malformed("a skipped blob size out of range") }
            let revisionHash = try reader.uint64LittleEndian()
            let reasonCode = try reader.byte()
            guard (1...7).contains(reasonCode) else { throw .malformed("an unknown reason for a skipped blob") }
            let isConfirmed: Bool
            var evidence: UInt64 = 0
            switch try reader.byte() {
            case 0:
                isConfirmed = false
                evidence = try reader.uint64LittleEndian()
            case 1: isConfirmed = true
            default: throw .malformed("skipped blob: a flag other than 0 or 1")
            }
            skipped[text] = SkipMemory(sizeBytes: Int(sizeBytes), revisionHash: revisionHash, reasonCode: reasonCode, evidence: evidence, isConfirmed: isConfirmed)
            previous = key
        }
        if generation == StoreLayout.readerGeneration { state.skippedBlobs = skipped }
    }

    /// What version 3 added: the own head (a flag, then the head), other replicas' heads in
    /// ascending replica order, and the snapshots read, each with the version it holds.
    mutating func readHeadsAndReadSnapshots(into state: inout SyncState) throws(DecodingError) {
        switch try reader.byte() {
        case 0: break
        case 1: state.ownHead = try head()
        default: throw .malformed("own head: a flag other than 0 or 1")
        }
        let headCount = try reader.count(max: reader.remaining / 10, "head count")
        for _ in 0..<headCount {
            let other = try head()
            if let last = state.otherHeads.last, last.replica >= other.replica { throw .malformed("heads: replica ids not ascending") }
            state.otherHeads.append(other)
        }
        let snapshotReadCount = try reader.count(max: reader.remaining / 2, "read snapshot count")
        for _ in 0..<snapshotReadCount {
            let snapshotKey = try key()
            let entries = try versionEntries("read snapshot version")
            guard entries.allSatisfy({ $0.1 > 0 }) else { throw .malformed("read snapshot version: an entry of zero operations") }
            state.readSnapshots.append(
                SyncState.ReadSnapshot(
                    key: snapshotKey, version: VersionVector(entries: entries.map { VersionVector.Entry(replica: $0.0, operationCount: $0.1) })))
        }
    }
}
