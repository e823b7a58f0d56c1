import Foundation
@testable import MemoCRDT
import TestSupport
import Testing

/// FORMAT.md's "Worked examples": each example's bytes are exactly what the encoder writes for
/// the history it names, and decode back to it. The bytes are read from the document itself (the
/// leading two-digit hex groups of each line of the block after `<!-- example: NAME -->`), so
/// an edit of either the layout's examples or the encoder that breaks their agreement fails here.
@Suite struct FormatExampleTests {
    /// The examples of the text kinds (the others: `FormatExampleTests` of MemoSyncTests).
    static let names: Set<String> = ["text-state-hi", "text-state-hi-backspaced", "text-delta-hi", "text-delta-hi-backspaced"]

    static func examples() throws -> [String: [UInt8]] {
        try formatExamples().filter { names.contains($0.key) }
    }

    static func histories() throws -> (hi: TextCRDT, backspaced: TextCRDT) {
        var text = TextCRDT(replica: ReplicaID(0x0A))
        try text.insert("Hi", atUTF16: 0)
        let hi = text
        try text.delete(utf16Range: 0..<1)
        return (hi, text)
    }

    @Test func everyExampleIsWhatTheEncoderWrites() throws {
        let examples = try Self.examples()
        let (hi, backspaced) = try Self.histories()
        let expected: [String: [UInt8]] = [
            "text-state-hi": hi.encoded(),
            "text-state-hi-backspaced": backspaced.encoded(),
            "text-delta-hi": hi.changes(since: VersionVector()).encoded(),
            "text-delta-hi-backspaced": backspaced.changes(since: VersionVector()).encoded(),
        ]
        #expect(Set(examples.keys) == Set(expected.keys), "FORMAT.md has examples \(examples.keys.sorted())")
        for (name, bytes) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(examples[name] == bytes, "\(name): FORMAT.md shows \(examples[name]?.count ?? 0) bytes, the encoder writes \(bytes.count)")
        }
    }

    @Test func everyExampleDecodesToItsHistory() throws {
        let examples = try Self.examples()
        let (hi, backspaced) = try Self.histories()
        let state = try TextCRDT(decoding: try #require(examples["text-state-hi-backspaced"]), replica: ReplicaID(1))
        #expect(state.string == "i" && state.version == backspaced.version)
        #expect(try TextCRDT(decoding: try #require(examples["text-state-hi"]), replica: ReplicaID(1)).string == "Hi")
        var receiver = TextCRDT(replica: ReplicaID(2))
        try receiver.apply(TextDelta(decoding: try #require(examples["text-delta-hi"])))
        #expect(receiver.string == "Hi" && receiver.version == hi.version)
        var other = TextCRDT(replica: ReplicaID(3))
        try other.apply(TextDelta(decoding: try #require(examples["text-delta-hi-backspaced"])))
        #expect(other.string == "i" && other.version == backspaced.version && other.pendingOperationCount == 0)
    }
}
