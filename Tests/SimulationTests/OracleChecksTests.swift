import MemoCRDT
import MemoNotes
import Testing

@testable import MemoSimulation

/// The final checks themselves, shown to fire: a finished run whose replicas pass them, then
/// the same checks on a copy of a replica's notebook broken on purpose (an edit the oracle never
/// saw). Mutants show that the harness finds broken engines; these show that the nothing-lost
/// and non-interleaving checks, which no mutant is expected to trip first, break when their
/// promise does.
@Suite struct OracleChecksTests {
    /// The first of seeds 1...30 (three replicas, no faults) whose run passes and typed two runs
    /// concurrently at one place that both survive with at least two characters each.
    static func finishedWorld() throws -> (world: Simulation, first: RunRecord, second: RunRecord) {
        for seed in 1...30 as ClosedRange<UInt64> {
            var options = SimulationOptions(replicaCount: 3, steps: 120, faults: .none, engine: .replica)
            options.intentionCheckProbability = 0.05
            let world = Simulation(trace: Trace.generate(seed: seed, options: options))
            guard world.run().violation == nil else { continue }
            let texts = textsByMemo(world.peers[0].notebook, world)
            for (a, first) in world.runs.enumerated() {
                for second in world.runs[(a + 1)...] where first.memo == second.memo && first.anchor == second.anchor && first.isConcurrent(with: second) {
                    let text = texts[first.memo] ?? []
                    let reinserted = (first.scalars + second.scalars).contains { scalar in
                        TrackedAlphabet.locate(scalar).map { world.oracle.characters[$0.pool][$0.index].reinsertions > 0 } ?? false
                    }
                    if !reinserted && survivors(first, in: text).count >= 2 && survivors(second, in: text).count >= 2 { return (world, first, second) }
                }
            }
        }
        throw OracleChecksError.noSuitableRun
    }

    enum OracleChecksError: Error { case noSuitableRun }

    /// Each memo's text as scalars, by the oracle's memo index.
    static func textsByMemo(_ notebook: Notebook, _ world: Simulation) -> [Int: [UInt32]] {
        var texts: [Int: [UInt32]] = [:]
        for id in notebook.memoIDs {
            guard let memo = notebook.memo(id) else { continue }
            texts[world.oracle.memoIndex(of: id)] = memo.text.unicodeScalars.map(\.value)
        }
        return texts
    }

    /// Where `run`'s characters are in `text`, in order.
    static func survivors(_ run: RunRecord, in text: [UInt32]) -> [Int] {
        run.scalars.compactMap { text.firstIndex(of: $0) }.sorted()
    }

    static func string(_ scalars: [UInt32]) -> String {
        String(String.UnicodeScalarView(scalars.compactMap(Unicode.Scalar.init)))
    }

    @Test func aCharacterNobodyDeletedThatIsGoneIsReportedLost() throws {
        let (world, _, _) = try Self.finishedWorld()
        var notebook = world.peers[0].notebook
        world.checkCharacters(in: notebook, peers: [0])
        #expect(world.violation == nil, "the control: \(String(describing: world.violation))")
        // A character typed, saved and never deleted, taken out behind the oracle's back.
        var removed = false
        search: for id in notebook.memoIDs {
            guard let text = notebook.memo(id)?.text.unicodeScalars.map(\.value) else { continue }
            for (offset, scalar) in text.enumerated() {
                guard let (pool, index) = TrackedAlphabet.locate(scalar) else { continue }
                let record = world.oracle.characters[pool][index]
                guard case .committed = record.insertion, record.committedDeletions == 0, record.uncertainDeletions == 0, record.reinsertions == 0 else { continue }
                var changed = text
                changed.remove(at: offset)
                try notebook.setText(id, to: Self.string(changed), wallMilliseconds: SimulatedClock.epochMilliseconds + 1)
                removed = true
                break search
            }
        }
        #expect(removed, "no saved character to take out")
        world.checkCharacters(in: notebook, peers: [0])
        #expect(world.violation?.invariant == .nothingLost, "\(String(describing: world.violation))")
    }

    @Test func runsTypedConcurrentlyAtOnePlaceThatInterleaveAreReported() throws {
        let (world, first, second) = try Self.finishedWorld()
        var notebook = world.peers[0].notebook
        world.checkRuns(in: notebook)
        #expect(world.violation == nil, "the control: \(String(describing: world.violation))")
        // One character of the second run moved between the first run's first and last.
        let id = world.oracle.memos[first.memo].id
        var text = try #require(notebook.memo(id)).text.unicodeScalars.map(\.value)
        let moved = text[Self.survivors(second, in: text)[0]]
        text.removeAll { $0 == moved }
        text.insert(moved, at: Self.survivors(first, in: text)[0] + 1)
        try notebook.setText(id, to: Self.string(text), wallMilliseconds: SimulatedClock.epochMilliseconds + 1)
        world.checkRuns(in: notebook)
        #expect(world.violation?.invariant == .nonInterleaving, "\(String(describing: world.violation))")
    }
}
