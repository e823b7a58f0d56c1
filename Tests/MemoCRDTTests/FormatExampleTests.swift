import Foundation
@testable import MemoCRDT
import Testing

/// FORMAT.md's "Worked examples": each example's bytes are exactly what the encoder writes for
/// the history it names, and decode back to it. The bytes are read from the document itself (the
/// leading two-digit hex groups of each line of the block after `<!-- example: NAME -->`), so
/// an edit of either the layout's examples or the encoder that breaks their agreement fails here.
@Suite struct FormatExampleTests {
    /// The examples of FORMAT.md by name.
    static func examples() throws -> [String: [UInt8]] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try String(contentsOf: folder.appendingPathComponent("FORMAT.md"), encoding: .utf8)
        var examples: [String: [UInt8]] = [:]
        var name: String?
        var inBlock = false
        var bytes: [UInt8] = []
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("<!-- example: "), let end = line.range(of: " -->") {
                name = String(line[line.index(line.startIndex, offsetBy: 14)..<end.lowerBound])
            } else if line.hasPrefix("```") && name != nil {
                if inBlock, let finished = name {
                    examples[finished] = bytes
                    name = nil
                    bytes = []
                }
                inBlock.toggle()
            } else if inBlock {
                // Leading groups of two hex digits, up to the first group that is not one.
                for token in line.split(separator: " ", omittingEmptySubsequences: true) {
                    guard token.count == 2, let byte = UInt8(token, radix: 16) else { break }
                    bytes.append(byte)
                }
            }
        }
        return examples
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
