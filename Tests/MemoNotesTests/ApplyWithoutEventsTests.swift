import MemoCRDT
import TestSupport
import Testing

@testable import MemoNotes

/// `Notebook.applyWithoutEvents(_:)` (the journal replay at open) against `apply(_:)`: the same
/// report, the same error, the same notebook, and no event queued; on random deltas delivered
/// late, out of order and twice (held back, tombstones, undone calls), and invalid ones.
@Suite struct ApplyWithoutEventsTests {
    @Test(arguments: testSeeds(16, salt: 0xA9E7))
    func sameNotebookAndReportAsApply(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var authors = [Notebook(replica: ReplicaID(5)), Notebook(replica: ReplicaID(6)), Notebook(replica: ReplicaID(7))]
        var loud = Notebook(replica: ReplicaID(1))
        var quiet = loud
        var memos: [MemoID] = []
        var now: UInt64 = 1_700_000_000_000
        var deltas: [NotebookDelta] = []
        var sent = VersionVector()
        for step in 0..<300 {
            now += UInt64(random.int(in: 1...3_000))
            let index = random.int(in: 0..<authors.count)
            let known = memos.filter { authors[index].memo($0) != nil }
            let active = known.filter { authors[index].status(of: $0) == .active }
            switch random.int(in: 0..<100) {
            case 0..<10:
                let id = MemoID(using: &random)
                memos.append(id)
                try authors[index].createMemo(id, text: RandomText.string(random.int(in: 0...8), using: &random), wallMilliseconds: now)
            case 10..<60 where !active.isEmpty:
                let id = random.pick(active)
                let count = authors[index].memo(id)!.text.unicodeScalars.count
                let lower = random.int(in: 0...count)
                let upper = min(count, lower + random.int(in: 0...4))
                let replacement = random.chance(0.35) ? "" : RandomText.string(random.int(in: 1...5), using: &random)
                try authors[index].edit(id, replacingScalars: lower..<upper, with: replacement, wallMilliseconds: now)
            case 60..<64 where !active.isEmpty:
                try authors[index].moveToTrash(random.pick(active), wallMilliseconds: now)
            case 64..<67 where !known.isEmpty:
                let id = random.pick(known)
                if authors[index].status(of: id) == .trashed { try authors[index].restore(id, wallMilliseconds: now) }
            case 67..<69 where !known.isEmpty:
                try authors[index].purge(random.pick(known), wallMilliseconds: now)
            case 69..<80:
                let target = random.int(in: 0..<authors.count)
                if target != index { try authors[target].apply(authors[index].changes(since: authors[target].version)) }
            case 80..<92:
                // What an author made since some earlier point: pieces that overlap, come late
                // and need each other.
                let from = random.chance(0.5) ? sent : VersionVector()
                deltas.append(try authors[index].changes(since: from))
                sent = authors[index].version
            default:
                guard !deltas.isEmpty else { break }
                let pick = random.int(in: 0..<deltas.count)
                let delta = random.chance(0.2) ? deltas[pick] : deltas.remove(at: pick)
                try compare(delta, &loud, &quiet, "seed \(seed), step \(step)")
            }
            for author in authors.indices { _ = authors[author].takeEvents() }
        }
        for delta in deltas { try compare(delta, &loud, &quiet, "seed \(seed), settling") }
        for author in authors { try compare(author.changes(since: VersionVector()), &loud, &quiet, "seed \(seed), complete") }
        #expect(quiet.pendingOperationCount == 0, "seed \(seed)")
        #expect(quiet.list() == loud.list(), "seed \(seed)")
        for id in memos { #expect(quiet.memo(id) == loud.memo(id), "seed \(seed): memo \(id)") }
        try quiet.checkInvariants()
    }

    /// Invalid deltas are refused the same way, changing nothing.
    @Test func invalidDeltasAreRefusedTheSameWay() throws {
        var notebook = Notebook(replica: ReplicaID(1))
        try notebook.createMemo(MemoID(high: 1, low: 2), text: "kept", wallMilliseconds: 1_000)
        let before = notebook.encoded()
        let timestamp = HybridTimestamp(rawValue: 1 << 16)
        let memo = MemoID(high: 3, low: 4)
        let invalid = [
            NotebookDelta(runs: [.init(replica: ReplicaID(9), run: NotebookRun(counter: 0, length: 0, memo: memo, kind: .create, timestamp: timestamp))], texts: []),
            NotebookDelta(runs: [.init(replica: ReplicaID(9), run: NotebookRun(counter: 0, length: 2, memo: memo, kind: .text(textCounter: 0), timestamp: timestamp))], texts: []),
            NotebookDelta(runs: [.init(replica: ReplicaID(9), run: NotebookRun(counter: 0, length: 3, memo: memo, kind: .restore, timestamp: timestamp))], texts: []),
            NotebookDelta(
                runs: [
                    .init(replica: ReplicaID(9), run: NotebookRun(counter: 0, length: 1, memo: memo, kind: .create, timestamp: timestamp)),
                    .init(replica: ReplicaID(8), run: NotebookRun(counter: 0, length: 1, memo: memo, kind: .create, timestamp: timestamp)),
                ], texts: []),
        ]
        for delta in invalid {
            var loud = notebook
            var quiet = notebook
            var loudError: NotebookError?
            var quietError: NotebookError?
            do { try loud.apply(delta) } catch { loudError = error }
            do { try quiet.applyWithoutEvents(delta) } catch { quietError = error }
            #expect(loudError != nil)
            #expect(quietError.map { "\($0)" } == loudError.map { "\($0)" })
            #expect(quiet.encoded() == before)
            #expect(loud.encoded() == before)
        }
    }

    private func compare(_ delta: NotebookDelta, _ loud: inout Notebook, _ quiet: inout Notebook, _ context: String) throws {
        // Events queued before the call stay queued.
        let marker = NotebookEvent.trashed(MemoID(high: 0, low: 0), origin: .remote)
        quiet.events = [marker]
        var loudReport: NotebookApplyReport?
        var quietReport: NotebookApplyReport?
        var loudError: String?
        var quietError: String?
        do { loudReport = try loud.apply(delta) } catch { loudError = "\(error)" }
        do { quietReport = try quiet.applyWithoutEvents(delta) } catch { quietError = "\(error)" }
        _ = loud.takeEvents()
        #expect(quiet.takeEvents() == [marker], "\(context): events queued")
        #expect(quietReport == loudReport, "\(context)")
        #expect(quietError == loudError, "\(context)")
        #expect(quiet.version == loud.version, "\(context)")
        #expect(quiet.pendingOperationCount == loud.pendingOperationCount, "\(context)")
        #expect(quiet.encoded() == loud.encoded(), "\(context)")
        // (Also after a call undone for orphaned tombstones, which holds its delta back.)
        try loud.checkInvariants()
        try quiet.checkInvariants()
    }
}
