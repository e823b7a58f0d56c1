import Foundation

/// When a store operation is tried again, in one place for every store: the remote stores
/// (S3, WebDAV) retry each HTTP request by it, and ``RetryingBlobStore`` retries any store's
/// operations by it (an app's own store).
///
/// Exponential backoff with full jitter, only for failures that may go away: HTTP 408, 429,
/// 500, 502, 503, 504, S3's `SlowDown`, `InternalError` and `RequestTimeout`, timeouts and broken
/// or refused connections; for a store's errors, ``BlobStoreError/unavailable(reason:)``,
/// ``BlobStoreError/retryLater(afterMilliseconds:reason:)`` and a
/// ``BlobStoreError/server(status:code:message:)`` with one of those statuses or codes
/// (``isTransient(_:)``). Never for the rest: a 4xx (authentication above all), a full store, a
/// missing blob, a bad key, an undecryptable blob are final. A wait the store asks for (an HTTP
/// `Retry-After`, ``BlobStoreError/retryLater(afterMilliseconds:reason:)``) is honoured. Bounded
/// by a number of attempts and by a total deadline measured from the first attempt.
///
/// A pure function of its inputs (``decision(after:attempt:elapsedMilliseconds:randomUnit:retryAfterMilliseconds:)``
/// and ``decision(afterError:attempt:elapsedMilliseconds:randomUnit:)``): the caller supplies
/// the time and the random number, so that the policy is tested exactly.
public struct RetryPolicy: Sendable, Equatable {
    /// The most attempts of one request, the first included.
    public var attemptsMax: Int
    /// The backoff before the second attempt, before jitter; it doubles with each attempt.
    public var baseDelayMilliseconds: Int
    /// The largest backoff, before jitter.
    public var maxDelayMilliseconds: Int
    /// No attempt starts later than this after the first (so one request gives up within about
    /// this time plus one request's timeout).
    public var deadlineMilliseconds: Int

    /// A policy; the defaults suit a sync over the internet (up to 8 attempts within 20 s).
    public init(attemptsMax: Int = 8, baseDelayMilliseconds: Int = 100, maxDelayMilliseconds: Int = 5_000, deadlineMilliseconds: Int = 20_000) {
        self.attemptsMax = max(1, attemptsMax)
        self.baseDelayMilliseconds = max(0, baseDelayMilliseconds)
        self.maxDelayMilliseconds = max(0, maxDelayMilliseconds)
        self.deadlineMilliseconds = max(0, deadlineMilliseconds)
    }

    /// One attempt's outcome, as far as retrying cares.
    public enum Outcome: Sendable, Equatable {
        /// The server answered `status`, with the error code its body gave (S3), if any.
        case answered(status: Int, code: String?)
        /// No answer in time.
        case timedOut
        /// The connection broke or could not be made.
        case connectionFailed
        /// Another failure of the request itself (a malformed URL, a TLS failure).
        case failedOtherwise
    }

    /// What to do after an attempt.
    public enum Decision: Sendable, Equatable {
        /// Try again after waiting this long.
        case retry(afterMilliseconds: Int)
        /// Keep this outcome.
        case stop
    }

    /// Whether `outcome` may succeed when tried again.
    public static func isRetryable(_ outcome: Outcome) -> Bool {
        switch outcome {
        case let .answered(status, code):
            if let code, ["SlowDown", "InternalError", "RequestTimeout", "ServiceUnavailable"].contains(code) { return true }
            return [408, 429, 500, 502, 503, 504].contains(status)
        case .timedOut, .connectionFailed: return true
        case .failedOtherwise: return false
        }
    }

    /// Whether a store's error may go away when the operation is tried again (see the type's
    /// description): ``BlobStoreError/unavailable(reason:)``,
    /// ``BlobStoreError/retryLater(afterMilliseconds:reason:)``, and
    /// ``BlobStoreError/server(status:code:message:)`` with a status or code
    /// ``isRetryable(_:)`` accepts. Everything else is final.
    public static func isTransient(_ error: BlobStoreError) -> Bool {
        switch error {
        case .unavailable, .retryLater: true
        case let .server(status, code, _): isRetryable(.answered(status: status, code: code))
        case .notFound, .invalidKey, .full, .io, .tooLarge, .cancelled, .undecryptable, .encrypted, .denied: false
        }
    }

    /// After attempt number `attempt` (1 for the first) of a store operation failed with
    /// `error`, `elapsedMilliseconds` after the first attempt started: as
    /// ``decision(after:attempt:elapsedMilliseconds:randomUnit:retryAfterMilliseconds:)``, for
    /// the errors ``isTransient(_:)`` accepts, waiting at least what a
    /// ``BlobStoreError/retryLater(afterMilliseconds:reason:)`` asks for.
    public func decision(afterError error: BlobStoreError, attempt: Int, elapsedMilliseconds: Int, randomUnit: Double) -> Decision {
        guard Self.isTransient(error) else { return .stop }
        var retryAfter: Int?
        if case let .retryLater(milliseconds, _) = error { retryAfter = milliseconds }
        return delayDecision(attempt: attempt, elapsedMilliseconds: elapsedMilliseconds, randomUnit: randomUnit, retryAfterMilliseconds: retryAfter)
    }

    /// After attempt number `attempt` (1 for the first) ended with `outcome`,
    /// `elapsedMilliseconds` after the first attempt started: retry after a delay drawn
    /// uniformly from [0, min(max, base × 2^(attempt−1))] using `randomUnit` in [0, 1), or stop
    /// (not retryable, out of attempts, or the retry would start past the deadline).
    ///
    /// - Parameter retryAfterMilliseconds: the wait the server asked for (a `Retry-After`
    ///   header on a 429 or 503), if any: the delay is at least that, and a wait that would
    ///   start the retry past the deadline stops instead.
    public func decision(
        after outcome: Outcome, attempt: Int, elapsedMilliseconds: Int, randomUnit: Double, retryAfterMilliseconds: Int? = nil
    ) -> Decision {
        guard Self.isRetryable(outcome) else { return .stop }
        return delayDecision(attempt: attempt, elapsedMilliseconds: elapsedMilliseconds, randomUnit: randomUnit, retryAfterMilliseconds: retryAfterMilliseconds)
    }

    /// The wait before attempt `attempt + 1` of a retryable failure, or stop (out of attempts,
    /// or past the deadline).
    private func delayDecision(attempt: Int, elapsedMilliseconds: Int, randomUnit: Double, retryAfterMilliseconds: Int?) -> Decision {
        guard attempt < attemptsMax else { return .stop }
        // (`max(attempt, 1) - 1`: `attempt - 1` overflowed for `Int.min`.)
        let exponent = min(max(attempt, 1) - 1, 30)
        let ceiling = min(maxDelayMilliseconds, baseDelayMilliseconds.multipliedReportingOverflow(by: 1 << exponent).partialValue)
        // A random source giving NaN (an app's own) counts as 0: `Int(NaN)` traps.
        let unit = randomUnit.isNaN ? 0 : min(max(randomUnit, 0), 0.999_999)
        let jittered = Int((Double(max(ceiling, 0)) * unit).rounded(.down))
        // Saturating: an app may set any deadline (`Int.max`: none) and a store ask any wait.
        let pastDeadline = deadlineMilliseconds.addingReportingOverflow(1)
        let delay = max(jittered, min(max(retryAfterMilliseconds ?? 0, 0), pastDeadline.overflow ? Int.max : pastDeadline.partialValue))
        let resumeAt = elapsedMilliseconds.addingReportingOverflow(delay)
        guard !resumeAt.overflow, resumeAt.partialValue <= deadlineMilliseconds else { return .stop }
        return .retry(afterMilliseconds: delay)
    }

    /// The wait a `Retry-After` header value asks for, in milliseconds: a number of seconds
    /// ("120"); nil for an HTTP date or anything else (the backoff applies then).
    public static func retryAfterMilliseconds(header value: String?) -> Int? {
        guard let value, let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return seconds.multipliedReportingOverflow(by: 1_000).overflow ? Int.max / 2 : seconds * 1_000
    }
}

/// The clock, sleep and random numbers retries use (``RetryPolicy``): the system's in an app,
/// replaced in tests so that retries take no wall time and their jitter is known.
public struct RetryEnvironment: Sendable {
    /// Milliseconds on a monotonic clock.
    public var monotonicMilliseconds: @Sendable () -> Int
    /// Waits this many milliseconds; throws when the task is cancelled.
    public var sleep: @Sendable (Int) async throws -> Void
    /// A number in [0, 1).
    public var randomUnit: @Sendable () -> Double

    /// An environment from its parts.
    public init(
        monotonicMilliseconds: @escaping @Sendable () -> Int, sleep: @escaping @Sendable (Int) async throws -> Void,
        randomUnit: @escaping @Sendable () -> Double
    ) {
        self.monotonicMilliseconds = monotonicMilliseconds
        self.sleep = sleep
        self.randomUnit = randomUnit
    }

    /// The system's clock, `Task.sleep` and the system's random numbers.
    public static let system = RetryEnvironment(
        monotonicMilliseconds: { Int(DispatchTime.now().uptimeNanoseconds / 1_000_000) },
        sleep: { milliseconds in try await Task.sleep(nanoseconds: UInt64(max(0, milliseconds)) * 1_000_000) },
        randomUnit: { Double.random(in: 0..<1) }
    )
}
