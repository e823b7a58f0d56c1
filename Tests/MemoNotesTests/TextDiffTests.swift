import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// The minimal scalar diff: edits that turn the old text into the new one, as few inserted and
/// deleted scalars as a dynamic-programming oracle says is possible, in the documented shape;
/// and the fallback beyond the edit distance limit.
@Suite struct TextDiffTests {
    // MARK: Helpers

    /// `old` with `edits` applied from the last to the first.
    static func apply(_ edits: [ScalarEdit], to old: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var text = old
        for edit in edits.reversed() { text.replaceSubrange(edit.range, with: edit.replacement) }
        return text
    }

    /// Scalars deleted plus scalars inserted.
    static func cost(_ edits: [ScalarEdit]) -> Int {
        edits.reduce(0) { $0 + $1.range.count + $1.replacement.count }
    }

    /// The insert/delete edit distance by the textbook O(n·m) longest common subsequence table.
    static func oracleDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var previous = Array(repeating: 0, count: b.count + 1)
        var current = previous
        for i in 1...max(a.count, 1) where !a.isEmpty {
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : max(previous[j], current[j - 1])
            }
            swap(&previous, &current)
        }
        return a.count + b.count - 2 * previous[b.count]
    }

    /// The documented shape: ascending, non-overlapping, not touching, each edit doing something,
    /// within the old text; and correct.
    static func check(
        _ edits: [ScalarEdit], from old: [Unicode.Scalar], to new: [Unicode.Scalar], _ context: String
    ) {
        #expect(apply(edits, to: old) == new, "\(context)")
        var previousEnd = -1
        for edit in edits {
            #expect(edit.range.lowerBound >= 0 && edit.range.upperBound <= old.count, "\(context)")
            #expect(edit.range.lowerBound > previousEnd, "\(context): edits touch or overlap")
            #expect(!edit.range.isEmpty || !edit.replacement.isEmpty, "\(context): empty edit")
            previousEnd = edit.range.upperBound
        }
    }

    static func scalars(_ text: String) -> [Unicode.Scalar] { Array(text.unicodeScalars) }

    // MARK: Examples

    @Test func equalTextsGiveNoEdits() {
        #expect(TextDiff.scalarEdits(from: [], to: []).isEmpty)
        let text = TextDiffTests.scalars("same text 한국어 😀")
        #expect(TextDiff.scalarEdits(from: text, to: text).isEmpty)
        #expect(TextDiff.scalarEdits(from: text, to: text, maxEditDistance: 0).isEmpty)
    }

    @Test func insertionsDeletionsAndReplacements() {
        let s = TextDiffTests.scalars
        #expect(TextDiff.scalarEdits(from: [], to: s("abc")) == [ScalarEdit(range: 0..<0, replacement: s("abc"))])
        #expect(TextDiff.scalarEdits(from: s("abc"), to: []) == [ScalarEdit(range: 0..<3, replacement: [])])
        #expect(TextDiff.scalarEdits(from: s("abc"), to: s("abd")) == [ScalarEdit(range: 2..<3, replacement: s("d"))])
        #expect(TextDiff.scalarEdits(from: s("Buy milk"), to: s("Buy oat milk")) == [ScalarEdit(range: 4..<4, replacement: s("oat "))])
        #expect(TextDiff.scalarEdits(from: s("Buy oat milk"), to: s("Buy milk")) == [ScalarEdit(range: 4..<8, replacement: [])])
        // Two separate changes stay two edits.
        #expect(TextDiff.scalarEdits(from: s("one two three"), to: s("one 2 three!"))
            == [ScalarEdit(range: 4..<7, replacement: s("2")), ScalarEdit(range: 13..<13, replacement: s("!"))])
    }

    @Test func adjacentDeletionAndInsertionAreOneReplacement() {
        let s = TextDiffTests.scalars
        let edits = TextDiff.scalarEdits(from: s("the cat sat"), to: s("the dog sat"))
        #expect(edits == [ScalarEdit(range: 4..<7, replacement: s("dog"))])
        // Interleaved matches inside a replaced word are still used when they make it shorter.
        let partial = TextDiff.scalarEdits(from: s("xaybz"), to: s("qarbs"))
        TextDiffTests.check(partial, from: s("xaybz"), to: s("qarbs"), "partial")
        #expect(TextDiffTests.cost(partial) == 6)
    }

    @Test func worksOnAstralAndCombiningScalars() {
        let s = TextDiffTests.scalars
        let old = s("e\u{301}👨\u{200D}👩 한\u{1100}\u{1161}")
        let new = s("e\u{308}👨\u{200D}👧 한\u{1100}\u{1161}\u{11A8}")
        let edits = TextDiff.scalarEdits(from: old, to: new)
        TextDiffTests.check(edits, from: old, to: new, "unicode")
        #expect(edits == [
            ScalarEdit(range: 1..<2, replacement: ["\u{308}"]),
            ScalarEdit(range: 4..<5, replacement: ["👧"]),
            ScalarEdit(range: 9..<9, replacement: ["\u{11A8}"]),
        ])
    }

    // MARK: Minimality

    /// Short random pairs over small alphabets (many matches, many equally short scripts):
    /// correct, in shape, and exactly as short as the oracle's distance.
    @Test(arguments: testSeeds(30, salt: 0xD1FF_0001))
    func randomPairsAreMinimal(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for round in 0..<100 {
            let alphabet = Array("abcd".unicodeScalars.prefix(random.int(in: 1...4))) + (random.chance(0.3) ? ["😀"] : [])
            let old = (0..<random.int(in: 0...25)).map { _ in random.pick(alphabet) }
            let new = (0..<random.int(in: 0...25)).map { _ in random.pick(alphabet) }
            let edits = TextDiff.scalarEdits(from: old, to: new)
            let context = "seed \(seed) round \(round) \(old.string) → \(new.string)"
            TextDiffTests.check(edits, from: old, to: new, context)
            #expect(TextDiffTests.cost(edits) == TextDiffTests.oracleDistance(old, new), "\(context)")
        }
    }

    /// Texts from RandomText with long common parts and a few small changes: minimal against the
    /// oracle on texts of a few hundred scalars.
    @Test(arguments: testSeeds(20, salt: 0xD1FF_0002))
    func smallChangesToRandomTextsAreMinimal(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for round in 0..<10 {
            let old = RandomText.scalars(random.int(in: 0...300), using: &random)
            let (new, _) = TextDiffTests.mutate(old, changes: random.int(in: 0...6), using: &random)
            let edits = TextDiff.scalarEdits(from: old, to: new)
            let context = "seed \(seed) round \(round)"
            TextDiffTests.check(edits, from: old, to: new, context)
            #expect(TextDiffTests.cost(edits) == TextDiffTests.oracleDistance(old, new), "\(context)")
        }
    }

    /// Long texts (thousands of scalars) with a few changes: correct, and no more costly than
    /// the changes that were made.
    @Test(arguments: testSeeds(10, salt: 0xD1FF_0003))
    func longTextsWithFewChanges(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let old = RandomText.scalars(random.int(in: 2000...20_000), using: &random)
        let (new, madeCost) = TextDiffTests.mutate(old, changes: random.int(in: 1...20), using: &random)
        let edits = TextDiff.scalarEdits(from: old, to: new)
        TextDiffTests.check(edits, from: old, to: new, "seed \(seed)")
        #expect(TextDiffTests.cost(edits) <= madeCost, "seed \(seed)")
    }

    /// `text` with `changes` random insertions, deletions and replacements of a few scalars;
    /// and the number of scalars those inserted plus deleted (an upper bound of the distance).
    static func mutate(
        _ text: [Unicode.Scalar], changes: Int, using random: inout SeededRandom
    ) -> ([Unicode.Scalar], Int) {
        var result = text
        var cost = 0
        for _ in 0..<changes {
            let lower = random.int(in: 0...result.count)
            let upper = min(result.count, lower + (random.chance(0.5) ? 0 : random.int(in: 1...8)))
            let inserted = random.chance(0.3) && upper > lower ? [] : RandomText.scalars(random.int(in: 1...8), using: &random)
            result.replaceSubrange(lower..<upper, with: inserted)
            cost += (upper - lower) + inserted.count
        }
        return (result, cost)
    }

    // MARK: The limit

    @Test func exceedingTheLimitReplacesTheDifferingMiddle() {
        let s = TextDiffTests.scalars
        let old = s("start abcdefgh end")
        let new = s("start 1b2d3f4h end")
        // Distance 8: four replaced scalars.
        let minimal = TextDiff.scalarEdits(from: old, to: new, maxEditDistance: 8)
        #expect(TextDiffTests.cost(minimal) == 8)
        #expect(minimal.count == 4)
        // One less: a single replacement of everything between the common ends.
        for limit in [-1, 0, 1, 5, 7] {
            let fallback = TextDiff.scalarEdits(from: old, to: new, maxEditDistance: limit)
            #expect(fallback == [ScalarEdit(range: 6..<13, replacement: s("1b2d3f4"))], "limit \(limit)")
            TextDiffTests.check(fallback, from: old, to: new, "limit \(limit)")
        }
        // An odd distance at the limit and just over it.
        let nine = TextDiff.scalarEdits(from: old, to: s("start 1b2d3f4hX end"), maxEditDistance: 9)
        #expect(TextDiffTests.cost(nine) == 9)
        #expect(nine.count == 5)
        let overNine = TextDiff.scalarEdits(from: old, to: s("start 1b2d3f4hX end"), maxEditDistance: 8)
        #expect(overNine == [ScalarEdit(range: 6..<14, replacement: s("1b2d3f4hX"))])
    }

    @Test func aLengthDifferenceBeyondTheLimitFallsBackAtOnce() {
        let old = Array(repeating: Unicode.Scalar("a"), count: 10)
        let new = old + Array(repeating: Unicode.Scalar("b"), count: 20) + old
        let fallback = TextDiff.scalarEdits(from: old, to: new, maxEditDistance: 19)
        TextDiffTests.check(fallback, from: old, to: new, "fallback")
        #expect(fallback.count == 1)
        let minimal = TextDiff.scalarEdits(from: old, to: new, maxEditDistance: 30)
        #expect(TextDiffTests.cost(minimal) == 30)
    }

    /// Around the limit on random pairs: the minimal script when the distance is within it,
    /// otherwise one replacement of the differing middle.
    @Test(arguments: testSeeds(20, salt: 0xD1FF_0004))
    func theLimitIsExact(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for round in 0..<50 {
            let alphabet = Array("abc".unicodeScalars)
            let old = (0..<random.int(in: 0...20)).map { _ in random.pick(alphabet) }
            let new = (0..<random.int(in: 0...20)).map { _ in random.pick(alphabet) }
            let distance = TextDiffTests.oracleDistance(old, new)
            let limit = max(0, distance + random.int(in: -3...3))
            let edits = TextDiff.scalarEdits(from: old, to: new, maxEditDistance: limit)
            let context = "seed \(seed) round \(round) limit \(limit) distance \(distance)"
            TextDiffTests.check(edits, from: old, to: new, context)
            if distance <= limit {
                #expect(TextDiffTests.cost(edits) == distance, "\(context)")
            } else {
                #expect(edits.count == 1, "\(context)")
                var prefix = 0
                while prefix < min(old.count, new.count) && old[prefix] == new[prefix] { prefix += 1 }
                #expect(edits.first?.range.lowerBound == prefix, "\(context)")
            }
        }
    }

    @Test func unrelatedLongTextsFallBackQuickly() {
        // Nothing in common: distance 20,000, far beyond the default limit.
        let old = Array(repeating: Unicode.Scalar("a"), count: 10_000)
        let new = Array(repeating: Unicode.Scalar("b"), count: 10_000)
        let edits = TextDiff.scalarEdits(from: old, to: new)
        #expect(edits == [ScalarEdit(range: 0..<10_000, replacement: new)])
    }

    @Test func distancesUpToTheDefaultLimitAreMinimal() {
        // Every other scalar changed in a 2,000-scalar text: distance 2,000 (1,000 replaced).
        var random = SeededRandom(seed: 7)
        let old = (0..<2000).map { _ in random.pick(Array("ab".unicodeScalars)) }
        var new = old
        for index in stride(from: 0, to: new.count, by: 2) { new[index] = "x" }
        let edits = TextDiff.scalarEdits(from: old, to: new)
        TextDiffTests.check(edits, from: old, to: new, "alternating")
        #expect(TextDiffTests.cost(edits) == 2000)
        #expect(edits.count > 1)
    }
}
