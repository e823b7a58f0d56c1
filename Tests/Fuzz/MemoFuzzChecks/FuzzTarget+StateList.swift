import MemoCRDT
import MemoNotes
import MemoSync
import MemoSyncTesting

// The state list (`state-list` in a library; FORMAT.md, "State list"; issue 28): what an open
// reads instead of a state file of 1 MiB or more, each memo's text then read from the state file
// when first used. Anyone with access to the library folder can write it, and a list whose
// checksum holds can still say anything: where each memo's body and history are (with the
// checksums to check them by), versions, Lamport clocks, list texts, the logs. Whatever it says,
// the library it opens must answer with typed errors, never trap, and never write a state that
// does not open or that loses a memo that could be read.

extension FuzzTarget {
    /// `LibraryCore.decodeState(list:state:)` of `list` over the fuzz world's listed state file:
    /// nil passes (the open reads the state whole). A decoded library: every memo reads (the
    /// reads that cannot throw give a value, the others a value or a typed error), edits and
    /// merges end in a value or a typed error, and a compaction is refused naming a damaged memo
    /// or writes files that open again (whole, and from their own list) to the same library. The
    /// honest list gives what the state file decoded whole gives.
    ///
    /// What a list says and no read checks is taken as said (FORMAT.md, "State list": the list
    /// describes a state this device wrote): a list text that is not its memo's beginning shows in
    /// the list (the notebook checks, whose invariants compare them, then run only on lists whose
    /// texts are their memos'); a Lamport clock claimed for a memo whose body then fails its check
    /// still raises the notebook's clock (edits may then throw `clockExhausted`); a history
    /// section is tied to its memo by its checksum alone (one that does not attach is a typed
    /// error when the memo is decoded, and is copied as it is by a compaction).
    static func checkStateList(_ list: [UInt8]) throws(FuzzFailure) {
        let world = FuzzWorld.shared.listed
        guard let decoded = LibraryCore.decodeState(list: list, state: InMemoryFileReader(bytes: world.state)) else { return }
        if list == world.list { try checkHonestStateList(decoded) }
        let damaged = try checkListedReads(decoded.notebook)
        let listTextsAreTexts = listTextsAreTheirMemos(decoded.notebook)
        let decodable = try checkListedEdits(decoded.notebook, listTextsAreTexts: listTextsAreTexts)
        try require(damaged.isSubset(of: decoded.notebook.damagedStoredMemoIDs), "a memo named damaged is no longer")
        try checkListedCompaction(decoded, decodable: decodable, listTextsAreTexts: listTextsAreTexts)
    }

    /// Whether the state list fuzz input `input` (mode byte, payload) decodes over the fuzz
    /// world's state file: for tests that the seeds are read, not only refused, and that the
    /// fixtures named "refused-" are refused.
    public static func stateListDecodes(_ input: [UInt8]) -> Bool {
        let list = FuzzInput(input).blob(kind: .localFile)
        return LibraryCore.decodeState(list: list, state: InMemoryFileReader(bytes: FuzzWorld.shared.listed.state)) != nil
    }

    /// The honest list opens the library the state file decoded whole opens: generation, sync
    /// state, version, memos, list and the notebook's encoding.
    private static func checkHonestStateList(_ decoded: LibraryCore.DecodedState) throws(FuzzFailure) {
        let whole = try required("decoding the listed library's state file whole") { try LibraryCore.decodeState(FuzzWorld.shared.listed.state) }
        let notebook = decoded.notebook
        try require(decoded.generation == whole.generation, "the honest state list gives generation \(decoded.generation), not \(whole.generation)")
        try require(decoded.syncState == whole.syncState, "the honest state list gives another sync state")
        try require(notebook.version == whole.notebook.version, "the honest state list gives another version")
        try require(notebook.memoIDs == whole.notebook.memoIDs, "the honest state list gives other memos")
        try require(notebook.list() == whole.notebook.list(), "the honest state list lists the memos otherwise")
        try require(notebook.trash() == whole.notebook.trash(), "the honest state list lists the trash otherwise")
        for id in notebook.memoIDs {
            try require(notebook.memo(id) == whole.notebook.memo(id), "the honest state list gives memo \(id) otherwise")
        }
        let encoded = try required("encoding the notebook of the honest state list") { try encodedOrThrow(notebook) }
        try require(encoded == whole.notebook.encoded(), "the honest state list's notebook encodes to other bytes than the state's")
        try require(notebook.damagedStoredMemoIDs.isEmpty, "the honest state list's memos are damaged: \(notebook.damagedStoredMemoIDs)")
    }

    /// The reads that cannot throw give a value; those that can, a value or a typed error.
    /// Returns the memos then named damaged (they stay so: a body is not trusted again).
    private static func checkListedReads(_ notebook: Notebook) throws(FuzzFailure) -> Set<MemoID> {
        let ids = notebook.memoIDs
        for id in ids {
            _ = notebook.memo(id)
            _ = notebook.status(of: id)
        }
        _ = notebook.list()
        _ = notebook.trash()
        _ = notebook.search("a")
        _ = notebook.search("straße")
        _ = notebook.exportTexts()
        _ = try? notebook.changes(since: VersionVector())
        for id in ids {
            if let versions = try? notebook.versions(of: id), let first = versions.first {
                _ = try? notebook.text(of: id, at: first.cut)
            }
        }
        let damaged = Set(notebook.damagedStoredMemoIDs)
        try require(damaged.isSubset(of: ids), "memos named damaged that the notebook does not hold: \(damaged)")
        return damaged
    }

    /// Whether every memo listed (or in the trash) shows the title and preview a list of its text
    /// shows (a memo whose stored text fails its check gives its list text as its text: alike).
    private static func listTextsAreTheirMemos(_ notebook: Notebook) -> Bool {
        (notebook.list() + notebook.trash()).allSatisfy { summary in
            guard let memo = notebook.memo(summary.id) else { return false }
            return summary
                == MemoSummary(id: memo.id, text: memo.text, createdAt: summary.createdAt, modifiedAt: summary.modifiedAt, status: summary.status)
        }
    }

    /// On a copy: every memo prepared for editing (decoded, its history attached), an edit of a
    /// decoded memo and of one that is not, and a merge each way with an honest library; each a
    /// value or a typed error. When every memo encodes and the list texts are the memos', the
    /// copy passes the notebook checks. Returns the memos that decoded, and whether the whole
    /// history could be read (`changes(since:)`) before any edit.
    private static func checkListedEdits(
        _ notebook: Notebook, listTextsAreTexts: Bool
    ) throws(FuzzFailure) -> (memos: Set<MemoID>, history: Bool) {
        var copy = notebook
        var materialized = Set<MemoID>()
        for id in notebook.memoIDs {
            if (try? copy.prepareForEditing(id)) != nil { materialized.insert(id) }
        }
        let history = (try? copy.changes(since: VersionVector())) != nil
        let active = notebook.list().map(\.id)
        if let id = active.first(where: materialized.contains) {
            _ = try? copy.edit(id, replacingScalars: 0..<0, with: "» ", wallMilliseconds: 1_000_000)
        }
        if let id = active.first(where: { !materialized.contains($0) }) {
            _ = try? copy.edit(id, replacingScalars: 0..<0, with: "» ", wallMilliseconds: 1_000_001)
        }
        _ = try? copy.changes(since: VersionVector())
        let honest = FuzzWorld.shared.notebooks.complete
        var merged = notebook
        _ = try? merged.merge(honest)
        var other = honest
        _ = try? other.merge(notebook)
        if listTextsAreTexts, (try? encodedOrThrow(copy)) != nil {
            try checkNotebook(copy, "a library opened from its state list, every memo decoded and one edited")
        }
        return (materialized, history)
    }

    /// The library opened from the list, compacted: refused with a typed error naming a damaged
    /// memo, or written to files that open (whole) to the same generation plus one, version,
    /// sync state and memos, every memo that decoded before decoding (and the whole history
    /// reading, when it did before), and, when the plan writes a state list, that list opens the
    /// same library from the new state (listed alike, when the list texts were the memos').
    private static func checkListedCompaction(
        _ decoded: LibraryCore.DecodedState, decodable: (memos: Set<MemoID>, history: Bool), listTextsAreTexts: Bool
    ) throws(FuzzFailure) {
        let world = FuzzWorld.shared.listed
        let files = [LibraryCore.stateFileName, LibraryCore.stateListFileName]
        let opened = try required("opening the library from its state list") {
            try LibraryCore.recover(files: files, contents: [:], listed: (decoded, world.state.count))
        }
        guard let recovery = opened else { throw FuzzFailure("a library opened from its state list opened as no library") }
        let plan: LibraryCore.SavePlan
        do {
            plan = try recovery.core.planCompaction(notebook: recovery.notebook, syncState: recovery.syncState)
        } catch {
            // A body or history that fails its read or check: nothing written, the memo named.
            try require(
                !recovery.notebook.damagedStoredMemoIDs.isEmpty, "a compaction of a library opened from its state list refused (\(error)) naming no damaged memo")
            return
        }
        let (written, folder) = try performedOnAnEmptyFolder(plan, "performing the compaction of a library opened from its state list")
        guard let state = folder[LibraryCore.stateFileName] else { throw FuzzFailure("a compaction writes no state file") }
        let reopened = try required("opening the compaction of a library opened from its state list") {
            try LibraryCore.recover(files: written, contents: folder)
        }
        guard let reopened else { throw FuzzFailure("the compaction of a library opened from its state list opened as no library") }
        let notebook = recovery.notebook
        try require(reopened.core.generation == recovery.core.generation &+ 1, "the compaction's generation")
        try require(reopened.notebook.version == notebook.version, "the compaction opens to another version")
        try require(reopened.syncState == recovery.syncState, "the compaction opens to another sync state")
        let ids = notebook.memoIDs
        try require(reopened.notebook.memoIDs == ids, "the compaction opens to other memos")
        for id in ids {
            try require(reopened.notebook.memo(id) == notebook.memo(id), "the compaction opens memo \(id) otherwise")
        }
        var decodedAgain = reopened.notebook
        for id in decodable.memos {
            try required("memo \(id), decoded from the state list, decoded from its compaction") { try decodedAgain.prepareForEditing(id) }
        }
        if decodable.history {
            _ = try required("the history of the compaction of a library opened from its state list") {
                try reopened.notebook.changes(since: VersionVector())
            }
        }
        guard let list = plan.stateList else { return }
        guard let fromList = LibraryCore.decodeState(list: list, state: InMemoryFileReader(bytes: state)) else {
            throw FuzzFailure("the state list a compaction wrote does not open its state", check: .roundTrip)
        }
        try require(fromList.generation == reopened.core.generation, "the compaction's state list names another generation", check: .roundTrip)
        try require(fromList.syncState == reopened.syncState, "the compaction's state list gives another sync state", check: .roundTrip)
        try require(fromList.notebook.memoIDs == ids, "the compaction's state list gives other memos", check: .roundTrip)
        let encoded = try required("encoding the notebook of the compaction's state list", check: .roundTrip) { try encodedOrThrow(fromList.notebook) }
        try require(encoded == reopened.notebook.encoded(), "the compaction's state list gives a notebook that encodes otherwise", check: .roundTrip)
        guard listTextsAreTexts else { return }
        try require(fromList.notebook.list() == reopened.notebook.list(), "the compaction's state list lists the memos otherwise", check: .roundTrip)
        try require(fromList.notebook.trash() == reopened.notebook.trash(), "the compaction's state list lists the trash otherwise", check: .roundTrip)
    }

    /// `notebook.encoded()`, throwing (rather than stopping) when a memo's stored text cannot be
    /// read or fails its check.
    private static func encodedOrThrow(_ notebook: Notebook) throws(NotebookError) -> [UInt8] {
        var outline: NotebookStateOutline?
        return try notebook.encoded(headroom: BlobEnvelope.headerBytesMax, wrap: { _, start, _ in start }, outline: &outline)
    }
}
