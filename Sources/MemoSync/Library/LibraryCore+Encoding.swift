import MemoCRDT

// The local files' encodings (FORMAT.md, "Local library"). Both are MemoSync envelopes of kind 6
// ("local file"), version 1:
//
//     state:   tag 1 | generation (varint) | replica id (u64 LE) | sync state (length-prefixed)
//              | notebook state (length-prefixed; its own envelope, kind 3)
//     record:  tag 2 | generation (varint) | notebook delta (length-prefixed; kind 4)
//              | 0, or 1 and the sync state (length-prefixed) when it changed
//
// A sync state: published operations, last sync (ms), operations at last snapshot (varints);
// own segment count, then each key (length-prefixed UTF-8); own snapshot count, then each key,
// own operations and written-at (ms).

extension LibraryCore {
    struct DecodedState {
        var generation: UInt64
        var notebook: Notebook
        var syncState: SyncState
    }

    static func encodeState(generation: UInt64, notebook: Notebook, syncState: SyncState) -> [UInt8] {
        let notebookBytes = notebook.encoded()
        var body = ByteWriter(capacity: notebookBytes.count + 64)
        body.byte(stateTag)
        body.varint(generation)
        body.uint64LittleEndian(notebook.replica.rawValue)
        body.lengthPrefixed(encodeSyncState(syncState))
        body.lengthPrefixed(notebookBytes)
        return BlobEnvelope.seal(kind: .localFile, version: formatVersion, body: body.bytes)
    }

    static func decodeState(_ bytes: [UInt8]) throws(ReplicaError) -> DecodedState {
        let file = stateFileName
        do throws(DecodingError) {
            let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .localFile, versions: 1...formatVersion)
            var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
            guard try reader.byte() == stateTag else { throw DecodingError.malformed("not a state file") }
            let generation = try reader.varint()
            let replica = ReplicaID(try reader.uint64LittleEndian())
            let syncRange = try reader.lengthPrefixedRange()
            let syncState = try decodeSyncState(Array(bytes[syncRange]))
            let notebookRange = try reader.lengthPrefixedRange()
            guard reader.isAtEnd else { throw DecodingError.trailingBytes(count: reader.remaining) }
            let notebook = try Notebook(decoding: Array(bytes[notebookRange]), replica: replica)
            return DecodedState(generation: generation, notebook: notebook, syncState: syncState)
        } catch let .unsupportedVersion(kind, version) {
            throw .unknownLibraryVersion(file: file, kind: kind, version: version)
        } catch {
            throw .corruptLibrary(file: file, reason: error.description)
        }
    }

    static func encodeRecord(generation: UInt64, delta: NotebookDelta, syncState: SyncState?) -> [UInt8] {
        let deltaBytes = delta.encoded()
        var body = ByteWriter(capacity: deltaBytes.count + 64)
        body.byte(recordTag)
        body.varint(generation)
        body.lengthPrefixed(deltaBytes)
        if let syncState {
            body.byte(1)
            body.lengthPrefixed(encodeSyncState(syncState))
        } else {
            body.byte(0)
        }
        return BlobEnvelope.seal(kind: .localFile, version: formatVersion, body: body.bytes)
    }

    /// The record at `offset` of a journal, or nil when none is intact there.
    static func decodeRecord(_ journal: [UInt8], at offset: Int, generation: UInt64) -> (delta: NotebookDelta, syncState: SyncState?, end: Int)? {
        // The envelope's length says where the record ends: header (3 bytes + varint), body, CRC.
        var header = ByteReader(journal, from: offset)
        guard (try? header.byte()) != nil, (try? header.byte()) != nil, (try? header.byte()) != nil,
            let length = try? header.varint(), length <= UInt64(journal.count)
        else { return nil }
        let end = header.position + Int(length) + 4
        guard end <= journal.count else { return nil }
        let bytes = Array(journal[offset..<end])
        do throws(DecodingError) {
            let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .localFile, versions: 1...formatVersion)
            var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
            guard try reader.byte() == recordTag, try reader.varint() == generation else { return nil }
            let deltaRange = try reader.lengthPrefixedRange()
            let delta = try NotebookDelta(decoding: Array(bytes[deltaRange]))
            var syncState: SyncState?
            switch try reader.byte() {
            case 0: break
            case 1: syncState = try decodeSyncState(Array(bytes[try reader.lengthPrefixedRange()]))
            default: return nil
            }
            guard reader.isAtEnd else { return nil }
            return (delta, syncState, end)
        } catch {
            return nil
        }
    }

    static func encodeSyncState(_ state: SyncState) -> [UInt8] {
        var writer = ByteWriter()
        writer.varint(state.publishedOperations)
        writer.varint(state.lastSyncMilliseconds)
        writer.varint(state.operationsAtLastSnapshot)
        writer.varint(state.ownSegments.count)
        for key in state.ownSegments { writer.lengthPrefixed(Array(key.utf8)) }
        writer.varint(state.ownSnapshots.count)
        for snapshot in state.ownSnapshots {
            writer.lengthPrefixed(Array(snapshot.key.utf8))
            writer.varint(snapshot.ownOperations)
            writer.varint(snapshot.writtenAtMilliseconds)
        }
        return writer.bytes
    }

    static func decodeSyncState(_ bytes: [UInt8]) throws(DecodingError) -> SyncState {
        var reader = ByteReader(bytes)
        var state = SyncState()
        state.publishedOperations = try reader.uint32Varint("published operations")
        state.lastSyncMilliseconds = try reader.varint()
        state.operationsAtLastSnapshot = try reader.varint()
        func key(_ reader: inout ByteReader) throws(DecodingError) -> String {
            let range = try reader.lengthPrefixedRange()
            guard let key = String(validating: bytes[range], as: UTF8.self), StoreLayout.parse(key) != nil else {
                throw .malformed("not a store key")
            }
            return key
        }
        let segmentCount = try reader.count(max: reader.remaining, "segment count")
        for _ in 0..<segmentCount { state.ownSegments.append(try key(&reader)) }
        let snapshotCount = try reader.count(max: reader.remaining, "snapshot count")
        for _ in 0..<snapshotCount {
            let snapshotKey = try key(&reader)
            let ownOperations = try reader.uint32Varint("own operations")
            let writtenAt = try reader.varint()
            state.ownSnapshots.append(SyncState.OwnSnapshot(key: snapshotKey, ownOperations: ownOperations, writtenAtMilliseconds: writtenAt))
        }
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
        return state
    }
}
