import Foundation
import MemoSimulation

/// `memo-sim`: runs the deterministic simulation from the command line.
enum MemoSimCommand {
    static let usage = """
        usage: memo-sim [--seed S | --seeds A..B] [--scenario FILE] [options]
               memo-sim --replay FILE [--log]
               memo-sim --seed S [options] --shrink [--out FILE]
               memo-sim --replay FILE --shrink [--out FILE]
               memo-sim merge PATH... [--report DIR] [--measure FILE]

        Runs replicas of the real engine against a simulated store, disks and clocks, under
        faults, from a seed, and checks convergence, nothing lost, non-interleaving, causality,
        intention, durability and bounded storage. A seed fully determines a run.

          --seed S            run one seed (default 1)
          --seeds A..B        run seeds A to B (inclusive)
          --replicas N        replicas per run, 2 to 64 (default: drawn per seed)
          --steps K           scheduled events per run (default 2000)
          --faults LIST       none, all, swarm (default: each seed draws), or a comma-separated
                              list of: \(FaultKind.allCases.map(\.rawValue).joined(separator: ","))
          --engine E          replica (default) or notebook (bare notebooks exchanging deltas)
          --time-limit SECS   stop starting new seeds after SECS seconds
          --min-seeds N       with --time-limit: run at least N seeds however long they take
          --jobs N            run up to N seeds at once, each on a thread of its own (default:
                              one per processor, here \(SwarmRunner.defaultJobs)); output and measurements
                              are in seed order and the same for any N
          --quiet             print failures and the final line only
          --log               print the run's event log (with --seed or --replay)
          --trace-out FILE    write the run's trace (with --seed)
          --shrink            make a failing run smaller and write it as a trace (--out FILE,
                              default memo-sim-SEED.trace)
          --replay FILE       run a trace written by --shrink or --trace-out
          --without LIST      never turn on these faults (names above) or workload features:
                              \(WorkloadFeature.allCases.map(\.rawValue).joined(separator: ","))
          --check-every P     compare whole texts after a share P of local actions (default 1)
          --decoded-texts N   memo texts each replica keeps decoded after a save (default: from the
                              seed, 0, 2 or 1000); the others go back to their encoded form
          --scenario FILE     run the replicas and schedule a scenario file names (JSON; Simulations/
                              README.md, "Scenario files") instead of a random profile; the seed
                              draws the texts typed and the store's latencies
          --sweep KEY=V1,V2   with --scenario and --report DIR: run the seeds once per value of KEY
                              (sync-interval or edit-interval, every replica's; values like 10s,
                              60s, 10min, 2h, 1d or plain ms; or edit-timing or sync-timing: fixed,
                              exponential) into DIR/KEY=V/, and DIR/index.html with the measures
                              side by side
          --set KEY=V         with --scenario: every replica's KEY (a key --sweep varies) set to V,
                              as one value of a sweep runs (a sweep's failure prints it to replay)
          --mutant NAME       run a deliberately broken engine (debug builds with MEMOSYNC_SELF_CHECKS=1): \(mutantList)

        Measurements (Simulations/README.md, "Measurements and reports"):
          --measure FILE      write every run's measurements as JSON: arrival latency of edits at
                              each replica, store traffic, syncs and crashes per replica, the store's
                              size over time; one object per seed and totals. Same seeds and
                              options, same bytes. The runs themselves (and their hashes) do not change.
          --report DIR        write DIR/measurements.json and DIR/index.html (one page, inline SVG,
                              no scripts): latency histogram, store over time, a timeline of the
                              first seed, the verdicts
          --sample-every MS   sample the store's size every MS simulated milliseconds (default 3600000)
          --compact           with --measure or --report: for studies of very many seeds, keep per
                              seed only its counters, store peaks and arrival latencies rounded up
                              to four significant digits (no timelines or samples); merge of compact
                              parts gives the bytes of one compact run
          merge PATH...       combine measurement files (or DIRs holding measurements.json) of parts
                              of one seed range, run with the same options, into one: --report DIR
                              and/or --measure FILE; the same bytes as one run of all those seeds
        """

    static let mutantList = SimulationParameters.availableMutants.isEmpty
        ? "none in this build" : SimulationParameters.availableMutants.joined(separator: ",")

    static func main(_ arguments: [String]) -> Int32 {
        let invocation: Invocation
        do throws(EarlyExit) {
            invocation = try parse(arguments)
        } catch {
            return error.status
        }
        if invocation.mergeInputs != nil {
            return merge(invocation)
        }
        if invocation.sweepKey != nil {
            return sweep(invocation)
        }
        if let replayPath = invocation.replayPath {
            return replay(replayPath, invocation)
        }
        if invocation.shrink {
            let seed = invocation.seeds.lowerBound
            let trace = invocation.scenario?.trace(seed: seed) ?? Trace.generate(seed: seed, options: invocation.options)
            let path = invocation.shrinkOut ?? "memo-sim-\(seed).trace"
            return shrinkRun(trace, path: path, timeLimit: invocation.timeLimit ?? 600)
        }
        if invocation.seeds.count == 1 && (invocation.printLog || invocation.traceOut != nil) {
            return runSeed(invocation)
        }
        return runSwarm(invocation)
    }

    /// What a command line asks for.
    struct Invocation {
        /// What each run is like.
        var options = SimulationOptions()
        var seeds: ClosedRange<UInt64> = 1...1
        var timeLimit: Double?
        var seedsMin = 0
        /// `--jobs N`: seeds run at once.
        var jobs = SwarmRunner.defaultJobs
        var quiet = false
        var printLog = false
        var shrink = false
        var replayPath: String?
        var traceOut: String?
        var shrinkOut: String?
        /// `--measure FILE`, `--report DIR`, `--sample-every MS`.
        var measurePath: String?
        var reportDirectory: String?
        var sampleIntervalMilliseconds: UInt64?
        /// `--compact`: measurements in the compact form (totals and histograms per seed).
        var compact = false
        /// `--scenario FILE`: the scenario and its path.
        var scenario: Scenario?
        var scenarioPath: String?
        /// `--sweep KEY=V1,V2,...`: the key and its values (labels as written, milliseconds).
        var sweepKey: String?
        var sweepValues: [String] = []
        /// `--set KEY=V`: one value of a sweep, applied to the scenario once it is read.
        var setting: (key: String, label: String)?
        /// `merge PATH...`: the files or directories to merge.
        var mergeInputs: [String]?

        var measures: Bool { measurePath != nil || reportDirectory != nil }

        /// The scenario's names of its replicas, replica 0 first (none without a scenario).
        var replicaNames: [String] { scenario?.replicas.map(\.name) ?? [] }
        /// What a replay command adds for a scenario.
        var scenarioSuffix: String {
            guard let scenarioPath else { return "" }
            return " --scenario \(scenarioPath)" + (setting.map { " --set \($0.key)=\($0.label)" } ?? "")
        }

        /// The options string measurement files carry (merge refuses files whose differ).
        var measuredOptions: String {
            var parts = options.commandLine(seed: 0).split(separator: " ").dropFirst(3).map(String.init)
            if let scenarioPath { parts += ["--scenario", URL(fileURLWithPath: scenarioPath).lastPathComponent] }
            if let setting { parts += ["--set", "\(setting.key)=\(setting.label)"] }
            if let sampleIntervalMilliseconds, sampleIntervalMilliseconds != Meter.defaultSampleIntervalMilliseconds {
                parts += ["--sample-every", "\(sampleIntervalMilliseconds)"]
            }
            return parts.joined(separator: " ")
        }
    }

    /// The command line asked for help, or is wrong: what it printed has been printed, and
    /// `memo-sim` exits with `status`.
    struct EarlyExit: Error {
        var status: Int32
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(EarlyExit) -> Invocation {
        var invocation = Invocation()
        var index = 0
        if arguments.first == "merge" {
            invocation.mergeInputs = []
            index = 1
        }
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--seed":
                guard let text = value(), let seed = UInt64(text), seed <= UInt64(Int64.max) else {
                    throw bad("--seed needs a number from 0 to 2^63-1")
                }
                invocation.seeds = seed...seed
            case "--seeds":
                guard let text = value() else { throw bad("--seeds needs A..B") }
                let parts = text.split(separator: ".", omittingEmptySubsequences: true)
                guard parts.count == 2, let low = UInt64(parts[0]), let high = UInt64(parts[1]), low <= high, text.contains("..") else {
                    throw bad("--seeds needs A..B with A <= B")
                }
                // Measurements hold seeds as JSON integers (signed 64-bit).
                guard high <= UInt64(Int64.max) else { throw bad("--seeds goes up to 2^63-1") }
                invocation.seeds = low...high
            case "--time-limit":
                guard let text = value(), let seconds = Double(text), seconds > 0 else { throw bad("--time-limit needs a number of seconds") }
                invocation.timeLimit = seconds
            case "--min-seeds":
                guard let text = value(), let count = Int(text), count >= 0 else { throw bad("--min-seeds needs a number of seeds") }
                invocation.seedsMin = count
            case "--jobs":
                guard let text = value(), let jobs = Int(text), (1...1024).contains(jobs) else { throw bad("--jobs needs 1 to 1024") }
                invocation.jobs = jobs
            case "--quiet": invocation.quiet = true
            case "--log": invocation.printLog = true
            case "--shrink": invocation.shrink = true
            case "--replay":
                guard let path = value() else { throw bad("--replay needs a file") }
                invocation.replayPath = path
            case "--trace-out":
                guard let path = value() else { throw bad("--trace-out needs a file") }
                invocation.traceOut = path
            case "--out":
                guard let path = value() else { throw bad("--out needs a file") }
                invocation.shrinkOut = path
            case "--scenario":
                guard let path = value() else { throw bad("--scenario needs a file") }
                let text: String
                do {
                    text = try String(contentsOfFile: path, encoding: .utf8)
                } catch {
                    err("cannot read \(path): \(error.localizedDescription)")
                    throw EarlyExit(status: 2)
                }
                do throws(ScenarioError) {
                    invocation.scenario = try Scenario(parsing: text)
                } catch {
                    err("\(path): \(error)")
                    throw EarlyExit(status: 2)
                }
                invocation.scenarioPath = path
            case "--sweep":
                guard let text = value(), let equals = text.firstIndex(of: "=") else { throw bad("--sweep needs KEY=V1,V2,...") }
                let key = String(text[..<equals])
                guard Scenario.sweepKeys.contains(key) else { throw bad("--sweep can vary \(Scenario.sweepKeys.joined(separator: " or ")), not \(key)") }
                var values: [String] = []
                for label in text[text.index(after: equals)...].split(separator: ",").map(String.init) {
                    guard Scenario.isSweepValue(key, label) else {
                        throw bad(key.hasSuffix("-timing")
                            ? "--sweep: \(label) is not a timing (fixed or exponential)" : "--sweep: \(label) is not a duration (10s, 5min, 2h, 1d, or ms)")
                    }
                    guard !values.contains(label) else { throw bad("--sweep: \(label) twice") }
                    values.append(label)
                }
                guard !values.isEmpty else { throw bad("--sweep needs at least one value") }
                invocation.sweepKey = key
                invocation.sweepValues = values
            case "--set":
                guard let text = value(), let equals = text.firstIndex(of: "=") else { throw bad("--set needs KEY=V") }
                let key = String(text[..<equals])
                let label = String(text[text.index(after: equals)...])
                guard Scenario.sweepKeys.contains(key) else { throw bad("--set can change \(Scenario.sweepKeys.joined(separator: " or ")), not \(key)") }
                guard Scenario.isSweepValue(key, label) else {
                    throw bad(key.hasSuffix("-timing")
                        ? "--set: \(label) is not a timing (fixed or exponential)" : "--set: \(label) is not a duration (10s, 5min, 2h, 1d, or ms)")
                }
                invocation.setting = (key, label)
            case "--measure":
                guard let path = value() else { throw bad("--measure needs a file") }
                invocation.measurePath = path
            case "--report":
                guard let path = value() else { throw bad("--report needs a directory") }
                invocation.reportDirectory = path
            case "--compact": invocation.compact = true
            case "--sample-every":
                guard let text = value(), let milliseconds = UInt64(text), milliseconds > 0 else { throw bad("--sample-every needs a positive number of milliseconds") }
                invocation.sampleIntervalMilliseconds = milliseconds
            case "--help", "-h":
                out(usage)
                throw EarlyExit(status: 0)
            default:
                if invocation.mergeInputs != nil && !argument.hasPrefix("-") {
                    invocation.mergeInputs!.append(argument)
                } else {
                    guard try readRunOption(argument, value: value, into: &invocation.options) else {
                        throw bad("unknown argument \(argument)")
                    }
                }
            }
            index += 1
        }
        if let inputs = invocation.mergeInputs {
            if inputs.isEmpty { throw bad("merge needs measurement files or report directories") }
            if !invocation.measures { throw bad("merge needs --report DIR or --measure FILE") }
        }
        if invocation.scenario != nil && (invocation.replayPath != nil || invocation.options.replicaCount != nil) {
            throw bad("--scenario names its replicas and schedule: not with --replay or --replicas")
        }
        if let setting = invocation.setting {
            guard let scenario = invocation.scenario, invocation.sweepKey == nil else {
                throw bad("--set needs --scenario FILE (and no --sweep)")
            }
            guard let changed = scenario.sweeping(setting.key, value: setting.label) else {
                throw bad("--set: \(setting.label) is outside 1000 ms to the scenario's length")
            }
            invocation.scenario = changed
        }
        if let key = invocation.sweepKey {
            guard let scenario = invocation.scenario, invocation.reportDirectory != nil, invocation.measurePath == nil else {
                throw bad("--sweep needs --scenario FILE and --report DIR (and no --measure)")
            }
            for label in invocation.sweepValues where scenario.sweeping(key, value: label) == nil {
                throw bad("--sweep: \(label) is outside 1000 ms to the scenario's length")
            }
        }
        if invocation.compact && !invocation.measures { throw bad("--compact goes with --measure FILE or --report DIR") }
        if invocation.measures && (invocation.replayPath != nil || invocation.shrink) {
            throw bad("--measure and --report go with --seed or --seeds (not --replay or --shrink)")
        }
        return invocation
    }

    /// Reads `argument` if it is an option that shapes each run (its `SimulationOptions`),
    /// taking its value from `value`; returns false if it is not one.
    private static func readRunOption(
        _ argument: String, value: () -> String?, into options: inout SimulationOptions
    ) throws(EarlyExit) -> Bool {
        switch argument {
        case "--replicas":
            guard let text = value(), let count = Int(text), (2...64).contains(count) else { throw bad("--replicas needs 2 to 64") }
            options.replicaCount = count
        case "--steps":
            guard let text = value(), let steps = Int(text), (1...100_000_000).contains(steps) else { throw bad("--steps needs a positive number") }
            options.steps = steps
        case "--faults":
            guard let text = value(), let faults = FaultSelection(parsing: text) else { throw bad("--faults needs none, all, swarm or a list of fault names") }
            options.faults = faults
        case "--engine":
            guard let text = value(), let engine = EngineLevel(rawValue: text) else { throw bad("--engine needs replica or notebook") }
            options.engine = engine
        case "--check-every":
            guard let text = value(), let share = Double(text), (0...1).contains(share) else { throw bad("--check-every needs 0 to 1") }
            options.intentionCheckProbability = share
        case "--decoded-texts":
            guard let text = value(), let limit = Int(text), (0...1_000_000_000).contains(limit) else {
                throw bad("--decoded-texts needs 0 or more")
            }
            options.decodedTextLimit = limit
        case "--without":
            guard let text = value() else { throw bad("--without needs a list of features and faults") }
            for name in text.split(separator: ",").map(String.init) {
                if let feature = WorkloadFeature(rawValue: name) {
                    options.withoutFeatures.append(feature)
                } else if let fault = FaultKind(rawValue: name) {
                    options.withoutFaults.append(fault)
                } else {
                    throw bad("unknown feature or fault \(name)")
                }
            }
        case "--mutant":
            guard let text = value() else { throw bad("--mutant needs a name") }
            if SimulationParameters.availableMutants.isEmpty {
                err("mutants exist only in debug builds with self-checks (MEMOSYNC_SELF_CHECKS=1 swift build --product memo-sim)")
                throw EarlyExit(status: 2)
            }
            if let problem = SimulationParameters.mutantProblem(text) { throw bad(problem) }
            options.mutant = text
        default:
            return false
        }
        return true
    }

    /// A wrong command line: prints `message` and the usage, for exit status 2.
    private static func bad(_ message: String) -> EarlyExit {
        err("\(message)\n\n\(usage)")
        return EarlyExit(status: 2)
    }

    /// `--replay FILE`: runs the trace written in `path`, or with `--shrink` makes it smaller.
    static func replay(_ path: String, _ invocation: Invocation) -> Int32 {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            err("cannot read \(path): \(error)")
            return 2
        }
        let trace: Trace
        do throws(TraceParseError) {
            trace = try Trace(parsing: text)
        } catch {
            err("\(path): \(error)")
            return 2
        }
        if invocation.shrink {
            return shrinkRun(trace, path: invocation.shrinkOut ?? path + ".small", timeLimit: invocation.timeLimit ?? 600)
        }
        let code = runOne(trace, printLog: invocation.printLog, command: "memo-sim --replay \(path)")
        if let expected = trace.expectedFailure {
            out(code == 1 ? "the trace fails as expected (\(expected))" : "the trace was expected to fail (\(expected)) and did not")
        }
        return code
    }

    /// One seed, printing its event log (`--log`) or writing its trace (`--trace-out`).
    static func runSeed(_ invocation: Invocation) -> Int32 {
        let seed = invocation.seeds.lowerBound
        let trace = invocation.scenario?.trace(seed: seed) ?? Trace.generate(seed: seed, options: invocation.options)
        if let traceOut = invocation.traceOut {
            do {
                try trace.text.write(toFile: traceOut, atomically: true, encoding: .utf8)
            } catch {
                err("cannot write \(traceOut): \(error)")
                return 2
            }
        }
        let code = runOne(
            trace, printLog: invocation.printLog, command: invocation.options.commandLine(seed: seed) + invocation.scenarioSuffix,
            measure: invocation.measures ? invocation.sampleIntervalMilliseconds ?? Meter.defaultSampleIntervalMilliseconds : nil)
        if let measured = code.measurements {
            let written = writeMeasurements(MeasurementFile(options: invocation.measuredOptions, seeds: [measured], replicaNames: invocation.replicaNames), invocation)
            if written != 0 { return written }
        }
        return code.status
    }

    /// Every seed of the range; fails when one fails, or when a long enough run with faults
    /// never reached some of the situations every swarm must reach (`SometimesFlags`).
    static func runSwarm(_ invocation: Invocation) -> Int32 {
        let options = invocation.options
        var runner = SwarmRunner(options: options, timeLimitSeconds: invocation.timeLimit) { out($0) }
        runner.printsEveryRun = !invocation.quiet
        runner.seedsMin = invocation.seedsMin
        runner.jobs = invocation.jobs
        if let scenario = invocation.scenario {
            runner.traceForSeed = { scenario.trace(seed: $0) }
            runner.commandSuffix = invocation.scenarioSuffix
        }
        if invocation.measures {
            runner.measureSampleIntervalMilliseconds = invocation.sampleIntervalMilliseconds ?? Meter.defaultSampleIntervalMilliseconds
            runner.compactsMeasurements = invocation.compact
        }
        let summary = runner.run(seeds: invocation.seeds)
        if invocation.measures {
            let written = writeMeasurements(MeasurementFile(options: invocation.measuredOptions, seeds: summary.measurements, replicaNames: invocation.replicaNames), invocation)
            if written != 0 { return written }
        }
        let missing = SometimesFlags.required.subtracting(summary.sometimes)
        if summary.seedsRun >= 200 && invocation.scenario == nil && options.faults != .none && options.engine == .replica && !missing.isEmpty {
            out("SOMETIMES FAILURE: in \(summary.seedsRun) seeds no run reached: \(missing.names.joined(separator: "; "))")
            return 1
        }
        return summary.failures.isEmpty ? 0 : 1
    }

    static func runOne(_ trace: Trace, printLog: Bool, command: String) -> Int32 {
        runOne(trace, printLog: printLog, command: command, measure: nil).status
    }

    /// Runs `trace`; with `measure` (a sample interval), measures it too.
    static func runOne(_ trace: Trace, printLog: Bool, command: String, measure: UInt64?) -> (status: Int32, measurements: SeedMeasurements?) {
        let clock = ContinuousClock()
        let start = clock.now
        let simulation = Simulation(trace: trace, keepsLines: false, lineSink: printLog ? { out($0) } : nil)
        if let measure { simulation.meter = Meter(peerCount: trace.parameters.replicaCount, sampleIntervalMilliseconds: measure) }
        let result = simulation.run()
        let measurements = simulation.meter?.measurements(for: result)
        let elapsed = clock.now - start
        let secondsTaken = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        out(SwarmRunner.line(for: result, seconds: secondsTaken))
        if let violation = result.violation {
            out(SwarmRunner.failureReport(violation, seed: trace.parameters.seed, command: command))
            return (1, measurements)
        }
        return (0, measurements)
    }

    /// Writes `file` where the invocation asks (`--measure FILE`, `--report DIR`); the exit
    /// status (2 when a file could not be written).
    static func writeMeasurements(_ file: MeasurementFile, _ invocation: Invocation) -> Int32 {
        let file = invocation.compact ? file.compacted() : file
        let json = file.json.text
        do {
            if let path = invocation.measurePath {
                try json.write(toFile: path, atomically: true, encoding: .utf8)
            }
            if let directory = invocation.reportDirectory {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let folder = URL(fileURLWithPath: directory)
                try json.write(to: folder.appendingPathComponent("measurements.json"), atomically: true, encoding: .utf8)
                try MeasurementReport.html(file).write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
            }
        } catch {
            err("cannot write the measurements: \(error.localizedDescription)")
            return 2
        }
        return 0
    }

    /// `--sweep KEY=V1,V2,...`: the seeds once per value, each into DIR/KEY=V/, and a page
    /// comparing them.
    static func sweep(_ invocation: Invocation) -> Int32 {
        guard let key = invocation.sweepKey, let scenario = invocation.scenario, let directory = invocation.reportDirectory else { return 2 }
        var runs: [(label: String, file: MeasurementFile)] = []
        var failed = false
        for label in invocation.sweepValues {
            guard let variant = scenario.sweeping(key, value: label) else { return 2 }
            out("\(key)=\(label)")
            var part = invocation
            part.scenario = variant
            part.sweepKey = nil
            part.setting = (key, label)
            part.reportDirectory = URL(fileURLWithPath: directory).appendingPathComponent("\(key)=\(label)").path
            var runner = SwarmRunner(options: part.options, timeLimitSeconds: part.timeLimit) { out($0) }
            runner.printsEveryRun = !part.quiet
            runner.seedsMin = part.seedsMin
            runner.jobs = part.jobs
            runner.traceForSeed = { variant.trace(seed: $0) }
            runner.commandSuffix = part.scenarioSuffix
            runner.measureSampleIntervalMilliseconds = part.sampleIntervalMilliseconds ?? Meter.defaultSampleIntervalMilliseconds
            runner.compactsMeasurements = part.compact
            let summary = runner.run(seeds: part.seeds)
            failed = failed || !summary.failures.isEmpty
            var unset = part
            unset.setting = nil
            let file = MeasurementFile(options: unset.measuredOptions + " --sweep \(key)=\(label)", seeds: summary.measurements, replicaNames: part.replicaNames)
            let written = writeMeasurements(file, part)
            if written != 0 { return written }
            runs.append((label, file))
        }
        do {
            try MeasurementReport.sweepHTML(key: key, runs: runs).write(
                to: URL(fileURLWithPath: directory).appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        } catch {
            err("cannot write the sweep's page: \(error.localizedDescription)")
            return 2
        }
        return failed ? 1 : 0
    }

    /// `memo-sim merge PATH...`: one measurements file (and report) from the files of parts of
    /// a seed range.
    static func merge(_ invocation: Invocation) -> Int32 {
        var files: [MeasurementFile] = []
        for input in invocation.mergeInputs ?? [] {
            var isDirectory: ObjCBool = false
            var path = input
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue {
                path = URL(fileURLWithPath: input).appendingPathComponent("measurements.json").path
            }
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                err("cannot read \(path): \(error.localizedDescription)")
                return 2
            }
            do throws(MeasurementFileError) {
                files.append(try MeasurementFile(parsing: text))
            } catch {
                err("\(path): \(error)")
                return 2
            }
        }
        var merged: MeasurementFile
        do throws(MeasurementFileError) {
            merged = try MeasurementFile.merged(files)
        } catch {
            err("cannot merge: \(error)")
            return 2
        }
        if invocation.compact { merged = merged.compacted() }
        let status = writeMeasurements(merged, invocation)
        if status == 0 {
            let totals = merged.totals
            out("merged \(files.count) files: seeds=\(totals.seeds) failures=\(totals.failures) arrivals=\(totals.arrival.count) p50=\(totals.arrival.p50)ms p99=\(totals.arrival.p99)ms")
        }
        return status
    }

    static func shrinkRun(_ trace: Trace, path: String, timeLimit: Double) -> Int32 {
        let seed = trace.parameters.seed
        // Candidates run in child processes, so that one crashing the process (a precondition
        // in the engine) ends only that run.
        let failure: String
        switch ChildRun.outcome(trace) {
        case .passed:
            out("seed \(seed) does not fail: nothing to shrink")
            return 2
        case .crashed:
            out("seed \(seed) crashes the process")
            failure = "crash"
        case let .violated(invariant):
            out("seed \(seed) breaks \(invariant)")
            failure = invariant
        }
        out("shrinking (at most \(Int(timeLimit)) s)...")
        var shrinker = Shrinker(failureName: failure) { candidate in
            switch ChildRun.outcome(candidate) {
            case .passed: false
            case .crashed: failure == "crash"
            case let .violated(invariant): invariant == failure
            }
        }
        shrinker.secondsMax = timeLimit
        shrinker.progress = { out("  \($0)") }
        guard let small = shrinker.shrink(trace) else {
            out("the failure did not reproduce")
            return 2
        }
        var header = "# shrunk from seed \(seed) (\(trace.parameters.replicaCount) replicas, \(trace.events.count) events)\n"
        if failure != "crash", let violation = Simulation(trace: small).run().violation {
            header += "# \(violation.description.replacingOccurrences(of: "\n", with: " "))\n"
        }
        do {
            try (header + small.text).write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            err("cannot write \(path): \(error)")
            return 2
        }
        out("wrote \(path): \(small.parameters.replicaCount) replicas, \(small.events.count) events")
        out("replay: memo-sim --replay \(path) --log")
        return 1
    }
}

/// Runs a trace in a child `memo-sim --replay` and reports how it ended.
enum ChildRun {
    enum Outcome: Equatable {
        case passed
        case violated(String)
        case crashed
    }

    static func outcome(_ trace: Trace) -> Outcome {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("memo-sim-child-\(getpid()).trace").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            try trace.text.write(toFile: path, atomically: true, encoding: .utf8)
            let process = Process()
            #if os(Linux)
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            #else
            process.executableURL = Bundle.main.executableURL
            #endif
            process.arguments = ["--replay", path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            process.environment = environment
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { return .crashed }
            guard let range = output.range(of: " FAIL ") else { return .passed }
            let invariant = output[range.upperBound...].prefix { $0 != " " && $0 != "\n" }
            return .violated(String(invariant))
        } catch {
            return .passed
        }
    }
}
