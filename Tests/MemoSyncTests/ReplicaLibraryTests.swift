import Foundation
import MemoCRDT
import MemoNotes
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// The local library: durability of saved edits, crash recovery at every disk operation,
/// compaction, damaged files.
@Suite struct ReplicaLibraryTests {
    @Test func savedEditsSurviveReopening() async throws {
        let environment = TestEnvironment(seed: 21)
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        #expect(replica.openReport.created)
        let memo = try replica.createMemo(text: "Title\nbody")
        try replica.edit(memo, replacingUTF16: 5..<5, with: "!")
        #expect(replica.unsavedOperationCount > 0)
        try await replica.save()
        #expect(replica.unsavedOperationCount == 0)
        let id = replica.id
        await replica.close()
        disk.crash()
        let reopened = try Replica(disk: disk, environment: environment.environment)
        #expect(!reopened.openReport.created)
        #expect(reopened.id != id, "each open takes a fresh id")
        #expect(reopened.syncState.lineage == [id], "the earlier session's id is kept, to publish its edits")
        #expect(reopened.notebook.memo(memo)?.text == "Title!\nbody")
        #expect(reopened.notebook.encoded() == replica.notebook.encoded(), "the session id is not part of the state")
    }

    @Test func unsavedEditsAreLostInACrashButNothingElse() async throws {
        let environment = TestEnvironment(seed: 22)
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        let memo = try replica.createMemo(text: "kept")
        try await replica.save()
        try replica.edit(memo, replacingUTF16: 0..<4, with: "lost")
        disk.crash()
        let reopened = try Replica(disk: disk, environment: environment.environment)
        #expect(reopened.notebook.memo(memo)?.text == "kept")
    }

    /// Random edits with saves and compactions; `saved` gets the notebook after each save that returned.
    private static func run(_ disk: MemoryDisk, random: inout SeededRandom, environment: TestEnvironment, saved: inout [(version: VersionVector, bytes: [UInt8])]) async {
        guard let replica = try? Replica(disk: disk, environment: environment.environment) else { return }
        saved.append((replica.notebook.version, replica.notebook.encoded()))
        for step in 0..<40 {
            let memos = replica.notebook.list().map(\.id)
            if memos.isEmpty || random.int(in: 0..<6) == 0 {
                guard (try? replica.createMemo(text: "memo \(step)\n")) != nil else { return }
            } else {
                let memo = memos[random.int(in: 0..<memos.count)]
                let length = replica.notebook.memo(memo)!.text.unicodeScalars.count
                let start = random.int(in: 0..<length + 1)
                let end = min(length, start + random.int(in: 0..<3))
                guard (try? replica.edit(memo, replacingScalars: start..<end, with: "x\(step)")) != nil else { return }
            }
            do {
                if random.int(in: 0..<8) == 0 { try await replica.compact() } else { try await replica.save() }
            } catch {
                return  // the injected failure: the process "dies" here
            }
            saved.append((replica.notebook.version, replica.notebook.encoded()))
        }
    }

    /// Crashes at every disk operation of a run of saves and compactions (with torn appends),
    /// and checks each time that the library reopens with every edit whose save returned.
    @Test(arguments: [UInt64(31), 32, 33])
    func crashAtEveryDiskOperationKeepsEverySavedEdit(seed: UInt64) async throws {
        let environment = TestEnvironment(seed: seed)
        var random = SeededRandom(seed: seed)
        var referenceSaved: [(version: VersionVector, bytes: [UInt8])] = []
        let reference = MemoryDisk()
        await Self.run(reference, random: &random, environment: environment, saved: &referenceSaved)
        let operationCount = reference.operationCount
        #expect(operationCount > 80, "the run should perform many disk operations (seed \(seed))")
        for crashAt in 1...operationCount {
            let disk = MemoryDisk()
            disk.failAtOperation = crashAt
            var runRandom = SeededRandom(seed: seed)
            let runEnvironment = TestEnvironment(seed: seed)
            var saved: [(version: VersionVector, bytes: [UInt8])] = []
            await Self.run(disk, random: &runRandom, environment: runEnvironment, saved: &saved)
            var tornRandom: SeededRandom? = SeededRandom(seed: seed &+ UInt64(crashAt))
            disk.crash(keepingTornTails: &tornRandom)
            let reopened: Replica
            do {
                reopened = try Replica(disk: disk, environment: runEnvironment.environment)
            } catch {
                Issue.record("reopening after a crash at disk operation \(crashAt) failed: \(error) (seed \(seed))")
                continue
            }
            // Every save that returned is there: the reopened notebook is at least the last one,
            // and at most what was being saved when the crash came.
            guard let last = saved.last else {
                #expect(reopened.notebook.version.isEmpty, "crash at \(crashAt) (seed \(seed))")
                continue
            }
            let version = reopened.notebook.version
            #expect(last.version.isIncluded(in: version), "crash at disk operation \(crashAt) lost saved edits (seed \(seed))")
            if version == last.version {
                #expect(reopened.notebook.encoded() == last.bytes, "crash at \(crashAt): state differs (seed \(seed))")
            }
            try reopened.notebook.checkInvariants()
            // And it keeps working.
            try reopened.createMemo(text: "after the crash")
            try await reopened.save()
        }
    }

    @Test func journalCompactsWhenItOutgrowsTheState() async throws {
        let environment = TestEnvironment(seed: 23)
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        let memo = try replica.createMemo()
        let generation = replica.library.generation
        // Each save appends a record; past 1 MiB of journal the library compacts.
        let chunk = String(repeating: "abcdefghij", count: 2_000)
        for index in 0..<80 {
            try replica.edit(memo, replacingScalars: 0..<0, with: chunk + "\(index)")
            try await replica.save()
        }
        #expect(replica.library.generation > generation)
        #expect(try disk.listFiles().filter { $0.hasPrefix("journal-") }.count <= 1)
        let reopened = try Replica(disk: disk, environment: environment.environment)
        #expect(reopened.notebook.memo(memo)?.text == replica.notebook.memo(memo)?.text)
    }

    /// FORMAT.md, "Local library": a save compacts "after a failed append" (what the append
    /// wrote may be torn; nothing is appended after it). The append of a record fails (or its
    /// fsync, the record then written but not durable); the failure cleared, the next save
    /// compacts (the generation moves on by one, the journal of the old one goes), and the
    /// library reopens from what is durable with no damage, nothing cut, and every edit.
    @Test(arguments: [1, 2]) func aSaveAfterAFailedAppendCompacts(failingOperation: Int) async throws {
        let environment = TestEnvironment(seed: 24)
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        let memo = try replica.createMemo(text: "first")
        try await replica.save()
        let generation = replica.library.generation
        #expect(replica.library.journalRecords == 1)
        try replica.edit(memo, replacingUTF16: 5..<5, with: " second")
        // The save's operations are the append and its fsync; one of them fails.
        disk.failAtOperation = disk.operationCount + failingOperation
        await #expect(throws: ReplicaError.self) { try await replica.save() }
        #expect(replica.library.generation == generation, "a failed save changes no generation")
        disk.failAtOperation = nil
        try replica.edit(memo, replacingUTF16: 12..<12, with: " third")
        try await replica.save()
        #expect(replica.library.generation == generation + 1, "the save after the failed append compacted")
        #expect(replica.library.journalRecords == 0)
        #expect(try disk.listFiles().filter { $0.hasPrefix("journal-") }.allSatisfy { $0 == LibraryCore.journalFileName(generation: generation + 1) })
        let durable = disk.durableCopy()
        let reopened = try Replica(disk: durable, environment: environment.environment)
        #expect(reopened.openReport.damage.isEmpty && reopened.openReport.removedFiles.isEmpty, "\(reopened.openReport)")
        #expect(reopened.openReport.discardedJournalBytes == 0)
        #expect(reopened.library.generation == generation + 1)
        #expect(reopened.notebook.memo(memo)?.text == "first second third")
        await replica.close()
        await reopened.close()
    }

    /// A save that adds at least as many operations as the files hold (a bootstrap adds
    /// everything) compacts at once instead of building a journal record as large as the state
    /// first; smaller saves append a record; below 4,096 operations added, always a record.
    @Test func aSaveAddingAsMuchAsTheFilesHoldCompactsAtOnce() throws {
        let memo = MemoID(high: 4, low: 4)
        var small = Notebook(replica: ReplicaID(0x52))
        try small.createMemo(memo, text: String(repeating: "s", count: 1_000), wallMilliseconds: 1_000)
        #expect(try !LibraryCore.create(replica: small.replica).core.planSave(notebook: small, syncState: SyncState()).isCompaction)

        var notebook = Notebook(replica: ReplicaID(0x53))
        try notebook.createMemo(memo, text: String(repeating: "a", count: 5_000), wallMilliseconds: 1_000)
        var core = LibraryCore.create(replica: notebook.replica).core
        let first = try core.planSave(notebook: notebook, syncState: SyncState())
        #expect(first.isCompaction, "5,001 operations added to none")
        core.didSave(first, notebook: notebook, syncState: SyncState())
        try notebook.edit(memo, replacingUTF16: 0..<0, with: String(repeating: "b", count: 100), wallMilliseconds: 2_000)
        let record = try core.planSave(notebook: notebook, syncState: SyncState())
        #expect(!record.isCompaction, "100 operations added to 5,001")
        core.didSave(record, notebook: notebook, syncState: SyncState())
        try notebook.edit(memo, replacingUTF16: 0..<0, with: String(repeating: "c", count: 5_200), wallMilliseconds: 3_000)
        let large = try core.planSave(notebook: notebook, syncState: SyncState())
        #expect(large.isCompaction, "5,200 operations added to 5,101")
        guard case let .write(_, bytes)? = large.operations.first else {
            Issue.record("a compaction that does not start with writing the state")
            return
        }
        #expect(try LibraryCore.decodeState(bytes).notebook.encoded() == notebook.encoded())
    }

    /// A compaction that keeps the memos' encoded text bodies writes the bytes of one that does
    /// not, and so does the next one (copying the bodies of the memos unchanged since).
    @Test func compactionKeepingTextBodiesWritesTheSameState() throws {
        var notebook = Notebook(replica: ReplicaID(0x51))
        let memos = [MemoID(high: 1, low: 1), MemoID(high: 2, low: 2), MemoID(high: 3, low: 3)]
        for (index, memo) in memos.enumerated() {
            try notebook.createMemo(memo, text: "memo \(index)\nbody", wallMilliseconds: 1_000)
        }
        let core = LibraryCore.create(replica: notebook.replica).core
        for round in 0..<3 {
            let plain = try core.planCompaction(notebook: notebook, syncState: SyncState())
            let keeping = try core.planCompaction(keepingTextBodiesOf: &notebook, syncState: SyncState())
            #expect(keeping.isCompaction && keeping.bytes == plain.bytes)
            guard case let .write(_, expected)? = plain.operations.first, case let .write(_, written)? = keeping.operations.first else {
                Issue.record("a compaction that does not start with writing the state")
                return
            }
            #expect(written == expected, "round \(round)")
            // One memo changes; the others' kept bodies are copied next time.
            try notebook.edit(memos[round], replacingUTF16: 0..<0, with: "edit \(round) ", wallMilliseconds: 2_000)
        }
        // And it reads back as the notebook.
        let last = try core.planCompaction(keepingTextBodiesOf: &notebook, syncState: SyncState())
        guard case let .write(_, bytes)? = last.operations.first else {
            Issue.record("a compaction that does not start with writing the state")
            return
        }
        #expect(try LibraryCore.decodeState(bytes).notebook.encoded() == notebook.encoded())
    }

    @Test func damagedStateFileIsReportedNotReplaced() async throws {
        let environment = TestEnvironment(seed: 24)
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        try replica.createMemo(text: "precious")
        try await replica.compact()
        var bytes = try #require(try disk.read(file: LibraryCore.stateFileName))
        bytes[bytes.count / 2] ^= 0x40
        try disk.perform(.write(file: LibraryCore.stateFileName, bytes: bytes))
        #expect(throws: ReplicaError.self) { try Replica(disk: disk, environment: environment.environment) }
        do {
            _ = try Replica(disk: disk, environment: environment.environment)
        } catch {
            guard case .corruptLibrary(let file, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(file == "state")
            #expect(error.description.contains("damaged"))
        }
        // The damaged file is still there, unchanged.
        #expect(try disk.read(file: LibraryCore.stateFileName) == bytes)
    }

    /// The sync state of format version 3 (lineage, published counts, own blobs with the
    /// versions they hold, heads, read snapshots) decodes to what was encoded; the lineage keeps
    /// its session order.
    @Test func syncStateRoundTrips() throws {
        var state = SyncState()
        state.lineage = [ReplicaID(0x30), ReplicaID(0x10), ReplicaID(0x20)]
        state.published[ReplicaID(0x30)] = 12
        state.published[ReplicaID(0x10)] = 4
        state.ownSegments = [StoreLayout.segmentKey(replica: ReplicaID(0x10), counters: 0..<4, bytes: [1])]
        var version = VersionVector()
        version[ReplicaID(0x30)] = 12
        version[ReplicaID(0x99)] = 7
        state.ownSnapshots = [
            SyncState.OwnSnapshot(
                key: StoreLayout.snapshotKey(replica: ReplicaID(0x30), totalOperations: 19, bytes: [2]), version: version,
                writtenAtMilliseconds: 1_700_000_000_000)
        ]
        state.operationsAtLastSnapshot = 19
        state.lastSyncMilliseconds = 1_700_000_000_500
        let ownHead = SyncHead(holds: version, lacks: VersionVector())
        state.ownHead = SyncState.KnownHead(replica: ReplicaID(0x30), key: StoreLayout.headKey(replica: ReplicaID(0x30), bytes: ownHead.encoded()), head: ownHead)
        var lacks = version
        lacks[ReplicaID(0x99)] = 9
        let otherHead = SyncHead(holds: version, lacks: lacks, newestSnapshot: SyncState.ReadSnapshot(key: state.ownSnapshots[0].key, version: version))
        state.otherHeads = [SyncState.KnownHead(replica: ReplicaID(0x99), key: StoreLayout.headKey(replica: ReplicaID(0x99), bytes: otherHead.encoded()), head: otherHead)]
        state.readSnapshots = [SyncState.ReadSnapshot(key: StoreLayout.snapshotKey(replica: ReplicaID(0x99), totalOperations: 19, bytes: [5]), version: version)]
        let bytes = LibraryCore.encodeSyncState(state)
        #expect(try LibraryCore.decodeSyncState(bytes, version: LibraryCore.formatVersion, replica: ReplicaID(0x77)) == state)
        // Every truncation and every lineage listing an id twice is a typed error, never a crash.
        for length in 0..<bytes.count {
            #expect(throws: DecodingError.self) { try LibraryCore.decodeSyncState(Array(bytes[..<length]), version: LibraryCore.formatVersion, replica: ReplicaID(1)) }
        }
        var twice = state
        twice.lineage = [ReplicaID(0x30), ReplicaID(0x30)]
        #expect(throws: DecodingError.self) { try LibraryCore.decodeSyncState(LibraryCore.encodeSyncState(twice), version: LibraryCore.formatVersion, replica: ReplicaID(1)) }
    }

    /// A version 1 sync state (one replica id for good) reads as a lineage of that id.
    @Test func version1SyncStateReadsAsALineageOfOneID() throws {
        let segment = StoreLayout.segmentKey(replica: ReplicaID(0x42), counters: 0..<9, bytes: [3])
        let snapshot = StoreLayout.snapshotKey(replica: ReplicaID(0x42), totalOperations: 30, bytes: [4])
        var writer = ByteWriter()
        writer.varint(UInt64(9))          // published operations
        writer.varint(UInt64(1_234))      // last sync
        writer.varint(UInt64(30))         // operations at the last snapshot
        writer.varint(UInt64(1))
        writer.lengthPrefixed(Array(segment.utf8))
        writer.varint(UInt64(1))
        writer.lengthPrefixed(Array(snapshot.utf8))
        writer.varint(UInt64(9))          // own operations it holds
        writer.varint(UInt64(1_000))      // written at
        let state = try LibraryCore.decodeSyncState(writer.bytes, version: 1, replica: ReplicaID(0x42))
        #expect(state.lineage == [ReplicaID(0x42)])
        #expect(state.published[ReplicaID(0x42)] == 9)
        #expect(state.ownSegments == [segment])
        #expect(state.ownSnapshots.map(\.key) == [snapshot])
        #expect(state.ownSnapshots.first?.version[ReplicaID(0x42)] == 9)
        #expect(state.lastSyncMilliseconds == 1_234 && state.operationsAtLastSnapshot == 30)
    }

    /// The library folder's files and their bytes.
    private static func folder(_ disk: MemoryDisk) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for file in try disk.listFiles() { files[file] = try disk.read(file: file) }
        return files
    }

    /// GettingStarted: "a newer-version library file is left untouched and reported as
    /// unknownLibraryVersion": the open throws, and every file of the folder is as it was.
    @Test func newerLibraryVersionIsReported() throws {
        let environment = TestEnvironment(seed: 25)
        let disk = MemoryDisk()
        _ = try Replica(disk: disk, environment: environment.environment)
        var bytes = try #require(try disk.read(file: LibraryCore.stateFileName))
        bytes[2] = (bytes[2] & 0xF0) | 0x0F
        try disk.perform(.write(file: LibraryCore.stateFileName, bytes: bytes))
        let before = try Self.folder(disk)
        do {
            _ = try Replica(disk: disk, environment: environment.environment)
            Issue.record("expected an error")
        } catch {
            #expect(error == .unknownLibraryVersion(file: "state", kind: 6, version: 15))
        }
        #expect(try disk.read(file: LibraryCore.stateFileName) == bytes, "the state file left untouched")
        #expect(try Self.folder(disk) == before, "nothing written, renamed or deleted")
    }

    /// The same for a journal whose last record (frame and envelope intact) has a version newer
    /// than this MemoSync's, after intact records: reported, not cut as a torn tail nor kept
    /// aside as damage; the journal and the state left untouched.
    @Test func newerJournalRecordVersionIsReportedAndLeftUntouched() throws {
        let environment = TestEnvironment(seed: 25)
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        for text in ["one", "two"] {
            _ = try replica.createMemo(text: text)
            try replica.saveNow()
        }
        replica.closeNow()
        let journalName = LibraryCore.journalFileName(generation: replica.library.generation)
        let newer = LibraryJournal.frame(BlobEnvelope.seal(kind: .localFile, version: 9, body: [2, 0, 0, 0]))
        try disk.perform(.append(file: journalName, bytes: newer))
        let journal = try #require(try disk.read(file: journalName))
        let before = try Self.folder(disk)
        #expect(before.keys.contains(journalName) && before.keys.contains(LibraryCore.stateFileName))
        do {
            _ = try Replica(disk: disk, environment: environment.environment)
            Issue.record("expected an error")
        } catch {
            #expect(error == .unknownLibraryVersion(file: journalName, kind: 6, version: 9))
        }
        #expect(try disk.read(file: journalName) == journal, "the journal left untouched")
        #expect(try Self.folder(disk) == before, "nothing written, renamed or deleted")
    }

    @Test func refusedEditsChangeNothing() throws {
        let environment = TestEnvironment(seed: 26)
        let replica = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let memo = try replica.createMemo(text: "😀")
        let before = replica.notebook.encoded()
        #expect(throws: ReplicaError.self) { try replica.edit(memo, replacingUTF16: 1..<1, with: "x") }
        #expect(throws: ReplicaError.self) { try replica.edit(memo, replacingUTF16: 0..<9, with: "x") }
        #expect(throws: ReplicaError.self) { try replica.edit(MemoID(high: 1, low: 2), replacingUTF16: 0..<0, with: "x") }
        #expect(throws: ReplicaError.self) { try replica.restore(memo) }
        #expect(replica.notebook.encoded() == before)
    }

    @Test func eventsReachStreams() async throws {
        let environment = TestEnvironment(seed: 27)
        let replica = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let stream = replica.events()
        let memo = try replica.createMemo(text: "hello")
        try replica.moveToTrash(memo)
        await replica.close()
        var received: [NotebookEvent] = []
        for await event in stream { received.append(event) }
        #expect(received.first == .added(memo, origin: .local))
        #expect(received.contains(.trashed(memo, origin: .local)))
    }
}
