import Foundation
import MemoSync

/// One HTTP request as a store builds it.
struct HTTPRequest: Sendable {
    /// "GET", "PUT", "PROPFIND", …
    var method: String
    /// The whole URL, its path already percent-encoded as it travels.
    var url: URL
    /// Header names and values, sent as given.
    var headers: [(name: String, value: String)] = []
    /// The body (empty for none).
    var body: [UInt8] = []
    /// The largest answer body taken: a larger one is not read on (refused from its declared
    /// length, or stopped once more arrived) and comes back as ``HTTPResponse/oversizeBytes``.
    /// No answer of a MemoSync store is larger than its largest blob.
    var answerBytesMax: Int = StoreLayout.maxListedBlobBytes
}

/// The answer to one request.
struct HTTPResponse: Sendable {
    /// The status code (200, 404, …).
    var status: Int
    /// Header values by lowercase name.
    var headers: [String: String] = [:]
    /// The body.
    var body: [UInt8] = []
    /// When the body was larger than the request's ``HTTPRequest/answerBytesMax``: its declared
    /// length, or how much had arrived when the transfer was stopped (the body is then empty).
    var oversizeBytes: Int? = nil
}

/// Why a request got no answer.
enum TransportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer within the request's timeout.
    case timedOut
    /// The connection broke (a server killed, a connection dropped, a body cut short).
    case connectionLost(String)
    /// No connection could be made (nothing listens, the host is unknown).
    case cannotConnect(String)
    /// The task was cancelled.
    case cancelled
    /// Anything else the system reported (a TLS failure, a malformed URL).
    case other(String)

    var description: String {
        switch self {
        case .timedOut: "the request timed out"
        case let .connectionLost(reason): "the connection was lost (\(reason))"
        case let .cannotConnect(reason): "cannot connect (\(reason))"
        case .cancelled: "cancelled"
        case let .other(reason): reason
        }
    }
}

/// Sends one request and returns its answer: `URLSession` in an app, a scripted server in
/// tests.
protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse
}
