import MemoSimulation
import Testing

/// Every fault the simulator offers strikes when it is on, and none strikes when it is off:
/// a fault that silently stopped firing (a rate read from the wrong key, a condition that
/// never holds) would leave the swarm proving convergence without it.
@Suite struct FaultsFireTests {
    /// Faults that only strike beside another: the torn disk tears files and rots records
    /// when a replica crashes.
    static func companions(of kind: FaultKind) -> [FaultKind] {
        kind == .tornDisk ? [.crash] : []
    }

    /// Each fault alone (with its companions), on short runs of three replicas: the first of
    /// seeds 1...8 where it struck ends the search. Faults the script schedules have their
    /// weight raised to 3 (their drawn rates are as low as 0.02), the rarer store faults strike
    /// one event in five (drawn: as few as one in 500), and the store is never lost after a
    /// replica left for good, so the runs stay short enough for a debug build.
    @Test(arguments: FaultKind.allCases)
    func aFaultThatIsOnStrikesAndNoOtherDoes(kind: FaultKind) {
        let selected = (Self.companions(of: kind) + [kind]).sorted()
        var options = SimulationOptions(replicaCount: 3, steps: 50, faults: .only(selected), engine: .replica)
        options.intentionCheckProbability = 0.05
        if kind == .storeLoss { options.withoutFeatures = [.leave] }
        var struckIn: UInt64?
        for seed in 1...8 as ClosedRange<UInt64> {
            var parameters = SimulationParameters.draw(seed: seed, options: options)
            for scheduled in [FaultKind.crash, .offline, .clockJumps, .restoreOldCopy, .storeFull, .storeLoss, .keyBlob] where parameters.faults[scheduled] != nil {
                parameters.faults[scheduled] = 3
            }
            for perEvent in [FaultKind.tornBlobs, .bitFlips, .bitRot, .transientErrors, .conflictedCopies, .junkNames] where parameters.faults[perEvent] != nil {
                parameters.faults[perEvent] = 0.2
            }
            let result = Simulation(trace: Trace.generate(parameters: parameters)).run()
            #expect(result.violation == nil, "seed \(seed), faults \(FaultSelection.only(selected).text): \(String(describing: result.violation))")
            let strangers = result.faultsFired.keys.filter { !selected.contains($0) }.sorted()
            #expect(strangers.isEmpty, "seed \(seed): \(strangers.map(\.rawValue)) struck with only \(FaultSelection.only(selected).text) on")
            if result.faultsFired[kind] != nil {
                struckIn = seed
                break
            }
        }
        #expect(struckIn != nil, "\(kind.rawValue) never struck in seeds 1...8 with it on")
    }

    @Test func noFaultStrikesWhenNoneIsOn() {
        for seed in [1, 2, 3] as [UInt64] {
            var options = SimulationOptions(replicaCount: 3, steps: 50, faults: .none, engine: .replica)
            options.intentionCheckProbability = 0.05
            let result = Simulation(trace: Trace.generate(seed: seed, options: options)).run()
            #expect(result.violation == nil, "seed \(seed)")
            #expect(result.faultsFired.isEmpty, "seed \(seed): \(result.faultsFired.map { "\($0.key.rawValue) \($0.value)" }.sorted())")
            #expect(result.statistics.syncsFinished > 0, "seed \(seed): the run syncs")
        }
    }
}
