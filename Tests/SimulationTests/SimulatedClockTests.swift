import MemoSimulation
import Testing

@Suite struct SimulatedClockTests {
    @Test func skewDriftAndJumps() {
        var clock = SimulatedClock(skewMilliseconds: -5_000, driftPartsPerMillion: 1_000)
        #expect(clock.wallMilliseconds(at: 0) == SimulatedClock.epochMilliseconds - 5_000)
        // 1,000 ppm gains a second every 1,000 seconds.
        #expect(clock.wallMilliseconds(at: 1_000_000) == SimulatedClock.epochMilliseconds + 1_000_000 - 5_000 + 1_000)
        clock.jump(by: -3_600_000)
        #expect(clock.wallMilliseconds(at: 0) == SimulatedClock.epochMilliseconds - 5_000 - 3_600_000)
        clock.jump(by: -Int64(SimulatedClock.epochMilliseconds))
        #expect(clock.wallMilliseconds(at: 0) == SimulatedClock.floorMilliseconds)
    }
}
