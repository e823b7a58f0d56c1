@testable import MemoCRDT
import TestSupport
import Testing

/// Issue 27: the text at a version is the replay of exactly that version's operations, checked
/// against the tree-form reference, which keeps every operation (`ReferenceFugueMax.log`): a
/// fresh reference given only the operations a cut includes must show the text
/// `TextCRDT.string(at:)` gives. Replicas keep deleted content and sync by deltas and merges
/// (so retained content also travels in deltas, FORMAT.md "Text state, version 3").
///
/// Seeded: a failure names its seed; rerun one with `MEMOSYNC_SEED=<seed>`.
@Suite struct TextHistoryTests {
    /// The reference's text for exactly the operations `cut` includes.
    static func referenceText(_ reference: ReferenceFugueMax, at cut: VersionVector) -> String {
        var replay = ReferenceFugueMax(replica: ReplicaID(UInt64.max))
        replay.deliver(reference.log.filter { cut.includes($0.id) })
        return replay.text
    }

    /// The `to` text rebuilt from the `from` text and the diff's changes.
    static func applying(_ diff: TextVersionDiff, to from: String) -> [UInt16] {
        let old = Array(from.utf16)
        var result: [UInt16] = []
        var position = 0
        for change in diff.changes {
            result.append(contentsOf: old[position..<change.fromRangeUTF16.lowerBound])
            position = change.fromRangeUTF16.lowerBound
            switch change.kind {
            case .deleted: position = change.fromRangeUTF16.upperBound
            case .inserted: result.append(contentsOf: change.text.utf16)
            }
        }
        result.append(contentsOf: old[position...])
        return result
    }

    @Test(arguments: testSeeds(8, salt: 0x4157_0027))
    func textAtEveryCutIsTheReplayOfItsOperations(seed: UInt64) throws {
        var run = FugueDifferentialRun(seed: seed)
        for index in run.replicas.indices { run.replicas[index].text.keepsDeletedContent = true }
        run.randomPhase(steps: 140, mergeProbability: 0.2)
        var random = SeededRandom(seed: seed ^ 0x27)
        var checkedCuts = 0
        func checkReplica(_ index: Int) throws {
            let text = run.replicas[index].text
            let reference = run.replicas[index].reference
            var cuts = text.stretches().map { text.cut(through: $0) }
            for _ in 0..<5 where text.lamport > 0 {
                let replica = text.version.entries[random.int(in: 0..<text.version.entries.count)].replica
                cuts.append(text.cut(lamport: UInt64(random.int(in: 0...Int(text.lamport))), replica: replica))
            }
            for cut in cuts {
                let expected = Self.referenceText(reference, at: cut)
                let actual = try text.string(at: cut)
                #expect(actual == expected, "seed \(seed), replica \(index), cut \(cut)")
                checkedCuts += 1
            }
            // Diffs between two cuts rebuild the later text from the earlier.
            for _ in 0..<4 where cuts.count >= 2 {
                let from = cuts[random.int(in: 0..<cuts.count)]
                let to = cuts[random.int(in: 0..<cuts.count)]
                let diff = try text.difference(from: from, to: to)
                let fromText = try text.string(at: from)
                let toText = try text.string(at: to)
                #expect(Self.applying(diff, to: fromText) == Array(toText.utf16), "seed \(seed): diff \(from) -> \(to)")
                for change in diff.changes where change.kind == .deleted {
                    let slice = Array(fromText.utf16)[change.fromRangeUTF16]
                    #expect(String(decoding: slice, as: UTF16.self) == change.text, "seed \(seed): deleted text")
                    #expect(change.text.unicodeScalars.count == change.fromRangeScalars.count, "seed \(seed): scalar range")
                }
            }
            // The current version is the current text.
            #expect(try text.string(at: text.version) == text.string, "seed \(seed)")
            // Round trip: the history survives encoding, canonically.
            let bytes = text.encoded()
            let decoded = try TextCRDT(decoding: bytes, replica: ReplicaID(UInt64.max - 1))
            #expect(decoded.encoded() == bytes, "seed \(seed): re-encoding differs")
            #expect(decoded.retainedDeletedScalars == text.retainedDeletedScalars, "seed \(seed)")
            for cut in cuts.prefix(6) {
                #expect(try decoded.string(at: cut) == text.string(at: cut), "seed \(seed): decoded text at \(cut)")
            }
        }
        for index in run.replicas.indices { try checkReplica(index) }
        run.syncEverything()
        run.finish()
        for index in run.replicas.indices { try checkReplica(index) }
        // Same operations: the same stretches and cuts, and (all retaining everything) the same bytes.
        let first = run.replicas[0].text
        for index in run.replicas.indices.dropFirst() {
            let other = run.replicas[index].text
            #expect(other.stretches() == first.stretches(), "seed \(seed): replica \(index) lists other stretches")
            #expect(other.stretches().map { other.cut(through: $0) } == first.stretches().map { first.cut(through: $0) })
            #expect(other.encoded() == first.encoded(), "seed \(seed): replica \(index) encodes differently")
        }
        #expect(checkedCuts > 10, "seed \(seed): too few cuts checked")
        // Dropping retained content (retention) changes nothing a device converges to: the same
        // text, version and operations, and a replica that starts from it converges the same.
        var dropped = first
        dropped.dropRetainedContent(deletedBy: dropped.version.entries.map { ($0.replica, 0..<$0.operationCount / 2) })
        #expect(dropped.string == first.string && dropped.version == first.version, "seed \(seed)")
        #expect(dropped.encodedBody() == first.encodedBody(), "seed \(seed): dropping changed the operations")
        var fresh = TextCRDT(replica: ReplicaID(UInt64.max - 2))
        fresh.keepsDeletedContent = true
        try fresh.apply(dropped.changes(since: VersionVector()))
        #expect(fresh.string == first.string && fresh.version == first.version, "seed \(seed)")
        #expect(fresh.encodedBody() == first.encodedBody(), "seed \(seed)")
    }

    @Test func deletedTextComesBackAtEarlierVersionsAndTravelsInDeltas() throws {
        var alice = TextCRDT(replica: ReplicaID(1))
        alice.keepsDeletedContent = true
        try alice.insert("Hello brave new world", atScalar: 0)
        let before = alice.version
        try alice.delete(scalarRange: 6..<12)  // "brave "
        try alice.insert("X", atScalar: 0)
        try alice.delete(scalarRange: 0..<1)
        #expect(alice.string == "Hello new world")
        #expect(try alice.string(at: before) == "Hello brave new world")
        #expect(alice.retainedDeletedScalars == 7)
        let diff = try alice.difference(from: before, to: alice.version)
        #expect(diff.changes.map(\.text) == ["brave "])
        #expect(diff.changes.first?.fromRangeUTF16 == 6..<12)
        #expect(diff.deletedScalars == 6 && diff.insertedScalars == 0)

        // A receiver that starts empty gets the deleted text with the delta.
        var bob = TextCRDT(replica: ReplicaID(2))
        bob.keepsDeletedContent = true
        try bob.apply(alice.changes(since: bob.version))
        #expect(bob.string == alice.string)
        #expect(try bob.string(at: before) == "Hello brave new world")
        // Without history kept on the sender, the text travels as tombstones as before.
        var plain = TextCRDT(replica: ReplicaID(3))
        try plain.insert("abc", atScalar: 0)
        let plainBefore = plain.version
        try plain.delete(scalarRange: 1..<2)
        var carol = TextCRDT(replica: ReplicaID(4))
        carol.keepsDeletedContent = true
        try carol.apply(plain.changes(since: carol.version))
        #expect(throws: TextHistoryError.contentNotRetained(scalars: 1)) { try carol.string(at: plainBefore) }
        #expect(throws: TextHistoryError.versionNotHeld) { try carol.string(at: VersionVector([ReplicaID(9): 1])) }
    }

    /// A run of typing retained in part (its end arrived already deleted, from a replica that
    /// keeps no history; its start deleted here) still sends the part it retains with its
    /// content: the delta cuts the run where retention changes. Before, the whole run went as a
    /// tombstone, so a library's journal (made of such deltas) lost the retained part.
    @Test func aRunRetainedInPartSendsThePartItRetains() throws {
        var writer = TextCRDT(replica: ReplicaID(1))
        try writer.insert("abcdef", atScalar: 0)
        var plain = TextCRDT(replica: ReplicaID(2))
        try plain.apply(writer.changes(since: plain.version))
        try plain.delete(scalarRange: 3..<6)  // "def", its content not kept
        var keeper = TextCRDT(replica: ReplicaID(3))
        keeper.keepsDeletedContent = true
        try keeper.apply(plain.changes(since: keeper.version))
        #expect(keeper.string == "abc")
        let before = keeper.version
        try keeper.delete(scalarRange: 0..<3)  // "abc", retained
        #expect(keeper.string == "" && keeper.retainedDeletedScalars == 3)
        #expect(throws: TextHistoryError.contentNotRetained(scalars: 3)) { try keeper.string(at: writer.version) }
        var receiver = TextCRDT(replica: ReplicaID(4))
        receiver.keepsDeletedContent = true
        try receiver.apply(keeper.changes(since: receiver.version))
        #expect(receiver.retainedDeletedScalars == 3)
        #expect(try receiver.string(at: before) == "abc")
        #expect(receiver.encodedBody() == keeper.encodedBody())
    }

    @Test func attributionNamesTheReplicaOfEachPassage() throws {
        var alice = TextCRDT(replica: ReplicaID(1))
        try alice.insert("hello world", atScalar: 0)
        var bob = alice.fork(replica: ReplicaID(2))
        try bob.insert("🙂 ", atScalar: 6)
        try alice.apply(bob.changes(since: alice.version))
        #expect(alice.string == "hello 🙂 world")
        #expect(
            alice.attribution() == [
                TextAttribution(replica: ReplicaID(1), rangeUTF16: 0..<6, rangeScalars: 0..<6),
                TextAttribution(replica: ReplicaID(2), rangeUTF16: 6..<9, rangeScalars: 6..<8),
                TextAttribution(replica: ReplicaID(1), rangeUTF16: 9..<14, rangeScalars: 8..<13),
            ])
    }

    /// Formats: no history is version 2 byte for byte (old readers, fixtures); history is
    /// version 4; dropping all history gives the version 2 bytes back; a version 2 state decodes
    /// with no history; a version 3 state (history by counter ranges) still decodes, and a
    /// version 3 history entry for visible text is refused.
    @Test func historyIsVersion4AndOnlyThen() throws {
        var kept = TextCRDT(replica: ReplicaID(1))
        kept.keepsDeletedContent = true
        var plain = TextCRDT(replica: ReplicaID(1))
        try kept.insert("abcdef", atScalar: 0)
        try plain.insert("abcdef", atScalar: 0)
        try kept.delete(scalarRange: 2..<4)
        try plain.delete(scalarRange: 2..<4)
        let v2 = plain.encoded()
        let v4 = kept.encoded()
        #expect(v2[2] & 0x0F == 2)
        #expect(v4[2] & 0x0F == 4)
        #expect(v4.count > v2.count)
        let decodedOld = try TextCRDT(decoding: v2, replica: ReplicaID(5))
        #expect(decodedOld.retainedDeletedScalars == 0)
        #expect(decodedOld.string == "abef")
        let decodedNew = try TextCRDT(decoding: v4, replica: ReplicaID(5))
        #expect(try decodedNew.string(at: VersionVector([ReplicaID(1): 6])) == "abcdef")
        #expect(try TextCRDT.decodeString(fromEncoded: v4) == "abef")
        var dropped = kept
        dropped.dropRetainedContent(deletedBy: [(ReplicaID(1), 0..<100)])
        #expect(dropped.retainedDeletedScalars == 0)
        #expect(dropped.encoded() == v2)
        #expect(dropped.string == kept.string && dropped.version == kept.version)

        // A history entry naming visible items (counter 0, "a") is malformed.
        var section = ByteWriter()
        section.varint(1)  // one group
        section.varint(0)  // replica index 0
        section.varint(1)  // one entry
        section.varint(0)  // counter 0, one item
        section.append(contentsOf: Array("a".utf8))
        var body = ByteWriter()
        body.lengthPrefixed(section.bytes)
        body.append(contentsOf: plain.encodedBody())
        #expect(throws: DecodingError.malformed("history entry for items that are not deleted insertions")) {
            try TextCRDT(decoding: BlobEnvelope.seal(kind: .textState, version: 3, body: body.bytes), replica: ReplicaID(5))
        }
        // The same entry naming the deleted "c" (counter 2) decodes.
        section = ByteWriter()
        section.varint(1)
        section.varint(0)
        section.varint(1)
        section.varint(2 << 1)
        section.append(contentsOf: Array("c".utf8))
        body = ByteWriter()
        body.lengthPrefixed(section.bytes)
        body.append(contentsOf: plain.encodedBody())
        let single = try TextCRDT(decoding: BlobEnvelope.seal(kind: .textState, version: 3, body: body.bytes), replica: ReplicaID(5))
        #expect(single.retainedDeletedScalars == 1)
        #expect(throws: TextHistoryError.contentNotRetained(scalars: 1)) { try single.string(at: VersionVector([ReplicaID(1): 6])) }
    }
}
