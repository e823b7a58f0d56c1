import MemoCRDT

/// Where MemoSync keeps blobs in a store (FORMAT.md, "Store layout"):
///
///     memosync/v1/<replica>/segments/<start>-<end>-<hash>.seg    a replica's operations start..<end
///     memosync/v1/<replica>/snapshots/<total>-<hash>.snap         a whole notebook of `total` operations
///     memosync/v1/<replica>/heads/<hash>.head                     what a replica holds and lacks
///
/// `<replica>` is 16 hex digits, counters 10 decimal digits, `<total>` 12, `<hash>` 16 hex digits
/// of the blob's content hash. Each replica writes only under its own prefix, so no two replicas
/// ever write the same key. Blobs are immutable: a key names one content forever.
///
/// A store needs only ``root`` (every key starts with it) and ``maxBlobBytes``; the key grammar
/// is the sync layer's (package-internal).
public enum StoreLayout {
    /// Every MemoSync key starts with this.
    public static let root = "memosync/v1/"

    /// The largest blob a writer of this format produces, and so the largest a reader reads:
    /// 2^28 bytes (256 MiB). A snapshot is the largest blob a library writes (a whole notebook,
    /// every memo with its history); the largest library a user may have (FORMAT.md, "Size
    /// limit": 100,000 memos of the notebook benchmark's kind, 2,209 bytes each as a snapshot)
    /// is 221 MB, under it. A sync never writes a larger blob (the write fails with
    /// ``BlobStoreError/tooLarge(key:sizeBytes:limitBytes:)`` and the library keeps its
    /// operations), and skips a listed blob larger than ``maxListedBlobBytes`` from its listed
    /// size, without reading it.
    public static let maxBlobBytes = 1 << 28

    /// The largest size a store lists for a blob a writer of this format produced:
    /// ``maxBlobBytes`` and what encryption adds to a blob of that size (its padding to a
    /// multiple of 16 KiB and 48 bytes of framing, FORMAT.md "Encrypted blob"), 268,451,888
    /// bytes. ``DirectoryBlobStore`` and the remote stores refuse to read more than this.
    public static let maxListedBlobBytes = listedBytesMax(forBlobBytes: maxBlobBytes)

    /// The largest size a store lists for a blob of at most `blobBytes` bytes, encrypted or not.
    package static func listedBytesMax(forBlobBytes blobBytes: Int) -> Int {
        max(blobBytes, BlobCipher.paddedLength(blobBytes + 5) + BlobCipher.fixedOverheadBytes)
    }

    /// Increases whenever a build reads blobs an earlier build refused (a new version of a
    /// kind, a decoder that accepts more): what a library remembers of the blobs it found bad
    /// (``SyncState/skippedBlobs``) under another generation is forgotten, and they are read
    /// again once. 2 since notebook states of versions 3 and 4 (which came without raising it:
    /// `ReaderGenerationTests` ties each generation to the versions it reads).
    package static let readerGeneration: UInt64 = 2

    /// What a key names.
    package enum Key: Sendable, Equatable, Hashable {
        /// A segment: operations `start ..< end` of `replica`.
        case segment(replica: ReplicaID, start: UInt32, end: UInt32)
        /// A snapshot by `replica` holding `totalOperations` operations.
        case snapshot(replica: ReplicaID, totalOperations: UInt64)
        /// A head: what `replica` held and lacked at the end of one of its syncs (``SyncHead``).
        case head(replica: ReplicaID)
    }

    /// The key of a segment of `replica`'s operations `counters`, with content `bytes`.
    package static func segmentKey(replica: ReplicaID, counters: Range<UInt32>, bytes: [UInt8]) -> String {
        "\(root)\(replica)/segments/\(padded(counters.lowerBound, 10))-\(padded(counters.upperBound, 10))-\(hash(bytes)).seg"
    }

    /// The key of a snapshot by `replica` of a notebook holding `totalOperations` operations.
    package static func snapshotKey(replica: ReplicaID, totalOperations: UInt64, bytes: [UInt8]) -> String {
        "\(root)\(replica)/snapshots/\(padded(totalOperations, 12))-\(hash(bytes)).snap"
    }

    /// The key of a head of `replica` with content `bytes`.
    package static func headKey(replica: ReplicaID, bytes: [UInt8]) -> String {
        "\(root)\(replica)/heads/\(hash(bytes)).head"
    }

    /// What `key` names, or nil when it is not a MemoSync blob key. Tolerant of what sync clients
    /// do to names: a conflicted copy ("… (Alice's conflicted copy 2026-01-02).seg",
    /// "….sync-conflict-20260102-101010-ABC.seg") parses like the original, since only the
    /// leading digits of the file name are read.
    package static func parse(_ key: String) -> Key? {
        var key = key
        // ASCII keys (every key MemoSync writes) are read byte by byte; where characters are
        // bytes this is exactly what the character-level reading below does, a hundred times
        // cheaper (a sync reads every listed key).
        if let parsed = key.withUTF8({ bytes in parseASCII(bytes) }) { return parsed }
        guard let path = droppingPrefix(root, of: key) else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let replica = ReplicaID(hexString: parts[0]) else { return nil }
        let name = Array(parts[2].utf8)
        switch parts[1] {
        case "segments":
            guard let start = number(name, at: 0, digits: 10), name.count > 10, name[10] == UInt8(ascii: "-"),
                let end = number(name, at: 11, digits: 10), start < end, end <= UInt64(Limits.operationsPerReplicaMax),
                parts[2].hasSuffix(".seg") || parts[2].contains(".seg")
            else { return nil }
            return .segment(replica: replica, start: UInt32(start), end: UInt32(end))
        case "snapshots":
            guard let total = number(name, at: 0, digits: 12), parts[2].contains(".snap") else { return nil }
            return .snapshot(replica: replica, totalOperations: total)
        case "heads":
            guard parts[2].contains(".head") else { return nil }
            return .head(replica: replica)
        default:
            return nil
        }
    }

    /// `parse` for an ASCII key: `.some(result)`, or nil when the key is not ASCII (the caller
    /// then reads it by characters). Reads the bytes in place, without allocating: a sync parses
    /// every key of the listing.
    private static func parseASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Key?? {
        for byte in bytes where byte >= 0x80 { return nil }
        let rootBytes: StaticString = "memosync/v1/"
        let rootCount = rootBytes.utf8CodeUnitCount
        guard bytes.count >= rootCount,
            UnsafeBufferPointer(start: rootBytes.utf8Start, count: rootCount).elementsEqual(bytes[0..<rootCount])
        else { return .some(nil) }
        // Three parts separated by "/": the replica, the kind, the file name.
        let slash = UInt8(ascii: "/")
        guard let firstSlash = bytes[rootCount...].firstIndex(of: slash),
            let secondSlash = bytes[(firstSlash + 1)...].firstIndex(of: slash)
        else { return .some(nil) }
        let name = UnsafeBufferPointer(rebasing: bytes[(secondSlash + 1)...])
        guard !name.contains(slash) else { return .some(nil) }
        // The replica: exactly 16 hexadecimal digits (what `ReplicaID(hexString:)` accepts).
        guard firstSlash - rootCount == 16 else { return .some(nil) }
        var replicaValue: UInt64 = 0
        for byte in bytes[rootCount..<firstSlash] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return .some(nil)
            }
            replicaValue = replicaValue << 4 | UInt64(digit)
        }
        let replica = ReplicaID(replicaValue)
        let kind = bytes[(firstSlash + 1)..<secondSlash]
        if kind.elementsEqual("segments".utf8) {
            guard let start = number(name, at: 0, digits: 10), name.count > 10, name[10] == UInt8(ascii: "-"),
                let end = number(name, at: 11, digits: 10), start < end, end <= UInt64(Limits.operationsPerReplicaMax),
                contains(name, ".seg")
            else { return .some(nil) }
            return .segment(replica: replica, start: UInt32(start), end: UInt32(end))
        }
        if kind.elementsEqual("snapshots".utf8) {
            guard let total = number(name, at: 0, digits: 12), contains(name, ".snap") else { return .some(nil) }
            return .snapshot(replica: replica, totalOperations: total)
        }
        if kind.elementsEqual("heads".utf8) {
            guard contains(name, ".head") else { return .some(nil) }
            return .head(replica: replica)
        }
        return .some(nil)
    }

    /// Whether the bytes `name` contain the ASCII string `part`.
    private static func contains(_ name: UnsafeBufferPointer<UInt8>, _ part: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: part.utf8Start, count: part.utf8CodeUnitCount)
        guard name.count >= needle.count else { return false }
        for start in 0...(name.count - needle.count) where name[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }

    /// The decimal number of exactly `digits` digits at `start` of `bytes`, or nil.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, digits: Int) -> UInt64? {
        guard bytes.count >= start + digits else { return nil }
        var value: UInt64 = 0
        for byte in bytes[start..<start + digits] {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The content hash in keys: 64-bit FNV-1a, then mixed (SplitMix64's finalizer), as 16 hex
    /// digits. Not cryptographic: it tells different contents for one range apart.
    package static func hash(_ bytes: [UInt8]) -> String {
        let digits = String(hashValue(bytes), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// ``hash(_:)`` as a number.
    package static func hashValue(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { hashValue($0) }
    }

    /// ``hashValue(_:)`` of the UTF-8 of `text`, read in place.
    package static func hashValue(utf8 text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { hashValue($0) }
    }

    /// ``hashValue(_:)`` of the bytes at `bytes`.
    static func hashValue(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
        value ^= UInt64(bytes.count)
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        value ^= value >> 31
        return value
    }

    /// Whether `bytes` are the content the key `key` names: its file name's content hash is
    /// theirs. A blob that is, and still cannot be used, is bad for good (its writer wrote it so);
    /// one that is not was damaged, or is junk that only looks like a blob.
    package static func namesContent(key: String, bytes: [UInt8]) -> Bool {
        namesContent(key: key, hashValue: hashValue(bytes))
    }

    /// ``namesContent(key:bytes:)`` for bytes whose ``hashValue(_:)`` is `value`: the name's 16
    /// hexadecimal digits compared with the number's, without making the text ``hash(_:)`` gives
    /// (a sync asks this of every blob it finds bad, and has the number already).
    package static func namesContent(key: String, hashValue value: UInt64) -> Bool {
        guard let parsed = parse(key) else { return false }
        let utf8 = key.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return false }
        let offset = switch parsed {
        case .segment: 22
        case .snapshot: 13
        case .head: 0
        }
        let nameStart = utf8.index(after: slash)
        guard utf8.distance(from: nameStart, to: utf8.endIndex) >= offset + 16 else { return false }
        var position = utf8.index(nameStart, offsetBy: offset)
        for shift in stride(from: 60, through: 0, by: -4) {
            // Lowercase digits, as `String(_:radix:)` writes them.
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0xF
            guard utf8[position] == (nibble < 10 ? 48 + nibble : 87 + nibble) else { return false }
            position = utf8.index(after: position)
        }
        return true
    }

    private static func padded<T: BinaryInteger>(_ value: T, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func number(_ bytes: [UInt8], at start: Int, digits: Int) -> UInt64? {
        bytes.withUnsafeBufferPointer { number($0, at: start, digits: digits) }
    }
}
