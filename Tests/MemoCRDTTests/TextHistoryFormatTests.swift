import Foundation
@testable import MemoCRDT
import TestSupport
import Testing

/// The history section of a text state (issue 27, FORMAT.md "Text state, version 4" and
/// "version 3"): which deleted items are retained, written and read canonically; states with the
/// older section still decode to the same retained set.
///
/// `Tests/Fixtures/states/text-state-v3.bin` was written by the version 3 encoder (main at
/// 937dc1e) from ``TextHistoryFormatTests/fixtureHistory()``; set
/// `MEMOSYNC_WRITE_HISTORY_FIXTURES=1` to rewrite it (only ever with a version 3 encoder).
@Suite struct TextHistoryFormatTests {
    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/states")
    }

    /// A deterministic history of three replicas: two keep deleted content, one does not (its
    /// deletions arrive as tombstones); typing, backspaces, deleted passages, multi-byte
    /// characters, partial syncs; then part of one replica's deletions dropped (retention), so
    /// the retained set has holes.
    static func fixtureHistory() throws -> TextCRDT {
        var random = SeededRandom(seed: 0x27_0004)
        var replicas = [ReplicaID(0xA11CE), ReplicaID(0xB0B_0000_0000), ReplicaID(0xCA)].map { TextCRDT(replica: $0) }
        replicas[0].keepsDeletedContent = true
        replicas[1].keepsDeletedContent = true
        let alphabet = Array("abcdé 🎉\nxyzü")
        for round in 0..<60 {
            let index = round % 3
            var text = replicas[index]
            let length = text.string.unicodeScalars.count
            switch random.int(in: 0..<6) {
            case 0, 1, 2:
                var at = random.chance(0.5) ? length : random.int(in: 0...length)
                for _ in 0..<random.int(in: 1...8) {
                    try text.insert(String(random.pick(alphabet)), atScalar: at)
                    at += 1
                }
            case 3, 4:
                guard length > 0 else { break }
                var end = random.int(in: 1...length)
                for _ in 0..<random.int(in: 1...4) where end > 0 {
                    try text.delete(scalarRange: end - 1..<end)
                    end -= 1
                }
            default:
                guard length > 3 else { break }
                let start = random.int(in: 0..<length - 2)
                try text.delete(scalarRange: start..<start + random.int(in: 1...3))
            }
            replicas[index] = text
            if round % 5 == 4 {
                let from = random.int(in: 0..<3)
                let to = (from + 1 + random.int(in: 0..<2)) % 3
                try replicas[to].apply(replicas[from].changes(since: replicas[to].version))
            }
        }
        var result = replicas[0]
        try result.merge(replicas[1])
        try result.merge(replicas[2])
        // Retention drops the content deleted by the first half of the second replica's operations.
        result.dropRetainedContent(deletedBy: [(replicas[1].replica, 0..<replicas[1].version[replicas[1].replica] / 2)])
        return result
    }

    @Test func writesTheFixtureWhenAsked() throws {
        guard ProcessInfo.processInfo.environment["MEMOSYNC_WRITE_HISTORY_FIXTURES"] == "1" else { return }
        let state = try Self.fixtureHistory().encoded()
        try FileManager.default.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
        try Data(state).write(to: Self.fixtures.appendingPathComponent("text-state-v3.bin"))
    }

    /// The text at every cut, or how many scalars of it are not retained.
    static func pastTexts(_ text: TextCRDT) -> [String] {
        text.stretches().map { stretch in
            do throws(TextHistoryError) {
                return try text.string(at: text.cut(through: stretch))
            } catch {
                return "\(error)"
            }
        }
    }

    /// The version 3 fixture decodes to the text the history builds, retaining the same deleted
    /// items (the same texts at every past version, the same bytes once encoded).
    @Test func versionThreeStateDecodesToTheSameRetainedSet() throws {
        let bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("text-state-v3.bin")))
        #expect(try BlobEnvelope.open(bytes, kind: .textState, versions: 1...15).version == 3)
        let built = try Self.fixtureHistory()
        // The fixture retains some deleted items and not others, of more than one replica.
        #expect(built.retainedDeletedScalars > 10)
        #expect(Self.pastTexts(built).contains { $0.contains("no longer retained") })
        let decoded = try TextCRDT(decoding: bytes, replica: ReplicaID(0xA11CE))
        #expect(decoded.string == built.string)
        #expect(decoded.version == built.version)
        #expect(decoded.retainedDeletedScalars == built.retainedDeletedScalars)
        #expect(Self.pastTexts(decoded) == Self.pastTexts(built))
        #expect(decoded.encoded() == built.encoded())
        #expect(try TextCRDT.decodeString(fromEncoded: bytes) == built.string)
    }

    // MARK: Version 4

    /// A random history of three replicas (as ``fixtureHistory()``, every replica keeping
    /// deleted content), merged into one text that retains every deleted item.
    static func randomHistory(seed: UInt64) throws -> TextCRDT {
        var random = SeededRandom(seed: seed)
        var replicas = [ReplicaID(1), ReplicaID(0xB0B), ReplicaID(0xFFFF_0000_0000)].map { TextCRDT(replica: $0) }
        for index in replicas.indices { replicas[index].keepsDeletedContent = true }
        let alphabet = Array("ab é🎉\nz")
        for round in 0..<45 {
            let index = random.int(in: 0..<3)
            var text = replicas[index]
            let length = text.string.unicodeScalars.count
            if length < 4 || random.chance(0.5) {
                var at = random.int(in: 0...length)
                for _ in 0..<random.int(in: 1...6) {
                    try text.insert(String(random.pick(alphabet)), atScalar: at)
                    at += 1
                }
            } else if random.chance(0.5) {
                var end = random.int(in: 1...length)
                for _ in 0..<random.int(in: 1...3) where end > 0 {
                    try text.delete(scalarRange: end - 1..<end)
                    end -= 1
                }
            } else {
                let start = random.int(in: 0..<length - 1)
                try text.delete(scalarRange: start..<start + random.int(in: 1...2))
            }
            replicas[index] = text
            if round % 4 == 3 {
                let from = random.int(in: 0..<3)
                let to = (from + 1 + random.int(in: 0..<2)) % 3
                try replicas[to].apply(replicas[from].changes(since: replicas[to].version))
            }
        }
        var result = replicas[0]
        try result.merge(replicas[1])
        try result.merge(replicas[2])
        return result
    }

    /// Which deletion operations' content to drop: none, all, every other one, or each at random.
    enum Subset: CaseIterable {
        case all, none, alternating, random
    }

    /// `text` with the content deleted by the chosen deletion operations dropped.
    static func retaining(_ subset: Subset, of text: TextCRDT, random: inout SeededRandom) -> TextCRDT {
        var result = text
        var dropped: [(replica: ReplicaID, counters: Range<UInt32>)] = []
        for entry in text.version.entries {
            for counter in 0..<entry.operationCount {
                let drop: Bool
                switch subset {
                case .all: drop = false
                case .none: drop = true
                case .alternating: drop = counter % 2 == 1
                case .random: drop = random.chance(0.5)
                }
                if drop { dropped.append((entry.replica, counter..<counter + 1)) }
            }
        }
        result.dropRetainedContent(deletedBy: dropped)
        return result
    }

    /// Random retained sets (all, none, alternating, random; of several replicas) round trip
    /// through version 4: the same retained items, the same texts at every past version, the
    /// same bytes again; no retained item is version 2 byte for byte.
    @Test(arguments: testSeeds(6, salt: 0x4157_0004))
    func retainedSetsRoundTripThroughVersionFour(seed: UInt64) throws {
        let full = try Self.randomHistory(seed: seed)
        #expect(full.retainedDeletedScalars > 0, "seed \(seed)")
        var random = SeededRandom(seed: seed ^ 0x44)
        for subset in Subset.allCases {
            let text = Self.retaining(subset, of: full, random: &random)
            let bytes = text.encoded()
            let version = try BlobEnvelope.open(bytes, kind: .textState, versions: 1...15).version
            #expect(version == (text.retainedDeletedScalars > 0 ? 4 : 2), "seed \(seed), \(subset)")
            if subset == .none { #expect(text.retainedDeletedScalars == 0, "seed \(seed)") }
            if subset == .all { #expect(text.retainedDeletedScalars == full.retainedDeletedScalars, "seed \(seed)") }
            let decoded = try TextCRDT(decoding: bytes, replica: ReplicaID(0xDEC0DE))
            #expect(decoded.retainedDeletedScalars == text.retainedDeletedScalars, "seed \(seed), \(subset)")
            #expect(Self.pastTexts(decoded) == Self.pastTexts(text), "seed \(seed), \(subset)")
            #expect(decoded.encoded() == bytes, "seed \(seed), \(subset): re-encoding differs")
            #expect(try TextCRDT.decodeString(fromEncoded: bytes) == text.string, "seed \(seed), \(subset)")
            // The same retained set reached another way (a fresh replica given the history)
            // encodes to the same bytes.
            var fresh = TextCRDT(replica: ReplicaID(0xF2E5))
            fresh.keepsDeletedContent = true
            try fresh.apply(text.changes(since: VersionVector()))
            if fresh.retainedDeletedScalars == text.retainedDeletedScalars {
                #expect(fresh.encoded() == bytes, "seed \(seed), \(subset): same retained set, other bytes")
            }
        }
        // Full retention: the section costs the content and a few bytes per replica (FORMAT.md,
        // "Text state, version 4").
        let section = try #require(full.encodedHistorySection())
        #expect(section.count <= full.retained.byteCount + 1 + 3 * 5, "seed \(seed): \(section.count) bytes for \(full.retained.byteCount)")
    }

    /// A text "abcdef" of replica 1 with "cd" then "e" deleted: its deleted insertions are the
    /// counters 2, 3 and 4; a version 2 body, and a version 4 state of it with `section`.
    static func handMade(_ section: [UInt8]) throws -> (body: [UInt8], state: [UInt8]) {
        var text = TextCRDT(replica: ReplicaID(1))
        try text.insert("abcdef", atScalar: 0)
        try text.delete(scalarRange: 2..<4)
        try text.delete(scalarRange: 2..<3)
        #expect(text.string == "abf")
        var body = ByteWriter()
        body.lengthPrefixed(section)
        body.append(contentsOf: text.encodedBody())
        return (text.encodedBody(), BlobEnvelope.seal(kind: .textState, version: 4, body: body.bytes))
    }

    /// A section of one group of replica index 0: `runs` then `content`.
    static func section(runs: [UInt64], content: [UInt8], groupCount: UInt64 = 1) -> [UInt8] {
        var writer = ByteWriter()
        writer.varint(groupCount)
        writer.varint(0)
        writer.varint(runs.count)
        for run in runs { writer.varint(run) }
        writer.append(contentsOf: content)
        return writer.bytes
    }

    /// Canonical hand-made sections decode to the retained set they name and encode to the same
    /// bytes; every non-canonical or inconsistent one is refused with `malformed`.
    @Test func versionFourSectionsAreCanonical() throws {
        let all = VersionVector([ReplicaID(1): 6])
        // Every deleted insertion retained: one run.
        let whole = try TextCRDT(decoding: try Self.handMade(Self.section(runs: [3], content: Array("cde".utf8))).state, replica: ReplicaID(5))
        #expect(whole.retainedDeletedScalars == 3)
        #expect(try whole.string(at: all) == "abcdef")
        #expect(whole.encoded() == (try Self.handMade(Self.section(runs: [3], content: Array("cde".utf8))).state))
        // Alternating: "c" retained, "d" not, "e" retained.
        let alternating = try Self.handMade(Self.section(runs: [1, 1, 1], content: Array("ce".utf8))).state
        let decoded = try TextCRDT(decoding: alternating, replica: ReplicaID(5))
        #expect(decoded.retainedDeletedScalars == 2)
        #expect(throws: TextHistoryError.contentNotRetained(scalars: 1)) { try decoded.string(at: all) }
        #expect(try decoded.string(at: VersionVector([ReplicaID(1): 8])) == "abef")
        #expect(decoded.encoded() == alternating)
        // The first deleted insertion not retained: a leading run of 0.
        let leading = try Self.handMade(Self.section(runs: [0, 1, 2], content: Array("de".utf8))).state
        let leadingDecoded = try TextCRDT(decoding: leading, replica: ReplicaID(5))
        #expect(throws: TextHistoryError.contentNotRetained(scalars: 1)) { try leadingDecoded.string(at: all) }
        #expect(try leadingDecoded.string(at: VersionVector([ReplicaID(1): 7])) == "abdef")
        #expect(leadingDecoded.encoded() == leading)
        // The last not retained: the runs stop at the last retained one.
        let trailing = try Self.handMade(Self.section(runs: [2], content: Array("cd".utf8))).state
        #expect(try TextCRDT(decoding: trailing, replica: ReplicaID(5)).encoded() == trailing)

        let refused: [(runs: [UInt64], content: String, groupCount: UInt64, error: String)] = [
            ([1, 0, 1], "ce", 1, "an empty run in a history group"),
            ([2, 1], "cd", 1, "a history group that ends with items not retained"),
            ([1, 1, 1, 0], "ce", 1, "a history group that ends with items not retained"),
            ([0], "", 1, "an empty history group"),
            ([], "", 1, "an empty history group"),
            ([4], "cdef", 1, "history runs past the replica's deleted insertions"),
            ([1, 1, 2], "cef", 1, "history runs past the replica's deleted insertions"),
            ([3], "cd", 1, "history content does not hold one valid scalar per item"),
            ([3], "cdef", 1, "history content does not hold one valid scalar per item"),
            ([3], "", 0, "an empty history section"),
        ]
        for (runs, content, groupCount, error) in refused {
            let state = try Self.handMade(Self.section(runs: runs, content: Array(content.utf8), groupCount: groupCount)).state
            #expect(throws: DecodingError.malformed(error), "runs \(runs), content \(content)") {
                try TextCRDT(decoding: state, replica: ReplicaID(5))
            }
        }
        // Content that is not UTF-8, one byte per item.
        let invalid = try Self.handMade(Self.section(runs: [3], content: [0x63, 0x64, 0xFF])).state
        #expect(throws: DecodingError.malformed("history content does not hold one valid scalar per item")) {
            try TextCRDT(decoding: invalid, replica: ReplicaID(5))
        }
        // One replica's group twice (more groups than the table has replicas).
        var twice = ByteWriter()
        twice.varint(2)
        for _ in 0..<2 {
            twice.varint(0)
            twice.varint(1)
            twice.varint(1)
        }
        twice.append(contentsOf: Array("cd".utf8))
        #expect(throws: DecodingError.malformed("history group count 2 exceeds 1")) {
            try TextCRDT(decoding: try Self.handMade(twice.bytes).state, replica: ReplicaID(5))
        }
        // A replica index past the table.
        var past = ByteWriter()
        past.varint(1)
        past.varint(1)
        past.varint(1)
        past.varint(1)
        past.append(contentsOf: Array("c".utf8))
        #expect(throws: DecodingError.self) { try TextCRDT(decoding: try Self.handMade(past.bytes).state, replica: ReplicaID(5)) }
        // Runs of a version 4 section under a version 3 envelope are read as version 3 entries.
        let asVersion3 = BlobEnvelope.seal(
            kind: .textState, version: 3, body: Array(alternating[try BlobEnvelope.open(alternating, kind: .textState, versions: 1...15).body]))
        #expect(throws: DecodingError.self) { try TextCRDT(decoding: asVersion3, replica: ReplicaID(5)) }
    }

    /// Two replicas' groups: in table order they decode and encode back to the same bytes; in
    /// the other order (or one replica's twice) they are refused.
    @Test func versionFourGroupsAreAscending() throws {
        var one = TextCRDT(replica: ReplicaID(1))
        try one.insert("ab", atScalar: 0)
        var two = TextCRDT(replica: ReplicaID(2))
        try two.apply(one.changes(since: two.version))
        try two.insert("cd", atScalar: 2)
        try two.delete(scalarRange: 0..<4)
        func state(groups: [(replica: UInt64, runs: [UInt64])], content: String) -> [UInt8] {
            var section = ByteWriter()
            section.varint(groups.count)
            for group in groups {
                section.varint(group.replica)
                section.varint(group.runs.count)
                for run in group.runs { section.varint(run) }
            }
            section.append(contentsOf: Array(content.utf8))
            var body = ByteWriter()
            body.lengthPrefixed(section.bytes)
            body.append(contentsOf: two.encodedBody())
            return BlobEnvelope.seal(kind: .textState, version: 4, body: body.bytes)
        }
        let both = state(groups: [(0, [2]), (1, [0, 1, 1])], content: "abd")
        let decoded = try TextCRDT(decoding: both, replica: ReplicaID(3))
        #expect(decoded.retainedDeletedScalars == 3)
        #expect(try decoded.string(at: VersionVector([ReplicaID(1): 2])) == "ab")
        #expect(throws: TextHistoryError.contentNotRetained(scalars: 1)) {
            try decoded.string(at: VersionVector([ReplicaID(1): 2, ReplicaID(2): 2]))
        }
        #expect(decoded.encoded() == both)
        #expect(throws: DecodingError.malformed("history groups not strictly ascending")) {
            try TextCRDT(decoding: state(groups: [(1, [0, 1, 1]), (0, [2])], content: "dab"), replica: ReplicaID(3))
        }
        #expect(throws: DecodingError.malformed("history groups not strictly ascending")) {
            try TextCRDT(decoding: state(groups: [(0, [1]), (0, [0, 1, 1])], content: "ab"), replica: ReplicaID(3))
        }
        // The same retained set kept by a replica that saw it deleted encodes to these bytes.
        var keeper = TextCRDT(replica: ReplicaID(2))
        keeper.keepsDeletedContent = true
        try keeper.apply(one.changes(since: keeper.version))
        try keeper.insert("cd", atScalar: 2)
        try keeper.delete(scalarRange: 0..<4)
        // Its deletions are its counters 2 ..< 6, of "a" to "d" in order: drop the one of "c".
        keeper.dropRetainedContent(deletedBy: [(ReplicaID(2), 4..<5)])
        #expect(keeper.retainedDeletedScalars == 3)
        #expect(keeper.encoded() == both)
    }
}
