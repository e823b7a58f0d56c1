import Foundation
import MemoSimulation

/// `memo-sim`: runs the deterministic simulation from the command line.
enum MemoSimCommand {
    static let usage = """
        usage: memo-sim [--seed S | --seeds A..B] [options]
               memo-sim --replay FILE [--log]
               memo-sim --seed S [options] --shrink [--out FILE]
               memo-sim --replay FILE --shrink [--out FILE]

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
          --quiet             print failures and the final line only
          --log               print the run's event log (with --seed or --replay)
          --trace-out FILE    write the run's trace (with --seed)
          --shrink            make a failing run smaller and write it as a trace (--out FILE,
                              default memo-sim-SEED.trace)
          --replay FILE       run a trace written by --shrink or --trace-out
          --without LIST      never turn on these faults (names above) or workload features:
                              \(WorkloadFeature.allCases.map(\.rawValue).joined(separator: ","))
          --check-every P     compare whole texts after a share P of local actions (default 1)
          --mutant NAME       run a deliberately broken engine (debug builds with MEMOSYNC_SELF_CHECKS=1): \(mutantList)
        """

    static let mutantList = SimulationParameters.availableMutants.isEmpty
        ? "none in this build" : SimulationParameters.availableMutants.joined(separator: ",")

    static func main(_ arguments: [String]) -> Int32 {
        var options = SimulationOptions()
        var seeds: ClosedRange<UInt64> = 1...1
        var timeLimit: Double?
        var quiet = false
        var printLog = false
        var shrink = false
        var replayPath: String?
        var traceOut: String?
        var shrinkOut: String?
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        func bad(_ message: String) -> Int32 {
            err("\(message)\n\n\(usage)")
            return 2
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--seed":
                guard let text = value(), let seed = UInt64(text) else { return bad("--seed needs a number") }
                seeds = seed...seed
            case "--seeds":
                guard let text = value() else { return bad("--seeds needs A..B") }
                let parts = text.split(separator: ".", omittingEmptySubsequences: true)
                guard parts.count == 2, let low = UInt64(parts[0]), let high = UInt64(parts[1]), low <= high, text.contains("..") else {
                    return bad("--seeds needs A..B with A <= B")
                }
                seeds = low...high
            case "--replicas":
                guard let text = value(), let count = Int(text), (2...64).contains(count) else { return bad("--replicas needs 2 to 64") }
                options.replicaCount = count
            case "--steps":
                guard let text = value(), let steps = Int(text), (1...100_000_000).contains(steps) else { return bad("--steps needs a positive number") }
                options.steps = steps
            case "--faults":
                guard let text = value(), let faults = FaultSelection(parsing: text) else { return bad("--faults needs none, all, swarm or a list of fault names") }
                options.faults = faults
            case "--engine":
                guard let text = value(), let engine = EngineLevel(rawValue: text) else { return bad("--engine needs replica or notebook") }
                options.engine = engine
            case "--time-limit":
                guard let text = value(), let seconds = Double(text), seconds > 0 else { return bad("--time-limit needs a number of seconds") }
                timeLimit = seconds
            case "--check-every":
                guard let text = value(), let share = Double(text), (0...1).contains(share) else { return bad("--check-every needs 0 to 1") }
                options.intentionCheckProbability = share
            case "--without":
                guard let text = value() else { return bad("--without needs a list of features and faults") }
                for name in text.split(separator: ",").map(String.init) {
                    if let feature = WorkloadFeature(rawValue: name) {
                        options.withoutFeatures.append(feature)
                    } else if let fault = FaultKind(rawValue: name) {
                        options.withoutFaults.append(fault)
                    } else {
                        return bad("unknown feature or fault \(name)")
                    }
                }
            case "--mutant":
                guard let text = value() else { return bad("--mutant needs a name") }
                if SimulationParameters.availableMutants.isEmpty {
                    err("mutants exist only in debug builds with self-checks (MEMOSYNC_SELF_CHECKS=1 swift build --product memo-sim)")
                    return 2
                }
                if let problem = SimulationParameters.mutantProblem(text) { return bad(problem) }
                options.mutant = text
            case "--quiet": quiet = true
            case "--log": printLog = true
            case "--shrink": shrink = true
            case "--replay":
                guard let path = value() else { return bad("--replay needs a file") }
                replayPath = path
            case "--trace-out":
                guard let path = value() else { return bad("--trace-out needs a file") }
                traceOut = path
            case "--out":
                guard let path = value() else { return bad("--out needs a file") }
                shrinkOut = path
            case "--help", "-h":
                out(usage)
                return 0
            default:
                return bad("unknown argument \(argument)")
            }
            index += 1
        }

        if let replayPath {
            let text: String
            do {
                text = try String(contentsOfFile: replayPath, encoding: .utf8)
            } catch {
                err("cannot read \(replayPath): \(error)")
                return 2
            }
            let trace: Trace
            do throws(TraceParseError) {
                trace = try Trace(parsing: text)
            } catch {
                err("\(replayPath): \(error)")
                return 2
            }
            if shrink {
                return shrinkRun(trace, path: shrinkOut ?? replayPath + ".small", timeLimit: timeLimit ?? 600)
            }
            let code = runOne(trace, printLog: printLog, command: "memo-sim --replay \(replayPath)")
            if let expected = trace.expectedFailure {
                out(code == 1 ? "the trace fails as expected (\(expected))" : "the trace was expected to fail (\(expected)) and did not")
            }
            return code
        }

        if shrink {
            let seed = seeds.lowerBound
            let trace = Trace.generate(seed: seed, options: options)
            let path = shrinkOut ?? "memo-sim-\(seed).trace"
            return shrinkRun(trace, path: path, timeLimit: timeLimit ?? 600)
        }

        if seeds.count == 1 && (printLog || traceOut != nil) {
            let trace = Trace.generate(seed: seeds.lowerBound, options: options)
            if let traceOut {
                do {
                    try trace.text.write(toFile: traceOut, atomically: true, encoding: .utf8)
                } catch {
                    err("cannot write \(traceOut): \(error)")
                    return 2
                }
            }
            return runOne(trace, printLog: printLog, command: options.commandLine(seed: seeds.lowerBound))
        }

        var runner = SwarmRunner(options: options, timeLimitSeconds: timeLimit) { out($0) }
        runner.printsEveryRun = !quiet
        let summary = runner.run(seeds: seeds)
        let missing = SometimesFlags.required.subtracting(summary.sometimes)
        if summary.seedsRun >= 200 && options.faults != .none && options.engine == .replica && !missing.isEmpty {
            out("SOMETIMES FAILURE: in \(summary.seedsRun) seeds no run reached: \(missing.names.joined(separator: "; "))")
            return 1
        }
        return summary.failures.isEmpty ? 0 : 1
    }

    static func runOne(_ trace: Trace, printLog: Bool, command: String) -> Int32 {
        let clock = ContinuousClock()
        let start = clock.now
        let simulation = Simulation(trace: trace, keepsLines: false, lineSink: printLog ? { out($0) } : nil)
        let result = simulation.run()
        let elapsed = clock.now - start
        let secondsTaken = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        out(SwarmRunner.line(for: result, seconds: secondsTaken))
        if let violation = result.violation {
            out(SwarmRunner.failureReport(violation, seed: trace.parameters.seed, command: command))
            return 1
        }
        return 0
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
