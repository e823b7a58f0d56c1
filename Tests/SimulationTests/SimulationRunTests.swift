import MemoCRDT
import MemoSimulation
import Testing

/// Whole runs: determinism, replay from a trace, swarms that pass, and the "sometimes" checks.
/// Every workload feature and fault is in play, library copies and old backups included.
@Suite struct SimulationRunTests {
    func options(steps: Int, replicas: Int? = nil, faults: FaultSelection = .swarm, engine: EngineLevel = .replica) -> SimulationOptions {
        SimulationOptions(replicaCount: replicas, steps: steps, faults: faults, engine: engine)
    }

    func run(_ trace: Trace) -> SimulationResult {
        Simulation(trace: trace).run()
    }

    @Test(arguments: [3, 17, 40] as [UInt64])
    func aSeedRunsTheSameTwice(seed: UInt64) {
        let trace = Trace.generate(seed: seed, options: options(steps: 150, replicas: 4, faults: .all))
        let first = run(trace)
        let second = run(Trace.generate(seed: seed, options: options(steps: 150, replicas: 4, faults: .all)))
        #expect(first.hash == second.hash, "seed \(seed)")
        #expect(first.statistics == second.statistics, "seed \(seed)")
    }

    /// Decodes shared within a world (a state's history check, text bodies and snapshots
    /// decoded once for every replica, texts kept as what their own bodies decode to) change
    /// nothing a run does: the same hash with and without them, with every fault on, with no
    /// text kept decoded (every save turns texts back) and with the default.
    @Test(arguments: [(5, 0), (12, 1_000)] as [(UInt64, Int)])
    func sharedDecodesChangeNothing(seed: UInt64, decodedTexts: Int) {
        var options = options(steps: 300, replicas: 5, faults: .all)
        options.decodedTextLimit = decodedTexts
        let trace = Trace.generate(seed: seed, options: options)
        let shared = Simulation(trace: trace).run()
        let alone = Simulation(trace: trace)
        alone.sharesDecodes = false
        let aloneResult = alone.run()
        #expect(shared.violation == nil && aloneResult.violation == nil, "seed \(seed)")
        #expect(shared.hash == aloneResult.hash, "seed \(seed)")
        #expect(shared.statistics.syncsFinished > 0, "seed \(seed): the run syncs")
    }

    @Test func aTraceReadBackReplaysTheSameRun() throws {
        let trace = Trace.generate(seed: 8, options: options(steps: 150, replicas: 3, faults: .all))
        let parsed = try Trace(parsing: trace.text)
        #expect(parsed == trace)
        #expect(run(parsed).hash == run(trace).hash)
    }

    /// A run's decoded-text limit set by `--decoded-texts` is written to its trace and read back;
    /// a bad one is a typed error.
    @Test func aTraceKeepsItsDecodedTextLimit() throws {
        var trace = Trace.generate(seed: 8, options: options(steps: 50, replicas: 3, faults: .all))
        trace.parameters.decodedTextLimitOverride = 0
        #expect(trace.text.contains("\ndecoded-texts 0\n"))
        let parsed = try Trace(parsing: trace.text)
        #expect(parsed.parameters.decodedTextLimitOverride == 0)
        #expect(parsed == trace)
        let bad = trace.text.replacingOccurrences(of: "\ndecoded-texts 0\n", with: "\ndecoded-texts -3\n")
        #expect(throws: TraceParseError.self) { try Trace(parsing: bad) }
    }

    @Test func badTracesAreTypedErrors() {
        for text in ["", "nonsense", "memo-sim trace 1\nreplicas 99\n", "memo-sim trace 1\nseed 1\nevents\n12 r0 dance\n",
            "memo-sim trace 1\nseed x\n", "memo-sim trace 1\nfault delay -1\n"]
        {
            #expect(throws: TraceParseError.self) { try Trace(parsing: text) }
        }
    }

    @Test func differentSeedsRunDifferently() {
        let a = run(Trace.generate(seed: 1, options: options(steps: 100, replicas: 3)))
        let b = run(Trace.generate(seed: 2, options: options(steps: 100, replicas: 3)))
        #expect(a.hash != b.hash)
    }

    @Test(arguments: Array(1...5) as [UInt64])
    func aSmallSwarmPasses(seed: UInt64) {
        let result = run(Trace.generate(seed: seed, options: options(steps: 250, replicas: 2 + Int(seed % 4))))
        #expect(result.violation == nil, "seed \(seed): \(result.violation.map(\.description) ?? "")")
        #expect(result.statistics.edits > 0)
    }

    @Test(arguments: Array(1...4) as [UInt64])
    func aNotebookLevelSwarmPasses(seed: UInt64) {
        let result = run(Trace.generate(seed: seed, options: options(steps: 400, replicas: 3 + Int(seed), engine: .notebook)))
        #expect(result.violation == nil, "seed \(seed): \(result.violation.map(\.description) ?? "")")
    }

    @Test func aBatchReachesTheInterestingStates() {
        // Crashes, late joins, concurrent typing and trash/purge racing edits, on 5 replicas:
        // the union over a few seeds must reach every state the issue lists. (Violations are
        // the other tests' business; this one asks only whether the runs went anywhere
        // interesting.)
        var reached: SometimesFlags = []
        var seed: UInt64 = 100
        while seed < 130 && !reached.isSuperset(of: SometimesFlags.required) {
            let options = options(steps: 400, replicas: 5, faults: .only([.crash, .delayedVisibility]))
            reached.formUnion(run(Trace.generate(seed: seed, options: options)).sometimes)
            seed += 1
        }
        #expect(reached.isSuperset(of: SometimesFlags.required), "never reached: \(SometimesFlags.required.subtracting(reached).names)")
    }
}

/// Encryption in the simulator (issue 16): half the seeds encrypt; their faults hit ciphertext.
@Suite struct EncryptedSimulationTests {
    @Test func someSeedsEncryptAndTheirRunsPass() {
        let seeds = Array(1...12) as [UInt64]
        let encrypted = seeds.filter { Simulation.encrypts(seed: $0, engine: .replica) }
        #expect(!encrypted.isEmpty && encrypted.count < seeds.count, "seeds 1-12 all alike: \(encrypted)")
        var undecryptable = 0
        for seed in encrypted.prefix(4) {
            let options = SimulationOptions(replicaCount: 4, steps: 250, faults: .all, engine: .replica)
            let simulation = Simulation(trace: Trace.generate(seed: seed, options: options))
            #expect(simulation.isEncrypted)
            let result = simulation.run()
            #expect(result.violation == nil, "seed \(seed): \(result.violation.map(\.description) ?? "")")
            undecryptable += result.statistics.undecryptableReads
        }
        // The faults (torn reads, stale copies) met ciphertext that did not open, and the runs passed.
        #expect(undecryptable > 0, "no encrypted run met a blob that did not open")
    }

    /// Issue 25: junk files named like blobs of replicas nobody has (and other names) appear in
    /// the store; the runs pass, the junk oracle included (a quiet sync reads no junk and no
    /// snapshot, and writes nothing).
    @Test func junkInTheStoreCostsAQuietSyncNothing() {
        var junkFiles = 0
        for seed in 1...3 as ClosedRange<UInt64> {
            let options = SimulationOptions(replicaCount: 4, steps: 300, faults: .only([.junkNames, .crash]), engine: .replica)
            let trace = Trace.generate(seed: seed, options: options)
            #expect(trace.parameters.rate(.junkNames) > 0)
            let result = Simulation(trace: trace).run()
            #expect(result.violation == nil, "seed \(seed): \(result.violation.map(\.description) ?? "")")
            junkFiles += result.statistics.junkFiles
        }
        #expect(junkFiles > 0)
    }

    /// Issue 25: the store's operator deletes and swaps the key blob; the libraries put theirs
    /// back, refuse another library's, and the engine refuses every plain sync (the plaintext
    /// invariant holds: no plain blob is ever written).
    @Test func theOperatorsKeyBlobFaultNeverGetsAPlainBlobWritten() {
        var totals = SimulationStatistics()
        var reached: SometimesFlags = []
        for seed in (1...12 as ClosedRange<UInt64>).filter({ Simulation.encrypts(seed: $0, engine: .replica) }).prefix(4) {
            let options = SimulationOptions(replicaCount: 4, steps: 300, faults: .only([.keyBlob, .storeLoss, .crash]), engine: .replica)
            let result = Simulation(trace: Trace.generate(seed: seed, options: options)).run()
            #expect(result.violation == nil, "seed \(seed): \(result.violation.map(\.description) ?? "")")
            totals.keyBlobsRepublished += result.statistics.keyBlobsRepublished
            totals.keyBlobRefusals += result.statistics.keyBlobRefusals
            totals.plainSyncsRefused += result.statistics.plainSyncsRefused
            reached.formUnion(result.sometimes)
        }
        #expect(totals.keyBlobsRepublished > 0 && totals.plainSyncsRefused > 0 && totals.keyBlobRefusals > 0, "\(totals)")
        #expect(reached.contains(.keyBlobRepublished))
    }
}
