import Foundation
import MemoSync
import Synchronization

@testable import MemoSyncRemote

/// A transport that answers from a script and records every request.
final class ScriptedTransport: HTTPTransport {
    private let state: Mutex<(requests: [HTTPRequest], answer: @Sendable (HTTPRequest, Int) -> Result<HTTPResponse, TransportFailure>)>

    init(_ answer: @escaping @Sendable (HTTPRequest, Int) -> Result<HTTPResponse, TransportFailure>) {
        state = Mutex(([], answer))
    }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
        let (answer, index) = state.withLock { state in
            state.requests.append(request)
            return (state.answer, state.requests.count - 1)
        }
        return try answer(request, index).get()
    }
}

/// A retry environment that never waits: it records the delays and advances a fake clock.
final class FakeRetryClock: Sendable {
    private let state = Mutex<(now: Int, delays: [Int])>((0, []))
    var delays: [Int] { state.withLock { $0.delays } }

    var environment: RetryEnvironment {
        RetryEnvironment(
            monotonicMilliseconds: { [self] in state.withLock { $0.now } },
            sleep: { [self] milliseconds in state.withLock { $0.now += milliseconds; $0.delays.append(milliseconds) } },
            randomUnit: { 0.5 })
    }
}

func xmlResponse(_ status: Int, _ body: String) -> Result<HTTPResponse, TransportFailure> {
    .success(HTTPResponse(status: status, headers: ["content-type": "application/xml"], body: Array(body.utf8)))
}

func s3Error(_ status: Int, code: String, message: String) -> Result<HTTPResponse, TransportFailure> {
    xmlResponse(status, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>\(code)</Code><Message>\(message)</Message><RequestId>1</RequestId></Error>")
}
