import MemoNotes

/// Where a replica's events go: to every subscribed stream, and to the queue ``Replica/takeEvents()``
/// empties. Every part is bounded, so a consumer that stops reading costs bounded memory.
///
/// Not thread-safe: the replica keeps it under its lock. Streams are finished outside that
/// lock (finishing one calls its termination handler, which takes the lock to remove it).
struct EventHub {
    /// The most events ``Replica/takeEvents()`` keeps for a caller that does not take them: the
    /// oldest go first.
    static let queuedEventsMax = 10_000

    /// The queue: the events from ``queuedStart`` on (those before it were dropped, and are
    /// removed in one go once they are as many as the queue may hold).
    private var queued: [NotebookEvent] = []
    /// Where the queue begins in ``queued``. Dropping the oldest events moves it, instead of
    /// moving the events kept: one keystroke's event used to move 10,000 queued events
    /// (`removeFirst`) under the replica's lock, half an edit's time after a sync that
    /// reported many changes (issue 25).
    private var queuedStart = 0
    private var subscribers: [(id: UInt64, continuation: AsyncStream<NotebookEvent>.Continuation)] = []
    private var nextSubscriberID: UInt64 = 0

    /// Events the queue dropped since the last ``take()`` because nobody took them.
    private(set) var droppedEventCount = 0

    /// How many streams are subscribed.
    var subscriberCount: Int { subscribers.count }

    /// Adds a subscriber; returns its id (for ``unsubscribe(_:)``).
    mutating func subscribe(_ continuation: AsyncStream<NotebookEvent>.Continuation) -> UInt64 {
        nextSubscriberID += 1
        subscribers.append((nextSubscriberID, continuation))
        return nextSubscriberID
    }

    /// Removes a subscriber (its stream ended); nothing when it is gone already.
    mutating func unsubscribe(_ id: UInt64) {
        subscribers.removeAll { $0.id == id }
    }

    /// Hands `events` to every subscriber, in subscription order, and queues them for ``take()``.
    mutating func publish(_ events: [NotebookEvent]) {
        guard !events.isEmpty else { return }
        for subscriber in subscribers {
            for event in events { subscriber.continuation.yield(event) }
        }
        queued += events
        let overflow = queued.count - queuedStart - Self.queuedEventsMax
        if overflow > 0 {
            queuedStart += overflow
            droppedEventCount += overflow
        }
        // Amortised: the dropped events go once they are as many as the queue holds at most
        // (so at most twice that many are kept).
        if queuedStart >= Self.queuedEventsMax {
            queued.removeFirst(queuedStart)
            queuedStart = 0
        }
    }

    /// How many events the queue holds (at most ``queuedEventsMax``).
    var queuedCount: Int { queued.count - queuedStart }

    /// The queued events, oldest first, and forgets them.
    mutating func take() -> [NotebookEvent] {
        defer {
            queued = []
            queuedStart = 0
            droppedEventCount = 0
        }
        return queuedStart == 0 ? queued : Array(queued[queuedStart...])
    }

    /// Removes every subscriber and returns their continuations, for the caller to finish
    /// outside its lock.
    mutating func removeAll() -> [AsyncStream<NotebookEvent>.Continuation] {
        defer { subscribers = [] }
        return subscribers.map(\.continuation)
    }
}
