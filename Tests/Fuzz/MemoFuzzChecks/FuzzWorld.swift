import MemoCRDT
import MemoNotes
import MemoSync

/// The honest peers the checks apply and merge decoded values into, and the blobs the seeds are
/// made of: small fixed histories made with the public API, built once per process.
struct FuzzWorld: Sendable {
    /// Texts of two replicas that edited concurrently and exchanged deltas.
    struct Texts: Sendable {
        /// Peers at several versions: empty, part of the history, all of it.
        var peers: [TextCRDT]
        /// The whole history (every peer converges on it).
        var complete: TextCRDT
        /// A text of two other replicas: its operation ids are none of the history's.
        var stranger: TextCRDT
        /// Deltas the replicas sent each other, encoded.
        var deltas: [[UInt8]]
        /// States of the replicas along the way, encoded.
        var states: [[UInt8]]
    }

    /// Notebooks of three replicas editing two memos and exchanging deltas.
    struct Notebooks: Sendable {
        /// Libraries at several versions: empty, part of the history, all of it.
        var peers: [Notebook]
        /// The whole history.
        var complete: Notebook
        /// Deltas sent, encoded.
        var deltas: [[UInt8]]
        /// States along the way, encoded.
        var states: [[UInt8]]
    }

    /// A library's files at one moment.
    struct Library: Sendable {
        /// State files: a new library's, and one after a compaction (generation 1).
        var states: [[UInt8]]
        /// The generation-1 state file the journal target opens.
        var journalState: [UInt8]
        /// The name of its journal.
        var journalName: String
        /// The records of its journal (three; the third of version 5, its sync state's heads and
        /// blobs found bad those of the second).
        var records: [[UInt8]]
        /// The journal: the records one after the other.
        var journal: [UInt8] { Array(records.joined()) }
        /// The first record alone.
        var firstRecord: [UInt8] { records[0] }
    }

    /// A library whose state file is large enough for a state list (at least
    /// `LibraryCore.stateListWorthBytes`), and the list its compaction wrote beside it (FORMAT.md,
    /// "State list").
    struct ListedLibrary: Sendable {
        /// The state file (generation 1; its notebook state of version 4, with histories).
        var state: [UInt8]
        /// The state list the compaction that wrote `state` wrote beside it.
        var list: [UInt8]
    }

    var texts: Texts
    var notebooks: Notebooks
    var library: Library
    var listed: ListedLibrary

    /// The one world of this process.
    static let shared = FuzzWorld()

    private init() {
        do {
            texts = try Self.makeTexts()
            notebooks = try Self.makeNotebooks()
            library = try Self.makeLibrary(notebooks: notebooks)
            listed = try Self.makeListedLibrary()
        } catch {
            fatalError("the honest fuzz histories failed to build: \(error)")
        }
    }

    private static func makeTexts() throws -> Texts {
        var alice = TextCRDT(replica: ReplicaID(0xA1))
        var bob = TextCRDT(replica: ReplicaID(0xB2))
        var deltas: [[UInt8]] = []
        var states: [[UInt8]] = []
        try alice.insert("Hello world", atScalar: 0)
        try bob.apply(alice.changes(since: bob.version))
        try alice.insert(", dear", atScalar: 5)
        try bob.delete(scalarRange: 6..<11)
        try bob.insert("Welt 👍🏽 e\u{301}", atScalar: 6)
        let middle = bob
        deltas.append(alice.changes(since: middle.version).encoded())
        deltas.append(bob.changes(since: alice.version).encoded())
        states.append(bob.encoded())
        try alice.apply(bob.changes(since: alice.version))
        try bob.apply(alice.changes(since: bob.version))
        try alice.delete(scalarRange: 0..<1)
        try alice.insert("h", atScalar: 0)
        try bob.apply(alice.changes(since: bob.version))
        deltas.append(alice.changes(since: VersionVector()).encoded())
        states.append(alice.encoded())
        // A text that keeps deleted content (history, issue 27): its state is version 4, and
        // what it sends carries the content it retains.
        var keeper = TextCRDT(replica: ReplicaID(0xE1))
        keeper.keepsDeletedContent = true
        try keeper.apply(alice.changes(since: VersionVector()))
        try keeper.delete(scalarRange: 2..<9)
        try keeper.insert("kept é 👍🏽", atScalar: 2)
        try keeper.delete(scalarRange: 4..<6)
        states.append(keeper.encoded())
        deltas.append(keeper.changes(since: alice.version).encoded())
        // The same with part of its first deletion's content dropped (retention): its history
        // section has runs retained, not retained, retained.
        var partial = keeper
        partial.dropRetainedContent(deletedBy: [(ReplicaID(0xE1), 2..<4)])
        states.append(partial.encoded())
        let peers = [TextCRDT(replica: ReplicaID(0xC3)), middle.fork(replica: ReplicaID(0xC4)), bob.fork(replica: ReplicaID(0xC5))]
        var stranger = TextCRDT(replica: ReplicaID(0xD1))
        try stranger.insert("à bientôt", atScalar: 0)
        var other = stranger.fork(replica: ReplicaID(0xD2))
        try other.delete(scalarRange: 1..<3)
        try other.insert("🇫🇷", atScalar: 1)
        try stranger.apply(other.changes(since: stranger.version))
        return Texts(peers: peers, complete: alice, stranger: stranger, deltas: deltas, states: states)
    }

    private static func makeNotebooks() throws -> Notebooks {
        var replicas = (0..<3).map { Notebook(replica: ReplicaID(UInt64($0) * 11 + 5)) }
        let memos = [MemoID(high: 1, low: 2), MemoID(high: 3, low: 4)]
        var deltas: [[UInt8]] = []
        var states: [[UInt8]] = []
        var peers: [Notebook] = [Notebook(replica: ReplicaID(99))]
        try replicas[0].createMemo(memos[0], text: "first memo\nbody", wallMilliseconds: 1_000)
        try replicas[1].createMemo(memos[1], text: "second", wallMilliseconds: 1_100)
        /// Sends everything `source` has that `target` lacks.
        func send(_ source: Int, _ target: Int) throws {
            let delta = try replicas[source].changes(since: replicas[target].version)
            deltas.append(delta.encoded())
            try replicas[target].apply(delta)
        }
        try send(0, 1)
        try replicas[1].edit(memos[0], replacingScalars: 0..<5, with: "1st 한국", wallMilliseconds: 2_000)
        try replicas[0].edit(memos[0], replacingScalars: 11..<11, with: " 👍🏽", wallMilliseconds: 2_100)
        try send(1, 2)
        peers.append(replicas[2].fork(replica: ReplicaID(98)))
        states.append(replicas[2].encoded())
        try replicas[2].moveToTrash(memos[1], wallMilliseconds: 3_000)
        try send(2, 0)
        try send(0, 1)
        try replicas[1].restore(memos[1], wallMilliseconds: 4_000)
        try replicas[1].edit(memos[1], replacingScalars: 0..<0, with: "the ", wallMilliseconds: 4_100)
        for target in 0..<3 {
            for source in 0..<3 where source != target { try send(source, target) }
        }
        deltas.append(try replicas[0].changes(since: VersionVector()).encoded())
        states.append(replicas[0].encoded())
        peers.append(replicas[1].fork(replica: ReplicaID(97)))
        // A notebook that keeps history (notebook state version 4: history sections of text
        // state version 4 inside).
        var keeper = Notebook(replica: ReplicaID(96))
        keeper.keepsHistory = true
        try keeper.apply(replicas[0].changes(since: VersionVector()))
        try keeper.edit(memos[0], replacingScalars: 0..<6, with: "kept ", wallMilliseconds: 5_000)
        try keeper.edit(memos[1], replacingScalars: 2..<5, with: "", wallMilliseconds: 5_100)
        states.append(keeper.encoded())
        deltas.append(try keeper.changes(since: replicas[0].version).encoded())
        return Notebooks(peers: peers, complete: replicas[0], deltas: deltas, states: states)
    }

    private static func makeLibrary(notebooks: Notebooks) throws -> Library {
        let replica = ReplicaID(0x5EED)
        var (core, operations) = LibraryCore.create(replica: replica)
        var states = operations.compactMap(\.writtenBytes)
        var notebook = Notebook(replica: replica)
        try notebook.apply(NotebookDelta(decoding: notebooks.deltas[0]))
        var syncState = SyncState()
        syncState.addToLineage(replica)
        syncState.addToLineage(ReplicaID(0x5EEE))
        syncState.published = VersionVector([replica: 3])
        syncState.ownSegments = [StoreLayout.segmentKey(replica: replica, counters: 0..<3, bytes: [1, 2, 3])]
        syncState.ownSnapshots = [
            .init(key: StoreLayout.snapshotKey(replica: replica, totalOperations: 3, bytes: [4]), version: notebook.version, writtenAtMilliseconds: 5_000),
        ]
        syncState.operationsAtLastSnapshot = 3
        syncState.lastSyncMilliseconds = 6_000
        let compaction = try core.planCompaction(notebook: notebook, syncState: syncState)
        let journalState = compaction.operations.compactMap(\.writtenBytes).first!
        states.append(journalState)
        core.didSave(compaction, notebook: notebook, syncState: syncState)
        try notebook.edit(MemoID(high: 1, low: 2), replacingScalars: 0..<0, with: "» ", wallMilliseconds: 7_000)
        let first = try core.planSave(notebook: notebook, syncState: syncState)
        let firstRecord = first.operations.compactMap(\.appendedBytes).first!
        core.didSave(first, notebook: notebook, syncState: syncState)
        try notebook.createMemo(MemoID(high: 5, low: 6), text: "third", wallMilliseconds: 8_000)
        // The second record's sync state has heads and a blob found bad, so that the third,
        // whose sync state changes only its time, leaves both parts out (record version 5).
        let other = ReplicaID(0x0BAD)
        syncState.lastSyncMilliseconds = 9_000
        syncState.otherHeads = [
            .init(replica: other, key: StoreLayout.headKey(replica: other, bytes: [7]), head: SyncHead(holds: VersionVector([other: 2]), lacks: VersionVector())),
        ]
        syncState.skippedBlobs = [
            StoreLayout.segmentKey(replica: other, counters: 2..<4, bytes: [9]):
                SkipMemory(sizeBytes: 120, revisionHash: 0xFEED, reasonCode: 1, evidence: 3, isConfirmed: true),
        ]
        let second = try core.planSave(notebook: notebook, syncState: syncState)
        let secondRecord = second.operations.compactMap(\.appendedBytes).first!
        core.didSave(second, notebook: notebook, syncState: syncState)
        try notebook.edit(MemoID(high: 5, low: 6), replacingScalars: 5..<5, with: "!", wallMilliseconds: 10_000)
        syncState.lastSyncMilliseconds = 11_000
        let third = try core.planSave(notebook: notebook, syncState: syncState)
        let thirdRecord = third.operations.compactMap(\.appendedBytes).first!
        precondition(thirdRecord[LibraryJournal.headerBytes + 2] & 0x0F == 5, "the third record is not of version 5")
        return Library(
            states: states, journalState: journalState, journalName: LibraryCore.journalFileName(generation: 1),
            records: [firstRecord, secondRecord, thirdRecord])
    }
}

extension FuzzWorld {
    /// The memos of the listed library: 72, of a few bytes to 28 KB, together a state file of a
    /// little over 1 MiB. (More than 64: a self-checking build then checks the notebook's
    /// invariants after one mutation in 256, not after each, which made the world take seconds.)
    static let listedMemoCount = 72

    /// A library of two replicas whose state file has a state list: memos of many sizes (an empty
    /// one; one without a line break, longer than the 4,096 bytes a list text keeps at most; one
    /// whose first line is long; scripts of one to four bytes a scalar), texts deleted in (kept:
    /// the library keeps history, so the state is of version 4 with histories), some last
    /// changed by a deletion (insertion version not the version), some edited by the other
    /// replica, some in the trash, one restored, one purged. Then a compaction, whose plan
    /// holds the state and its list.
    fileprivate static func makeListedLibrary() throws -> ListedLibrary {
        let owner = ReplicaID(0x11_5700)
        let other = ReplicaID(0x11_5701)
        var notebook = Notebook(replica: owner)
        notebook.keepsHistory = true
        let pieces = [
            "alpha beta gamma ", "Größe und Straße ", "한국어 문장입니다 ", "a thumbs up 👍🏽 and e\u{301} ", "plain words, and a few more ",
            "\tindented ", "\n", "a longer sentence that says nothing in particular, for the preview. ", "🇫🇷 ",
        ]
        var random: UInt32 = 0x2545_F491
        func next(_ bound: Int) -> Int {
            random = random &* 1_664_525 &+ 1_013_904_223
            return Int(random >> 8) % bound
        }
        /// A text of about `bytes` UTF-8 bytes: pieces picked pseudo-randomly, lines now and then.
        func text(title: String, bytes: Int) -> String {
            var result = title
            var count = result.utf8.count
            while count < bytes {
                let piece = pieces[next(pieces.count)]
                result += piece
                count += piece.utf8.count
            }
            return result
        }
        var ids: [MemoID] = []
        var bodies: [String] = []
        var wall: UInt64 = 1_000
        for index in 0..<listedMemoCount {
            let id = MemoID(high: 0x5717, low: UInt64(index) &* 0x9E37_79B9 &+ 11)
            ids.append(id)
            let body: String
            switch index {
            case 0: body = ""
            case 1: body = String(text(title: "", bytes: 6_000).map { $0 == "\n" ? " " : $0 })
            case 2: body = text(title: String(repeating: "A long first line é ", count: 30) + "\n", bytes: 9_000)
            case 3: body = "short"
            default: body = text(title: "Memo \(index): " + pieces[index % pieces.count] + "\n", bytes: 4_000 + next(24_000))
            }
            bodies.append(body)
            wall += 10
            try notebook.createMemo(id, wallMilliseconds: wall)
        }
        // The texts typed once every memo exists: a self-checking build checks a notebook of at
        // most 64 memos at each mutation, all their texts.
        for (id, body) in zip(ids, bodies) where !body.isEmpty {
            wall += 10
            try notebook.edit(id, replacingScalars: 0..<0, with: body, wallMilliseconds: wall)
        }
        // Deletions (their content kept: histories), some followed by an insertion.
        for index in stride(from: 4, to: listedMemoCount, by: 5) {
            wall += 10
            try notebook.edit(ids[index], replacingScalars: 20..<(60 + index), with: "", wallMilliseconds: wall)
            if index % 10 == 4 {
                wall += 10
                try notebook.edit(ids[index], replacingScalars: 10..<10, with: "(edited) ", wallMilliseconds: wall)
            }
        }
        // The other replica edits a few memos, deleting in one; the owner receives it.
        var peer = notebook.fork(replica: other)
        peer.keepsHistory = true
        for index in stride(from: 6, to: listedMemoCount, by: 9) {
            wall += 10
            try peer.edit(ids[index], replacingScalars: 0..<0, with: "From the other device: ", wallMilliseconds: wall)
        }
        wall += 10
        try peer.edit(ids[15], replacingScalars: 5..<25, with: "", wallMilliseconds: wall)
        try notebook.apply(peer.changes(since: notebook.version))
        // The trash: some memos in it, one restored, one purged.
        for index in stride(from: 8, to: listedMemoCount, by: 11) {
            wall += 10
            try notebook.moveToTrash(ids[index], wallMilliseconds: wall)
        }
        wall += 10
        try notebook.restore(ids[19], wallMilliseconds: wall)
        wall += 10
        try notebook.purge(ids[7], wallMilliseconds: wall)
        var syncState = SyncState()
        syncState.addToLineage(owner)
        syncState.published = VersionVector([owner: 40])
        syncState.ownSegments = [StoreLayout.segmentKey(replica: owner, counters: 0..<40, bytes: [1, 2, 3])]
        syncState.lastSyncMilliseconds = wall
        let (core, _) = LibraryCore.create(replica: owner)
        let compaction = try core.planCompaction(notebook: notebook, syncState: syncState)
        guard let state = compaction.operations.compactMap(\.writtenBytes).first, let list = compaction.stateList else {
            preconditionFailure("the listed library's compaction wrote no state list")
        }
        precondition(state.count >= LibraryCore.stateListWorthBytes, "the listed library's state file is \(state.count) bytes")
        return ListedLibrary(state: state, list: list)
    }
}

extension DiskOperation {
    /// The bytes of a `write`.
    var writtenBytes: [UInt8]? {
        if case let .write(_, bytes) = self { bytes } else { nil }
    }

    /// The bytes of an `append`.
    var appendedBytes: [UInt8]? {
        if case let .append(_, bytes) = self { bytes } else { nil }
    }
}
