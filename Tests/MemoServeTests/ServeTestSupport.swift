// A served library in a temporary folder, and a raw HTTP client (POSIX sockets), for the tests.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MemoServe
import MemoSync

/// A library served on 127.0.0.1 with short timeouts.
final class ServedLibrary: @unchecked Sendable {
    let folder: String
    let host: LibraryHost
    let app: ServeApp
    let server: HTTPServer
    var port: UInt16 { server.port }
    var hostHeader: String { "127.0.0.1:\(port)" }
    var origin: String { "http://127.0.0.1:\(port)" }
    var token: String { app.security.token }

    init(limits: HTTPLimits = ServedLibrary.testLimits, syncer: ServeSyncer? = nil, syncIntervalMilliseconds: Int? = nil) throws {
        folder = NSTemporaryDirectory() + "memo-serve-test-\(UUID().uuidString)"
        var configuration = ServeConfiguration(libraryPath: folder)
        configuration.saveQuietMilliseconds = 100
        configuration.maxUnsavedMilliseconds = 600
        configuration.pollMilliseconds = 50
        configuration.syncQuietMilliseconds = 100
        configuration.syncIntervalMilliseconds = syncIntervalMilliseconds
        host = try LibraryHost(configuration: configuration, syncer: syncer)
        let box = Box()
        server = try HTTPServer(port: 0, limits: limits) { box.app!.handle($0) }
        app = ServeApp(host: host, security: ServeSecurity(address: "127.0.0.1", port: server.port), heartbeatMilliseconds: 200)
        box.app = app
    }

    static var testLimits: HTTPLimits {
        var limits = HTTPLimits()
        limits.requestTimeoutMilliseconds = 600
        limits.idleTimeoutMilliseconds = 1_000
        limits.maxBodyBytes = 64 * 1024
        return limits
    }

    final class Box: @unchecked Sendable { var app: ServeApp? }

    deinit {
        server.stop()
        host.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The header line a page of this server sends its token in ("X-Memo-Token: TOKEN").
    var tokenLine: String { "X-Memo-Token: \(token)" }

    /// Headers a page of this server sends.
    var pageHeaders: [(String, String)] { [("Host", hostHeader), ("X-Memo-Token", token)] }
    var postHeaders: [(String, String)] { pageHeaders + [("Origin", origin), ("Content-Type", "application/json")] }

    /// A request as the page sends it.
    func request(_ method: String, _ path: String, headers: [(String, String)]? = nil, body: String = "") throws -> RawResponse {
        try RawHTTP.exchange(port: port, method: method, path: path, headers: headers ?? (method == "GET" ? pageHeaders : postHeaders), body: Array(body.utf8))
    }

    func json(_ method: String, _ path: String, _ body: String = "") throws -> [String: Any] {
        let response = try request(method, path, body: body)
        return (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? ["status": response.status]
    }

    /// The library's saved memos, read without a lock (as `memo list` does).
    func saved() throws -> Notebook? { try LibrarySnapshot.read(libraryPath: folder)?.notebook }

    /// Waits (up to `seconds`) for `condition`.
    static func wait(seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }
}

struct RawResponse {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

struct RawHTTPError: Error, CustomStringConvertible { var description: String }

/// A blocking HTTP/1.1 client over a socket, sending exactly the bytes asked for.
enum RawHTTP {
    static func connect(port: UInt16) throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(descriptor); throw RawHTTPError(description: "cannot connect") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    static func send(_ descriptor: Int32, _ bytes: [UInt8]) {
        _ = sendCounting(descriptor, bytes)
    }

    /// Sends `bytes` until done or the connection fails: how many were sent.
    static func sendCounting(_ descriptor: Int32, _ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return offset }
            offset += sent
        }
        return offset
    }

    /// Reads one response (its head, then Content-Length bytes, or until closed).
    static func readResponse(_ descriptor: Int32) throws -> RawResponse {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        func more() -> Bool {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return false }
            buffer += chunk[..<count]
            return true
        }
        var headEnd: Int?
        while headEnd == nil {
            if buffer.count >= 4 {
                for index in 0...(buffer.count - 4) where buffer[index..<index + 4] == [13, 10, 13, 10] { headEnd = index; break }
            }
            if headEnd == nil && !more() { throw RawHTTPError(description: "no response (\(buffer.count) bytes)") }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(buffer[(headEnd! + 4)...])
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            while body.count < length {
                let before = buffer.count
                guard more() else { break }
                body += buffer[before...]
            }
        }
        return RawResponse(status: status, headers: headers, body: body)
    }

    static func exchange(port: UInt16, method: String, path: String, headers: [(String, String)], body: [UInt8]) throws -> RawResponse {
        let descriptor = try connect(port: port)
        defer { close(descriptor) }
        var text = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "Connection: close\r\n\r\n"
        send(descriptor, Array(text.utf8) + body)
        return try readResponse(descriptor)
    }
}
