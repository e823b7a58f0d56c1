#if MEMOSYNC_MUTANTS
import MemoCRDT
import MemoSimulation
import Testing

/// Proof that the harness can fail (issue 5): each deliberately broken engine (`EngineMutant`,
/// debug builds only) is found within a stated number of seeds, by the invariant family that
/// should catch it, and the seed that finds it passes with the real engine (so it is the
/// mutant being found, not noise). The table of mutants, invariants and seeds measured is in
/// Simulations/README.md, "Proof that it can fail".
///
/// Like the other swarms here, runs exclude the features with known open engine findings
/// (`clone`, `old-copy`).
@Suite struct MutantTests {
    /// How to look for one mutant: seeds 1...`seeds` with `options`, expecting a violation of
    /// one of `expected`.
    struct Plan {
        var seeds: UInt64
        var options: SimulationOptions
        var expected: [Invariant]
        /// Changes to each seed's drawn parameters (a fault's rate raised), if any.
        var adjust: (@Sendable (inout SimulationParameters) -> Void)? = nil
    }

    static func options(steps: Int, replicas: Int, faults: FaultSelection = .swarm) -> SimulationOptions {
        var options = SimulationOptions(replicaCount: replicas, steps: steps, faults: faults)
        options.withoutFeatures = [.clone]
        options.withoutFaults = [.restoreOldCopy]
        return options
    }

    /// Short runs on 4 replicas, every fault and feature drawn per seed.
    static let swarm = options(steps: 150, replicas: 4)
    /// Crashes only, longer runs: the durability mutants need a crash after a save.
    static let crashes = options(steps: 300, replicas: 3, faults: .only([.crash]))
    /// Crashes only, on four replicas and longer still: a reopen from a state list needs a
    /// compaction before the crash (seeds 1...6 write lists: `SimulationParameters.stateListMinimumBytes`).
    static let crashesAfterCompactions = options(steps: 600, replicas: 4, faults: .only([.crash]))
    /// Transient store errors only: the mutant needs a failed segment write.
    static let transientErrors = options(steps: 300, replicas: 4, faults: .only([.transientErrors]))
    /// Crashes and the torn-disk fault (whose bit rot damages a synced journal record).
    static let damagedJournals = options(steps: 300, replicas: 3, faults: .only([.crash, .tornDisk]))
    /// The key-blob fault only (it acts in the encrypted half of the seeds).
    static let keyBlobs = options(steps: 300, replicas: 4, faults: .only([.keyBlob]))

    /// The stated number of seeds per mutant (measured: Simulations/README.md).
    static func plan(_ mutant: EngineMutant) -> Plan {
        switch mutant {
        // Since decoders check that a state is what its own history gives (issue 25), a snapshot
        // this mutant wrote is refused by its readers (engine) before texts diverge.
        // (`.cursor` too: where texts are turned back at saves, a text decoded again orders
        // the mutant's items by their origins, and a caret on them moves.)
        case .tieBreakByLocalIndex: Plan(seeds: 5, options: swarm, expected: [.convergence, .quiescence, .engine, .cursor])
        // The state decoder checks an insertion's place against its origins: a snapshot the
        // mutant wrote may be refused by every reader (engine) before texts diverge.
        case .siblingsIgnoreRightOrigin: Plan(seeds: 10, options: swarm, expected: [.convergence, .nonInterleaving, .quiescence, .engine])
        case .deleteForgetsID:
            Plan(seeds: 5, options: swarm, expected: [.engine, .intention, .causality, .convergence, .deletedStaysDeleted, .durability])
        case .deltaOmitsOperation: Plan(seeds: 5, options: swarm, expected: [.engine, .durability, .convergence])
        // Since insertions older than their origins are refused, honest replicas may hold the
        // mutant's operations back for good instead of applying them (quiescence).
        case .lamportNotObserved: Plan(seeds: 5, options: swarm, expected: [.causality, .engine, .quiescence])
        case .eventsOmitRemoteDeletions: Plan(seeds: 5, options: swarm, expected: [.events, .intention])
        case .cursorIgnoresRemoteInserts: Plan(seeds: 5, options: swarm, expected: [.cursor])
        case .gcWithoutGracePeriod: Plan(seeds: 5, options: swarm, expected: [.collection])
        case .gcNeverCollects: Plan(seeds: 5, options: swarm, expected: [.bounded])
        case .skippedFsync: Plan(seeds: 5, options: crashes, expected: [.durability])
        case .recoveryDropsLastRecord: Plan(seeds: 5, options: crashes, expected: [.durability])
        case .recoveryCutsAtDamage: Plan(seeds: 5, options: damagedJournals, expected: [.durability])
        // Transient errors at the top of their drawn range (one store operation in seven
        // fails) and snapshots as rare as a seed draws them (each one heals the mutant's loss):
        // 13 of seeds 1...20 find it, the first at 2 (as drawn, 2 of 1...60 did, the first 25).
        case .publishCountsFailedWrite:
            Plan(seeds: 10, options: transientErrors, expected: [.convergence, .quiescence]) { parameters in
                parameters.faults[.transientErrors] = 0.15
                parameters.snapshotAfterSegments = 64
                parameters.snapshotEveryOperations = 20_000
            }
        case .encryptedLibrarySyncsPlain: Plan(seeds: 20, options: keyBlobs, expected: [.plaintext])
        case .retentionSkipsCompaction: Plan(seeds: 10, options: swarm, expected: [.durability])
        case .stateListTextCut: Plan(seeds: 5, options: crashesAfterCompactions, expected: [.durability])
        }
    }

    func run(seed: UInt64, _ options: SimulationOptions, adjust: (@Sendable (inout SimulationParameters) -> Void)? = nil) -> SimulationResult {
        var parameters = SimulationParameters.draw(seed: seed, options: options)
        adjust?(&parameters)
        return Simulation(trace: Trace.generate(parameters: parameters)).run()
    }

    @Test(arguments: EngineMutant.allCases)
    func theHarnessFindsTheMutant(_ mutant: EngineMutant) {
        let plan = Self.plan(mutant)
        var options = plan.options
        options.mutant = mutant.rawValue
        var found: (seed: UInt64, violation: SimulationViolation)?
        for seed in 1...plan.seeds {
            if let violation = run(seed: seed, options, adjust: plan.adjust).violation {
                found = (seed, violation)
                break
            }
        }
        guard let found else {
            Issue.record("mutant \(mutant.rawValue) was not found in seeds 1...\(plan.seeds)")
            return
        }
        print("mutant \(mutant.rawValue): found by seed \(found.seed) of 1...\(plan.seeds): \(found.violation)")
        #expect(
            plan.expected.contains(found.violation.invariant),
            "mutant \(mutant.rawValue), seed \(found.seed): expected \(plan.expected.map(\.rawValue)), got \(found.violation)")
        // The control: the same seed with the real engine passes.
        let control = run(seed: found.seed, plan.options, adjust: plan.adjust)
        #expect(
            control.violation == nil,
            "seed \(found.seed) fails without the mutant too: \(control.violation.map(\.description) ?? "")")
    }

    @Test(arguments: Array(1...3) as [UInt64])
    func withoutAMutantTheFirstSeedsPass(seed: UInt64) {
        let result = run(seed: seed, Self.swarm)
        #expect(result.violation == nil, "seed \(seed): \(result.violation.map(\.description) ?? "")")
    }

    /// README and Simulations/README.md: `--shrink` makes a failing run small, as a trace that
    /// replays the failure. A seed a broken engine fails, shrunk: fewer events, the same broken
    /// invariant when the trace's text is parsed and run again, and the real engine passes it.
    @Test func aFailingRunShrinksToASmallerTraceThatFailsTheSameWay() throws {
        var options = Self.swarm
        options.mutant = EngineMutant.deltaOmitsOperation.rawValue
        var failing: (trace: Trace, violation: SimulationViolation)?
        for seed in 1...Self.plan(.deltaOmitsOperation).seeds {
            let trace = Trace.generate(seed: seed, options: options)
            if let violation = Simulation(trace: trace).run().violation {
                failing = (trace, violation)
                break
            }
        }
        let (trace, violation) = try #require(failing, "no seed broke the engine")
        var shrinker = Shrinker(invariant: violation.invariant)
        shrinker.runsMax = 400
        let small = try #require(shrinker.shrink(trace))
        #expect(small.events.count < trace.events.count, "\(small.events.count) of \(trace.events.count) events")
        #expect(small.parameters.replicaCount <= trace.parameters.replicaCount)
        let replayed = try Trace(parsing: small.text)
        #expect(Simulation(trace: replayed).run().violation?.invariant == violation.invariant)
        var control = replayed
        control.parameters.mutant = nil
        let real = Simulation(trace: control).run()
        #expect(real.violation == nil, "the shrunk trace fails the real engine too: \(real.violation.map(\.description) ?? "")")
    }

    @Test func aMutantIsRecordedInTheTraceAndReplays() throws {
        var options = Self.swarm
        options.mutant = EngineMutant.cursorIgnoresRemoteInserts.rawValue
        let trace = Trace.generate(seed: 1, options: options)
        #expect(trace.text.contains("mutant cursor-ignores-remote-inserts"))
        let parsed = try Trace(parsing: trace.text)
        #expect(parsed.parameters.mutant == options.mutant)
        let first = Simulation(trace: trace).run()
        #expect(first.violation?.invariant == .cursor)
        #expect(Simulation(trace: parsed).run().hash == first.hash)
        #expect(throws: TraceParseError.self) { try Trace(parsing: trace.text.replacingOccurrences(of: "mutant cursor", with: "mutant nonsense")) }
    }

    @Test func memoSimRunsAMutant() throws {
        let command = CommandLineTests()
        let found = try command.run(["--mutant", "gc-without-grace-period", "--seed", "2", "--steps", "150", "--replicas", "4", "--without", "clone,old-copy"])
        #expect(found.status == 1)
        #expect(found.output.contains("FAIL collection"))
        #expect(found.output.contains("--mutant gc-without-grace-period"), "the replay command names the mutant")
        #expect(try command.run(["--mutant", "nonsense", "--seed", "1"]).status == 2)
    }

    @Test func aMutantIsActiveOnlyInsideItsRun() {
        #expect(EngineMutant.active == nil)
        var options = Self.swarm
        options.mutant = EngineMutant.gcWithoutGracePeriod.rawValue
        _ = run(seed: 1, options)
        #expect(EngineMutant.active == nil)
    }
}
#endif
