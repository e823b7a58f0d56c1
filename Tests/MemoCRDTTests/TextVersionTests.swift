import MemoCRDT
import TestSupport
import Testing

/// A text lists its versions in replica id order whatever order replicas arrived in, and answers
/// "did this version see every insertion" without building the insertion version.
@Suite struct TextVersionTests {
    @Test(arguments: testSeeds(8, salt: 0x7E57_0001))
    func versionsMatchTheirDefinition(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        // Replicas with random ids (interned in no particular order), each typing or deleting a
        // little and passing its text on.
        var text = TextCRDT(replica: ReplicaID(random.next() | 1))
        var counts: [ReplicaID: UInt32] = [:]
        var lastInsertionEnds: [ReplicaID: UInt32] = [:]
        for _ in 0..<12 {
            let id = ReplicaID(random.next() | 1)
            var other = text.fork(replica: id)
            for _ in 0..<random.int(in: 0...3) {
                if other.lengthScalars > 0 && random.chance(0.4) {
                    let at = random.int(in: 0..<other.lengthScalars)
                    try other.delete(scalarRange: at..<min(other.lengthScalars, at + random.int(in: 1...3)))
                    counts[id] = try #require(other.version.entries.first { $0.replica == id }).operationCount
                } else {
                    let inserted = RandomText.string(random.int(in: 1...4), using: &random)
                    try other.insert(inserted, atScalar: random.int(in: 0...other.lengthScalars))
                    counts[id] = try #require(other.version.entries.first { $0.replica == id }).operationCount
                    lastInsertionEnds[id] = counts[id]
                }
            }
            try text.apply(other.changes(since: text.version))
            try text.checkInvariants()
        }
        #expect(text.version == VersionVector(counts))
        #expect(text.insertionVersion == VersionVector(lastInsertionEnds))
        // Inclusion against versions around the insertion version.
        let insertion = text.insertionVersion
        var candidates = [VersionVector(), insertion, text.version, insertion.merged(with: VersionVector([ReplicaID(2): 5]))]
        for entry in insertion.entries {
            var less = insertion
            less[entry.replica] = entry.operationCount - 1
            candidates.append(less)
            var more = insertion
            more[entry.replica] = entry.operationCount + 1
            candidates.append(more)
        }
        for candidate in candidates {
            #expect(text.insertionsAreIncluded(in: candidate) == insertion.isIncluded(in: candidate), "seed \(seed): \(candidate)")
        }
    }

    /// Past the size where the replica table keeps its ids sorted, lookups and versions still
    /// work (by hashing, and by sorting).
    @Test func aTextWithVeryManyReplicas() throws {
        var random = SeededRandom(seed: 0x7E57_0002)
        var text = TextCRDT(replica: ReplicaID(1))
        var counts: [ReplicaID: UInt32] = [:]
        for index in 0..<1_100 {
            let id = ReplicaID(random.next() | 1)
            var other = text.fork(replica: id)
            try other.insert(index % 2 == 0 ? "x" : "𝄞", atScalar: random.int(in: 0...other.lengthScalars))
            counts[id, default: 0] += 1
            try text.apply(other.changes(since: text.version))
        }
        try text.checkInvariants()
        #expect(text.version == VersionVector(counts))
        #expect(text.insertionVersion == VersionVector(counts))
        #expect(text.insertionsAreIncluded(in: VersionVector(counts)))
        #expect(!text.insertionsAreIncluded(in: VersionVector(counts.filter { $0.key != counts.keys.min()! })))
        // A replica known before the table grew edits again and is found.
        var again = text.fork(replica: counts.keys.max()!)
        try again.delete(scalarRange: 0..<1)
        try text.apply(again.changes(since: text.version))
        #expect(text.lengthScalars == 1_099)
        try text.checkInvariants()
    }
}
