import Dispatch
import Foundation
import Synchronization

/// Runs many seeds and sums them up: a summary line per run, the details of each failure
/// (seed, invariant, replicas, a command that replays it), and a final line with seeds run,
/// failures, simulated edits per second and simulated time per real second.
///
/// Seeds are independent, so ``jobs`` of them may run at once, each on a thread of its own
/// with a world of its own; what the runner prints and returns is in seed order and the same
/// whatever the number of jobs (only the seconds each line reports differ).
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
    /// How many seeds run at once (at least 1).
    public var jobs = 1

    /// The default for ``jobs``: one per processor this process may use.
    public static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

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

    /// Runs `seeds`, in order with one job; with more, several at once, reported in order.
    public func run(seeds: ClosedRange<UInt64>) -> Summary {
        var summary = Summary()
        let clock = ContinuousClock()
        let start = clock.now
        let claims = SeedClaims(seeds: seeds, timeLimitSeconds: timeLimitSeconds, seedsMin: seedsMin, start: start)
        let jobCount = max(1, min(jobs, seeds.count))
        let options = options
        let traceForSeed = traceForSeed
        let measureSampleIntervalMilliseconds = measureSampleIntervalMilliseconds
        let compactsMeasurements = compactsMeasurements
        let work: @Sendable () -> Void = {
            while let seed = claims.claim() {
                let trace = traceForSeed?(seed) ?? Trace.generate(seed: seed, options: options)
                let runStart = ContinuousClock.now
                let simulation = Simulation(trace: trace, keepsLines: false)
                if let interval = measureSampleIntervalMilliseconds {
                    simulation.meter = Meter(peerCount: trace.parameters.replicaCount, sampleIntervalMilliseconds: interval)
                }
                let result = simulation.run()
                let measured = simulation.meter.map { compactsMeasurements ? $0.measurements(for: result).compacted() : $0.measurements(for: result) }
                claims.finish(seed, SeedRun(result: result, measurements: measured, seconds: seconds(ContinuousClock.now - runStart)))
            }
        }
        if jobCount == 1 {
            work()
        } else {
            for _ in 0..<jobCount {
                let thread = Thread(block: work)
                thread.stackSize = Self.jobStackBytes
                thread.start()
            }
        }
        var seed = seeds.lowerBound
        while let run = claims.next(seed) {
            let result = run.result
            if let measured = run.measurements { summary.measurements.append(measured) }
            summary.seedsRun += 1
            summary.edits += result.statistics.edits
            summary.characters += result.statistics.characters
            summary.simulatedMilliseconds += result.statistics.simulatedMilliseconds
            summary.sometimes.formUnion(result.sometimes)
            if printsEveryRun || result.violation != nil { output(Self.line(for: result, seconds: run.seconds)) }
            if let violation = result.violation {
                summary.failures.append(result)
                output(Self.failureReport(violation, seed: seed, command: options.commandLine(seed: seed) + commandSuffix))
            }
            if seed == seeds.upperBound { break }
            seed += 1
        }
        summary.stoppedAtTimeLimit = claims.stoppedAtTimeLimit
        summary.realSeconds = seconds(clock.now - start)
        output(Self.finalLine(summary))
        return summary
    }

    /// The stack each job's thread gets: the main thread's usual 8 MiB, and room beyond it.
    static let jobStackBytes = 64 << 20

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

/// One finished seed, waiting to be reported in order.
struct SeedRun: Sendable {
    var result: SimulationResult
    var measurements: SeedMeasurements?
    var seconds: Double
}

/// The seeds a runner's jobs take, in order, and the runs they finished. A seed is claimed
/// only while the time limit allows (or fewer than the minimum were claimed), so the seeds run
/// are always the first ones of the range, whatever the number of jobs.
final class SeedClaims: Sendable {
    private struct State {
        var nextSeed: UInt64?
        var claimed = 0
        var stoppedAtTimeLimit = false
        var finished: [UInt64: SeedRun] = [:]
    }
    private let state: Mutex<State>
    private let seeds: ClosedRange<UInt64>
    private let timeLimitSeconds: Double?
    private let seedsMin: Int
    private let start: ContinuousClock.Instant
    /// Signalled once per finished seed and once when the claims run out.
    private let signal = DispatchSemaphore(value: 0)

    init(seeds: ClosedRange<UInt64>, timeLimitSeconds: Double?, seedsMin: Int, start: ContinuousClock.Instant) {
        self.state = Mutex(State(nextSeed: seeds.lowerBound))
        self.seeds = seeds
        self.timeLimitSeconds = timeLimitSeconds
        self.seedsMin = seedsMin
        self.start = start
    }

    /// The next seed to run, or nil when none is left or the time limit is reached.
    func claim() -> UInt64? {
        let (seed, ranOut) = state.withLock { state -> (UInt64?, Bool) in
            guard let seed = state.nextSeed else { return (nil, false) }
            if let timeLimitSeconds, state.claimed >= seedsMin, seconds(ContinuousClock.now - start) >= timeLimitSeconds {
                state.stoppedAtTimeLimit = true
                state.nextSeed = nil
                return (nil, true)
            }
            state.claimed += 1
            state.nextSeed = seed == seeds.upperBound ? nil : seed + 1
            return (seed, state.nextSeed == nil)
        }
        if ranOut { signal.signal() }
        return seed
    }

    /// Hands in `seed`'s run.
    func finish(_ seed: UInt64, _ run: SeedRun) {
        state.withLock { $0.finished[seed] = run }
        signal.signal()
    }

    /// Waits for `seed`'s run and takes it; nil when `seed` was never claimed and never will be.
    func next(_ seed: UInt64) -> SeedRun? {
        while true {
            let (run, never) = state.withLock { state -> (SeedRun?, Bool) in
                if let run = state.finished.removeValue(forKey: seed) { return (run, false) }
                let claimedUpTo = seeds.lowerBound + UInt64(state.claimed)
                return (nil, state.nextSeed == nil && seed >= claimedUpTo)
            }
            if let run { return run }
            if never { return nil }
            signal.wait()
        }
    }

    /// Whether claims stopped at the time limit.
    var stoppedAtTimeLimit: Bool { state.withLock { $0.stoppedAtTimeLimit } }
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
