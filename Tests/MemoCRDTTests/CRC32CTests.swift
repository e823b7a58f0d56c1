// The envelope checksum (FORMAT.md "Envelope"): CRC-32C, read eight bytes at a time through
// one flat table; checked against published check values and a byte-at-a-time reference over
// every length and alignment up to 40 bytes.

@testable import MemoCRDT
import Testing

@Suite struct CRC32CTests {
    /// Bit by bit, from the polynomial: the smallest obviously right CRC-32C.
    static func reference(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    @Test func publishedCheckValues() {
        // RFC 3720 (iSCSI), appendix B.4, and the usual "123456789" check value.
        #expect(CRC32C.checksum(Array("123456789".utf8), 0..<9) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32), 0..<32) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32), 0..<32) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Array(0...31), 0..<32) == 0x46DD_794E)
        #expect(CRC32C.checksum([], 0..<0) == 0)
    }

    @Test func everyLengthAndAlignmentAgreesWithTheReference() {
        var bytes: [UInt8] = []
        var state: UInt32 = 0x1234_5678
        for _ in 0..<64 {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: state >> 24))
        }
        for start in 0..<9 {
            for length in 0...40 {
                let range = start..<start + length
                #expect(CRC32C.checksum(bytes, range) == Self.reference(bytes[range]), "\(range)")
            }
        }
    }

    /// The CRC of two pieces, combined, is the CRC of the whole: every split of a 300-byte
    /// string, empty pieces included, and a long second piece (the length's high bits).
    @Test func combiningTwoPiecesGivesTheWhole() {
        var bytes: [UInt8] = []
        var state: UInt32 = 0x9E37_79B9
        for _ in 0..<300 {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: state >> 24))
        }
        let whole = CRC32C.checksum(bytes, bytes.indices)
        for split in 0...bytes.count {
            let first = CRC32C.checksum(bytes, 0..<split)
            let second = CRC32C.checksum(bytes, split..<bytes.count)
            #expect(CRC32C.combine(first, second, secondLength: bytes.count - split) == whole, "split at \(split)")
        }
        let long = [UInt8](repeating: 0x5A, count: 70_000) + bytes
        #expect(
            CRC32C.combine(CRC32C.checksum(long, 0..<3), CRC32C.checksum(long, 3..<long.count), secondLength: long.count - 3)
                == CRC32C.checksum(long, long.indices))
    }
}
