import Foundation
import MemoSync
import Testing
import TestSupport

/// `CivilDate`, which signs S3 requests and writes `memo`'s ISO 8601 times, against known days
/// and against Foundation's Gregorian calendar in UTC.
@Suite struct CivilDateTests {
    @Test func knownDays() {
        #expect(CivilDate.of(daysSince1970: 0) == (1970, 1, 1))
        #expect(CivilDate.of(daysSince1970: -1) == (1969, 12, 31))
        #expect(CivilDate.of(daysSince1970: 11_016) == (2000, 2, 29))
        #expect(CivilDate.of(daysSince1970: 19_723) == (2024, 1, 1))
        #expect(CivilDate.of(daysSince1970: 47_540) == (2100, 2, 28))
        #expect(CivilDate.of(daysSince1970: -135_080) == (1600, 3, 1))
    }

    /// Random days from 1600 to 2400 give Foundation's date. Prints its seed on failure.
    @Test func agreesWithFoundation() {
        let seed: UInt64 = 20_261_126
        var random = SeededRandom(seed: seed)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for _ in 0..<2_000 {
            let days = Int64.random(in: -135_080...157_000, using: &random)
            let date = Date(timeIntervalSince1970: Double(days) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let civil = CivilDate.of(daysSince1970: days)
            #expect(
                (Int(civil.year), Int(civil.month), Int(civil.day)) == (parts.year!, parts.month!, parts.day!),
                "day \(days) (seed \(seed))")
        }
    }
}
