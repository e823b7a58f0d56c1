import MemoCRDT
import MemoSync

/// A fuzz input: a mode byte, then the payload the mode turns into decoder input.
///
/// Modes (first byte modulo 3), so that mutations reach past the envelope check:
///
/// - 0, raw: the payload is the blob, unchanged.
/// - 1, checksum recomputed: the payload is the blob with its last four bytes replaced by the
///   CRC-32C of everything before them (a mutated blob with a sound checksum).
/// - 2, sealed: the payload is a body, sealed in a valid envelope of the target's kind, with
///   version `1 + (first byte / 3) % 15` (so version 1 for 0x02, 2 for 0x05, unknown ones above).
struct FuzzInput {
    /// The modes, in the order of the first byte's value modulo 3.
    enum Mode: UInt8 {
        case raw = 0
        case checksumRecomputed = 1
        case sealed = 2
    }

    var mode: Mode
    var version: UInt8
    var payload: [UInt8]

    init(_ bytes: [UInt8]) {
        let first = bytes.first ?? 0
        mode = Mode(rawValue: first % 3)!
        version = 1 + (first / 3) % 15
        payload = Array(bytes.dropFirst())
    }

    /// The first byte of an input in `mode` with envelope version `version` (1 ... 15).
    static func modeByte(_ mode: Mode, version: UInt8 = 1) -> UInt8 {
        precondition(version >= 1 && version <= 15)
        return (version - 1) * 3 + mode.rawValue
    }

    /// The blob the decoder of `kind` reads.
    func blob(kind: BlobKind) -> [UInt8] {
        switch mode {
        case .raw:
            return payload
        case .checksumRecomputed:
            return Self.resealed(payload)
        case .sealed:
            return BlobEnvelope.seal(kind: kind, version: version, body: payload)
        }
    }

    /// The journal a library opens: in sealed mode, a sound record of the honest journal followed
    /// by the payload sealed as a record (so the hostile record is not the first; framed as
    /// version 4 writes records, bare for versions 1 to 3); otherwise as ``blob(kind:)``.
    func journal() -> [UInt8] {
        switch mode {
        case .raw, .checksumRecomputed:
            return blob(kind: .localFile)
        case .sealed:
            let envelope = BlobEnvelope.seal(kind: .localFile, version: version, body: payload)
            return FuzzWorld.shared.library.firstRecord + (version >= 4 ? LibraryJournal.frame(envelope) : envelope)
        }
    }

    /// The key `StoreLayout.parse` reads: in raw mode the payload as UTF-8 (invalid sequences
    /// replaced); in checksum mode the store root followed by the payload; in sealed mode a
    /// well-formed prefix (root, 16 hex digits of the first eight payload bytes, "segments/" or
    /// "snapshots/" by the ninth byte's low bit) followed by the rest.
    func storeKey() -> String {
        switch mode {
        case .raw:
            return String(decoding: payload, as: UTF8.self)
        case .checksumRecomputed:
            return "memosync/v1/" + String(decoding: payload, as: UTF8.self)
        case .sealed:
            var replica: UInt64 = 0
            for byte in payload.prefix(8) { replica = replica << 8 | UInt64(byte) }
            let kind = payload.count > 8 && payload[8] & 1 == 1 ? "snapshots/" : "segments/"
            let name = String(decoding: payload.dropFirst(9), as: UTF8.self)
            return "memosync/v1/\(ReplicaID(replica))/\(kind)\(name)"
        }
    }

    /// The listing cache file `DirectoryListingCache.decoded` reads: the payload raw; with its
    /// last four bytes made its CRC-32C; or in sealed mode, a whole file around the payload
    /// (magic, version, the payload, its checksum).
    func listingCache() -> [UInt8] {
        switch mode {
        case .raw: return payload
        case .checksumRecomputed: return Self.resealed(payload)
        case .sealed: return Self.resealed(DirectoryListingCache.magic + [DirectoryListingCache.version] + payload + [0, 0, 0, 0])
        }
    }

    /// `bytes` with the last four replaced by the little-endian CRC-32C of the others (unchanged
    /// when shorter than five bytes).
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count > 4 else { return bytes }
        var result = bytes
        let checksum = CRC32C.checksum(bytes.dropLast(4))
        for index in 0..<4 { result[bytes.count - 4 + index] = UInt8(truncatingIfNeeded: checksum >> (8 * index)) }
        return result
    }
}

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as in FORMAT.md: the engine's own
/// implementation is internal to MemoCRDT, so the fuzz inputs carry this small bytewise one.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    /// The CRC-32C of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        return crc ^ 0xFFFF_FFFF
    }
}
