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

    /// The events a chunk of the queue holds: dropping the oldest events releases at most one
    /// chunk per event published, never the whole queue at once.
    static let chunkEventCount = 256

    /// The queue, in chunks of ``chunkEventCount`` events (the last may hold fewer), oldest
    /// first: the events of the first chunk from ``firstChunkStart`` on, then every event of
    /// the others. A single array used to drop its oldest 10,000 events in one go, and to move
    /// 10,000 at each event before that: 8-10 ms under the replica's lock, an edit's wait during
    /// a bootstrap (issue 25).
    private var chunks: [[NotebookEvent]] = []
    /// The events of ``chunks``' first chunk that were dropped (kept until the chunk goes).
    private var firstChunkStart = 0
    /// How many events the queue holds.
    private(set) var queuedCount = 0
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
        for event in events {
            if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkEventCount {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.chunkEventCount)
            }
            chunks[chunks.count - 1].append(event)
            queuedCount += 1
            if queuedCount > Self.queuedEventsMax { dropOldest() }
        }
    }

    /// Drops the oldest event; a first chunk left with none kept goes (with its events).
    private mutating func dropOldest() {
        queuedCount -= 1
        droppedEventCount += 1
        firstChunkStart += 1
        if firstChunkStart == chunks[0].count {
            chunks.removeFirst()
            firstChunkStart = 0
        }
    }

    /// How many events the queue's chunks hold, dropped ones included: at most
    /// ``queuedEventsMax`` + ``chunkEventCount``.
    var storedEventCount: Int { chunks.reduce(0) { $0 + $1.count } }

    /// The queued events, oldest first, and forgets them.
    mutating func take() -> [NotebookEvent] {
        defer {
            chunks = []
            firstChunkStart = 0
            queuedCount = 0
            droppedEventCount = 0
        }
        var taken: [NotebookEvent] = []
        taken.reserveCapacity(queuedCount)
        for (index, chunk) in chunks.enumerated() {
            taken += index == 0 ? chunk[firstChunkStart...] : chunk[...]
        }
        return taken
    }

    /// Removes every subscriber and returns their continuations, for the caller to finish
    /// outside its lock.
    mutating func removeAll() -> [AsyncStream<NotebookEvent>.Continuation] {
        defer { subscribers = [] }
        return subscribers.map(\.continuation)
    }
}
