import Foundation
@testable import MemoSync
import Testing

/// Checks that `body` throws a `DiskError` for which `matches` holds.
func expectDiskError<T>(
    _ matches: (DiskError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) {
    expectError(DiskError.self, matches, sourceLocation: sourceLocation, body)
}

extension DiskError {
    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }

    var isIO: Bool {
        if case .io = self { return true }
        return false
    }
}

/// The library folder driver: every `DiskOperation`, reads and listings, name checks, the
/// library lock, error mapping.
@Suite struct FileDiskTests {
    // MARK: Opening and locking

    @Test func createsTheFolderAndLocksIt() throws {
        let folder = IOTestFolder("disk")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path("library/"))
        #expect(disk.path == folder.path("library"))
        #expect(FileManager.default.fileExists(atPath: folder.path("library/" + FileDisk.lockFileName)))
        #expect(try disk.listFiles() == [])
        // Held by this process: told apart from another process's lock.
        #expect(throws: DiskError.alreadyOpen(path: folder.path("library"))) { try FileDisk(path: folder.path("library")) }
        // The same folder through another spelling is the same lock.
        #expect(throws: DiskError.alreadyOpen(path: folder.path("library"))) { try FileDisk(path: folder.path("library/")) }
        withExtendedLifetime(disk) {}
    }

    @Test func closingReleasesTheLock() throws {
        let folder = IOTestFolder("disk-close")
        defer { folder.remove() }
        let first = try FileDisk(path: folder.path)
        try first.perform(.write(file: "a", bytes: [1]))
        #expect(!first.isClosed)
        first.close()
        first.close()  // twice is fine
        #expect(first.isClosed)
        let second = try FileDisk(path: folder.path)
        #expect(try second.read(file: "a") == [1])
        // The closed disk refuses everything, and does not disturb the new owner.
        expectDiskError(\.isUnavailable) { try first.listFiles() }
        expectDiskError(\.isUnavailable) { try first.read(file: "a") }
        expectDiskError(\.isUnavailable) { try first.perform(.write(file: "a", bytes: [2])) }
        #expect(throws: DiskError.alreadyOpen(path: folder.path)) { try FileDisk(path: folder.path) }
        second.close()
        // Once every disk of this process closed, nothing is counted open.
        let third = try FileDisk(path: folder.path)
        third.close()
    }

    #if os(Linux) || os(macOS)
    /// The flock(1) tool of util-linux: on every Linux this project is tested on (Debian ships it
    /// in an essential package); elsewhere the test below says it did not run.
    static let flockTool = ["/usr/bin/flock", "/bin/flock"].first(where: FileManager.default.isExecutableFile)

    /// Another process sees the lock (util-linux `flock -n`).
    @Test(.enabled(if: isLinux || FileDiskTests.flockTool != nil, "needs util-linux flock(1)"))
    func anotherProcessSeesTheLock() throws {
        let tool = try #require(Self.flockTool, "flock(1) is missing: util-linux is part of every Debian system")
        let folder = IOTestFolder("disk-process")
        defer { folder.remove() }
        func otherProcessCanLock() throws -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["-n", "-E", "75", folder.path(FileDisk.lockFileName), "true"]
            try process.run()
            process.waitUntilExit()
            #expect([0, 75].contains(process.terminationStatus))
            return process.terminationStatus == 0
        }
        let disk = try FileDisk(path: folder.path)
        #expect(try !otherProcessCanLock())
        disk.close()
        #expect(try otherProcessCanLock())
    }

    /// GettingStarted.md: opening "throws `DiskError.locked(path:)` when another process has it
    /// open", after waiting "up to 200 ms for the folder's lock". Another process (flock(1))
    /// holds the lock: the open is refused as locked, after 20 tries 10 ms apart (at least
    /// 190 ms), and succeeds once that process let go.
    @Test func anOpenWhileAnotherProcessHoldsTheLockIsRefusedAsLocked() throws {
        let tool = try #require(Self.flockTool, "flock(1) is missing: util-linux is part of every Debian system")
        let folder = IOTestFolder("disk-locked")
        defer { folder.remove() }
        try FileDisk(path: folder.path).close()
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: tool)
        // Holds the lock until its standard input closes.
        holder.arguments = [folder.path(FileDisk.lockFileName), "cat"]
        let input = Pipe()
        holder.standardInput = input
        try holder.run()
        defer { if holder.isRunning { holder.terminate(); holder.waitUntilExit() } }
        // Wait until the other process holds it (an open that gets it gives it back at once).
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline, let disk = try? FileDisk(path: folder.path) {
            disk.close()
            usleep(10_000)
        }
        #expect(FileDisk.lockAttempts == 20)
        let start = ContinuousClock.now
        do {
            _ = try FileDisk(path: folder.path)
            Issue.record("opened a folder another process holds")
        } catch {
            guard case .locked = error else { return #expect(Bool(false), "not refused as locked: \(error)") }
        }
        #expect(ContinuousClock.now - start >= .milliseconds(190))
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        let reopened = try FileDisk(path: folder.path)
        reopened.close()
    }
    #endif

    @Test func releasingTheDiskReleasesTheLock() throws {
        let folder = IOTestFolder("disk-deinit")
        defer { folder.remove() }
        func useOnce() throws {
            let disk = try FileDisk(path: folder.path)
            try disk.perform(.append(file: "log", bytes: [1]))
        }
        try useOnce()
        try useOnce()
        let disk = try FileDisk(path: folder.path)
        #expect(try disk.read(file: "log") == [1, 1])
    }

    @Test func aFileWhereTheFolderShouldBeIsUnavailable() throws {
        let folder = IOTestFolder("disk-file")
        defer { folder.remove() }
        try folder.createFile("file", [1])
        expectDiskError(\.isUnavailable) { try FileDisk(path: folder.path("file")) }
        expectDiskError(\.isUnavailable) { try FileDisk(path: folder.path("file/below")) }
        expectDiskError(\.isUnavailable) { try FileDisk(path: "") }
        #expect(throws: DiskError.self) { try FileDisk(url: URL(string: "https://example.com/lib")!) }
        let disk = try FileDisk(url: URL(fileURLWithPath: folder.path("by-url"), isDirectory: true))
        #expect(disk.path == folder.path("by-url"))
    }

    // MARK: Operations

    @Test func writeCreatesAndReplaces() throws {
        let folder = IOTestFolder("disk-write")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        try disk.perform(.write(file: "state", bytes: [1, 2, 3, 4]))
        #expect(try disk.read(file: "state") == [1, 2, 3, 4])
        try disk.perform(.write(file: "state", bytes: [9]))  // shorter: the rest is gone
        #expect(try disk.read(file: "state") == [9])
        try disk.perform(.write(file: "state", bytes: []))
        #expect(try disk.read(file: "state") == [])
        let large = (0..<5_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        try disk.perform(.write(file: "large", bytes: large))
        #expect(try disk.read(file: "large") == large)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("large"))) == Data(large))
    }

    @Test func appendCreatesAndExtends() throws {
        let folder = IOTestFolder("disk-append")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        try disk.perform(.append(file: "journal", bytes: [1, 2]))
        try disk.perform(.append(file: "journal", bytes: [3]))
        try disk.perform(.append(file: "journal", bytes: []))
        #expect(try disk.read(file: "journal") == [1, 2, 3])
        // Appends go to the end even after the file was cut.
        try disk.perform(.truncate(file: "journal", length: 1))
        try disk.perform(.append(file: "journal", bytes: [4]))
        #expect(try disk.read(file: "journal") == [1, 4])
    }

    @Test func truncateCutsAndExtendsWithZeros() throws {
        let folder = IOTestFolder("disk-truncate")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        try disk.perform(.write(file: "f", bytes: [1, 2, 3, 4, 5]))
        try disk.perform(.truncate(file: "f", length: 2))
        #expect(try disk.read(file: "f") == [1, 2])
        try disk.perform(.truncate(file: "f", length: 4))
        #expect(try disk.read(file: "f") == [1, 2, 0, 0])
        try disk.perform(.truncate(file: "f", length: 0))
        #expect(try disk.read(file: "f") == [])
        expectDiskError(\.isIO) { try disk.perform(.truncate(file: "f", length: -1)) }
        expectDiskError(\.isIO) { try disk.perform(.truncate(file: "missing", length: 0)) }
        #expect(try disk.read(file: "missing") == nil)  // truncate did not create it
    }

    @Test func syncAndSyncDirectory() throws {
        let folder = IOTestFolder("disk-sync")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        try disk.perform([
            .write(file: "tmp-state", bytes: [1, 2, 3]),
            .sync(file: "tmp-state"),
            .rename(from: "tmp-state", to: "state"),
            .syncDirectory,
        ])
        #expect(try disk.read(file: "state") == [1, 2, 3])
        #expect(try disk.listFiles() == ["state"])
        expectDiskError(\.isIO) { try disk.perform(.sync(file: "missing")) }
    }

    @Test func renameReplacesTheDestination() throws {
        let folder = IOTestFolder("disk-rename")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        try disk.perform(.write(file: "new", bytes: [2]))
        try disk.perform(.write(file: "current", bytes: [1]))
        try disk.perform(.rename(from: "new", to: "current"))
        #expect(try disk.read(file: "current") == [2])
        #expect(try disk.read(file: "new") == nil)
        #expect(try disk.listFiles() == ["current"])
        expectDiskError(\.isIO) { try disk.perform(.rename(from: "missing", to: "other")) }
        try disk.perform(.rename(from: "current", to: "current"))
        #expect(try disk.read(file: "current") == [2])
    }

    @Test func deleteRemovesAndToleratesMissingFiles() throws {
        let folder = IOTestFolder("disk-delete")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        try disk.perform(.write(file: "f", bytes: [1]))
        try disk.perform(.delete(file: "f"))
        #expect(try disk.read(file: "f") == nil)
        try disk.perform(.delete(file: "f"))
        try disk.perform(.delete(file: "never"))
        #expect(try disk.listFiles() == [])
    }

    @Test func performingAListStopsAtTheFirstFailure() throws {
        let folder = IOTestFolder("disk-list")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        expectDiskError(\.isIO) {
            try disk.perform([
                .write(file: "a", bytes: [1]),
                .rename(from: "missing", to: "b"),
                .write(file: "c", bytes: [3]),
            ])
        }
        #expect(try disk.listFiles() == ["a"])
    }

    // MARK: Reading and listing

    @Test func listsOnlyPlainFiles() throws {
        let folder = IOTestFolder("disk-listing")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        try disk.perform(.write(file: "b", bytes: [1]))
        try disk.perform(.write(file: "a", bytes: []))
        try disk.perform(.write(file: ".hidden-temp", bytes: [1]))
        try folder.createFolder("subfolder")
        try folder.createFile("Icon\r", [1])
        try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: folder.path("b"))
        #expect(try disk.listFiles() == [".hidden-temp", "a", "b"])
        #expect(try disk.read(file: "a") == [])
        expectDiskError(\.isIO) { try disk.read(file: "subfolder") }
    }

    @Test func rejectsInvalidFileNames() throws {
        let folder = IOTestFolder("disk-names")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        let invalid = ["", ".", "..", "a/b", "/abs", "nul\u{0}", "line\n", "del\u{7F}", FileDisk.lockFileName, String(repeating: "x", count: 256)]
        for name in invalid {
            #expect(!FileDisk.isValidFileName(name))
            expectDiskError(\.isIO) { try disk.read(file: name) }
            for operation: DiskOperation in [
                .write(file: name, bytes: [1]), .append(file: name, bytes: [1]), .truncate(file: name, length: 0),
                .sync(file: name), .rename(from: name, to: "ok"), .rename(from: "ok", to: name), .delete(file: name),
            ] {
                expectDiskError(\.isIO) { try disk.perform(operation) }
            }
        }
        for name in ["journal-0001.log", "state (copy).bin", "日本語", ".tmp-state", "x~", String(repeating: "x", count: 255)] {
            #expect(FileDisk.isValidFileName(name))
            try disk.perform(.write(file: name, bytes: [1]))
            #expect(try disk.read(file: name) == [1])
        }
        // Nothing was written outside the folder, and the lock file is intact.
        #expect(try folder.names().contains(FileDisk.lockFileName))
        #expect(try disk.listFiles().count == 6)
    }

    @Test func aVanishedFolderIsUnavailable() throws {
        let folder = IOTestFolder("disk-vanished")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path("library"))
        try disk.perform(.write(file: "f", bytes: [1]))
        try FileManager.default.removeItem(atPath: folder.path("library"))
        expectDiskError(\.isUnavailable) { try disk.listFiles() }
        expectDiskError(\.isUnavailable) { try disk.read(file: "f") }
        expectDiskError(\.isUnavailable) { try disk.perform(.write(file: "f", bytes: [1])) }
        expectDiskError(\.isUnavailable) { try disk.perform(.delete(file: "f")) }
        expectDiskError(\.isUnavailable) { try disk.perform(.syncDirectory) }
        #expect(!FileManager.default.fileExists(atPath: folder.path("library")))
    }

    @Test func mapsSystemErrors() throws {
        let folder = IOTestFolder("disk-errors")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        func failure(_ kind: POSIXFailure.Kind) -> POSIXFailure {
            POSIXFailure(call: "write", path: folder.path("f"), kind: kind, reason: "reason")
        }
        #expect(disk.mapped(failure(.noSpace)) == .full)
        #expect(disk.mapped(failure(.accessDenied)).isUnavailable)
        #expect(disk.mapped(failure(.readOnly)).isUnavailable)
        #expect(disk.mapped(failure(.other)) == .io(reason: "write \(folder.path("f")): reason"))
        #expect(disk.mapped(failure(.notFound)).isIO)
        // Real error numbers, classified.
        #expect(POSIXFailure(call: "open", path: "p", code: ENOSPC).kind == .noSpace)
        #expect(POSIXFailure(call: "open", path: "p", code: EDQUOT).kind == .noSpace)
        #expect(POSIXFailure(call: "open", path: "p", code: ENOENT).kind == .notFound)
        #expect(POSIXFailure(call: "open", path: "p", code: EACCES).kind == .accessDenied)
        #expect(POSIXFailure(call: "flock", path: "p", code: EWOULDBLOCK).kind == .wouldBlock)
        #expect(POSIXFailure(call: "open", path: "p", code: ENOENT).description.hasPrefix("open p: "))
    }

    /// /dev/full fails every write with ENOSPC: every Linux has it; other systems say the test
    /// did not run.
    @Test(.enabled(if: isLinux || FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"))
    func theDiskFullErrorOfARealDevice() throws {
        try #require(FileManager.default.fileExists(atPath: "/dev/full"), "/dev/full is missing on Linux")
        let descriptor = try POSIX.open("/dev/full", .writeExisting)
        defer { POSIX.closeQuietly(descriptor) }
        do throws(POSIXFailure) {
            try POSIX.writeAll(descriptor, [1, 2, 3], path: "/dev/full")
            Issue.record("writing to /dev/full succeeded")
        } catch {
            #expect(error.kind == .noSpace)
        }
    }

    @Test func isUsableFromManyThreads() throws {
        let folder = IOTestFolder("disk-threads")
        defer { folder.remove() }
        let disk = try FileDisk(path: folder.path)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for index in 0..<50 {
                try? disk.perform(.append(file: "log-\(worker)", bytes: [UInt8(index)]))
            }
        }
        for worker in 0..<4 {
            #expect(try disk.read(file: "log-\(worker)") == (0..<50).map { UInt8($0) })
        }
    }
}

/// Whether these tests run on Linux, where flock(1) and /dev/full are always present.
#if os(Linux)
private let isLinux = true
#else
private let isLinux = false
#endif
