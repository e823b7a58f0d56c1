/// Why bytes could not be decoded. Decoding never traps and never allocates more than the input
/// justifies; whatever the bytes, the result is a value or one of these.
public enum DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes end before the encoding does: an incomplete write or download.
    case truncated(neededBytes: Int, availableBytes: Int)
    /// The bytes do not start with MemoSync's magic number: not a MemoSync blob.
    case notMemoSync
    /// A MemoSync blob of another kind than the one asked for.
    case wrongKind(expected: BlobKind, found: UInt8)
    /// A format version this build does not know. The blob may come from a newer MemoSync;
    /// keep it and read it after upgrading.
    case unsupportedVersion(kind: UInt8, version: UInt8)
    /// The checksum does not match: the bytes were damaged.
    case checksumMismatch(expected: UInt32, computed: UInt32)
    /// The declared length exceeds `Limits.encodedBytesMax`.
    case tooLarge(bytes: Int)
    /// Bytes left over after the encoding.
    case trailingBytes(count: Int)
    /// The structure inside a checksummed blob is inconsistent (a corrupt or hostile writer).
    case malformed(String)

    public var description: String {
        switch self {
        case let .truncated(needed, available):
            "truncated: needs \(needed) bytes, has \(available)"
        case .notMemoSync:
            "not a MemoSync encoding (bad magic number)"
        case let .wrongKind(expected, found):
            "expected a \(expected) encoding, found kind \(found)"
        case let .unsupportedVersion(kind, version):
            "kind \(kind) format version \(version) is not supported by this build"
        case let .checksumMismatch(expected, computed):
            "checksum mismatch: stored \(hex(expected)), computed \(hex(computed))"
        case let .tooLarge(bytes):
            "declared length \(bytes) bytes exceeds the limit"
        case let .trailingBytes(count):
            "\(count) unexpected bytes after the encoding"
        case let .malformed(reason):
            "malformed: \(reason)"
        }
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
