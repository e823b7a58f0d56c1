import MemoCRDT
@testable import MemoNotes
import TestSupport
import Testing

/// The notebook's structures behind the remote apply path: held-back deltas received again and
/// the maintained notebook version, each against a plain recomputation (the text's part:
/// `ApplyPathTests`).
@Suite struct NotebookApplyPathTests {
    private static let memo = MemoID(high: 1, low: 2)

    private static func textRun(counter: UInt32, length: UInt32, textCounter: UInt32) -> NotebookRun {
        NotebookRun(
            counter: counter, length: length, memo: memo, kind: .text(textCounter: textCounter),
            timestamp: HybridTimestamp(wallMilliseconds: 1_000 + UInt64(counter), logical: 0))
    }

    /// A held-back text run is checked for readiness again only when its memo's text has
    /// changed: fifty deltas that touch another memo check it once, not fifty times (a
    /// bootstrap merging a snapshot in pieces checked every held-back run at every piece, 1.5-2
    /// ms each, the longest wait of an edit: issue 25). Once what it waits for arrives, it
    /// applies. (Counted in self-check builds, which the tests are.)
    @Test func aHeldBackRunIsCheckedAgainOnlyWhenItsMemoChanged() throws {
        let waiting = MemoID(high: 5, low: 1)
        let other = MemoID(high: 5, low: 2)
        var first = Notebook(replica: ReplicaID(1))
        try first.createMemo(waiting, text: "hello", wallMilliseconds: 1_000)
        try first.createMemo(other, text: "x", wallMilliseconds: 1_001)
        let early = try first.changes(since: VersionVector())
        try first.edit(waiting, replacingUTF16: 5..<5, with: " world", wallMilliseconds: 2_000)
        var second = Notebook(replica: ReplicaID(2))
        try second.apply(first.changes(since: VersionVector()))
        try second.edit(waiting, replacingUTF16: 11..<11, with: "!", wallMilliseconds: 3_000)
        // The second replica's "!" alone: it builds on " world", which the receiver lacks.
        let exclamation = try second.changes(since: first.version)
        var third = Notebook(replica: ReplicaID(3))
        try third.apply(early)

        var receiver = Notebook(replica: ReplicaID(9))
        try receiver.apply(early)
        try receiver.apply(exclamation)
        #expect(receiver.pendingOperationCount == 1)
        #if MEMOSYNC_INTERNAL_CHECKS
        let checksBefore = receiver.debugReadinessCheckCount
        #endif
        let applies = 50
        for index in 0..<applies {
            let before = third.version
            try third.edit(other, replacingUTF16: 0..<0, with: "y", wallMilliseconds: 4_000 + UInt64(index))
            let report = try receiver.apply(third.changes(since: before))
            #expect(report.appliedOperationCount == 1)
        }
        #expect(receiver.pendingOperationCount == 1)
        #if MEMOSYNC_INTERNAL_CHECKS
        // One check per applied run of the third replica, and the held-back run's at most once.
        #expect(receiver.debugReadinessCheckCount - checksBefore <= applies + 1)
        #endif
        try receiver.apply(first.changes(since: receiver.version))
        #expect(receiver.pendingOperationCount == 0)
        #expect(receiver.memo(waiting)?.text == "hello world!")
        try receiver.checkInvariants()
    }

    /// An older copy of a replica's run, held back, and a newer copy of the same run that goes
    /// further (the replica typed on in the same memo since, so its run's timestamp is newer),
    /// in either order, end with nothing held back. Seed 346 of `memo-sim` (replica, 8 replicas,
    /// 3000 steps, all faults): a library that reopened after damage replayed its journal's
    /// held-back records (older copies) before the record that released them (newer copies);
    /// the newer copy applied in part (a later operation of its run waited for another
    /// replica's operation applied in the same call), and the older copy's rest, queued first,
    /// was older than the part applied and stopped the queue for good: 147 saved operations
    /// held back for ever.
    @Test func anOlderCopyOfARunNeverStopsItsNewerCopy() throws {
        let memo = MemoID(high: 3, low: 3)
        // `first` sorts before `second`, so a call visits its runs first.
        let firstID = ReplicaID(1)
        var first = Notebook(replica: firstID)
        var second = Notebook(replica: ReplicaID(2))
        try second.createMemo(memo, text: "a", wallMilliseconds: 1_000)
        try first.apply(second.changes(since: VersionVector()))
        try first.edit(memo, replacingUTF16: 1..<1, with: "bcde", wallMilliseconds: 2_000)
        try second.apply(first.changes(since: second.version))
        // "X" after "c": builds on the first replica's second operation.
        try second.edit(memo, replacingUTF16: 3..<3, with: "X", wallMilliseconds: 3_000)
        try first.apply(second.changes(since: first.version))
        // "gh" after "X": the first replica's run in the memo goes on, building on "X".
        try first.edit(memo, replacingUTF16: 4..<4, with: "g", wallMilliseconds: 4_000)
        try first.edit(memo, replacingUTF16: 5..<5, with: "h", wallMilliseconds: 4_100)
        // The older copy: the first replica's operations 2..<6 alone (what a journal record
        // holds when the library had the first two already).
        var sinceTwo = first.version
        sinceTwo = VersionVector(entries: sinceTwo.entries.map { $0.replica == firstID ? .init(replica: firstID, operationCount: 2) : $0 })
        let older = try first.changes(since: sinceTwo)
        #expect(older.operationCount == 4)
        try first.edit(memo, replacingUTF16: 6..<6, with: "i", wallMilliseconds: 5_000)
        let everything = try first.changes(since: VersionVector())

        var olderFirst = Notebook(replica: ReplicaID(3))
        try olderFirst.apply(older)
        #expect(olderFirst.pendingOperationCount == 4)
        try olderFirst.apply(everything)
        try olderFirst.checkInvariants()
        #expect(olderFirst.pendingOperationCount == 0)
        #expect(olderFirst.memo(memo)?.text == first.memo(memo)?.text)
        #expect(olderFirst.version == first.version)

        var newerFirst = Notebook(replica: ReplicaID(3))
        try newerFirst.apply(everything)
        try newerFirst.apply(older)
        #expect(newerFirst.pendingOperationCount == 0)
        #expect(newerFirst.encoded() == olderFirst.encoded())
    }

    /// Runs held back because applying them would leave characters deleted by no operation held
    /// (their deletions wait for a missing operation) hold back only themselves and what their
    /// replica did after them: runs of other memos that become ready later apply (seed 773 of
    /// `memo-sim`: such runs once held back every later call whole, and the library reopened
    /// after a crash held 267 operations the live notebook held back), and so do ready runs of
    /// other replicas in the same memo, and the part of the run before the character (seed
    /// 1499: a replica's own deletion stayed held back for ten days because another replica's
    /// run in its memo waited).
    @Test func runsThatWouldOrphanHoldBackOnlyThemselves() throws {
        let (m1, m2, m3) = (MemoID(high: 7, low: 1), MemoID(high: 7, low: 2), MemoID(high: 7, low: 3))
        // A writes "abc" in m1; C writes "q" in m2; B, holding both, types in m2 after C's "q"
        // and then deletes A's "b": B's deletion waits, in B's log, for what C wrote.
        var a = Notebook(replica: ReplicaID(1))
        try a.createMemo(m1, text: "abc", wallMilliseconds: 1_000)
        var c = Notebook(replica: ReplicaID(3))
        try c.createMemo(m2, text: "q", wallMilliseconds: 1_100)
        var b = Notebook(replica: ReplicaID(2))
        try b.apply(a.changes(since: VersionVector()))
        try b.apply(c.changes(since: VersionVector()))
        try b.edit(m2, replacingUTF16: 1..<1, with: "r", wallMilliseconds: 2_000)
        try b.edit(m1, replacingUTF16: 1..<2, with: "", wallMilliseconds: 2_100)
        // What B sends without C's operations: A's "abc" with "b" already deleted (no content),
        // and B's operations.
        let withoutC = try b.changes(since: c.version)
        #expect(withoutC.hasTombstones)
        // F writes "xy" in m3; E, holding it, types "z" after "x".
        var f = Notebook(replica: ReplicaID(6))
        try f.createMemo(m3, text: "xy", wallMilliseconds: 1_200)
        var e = Notebook(replica: ReplicaID(5))
        try e.apply(f.changes(since: VersionVector()))
        try e.edit(m3, replacingUTF16: 1..<1, with: "z", wallMilliseconds: 3_000)
        // D, holding A's memo only, deletes its "a": ready once A's "a" is, in the memo that
        // waits.
        var d = Notebook(replica: ReplicaID(4))
        try d.apply(a.changes(since: VersionVector()))
        try d.edit(m1, replacingUTF16: 0..<1, with: "", wallMilliseconds: 3_500)

        var receiver = Notebook(replica: ReplicaID(9))
        try receiver.apply(withoutC)
        let heldForC = receiver.pendingOperationCount
        #expect(heldForC > 0)
        // A's "a" applied: it is not deleted; its "b" waits for B's deletion, and its "c" behind it.
        #expect(receiver.memo(m1)?.text == "a")
        // E's typing arrives before what it builds on, then F's memo: both apply, whatever
        // waits for C.
        try receiver.apply(e.changes(since: f.version))
        try receiver.apply(f.changes(since: VersionVector()))
        try receiver.checkInvariants()
        #expect(receiver.version[ReplicaID(5)] == e.version[ReplicaID(5)], "E's typing is held back with the runs waiting for C")
        #expect(receiver.memo(m3)?.text == "xzy")
        #expect(receiver.pendingOperationCount <= heldForC)
        // D's deletion applies in the memo that waits.
        try receiver.apply(d.changes(since: a.version))
        try receiver.checkInvariants()
        #expect(receiver.version[ReplicaID(4)] == d.version[ReplicaID(4)], "D's deletion is held back with A's run in its memo")
        #expect(receiver.memo(m1)?.text == "")
        // C's memo arrives: everything applies, as on a notebook that received it all at once.
        try receiver.apply(c.changes(since: VersionVector()))
        try receiver.checkInvariants()
        #expect(receiver.pendingOperationCount == 0)
        var reference = b
        try reference.apply(e.changes(since: VersionVector()))
        try reference.apply(d.changes(since: VersionVector()))
        #expect(receiver.version == reference.version)
        for memo in [m1, m2, m3] { #expect(receiver.memo(memo)?.text == reference.memo(memo)?.text) }
        #expect(receiver.memo(m1)?.text == "c")
    }

    /// Two copies of one held-back run, one made before its character was deleted (with the
    /// content) and one after (a tombstone), whose deletion waits for an operation that has not
    /// arrived: in either order the run applies with its content, as it does when the copy with
    /// content comes alone. Without sharing what the copies know, whichever was queued first
    /// decided whether the run waited for its deletion.
    @Test func copiesOfARunShareTheirContent() throws {
        let (m1, m2) = (MemoID(high: 8, low: 1), MemoID(high: 8, low: 2))
        // A creates m1 and types "xy" into it: its typing waits at a receiver that lacks m1.
        var a = Notebook(replica: ReplicaID(1))
        try a.createMemo(m1, text: "", wallMilliseconds: 1_000)
        let creation = try a.changes(since: VersionVector())
        try a.edit(m1, replacingUTF16: 0..<0, with: "xy", wallMilliseconds: 1_100)
        let early = try a.changes(of: ReplicaID(1), counters: 1..<a.version[ReplicaID(1)])
        // C writes in m2; B, holding everything, types in m2 and then deletes A's "y": B's
        // deletion waits, in B's log, for C.
        var c = Notebook(replica: ReplicaID(3))
        try c.createMemo(m2, text: "q", wallMilliseconds: 1_200)
        var b = Notebook(replica: ReplicaID(2))
        try b.apply(a.changes(since: VersionVector()))
        try b.apply(c.changes(since: VersionVector()))
        try b.edit(m2, replacingUTF16: 1..<1, with: "r", wallMilliseconds: 2_000)
        try b.edit(m1, replacingUTF16: 1..<2, with: "", wallMilliseconds: 2_100)
        // A's typing again, from B after the deletion: "y" travels as a tombstone.
        let late = try b.changes(of: ReplicaID(1), counters: 1..<a.version[ReplicaID(1)])
        #expect(late.hasTombstones && !early.hasTombstones)

        var reference = Notebook(replica: ReplicaID(9))
        try reference.apply(early)
        try reference.apply(creation)
        #expect(reference.memo(m1)?.text == "xy")
        for order in [[early, late], [late, early]] {
            var receiver = Notebook(replica: ReplicaID(9))
            for delta in order { try receiver.apply(delta) }
            try receiver.apply(creation)
            try receiver.checkInvariants()
            #expect(receiver.version == reference.version)
            #expect(receiver.memo(m1)?.text == "xy")
            #expect(receiver.pendingOperationCount == 0)
        }
    }

    /// A delta held back (what it builds on has not arrived) and received again, as a sync
    /// reads the same segment each time while it waits, is held once: the queue does not grow
    /// with every sync.
    @Test func heldBackDeltaReceivedAgainIsHeldOnce() throws {
        let memo = MemoID(high: 5, low: 5)
        var author = Notebook(replica: ReplicaID(1))
        try author.createMemo(memo, text: "base", wallMilliseconds: 1_000)
        var editor = Notebook(replica: ReplicaID(2))
        try editor.apply(author.changes(since: VersionVector()))
        try editor.edit(memo, replacingUTF16: 4..<4, with: " and more", wallMilliseconds: 2_000)
        try editor.edit(memo, replacingUTF16: 0..<1, with: "B", wallMilliseconds: 3_000)
        let edits = try editor.changes(since: author.version)
        var receiver = Notebook(replica: ReplicaID(3))
        try receiver.apply(edits)
        let held = receiver.pendingOperationCount
        #expect(held > 0)
        for _ in 0..<5 {
            try receiver.apply(edits)
            try receiver.checkInvariants()
        }
        #expect(receiver.pendingOperationCount == held)
        // A delta that overlaps what is held (the same operations and more) adds only itself.
        try editor.edit(memo, replacingUTF16: 0..<0, with: "Re: ", wallMilliseconds: 4_000)
        try receiver.apply(editor.changes(since: author.version))
        try receiver.apply(edits)
        try receiver.apply(author.changes(since: VersionVector()))
        #expect(receiver.pendingOperationCount == 0)
        #expect(receiver.memo(memo)?.text == editor.memo(memo)?.text)
        #expect(receiver.version == editor.version)
        #expect(receiver.encoded() == editor.encoded())
        try receiver.checkInvariants()
    }

    /// A notebook holding only runs held back (a segment read ahead of the snapshot it builds
    /// on: a new device reads ahead) adopts the snapshot, as an empty one does, rather than
    /// applying its changes (every memo's text decoded and applied again: 1.2 s of a
    /// 100,000-memo bootstrap), and then applies what it held back: the same notebook as
    /// applying both.
    @Test func heldBackRunsDoNotStopASnapshotBeingAdopted() throws {
        var author = Notebook(replica: ReplicaID(1))
        let memos = [MemoID(high: 6, low: 1), MemoID(high: 6, low: 2), MemoID(high: 6, low: 3)]
        for (index, memo) in memos.enumerated() { try author.createMemo(memo, text: "memo \(index)\nbody", wallMilliseconds: 1_000) }
        let snapshot = author
        try author.edit(memos[0], replacingUTF16: 0..<0, with: "later ", wallMilliseconds: 2_000)
        try author.moveToTrash(memos[1], wallMilliseconds: 2_100)
        let later = try author.changes(since: snapshot.version)
        // A run of another replica that waits for something that never comes.
        var other = Notebook(replica: ReplicaID(2))
        try other.apply(snapshot.changes(since: VersionVector()))
        try other.edit(memos[0], replacingUTF16: 0..<0, with: "x", wallMilliseconds: 2_200)
        var missing = Notebook(replica: ReplicaID(3))
        try missing.apply(snapshot.changes(since: VersionVector()))
        try missing.edit(memos[0], replacingUTF16: 0..<0, with: "never ", wallMilliseconds: 2_300)
        try other.apply(missing.changes(since: snapshot.version))
        try other.edit(memos[0], replacingUTF16: 0..<0, with: "y", wallMilliseconds: 2_400)
        let waiting = try other.changes(of: ReplicaID(2), counters: 1..<other.version[ReplicaID(2)])

        var receiver = Notebook(replica: ReplicaID(9))
        try receiver.apply(later)
        try receiver.apply(waiting)
        #expect(receiver.version.isEmpty && receiver.pendingOperationCount > 0)
        _ = receiver.takeEvents()
        // As a sync has it: decoded from its bytes, every text still encoded.
        try receiver.merge(Notebook(decoding: snapshot.encoded(), replica: ReplicaID(1)))
        // Adopted: only the memo the held-back runs changed was decoded.
        #expect(receiver.decodedTextCount == 1)
        var reference = Notebook(replica: ReplicaID(9))
        try reference.apply(later)
        try reference.apply(waiting)
        try reference.apply(snapshot.changes(since: VersionVector()))
        try receiver.checkInvariants()
        #expect(receiver.version == author.version)
        #expect(receiver.version == reference.version)
        #expect(receiver.pendingOperationCount == reference.pendingOperationCount && receiver.pendingOperationCount > 0)
        #expect(receiver.encoded() == reference.encoded())
        #expect(receiver.memo(memos[0])?.text == author.memo(memos[0])?.text)
        #expect(receiver.status(of: memos[1]) == .trashed)
        // Every memo reported, as adopting reports it.
        let added = receiver.takeEvents().compactMap { event -> MemoID? in if case let .added(id, _) = event { id } else { nil } }
        #expect(Set(added) == Set(memos))
    }

    /// `pendingOperationCount` counts each operation held back once, however many queued copies
    /// hold it, and none the log holds already: against a set of counters, for queues in counter
    /// order (the sweep) and out of it (the sort).
    @Test(arguments: testSeeds(40, salt: 0x9E4D))
    func pendingOperationsAreCountedOnce(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let replicaID = ReplicaID(5)
        var notebook = Notebook(replica: ReplicaID(9))
        var author = Notebook(replica: replicaID)
        try author.createMemo(Self.memo, text: String(repeating: "x", count: random.int(in: 0...20)), wallMilliseconds: 1_000)
        try notebook.apply(author.changes(since: VersionVector()))
        let held = notebook.version[replicaID]
        var runs: [Notebook.PendingRun] = []
        var expected = Set<UInt32>()
        for _ in 0..<random.int(in: 1...12) {
            let counter = UInt32(random.int(in: 0...40))
            let length = UInt32(random.int(in: 1...10))
            runs.append(Notebook.PendingRun(run: Self.textRun(counter: counter, length: length, textCounter: counter), text: TextDelta()))
            for value in counter..<counter + length where value >= held { expected.insert(value) }
        }
        if random.chance(0.5) { runs.sort { $0.run.counter < $1.run.counter } }
        notebook.pending[replicaID] = runs
        #expect(notebook.pendingOperationCount(of: replicaID) == expected.count, "seed \(seed)")
        #expect(notebook.pendingOperationCount == expected.count, "seed \(seed)")
    }

    @Test func logsKeepTheirVersionOnEveryChange() {
        var logs = NotebookLogs()
        #expect(logs.isEmpty && logs.version.isEmpty)
        let a = ReplicaID(30)
        let b = ReplicaID(10)
        logs[a, default: NotebookLog()].append(Self.textRun(counter: 0, length: 3, textCounter: 0))
        logs[b, default: NotebookLog()].append(Self.textRun(counter: 0, length: 1, textCounter: 0))
        let held = logs.version
        logs.append(Self.textRun(counter: 3, length: 2, textCounter: 3), for: a)
        #expect(logs.version == VersionVector([a: 5, b: 1]))
        #expect(logs.version == logs.recomputedVersion)
        // A copy taken earlier is unchanged (value semantics).
        #expect(held == VersionVector([a: 3, b: 1]))
        #expect(logs[a]?.runs.count == 1 && logs[a]?.operationCount == 5)
        // Replacing a log, and an empty log (no operations: no version entry).
        var replaced = NotebookLog()
        replaced.append(Self.textRun(counter: 0, length: 7, textCounter: 0))
        logs[b] = replaced
        logs[ReplicaID(20)] = NotebookLog()
        #expect(logs.version == VersionVector([a: 5, b: 7]))
        #expect(logs.version == logs.recomputedVersion)
        #expect(Set(logs.keys) == [a, b, ReplicaID(20)])
        #expect(logs.map(\.value.operationCount).reduce(0, +) == 12)
    }
}
