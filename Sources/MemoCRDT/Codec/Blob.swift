/// A kind of MemoSync blob: a number from 1 to 15 in every blob's header (FORMAT.md, "Blob
/// kinds"), so a reader refuses a blob of another kind before it reads its body.
///
/// Each layer declares the kinds it writes: this module the text kinds (1 and 2), MemoNotes the
/// notebook kinds (3 and 4), MemoSync the sync head (5) and the local library files (6). FORMAT.md
/// is the registry; two kinds never share a number.
public struct BlobKind: Sendable, Hashable, CustomStringConvertible {
    /// The number in the header, 1 to 15.
    public let rawValue: UInt8
    /// What a blob of this kind holds, for messages ("text state").
    public let description: String

    /// A kind with its number and its name. Package-internal: the registry is FORMAT.md.
    package init(rawValue: UInt8, name: String) {
        precondition(rawValue > 0 && rawValue < 16, "a blob kind is a number from 1 to 15")
        self.rawValue = rawValue
        self.description = name
    }

    public static func == (lhs: BlobKind, rhs: BlobKind) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// A whole text: every operation, enough to merge with any replica.
    public static let textState = BlobKind(rawValue: 1, name: "text state")
    /// Text operations since some version.
    public static let textDelta = BlobKind(rawValue: 2, name: "text delta")
}

/// The envelope of every MemoSync blob:
///
///     magic "ms" (0x6D 0x73) | kind << 4 | version | body length (varint) | body | CRC-32C (LE)
///
/// The checksum covers every byte before it.
package enum BlobEnvelope {
    static let magic: (UInt8, UInt8) = (0x6D, 0x73)

    /// Wraps `body` in the envelope. Package-internal: the package's encoders pass their
    /// format's version, 1 to 15 (a precondition no app can reach).
    package static func seal(kind: BlobKind, version: UInt8, body: [UInt8]) -> [UInt8] {
        var bytes = header(kind: kind, version: version, bodyCount: body.count)
        bytes.reserveCapacity(bytes.count + body.count + 4)
        bytes.append(contentsOf: body)
        appendLittleEndian(CRC32C.checksum(bytes, bytes.indices), to: &bytes)
        return bytes
    }

    /// The most bytes an envelope's header takes: the magic, kind and version, and a body
    /// length of at most 2^30 as a varint (5 bytes).
    package static let headerBytesMax = 8

    /// The header of an envelope of `kind` and `version` around a body of `bodyCount` bytes.
    package static func header(kind: BlobKind, version: UInt8, bodyCount: Int) -> [UInt8] {
        precondition(version > 0 && version < 16)
        var writer = ByteWriter(capacity: headerBytesMax)
        writer.byte(magic.0)
        writer.byte(magic.1)
        writer.byte(kind.rawValue << 4 | version)
        writer.varint(bodyCount)
        return writer.bytes
    }

    /// Seals, where it is, the body that fills `bytes[bodyStart...]`: writes the envelope's
    /// header into the bytes just before the body (the caller left at least
    /// ``headerBytesMax`` there) and appends the checksum, so that `bytes[start...]` is what
    /// ``seal(kind:version:body:)`` gives for that body, without copying the body.
    ///
    /// - Returns: Where the envelope starts, and the CRC-32C of its header and body (the
    ///   checksum it ends with).
    package static func sealInPlace(
        _ bytes: inout [UInt8], bodyStart: Int, kind: BlobKind, version: UInt8
    ) -> (start: Int, checksum: UInt32) {
        let header = header(kind: kind, version: version, bodyCount: bytes.count - bodyStart)
        precondition(bodyStart >= header.count, "room for the header before the body")
        let start = bodyStart - header.count
        bytes.replaceSubrange(start..<bodyStart, with: header)
        let checksum = CRC32C.checksum(bytes, start..<bytes.count)
        appendLittleEndian(checksum, to: &bytes)
        return (start, checksum)
    }

    /// Appends `value`, 4 bytes little-endian (an envelope's checksum).
    package static func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    /// Checks the envelope of `bytes` and returns the range of the body and the version.
    ///
    /// - Throws: `DecodingError` for a bad magic number, another kind, an unknown version, a
    ///   truncation, a checksum mismatch, or bytes after the checksum.
    package static func open(_ bytes: [UInt8], kind: BlobKind, versions: ClosedRange<UInt8>) throws(DecodingError) -> (body: Range<Int>, version: UInt8) {
        let frame = try Frame(bytes, in: bytes.indices, kind: kind, versions: versions)
        try frame.checkChecksum(CRC32C.checksum(bytes, frame.checksummed))
        return (frame.body, frame.version)
    }

    /// An envelope's frame, read and checked but for its checksum: for a reader that computes
    /// the checksum itself, such as the library's decoder, which checks a state file and the
    /// notebook state inside it in one pass over their bytes (``CRC32C/combine(_:_:secondLength:)``).
    package struct Frame: Sendable {
        /// Where the body is.
        package let body: Range<Int>
        /// The envelope's format version.
        package let version: UInt8
        /// The bytes the checksum covers: from the envelope's first byte to the end of the body.
        package let checksummed: Range<Int>
        /// The checksum the envelope holds.
        package let storedChecksum: UInt32

        /// Reads the envelope that fills `range` of `bytes`, making every check of
        /// ``BlobEnvelope/open(_:kind:versions:)`` except the checksum.
        package init(_ bytes: [UInt8], in range: Range<Int>, kind: BlobKind, versions: ClosedRange<UInt8>) throws(DecodingError) {
            precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "a range of the bytes")
            var reader = ByteReader(bytes, from: range.lowerBound, to: range.upperBound)
            let first = try reader.byte()
            let second = try reader.byte()
            guard first == magic.0 && second == magic.1 else { throw .notMemoSync }
            let kindVersion = try reader.byte()
            guard kindVersion >> 4 == kind.rawValue else { throw .wrongKind(expected: kind, found: kindVersion >> 4) }
            let version = kindVersion & 0x0F
            guard versions.contains(version) else { throw .unsupportedVersion(kind: kind.rawValue, version: version) }
            let declared = try reader.varint()
            guard declared <= UInt64(Limits.encodedBytesMax) else { throw .tooLarge(bytes: Int(clamping: declared)) }
            let bodyStart = reader.position
            let needed = bodyStart - range.lowerBound + Int(declared) + 4
            guard range.count >= needed else { throw .truncated(neededBytes: needed, availableBytes: range.count) }
            guard range.count == needed else { throw .trailingBytes(count: range.count - needed) }
            let bodyEnd = bodyStart + Int(declared)
            body = bodyStart..<bodyEnd
            self.version = version
            checksummed = range.lowerBound..<bodyEnd
            storedChecksum = UInt32(bytes[bodyEnd]) | UInt32(bytes[bodyEnd + 1]) << 8
                | UInt32(bytes[bodyEnd + 2]) << 16 | UInt32(bytes[bodyEnd + 3]) << 24
        }

        /// Throws unless `computed`, the CRC-32C of ``checksummed``, is the stored checksum.
        package func checkChecksum(_ computed: UInt32) throws(DecodingError) {
            guard storedChecksum == computed else { throw .checksumMismatch(expected: storedChecksum, computed: computed) }
        }
    }
}
