/// Reads the primitive encodings MemoSync formats are built from, checking every bound.
///
/// Every read that would pass the end throws `DecodingError.truncated`; varints must be minimal
/// (one encoding per value, so encodings stay canonical) and fit their type.
package struct ByteReader {
    package let bytes: [UInt8]
    package private(set) var position: Int
    package let end: Int

    package init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.position = start
        self.end = end ?? bytes.count
    }

    package var remaining: Int { end - position }
    package var isAtEnd: Bool { position == end }

    package mutating func byte() throws(DecodingError) -> UInt8 {
        guard position < end else { throw .truncated(neededBytes: position + 1, availableBytes: end) }
        defer { position += 1 }
        return bytes[position]
    }

    package mutating func varint() throws(DecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte()
            let payload = UInt64(byte & 0x7F)
            if shift == 63 && payload > 1 { throw .malformed("varint overflows 64 bits") }
            result |= payload << shift
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 { throw .malformed("varint is not minimal") }
                return result
            }
            shift += 7
            if shift > 63 { throw .malformed("varint longer than 10 bytes") }
        }
    }

    /// A varint that must fit `Int` and be at most `maximum` (nothing fits a negative maximum:
    /// an index into an empty table, say).
    package mutating func count(max maximum: Int, _ what: @autoclosure () -> String) throws(DecodingError) -> Int {
        let value = try varint()
        guard maximum >= 0, value <= UInt64(maximum) else { throw .malformed("\(what()) \(value) exceeds \(maximum)") }
        return Int(value)
    }

    package mutating func uint32Varint(_ what: @autoclosure () -> String) throws(DecodingError) -> UInt32 {
        let value = try varint()
        guard value <= UInt64(UInt32.max) else { throw .malformed("\(what()) \(value) exceeds 32 bits") }
        return UInt32(value)
    }

    package mutating func signedVarint() throws(DecodingError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    package mutating func uint64LittleEndian() throws(DecodingError) -> UInt64 {
        guard remaining >= 8 else { throw .truncated(neededBytes: position + 8, availableBytes: end) }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[position + index]) << UInt64(8 * index) }
        position += 8
        return value
    }

    /// The next `count` bytes as a range of `bytes`; the count is checked against what is left
    /// before anything is allocated.
    package mutating func range(count: Int) throws(DecodingError) -> Range<Int> {
        guard count >= 0, count <= remaining else {
            throw .truncated(neededBytes: position + max(count, 0), availableBytes: end)
        }
        defer { position += count }
        return position..<position + count
    }

    /// A varint byte count, then that many bytes, as a range of `bytes`.
    package mutating func lengthPrefixedRange() throws(DecodingError) -> Range<Int> {
        let count = try self.count(max: remaining, "length prefix")
        return try range(count: count)
    }
}
