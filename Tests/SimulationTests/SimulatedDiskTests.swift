import MemoSimulation
import MemoSync
import Testing

/// The simulated disk loses exactly what a POSIX disk may lose in a crash.
@Suite struct SimulatedDiskTests {
    @Test func crashLosesAnUnsyncedAppend() throws {
        let disk = SimulatedDisk(seed: 1)
        try disk.perform([.append(file: "journal", bytes: [1, 2, 3]), .sync(file: "journal"), .syncDirectory])
        try disk.perform(.append(file: "journal", bytes: [4, 5]))
        #expect(try disk.read(file: "journal") == [1, 2, 3, 4, 5])
        disk.crash()
        #expect(try disk.read(file: "journal") == [1, 2, 3])
    }

    @Test func syncedAppendSurvives() throws {
        let disk = SimulatedDisk(seed: 1)
        try disk.perform([.append(file: "journal", bytes: [1]), .sync(file: "journal"), .syncDirectory])
        try disk.perform([.append(file: "journal", bytes: [2]), .sync(file: "journal")])
        disk.crash()
        #expect(try disk.read(file: "journal") == [1, 2])
    }

    @Test func aFileWhoseNameWasNeverSyncedDisappears() throws {
        let disk = SimulatedDisk(seed: 1)
        try disk.perform([.write(file: "state", bytes: [7]), .sync(file: "state")])
        disk.crash()
        #expect(try disk.read(file: "state") == nil)
        #expect(try disk.listFiles() == [])
    }

    @Test func renameWithoutSyncDirectoryIsLost() throws {
        let disk = SimulatedDisk(seed: 1)
        try disk.perform([.write(file: "state", bytes: [1]), .sync(file: "state"), .syncDirectory])
        try disk.perform([.write(file: "state.tmp", bytes: [2]), .sync(file: "state.tmp"), .rename(from: "state.tmp", to: "state")])
        #expect(try disk.read(file: "state") == [2])
        disk.crash()
        #expect(try disk.read(file: "state") == [1])
        #expect(try disk.listFiles() == ["state"])
    }

    @Test func renameWithSyncDirectorySurvives() throws {
        let disk = SimulatedDisk(seed: 1)
        try disk.perform([.write(file: "state", bytes: [1]), .sync(file: "state"), .syncDirectory])
        try disk.perform([.write(file: "state.tmp", bytes: [2]), .sync(file: "state.tmp"), .rename(from: "state.tmp", to: "state"), .syncDirectory])
        disk.crash()
        #expect(try disk.read(file: "state") == [2])
        #expect(try disk.listFiles() == ["state"])
    }

    @Test func aRenamedFileWhoseContentsWereNeverSyncedIsEmpty() throws {
        // A missing fsync before the rename: the new name survives, its data does not.
        let disk = SimulatedDisk(seed: 1)
        try disk.perform([.write(file: "state.tmp", bytes: [9, 9]), .rename(from: "state.tmp", to: "state"), .syncDirectory])
        disk.crash()
        #expect(try disk.read(file: "state") == [])
    }

    @Test func deletionWithoutSyncDirectoryIsUndone() throws {
        let disk = SimulatedDisk(seed: 1)
        try disk.perform([.write(file: "a", bytes: [1]), .sync(file: "a"), .syncDirectory, .delete(file: "a")])
        #expect(try disk.read(file: "a") == nil)
        disk.crash()
        #expect(try disk.read(file: "a") == [1])
    }

    @Test func tornWritesKeepAPrefixOfUnsyncedBytes() throws {
        var sawPartial = false
        for seed in 0..<64 as Range<UInt64> {
            let disk = SimulatedDisk(seed: seed, tornWrites: true)
            try disk.perform([.append(file: "j", bytes: [1, 1]), .sync(file: "j"), .syncDirectory])
            try disk.perform(.append(file: "j", bytes: [2, 3, 4, 5, 6, 7]))
            disk.crash()
            let bytes = try #require(try disk.read(file: "j"))
            #expect(bytes.count >= 2 && bytes.count <= 8)
            #expect(Array(bytes.prefix(2)) == [1, 1])
            let tail = Array(bytes.dropFirst(2))
            #expect(tail == Array([2, 3, 4, 5, 6, 7].prefix(tail.count)) || tail.allSatisfy { $0 == 0 })
            if tail.count > 0 && tail.count < 6 { sawPartial = true }
        }
        #expect(sawPartial)
    }

    @Test func theCrashHookStopsTheDiskMidSequence() throws {
        for performs in [true, false] {
            let disk = SimulatedDisk(seed: 1)
            disk.crashAfterOperations = 2
            disk.crashPerformsLastOperation = performs
            #expect(throws: DiskError.self) {
                try disk.perform([.append(file: "j", bytes: [1]), .sync(file: "j"), .syncDirectory])
            }
            #expect(disk.isStopped)
            #expect(throws: DiskError.self) { _ = try disk.listFiles() }
            disk.crash()
            #expect(!disk.isStopped)
            // The sync happened only if the hook let the second operation through; the name was
            // never made durable either way.
            #expect(try disk.listFiles() == [])
        }
    }

    @Test func imagesRestoreDurableState() throws {
        let disk = SimulatedDisk(seed: 1)
        try disk.perform([.write(file: "state", bytes: [1]), .sync(file: "state"), .syncDirectory])
        let image = disk.durableImage()
        try disk.perform([.write(file: "state", bytes: [2]), .sync(file: "state"), .append(file: "j", bytes: [3])])
        #expect(disk.durableImage() != image)
        disk.restore(image)
        #expect(try disk.read(file: "state") == [1])
        #expect(try disk.listFiles() == ["state"])
        disk.crash()
        #expect(try disk.read(file: "state") == [1])
    }

    @Test func invalidOperationsFailWithTypedErrors() {
        let disk = SimulatedDisk(seed: 1)
        #expect(throws: DiskError.self) { try disk.perform(.sync(file: "missing")) }
        #expect(throws: DiskError.self) { try disk.perform(.rename(from: "missing", to: "x")) }
        #expect(throws: DiskError.self) { try disk.perform(.truncate(file: "missing", length: 0)) }
        #expect(throws: DiskError.self) { try disk.perform(.write(file: "a/b", bytes: [])) }
    }

    @Test func aReplicaReopensWithEverySavedEditAfterACrashAtEachStep() async throws {
        // Crash at every disk operation of a save and of a compaction: the reopened library has
        // at least what was saved before, and opens. How many operations that is, counted on a
        // disk that does not crash:
        let counting = SimulatedDisk(seed: 1)
        let counted = try Replica(disk: counting, environment: TestEnvironment().environment)
        let countedID = try counted.createMemo(text: "saved")
        try await counted.save()
        try counted.edit(countedID, replacingUTF16: 5..<5, with: " more")
        let operationsBefore = counting.operationCount
        try await counted.compact()
        try await counted.save()
        let operations = counting.operationCount - operationsBefore
        #expect(operations >= 4, "a compaction and a save took \(operations) disk operations")
        for crashAt in 1...max(1, operations) {
            for performs in [true, false] {
                let disk = SimulatedDisk(seed: UInt64(crashAt), tornWrites: true)
                let environment = TestEnvironment()
                let replica = try Replica(disk: disk, environment: environment.environment)
                let id = try replica.createMemo(text: "saved")
                try await replica.save()
                try replica.edit(id, replacingUTF16: 5..<5, with: " more")
                disk.crashAfterOperations = crashAt
                disk.crashPerformsLastOperation = performs
                _ = try? await replica.compact()
                _ = try? await replica.save()
                // The crash hit inside the compaction or the save (a hook that never fired would
                // test nothing).
                #expect(disk.isStopped, "crash at \(crashAt), performs \(performs): the hook never fired")
                disk.crash()
                let reopened = try Replica(disk: disk, environment: environment.environment)
                let text = try #require(reopened.notebook.memo(id)).text
                #expect(text == "saved" || text == "saved more", "crash at \(crashAt), performs \(performs): \(text)")
            }
        }
    }
}

/// A fixed clock and a seeded random source for replicas in tests.
final class TestEnvironment: @unchecked Sendable {
    var now: UInt64 = 1_767_225_600_000
    var random = SimulationRandom(seed: 42)

    var environment: ReplicaEnvironment {
        ReplicaEnvironment(wallMilliseconds: { [self] in now }, randomUInt64: { [self] in random.next() })
    }
}
