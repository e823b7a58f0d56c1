import MemoCRDT

// The sync layer's blob kinds (FORMAT.md, "Blob kinds"). The store's snapshots and segments are
// the notebook's kinds (3 and 4); these two are the sync layer's own.

extension BlobKind {
    /// A replica's head in the store: what it holds and lacks.
    public static let syncHead = BlobKind(rawValue: 5, name: "sync head")
    /// A replica's local library files: its state file and its journal records.
    public static let localFile = BlobKind(rawValue: 6, name: "local file")
}
