import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// Titles, previews and search keys are derived from the text and cached lazily: edits and
/// remote changes leave any number of memos stale, and every read must still be exact.
@Suite struct NotebookDerivedTextTests {
    private let alice = ReplicaID(0xA)
    private let bob = ReplicaID(0xB)

    /// Every listed summary agrees with the memo's own text.
    private func expectListMatchesTexts(_ notebook: Notebook, _ label: String) throws {
        let list = notebook.list()
        #expect(list.count == notebook.activeMemoCount, "\(label)")
        for summary in list {
            let memo = try #require(notebook.memo(summary.id))
            #expect(summary.title == memo.title, "\(label): title of \(summary.id)")
            #expect(summary.preview == memo.preview, "\(label): preview of \(summary.id)")
        }
        try notebook.checkInvariants()
    }

    @Test func manyMemosEditedInTurnListExactly() throws {
        var notebook = Notebook(replica: alice)
        var random = SeededRandom(seed: 11)
        let ids = (0..<6).map { MemoID(high: 1, low: UInt64($0)) }
        for (index, id) in ids.enumerated() {
            try notebook.createMemo(id, text: "Memo \(index)\nbody", wallMilliseconds: 1_000 + UInt64(index))
        }
        var wall: UInt64 = 2_000
        for round in 0..<60 {
            // Hop between memos, so that many are stale at once.
            let id = ids[random.int(in: 0..<ids.count)]
            let length = try #require(notebook.memo(id)).text.unicodeScalars.count
            let at = random.int(in: 0...length)
            let marker = round % 7 == 0 ? "\n" : "k\(round)q"
            try notebook.edit(id, replacingScalars: at..<at, with: marker, wallMilliseconds: wall)
            wall += 10
            try expectListMatchesTexts(notebook, "round \(round)")
            if marker != "\n" { #expect(notebook.search(marker).map(\.id) == [id], "round \(round)") }
            if round % 20 == 19 {
                notebook.refreshSearchKeys()
                try expectListMatchesTexts(notebook, "after refreshing, round \(round)")
            }
        }
    }

    @Test func remoteChangesToManyMemosListExactly() throws {
        var a = Notebook(replica: alice)
        var b = Notebook(replica: bob)
        let ids = (0..<4).map { MemoID(high: 2, low: UInt64($0)) }
        for (index, id) in ids.enumerated() {
            try a.createMemo(id, text: "Title \(index)", wallMilliseconds: 1_000 + UInt64(index))
        }
        try b.apply(a.changes(since: b.version))
        b.refreshSearchKeys()
        // Bob edits every memo; the changes reach Alice in one delta (each memo goes stale).
        for (index, id) in ids.enumerated() {
            try b.edit(id, replacingScalars: 0..<0, with: "New \(index) ", wallMilliseconds: 5_000 + UInt64(index))
        }
        try expectListMatchesTexts(b, "bob")
        try a.apply(b.changes(since: a.version))
        try expectListMatchesTexts(a, "alice")
        for (index, id) in ids.enumerated() {
            #expect(a.list().first { $0.id == id }?.title == "New \(index) Title \(index)")
        }
        // An encoded copy decodes with fresh titles, and says the same.
        let decoded = try Notebook(decoding: a.encoded(), replica: alice)
        #expect(decoded.list() == a.list())
        a.refreshSearchKeys()
        #expect(decoded.list() == a.list())
        try expectListMatchesTexts(a, "alice after refreshing")
    }
}
