import Foundation
import MemoCRDT
import MemoNotes
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// A library keeps history (issue 27; FORMAT.md, "History retention"): deletions keep their
/// content through saves, journal replay, compaction, the store's segments and snapshots, until
/// the library's retention period has passed; dropping content never changes what replicas
/// converge to.
@Suite struct LibraryHistoryTests {
    static let hour: UInt64 = 3_600_000
    static let day: UInt64 = 86_400_000
    static let original = "Plans\nA paragraph deleted on the phone.\nThe rest."
    static let deletedRange = 6..<40

    /// The text of `id` at its oldest version.
    static func firstVersionText(_ notebook: Notebook, _ id: MemoID) throws -> String {
        let versions = try notebook.versions(of: id)
        return try notebook.text(of: id, at: try #require(versions.first).cut)
    }

    /// Expects the oldest version of `id` not to be shown any more: its deleted content dropped.
    static func expectNotRetained(_ notebook: Notebook, _ id: MemoID, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let versions = try notebook.versions(of: id)
        #expect(versions.count >= 2, sourceLocation: sourceLocation)
        #expect(throws: NotebookError.history(id, .contentNotRetained(scalars: deletedRange.count)), sourceLocation: sourceLocation) {
            try notebook.text(of: id, at: versions[0].cut)
        }
    }

    /// A replica with a memo whose paragraph was deleted an hour after it was written, saved.
    /// (Another memo is written in between: a device's edits of one memo with nothing else in
    /// between are one stretch of its history, one version.)
    static func libraryWithDeletion(_ environment: TestEnvironment, disk: MemoryDisk) async throws -> (Replica, MemoID) {
        let replica = try Replica(disk: disk, environment: environment.environment)
        let id = try replica.createMemo(text: original)
        _ = try replica.createMemo(text: "another memo")
        try await replica.save()
        environment.advance(milliseconds: hour)
        try replica.edit(id, replacingUTF16: deletedRange, with: "")
        try await replica.save()
        return (replica, id)
    }

    @Test("a deleted paragraph is kept through the journal, a crash, and a compaction")
    func deletionsKeepContentAcrossReopen() async throws {
        let environment = TestEnvironment(seed: 2701)
        let disk = MemoryDisk()
        let (replica, id) = try await Self.libraryWithDeletion(environment, disk: disk)
        #expect(replica.historyRetention == .days(90))
        #expect(replica.notebook.memo(id)?.text == "Plans\nThe rest.")
        #expect(try Self.firstVersionText(replica.notebook, id) == Self.original)
        #expect(replica.library.journalRecords == 2, "both saves are journal records")
        // Crash without closing: the journal is replayed, and its deletion keeps what it deleted.
        disk.crash()
        let replayed = try Replica(disk: disk, environment: environment.environment)
        #expect(replayed.openReport.journalRecords == 2)
        #expect(try Self.firstVersionText(replayed.notebook, id) == Self.original)
        // A compaction writes the content into the state file (notebook state version 4).
        try await replayed.compact()
        await replayed.close()
        let state = try #require(try disk.read(file: LibraryCore.stateFileName))
        let decoded = try LibraryCore.decodeState(state)
        #expect(try Self.firstVersionText(decoded.notebook, id) == Self.original, "the state file holds the content")
        let reopened = try Replica(disk: disk, environment: environment.environment)
        #expect(reopened.openReport.journalRecords == 0)
        #expect(try Self.firstVersionText(reopened.notebook, id) == Self.original)
        await reopened.close()
    }

    @Test("a library of a MemoSync without history opens, and keeps history from then on")
    func olderLibraryOpens() async throws {
        let environment = TestEnvironment(seed: 2702)
        let disk = MemoryDisk()
        // A library written without history: its notebook never kept deleted content.
        var notebook = Notebook(replica: ReplicaID(0x77))
        let id = MemoID(high: 1, low: 2)
        try notebook.createMemo(id, text: Self.original, wallMilliseconds: environment.nowMilliseconds)
        try notebook.createMemo(MemoID(high: 1, low: 3), text: "another memo", wallMilliseconds: environment.nowMilliseconds)
        environment.advance(milliseconds: Self.hour)
        try notebook.edit(id, replacingUTF16: 0..<5, with: "", wallMilliseconds: environment.nowMilliseconds)
        let bytes = (try LibraryCore.encodeState(generation: 0, notebook: notebook, syncState: SyncState()).state)
        try disk.perform([.write(file: LibraryCore.stateFileName, bytes: bytes)])
        let replica = try Replica(disk: disk, environment: environment.environment)
        #expect(replica.notebook.memo(id)?.text == String(Self.original.dropFirst(5)))
        #expect(throws: NotebookError.history(id, .contentNotRetained(scalars: 5))) {
            try Self.firstVersionText(replica.notebook, id)
        }
        environment.advance(milliseconds: Self.hour)
        try replica.edit(id, replacingUTF16: 0..<1, with: "")
        try await replica.save()
        let versions = try replica.notebook.versions(of: id)
        #expect(versions.count == 3)
        #expect(try replica.notebook.text(of: id, at: versions[1].cut) == String(Self.original.dropFirst(5)))
    }

    @Test("another device sees the history: through segments, and bootstrapping from a snapshot")
    func otherDevicesSeeHistory() async throws {
        let environment = TestEnvironment(seed: 2703)
        let store = InMemoryBlobStore()
        var everySync = SyncConfiguration()
        everySync.snapshotEveryOperations = 1
        let phone = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let id = try phone.createMemo(text: Self.original)
        _ = try phone.createMemo(text: "another memo")
        try await phone.save()
        let laptop = try Replica(disk: MemoryDisk(), environment: environment.environment)
        try await syncUntilQuiet([phone, laptop], store: store)
        environment.advance(milliseconds: Self.hour)
        try phone.edit(id, replacingUTF16: Self.deletedRange, with: "")
        try await phone.save()
        try await syncUntilQuiet([phone, laptop], store: store)
        // The laptop had the paragraph visible; the phone's segment deleted it: kept.
        #expect(laptop.notebook.memo(id)?.text == "Plans\nThe rest.")
        #expect(try Self.firstVersionText(laptop.notebook, id) == Self.original)
        #expect(try laptop.notebook.versions(of: id).map(\.shortName) == phone.notebook.versions(of: id).map(\.shortName))
        // A snapshot carries the retained content: a new device starting from it sees the past.
        let snapshotter = try Replica(disk: MemoryDisk(), environment: environment.environment, configuration: everySync)
        try await syncUntilQuiet([snapshotter], store: store)
        try snapshotter.edit(id, replacingUTF16: 0..<0, with: "#")
        let report = try await snapshotter.sync(with: store)
        #expect(report.publishedSnapshot != nil)
        let newcomer = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let first = try await newcomer.sync(with: store)
        #expect(first.blobsRead < 4, "it starts from the snapshot: \(first)")
        #expect(newcomer.notebook.memo(id)?.text == "#Plans\nThe rest.")
        #expect(try Self.firstVersionText(newcomer.notebook, id) == Self.original)
    }

    @Test("content older than the retention period is dropped at the next save, and the files shed it")
    func retentionDropsOldContent() async throws {
        let environment = TestEnvironment(seed: 2704)
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        try replica.setHistoryRetention(.days(2))
        let id = try replica.createMemo(text: Self.original)
        let other = try replica.createMemo(text: "another memo")
        try await replica.save()
        environment.advance(milliseconds: Self.hour)
        try replica.edit(id, replacingUTF16: Self.deletedRange, with: "")
        try await replica.save()
        // A day later: kept.
        environment.advance(milliseconds: Self.day)
        try replica.edit(other, replacingUTF16: 0..<0, with: "+")
        try await replica.save()
        #expect(try Self.firstVersionText(replica.notebook, id) == Self.original)
        let generation = replica.library.generation
        // Past the period: dropped at the save, which compacts.
        environment.advance(milliseconds: 2 * Self.day)
        try replica.edit(other, replacingUTF16: 0..<1, with: "A")
        try await replica.save()
        #expect(replica.library.generation == generation + 1, "a save that dropped content compacts")
        try Self.expectNotRetained(replica.notebook, id)
        #expect(replica.notebook.memo(id)?.text == "Plans\nThe rest.", "the text never changes")
        await replica.close()
        let reopened = try Replica(disk: disk, environment: environment.environment)
        #expect(reopened.historyRetention == .days(2), "the period is the library's (its history file)")
        try Self.expectNotRetained(reopened.notebook, id)
        await reopened.close()
    }

    @Test("forever keeps everything; a period is 1 through 36,500 days; a damaged file keeps everything")
    func foreverAndBadPeriods() async throws {
        let environment = TestEnvironment(seed: 2705)
        let disk = MemoryDisk()
        let (replica, id) = try await Self.libraryWithDeletion(environment, disk: disk)
        #expect(try replica.setHistoryRetention(.forever) == 0)
        environment.advance(milliseconds: 10_000 * Self.day)
        try replica.compactNow()
        #expect(try Self.firstVersionText(replica.notebook, id) == Self.original)
        #expect(throws: ReplicaError.invalidHistoryRetention(days: 0)) { try replica.setHistoryRetention(.days(0)) }
        #expect(throws: ReplicaError.invalidHistoryRetention(days: 36_501)) { try replica.setHistoryRetention(.days(36_501)) }
        #expect(replica.historyRetention == .forever, "a refused period changes nothing")
        #expect(try replica.setHistoryRetention(.days(HistoryRetention.daysMax)) == 0)
        #expect(try replica.setHistoryRetention(.days(1)) == Self.deletedRange.count, "dropped at once")
        try Self.expectNotRetained(replica.notebook, id)
        await replica.close()
        // The file: canonical bytes; anything unreadable keeps everything.
        #expect(LibraryHistoryFile.decoded(LibraryHistoryFile.encoded(.days(30))) == .days(30))
        #expect(LibraryHistoryFile.decoded(LibraryHistoryFile.encoded(.forever)) == .forever)
        var damaged = LibraryHistoryFile.encoded(.days(1))
        damaged[damaged.count - 1] ^= 0xFF
        #expect(LibraryHistoryFile.decoded(damaged) == .forever)
        #expect(LibraryHistoryFile.decoded([]) == .forever)
        try disk.perform([.write(file: LibraryHistoryFile.fileName, bytes: damaged)])
        let reopened = try Replica(disk: disk, environment: environment.environment)
        #expect(reopened.historyRetention == .forever)
        await reopened.close()
        try disk.perform([.delete(file: LibraryHistoryFile.fileName)])
        #expect(try Replica(disk: disk, environment: environment.environment).historyRetention == .days(90))
        #expect(HistoryRetention.days(90).cutoffWallMilliseconds(nowWallMilliseconds: 5) == 0)
        #expect(HistoryRetention.forever.cutoffWallMilliseconds(nowWallMilliseconds: 5) == nil)
    }

    /// FORMAT.md, "History retention": the `history` file is "written as `history.tmp`, fsynced,
    /// renamed over `history`, folder fsynced", so a period set is durable once the call
    /// returns: a crash right after it (nothing saved, nothing closed) keeps it.
    @Test("a period set survives a crash right after setHistoryRetention returns", arguments: [HistoryRetention.forever, .days(2)])
    func retentionIsDurableOnceSet(retention: HistoryRetention) async throws {
        let environment = TestEnvironment(seed: 2710)
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        _ = try replica.createMemo(text: Self.original)
        try await replica.save()
        try replica.setHistoryRetention(retention)
        #expect(replica.historyRetention == retention)
        // The power goes: only what was made durable is on the disk.
        let survivor = disk.durableCopy()
        disk.crash()
        for afterCrash in [survivor, disk] {
            #expect(try afterCrash.read(file: LibraryHistoryFile.fileName) == LibraryHistoryFile.encoded(retention))
            #expect(try afterCrash.read(file: LibraryHistoryFile.temporaryFileName) == nil)
            let reopened = try Replica(disk: afterCrash, environment: environment.environment)
            #expect(reopened.historyRetention == retention, "not the default (\(HistoryRetention.default)) of a folder without the file")
            await reopened.close()
        }
    }

    @Test("a save applies the period again once the cutoff moved on by an hour; compact() always")
    func retentionStep() async throws {
        let environment = TestEnvironment(seed: 2709)
        let disk = MemoryDisk()
        let (replica, id) = try await Self.libraryWithDeletion(environment, disk: disk)
        // Deleted at T; the period set 10 minutes before it expires: kept.
        environment.advance(milliseconds: Self.day - 10 * 60_000)
        #expect(try replica.setHistoryRetention(.days(1)) == 0)
        // 20 minutes on it has expired, but the cutoff moved on by less than an hour: kept.
        // (Another memo: an edit of the same memo would extend the run holding the deletion,
        // whose time is its last operation's.)
        environment.advance(milliseconds: 20 * 60_000)
        _ = try replica.createMemo(text: "later")
        try await replica.save()
        #expect(try Self.firstVersionText(replica.notebook, id) == Self.original)
        // A compaction applies it whatever the step.
        try await replica.compact()
        try Self.expectNotRetained(replica.notebook, id)
        await replica.close()
    }

    @Test("a clock set back drops nothing more and brings nothing back")
    func clockGoingBackwards() async throws {
        let environment = TestEnvironment(seed: 2706, startMilliseconds: 1_790_000_000_000)
        let disk = MemoryDisk()
        let (replica, id) = try await Self.libraryWithDeletion(environment, disk: disk)
        try replica.setHistoryRetention(.days(1))
        #expect(try Self.firstVersionText(replica.notebook, id) == Self.original)
        // Far back (before the epoch plus the period: the cutoff is 0), then forward again.
        let clock = TestEnvironment(seed: 2707, startMilliseconds: 1_000)
        let skewed = ReplicaEnvironment(wallMilliseconds: { clock.nowMilliseconds }, randomUInt64: environment.environment.randomUInt64)
        await replica.close()
        let back = try Replica(disk: disk, environment: skewed)
        try back.edit(id, replacingUTF16: 0..<0, with: "x")
        try await back.save()
        #expect(try Self.firstVersionText(back.notebook, id) == Self.original, "nothing dropped by a clock set back")
        await back.close()
        environment.advance(milliseconds: 3 * Self.day)
        let forward = try Replica(disk: disk, environment: environment.environment)
        try forward.edit(id, replacingUTF16: 0..<1, with: "")
        try await forward.save()
        try Self.expectNotRetained(forward.notebook, id)
        #expect(forward.notebook.memo(id)?.text == "Plans\nThe rest.")
        // Set back once more: what was dropped stays dropped, the text is unchanged.
        await forward.close()
        let again = try Replica(disk: disk, environment: skewed)
        try Self.expectNotRetained(again.notebook, id)
        #expect(again.notebook.memo(id)?.text == "Plans\nThe rest.")
        await again.close()
    }

    @Test("differential: replicas dropping history converge to the same texts as replicas keeping it")
    func retentionNeverChangesConvergence() async throws {
        let seed = ProcessInfo.processInfo.environment["MEMOSYNC_SEED"].flatMap(UInt64.init) ?? 2708
        print("LibraryHistoryTests.retentionNeverChangesConvergence seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))")
        // Two worlds with the same clocks and random sources (so the same memo ids): one keeps
        // history for a day, the other forever.
        var worlds: [(replicas: [Replica], store: InMemoryBlobStore, environments: [TestEnvironment])] = []
        for retention in [HistoryRetention.days(1), .forever] {
            let environments = (0..<3).map { TestEnvironment(seed: seed &+ UInt64($0)) }
            let replicas = try environments.map { try Replica(disk: MemoryDisk(), environment: $0.environment) }
            for replica in replicas { try replica.setHistoryRetention(retention) }
            worlds.append((replicas, InMemoryBlobStore(), environments))
        }
        for world in worlds { _ = try world.replicas[0].createMemo(text: Self.original) }
        for world in worlds { try await syncUntilQuiet(world.replicas, store: world.store) }
        var random = SeededRandom(seed: seed)
        for round in 0..<24 {
            // The same edits in both worlds.
            let device = Int(random.next() % 3)
            let ids = worlds[0].replicas[device].notebook.memoIDs.sorted()
            let id = ids[Int(random.next() % UInt64(ids.count))]
            let length = worlds[0].replicas[device].notebook.memo(id)!.text.utf16.count
            let start = Int(random.next() % UInt64(length + 1))
            let end = min(length, start + Int(random.next() % 12))
            let replacement = random.next() % 3 == 0 ? "" : "r\(round) "
            let jump = (random.next() % 4 == 0) ? 2 * Self.day : Self.hour
            for world in worlds {
                try world.replicas[device].edit(id, replacingUTF16: start..<end, with: replacement)
                for environment in world.environments { environment.advance(milliseconds: jump) }
                try await world.replicas[device].save()
                if round % 3 == 2 { try await syncUntilQuiet(world.replicas, store: world.store) }
            }
        }
        for world in worlds {
            try await syncUntilQuiet(world.replicas, store: world.store)
            for replica in world.replicas { try await replica.save() }
        }
        let dropping = worlds[0].replicas
        let keeping = worlds[1].replicas
        #expect(dropping[0].notebook.keptHistoryScalars < keeping[0].notebook.keptHistoryScalars, "seed \(seed): something was dropped")
        for (index, replica) in (dropping + keeping).enumerated() {
            #expect(replica.notebook.version == keeping[0].notebook.version, "seed \(seed): replica \(index)")
            for id in keeping[0].notebook.memoIDs {
                #expect(replica.notebook.memo(id)?.text == keeping[0].notebook.memo(id)?.text, "seed \(seed): replica \(index), memo \(id)")
            }
        }
        // The replicas keeping everything show every version of every memo.
        for id in keeping[0].notebook.memoIDs {
            for version in try keeping[0].notebook.versions(of: id) {
                _ = try keeping[0].notebook.text(of: id, at: version.cut)
            }
        }
    }
}
