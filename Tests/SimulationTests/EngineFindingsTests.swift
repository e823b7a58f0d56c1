import MemoCRDT
import MemoNotes
import MemoSimulation
import Testing

/// Engine bugs the simulation found, each kept as its smallest reproduction (a shrunk trace or a
/// few notebook calls) so it stays fixed. Simulations/README.md, "Findings", tells each story.
@Suite struct EngineFindingsTests {
    /// Runs a shrunk trace that once failed; it must pass now.
    func expectPasses(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = Simulation(trace: try Trace(parsing: text)).run()
        #expect(result.violation == nil, "\(result.violation.map(\.description) ?? "")", sourceLocation: sourceLocation)
    }

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

    /// A run applied ahead of its rest (finding 1's fix) must not bring characters that its rest
    /// deletes while the rest is still held back: the text would hold a deletion no operation
    /// made, and its state would not encode. Such a part is held back (the call is tried again
    /// without it), and applies once the operation the rest waits for arrives.
    @Test func aPartAppliedAheadNeverLeavesADeletionWithoutItsOperation() throws {
        let memo = MemoID(high: 2, low: 2)
        var a = Notebook(replica: ReplicaID(0xA))
        var b = Notebook(replica: ReplicaID(0xB))
        try a.createMemo(memo, text: "abcd", wallMilliseconds: 1)
        try b.apply(a.changes(since: b.version))
        try b.edit(memo, replacingScalars: 2..<2, with: "P", wallMilliseconds: 2)
        try a.apply(b.changes(since: a.version))
        try a.edit(memo, replacingScalars: 2..<2, with: "Q", wallMilliseconds: 3)   // after P's left origin, before P
        try a.edit(memo, replacingScalars: 0..<1, with: "", wallMilliseconds: 4)    // deletes a's own first character
        var c = Notebook(replica: ReplicaID(0xC))
        let onlyA = try a.changes(of: [(ReplicaID(0xA), 0..<a.version[ReplicaID(0xA)])])
        try c.apply(onlyA)
        #expect(c.pendingOperationCount > 0)
        _ = try Notebook(decoding: c.encoded(), replica: ReplicaID(0xC))   // encodes and decodes
        try c.apply(b.changes(since: c.version))
        #expect(c.pendingOperationCount == 0)
        #expect(c.memo(memo)?.text == a.memo(memo)?.text)
        #expect(c.encoded() == a.encoded())
    }

    /// The same bug seen from a replica: a late joiner's saved sync does not survive a crash.
    @Test func aLateJoinersSavedSyncSurvivesACrash() throws {
        try expectPasses(Self.lateJoinerTrace)
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
    /// A conflicted copy of a replica's own snapshot, remembered as its own, then deleted with
    /// a request that failed but happened, must not count as covering anything: the replica
    /// once deleted the original snapshot relying on the vanished copy (finding 5). Shrunk from
    /// `memo-sim --seed 130 --steps 2000 --without clone,old-copy`.
    @Test func aFailedDeleteIsNotReliedOnToCover() throws {
        try expectPasses(Self.vanishedCopyTrace)
    }

    static let vanishedCopyTrace = """
        memo-sim trace 1
        seed 130
        engine replica
        replicas 8
        founders 7
        steps 133
        features caret-typing,compact,concurrent-typing,create,late-join,paste,purge,replace-all,replace-range,restore,save,trash,type-backward,type-forward,undo
        fault conflicts 0.127625
        fault delay 0.069495
        fault lossy 0.052633
        fault transient 0.01232
        delay-max-ms 861139
        snapshot-after-segments 4
        snapshot-every-operations 2000
        grace-period-ms 60000
        memos-max 27
        memo-scalars-max 200
        intention-check 1.0
        expect collection
        events
        9948 r0 paste len=1 memo=1751039538 at=2257562640
        37327 r4 type dir=fwd len=1 memo=2830869824 at=1352419512
        37565 r6 replace del=1 len=1 memo=3734486772 at=2027988093
        358462 r1 type dir=fwd len=1 memo=2746840013 at=2701100591
        374459 r4 sync
        381020 r0 sync
        386685 r4 sync
        386799 r4 type dir=fwd len=1 memo=1123307812 at=4176410099
        387211 r1 sync
        404319 r4 sync
        404610 r6 sync
        405503 r6 type dir=fwd len=1 memo=1562100923 at=146724910
        406815 r6 sync
        409345 r4 concurrent peers=2,6,1,0 dir=fwd len=2 memo=308773413 at=1631488993
        410048 r2 sync
        416143 r1 sync
        424909 r0 sync
        435449 r6 sync
        437081 r4 sync
        1458476 r0 type dir=fwd len=1 memo=2814724637 at=870552344
        1463378 r6 type dir=fwd len=1 memo=2448066022 at=3160668994
        1593167 r5 type dir=fwd len=1 memo=1179686838 at=221770893
        1594310 r6 sync
        1594760 r0 sync
        1602962 r3 type dir=fwd len=1 memo=766121775 at=1812399998
        24711983 r6 caret-type len=1
        24712835 r3 sync
        24713092 r1 sync
        24715348 r6 sync
        24719515 r3 caret-type len=1
        24721417 r2 paste len=1 memo=2008020848 at=3700556141
        24721485 r3 sync
        24729808 r4 trash memo=63977125
        24732157 r1 sync
        24801333 r3 replace del=1 len=1 memo=1467106494 at=415390780
        25236591 r1 caret-type len=1
        25244762 r3 sync
        26553417 r5 sync
        126687110 r1 sync
        126698059 r3 create len=1
        126709478 r4 sync
        126710156 r3 sync
        126717277 r1 sync
        126787615 r3 type dir=fwd len=1 memo=184061199 at=3945698254
        126796949 r5 type dir=fwd len=1 memo=2083161838 at=3457604311
        126812245 r7 join
        126812431 r5 sync
        128607700 r6 concurrent peers=0 dir=fwd len=1 memo=3534978849 at=1284469874
        128609103 r0 sync
        128609157 r3 sync
        128609750 r3 sync
        128610178 r2 sync
        128610367 r7 concurrent peers=0,4 dir=fwd len=16 memo=4206939871 at=2453643938
        128646784 r7 sync
        128650541 r7 type dir=fwd len=1 memo=880978493 at=3799497014
        128651266 r7 sync
        128692639 r7 sync
        128693245 r3 paste len=1 memo=3063157413 at=2943971736
        128694428 r7 sync
        135066975 r6 sync
        135122993 r3 sync
        135129768 r4 sync
        135130389 r7 sync
        135130949 r6 type dir=fwd len=1 memo=1937843776 at=3285112780
        135136154 r3 type dir=fwd len=1 memo=620912643 at=3141149286
        135136802 r6 sync
        135144370 r4 create len=0
        135156870 r7 caret-type len=1
        135160934 r4 sync
        135162853 r6 type dir=fwd len=1 memo=2823122954 at=2019119582
        137238686 r6 sync
        137259292 r4 type dir=fwd len=1 memo=3295282827 at=2983184589
        137263344 r3 sync
        137267957 r3 create len=1
        137267984 r0 sync
        137768391 r7 sync
        137774620 r0 paste len=1 memo=2354066210 at=69429236
        137775194 r6 undo memo=86383682 len=1
        137782303 r0 sync
        137809229 r3 sync
        137809282 r4 sync
        137812924 r6 sync
        137816186 r7 type dir=fwd len=1 memo=1584666356 at=1413617609
        181505031 r3 sync
        181505279 r0 type dir=fwd len=1 memo=1881569433 at=4011599478
        193884995 r3 sync
        194094955 r3 type dir=fwd len=1 memo=2425541341 at=2136096675
        194107816 r0 sync
        194117682 r3 sync
        194117722 r6 caret-type len=1
        203770527 r6 sync
        203773976 r7 sync
        203934819 r6 sync
        203939058 r2 sync
        203945779 r3 sync
        203948736 r0 sync
        203950369 r2 paste len=1 memo=114453071 at=2311267634
        203950427 r0 sync
        203953163 r3 sync
        203953234 r2 sync
        204323935 r7 replace del=1 len=1 memo=1515454899 at=3032788242
        204324330 r3 create len=1
        204324419 r7 sync
        204326289 r6 caret-type len=1
        204327021 r3 sync
        205140439 r6 sync
        205141746 r2 sync
        230916908 r0 replace del=1 len=1 memo=3055315783 at=1696753151
        230934092 r3 type dir=fwd len=1 memo=2126899488 at=3201634345
        230943854 r0 sync
        231079766 r3 sync
        231087055 r0 sync
        231087738 r6 replace del=1 len=1 memo=2820005927 at=2971919534
        231091726 r0 concurrent peers=4 dir=fwd len=1 memo=2940583935 at=2308615627
        231100664 r0 sync
        231561003 r6 sync
        231579116 r6 caret-type len=1
        231579167 r3 paste len=1 memo=1793958684 at=1097141773
        231579504 r0 sync
        231590546 r3 sync
        231590577 r2 sync
        231594079 r7 type dir=fwd len=1 memo=2712661517 at=927976739
        231594512 r6 sync
        231595116 r3 sync
        231596321 r3 sync
        286147279 r4 sync
        286148391 r7 sync
        286157631 r4 sync
        286163987 r7 sync
        286166335 r7 sync
        286172930 r7 type dir=fwd len=1 memo=1412805809 at=2269595168
        379859780 r7 sync
        379860647 r6 sync
        """
    /// An insertion made in one session of a library and deleted in a later one, both
    /// unpublished, once traveled in the earlier session's segment as a tombstone without its
    /// deletion; a reader that had not read the later segment yet then held a text whose state
    /// did not decode. They are published together now. Shrunk from `memo-sim --seed 146
    /// --steps 2000`.
    @Test func aDeletionTravelsWithTheTombstoneOfAnEarlierSession() throws {
        try expectPasses(Self.tombstoneTrace)
    }

    static let tombstoneTrace = """
        memo-sim trace 1
        seed 146
        engine replica
        replicas 9
        founders 8
        steps 36
        features backspace,caret-typing,clone,concurrent-typing,create,delete-range,late-join,leave,purge,replace-all,save,type-forward
        fault bitflips 0.007887
        fault delay 0.170157
        fault lossy 0.040559
        fault torn 0.07839
        fault transient 0.14786
        delay-max-ms 62789
        snapshot-after-segments 2
        snapshot-every-operations 200
        grace-period-ms 86400000
        memos-max 12
        memo-scalars-max 2000
        intention-check 1.0
        expect engine
        events
        2226495784 r5 type dir=fwd len=23 memo=3040756975 at=3196910939
        2226501712 r5 sync
        2226591652 r0 crash disk-op=8 performs=0 down=1
        2226596893 r1 type dir=fwd len=1 memo=3245573306 at=1170934053
        2226596970 r1 sync
        2226613905 r3 type dir=fwd len=1 memo=2442191312 at=760221978
        2229613020 r1 sync
        2229619222 r0 type dir=fwd len=66 memo=3250849753 at=2635726805
        2380687625 r0 create len=32
        2380687705 r0 replace-all mode=1 memo=1891670547 choice=104839540
        2380696528 r0 sync
        2380697556 r0 type dir=fwd len=38 memo=4259469393 at=467827980
        2380715242 r0 sync
        2381980834 r3 sync
        2589471458 r0 sync
        2589482418 r3 concurrent peers=1,0 dir=back len=1 memo=3995946180 at=2065152864
        2589501388 r0 sync
        2589507573 r0 sync
        2589677233 r1 sync
        2591633948 r6 caret-type len=1
        2591634234 r5 type dir=fwd len=1 memo=3145913655 at=2600714993
        2591635768 r6 sync
        2592699706 r5 sync
        2799952237 r0 create len=1
        2799952746 r1 type dir=fwd len=1 memo=2169175943 at=198205355
        2800997340 r0 type dir=fwd len=1 memo=1654085371 at=3152361325
        2801083571 r1 sync
        2801089035 r0 save
        2801220715 r6 type dir=fwd len=1 memo=281096634 at=1119167114
        2801288267 r0 crash down=1
        2805514456 r6 sync
        2907291970 r6 sync
        2907297134 r6 sync
        2920411225 r0 delete len=1 memo=3616083475 at=3073705931
        2953447765 r0 sync
        2953590421 r6 sync
        """

    /// A snapshot no head describes is read: a replica published its operations only in a
    /// snapshot (its head write failed), and its library was then restored from an older backup,
    /// so no later head or segment named them; every other replica ignored the snapshot and a
    /// deletion was lost. (Shrunk from `memo-sim --seed 5373 --steps 2000`.)
    /// Seed 718, shrunk: a segment of several sessions that does not apply whole must not stop
    /// another listed segment of the same range (which carries what it waits for) from being
    /// read. It did: reading it counted its range as fetched, and a deletion was lost.
    @Test func anUnappliedSegmentDoesNotHideAnotherOfItsRange() throws {
        try expectPasses(Self.unappliedSegmentTrace)
    }

    /// Seed 718 again, the close relative: a stale listing made a library publish a range a
    /// second time with other earlier-id operations; readers chose the second copy, which
    /// applied but lacked what only the first carried, so the library's next segment (several
    /// sessions) never applied whole and a deletion was lost. A segment that stays unapplied
    /// now makes the fetch read the other listed segments of its replica's ranges before it.
    @Test func aDeferredSegmentReadsTheOtherContentOfItsRanges() throws {
        try expectPasses(Self.otherContentTrace)
    }

    static let otherContentTrace = """
        # shrunk from seed 718 (2 replicas, 2000 events)
        # deleted-stays-deleted violated at 13d11:07:16.386 on replica(s) r1: U+4E16 typed by r1 in memo 9 was deleted but shows
        memo-sim trace 1
        seed 718
        engine replica
        replicas 2
        founders 2
        steps 39
        features backspace,caret-typing,clone,compact,concurrent-typing,create,late-join,leave,paste,redo,replace-range,restore,save,trash,type-backward,type-forward
        fault stale 0.46891
        delay-max-ms 14626787
        snapshot-after-segments 64
        snapshot-every-operations 5000
        grace-period-ms 86400000
        memos-max 28
        memo-scalars-max 2000
        intention-check 1.0
        expect deleted-stays-deleted
        events
        6266870 r1 type dir=fwd len=5 memo=310582883 at=1564397443
        6267219 r1 sync
        6276275 r0 paste len=1 memo=1320448119 at=862442740
        6280496 r0 sync
        15790047 r0 type dir=fwd len=1 memo=3967001164 at=4088146581
        15791609 r0 sync
        15815461 r0 sync
        16241442 r0 create len=0
        31771428 r0 create len=0
        32028951 r0 sync
        35718795 r0 create len=10
        35730201 r1 type dir=fwd len=1 memo=2693021585 at=3788546243
        36014687 r1 sync
        36015277 r1 type dir=fwd len=3 memo=3136525968 at=3127812230
        36139893 r0 sync
        45381083 r1 sync
        45383312 r1 sync
        45383502 r1 type dir=fwd len=18 memo=3198846618 at=414608145
        51967535 r1 crash disk-op=2 performs=0 down=1
        306615438 r1 type dir=fwd len=1 memo=803354348 at=844481855
        306615657 r1 save
        560075360 r0 create len=0
        560385444 r0 create len=2
        575266028 r1 create len=2
        578891642 r0 create len=0
        623774226 r1 create len=4
        623784223 r1 sync
        624318259 r1 backup
        741989428 r1 compact
        741991239 r1 type dir=fwd len=1 memo=2146568003 at=2565993683
        857109370 r0 sync
        857114530 r1 crash disk-op=3 performs=1 down=1
        857131170 r1 sync
        869992076 r1 create len=0
        870785671 r1 sync
        870839189 r1 sync
        870844205 r1 replace del=1 len=1 memo=3834860841 at=2288349424
        990306092 r1 sync
        990314407 r1 restore-backup which=1536038295
        """

    /// Seed 718 a third time, found while heads were rewritten less often (a narrower rule since
    /// taken back): the range published twice belongs to an earlier id, and the segment that
    /// waits is a later id's, carrying none of that earlier id's operations. With the rules that
    /// landed the run passes; reading every overlapping segment of any replica fixed it under the
    /// narrower rule but made the soak's seed 246 fail (Simulations/README.md, "Seed 233").
    @Test func seed718ThirdFormPasses() throws {
        try expectPasses(Self.otherReplicasContentTrace)
    }

    static let otherReplicasContentTrace = """
        # shrunk from seed 718 (2 replicas, 2000 events)
        # deleted-stays-deleted violated at 13d11:07:16.369 on replica(s) r1: U+4E12 typed by r1 in memo 9 was deleted but shows
        memo-sim trace 1
        seed 718
        engine replica
        replicas 2
        founders 2
        steps 49
        features backspace,caret-typing,clone,compact,concurrent-typing,create,late-join,leave,paste,redo,replace-range,restore,save,trash,type-backward,type-forward
        fault conflicts 0.04209
        fault stale 0.46891
        delay-max-ms 14626787
        snapshot-after-segments 64
        snapshot-every-operations 5000
        grace-period-ms 86400000
        memos-max 28
        memo-scalars-max 2000
        intention-check 1.0
        expect deleted-stays-deleted
        events
        6266870 r1 type dir=fwd len=1 memo=310582883 at=1564397443
        6267219 r1 sync
        6269722 r1 type dir=fwd len=8 memo=1293851743 at=1889712589
        6276275 r0 paste len=1 memo=1320448119 at=862442740
        6280496 r0 sync
        15790047 r0 type dir=fwd len=5 memo=3967001164 at=4088146581
        15791609 r0 sync
        15815461 r0 sync
        16240340 r1 offline ms=1603
        16241442 r0 create len=0
        16241739 r1 sync
        31771428 r0 create len=0
        31818558 r1 crash down=1
        32028951 r0 sync
        35718795 r0 create len=5
        35730201 r1 type dir=fwd len=1 memo=2693021585 at=3788546243
        36014687 r1 sync
        36015277 r1 type dir=fwd len=3 memo=3136525968 at=3127812230
        36139893 r0 sync
        45381083 r1 sync
        45383312 r1 sync
        45383502 r1 type dir=fwd len=9 memo=3198846618 at=414608145
        45387059 r0 caret-type len=1
        45852098 r0 sync
        51967535 r1 crash disk-op=2 performs=0 down=1
        306615438 r1 type dir=fwd len=1 memo=803354348 at=844481855
        306615657 r1 save
        560075360 r0 create len=0
        560385444 r0 create len=1
        575266028 r1 create len=1
        578891642 r0 create len=0
        623774226 r1 create len=2
        623784223 r1 sync
        623807242 r1 crash down=1
        624318259 r1 backup
        630379809 r1 type dir=fwd len=1 memo=2740426563 at=4030162544
        630379992 r1 sync
        741989428 r1 compact
        741991239 r1 type dir=fwd len=1 memo=2146568003 at=2565993683
        857109370 r0 sync
        857114530 r1 crash disk-op=3 performs=1 down=1
        857131170 r1 sync
        869992076 r1 create len=0
        870785671 r1 sync
        870793801 r1 crash store-op=4 performs=0 down=1
        870839189 r1 sync
        870844205 r1 replace del=1 len=1 memo=3834860841 at=2288349424
        990306092 r1 sync
        990314407 r1 restore-backup which=1536038295
        """

    static let unappliedSegmentTrace = """
        # shrunk from seed 718 (2 replicas, 2000 events)
        # deleted-stays-deleted violated at 13d11:07:17.058 on replica(s) r0: U+4E22 typed by r0 in memo 0 was deleted but shows
        memo-sim trace 1
        seed 718
        engine replica
        replicas 2
        founders 2
        steps 40
        features backspace,caret-typing,clone,compact,concurrent-typing,create,late-join,leave,paste,redo,replace-range,restore,save,trash,type-backward,type-forward
        fault conflicts 0.04209
        fault stale 0.46891
        delay-max-ms 14626787
        snapshot-after-segments 64
        snapshot-every-operations 5000
        grace-period-ms 86400000
        memos-max 28
        memo-scalars-max 2000
        intention-check 1.0
        expect deleted-stays-deleted
        events
        6265809 r0 type dir=fwd len=33 memo=1867703900 at=3585716243
        6266870 r1 type dir=fwd len=5 memo=310582883 at=1564397443
        6267219 r1 sync
        6269722 r1 type dir=fwd len=8 memo=1293851743 at=1889712589
        6270309 r1 compact
        6280496 r0 sync
        15790047 r0 type dir=fwd len=11 memo=3967001164 at=4088146581
        15791609 r0 sync
        15815461 r0 sync
        15818562 r0 type dir=fwd len=1 memo=2842061316 at=2831603697
        16241442 r0 create len=0
        31818558 r1 crash down=1
        32028951 r0 sync
        36007435 r1 type dir=fwd len=4 memo=3819656464 at=2450119105
        36007700 r0 type dir=fwd len=19 memo=941377116 at=3974856582
        36014687 r1 sync
        36015277 r1 type dir=fwd len=28 memo=3136525968 at=3127812230
        36139893 r0 sync
        45381083 r1 sync
        45383068 r0 type dir=fwd len=4 memo=1686603190 at=715098353
        45383312 r1 sync
        45383342 r1 type dir=fwd len=1 memo=601116216 at=3217400525
        45383502 r1 type dir=fwd len=36 memo=3198846618 at=414608145
        45847436 r1 type dir=fwd len=6 memo=90936240 at=897896709
        45852098 r0 sync
        51967535 r1 crash disk-op=2 performs=0 down=1
        355722146 r1 backup
        623784170 r0 type dir=fwd len=1 memo=3740331637 at=3680752822
        623784223 r1 sync
        623801427 r0 sync
        630379809 r1 type dir=fwd len=1 memo=2740426563 at=4030162544
        741987468 r1 paste len=80 memo=3688160316 at=269625157
        741989428 r1 compact
        741991239 r1 type dir=fwd len=1 memo=2146568003 at=2565993683
        857114530 r1 crash disk-op=3 performs=1 down=1
        857179444 r1 sync
        870784106 r1 replace del=1 len=1 memo=3142881537 at=4115865435
        870785671 r1 sync
        870839189 r1 sync
        990314407 r1 restore-backup which=1536038295
        """

    @Test func aSnapshotNoHeadDescribesIsRead() throws {
        try expectPasses(Self.undescribedSnapshotTrace)
    }

    static let undescribedSnapshotTrace = """
        # shrunk from seed 5373 (9 replicas, 2004 events)
        # deleted-stays-deleted violated at 24d04:00:06.039 on replica(s) r4: U+4E31 typed by r4 in memo 6 was deleted but shows
        memo-sim trace 1
        seed 5373
        engine replica
        replicas 9
        founders 5
        steps 128
        features caret-typing,clone,compact,create,delete-range,late-join,paste,purge,replace-all,replace-range,restore,save,trash,type-forward,undo
        fault bitflips 0.004454
        fault delay 0.05662
        fault stale 0.35927
        fault transient 0.103826
        delay-max-ms 9234833
        snapshot-after-segments 2
        snapshot-every-operations 5000
        grace-period-ms 60000
        memos-max 16
        memo-scalars-max 200
        intention-check 1.0
        expect deleted-stays-deleted
        events
        257294672 r0 paste len=1 memo=2812354372 at=238495257
        257296999 r4 replace del=1 len=1 memo=3280868130 at=1465482027
        257297416 r0 create len=0
        260024278 r4 purge memo=1720955658
        260579369 r0 create len=0
        260771204 r3 type dir=fwd len=1 memo=3195561714 at=1335786167
        260771464 r2 caret-type len=1
        260776630 r1 type dir=fwd len=1 memo=2741922803 at=2822986738
        260777583 r1 sync
        261489224 r2 purge memo=194808092
        261505472 r0 sync
        261505810 r4 caret-type len=1
        261505839 r3 sync
        267517583 r1 trash memo=1074164610
        288454270 r1 type dir=fwd len=1 memo=2152170433 at=1472990772
        288457107 r0 create len=1
        291892055 r1 sync
        295760363 r4 trash memo=1623654216
        295764414 r2 type dir=fwd len=1 memo=2215067710 at=110116597
        297279692 r4 type dir=fwd len=1 memo=2083852782 at=244171679
        297287529 r2 trash memo=1149950649
        298476972 r2 type dir=fwd len=1 memo=2354492593 at=754049273
        298526479 r2 sync
        298526535 r1 paste len=1 memo=1174182829 at=3751368657
        298527163 r2 type dir=fwd len=54 memo=1101241330 at=3372695918
        300400016 r4 purge memo=2944663457
        309125089 r2 sync
        309127407 r4 type dir=fwd len=1 memo=797576063 at=2289438127
        309127689 r4 create len=1
        309228865 r2 caret-type len=1
        309258433 r2 sync
        309259834 r4 sync
        309266947 r2 restore memo=198338576
        309267066 r1 sync
        309269354 r0 crash disk-op=6 performs=0 down=2
        309271989 r3 type dir=fwd len=1 memo=3747368470 at=2195986473
        309277370 r1 type dir=fwd len=1 memo=2800987504 at=2619356504
        310156473 r0 save
        310157127 r4 crash down=1228
        310158600 r2 create len=0
        310162467 r0 caret-type len=1
        310163207 r0 sync
        311516162 r2 sync
        311608592 r2 type dir=fwd len=1 memo=2698574077 at=4288536947
        315464842 r3 sync
        315466218 r0 caret-type len=1
        315468726 r0 sync
        315468958 r2 sync
        331388172 r2 create len=1
        333125552 r0 create len=0
        333304415 r1 sync
        333307646 r4 create len=1
        333309221 r4 sync
        333594968 r2 sync
        333836226 r2 crash store-op=1 performs=1 down=44
        333837849 r4 create len=1
        333846616 r3 sync
        334579613 r2 sync
        401213481 r1 crash disk-op=4 performs=1 down=1155
        719329080 r0 crash down=1
        719668872 r1 create len=1
        798814758 r3 caret-type len=1
        798816010 r4 sync
        800208578 r3 sync
        864837084 r2 create len=0
        864854376 r4 purge memo=1233686915
        864872261 r1 sync
        864879462 r3 sync
        864879501 r3 offline ms=469
        864896954 r2 sync
        867010397 r4 sync
        1015882875 r0 paste len=1 memo=3726727322 at=1832427941
        1016810730 r0 sync
        1016816752 r0 type dir=fwd len=1 memo=750116712 at=825468423
        1016834487 r4 replace del=1 len=1 memo=4246087962 at=2040903487
        1016852193 r4 sync
        1053864564 r1 paste len=1 memo=332548151 at=1527931615
        1053868593 r4 paste len=1 memo=2673744492 at=4142415989
        1053873312 r4 sync
        1053877314 r2 purge memo=3796097304
        1309751286 r1 sync
        1309752463 r4 type dir=fwd len=70 memo=2870141947 at=4229383606
        1311136618 r4 sync
        1313330508 r8 join
        1313330508 r2 sync
        1314634281 r0 sync
        1314645128 r2 type dir=fwd len=1 memo=2414116907 at=1282251469
        1314646588 r0 type dir=fwd len=1 memo=59801530 at=2056793407
        1314650915 r0 sync
        1315806748 r8 crash down=7
        1315818403 r1 purge memo=1045015593
        1315835190 r4 paste len=28 memo=1224620164 at=2551699105
        1316379308 r1 sync
        1316389514 r4 sync
        1316472610 r2 sync
        1318079268 r0 type dir=fwd len=1 memo=1271238719 at=1739264850
        1318079351 r0 sync
        1318084309 r0 backup
        1531368979 r1 type dir=fwd len=1 memo=3274275719 at=3474552064
        1531379838 r4 sync
        1531400151 r1 sync
        1531522275 r8 sync
        1602507616 r7 join
        1602887707 r2 crash down=1
        1602890921 r7 caret-type len=1
        1781379775 r7 sync
        1781401657 r0 type dir=fwd len=1 memo=3946613594 at=3200852722
        1781996726 r0 sync
        1782187968 r4 sync
        1782193698 r0 sync
        2028743411 r7 sync
        2028745372 r0 sync
        2031958118 r0 restore-backup which=395642999
        2031958174 r1 sync
        2032511825 r0 crash disk-op=6 performs=0 down=1
        2032512801 r0 type dir=fwd len=1 memo=30779744 at=3627601847
        2032514951 r3 sync
        2066118723 r0 save
        2066136375 r0 paste len=56 memo=283926884 at=2184649047
        2070305095 r2 sync
        2070307831 r2 type dir=fwd len=1 memo=3497870310 at=2924505816
        2070323743 r0 save
        2070348908 r2 sync
        2070354772 r0 type dir=fwd len=1 memo=856752929 at=757145789
        2070357688 r0 sync
        2070364493 r5 join
        2070384225 r0 sync
        2087757124 r0 restore-backup which=1482600345
        """

    /// A replica's own deletion, ready, must not stay held back because another replica's run
    /// in the same memo waits (its characters arrived already deleted, by an operation that
    /// waits for a third replica): the live notebook lagged what its library, replayed in
    /// another order after a crash, held (finding: seed 1499, Simulations/README "Seed 1499").
    /// Shrunk from `memo-sim --seed 1499 --steps 3000 --replicas 8 --faults all`.
    @Test func aReadyRunIsNotHeldBackByAnotherInItsMemo() throws {
        try expectPasses(Self.heldMemoTrace)
    }

    static let heldMemoTrace = """
        memo-sim trace 1
        seed 1499
        engine replica
        replicas 8
        founders 4
        steps 172
        features caret-typing,clone,compact,concurrent-typing,delete-range,late-join,leave,paste,purge,redo,replace-range,restore,save,trash,type-backward,type-forward,undo
        fault bitflips 0.005211
        fault conflicts 0.064028
        fault delay 0.050036
        fault junk 0.028642
        fault lossy 0.020773
        fault rot 0.005876
        fault stale 0.065015
        fault torn 0.011821
        fault torn-disk 1.0
        fault transient 0.010237
        delay-max-ms 530922
        snapshot-after-segments 16
        snapshot-every-operations 200
        grace-period-ms 60000
        memos-max 9
        memo-scalars-max 2000
        intention-check 1.0
        expect durability
        events
        26650 r1 type dir=fwd len=1 memo=1714249503 at=3126406527
        35244 r0 type dir=fwd len=4 memo=966266258 at=1037336740
        35336 r1 sync
        44022 r3 paste len=107 memo=687647871 at=1309572254
        58625 r3 purge memo=3465552560
        58691 r0 type dir=fwd len=14 memo=4059188822 at=298584886
        58756 r0 replace del=2 len=7 memo=2080098689 at=225543479
        59214 r3 sync
        59837 r1 type dir=fwd len=7 memo=91876135 at=1948500338
        263436 r3 type dir=fwd len=2 memo=2957251220 at=817709534
        263507 r1 delete len=4 memo=410784268 at=427661228
        2768991 r1 paste len=35 memo=1338876528 at=1886925610
        6011622 r3 concurrent peers=2,1 dir=fwd len=16 memo=4198100855 at=3381575974
        6011858 r1 sync
        6013739 r3 type dir=fwd len=11 memo=278642334 at=3133438701
        6013888 r1 concurrent peers=3 dir=fwd len=20 memo=4244414536 at=3529811180
        6023474 r3 type dir=fwd len=10 memo=258335647 at=2363337464
        6023930 r0 paste len=24 memo=3074885659 at=3512350567
        6024298 r1 concurrent peers=3 dir=fwd len=9 memo=3615864802 at=3831747801
        6031437 r1 type dir=fwd len=64 memo=1391053002 at=2789637128
        6037184 r3 type dir=fwd len=5 memo=3333798896 at=2842890017
        6038561 r0 type dir=fwd len=2 memo=1931803329 at=2630145221
        6038598 r3 type dir=fwd len=7 memo=4007893439 at=2558274806
        6038890 r0 sync
        6097876 r3 type dir=fwd len=3 memo=930638098 at=1248364131
        6100301 r3 sync
        6100415 r3 type dir=fwd len=1 memo=1370037791 at=2909662308
        7039670 r1 type dir=fwd len=21 memo=1344178134 at=1510783744
        7047024 r3 caret-type len=1
        7047224 r3 sync
        7048279 r1 type dir=fwd len=24 memo=1387641410 at=3399027435
        7100372 r1 type dir=fwd len=27 memo=1340918515 at=1767899708
        7101448 r3 type dir=fwd len=39 memo=4197094760 at=3100986611
        7102316 r0 type dir=fwd len=1 memo=2099905099 at=1252712285
        7102743 r3 purge memo=1723137970
        7106671 r1 type dir=fwd len=34 memo=2008946549 at=4074567479
        7106757 r1 sync
        7106971 r3 sync
        7107064 r2 type dir=fwd len=1 memo=3430749506 at=596999299
        7108111 r1 type dir=fwd len=1 memo=733343838 at=553796238
        7112692 r1 sync
        7120710 r3 paste len=283 memo=1218307088 at=2054347261
        7131718 r2 crash store-op=7 performs=0 down=3
        7232988 r2 compact
        7233622 r2 sync
        7250555 r3 sync
        7252422 r0 sync
        7252937 r1 purge memo=731735398
        7284186 r3 paste len=285 memo=929023984 at=1212759550
        10064674 r3 sync
        10065084 r0 compact
        10068219 r3 type dir=fwd len=3 memo=259529458 at=1740710272
        10068250 r1 sync
        10070596 r3 paste len=13 memo=406437801 at=2495082548
        10071373 r1 paste len=7 memo=107596216 at=2250252179
        10172825 r2 trash memo=2538039581
        10743039 r3 type dir=fwd len=21 memo=3260281068 at=2787873638
        10747003 r1 type dir=fwd len=19 memo=1826443106 at=3259400894
        10750403 r3 replace del=4 len=5 memo=3653546800 at=3996808956
        10802524 r1 type dir=fwd len=1 memo=2073856247 at=561104209
        10804618 r1 caret-type len=4
        10804640 r2 type dir=fwd len=1 memo=3582856028 at=3293627501
        10821218 r1 paste len=116 memo=721299989 at=3598091615
        10829465 r2 crash down=1889
        10839512 r3 caret-type len=2
        10839547 r1 crash disk-op=3 performs=0 down=22771
        10845046 r1 type dir=fwd len=5 memo=2614750911 at=2785172436
        10853744 r3 sync
        10857912 r1 sync
        19071998 r2 concurrent peers=3 dir=fwd len=2 memo=2930634747 at=199172340
        19079083 r3 type dir=fwd len=3 memo=3463404962 at=1151692823
        19079208 r2 sync
        19088560 r3 concurrent peers=1 dir=fwd len=6 memo=2694311577 at=1352858976
        19091058 r3 type dir=fwd len=70 memo=3939948440 at=1567648519
        19110863 r2 crash down=4390
        19131930 r3 trash memo=2641828820
        19132398 r3 type dir=fwd len=44 memo=3700382035 at=3515384784
        19133016 r3 caret-type len=7
        19136757 r0 crash store-op=4 performs=1 down=20379
        19144745 r1 concurrent peers=3 dir=back len=23 memo=3210787506 at=1593245862
        19144864 r3 type dir=fwd len=28 memo=1089143493 at=3272433404
        83578040 r2 sync
        111005670 r3 delete len=2 memo=3828218214 at=11697094
        111005840 r2 type dir=fwd len=1 memo=4102452812 at=3621662810
        111006890 r1 type dir=fwd len=51 memo=1199893337 at=4237788440
        111010328 r3 concurrent peers=2,0,1 dir=fwd len=14 memo=4055726750 at=476230735
        111010406 r2 sync
        111011776 r3 sync
        181944213 r1 sync
        181950348 r3 undo memo=3345180535 len=3
        183320546 r3 type dir=fwd len=29 memo=1511462298 at=815177172
        183320912 r3 sync
        183321030 r1 sync
        183325440 r3 type dir=fwd len=58 memo=1547778318 at=3165302798
        183325697 r3 type dir=fwd len=8 memo=697729025 at=1559853169
        183335293 r1 delete len=16 memo=2154362552 at=2561686968
        183336130 r1 type dir=fwd len=40 memo=2247103577 at=3097343833
        183337011 r3 sync
        183337355 r3 type dir=fwd len=40 memo=3647651393 at=4013379078
        183338655 r3 sync
        183338753 r1 type dir=fwd len=13 memo=2688982387 at=3572613962
        183342178 r3 purge memo=4127729511
        189537000 r1 type dir=fwd len=11 memo=3796771555 at=1446598610
        189538193 r0 sync
        221533133 r3 trash memo=4272883719
        221544518 r1 undo memo=4073903001 len=1
        221557534 r1 sync
        221558761 r1 undo memo=151203995 len=3
        221582849 r0 delete len=1 memo=1749286478 at=1469531159
        221589252 r3 sync
        221774040 r3 crash down=4455
        221774455 r1 type dir=fwd len=30 memo=3375402408 at=1053633310
        277627150 r0 sync
        277645238 r0 sync
        277652957 r1 crash store-op=5 performs=1 down=1
        277659580 r3 caret-type len=9
        277660746 r3 type dir=fwd len=5 memo=2196475971 at=1960095882
        277660848 r3 trash memo=1898713506
        278472584 r1 type dir=fwd len=20 memo=1848003710 at=3539577248
        278473550 r1 type dir=fwd len=31 memo=24549185 at=4273162497
        278473686 r1 type dir=fwd len=16 memo=1395946182 at=916389870
        316386475 r1 sync
        316391668 r1 sync
        316394895 r2 type dir=fwd len=1 memo=2711975732 at=978845234
        316411803 r2 sync
        316414829 r1 type dir=fwd len=1 memo=47177244 at=1609749733
        317115685 r1 sync
        317455020 r1 paste len=1 memo=1272916346 at=1052549565
        317468785 r1 sync
        317478047 r1 paste len=4 memo=1157379697 at=3325198766
        317484154 r2 delete len=1 memo=3097545087 at=2573410543
        319155510 r2 sync
        319155745 r1 replace del=5 len=19 memo=3096178 at=1584776855
        319438989 r3 type dir=fwd len=1 memo=1983488080 at=1791740214
        319439079 r5 join
        319439079 r5 paste len=1 memo=2793032243 at=1005584098
        320442515 r1 type dir=fwd len=17 memo=1493824704 at=892504527
        320442942 r5 purge memo=2366831567
        322008662 r1 paste len=18 memo=1906382869 at=1545049814
        322009560 r5 sync
        322109559 r0 crash store-op=1 performs=1 down=41
        322109693 r3 sync
        322110349 r1 type dir=fwd len=2 memo=780331700 at=900257620
        322131810 r3 undo memo=3148873517 len=3
        322132112 r3 type dir=fwd len=3 memo=503497160 at=3291078428
        322134258 r1 delete len=61 memo=7297621 at=1544971071
        322134423 r0 delete len=1 memo=2727870186 at=3826612904
        322135798 r1 sync
        322139602 r3 type dir=fwd len=8 memo=1545390132 at=410439532
        322139796 r1 type dir=fwd len=12 memo=2186354613 at=4229162549
        322147064 r1 sync
        322152039 r3 type dir=fwd len=2 memo=853193660 at=4141492724
        322152274 r1 type dir=fwd len=10 memo=503710727 at=3363248761
        322481057 r3 type dir=fwd len=25 memo=501946999 at=4018297500
        322481223 r2 crash down=1
        322481480 r1 sync
        322487244 r3 sync
        322493847 r0 delete len=1 memo=1367159360 at=4022642274
        322497300 r0 sync
        430894364 r3 crash down=826
        430988219 r2 type dir=fwd len=1 memo=3110758107 at=317623326
        430990227 r2 crash store-op=6 performs=1 down=1
        432278804 r3 delete len=1 memo=1862063246 at=2034704096
        433183041 r2 sync
        433183235 r3 caret-type len=1
        433509903 r1 caret-type len=1
        433510184 r3 purge memo=2418908022
        433511655 r3 sync
        434625963 r1 sync
        469113995 r0 sync
        1145727955 r0 crash store-op=1 performs=1 down=1
        2545736916 r0 sync
        """

    /// A deletion published in a segment that also deleted a character whose insertion only the
    /// publishing library held (the store had lost it, its author never synced again), after
    /// which that library was restored from an older backup: no replica could apply the
    /// segment, and the deleted characters showed again. A sync now writes a snapshot instead
    /// of a segment that builds on what the store does not offer (`SyncSession.storeOffers()`,
    /// `Notebook.builds(on:beyond:)`; Simulations/README.md, "Seed 3093").
    /// Shrunk from `memo-sim --seed 3093 --steps 3000 --replicas 8 --faults all`.
    @Test func aSegmentNeverBuildsOnWhatOnlyItsPublisherHolds() throws {
        try expectPasses(Self.seed3093Trace)
    }

    static let seed3093Trace = """
        memo-sim trace 1
        seed 3093
        engine replica
        replicas 8
        founders 5
        steps 67
        features backspace,caret-typing,clone,compact,concurrent-typing,create,delete-range,late-join,leave,paste,purge,redo,replace-all,replace-range,restore,type-forward,undo
        fault bitflips 0.018704
        fault conflicts 0.012233
        fault delay 0.189954
        fault junk 0.055805
        fault lossy 0.166018
        fault rot 0.023723
        fault stale 0.352404
        fault torn 0.018691
        fault transient 0.118833
        delay-max-ms 4393322
        snapshot-after-segments 2
        snapshot-every-operations 5000
        grace-period-ms 86400000
        memos-max 15
        memo-scalars-max 2000
        intention-check 1.0
        expect deleted-stays-deleted
        events
        6008360 r0 paste len=1 memo=1755989346 at=890876433
        6013011 r4 type dir=fwd len=1 memo=705380306 at=2277117577
        6032987 r1 type dir=fwd len=1 memo=1791854710 at=754617074
        6033543 r4 sync
        6044330 r0 sync
        6044544 r0 paste len=99 memo=645235595 at=651406880
        6277781 r5 join clone=4
        6284388 r4 delete len=1 memo=3293759041 at=853264520
        6285245 r4 sync
        13567430 r2 crash disk-op=6 performs=0 down=1
        13574302 r5 type dir=fwd len=1 memo=984378372 at=1206807098
        13581852 r5 type dir=fwd len=1 memo=608314783 at=2831817563
        13812994 r5 paste len=1 memo=113056454 at=3136894777
        13820478 r1 sync
        14207977 r5 create len=1
        14264798 r0 concurrent peers=1 dir=fwd len=1 memo=1477329294 at=3521355385
        14274588 r5 sync
        14280220 r3 sync
        34771805 r0 sync
        105834651 r0 create len=4
        105836222 r0 sync
        105873754 r0 type dir=fwd len=1 memo=2587111088 at=1049708150
        105873815 r2 type dir=fwd len=1 memo=1410477131 at=2427700718
        105873871 r2 purge memo=1931693745
        133169493 r0 sync
        133229206 r0 purge memo=721995042
        133231710 r4 type dir=fwd len=1 memo=2247147304 at=511682364
        133239653 r4 sync
        225061174 r2 type dir=fwd len=1 memo=1235557629 at=558713200
        225117781 r0 concurrent peers=4 dir=back len=1 memo=1995103511 at=2975068564
        225914919 r0 sync
        225936520 r0 backspace len=1 memo=249285579 at=760657591
        225936649 r5 replace del=1 len=1 memo=4042112421 at=2279311696
        225937199 r0 sync
        225944685 r0 paste len=1 memo=2132249102 at=4074745526
        225948698 r0 sync
        258697738 r5 sync
        260964558 r4 sync
        278622273 r0 paste len=1 memo=4042227696 at=3645942309
        278631285 r5 delete len=1 memo=3604126790 at=1758965162
        283415985 r0 sync
        284307360 r5 sync
        303553821 r1 sync
        306861361 r1 sync
        306863552 r4 sync
        306866007 r1 type dir=fwd len=1 memo=4053698783 at=1058848509
        306866032 r0 sync
        307932365 r1 sync
        308246125 r2 sync
        308246497 r4 sync
        345602297 r1 type dir=fwd len=1 memo=3357647573 at=3494852475
        345604189 r2 sync
        430258244 r0 replace del=1 len=1 memo=1497855780 at=3897176722
        430265929 r0 backup
        430271426 r0 sync
        430544573 r0 sync
        430544780 r0 undo memo=1996345995 len=1
        430816284 r1 sync
        631908670 r4 sync
        634610749 r3 store-loss which=2842672653
        634612063 r0 crash down=1
        664358319 r4 sync
        664551441 r0 delete len=3 memo=2597236113 at=893827969
        735191522 r0 sync
        774692241 r0 sync
        774758133 r0 restore-backup which=675737218
        3072960003 r1 leave graceful=0
        """
}
