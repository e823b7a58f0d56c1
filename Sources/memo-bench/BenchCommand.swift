// The command line: parsing arguments and running the `trace` and `all` commands.

import Foundation
import MemoSync

/// A parsed `memo-bench` command line.
enum BenchCommand: Equatable {
    /// Print the usage text and exit successfully.
    case help
    /// Replay one trace file.
    case trace(path: String, runs: Int)
    /// Replay every `*.json` file of a directory, in name order.
    case all(directory: String, runs: Int)
    /// Build a synthetic notebook and measure loading, listing, searching and deltas.
    case notebook(memos: Int, runs: Int)
    /// Sync a notebook of `memos` memos through a local folder: bootstrap, one change, receive.
    case sync(memos: Int, runs: Int)
    /// Simulate `devices` devices over a year, `sessions` sessions each, on an in-memory store,
    /// and measure what the store, a new device's bootstrap and the notebook's state come to.
    case longevity(sessions: Int, devices: Int, seed: UInt64, keepOpen: Bool, historyRetention: HistoryRetention, explain: Bool)
    /// Sync through a folder store behind a fixed latency per request: bootstrap with several
    /// requests in flight and with one, typing during a bootstrap, one change.
    case remote(latencyMilliseconds: Int, explain: Bool)
    /// The AEAD's throughput, bytes added per blob, scrypt's cost (CryptoBenchmark.swift).
    case crypto(runs: Int)
    /// A local edit, a remote insertion and an offset conversion on two texts, one 16 times the
    /// other, and the ratios (ComplexityBenchmark.swift: README's "O(log n)").
    case complexity(runs: Int)
    /// `sync`'s bootstrap from a plain and from an encrypted store, alternating, and the ratio.
    case syncEncrypted(memos: Int, runs: Int)
    /// Sync through a real S3 or WebDAV server (the test servers, Tests/Servers/servers.sh).
    case remoteStore(RemoteStoreBenchmark.Kind)
    /// Syncs of a store holding junk against the same store without it (JunkBenchmark.swift).
    case junk(memos: Int, runs: Int)
    /// Notebooks of each of `sizes` memos: open, memory, list, search, bytes per single-memo
    /// change over `changes` synced changes, a new device's bootstrap at a latency
    /// (ScaleBenchmark.swift, issue 28).
    case scale(sizes: [Int], changes: Int, latencyMilliseconds: Int)
    /// Opens the library at `path` in this (new) process and lists it: what `scale` reports as
    /// `open_ms` and `rss_mb`, run by it in a process of its own (ScaleBenchmark.swift).
    case openLibrary(path: String)

    /// How many timed repetitions a measure gets when `--runs` is not given.
    static let defaultRuns = 5

    /// The traces `all` replays when no folder is given, relative to the package root.
    static let defaultTraceDirectory = "Tests/Fixtures/traces"

    /// The usage text.
    static let usage = """
        usage: memo-bench trace PATH [--runs N]
               memo-bench all [DIR] [--runs N]
               memo-bench notebook [--memos N] [--runs N]
               memo-bench sync [--memos N] [--runs N] [--encrypt]
               memo-bench crypto [--runs N]
               memo-bench complexity [--runs N]
               memo-bench longevity [--sessions N] [--devices D] [--seed S] [--keep-open] [--history-retention DAYS|forever] [--explain]
               memo-bench remote [--latency-ms MS] [--explain]
               memo-bench remote --store s3|webdav   (under Tests/Servers/servers.sh)
               memo-bench junk [--memos N] [--runs N]
               memo-bench scale [--sizes N,N] [--changes N] [--latency-ms MS]
               memo-bench open-library PATH
               memo-bench --help

        Replays editing traces (format: Tests/Fixtures/traces/README.md) on MemoCRDT's TextCRDT
        and on a plain gap buffer, and prints one JSON object per trace on stdout.

          trace PATH   replay one trace file
          all [DIR]    replay every *.json trace in DIR, sorted by name (default: the traces
                       bundled with the tests, \(defaultTraceDirectory))
          notebook     build a notebook of N memos (default 10000) of about 2 KB, typed by three
                       replicas in Korean, Japanese and Latin, and measure decoding, listing,
                       searching and the delta of one edit
          sync         publish that notebook to a local folder as a snapshot; measure a new
                       device's first sync (bootstrap), syncing one changed memo, and
                       receiving that change on another device
          sync --encrypt
                       the bootstrap from a plain and from an encrypted copy of that store,
                       alternating in one run, and their ratio (target: at most 1.2)
          crypto       the AEAD's throughput through the platform's library (sealing and
                       opening 16 MiB; target 1 GB/s), the same through the blob format, the
                       bytes an encrypted blob adds at several sizes, one scrypt derivation
          complexity   a local edit, a remote insertion and an offset conversion, timed on a
                       text of 8192 characters and one 16 times as long (both typed and
                       deleted at random places), and the ratio of the two per-operation times
                       (O(log n) gives about 1.3, O(n) 16; target: at most 3)
          longevity    D devices (default \(LongevityBenchmark.defaultDevices)) use one notebook for a simulated year, N
                       sessions each (default \(LongevityBenchmark.defaultSessions)): open the library, type a little, sync
                       with an in-memory store, close. Prints what the store holds, what a new
                       device reads to bootstrap, and the notebook state's size against the same
                       memos typed in one session. Deterministic given --seed (default \(LongevityBenchmark.defaultSeed)),
                       except bootstrap_ms. Runs once; not part of `all`. --keep-open (a
                       control) opens each library once and never closes it; --explain lists
                       on stderr the blobs the store ends with and those the bootstrap read;
                       --history-retention sets each library's (default 90 days)
          remote       a folder store behind a fixed latency per request (--latency-ms, default
                       50) holding a snapshot of 10000 memos and 300 segments of 3 devices:
                       a new device's bootstrap with 8 requests in flight and with 1,
                       keystrokes typed during a bootstrap (at least 1000, until it returns;
                       99th percentile and slowest of each call), and
                       one changed memo published and received (time, round trips, requests).
                       Runs once; --explain lists the one change's requests on stderr.
                       With --store s3 or --store webdav, through the test servers instead
                       (run under Tests/Servers/servers.sh): one changed memo's requests and
                       bytes, a bootstrap of 10000 memos, and listing 5000 blobs
          junk         two folder stores with the sync benchmark's notebook, one of them also
                       holding 10000 junk blob names and a 500 MB junk file: a new device's
                       first sync, its second, and receiving one change, on each, with the
                       ratios (target: at most 2) and how often the 500 MB file was read
                       (target: at most once)
          scale        notebooks of each of --sizes memos (default 10000,100000) of the notebook
                       mix, published as a snapshot to a folder store: opening a bootstrapped
                       library (time, resident memory), its first 50 rows, search (first and
                       warm), --changes single-memo edits each synced (default 1000; the bytes
                       written per change against the snapshot's bytes, the median sync), a new
                       device's bootstrap through the folder with --latency-ms (default 50)
                       added per request (list shown, everything in). Runs once; prints one
                       JSON object with a member per size last (progress on stderr)
          open-library PATH
                       open the library at PATH and list its first 50 rows in this new
                       process: time and the resident memory added (what scale runs in a
                       process of its own for open_ms and rss_mb, three times per size)
          --runs N     timed repetitions per measure; times are medians (default \(defaultRuns))

        Exit status: 0 when every replay reaches the trace's endContent, 1 when one does not
        (or a benchmark fails: devices that do not converge, a sync that does not complete),
        2 on a usage error or a trace that cannot be read or parsed. Missing a target is not
        a failure.
        """

    /// Parses the arguments after the program name.
    ///
    /// - Throws: ``BenchFailure/usage(_:)`` for an unknown command or option, a missing or
    ///   extra argument, or a `--runs` value that is not a positive integer.
    static func parse(_ arguments: [String]) throws(BenchFailure) -> BenchCommand {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) || arguments.first == "help" {
            return .help
        }
        var line = ParsedArguments()
        var index = 0
        while index < arguments.count {
            try line.read(arguments, at: &index)
            index += 1
        }
        return try line.command()
    }

    /// A command line read so far: the options' values (defaults until given) and the
    /// positional arguments.
    private struct ParsedArguments {
        var runs = BenchCommand.defaultRuns
        var memos = 10_000
        var sessions = LongevityBenchmark.defaultSessions
        var historyRetention = HistoryRetention.default
        var devices = LongevityBenchmark.defaultDevices
        var seed = LongevityBenchmark.defaultSeed
        var explain = false
        var keepOpen = false
        var latencyMilliseconds = 50
        var latencyGiven = false
        var encrypt = false
        var remoteStore: String?
        var sizes = ScaleBenchmark.defaultSizes
        var changes = ScaleBenchmark.defaultChanges
        var scaleOptionGiven = false
        /// Options that only `longevity` takes, in the order given.
        var longevityOptions: [String] = []
        /// Whether `--runs` was given (`longevity` does not take it).
        var runsGiven = false
        var positional: [String] = []

        /// Reads the argument at `index`, and the value after it when it is an option that
        /// takes one (leaving `index` on that value).
        mutating func read(_ arguments: [String], at index: inout Int) throws(BenchFailure) {
            let argument = arguments[index]
            if argument == "--runs" {
                guard index + 1 < arguments.count else { throw .usage("--runs needs a value") }
                index += 1
                try readRuns(arguments[index])
            } else if argument.hasPrefix("--runs=") {
                try readRuns(String(argument.dropFirst("--runs=".count)))
            } else if argument == "--memos" {
                guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value >= 1, value <= 1_000_000 else {
                    throw .usage("--memos needs an integer from 1 to 1000000")
                }
                memos = value
                index += 1
            } else if argument == "--sizes" {
                let values = index + 1 < arguments.count ? arguments[index + 1].split(separator: ",").map { Int($0) } : []
                guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 1_000_000 }) else {
                    throw .usage("--sizes needs integers from 1 to 1000000, separated by commas")
                }
                sizes = values.map { $0 ?? 0 }
                scaleOptionGiven = true
                index += 1
            } else if argument == "--changes" {
                guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value >= 1, value <= 100_000 else {
                    throw .usage("--changes needs an integer from 1 to 100000")
                }
                changes = value
                scaleOptionGiven = true
                index += 1
            } else if argument == "--encrypt" {
                encrypt = true
            } else if argument == "--explain" || argument == "--keep-open" {
                if argument == "--explain" { explain = true } else { keepOpen = true }
                longevityOptions.append(argument)
            } else if argument == "--history-retention" {
                guard index + 1 < arguments.count else { throw .usage("--history-retention needs a value") }
                index += 1
                let text = arguments[index]
                if text == "forever" {
                    historyRetention = .forever
                } else if let days = Int(text), HistoryRetention.days(days).isValid {
                    historyRetention = .days(days)
                } else {
                    throw .usage("--history-retention needs a number of days from 1 to \(HistoryRetention.daysMax), or forever")
                }
                longevityOptions.append(argument)
            } else if argument == "--sessions" || argument == "--devices" || argument == "--seed" {
                guard index + 1 < arguments.count else { throw .usage("\(argument) needs a value") }
                index += 1
                try readLongevityValue(argument, arguments[index])
                longevityOptions.append(argument)
            } else if argument == "--latency-ms" {
                guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value >= 0, value <= 10_000 else {
                    throw .usage("--latency-ms needs an integer from 0 to 10000")
                }
                latencyMilliseconds = value
                latencyGiven = true
                index += 1
            } else if argument == "--store" {
                guard index + 1 < arguments.count, ["s3", "webdav"].contains(arguments[index + 1]) else {
                    throw .usage("--store needs s3 or webdav")
                }
                remoteStore = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("-") && argument != "-" {
                throw .usage("unknown option \(argument)")
            } else {
                positional.append(argument)
            }
        }

        /// The value of `--runs`.
        private mutating func readRuns(_ text: String) throws(BenchFailure) {
            guard let value = Int(text), value >= 1, value <= 1_000 else {
                throw .usage("--runs needs an integer from 1 to 1000, not \"\(text)\"")
            }
            runs = value
            runsGiven = true
        }

        /// The value of `--sessions`, `--devices` or `--seed`.
        private mutating func readLongevityValue(_ option: String, _ text: String) throws(BenchFailure) {
            switch option {
            case "--sessions":
                guard let value = Int(text), value >= 1, value <= 1_000_000 else {
                    throw .usage("--sessions needs an integer from 1 to 1000000")
                }
                sessions = value
            case "--devices":
                guard let value = Int(text), value >= 1, value <= 64 else { throw .usage("--devices needs an integer from 1 to 64") }
                devices = value
            default:
                guard let value = UInt64(text) else { throw .usage("--seed needs a non-negative integer") }
                seed = value
            }
        }

        /// The command the positional arguments name, with the options that apply to it.
        func command() throws(BenchFailure) -> BenchCommand {
            guard let command = positional.first else { throw .usage("missing command") }
            if command != "longevity" && !(command == "remote" && longevityOptions == ["--explain"]), let option = longevityOptions.first {
                throw .usage("\(option) is an option of longevity only")
            }
            if command != "remote" && remoteStore != nil { throw .usage("--store is an option of remote only") }
            if command != "remote" && command != "scale" && latencyGiven { throw .usage("--latency-ms is an option of remote and scale only") }
            if command != "scale" && scaleOptionGiven { throw .usage("--sizes and --changes are options of scale only") }
            if command != "sync" && encrypt { throw .usage("--encrypt is an option of sync only") }
            switch command {
            case "remote":
                guard positional.count == 1 else { throw .usage("unexpected argument \(positional[1])") }
                guard !runsGiven else { throw .usage("remote runs once: --runs does not apply") }
                if let remoteStore, let kind = RemoteStoreBenchmark.Kind(rawValue: remoteStore) {
                    guard !latencyGiven, !explain else { throw .usage("--store runs against a real server: --latency-ms and --explain do not apply") }
                    return .remoteStore(kind)
                }
                return .remote(latencyMilliseconds: latencyMilliseconds, explain: explain)
            case "longevity":
                guard positional.count == 1 else { throw .usage("unexpected argument \(positional[1])") }
                guard !runsGiven else { throw .usage("longevity runs once: --runs does not apply") }
                return .longevity(sessions: sessions, devices: devices, seed: seed, keepOpen: keepOpen, historyRetention: historyRetention, explain: explain)
            case "scale":
                guard positional.count == 1 else { throw .usage("unexpected argument \(positional[1])") }
                guard !runsGiven else { throw .usage("scale runs once: --runs does not apply") }
                return .scale(sizes: sizes, changes: changes, latencyMilliseconds: latencyMilliseconds)
            case "crypto":
                guard positional.count == 1 else { throw .usage("unexpected argument \(positional[1])") }
                return .crypto(runs: runs)
            case "complexity":
                guard positional.count == 1 else { throw .usage("unexpected argument \(positional[1])") }
                return .complexity(runs: runs)
            case "open-library":
                guard positional.count == 2 else {
                    throw .usage(positional.count < 2 ? "open-library needs a library path" : "unexpected argument \(positional[2])")
                }
                return .openLibrary(path: positional[1])
            case "junk":
                guard positional.count == 1 else { throw .usage("unexpected argument \(positional[1])") }
                return .junk(memos: memos, runs: runs)
            case "notebook", "sync":
                guard positional.count == 1 else { throw .usage("unexpected argument \(positional[1])") }
                if encrypt { return .syncEncrypted(memos: memos, runs: runs) }
                return command == "sync" ? .sync(memos: memos, runs: runs) : .notebook(memos: memos, runs: runs)
            case "all" where positional.count == 1:
                return .all(directory: defaultTraceDirectory, runs: runs)
            case "trace", "all":
                guard positional.count == 2 else {
                    throw .usage(positional.count < 2 ? "\(command) needs a path" : "unexpected argument \(positional[2])")
                }
                return command == "trace"
                    ? .trace(path: positional[1], runs: runs) : .all(directory: positional[1], runs: runs)
            default:
                throw .usage("unknown command \"\(command)\"")
            }
        }
    }
}

/// A failure that ends `memo-bench` with exit status 2 and a message on stderr.
enum BenchFailure: Error, CustomStringConvertible {
    /// The command line was wrong.
    case usage(String)
    /// A trace could not be loaded.
    case trace(TraceLoadError)
    /// The trace directory could not be listed, or holds no traces.
    case directory(path: String, reason: String)

    var description: String {
        switch self {
        case let .usage(message): "\(message)\n(run memo-bench --help for usage)"
        case let .trace(error): error.description
        case let .directory(path, reason): "cannot use trace directory \(path): \(reason)"
        }
    }
}

/// Runs a parsed command and writes its output.
enum BenchRunner {
    /// Exit status when every replay succeeded.
    static let exitSuccess: Int32 = 0
    /// Exit status when some replay did not reach `endContent` (or failed).
    static let exitReplayFailed: Int32 = 1
    /// Exit status for usage errors and unreadable or malformed traces.
    static let exitUsageOrInput: Int32 = 2

    /// Parses `arguments` (without the program name), runs the command, and returns the exit
    /// status. Never traps on bad input.
    static func main(arguments: [String]) async -> Int32 {
        let command: BenchCommand
        do throws(BenchFailure) {
            command = try BenchCommand.parse(arguments)
        } catch {
            writeError(error)
            return exitUsageOrInput
        }
        switch command {
        case .help:
            writeOutput(BenchCommand.usage)
            return exitSuccess
        case let .trace(path, runs):
            do throws(BenchFailure) {
                return try runTrace(path: path, runs: runs) ? exitSuccess : exitReplayFailed
            } catch {
                writeError(error)
                return exitUsageOrInput
            }
        case let .all(directory, runs):
            return runAll(directory: directory, runs: runs)
        case let .notebook(memos, runs):
            return await report("notebook") { try NotebookBenchmark.run(memoCount: memos, runs: runs).json }
        case let .longevity(sessions, devices, seed, keepOpen, historyRetention, explain):
            return await report("longevity") {
                try await LongevityBenchmark.run(
                    sessions: sessions, devices: devices, seed: seed, keepOpen: keepOpen, historyRetention: historyRetention,
                    explain: explain ? { writeError($0) } : nil
                ).json
            }
        case let .remote(latency, explain):
            var lines: (@Sendable (String) -> Void)?
            if explain { lines = { @Sendable line in writeErrorLine(line) } }
            return await report("remote") { [lines] in try await RemoteBenchmark.run(latencyMilliseconds: latency, explain: lines).json }
        case let .remoteStore(kind):
            return await report("remote") { try await RemoteStoreBenchmark.run(kind: kind).json }
        case let .sync(memos, runs):
            return await report("sync") { try await SyncBenchmark.run(memoCount: memos, runs: runs).json }
        case let .junk(memos, runs):
            return await report("junk") { try await JunkBenchmark.run(memoCount: memos, runs: runs).json }
        case let .scale(sizes, changes, latency):
            return await report("scale") {
                try await ScaleBenchmark.run(sizes: sizes, changes: changes, latencyMilliseconds: latency) { writeErrorLine($0) }
            }
        case let .crypto(runs):
            return await report("crypto") { try CryptoBenchmark.run(runs: runs).json }
        case let .complexity(runs):
            return await report("complexity") { try ComplexityBenchmark.run(runs: runs).json }
        case let .openLibrary(path):
            return await report("open-library") { try await ScaleBenchmark.openLibrary(path: path).json }
        case let .syncEncrypted(memos, runs):
            return await report("sync --encrypt") { try await EncryptedSyncBenchmark.run(memoCount: memos, runs: runs).json }
        }
    }

    /// Runs a benchmark that reports one JSON object: printed, exit 0; or its error on standard
    /// error, exit ``exitReplayFailed``.
    private static func report(_ name: String, _ run: () async throws -> String) async -> Int32 {
        do {
            writeOutput(try await run())
            return exitSuccess
        } catch {
            writeError("\(name) benchmark failed: \(error)")
            return exitReplayFailed
        }
    }

    /// Loads, replays and reports one trace; returns its `ok`.
    private static func runTrace(path: String, runs: Int) throws(BenchFailure) -> Bool {
        // Each trace's peak_rss_mib starts from here, not from the traces replayed before it.
        Measure.releaseFreeHeapMemory()
        Measure.resetPeakResident()
        let trace: Trace
        do throws(TraceLoadError) {
            trace = try TraceLoader.load(path: path)
        } catch {
            throw .trace(error)
        }
        let report = TraceBenchmark.run(trace, runs: runs)
        writeOutput(report.json)
        if case .boolean(true)? = report["ok"] { return true }
        return false
    }

    /// Runs every `*.json` trace of `directory` in name order. A trace that cannot be loaded is
    /// reported on stderr and skipped; the status is 2 if that happened, else 1 if some replay
    /// failed, else 0.
    private static func runAll(directory: String, runs: Int) -> Int32 {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasSuffix(".json") }
                .sorted()
        } catch {
            writeError(BenchFailure.directory(path: directory, reason: error.localizedDescription))
            return exitUsageOrInput
        }
        guard !names.isEmpty else {
            writeError(BenchFailure.directory(path: directory, reason: "it holds no *.json trace"))
            return exitUsageOrInput
        }
        var status = exitSuccess
        for name in names {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            do throws(BenchFailure) {
                if try !runTrace(path: path, runs: runs) && status == exitSuccess { status = exitReplayFailed }
            } catch {
                writeError(error)
                status = exitUsageOrInput
            }
        }
        return status
    }

    /// Writes `line` and a newline to stdout, unbuffered, so results appear as they are made.
    static func writeOutput(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `line` to stderr.
    @Sendable static func writeErrorLine(_ line: String) {
        FileHandle.standardError.write(Data("\(line)\n".utf8))
    }

    /// Writes `memo-bench: <error>` to stderr.
    static func writeError(_ error: some CustomStringConvertible) {
        FileHandle.standardError.write(Data(("memo-bench: \(error)\n").utf8))
    }
}
