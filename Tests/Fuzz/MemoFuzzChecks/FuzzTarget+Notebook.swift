import MemoCRDT
import MemoNotes

// Notebook deltas and notebook states: decode, round trip, apply and merge with honest peers.

extension FuzzTarget {
    /// A decoded notebook delta: round trip, then applied to each honest library, where a refusal
    /// must leave the library unchanged and an acceptance a valid notebook that takes the honest
    /// history and transfers whole to a new replica.
    static func checkNotebookDelta(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let delta = try? NotebookDelta(decoding: bytes) else { return }
        let encoded = delta.encoded()
        let again = try required("decoding the encoding of a decoded notebook delta") { try NotebookDelta(decoding: encoded) }
        try require(again == delta, "a notebook delta changed through encode and decode")
        try require(again.encoded() == encoded, "a notebook delta's encoding changed through decode and encode")
        let world = FuzzWorld.shared.notebooks
        for (index, peer) in world.peers.enumerated() {
            var notebook = peer
            do {
                _ = try notebook.apply(delta)
            } catch {
                try require(
                    notebook.version == peer.version && notebook.pendingOperationCount == peer.pendingOperationCount
                        && notebook.encoded() == peer.encoded(),
                    "notebook peer \(index): a refused delta (\(error)) changed the notebook")
                continue
            }
            try checkNotebook(notebook, "notebook peer \(index) after the delta")
            _ = try? notebook.apply(world.complete.changes(since: VersionVector()))
            try checkNotebook(notebook, "notebook peer \(index) after the delta and the honest history")
            try checkTransfer(notebook, "notebook peer \(index) after the delta and the honest history")
        }
    }

    /// A decoded notebook state: every memo read, round trip, transfer to a new replica, merge
    /// with each honest library.
    static func checkNotebookState(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let notebook = try? Notebook(decoding: bytes, replica: ReplicaID(0xF1)) else { return }
        try checkNotebook(notebook, "the decoded notebook")
        try checkRebuild(notebook, "the decoded notebook")
        try checkTransfer(notebook, "the decoded notebook")
        for (index, peer) in FuzzWorld.shared.notebooks.peers.enumerated() {
            var merged = peer
            do {
                try merged.merge(notebook)
            } catch {
                try require(merged.version == peer.version, "notebook peer \(index): a refused merge (\(error)) changed the version")
                continue
            }
            try required("notebook peer \(index) merged with the decoded notebook") { try merged.checkInvariants() }
        }
    }

    /// `notebook`'s invariants hold, every memo reads, and its encoding decodes to an equal
    /// notebook.
    static func checkNotebook(_ notebook: Notebook, _ context: @autoclosure () -> String) throws(FuzzFailure) {
        try required(context()) { try notebook.checkInvariants() }
        let memos = notebook.memoIDs.map { notebook.memo($0) }
        let encoded = notebook.encoded()
        let decoded = try required("\(context()): decoding its encoding", check: .roundTrip) { try Notebook(decoding: encoded, replica: notebook.replica) }
        try require(decoded.version == notebook.version, "\(context()): the encoding decodes to another version", check: .roundTrip)
        try require(decoded.memoIDs == notebook.memoIDs, "\(context()): the encoding decodes to other memos", check: .roundTrip)
        try require(decoded.memoIDs.map { decoded.memo($0) } == memos, "\(context()): the encoding decodes to other memo contents", check: .roundTrip)
        try require(decoded.encoded() == encoded, "\(context()): the encoding is not stable through decode and encode", check: .roundTrip)
    }

    /// A decoded state is what its own history gives (issue 25): applied to a new replica, the
    /// state's delta holds nothing back and gives the same memos (text and status) at the same
    /// version; with every memo decoded, both encode to the same bytes.
    ///
    /// A memo whose text cannot be read (a lazily decoded state) makes `changes(since:)` throw a
    /// typed error: allowed, and nothing more is checked.
    static func checkRebuild(_ notebook: Notebook, _ context: @autoclosure () -> String) throws(FuzzFailure) {
        guard let history = try? notebook.changes(since: VersionVector()) else { return }
        var rebuilt = Notebook(replica: ReplicaID(0xF4))
        // A state with history (version 3 or 4: "ms", kind << 4 | version) sends the deleted
        // content its texts retain; a notebook keeping history, as the writer did, retains it too.
        let encoded = notebook.encoded()
        rebuilt.keepsHistory = encoded.count > 2 && encoded[2] & 0x0F >= 3
        _ = try required("\(context()): a new replica applying its own history", check: .convergence) { try rebuilt.apply(history) }
        try require(
            rebuilt.pendingOperationCount == 0,
            "\(context()): a new replica given its own history holds \(rebuilt.pendingOperationCount) operations back", check: .convergence)
        try require(
            rebuilt.version == notebook.version,
            "\(context()): its own history gives a new replica version \(rebuilt.version), not \(notebook.version)", check: .convergence)
        try require(rebuilt.memoIDs == notebook.memoIDs, "\(context()): its own history gives a new replica other memos", check: .convergence)
        for id in notebook.memoIDs {
            let (expected, actual) = (notebook.memo(id), rebuilt.memo(id))
            try require(
                expected?.text == actual?.text && expected?.status == actual?.status,
                "\(context()): its own history gives a new replica memo \(id) as \(String(describing: actual)), not \(String(describing: expected))",
                check: .convergence)
        }
        var materialized = notebook
        for id in notebook.memoIDs { try? materialized.prepareForEditing(id) }
        try require(
            rebuilt.encoded() == materialized.encoded(), "\(context()): rebuilt from its own history, it encodes to other bytes", check: .roundTrip)
    }

    /// `notebook`'s whole history, applied to a new replica, gives the same memos.
    ///
    /// A memo whose text cannot be read (a lazily decoded state) makes `changes(since:)` throw a
    /// typed error: allowed, and nothing more is checked.
    static func checkTransfer(_ notebook: Notebook, _ context: @autoclosure () -> String) throws(FuzzFailure) {
        guard let history = try? notebook.changes(since: VersionVector()) else { return }
        var applied = Notebook(replica: ReplicaID(0xF2))
        _ = try required("\(context()): a new replica applying its whole history") { try applied.apply(history) }
        try required("\(context()): a new replica after its whole history") { try applied.checkInvariants() }
        guard applied.version == notebook.version, applied.pendingOperationCount == 0, notebook.pendingOperationCount == 0 else { return }
        try require(applied.memoIDs == notebook.memoIDs, "\(context()): equal versions, different memos", check: .convergence)
        for id in notebook.memoIDs {
            let (expected, actual) = (notebook.memo(id), applied.memo(id))
            try require(
                expected?.text == actual?.text && expected?.status == actual?.status,
                "\(context()): equal versions, memo \(id) differs: \(String(describing: expected)) / \(String(describing: actual))", check: .convergence)
        }
    }
}
