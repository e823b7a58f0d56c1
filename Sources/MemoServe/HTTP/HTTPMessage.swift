// HTTP/1.1 messages as `memo serve` reads and writes them: a small, strict subset (no chunked
// request bodies, no continuation lines, bounded sizes). Pure: the sockets are in
// HTTPServer+POSIX.swift.

/// The bounds every request is held to: a request over them gets a refusal (431, 413, 408) and
/// the connection is closed; the server goes on serving others.
public struct HTTPLimits: Sendable {
    /// The request line and headers together, in bytes.
    public var maxHeadBytes = 16 * 1024
    /// A request body, in bytes.
    public var maxBodyBytes = 4 * 1024 * 1024
    /// How long a whole request (head and body) may take to arrive, from its first byte.
    public var requestTimeoutMilliseconds = 10_000
    /// How long an open connection may wait for its next request.
    public var idleTimeoutMilliseconds = 30_000
    /// How long a new connection may take to send its whole first request, from the moment it
    /// is accepted: a client that sends nothing (or too slowly) holds one of the
    /// ``maxConnections`` places only this long, not ``idleTimeoutMilliseconds``.
    public var firstRequestTimeoutMilliseconds = 3_000
    /// Connections served at once; one more is refused with 503.
    public var maxConnections = 64
    /// After a refusal, how long what the client still sends is read and dropped before the
    /// connection closes (so that the client reads the refusal instead of a reset).
    public var lingerMilliseconds = 2_000
    /// After a refusal, how many bytes the client still sends are read and dropped, at most.
    public var lingerBytes = 8 * 1024 * 1024

    public init() {}
}

/// A request, parsed.
public struct HTTPRequest: Sendable {
    /// The method, as sent ("GET").
    public var method: String
    /// The path of the target, percent-decoding not applied ("/api/memos").
    public var path: String
    /// The query's parameters, percent-decoded (the last of a repeated name).
    public var query: [String: String]
    /// The headers, names in lowercase, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// The protocol version of the request line ("HTTP/1.1" or "HTTP/1.0").
    public var version = "HTTP/1.1"

    /// The value of header `name` (lowercase), when sent once; nil when absent or repeated.
    public func header(_ name: String) -> String? {
        let values = headers.filter { $0.name == name }
        return values.count == 1 ? values[0].value : nil
    }

    /// How many times header `name` (lowercase) was sent.
    public func headerCount(_ name: String) -> Int { headers.filter { $0.name == name }.count }

    public init(method: String, path: String, query: [String: String] = [:], headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// A response.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers (the server adds its security headers, Content-Length and Connection).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// Whether the server closes the connection after it (`Connection: close`).
    public var closesConnection = false

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// The reason phrase of `status`.
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 303: "See Other"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 421: "Misdirected Request"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }

    /// The status line and headers, with `extra` headers after the response's own.
    func head(extra: [(name: String, value: String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers + extra { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}

/// What a handler answers: a response, or an event stream the connection keeps writing.
public enum HTTPReply: Sendable {
    /// A whole response.
    case response(HTTPResponse)
    /// A `text/event-stream`: the head, then `produce` writes events until it returns (the
    /// connection closes then).
    case eventStream(HTTPResponse, @Sendable (HTTPStreamWriter) -> Void)
}

/// Writes an event stream's bytes to its connection.
public protocol HTTPStreamWriter: Sendable {
    /// Writes `bytes`; false when the connection is gone.
    func write(_ bytes: [UInt8]) -> Bool
}

/// A malformed or refused request: the status to answer, and why.
public struct HTTPFailure: Error, Equatable, Sendable {
    public var status: Int
    public var reason: String
}

/// Parsing a request's head (the bytes before the blank line).
public enum HTTPParser {
    /// The longest request target, in bytes.
    public static let maxTargetBytes = 4096

    /// Parses the request line and headers of `head` (without the final CRLF CRLF).
    public static func parseHead(_ head: ArraySlice<UInt8>) throws(HTTPFailure) -> (request: HTTPRequest, contentLength: Int) {
        guard let text = String(validating: head, as: UTF8.self) else { throw HTTPFailure(status: 400, reason: "the request head is not UTF-8") }
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { throw HTTPFailure(status: 400, reason: "no request line") }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw HTTPFailure(status: 400, reason: "a malformed request line") }
        let method = String(parts[0]), target = String(parts[1]), version = parts[2]
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw HTTPFailure(status: 505, reason: "only HTTP/1.1") }
        guard !method.isEmpty, method.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw HTTPFailure(status: 400, reason: "a malformed method")
        }
        guard target.utf8.count <= maxTargetBytes else { throw HTTPFailure(status: 414, reason: "the target is too long") }
        guard target.hasPrefix("/"), target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPFailure(status: 400, reason: "a malformed target")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw HTTPFailure(status: 400, reason: "a malformed header") }
            let name = line[..<colon]
            guard !name.isEmpty, name.utf8.allSatisfy({ isTokenByte($0) }) else { throw HTTPFailure(status: 400, reason: "a malformed header name") }
            let value = line[line.index(after: colon)...].trimmingSpaces
            guard value.utf8.allSatisfy({ $0 >= 0x20 || $0 == 0x09 }), !value.utf8.contains(0x7F) else {
                throw HTTPFailure(status: 400, reason: "a control character in a header")
            }
            headers.append((name.lowercased(), String(value)))
            guard headers.count <= 100 else { throw HTTPFailure(status: 431, reason: "too many headers") }
        }
        guard headers.filter({ $0.name == "transfer-encoding" }).isEmpty else {
            throw HTTPFailure(status: 501, reason: "transfer codings are not accepted")
        }
        let lengths = headers.filter { $0.name == "content-length" }
        var contentLength = 0
        if !lengths.isEmpty {
            guard lengths.count == 1, !lengths[0].value.isEmpty, lengths[0].value.utf8.count <= 18,
                lengths[0].value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let length = Int(lengths[0].value)
            else { throw HTTPFailure(status: 400, reason: "a malformed Content-Length") }
            contentLength = length
        }
        let (path, query) = try splitTarget(target)
        var request = HTTPRequest(method: method, path: path, query: query, headers: headers)
        request.version = String(version)
        return (request, contentLength)
    }

    /// The path and the decoded query parameters of a target. A path is refused when it holds a
    /// dot segment, a percent sign, a backslash or an empty segment: the server names its few
    /// resources exactly and never maps a path to a file.
    static func splitTarget(_ target: String) throws(HTTPFailure) -> (String, [String: String]) {
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(pieces[0])
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard !path.contains("%"), !path.contains("\\"), !segments.contains(where: { $0 == "." || $0 == ".." }),
            !segments.dropLast().contains(where: \.isEmpty)
        else { throw HTTPFailure(status: 400, reason: "a path outside the app") }
        var query: [String: String] = [:]
        if pieces.count == 2 {
            for pair in pieces[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = percentDecoded(keyValue[0]), let value = percentDecoded(keyValue.count == 2 ? keyValue[1] : "") else {
                    throw HTTPFailure(status: 400, reason: "a malformed query")
                }
                query[key] = value
            }
        }
        return (path, query)
    }

    /// `text` with `+` as a space and `%XX` decoded; nil when malformed or not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
