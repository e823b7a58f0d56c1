import Foundation
import MemoCRDT
import Testing

@testable import MemoNotes
@testable import MemoSync
import MemoSyncTesting

/// Issue 28 (lazy texts): a replica gives back the memory of decoded texts past its
/// `decodedTextLimit` at each save, and nothing else about its memos changes.
@Suite struct ReplicaDecodedTextTests {
    @Test func aSaveKeepsAtMostTheLimitDecodedAndNothingElseChanges() async throws {
        let environment = TestEnvironment(seed: 0xDEC3)
        let disk = MemoryDisk()
        let store = InMemoryBlobStore()
        let alice = try Replica(disk: disk, environment: environment.environment)
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        #expect(alice.decodedTextLimit == Replica.defaultDecodedTextLimit)
        alice.decodedTextLimit = 2
        var memos: [MemoID] = []
        for index in 0..<10 {
            environment.advance(milliseconds: 1_000)
            memos.append(try alice.createMemo(text: "memo \(index)\nline two"))
        }
        for memo in memos {
            environment.advance(milliseconds: 1_000)
            try alice.edit(memo, replacingUTF16: 0..<4, with: "note")
        }
        #expect(alice.decodedTextCount == 10)
        try await alice.save()
        #expect(alice.decodedTextCount == 2)
        // The two used last stay decoded; the others read, list and search from their bodies.
        #expect(alice.notebook.list().count == 10)
        #expect(alice.notebook.search("LINE TWO").count == 10)
        #expect(alice.notebook.memo(memos[0])?.text == "note 0\nline two")

        // Edits and received changes on a text turned back.
        try await syncUntilQuiet([alice, bob], store: store)
        environment.advance(milliseconds: 1_000)
        try bob.edit(memos[0], replacingUTF16: 0..<0, with: "Bob: ")
        try alice.edit(memos[1], replacingUTF16: 0..<0, with: "Alice: ")
        try await syncUntilQuiet([alice, bob], store: store)
        expectConverged([alice, bob])
        #expect(alice.notebook.memo(memos[0])?.text == "Bob: note 0\nline two")
        #expect(alice.decodedTextCount <= 2)

        // Memory pressure: every text back to its body, and the library reopens the same.
        #expect(alice.releaseDecodedTexts(keepingMostRecent: 0) > 0)
        #expect(alice.decodedTextCount == 0)
        try await alice.save()
        let encoded = alice.notebook.encoded()
        await alice.close()
        let reopened = try Replica(disk: disk, environment: environment.environment)
        #expect(reopened.notebook.encoded() == encoded)
        expectConverged([reopened, bob])
    }

    /// A compaction encodes every decoded text's body; the texts the budget then turns back take
    /// a copy of those bytes instead of being encoded a second time (a save that only appends
    /// to the journal encodes none, so its texts are encoded as before). What the library holds
    /// is the same either way: builds with internal checks compare each copy with a fresh
    /// encoding, and the reopened library encodes alike.
    @Test func textsTurnedBackAfterACompactionTakeTheBodiesItEncoded() async throws {
        let environment = TestEnvironment(seed: 0xC0B1)
        let disk = MemoryDisk()
        let alice = try Replica(disk: disk, environment: environment.environment)
        alice.decodedTextLimit = 0
        var memos: [MemoID] = []
        for index in 0..<6 {
            environment.advance(milliseconds: 1_000)
            memos.append(try alice.createMemo(text: "memo \(index): ça, 한국어, かな"))
        }
        #expect(alice.decodedTextCount == 6)
        #if MEMOSYNC_INTERNAL_CHECKS
        let cache = alice.notebook.decodedTextCache
        let before = cache.debugBodiesCopiedOnRelease
        #endif
        try alice.compactNow()
        #expect(alice.decodedTextCount == 0)
        #if MEMOSYNC_INTERNAL_CHECKS
        #expect(cache.debugBodiesCopiedOnRelease - before == 6, "every text turned back took the compaction's body")
        #endif

        for memo in memos {
            environment.advance(milliseconds: 1_000)
            try alice.edit(memo, replacingUTF16: 0..<0, with: "✓ ")
        }
        #expect(alice.decodedTextCount == 6)
        #if MEMOSYNC_INTERNAL_CHECKS
        let afterCompaction = cache.debugBodiesCopiedOnRelease
        #endif
        try alice.saveNow()
        #expect(alice.decodedTextCount == 0)
        #if MEMOSYNC_INTERNAL_CHECKS
        #expect(cache.debugBodiesCopiedOnRelease == afterCompaction, "a journal record encodes no body to copy")
        #endif

        let encoded = alice.notebook.encoded()
        let texts = memos.map { alice.notebook.memo($0)?.text }
        #expect(texts.allSatisfy { $0?.hasPrefix("✓ memo ") == true })
        await alice.close()
        let reopened = try Replica(disk: disk, environment: environment.environment)
        #expect(reopened.notebook.encoded() == encoded)
        #expect(memos.map { reopened.notebook.memo($0)?.text } == texts)
    }
}
