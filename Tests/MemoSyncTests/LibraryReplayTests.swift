import MemoCRDT
import TestSupport
import Testing

@testable import MemoNotes
@testable import MemoSync

/// Reopening a library replays its journal without events (`Notebook.applyWithoutEvents`):
/// checked against the plain record-by-record replay with `Notebook.apply`, on random journals
/// whose k-th record is damaged, torn, of another generation or does not apply; damage is kept
/// aside and reported, never cut, and only a torn last record is cut.
@Suite struct LibraryReplayTests {
    /// A random journal: the state file and the records, each saved after a few random changes
    /// (local edits, and deltas received from two peers, sometimes out of order).
    struct Journal {
        var state: [UInt8] = []
        var records: [[UInt8]] = []
    }

    static func randomJournal(seed: UInt64, recordCount: Int) throws -> Journal {
        var random = SeededRandom(seed: seed)
        var notebooks = [Notebook(replica: ReplicaID(11)), Notebook(replica: ReplicaID(22)), Notebook(replica: ReplicaID(33))]
        var memos: [MemoID] = []
        var now: UInt64 = 1_700_000_000_000
        var inFlight: [NotebookDelta] = []
        func step() throws {
            now += UInt64(random.int(in: 1...4_000))
            let index = random.int(in: 0..<notebooks.count)
            let known = memos.filter { notebooks[index].memo($0) != nil }
            let active = known.filter { notebooks[index].status(of: $0) == .active }
            switch random.int(in: 0..<100) {
            case 0..<10:
                let id = MemoID(using: &random)
                memos.append(id)
                try notebooks[index].createMemo(id, text: RandomText.string(random.int(in: 0...10), using: &random), wallMilliseconds: now)
            case 10..<55 where !active.isEmpty:
                let id = random.pick(active)
                let count = notebooks[index].memo(id)!.text.unicodeScalars.count
                let lower = random.int(in: 0...count)
                let upper = min(count, lower + random.int(in: 0...4))
                let replacement = random.chance(0.3) ? "" : RandomText.string(random.int(in: 1...5), using: &random)
                try notebooks[index].edit(id, replacingScalars: lower..<upper, with: replacement, wallMilliseconds: now)
            case 55..<60 where !active.isEmpty:
                try notebooks[index].moveToTrash(random.pick(active), wallMilliseconds: now)
            case 60..<63 where !known.isEmpty:
                let id = random.pick(known)
                if notebooks[index].status(of: id) == .trashed { try notebooks[index].restore(id, wallMilliseconds: now) }
            case 63..<65 where !known.isEmpty:
                try notebooks[index].purge(random.pick(known), wallMilliseconds: now)
            case 65..<80:
                // A peer's changes reach the library (index 0), or the library's a peer; some
                // are kept for later, to arrive out of order.
                let target = random.int(in: 0..<notebooks.count)
                guard target != index else { break }
                let delta = try notebooks[index].changes(since: notebooks[target].version)
                if target == 0 && random.chance(0.3) {
                    inFlight.append(delta)
                } else {
                    try notebooks[target].apply(delta)
                }
            default:
                if !inFlight.isEmpty { try notebooks[0].apply(inFlight.remove(at: random.int(in: 0..<inFlight.count))) }
            }
            _ = notebooks[index].takeEvents()
            _ = notebooks[0].takeEvents()
        }
        for _ in 0..<random.int(in: 0...20) { try step() }
        var journal = Journal()
        var syncState = SyncState()
        journal.state = (try LibraryCore.encodeState(generation: 3, notebook: notebooks[0], syncState: syncState).state)
        var durable = notebooks[0].version
        for record in 0..<recordCount {
            for _ in 0..<random.int(in: 1...8) { try step() }
            var recorded: SyncState?
            if random.chance(0.4) {
                syncState.lastSyncMilliseconds = now
                syncState.operationsAtLastSnapshot = UInt64(record)
                recorded = syncState
            }
            journal.records.append(
                LibraryCore.encodeRecord(generation: 3, delta: try notebooks[0].changes(since: durable), syncState: recorded))
            durable = notebooks[0].version
        }
        return journal
    }

    /// The plain replay: every intact record (`LibraryJournal.parts`) through `Notebook.apply`,
    /// in order, a record that throws skipped; events taken and dropped.
    static func referenceReplay(state: [UInt8], journal: [UInt8]) throws -> (notebook: Notebook, syncState: SyncState, records: Int, damaged: Bool, tornStart: Int?) {
        let decoded = try LibraryCore.decodeState(state)
        var notebook = decoded.notebook
        // A library keeps history (issue 27): its journal's deletions keep what they delete.
        notebook.keepsHistory = true
        var syncState = decoded.syncState
        var records = 0
        var damaged = false
        var tornStart: Int?
        let parts = LibraryJournal.parts(journal) { body, version in
            LibraryCore.decodeRecordBody(journal, body, version: version, generation: decoded.generation, replica: decoded.notebook.replica) != nil
        }
        for part in parts {
            switch part {
            case let .record(_, body, version, damagedHeader):
                damaged = damaged || damagedHeader
                let record = try #require(
                    LibraryCore.decodeRecordBody(journal, body, version: version, generation: decoded.generation, replica: decoded.notebook.replica))
                guard (try? notebook.apply(record.delta)) != nil else {
                    damaged = true
                    continue
                }
                if let recorded = record.syncState { syncState = recorded }
                records += 1
            case .damaged: damaged = true
            case let .torn(range): tornStart = range.lowerBound
            }
        }
        _ = notebook.takeEvents()
        return (notebook, syncState, records, damaged, tornStart)
    }

    /// A record whose envelope and checksum are sound but whose delta no replica could make.
    static func invalidRecord(_ random: inout SeededRandom) -> [UInt8] {
        let memo = MemoID(using: &random)
        let run: NotebookRun
        if random.chance(0.5) {
            // A text run without its text operations.
            run = NotebookRun(counter: 0, length: 2, memo: memo, kind: .text(textCounter: 0), timestamp: HybridTimestamp(rawValue: 1 << 16))
        } else {
            // A lifecycle run of several operations.
            run = NotebookRun(counter: 0, length: 3, memo: memo, kind: .restore, timestamp: HybridTimestamp(rawValue: 1 << 16))
        }
        let delta = NotebookDelta(runs: [NotebookDelta.ReplicaRun(replica: ReplicaID(99), run: run)], texts: [])
        return LibraryCore.encodeRecord(generation: 3, delta: delta, syncState: SyncState())
    }

    /// The open path and the reference agree on the kept offset, the repairs, the notebook and
    /// the sync state, whatever happens to the k-th record.
    @Test(arguments: testSeeds(24, salt: 0x7E91))
    func replayMatchesRecordByRecordApply(seed: UInt64) throws {
        var random = SeededRandom(seed: seed ^ 0x5EED)
        let recordCount = random.int(in: 1...12)
        let journal = try Self.randomJournal(seed: seed, recordCount: recordCount)
        let damaged = random.int(in: 0..<recordCount)
        let damage = random.int(in: 0..<6)
        var bytes: [UInt8] = []
        var damagedStart = 0
        for (index, record) in journal.records.enumerated() {
            if index == damaged { damagedStart = bytes.count }
            guard index == damaged else {
                bytes += record
                continue
            }
            switch damage {
            case 0:
                bytes += record  // intact
            case 1:
                var flipped = record
                flipped[random.int(in: 0..<flipped.count)] ^= UInt8(1 << random.int(in: 0..<8))
                bytes += flipped
            case 2:
                bytes += record.prefix(random.int(in: 1..<record.count))  // torn
            case 3:
                bytes += LibraryCore.encodeRecord(generation: 4, delta: NotebookDelta(), syncState: nil)
            case 4:
                bytes += Self.invalidRecord(&random)
            default:
                // Out of order: the next record's delta first (it may be held back, or apply).
                let next = journal.records[min(index + 1, journal.records.count - 1)]
                bytes += next + record
            }
        }
        let reference = try Self.referenceReplay(state: journal.state, journal: bytes)
        let journalName = LibraryCore.journalFileName(generation: 3)
        let recovered = try #require(
            try LibraryCore.recover(files: ["state", journalName], contents: ["state": journal.state, journalName: bytes]),
            "seed \(seed)")
        let context = "seed \(seed), record \(damaged) of \(recordCount), damage \(damage)"
        #expect(recovered.report.journalRecords == reference.records, "\(context)")
        let isLast = damaged == recordCount - 1
        if reference.damaged {
            // Damage: never cut; the journal kept aside whole; a compaction keeps what was read.
            #expect(recovered.report.damage.first?.file == journalName, "\(context)")
            #expect(recovered.repairs.contains(.rename(from: journalName, to: journalName + ".damaged-1")), "\(context)")
            #expect(!recovered.repairs.contains { if case .truncate = $0 { true } else { false } }, "\(context)")
            #expect(!recovered.repairs.contains(.delete(file: journalName)), "\(context)")
            #expect(recovered.report.damage.first?.recordsRecovered == reference.records, "\(context)")
        } else if let tornStart = reference.tornStart {
            #expect(recovered.report.damage.isEmpty, "\(context)")
            #expect(recovered.core.journalBytes == tornStart, "\(context)")
            #expect(recovered.report.discardedJournalBytes == bytes.count - tornStart, "\(context)")
            #expect(recovered.repairs.contains(.truncate(file: journalName, length: tornStart)), "\(context)")
        } else {
            #expect(recovered.report.damage.isEmpty, "\(context)")
            #expect(recovered.repairs.isEmpty, "\(context)")
            #expect(recovered.core.journalBytes == bytes.count, "\(context)")
        }
        // A flipped bit, a record of another generation: damage, wherever it is; a torn
        // record: a torn tail when it is the last one, damage otherwise.
        if damage == 1 || damage == 3 || (damage == 2 && !isLast) {
            #expect(reference.damaged, "\(context): not reported as damage")
        }
        if damage == 2 && isLast { #expect(reference.tornStart == damagedStart, "\(context): the torn tail") }
        #expect(recovered.syncState == reference.syncState, "\(context)")
        #expect(recovered.core.durableSyncState == reference.syncState, "\(context)")
        #expect(recovered.notebook.version == reference.notebook.version, "\(context)")
        #expect(recovered.core.durableVersion == reference.notebook.version, "\(context)")
        #expect(recovered.notebook.pendingOperationCount == reference.notebook.pendingOperationCount, "\(context)")
        #expect(recovered.notebook.encoded() == reference.notebook.encoded(), "\(context)")
        #expect(recovered.notebook.list() == reference.notebook.list(), "\(context)")
        #expect(recovered.notebook.trash() == reference.notebook.trash(), "\(context)")
        var notebook = recovered.notebook
        #expect(notebook.takeEvents().isEmpty, "\(context)")
        if (try? reference.notebook.checkInvariants()) != nil { try recovered.notebook.checkInvariants() }
    }

    /// Library files whose bodies were changed at random and sealed again with a sound checksum
    /// (a damaged disk that kept checksums right, or a hostile program): opening refuses them
    /// with a typed error, or recovers a notebook whose invariants hold and whose state encodes
    /// and decodes again. Never a crash.
    @Test(arguments: testSeeds(12, salt: 0x0BAD))
    func hostileLibraryFilesNeverStopTheOpen(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let journal = try Self.randomJournal(seed: seed, recordCount: 4)
        let journalName = LibraryCore.journalFileName(generation: 3)
        func resealed(_ bytes: [UInt8], framed: Bool = false) throws -> [UInt8] {
            if framed { return LibraryJournal.frame(try resealed(Array(bytes.dropFirst(LibraryJournal.headerBytes)))) }
            let (range, version) = try BlobEnvelope.open(bytes, kind: .localFile, versions: 1...LibraryCore.formatVersion)
            var body = Array(bytes[range])
            for _ in 0..<random.int(in: 1...3) where !body.isEmpty {
                let index = random.int(in: 0..<body.count)
                switch random.int(in: 0..<4) {
                case 0: body[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: body.remove(at: index)
                case 2: body.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                default: body[index] = random.pick([0x00, 0x01, 0x7F, 0x80, 0xFF])
                }
            }
            return BlobEnvelope.seal(kind: .localFile, version: version, body: body)
        }
        var opened = 0
        for attempt in 0..<150 {
            var state = journal.state
            var records = journal.records
            if random.chance(0.5) {
                state = try resealed(state)
            } else if !records.isEmpty {
                let index = random.int(in: 0..<records.count)
                records[index] = try resealed(records[index], framed: true)
            }
            let contents = ["state": state, journalName: records.flatMap { $0 }]
            let recovery: LibraryCore.Recovery?
            do {
                recovery = try LibraryCore.recover(files: ["state", journalName], contents: contents)
            } catch {
                continue
            }
            guard let recovery else { continue }
            opened += 1
            let context = "seed \(seed), attempt \(attempt)"
            try recovery.notebook.checkInvariants()
            var notebook = recovery.notebook
            let encoded = (try LibraryCore.encodeState(generation: 4, keepingTextBodiesOf: &notebook, syncState: recovery.syncState).state)
            let reopened = try LibraryCore.decodeState(encoded)
            #expect(reopened.notebook.encoded() == recovery.notebook.encoded(), "\(context)")
            #expect(reopened.syncState == recovery.syncState, "\(context)")
        }
        #expect(opened > 0, "seed \(seed): no damaged library opened")
    }
}
