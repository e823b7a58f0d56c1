/// The kinds of MemoSync blob. The kind is part of every blob's header (see FORMAT.md).
public enum BlobKind: UInt8, Sendable, CustomStringConvertible {
    /// A whole text: every operation, enough to merge with any replica.
    case textState = 1
    /// Text operations since some version.
    case textDelta = 2
    /// A whole notebook.
    case notebookState = 3
    /// Notebook operations since some version.
    case notebookDelta = 4
    /// A replica's head in the store: what it holds and lacks (MemoSync layer). Its segments
    /// and snapshots are notebook deltas and states (kinds 4 and 3).
    case syncHead = 5
    /// A replica's local journal or state file (MemoSync layer).
    case localFile = 6

    public var description: String {
        switch self {
        case .textState: "text state"
        case .textDelta: "text delta"
        case .notebookState: "notebook state"
        case .notebookDelta: "notebook delta"
        case .syncHead: "sync head"
        case .localFile: "local file"
        }
    }
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
        precondition(version > 0 && version < 16)
        var writer = ByteWriter(capacity: body.count + 12)
        writer.byte(magic.0)
        writer.byte(magic.1)
        writer.byte(kind.rawValue << 4 | version)
        writer.varint(body.count)
        writer.append(contentsOf: body)
        writer.uint32LittleEndian(CRC32C.checksum(writer.bytes, 0..<writer.count))
        return writer.bytes
    }

    /// Checks the envelope of `bytes` and returns the range of the body and the version.
    ///
    /// - Throws: `DecodingError` for a bad magic number, another kind, an unknown version, a
    ///   truncation, a checksum mismatch, or bytes after the checksum.
    package static func open(_ bytes: [UInt8], kind: BlobKind, versions: ClosedRange<UInt8>) throws(DecodingError) -> (body: Range<Int>, version: UInt8) {
        var reader = ByteReader(bytes)
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
        let needed = bodyStart + Int(declared) + 4
        guard bytes.count >= needed else { throw .truncated(neededBytes: needed, availableBytes: bytes.count) }
        guard bytes.count == needed else { throw .trailingBytes(count: bytes.count - needed) }
        let bodyEnd = bodyStart + Int(declared)
        let stored = UInt32(bytes[bodyEnd]) | UInt32(bytes[bodyEnd + 1]) << 8
            | UInt32(bytes[bodyEnd + 2]) << 16 | UInt32(bytes[bodyEnd + 3]) << 24
        let computed = CRC32C.checksum(bytes, 0..<bodyEnd)
        guard stored == computed else { throw .checksumMismatch(expected: stored, computed: computed) }
        return (bodyStart..<bodyEnd, version)
    }
}
