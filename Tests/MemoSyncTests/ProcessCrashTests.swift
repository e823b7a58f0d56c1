import Foundation
import MemoCRDT
import Testing

@testable import MemoSync

/// Real processes killed with SIGKILL at random moments while they save, sync and compact
/// (`Tests/CrashChild`); after each kill the library reopens with every edit whose save returned.
@Suite struct ProcessCrashTests {
    /// The child executable, next to the test bundle (`swift test` builds every product).
    static let childPath: String? = {
        var folders: [URL] = []
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        if let first = CommandLine.arguments.first { folders.append(URL(fileURLWithPath: first).deletingLastPathComponent()) }
        return folders.map { $0.appendingPathComponent("memo-crash-child").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    @Test func killedProcessesLoseNoSavedEdit() async throws {
        let child = try #require(Self.childPath, "memo-crash-child is not built")
        let seed = UInt64(ProcessInfo.processInfo.environment["MEMOSYNC_CRASH_SEED"] ?? "") ?? 0xC4A5
        let kills = Int(ProcessInfo.processInfo.environment["MEMOSYNC_CRASH_KILLS"] ?? "") ?? 120
        var state = seed
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % bound
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memosync-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let library = root.appendingPathComponent("library").path
        let store = root.appendingPathComponent("store").path
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        var nextToken = 1
        var totalSaved = 0
        for kill in 0..<kills {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: child)
            process.arguments = [library, store, String(nextToken), String(seed &+ UInt64(kill))]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Wait until it has opened the library and, every other kill, until it has saved
            // once (so that the run makes progress however busy the machine: under load a child
            // killed a tenth of a second after opening may never have saved); then let it run
            // from a few milliseconds to a tenth of a second, and kill it.
            let awaited = kill % 2 == 0 ? "saved " : "opened\n"
            var early = Data()
            while !String(decoding: early, as: UTF8.self).contains(awaited) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                early.append(chunk)
            }
            usleep(useconds_t(2_000 + next(100_000)))
            sendKill(process.processIdentifier)
            process.waitUntilExit()
            let text = String(decoding: early + output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let lastSaved = text.split(separator: "\n").compactMap { line -> Int? in
                line.hasPrefix("saved ") ? Int(line.dropFirst(6)) : nil
            }.last ?? (nextToken - 1)
            // Reopen: every token up to the last reported save is there.
            let replica: Replica
            do {
                replica = try Replica(libraryPath: library)
            } catch {
                Issue.record("kill \(kill): the library does not reopen: \(error) (seed \(seed))")
                return
            }
            let tokens = Set(replica.notebook.list().flatMap { summary in
                (replica.notebook.memo(summary.id)?.text ?? "").split(separator: " ").compactMap { word in
                    word.hasPrefix("t") ? Int(word.dropFirst()) : nil
                }
            })
            let missing = (1...max(1, lastSaved)).filter { $0 <= lastSaved && !tokens.contains($0) }
            #expect(missing.isEmpty, "kill \(kill): saved edits lost: \(missing.prefix(10)) (seed \(seed))")
            if !missing.isEmpty { return }
            totalSaved = lastSaved
            nextToken = (tokens.max() ?? 0) + 1
            await replica.close()
        }
        // Every other child saved at least once before it was killed.
        #expect(totalSaved >= kills / 2, "the children should have saved many edits (saved \(totalSaved))")
        // The store the killed processes synced to is whole: a new replica reads it cleanly.
        let reader = try Replica(libraryPath: root.appendingPathComponent("reader").path)
        let report = try await reader.sync(with: DirectoryBlobStore(path: store))
        #expect(report.skipped.isEmpty, "\(report.skipped)")
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(!reader.notebook.list().isEmpty)
    }
}

/// Sends SIGKILL.
private func sendKill(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}
