/// A blob in a store, as a listing shows it.
public struct BlobInfo: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The blob's key: a path relative to the store's root, with "/" between components.
    public var key: String
    /// Its size in bytes, as listed (a blob still being written or downloaded may show less).
    public var sizeBytes: Int

    /// Creates a listing entry.
    public init(key: String, sizeBytes: Int) {
        self.key = key
        self.sizeBytes = sizeBytes
    }

    public var description: String { "\(key) (\(sizeBytes) bytes)" }
}

/// What went wrong talking to a blob store.
public enum BlobStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No blob has this key (or it was deleted meanwhile).
    case notFound(key: String)
    /// The key is not acceptable (empty, absolute, "..", a control character).
    case invalidKey(String)
    /// The store has no room left.
    case full
    /// The store cannot be reached now (a missing folder, a network error); try later.
    case unavailable(reason: String)
    /// Another input/output failure.
    case io(reason: String)

    public var description: String {
        switch self {
        case let .notFound(key): "no blob \(key)"
        case let .invalidKey(key): "invalid blob key \"\(key)\""
        case .full: "the store is full"
        case let .unavailable(reason): "the store is unavailable: \(reason)"
        case let .io(reason): "store input/output error: \(reason)"
        }
    }
}

/// Somewhere replicas exchange immutable blobs: a local folder (which a sync client may mirror),
/// a cloud bucket, memory. Only four operations, so any store fits.
///
/// Contract:
/// - `write` is atomic: a reader sees the whole blob or nothing, never a prefix.
/// - Keys are paths relative to the store's root with "/" separators; `list` returns every blob
///   whose key starts with `prefix`, in any order, possibly missing blobs written very recently
///   (listings may be stale) and possibly including blobs it cannot read yet.
/// - A missing blob never means anything was deleted on purpose: MemoSync decides from versions
///   inside blobs, never from listings or file dates.
///
/// These calls block until done. MemoSync's sync logic never calls them itself: it is a state
/// machine (`SyncSession`) that asks for operations; `Replica.sync(with:)` performs them here,
/// and the deterministic simulator performs them on its simulated store.
public protocol BlobStore: Sendable {
    /// Every blob whose key starts with `prefix`.
    func list(prefix: String) throws(BlobStoreError) -> [BlobInfo]
    /// The bytes of the blob `key`.
    func read(key: String) throws(BlobStoreError) -> [UInt8]
    /// Stores `bytes` under `key`, atomically, replacing any blob with that key.
    func write(key: String, bytes: [UInt8]) throws(BlobStoreError)
    /// Removes the blob `key`; removing a missing blob is not an error.
    func delete(key: String) throws(BlobStoreError)
}
