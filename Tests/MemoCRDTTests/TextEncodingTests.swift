@testable import MemoCRDT
import TestSupport
import Testing

/// Builds a few replicas that edit concurrently and merge at random, for codec tests.
private func randomReplicas(seed: UInt64, replicaCount: Int = 3, steps: Int = 120) throws -> [TextCRDT] {
    var random = SeededRandom(seed: seed)
    var replicas = (0..<replicaCount).map { TextCRDT(replica: ReplicaID(UInt64($0) * 1_000_003 + 17)) }
    for _ in 0..<steps {
        let index = random.int(in: 0..<replicaCount)
        let length = replicas[index].lengthScalars
        switch random.int(in: 0..<10) {
        case 0..<5:
            let offset = random.int(in: 0...length)
            try replicas[index].insert(RandomText.string(random.int(in: 1...6), using: &random), atScalar: offset)
        case 5..<8 where length > 0:
            let lower = random.int(in: 0..<length)
            let upper = min(length, lower + random.int(in: 1...5))
            try replicas[index].delete(scalarRange: lower..<upper)
        default:
            let other = random.int(in: 0..<replicaCount)
            if other != index { try replicas[index].merge(replicas[other]) }
        }
    }
    return replicas
}

private func sameItems(_ a: TextCRDT, _ b: TextCRDT) -> Bool {
    let left = a.itemsInDocumentOrder
    let right = b.itemsInDocumentOrder
    return left.count == right.count && zip(left, right).allSatisfy { $0.id == $1.id && $0.isDeleted == $1.isDeleted }
}

@Suite struct TextEncodingTests {
    /// A text's clock may be ahead of its operations (a notebook raises it before an edit that
    /// may make nothing); the summary of its own body gives what the body says, the highest
    /// timestamp of an operation, as a walk of the body does.
    @Test func anOwnBodySummaryGivesTheOperationsTimestampNotTheClock() throws {
        var text = TextCRDT(replica: ReplicaID(2))
        try text.insert("abc", atUTF16: 0)
        text.observeLamport(1_000)
        #expect(text.lamport == 1_000)
        let body = text.encodedBody()
        let own = try text.summary(ofOwnBody: body, range: body.indices)
        let walked = try TextCRDT.summary(ofBody: body, range: body.indices, version: TextCRDT.stateFormatVersion)
        #expect(own.lamport == 3)
        #expect(own.lamport == walked.lamport && own.version == walked.version && own.text == walked.text)
    }

    /// Several replicas delete overlapping ranges concurrently, so the state's log holds id-form
    /// deletions of items another deletion already removed (the replay skips those pieces): the
    /// decoded text has the same items, deletions and changes, re-encodes to the same bytes, and
    /// passes every invariant check.
    @Test(arguments: testSeeds(25, salt: 29))
    func concurrentOverlappingDeletionsRoundTrip(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var base = TextCRDT(replica: ReplicaID(5))
        try base.insert(RandomText.string(random.int(in: 20...60), using: &random), atScalar: 0)
        var replicas = (0..<4).map { base.fork(replica: ReplicaID(UInt64($0) * 7_919 + 101)) }
        for round in 0..<6 {
            for index in replicas.indices {
                let length = replicas[index].lengthScalars
                guard length > 0 else { continue }
                let lower = random.int(in: 0..<length)
                let upper = min(length, lower + random.int(in: 1...12))
                try replicas[index].delete(scalarRange: lower..<upper)
                if random.int(in: 0..<3) == 0 {
                    try replicas[index].insert(RandomText.string(random.int(in: 1...4), using: &random), atScalar: lower)
                }
            }
            // Merge only some pairs each round, so deletions stay concurrent.
            let from = random.int(in: 0..<replicas.count)
            let to = (from + 1 + round) % replicas.count
            try replicas[to].merge(replicas[from])
        }
        var merged = replicas[0]
        for other in replicas.dropFirst() { try merged.merge(other) }
        for original in replicas + [merged] {
            let bytes = original.encoded()
            let decoded = try TextCRDT(decoding: bytes, replica: ReplicaID(999))
            try decoded.checkInvariants()
            #expect(decoded.string == original.string, "seed \(seed)")
            #expect(decoded.version == original.version, "seed \(seed)")
            #expect(sameItems(decoded, original), "seed \(seed)")
            #expect(decoded.encoded() == bytes, "seed \(seed): re-encoding differs")
            #expect(decoded.changes(since: VersionVector()) == original.changes(since: VersionVector()), "seed \(seed)")
        }
    }

    /// Random collaborative texts survive encode and decode: same items, text, version, clock;
    /// re-encoding gives the same bytes; the decoded text keeps working.
    @Test(arguments: testSeeds(25, salt: 11))
    func stateRoundTrip(seed: UInt64) throws {
        let replicas = try randomReplicas(seed: seed)
        for original in replicas {
            let bytes = original.encoded()
            let decoded = try TextCRDT(decoding: bytes, replica: ReplicaID(999))
            try decoded.checkInvariants()
            #expect(decoded.string == original.string, "seed \(seed)")
            #expect(decoded.version == original.version, "seed \(seed)")
            #expect(decoded.lamport == original.lamport, "seed \(seed)")
            #expect(sameItems(decoded, original), "seed \(seed)")
            #expect(decoded.encoded() == bytes, "seed \(seed): re-encoding differs")
            #expect(try TextCRDT.decodeString(fromEncoded: bytes) == original.string, "seed \(seed)")
            // The decoded text answers changes and merges like the original.
            for other in replicas {
                #expect(decoded.changes(since: other.version) == original.changes(since: other.version), "seed \(seed)")
            }
            var continued = decoded
            try continued.insert("after decoding", atScalar: continued.lengthScalars / 2)
            var peer = replicas[0]
            try peer.merge(continued)
            try continued.merge(peer)
            #expect(peer.string == continued.string, "seed \(seed)")
            try continued.checkInvariants()
        }
    }

    /// Replicas that hold the same operations encode to the same bytes.
    @Test(arguments: testSeeds(15, salt: 12))
    func equalStatesEncodeEqually(seed: UInt64) throws {
        var replicas = try randomReplicas(seed: seed)
        for index in replicas.indices {
            for other in replicas.indices where other != index { try replicas[index].merge(replicas[other]) }
        }
        for index in replicas.indices {
            for other in replicas.indices where other != index { try replicas[index].merge(replicas[other]) }
        }
        let encodings = replicas.map { $0.encoded() }
        #expect(Set(encodings.map { $0 }).count == 1, "seed \(seed)")
        // And a replica that received everything as one delta.
        var fresh = TextCRDT(replica: ReplicaID(4242))
        try fresh.apply(TextDelta(decoding: replicas[1].changes(since: VersionVector()).encoded()))
        #expect(fresh.encoded() == encodings[0], "seed \(seed)")
    }

    /// Deltas survive encode and decode, and applying the decoded delta gives the same text.
    @Test(arguments: testSeeds(25, salt: 13))
    func deltaRoundTrip(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let replicas = try randomReplicas(seed: seed)
        for source in replicas {
            for target in replicas {
                var since = target.version
                if random.chance(0.3) { since = VersionVector() }
                let delta = source.changes(since: since)
                let bytes = delta.encoded()
                let decoded = try TextDelta(decoding: bytes)
                #expect(decoded == delta, "seed \(seed)")
                #expect(decoded.encoded() == bytes, "seed \(seed)")
                var viaBytes = target
                var direct = target
                try viaBytes.apply(decoded)
                try direct.apply(delta)
                #expect(sameItems(viaBytes, direct), "seed \(seed)")
            }
        }
    }

    /// One keystroke continuing a typed run, sent alone, fits in 24 bytes with its header and
    /// checksum (the inherited originRight names nothing far away).
    /// The encoder's own runs (``TextCRDT/StateRun``) are the text's changes, renumbered: the
    /// same maximal runs, cut at the same timestamp jumps, with the same origins and targets.
    @Test(arguments: testSeeds(20, salt: 15))
    func stateRunsAreTheChanges(seed: UInt64) throws {
        for text in try randomReplicas(seed: seed, replicaCount: 4, steps: 200) {
            #expect(text.stateRunsMatchChanges(), "seed \(seed)")
        }
    }

    /// StateRun cuts and joins as TextDelta.Run does (reversed deletions keep their lowest target).
    @Test func stateRunPrefixDroppingAppend() {
        typealias Run = TextCRDT.StateRun
        let reversed = Run(
            replica: 0, counter: 10, lamport: 50, length: 4, isDeletion: true, isReversed: true,
            first: ItemRef(replica: 1, counter: 20), right: .none)
        #expect(reversed.prefix(3).first == ItemRef(replica: 1, counter: 21))
        #expect(reversed.prefix(1).isReversed == false)
        #expect(reversed.dropping(1).first == ItemRef(replica: 1, counter: 20))
        #expect(reversed.dropping(1).lamport == 51)
        var joined = reversed.prefix(2)
        let joinedReversed = joined.append(reversed.dropping(2))
        #expect(joinedReversed)
        #expect(joined == reversed)
        let insertion = Run(
            replica: 2, counter: 0, lamport: 7, length: 5, isDeletion: false, isReversed: false,
            first: .none, right: ItemRef(replica: 0, counter: 3))
        #expect(insertion.dropping(2).first == ItemRef(replica: 2, counter: 1))
        var typed = insertion.prefix(2)
        let joinedTyping = typed.append(insertion.dropping(2))
        #expect(joinedTyping)
        #expect(typed == insertion)
        var gap = insertion.prefix(2)
        var later = insertion.dropping(2)
        later.lamport += 1
        let joinedGap = gap.append(later)
        #expect(!joinedGap)
    }

    @Test func keystrokeDeltaIsSmall() throws {
        var text = TextCRDT(replica: ReplicaID(0x1234_5678_9ABC_DEF0))
        for index in 0..<300_000 where index % 3000 == 0 {
            try text.insert(String(repeating: "word ", count: 600), atScalar: text.lengthScalars / 2)
        }
        try text.insert("a", atScalar: 1000)
        let before = text
        try text.insert("b", atScalar: 1001)
        let delta = text.changes(since: before.version)
        let bytes = delta.encoded()
        #expect(bytes.count <= 24, "keystroke delta is \(bytes.count) bytes")
        // The receiver resolves the inherited origin to the same place.
        var receiver = try TextCRDT(decoding: before.encoded(), replica: ReplicaID(5))
        try receiver.apply(TextDelta(decoding: bytes))
        #expect(receiver.string == text.string)
        #expect(receiver.version == text.version)
    }

    /// Every truncation of an encoding is refused with a typed error.
    @Test func truncationsAreRefused() throws {
        let replicas = try randomReplicas(seed: 99, steps: 40)
        let state = replicas[0].encoded()
        let delta = replicas[0].changes(since: replicas[1].version).encoded()
        for length in 0..<state.count {
            #expect(throws: DecodingError.self) { try TextCRDT(decoding: Array(state[..<length]), replica: ReplicaID(1)) }
        }
        for length in 0..<delta.count {
            #expect(throws: DecodingError.self) { try TextDelta(decoding: Array(delta[..<length])) }
        }
    }

    /// Every single-bit flip of an encoding is a typed error: the envelope's checksum (CRC-32C)
    /// catches every one-bit change of what it covers, and its header fields are checked.
    @Test func bitFlipsAreRefused() throws {
        let replicas = try randomReplicas(seed: 7, steps: 40)
        let state = replicas[0].encoded()
        let delta = replicas[2].changes(since: replicas[0].version).encoded()
        #expect(try TextCRDT(decoding: state, replica: ReplicaID(3)).encoded() == state)
        #expect(try TextDelta(decoding: delta).encoded() == delta)
        for (bytes, isState) in [(state, true), (delta, false)] {
            var refused = 0
            for index in bytes.indices {
                for bit in 0..<8 {
                    var flipped = bytes
                    flipped[index] ^= 1 << bit
                    #expect(throws: DecodingError.self, "bit \(bit) of byte \(index) of the \(isState ? "state" : "delta")") {
                        if isState {
                            _ = try TextCRDT(decoding: flipped, replica: ReplicaID(3))
                        } else {
                            _ = try TextDelta(decoding: flipped)
                        }
                    }
                    if isState ? (try? TextCRDT(decoding: flipped, replica: ReplicaID(3))) == nil : (try? TextDelta(decoding: flipped)) == nil {
                        refused += 1
                    }
                }
            }
            #expect(refused == bytes.count * 8)
        }
    }

    /// Bodies mutated at random and sealed with a correct checksum (what a hostile writer can
    /// produce) decode to a valid text or throw a typed error; never a crash, never an invalid text.
    @Test(arguments: testSeeds(6, salt: 14))
    func hostileBodiesWithValidChecksums(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let replicas = try randomReplicas(seed: seed, steps: 60)
        let state = replicas[1].encoded()
        let delta = replicas[1].changes(since: replicas[0].version).encoded()
        let (stateBody, stateVersion) = try BlobEnvelope.open(state, kind: .textState, versions: 1...15)
        let (deltaBody, deltaVersion) = try BlobEnvelope.open(delta, kind: .textDelta, versions: 1...15)
        // How many mutated bodies decoded, and how many decoded deltas a text took: the checks
        // below run only on those, so a mutator that made nothing but garbage must fail here.
        var decodedStates = 0
        var decodedDeltas = 0
        var appliedDeltas = 0
        for _ in 0..<300 {
            for (original, body, kind, version) in [
                (state, stateBody, BlobKind.textState, stateVersion), (delta, deltaBody, BlobKind.textDelta, deltaVersion),
            ] {
                var mutated = Array(original[body])
                switch random.int(in: 0..<4) {
                case 0 where !mutated.isEmpty:
                    mutated[random.int(in: 0..<mutated.count)] = UInt8(truncatingIfNeeded: random.next())
                case 1 where !mutated.isEmpty:
                    mutated.remove(at: random.int(in: 0..<mutated.count))
                case 2:
                    mutated.insert(UInt8(truncatingIfNeeded: random.next()), at: random.int(in: 0...mutated.count))
                default:
                    if !mutated.isEmpty {
                        let index = random.int(in: 0..<mutated.count)
                        mutated[index] = [0x00, 0x7F, 0x80, 0xFF][random.int(in: 0..<4)]
                    }
                }
                let sealed = BlobEnvelope.seal(kind: kind, version: version, body: mutated)
                if kind == .textState {
                    if let text = try? TextCRDT(decoding: sealed, replica: ReplicaID(77)) {
                        decodedStates += 1
                        try text.checkInvariants()
                    }
                } else if let decoded = try? TextDelta(decoding: sealed) {
                    decodedDeltas += 1
                    // Applying a hostile delta must leave a valid text, or throw and change nothing.
                    var target = replicas[0]
                    let before = target.encoded()
                    do {
                        try target.apply(decoded)
                        appliedDeltas += 1
                    } catch {
                        #expect(target.encoded() == before, "seed \(seed): a refused delta changed the text")
                    }
                    try target.checkInvariants()
                }
            }
        }
        #expect(decodedStates >= 10, "seed \(seed): only \(decodedStates) of 300 mutated states decoded")
        #expect(decodedDeltas >= 10, "seed \(seed): only \(decodedDeltas) of 300 mutated deltas decoded")
        #expect(appliedDeltas >= 5, "seed \(seed): only \(appliedDeltas) of \(decodedDeltas) decoded deltas applied")
    }

    /// Arbitrary bytes are not MemoSync encodings.
    @Test func garbageIsRefused() {
        var random = SeededRandom(seed: 5)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(throws: DecodingError.self) { try TextCRDT(decoding: bytes, replica: ReplicaID(1)) }
            #expect(throws: DecodingError.self) { try TextDelta(decoding: bytes) }
        }
        // A delta is not a state, and an unknown version is named as such.
        let delta = TextDelta().encoded()
        #expect(throws: DecodingError.wrongKind(expected: .textState, found: BlobKind.textDelta.rawValue)) {
            try TextCRDT(decoding: delta, replica: ReplicaID(1))
        }
        var future = TextCRDT(replica: ReplicaID(1)).encoded()
        future[2] = BlobKind.textState.rawValue << 4 | 9
        #expect(throws: DecodingError.unsupportedVersion(kind: BlobKind.textState.rawValue, version: 9)) {
            try TextCRDT(decoding: future, replica: ReplicaID(1))
        }
    }

    /// Golden fixtures: the version 1 encodings of a fixed history, byte for byte. A change here
    /// is a format change: bump the version and document it in FORMAT.md.
    @Test func goldenEncodings() throws {
        var alice = TextCRDT(replica: ReplicaID(0xA11CE))
        try alice.insert("Hello wörld", atUTF16: 0)
        var bob = alice.fork(replica: ReplicaID(0xB0B))
        try alice.replace(utf16Range: 6..<11, with: "there")
        try bob.insert(" 👋", atUTF16: 11)
        try bob.delete(utf16Range: 0..<1)
        try alice.merge(bob)
        #expect(alice.string == "ello there 👋")
        let state = hexString(alice.encoded())
        let delta = hexString(bob.changes(since: VersionVector([ReplicaID(0xA11CE): 11])).encoded())
        #expect(state == Self.goldenState, "state encoding changed: \(state)")
        #expect(delta == Self.goldenDelta, "delta encoding changed: \(delta)")
        let decoded = try TextCRDT(decoding: bytesFromHex(Self.goldenState), replica: ReplicaID(1))
        #expect(decoded.string == "ello there 👋")
        // The same text as version 1 wrote it still decodes, to the same text (which encodes in
        // the current version).
        let versionOne = try TextCRDT(decoding: bytesFromHex(Self.goldenStateVersion1), replica: ReplicaID(1))
        #expect(versionOne.string == "ello there 👋")
        #expect(sameItems(versionOne, alice))
        #expect(versionOne.version == alice.version)
        #expect(hexString(versionOne.encoded()) == Self.goldenState)
        #expect(versionOne.changes(since: VersionVector()) == alice.changes(since: VersionVector()))
    }

    /// Version 2: text, replicas 0xB0B and 0xA11CE, counts 3 and 21, then five runs, each with
    /// its header (bit 0 set: a Lamport field follows), Lamport field (step, and the replica
    /// where it changes: here every run) and position-form offset: insert 11 at 0 (alice,
    /// Lamport 1), insert 2 at 11 (bob, 12), delete 5 at 6 (alice, 12), delete 1 at 0 (bob, 14),
    /// insert 5 at 5 (alice, 17).
    static let goldenState = "6d7312380f656c6c6f20746865726520f09f918b020b0b000000000000ce110a0000000000031505510101000901001643070109030b001921010101672a0e69"
    /// Version 1 (written until version 2).
    static let goldenStateVersion1 = "6d73113e0f656c6c6f20746865726520f09f918b020b0b000000000000ce110a00000000000315010018010002050101280000010416010121090001011901011001ddf4fedc"
    static let goldenDelta = "6d732120050b0b000000000000ce110a00000000000018028401010a01010020f09f918bfd24cd9b"
}
