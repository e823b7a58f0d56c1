import Foundation
import MemoSync
import Synchronization

/// What a remote store sent and received, counted since it was made (for benchmarks and
/// reports): every attempt is a request, retries included.
public struct RemoteStoreStatistics: Sendable, Equatable {
    /// Requests sent (each attempt counts).
    public var requests = 0
    /// Of those, attempts that repeated a failed one.
    public var retries = 0
    /// Of those, listing requests (S3 `ListObjectsV2` pages, WebDAV `PROPFIND`s).
    public var listingRequests = 0
    /// Body bytes sent.
    public var bytesSent = 0
    /// Body bytes received.
    public var bytesReceived = 0

    public init() {}
}

/// Sends requests through a transport and retries them by a `RetryPolicy` (MemoSync's, shared
/// with `RetryingBlobStore`). `errorCode` reads a failed answer's error code (S3's XML
/// `<Code>`), which the policy and the error mapping use.
struct RemoteHTTPClient: Sendable {
    let transport: any HTTPTransport
    let policy: RetryPolicy
    let environment: RetryEnvironment
    let counters = StatisticsCounter()
    let errorCode: @Sendable (HTTPResponse) -> String?

    var statistics: RemoteStoreStatistics { counters.value.withLock { $0 } }

    /// The final answer to the request `build()` makes (built again for each attempt, so that a
    /// signature carries the attempt's time): the first answer that is not retryable, or the
    /// last one when retries run out. Throws when no answer came at all, and ``BlobStoreError/tooLarge(key:sizeBytes:limitBytes:)``
    /// (naming `blobKey`, else the request's path) for an answer larger than the request allows.
    func send(blobKey: String? = nil, _ build: () throws(BlobStoreError) -> HTTPRequest) async throws(BlobStoreError) -> HTTPResponse {
        let start = environment.monotonicMilliseconds()
        var attempt = 1
        while true {
            if Task.isCancelled { throw .cancelled }
            let request = try build()
            counters.value.withLock {
                $0.requests += 1
                $0.retries += attempt > 1 ? 1 : 0
                $0.listingRequests += Self.isListing(request) ? 1 : 0
                $0.bytesSent += request.body.count
            }
            let outcome: RetryPolicy.Outcome
            var retryAfter: Int?
            let result: Result<HTTPResponse, TransportFailure>
            do throws(TransportFailure) {
                let response = try await transport.send(request)
                counters.value.withLock { $0.bytesReceived += response.body.count }
                result = .success(response)
                outcome = .answered(status: response.status, code: response.status >= 400 ? errorCode(response) : nil)
                retryAfter = RetryPolicy.retryAfterMilliseconds(header: response.headers["retry-after"])
            } catch .cancelled {
                throw .cancelled
            } catch {
                result = .failure(error)
                outcome = Self.outcome(of: error)
            }
            if Task.isCancelled { throw .cancelled }
            // Larger than any answer of a MemoSync store may be: final, and not read on (the
            // transport stopped it).
            if case let .success(response) = result, let oversize = response.oversizeBytes {
                throw .tooLarge(key: blobKey ?? request.url.path, sizeBytes: oversize, limitBytes: request.answerBytesMax)
            }
            let elapsed = environment.monotonicMilliseconds() - start
            let decision = policy.decision(
                after: outcome, attempt: attempt, elapsedMilliseconds: elapsed, randomUnit: environment.randomUnit(), retryAfterMilliseconds: retryAfter)
            switch decision {
            case .stop:
                switch result {
                case let .success(response): return response
                case let .failure(failure): throw Self.storeError(failure, attempts: attempt)
                }
            case let .retry(delay):
                do { try await environment.sleep(delay) } catch { throw .cancelled }
                attempt += 1
            }
        }
    }

    private static func isListing(_ request: HTTPRequest) -> Bool {
        request.method == "PROPFIND" || (request.method == "GET" && request.url.query?.contains("list-type=2") == true)
    }

    private static func outcome(of failure: TransportFailure) -> RetryPolicy.Outcome {
        switch failure {
        case .timedOut: .timedOut
        case .connectionLost, .cannotConnect: .connectionFailed
        case .cancelled, .other: .failedOtherwise
        }
    }

    private static func storeError(_ failure: TransportFailure, attempts: Int) -> BlobStoreError {
        switch failure {
        case .cancelled: .cancelled
        default: .unavailable(reason: "\(failure)\(attempts > 1 ? " (after \(attempts) attempts)" : "")")
        }
    }
}

/// A store's counts, shared by its copies.
final class StatisticsCounter: Sendable {
    let value = Mutex(RemoteStoreStatistics())
}

/// Text from a server, made safe to show: control characters replaced by spaces, at most
/// `limit` characters.
package func serverText(_ text: String, limit: Int = 200) -> String {
    let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        .trimmingCharacters(in: .whitespaces)
    return cleaned.count > limit ? String(cleaned.prefix(limit)) + "…" : cleaned
}
