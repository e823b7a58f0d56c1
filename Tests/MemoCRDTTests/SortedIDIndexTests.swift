// SortedIDIndex against a dictionary (the obvious reference): ids added in ascending runs, at
// random and in descending order, around the sorted view's capacity; every lookup the same,
// the invariant check passing, the sorted view listing every id exactly while nothing
// overflowed. Seeded (`testSeeds`): MEMOSYNC_SEED=N reruns one seed.

import Testing
import TestSupport
@_spi(Engine) @testable import MemoCRDT

@Suite struct SortedIDIndexTests {
    @Test func agreesWithADictionary() throws {
        for seed in testSeeds(60) {
            var random = SeededRandom(seed: seed)
            let capacity = [1, 4, 16, 64][Int(seed % 4)]
            var index = SortedIDIndex<UInt64, Int>(sortedCapacity: capacity)
            var reference: [UInt64: Int] = [:]
            var table: [UInt64] = []
            var next: UInt64 = 1_000
            let steps = Int.random(in: 1...400, using: &random)
            for _ in 0..<steps {
                let id: UInt64
                switch Int.random(in: 0..<4, using: &random) {
                case 0, 1:   // above every id so far (a decoder's order)
                    next += UInt64.random(in: 1...5, using: &random)
                    id = next
                case 2:      // anywhere
                    id = UInt64.random(in: 0...next + 10, using: &random)
                default:     // below every id so far
                    id = (reference.keys.min() ?? 1_000).subtractingReportingOverflow(UInt64.random(in: 1...3, using: &random)).partialValue
                    guard id < 1_000_000 else { continue }
                }
                guard reference[id] == nil else { continue }
                if id > next { next = id }
                index.insert(id, at: table.count)
                reference[id] = table.count
                table.append(id)
                // A lookup of every id held, and of ids not held, agrees with the dictionary.
                for probe in [id, id &+ 1, id &- 1, UInt64.random(in: 0...next + 10, using: &random)] {
                    #expect(index.position(of: probe) == reference[probe], "seed \(seed): id \(probe)")
                }
            }
            #expect(index.count == reference.count, "seed \(seed)")
            try index.check(tableCount: table.count, name: "seed \(seed)") { table[$0] }
            for (id, position) in reference { #expect(index.position(of: id) == position, "seed \(seed)") }
            if index.isSorted {
                #expect(index.sortedIDs == table.sorted(), "seed \(seed)")
                #expect(index.sortedPositions.map { table[$0] } == table.sorted(), "seed \(seed)")
            } else {
                #expect(index.sortedIDs.count >= capacity, "seed \(seed): an overflow under the capacity")
            }
        }
    }

    /// A decoder's order: ids in ascending order stay in the sorted view at any count (no
    /// dictionary); the first id out of order past the capacity goes to the overflow.
    @Test func idsInAscendingOrderStaySortedPastTheCapacity() throws {
        var index = SortedIDIndex<UInt64, Int>(sortedCapacity: 8)
        for id in 0..<1_000 { index.insert(UInt64(id * 2), at: id) }
        #expect(index.isSorted && index.sortedIDs.count == 1_000 && index.overflow.isEmpty)
        #expect(index.position(of: 998) == 499 && index.position(of: 999) == nil)
        index.insert(999, at: 1_000)
        #expect(!index.isSorted && index.overflow == [999: 1_000] && index.position(of: 999) == 1_000)
        index.insert(5_000, at: 1_001)
        #expect(index.sortedIDs.last == 5_000 && index.position(of: 5_000) == 1_001)
        try index.check(tableCount: 1_002, name: "index") { position in
            position < 1_000 ? UInt64(position * 2) : (position == 1_000 ? 999 : 5_000)
        }
        // A table the index does not match is caught.
        #expect(throws: InvariantViolation.self) { try index.check(tableCount: 1_002, name: "index") { UInt64($0 * 2) } }
    }
}
