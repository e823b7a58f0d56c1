import Foundation
import MemoCRDT
import MemoNotes
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
    /// With `keepingHistory`, every replica keeps deleted content (the same operations).
    static func history(keepingHistory: Bool = false) throws -> Notebook {
        var random = SeededRandom(seed: 12)
        var now: UInt64 = 1_780_000_000_000
        var one = Notebook(replica: a)
        var two = Notebook(replica: b)
        var three = Notebook(replica: c)
        one.keepsHistory = keepingHistory
        two.keepsHistory = keepingHistory
        three.keepsHistory = keepingHistory
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

    /// Timestamps a replica's runs can have, one after the other: the same millisecond (the next
    /// logical tick, a jump of several after merging a replica ahead, no wall step), later
    /// milliseconds with and without a logical counter, a wall time near the limit. All survive
    /// encoding and decoding exactly.
    @Test func versionTwoTimestampsRoundTrip() throws {
        let first = MemoID(high: 1, low: 1)
        let second = MemoID(high: 2, low: 2)
        var one = Notebook(replica: Self.a)
        var two = Notebook(replica: Self.b)
        try one.createMemo(first, text: "a", wallMilliseconds: 5_000)
        for index in 0..<20 { try two.createMemo(MemoID(high: 9, low: UInt64(index)), text: "b", wallMilliseconds: 5_000) }
        try one.merge(two)
        try one.createMemo(second, text: "", wallMilliseconds: 5_000)
        try one.edit(first, replacingScalars: 0..<0, with: "c", wallMilliseconds: 5_000)
        try one.edit(second, replacingScalars: 0..<0, with: "d", wallMilliseconds: 5_001)
        try one.edit(first, replacingScalars: 0..<0, with: "e", wallMilliseconds: 9_000_000_000)
        try one.edit(second, replacingScalars: 0..<0, with: "f", wallMilliseconds: HybridTimestamp.maxWallMilliseconds)
        try one.edit(first, replacingScalars: 0..<0, with: "g", wallMilliseconds: HybridTimestamp.maxWallMilliseconds)
        let state = one.encoded()
        #expect(try BlobEnvelope.open(state, kind: .notebookState, versions: 1...15).version == 2)
        let decoded = try Notebook(decoding: state, replica: Self.a)
        #expect(try Self.observed(decoded) == Self.observed(one))
        #expect(decoded.encoded() == state)
        #expect(try decoded.changes(since: VersionVector()).encoded() == one.changes(since: VersionVector()).encoded())
    }

    /// The body of `state` up to its logs (memo table and replica table).
    private func headBeforeLogs(_ state: [UInt8]) throws -> [UInt8] {
        let (range, _) = try BlobEnvelope.open(state, kind: .notebookState, versions: 1...15)
        var reader = ByteReader(state, from: range.lowerBound, to: range.upperBound)
        let memoCount = try reader.varint()
        for _ in 0..<memoCount {
            _ = try reader.range(count: 16)
            _ = try reader.range(count: Int(try reader.varint() >> 1))
        }
        let replicaCount = try reader.varint()
        for _ in 0..<replicaCount { _ = try reader.uint64LittleEndian() }
        return Array(state[range.lowerBound..<reader.position])
    }

    /// Version 2 logs that are not canonical or overflow are refused with a typed error.
    @Test func hostileVersionTwoLogsAreRefused() throws {
        var notebook = Notebook(replica: Self.a)
        try notebook.createMemo(MemoID(high: 1, low: 1), text: "", wallMilliseconds: 5_000)
        let head = try headBeforeLogs(notebook.encoded())
        func varint(_ value: UInt64) -> [UInt8] {
            var writer = ByteWriter()
            writer.varint(value)
            return writer.bytes
        }
        let cases: [(log: [UInt8], reason: String)] = [
            // Two creates, the second naming the (recent) memo by index.
            ([2, 0] + varint(10_000) + [1 << 3] + varint(2), "recent memo"),
            // A memo index past the table.
            ([1, 2 << 3] + varint(10_000), "memo index"),
            // A wall step past 48 bits; one that overflows 64 bits after the first run.
            ([1, 0] + varint(1 << 49), "timestamp"),
            ([2, 0] + varint(10_000) + [0 << 3 | 3] + varint(UInt64.max), "timestamp"),
            // A logical counter past 16 bits, a later wall millisecond.
            ([1, 0] + varint(10_000 << 1 | 1) + varint(65_535), "logical"),
            // The same millisecond: an increase of 1 written out; one past 16 bits.
            ([2, 0] + varint(10_000) + [0 << 3 | 3, 1] + varint(1), "increase of 1"),
            ([2, 0] + varint(10_000) + [0 << 3 | 3, 1] + varint(65_536), "logical"),
            // An unknown kind; an empty text run; more runs than bytes.
            ([1, 5] + varint(10_000), "run kind"),
            ([1, 1, 0] + varint(10_000), "empty text run"),
            (varint(200) + [0], "run count"),
        ]
        for (log, reason) in cases {
            let state = BlobEnvelope.seal(kind: .notebookState, version: 2, body: head + log)
            do {
                _ = try Notebook(decoding: state, replica: Self.a)
                Issue.record("\(log) decoded")
            } catch {
                #expect("\(error)".contains(reason), "\(log): \(error)")
            }
        }
        // The honest log decodes.
        let honest = BlobEnvelope.seal(kind: .notebookState, version: 2, body: head + [1, 0] + varint(5_000 << 1))
        #expect(try Notebook(decoding: honest, replica: Self.a).encoded() == notebook.encoded())
    }

    /// Version 2 text state logs that break its rules are refused with a typed error.
    @Test func hostileVersionTwoTextLogsAreRefused() throws {
        // "a" by replica 1: one insertion at 0, Lamport 1.
        let head: [UInt8] = [1, 0x61, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1]
        let honest = BlobEnvelope.seal(kind: .textState, version: 2, body: head + [1, 0x01, 0x01, 0x00, 0x00])
        #expect(try TextCRDT(decoding: honest, replica: Self.a).string == "a")
        var text = TextCRDT(replica: ReplicaID(1))
        try text.insert("a", atScalar: 0)
        #expect(text.encoded() == honest)
        let cases: [(log: [UInt8], reason: String)] = [
            ([1, 0x00, 0x00], "names no replica"),
            ([1, 0x01, 0x00, 0x00, 0x00], "says nothing"),
            ([1, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00], "Lamport"),
            ([1, 0x01, 0x03, 0x00, 0x00], "Lamport offset"),
            ([2, 0x01, 0x01, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00], "run count"),
        ]
        for (log, reason) in cases {
            let state = BlobEnvelope.seal(kind: .textState, version: 2, body: head + log)
            do {
                _ = try TextCRDT(decoding: state, replica: Self.a)
                Issue.record("\(log) decoded")
            } catch {
                #expect("\(error)".contains(reason), "\(log): \(error)")
            }
        }
        // Two runs of one replica, the second naming it again (a replica with two operations).
        let twice: [UInt8] = [2, 0x61, 0x62, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0x01, 0x01, 0x00, 0x00, 0x01, 0x01, 0x00, 0x01]
        do {
            _ = try TextCRDT(decoding: BlobEnvelope.seal(kind: .textState, version: 2, body: twice), replica: Self.a)
            Issue.record("a run naming the replica before it decoded")
        } catch {
            #expect("\(error)".contains("replica of the run before it"), "\(error)")
        }
    }
}
