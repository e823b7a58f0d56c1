@testable import MemoCRDT
import TestSupport
import Testing

/// Every crash reproducer found by fuzzing (issue 18 and `/work/fuzz-findings.md`) in a text,
/// decoded from its hex and fed to the path that trapped: each must now give a typed error or a
/// valid value that then behaves (its invariants hold, it encodes, and the encoding decodes to
/// the same bytes). Those that reach a notebook: `NotebookHostileBytesRegressionTests`.
@Suite struct HostileBytesRegressionTests {
    // MARK: Issue 18, item 1: arithmetic overflow in decoders

    /// Text deltas whose numbers overflowed when they met another (`TextDelta+Encoding.swift`).
    @Test(arguments: [
        // counter + Lamport offset
        "6d73211404010000000000000001feffffffffffffffff0137541c8d",
        // a reference minus Int64.min
        "6d7321180401000000000000000002010100ffffffffffffffffff01246c6438",
        // first counter 0xFFFFFFFF
        "6d732111040100000000000000ffffffff0f020100d66bfd25",
        // lamport += change
        "6d73211704010000000000000000020140feffffffffffffffff01913d1f8e",
    ])
    func textDeltaOverflows(hex: String) throws {
        #expect(throws: DecodingError.self) { try TextDelta(decoding: bytesFromHex(hex)) }
    }

    /// Text states whose numbers overflowed (`TextCRDT+Encoding.swift`: a reference, a
    /// position-form offset).
    @Test(arguments: [
        "6d73111d00010100000000000000010100020100010300ffffffffffffffffff01d410ebad",
        "6d73111f016101010000000000000002010002010002000000feffffffffffffffff018219ca23",
    ])
    func textStateOverflows(hex: String) throws {
        #expect(throws: DecodingError.self) { try TextCRDT(decoding: bytesFromHex(hex), replica: ReplicaID(9)) }
    }

    // MARK: Issue 18, item 2 (and issue 12, item 5): tombstones without their deletions

    /// A text delta whose insertion (1.0) arrives already deleted while its deletion (2.1)
    /// waits for 2.0, which the delta lacks: both are held back, neither applied, and the
    /// missing operation completes them.
    @Test func tombstoneWithoutItsDeletion() throws {
        let hex = "6d73211b0801000000000000000200000000000000000201200102010100005a3da2be"
        let delta = try TextDelta(decoding: bytesFromHex(hex))
        #expect(delta.runs.count == 2)
        var text = TextCRDT(replica: ReplicaID(50))
        let report = try text.apply(delta)
        #expect(report.appliedOperationCount == 0)
        #expect(report.pendingOperationCount == 2)
        #expect(report.rejectedOperationCount == 0)
        #expect(text.pendingOperationCount == 2)
        #expect(text.version.entries.isEmpty)
        #expect(text.string.isEmpty)
        try checkTextBehaves(text)
        // 2.0 (an insertion at the start) arrives: the tombstone and its deletion apply with it.
        let missing = TextDelta(runs: [
            TextDelta.Run(replica: ReplicaID(2), counter: 0, lamport: 1, length: 1, kind: .insertion(originLeft: nil, originRight: .end, content: Array("x".utf8)))
        ])
        let completed = try text.apply(missing)
        #expect(completed.appliedOperationCount == 3)
        #expect(text.pendingOperationCount == 0)
        #expect(text.string == "x")
        try checkTextBehaves(text)
    }

    // MARK: Issue 18, item 4: merge with reused operation ids

    /// Two texts that used one operation id for different things: `merge` throws, as `apply`
    /// does, and leaves the text as it was.
    @Test func mergeOfForgedHistoriesThrows() throws {
        var a = TextCRDT(replica: ReplicaID(1))
        try a.insert("abc", atUTF16: 0)
        var forged = TextCRDT(replica: ReplicaID(1))
        try forged.insert("x", atUTF16: 0)
        try forged.delete(utf16Range: 0..<1)
        var b = TextCRDT(replica: ReplicaID(2))
        try b.insert("q", atUTF16: 0)
        try b.merge(forged)
        let before = b.encoded()
        try a.insert("d", atUTF16: 3)
        #expect(throws: TextError.self) { try b.merge(a) }
        #expect(b.encoded() == before)
        try checkTextBehaves(b)
    }

    // MARK: Issue 18, item 5: non-canonical encodings

    /// "Hello" as two unmerged runs: readers normalise (FORMAT.md): it decodes to the same text
    /// as the canonical encoding, and encodes to exactly the canonical bytes.
    @Test func nonCanonicalTextStateNormalises() throws {
        let hex = "6d73111a0548656c6c6f010100000000000000050100020100020400080092083dee"
        let decoded = try TextCRDT(decoding: bytesFromHex(hex), replica: ReplicaID(9))
        var typed = TextCRDT(replica: ReplicaID(1))
        try typed.insert("Hello", atUTF16: 0)
        #expect(decoded.string == "Hello")
        #expect(decoded.version == typed.version)
        #expect(decoded.encoded() == typed.encoded())
        try checkTextBehaves(decoded)
    }

    // MARK: Issue 12, item 5: the public API cannot make states that disagree

    /// `changes(since:)` then `restricted(to:counters:)` carries "He" as a tombstone without the
    /// deletion: the receiver holds it back instead of showing "llo" at the version of a replica
    /// that shows "Hello".
    @Test func restrictedDeltaWithoutItsDeletionIsHeldBack() throws {
        var a = TextCRDT(replica: ReplicaID(1))
        try a.insert("Hello", atUTF16: 0)
        var b = a.fork(replica: ReplicaID(2))
        try b.delete(utf16Range: 0..<2)
        let restricted = b.changes(since: VersionVector()).restricted(to: ReplicaID(1), counters: 0..<5)
        var receiver = TextCRDT(replica: ReplicaID(3))
        try receiver.apply(restricted)
        try checkTextBehaves(receiver)
        var peer = TextCRDT(replica: ReplicaID(4))
        try peer.apply(a.changes(since: peer.version))
        if receiver.version == peer.version {
            #expect(receiver.string == peer.string)
            #expect(receiver.encoded() == peer.encoded())
        }
        // The deletion arriving later completes it.
        try receiver.apply(b.changes(since: receiver.version))
        #expect(receiver.string == "llo")
        #expect(receiver.pendingOperationCount == 0)
        #expect(receiver.encoded() == b.encoded())
        // changes(in:) makes the same delta.
        var other = TextCRDT(replica: ReplicaID(5))
        try other.apply(try b.changes(in: [(ReplicaID(1), 0..<5)]))
        try checkTextBehaves(other)
        #expect(other.version.entries.isEmpty || other.string == "Hello")
    }

    /// One hostile change (the deletion's target, or an origin, naming an operation that does
    /// not exist): the tombstone it would orphan is held back with it, never applied alone.
    @Test func deltaWithAMissingDependencyIsNotAcceptedInPart() throws {
        var a = TextCRDT(replica: ReplicaID(1))
        try a.insert("Hello", atUTF16: 0)
        var b = a.fork(replica: ReplicaID(2))
        try b.delete(utf16Range: 0..<2)
        try b.insert("J", atUTF16: 0)
        let honest = b.changes(since: VersionVector())
        var variants: [TextDelta] = []
        for index in honest.runs.indices {
            var runs = honest.runs
            switch runs[index].kind {
            case let .deletion(target, isReversed):
                runs[index].kind = .deletion(target: OperationID(replica: target.replica, counter: target.counter + 40), isReversed: isReversed)
            case let .insertion(_, originRight, content):
                runs[index].kind = .insertion(originLeft: OperationID(replica: ReplicaID(1), counter: 77), originRight: originRight, content: content)
            }
            variants.append(TextDelta(runs: runs))
        }
        #expect(variants.count == 4)
        for (index, delta) in variants.enumerated() {
            var receiver = TextCRDT(replica: ReplicaID(3))
            // Taken, with the forged run and what depends on it held back: never the deleted
            // "He" shown, never a deletion applied without its target.
            let report = try receiver.apply(delta)
            #expect(report.pendingOperationCount > 0, "variant \(index): nothing held back")
            #expect(report.rejectedOperationCount == 0, "variant \(index)")
            #expect(receiver.pendingOperationCount == report.pendingOperationCount, "variant \(index)")
            #expect(!receiver.string.contains("H") && !receiver.string.contains("e"), "variant \(index): \(receiver.string)")
            try checkTextBehaves(receiver)
            try checkTransfer(receiver)
            // The honest history completes it (the forged run's operations, held under the
            // honest ids, are then duplicates): the honest text, nothing held back.
            try receiver.apply(honest)
            #expect(receiver.string == "Jllo", "variant \(index)")
            #expect(receiver.pendingOperationCount == 0, "variant \(index)")
            #expect(receiver.encoded() == b.encoded(), "variant \(index)")
            try checkTextBehaves(receiver)
        }
    }

    /// `changes(in:)` with a replica or range the text does not hold throws.
    @Test func changesInUnheldRangesThrow() throws {
        var a = TextCRDT(replica: ReplicaID(1))
        try a.insert("Hello", atUTF16: 0)
        #expect(throws: TextError.self) { try a.changes(in: [(ReplicaID(7), 0..<1)]) }
        #expect(throws: TextError.self) { try a.changes(in: [(ReplicaID(1), 0..<6)]) }
        #expect(try a.changes(in: [(ReplicaID(1), 2..<2)]).isEmpty)
        #expect(try a.changes(in: [(ReplicaID(1), 0..<5)]) == a.changes(since: VersionVector()))
    }
}

extension HostileBytesRegressionTests {
    // MARK: /work/fuzz-findings.md

    /// The fuzzers' two-replica text history (wt-fuzz `FuzzWorld.makeTexts`): the peers and the
    /// whole history.
    static func fuzzWorldTexts() throws -> (peers: [TextCRDT], complete: TextCRDT) {
        var alice = TextCRDT(replica: ReplicaID(0xA1))
        var bob = TextCRDT(replica: ReplicaID(0xB2))
        try alice.insert("Hello world", atScalar: 0)
        try bob.apply(alice.changes(since: bob.version))
        try alice.insert(", dear", atScalar: 5)
        try bob.delete(scalarRange: 6..<11)
        try bob.insert("Welt 👍🏽 e\u{301}", atScalar: 6)
        let middle = bob
        try alice.apply(bob.changes(since: alice.version))
        try bob.apply(alice.changes(since: bob.version))
        try alice.delete(scalarRange: 0..<1)
        try alice.insert("h", atScalar: 0)
        try bob.apply(alice.changes(since: bob.version))
        let peers = [TextCRDT(replica: ReplicaID(0xC3)), middle.fork(replica: ReplicaID(0xC4)), bob.fork(replica: ReplicaID(0xC5))]
        return (peers, alice)
    }

    /// A fuzz input: mode byte, then the blob (mode 0), the blob whose checksum is made valid
    /// (1), or a body to seal (2).
    static func fuzzInput(_ hex: String, kind: BlobKind) -> [UInt8] {
        let input = bytesFromHex(hex)
        switch input.first {
        case 2: return BlobEnvelope.seal(kind: kind, version: 1, body: Array(input.dropFirst()))
        default: return Array(input.dropFirst())
        }
    }

    /// F1 and F3: a hostile delta, then the honest history: no deleted item without its
    /// deletion, and a text whose operation log replays to it (what a new replica given its
    /// history shows).
    ///
    /// Each input with the number of the three peers that take it: one refused whole leaves the
    /// peer as it was (and the honest history then applies as to any peer), so no input's
    /// checks are skipped unseen.
    @Test(arguments: [
        ("0208a100000000000000b200000000000040000206208204a2048c05000e051200221800240018022100468c090005656c6c6f202c20646561726857656c7420f09f918df09f8fbd2065cc81", 3),
        ("02084c00000000000000b200000000000040000206208004a2048c05010a350c00221800240018022100068c090005656c6c6f202c20646561726857656c7420f09f918df09f8fbd2065cc81", 0),
        ("02089900000000000000b200000000000040000206208204a2048c05010a350c00221800240018022100068c090005656c6c6f202c20646561726857656c7420f09f918df09f8fbd2065cc81", 0),
    ] + fuzzF3OwnItemsBetweenOriginsInputs.map { ($0, 3) })
    func fuzzHostileDeltaThenHonestHistory(hex: String, acceptingPeers: Int) throws {
        let delta = try TextDelta(decoding: Self.fuzzInput(hex, kind: .textDelta))
        let world = try Self.fuzzWorldTexts()
        let honest = world.complete.changes(since: VersionVector())
        var accepted = 0
        for peer in world.peers {
            var text = peer
            do {
                try text.apply(delta)
                accepted += 1
                try checkTextBehaves(text)
                try checkTransfer(text)
            } catch is TextError {
                #expect(text.version == peer.version && text.encoded() == peer.encoded(), "a refused delta changed the peer")
            }
            try text.apply(honest)
            try checkTextBehaves(text)
            try checkTransfer(text)
        }
        #expect(accepted == acceptingPeers)
    }
}

extension HostileBytesRegressionTests {
    /// F3, third input: run 5d.18 names (start, 5d.5) as its origins, with 5d.0…16 of its own
    /// replica between them. Since 4e7ac30 every peer refuses it whole (its run f2.5, Lamport 8,
    /// names 5d.5, Lamport 14).
    static let fuzzF3ThirdInput =
        "02085d00000000000000f200000002000000001206208004a2048c05000e0512002218001a0006022100068c090005656c6c6f206465202c20656572685764616c7420f09f918dec9f81"

    /// The class of the F3 third input, timestamps consistent (raw envelopes): replica 5d types
    /// "ab" (5d.0, 5d.1), then 5d.2 "Z" after 5d.0 before the end (5d.1 between), then 5d.3 "X"
    /// from the start before 5d.2; and "abcdef", then "X" between 5d.0 and 5d.1 (fine), then "Y"
    /// from the start before 5d.1 (5d.0 between). Before the rule, the text they and the honest
    /// history left depended on the order they arrived in, and its log did not replay to it.
    static let fuzzF3OwnItemsBetweenOriginsInputs = [
        "006d73211a045d000000000000000002038001441e00045802000261625a585ead2225",
        "006d73211e045d0000000000000000020380054c2a000c5806000c6162636465665859a49c3042",
    ]

    /// F3, third input: refused whole by every peer (an insertion not newer than its origin).
    @Test func fuzzF3ThirdInputIsRefused() throws {
        let delta = try TextDelta(decoding: Self.fuzzInput(Self.fuzzF3ThirdInput, kind: .textDelta))
        for peer in try Self.fuzzWorldTexts().peers {
            var text = peer
            #expect(throws: TextError.self) { try text.apply(delta) }
            #expect(text.version == peer.version && text.string == peer.string)
        }
    }

    /// An insertion whose origins have an earlier item of its own replica between them is
    /// rejected (what follows it of its replica waits for good), whatever the order operations
    /// arrive in: the hostile delta then the honest history, or the reverse, give one text, the
    /// one its own log replays to. And what a notebook checks before deciding a text run is ready
    /// (`appliesWithoutRejection`) agrees with apply, so a notebook never applies a run that
    /// apply rejects.
    @Test(arguments: fuzzF3OwnItemsBetweenOriginsInputs)
    func fuzzF3OwnItemsBetweenOrigins(hex: String) throws {
        let delta = try TextDelta(decoding: Self.fuzzInput(hex, kind: .textDelta))
        let world = try Self.fuzzWorldTexts()
        let honest = world.complete.changes(since: VersionVector())
        for peer in world.peers {
            var text = peer
            let report = try text.apply(delta)
            #expect(report.rejectedOperationCount == 1)
            try checkTextBehaves(text)
            try checkTransfer(text)
            try text.apply(honest)
            var honestFirst = peer
            try honestFirst.apply(honest)
            try honestFirst.apply(delta)
            try checkTextBehaves(text)
            try checkTransfer(text)
            try checkTextBehaves(honestFirst)
            #expect(text.version == honestFirst.version)
            #expect(text.string == honestFirst.string)
        }
        // The replica's runs up to each run (what a notebook run's text is): the prediction
        // agrees with apply, on a copy (several insertion runs) or against the tree (one).
        var predictedRejections = 0
        for peer in world.peers {
            for run in delta.runs {
                let part = delta.restricted(to: run.replica, counters: run.counter..<run.end)
                for candidate in [part, delta.restricted(to: run.replica, counters: 0..<run.end)] {
                    guard (try? peer.validate(candidate)) != nil, peer.canApplyCompletely(candidate) else { continue }
                    var applied = peer
                    let report = applied.apply(validated: candidate, recordingEdits: false)
                    let predicted = peer.appliesWithoutRejection(candidate)
                    #expect(predicted == (report.rejectedOperationCount == 0))
                    if !predicted { predictedRejections += 1 }
                }
            }
        }
        #expect(predictedRejections > 0)
    }
}

// MARK: Checks shared with the property tests

/// A valid text behaves: its invariants hold, it encodes, its encoding decodes to a text with the
/// same string and version that encodes to the same bytes.
func checkTextBehaves(_ text: TextCRDT, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try text.checkInvariants()
    let encoded = text.encoded()
    let decoded = try TextCRDT(decoding: encoded, replica: text.replica)
    #expect(decoded.string == text.string, sourceLocation: sourceLocation)
    #expect(decoded.version == text.version, sourceLocation: sourceLocation)
    #expect(decoded.encoded() == encoded, sourceLocation: sourceLocation)
}

/// `text`'s whole history applied to a new replica, and `text` merged into another, give
/// valid texts that agree with it at equal versions.
func checkTransfer(_ text: TextCRDT, sourceLocation: SourceLocation = #_sourceLocation) throws {
    var applied = TextCRDT(replica: ReplicaID(0xE2))
    try applied.apply(text.changes(since: VersionVector()))
    try checkTextBehaves(applied, sourceLocation: sourceLocation)
    var merged = TextCRDT(replica: ReplicaID(0xE3))
    try merged.merge(text)
    try checkTextBehaves(merged, sourceLocation: sourceLocation)
    for other in [applied, merged] where other.version == text.version {
        #expect(other.string == text.string, sourceLocation: sourceLocation)
        #expect(other.encoded() == text.encoded(), sourceLocation: sourceLocation)
    }
}
