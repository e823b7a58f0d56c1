// The UTF-8 validator every text decoder and the notebook's loading use
// (`UTF8Scanning.isValid`, a shift-table automaton): it accepts exactly what the standard
// library accepts, checked over every sequence of up to four bytes drawn from the bytes where
// UTF-8's rules change, every two-byte sequence, and each byte position of the ASCII fast path.

@testable import MemoCRDT
import Testing

@Suite struct UTF8ValidationTests {
    /// The bytes where a rule of table 3-7 of the Unicode standard changes, and a few between.
    static let boundaries: [UInt8] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
        0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ]

    static func validated(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { UTF8Scanning.isValid($0) }
    }

    @Test func everyShortSequenceOfBoundaryBytesAgreesWithTheStandardLibrary() {
        var sequences: [[UInt8]] = [[]]
        var disagreements = 0
        for _ in 1...4 {
            sequences = sequences.flatMap { prefix in Self.boundaries.map { prefix + [$0] } }
            for bytes in sequences where Self.validated(bytes) != (String(validating: bytes, as: UTF8.self) != nil) {
                disagreements += 1
                if disagreements <= 5 { Issue.record("disagrees on \(bytes)") }
            }
        }
        #expect(disagreements == 0)
    }

    @Test func everyTwoByteSequenceAgreesWithTheStandardLibrary() {
        var disagreements = 0
        for first in 0...255 {
            for second in 0...255 {
                let bytes = [UInt8(first), UInt8(second)]
                if Self.validated(bytes) != (String(validating: bytes, as: UTF8.self) != nil) { disagreements += 1 }
            }
        }
        #expect(disagreements == 0)
    }

    /// A character, or a bad byte, at every offset of a longer ASCII run: the eight-bytes path
    /// hands over to the automaton, and back, at every alignment.
    @Test func charactersAtEveryOffsetOfAnASCIIRun() {
        let characters: [[UInt8]] = [Array("é".utf8), Array("한".utf8), Array("😀".utf8)]
        let damaged: [[UInt8]] = [[0x80], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]]
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 31, 40] {
            for offset in 0...length {
                let run = Array(repeating: UInt8(ascii: "a"), count: length)
                for character in characters {
                    #expect(Self.validated(Array(run[..<offset]) + character + run[offset...]), "\(character) at \(offset) of \(length)")
                }
                for bad in damaged {
                    #expect(!Self.validated(Array(run[..<offset]) + bad + run[offset...]), "\(bad) at \(offset) of \(length)")
                }
            }
        }
    }
}
