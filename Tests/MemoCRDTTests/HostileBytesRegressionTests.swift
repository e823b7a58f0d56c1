@testable import MemoCRDT
import TestSupport
import Testing

/// Every crash reproducer found by fuzzing (issue 18 and `/work/fuzz-findings.md`), decoded from
/// its hex and fed to the path that trapped: each must now give a typed error or a valid value
/// that then behaves (its invariants hold, it encodes, and the encoding decodes to the same
/// bytes).
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

    /// The 60-byte segment that stopped `memo sync` on every device: a notebook delta whose text
    /// delta overflows.
    @Test func notebookDeltaWithOverflowingText() throws {
        let hex = "6d73413801010000000000000001010000000000000001000000000000000100000100000101001404010000000000000001feffffffffffffffff018ac81dfb"
        #expect(throws: DecodingError.self) { try NotebookDelta(decoding: bytesFromHex(hex)) }
    }

    /// The 77-byte snapshot that crashed a new device's first sync: a notebook state whose memo's
    /// text overflows when replayed. Refused when decoded (the lazy check of each memo's log
    /// checks position-form offsets); every path that reads it gives a typed error.
    @Test func notebookStateWithOverflowingText() throws {
        let hex = "6d73314401010000000000000001000000000000001f016101010000000000000002010002010002000001feffffffffffffffff010101000000000000000302000001010002000177ae1dd3"
        #expect(throws: DecodingError.self) { try Notebook(decoding: bytesFromHex(hex), replica: ReplicaID(9)) }
        try exerciseNotebookState(bytesFromHex(hex))
    }

    // MARK: Issue 18, item 2 (and issue 12, item 5): tombstones without their deletions

    /// A text delta whose insertion arrives already deleted while the deletion is held back.
    @Test func tombstoneWithoutItsDeletion() throws {
        let hex = "6d73211b0801000000000000000200000000000000000201200102010100005a3da2be"
        let delta = try TextDelta(decoding: bytesFromHex(hex))
        var text = TextCRDT(replica: ReplicaID(50))
        do {
            try text.apply(delta)
        } catch {
            return  // refused whole: nothing to check
        }
        try checkTextBehaves(text)
        // A text that holds the same operations with nothing deleted shows the same.
        #expect(text.string.isEmpty || text.version.entries.isEmpty == false)
    }

    // MARK: Issue 18, item 3: a notebook state whose parts disagree

    /// A trash that saw text operations the memo does not hold: refused when decoded (else
    /// replicas that load it would see the memo trashed while those that received the same
    /// history as a delta see it active).
    @Test func trashSeeingTextThatDoesNotExist() throws {
        let hex = "6d7331290101000000000000000100000000000000030000000101000000000000000202000001020001000101303782f4"
        #expect(throws: DecodingError.self) { try Notebook(decoding: bytesFromHex(hex), replica: ReplicaID(9)) }
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

    /// The same body in a notebook state: it is read (readers normalise), written back as read
    /// while the memo is not decoded (FORMAT.md), and once the memo is decoded the notebook
    /// encodes to the bytes of a notebook that holds the same operations written canonically.
    @Test func nonCanonicalMemoBodyNormalisesOnceDecoded() throws {
        let memo = MemoID(high: 7, low: 7)
        var honest = Notebook(replica: ReplicaID(1))
        try honest.createMemo(memo, text: "Hello", wallMilliseconds: 1_000)
        let canonicalBytes = honest.encoded()
        let nonCanonical = Array(bytesFromHex("6d73111a0548656c6c6f010100000000000000050100020100020400080092083dee")[4..<30])
        var canonicalText = TextCRDT(replica: ReplicaID(1))
        try canonicalText.insert("Hello", atUTF16: 0)
        let canonicalBody = canonicalText.encodedBody()
        // Splice the non-canonical body (a version 1 body) in place of the memo's (one length
        // byte either way: the length shifted left by one, bit 0 set for a version 1 body).
        let (bodyRange, version) = try BlobEnvelope.open(canonicalBytes, kind: .notebookState, versions: 1...15)
        var body = Array(canonicalBytes[bodyRange])
        guard let start = (0...(body.count - canonicalBody.count)).first(where: { body[$0..<$0 + canonicalBody.count].elementsEqual(canonicalBody) }) else {
            Issue.record("the memo's text body is not in the notebook state as encoded alone")
            return
        }
        #expect(body[start - 1] == UInt8(canonicalBody.count << 1))
        body.replaceSubrange(start - 1..<start + canonicalBody.count, with: [UInt8(nonCanonical.count << 1 | 1)] + nonCanonical)
        let spliced = BlobEnvelope.seal(kind: .notebookState, version: version, body: body)
        var read = try Notebook(decoding: spliced, replica: ReplicaID(2))
        #expect(read.memo(memo)?.text == "Hello")
        #expect(read.version == honest.version)
        #expect(read.encoded() == spliced, "written back as read while the memo is not decoded")
        try read.prepareForEditing(memo)
        #expect(read.encoded() == canonicalBytes, "canonical once decoded")
        try read.checkInvariants()
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
        for delta in variants {
            var receiver = TextCRDT(replica: ReplicaID(3))
            guard (try? receiver.apply(delta)) != nil else { continue }
            try checkTextBehaves(receiver)
            try checkTransfer(receiver)
            // The honest history completes it (the forged run stays held back: ids are trusted).
            _ = try? receiver.apply(honest)
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
    @Test(arguments: [
        "0208a100000000000000b200000000000040000206208204a2048c05000e051200221800240018022100468c090005656c6c6f202c20646561726857656c7420f09f918df09f8fbd2065cc81",
        "02084c00000000000000b200000000000040000206208004a2048c05010a350c00221800240018022100068c090005656c6c6f202c20646561726857656c7420f09f918df09f8fbd2065cc81",
        "02089900000000000000b200000000000040000206208204a2048c05010a350c00221800240018022100068c090005656c6c6f202c20646561726857656c7420f09f918df09f8fbd2065cc81",
        Self.fuzzF3ThirdInput,
    ] + fuzzF3OwnItemsBetweenOriginsInputs)
    func fuzzHostileDeltaThenHonestHistory(hex: String) throws {
        let delta = try TextDelta(decoding: Self.fuzzInput(hex, kind: .textDelta))
        let world = try Self.fuzzWorldTexts()
        for peer in world.peers {
            var text = peer
            guard (try? text.apply(delta)) != nil else { continue }
            try checkTextBehaves(text)
            try checkTransfer(text)
            _ = try? text.apply(world.complete.changes(since: VersionVector()))
            try checkTextBehaves(text)
            try checkTransfer(text)
        }
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

    /// The same forged text as a notebook run's text: the notebook applies the part that applies
    /// and holds the rest back (never applying a run that apply would reject in part: that
    /// was a precondition), and stays valid.
    @Test func fuzzF3OwnItemsBetweenOriginsInANotebook() throws {
        let text = try TextDelta(decoding: Self.fuzzInput(Self.fuzzF3OwnItemsBetweenOriginsInputs[0], kind: .textDelta))
        let replica = ReplicaID(0x5d)
        let memo = MemoID(high: 3, low: 4)
        let delta = NotebookDelta(
            runs: [
                .init(replica: replica, run: NotebookRun(counter: 0, length: 1, memo: memo, kind: .create, timestamp: HybridTimestamp(rawValue: 1 << 16))),
                .init(replica: replica, run: NotebookRun(counter: 1, length: 4, memo: memo, kind: .text(textCounter: 0), timestamp: HybridTimestamp(rawValue: 2 << 16))),
            ],
            texts: [(memo, text)])
        var notebook = Notebook(replica: ReplicaID(1))
        try notebook.createMemo(MemoID(high: 1, low: 2), text: "kept", wallMilliseconds: 1_000)
        _ = try notebook.apply(delta)
        #expect(notebook.pendingOperationCount > 0)
        #expect(notebook.memo(memo)?.text == "ab")
        try notebook.checkInvariants()
        let decoded = try Notebook(decoding: notebook.encoded(), replica: ReplicaID(1))
        #expect(decoded.memo(memo)?.text == "ab")
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

/// Feeds notebook state bytes to every path that reads them: decoding gives a typed error, or a
/// notebook whose every use gives a typed error or a valid value (its invariants hold, its memos
/// open, its changes apply to a fresh notebook, and it encodes and decodes to the same bytes).
func exerciseNotebookState(_ bytes: [UInt8]) throws {
    let notebook: Notebook
    do {
        notebook = try Notebook(decoding: bytes, replica: ReplicaID(77))
    } catch {
        return
    }
    try notebook.checkInvariants()
    var copy = notebook
    for id in notebook.memoIDs {
        do throws(NotebookError) {
            try copy.prepareForEditing(id)
        } catch {
            if case .corruptMemo = error { continue }
            throw error
        }
    }
    let delta: NotebookDelta
    do {
        delta = try notebook.changes(since: VersionVector())
    } catch {
        guard case .corruptMemo = error else { throw error }
        return
    }
    var fresh = Notebook(replica: ReplicaID(78))
    try fresh.apply(delta)
    try fresh.checkInvariants()
    let encoded = fresh.encoded()
    #expect(try Notebook(decoding: encoded, replica: ReplicaID(79)).encoded() == encoded)
}

func bytesFromHex(_ text: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        result.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return result
}
