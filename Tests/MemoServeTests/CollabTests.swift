// The page <-> server scheme alone (Collab.swift): random interleavings of page edits, server
// changes and message deliveries. Every page converges to the server's text; no keystroke is lost
// or duplicated. Seeded: MEMOSYNC_SEED=N reruns one seed.

import Foundation
import MemoServe
import Testing

/// A small seeded generator (SplitMix64), for reruns from a printed seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seeds to run: MEMOSYNC_SEED alone when set.
func seeds(_ count: UInt64) -> [UInt64] {
    if let given = ProcessInfo.processInfo.environment["MEMOSYNC_SEED"], let seed = UInt64(given) { return [seed] }
    return Array(1...count)
}

@Suite struct CollabTests {
    @Test func differenceAppliesAndKeepsSurrogatePairs() {
        let old = Array("a😀b".utf16), new = Array("a😃b".utf16)
        let operation = TextOperation.difference(from: old, to: new)
        #expect(operation.apply(to: old) == new)
        // The two emoji share their lead surrogate: the replacement still covers whole pairs.
        #expect(operation.replacements.count == 1)
        #expect(operation.replacements[0].range == 1..<3)
    }

    /// SERVE.md: a caret mapped through another page's change stays on its characters, and "an
    /// insert exactly at the caret goes after it".
    @Test func aCaretStaysBeforeAnInsertExactlyThere() {
        let insert = TextOperation.replacing(5..<5, with: Array("xy".utf16), lengthUTF16: 8)
        #expect(insert.mapPosition(4) == 4)
        #expect(insert.mapPosition(5) == 5)
        #expect(insert.mapPosition(6) == 8)
        let delete = TextOperation.replacing(2..<5, with: [], lengthUTF16: 8)
        #expect(delete.mapPosition(1) == 1 && delete.mapPosition(3) == 2 && delete.mapPosition(7) == 4)
    }

    @Test func transformPutsTheFirstInsertFirst() throws {
        let base = Array("ab".utf16)
        let a = TextOperation.replacing(1..<1, with: Array("X".utf16), lengthUTF16: 2)
        let b = TextOperation.replacing(1..<1, with: Array("Y".utf16), lengthUTF16: 2)
        let (aPrime, bPrime) = try #require(TextOperation.transform(a, b))
        let afterA = try #require(a.apply(to: base))
        let afterB = try #require(b.apply(to: base))
        let viaA = try #require(bPrime.apply(to: afterA))
        let viaB = try #require(aPrime.apply(to: afterB))
        #expect(viaA == viaB)
        #expect(String(decoding: viaA, as: UTF16.self) == "aXYb")
    }

    @Test func refusesUnknownRevisions() throws {
        var document = CollabDocument(text: [], historyLimit: 2)
        #expect(throws: CollabRefusal.unknownRevision(1)) { try document.receive(TextOperation(), base: 1) }
        for _ in 0..<3 { try? document.record(TextOperation.replacing(0..<0, with: [65], lengthUTF16: document.text.count)) }
        #expect(throws: CollabRefusal.unknownRevision(0)) { try document.receive(TextOperation(), base: 0) }
        #expect(throws: CollabRefusal.unknownRevision(0)) { try document.changes(since: 0) }
        #expect(throws: CollabRefusal.unknownRevision(4)) { try document.changes(since: 4) }
        #expect(try document.changes(since: 3).isEmpty)
        // SERVE.md: the server keeps the last 10,000 changes per open memo.
        #expect(CollabDocument(text: []).historyLimit == 10_000)
        let kept = try document.changes(since: 1)
        #expect(kept.map(\.revision) == [2, 3] && kept.map(\.client) == ["", ""])
    }

    /// A random operation on `text`, never splitting a surrogate pair.
    static func randomOperation(on text: [UInt16], inserting units: [UInt16], deleting: Bool, using random: inout SeededGenerator) -> TextOperation {
        let at = Int.random(in: 0...text.count, using: &random)
        var length = 0
        if deleting && at < text.count && Bool.random(using: &random) { length = Int.random(in: 1...min(3, text.count - at), using: &random) }
        return TextOperation.replacing(at..<at + length, with: units, lengthUTF16: text.count)
    }

    /// Pages and a server exchanging messages in a random order (FIFO per direction and page).
    @Test(arguments: [false, true]) func randomInterleavingsConverge(deleting: Bool) throws {
        for seed in seeds(300) {
            var random = SeededGenerator(state: seed &* 7919 &+ (deleting ? 1 : 0))
            let pageCount = Int.random(in: 1...4, using: &random)
            var server = CollabDocument(text: Array("start".utf16), historyLimit: 1_000)
            var pages = (0..<pageCount).map { _ in CollabPage(text: server.text, revision: 0) }
            var toServer: [[(TextOperation, Int)]] = Array(repeating: [], count: pageCount)
            var toPage: [[(TextOperation, Int?)]] = Array(repeating: [], count: pageCount)   // (operation, author)
            var nextUnit: UInt16 = 0xE000
            var inserted: [UInt16] = []
            func unit() -> UInt16 { defer { nextUnit += 1 }; inserted.append(nextUnit); return nextUnit }
            let steps = Int.random(in: 10...120, using: &random)
            var step = 0
            while step < steps || toServer.contains(where: { !$0.isEmpty }) || toPage.contains(where: { !$0.isEmpty }) {
                step += 1
                let choice = step < steps ? Int.random(in: 0..<11, using: &random) : 5 + Int.random(in: 0..<5, using: &random) % 4
                let p = Int.random(in: 0..<pageCount, using: &random)
                switch choice {
                case 0...3:   // a page types
                    let operation = Self.randomOperation(on: pages[p].text, inserting: [unit()], deleting: deleting, using: &random)
                    let newText = try #require(operation.apply(to: pages[p].text), "seed \(seed)")
                    if let send = pages[p].edit(to: newText) { toServer[p].append(send) }
                case 4:   // the engine changes the text (a sync, another command)
                    let operation = Self.randomOperation(on: server.text, inserting: [unit(), unit()], deleting: deleting, using: &random)
                    try server.record(operation)
                    for q in 0..<pageCount { toPage[q].append((operation, nil)) }
                case 5, 6:   // the server takes a page's operation
                    guard !toServer[p].isEmpty else { continue }
                    let (operation, base) = toServer[p].removeFirst()
                    let applied = try server.receive(operation, base: base, client: "page \(p)")
                    for q in 0..<pageCount { toPage[q].append((applied, p)) }
                case 10:   // a page loses the events on their way and catches up (SERVE.md, "Reloading keeps the typing")
                    toPage[p].removeAll()
                    for change in try server.changes(since: pages[p].revision) {
                        #expect(change.revision == pages[p].revision + 1, "seed \(seed)")
                        if change.client == "page \(p)" {
                            if let send = pages[p].confirmed() { toServer[p].append(send) }
                        } else {
                            #expect(pages[p].received(change.operation) != nil, "seed \(seed)")
                        }
                    }
                default:   // a page hears from the server
                    guard !toPage[p].isEmpty else { continue }
                    let (operation, author) = toPage[p].removeFirst()
                    if author == p {
                        if let send = pages[p].confirmed() { toServer[p].append(send) }
                    } else {
                        #expect(pages[p].received(operation) != nil, "seed \(seed)")
                    }
                }
            }
            for (p, page) in pages.enumerated() {
                #expect(page.text == server.text, "seed \(seed) page \(p): \(page.text) vs \(server.text)")
                #expect(page.revision == server.revision, "seed \(seed) page \(p)")
                #expect(page.outstanding == nil && page.buffer == nil, "seed \(seed) page \(p)")
            }
            let typed = server.text.filter { $0 >= 0xE000 }
            #expect(Set(typed).count == typed.count, "seed \(seed): a keystroke duplicated")
            if !deleting {
                #expect(typed.sorted() == inserted.sorted(), "seed \(seed): a keystroke lost")
            }
        }
    }

    /// transform's promise on random pairs: both orders make the same text; compose is apply-then-apply.
    @Test func transformAndComposeProperties() throws {
        for seed in seeds(500) {
            var random = SeededGenerator(state: seed)
            let base = (0..<Int.random(in: 0...12, using: &random)).map { _ in UInt16.random(in: 97...100, using: &random) }
            var a = TextOperation.replacing(0..<0, with: [], lengthUTF16: base.count)
            var current = base
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let next = Self.randomOperation(on: current, inserting: [120], deleting: true, using: &random)
                current = try #require(next.apply(to: current))
                a = try #require(TextOperation.compose(a, next), "seed \(seed)")
            }
            #expect(a.apply(to: base) == current, "seed \(seed)")
            let b = Self.randomOperation(on: base, inserting: [121, 122], deleting: true, using: &random)
            let (aPrime, bPrime) = try #require(TextOperation.transform(a, b), "seed \(seed)")
            let one = try #require(a.apply(to: base).flatMap { bPrime.apply(to: $0) }, "seed \(seed)")
            let two = try #require(b.apply(to: base).flatMap { aPrime.apply(to: $0) }, "seed \(seed)")
            #expect(one == two, "seed \(seed)")
            let composed = try #require(TextOperation.compose(a, bPrime), "seed \(seed)")
            #expect(composed.apply(to: base) == one, "seed \(seed)")
        }
    }
}
