/// A priority queue of timed events: the earliest time first, and among events at the same time
/// the one scheduled first (a sequence number breaks ties), so the order never depends on
/// anything but the order of `schedule` calls.
public struct EventQueue<Payload> {
    private struct Entry {
        var time: UInt64
        var sequence: UInt64
        var payload: Payload

        func precedes(_ other: Entry) -> Bool {
            time != other.time ? time < other.time : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    /// An empty queue.
    public init() {}

    /// The number of events waiting.
    public var count: Int { heap.count }

    /// True when no event waits.
    public var isEmpty: Bool { heap.isEmpty }

    /// The time of the earliest event, if any.
    public var nextTime: UInt64? { heap.first?.time }

    /// Adds `payload` at `time` (simulated milliseconds).
    public mutating func schedule(_ payload: Payload, at time: UInt64) {
        heap.append(Entry(time: time, sequence: nextSequence, payload: payload))
        nextSequence += 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest event.
    public mutating func pop() -> (time: UInt64, payload: Payload)? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return (top.time, top.payload)
    }

    /// Removes every event.
    public mutating func removeAll() {
        heap.removeAll()
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var best = left
            if left + 1 < count && heap[left + 1].precedes(heap[left]) { best = left + 1 }
            guard heap[best].precedes(heap[parent]) else { return }
            heap.swapAt(best, parent)
            parent = best
        }
    }
}
