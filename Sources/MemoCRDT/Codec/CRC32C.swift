// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), FORMAT.md "Envelope".
//
// Computed by the processor's CRC-32C instruction where it has one (x86-64 with SSE 4.2, 64-bit
// ARM: the C target `CMemoCRC32C`, asked once at run time), else by the table below. Both give
// the same CRC (`CRC32CTests` compares them, and each with a bit-by-bit reference); the
// instruction is about four times as fast (BENCHMARKS.md, "The processor's CRC instruction").

internal import CMemoCRC32C

package enum CRC32C {
    /// Whether this processor computes the CRC (``checksum(_:_:)`` uses it when it does).
    package static let hardwareAvailable = memo_crc32c_hardware_available() != 0

    /// Eight tables of 256 entries one after another (slicing by eight): entry `256 * k + b` is
    /// the CRC of byte `b` followed by `k` zero bytes. One flat array, read through an unsafe
    /// pointer: eight separate arrays cost a bounds check per lookup (issue 28: the two
    /// checksums over a 22 MB state were a fifth of opening a library of 10,000 memos).
    static let table: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            table[byte] = crc
        }
        for slice in 1..<8 {
            for byte in 0..<256 {
                let previous = table[256 * (slice - 1) + byte]
                table[256 * slice + byte] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()

    /// The CRC-32C of `bytes[range]`: by the processor's instruction when it has one, else
    /// by the table (``checksumByTable(_:_:)``).
    package static func checksum(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "range within the bytes")
        return bytes.withUnsafeBufferPointer { checksum(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The CRC-32C of the bytes in `buffer` (``checksum(_:_:)`` of memory not in an array).
    package static func checksum(_ buffer: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let base = buffer.baseAddress else { return 0 }
        guard hardwareAvailable else { return checksumByTable(base, count: buffer.count) }
        return ~memo_crc32c_update(0xFFFF_FFFF, base, buffer.count)
    }

    /// The CRC-32C of `bytes[range]` by the table, eight bytes at a time (what ``checksum(_:_:)``
    /// computes on a processor without the instruction).
    package static func checksumByTable(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "range within the bytes")
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }  // empty: the CRC of nothing
            return checksumByTable(base + range.lowerBound, count: range.count)
        }
    }

    /// The CRC-32C of the `count` bytes at `base`, by the table.
    private static func checksumByTable(_ base: UnsafePointer<UInt8>, count: Int) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            guard let t = table.baseAddress else { return 0 }
            var crc: UInt32 = 0xFFFF_FFFF
            var index = 0
            let end = count
            while end - index >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let low = crc ^ UInt32(truncatingIfNeeded: word)
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                index += 8
            }
            while index < end {
                crc = (crc >> 8) ^ t[Int((crc ^ UInt32(base[index])) & 0xFF)]
                index += 1
            }
            return ~crc
        }
    }

    // MARK: Combining

    // A CRC is a remainder of polynomial division, so the CRC of two byte strings one after the
    // other follows from the two CRCs and the second's length: the first's remainder, multiplied
    // by x to the power of 8 bits per byte of the second, modulo the polynomial, added (xor) to
    // the second's. The starting value and final inversion cancel out in that sum (both CRCs
    // start from all ones and end inverted). Polynomials are reflected, as the table's: bit 31
    // is x^0.

    /// The reflected generator polynomial (without its x^32 term).
    private static let polynomial: UInt32 = 0x82F6_3B78

    /// `a * b` modulo the polynomial.
    private static func multiplyModulo(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var mask: UInt32 = 1 << 31
        var b = b
        var product: UInt32 = 0
        while mask != 0 {
            if a & mask != 0 { product ^= b }
            mask >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
        }
        return product
    }

    /// x^(2^k) modulo the polynomial, for k = 0 ..< 64.
    private static let powersOfXSquared: [UInt32] = {
        var powers: [UInt32] = [1 << 30]  // x^1
        for _ in 1..<64 { powers.append(multiplyModulo(powers.last!, powers.last!)) }
        return powers
    }()

    /// The CRC-32C of `first` followed by `second`, from the CRC of each and the length of
    /// `second` in bytes: what ``checksum(_:_:)`` of the whole gives, in O(log n).
    package static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        precondition(secondLength >= 0, "a length")
        // x^(8 * secondLength), from the powers x^(2^k) of its bits.
        var shift: UInt32 = 1 << 31  // x^0
        var bits = UInt64(secondLength) << 3
        var k = 0
        while bits != 0 {
            if bits & 1 != 0 { shift = multiplyModulo(powersOfXSquared[k], shift) }
            bits >>= 1
            k += 1
        }
        return multiplyModulo(shift, first) ^ second
    }
}
