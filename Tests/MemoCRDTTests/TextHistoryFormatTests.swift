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
}
