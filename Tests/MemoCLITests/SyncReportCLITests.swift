// What `memo sync` and `memo status` say (issue 12, items 4 and 6): the same operation counts
// everywhere, nothing that looks like a sync for one that failed, and a store with bad entries
// in it syncs all the same.

import Foundation
import Testing

@Suite("memo sync reports")
struct SyncReportCLITests {
    /// `memo status --json` of `library`.
    private func status(_ sandbox: Sandbox, _ library: String) throws -> [String: Any] {
        try sandbox.ok(["status", "--json"], library: library).object()
    }

    /// `memo help status`: `--json` gives the lineage as "the newest 8 ids" and their count. A
    /// library copied ten times (each copy opens under a fresh id and keeps the ids before it)
    /// has 11 ids: the newest 8 are shown, the current one last.
    @Test func statusShowsTheNewestEightLineageIDs() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var library = sandbox.at("copy-0")
        _ = try sandbox.newMemo("start", library: library)
        var replicas = [try status(sandbox, library)["replica"] as? String ?? ""]
        for copy in 1...10 {
            let next = sandbox.at("copy-\(copy)")
            try FileManager.default.copyItem(atPath: library, toPath: next)
            library = next
            _ = try sandbox.newMemo("in copy \(copy)", library: library)
            replicas.append(try status(sandbox, library)["replica"] as? String ?? "")
        }
        #expect(Set(replicas).count == 11, "each copy opened under a fresh id")
        let summary = try status(sandbox, library)
        #expect(summary["lineageCount"] as? Int == 11, "\(summary)")
        #expect(summary["lineage"] as? [String] == Array(replicas.suffix(8)), "\(summary)")
    }

    /// Each `memo` command opens and closes the library; a clean close keeps its replica id, so
    /// many commands that edit and sync leave one id in the library, the notebook and the store
    /// (they used to leave one per command, for good).
    @Test("many commands that edit and sync keep one replica id")
    func commandsKeepOneID() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (library, store) = (sandbox.at("library"), sandbox.at("store"))
        let id = try sandbox.newMemo("start", library: library)
        for round in 0..<12 {
            try sandbox.ok(["edit", id, "--insert", "0", "\(round) "], library: library)
            try sandbox.ok(["sync", "--store", store], library: library)
        }
        let summary = try status(sandbox, library)
        #expect(summary["lineageCount"] as? Int == 1, "\(summary)")
        #expect((summary["lineage"] as? [String]) == [summary["replica"] as? String ?? ""])
        let folders = try FileManager.default.contentsOfDirectory(atPath: store + "/memosync/v1")
        #expect(folders == [summary["replica"] as? String ?? ""], "one prefix in the store: \(folders)")
        // A new device gets everything from the store with nothing held back.
        let other = sandbox.at("other")
        let received = try sandbox.ok(["sync", "--store", store, "--json"], library: other).object()
        #expect(received["complete"] as? Bool == true)
        #expect(try sandbox.ok(["show", id], library: other).stdout.hasPrefix("11 10 9"))
    }

    @Test("status, the publishing sync and the receiving sync count the same operations")
    func theNumbersAgree() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (alice, bob, store) = (sandbox.at("alice"), sandbox.at("bob"), sandbox.at("store"))
        // Three runs of memo, so three sessions (replica ids) with edits: 6 + 6 + 7 operations.
        let id = try sandbox.newMemo("hello", library: alice)
        try sandbox.ok(["edit", id, "--insert", "5", " world"], library: alice)
        _ = try sandbox.newMemo("second", library: alice)

        let before = try status(sandbox, alice)
        #expect(before["unsyncedEdits"] as? Int == 19 && before["unpublishedOperations"] as? Int == 19)
        #expect(try sandbox.ok(["status"], library: alice).stdout.contains("Unsynced edits: 19 operations"))
        let published = try sandbox.ok(["sync", "--store", store], library: alice).stdout
        #expect(published.contains("Synced with \(store).") && published.contains("Published 19 operations"), "\(published)")
        #expect(try status(sandbox, alice)["unsyncedEdits"] as? Int == 0)
        let received = try sandbox.ok(["sync", "--store", store], library: bob).stdout
        #expect(received.contains("Received 19 operations"), "\(received)")

        // Again, as JSON, after edits in two more sessions.
        try sandbox.ok(["edit", id, "--delete", "0", "2"], library: alice)
        try sandbox.ok(["delete", id], library: alice)
        let unsynced = try #require(try status(sandbox, alice)["unsyncedEdits"] as? Int)
        #expect(unsynced == 3)
        let report = try sandbox.ok(["sync", "--json"], library: alice).object()
        #expect(report["publishedOperations"] as? Int == unsynced && report["complete"] as? Bool == true)
        #expect(try sandbox.ok(["sync", "--json"], library: bob).object()["operationsApplied"] as? Int == unsynced)
    }

    @Test("a sync whose write failed prints no 'Synced with' and keeps the last-sync time")
    func aFailedWriteIsNotASync() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (library, store) = (sandbox.at("library"), sandbox.at("store"))
        _ = try sandbox.newMemo("one", library: library)
        try sandbox.ok(["sync", "--store", store], library: library)
        let syncedAt = try #require(try status(sandbox, library)["lastSync"] as? String)

        // The next segment is named after the library's id (kept from command to command): a
        // file in the place of that id's segments folder makes the write fail.
        _ = try sandbox.newMemo("two", library: library)
        let lineage = try #require(try status(sandbox, library)["lineage"] as? [String])
        #expect(lineage.count == 1, "every command kept the library's id: \(lineage)")
        let segments = store + "/memosync/v1/" + (try #require(lineage.last)) + "/segments"
        let aside = segments + "-aside"
        try FileManager.default.moveItem(atPath: segments, toPath: aside)
        let blocker = segments
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data([1])))
        // With its segments out of sight the store seems to have lost the library's history,
        // which a sync publishes again as a snapshot: block that too.
        let snapshotBlocker = store + "/memosync/v1/" + lineage.last! + "/snapshots"
        #expect(FileManager.default.createFile(atPath: snapshotBlocker, contents: Data([1])))
        let failed = try sandbox.memo(["sync"], library: library)
        #expect(failed.status == 1, "\(failed)")
        #expect(!failed.stdout.contains("Synced with"), "\(failed)")
        #expect(failed.stdout.contains("did not finish") && failed.stdout.contains("Store errors:"), "\(failed)")
        #expect(failed.stderr.contains("the sync did not finish"), "\(failed)")
        let after = try status(sandbox, library)
        #expect(after["lastSync"] as? String == syncedAt, "the failed sync moved the last-sync time")
        // At least the 4 new operations (the store shows none of the earlier ones now).
        #expect((after["unsyncedEdits"] as? Int ?? 0) >= 4)
        let json = try sandbox.memo(["sync", "--json"], library: library)
        #expect(json.status == 1)
        #expect(try json.object()["complete"] as? Bool == false)

        try FileManager.default.removeItem(atPath: blocker)
        try FileManager.default.removeItem(atPath: snapshotBlocker)
        try FileManager.default.moveItem(atPath: aside, toPath: segments)
        Thread.sleep(forTimeInterval: 0.01)
        let retried = try sandbox.ok(["sync"], library: library).stdout
        #expect(retried.contains("Synced with") && retried.contains("Published 4 operations"), "\(retried)")
        let last = try #require(try status(sandbox, library)["lastSync"] as? String)
        #expect(last > syncedAt)
    }

    @Test("a sync that cannot list the store prints only the error and keeps the last-sync time")
    func anUnreadableStoreIsNotASync() throws {
        let sandbox = try Sandbox()
        defer {
            chmod(sandbox.at("store/memosync/v1"), 0o755)
            chmod(sandbox.at("store/memosync/v1/0000000000000bad"), 0o755)
            chmod(sandbox.at("store/memosync/v1/0000000000000bae"), 0o755)
            sandbox.remove()
        }
        let (library, store) = (sandbox.at("library"), sandbox.at("store"))
        _ = try sandbox.newMemo("one", library: library)
        try sandbox.ok(["sync", "--store", store], library: library)
        _ = try sandbox.newMemo("two", library: library)
        // Permission errors need an ordinary user: as root, memo runs as "nobody" (setpriv).
        let user = try UnprivilegedMemo(sandbox)
        let syncedAt = try #require(try user.run(["status", "--json"], library: library).object()["lastSync"] as? String)

        // One unreadable folder among the replicas' folders: skipped, reported, the rest syncs.
        try FileManager.default.createDirectory(atPath: store + "/memosync/v1/0000000000000bad", withIntermediateDirectories: true)
        #expect(chmod(store + "/memosync/v1/0000000000000bad", 0) == 0)
        let skipped = try user.run(["sync"], library: library)
        #expect(skipped.status == 0, "\(skipped)")
        #expect(skipped.stdout.contains("Synced with"), "\(skipped)")
        #expect(skipped.stdout.contains("memosync/v1/0000000000000bad: not listed: cannot be read (Permission denied)"), "\(skipped)")
        // In Korean the reason is Korean too, its cause included (another folder: each is named once).
        try FileManager.default.createDirectory(atPath: store + "/memosync/v1/0000000000000bae", withIntermediateDirectories: true)
        #expect(chmod(store + "/memosync/v1/0000000000000bae", 0) == 0)
        let korean = try user.run(["sync"], library: library, locale: "ko_KR.UTF-8")
        #expect(korean.status == 0, "\(korean)")
        #expect(korean.stdout.contains("memosync/v1/0000000000000bae: 목록에서 빠짐 - 읽을 수 없음(권한이 없습니다)"), "\(korean)")
        #expect(chmod(store + "/memosync/v1/0000000000000bae", 0o755) == 0)
        let synced = try user.run(["status", "--json"], library: library).object()
        #expect(synced["unsyncedEdits"] as? Int == 0)
        let lastSync = try #require(synced["lastSync"] as? String)
        #expect(lastSync >= syncedAt)

        // The store's own folder unreadable: nothing to sync with.
        _ = try user.run(["new", "three"], library: library)
        #expect(chmod(store + "/memosync/v1", 0) == 0)
        let failed = try user.run(["sync"], library: library)
        #expect(failed.status == 1, "\(failed)")
        #expect(failed.stdout.isEmpty, "a failed sync printed a summary: \(failed)")
        #expect(failed.stderr.hasPrefix("memo: could not sync with \(store): listing the store failed"), "\(failed)")
        #expect(failed.stderr.contains("Permission denied") && failed.stderr.contains("nothing was read or written"), "\(failed)")
        #expect(failed.stderr.utf8.count < 400, "\(failed)")
        // One line, one join after "could not sync with STORE": the store's words in parentheses.
        #expect(failed.stderr.ranges(of: ": ").count == 2 && failed.stderr.contains("listing the store failed (") && failed.stderr.contains("Permission denied); nothing was read or written"), "\(failed)")
        let after = try user.run(["status", "--json"], library: library).object()
        #expect(after["lastSync"] as? String == lastSync, "the failed sync moved the last-sync time")
        #expect(after["unsyncedEdits"] as? Int == 6)
    }

    /// A FIFO opened for reading would block the sync for good: a watchdog opens it for writing
    /// after 60 s (which releases a blocked reader) and the test then fails, instead of hanging
    /// (how fast a sync is stays with memo-bench, never a timed test).
    @Test("FIFOs, symbolic links, huge files and deep junk folders in the store neither stop a sync nor make it hang")
    func aStoreWithBadEntriesStillSyncs() throws {
        let sandbox = try Sandbox()
        defer {
            let process = Process()  // the junk tree is deeper than FileManager can remove
            process.executableURL = URL(fileURLWithPath: "/bin/rm")
            process.arguments = ["-rf", sandbox.path]
            try? process.run()
            process.waitUntilExit()
        }
        let (alice, bob, store) = (sandbox.at("alice"), sandbox.at("bob"), sandbox.at("store"))
        let id = try sandbox.newMemo("hello", library: alice)
        try sandbox.ok(["sync", "--store", store], library: alice)
        let root = store + "/memosync/v1"
        let replica = try #require(try FileManager.default.contentsOfDirectory(atPath: root).first { FileManager.default.fileExists(atPath: root + "/" + $0 + "/segments") })
        let fifo = root + "/\(replica)/segments/0000000006-0000000007-00.seg"
        #expect(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/0000000000000abc", withDestinationPath: "/")
        let huge = open(root + "/\(replica)/segments/0000000006-0000000009-00.seg", O_WRONLY | O_CREAT, 0o644)
        try #require(huge >= 0)
        #expect(ftruncate(huge, off_t(8 << 30)) == 0)  // 8 GiB, sparse
        close(huge)
        // 2,000 nested folders: a path of 24,000 bytes.
        var folder = open(root, O_RDONLY | O_DIRECTORY)
        for _ in 0..<2_000 {
            #expect(mkdirat(folder, "junk-folder", 0o755) == 0)
            let next = openat(folder, "junk-folder", O_RDONLY | O_DIRECTORY)
            close(folder)
            folder = next
            try #require(folder >= 0)
        }
        close(folder)

        let watchdogFired = WatchdogFlag()
        let watchdog = DispatchWorkItem {
            watchdogFired.set()
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        let result = try sandbox.ok(["sync", "--store", store], library: bob)
        watchdog.cancel()
        #expect(!watchdogFired.isSet, "the sync blocked for 60 s (on the FIFO?) and was released by the watchdog")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "Synced with \(store).", "\(result)")
        #expect(lines.contains { $0.contains("Skipped 4 store entries") }, "\(result)")
        #expect(lines.filter { $0.contains("not a regular file or folder") }.count == 1, "\(result)")
        #expect(lines.filter { $0.contains("a symbolic link (never followed)") }.count == 1, "\(result)")
        #expect(lines.filter { $0.contains("too large (8589934592 bytes") }.count == 1, "\(result)")
        #expect(lines.filter { $0.contains("nested more than 32 levels") }.count == 1, "\(result)")
        #expect(lines.allSatisfy { $0.utf8.count < 300 }, "a long line: \(result)")
        #expect(try sandbox.ok(["show", id], library: bob).stdout.hasPrefix("hello"))
        // JSON lists each with a kind (for a library that has not seen them; Bob's next sync
        // names them no more: they count as skipped again).
        let report = try sandbox.ok(["sync", "--json", "--store", store], library: sandbox.at("carol")).object()
        let kinds = (report["skipped"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }.sorted()
        #expect(kinds == ["notListed", "notListed", "notListed", "tooLarge"], "\(report)")
        let again = try sandbox.ok(["sync", "--json"], library: bob).object()
        #expect((again["skipped"] as? [Any])?.isEmpty == true && again["skippedAgain"] as? Int == 4, "\(again)")
    }
    /// Issue 29, message 11: `--json` prints its object "even when the sync failed" (memo help
    /// sync), also when the store cannot be reached at all.
    @Test("sync --json prints the report when the store cannot be listed")
    func jsonIsPrintedWhenTheStoreCannotBeListed() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("offline", library: library)
        // A WebDAV server nobody runs: port 9 (discard) on this machine refuses.
        let failed = try sandbox.memo(["sync", "--store", "http://127.0.0.1:9/dav", "--json"], library: library)
        #expect(failed.status == 1, "\(failed)")
        let object = try failed.object()
        #expect(object["complete"] as? Bool == false)
        #expect(object["listedStore"] as? Bool == false)
        #expect(object["blobsWritten"] as? Int == 0 && object["blobsRead"] as? Int == 0)
        let errors = try #require(object["errors"] as? [String])
        #expect(errors.count == 1 && failed.stderr.contains(errors[0]), "\(failed)")
        #expect((object["problems"] as? [[String: Any]])?.count == 1)
    }

    /// "Printed even when the sync failed" (memo help sync): also when the store cannot even be
    /// opened (its remembered folder gone, as an unmounted drive's is; a store path that is a
    /// file; no store at all).
    @Test("sync --json prints the report when the store cannot be opened")
    func jsonIsPrintedWhenTheStoreCannotBeOpened() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let store = sandbox.at("store")
        _ = try sandbox.newMemo("offline", library: library)
        try sandbox.ok(["sync", "--store", store], library: library)
        try FileManager.default.removeItem(atPath: store)
        let aFile = sandbox.at("a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: aFile))
        let cases: [(arguments: [String], library: String, status: Int32, store: String?)] = [
            (["sync", "--json"], library, 1, store),
            (["sync", "--json", "--store", aFile], library, 1, aFile),
            (["sync", "--json"], sandbox.at("never-synced"), 2, nil),
        ]
        for run in cases {
            if run.library != library { _ = try sandbox.newMemo("another", library: run.library) }
            let failed = try sandbox.memo(run.arguments, library: run.library)
            #expect(failed.status == run.status, "\(run.arguments): \(failed)")
            let object = try failed.object()
            #expect(object["complete"] as? Bool == false && object["listedStore"] as? Bool == false, "\(object)")
            #expect(object["blobsWritten"] as? Int == 0 && object["blobsRead"] as? Int == 0)
            #expect(object["store"] as? String == run.store, "\(object)")
            let errors = try #require(object["errors"] as? [String])
            #expect(errors.count == 1 && failed.stderr.contains(errors[0]), "\(failed)")
        }
        #expect(!FileManager.default.fileExists(atPath: store), "a remembered folder is never made again")
    }

    /// "--json: output for programs (the same in every language)" (memo help): a failed sync's
    /// object too, whose error would otherwise be in the user's language.
    @Test("sync --json prints the same failure in every language")
    func jsonFailuresAreTheSameInEveryLanguage() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("offline", library: library)
        var outputs: [String] = []
        for locale in ["C.UTF-8", "ko_KR.UTF-8", "ja_JP.UTF-8"] {
            // Local failures only (a server nobody runs costs the retries' waits): a store path
            // that is a file, and one below a file.
            for arguments in [["sync", "--store", sandbox.at("library/state"), "--json"], ["sync", "--store", sandbox.at("library/state/below"), "--json"]] {
                let failed = try sandbox.memo(arguments, library: library, environment: ["LANG": locale])
                #expect(failed.status == 1, "\(locale): \(failed)")
                outputs.append(failed.stdout)
            }
        }
        #expect(outputs.count == 6 && outputs[0] != outputs[1])
        for (index, output) in outputs.enumerated() { #expect(output == outputs[index % 2], "\(index): \(output)") }
        // Without --json the same failure speaks the user's language.
        let korean = try sandbox.memo(["sync", "--store", sandbox.at("library/state")], library: library, environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.status == 1 && korean.stderr.unicodeScalars.contains { $0.properties.isIdeographic || (0xAC00...0xD7A3).contains($0.value) }, "\(korean)")
    }

}

/// Runs `memo` with file permissions checked as for an ordinary user: directly when the tests do
/// not run as root, else as "nobody" through `setpriv` (util-linux), after handing the sandbox
/// to that user.
struct UnprivilegedMemo {
    let sandbox: Sandbox
    let prefix: [String]

    init(_ sandbox: Sandbox) throws {
        self.sandbox = sandbox
        guard geteuid() == 0 else {
            prefix = []
            return
        }
        let setpriv = try #require(
            ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "running as root without setpriv: cannot check permission errors")
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: "/bin/chown")
        chown.arguments = ["-R", "65534:65534", sandbox.path]
        try chown.run()
        chown.waitUntilExit()
        try #require(chown.terminationStatus == 0)
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    }

    func run(_ arguments: [String], library: String, locale: String = "C.UTF-8") throws -> RunResult {
        let executable = try #require(MemoExecutable.path)
        let process = Process()
        let command = prefix + [executable] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: sandbox.path)
        process.environment = [
            "HOME": sandbox.home, "TZ": "UTC", "PATH": "/usr/bin:/bin", "LANG": locale, "MEMO_LIBRARY": library,
        ]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdoutBytes: Array(out), stderr: String(decoding: err, as: UTF8.self))
    }
}

/// Issue 25: a store full of junk is named once, not at every `memo sync` (each is a new
/// process: the library remembers).
@Suite("memo sync names bad entries once")
struct JunkReportCLITests {
    @Test("junk in the store is named by the first sync only")
    func junkIsNamedOnce() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (library, store) = (sandbox.at("library"), sandbox.at("store"))
        let id = try sandbox.newMemo("hello", library: library)
        try sandbox.ok(["sync", "--store", store], library: library)
        let junk = "memosync/v1/00000000000000a1/segments/0000000000-0000000005-0123456789abcdef.seg"
        try FileManager.default.createDirectory(atPath: store + "/memosync/v1/00000000000000a1/segments", withIntermediateDirectories: true)
        try Data(repeating: 0x2A, count: 200).write(to: URL(fileURLWithPath: store + "/" + junk))
        let first = try sandbox.ok(["sync"], library: library).stdout
        #expect(first.contains("Skipped 1 store entry") && first.contains("0123456789abcdef"), "\(first)")
        for _ in 0..<2 {
            let again = try sandbox.ok(["sync"], library: library).stdout
            #expect(!again.contains("0123456789abcdef") && !again.contains("Skipped 1"), "\(again)")
            #expect(again.contains("1 store entry skipped as before"), "\(again)")
        }
        let json = try sandbox.ok(["sync", "--json"], library: library).object()
        #expect((json["skipped"] as? [Any])?.isEmpty == true && json["skippedAgain"] as? Int == 1)
        #expect(json["blobsRemembered"] as? Int == 1 && json["blobsRead"] as? Int == 0, "\(json)")
        #expect(try sandbox.ok(["show", id], library: library).stdout.hasPrefix("hello"))
    }

}

/// Whether a watchdog on another thread fired.
private final class WatchdogFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false

    func set() {
        lock.lock()
        fired = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return fired
    }
}
