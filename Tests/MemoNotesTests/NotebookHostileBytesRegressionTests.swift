import MemoCRDT
@testable import MemoNotes
import TestSupport
import Testing

/// The crash reproducers found by fuzzing (issue 18 and `/work/fuzz-findings.md`) that reach a
/// notebook, decoded from their hex and fed to the path that trapped: each must now give a typed
/// error or a valid value that then behaves (the text's own: `HostileBytesRegressionTests`).
@Suite struct NotebookHostileBytesRegressionTests {
    // MARK: Issue 18, item 1: arithmetic overflow in decoders

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

    // MARK: Issue 18, item 3: a notebook state whose parts disagree

    /// A trash that saw text operations the memo does not hold: refused when decoded (else
    /// replicas that load it would see the memo trashed while those that received the same
    /// history as a delta see it active).
    @Test func trashSeeingTextThatDoesNotExist() throws {
        let hex = "6d7331290101000000000000000100000000000000030000000101000000000000000202000001020001000101303782f4"
        #expect(throws: DecodingError.self) { try Notebook(decoding: bytesFromHex(hex), replica: ReplicaID(9)) }
    }

    // MARK: Issue 18, item 5: non-canonical encodings

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

    // MARK: /work/fuzz-findings.md

    /// The first of `HostileBytesRegressionTests.fuzzF3OwnItemsBetweenOriginsInputs`: mode byte 0,
    /// then a text delta envelope.
    static let fuzzF3OwnItemsBetweenOriginsInput = "006d73211a045d000000000000000002038001441e00045802000261625a585ead2225"

    /// The same forged text as a notebook run's text: the notebook applies the part that applies
    /// and holds the rest back (never applying a run that apply would reject in part: that
    /// was a precondition), and stays valid.
    @Test func fuzzF3OwnItemsBetweenOriginsInANotebook() throws {
        let text = try TextDelta(decoding: Array(bytesFromHex(Self.fuzzF3OwnItemsBetweenOriginsInput).dropFirst()))
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
    // Listing and searching a decoded notebook read texts not folded when decoded (folded on
    // the first search, from the loaded bytes): the same answers as the notebook with every key
    // folded into its records.
    var folded = notebook
    folded.refreshSearchKeys()
    for query in ["a", "e", "\u{FFFD}", "한"] { #expect(notebook.search(query) == folded.search(query)) }
    #expect(notebook.list(first: 3) == Array(folded.list().prefix(3)))
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
