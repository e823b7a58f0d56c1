import Foundation
import MemoCRDT
import TestSupport
import Testing

/// Notebook states written by older versions of the format still decode, to the same notebook.
///
/// `Tests/Fixtures/states/notebook-state-v1.bin` was written by the version 1 encoder (main at
/// 95754be) from ``NotebookStateVersionTests/history()``; set `MEMOSYNC_WRITE_STATE_FIXTURE=1`
/// to rewrite it (only ever with a version 1 encoder).
@Suite struct NotebookStateVersionTests {
    static let a = ReplicaID(0x0A0A)
    static let b = ReplicaID(0x0B0B_0000_0000)
    static let c = ReplicaID(0xC)

    /// A deterministic history of three replicas: memos created, typed into keystroke by
    /// keystroke and in pastes, deleted from, edited concurrently, trashed, restored (by a
    /// concurrent edit and explicitly), purged; timestamps hours, seconds and no time apart.
    static func history() throws -> Notebook {
        var random = SeededRandom(seed: 12)
        var now: UInt64 = 1_780_000_000_000
        var one = Notebook(replica: a)
        var two = Notebook(replica: b)
        var three = Notebook(replica: c)
        var ids: [MemoID] = []
        for index in 0..<40 {
            let id = MemoID(high: UInt64(index) &* 0x9E37_79B9_7F4A_7C15, low: UInt64(index + 1))
            ids.append(id)
        }
        var created: [MemoID] = []
        for round in 0..<60 {
            now += UInt64(round % 7 == 0 ? 15_000_000 : 3_000) + random.next() % 5_000
            var notebook: Notebook
            switch round % 3 {
            case 0: notebook = one
            case 1: notebook = two
            default: notebook = three
            }
            if created.count < ids.count && (created.isEmpty || random.next() % 4 == 0) {
                let id = ids[created.count]
                created.append(id)
                try notebook.createMemo(id, text: round % 2 == 0 ? "Title \(round)\n" : "", wallMilliseconds: now)
            }
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let active = notebook.list()
                guard !active.isEmpty else { break }
                let id = active[Int(random.next() % UInt64(min(active.count, 5)))].id
                let length = notebook.memo(id)!.text.unicodeScalars.count
                switch random.next() % 10 {
                case 0..<5:
                    var at = random.next() % 2 == 0 ? length : Int(random.next() % UInt64(length + 1))
                    for scalar in "word é\(round) ".unicodeScalars {
                        try notebook.edit(id, replacingScalars: at..<at, with: String(scalar), wallMilliseconds: now)
                        at += 1
                    }
                case 5:
                    try notebook.edit(id, replacingScalars: length..<length, with: "pasted 🎉 \(round)\n", wallMilliseconds: now)
                case 6, 7:
                    guard length > 2 else { break }
                    for end in stride(from: length, to: length - 2, by: -1) {
                        try notebook.edit(id, replacingScalars: (end - 1)..<end, with: "", wallMilliseconds: now)
                    }
                case 8:
                    guard length > 4 else { break }
                    try notebook.edit(id, replacingScalars: 1..<4, with: "", wallMilliseconds: now + 1)
                default:
                    try notebook.moveToTrash(id, wallMilliseconds: now)
                    if random.next() % 2 == 0 { try notebook.restore(id, wallMilliseconds: now) }
                }
                now += 2_000
            }
            if round % 9 == 4, let victim = notebook.trash().first {
                try notebook.purge(victim.id, wallMilliseconds: now)
            }
            switch round % 3 {
            case 0: one = notebook
            case 1: two = notebook
            default: three = notebook
            }
            // Syncs now and then, partly: some edits stay concurrent.
            if round % 4 == 3 {
                try one.merge(two)
                try two.merge(three)
                try three.merge(one)
            }
        }
        try one.merge(two)
        try one.merge(three)
        return one
    }

    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/states")
    }

    /// Everything a reader can observe of a notebook, as text.
    static func observed(_ notebook: Notebook) throws -> String {
        var lines: [String] = ["version \(notebook.version)"]
        for summary in notebook.list() + notebook.trash() {
            let memo = notebook.memo(summary.id)!
            lines.append("\(memo.id) \(memo.status) created \(memo.createdAt) modified \(memo.modifiedAt) \(memo.text.debugDescription)")
        }
        return lines.joined(separator: "\n")
    }

    @Test func writesTheFixtureWhenAsked() throws {
        guard ProcessInfo.processInfo.environment["MEMOSYNC_WRITE_STATE_FIXTURE"] == "1" else { return }
        let state = try Self.history().encoded()
        try FileManager.default.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
        try Data(state).write(to: Self.fixtures.appendingPathComponent("notebook-state-v1.bin"))
    }

    /// The version 1 fixture decodes to the notebook the history builds: the same memos, texts,
    /// statuses, times and list order; it encodes (in the current version) to the bytes the
    /// history's notebook encodes to; and the deltas it gives are those the history's gives.
    @Test func versionOneStateDecodesToTheSameNotebook() throws {
        let bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("notebook-state-v1.bin")))
        let (_, version) = try BlobEnvelope.open(bytes, kind: .notebookState, versions: 1...15)
        #expect(version == 1)
        let built = try Self.history()
        // The history holds every kind of run: trashed memos, restored ones and purged ones.
        #expect(!built.trash().isEmpty)
        #expect(built.version.entries.count == 3)
        var decoded = try Notebook(decoding: bytes, replica: Self.a)
        #expect(try Self.observed(decoded) == Self.observed(built))
        #expect(decoded.list().map(\.id) == built.list().map(\.id))
        #expect(decoded.encoded() == built.encoded())
        for replica in [Self.a, Self.b, Self.c] {
            for fraction in [0, 1, 2, 3] {
                var since = built.version
                since[replica] = built.version[replica] * UInt32(fraction) / 4
                #expect(try decoded.changes(since: since).encoded() == built.changes(since: since).encoded())
            }
        }
        // A state decoded from the current version's bytes is the same notebook again.
        let again = try Notebook(decoding: decoded.encoded(), replica: Self.a)
        #expect(try Self.observed(again) == Self.observed(built))
        #expect(again.encoded() == built.encoded())
        // And it keeps working: an edit on each gives the same state.
        var edited = built
        let first = built.list().first!.id
        try edited.edit(first, replacingScalars: 0..<0, with: "x", wallMilliseconds: 1_900_000_000_000)
        try decoded.edit(first, replacingScalars: 0..<0, with: "x", wallMilliseconds: 1_900_000_000_000)
        #expect(decoded.encoded() == edited.encoded())
    }
}
