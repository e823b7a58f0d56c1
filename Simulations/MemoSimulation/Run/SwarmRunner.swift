/// Runs many seeds and sums them up: a summary line per run, the details of each failure
/// (seed, invariant, replicas, a command that replays it), and a final line with seeds run,
/// failures, simulated edits per second and simulated time per real second.
public struct SwarmRunner {
    /// What every run uses.
    public var options: SimulationOptions
    /// Stop starting new seeds after this many real seconds...
    public var timeLimitSeconds: Double?
    /// ...but not before this many seeds ran (a time-boxed run on a slow or busy machine still
    /// checks at least this much).
    public var seedsMin = 0
    /// Print a line per run (otherwise only failures and the final line).
    public var printsEveryRun = true
    /// Receives each line of output.
    public var output: (String) -> Void
    /// Makes each seed's trace (a scenario's); nil: `Trace.generate` with ``options``.
    public var traceForSeed: (@Sendable (UInt64) -> Trace)?
    /// Added to the command that replays a failing seed (a scenario's `--scenario FILE`).
    public var commandSuffix = ""
    /// Measure every run (``Meter``), sampling the store at this interval; nil: no measuring.
    public var measureSampleIntervalMilliseconds: UInt64?
    /// Keep each run's measurements in the compact form (``SeedMeasurements/compacted()``), so
    /// that a study of very many seeds holds only totals and histograms.
    public var compactsMeasurements = false

    /// A runner.
    public init(options: SimulationOptions, timeLimitSeconds: Double? = nil, output: @escaping (String) -> Void) {
        self.options = options
        self.timeLimitSeconds = timeLimitSeconds
        self.output = output
    }

    /// What a batch found.
    public struct Summary: Sendable {
        public var seedsRun = 0
        public var failures: [SimulationResult] = []
        public var edits = 0
        public var characters = 0
        public var simulatedMilliseconds: UInt64 = 0
        public var realSeconds = 0.0
        public var sometimes: SometimesFlags = []
        /// Whether the batch stopped at the time limit.
        public var stoppedAtTimeLimit = false
        /// Each run's measurements, when measuring.
        public var measurements: [SeedMeasurements] = []

        /// Characters typed or deleted per real second.
        public var charactersPerSecond: Double { realSeconds > 0 ? Double(characters) / realSeconds : 0 }
        /// Simulated edits per real second.
        public var editsPerSecond: Double { realSeconds > 0 ? Double(edits) / realSeconds : 0 }
        /// Simulated seconds per real second.
        public var speedup: Double { realSeconds > 0 ? Double(simulatedMilliseconds) / 1_000 / realSeconds : 0 }
    }

    /// Runs `seeds` in order.
    public func run(seeds: ClosedRange<UInt64>) -> Summary {
        var summary = Summary()
        let clock = ContinuousClock()
        let start = clock.now
        var seed = seeds.lowerBound
        while true {
            if let timeLimitSeconds, summary.seedsRun >= seedsMin, seconds(clock.now - start) >= timeLimitSeconds {
                summary.stoppedAtTimeLimit = true
                break
            }
            let trace = traceForSeed?(seed) ?? Trace.generate(seed: seed, options: options)
            let runStart = clock.now
            let simulation = Simulation(trace: trace, keepsLines: false)
            if let interval = measureSampleIntervalMilliseconds {
                simulation.meter = Meter(peerCount: trace.parameters.replicaCount, sampleIntervalMilliseconds: interval)
            }
            let result = simulation.run()
            if let meter = simulation.meter {
                let measured = meter.measurements(for: result)
                summary.measurements.append(compactsMeasurements ? measured.compacted() : measured)
            }
            let elapsed = seconds(clock.now - runStart)
            summary.seedsRun += 1
            summary.edits += result.statistics.edits
            summary.characters += result.statistics.characters
            summary.simulatedMilliseconds += result.statistics.simulatedMilliseconds
            summary.sometimes.formUnion(result.sometimes)
            if printsEveryRun || result.violation != nil { output(Self.line(for: result, seconds: elapsed)) }
            if let violation = result.violation {
                summary.failures.append(result)
                output(Self.failureReport(violation, seed: seed, command: options.commandLine(seed: seed) + commandSuffix))
            }
            if seed == seeds.upperBound { break }
            seed += 1
        }
        summary.realSeconds = seconds(clock.now - start)
        output(Self.finalLine(summary))
        return summary
    }

    /// One run's summary line.
    public static func line(for result: SimulationResult, seconds: Double) -> String {
        let p = result.trace.parameters
        let s = result.statistics
        let faults = p.faults.keys.sorted().map(\.rawValue).joined(separator: ",")
        let outcome = result.violation.map { "FAIL \($0.invariant.rawValue)" } ?? "ok"
        return "seed=\(p.seed) engine=\(p.engine.rawValue) replicas=\(p.replicaCount) steps=\(p.steps) edits=\(s.edits) syncs=\(s.syncsFinished) "
            + "crashes=\(s.crashes) faults=\(faults.isEmpty ? "none" : faults) encrypted=\(Simulation.encrypts(seed: p.seed, engine: p.engine) ? "yes" : "no") sim=\(SimulatedTime.short(s.simulatedMilliseconds)) "
            + "store=\(result.storeBlobs)/\(result.storeBytes)B hash=\(EventLog.hex(result.hash)) \(outcome) (\(format(seconds, 3))s)"
    }

    /// What a failure prints: seed, invariant, replicas, what was found, the replay command.
    public static func failureReport(_ violation: SimulationViolation, seed: UInt64, command: String) -> String {
        """
        FAILURE seed=\(seed)
          invariant: \(violation.invariant.rawValue)
          replicas:  \(violation.peers.map { "r\($0)" }.joined(separator: ", "))
          at:        \(SimulatedTime.describe(violation.time))
          found:     \(violation.detail)
          replay:    \(command)
          shrink:    \(command) --shrink
        """
    }

    /// The batch's final line.
    public static func finalLine(_ summary: Summary) -> String {
        let reached = summary.sometimes.names
        let missing = SometimesFlags.named.filter { !summary.sometimes.contains($0.0) }.map(\.1)
        return "seeds=\(summary.seedsRun) failures=\(summary.failures.count) edits=\(summary.edits) "
            + "edits/s=\(Int(summary.editsPerSecond)) chars/s=\(Int(summary.charactersPerSecond)) sim-time/real-time=\(Int(summary.speedup))x "
            + "real=\(format(summary.realSeconds, 1))s\(summary.stoppedAtTimeLimit ? " (time limit)" : "") "
            + "reached=[\(reached.joined(separator: "; "))] never=[\(missing.joined(separator: "; "))]"
    }
}

func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
}

/// `value` with `decimals` digits after the point.
func format(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    var fraction = String(abs(scaled % Int(scale)))
    while fraction.count < decimals { fraction = "0" + fraction }
    return decimals == 0 ? "\(whole)" : "\(whole).\(fraction)"
}
