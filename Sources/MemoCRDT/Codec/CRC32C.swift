// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), FORMAT.md "Envelope".

package enum CRC32C {
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

    /// The CRC-32C of `bytes[range]`.
    package static func checksum(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "range within the bytes")
        return bytes.withUnsafeBufferPointer { buffer in
            table.withUnsafeBufferPointer { table in
                guard let base = buffer.baseAddress, let t = table.baseAddress else { return 0 }
                var crc: UInt32 = 0xFFFF_FFFF
                var index = range.lowerBound
                let end = range.upperBound
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
    }
}
