import MemoCRDT
import Testing

@testable import MemoSync

/// FORMAT.md, "Heads": "A reader refuses a head that breaks any of these rules (`malformed`)".
/// Each rule broken once, in a head whose envelope and checksum are right (so only the rule
/// can refuse it), and the same head with the rule kept is read.
@Suite struct SyncHeadRulesTests {
    typealias Entry = (id: UInt64, operations: UInt64)

    /// A head body: holds, lacks, then the snapshot part (`snapshot`: the flag byte and what
    /// follows, as given).
    private func head(holds: [Entry], lacks: [Entry], snapshot: [UInt8] = [0]) -> [UInt8] {
        var body = ByteWriter()
        for vector in [holds, lacks] {
            body.varint(vector.count)
            for entry in vector {
                body.uint64LittleEndian(entry.id)
                body.varint(entry.operations)
            }
        }
        body.append(contentsOf: snapshot)
        return BlobEnvelope.seal(kind: .syncHead, version: SyncHead.formatVersion, body: body.bytes)
    }

    private func snapshotPart(key: String, version: [Entry]) -> [UInt8] {
        var part = ByteWriter()
        part.byte(1)
        part.lengthPrefixed(Array(key.utf8))
        part.varint(version.count)
        for entry in version {
            part.uint64LittleEndian(entry.id)
            part.varint(entry.operations)
        }
        return part.bytes
    }

    private func refused(_ bytes: [UInt8]) -> Bool {
        do {
            _ = try SyncHead(decoding: bytes)
            return false
        } catch {
            if case .malformed = error { return true }
            Issue.record("refused, but not as malformed: \(error)")
            return true
        }
    }

    @Test func eachRuleBrokenIsRefusedAsMalformed() throws {
        let snapshotKey = StoreLayout.snapshotKey(replica: ReplicaID(0xA), totalOperations: 7, bytes: [1, 2, 3])
        let segmentKey = "memosync/v1/000000000000000a/segments/0000000000-0000000004-0000000000000000.seg"
        // Kept: read.
        let good = head(holds: [(1, 3), (2, 5)], lacks: [(2, 9)], snapshot: snapshotPart(key: snapshotKey, version: [(1, 3), (2, 4)]))
        let read = try SyncHead(decoding: good)
        #expect(read.holds[ReplicaID(2)] == 5 && read.lacks[ReplicaID(2)] == 9 && read.newestSnapshot?.key == snapshotKey)
        // Holds: ids not strictly ascending (equal, then descending); an entry of zero operations.
        #expect(refused(head(holds: [(1, 3), (1, 4)], lacks: [])))
        #expect(refused(head(holds: [(2, 3), (1, 4)], lacks: [])))
        #expect(refused(head(holds: [(1, 0)], lacks: [])))
        // Lacks: the same rules, and every entry beyond what the head holds of that replica.
        #expect(refused(head(holds: [], lacks: [(3, 1), (3, 2)])))
        #expect(refused(head(holds: [], lacks: [(1, 0)])))
        #expect(refused(head(holds: [(2, 5)], lacks: [(2, 5)])))
        #expect(refused(head(holds: [(2, 5)], lacks: [(2, 4)])))
        // The snapshot part: a flag other than 0 or 1, a key that is not a snapshot's (a
        // segment's, or not UTF-8), a version breaking the rules.
        #expect(refused(head(holds: [(1, 3)], lacks: [], snapshot: [2])))
        #expect(refused(head(holds: [(1, 3)], lacks: [], snapshot: snapshotPart(key: segmentKey, version: [(1, 3)]))))
        var notUTF8 = snapshotPart(key: snapshotKey, version: [(1, 3)])
        notUTF8[3] = 0xFF
        #expect(refused(head(holds: [(1, 3)], lacks: [], snapshot: notUTF8)))
        #expect(refused(head(holds: [(1, 3)], lacks: [], snapshot: snapshotPart(key: snapshotKey, version: [(2, 1), (1, 3)]))))
        #expect(refused(head(holds: [(1, 3)], lacks: [], snapshot: snapshotPart(key: snapshotKey, version: [(1, 0)]))))
    }
}
