import MemoCRDT
import MemoNotes

/// What ``StoreEncryption/collectPlainBlobs(in:coveredBy:)`` did.
public struct PlainCollectionReport: Sendable, Equatable {
    /// Plain blobs deleted.
    public var deleted: [String] = []
    /// Plain blobs kept: they hold operations the given version lacks (their writer has not
    /// synced with encryption yet), or could not be read or deleted.
    public var kept: [String] = []
}

extension StoreEncryption {
    /// Deletes the plain blobs (under `memosync/v1/`, key blobs aside) whose operations the
    /// encrypted store holds: those within `version`, which must be what a snapshot this library
    /// has just written to the encrypted store covers (its notebook's version after a complete
    /// encrypted sync that published a snapshot, ``SyncReport/publishedSnapshot``). Plain heads
    /// go too (they carry no operations). Run by every library after its first encrypted sync,
    /// this leaves nothing plain in the store.
    ///
    /// - Parameter store: the store itself (not the ``EncryptedBlobStore`` around it).
    public static func collectPlainBlobs(in store: any BlobStore, coveredBy version: VersionVector) async -> PlainCollectionReport {
        var report = PlainCollectionReport()
        guard let listed = try? await store.list(prefix: StoreLayout.root) else { return report }
        for entry in listed.sorted(by: { $0.key < $1.key }) where !entry.key.hasPrefixBytes(KeyBlob.prefix) {
            if await isCovered(entry.key, in: store, by: version), (try? await store.delete(key: entry.key)) != nil {
                report.deleted.append(entry.key)
            } else {
                report.kept.append(entry.key)
            }
        }
        return report
    }

    /// Whether the plain blob `key` holds only operations within `version`.
    private static func isCovered(_ key: String, in store: any BlobStore, by version: VersionVector) async -> Bool {
        switch StoreLayout.parse(key) {
        case .head?: return true
        case let .segment(replica, _, end)?: return end <= version[replica]
        case let .snapshot(replica, _)?:
            guard let bytes = try? await store.read(key: key),
                let snapshot = try? Notebook(decoding: bytes, replica: replica)
            else { return false }
            return snapshot.version.merged(with: version) == version
        case nil: return false
        }
    }
}
