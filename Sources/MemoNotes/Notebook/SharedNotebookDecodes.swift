import MemoCRDT
import Synchronization

// The replicas of one process (the simulator's world holds eight) read the same snapshots
// from the store, and each decodes every one it reads; the simulator's oracle decodes each
// published snapshot once more. A decoded notebook state depends on the replica it is decoded
// for only through its `replica` (its memos' texts stay encoded until used, and are decoded
// for the notebook's replica then), so a notebook decoded once serves every replica: a copy,
// its replica set, its caches of decoded texts and search keys new (those are shared by a
// notebook's copies). Version 1 states decode their texts at once, for the replica: not kept.

/// Notebook states decoded before, shared by every decode of whole state blobs
/// (`Notebook(decoding:replica:)`) that consults it, so that decoding the same bytes again,
/// for any replica, copies the notebook instead.
///
/// It is off unless a caller binds one for the work that decodes:
/// `SharedNotebookDecodes.$current.withValue(SharedNotebookDecodes()) { ... }`. The simulator
/// binds one per simulated world. What a decode gives is the same with or without it; builds
/// with internal checks decode again on every hit and compare.
public final class SharedNotebookDecodes: Sendable {
    /// The shared decodes this task (or thread) consults; nil: none.
    @TaskLocal public static var current: SharedNotebookDecodes?

    private let state: Mutex<BytesKeyedCache<Notebook>>

    /// Keeps the notebooks of up to `bytesMax` bytes of states (each notebook holds on to its
    /// state's bytes, where its memos' texts are).
    public init(bytesMax: Int = 16 << 20) {
        state = Mutex(BytesKeyedCache(bytesMax: bytesMax))
    }

    /// How many states are kept.
    public var count: Int { state.withLock { $0.count } }
    /// How many decodes took a kept notebook.
    public var hits: Int { state.withLock { $0.hits } }

    func notebook(for bytes: [UInt8]) -> Notebook? {
        state.withLock { $0.value(for: bytes[...]) }
    }

    func keep(_ notebook: Notebook, for bytes: [UInt8]) {
        state.withLock { $0.keep(notebook, for: bytes[...]) }
    }
}

extension Notebook {
    /// This notebook, decoded from a state for its replica, as decoding the state for `other`
    /// gives it: the replica set, and caches of its own (a notebook's copies share theirs).
    func rebindingDecoded(to other: ReplicaID) -> Notebook {
        var notebook = self
        notebook.replica = other
        notebook.decodedTextCache = DecodedTextCache()
        notebook.searchKeyCache = SearchKeyCache()
        return notebook
    }
}
