// The envelope checksum (FORMAT.md "Envelope"): CRC-32C, by the processor's instruction where
// it has one, else eight bytes at a time through one flat table; both checked against published
// check values and a bit-by-bit reference over every length and alignment up to 40 bytes, and
// against each other over random lengths up to 100 KB.

@testable import MemoCRDT
import TestSupport
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
        #expect(CRC32C.checksumByTable(Array("123456789".utf8), 0..<9) == 0xE306_9283)
    }

    /// The instruction and the table give the same CRC of random bytes at random offsets and
    /// lengths (up to 100 KB). This machine's answer is printed: on a processor without the
    /// instruction both sides are the table, and the test says so rather than pass silently.
    @Test func theInstructionAndTheTableAgree() {
        var random = SeededRandom(seed: 0xC4C3_2C)
        var bytes = [UInt8](repeating: 0, count: 100_000 + 64)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
        if !CRC32C.hardwareAvailable { print("CRC32CTests: no CRC-32C instruction on this processor; the table alone is tested") }
        for _ in 0..<200 {
            let start = Int(random.next() % 64)
            let length = Int(random.next() % 100_000)
            let range = start..<start + length
            #expect(CRC32C.checksum(bytes, range) == CRC32C.checksumByTable(bytes, range), "\(range)")
        }
        // Every short length and alignment, where the instruction's tail loop takes over.
        for start in 0..<9 {
            for length in 0...40 {
                let range = start..<start + length
                #expect(CRC32C.checksum(bytes, range) == Self.reference(bytes[range]), "\(range)")
                #expect(CRC32C.checksumByTable(bytes, range) == Self.reference(bytes[range]), "\(range)")
            }
        }
    }

    /// Linux on x86-64 and 64-bit ARM (where the tests run) has the instruction: the path that
    /// every checksum takes is the one tested above, not the table alone.
    @Test func theInstructionIsUsedWhereTheProcessorHasIt() {
        #if arch(x86_64) || arch(arm64)
        #expect(CRC32C.hardwareAvailable)
        #endif
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
