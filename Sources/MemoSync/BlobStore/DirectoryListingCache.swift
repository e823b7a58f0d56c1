import MemoCRDT
import Dispatch
import Synchronization

/// What a ``DirectoryBlobStore`` remembers of its folders between listings, so that a listing
/// reads again (opens and `readdir`s) only the folders whose entries may have changed, and
/// takes the others' names from here. Sizes and revisions are never remembered: every file is
/// still asked its status (`fstatat`) at every listing. Kept in memory by the store, and, when
/// the store was given a file for it, in that file between processes (FORMAT.md, "Folder store
/// listing cache").
///
/// **The rule.** A folder's names are taken from here only when the folder's stamp (device,
/// inode, modification and change times, with nanoseconds) is the one remembered, and the
/// record is *settled*: two reads of the folder, at least ``settleSeconds`` apart by this
/// process's clock, saw that same stamp (so the time granule of the stamp was over before the
/// second read began: any later change of the folder gives it another stamp, even on a file
/// system that keeps times to 2 s, FAT's, and whatever the file system's own clock says), and
/// the last read is at most ``maxTrustSeconds`` old (a folder is read again at least that often,
/// whatever its stamp says: a file system that does not change a folder's times, some network
/// and FUSE file systems, delays a new name by at most that). A record that is damaged,
/// unknown or of another store is dropped; nothing here ever fails a listing.
package struct DirectoryListingCache: Sendable, Equatable {
    /// Two reads this far apart (seconds) with one stamp make a folder's record settled.
    static let settleSeconds: Double = 3
    /// A settled record is used for at most this long (seconds) after its folder's last read.
    static let maxTrustSeconds: Double = 600
    /// The largest cache file read (bytes); a larger one is ignored.
    static let maxFileBytes = 1 << 28
    /// Records changed since the last save before the cache is saved again: a few folders read
    /// again at each sync (the ones just written to) cost little, and are not worth rewriting
    /// a large cache file every time.
    static let saveAfterChangedRecords = 64

    /// One folder, as it was last read.
    struct Record: Sendable, Equatable {
        /// Its stamp, taken (`fstat` of the open folder) before its names were read.
        var stamp: FolderStamp
        /// Its names that a listing may show (``BlobKeyRules/isListableName(_:)``), and whether
        /// `readdir` said each is a folder.
        var entries: [POSIX.FolderEntry]
        /// When (seconds since 1970, this process's clock) a read first saw ``stamp``.
        var firstSeenSeconds: Double
        /// When it was last read.
        var readSeconds: Double

        /// Whether its names may stand for the folder's at `now`, whose stamp is `current`.
        func isTrusted(stamp current: FolderStamp, now: Double) -> Bool {
            current == stamp && readSeconds - firstSeenSeconds >= DirectoryListingCache.settleSeconds
                && now >= readSeconds && now - readSeconds <= DirectoryListingCache.maxTrustSeconds
        }
    }

    /// The store root's device and inode: a cache of another folder is not used.
    var rootDevice: UInt64
    var rootInode: UInt64
    /// The records, by folder key ("" for the root, "a/b" for the folder `a/b`).
    var records: [String: Record] = [:]

    // MARK: The file

    /// The file's first bytes: "MSLC" and the version.
    package static let magic: [UInt8] = Array("MSLC".utf8)
    package static let version: UInt8 = 1

    /// The cache as the file holds it (FORMAT.md, "Folder store listing cache"): records sorted
    /// by key, so equal caches give equal bytes.
    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 64 + records.count * 96)
        writer.append(contentsOf: Self.magic)
        writer.byte(Self.version)
        writer.uint64LittleEndian(rootDevice)
        writer.uint64LittleEndian(rootInode)
        writer.varint(records.count)
        for key in records.keys.sorted(by: { $0.precedesBytes($1) }) {
            guard let record = records[key] else { continue }
            writer.lengthPrefixed(Array(key.utf8))
            writer.uint64LittleEndian(record.stamp.device)
            writer.uint64LittleEndian(record.stamp.inode)
            writer.signedVarint(record.stamp.modifiedSeconds)
            writer.varint(record.stamp.modifiedNanoseconds)
            writer.signedVarint(record.stamp.changedSeconds)
            writer.varint(record.stamp.changedNanoseconds)
            writer.uint64LittleEndian(record.firstSeenSeconds.bitPattern)
            writer.uint64LittleEndian(record.readSeconds.bitPattern)
            writer.varint(record.entries.count)
            for entry in record.entries {
                writer.byte(entry.isFolder ? 1 : 0)
                writer.lengthPrefixed(Array(entry.name.utf8))
            }
        }
        var bytes = writer.bytes
        let check = CRC32C.checksum(bytes, 0..<bytes.count)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: check >> UInt32(shift))) }
        return bytes
    }

    /// The cache `bytes` hold, or nil when they are not one this version wrote whole (another
    /// magic or version, a failed checksum, anything malformed): the caller starts empty.
    package static func decoded(_ bytes: [UInt8]) -> DirectoryListingCache? {
        guard bytes.count >= magic.count + 1 + 4, bytes.starts(with: magic), bytes[magic.count] == version else { return nil }
        let bodyEnd = bytes.count - 4
        var check: UInt32 = 0
        for index in 0..<4 { check |= UInt32(bytes[bodyEnd + index]) << UInt32(8 * index) }
        guard CRC32C.checksum(bytes, 0..<bodyEnd) == check else { return nil }
        var reader = ByteReader(bytes, from: magic.count + 1, to: bodyEnd)
        do throws(DecodingError) {
            var cache = DirectoryListingCache(rootDevice: try reader.uint64LittleEndian(), rootInode: try reader.uint64LittleEndian())
            let count = try reader.count(max: reader.remaining, "records")
            cache.records.reserveCapacity(count)
            for _ in 0..<count {
                let key = try text(&reader)
                let stamp = FolderStamp(
                    device: try reader.uint64LittleEndian(), inode: try reader.uint64LittleEndian(),
                    modifiedSeconds: try reader.signedVarint(), modifiedNanoseconds: try reader.uint32Varint("nanoseconds"),
                    changedSeconds: try reader.signedVarint(), changedNanoseconds: try reader.uint32Varint("nanoseconds"))
                let firstSeen = Double(bitPattern: try reader.uint64LittleEndian())
                let read = Double(bitPattern: try reader.uint64LittleEndian())
                let entryCount = try reader.count(max: reader.remaining, "entries")
                var entries: [POSIX.FolderEntry] = []
                entries.reserveCapacity(entryCount)
                for _ in 0..<entryCount {
                    let flag = try reader.byte()
                    guard flag <= 1 else { return nil }
                    let name = try text(&reader)
                    guard BlobKeyRules.isListableName(Substring(name)) else { return nil }
                    entries.append(POSIX.FolderEntry(name: name, isFolder: flag == 1))
                }
                guard firstSeen.isFinite, read.isFinite, cache.records.updateValue(
                    Record(stamp: stamp, entries: entries, firstSeenSeconds: firstSeen, readSeconds: read), forKey: key) == nil
                else { return nil }
            }
            guard reader.isAtEnd else { return nil }
            return cache
        } catch {
            return nil
        }
    }

    /// A length-prefixed UTF-8 text (invalid UTF-8 is malformed).
    private static func text(_ reader: inout ByteReader) throws(DecodingError) -> String {
        let range = try reader.lengthPrefixedRange()
        let slice = reader.bytes[range]
        let decoded = String(decoding: slice, as: UTF8.self)
        guard decoded.utf8.elementsEqual(slice) else { throw .malformed("invalid UTF-8") }
        return decoded
    }
}

/// The listing cache of one ``DirectoryBlobStore``: in memory, and in its file when it has one
/// (read at the first listing, written after a listing that changed enough of it). Thread-safe.
///
/// The file is written on a queue of its own, in the order the listings kept their caches, while
/// the listing's caller goes on (a first listing of a large store writes about a megabyte, on
/// the way of a new device's first sync); the holder's end (its store's) waits for what is
/// queued, so a process that lets its store go has written the file.
final class DirectoryListingCacheHolder: Sendable {
    /// The file, or nil for a cache in memory only.
    let filePath: String?
    private let state = Mutex<(cache: DirectoryListingCache?, loaded: Bool, unsaved: Int)>((nil, false, 0))
    /// Where the file is written, one save after the other.
    private let saves = DispatchQueue(label: "memosync.listing-cache-saves")

    init(filePath: String?) {
        self.filePath = filePath
    }

    deinit {
        saves.sync {}
    }

    /// The cache for the root whose device and inode are given: the one in memory, or the file's
    /// (read once), or an empty one when neither is of this root.
    func current(rootDevice: UInt64, rootInode: UInt64) -> DirectoryListingCache {
        let (cached, loaded) = state.withLock { ($0.cache, $0.loaded) }
        var cache = cached
        if !loaded {
            if let filePath, let bytes = try? POSIX.readFile(filePath, limitBytes: DirectoryListingCache.maxFileBytes) {
                cache = DirectoryListingCache.decoded(bytes)
            }
            state.withLock { state in
                if !state.loaded {
                    state.loaded = true
                    state.cache = cache
                }
            }
        }
        guard let cache, cache.rootDevice == rootDevice, cache.rootInode == rootInode else {
            return DirectoryListingCache(rootDevice: rootDevice, rootInode: rootInode)
        }
        return cache
    }

    /// Keeps `cache`, of which `changedRecords` records were read or dropped by the listing that
    /// made it; writes it to the file once enough changed since the file was last written
    /// (atomically: a temporary file renamed over it; a failure is ignored: it is a cache).
    func store(_ cache: DirectoryListingCache, changedRecords: Int) {
        let save = state.withLock { state -> Bool in
            state.cache = cache
            state.loaded = true
            state.unsaved += changedRecords
            guard filePath != nil, state.unsaved >= DirectoryListingCache.saveAfterChangedRecords else { return false }
            state.unsaved = 0
            return true
        }
        guard save, let filePath else { return }
        saves.async { try? POSIX.replaceFile(filePath, with: cache.encoded()) }
    }
}
