// Counting and stepping through UTF-8 bytes that are known to be valid (they come from a Swift
// `String` or were validated by the decoder). These loops are the only place offsets in one
// unit are turned into offsets in another inside a span.

package enum UTF8Scanning {
    /// Scalars and UTF-16 units in valid UTF-8 `bytes`.
    @inline(__always)
    static func counts<C: Collection<UInt8>>(of bytes: C) -> (scalars: Int, utf16: Int) {
        var scalars = 0
        var astral = 0
        for byte in bytes {
            if byte & 0xC0 != 0x80 { scalars += 1 }
            if byte >= 0xF0 { astral += 1 }
        }
        return (scalars, scalars + astral)
    }

    /// Length in bytes of the scalar whose first byte is `lead`.
    @inline(__always)
    static func scalarLength(lead: UInt8) -> Int {
        lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    /// Byte offset and UTF-16 offset after the first `scalarCount` scalars of `bytes[start...]`.
    @inline(__always)
    static func advance<C: RandomAccessCollection<UInt8>>(
        _ bytes: C, from start: Int, scalars scalarCount: Int
    ) -> (bytes: Int, utf16: Int) where C.Index == Int {
        var position = start
        var utf16 = 0
        for _ in 0..<scalarCount {
            let length = scalarLength(lead: bytes[position])
            position += length
            utf16 += length == 4 ? 2 : 1
        }
        return (position - start, utf16)
    }

    /// Scalars covered by the first `units` UTF-16 units of `bytes[start...]`, or nil when
    /// `units` ends between the halves of a surrogate pair.
    static func scalars<C: RandomAccessCollection<UInt8>>(
        _ bytes: C, from start: Int, utf16 units: Int
    ) -> Int? where C.Index == Int {
        var position = start
        var utf16 = 0
        var scalars = 0
        while utf16 < units {
            let length = scalarLength(lead: bytes[position])
            position += length
            utf16 += length == 4 ? 2 : 1
            scalars += 1
        }
        return utf16 == units ? scalars : nil
    }

    /// Whether `bytes` is well-formed UTF-8 (shortest forms, no surrogates, at most U+10FFFF).
    static func isValid<C: Collection<UInt8>>(_ bytes: C) -> Bool where C.Index == Int {
        if let answer = bytes.withContiguousStorageIfAvailable({ isValid($0) }) { return answer }
        return Array(bytes).withUnsafeBufferPointer { isValid($0) }
    }

    /// Whether `bytes` is well-formed UTF-8 (shortest forms, no surrogates, at most U+10FFFF),
    /// ASCII eight bytes at a time and the common two- and three-byte forms four bytes at a time.
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let end = bytes.count
        var index = 0
        while index < end {
            // Eight ASCII bytes at a time.
            while end - index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            if index >= end { break }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The common three-byte forms (leads E1-EC and EE-EF: Hangul, kana, CJK) and
            // two-byte forms (C2-DF), four bytes read at once, little-endian.
            if end - index >= 4 {
                let word = UInt32(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt32.self))
                if word & 0x00C0_C0F0 == 0x0080_80E0 && lead != 0xE0 && lead != 0xED {
                    index += 3
                    continue
                }
                if word & 0x0000_C0E0 == 0x0000_80C0 && lead >= 0xC2 {
                    index += 2
                    continue
                }
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return false
            }
            if end - index < length { return false }
            let second = base[index + 1]
            if second < lower || second > upper { return false }
            if length > 2 && base[index + 2] & 0xC0 != 0x80 { return false }
            if length > 3 && base[index + 3] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
