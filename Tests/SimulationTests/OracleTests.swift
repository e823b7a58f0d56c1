import MemoSimulation
import Testing

/// The oracle's own mistakes, not the engine's: each kept as a trace that showed it, so the
/// checks stay exactly as strict as the engine's promises.
@Suite struct OracleTests {
    /// Three replicas delete the same character and each undoes it: each undo inserts its own
    /// copy again, so the character shows three times. The oracle compared the undoing
    /// replica's text before and after as sets, so an undo that brought back a character the
    /// text already showed again (another replica's undo had) was not counted as a
    /// reinsertion, and the run failed deleted-stays-deleted ("shows 3 times"; seen first in
    /// `memo-sim --seed 233 --steps 2000` with heads rewritten less often). It counts now.
    @Test func undosOfOneDeletionOnThreeReplicasMayShowACharacterThreeTimes() throws {
        let result = Simulation(trace: try Trace(parsing: Self.threeUndos)).run()
        #expect(result.violation == nil, "\(result.violation.map(\.description) ?? "")")
    }

    static let threeUndos = """
        # three replicas delete one character and each undoes it: it shows three times
        memo-sim trace 1
        seed 1
        engine replica
        replicas 3
        founders 3
        steps 16
        intention-check 1.0
        features backspace,create,undo
        delay-max-ms 1000
        snapshot-after-segments 64
        snapshot-every-operations 5000
        grace-period-ms 86400000
        memos-max 28
        memo-scalars-max 2000
        events
        1000 r0 create len=5
        2000 r0 sync
        3000 r1 sync
        4000 r2 sync
        5000 r0 backspace len=1 memo=0 at=2576980378
        5100 r1 backspace len=1 memo=0 at=2576980378
        5200 r2 backspace len=1 memo=0 at=2576980378
        6000 r1 undo memo=0 len=1
        7000 r1 sync
        8000 r2 sync
        9000 r2 undo memo=0 len=1
        10000 r2 sync
        11000 r0 sync
        12000 r0 undo memo=0 len=1
        13000 r0 sync
        14000 r1 sync
        """

    /// A replica receives a character in a sync, deletes it while the sync runs, and crashes
    /// before either is saved: it reopens without the character and without the deletion, and
    /// the character comes back from the store, rightly. The oracle took the deletion as saved
    /// because the reopened library did not show the character, and the run failed
    /// deleted-stays-deleted (seen first in `memo-sim --seed 356 --steps 3000 --replicas 8
    /// --faults all` with heads deleted in the same round trip). A pending deletion now counts
    /// as saved when the reopened library holds its operation.
    @Test func aDeletionLostInACrashWithTheCharacterItDeletedIsNotCountedAsSaved() throws {
        let result = Simulation(trace: try Trace(parsing: Self.deletionLostWithItsCharacter)).run()
        #expect(result.violation == nil, "\(result.violation.map(\.description) ?? "")")
    }

    static let deletionLostWithItsCharacter = """
        # a character received in a sync and deleted, both unsaved, then a crash: the deletion is lost
        memo-sim trace 1
        seed 1
        engine replica
        replicas 3
        founders 3
        steps 10
        intention-check 1.0
        features backspace,create
        delay-max-ms 1000
        snapshot-after-segments 64
        snapshot-every-operations 5000
        grace-period-ms 86400000
        memos-max 28
        memo-scalars-max 2000
        events
        1000 r0 create len=5
        1500 r2 create len=5
        2000 r0 sync
        3000 r2 sync
        9000 r1 crash disk-op=1 performs=0 down=1000
        10000 r1 sync
        10100 r1 backspace len=1 memo=0 at=2576980378
        20000 r1 sync
        30000 r0 sync
        31000 r2 sync
        """
}
