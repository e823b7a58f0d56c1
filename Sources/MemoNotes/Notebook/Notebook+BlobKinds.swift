import MemoCRDT

// The notebook's blob kinds (FORMAT.md, "Blob kinds"): a sync's snapshots and segments are
// notebook states and deltas.

extension BlobKind {
    /// A whole notebook: every memo's history, enough to merge with any replica.
    public static let notebookState = BlobKind(rawValue: 3, name: "notebook state")
    /// Notebook operations since some version.
    public static let notebookDelta = BlobKind(rawValue: 4, name: "notebook delta")
}
