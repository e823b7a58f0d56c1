import Foundation
import MemoCRDT
import Testing
import TestSupport

@testable import MemoNotes
@testable import MemoSync

/// The state list beside a library's state file (FORMAT.md, "State list"; issue 28): an open
/// that finds one describing its state reads it alone, each memo's text left in the state file
/// until first used, and reads exactly what an open of the whole state reads.
@Suite struct StateListTests {
    /// Texts that exercise the list text: long first lines, previews of wide characters, runs of
    /// blank lines, texts longer than the 4,096 bytes a list keeps at most, empty texts.
    private static func randomText(_ random: inout SeededRandom) -> String {
        let words = ["alpha", "Beta", "café", "naïve", "메모", "ノート", "🙂", "x", "Straße", "e\u{301}"]
        var text = ""
        let lines = Int.random(in: 0...12, using: &random)
        for line in 0..<lines {
            if line > 0 { text += Bool.random(using: &random) ? "\n" : "\n\n   \n" }
            let count = Int.random(in: 0...(Bool.random(using: &random) ? 12 : 400), using: &random)
            for _ in 0..<count { text += words.randomElement(using: &random)! + (Bool.random(using: &random) ? " " : "\t") }
        }
        return text
    }

    /// A library of random memos (some trashed, some purged, some with deleted text kept as
    /// history), compacted so that it has a state list; returns its memo ids.
    private static func makeLibrary(at path: String, random: inout SeededRandom, memoCount: Int) async throws -> [MemoID] {
        let replica = try Replica(libraryPath: path)
        var ids: [MemoID] = []
        for _ in 0..<memoCount { ids.append(try replica.createMemo(text: randomText(&random))) }
        try addBulk(to: replica, ids: &ids)
        for id in ids where Int.random(in: 0..<4, using: &random) == 0 {
            let text = replica.notebook.memo(id)!.text
            let count = text.unicodeScalars.count
            if count > 2 { try replica.edit(id, replacingScalars: 1..<min(count, 40), with: "edited") }
        }
        var trashed: [MemoID] = []
        for id in ids where Int.random(in: 0..<8, using: &random) == 0 {
            try replica.moveToTrash(id)
            trashed.append(id)
        }
        for id in trashed where Bool.random(using: &random) { try replica.purge(id) }
        try await replica.compact()
        await replica.close()
        return ids
    }

    /// Memos enough for a state of more than ``LibraryCore/stateListWorthBytes`` (a smaller
    /// state has no list: it is read whole).
    private static func addBulk(to replica: Replica, ids: inout [MemoID]) throws {
        let paragraph = String(repeating: "Plain words of a long note, ", count: 140)
        for index in 0..<(LibraryCore.stateListWorthBytes / paragraph.utf8.count + 8) {
            ids.append(try replica.createMemo(text: "Bulk \(index)\n" + paragraph))
        }
    }

    /// Every public read of `listed` (opened from its state list) equals that of `whole` (the
    /// same library opened from its state file alone).
    private static func expectSameReads(_ listed: Notebook, _ whole: Notebook, ids: [MemoID], seed: UInt64) {
        #expect(listed.list() == whole.list(), "seed \(seed)")
        #expect(listed.list().map(\.title) == whole.list().map(\.title), "seed \(seed)")
        #expect(listed.list().map(\.preview) == whole.list().map(\.preview), "seed \(seed)")
        #expect(listed.trash().map(\.title) == whole.trash().map(\.title), "seed \(seed)")
        for id in ids { #expect(listed.memo(id) == whole.memo(id), "seed \(seed), memo \(id)") }
        for query in ["alpha", "CAFE", "메모", "ノ", "straße", "e", "🙂", "nothing like it"] {
            #expect(listed.search(query).map(\.id) == whole.search(query).map(\.id), "seed \(seed), query \(query)")
        }
        #expect(listed.version == whole.version, "seed \(seed)")
        #expect(listed.encoded() == whole.encoded(), "seed \(seed)")
    }

    @Test(arguments: testSeeds(4, salt: 0x5747_4C49))
    func anOpenFromTheListReadsWhatAnOpenOfTheWholeStateReads(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let folder = IOTestFolder("state-list")
        defer { folder.remove() }
        let ids = try await Self.makeLibrary(at: folder.path, random: &random, memoCount: 60)
        #expect(try folder.names().contains(LibraryCore.stateListFileName), "seed \(seed)")

        let listed = try Replica(libraryPath: folder.path)
        // Opened from the list: no text read yet.
        #expect(listed.notebook.storedTextCount > 0, "seed \(seed)")
        let listedNotebook = listed.notebook
        await listed.close()
        try FileManager.default.removeItem(atPath: folder.path(LibraryCore.stateListFileName))
        let whole = try Replica(libraryPath: folder.path)
        #expect(whole.notebook.storedTextCount == 0, "seed \(seed)")
        Self.expectSameReads(listedNotebook, whole.notebook, ids: ids, seed: seed)
        await whole.close()
    }

    @Test func editsSyncsAndCompactionsOfStoredTextsKeepEveryText() async throws {
        var random = SeededRandom(seed: 28)
        let folder = IOTestFolder("state-list-edits")
        defer { folder.remove() }
        let ids = try await Self.makeLibrary(at: folder.path, random: &random, memoCount: 40)
        var expected: [MemoID: String] = [:]
        do {
            let replica = try Replica(libraryPath: folder.path)
            for id in ids { expected[id] = replica.notebook.memo(id)?.text }
            // Edits of stored texts: each is read from the state file, then changed.
            for id in ids.prefix(10) where expected[id] != nil {
                try replica.edit(id, replacingUTF16: 0..<0, with: "new ")
                expected[id] = "new " + expected[id]!
            }
            try await replica.save()
            // A compaction copies every untouched body from the state file it was opened from.
            try await replica.compact()
            for id in ids { #expect(replica.notebook.memo(id)?.text == expected[id]) }
            await replica.close()
        }
        // Opened again from the new list, and from the new state alone.
        let again = try Replica(libraryPath: folder.path)
        #expect(again.notebook.storedTextCount > 0)
        for id in ids { #expect(again.notebook.memo(id)?.text == expected[id]) }
        await again.close()
        try FileManager.default.removeItem(atPath: folder.path(LibraryCore.stateListFileName))
        let whole = try Replica(libraryPath: folder.path)
        for id in ids { #expect(whole.notebook.memo(id)?.text == expected[id]) }
        await whole.close()
    }

    @Test func aListThatDoesNotDescribeTheStateIsNotUsed() async throws {
        var random = SeededRandom(seed: 2812)
        let folder = IOTestFolder("state-list-other")
        let other = IOTestFolder("state-list-other-library")
        defer {
            folder.remove()
            other.remove()
        }
        let ids = try await Self.makeLibrary(at: folder.path, random: &random, memoCount: 20)
        _ = try await Self.makeLibrary(at: other.path, random: &random, memoCount: 20)
        let listPath = folder.path(LibraryCore.stateListFileName)
        let ownList = try [UInt8](Data(contentsOf: URL(fileURLWithPath: listPath)))
        let first = try Replica(libraryPath: folder.path)
        let texts = Dictionary(uniqueKeysWithValues: ids.map { ($0, first.notebook.memo($0)?.text) })
        await first.close()
        var candidates: [(String, [UInt8])] = [
            ("another library's list", try [UInt8](Data(contentsOf: URL(fileURLWithPath: other.path(LibraryCore.stateListFileName))))),
            ("an empty list", []),
            ("a list cut short", Array(ownList.prefix(ownList.count / 2))),
        ]
        // Every byte of the list's header flipped in turn, and some of the rest.
        for offset in Array(0..<min(64, ownList.count)) + stride(from: 64, to: ownList.count, by: max(1, ownList.count / 97)) {
            var flipped = ownList
            flipped[offset] ^= 0x10
            candidates.append(("bit flipped at \(offset)", flipped))
        }
        for (label, bytes) in candidates {
            try Data(bytes).write(to: URL(fileURLWithPath: listPath))
            let replica = try Replica(libraryPath: folder.path)
            #expect(replica.notebook.storedTextCount == 0, "\(label)")
            for id in ids { #expect(replica.notebook.memo(id)?.text == texts[id]!, "\(label)") }
            await replica.close()
        }
    }

    @Test func aBodyDamagedAfterTheOpenIsReportedAndNeverCopied() async throws {
        let folder = IOTestFolder("state-list-damage")
        defer { folder.remove() }
        let damagedText = "Shopping\n" + String(repeating: "milk eggs bread ", count: 40)
        let keptText = "Diary\nA quiet day."
        let (damagedID, keptID): (MemoID, MemoID)
        do {
            let replica = try Replica(libraryPath: folder.path)
            damagedID = try replica.createMemo(text: damagedText)
            keptID = try replica.createMemo(text: keptText)
            var bulk: [MemoID] = []
            try Self.addBulk(to: replica, ids: &bulk)
            try await replica.compact()
            await replica.close()
        }
        let replica = try Replica(libraryPath: folder.path)
        #expect(replica.notebook.storedTextCount > 2)
        // A byte of the damaged memo's text changed in the state file after the open.
        let statePath = folder.path(LibraryCore.stateFileName)
        var state = try [UInt8](Data(contentsOf: URL(fileURLWithPath: statePath)))
        let needle = Array("milk eggs".utf8)
        let at = try #require((0...(state.count - needle.count)).first { state[$0..<$0 + needle.count].elementsEqual(needle) })
        state[at] = UInt8(ascii: "s")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: statePath))
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: state)
        try handle.close()

        // The other memo reads; the damaged one gives what its list shows, named as damaged.
        #expect(replica.notebook.memo(keptID)?.text == keptText)
        let shown = try #require(replica.notebook.memo(damagedID))
        #expect(damagedText.hasPrefix(shown.text) && shown.text.count < damagedText.count)
        #expect(MemoText.title(of: shown.text) == "Shopping")
        #expect(replica.notebook.damagedStoredMemoIDs == [damagedID])
        // An edit of it throws; a compaction would copy it and throws, writing nothing.
        #expect(throws: ReplicaError.self) { try replica.edit(damagedID, replacingUTF16: 0..<0, with: "x") }
        try replica.edit(keptID, replacingUTF16: 0..<0, with: "Still ")
        await #expect(throws: ReplicaError.self) { try await replica.compact() }
        let after = try [UInt8](Data(contentsOf: URL(fileURLWithPath: statePath)))
        #expect(after == state)
        await replica.close()
    }

    @Test func aSmallStateHasNoListAndIsCheckedWholeAtEachOpen() async throws {
        let folder = IOTestFolder("state-list-small")
        defer { folder.remove() }
        do {
            let replica = try Replica(libraryPath: folder.path)
            _ = try replica.createMemo(text: "precious")
            try await replica.compact()
            await replica.close()
        }
        #expect(try !folder.names().contains(LibraryCore.stateListFileName))
        let replica = try Replica(libraryPath: folder.path)
        #expect(replica.notebook.storedTextCount == 0)
        await replica.close()
    }

    @Test(arguments: testSeeds(20, salt: 0x4C49_5354))
    func theListTextGivesTheTitleAndPreviewOfTheWholeBeginning(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<50 {
            let text = Self.randomText(&random)
            let summary = MemoSummary(id: MemoID(high: 1, low: 2), text: text, createdAt: .zero, modifiedAt: .zero)
            let prefix = summary.textPrefix
            let length = MemoText.listTextLength(of: prefix)
            let short = String(decoding: prefix.prefix(length), as: UTF8.self)
            #expect(MemoText.title(of: short) == summary.title, "seed \(seed)")
            #expect(MemoText.preview(of: short) == summary.preview, "seed \(seed)")
            #expect(length <= prefix.count)
        }
    }
}
