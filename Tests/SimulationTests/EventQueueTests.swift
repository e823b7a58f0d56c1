import MemoSimulation
import Testing

@Suite struct EventQueueTests {
    @Test func earliestFirstThenInScheduleOrder() {
        var queue = EventQueue<String>()
        queue.schedule("c", at: 5)
        queue.schedule("a", at: 1)
        queue.schedule("d", at: 5)
        queue.schedule("b", at: 3)
        queue.schedule("e", at: 5)
        var order: [String] = []
        while let (_, payload) = queue.pop() { order.append(payload) }
        #expect(order == ["a", "b", "c", "d", "e"])
    }

    @Test func manyEventsComeOutSorted() {
        var random = SimulationRandom(seed: 1)
        var queue = EventQueue<Int>()
        for index in 0..<2_000 { queue.schedule(index, at: random.uint64(in: 0...100)) }
        var last: (UInt64, Int) = (0, -1)
        var popped: [Int] = []
        while let (time, index) = queue.pop() {
            #expect(time > last.0 || (time == last.0 && index > last.1))
            last = (time, index)
            popped.append(index)
        }
        // Every event came out, each once: a queue that lost events would pass the order check.
        #expect(popped.sorted() == Array(0..<2_000))
    }
}
