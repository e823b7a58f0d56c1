import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// Memo ids: the hexadecimal form both ways, the order, random ids from a caller's generator,
/// and resolving abbreviations.
@Suite struct MemoIDTests {
    // MARK: Hexadecimal form

    @Test func descriptionIs32LowercaseDigitsZeroPadded() {
        #expect(MemoID(high: 0, low: 0).description == String(repeating: "0", count: 32))
        #expect(MemoID(high: 1, low: 0xAB).description == "000000000000000100000000000000ab")
        #expect(
            MemoID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210).description
                == "0123456789abcdeffedcba9876543210")
        #expect(MemoID(high: .max, low: .max).description == String(repeating: "f", count: 32))
    }

    @Test func parsesEitherCase() {
        let id = MemoID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        #expect(MemoID("0123456789abcdeffedcba9876543210") == id)
        #expect(MemoID("0123456789ABCDEFFEDCBA9876543210") == id)
        #expect(MemoID("0123456789AbCdEfFeDcBa9876543210") == id)
        // Any StringProtocol: a substring too.
        let padded = "[0123456789abcdeffedcba9876543210]"
        #expect(MemoID(padded.dropFirst().dropLast()) == id)
    }

    @Test(arguments: [
        "",
        "0",
        String(repeating: "0", count: 31),
        String(repeating: "0", count: 33),
        "+123456789abcdeffedcba987654321",
        "-123456789abcdeffedcba987654321",
        " 0123456789abcdeffedcba987654321",
        "0123456789abcdeffedcba987654321 ",
        "0123456789abcdef-fedcba987654321",
        "0123456789abcdegfedcba9876543210",
        "0x23456789abcdeffedcba9876543210",
        "０123456789abcdeffedcba987654321",  // a full-width digit
        "é123456789abcdeffedcba987654321",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(MemoID(text) == nil, "\(text)")
    }

    @Test(arguments: testSeeds(10, salt: 0x3E30_1D01))
    func roundTripsThroughItsDescription(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            // Mix full-width values with small ones, so zero padding is exercised.
            let high = random.chance(0.3) ? UInt64(random.int(in: 0...255)) : random.next()
            let low = random.chance(0.3) ? UInt64(random.int(in: 0...255)) : random.next()
            let id = MemoID(high: high, low: low)
            let text = id.description
            #expect(text.utf8.count == 32, "seed \(seed)")
            #expect(text.allSatisfy { "0123456789abcdef".contains($0) }, "seed \(seed)")
            #expect(MemoID(text) == id, "seed \(seed)")
            #expect(MemoID(text.uppercased()) == id, "seed \(seed)")
        }
    }

    // MARK: Order

    @Test(arguments: testSeeds(10, salt: 0x3E30_1D02))
    func ordersByHighThenLowLikeTheHexadecimalForm(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        // Few distinct halves, so equal highs (and equal ids) are common.
        let halves: [UInt64] = [0, 1, 0x8000_0000_0000_0000, .max, random.next(), random.next()]
        let ids = (0..<60).map { _ in MemoID(high: random.pick(halves), low: random.pick(halves)) }
        for left in ids {
            for right in ids {
                let expected = left.high != right.high ? left.high < right.high : left.low < right.low
                #expect((left < right) == expected, "seed \(seed) \(left) \(right)")
                #expect((left < right) == (left.description < right.description), "seed \(seed)")
                #expect((left == right) == (left.description == right.description), "seed \(seed)")
            }
        }
    }

    // MARK: Random ids

    @Test(arguments: testSeeds(5, salt: 0x3E30_1D03))
    func randomIdsComeFromTheCallersGenerator(seed: UInt64) {
        var first = SeededRandom(seed: seed)
        var second = SeededRandom(seed: seed)
        var reference = SeededRandom(seed: seed)
        for _ in 0..<50 {
            let id = MemoID(using: &first)
            #expect(MemoID(using: &second) == id, "seed \(seed)")
            // High first, then low: two draws.
            let high = reference.next()
            let low = reference.next()
            #expect(id == MemoID(high: high, low: low), "seed \(seed)")
        }
        // Distinct in practice.
        var random = SeededRandom(seed: seed)
        let ids = (0..<1000).map { _ in MemoID(using: &random) }
        #expect(Set(ids).count == ids.count, "seed \(seed)")
    }

    @Test func worksWithTheSystemGenerator() {
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<100).map { _ in MemoID(using: &generator) }
        #expect(Set(ids).count == 100)
    }

    // MARK: Abbreviations

    static let sample: [MemoID] = [
        MemoID("0123456789abcdef0000000000000001")!,
        MemoID("0123456789abcdef0000000000000002")!,
        MemoID("01239999999999990000000000000000")!,
        MemoID("abcdef00000000000000000000000000")!,
        MemoID("ffffffffffffffffffffffffffffffff")!,
    ]

    @Test func resolvesAUniquePrefix() {
        let ids = MemoIDTests.sample
        #expect(MemoID.matching(prefix: "a", in: ids) == .unique(ids[3]))
        #expect(MemoID.matching(prefix: "ABCDEF", in: ids) == .unique(ids[3]))
        #expect(MemoID.matching(prefix: "01239", in: ids) == .unique(ids[2]))
        #expect(MemoID.matching(prefix: "f", in: ids) == .unique(ids[4]))
        // Into the low half, and the whole id.
        #expect(MemoID.matching(prefix: "0123456789abcdef00000000000000", in: ids) == .ambiguous([ids[0], ids[1]]))
        #expect(MemoID.matching(prefix: "0123456789abcdef000000000000000", in: ids) == .ambiguous([ids[0], ids[1]]))
        #expect(MemoID.matching(prefix: "0123456789abcdef0000000000000002", in: ids) == .unique(ids[1]))
        #expect(MemoID.matching(prefix: "0123456789ABCDEF0000000000000002", in: ids) == .unique(ids[1]))
    }

    @Test func listsAmbiguousMatchesAscendingOnce() {
        let ids = MemoIDTests.sample
        // Given out of order and with duplicates.
        let shuffled = [ids[2], ids[1], ids[4], ids[0], ids[1], ids[2]]
        #expect(MemoID.matching(prefix: "0123", in: shuffled) == .ambiguous([ids[0], ids[1], ids[2]]))
        #expect(MemoID.matching(prefix: "012345", in: shuffled) == .ambiguous([ids[0], ids[1]]))
        // One id given twice is unique.
        #expect(MemoID.matching(prefix: "f", in: [ids[4], ids[4]]) == .unique(ids[4]))
        #expect(MemoID.matching(prefix: "0123456789abcdef00000000000000", in: [ids[1], ids[0], ids[1]]) == .ambiguous([ids[0], ids[1]]))
        // Any collection: a set.
        #expect(MemoID.matching(prefix: "0", in: Set(ids)) == .ambiguous([ids[0], ids[1], ids[2]]))
    }

    @Test(arguments: ["", "g", "0123x", " 0123", "0123 ", "-1", "+1", "0x01", "é", "０",
                      "0123456789abcdef00000000000000011", "b"])
    func matchesNothingForInvalidOrUnknownPrefixes(prefix: String) {
        #expect(MemoID.matching(prefix: prefix, in: MemoIDTests.sample) == .none, "\(prefix)")
    }

    @Test func matchesNothingInNoIds() {
        #expect(MemoID.matching(prefix: "0", in: [MemoID]()) == .none)
    }

    /// Against the obvious definition: string prefixes of the descriptions.
    @Test(arguments: testSeeds(10, salt: 0x3E30_1D04))
    func prefixMatchingAgreesWithStringPrefixes(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        // Ids that share long prefixes: a few random digits on a common stem.
        let stem = MemoID(using: &random).description
        let ids: [MemoID] = (0..<40).map { _ in
            let keep = random.int(in: 0...32)
            var digits = Array(stem.prefix(keep))
            while digits.count < 32 { digits.append(random.pick(Array("0123456789abcdef"))) }
            return MemoID(String(digits))!
        }
        for _ in 0..<200 {
            let source = random.pick(ids).description
            var prefix = String(source.prefix(random.int(in: 1...32)))
            if random.chance(0.3) { prefix = prefix.uppercased() }
            if random.chance(0.2) { prefix = String(prefix.dropLast()) + String(random.pick(Array("0123456789abcdef"))) }
            let expected = Set(ids.filter { $0.description.hasPrefix(prefix.lowercased()) }).sorted()
            let result = MemoID.matching(prefix: prefix, in: ids)
            switch expected.count {
            case 0: #expect(result == .none, "seed \(seed) \(prefix)")
            case 1: #expect(result == .unique(expected[0]), "seed \(seed) \(prefix)")
            default: #expect(result == .ambiguous(expected), "seed \(seed) \(prefix)")
            }
        }
    }
}
