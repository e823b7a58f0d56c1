import Foundation
import Synchronization
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Issue 29 (for app builders): `RetryingBlobStore`, the retries of an app's own store, by the
/// one `RetryPolicy` every store shares. The waits go through a test clock (no wall time).
@Suite struct RetryingBlobStoreTests {
    /// A store that fails each operation with the errors queued for it, then does it on an
    /// in-memory store; counts the attempts.
    final class FlakyStore: BlobStore {
        let inner = InMemoryBlobStore()
        private let state = Mutex<(errors: [BlobStoreError], attempts: Int)>(([], 0))

        init(failing errors: [BlobStoreError]) { state.withLock { $0.errors = errors } }

        var attempts: Int { state.withLock { $0.attempts } }

        private func attempt() throws(BlobStoreError) {
            let error = state.withLock { state -> BlobStoreError? in
                state.attempts += 1
                return state.errors.isEmpty ? nil : state.errors.removeFirst()
            }
            if let error { throw error }
        }

        func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
            try attempt()
            return try inner.list(prefix: prefix)
        }
        func read(key: String) async throws(BlobStoreError) -> [UInt8] {
            try attempt()
            return try inner.read(key: key)
        }
        func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
            try attempt()
            try inner.write(key: key, bytes: bytes)
        }
        func delete(key: String) async throws(BlobStoreError) {
            try attempt()
            try inner.delete(key: key)
        }
    }

    /// A clock that the sleeps move, a fixed jitter, and the waits asked for.
    final class TestClock: Sendable {
        private let state = Mutex<(now: Int, sleeps: [Int])>((1_000, []))
        var sleeps: [Int] { state.withLock { $0.sleeps } }

        func environment(randomUnit: Double) -> RetryEnvironment {
            RetryEnvironment(
                monotonicMilliseconds: { self.state.withLock { $0.now } },
                sleep: { milliseconds in
                    self.state.withLock { $0.now += milliseconds; $0.sleeps.append(milliseconds) }
                },
                randomUnit: { randomUnit })
        }
    }

    private let policy = RetryPolicy(attemptsMax: 4, baseDelayMilliseconds: 100, maxDelayMilliseconds: 300, deadlineMilliseconds: 60_000)

    /// Transient errors are retried, with exponential backoff capped at the maximum and jitter
    /// from the injected random source, up to the attempts' limit: an operation that succeeds
    /// within it returns its result; one that fails every time reports the last error.
    @Test func transientErrorsAreRetriedUpToTheLimitThenReported() async throws {
        let clock = TestClock()
        let flaky = FlakyStore(failing: [.unavailable(reason: "offline"), .server(status: 503, code: "HTTP 503", message: ""), .io(reason: "never")])
        try flaky.inner.write(key: "a", bytes: [1, 2])
        let store = RetryingBlobStore(flaky, policy: policy, environment: clock.environment(randomUnit: 0.5))
        // Two transient failures, then .io: final, reported without a fourth attempt.
        await #expect(throws: BlobStoreError.io(reason: "never")) { try await store.read(key: "a") }
        #expect(flaky.attempts == 3)
        #expect(clock.sleeps == [50, 100])   // half of 100, then of 200 (jitter 0.5)

        let recovering = FlakyStore(failing: [.unavailable(reason: "1"), .unavailable(reason: "2"), .unavailable(reason: "3")])
        try recovering.inner.write(key: "a", bytes: [7])
        let clock2 = TestClock()
        let retried = RetryingBlobStore(recovering, policy: policy, environment: clock2.environment(randomUnit: 0.999))
        #expect(try await retried.read(key: "a") == [7])
        #expect(recovering.attempts == 4)
        #expect(clock2.sleeps == [99, 199, 299])   // 100, 200, then capped at 300 (jitter just under 1)

        let failing = FlakyStore(failing: Array(repeating: .unavailable(reason: "down"), count: 10))
        let clock3 = TestClock()
        let giving = RetryingBlobStore(failing, policy: policy, environment: clock3.environment(randomUnit: 0))
        await #expect(throws: BlobStoreError.unavailable(reason: "down")) { try await giving.write(key: "b", bytes: [1]) }
        #expect(failing.attempts == policy.attemptsMax)
        #expect(clock3.sleeps.count == policy.attemptsMax - 1)
        // Every operation goes through the retries, the listing too.
        let listingFails = FlakyStore(failing: [.unavailable(reason: "x")])
        let listed = try await RetryingBlobStore(listingFails, policy: policy, environment: TestClock().environment(randomUnit: 0)).listing(prefix: "")
        #expect(listed.blobs.isEmpty && listingFails.attempts == 2)
    }

    /// Errors that do not go away are reported at once, from the first attempt, with no wait.
    @Test(arguments: [
        BlobStoreError.notFound(key: "k"), .invalidKey("../x"), .full, .io(reason: "bad sector"), .tooLarge(key: "k", sizeBytes: 9, limitBytes: 1),
        .cancelled, .undecryptable(key: "k", reason: .notEncrypted), .encrypted, .denied(code: "AccessDenied", message: ""),
        .server(status: 404, code: "NoSuchBucket", message: ""), .server(status: 400, code: "BadRequest", message: ""),
    ])
    func permanentErrorsAreNotRetried(error: BlobStoreError) async throws {
        #expect(!RetryPolicy.isTransient(error))
        let clock = TestClock()
        let flaky = FlakyStore(failing: [error])
        let store = RetryingBlobStore(flaky, policy: policy, environment: clock.environment(randomUnit: 0.5))
        await #expect(throws: error) { try await store.delete(key: "k") }
        #expect(flaky.attempts == 1)
        #expect(clock.sleeps.isEmpty)
    }

    /// The wait a store asks for (`retryLater`) is honoured: never less than it, even when the
    /// backoff is shorter; a wait that would start the retry past the deadline stops instead.
    @Test func retryAfterIsHonoured() async throws {
        let clock = TestClock()
        let flaky = FlakyStore(failing: [.retryLater(afterMilliseconds: 2_500, reason: "throttled"), .retryLater(afterMilliseconds: 10, reason: "")])
        let store = RetryingBlobStore(flaky, policy: policy, environment: clock.environment(randomUnit: 0.5))
        try await store.write(key: "c", bytes: [3])
        #expect(flaky.attempts == 3)
        #expect(clock.sleeps == [2_500, 100])   // the store's wait, then the backoff (longer than 10)
        #expect(try flaky.inner.read(key: "c") == [3])

        let tight = RetryPolicy(attemptsMax: 4, baseDelayMilliseconds: 100, maxDelayMilliseconds: 300, deadlineMilliseconds: 1_000)
        let late = FlakyStore(failing: [.retryLater(afterMilliseconds: 5_000, reason: "come back later")])
        let clock2 = TestClock()
        let store2 = RetryingBlobStore(late, policy: tight, environment: clock2.environment(randomUnit: 0.5))
        await #expect(throws: BlobStoreError.retryLater(afterMilliseconds: 5_000, reason: "come back later")) { try await store2.read(key: "c") }
        #expect(late.attempts == 1 && clock2.sleeps.isEmpty)
        #expect(RetryPolicy.isTransient(.retryLater(afterMilliseconds: 0, reason: "")))
    }

    /// Cancelling the task ends a wait at once: `.cancelled`, no further attempt. (The system
    /// sleep, an hour long, is cancelled: no wall time passes.)
    @Test(.timeLimit(.minutes(1))) func cancellationStopsWaiting() async throws {
        let flaky = FlakyStore(failing: Array(repeating: .unavailable(reason: "down"), count: 10))
        let waiting = Mutex(0)
        let environment = RetryEnvironment(
            monotonicMilliseconds: { 0 },
            sleep: { _ in
                waiting.withLock { $0 += 1 }
                try await Task.sleep(for: .seconds(3_600))
            },
            randomUnit: { 0.5 })
        let store = RetryingBlobStore(flaky, policy: RetryPolicy(attemptsMax: 10, baseDelayMilliseconds: 3_600_000, maxDelayMilliseconds: 3_600_000, deadlineMilliseconds: 100_000_000), environment: environment)
        let task = Task { () async -> Result<[UInt8], BlobStoreError> in
            do throws(BlobStoreError) { return .success(try await store.read(key: "a")) } catch { return .failure(error) }
        }
        while waiting.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        task.cancel()
        #expect(await task.value == .failure(.cancelled))
        #expect(flaky.attempts == 1)
    }

    /// A sync through the wrapper gets past a store that fails now and then, and the store's
    /// messages stay those of the store (localised, with the wait in seconds).
    @Test func aSyncThroughTheWrapperCompletes() async throws {
        let flaky = FlakyStore(failing: [.unavailable(reason: "a"), .retryLater(afterMilliseconds: 1_250, reason: "slow down")])
        let store = RetryingBlobStore(flaky, policy: policy, environment: TestClock().environment(randomUnit: 0.5))
        let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 5).environment)
        _ = try replica.createMemo(text: "through retries")
        let report = try await replica.sync(with: store)
        #expect(report.isComplete && report.errors.isEmpty)
        #expect(replica.unpublishedOperationCount == 0)
        #expect(BlobStoreError.retryLater(afterMilliseconds: 1_250, reason: "slow down").description
            == "the store asked to be tried again in 1.25 s: slow down")
        #expect(BlobStoreError.retryLater(afterMilliseconds: 2_000, reason: "").errorDescription
            == "The sync store is busy: it asked to be tried again in 2 s.")
        #expect(BlobStoreError.retryLater(afterMilliseconds: 2_000, reason: "").recoverySuggestion == "Sync again in a moment.")
    }

    /// A policy without a deadline (`Int.max`) and a store asking for the longest wait: the
    /// decision saturates instead of trapping.
    @Test func extremeDeadlinesAndWaitsNeverTrap() {
        let unbounded = RetryPolicy(attemptsMax: 3, baseDelayMilliseconds: 100, maxDelayMilliseconds: 300, deadlineMilliseconds: Int.max)
        let longest = unbounded.decision(afterError: .retryLater(afterMilliseconds: Int.max, reason: ""), attempt: 1, elapsedMilliseconds: 5, randomUnit: 0.5)
        #expect(longest == .stop)
        let asked = unbounded.decision(afterError: .retryLater(afterMilliseconds: 2_000, reason: ""), attempt: 1, elapsedMilliseconds: 5, randomUnit: 0.5)
        #expect(asked == .retry(afterMilliseconds: 2_000))
    }

}
