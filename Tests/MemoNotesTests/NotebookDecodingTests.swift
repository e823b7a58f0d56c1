import MemoCRDT
import MemoNotes
import Testing

/// Notebook states whose parts do not agree are refused, whatever their checksum says.
@Suite struct NotebookDecodingTests {
    /// The parts of a notebook state holding one memo: everything before the memo's text body,
    /// the body, and everything after it.
    private func split(_ state: [UInt8]) throws -> (head: [UInt8], body: [UInt8], tail: [UInt8]) {
        let (bodyRange, _) = try BlobEnvelope.open(state, kind: .notebookState, versions: 1...15)
        var reader = ByteReader(state, from: bodyRange.lowerBound, to: bodyRange.upperBound)
        #expect(try reader.varint() == 1)
        for _ in 0..<16 { _ = try reader.byte() }
        // Version 2: the body's length shifted left by one (bit 0: a version 1 body).
        let length = Int(try reader.varint() >> 1)
        let start = reader.position
        return (
            Array(state[bodyRange.lowerBound..<start]), Array(state[start..<start + length]),
            Array(state[(start + length)..<bodyRange.upperBound])
        )
    }

    /// A memo's text holding operations its notebook runs do not cover (or the reverse) is a
    /// malformed state: the text and the log disagree.
    @Test func textAndRunsThatDisagreeAreRefused() throws {
        let id = MemoID(high: 1, low: 2)
        let replica = ReplicaID(7)
        var short = Notebook(replica: replica)
        try short.createMemo(id, text: "abc", wallMilliseconds: 1_000)
        var long = Notebook(replica: replica)
        try long.createMemo(id, text: "abcd", wallMilliseconds: 1_000)
        let (shortHead, shortBody, shortTail) = try split(short.encoded())
        let (_, longBody, longTail) = try split(long.encoded())
        // Both as they are decode.
        _ = try Notebook(decoding: short.encoded(), replica: replica)
        for (body, tail) in [(longBody, shortTail), (shortBody, longTail)] {
            var spliced = shortHead
            spliced.removeLast(varintLength(shortBody.count << 1))
            appendVarint(body.count << 1, to: &spliced)
            spliced += body + tail
            let state = BlobEnvelope.seal(kind: .notebookState, version: try BlobEnvelope.open(short.encoded(), kind: .notebookState, versions: 1...15).version, body: spliced)
            #expect(throws: DecodingError.self) { try Notebook(decoding: state, replica: replica) }
            do {
                _ = try Notebook(decoding: state, replica: replica)
            } catch {
                #expect("\(error)".contains("differ from the runs"), "\(error)")
            }
        }
    }

    private func varintLength(_ value: Int) -> Int {
        var count = 1
        var rest = value >> 7
        while rest > 0 {
            count += 1
            rest >>= 7
        }
        return count
    }

    private func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}
