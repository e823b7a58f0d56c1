// Merging received work in pieces (issue 25, part 4): a large segment is applied in bounded
// pieces with the replica's lock released between them, so an edit never waits for a whole
// merge; and the pieces give what the whole segment gives.

import Foundation
import MemoCRDT
import MemoNotes
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

@Suite("received work merges in pieces")
struct PieceMergeTests {
    /// The seed of a randomized test: `MEMOSYNC_SEED` when set, else `fallback`.
    static func seed(_ fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["MEMOSYNC_SEED"].flatMap { UInt64($0) } ?? fallback
    }

    /// Random edits of `notebook`: new memos, insertions, deletions (of text just typed too,
    /// so the delta carries tombstones), trash and restore.
    static func edit(_ notebook: inout Notebook, steps: Int, random: inout SeededRandom, now: inout UInt64) throws {
        for _ in 0..<steps {
            now += 1
            let ids = notebook.list().map(\.id)
            let choice = Int.random(in: 0..<10, using: &random)
            if ids.isEmpty || choice == 0 {
                try notebook.createMemo(MemoID(using: &random), text: "memo \(Int.random(in: 0..<100, using: &random))", wallMilliseconds: now)
                continue
            }
            let id = ids[Int.random(in: 0..<ids.count, using: &random)]
            let length = notebook.memo(id)?.text.utf16.count ?? 0
            if choice <= 5 || length == 0 {
                let at = Int.random(in: 0...length, using: &random)
                try notebook.edit(id, replacingUTF16: at..<at, with: String(repeating: "ab", count: Int.random(in: 1...6, using: &random)), wallMilliseconds: now)
            } else if choice <= 8 {
                let lower = Int.random(in: 0..<length, using: &random)
                let upper = min(length, lower + Int.random(in: 1...5, using: &random))
                let text = Array(notebook.memo(id)!.text.utf16)
                // Keep surrogate pairs whole (the texts are ASCII here, but be safe).
                guard String(utf16CodeUnits: Array(text[lower..<upper]), count: upper - lower).utf16.count == upper - lower else { continue }
                try notebook.edit(id, replacingUTF16: lower..<upper, with: "", wallMilliseconds: now)
            } else {
                try notebook.moveToTrash(id, wallMilliseconds: now)
                if Bool.random(using: &random) { try notebook.restore(id, wallMilliseconds: now) }
            }
        }
    }

    /// A notebook of replica 1 after `baseSteps` random edits, a fork of it (replica 2) after
    /// a number of further edits drawn from `writerSteps`, and the fork's changes since the base.
    static func writerDelta(
        baseSteps: Int, writerSteps: ClosedRange<Int>, random: inout SeededRandom, now: inout UInt64
    ) throws -> (base: Notebook, writer: Notebook, delta: NotebookDelta) {
        var base = Notebook(replica: ReplicaID(1))
        try edit(&base, steps: baseSteps, random: &random, now: &now)
        var writer = base.fork(replica: ReplicaID(2))
        try edit(&writer, steps: Int.random(in: writerSteps, using: &random), random: &random, now: &now)
        return (base, writer, try writer.changes(since: base.version))
    }

    @Test("applied piece by piece, with local edits between pieces, a delta gives what it gives whole")
    func piecesGiveTheWhole() throws {
        let seed = Self.seed(0x9E_C3)
        print("PieceMergeTests.piecesGiveTheWhole seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        for round in 0..<12 {
            var now: UInt64 = 1_000
            let (base, writer, delta) = try Self.writerDelta(baseSteps: 30, writerSteps: 20...120, random: &random, now: &now)
            let maxOperations = Int.random(in: 1...40, using: &random)
            let pieces = delta.pieces(maxOperations: maxOperations)
            #expect(pieces.reduce(0) { $0 + $1.operationCount } == delta.operationCount, "round \(round)")
            // A piece over the bound is one long run, or pieces joined by a tombstone's tie.
            #expect(pieces.allSatisfy { $0.operationCount <= maxOperations || $0.runCount == 1 || $0.hasTombstones }, "round \(round)")

            var whole = base.fork(replica: ReplicaID(3))
            try whole.apply(delta)
            var stepped = base.fork(replica: ReplicaID(4))
            try stepped.validateRunsAndTextCounts(of: delta)
            for piece in pieces {
                try stepped.apply(piece)
                // Between pieces: a local edit (typing goes on), and every invariant holds.
                try Self.edit(&stepped, steps: 1, random: &random, now: &now)
                try stepped.checkInvariants()
            }
            #expect(stepped.pendingOperationCount == 0, "round \(round): held back after the last piece")
            // What the stepped notebook holds of the writer is exactly the delta's.
            for entry in writer.version.entries {
                #expect(stepped.version[entry.replica] == entry.operationCount, "round \(round)")
            }
            // The whole-applied notebook and the stepped one converge once the stepped one's own
            // edits reach it.
            try whole.apply(try stepped.changes(since: whole.version))
            #expect(whole.encoded() == stepped.encoded(), "round \(round) (seed \(seed))")
            for id in whole.memoIDs { #expect(whole.memo(id)?.text == stepped.memo(id)?.text, "round \(round)") }
        }
    }

    @Test("the pieces a driver cuts outside the lock are the session's own, and a delta held otherwise is refused whole")
    func preparedPiecesAreTheSessionsOwn() throws {
        let seed = Self.seed(0x9E_C4)
        print("PieceMergeTests.preparedPiecesAreTheSessionsOwn seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        var now: UInt64 = 1_000
        let (base, writer, delta) = try Self.writerDelta(baseSteps: 40, writerSteps: 150...250, random: &random, now: &now)
        var configuration = SyncConfiguration()
        configuration.mergePieceOperationsMax = 8
        let prepared = SyncSession.PreparedPieces(delta, checkedAgainst: base, configuration: configuration)
        #expect(prepared.refusal == nil)
        let own = delta.pieces(maxOperations: 8)
        #expect(prepared.pieces.count == own.count && own.count > 1)
        #expect(prepared.pieces.map(\.operationCount) == own.map(\.operationCount))
        let ranges = { (pieces: [NotebookDelta]) in pieces.map { $0.counterRanges.map { "\($0.replica):\($0.counters)" } } }
        #expect(ranges(prepared.pieces) == ranges(own))
        var stepped = base.fork(replica: ReplicaID(5))
        for piece in prepared.pieces { try stepped.apply(piece) }
        #expect(stepped.pendingOperationCount == 0)
        for id in writer.memoIDs { #expect(stepped.memo(id)?.text == writer.memo(id)?.text) }

        // A notebook that holds the writer's counters as other operations (another history
        // under the same id) refuses the delta whole, before any piece, as the session did.
        var other = base.fork(replica: ReplicaID(2))
        try Self.edit(&other, steps: 150, random: &random, now: &now)
        var holder = base.fork(replica: ReplicaID(6))
        try holder.apply(other.changes(since: base.version))
        let refused = SyncSession.PreparedPieces(delta, checkedAgainst: holder, configuration: configuration)
        var expected: NotebookError?
        do { try holder.validateRunsAndTextCounts(of: delta) } catch { expected = error }
        #expect(expected != nil)
        #expect(refused.refusal == expected)
        // One piece: nothing to check first (the piece is checked as it applies).
        var whole = configuration
        whole.mergePieceOperationsMax = delta.operationCount
        let one = SyncSession.PreparedPieces(delta, checkedAgainst: holder, configuration: whole)
        #expect(one.pieces.count == 1 && one.refusal == nil)
    }

    @Test("pieces of a history several replicas wrote by turns come in time order: little waits between them")
    func piecesOfTurnsComeInTimeOrder() throws {
        let seed = Self.seed(0x7E_45)
        print("PieceMergeTests.piecesOfTurnsComeInTimeOrder seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        var now: UInt64 = 1_000
        // Three replicas type by turns, each after merging the others, the one with the
        // highest id first: in replica order, the lowest id's typing (which builds on the
        // others') would come first and wait for nearly everything.
        var writers = [ReplicaID(0xA), ReplicaID(0xB), ReplicaID(0xC)].map { Notebook(replica: $0) }
        var memos: [MemoID] = []
        for round in 0..<12 {
            for index in [2, 1, 0] {
                var writer = writers[index]
                for other in writers where other.replica != writer.replica { try writer.merge(other) }
                if round % 4 == 0 {
                    now += 1
                    let id = MemoID(using: &random)
                    try writer.createMemo(id, text: "memo \(round) ", wallMilliseconds: now)
                    memos.append(id)
                }
                for memo in memos {
                    now += 1
                    let length = writer.memo(memo)?.text.utf16.count ?? 0
                    let at = Int.random(in: 0...length, using: &random)
                    try writer.edit(memo, replacingUTF16: at..<at, with: "r\(round)w\(index) ", wallMilliseconds: now)
                }
                writers[index] = writer
            }
        }
        var everything = writers[0]
        for other in writers.dropFirst() { try everything.merge(other) }
        // A device that holds a memo of its own merges it all in pieces.
        var device = Notebook(replica: ReplicaID(0xD))
        try device.createMemo(MemoID(using: &random), text: "mine", wallMilliseconds: 1)
        let delta = try everything.changes(since: device.version)
        let pieces = delta.pieces(maxOperations: 8)
        #expect(pieces.count > 100)
        #expect(pieces.reduce(0) { $0 + $1.operationCount } == delta.operationCount)
        var mostHeldBack = 0
        for piece in pieces {
            try device.apply(piece)
            mostHeldBack = max(mostHeldBack, device.pendingOperationCount)
        }
        // In replica order, replica 0xA's pieces came first, and its first edit builds on a
        // memo 0xC created: all its typing, a third of the delta, was held back at once. In
        // time order, only what a piece's later runs build on from a piece still to come
        // (a piece holds several runs of one replica) waits: a few pieces' worth at most.
        #expect(delta.operationCount > 1_000)
        #expect(mostHeldBack <= 4 * 8, "seed \(seed): \(mostHeldBack) of \(delta.operationCount) held back between pieces")
        #expect(device.pendingOperationCount == 0)
        for memo in memos { #expect(device.memo(memo)?.text == everything.memo(memo)?.text) }
    }

    @Test("a tombstone and its deletion are in one piece: a writer's pieces each apply whole, once")
    func tombstonesAndTheirDeletionsShareAPiece() throws {
        let seed = Self.seed(0x70_4B)
        print("PieceMergeTests.tombstonesAndTheirDeletionsShareAPiece seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        var tied = 0
        for round in 0..<12 {
            var now: UInt64 = 1_000
            let (base, writer, delta) = try Self.writerDelta(baseSteps: 20, writerSteps: 40...120, random: &random, now: &now)
            let maxOperations = Int.random(in: 1...8, using: &random)
            let pieces = delta.pieces(maxOperations: maxOperations)
            // Every tie joins pieces no larger than the whole, and the pieces give the whole.
            #expect(pieces.reduce(0) { $0 + $1.operationCount } == delta.operationCount, "round \(round)")
            if pieces.contains(where: { $0.operationCount > maxOperations && $0.runCount > 1 }) { tied += 1 }
            // One writer's operations build only on the base and on each other, in counter
            // order: cut right, no piece waits for a later one (a tombstone cut apart from its
            // deletion would be held back, with every piece after it, until the deletion came).
            var stepped = base.fork(replica: ReplicaID(3))
            for (index, piece) in pieces.enumerated() {
                let report = try stepped.apply(piece)
                #expect(report.appliedOperationCount == piece.operationCount, "round \(round), piece \(index) of \(pieces.count)")
                #expect(stepped.pendingOperationCount == 0, "round \(round), piece \(index) of \(pieces.count) (seed \(seed))")
            }
            for id in writer.memoIDs { #expect(stepped.memo(id)?.text == writer.memo(id)?.text, "round \(round)") }
        }
        // The rounds had tombstones to tie (typing deleted again in the same delta).
        #expect(tied > 0)
    }

    @Test("a device that holds memos bootstraps from a snapshot in pieces, typing meanwhile")
    func snapshotIntoANonEmptyNotebook() async throws {
        let seed = Self.seed(0xB007)
        print("PieceMergeTests.snapshotIntoANonEmptyNotebook seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))")
        let clock = TestEnvironment(seed: seed)
        let store = InMemoryBlobStore()
        var eager = SyncConfiguration()
        eager.snapshotEveryOperations = 1
        var small = SyncConfiguration()
        small.mergePieceOperationsMax = 3
        let writer = try Replica(disk: MemoryDisk(), environment: clock.environment, configuration: eager)
        for index in 0..<25 { _ = try writer.createMemo(text: "memo \(index)\nbody \(index)") }
        let first = try await writer.sync(with: store)
        #expect(first.publishedSnapshot != nil)
        let typist = try Replica(disk: MemoryDisk(), environment: clock.environment, configuration: small)
        let own = try typist.createMemo(text: "mine ")
        let sync = Task { try await typist.sync(with: store) }
        var typed = "mine "
        var step = 0
        while step < 10 || typist.syncProgress != nil {
            try typist.edit(own, replacingUTF16: typed.utf16.count..<typed.utf16.count, with: "k\(step) ")
            typed += "k\(step) "
            step += 1
            if step > 20_000 { break }
            await Task.yield()
        }
        let report = try await sync.value
        #expect(report.isComplete, "\(report.errors)")
        #expect(report.operationsApplied >= writer.notebook.version.operationCount)
        #expect(typist.notebook.pendingOperationCount == 0)
        for id in writer.notebook.memoIDs { #expect(typist.notebook.memo(id)?.text == writer.notebook.memo(id)?.text) }
        #expect(typist.notebook.memo(own)?.text == typed)
        try await syncUntilQuiet([typist, writer], store: store)
        expectConverged([typist, writer], seed: seed)
    }

    @Test("a sync that merges in small pieces while the user types receives everything and keeps the typing")
    func syncInSmallPiecesWhileTyping() async throws {
        let seed = Self.seed(0x51EC)
        print("PieceMergeTests.syncInSmallPiecesWhileTyping seed \(seed) (rerun with MEMOSYNC_SEED=\(seed))")
        let clock = TestEnvironment(seed: seed)
        let store = InMemoryBlobStore()
        var small = SyncConfiguration()
        small.mergePieceOperationsMax = 5
        let writer = try Replica(disk: MemoryDisk(), environment: clock.environment)
        let typist = try Replica(disk: MemoryDisk(), environment: clock.environment, configuration: small)
        var memos: [MemoID] = []
        for index in 0..<30 { memos.append(try writer.createMemo(text: "memo \(index)\n")) }
        try await writer.sync(with: store)
        try await typist.sync(with: store)
        let own = try typist.createMemo(text: "typed: ")
        // One segment of many operations over many memos, with insertions deleted again.
        for round in 0..<20 {
            for (index, memo) in memos.enumerated() where (index + round) % 3 == 0 {
                try writer.edit(memo, replacingUTF16: 0..<0, with: "w\(round)xyz ")
                if round % 4 == 0 { try writer.edit(memo, replacingUTF16: 1..<3, with: "") }
            }
        }
        let published = try await writer.sync(with: store)
        #expect(published.publishedOperationCount > 200)

        let slow = ConcurrencyTestStore(store, delay: .milliseconds(1), holding: [])
        let sync = Task { try await typist.sync(with: slow) }
        var typed = "typed: "
        var step = 0
        while step < 20 || typist.syncProgress != nil {
            let token = "k\(step) "
            try typist.edit(own, replacingUTF16: typed.utf16.count..<typed.utf16.count, with: token)
            typed += token
            step += 1
            if step > 20_000 { break }
            await Task.yield()
        }
        let report = try await sync.value
        #expect(report.isComplete, "\(report.errors)")
        #expect(report.operationsApplied >= published.publishedOperationCount)
        #expect(typist.notebook.pendingOperationCount == 0)
        for memo in memos { #expect(typist.notebook.memo(memo)?.text == writer.notebook.memo(memo)?.text) }
        #expect(typist.notebook.memo(own)?.text == typed)
        try await syncUntilQuiet([typist, writer], store: store)
        expectConverged([typist, writer], seed: seed)
    }
}
