import MemoCRDT
import MemoSimulation
import Testing

/// Engine bugs the simulation found, each kept as its smallest reproduction (a shrunk trace or a
/// few notebook calls) so it stays fixed. Simulations/README.md, "Findings", tells each story.
@Suite struct EngineFindingsTests {
    /// A notebook's own operations, all of them, apply to an empty notebook when a local
    /// insertion followed a remote one in the same memo (finding 1: the local run that grew
    /// across the remote operation waited for it, and the remote operation waited for the start
    /// of that run).
    /// (Shrunk from `memo-sim --seed 106 --steps 400 --replicas 5 --faults crash,delay`.)
    @Test func allOperationsApplyToAnEmptyNotebook() throws {
        let memo = MemoID(high: 1, low: 1)
        var a = Notebook(replica: ReplicaID(0xA))
        var b = Notebook(replica: ReplicaID(0xB))
        try a.createMemo(memo, text: "aaaa", wallMilliseconds: 1)
        try b.apply(a.changes(since: b.version))
        try b.edit(memo, replacingScalars: 2..<2, with: "P", wallMilliseconds: 2)
        try a.apply(b.changes(since: a.version))
        try a.edit(memo, replacingScalars: 2..<2, with: "Q", wallMilliseconds: 3)
        var fresh = Notebook(replica: ReplicaID(0xC))
        try fresh.apply(a.changes(since: VersionVector()))
        #expect(fresh.pendingOperationCount == 0)
        #expect(fresh.version == a.version)
        #expect(fresh.memo(memo)?.text == a.memo(memo)?.text)
    }

    /// The same bug seen from a replica: a late joiner's saved sync does not survive a crash.
    @Test func aLateJoinersSavedSyncSurvivesACrash() throws {
        let trace = try Trace(parsing: Self.lateJoinerTrace)
        let result = Simulation(trace: trace).run()
        #expect(result.violation == nil, "\(result.violation.map(\.description) ?? "")")
    }

    static let lateJoinerTrace = """
        memo-sim trace 1
        seed 106
        engine replica
        replicas 3
        founders 1
        steps 12
        features backspace,caret-typing,compact,concurrent-typing,create,delete-range,late-join,paste,purge,replace-all,replace-range,restore,save,trash,type-forward,undo
        delay-max-ms 2411560
        snapshot-after-segments 64
        snapshot-every-operations 2000
        grace-period-ms 86400000
        memos-max 29
        memo-scalars-max 200
        intention-check 1.0
        expect durability
        events
        9436501 r0 type dir=fwd len=69 memo=3422488028 at=3912114482
        10291993 r0 sync
        10299891 r2 join
        10299973 r0 caret-type len=13
        143292339 r0 backspace len=4 memo=121104519 at=2866236338
        143292549 r2 paste len=1 memo=1633408312 at=3153932062
        164789369 r2 sync
        164789626 r0 sync
        164838532 r0 caret-type len=1
        164840613 r0 sync
        165955185 r1 join
        178257903 r1 crash down=1
        """
}
