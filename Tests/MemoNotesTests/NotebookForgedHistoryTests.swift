import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// Deltas from a forged history: a second copy of a replica (an "impostor", made by copying the
/// replica before it went on) reuses operation ids the real one already spent on other
/// operations. No correct replica produces such a delta, but a hostile or damaged blob can carry
/// one with a sound checksum. Each must be refused with a typed error, change nothing, and leave
/// the notebook usable; none may stop the process.
@Suite struct NotebookForgedHistoryTests {
    private static let memo = MemoID(high: 7, low: 7)
    private static let peerID = ReplicaID(22)

    /// A peer that created the memo with "ab"; the receiving library holds all of it.
    private static func start() throws -> (peer: Notebook, library: Notebook) {
        var peer = Notebook(replica: peerID)
        try peer.createMemo(memo, text: "ab", wallMilliseconds: 1_000)
        var library = Notebook(replica: ReplicaID(1))
        try library.apply(peer.changes(since: VersionVector()))
        return (peer, library)
    }

    /// Applies `delta`, which must be refused; the library must be unchanged and still merge the
    /// real peer's history afterwards.
    private static func expectRefused(_ delta: NotebookDelta, by library: Notebook, realPeer: Notebook, _ context: String) throws {
        var library = library
        let before = library.encoded()
        let pendingBefore = library.pendingOperationCount
        var refused: NotebookError?
        do { try library.apply(delta) } catch { refused = error }
        #expect(refused != nil, "\(context): a forged delta was accepted")
        if let refused { #expect("\(refused)".contains("invalid"), "\(context): \(refused)") }
        #expect(library.encoded() == before, "\(context): changed by a refused delta")
        #expect(library.pendingOperationCount == pendingBefore, "\(context)")
        try library.checkInvariants()
        try library.apply(realPeer.changes(since: VersionVector()))
        #expect(library.memo(memo)?.text == realPeer.memo(memo)?.text, "\(context)")
        try library.checkInvariants()
    }

    /// The real peer deletes "b" (a text deletion); the impostor, copied before, types "cd" with
    /// the ids the deletion used and the one after it.
    @Test func insertionOverADeletionIsRefused() throws {
        var (peer, library) = try Self.start()
        var impostor = peer
        try peer.edit(Self.memo, replacingUTF16: 1..<2, with: "", wallMilliseconds: 2_000)
        try library.apply(peer.changes(since: VersionVector()))
        try impostor.edit(Self.memo, replacingUTF16: 2..<2, with: "c", wallMilliseconds: 2_000)
        try impostor.edit(Self.memo, replacingUTF16: 3..<3, with: "d", wallMilliseconds: 2_000)
        try Self.expectRefused(impostor.changes(since: VersionVector()), by: library, realPeer: peer, "typing over a deletion")
        // The same with only the operations the library lacks, and with every one.
        try Self.expectRefused(impostor.changes(since: library.version), by: library, realPeer: peer, "only the new part")
    }

    /// The real peer types "c"; the impostor deletes "b" with that id.
    @Test func deletionOverAnInsertionIsRefused() throws {
        var (peer, library) = try Self.start()
        var impostor = peer
        try peer.edit(Self.memo, replacingUTF16: 2..<2, with: "c", wallMilliseconds: 2_000)
        try library.apply(peer.changes(since: VersionVector()))
        try impostor.edit(Self.memo, replacingUTF16: 1..<2, with: "", wallMilliseconds: 2_000)
        try impostor.edit(Self.memo, replacingUTF16: 0..<1, with: "", wallMilliseconds: 2_000)
        try Self.expectRefused(impostor.changes(since: VersionVector()), by: library, realPeer: peer, "deleting over typing")
    }

    /// The real peer moves the memo to the trash; the impostor types with that notebook id.
    @Test func textOverALifecycleOperationIsRefused() throws {
        var (peer, library) = try Self.start()
        var impostor = peer
        try peer.moveToTrash(Self.memo, wallMilliseconds: 2_000)
        try library.apply(peer.changes(since: VersionVector()))
        try impostor.edit(Self.memo, replacingUTF16: 2..<2, with: "c", wallMilliseconds: 2_000)
        try Self.expectRefused(impostor.changes(since: VersionVector()), by: library, realPeer: peer, "typing over a trash")
        // And the other way round: a trash with the id of held text.
        var (typist, typed) = try Self.start()
        var trasher = typist
        try typist.edit(Self.memo, replacingUTF16: 2..<2, with: "c", wallMilliseconds: 2_000)
        try typed.apply(typist.changes(since: VersionVector()))
        try trasher.moveToTrash(Self.memo, wallMilliseconds: 2_000)
        try Self.expectRefused(trasher.changes(since: VersionVector()), by: typed, realPeer: typist, "a trash over typing")
    }

    /// Random forged histories: copies of one replica taken at random moments go on editing
    /// (typing, deleting, trash, restore) under the same id, and the library receives random
    /// deltas of all of them, from random earlier versions, in random order. Whatever it does
    /// with each, it never stops the process, a refused delta changes nothing, and an accepted
    /// one leaves a notebook whose invariants hold and which still encodes.
    @Test(arguments: testSeeds(32))
    func randomForgedHistoriesNeverBreakTheLibrary(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var (peer, library) = try Self.start()
        func randomEdit(_ notebook: inout Notebook) throws {
            if random.chance(0.15) {
                if notebook.memo(Self.memo)?.status == .active {
                    try notebook.moveToTrash(Self.memo, wallMilliseconds: 3_000)
                } else {
                    try notebook.restore(Self.memo, wallMilliseconds: 3_000)
                }
                return
            }
            if notebook.memo(Self.memo)?.status != .active { try notebook.restore(Self.memo, wallMilliseconds: 3_000) }
            let length = notebook.memo(Self.memo)!.text.utf16.count
            let start = random.int(in: 0...length)
            let end = min(length, start + random.int(in: 0..<3))
            let replacement = random.chance(0.5) ? "" : String(repeating: "xyz", count: random.int(in: 1...2))
            try notebook.edit(Self.memo, replacingUTF16: start..<end, with: replacement, wallMilliseconds: 3_000)
        }
        // The real peer and its copies, each going its own way from where it was copied.
        var copies = [peer]
        for _ in 0..<random.int(in: 3...8) {
            if random.chance(0.4) { copies.append(copies[random.int(in: 0..<copies.count)]) }
            let index = random.int(in: 0..<copies.count)
            try randomEdit(&copies[index])
        }
        peer = copies[0]
        var versionsSeen = [VersionVector()]
        for _ in 0..<random.int(in: 2...6) {
            let source = copies[random.int(in: 0..<copies.count)]
            let since = versionsSeen[random.int(in: 0..<versionsSeen.count)]
            let delta = try source.changes(since: since)
            let before = library.encoded()
            let pendingBefore = library.pendingOperationCount
            do {
                try library.apply(delta)
                versionsSeen.append(library.version)
            } catch {
                #expect(library.encoded() == before, "seed \(seed): changed by a refused delta (\(error))")
                #expect(library.pendingOperationCount == pendingBefore, "seed \(seed)")
            }
            try library.checkInvariants()
        }
        _ = try? library.apply(peer.changes(since: VersionVector()))
        try library.checkInvariants()
        // What it holds encodes, and decodes to the same.
        let decoded = try Notebook(decoding: library.encoded(), replica: library.replica)
        #expect(decoded.encoded() == library.encoded(), "seed \(seed)")
    }
}
