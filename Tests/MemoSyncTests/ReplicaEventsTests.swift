import Foundation
import MemoCRDT
import Synchronization
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// What a task reading a stream has received, readable from the test meanwhile.
private final class Received: Sendable {
    private let events = Mutex<[NotebookEvent]>([])
    var all: [NotebookEvent] { events.withLock { $0 } }
    var count: Int { events.withLock { $0.count } }
    func append(_ event: NotebookEvent) { events.withLock { $0.append(event) } }
}

/// A task reading `stream` to its end into a ``Received``.
private func consume(_ stream: AsyncStream<NotebookEvent>) -> (received: Received, task: Task<Void, Never>) {
    let received = Received()
    let task = Task {
        for await event in stream { received.append(event) }
    }
    return (received, task)
}

/// Every event left in a stream that has ended (or will, when the replica closes).
private func drain(_ stream: AsyncStream<NotebookEvent>) async -> [NotebookEvent] {
    var events: [NotebookEvent] = []
    for await event in stream { events.append(event) }
    return events
}

/// Issue 14, item 6: event streams end and are removed when their consumer stops; every
/// subscriber gets every event from when it subscribed; an abandoned one costs bounded memory.
@Suite struct ReplicaEventsTests {
    private func makeReplica(seed: UInt64 = 1) throws -> (Replica, TestEnvironment) {
        let environment = TestEnvironment(seed: seed)
        return (try Replica(disk: MemoryDisk(), environment: environment.environment), environment)
    }

    /// Three subscribers, two of them read as events come, each get every event from when they
    /// subscribed (local edits and a sync's), in order; `takeEvents()` gets them all too.
    @Test(.timeLimit(.minutes(1))) func everySubscriberGetsEveryEventFromWhenItSubscribed() async throws {
        let (replica, environment) = try makeReplica()
        let other = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let store = InMemoryBlobStore()
        let first = replica.events()
        let live = consume(replica.events())
        let memo = try replica.createMemo(text: "one\n")
        try replica.edit(memo, replacingUTF16: 4..<4, with: "two")
        let beforeSecond = replica.takeEvents()
        #expect(beforeSecond.count >= 2)

        let second = replica.events()
        let secondLive = consume(replica.events())
        #expect(replica.eventSubscriberCount == 4)
        try replica.moveToTrash(memo)
        try replica.restore(memo)
        try other.createMemo(text: "from elsewhere")
        try await other.sync(with: store)
        try await replica.sync(with: store)
        let afterSecond = replica.takeEvents()
        #expect(afterSecond.contains { if case .added(_, .remote) = $0 { true } else { false } })

        await waitUntil("the live readers got every event") {
            live.received.count == beforeSecond.count + afterSecond.count && secondLive.received.count == afterSecond.count
        }
        await replica.close()
        #expect(await drain(first) == beforeSecond + afterSecond)
        #expect(await drain(second) == afterSecond)
        await live.task.value
        await secondLive.task.value
        #expect(live.received.all == beforeSecond + afterSecond)
        #expect(secondLive.received.all == afterSecond)
        #expect(replica.eventSubscriberCount == 0)
    }

    /// A stream whose reading task is cancelled ends and is removed; the others stay.
    @Test(.timeLimit(.minutes(1))) func aStreamWhoseReaderIsCancelledIsRemoved() async throws {
        let (replica, _) = try makeReplica()
        let staying = consume(replica.events())
        let leaving = consume(replica.events())
        #expect(replica.eventSubscriberCount == 2)
        let memo = try replica.createMemo(text: "a")
        let first = replica.takeEvents()
        await waitUntil("the readers got the first events") { leaving.received.count == first.count && staying.received.count == first.count }
        leaving.task.cancel()
        await leaving.task.value
        await waitUntil("the stream removed") { replica.eventSubscriberCount == 1 }
        try replica.edit(memo, replacingUTF16: 1..<1, with: "b")
        await waitUntil("the other reader got the edit") { staying.received.count == first.count + 1 }
        #expect(leaving.received.all == first)
        #expect(replica.eventSubscriberCount == 1)
        // A reader cancelled before it read anything.
        let early = consume(replica.events())
        early.task.cancel()
        await early.task.value
        await waitUntil("the stream removed") { replica.eventSubscriberCount == 1 }
        staying.task.cancel()
        await staying.task.value
        await waitUntil("every stream removed") { replica.eventSubscriberCount == 0 }
    }

    /// A stream dropped without being read to its end (never iterated, or its iterator dropped
    /// after a few events) ends and is removed.
    @Test(.timeLimit(.minutes(1))) func aDroppedStreamIsRemoved() async throws {
        let (replica, _) = try makeReplica()
        do {
            let stream = replica.events()
            #expect(replica.eventSubscriberCount == 1)
            _ = stream
        }
        await waitUntil("the dropped stream removed") { replica.eventSubscriberCount == 0 }
        do {
            var iterator = replica.events().makeAsyncIterator()
            try replica.createMemo(text: "x")
            #expect(await iterator.next() != nil)
            #expect(replica.eventSubscriberCount == 1)
        }
        await waitUntil("the dropped iterator's stream removed") { replica.eventSubscriberCount == 0 }
        // Events go on (to nobody) without trouble.
        let y = try replica.createMemo(text: "y")
        #expect(replica.takeEvents().contains(.added(y, origin: .local)))
    }

    /// A stream nobody reads keeps only the newest `limit` events: read later, it gives exactly
    /// those. It stays subscribed (it may still be read) until the replica closes.
    @Test(.timeLimit(.minutes(1))) func anAbandonedStreamKeepsOnlyItsNewestEvents() async throws {
        let (replica, _) = try makeReplica()
        let abandoned = replica.events(bufferingNewest: 5)
        let memo = try replica.createMemo(text: "")
        for index in 0..<200 {
            try replica.edit(memo, replacingUTF16: index..<index, with: "k")
        }
        let all = replica.takeEvents()
        #expect(all.count == 201)
        #expect(replica.eventSubscriberCount == 1)
        await replica.close()
        #expect(await drain(abandoned) == Array(all.suffix(5)))
    }

    /// `takeEvents()` gets every event while streams are subscribed and read.
    @Test(.timeLimit(.minutes(1))) func takeEventsWorksWhileStreamsExist() async throws {
        let (replica, _) = try makeReplica()
        let reader = consume(replica.events())
        let idle = replica.events()
        let memo = try replica.createMemo(text: "a")
        try replica.edit(memo, replacingUTF16: 1..<1, with: "b")
        let taken = replica.takeEvents()
        #expect(taken.contains(.added(memo, origin: .local)) && taken.count >= 2)
        #expect(replica.takeEvents().isEmpty)
        await waitUntil("the reader got them too") { reader.received.count == taken.count }
        #expect(reader.received.all == taken)
        await replica.close()
        #expect(await drain(idle) == taken)
        await reader.task.value
    }

    /// Closing the replica ends every stream (read or not) and removes it; a stream asked for
    /// after closing ends at once. Dropping the replica ends its streams too.
    @Test(.timeLimit(.minutes(1))) func closingEndsEveryStream() async throws {
        let (replica, _) = try makeReplica()
        let readers = (0..<3).map { _ in consume(replica.events()) }
        let unread = replica.events()
        try replica.createMemo(text: "a")
        let events = replica.takeEvents()
        #expect(replica.eventSubscriberCount == 4)
        await replica.close()
        for reader in readers {
            await reader.task.value
            #expect(reader.received.all == events)
        }
        #expect(await drain(unread) == events)
        #expect(replica.eventSubscriberCount == 0)
        #expect(await drain(replica.events()).isEmpty)
        #expect(replica.eventSubscriberCount == 0)

        var dropped: Replica? = try makeReplica(seed: 2).0
        let orphan = consume(dropped!.events())
        try dropped!.createMemo(text: "b")
        let orphanEvents = dropped!.takeEvents()
        dropped = nil
        await orphan.task.value
        #expect(orphan.received.all == orphanEvents)
    }
}

