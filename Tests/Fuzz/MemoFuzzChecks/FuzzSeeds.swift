import MemoCRDT
import MemoSync

/// Seed inputs made with the public API: every blob of the honest histories in each mode (raw,
/// checksum recomputed, its body sealed), and a few store keys.
enum FuzzSeeds {
    static func seeds(for target: FuzzTarget) -> [[UInt8]] {
        let world = FuzzWorld.shared
        switch target {
        case .textDelta: return inEveryMode(world.texts.deltas, kind: .textDelta)
        case .textState: return inEveryMode(world.texts.states, kind: .textState)
        case .notebookDelta: return inEveryMode(world.notebooks.deltas, kind: .notebookDelta)
        case .notebookState: return inEveryMode(world.notebooks.states, kind: .notebookState)
        case .libraryState: return inEveryMode(world.library.states, kind: .localFile)
        case .libraryJournal:
            // Raw and checksum-recomputed inputs are whole journals; a sealed input is a record
            // body appended to the honest first record (FuzzInput.journal()).
            let journal = world.library.journal
            var seeds = [[FuzzInput.modeByte(.raw)] + journal, [FuzzInput.modeByte(.checksumRecomputed)] + journal]
            // Sealed seeds: each record's envelope (version 4 records are framed).
            seeds += inEveryMode(world.library.records.map { Array($0.dropFirst(LibraryJournal.headerBytes)) }, kind: .localFile)
            return seeds
        case .storeKey:
            let replica = ReplicaID(0x0123_4567_89AB_CDEF)
            let keys = [
                StoreLayout.segmentKey(replica: replica, counters: 0..<1, bytes: [1]),
                StoreLayout.snapshotKey(replica: replica, totalOperations: 3, bytes: [2]),
                "memosync/v1/\(replica)/segments/0000000007-0000000009-0123456789abcdef (Alice's conflicted copy 2026-01-02).seg",
                "memosync/v1/\(replica)/snapshots/000000000012-0123456789abcdef.sync-conflict-20260102-101010-ABC.snap",
            ]
            var seeds = keys.map { [FuzzInput.modeByte(.raw)] + Array($0.utf8) }
            seeds += keys.map { [FuzzInput.modeByte(.checksumRecomputed)] + Array($0.utf8.dropFirst(StoreLayout.root.utf8.count)) }
            let prefix = "memosync/v1/\(replica)/segments/".utf8.count
            seeds.append([FuzzInput.modeByte(.sealed), 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0] + Array(keys[0].utf8.dropFirst(prefix)))
            return seeds
        case .encryptedBlob:
            // Honest encrypted blobs (raw and checksum-recomputed), and padded plaintexts.
            let blobs = world.notebooks.deltas.prefix(4).map { FuzzTarget.fuzzCipher.sealForFuzzing($0) }
            var seeds = blobs.flatMap { [[FuzzInput.modeByte(.raw)] + $0, [FuzzInput.modeByte(.checksumRecomputed)] + $0] }
            seeds += world.notebooks.deltas.prefix(4).map { [FuzzInput.modeByte(.sealed)] + FuzzTarget.padded($0) }
            return seeds
        case .keyBlob:
            return inEveryMode([FuzzTarget.fuzzKeyBlob.encoded], kind: .keyBlob)
        case .s3Listing:
            let documents = [S3AnswerDocument.honest.render(), S3AnswerDocument.honestError.render()]
            let payloads = ["%20%2B+", " 3", "<Owner><ID>x</ID></Owner>", "<Contents><Key>k</Key><Size>1</Size></Contents>", " &amp; more"]
            return xmlSeeds(documents: documents, payloads: payloads, generatorHeaders: [0x07, 0x00, 0x85, 0x03])
        case .listingCache:
            // A cache the store itself wrote (folders, files, names at the limits of what a
            // listing keeps), and an empty one; whole in raw and checksum modes, bodies sealed.
            var seeds: [[UInt8]] = []
            for bytes in FuzzTarget.listingCaches {
                seeds.append([FuzzInput.modeByte(.raw)] + bytes)
                seeds.append([FuzzInput.modeByte(.checksumRecomputed)] + bytes)
                seeds.append([FuzzInput.modeByte(.sealed)] + Array(bytes[(DirectoryListingCache.magic.count + 1)..<(bytes.count - 4)]))
            }
            return seeds
        case .stateList:
            // The honest list of the listed library's state file (whole, then its body sealed).
            return inEveryMode([world.listed.list], kind: .localFile)
        case .webDAVMultistatus:
            let payloads = ["%2Fx", "0", "<D:resourcetype><D:collection/></D:resourcetype>", "<D:response><D:href>/x</D:href></D:response>"]
            return xmlSeeds(documents: [WebDAVAnswerDocument.honest.render()], payloads: payloads, generatorHeaders: [0x00, 0x01, 0x02, 0x05])
        }
    }

    /// Seeds of an XML target: each honest document raw; each payload spliced at the splice
    /// point of its index; generator inputs starting with each header byte, the rest from a
    /// fixed pseudo-random sequence, one of them nested just within the reader's depth limit and
    /// one just past it.
    private static func xmlSeeds(documents: [String], payloads: [String], generatorHeaders: [UInt8]) -> [[UInt8]] {
        var seeds = documents.map { [FuzzInput.modeByte(.raw)] + Array($0.utf8) }
        for (index, payload) in payloads.enumerated() {
            seeds.append([FuzzInput.modeByte(.checksumRecomputed, version: UInt8(index + 1))] + Array(payload.utf8))
        }
        var state: UInt32 = 0x2545_F491
        for (index, header) in generatorHeaders.enumerated() {
            var bytes: [UInt8] = [FuzzInput.modeByte(.sealed), header]
            for _ in 0..<96 {
                state = state &* 1_664_525 &+ 1_013_904_223
                bytes.append(UInt8(truncatingIfNeeded: state >> 24))
            }
            // The chain depth byte (after the header and style bytes): small, or around the limit.
            bytes[3] = [UInt8(1), 2, 206, 207][index % 4]
            seeds.append(bytes)
        }
        return seeds
    }

    /// Each of `blobs` as a raw input and a checksum-recomputed one, and its body as a sealed one
    /// (with the blob's own version).
    private static func inEveryMode(_ blobs: [[UInt8]], kind: BlobKind) -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for blob in blobs {
            seeds.append([FuzzInput.modeByte(.raw)] + blob)
            seeds.append([FuzzInput.modeByte(.checksumRecomputed)] + blob)
            guard let (body, version) = try? BlobEnvelope.open(blob, kind: kind, versions: 1...15) else {
                preconditionFailure("an honest \(kind) blob does not open")
            }
            seeds.append([FuzzInput.modeByte(.sealed, version: version)] + Array(blob[body]))
        }
        return seeds
    }
}
