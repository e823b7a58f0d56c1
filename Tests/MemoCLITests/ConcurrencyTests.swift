// Several `memo` processes on one library at once: readers never fail, an editor left open
// blocks nobody, and what was typed merges with what changed meanwhile.

import Foundation
import MemoSync
import TestSupport
import Testing

@testable import memo

/// A `memo` process started in the background.
struct RunningMemo {
    let process: Process
    let outPath: String
    let errPath: String

    /// Waits for it to exit and returns what it did.
    func wait() throws -> RunResult {
        process.waitUntilExit()
        let out = try Data(contentsOf: URL(fileURLWithPath: outPath))
        let err = try Data(contentsOf: URL(fileURLWithPath: errPath))
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        return RunResult(status: status, stdoutBytes: Array(out), stderr: String(decoding: err, as: UTF8.self))
    }
}

extension Sandbox {
    /// Starts `memo arguments` without waiting for it (standard input /dev/null, the same
    /// environment as ``memo(_:library:input:environment:standardOutput:sourceLocation:)``).
    func start(_ arguments: [String], library: String, environment: [String: String] = [:]) throws -> RunningMemo {
        let executable = try #require(MemoExecutable.path)
        var generator = SystemRandomNumberGenerator()
        let tag = String(generator.next(), radix: 16)
        let outPath = at("bg-out-\(tag)")
        let errPath = at("bg-err-\(tag)")
        let process = try memoProcess(executable, arguments, library: library, environment: environment, outPath: outPath, errPath: errPath)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        return RunningMemo(process: process, outPath: outPath, errPath: errPath)
    }

    /// Writes an executable shell script into the sandbox and returns its path.
    func script(_ name: String, _ body: String) throws -> String {
        let path = at(name)
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// Waits until the file `path` exists (at most 60 seconds).
    func waitForFile(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { usleep(20_000) }
        #expect(FileManager.default.fileExists(atPath: path), "\(path) never appeared", sourceLocation: sourceLocation)
    }
}

@Suite("several memo processes on one library")
struct ConcurrencyTests {
    @Test("readers never fail, also while other commands change the library")
    func readersNeverFail() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("First\nmemo", library: library)
        for round in 0..<4 {
            var running: [RunningMemo] = []
            // The readers: list, show, and status and recover (their help pages say they work
            // while other memo commands run).
            let readers = [["list", "--json"], ["show", id], ["status", "--json"], ["recover", "--json"]]
            for index in 0..<8 {
                running.append(try sandbox.start(readers[index % readers.count], library: library))
            }
            // Writers at the same time: each waits for the other; readers do not wait.
            running.append(try sandbox.start(["new", "round \(round)"], library: library))
            running.append(try sandbox.start(["edit", id, "--insert", "0", "\(round)"], library: library))
            for process in running {
                let result = try process.wait()
                #expect(result.status == 0, "\(process.process.arguments ?? []): \(result)")
            }
        }
        let all = try sandbox.ok(["list", "--json"], library: library).objects()
        #expect(all.count == 5)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "3210First\nmemo")
    }

    /// memo help: "Commands that only show memos never wait: they work while another memo
    /// command (an editor, a sync) is running." The library is held open here, as a writing
    /// command holds it, for as long as the test runs: a reader that waited would wait for the
    /// lock for 60 seconds and fail. A writer started meanwhile says it waits, and finishes once
    /// the library is let go.
    @Test("every command that only shows memos works while the library is held; a writer says it waits")
    func readersDoNotWaitForAHeldLibrary() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("First\nmemo", library: library)
        try sandbox.ok(["edit", id, "--insert", "5", " line"], library: library)
        let trashed = try sandbox.newMemo("Old\nnote", library: library)
        try sandbox.ok(["delete", trashed], library: library)
        let version = try #require(try sandbox.ok(["history", id, "--json"], library: library).objects().first?["version"] as? String)
        let readers: [[String]] = [
            ["list"], ["list", "--json"], ["show", id], ["show", id, "--at", version], ["show", id, "--before", "2099-01-01"],
            ["search", "memo"], ["trash"], ["history", id], ["diff", id], ["status"], ["recover"],
            ["export", id], ["export", "--all", sandbox.at("exported"), "--force"],
        ]
        for arguments in readers { try sandbox.ok(arguments, library: library) }   // each works at all
        let held = try Replica(libraryPath: library)
        for arguments in readers {
            let result = try sandbox.memo(arguments, library: library)
            #expect(result.status == 0, "\(arguments) while the library is held: \(result)")
            #expect(!result.stderr.contains("waiting"), "\(arguments) waited: \(result)")
        }
        let writer = try sandbox.start(["edit", id, "--insert", "0", "> "], library: library)
        // Polled on this thread (not with Task.sleep: a busy test run's cooperative pool may
        // resume a sleeping task late, and the writer gives up after 60 s).
        let deadline = Date(timeIntervalSinceNow: 50)
        while Date() < deadline,
            !(String(data: FileManager.default.contents(atPath: writer.errPath) ?? Data(), encoding: .utf8) ?? "").contains("waiting for another memo command")
        {
            usleep(20_000)
        }
        #expect(writer.process.isRunning, "the writer did not wait for the held library")
        held.closeNow()
        let written = try writer.wait()
        #expect(written.status == 0 && written.stderr.contains("waiting for another memo command"), "\(written)")
        #expect(try sandbox.ok(["show", id], library: library).stdout == "> First line\nmemo")
    }

    @Test("while an editor is open, list, show, sync and other edits work; the edit merges when it closes")
    func editorBlocksNobody() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let other = sandbox.at("other")
        let store = sandbox.at("store")
        let id = try sandbox.newMemo("Groceries\nmilk\nbread", library: library)
        try sandbox.ok(["sync", "--store", store], library: library)
        try sandbox.ok(["sync", "--store", store], library: other)

        // The editor says it started, waits for the test, then changes the last line.
        let started = sandbox.at("started")
        let proceed = sandbox.at("proceed")
        let editor = try sandbox.script("slow-editor.sh", """
            touch '\(started)'
            while [ ! -e '\(proceed)' ]; do sleep 0.05; done
            sed -i 's/bread/sourdough bread/' "$1"
            """)
        let editing = try sandbox.start(["edit", id], library: library, environment: ["EDITOR": editor])
        sandbox.waitForFile(started)

        // Meanwhile: reading, a change on this device and one received by a sync.
        #expect(try sandbox.ok(["list"], library: library).stdout.contains("Groceries"))
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Groceries\nmilk\nbread")
        try sandbox.ok(["edit", id, "--insert", "9", " for Sunday"], library: library)
        try sandbox.ok(["edit", id, "--insert", "10", "oat "], library: other)
        try sandbox.ok(["sync"], library: other)
        try sandbox.ok(["sync"], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Groceries for Sunday\noat milk\nbread")

        try Data().write(to: URL(fileURLWithPath: proceed))
        let result = try editing.wait()
        #expect(result.status == 0, "\(result)")
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Groceries for Sunday\noat milk\nsourdough bread")
    }

    @Test("an edit that cannot be applied after the editor closed keeps what was typed")
    func editorResultKeptWhenMemoWasTrashed() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("Draft", library: library)
        let started = sandbox.at("started")
        let proceed = sandbox.at("proceed")
        let editor = try sandbox.script("slow-editor.sh", """
            touch '\(started)'
            while [ ! -e '\(proceed)' ]; do sleep 0.05; done
            printf 'Draft, much improved' > "$1"
            """)
        let editing = try sandbox.start(["edit", id], library: library, environment: ["EDITOR": editor])
        sandbox.waitForFile(started)
        try sandbox.ok(["delete", id], library: library)
        try Data().write(to: URL(fileURLWithPath: proceed))
        let result = try editing.wait()
        #expect(result.status == 1 && result.stderr.contains("in the trash") && result.stderr.contains("kept in"), "\(result)")
        let kept = try #require(result.stderr.components(separatedBy: "kept in ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "Draft, much improved")
        try? FileManager.default.removeItem(atPath: kept)
    }
}

@Suite("merging an edit made on an older text")
struct TextMergeTests {
    func merged(_ base: String, _ edited: String, _ current: String) -> String {
        var scalars = Array(current.unicodeScalars)
        for change in TextMerge.changes(from: base, to: edited, onto: current) {
            scalars.replaceSubrange(change.range, with: Array(change.text.unicodeScalars))
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    @Test func withoutConcurrentChangesTheEditWins() {
        for (base, edited) in [("", "abc"), ("abc", ""), ("abc", "abd"), ("hello world", "hello, brave world!"), ("한국어 메모", "한국어 긴 메모 😀")] {
            #expect(merged(base, edited, base) == edited)
            #expect(merged(base, base, edited) == edited)
        }
    }

    @Test func bothSidesKeptAndDeletionsMeet() {
        #expect(merged("milk\nbread", "milk\nsourdough bread", "oat milk\nbread") == "oat milk\nsourdough bread")
        // Both deleted the same word: once.
        #expect(merged("a b c", "a c", "a c") == "a c")
        // Text typed meanwhile inside a passage the editor removed is kept.
        let cut = merged("one XY three", "one three", "one X-Y three")
        #expect(cut.contains("-") && !cut.contains("X") && !cut.contains("Y") && cut.hasPrefix("one") && cut.hasSuffix("three"), "\(cut)")
        // Both inserted at one place: both kept.
        #expect(merged("ab", "aXb", "aYb") == "aYXb")
    }

    /// Seeded (rerun one with MEMOSYNC_SEED=N, printed on failure).
    @Test(arguments: testSeeds(3, salt: 0x3_3E26E))
    func randomMergesKeepBothSidesIndependentChanges(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            // The editor changes the first half, the other side the second: the result holds both.
            let left = randomText(&random)
            let right = randomText(&random)
            let base = left + "|" + right
            let edited = randomText(&random) + "|" + right
            let current = left + "|" + randomText(&random)
            let expected = edited.split(separator: "|", omittingEmptySubsequences: false)[0] + "|" + current.split(separator: "|", omittingEmptySubsequences: false)[1]
            #expect(merged(base, edited, current) == expected, "seed \(seed): \(base) / \(edited) / \(current)")
        }
    }

    private func randomText(_ random: inout SeededRandom) -> String {
        let letters = Array("abc 가나")
        return String((0..<Int(random.next() % 8)).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
    }
}

