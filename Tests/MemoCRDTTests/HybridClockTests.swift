import MemoCRDT
import TestSupport
import Testing

/// The hybrid logical clock: packing, the local and receive rules, monotonicity whatever the
/// wall clock does, causality between skewed replicas, counter overflow and clamping.
@Suite struct HybridClockTests {
    static let maxWall = HybridTimestamp.maxWallMilliseconds
    /// 2024-04-05, in milliseconds since the epoch: a realistic wall time.
    static let now: UInt64 = 1_712_345_678_901
    static let hour: UInt64 = 3_600_000

    // MARK: Timestamps

    @Test func packsWallTimeAboveTheCounter() {
        let timestamp = HybridTimestamp(wallMilliseconds: HybridClockTests.now, logical: 7)
        #expect(timestamp.wallMilliseconds == HybridClockTests.now)
        #expect(timestamp.logical == 7)
        #expect(timestamp.rawValue == HybridClockTests.now << 16 | 7)
        #expect(HybridTimestamp(rawValue: timestamp.rawValue) == timestamp)
        #expect(timestamp.description == "1712345678901:7")
        #expect(HybridTimestamp.zero.rawValue == 0)
        #expect(HybridTimestamp.max.wallMilliseconds == HybridClockTests.maxWall)
        #expect(HybridTimestamp.max.logical == .max)
        #expect(HybridClockTests.maxWall == 0xFFFF_FFFF_FFFF)
    }

    @Test func ordersByWallTimeThenCounter() {
        let a = HybridTimestamp(wallMilliseconds: 10, logical: .max)
        let b = HybridTimestamp(wallMilliseconds: 11, logical: 0)
        let c = HybridTimestamp(wallMilliseconds: 11, logical: 1)
        #expect(a < b && b < c && a < c)
        #expect(HybridTimestamp.zero < a && c < HybridTimestamp.max)
    }

    @Test func clampsWallTimesBeyond48Bits() {
        let clamped = HybridTimestamp(wallMilliseconds: .max, logical: 3)
        #expect(clamped.wallMilliseconds == HybridClockTests.maxWall)
        #expect(clamped.logical == 3)
        #expect(HybridTimestamp(wallMilliseconds: HybridClockTests.maxWall + 1, logical: 0).wallMilliseconds == HybridClockTests.maxWall)
    }

    // MARK: Local events

    @Test func followsAnAdvancingWallClock() {
        var clock = HybridClock()
        #expect(clock.latest == .zero)
        for step in 0..<100 {
            let now = HybridClockTests.now + UInt64(step) * 3
            let timestamp = clock.tick(wallMilliseconds: now)
            #expect(timestamp == HybridTimestamp(wallMilliseconds: now, logical: 0))
            #expect(clock.latest == timestamp)
        }
    }

    @Test func countsEventsWithinOneMillisecond() {
        var clock = HybridClock()
        for expected in 0..<1000 {
            let timestamp = clock.tick(wallMilliseconds: HybridClockTests.now)
            #expect(timestamp == HybridTimestamp(wallMilliseconds: HybridClockTests.now, logical: UInt16(expected)))
        }
        // The next millisecond restarts the counter.
        #expect(clock.tick(wallMilliseconds: HybridClockTests.now + 1) == HybridTimestamp(wallMilliseconds: HybridClockTests.now + 1, logical: 0))
    }

    @Test func neverGoesBackWhenTheWallClockDoes() {
        var clock = HybridClock()
        let first = clock.tick(wallMilliseconds: HybridClockTests.now)
        // The wall clock is set back an hour: the clock keeps counting on its old wall time.
        let second = clock.tick(wallMilliseconds: HybridClockTests.now - HybridClockTests.hour)
        #expect(second == HybridTimestamp(wallMilliseconds: HybridClockTests.now, logical: 1))
        #expect(second > first)
        // Until the wall clock passes it again.
        let third = clock.tick(wallMilliseconds: HybridClockTests.now + 5)
        #expect(third == HybridTimestamp(wallMilliseconds: HybridClockTests.now + 5, logical: 0))
        // A wall time of zero (an unset clock) too.
        #expect(clock.tick(wallMilliseconds: 0) > third)
    }

    @Test func resumesFromASavedReading() {
        let saved = HybridTimestamp(wallMilliseconds: HybridClockTests.now, logical: 41)
        var clock = HybridClock(latest: saved)
        #expect(clock.tick(wallMilliseconds: HybridClockTests.now - 10) == HybridTimestamp(wallMilliseconds: HybridClockTests.now, logical: 42))
    }

    /// Random wall clocks that jump forward and back, stall, and hit the ends of the range.
    @Test(arguments: testSeeds(20, salt: 0x4C0C_0001))
    func isStrictlyMonotonicUnderRandomClockJumps(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var clock = HybridClock()
        var wall = HybridClockTests.now
        var previous = HybridTimestamp.zero
        for _ in 0..<2000 {
            switch random.int(in: 0..<10) {
            case 0: wall = wall &- UInt64(random.int(in: 0...Int(HybridClockTests.hour) * 48))  // back, up to 2 days
            case 1: wall = wall &+ UInt64(random.int(in: 0...Int(HybridClockTests.hour) * 48))  // forward
            case 2: wall = UInt64(random.int(in: 0...1000))  // an unset clock
            case 3: break  // stalled
            default: wall = wall &+ UInt64(random.int(in: 0...3))
            }
            if wall > HybridClockTests.maxWall { wall = HybridClockTests.now }
            let latestBefore = clock.latest
            let timestamp = clock.tick(wallMilliseconds: wall)
            #expect(timestamp > previous, "seed \(seed)")
            #expect(timestamp > latestBefore, "seed \(seed)")
            #expect(timestamp >= HybridTimestamp(wallMilliseconds: wall, logical: 0), "seed \(seed)")
            #expect(clock.latest == timestamp, "seed \(seed)")
            // It only moves past the wall clock when it must: it is either (wall, 0) or the
            // successor of the previous reading.
            #expect(
                timestamp == HybridTimestamp(wallMilliseconds: wall, logical: 0)
                    || timestamp.rawValue == latestBefore.rawValue + 1, "seed \(seed)")
            previous = timestamp
        }
    }

    // MARK: Receive events

    @Test func receiveRuleCases() {
        let pt = HybridClockTests.now
        // Remote ahead of both: its wall time, its counter + 1.
        var clock = HybridClock(latest: HybridTimestamp(wallMilliseconds: pt, logical: 5))
        #expect(clock.observe(HybridTimestamp(wallMilliseconds: pt + 100, logical: 9), wallMilliseconds: pt)
            == HybridTimestamp(wallMilliseconds: pt + 100, logical: 10))
        // Local ahead of both: its own counter + 1.
        clock = HybridClock(latest: HybridTimestamp(wallMilliseconds: pt + 100, logical: 5))
        #expect(clock.observe(HybridTimestamp(wallMilliseconds: pt + 50, logical: 9), wallMilliseconds: pt)
            == HybridTimestamp(wallMilliseconds: pt + 100, logical: 6))
        // Same wall time: the larger counter + 1.
        clock = HybridClock(latest: HybridTimestamp(wallMilliseconds: pt + 100, logical: 5))
        #expect(clock.observe(HybridTimestamp(wallMilliseconds: pt + 100, logical: 9), wallMilliseconds: pt)
            == HybridTimestamp(wallMilliseconds: pt + 100, logical: 10))
        clock = HybridClock(latest: HybridTimestamp(wallMilliseconds: pt + 100, logical: 12))
        #expect(clock.observe(HybridTimestamp(wallMilliseconds: pt + 100, logical: 9), wallMilliseconds: pt)
            == HybridTimestamp(wallMilliseconds: pt + 100, logical: 13))
        // The wall clock ahead of both: (now, 0).
        clock = HybridClock(latest: HybridTimestamp(wallMilliseconds: pt, logical: 5))
        #expect(clock.observe(HybridTimestamp(wallMilliseconds: pt + 1, logical: 9), wallMilliseconds: pt + 2)
            == HybridTimestamp(wallMilliseconds: pt + 2, logical: 0))
        #expect(clock.latest == HybridTimestamp(wallMilliseconds: pt + 2, logical: 0))
        // The wall clock equal to the largest: counted, not reset.
        clock = HybridClock(latest: HybridTimestamp(wallMilliseconds: pt, logical: 5))
        #expect(clock.observe(HybridTimestamp(wallMilliseconds: pt - 1, logical: 9), wallMilliseconds: pt)
            == HybridTimestamp(wallMilliseconds: pt, logical: 6))
    }

    @Test func nextTickFollowsAnObservedTimestamp() {
        var clock = HybridClock()
        _ = clock.tick(wallMilliseconds: HybridClockTests.now)
        let remote = HybridTimestamp(wallMilliseconds: HybridClockTests.now + 2 * HybridClockTests.hour, logical: 3)
        clock.observe(remote, wallMilliseconds: HybridClockTests.now)
        let next = clock.tick(wallMilliseconds: HybridClockTests.now + 1)
        #expect(next > remote)
        #expect(next.wallMilliseconds == remote.wallMilliseconds)
    }

    /// Replicas whose wall clocks disagree by hours (and drift, and jump) exchange timestamps in
    /// random order. Causality holds: whatever a replica observed, its later timestamps are
    /// greater; along any chain of messages timestamps increase. And wall parts never run ahead
    /// of the fastest wall clock seen (the HLC bound), since the counter never overflows here.
    @Test(arguments: testSeeds(20, salt: 0x4C0C_0002))
    func skewedReplicasStayConsistentWithCausality(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let count = random.int(in: 2...4)
        // Offsets from true time: up to ±6 hours, replica 0 on time.
        var offsets: [Int64] = (0..<count).map { index in
            index == 0 ? 0 : Int64(random.int(in: -6 * 3_600_000...6 * 3_600_000))
        }
        var clocks = Array(repeating: HybridClock(), count: count)
        // The largest timestamp each replica has issued or observed, tracked independently.
        var known = Array(repeating: HybridTimestamp.zero, count: count)
        var inFlight: [(to: Int, timestamp: HybridTimestamp)] = []
        var trueTime = HybridClockTests.now
        var fastestWall: UInt64 = 0
        for _ in 0..<3000 {
            trueTime += UInt64(random.int(in: 0...20))
            let replica = random.int(in: 0..<count)
            if random.chance(0.02) { offsets[replica] += Int64(random.int(in: -3_600_000...3_600_000)) }  // a jump
            let wall = UInt64(Int64(trueTime) + offsets[replica])
            fastestWall = max(fastestWall, wall)
            if !inFlight.isEmpty && random.chance(0.4) {
                // Deliver a random message (out of order) to its receiver.
                let message = inFlight.remove(at: random.int(in: 0..<inFlight.count))
                let receiverWall = UInt64(Int64(trueTime) + offsets[message.to])
                fastestWall = max(fastestWall, receiverWall)
                let before = clocks[message.to].latest
                let received = clocks[message.to].observe(message.timestamp, wallMilliseconds: receiverWall)
                #expect(received > message.timestamp && received > before, "seed \(seed)")
                #expect(clocks[message.to].latest == received, "seed \(seed)")
                known[message.to] = received
                // The receiver's next tick is after what it observed.
                let next = clocks[message.to].tick(wallMilliseconds: receiverWall)
                #expect(next > message.timestamp, "seed \(seed)")
                known[message.to] = next
                // A reply carries causality further.
                if random.chance(0.5) { inFlight.append((to: random.int(in: 0..<count), timestamp: next)) }
            } else {
                let timestamp = clocks[replica].tick(wallMilliseconds: wall)
                #expect(timestamp > known[replica], "seed \(seed)")
                #expect(timestamp.wallMilliseconds >= wall, "seed \(seed)")
                known[replica] = timestamp
                if random.chance(0.5) {
                    let receiver = (replica + random.int(in: 1..<count)) % count
                    inFlight.append((to: receiver, timestamp: timestamp))
                }
            }
            for index in 0..<count {
                #expect(clocks[index].latest.wallMilliseconds <= fastestWall, "seed \(seed)")
            }
        }
    }

    /// One replica an hour ahead, one an hour behind: the one behind adopts the other's wall
    /// time when it hears from it, and its own edits after that sort after the other's.
    @Test func aClockBehindCatchesUpThroughMessages() {
        var ahead = HybridClock()
        var behind = HybridClock()
        let t = ahead.tick(wallMilliseconds: HybridClockTests.now + HybridClockTests.hour)
        let own = behind.tick(wallMilliseconds: HybridClockTests.now - HybridClockTests.hour)
        #expect(own < t)  // concurrent: ordered by wall time only
        behind.observe(t, wallMilliseconds: HybridClockTests.now - HybridClockTests.hour + 10)
        let reply = behind.tick(wallMilliseconds: HybridClockTests.now - HybridClockTests.hour + 20)
        #expect(reply > t)
        #expect(reply.wallMilliseconds == t.wallMilliseconds)
        // And the clock ahead, hearing the reply, still moves forward.
        ahead.observe(reply, wallMilliseconds: HybridClockTests.now + HybridClockTests.hour)
        #expect(ahead.tick(wallMilliseconds: HybridClockTests.now + HybridClockTests.hour) > reply)
    }

    // MARK: Overflow and clamping

    @Test func counterOverflowAdvancesTheWallPart() {
        var clock = HybridClock()
        let now = HybridClockTests.now
        var previous = HybridTimestamp.zero
        for _ in 0...Int(UInt16.max) {
            let timestamp = clock.tick(wallMilliseconds: now)
            #expect(timestamp > previous)
            previous = timestamp
        }
        #expect(previous == HybridTimestamp(wallMilliseconds: now, logical: .max))
        // 65537th event in the same millisecond: the next millisecond, counter 0.
        let carried = clock.tick(wallMilliseconds: now)
        #expect(carried == HybridTimestamp(wallMilliseconds: now + 1, logical: 0))
        #expect(clock.tick(wallMilliseconds: now) == HybridTimestamp(wallMilliseconds: now + 1, logical: 1))
        // When that millisecond really comes, the clock counts on from where it is.
        #expect(clock.tick(wallMilliseconds: now + 1) == HybridTimestamp(wallMilliseconds: now + 1, logical: 2))
    }

    @Test func observingAFullCounterCarriesToo() {
        let now = HybridClockTests.now
        var clock = HybridClock()
        let remote = HybridTimestamp(wallMilliseconds: now, logical: .max)
        #expect(clock.observe(remote, wallMilliseconds: now) == HybridTimestamp(wallMilliseconds: now + 1, logical: 0))
        #expect(clock.tick(wallMilliseconds: now) > remote)
    }

    @Test func clampsWallTimesBeyondTheRange() {
        var clock = HybridClock()
        let first = clock.tick(wallMilliseconds: .max)
        #expect(first == HybridTimestamp(wallMilliseconds: HybridClockTests.maxWall, logical: 0))
        #expect(clock.tick(wallMilliseconds: HybridClockTests.maxWall + 12345) == HybridTimestamp(wallMilliseconds: HybridClockTests.maxWall, logical: 1))
        var other = HybridClock()
        other.observe(HybridTimestamp(wallMilliseconds: 5, logical: 0), wallMilliseconds: .max)
        #expect(other.latest == HybridTimestamp(wallMilliseconds: HybridClockTests.maxWall, logical: 0))
    }

    @Test func saturatesAtTheTopOfTheRangeWithoutTrapping() {
        // A clock one step below the top reaches it, then stays there.
        var clock = HybridClock(latest: HybridTimestamp(rawValue: .max - 1))
        #expect(clock.tick(wallMilliseconds: .max) == .max)
        #expect(clock.tick(wallMilliseconds: .max) == .max)
        #expect(clock.tick(wallMilliseconds: 0) == .max)
        #expect(clock.observe(.max, wallMilliseconds: .max) == .max)
        var fresh = HybridClock()
        #expect(fresh.observe(.max, wallMilliseconds: HybridClockTests.now) == .max)
        #expect(fresh.latest == .max)
    }
}
