import MemoSimulation
import MemoSync
import Testing
@testable import MemoNotes

/// The simulator with state lists in play (issue 28): in half of the seeds its disks write a
/// state list at every compaction (`SimulationParameters.stateListMinimumBytes` 0), so that
/// replicas reopened after crashes read their memos' texts from the state file only when they
/// use them, and each such open is compared with the state read whole (the `state-list-text-cut`
/// mutant shows that comparison failing: `MutantTests`).
@Suite struct StateListSimulationTests {
    static func run(seed: UInt64) -> SimulationResult {
        var options = SimulationOptions(replicaCount: 4, steps: 600, faults: .only([.crash]))
        options.withoutFeatures = [.clone]
        options.withoutFaults = [.restoreOldCopy]
        return Simulation(trace: Trace.generate(seed: seed, options: options)).run()
    }

    @Test func seedsWithListsOpenFromThemAndMatchTheWholeState() {
        var opened = 0
        for seed: UInt64 in 1...4 {
            #expect(SimulationParameters.draw(seed: seed, options: SimulationOptions()).stateListMinimumBytes == 0)
            let result = Self.run(seed: seed)
            #expect(result.violation == nil, "seed \(seed): \(result.violation.map(\.description) ?? "")")
            if result.sometimes.contains(.openedFromStateList) { opened += 1 }
        }
        #expect(opened >= 1, "\(opened) of seeds 1...4 reopened a library from its state list")
    }

    /// FORMAT.md, "State list": the list is fsynced with its folder, "so that an open after a
    /// power failure finds it too". The simulated disk loses at a crash whatever was not made
    /// durable: without those fsyncs the reopened library reads its state whole.
    @Test func aListSurvivesAPowerFailureRightAfterItsCompaction() async throws {
        let disk = SimulatedDisk(seed: 9)
        disk.stateListMinimumBytes = 0
        let replica = try Replica(disk: disk)
        for index in 0..<5 { _ = try replica.createMemo(text: "memo \(index)\nits body") }
        try replica.compactNow()
        disk.crash()
        let reopened = try Replica(disk: disk)
        #expect(reopened.notebook.storedTextCount == 5)
        #expect(reopened.notebook.list().map(\.title).sorted() == (0..<5).map { "memo \($0)" })
        await reopened.close()
        _ = replica
    }

    @Test func seedsWithoutListsNeverOpenFromOne() {
        for seed: UInt64 in 7...8 {
            #expect(SimulationParameters.draw(seed: seed, options: SimulationOptions()).stateListMinimumBytes == LibraryCore.stateListWorthBytes)
            let result = Self.run(seed: seed)
            #expect(result.violation == nil, "seed \(seed): \(result.violation.map(\.description) ?? "")")
            #expect(!result.sometimes.contains(.openedFromStateList), "seed \(seed)")
        }
    }
}
