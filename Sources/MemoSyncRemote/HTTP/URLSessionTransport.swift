import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` over `URLSession`: an ephemeral session (no cookies, no cache), redirects
/// not followed (a signed request must not be replayed elsewhere), a timeout per request, and
/// a cancelled task cancelling its request.
///
/// Known limits of swift-corelibs-foundation (Linux, Swift 6.3.1), outside this code's reach:
/// a connection a server closes before the first whole status line of its answer is retried
/// by libcurl on a new connection without the request's body, which then waits for its timeout
/// (the store then retries); and a connection closed after a status line but before the end
/// of the answer's head stops the process ("Transfer completed, but there's no response").
/// The fault tests (Tests/Servers/faultproxy.py) break connections after a whole head.
/// An answer larger than the request's limit (declared so in its head, or found so as it
/// arrives) has its task cancelled and its body dropped; swift-corelibs-foundation goes on
/// taking what arrives until the cancel takes effect, which against a fast server (loopback,
/// a loaded machine) can be hundreds of megabytes later, and holds the pieces it queued for the
/// delegate meanwhile.
///
/// Answers arrive through the session's delegate (``TransferDelegate``), piece by piece, on
/// every platform, wrapped in a continuation with a cancellation handler: it behaves the same
/// with swift-corelibs-foundation (Linux) and Apple's Foundation, where the async `data(for:)`
/// methods differ in how they report cancellation. So an answer larger than the request's
/// ``HTTPRequest/answerBytesMax`` is refused from its declared length, or stopped as soon as
/// more than that arrived, and never gathered (but see the known limits above).
final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: TransferDelegate
    private let timeoutSeconds: Double

    /// A transport whose requests time out after `timeoutMilliseconds` without progress, with at
    /// most `connectionsPerHost` connections to one host.
    init(timeoutMilliseconds: Int, connectionsPerHost: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connectionsPerHost
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = Double(timeoutMilliseconds) / 1000
        delegate = TransferDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        timeoutSeconds = Double(timeoutMilliseconds) / 1000
    }

    deinit { session.invalidateAndCancel() }

    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        if !request.body.isEmpty || request.method == "PUT" { urlRequest.httpBody = Data(request.body) }
        let box = TaskBox()
        let result: Result<HTTPResponse, TransportFailure> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: urlRequest)
                delegate.register(task, answerBytesMax: request.answerBytesMax) { data, response, error, oversizeBytes in
                    if let oversizeBytes, !box.wasCancelled, let http = response as? HTTPURLResponse {
                        continuation.resume(returning: .success(HTTPResponse(status: http.statusCode, oversizeBytes: oversizeBytes)))
                    } else {
                        continuation.resume(returning: Self.result(data: data, response: response, error: error, box: box))
                    }
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
        return try result.get()
    }

    private static func result(data: Data?, response: URLResponse?, error: (any Error)?, box: TaskBox) -> Result<HTTPResponse, TransportFailure> {
        if let error {
            // A 401 whose challenge `TransferDelegate` declined (see there) ends as "cancelled";
            // the answer had arrived, and is what the store must see.
            if (error as? URLError)?.code == .cancelled, !box.wasCancelled, let refused = box.response, refused.statusCode == 401 {
                return .success(HTTPResponse(status: 401))
            }
            return .failure(failure(error))
        }
        guard let http = response as? HTTPURLResponse else { return .failure(.other("not an HTTP response")) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let body = data.map { [UInt8]($0) } ?? []
        // swift-corelibs-foundation hands over a body cut short by a closed connection as if
        // complete: a body shorter than its Content-Length (when not compressed) is a broken
        // connection, which is retried.
        if let declared = headers["content-length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), declared != body.count,
            headers["content-encoding"].map({ $0.lowercased() == "identity" }) ?? true
        {
            return .failure(.connectionLost("the answer ended after \(body.count) of \(declared) bytes"))
        }
        return .success(HTTPResponse(status: http.statusCode, headers: headers, body: body))
    }

    /// The system's error as a ``TransportFailure``.
    static func failure(_ error: any Error) -> TransportFailure {
        guard let urlError = error as? URLError else { return .other(String(describing: error)) }
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        // swift-corelibs-foundation reports most of libcurl's transfer errors (a body cut short,
        // an empty reply) as `unknown`: transient, like a lost connection.
        case .unknown, .networkConnectionLost, .notConnectedToInternet, .resourceUnavailable, .badServerResponse, .zeroByteResource,
            .cannotParseResponse, .dataNotAllowed:
            return .connectionLost(reason(urlError.code))
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed:
            return .cannotConnect(reason(urlError.code))
        default:
            return .other(reason(urlError.code))
        }
    }

    /// What went wrong, in words (Foundation's own text on Linux is "The operation could not be
    /// completed. (NSURLErrorDomain error -1004.)", which tells a person nothing).
    static func reason(_ code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: "the server refused the connection or did not answer"
        case .cannotFindHost, .dnsLookupFailed: "the server's host name was not found"
        case .notConnectedToInternet: "this device is not connected to a network"
        case .networkConnectionLost: "the connection was lost"
        case .badServerResponse, .cannotParseResponse, .zeroByteResource: "the server's answer could not be read"
        case .badURL, .unsupportedURL: "the store's address is not a valid URL"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired:
            "the secure (TLS) connection failed: check the server's certificate"
        case .timedOut: "the server did not answer in time"
        case .httpTooManyRedirects, .redirectToNonExistentLocation: "the server redirected the request too often or nowhere"
        default: "the request failed (URL error \(code.rawValue))"
        }
    }
}

/// Holds a data task so that a cancellation arriving before, during or after its start
/// cancels it exactly when it exists.
private final class TaskBox: Sendable {
    private let state = Mutex<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
        task.resume()
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    /// Whether `cancel()` was called (the caller's task was cancelled).
    var wasCancelled: Bool { state.withLock { $0.cancelled } }

    /// The task's response, once it has one.
    var response: HTTPURLResponse? { state.withLock { $0.task?.response as? HTTPURLResponse } }
}

/// The session's delegate: gathers each task's answer as it arrives, refuses one larger than
/// its limit, refuses every redirect (the answer, a 301 or 307, reaches the store, which
/// reports it), and answers authentication challenges (the stores send their credentials
/// themselves, so a 401 is final).
private final class TransferDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// What ends a task: its body, response and error, and the answer's size when it was
    /// larger than the limit.
    typealias Finish = @Sendable (Data?, URLResponse?, (any Error)?, Int?) -> Void

    private struct Transfer {
        var body = Data()
        var answerBytesMax: Int
        var oversizeBytes: Int?
        var finish: Finish
    }

    /// Transfers by task identifier.
    private let transfers = Mutex<[Int: Transfer]>([:])

    /// Follows `task` (not started yet): `finish` is called once, when it ends.
    func register(_ task: URLSessionDataTask, answerBytesMax: Int, finish: @escaping Finish) {
        transfers.withLock { $0[task.taskIdentifier] = Transfer(answerBytesMax: answerBytesMax, finish: finish) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let declared = response.expectedContentLength
        let refused = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier], declared > Int64(transfer.answerBytesMax) else { return false }
            transfer.oversizeBytes = Int(clamping: declared)
            transfers[dataTask.taskIdentifier] = transfer
            return true
        }
        completionHandler(refused ? .cancel : .allow)
        if refused { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let stop = transfers.withLock { transfers -> Bool in
            // Changed in place, holding no copy of the transfer meanwhile (a copy would share the
            // body, and appending would then copy all of it at every piece).
            let id = dataTask.taskIdentifier
            guard let (bodyBytes, limit, refused) = transfers[id].map({ ($0.body.count, $0.answerBytesMax, $0.oversizeBytes != nil) }),
                !refused
            else { return false }
            guard bodyBytes + data.count <= limit else {
                transfers[id]?.oversizeBytes = bodyBytes + data.count
                transfers[id]?.body = Data()
                return true
            }
            transfers[id]?.body.append(data)
            return false
        }
        if stop { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.finish(transfer.body, task.response, error, transfer.oversizeBytes)
    }

    /// With swift-corelibs-foundation, a 401 carrying `WWW-Authenticate` raises a challenge
    /// that "default handling" never completes when no credential is stored (the task hangs;
    /// swift-corelibs-foundation issue 5456, fixed after Swift 6.3.1): it is declined, which
    /// cancels the task, and `URLSessionTransport` reports the 401 that had arrived. Apple's
    /// Foundation completes the task with the 401 under default handling.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
