// Damage the served library's open found, as the page learns it (SERVE.md, "Damage"): the status
// event's `damage` and the held-back texts behind the notice's button.

import Foundation
import MemoServe
import MemoSync
import Testing

@Suite struct ServeDamageTests {
    /// A library of three memos at a new temporary path, closed, with bit 2 of byte `offset` of
    /// its journal flipped (nil: left undamaged).
    static func library(flippingJournalByte offset: Int?) async throws -> String {
        let path = NSTemporaryDirectory() + "memo-serve-damage-\(UUID().uuidString)"
        let replica = try Replica(libraryPath: path)
        for text in ["first memo alpha", "second", "third"] {
            _ = try replica.createMemo(text: text)
            try await replica.save()
        }
        await replica.close()
        if let offset {
            let journal = path + "/journal-0"
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: journal)))
            bytes[offset] ^= 4
            try Data(bytes).write(to: URL(fileURLWithPath: journal))
        }
        return path
    }

    static func status(_ host: LibraryHost) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(host.statusJSON.utf8)) as? [String: Any])
    }

    /// The first record damaged: one record lost, the two memos saved after it wait, the file
    /// kept aside; the held-back texts are theirs. The last record damaged: one record lost and
    /// nothing waits (the page's other notice). No damage: `damage` is null, nothing is held back.
    @Test func theStatusEventCarriesTheDamageTheOpenFound() async throws {
        for (offset, heldBack) in [(20, true), (nil, false)] as [(Int?, Bool)] {
            let path = try await Self.library(flippingJournalByte: offset)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let host = try LibraryHost(configuration: ServeConfiguration(libraryPath: path), syncer: nil)
            defer { host.stop() }
            let damage = try Self.status(host)["damage"]
            let memos = try #require(host.heldBackJSON["memos"] as? [[String: Any]])
            if offset == nil {
                #expect(damage is NSNull, "\(String(describing: damage))")
                #expect(memos.isEmpty)
                continue
            }
            let object = try #require(damage as? [String: Any], "\(String(describing: damage))")
            #expect(object["recordsLost"] as? Int == 1, "\(object)")
            #expect(object["keptAs"] as? [String] == ["journal-0.damaged-1"], "\(object)")
            let waiting = try #require(object["operationsHeldBack"] as? Int)
            #expect((waiting > 0) == heldBack && waiting == host.notebook.pendingOperationCount, "\(object)")
            #expect(Set(memos.compactMap { $0["text"] as? String }) == ["second", "third"], "\(memos)")
            #expect(memos.allSatisfy { $0["title"] is NSNull && ($0["operations"] as? Int ?? 0) > 0 }, "\(memos)")
        }
        // The last record damaged: lost, and nothing waits for it.
        let path = try await Self.library(flippingJournalByte: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = path + "/journal-0"
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: journal)))
        bytes[bytes.count - 10] ^= 4
        try Data(bytes).write(to: URL(fileURLWithPath: journal))
        let host = try LibraryHost(configuration: ServeConfiguration(libraryPath: path), syncer: nil)
        defer { host.stop() }
        let object = try #require(try Self.status(host)["damage"] as? [String: Any])
        #expect(object["recordsLost"] as? Int == 1 && object["operationsHeldBack"] as? Int == 0, "\(object)")
        #expect(host.notebook.memoIDs.count == 2)
    }

    /// The notice's second button (`POST /api/held-back/restore`, as `memo recover --restore`):
    /// the held-back texts become memos, once; the operations still wait.
    @Test func theHeldBackTextIsRestoredAsNewMemosOnce() async throws {
        let path = try await Self.library(flippingJournalByte: 20)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let host = try LibraryHost(configuration: ServeConfiguration(libraryPath: path), syncer: nil)
        defer { host.stop() }
        let waiting = host.notebook.pendingOperationCount
        #expect(waiting > 0 && host.notebook.list().isEmpty)
        let first = try #require(try host.restoreHeldBackTexts(language: "ja")["restored"] as? [[String: Any]])
        #expect(first.count == 2 && first.allSatisfy { $0["created"] as? Bool == true }, "\(first)")
        #expect(Set(host.notebook.list().map(\.title)) == ["second", "third"])
        let again = try #require(try host.restoreHeldBackTexts(language: "xx")["restored"] as? [[String: Any]])
        #expect(again.count == 2 && again.allSatisfy { $0["created"] as? Bool == false }, "\(again)")
        #expect(again.map { $0["memo"] as? String } == first.map { $0["memo"] as? String })
        #expect(host.notebook.list().count == 2)
        #expect(host.notebook.pendingOperationCount == waiting)
    }
}
