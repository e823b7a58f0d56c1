import Foundation
import Testing

@testable import MemoSync

/// The seal: a library keeps its replica id across clean sessions of one folder, and takes a
/// fresh one after a crash or in a copy.
@Suite struct LibrarySealTests {
    private func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "memosync-seal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func cleanSessionsKeepOneIdAndACrashOrACopyDoesNot() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var replica = try Replica(libraryPath: folder)
        let memo = try replica.createMemo(text: "one")
        try await replica.save()
        let first = replica.id
        await replica.close()
        // Many clean sessions that edit: one id, a lineage of one.
        for index in 0..<20 {
            replica = try Replica(libraryPath: folder)
            #expect(replica.id == first, "session \(index)")
            try replica.edit(memo, replacingUTF16: 0..<0, with: "x")
            try await replica.save()
            await replica.close()
        }
        replica = try Replica(libraryPath: folder)
        #expect(replica.syncState.lineage == [first])
        #expect(replica.notebook.version.entries.count == 1)
        await replica.close()
        // A session that saves and never closes (a killed process: the lock goes with the
        // process, no seal is written): the next one takes a fresh id. The disk's lock is
        // released by hand, as the kernel does for a killed process.
        let crashingDisk = try FileDisk(path: folder)
        let crashing = try Replica(disk: crashingDisk)
        try crashing.edit(memo, replacingUTF16: 0..<0, with: "y")
        try await crashing.save()
        let crashed = crashing.id
        crashingDisk.close()
        replica = try Replica(libraryPath: folder)
        #expect(replica.id != crashed)
        #expect(replica.notebook.memo(memo)?.text.hasPrefix("y") == true)
        let afterCrash = replica.id
        await replica.close()
        // A copy of the closed folder: the copy takes a fresh id, the original keeps its own.
        let copyFolder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: copyFolder) }
        try FileManager.default.removeItem(atPath: copyFolder)
        try FileManager.default.copyItem(atPath: folder, toPath: copyFolder)
        let copy = try Replica(libraryPath: copyFolder)
        #expect(copy.id != afterCrash)
        await copy.close()
        let original = try Replica(libraryPath: folder)
        #expect(original.id == afterCrash)
        await original.close()
        // The state file rewritten in place with the same bytes (a restore that keeps the
        // inode): its change time moved, so a fresh id.
        let statePath = folder + "/state"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: statePath))
        try bytes.write(to: URL(fileURLWithPath: statePath))
        let restored = try Replica(libraryPath: folder)
        #expect(restored.id != afterCrash)
        await restored.close()
    }

    @Test func aDamagedSealKeepsNoId() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var replica = try Replica(libraryPath: folder)
        try replica.createMemo(text: "one")
        try await replica.save()
        let first = replica.id
        await replica.close()
        let sealPath = folder + "/seal"
        var seal = try [UInt8](Data(contentsOf: URL(fileURLWithPath: sealPath)))
        seal[seal.count / 2] ^= 0x40
        try Data(seal).write(to: URL(fileURLWithPath: sealPath))
        replica = try Replica(libraryPath: folder)
        #expect(replica.id != first)
        await replica.close()
    }
}
