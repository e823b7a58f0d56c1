// PLATFORM CODE: the listening socket and the connections, on POSIX sockets (Linux: Glibc;
// Apple platforms: Darwin). Each connection is served by a thread of its own, with every read
// bounded by a deadline (poll), so a slow or silent client only ever holds its own thread, for a
// bounded time, and at most `HTTPLimits.maxConnections` at once.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Handles one request (on the connection's thread).
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPReply

/// Headers on every response: no sniffing, no framing, no referrer, nothing cached, a strict
/// Content-Security-Policy (the app's own scripts and styles only, no inline script). No CORS
/// header is ever sent.
let securityHeaders: [(name: String, value: String)] = [
    ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
]

/// Why the server could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// A small HTTP/1.1 server on one IPv4 address.
public final class HTTPServer: Sendable {
    /// The port it listens on (the one the system chose for port 0).
    public let port: UInt16
    /// The address it listens on.
    public let address: String
    private let listener: Int32
    private let limits: HTTPLimits
    private let handler: HTTPHandler
    private let state = Mutex(State())

    private struct State {
        var connections = 0
        var stopped = false
        var served = 0
    }

    /// Listens on `address` (an IPv4 address, "127.0.0.1" by default) and `port` (0: any free).
    public init(address: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPLimits = HTTPLimits(), handler: @escaping HTTPHandler) throws(HTTPServerError) {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else {
            throw HTTPServerError(description: "not an IPv4 address: \(address)")
        }
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw HTTPServerError(description: "cannot make a socket (\(String(cString: strerror(errno))))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw HTTPServerError(description: "cannot listen on \(address):\(port) (\(reason))")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.address = address
        listener = descriptor
        self.limits = limits
        self.handler = handler
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "memo serve: accept"
        thread.start()
    }

    /// Requests answered so far (including refusals).
    public var servedCount: Int { state.withLock { $0.served } }

    /// Stops accepting connections. Connections being served end at their next deadline.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if wasRunning {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while !isStopped {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if isStopped { return }
                if errno == EINTR || errno == ECONNABORTED { continue }
                usleep(10_000)
                continue
            }
            // A page that stops reading blocks a write for at most this long.
            var sendTimeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
            #if canImport(Darwin)
            var yes: Int32 = 1
            setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let admitted = state.withLock { state -> Bool in
                guard state.connections < limits.maxConnections else { return false }
                state.connections += 1
                return true
            }
            guard admitted else {
                let refusal = HTTPResponse.text(503, "too many connections\n")
                _ = Connection(descriptor: connection).write(refusal.head(extra: securityHeaders + [("Content-Length", String(refusal.body.count)), ("Connection", "close")]) + refusal.body)
                close(connection)
                continue
            }
            let thread = Thread { [self] in
                serve(Connection(descriptor: connection))
                close(connection)
                state.withLock { $0.connections -= 1 }
            }
            thread.name = "memo serve: connection"
            thread.start()
        }
    }

    /// Serves the requests of one connection, one after the other.
    ///
    /// The first request must arrive whole within ``HTTPLimits/firstRequestTimeoutMilliseconds``
    /// of the accept: a client holding connections open without a request (any local process,
    /// without the token) held each of the 64 places for the 30 s idle timeout, and by
    /// repeating it kept every page out. A connection closes after a response that asks for it
    /// (a refusal of the token or the host), after an HTTP/1.0 request without
    /// `Connection: keep-alive`, and after one with `Connection: close`.
    private func serve(_ connection: Connection) {
        var buffer: [UInt8] = []
        let firstRequestDeadline = Deadline(milliseconds: limits.firstRequestTimeoutMilliseconds)
        var isFirstRequest = true
        while !isStopped {
            // The next request's first byte, within the idle timeout (the first request's
            // within its own).
            if buffer.isEmpty {
                let wait = isFirstRequest ? firstRequestDeadline : Deadline(milliseconds: limits.idleTimeoutMilliseconds)
                guard connection.read(into: &buffer, deadline: wait) == .data else { return }
            }
            let requestDeadline = Deadline(milliseconds: limits.requestTimeoutMilliseconds)
            let deadline = isFirstRequest ? Deadline.earlier(firstRequestDeadline, requestDeadline) : requestDeadline
            isFirstRequest = false
            var headEnd: Int?
            while true {
                if let end = Self.headEnd(buffer) { headEnd = end; break }
                if buffer.count > limits.maxHeadBytes { return refuse(connection, HTTPFailure(status: 431, reason: "the request head is too large")) }
                switch connection.read(into: &buffer, deadline: deadline) {
                case .data: continue
                case .timeout: return refuse(connection, HTTPFailure(status: 408, reason: "the request took too long"))
                case .closed: return
                }
            }
            // The head with its blank line: 16 KiB in all (it once let 4 bytes more through).
            guard let headEnd, headEnd + 4 <= limits.maxHeadBytes else {
                return refuse(connection, HTTPFailure(status: 431, reason: "the request head is too large"))
            }
            var request: HTTPRequest
            let contentLength: Int
            do throws(HTTPFailure) {
                (request, contentLength) = try HTTPParser.parseHead(buffer[..<headEnd])
            } catch {
                return refuse(connection, error)
            }
            guard contentLength <= limits.maxBodyBytes else {
                return refuse(connection, HTTPFailure(status: 413, reason: "the request body is too large"))
            }
            buffer.removeFirst(headEnd + 4)
            while buffer.count < contentLength {
                switch connection.read(into: &buffer, deadline: deadline) {
                case .data: continue
                case .timeout: return refuse(connection, HTTPFailure(status: 408, reason: "the request took too long"))
                case .closed: return
                }
            }
            request.body = Array(buffer[..<contentLength])
            buffer.removeFirst(contentLength)
            let options = Set((request.header("connection") ?? "").lowercased().split(separator: ",").map { String($0.trimmingSpaces) })
            // HTTP/1.0 keeps a connection only when asked to (RFC 9112, 9.3).
            let keepAlive10 = request.version == "HTTP/1.0" && options.contains("keep-alive")
            let requestCloses = options.contains("close") || (request.version == "HTTP/1.0" && !keepAlive10)
            state.withLock { $0.served += 1 }
            switch handler(request) {
            case let .response(response):
                let closing = requestCloses || response.closesConnection
                var extra = securityHeaders + [("Content-Length", String(response.body.count))]
                if closing { extra.append(("Connection", "close")) } else if keepAlive10 { extra.append(("Connection", "keep-alive")) }
                guard connection.write(response.head(extra: extra) + (request.method == "HEAD" ? [] : response.body)) else { return }
                if closing { return }
            case let .eventStream(response, produce):
                guard connection.write(response.head(extra: securityHeaders + [("Connection", "close")])) else { return }
                produce(connection)
                return
            }
        }
    }

    /// Answers a request the server refuses, and ends the connection.
    ///
    /// A socket closed with bytes it never read sends a reset, and a client still sending (a
    /// body refused from its Content-Length) can meet that reset before it reads the refusal:
    /// it then sees "connection reset", never the 413. So the refusal is followed by the end of
    /// what the server writes, and what the client still sends is read and dropped, for at most
    /// ``HTTPLimits/lingerMilliseconds`` and ``HTTPLimits/lingerBytes``, before the caller closes.
    private func refuse(_ connection: Connection, _ failure: HTTPFailure) {
        state.withLock { $0.served += 1 }
        let response = HTTPResponse.text(failure.status, failure.reason + "\n")
        guard connection.write(response.head(extra: securityHeaders + [("Content-Length", String(response.body.count)), ("Connection", "close")]) + response.body) else { return }
        shutdown(connection.descriptor, Int32(SHUT_WR))
        connection.discardUntilClosed(deadline: Deadline(milliseconds: limits.lingerMilliseconds), atMostBytes: limits.lingerBytes)
    }

    /// Where the head ends (the index of the blank line's CR LF CR LF).
    private static func headEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}

/// A point in time, for bounded reads.
struct Deadline {
    let uptimeNanoseconds: UInt64

    init(milliseconds: Int) {
        uptimeNanoseconds = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, milliseconds)) * 1_000_000
    }

    private init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// Whichever of `a` and `b` comes first.
    static func earlier(_ a: Deadline, _ b: Deadline) -> Deadline {
        Deadline(uptimeNanoseconds: min(a.uptimeNanoseconds, b.uptimeNanoseconds))
    }

    /// Milliseconds left (0 when past).
    var remainingMilliseconds: Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        return now >= uptimeNanoseconds ? 0 : Int32(min(UInt64(Int32.max), (uptimeNanoseconds - now) / 1_000_000 + 1))
    }
}

/// One accepted socket.
struct Connection: HTTPStreamWriter {
    let descriptor: Int32

    enum ReadResult { case data, timeout, closed }

    /// Reads what arrives before `deadline` and appends it to `buffer`.
    func read(into buffer: inout [UInt8], deadline: Deadline) -> ReadResult {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        switch receive(into: &chunk, atMost: chunk.count, deadline: deadline) {
        case let .received(count):
            buffer += chunk[..<count]
            return .data
        case .timeout: return .timeout
        case .closed: return .closed
        }
    }

    /// Reads and drops what arrives until the peer closes, `deadline` passes, or `atMostBytes`
    /// were dropped.
    func discardUntilClosed(deadline: Deadline, atMostBytes: Int) {
        var dropped = 0
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while dropped < atMostBytes, case let .received(count) = receive(into: &chunk, atMost: atMostBytes - dropped, deadline: deadline) {
            dropped += count
        }
    }

    private enum Received { case received(Int), timeout, closed }

    /// Waits until bytes arrive before `deadline`, then reads up to `atMost` of them (and at
    /// most `chunk.count`) into the start of `chunk`.
    private func receive(into chunk: inout [UInt8], atMost: Int, deadline: Deadline) -> Received {
        while true {
            let remaining = deadline.remainingMilliseconds
            if remaining == 0 { return .timeout }
            var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&polled, 1, remaining)
            if ready < 0 { if errno == EINTR { continue }; return .closed }
            if ready == 0 { return .timeout }
            let wanted = min(chunk.count, atMost)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, wanted, 0) }
            if count < 0 { if errno == EINTR || errno == EAGAIN { continue }; return .closed }
            if count == 0 { return .closed }
            return .received(count)
        }
    }

    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, flags) }
            if sent < 0 { if errno == EINTR { continue }; return false }
            offset += sent
        }
        return true
    }
}
