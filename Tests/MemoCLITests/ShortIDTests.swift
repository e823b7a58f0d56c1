import MemoNotes
import TestSupport
import Testing

@testable import memo

/// `memo help`: "memo list shows ids shortened to 8 digits or more": 8 hexadecimal digits, more
/// where another memo's id starts with the same 8, so that a short id printed names one memo.
@Suite struct ShortIDTests {
    /// The reference: the shortest prefix of at least `minimum` digits that starts no other id.
    private static func reference(_ id: MemoID, among ids: [MemoID], minimum: Int) -> String {
        let text = id.description
        for length in minimum...text.count {
            let prefix = text.prefix(length)
            if !ids.contains(where: { $0 != id && $0.description.hasPrefix(prefix) }) { return String(prefix) }
        }
        return text
    }

    @Test(arguments: testSeeds(12, salt: 0x5_1D05))
    func shortIDsAreTheShortestUniquePrefixesOfEightDigitsOrMore(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        // Random ids, and ids that share 8 to 14 leading digits with one of them.
        var ids = (0..<random.int(in: 1...30)).map { _ in MemoID(using: &random) }
        for _ in 0..<random.int(in: 0...10) {
            let base = random.pick(ids)
            let sharedBits = 4 * random.int(in: 8...14)
            let mask = UInt64.max << UInt64(64 - sharedBits)
            ids.append(MemoID(high: (base.high & mask) | (random.next() & ~mask), low: random.next()))
        }
        ids = Array(Set(ids))
        let short = ShortIDs(ids)
        var printed = Set<String>()
        for id in ids {
            let form = short(id)
            #expect(form == Self.reference(id, among: ids, minimum: 8), "seed \(seed): \(id)")
            #expect(form.count >= 8 && printed.insert(form).inserted, "seed \(seed): \(form)")
        }
    }

    @Test func twoIDsSharingTenDigitsGetElevenAndOthersEight() {
        let first = MemoID(high: 0x1234_5678_90AB_0000, low: 1)
        let second = MemoID(high: 0x1234_5678_90CD_0000, low: 2)
        let other = MemoID(high: 0xFEDC_BA98_7654_3210, low: 3)
        let short = ShortIDs([first, second, other])
        #expect(short(first) == "1234567890a" && short(second) == "1234567890c")
        #expect(short(other) == "fedcba98")
    }
}
