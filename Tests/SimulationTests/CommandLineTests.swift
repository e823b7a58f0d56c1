import Foundation
import MemoSimulation
import Testing

/// The `memo-sim` executable: runs are the same across processes (a Dictionary or Set whose
/// order leaked into a run would differ between processes, whose hash seeds differ), and traces
/// written by `--trace-out` replay to the same run.
@Suite struct CommandLineTests {
    static let executable: String? = {
        if let override = ProcessInfo.processInfo.environment["MEMO_SIM_EXECUTABLE"], !override.isEmpty { return override }
        var folders: [URL] = []
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        if let first = CommandLine.arguments.first { folders.append(URL(fileURLWithPath: first).deletingLastPathComponent()) }
        for folder in folders {
            let candidate = folder.appendingPathComponent("memo-sim").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let path = try #require(Self.executable, "memo-sim was not found next to the tests; build it or set MEMO_SIM_EXECUTABLE")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func hashes(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("seed="), let range = line.range(of: "hash=") else { return nil }
            return String(line[range.upperBound...].prefix(16))
        }
    }

    /// Three processes (each a debug build's seeds: 80 steps keep the test to a few seconds).
    @Test func twoProcessesRunASeedTheSame() throws {
        let arguments = ["--seeds", "1..3", "--steps", "80", "--replicas", "3"]
        let first = try run(arguments)
        #expect(hashes(first.output).count == 3)
        // Other processes, one seed at a time or three at once: the same runs, printed in seed order.
        #expect(hashes(try run(arguments + ["--jobs", "1"]).output) == hashes(first.output))
        #expect(hashes(try run(arguments + ["--jobs", "3"]).output) == hashes(first.output))
    }

    /// A time box that has passed before the first seed still runs `--min-seeds` of them, and
    /// without `--min-seeds` stops at the first check (CI's swarm relies on both).
    @Test func aTimeBoxStillRunsTheMinimumNumberOfSeeds() throws {
        let boxed = try run(["--seeds", "1..50", "--steps", "60", "--replicas", "2", "--time-limit", "0.000001", "--min-seeds", "3"])
        #expect(boxed.status == 0)
        #expect(hashes(boxed.output).count == 3, "\(boxed.output)")
        let unboxed = try run(["--seeds", "1..50", "--steps", "60", "--replicas", "2", "--time-limit", "0.000001"])
        #expect(hashes(unboxed.output).count <= 1, "\(unboxed.output)")  // the box may close before the first check
    }

    @Test func aWrittenTraceReplaysTheSameRun() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-test-\(getpid()).trace").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let seeded = try run(["--seed", "5", "--steps", "120", "--replicas", "3", "--trace-out", path])
        let replayed = try run(["--replay", path])
        #expect(hashes(seeded.output).count == 1)
        #expect(hashes(seeded.output) == hashes(replayed.output))
        #expect(seeded.status == replayed.status)
    }

    /// README: `memo-sim --seed S --shrink --out FILE` makes a failing run small and writes a
    /// trace that `--replay` runs to the same failure (a broken engine, in builds that have
    /// them; the candidates run in child processes, as the command does).
    @Test func aShrunkTraceReplaysTheFailure() throws {
        guard SimulationParameters.availableMutants.contains("delta-omits-operation") else { return }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-shrunk-\(getpid()).trace").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let common = ["--steps", "150", "--replicas", "4", "--faults", "swarm", "--without", "clone,old-copy", "--mutant", "delta-omits-operation"]
        var seed: Int?
        for candidate in 1...5 where try run(["--seed", "\(candidate)", "--quiet"] + common).status != 0 {
            seed = candidate
            break
        }
        let failing = try #require(seed, "no seed of 1...5 broke the engine")
        let shrunk = try run(["--seed", "\(failing)", "--shrink", "--out", path, "--time-limit", "120"] + common)
        #expect(shrunk.status == 1 && shrunk.output.contains("wrote \(path)"), "\(shrunk.output)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("# shrunk from seed \(failing)") && text.contains("mutant delta-omits-operation"), "\(text.prefix(400))")
        let replayed = try run(["--replay", path])
        #expect(replayed.status == 1, "\(replayed.output)")
        // The trace's second line names the invariant the shrunk run broke ("# engine violated
        // at ..."); the replay breaks it again.
        let broken = text.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        let invariant = broken.dropFirst(2).prefix { $0 != " " }
        #expect(broken.hasPrefix("# ") && broken.contains(" violated ") && replayed.output.contains("FAIL \(invariant)"), "\(broken) / \(replayed.output)")
    }

    /// A failure prints `replay:` and `shrink:` lines (Simulations/README.md): the replay line,
    /// run as printed, fails the same seed on the same invariant.
    @Test func aFailuresPrintedReplayLineFailsTheSameWay() throws {
        guard SimulationParameters.availableMutants.contains("delta-omits-operation") else { return }
        let batch = try run(["--seeds", "1..5", "--steps", "150", "--replicas", "4", "--without", "clone,old-copy", "--mutant", "delta-omits-operation", "--quiet"])
        #expect(batch.status == 1, "\(batch.output)")
        let lines = batch.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let failure = try #require(lines.first { $0.hasPrefix("FAILURE seed=") }, "\(batch.output)")
        let invariant = try #require(lines.first { $0.hasPrefix("invariant:") })
        let replay = try #require(lines.first { $0.hasPrefix("replay:") }).dropFirst("replay:".count).split(separator: " ").map(String.init)
        #expect(replay.first == "memo-sim" && replay.contains("--mutant"), "\(replay)")
        let again = try run(Array(replay.dropFirst()))
        #expect(again.status == 1, "\(again.output)")
        let againLines = again.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(againLines.contains(failure) && againLines.contains(invariant), "\(failure) \(invariant) / \(again.output)")
    }

    /// Simulations/README.md: `--log` prints the run's event log, a line per event with its
    /// simulated time and replica; `--check-every` compares whole texts after every local
    /// action unless told otherwise (1).
    @Test func theLogPrintsEveryEventAndTextsAreCheckedAfterEveryActionByDefault() throws {
        let quiet = try run(["--seed", "1", "--steps", "30", "--replicas", "2"])
        let logged = try run(["--seed", "1", "--steps", "30", "--replicas", "2", "--log"])
        #expect(quiet.status == 0 && logged.status == 0)
        let lines = logged.output.split(separator: "\n")
        #expect(lines.count > quiet.output.split(separator: "\n").count + 30, "\(lines.count) lines")
        #expect(lines.first?.hasPrefix("0d00:00:00.000 r00 starts as ") == true, "\(lines.prefix(2))")
        // The same run either way (its hash), with or without the log.
        #expect(hashes(quiet.output) == hashes(logged.output))
        var parameters = Trace.generate(seed: 1, options: SimulationOptions(replicaCount: 2, steps: 30)).parameters
        #expect(parameters.intentionCheckProbability == 1)
        parameters = Trace.generate(seed: 1, options: SimulationOptions(replicaCount: 2, steps: 30, intentionCheckProbability: 0.25)).parameters
        #expect(parameters.intentionCheckProbability == 0.25)
    }

    /// Simulations/README.md, "Sometimes checks": a batch of 200 or more seeds (replica engine,
    /// faults on, no scenario) fails if no run reached the first four; runs of one step reach
    /// none of them.
    @Test func aLargeBatchThatNeverReachedTheSometimesStatesFails() throws {
        let tiny = ["--steps", "1", "--replicas", "2", "--quiet"]
        let large = try run(["--seeds", "1..200"] + tiny)
        #expect(large.status == 1 && large.output.contains("SOMETIMES FAILURE: in 200 seeds no run reached: concurrent inserts at one place"), "\(large.output)")
        let small = try run(["--seeds", "1..199"] + tiny)
        #expect(small.status == 0 && !small.output.contains("SOMETIMES"), "\(small.output)")
        let faultless = try run(["--seeds", "1..200", "--faults", "none"] + tiny)
        #expect(faultless.status == 0 && !faultless.output.contains("SOMETIMES"), "\(faultless.output)")
    }

    @Test func badArgumentsAreRefused() throws {
        #expect(try run(["--seeds", "9..1"]).status == 2)
        // Simulations/README.md: seeds are at most 2^63-1 (measurements hold them as JSON integers).
        #expect(try run(["--seed", "9223372036854775808"]).status == 2)
        #expect(try run(["--seeds", "1..9223372036854775808"]).status == 2)
        #expect(try run(["--faults", "lightning"]).status == 2)
        #expect(try run(["--replicas", "65"]).status == 2)
        for value in ["0", "1025", "two"] { #expect(try run(["--jobs", value]).status == 2) }
        for value in ["-1", "x"] { #expect(try run(["--decoded-texts", value]).status == 2) }
        #expect(try run(["--seed", "1", "--steps", "20", "--replicas", "2", "--decoded-texts", "5"]).status == 0)
        #expect(try run(["--replay", "/nonexistent/trace"]).status == 2)
        #expect(try run(["merge", "--report", "/tmp/x"]).status == 2)
        #expect(try run(["merge", "/nonexistent"]).status == 2)
        #expect(try run(["--scenario", "/nonexistent/scenario.json"]).status == 2)
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-bad-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: bad) }
        try "{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": -1}".write(to: bad, atomically: true, encoding: .utf8)
        #expect(try run(["--scenario", bad.path]).status == 2)
        #expect(try run(["--replay", "/nonexistent/trace", "--measure", "/tmp/x.json"]).status == 2)
    }

    /// The repository's folder.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `Simulations/study.sh arguments` with `memo-sim` this build's (and `environment`
    /// added): its exit status and what it wrote to standard error (shown when a test fails).
    func study(_ arguments: [String], environment added: [String: String] = [:]) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = Self.repository.appendingPathComponent("Simulations/study.sh")
        process.arguments = arguments
        let path = try #require(Self.executable)
        var environment = ProcessInfo.processInfo.environment
        environment["MEMO_SIM"] = path
        environment.merge(added) { $1 }
        process.environment = environment
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let written = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: written, as: UTF8.self))
    }

    /// Expects the report in `folder/report` (a study's, merged) to be, byte for byte, the
    /// report of one run of `seeds` with `options`.
    func expectOneRunsReport(_ folder: URL, report: String, seeds: String, options: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let one = folder.appendingPathComponent("one-run").path
        #expect(try run(["--seeds", seeds] + options + ["--quiet", "--report", one]).status == 0, sourceLocation: sourceLocation)
        for name in ["measurements.json", "index.html"] {
            let expected = try Data(contentsOf: URL(fileURLWithPath: one + "/" + name))
            let merged = try Data(contentsOf: folder.appendingPathComponent(report + "/" + name))
            #expect(expected == merged, "\(name)", sourceLocation: sourceLocation)
        }
    }

    /// Issue 30: `Simulations/study.sh` cuts seeds 1..5 into parts of 2, runs them on GNU
    /// parallel (when installed) and merges them: the same bytes as one run of 1..5.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel")))
    func aStudyOnGNUParallelEqualsOneRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-study-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let options = ["--steps", "60", "--replicas", "2"]
        let outcome = try study(["1", "5", "2", folder.appendingPathComponent("study").path] + options)
        #expect(outcome.status == 0, "\(outcome.errors)")
        try expectOneRunsReport(folder, report: "study/report", seeds: "1..5", options: options)
        // A part whose seeds break an invariant (a broken engine, in builds that have them):
        // the study still merges, says so, and exits non-zero.
        guard SimulationParameters.availableMutants.contains("delta-omits-operation") else { return }
        let failing = ["1", "3", "2", folder.appendingPathComponent("failing").path, "--steps", "150", "--replicas", "4", "--mutant", "delta-omits-operation"]
        #expect(try study(failing).status != 0)
        let merged = try MeasurementFile(parsing: String(contentsOf: folder.appendingPathComponent("failing/report/measurements.json"), encoding: .utf8))
        #expect(merged.totals.seeds == 3 && merged.totals.failures > 0)
    }

    /// Issue 30: the study over ssh hosts (`PARALLEL_OPTIONS="--sshlogin ..."`), with a stand-in
    /// for ssh that runs each job here: GNU parallel spreads the parts over both hosts through
    /// its remote worker (what a real ssh would carry), and the merged report is one run's.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel")))
    func aStudyOverSSHHostsEqualsOneRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-ssh-study-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let hostLog = folder.appendingPathComponent("hosts.log").path
        let fakeSSH = try writeStandInForSSH(in: folder, hostLog: hostLog)
        let options = ["--steps", "60", "--replicas", "2"]
        let outcome = try study(
            ["1", "6", "2", folder.appendingPathComponent("study").path] + options,
            environment: ["PARALLEL_OPTIONS": "--ssh \(fakeSSH) --sshlogin 1/host-a,1/host-b"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let hosts = try String(contentsOfFile: hostLog, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(hosts.count == 3 && Set(hosts) == ["host-a", "host-b"], "\(hosts)")
        try expectOneRunsReport(folder, report: "study/report", seeds: "1..6", options: options)
    }

    /// Writes a stand-in for ssh into `folder` and returns its path: it logs each host to
    /// `hostLog` and runs the command here, as a real ssh runs it there, except on `downHost`,
    /// which it refuses as an unreachable host does (ssh's status 255).
    func writeStandInForSSH(in folder: URL, hostLog: String, downHost: String = "") throws -> String {
        let path = folder.appendingPathComponent("fake-ssh").path
        // ssh's arguments: options, the host, then the command (after "--"), run by a shell.
        // sshd gives the command the user's login shell in SHELL, which GNU parallel's remote
        // worker runs the job with: the stand-in does the same (a test run may have no SHELL).
        let stand = """
            #!/bin/sh
            SHELL=/bin/sh
            export SHELL
            while [ $# -gt 0 ]; do
              case "$1" in
                -*) shift ;;
                *) host="$1"; echo "$1" >> '\(hostLog)'; shift; break ;;
              esac
            done
            if [ -n '\(downHost)' ] && [ "$host" = '\(downHost)' ]; then
              echo "ssh: connect to host $host port 22: Connection refused" >&2
              exit 255
            fi
            [ "$1" = "--" ] && shift
            exec sh -c "$*"
            """
        try Data(stand.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// A study whose host is down: the parts sent there never run, and the study merges
    /// nothing (a report of a shorter range than asked for would pass for the whole), names
    /// the parts that wrote no report, and exits non-zero; reports an earlier study left in the
    /// folder do not count.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel")))
    func aStudyWithAHostDownMergesNothingAndNamesTheMissingParts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-down-study-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fakeSSH = try writeStandInForSSH(in: folder, hostLog: folder.appendingPathComponent("hosts.log").path, downHost: "host-b")
        // Reports an earlier study left in the same folder: they must not pass for this one's.
        for start in [1, 3, 5] {
            let part = folder.appendingPathComponent("study/parts/\(start)")
            try FileManager.default.createDirectory(at: part, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: part.appendingPathComponent("measurements.json"))
        }
        let outcome = try study(
            ["1", "6", "2", folder.appendingPathComponent("study").path, "--steps", "60", "--replicas", "2"],
            environment: ["PARALLEL_OPTIONS": "--ssh \(fakeSSH) --sshlogin 1/host-a,1/host-b"])
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("nothing merged"), "\(outcome.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("study/report/measurements.json").path))
        // The parts named are exactly those without a report (host-b's share, at least one).
        let line = try #require(outcome.errors.split(separator: "\n").first { $0.contains("no report from the parts starting at seed") })
        let named = line.components(separatedBy: "at seed ")[1].components(separatedBy: " (in")[0].split(separator: " ").compactMap { Int($0) }
        let withoutReport = [1, 3, 5].filter {
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("study/parts/\($0)/measurements.json").path)
        }
        #expect(!named.isEmpty && named == withoutReport, "\(line)")
    }

    /// Issue 30: `Simulations/study-job.yaml`'s container command, run here for each index of a
    /// small job as Kubernetes runs it (`JOB_COMPLETION_INDEX`, `FIRST` and `PART` set; the
    /// shared volume a folder; short runs instead of the manifest's long ones), then merged:
    /// the bytes of one run of the whole range. (No cluster here: what is tested is the
    /// manifest's command and seed arithmetic.)
    @Test func theKubernetesJobsCommandCoversTheRangeAndMergesToOneRun() throws {
        let path = try #require(Self.executable)
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("Simulations/study-job.yaml"), encoding: .utf8)
        // The folded `args` block: its lines joined by spaces.
        let lines = manifest.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "- >-" })
        var command: [String] = []
        for line in lines[(start + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, line.hasPrefix("              ") else { break }
            command.append(trimmed)
        }
        let long = "--steps 3000 --replicas 8 --faults all"
        var shell = command.joined(separator: " ")
        #expect(shell.contains(long) && shell.contains("memo-sim --seeds") && shell.contains("/study/parts/"), "\(shell)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-k8s-study-\(getpid())")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("parts"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        shell = shell.replacingOccurrences(of: long, with: "--steps 60 --replicas 2")
            .replacingOccurrences(of: "memo-sim --seeds", with: "'\(path)' --seeds")
            .replacingOccurrences(of: "/study/", with: folder.path + "/")
        for index in 0..<3 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell]
            process.environment = ["FIRST": "1", "PART": "2", "JOB_COMPLETION_INDEX": String(index), "PATH": "/usr/bin:/bin"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "index \(index)")
        }
        let parts = ["1", "3", "5"].map { folder.appendingPathComponent("parts/\($0)").path }
        #expect(try run(["merge"] + parts + ["--report", folder.appendingPathComponent("report").path]).status == 0)
        try expectOneRunsReport(folder, report: "report", seeds: "1..6", options: ["--steps", "60", "--replicas", "2"])
    }

    /// Issue 30: `--sweep` runs the scenario once per value into DIR/KEY=V/, each the run of a
    /// scenario with that interval, and a page comparing them; bad sweeps are refused.
    @Test func aSweepRunsTheScenarioOncePerValue() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-sweep-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func scenario(sync: Int) -> String {
            """
            {"memo-sim scenario": 1, "lengthMilliseconds": 3600000, "replicas": [
              {"name": "a", "syncEveryMilliseconds": \(sync), "editEveryMilliseconds": 300000},
              {"name": "b", "syncEveryMilliseconds": \(sync), "editEveryMilliseconds": 600000}]}
            """
        }
        let file = folder.appendingPathComponent("s.json")
        try scenario(sync: 60_000).write(to: file, atomically: true, encoding: .utf8)
        let sweep = try run(["--scenario", file.path, "--seeds", "1..2", "--sweep", "sync-interval=1min,10min", "--report", folder.appendingPathComponent("sweep").path])
        #expect(sweep.status == 0, "\(sweep.output)")
        // The 10-minute part is the run of a scenario written with 10 minutes: the same hashes.
        let ten = folder.appendingPathComponent("ten.json")
        try scenario(sync: 600_000).write(to: ten, atomically: true, encoding: .utf8)
        let direct = try run(["--scenario", ten.path, "--seeds", "1..2"])
        let swept = try MeasurementFile(parsing: String(contentsOf: folder.appendingPathComponent("sweep/sync-interval=10min/measurements.json"), encoding: .utf8))
        #expect(swept.seeds.map(\.hash) == hashes(direct.output))
        let page = try String(contentsOf: folder.appendingPathComponent("sweep/index.html"), encoding: .utf8)
        #expect(page.contains("sync-interval=1min/index.html") && page.contains("sync-interval=10min/index.html"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("sweep/sync-interval=1min/index.html").path))
        // What a sweep's failure prints to replay one of its runs: `--set` runs the same.
        let set = try run(["--scenario", file.path, "--seeds", "1..2", "--set", "sync-interval=10min"])
        #expect(set.status == 0 && hashes(set.output) == swept.seeds.map(\.hash), "\(set.output)")
        #expect(try run(["--seeds", "1..2", "--set", "sync-interval=1min"]).status == 2)
        #expect(try run(["--scenario", file.path, "--set", "sync-interval=2h"]).status == 2)
        #expect(try run(["--scenario", file.path, "--set", "colour=1min"]).status == 2)
        #expect(try run(["--seeds", "1..2", "--sweep", "sync-interval=1min", "--report", folder.path]).status == 2)
        #expect(try run(["--scenario", file.path, "--sweep", "colour=1min", "--report", folder.path]).status == 2)
        #expect(try run(["--scenario", file.path, "--sweep", "sync-interval=soon", "--report", folder.path]).status == 2)
        #expect(try run(["--scenario", file.path, "--sweep", "sync-interval=2h", "--report", folder.path]).status == 2)
        // A sweep over how edits are spaced: "fixed" is the scenario as written (the 1-minute
        // part's hashes), "exponential" another schedule.
        let timing = try run(["--scenario", file.path, "--seeds", "1..2", "--sweep", "edit-timing=fixed,exponential", "--report", folder.appendingPathComponent("timing").path])
        #expect(timing.status == 0, "\(timing.output)")
        func partHashes(_ part: String) throws -> [String] {
            try MeasurementFile(parsing: String(contentsOf: folder.appendingPathComponent(part + "/measurements.json"), encoding: .utf8)).seeds.map(\.hash)
        }
        #expect(try partHashes("timing/edit-timing=fixed") == partHashes("sweep/sync-interval=1min"))
        #expect(try partHashes("timing/edit-timing=exponential") != partHashes("timing/edit-timing=fixed"))
        #expect(try run(["--scenario", file.path, "--sweep", "edit-timing=poisson", "--report", folder.path]).status == 2)
        #expect(try run(["--scenario", file.path, "--sweep", "edit-timing=10s", "--report", folder.path]).status == 2)
    }

    /// Issue 30: `--compact` parts merged by `memo-sim merge` give the bytes of one compact
    /// run; full parts merged with `--compact` too.
    @Test func compactPartsMergeIntoOneCompactRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-compact-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let common = ["--steps", "60", "--replicas", "2", "--quiet"]
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(try run(["--seeds", "1..4", "--compact", "--report", path("whole")] + common).status == 0)
        #expect(try run(["--seeds", "1..2", "--compact", "--measure", path("low.json")] + common).status == 0)
        #expect(try run(["--seeds", "3..4", "--measure", path("high.json")] + common).status == 0)
        #expect(try run(["merge", path("low.json"), path("high.json"), "--report", path("merged")]).status == 0)
        #expect(try run(["merge", path("high.json"), "--compact", "--measure", path("high-compact.json")]).status == 0)
        let whole = try Data(contentsOf: folder.appendingPathComponent("whole/measurements.json"))
        #expect(whole == (try Data(contentsOf: folder.appendingPathComponent("merged/measurements.json"))))
        #expect(try Data(contentsOf: folder.appendingPathComponent("whole/index.html")) == Data(contentsOf: folder.appendingPathComponent("merged/index.html")))
        let compactHigh = try MeasurementFile(parsing: String(contentsOfFile: path("high-compact.json"), encoding: .utf8))
        #expect(compactHigh.isCompact && compactHigh.seeds.map(\.seed) == [3, 4])
        #expect(String(decoding: whole, as: UTF8.self).contains("\"compact\": true"))
        #expect(try run(["--seeds", "1..2", "--compact"] + common).status == 2)
    }

    /// Issue 30: seeds 1..4 in one process, and 1..2 and 3..4 in two merged by `memo-sim
    /// merge`: the same measurements and page, byte for byte; measuring leaves the hashes alone.
    /// A scenario's report names its replicas (`r0 phone` in the timeline and charts, and
    /// `replicaNames` in the JSON, replica 0 first: founders first, as the trace numbers them);
    /// parts of a scenario study merge with their names; parts that name their replicas
    /// differently do not; a random profile's file has no names.
    @Test func aScenariosReportNamesItsReplicas() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-names-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func dir(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func scenario(_ names: [String]) throws -> String {
            // One path: a file's name is part of the options a report records.
            let path = dir("scenario.json")
            let text = """
                {"memo-sim scenario": 1, "lengthMilliseconds": 600000, "replicas": [
                  {"name": "\(names[0])", "syncEveryMilliseconds": 100000, "editEveryMilliseconds": 200000, "joinAtMilliseconds": 200000},
                  {"name": "\(names[1])", "syncEveryMilliseconds": 60000, "editEveryMilliseconds": 120000}]}
                """
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let file = try scenario(["tablet", "phone"])
        #expect(try run(["--scenario", file, "--seeds", "1..2", "--report", dir("low")]).status == 0)
        #expect(try run(["--scenario", file, "--seeds", "3..3", "--report", dir("high")]).status == 0)
        let low = try MeasurementFile(parsing: String(contentsOfFile: dir("low/measurements.json"), encoding: .utf8))
        // The phone is there from the start: replica 0; the tablet joins later: replica 1.
        #expect(low.replicaNames == ["phone", "tablet"])
        let page = try String(contentsOfFile: dir("low/index.html"), encoding: .utf8)
        #expect(page.contains(">r0 phone</text>") && page.contains(">r1 tablet</text>"), "\(page.prefix(300))")
        #expect(try run(["merge", dir("low"), dir("high"), "--report", dir("merged")]).status == 0)
        let merged = try MeasurementFile(parsing: String(contentsOfFile: dir("merged/measurements.json"), encoding: .utf8))
        #expect(merged.replicaNames == ["phone", "tablet"] && merged.seeds.map(\.seed) == [1, 2, 3])
        // Named otherwise (the same file and schedule, the same options): not the same study.
        #expect(try run(["--scenario", try scenario(["pad", "mobile"]), "--seeds", "4..4", "--report", dir("renamed")]).status == 0)
        #expect(try run(["merge", dir("low"), dir("renamed"), "--measure", dir("mixed.json")]).status == 2)
        // A random profile's replicas have no names, and its file says none.
        #expect(try run(["--seeds", "1..1", "--steps", "40", "--replicas", "2", "--measure", dir("random.json")]).status == 0)
        let random = try String(contentsOfFile: dir("random.json"), encoding: .utf8)
        #expect(!random.contains("replicaNames"))
        #expect(try MeasurementFile(parsing: random).replicaNames.isEmpty)
        // Names that are not a list of strings are refused, in words.
        for bad in ["5", "[]", "[1]", "[\"a\", null]"] {
            let text = random.replacingOccurrences(of: "\"format\":", with: "\"replicaNames\": \(bad), \"format\":")
            do throws(MeasurementFileError) {
                _ = try MeasurementFile(parsing: text)
                Issue.record("accepted replicaNames \(bad)")
            } catch {
                #expect(error.reason == "replicaNames must be a list of names", "\(bad)")
            }
        }
    }

    @Test func mergedReportsEqualOneRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-merge-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let common = ["--steps", "60", "--replicas", "2"]
        func dir(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let whole = try run(["--seeds", "1..4", "--report", dir("whole")] + common)
        #expect(whole.status == 0)
        let plain = try run(["--seeds", "1..4"] + common)
        #expect(hashes(whole.output).count == 4 && hashes(whole.output) == hashes(plain.output))
        #expect(try run(["--seeds", "3..4", "--report", dir("high")] + common).status == 0)
        #expect(try run(["--seeds", "1..2", "--measure", dir("low.json")] + common).status == 0)
        let merged = try run(["merge", dir("high"), dir("low.json"), "--report", dir("merged")])
        #expect(merged.status == 0, "\(merged.output)")
        for name in ["measurements.json", "index.html"] {
            let one = try Data(contentsOf: folder.appendingPathComponent("whole/\(name)"))
            let two = try Data(contentsOf: folder.appendingPathComponent("merged/\(name)"))
            #expect(one == two, "\(name)")
        }
        // A seed in two files does not merge (Simulations/README.md).
        #expect(try run(["merge", dir("high"), dir("whole"), "--measure", dir("twice.json")]).status == 2)
        // Other options do not merge.
        #expect(try run(["--seeds", "5..5", "--report", dir("other"), "--steps", "50", "--replicas", "2"]).status == 0)
        #expect(try run(["merge", dir("high"), dir("other"), "--measure", dir("bad.json")]).status == 2)
    }
}
