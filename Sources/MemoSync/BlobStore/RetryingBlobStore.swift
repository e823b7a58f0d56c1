/// A store that tries each operation of another store again when it fails transiently, by a
/// ``RetryPolicy``: an app's own store (a cloud SDK, its own server) gets the retries the
/// built-in remote stores have, without a retry loop of its own.
///
/// ```swift
/// let store = RetryingBlobStore(MyCloudStore(), policy: RetryPolicy(attemptsMax: 5))
/// let report = try await replica.sync(with: store)
/// ```
///
/// What is retried, and how long it waits, is the policy's, the one every store shares:
/// - only the errors ``RetryPolicy/isTransient(_:)`` accepts (``BlobStoreError/unavailable(reason:)``,
///   ``BlobStoreError/retryLater(afterMilliseconds:reason:)``, a server's 408, 429 or 5xx); any
///   other error is thrown at once, from the first attempt;
/// - up to ``RetryPolicy/attemptsMax`` attempts, the first included, none starting later than
///   ``RetryPolicy/deadlineMilliseconds`` after the first;
/// - between attempts, exponential backoff with full jitter (``RetryPolicy/baseDelayMilliseconds``
///   doubling up to ``RetryPolicy/maxDelayMilliseconds``), and never less than the wait a
///   ``BlobStoreError/retryLater(afterMilliseconds:reason:)`` asks for: a store whose SDK tells
///   when to come back (CloudKit's `retryAfterSeconds`, an HTTP `Retry-After`) throws that.
///
/// When the attempts run out, the last error is thrown, as the store gave it; a sync reports it
/// and the next sync tries again. Cancelling the calling task ends a wait at once with
/// ``BlobStoreError/cancelled``. The clock, the sleep and the jitter's random numbers come from
/// a ``RetryEnvironment`` (the system's by default; tests pass their own, so retries take no
/// wall time and their delays are known).
///
/// Retrying is safe for every operation of a MemoSync store: blobs are immutable and written
/// atomically (a write tried again writes the same bytes), and deleting a missing blob is no
/// error. The built-in ``DirectoryBlobStore`` needs no retries, and the S3 and WebDAV stores of
/// MemoSyncRemote retry each request by the same policy already. Put this wrapper innermost: an
/// ``EncryptedBlobStore`` or a ``ReadOnlyBlobStore`` goes around it, never inside it (a sync
/// recognises those by their type).
public struct RetryingBlobStore: BlobStore {
    /// The store whose operations are tried again.
    public let base: any BlobStore
    /// When to try again.
    public let policy: RetryPolicy
    /// The clock, sleep and random numbers of the waits.
    public let environment: RetryEnvironment

    /// `base`, its operations retried by `policy`.
    public init(_ base: any BlobStore, policy: RetryPolicy = RetryPolicy(), environment: RetryEnvironment = .system) {
        self.base = base
        self.policy = policy
        self.environment = environment
    }

    public func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
        try await retrying { () async throws(BlobStoreError) in try await base.list(prefix: prefix) }
    }

    public func listing(prefix: String) async throws(BlobStoreError) -> BlobListing {
        try await retrying { () async throws(BlobStoreError) in try await base.listing(prefix: prefix) }
    }

    public func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        try await retrying { () async throws(BlobStoreError) in try await base.read(key: key) }
    }

    public func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
        try await retrying { () async throws(BlobStoreError) in try await base.write(key: key, bytes: bytes) }
    }

    public func delete(key: String) async throws(BlobStoreError) {
        try await retrying { () async throws(BlobStoreError) in try await base.delete(key: key) }
    }

    /// Runs `operation` until it succeeds, fails for good, or the policy stops.
    private func retrying<Value>(_ operation: () async throws(BlobStoreError) -> Value) async throws(BlobStoreError) -> Value {
        let start = environment.monotonicMilliseconds()
        var attempt = 1
        while true {
            if Task.isCancelled { throw .cancelled }
            do throws(BlobStoreError) {
                return try await operation()
            } catch {
                if error == .cancelled || Task.isCancelled { throw .cancelled }
                let elapsed = environment.monotonicMilliseconds() - start
                switch policy.decision(afterError: error, attempt: attempt, elapsedMilliseconds: elapsed, randomUnit: environment.randomUnit()) {
                case .stop:
                    throw error
                case let .retry(delay):
                    do { try await environment.sleep(delay) } catch { throw .cancelled }
                    if Task.isCancelled { throw .cancelled }
                    attempt += 1
                }
            }
        }
    }
}
