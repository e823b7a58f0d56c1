import Foundation
import MemoCRDT
import Testing

@testable import MemoSync
import MemoSyncTesting

/// The promises that a user interface never waits on the library: edits and reads go on while a
/// save, a compaction or the close is on the disk; those run off the caller's actor; opening
/// waits on a thread of its own; a release of decoded texts holds the lock a few texts at a
/// time. The disk (or the open) is held at a gate the test controls (`GatedDisk`, `TestGate`):
/// what must not wait is done while the gate is shut, and opened only after. The one time limit
/// is the gate's hang detector (`TestGate.holdSecondsMax`), which a passing test never reaches.
///
/// The tests run one at a time, and those that hold a save run on the main actor, as an app's
/// calls do. (A save held on the disk once held a thread of the cooperative pool, as a real
/// `fsync` did; saves, opens, closes and a sync's saves now wait on threads of their own, which
/// `opensWaitOnThreadsOfTheirOwn` and `syncsSaveOnThreadsOfTheirOwn` show.)
@Suite(.serialized) struct ReplicaNeverBlocksTests {
    /// The notebook's contents, for comparing a library reopened from a disk's durable state.
    private static func texts(_ replica: Replica) -> [String] {
        let notebook = replica.notebook
        return notebook.list().compactMap { notebook.memo($0.id)?.text }.sorted()
    }

    /// What a crash now would leave of `disk`, opened.
    private static func durableTexts(_ disk: GatedDisk) throws -> [String] {
        texts(try Replica(disk: disk.inner.durableCopy(), environment: TestEnvironment(seed: 99).environment))
    }

    /// Replica.save(): "Runs off the caller's actor; edits go on meanwhile (those made after it
    /// began are saved by the next save)" (GettingStarted.md: "edits go on meanwhile";
    /// MemoSync.md: reads and edits are cheap synchronous calls, saves run off the caller's
    /// actor); a compaction is the same write (Replica.writeToDisk). While the save is held on
    /// the disk, an edit, a new memo, a read of the notebook and of the unsaved count all return
    /// (a hang would hold them until the gate's detector opens it: `timedOut`). Once it ends,
    /// exactly the operations made meanwhile are unsaved, and the disk holds only what was there
    /// when it began; the next save makes the rest durable.
    @MainActor
    @Test(arguments: [false, true])
    func editsGoOnWhileASaveIsOnTheDisk(compacting: Bool) async throws {
        let disk = GatedDisk()
        let replica = try Replica(disk: disk, environment: TestEnvironment(seed: 1).environment)
        let id = try replica.createMemo(text: "before")
        try await replica.save()
        try replica.edit(id, replacingUTF16: 6..<6, with: " saved")
        let unsavedWhenBegun = replica.unsavedOperationCount
        #expect(unsavedWhenBegun > 0)

        disk.gate.shut()
        let saving = Task {
            if compacting { try await replica.compact() } else { try await replica.save() }
        }
        #expect(await disk.gate.arrivals(atLeast: 1), "the save never reached the disk")
        // The save is on the disk and stays there until the gate opens.
        try replica.edit(id, replacingUTF16: 12..<12, with: " during")
        try replica.createMemo(text: "made during the save")
        #expect(Self.texts(replica) == ["before saved during", "made during the save"])
        let unsavedWhileHeld = replica.unsavedOperationCount
        #expect(unsavedWhileHeld > unsavedWhenBegun)
        #expect(!disk.gate.timedOut, "a call waited for the save on the disk")
        disk.gate.open()
        try await saving.value

        #expect(!disk.gate.timedOut)
        #expect(replica.unsavedOperationCount == unsavedWhileHeld - unsavedWhenBegun)
        #expect(try Self.durableTexts(disk) == ["before saved"])
        try await replica.save()
        #expect(replica.unsavedOperationCount == 0)
        #expect(try Self.durableTexts(disk) == ["before saved during", "made during the save"])
        await replica.close()
    }

    /// While the close seals the folder (on the disk, held), reading the notebook and the
    /// unsaved count return, and an edit is refused as closed at once rather than waiting.
    @MainActor
    @Test func readsGoOnWhileTheCloseIsOnTheDisk() async throws {
        let disk = GatedDisk()
        let replica = try Replica(disk: disk, environment: TestEnvironment(seed: 2).environment)
        let id = try replica.createMemo(text: "kept")
        try await replica.save()
        disk.gate.shut()
        let closing = Task { await replica.close() }
        #expect(await disk.gate.arrivals(atLeast: 1), "the close never wrote its seal")
        #expect(Self.texts(replica) == ["kept"])
        #expect(replica.unsavedOperationCount == 0)
        #expect(throws: ReplicaError.closed) { try replica.edit(id, replacingUTF16: 0..<0, with: "x") }
        #expect(!disk.gate.timedOut, "a call waited for the close on the disk")
        disk.gate.open()
        await closing.value
        #expect(!disk.gate.timedOut)
    }

    /// README: "`save()`, `sync(with:)`, `compact()` and `close()` are `async` and run off the
    /// caller's actor, so a durable save (an `fsync`) never blocks the UI" (MemoSync.md, the
    /// Concurrency section of `Replica`). Awaited from the main actor, each is held on the disk,
    /// and the main actor runs other work meanwhile (this test resumes on it, and a main-actor
    /// task runs to its end). Were the work on the main actor, it would sit at the gate until the
    /// hang detector opened it. (Not `Thread.isMainThread` at the disk: under swift-testing on
    /// Linux the main actor's jobs need not run on the main thread, so that check cannot fail.)
    @MainActor
    @Test func savesCompactionsAndTheCloseRunOffTheCallersActor() async throws {
        let disk = GatedDisk()
        let replica = try Replica(disk: disk, environment: TestEnvironment(seed: 3).environment)
        let id = try replica.createMemo(text: "a")
        for step in ["save", "compact", "close"] {
            if step != "close" { try replica.edit(id, replacingUTF16: 0..<0, with: "b") }
            disk.gate.shut()
            let running = Task { @MainActor in
                switch step {
                case "save": try await replica.save()
                case "compact": try await replica.compact()
                default: await replica.close()
                }
            }
            #expect(await disk.gate.arrivals(atLeast: 1), "\(step): never reached the disk")
            // Here on the main actor while the disk holds the work.
            let mainActorRan = await Task { @MainActor in true }.value
            #expect(mainActorRan)
            #expect(!disk.gate.timedOut, "\(step): the main actor waited for the disk")
            disk.gate.open()
            try await running.value
            #expect(!disk.gate.timedOut)
        }
    }

    /// `Replica.open(libraryPath:)`: "neither the caller's actor nor the cooperative thread pool
    /// waits on the disk" (GettingStarted.md: "so the user interface never waits on the disk"). The public open
    /// is `open(makingDisk:)` with a `FileDisk`; here each disk is made at a shut gate, as a
    /// `FileDisk` waits for the folder's lock. More opens than the cooperative pool has threads
    /// (one per processor) all reach the gate at once, and while they wait a detached task (the
    /// pool) and the main actor both run. Opens that waited on the pool's threads would not all
    /// arrive: the hang detector would end the wait.
    @MainActor
    @Test func opensWaitOnThreadsOfTheirOwn() async throws {
        let gate = TestGate()
        gate.shut()
        let count = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        let opens = (0..<count).map { index in
            Task { @MainActor in
                try await Replica.open(
                    makingDisk: { () throws(DiskError) -> any LibraryDisk in
                        gate.pass()
                        return MemoryDisk(device: UInt64(index + 1))
                    },
                    environment: TestEnvironment(seed: UInt64(index)).environment, configuration: SyncConfiguration())
            }
        }
        #expect(await gate.arrivals(atLeast: count), "only \(gate.arrivals) of \(count) opens reached the disk at once")
        let poolRan = await Task.detached { await MainActor.run { true } }.value
        #expect(poolRan)
        #expect(!gate.timedOut, "an open held the cooperative pool or the main actor")
        gate.open()
        for open in opens {
            let replica = try await open.value
            #expect(replica.openReport.created)
            await replica.close()
        }
        #expect(!gate.timedOut)
    }

    /// The replica's documentation: "The disk's work runs on a thread of its own (neither the
    /// caller's actor nor the cooperative pool waits for an `fsync`; a sync's saves too)". More
    /// syncs than the pool has threads, each of a replica with an unsaved memo, all reach a shut
    /// gate at once (the save a sync makes before it starts), and while they wait a detached task
    /// and the main actor both run; opened, every sync completes.
    @MainActor
    @Test func syncsSaveOnThreadsOfTheirOwn() async throws {
        let gate = TestGate()
        let count = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        let store = InMemoryBlobStore()
        var replicas: [Replica] = []
        for index in 0..<count {
            let disk = GatedDisk(MemoryDisk(device: UInt64(index + 1)), gate: gate)
            let replica = try Replica(disk: disk, environment: TestEnvironment(seed: UInt64(index + 20)).environment)
            try replica.createMemo(text: "memo \(index)")
            replicas.append(replica)
        }
        gate.shut()
        let syncs = replicas.map { replica in Task { @MainActor in try await replica.sync(with: store) } }
        #expect(await gate.arrivals(atLeast: count), "only \(gate.arrivals) of \(count) syncs reached the disk at once")
        let poolRan = await Task.detached { await MainActor.run { true } }.value
        #expect(poolRan)
        #expect(!gate.timedOut, "a sync's save held the cooperative pool or the main actor")
        gate.open()
        for sync in syncs {
            let report = try await sync.value
            #expect(report.isComplete, "\(report.errors)")
        }
        #expect(!gate.timedOut)
    }

    /// `Replica.releaseDecodedTexts(keepingMostRecent:)`: "Texts are turned back a few at a time,
    /// the lock released between, so an edit meanwhile waits for a few at most": the lock is
    /// held for `memosListedPerLock` memos at a time while the texts are listed, then for
    /// `decodedTextsReleasedPerLock` texts at a time (the numbers: `DocumentedDefaultsTests`).
    /// Each hold is recorded (self-check builds): a release of more than 2,048 decoded texts
    /// lists them in two holds and turns them back four per hold, never more.
    @Test func aReleaseOfDecodedTextsHoldsTheLockForAFewTextsAtATime() throws {
        let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 4).environment)
        let memoCount = Replica.memosListedPerLock + 9
        for index in 0..<memoCount { try replica.createMemo(text: "memo \(index)") }
        let decoded = replica.decodedTextCount
        #expect(decoded == memoCount)
        #if MEMOSYNC_INTERNAL_CHECKS
        _ = replica.takeDebugReleaseHolds()
        #endif

        #expect(replica.releaseDecodedTexts(keepingMostRecent: 0) == decoded)
        #expect(replica.decodedTextCount == 0)
        // The holds are recorded in self-check builds only (the project's test command's).
        #if MEMOSYNC_INTERNAL_CHECKS
        let holds = replica.takeDebugReleaseHolds()
        let listed = holds.compactMap { hold -> Int? in if case let .listed(memos) = hold { memos } else { nil } }
        let released = holds.compactMap { hold -> Int? in if case let .released(texts) = hold { texts } else { nil } }
        #expect(listed == [Replica.memosListedPerLock, 9])
        #expect(released.allSatisfy { $0 <= Replica.decodedTextsReleasedPerLock }, "a hold turned back \(released.max() ?? 0) texts")
        #expect(released.reduce(0, +) == decoded)
        #expect(released.count == (decoded + Replica.decodedTextsReleasedPerLock - 1) / Replica.decodedTextsReleasedPerLock)
        // Listed first, then released.
        #expect(holds == listed.map { .listed(memos: $0) } + released.map { .released(texts: $0) })
        #endif
    }
}
