import MemoCRDT
import TestSupport
import Testing

@testable import MemoNotes

/// ``Notebook/refreshSearchKeys()`` caches what searches and lists would otherwise derive again:
/// after it, no record is left with a search key older than its text or a stale title. (Reads
/// stay exact either way, so only the records show whether the refresh did its work.)
@Suite struct RefreshSearchKeysTests {
    @Test(arguments: testSeeds(4, salt: 0x5EA5))
    func aRefreshLeavesNoRecordStale(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var notebook = Notebook(replica: ReplicaID(0xA))
        var ids: [MemoID] = []
        for index in 0..<300 {
            let id = MemoID(high: 1, low: UInt64(index))
            try notebook.createMemo(id, text: "Memo \(index) héllo", wallMilliseconds: UInt64(1_000 + index))
            ids.append(id)
        }
        notebook.refreshSearchKeys()
        // Edit a random third, search (which folds some keys itself), edit a few more.
        for (step, id) in ids.enumerated() where random.chance(0.33) {
            try notebook.edit(id, replacingScalars: 0..<0, with: "Ü\(step) ", wallMilliseconds: UInt64(5_000 + step))
        }
        _ = notebook.search("memo")
        for (step, id) in ids.enumerated() where random.chance(0.1) {
            try notebook.edit(id, replacingScalars: 0..<1, with: "x", wallMilliseconds: UInt64(9_000 + step))
        }
        notebook.refreshSearchKeys()
        expectNothingStale(notebook, "seed \(seed), edited")
        // Decoded from its state: no memo has a key yet, and none is marked stale.
        var decoded = try Notebook(decoding: notebook.encoded(), replica: ReplicaID(0xB))
        decoded.refreshSearchKeys()
        expectNothingStale(decoded, "seed \(seed), decoded")
    }

    private func expectNothingStale(_ notebook: Notebook, _ what: String) {
        for record in notebook.memos.records {
            #expect(record.searchKeyStamp == record.textStamp, "\(what): memo \(record.id) keeps a key older than its text")
            #expect(!record.derivedTextIsStale, "\(what): memo \(record.id) keeps a stale title")
        }
    }
}
