@testable import MemoCRDT
import Testing

/// FORMAT.md, "Primitives" and "The envelope": a varint has exactly one encoding (a reader
/// rejects a non-minimal one, and one longer than 10 bytes or past 64 bits), and an envelope's
/// reader names what is wrong, in its stated order.
@Suite struct EnvelopeAndVarintTests {
    private func varint(_ bytes: [UInt8]) throws(DecodingError) -> UInt64 {
        var reader = ByteReader(bytes, from: 0, to: bytes.count)
        return try reader.varint()
    }

    @Test func aVarintHasExactlyOneEncoding() throws {
        for value: UInt64 in [0, 1, 127, 128, 300, 16_383, 16_384, 1 << 35, .max] {
            var writer = ByteWriter()
            writer.varint(value)
            #expect(try varint(writer.bytes) == value)
            #expect(writer.bytes.count <= 10)
        }
        // The same values with a final 0x00 group added: refused.
        for nonMinimal: [UInt8] in [[0x80, 0x00], [0x81, 0x00], [0xFF, 0x80, 0x00], [0x80, 0x80, 0x80, 0x00]] {
            #expect(throws: DecodingError.malformed("varint is not minimal")) { try varint(nonMinimal) }
        }
        // Eleven bytes, and a tenth byte carrying bits past 64: refused.
        #expect(throws: DecodingError.malformed("varint longer than 10 bytes")) { try varint([UInt8](repeating: 0x81, count: 10) + [0x01]) }
        #expect(throws: DecodingError.malformed("varint overflows 64 bits")) { try varint([UInt8](repeating: 0xFF, count: 9) + [0x02]) }
        #expect(try varint([UInt8](repeating: 0xFF, count: 9) + [0x01]) == .max)
    }

    @Test func anEnvelopeNamesWhatIsWrongInItsOrder() throws {
        let sealed = BlobEnvelope.seal(kind: .textState, version: 2, body: [1, 2, 3])
        #expect(try BlobEnvelope.open(sealed, kind: .textState, versions: 1...2).body == 4..<7)
        // Bytes after the checksum.
        #expect(throws: DecodingError.trailingBytes(count: 1)) { try BlobEnvelope.open(sealed + [0], kind: .textState, versions: 1...2) }
        // A cut one.
        #expect(throws: DecodingError.truncated(neededBytes: sealed.count, availableBytes: sealed.count - 1)) {
            try BlobEnvelope.open(Array(sealed.dropLast()), kind: .textState, versions: 1...2)
        }
        // A declared length over the limit, whatever follows (checked before the bytes present).
        var huge = ByteWriter()
        huge.byte(0x6D)
        huge.byte(0x73)
        huge.byte(BlobKind.textState.rawValue << 4 | 2)
        huge.varint(UInt64(Limits.encodedBytesMax) + 1)
        #expect(throws: DecodingError.tooLarge(bytes: Limits.encodedBytesMax + 1)) { try BlobEnvelope.open(huge.bytes, kind: .textState, versions: 1...2) }
        // A changed body byte: the checksum.
        var flipped = sealed
        flipped[5] ^= 0x40
        #expect(throws: DecodingError.self) { try BlobEnvelope.open(flipped, kind: .textState, versions: 1...2) }
        do {
            _ = try BlobEnvelope.open(flipped, kind: .textState, versions: 1...2)
        } catch {
            guard case .checksumMismatch = error else { Issue.record("not a checksum mismatch: \(error)"); return }
        }
        // The order: a wrong magic is named before a wrong kind, a wrong kind before the version.
        var notOurs = sealed + [0, 0]
        notOurs[0] = 0x00
        #expect(throws: DecodingError.notMemoSync) { try BlobEnvelope.open(notOurs, kind: .textDelta, versions: 9...9) }
        #expect(throws: DecodingError.wrongKind(expected: .textDelta, found: BlobKind.textState.rawValue)) {
            try BlobEnvelope.open(sealed + [0], kind: .textDelta, versions: 9...9)
        }
        #expect(throws: DecodingError.unsupportedVersion(kind: BlobKind.textState.rawValue, version: 2)) {
            try BlobEnvelope.open(sealed + [0], kind: .textState, versions: 3...4)
        }
    }
}
