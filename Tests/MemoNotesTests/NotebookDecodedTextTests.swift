import MemoCRDT
import TestSupport
import Testing

@testable import MemoNotes

/// Texts turned back into their encoded bodies (`Notebook.releaseDecodedTexts`) and decoded
/// again on next use behave as the texts they were: what undo and redo record and put back
/// depends on the sequence only, never on how a copy of a text is cut into spans (a decoded
/// text is cut otherwise than the one it was encoded from). The random collaboration of
/// `NotebookRandomTests.releasingDecodedTextsChangesNothing` covers the rest.
@Suite struct NotebookDecodedTextTests {
    /// A notebook of replica 3 holding `memoCount` memos (ids drawn from `random`, texts
    /// `text(index)`, created at 100 ms plus their index), and their ids in creation order.
    static func notebook(memoCount: Int, idsFrom random: inout SeededRandom, text: (Int) -> String = { "memo \($0)" }) throws -> (Notebook, [MemoID]) {
        var notebook = Notebook(replica: ReplicaID(3))
        var ids: [MemoID] = []
        for index in 0..<memoCount {
            let id = MemoID(using: &random)
            try notebook.createMemo(id, text: text(index), wallMilliseconds: 100 + UInt64(index))
            ids.append(id)
        }
        return (notebook, ids)
    }

    /// One memo edited, undone and redone, with and without its text turned back at random
    /// points: the same texts and the same operations, byte for byte. Before `characterRuns`
    /// and `sequenceStretchLengths` gave maximal runs, seed 282 put back a deleted "日" and the
    /// zero-width joiner after it as one insertion in the text that was never turned back and
    /// as two in the other.
    @Test(arguments: testSeeds(300, salt: 0xDEC1) + [282])
    func undoAndRedoDoNotDependOnSpans(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var kept = Notebook(replica: ReplicaID(5))
        kept.keepsHistory = true
        let id = MemoID(high: 1, low: seed)
        try kept.createMemo(id, text: RandomText.string(random.int(in: 5...30), using: &random), wallMilliseconds: 1)
        var released = kept
        var now: UInt64 = 10
        for _ in 0..<12 {
            now += 1_000
            let count = kept.memo(id)!.text.unicodeScalars.count
            let lower = random.int(in: 0...count)
            let upper = min(count, lower + random.int(in: 0...5))
            let replacement = random.chance(0.5) ? "" : RandomText.string(random.int(in: 1...4), using: &random)
            switch random.int(in: 0..<4) {
            case 0, 1:
                try kept.edit(id, replacingScalars: lower..<upper, with: replacement, wallMilliseconds: now)
                try released.edit(id, replacingScalars: lower..<upper, with: replacement, wallMilliseconds: now)
            case 2:
                if kept.canUndo(id) {
                    try kept.undo(id, wallMilliseconds: now)
                    try released.undo(id, wallMilliseconds: now)
                }
            default:
                if kept.canRedo(id) {
                    try kept.redo(id, wallMilliseconds: now)
                    try released.redo(id, wallMilliseconds: now)
                }
            }
            if random.chance(0.5) {
                kept.endUndoGrouping()
                released.endUndoGrouping()
            }
            if random.chance(0.5) { released.releaseDecodedTexts(keepingMostRecent: 0) }
            #expect(kept.memo(id)?.text == released.memo(id)?.text, "seed \(seed)")
            #expect(kept.canUndo(id) == released.canUndo(id) && kept.canRedo(id) == released.canRedo(id), "seed \(seed)")
            #expect(try kept.changes(since: VersionVector()).encoded() == released.changes(since: VersionVector()).encoded(), "seed \(seed)")
        }
    }

    /// The budget keeps the texts used last, and `decodedTextCount` counts what is decoded.
    @Test func releasingKeepsTheTextsUsedLast() throws {
        var random = SeededRandom(seed: 0xDEC2)
        var (notebook, ids) = try Self.notebook(memoCount: 6, idsFrom: &random)
        #expect(notebook.decodedTextCount == 6)
        // Used last: memos 4, 1, 2 (in that order of use).
        try notebook.edit(ids[4], replacingScalars: 0..<0, with: "a", wallMilliseconds: 200)
        try notebook.edit(ids[1], replacingScalars: 0..<0, with: "b", wallMilliseconds: 201)
        try notebook.edit(ids[2], replacingScalars: 0..<0, with: "c", wallMilliseconds: 202)
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 2) == 4)
        #expect(notebook.decodedTextCount == 2)
        let decoded = ids.indices.filter {
            if case .materialized = notebook.memos[existing: ids[$0]].text { return true }
            return false
        }
        #expect(decoded == [1, 2])
        // At most a batch at a time; nothing left to release below the count.
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 0, atMost: 1) == 1)
        #expect(notebook.decodedTextCount == 1)
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 5) == 0)
        // Texts come back on use, with everything they held.
        try notebook.edit(ids[4], replacingScalars: 0..<0, with: "d", wallMilliseconds: 300)
        #expect(notebook.memo(ids[4])?.text == "damemo 4")
        #expect(notebook.decodedTextCount == 2)
        try notebook.checkInvariants()
        // A call with nothing decoded since skips its pass; a smaller count, a text decoded
        // since, or a memo added since does not.
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 2) == 0)
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 2) == 0)
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 1) == 1)
        try notebook.prepareForEditing(ids[0])
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 1) == 1)
        try notebook.createMemo(MemoID(using: &random), text: "", wallMilliseconds: 400)
        #expect(notebook.decodedTextCount == 2)
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 1) == 1)
        #expect(notebook.decodedTextCount == 1)
    }

    /// A release in steps (what `Replica` does, a few texts per hold of its lock): the decoded
    /// texts listed, ordered least recently used first, then turned back a few at a time. A text
    /// edited between the steps is the most recent then, and stays decoded; the others go in
    /// the order one call would have chosen, and the result is the notebook one call gives.
    @Test func aReleaseInStepsKeepsATextUsedBetweenThem() throws {
        var random = SeededRandom(seed: 0xDEC5)
        var (notebook, ids) = try Self.notebook(memoCount: 8, idsFrom: &random)
        var oneCall = notebook
        #expect(oneCall.releaseDecodedTexts(keepingMostRecent: 2) == 6)
        guard let pass = notebook.beginReleasePass(keepingMostRecent: 2, keepingTextsDecodedForReading: true) else {
            Issue.record("no pass begun over 8 decoded texts keeping 2")
            return
        }
        #expect(pass.memoCount == 8 && pass.keep == 2)
        // Listed in slices, as the replica does.
        let listed = notebook.decodedTextUses(in: 0..<3) + notebook.decodedTextUses(in: 3..<8)
        #expect(listed == notebook.decodedTextUses(in: 0..<100))
        #expect(listed.map(\.index) == Array(0..<8))
        let chosen = Notebook.leastRecentlyUsed(listed, beyond: 2)
        #expect(chosen.map(\.index) == Array(0..<6))
        // Same as one call, in steps of two.
        var steps = notebook
        for start in stride(from: chosen.startIndex, to: chosen.endIndex, by: 2) {
            #expect(steps.releaseDecodedTexts(chosen[start..<min(chosen.endIndex, start + 2)], bodiesEncodedIn: nil) == 2)
        }
        #expect(steps.encoded() == oneCall.encoded() && steps.decodedTextCount == oneCall.decodedTextCount)
        // Memo 3 edited after the list was made: it stays decoded, the others go.
        #expect(notebook.releaseDecodedTexts(chosen.prefix(2), bodiesEncodedIn: nil) == 2)
        try notebook.edit(ids[3], replacingScalars: 0..<0, with: "x", wallMilliseconds: 300)
        #expect(notebook.releaseDecodedTexts(chosen.dropFirst(2), bodiesEncodedIn: nil) == 3)
        let decoded = ids.indices.filter {
            if case .materialized = notebook.memos[existing: ids[$0]].text { return true }
            return false
        }
        #expect(decoded == [3, 6, 7])
        #expect(notebook.memo(ids[3])?.text == "xmemo 3")
        try notebook.checkInvariants()
        // No more than three decoded: a pass that lists three, finished, settles the notebook, and
        // the next pass is skipped until a text is used.
        guard let settling = notebook.beginReleasePass(keepingMostRecent: 3, keepingTextsDecodedForReading: true) else {
            Issue.record("no pass begun over 3 decoded texts keeping 3")
            return
        }
        let three = notebook.decodedTextUses(in: 0..<settling.memoCount)
        #expect(three.count == 3)
        notebook.finishReleasePass(settling, listed: three.count)
        #expect(notebook.beginReleasePass(keepingMostRecent: 3, keepingTextsDecodedForReading: true) == nil)
        try notebook.prepareForEditing(ids[0])
        #expect(notebook.beginReleasePass(keepingMostRecent: 3, keepingTextsDecodedForReading: true) != nil)
    }

    /// Reads of a text turned back into its body (a caret read at every keystroke, a past
    /// version) decode it once, not at every read, through the cache the notebook's copies share;
    /// an edit then takes that text instead of decoding again; a text turned back again (another
    /// body) is decoded anew; an app told that memory is low empties the cache; it holds four
    /// texts at most.
    @Test func readsOfATextTurnedBackDecodeItOnce() throws {
        var random = SeededRandom(seed: 0xDEC3)
        var (notebook, ids) = try Self.notebook(memoCount: 6, idsFrom: &random, text: { "memo \($0): ça, 한국어, かな" })
        notebook.releaseDecodedTexts(keepingMostRecent: 0)
        #expect(notebook.decodedTextCount == 0)
        let copy = notebook
        let anchor = try copy.anchor(in: ids[0], atUTF16: 4)
        #expect(try copy.utf16Offset(of: anchor, in: ids[0]) == 4)
        #expect(try notebook.utf16Offset(of: anchor, in: ids[0]) == 4)
        #expect(notebook.decodedTextCache.count == 1)
        #if MEMOSYNC_INTERNAL_CHECKS
        let cache = notebook.decodedTextCache
        #expect(cache.debugDecodeCount == 1, "three reads, one decode")
        // An edit takes the text the reads decoded.
        try notebook.edit(ids[0], replacingUTF16: 4..<4, with: "!", wallMilliseconds: 200)
        #expect(cache.debugDecodeCount == 1)
        #expect(notebook.decodedTextCache.count == 0)
        #expect(notebook.memo(ids[0])?.text == "memo! 0: ça, 한국어, かな")
        // Turned back again: another body, decoded again at the next read, once.
        notebook.releaseDecodedTexts(keepingMostRecent: 0)
        #expect(try notebook.utf16Offset(of: anchor, in: ids[0]) == 4)
        #expect(try notebook.utf16Offset(of: anchor, in: ids[0]) == 4)
        #expect(cache.debugDecodeCount == 2)
        // The copy made before the edit still reads its own text, not the edited one.
        #expect(try copy.text(of: ids[0], at: copy.memos[existing: ids[0]].text.version) == "memo 0: ça, 한국어, かな")
        #endif
        for id in ids { _ = try notebook.anchor(in: id, atUTF16: 1) }
        #expect(notebook.decodedTextCache.count == DecodedTextCache.capacity)
        notebook.releaseDecodedTexts(keepingMostRecent: 0)
        #expect(notebook.decodedTextCache.count == 0)
    }

    /// Two copies with the same text version and body but different kept history (one dropped
    /// it) share the cache and never read each other's text: a past version shows on the copy
    /// that keeps it and is refused on the other, in either order.
    @Test func copiesThatKeepDifferentHistoryNeverShareADecodedText() throws {
        for readsKeptFirst in [true, false] {
            var notebook = Notebook(replica: ReplicaID(4))
            notebook.keepsHistory = true
            let id = MemoID(high: 4, low: 4)
            try notebook.createMemo(id, text: "keep this, drop that", wallMilliseconds: 1_000)
            let before = notebook.memos[existing: id].text.version
            try notebook.edit(id, replacingUTF16: 10..<20, with: "", wallMilliseconds: 2_000)
            var dropped = notebook
            dropped.dropHistory(deletedBeforeWallMilliseconds: .max)
            notebook.releaseDecodedTexts(keepingMostRecent: 0)
            dropped.releaseDecodedTexts(keepingMostRecent: 0)
            #expect(notebook.memos[existing: id].text.version == dropped.memos[existing: id].text.version)
            func readKept() throws { #expect(try notebook.text(of: id, at: before) == "keep this, drop that") }
            func readDropped() {
                #expect(throws: NotebookError.self) { try dropped.text(of: id, at: before) }
            }
            if readsKeptFirst {
                try readKept()
                readDropped()
            } else {
                readDropped()
                try readKept()
            }
            try readKept()
            readDropped()
        }
    }

    /// The storage a record's encoded text refers to (its buffer's address), nil when decoded.
    static func encodedBuffer(_ notebook: Notebook, _ id: MemoID) -> UnsafeRawPointer? {
        guard case let .encoded(bytes, _, _, _, _, _, _) = notebook.memos[existing: id].text else { return nil }
        return bytes.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
    }

    /// Texts decoded from a loaded state and given back unchanged refer to the loaded bytes
    /// again, not to copies of their own: an app that decodes every memo and gives the texts
    /// back under memory pressure, over and over, must not grow by the whole state each round
    /// (at 100,000 memos, 220 MB a round before; BENCHMARKS.md, "Texts given back into the
    /// bytes they came from"). A text changed since gets a body of its own, and everything
    /// encodes as before.
    @Test func textsGivenBackUnchangedReferToTheLoadedBytes() throws {
        var random = SeededRandom(seed: 0xDEC7)
        let tails = (0..<12).map { _ in RandomText.string(20, using: &random) }
        var (source, ids) = try Self.notebook(memoCount: 12, idsFrom: &random) { "memo \($0): ça, 한국어, かな " + tails[$0] }
        try source.edit(ids[3], replacingScalars: 2..<6, with: "", wallMilliseconds: 500)
        let state = source.encoded()
        var notebook = try Notebook(decoding: state, replica: ReplicaID(3))
        let loaded = Self.encodedBuffer(notebook, ids[0])
        #expect(loaded != nil)
        #expect(ids.allSatisfy { Self.encodedBuffer(notebook, $0) == loaded }, "a loaded notebook's texts share its buffer")

        for round in 0..<3 {
            for id in ids { try notebook.prepareForEditing(id) }
            #expect(notebook.decodedTextCount == ids.count)
            #if MEMOSYNC_INTERNAL_CHECKS
            let before = notebook.decodedTextCache.debugLoadedBodiesKeptOnRelease
            #endif
            #expect(notebook.releaseDecodedTexts(keepingMostRecent: 0) == ids.count)
            #if MEMOSYNC_INTERNAL_CHECKS
            #expect(notebook.decodedTextCache.debugLoadedBodiesKeptOnRelease - before == (round == 0 ? ids.count : 0))
            #endif
            for id in ids {
                #expect(Self.encodedBuffer(notebook, id) == loaded, "round \(round): memo \(id) given back into a copy of its own")
            }
            #expect(notebook.encoded() == state)
        }

        // A changed text is encoded afresh; the others still refer to the loaded bytes.
        try notebook.edit(ids[5], replacingScalars: 0..<0, with: "✓ ", wallMilliseconds: 900)
        #expect(notebook.releaseDecodedTexts(keepingMostRecent: 0) == 1)
        #expect(Self.encodedBuffer(notebook, ids[5]) != loaded && Self.encodedBuffer(notebook, ids[5]) != nil)
        #expect(ids.filter { Self.encodedBuffer(notebook, $0) == loaded }.count == ids.count - 1)
        #expect(notebook.memo(ids[5])?.text.hasPrefix("✓ memo 5") == true)
        try notebook.edit(ids[5], replacingScalars: 0..<0, with: "x", wallMilliseconds: 901)
        try notebook.checkInvariants()
        var expected = source
        try expected.edit(ids[5], replacingScalars: 0..<0, with: "✓ ", wallMilliseconds: 900)
        try expected.edit(ids[5], replacingScalars: 0..<0, with: "x", wallMilliseconds: 901)
        #expect(notebook.memo(ids[5])?.text == expected.memo(ids[5])?.text)
    }
}
