import MemoCRDT
import MemoSync

// The folder store's listing cache file (`store-listing-cache` in a library): read at a store's
// first listing, from a file anyone with access to the library folder can write.

extension FuzzTarget {
    /// A cache that decodes encodes to bytes that decode to the same cache, and those bytes are
    /// canonical (encoding again gives them back). A refusal (nil: the store starts empty) passes.
    static func checkListingCache(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let cache = DirectoryListingCache.decoded(bytes) else { return }
        let encoded = cache.encoded()
        guard let again = DirectoryListingCache.decoded(encoded) else {
            throw FuzzFailure("listing cache: its own encoding is refused", check: .roundTrip)
        }
        try require(again == cache, "listing cache: decoding its encoding gives another cache", check: .roundTrip)
        try require(again.encoded() == encoded, "listing cache: its encoding is not canonical", check: .roundTrip)
    }

    /// Whether the listing cache fuzz input `input` (mode byte, payload) decodes to a cache: for
    /// tests that the seeds and the honest fixtures are read, not only refused.
    public static func listingCacheDecodes(_ input: [UInt8]) -> Bool {
        DirectoryListingCache.decoded(FuzzInput(input).listingCache()) != nil
    }

    /// Listing cache files as `DirectoryBlobStore` writes them (FORMAT.md, "Folder store listing
    /// cache"), written here byte by byte: an empty one, and one of a store root with a replica
    /// folder holding a file and a subfolder.
    static let listingCaches: [[UInt8]] = {
        func file(records: [(key: String, entries: [(name: String, isFolder: Bool)])]) -> [UInt8] {
            var writer = ByteWriter()
            writer.append(contentsOf: DirectoryListingCache.magic)
            writer.byte(DirectoryListingCache.version)
            writer.uint64LittleEndian(2049)  // root device
            writer.uint64LittleEndian(131_077)  // root inode
            writer.varint(records.count)
            for (index, record) in records.enumerated() {
                writer.lengthPrefixed(Array(record.key.utf8))
                writer.uint64LittleEndian(2049)
                writer.uint64LittleEndian(131_078 + UInt64(index))
                writer.signedVarint(1_764_374_400)
                writer.varint(UInt32(123_456_789))
                writer.signedVarint(1_764_374_400)
                writer.varint(UInt32(123_456_789))
                writer.uint64LittleEndian((1_764_374_400.5 as Double).bitPattern)
                writer.uint64LittleEndian((1_764_374_410.25 as Double).bitPattern)
                writer.varint(record.entries.count)
                for entry in record.entries {
                    writer.byte(entry.isFolder ? 1 : 0)
                    writer.lengthPrefixed(Array(entry.name.utf8))
                }
            }
            return FuzzInput.resealed(writer.bytes + [0, 0, 0, 0])
        }
        return [
            file(records: []),
            file(records: [
                (key: "memosync/v1", entries: [(name: "0a", isFolder: true), (name: "keys", isFolder: true)]),
                (key: "memosync/v1/0a", entries: [(name: "heads", isFolder: true), (name: "segments", isFolder: true)]),
                (key: "memosync/v1/0a/segments", entries: [(name: "0000000000-0000000003-abcdef0123456789.seg", isFolder: false)]),
            ]),
        ]
    }()
}
