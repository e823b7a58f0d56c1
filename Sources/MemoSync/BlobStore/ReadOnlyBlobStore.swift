/// A store that lists and reads through `base` and refuses every write and deletion (with
/// ``BlobStoreError/io(reason:)``, which a sync reports as a failed write). For reading a plain
/// store one last time before turning its encryption on (``StoreEncryption``): the sync applies
/// what the store holds, and publishes nothing in plain text.
public struct ReadOnlyBlobStore: BlobStore {
    /// The store read from.
    public let base: any BlobStore

    /// A read-only view of `base`.
    public init(_ base: any BlobStore) {
        self.base = base
    }

    public func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
        try await base.list(prefix: prefix)
    }

    public func listing(prefix: String) async throws(BlobStoreError) -> BlobListing {
        try await base.listing(prefix: prefix)
    }

    public func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        try await base.read(key: key)
    }

    public func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
        throw .io(reason: "this view of the store is read-only")
    }

    public func delete(key: String) async throws(BlobStoreError) {
        throw .io(reason: "this view of the store is read-only")
    }
}
