import MemoCRDT

// Heads: the reader feedback that makes sync live (FORMAT.md, "Heads" and "Liveness").
//
// Segments and snapshots say what a writer published; nothing in them says what a reader could
// not find. A replica whose operations build on operations no readable blob holds (their segment
// was collected, lost with a wiped store, or never written by a library that crashed and was
// restored) would wait for good while the replicas that hold them publish nothing new. So each
// replica publishes, at the end of a sync whose outcome changed, one small head: the operations
// it holds, and those it knows exist (from other heads) but found in no listed blob. A replica
// that reads a head lacking operations it holds, which none of its own snapshots in the store
// covers, writes a snapshot; the lacking replica reads it on its next sync.

/// What a replica held, and lacked, at the end of one of its syncs: the body of a head blob
/// (`memosync/v1/<replica>/heads/<hash>.head`, kind 5, version 1).
///
/// Encoding (body): `holds` then `lacks`, each a varint count of entries, then per entry a
/// replica id (u64le, strictly ascending) and an operation count (varint, at least 1). An entry of
/// `lacks` is greater than the same replica's entry of `holds`. Then a byte, 0 or 1: with 1, the
/// writer's newest snapshot in the store follows, its key (lp-bytes, UTF-8, a snapshot key of the
/// writer) and the operations it holds (a vector as above).
package struct SyncHead: Sendable, Equatable {
    /// The operations the replica held (applied; not those held back).
    package var holds: VersionVector
    /// For each replica whose operations it knew to exist beyond what it held, and found in no
    /// listed segment: how many exist (always more than ``holds`` has of that replica).
    package var lacks: VersionVector
    /// The writer's newest snapshot in the store and the operations it holds, if it has one: how
    /// others count the segments a new device would read after it.
    package var newestSnapshot: SyncState.ReadSnapshot?

    /// The format version of head bodies.
    package static let formatVersion: UInt8 = 1

    /// A head. Entries of `lacks` not beyond `holds` are dropped.
    package init(holds: VersionVector, lacks: VersionVector, newestSnapshot: SyncState.ReadSnapshot? = nil) {
        self.holds = holds
        self.lacks = VersionVector(entries: lacks.entries.filter { $0.operationCount > holds[$0.replica] })
        self.newestSnapshot = newestSnapshot
    }

    /// Whether the replica knew of operations it could not find.
    package var isLacking: Bool { !lacks.isEmpty }

    /// The operations this head lacks that `version` holds: for each replica, the count up to
    /// which `version` could give it more than it held (empty when it could give nothing).
    package func wanted(from version: VersionVector) -> VersionVector {
        VersionVector(entries: lacks.entries.compactMap { entry in
            let give = min(entry.operationCount, version[entry.replica])
            guard give > holds[entry.replica] else { return nil }
            return VersionVector.Entry(replica: entry.replica, operationCount: give)
        })
    }

    /// The head as a blob (envelope kind 5, ``formatVersion``).
    package func encoded() -> [UInt8] {
        var body = ByteWriter(capacity: 16 * (holds.entries.count + lacks.entries.count) + 4)
        body.versionVector(holds)
        body.versionVector(lacks)
        if let newestSnapshot {
            body.byte(1)
            body.lengthPrefixed(Array(newestSnapshot.key.utf8))
            body.versionVector(newestSnapshot.version)
        } else {
            body.byte(0)
        }
        return BlobEnvelope.seal(kind: .syncHead, version: Self.formatVersion, body: body.bytes)
    }

    /// Decodes a head blob.
    ///
    /// - Throws: `DecodingError` for a damaged, foreign or newer blob, or a body that breaks the
    ///   rules above (ids not ascending, zero counts, a lack not beyond the hold).
    package init(decoding bytes: [UInt8]) throws(DecodingError) {
        let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .syncHead, versions: 1...Self.formatVersion)
        var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        func vector(_ what: String) throws(DecodingError) -> VersionVector {
            let count = try reader.count(max: reader.remaining / 9, what)
            var entries: [VersionVector.Entry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let replica = ReplicaID(try reader.uint64LittleEndian())
                let operations = try reader.uint32Varint("\(what) operation count")
                guard operations > 0 else { throw .malformed("\(what): an entry of zero operations") }
                if let last = entries.last, last.replica >= replica { throw .malformed("\(what): replica ids not ascending") }
                entries.append(VersionVector.Entry(replica: replica, operationCount: operations))
            }
            return VersionVector(entries: entries)
        }
        let holds = try vector("holds")
        let lacks = try vector("lacks")
        switch try reader.byte() {
        case 0:
            newestSnapshot = nil
        case 1:
            let range = try reader.lengthPrefixedRange()
            guard let key = String(validating: bytes[range], as: UTF8.self), case .snapshot? = StoreLayout.parse(key) else {
                throw .malformed("newest snapshot: not a snapshot key")
            }
            newestSnapshot = SyncState.ReadSnapshot(key: key, version: try vector("newest snapshot"))
        default:
            throw .malformed("newest snapshot: a flag other than 0 or 1")
        }
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
        for entry in lacks.entries where entry.operationCount <= holds[entry.replica] {
            throw .malformed("lacks: \(entry.replica) not beyond what it holds")
        }
        self.holds = holds
        self.lacks = lacks
    }
}

extension ByteWriter {
    /// A version vector as the sync state and heads write it: a varint count of entries, then
    /// per entry the replica id (u64le) and its operation count (varint).
    mutating func versionVector(_ version: VersionVector) {
        varint(version.entries.count)
        for entry in version.entries {
            uint64LittleEndian(entry.replica.rawValue)
            varint(entry.operationCount)
        }
    }
}
