/// Appends the primitive encodings MemoSync formats are built from (see FORMAT.md).
///
/// Package-internal: its callers are the package's own encoders, which pass only values the
/// format allows (a negative count is a programming error there, checked by a precondition
/// that no app can reach).
package struct ByteWriter {
    package var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// A writer appending to `buffer` (empty, its room reserved by the caller: one advised onto
    /// large pages, say).
    package init(appendingTo buffer: [UInt8]) {
        precondition(buffer.isEmpty, "a writer starts empty")
        bytes = buffer
    }

    package var count: Int { bytes.count }

    package mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// Unsigned LEB128: 7 bits a byte, least significant first, high bit set on all but the last.
    package mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    package mutating func varint(_ value: Int) {
        precondition(value >= 0)
        varint(UInt64(value))
    }

    package mutating func varint(_ value: UInt32) {
        varint(UInt64(value))
    }

    /// Signed values as zigzag LEB128: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
    package mutating func signedVarint(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    package mutating func uint64LittleEndian(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    package mutating func uint32LittleEndian(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    package mutating func append<C: Collection<UInt8>>(contentsOf other: C) {
        bytes.append(contentsOf: other)
    }

    // The two collections encoders append most, not generic: a caller in another module
    // reaches the generic form above unspecialized, which appends one element at a time.

    package mutating func append(contentsOf other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    package mutating func append(contentsOf other: ArraySlice<UInt8>) {
        bytes.append(contentsOf: other)
    }

    /// `count` zero bytes (padding).
    package mutating func zeros(count: Int) {
        precondition(count >= 0)
        bytes.append(contentsOf: repeatElement(0, count: count))
    }

    /// A varint byte count, then the bytes.
    package mutating func lengthPrefixed<C: Collection<UInt8>>(_ other: C) {
        varint(other.count)
        bytes.append(contentsOf: other)
    }
}
