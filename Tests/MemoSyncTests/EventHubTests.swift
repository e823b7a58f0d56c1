// The queue of events a replica keeps for `takeEvents()` (issue 25, part 4): bounded, newest
// kept, oldest dropped without moving the kept ones at every event.

import MemoCRDT
import MemoNotes
import Testing

@testable import MemoSync

@Suite("the event queue")
struct EventHubTests {
    /// An event that says its number (in its edit's range).
    static func event(_ number: Int) -> NotebookEvent {
        .changed(MemoID(high: 1, low: 2), edits: [TextEdit(rangeUTF16: number..<number, replacement: "")], origin: .local)
    }

    static func number(_ event: NotebookEvent) -> Int? {
        if case let .changed(_, edits, _) = event { return edits.first?.rangeUTF16.lowerBound }
        return nil
    }

    @Test("published one by one and in batches, the newest events are kept, in order, the dropped ones counted and let go a chunk at a time")
    func newestKeptInOrder() {
        var hub = EventHub()
        var published = 0
        // Batches of every size around the bound, then single events (typing after a sync).
        for size in [1, 3, 2_500, 1, EventHub.queuedEventsMax + 7, 1, 9_999, 2] + Array(repeating: 1, count: 25_000) {
            hub.publish((published..<published + size).map(Self.event))
            published += size
            #expect(hub.queuedCount == min(published, EventHub.queuedEventsMax))
            // The dropped events go a chunk at a time, never the whole queue at once: what the
            // queue stores stays within one chunk of what it keeps.
            #expect(hub.storedEventCount <= hub.queuedCount + EventHub.chunkEventCount)
        }
        #expect(hub.droppedEventCount == published - EventHub.queuedEventsMax)
        let taken = hub.take()
        #expect(taken.compactMap(Self.number) == Array(published - EventHub.queuedEventsMax..<published))
        #expect(hub.take().isEmpty)
        #expect(hub.droppedEventCount == 0)
        // After a take, the queue starts again from empty.
        hub.publish([Self.event(7)])
        #expect(hub.take().compactMap(Self.number) == [7])
    }
}
