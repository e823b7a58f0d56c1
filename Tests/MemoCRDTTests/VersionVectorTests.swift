import MemoCRDT
import TestSupport
import Testing

/// Version vectors against a dictionary of counts, the obvious reference.
@Suite struct VersionVectorTests {
    /// `operationCount(beyond:)` is the number of operations one version holds and the other
    /// lacks: per replica, how far the first count passes the second.
    @Test(arguments: testSeeds(20, salt: 0x7E57_0a1f))
    func operationCountBeyondAnotherVersion(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        func randomCounts() -> [ReplicaID: UInt32] {
            var counts: [ReplicaID: UInt32] = [:]
            for _ in 0..<random.int(in: 0...6) { counts[ReplicaID(UInt64(random.int(in: 1...8)))] = UInt32(random.int(in: 0...40)) }
            return counts
        }
        for _ in 0..<50 {
            let first = randomCounts()
            let second = randomCounts()
            var expected = 0
            for (replica, count) in first where count > second[replica] ?? 0 { expected += Int(count - (second[replica] ?? 0)) }
            let a = VersionVector(first)
            let b = VersionVector(second)
            #expect(a.operationCount(beyond: b) == expected, "seed \(seed): \(a) beyond \(b)")
            #expect(a.operationCount(beyond: a) == 0, "seed \(seed)")
            #expect(a.operationCount(beyond: VersionVector()) == a.operationCount, "seed \(seed)")
            #expect((a.operationCount(beyond: b) == 0) == a.isIncluded(in: b), "seed \(seed): \(a) and \(b)")
        }
    }
}
