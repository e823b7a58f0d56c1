// Every refusal of `memo serve` (SERVE.md, "Safe on a shared machine"): each attack gets a
// refusal with nothing changed, and the server keeps serving after it.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MemoServe
import MemoSync
import Testing

@Suite(.serialized) struct ServeSecurityTests {
    @Test func tokenBecomesAStrictHttpOnlyCookie() throws {
        let served = try ServedLibrary()
        let first = try served.request("GET", "/?token=\(served.token)", headers: [("Host", served.hostHeader)])
        #expect(first.status == 303)
        let cookie = try #require(first.headers["set-cookie"])
        #expect(cookie.contains("memo_serve=\(served.token)") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let page = try served.request("GET", "/")
        #expect(page.status == 200)
        #expect(page.text.contains("<textarea"))
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
        #expect(page.headers["x-content-type-options"] == "nosniff")
        // SERVE.md: `default-src 'none'`, `X-Frame-Options: DENY`, `no-referrer`, `no-store`, on
        // every response.
        for path in ["/", "/app.js", "/app.css", "/strings.js", "/api/memos", "/nowhere"] {
            let response = try served.request("GET", path)
            #expect(response.status == (path == "/nowhere" ? 404 : 200), "\(path)")
            #expect(!response.headers.keys.contains { $0.hasPrefix("access-control-") }, "\(path)")
            #expect(response.headers["content-security-policy"]?.hasPrefix("default-src 'none'; ") == true, "\(path)")
            #expect(response.headers["x-frame-options"] == "DENY", "\(path)")
            #expect(response.headers["referrer-policy"] == "no-referrer", "\(path)")
            #expect(response.headers["cache-control"] == "no-store", "\(path)")
        }
        // SERVE.md: a slash at the end is not a segment; an empty segment inside is refused.
        #expect(try served.request("GET", "/api/memos/").status == 200)
        #expect(try served.request("GET", "/api//memos").status == 400)
        // SERVE.md: "A random 256-bit token": 64 hexadecimal digits, another at each start.
        #expect(served.token.count == 64 && served.token.allSatisfy(\.isHexDigit))
        #expect(ServeSecurity(address: "127.0.0.1", port: 1).token != ServeSecurity(address: "127.0.0.1", port: 1).token)
        // The page has no inline script: every <script> names a file.
        #expect(!page.text.contains("<script>"))
    }

    /// SERVE.md's bounds, as `memo serve` starts with them (the tests run with smaller ones):
    /// a head of 16 KiB, a body of 4 MiB, 10 s for a request, 30 s idle, 64 connections.
    @Test func theDefaultBoundsAreTheDocumentedOnes() {
        let limits = HTTPLimits()
        #expect(limits.maxHeadBytes == 16 * 1024 && limits.maxBodyBytes == 4 * 1024 * 1024)
        #expect(limits.requestTimeoutMilliseconds == 10_000 && limits.idleTimeoutMilliseconds == 30_000)
        #expect(limits.maxConnections == 64)
    }

    @Test func refusesEachAttackWithNothingChanged() throws {
        let served = try ServedLibrary()
        let created = try served.json("POST", "/api/memos", #"{"text":"keep me"}"#)
        let id = try #require(created["id"] as? String)
        let before = served.host.notebook.list().count
        let attacks: [(String, RawResponse, Int)] = [
            ("no token", try served.request("POST", "/api/memos", headers: [("Host", served.hostHeader), ("Origin", served.origin), ("Content-Type", "application/json")], body: #"{"text":"x"}"#), 403),
            ("no token, page", try served.request("GET", "/", headers: [("Host", served.hostHeader)]), 403),
            ("wrong token", try served.request("GET", "/?token=0000", headers: [("Host", served.hostHeader)]), 403),
            ("wrong Host", try served.request("GET", "/api/memos", headers: [("Host", "evil.example:\(served.port)"), ("Cookie", "memo_serve=\(served.token)")]), 421),
            ("DNS rebinding", try served.request("GET", "/?token=\(served.token)", headers: [("Host", "attacker.example")]), 421),
            ("cross-origin POST", try served.request("POST", "/api/memos", headers: served.pageHeaders + [("Origin", "http://evil.example"), ("Content-Type", "application/json")], body: #"{"text":"x"}"#), 403),
            ("POST without Origin", try served.request("POST", "/api/memos/\(id)/trash", headers: served.pageHeaders + [("Content-Type", "application/json")], body: "{}"), 403),
            ("form POST", try served.request("POST", "/api/memos", headers: served.pageHeaders + [("Origin", served.origin), ("Content-Type", "application/x-www-form-urlencoded")], body: "text=x"), 415),
            ("cross-origin event stream", try served.request("GET", "/api/events", headers: served.pageHeaders + [("Origin", "http://evil.example")]), 403),
            ("cross-site event stream", try served.request("GET", "/api/events", headers: served.pageHeaders + [("Sec-Fetch-Site", "cross-site")]), 403),
            ("dot dot", try served.request("GET", "/../../etc/passwd"), 400),
            ("dot dot inside", try served.request("GET", "/app.js/../../etc/passwd"), 400),
            ("encoded dot dot", try served.request("GET", "/%2e%2e/%2e%2e/etc/passwd"), 400),
            ("backslash", try served.request("GET", "/..\\..\\etc\\passwd"), 400),
            ("a file", try served.request("GET", "/etc/passwd"), 404),
            ("the library", try served.request("GET", "/state"), 404),
        ]
        for (name, response, status) in attacks {
            #expect(response.status == status, "\(name): \(response.status) \(response.text)")
            #expect(!response.headers.keys.contains { $0.hasPrefix("access-control-") }, "\(name)")
        }
        #expect(served.host.notebook.list().count == before)
        #expect(served.host.notebook.memo(MemoID(id)!)?.status == .active)
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "keep me")
        #expect(try served.request("GET", "/api/memos").status == 200, "still serving")
    }

    @Test func slowAndMalformedRequestsGetBoundedRefusals() throws {
        let served = try ServedLibrary()
        // A head of 1 MB.
        var big = "GET / HTTP/1.1\r\nHost: \(served.hostHeader)\r\nX-Big: "
        big += String(repeating: "a", count: 1_000_000) + "\r\n\r\n"
        let one = try RawHTTP.connect(port: served.port)
        RawHTTP.send(one, Array(big.utf8))
        #expect(try RawHTTP.readResponse(one).status == 431)
        close(one)
        // A body larger than allowed: refused from its Content-Length, before it is read.
        let large = try RawHTTP.connect(port: served.port)
        RawHTTP.send(large, Array("POST /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\nCookie: memo_serve=\(served.token)\r\nOrigin: \(served.origin)\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{".utf8))
        #expect(try RawHTTP.readResponse(large).status == 413)
        close(large)
        // A request that never ends (slowloris): refused at the deadline.
        let slow = try RawHTTP.connect(port: served.port)
        let start = Date()
        RawHTTP.send(slow, Array("GET / HTTP/1.1\r\nHost: \(served.hostHeader)\r\n".utf8))
        let timedOut = try RawHTTP.readResponse(slow)
        close(slow)
        #expect(timedOut.status == 408)
        #expect(Date().timeIntervalSince(start) < 5)
        // A body that never arrives.
        let stalled = try RawHTTP.connect(port: served.port)
        RawHTTP.send(stalled, Array("POST /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\nContent-Length: 100\r\n\r\n{".utf8))
        #expect(try RawHTTP.readResponse(stalled).status == 408)
        close(stalled)
        // Malformed heads.
        for head in ["GARBAGE\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET / HTTP/1.1\r\nBad Header\r\n\r\n", "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                     "GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"] {
            let socket = try RawHTTP.connect(port: served.port)
            RawHTTP.send(socket, Array(head.utf8))
            let status = try RawHTTP.readResponse(socket).status
            #expect((400...505).contains(status), "\(head.debugDescription): \(status)")
            close(socket)
        }
        #expect(served.host.notebook.list().isEmpty, "nothing changed")
        #expect(try served.request("GET", "/api/memos").status == 200, "still serving")
    }

    @Test func parserRefusesPathsOutsideTheApp() {
        for target in ["/..", "/a/../b", "/./x", "/%2e%2e", "/a//b", "/a\\b", "x", "*"] {
            #expect(throws: HTTPFailure.self, "\(target)") { try HTTPParser.parseHead(ArraySlice("GET \(target) HTTP/1.1\r\nHost: h".utf8)) }
        }
        let parsed = try? HTTPParser.parseHead(ArraySlice("GET /api/memos?q=caf%C3%A9+x&offset=5 HTTP/1.1\r\nHost: h".utf8))
        #expect(parsed?.request.query["q"] == "café x")
        #expect(parsed?.request.query["offset"] == "5")
    }

    @Test func pageTextsInEveryLanguage() {
        let english = ServeText.catalogs["en"]!
        for (language, catalog) in ServeText.catalogs {
            #expect(Set(catalog.keys) == Set(english.keys), "\(language)")
            for (key, text) in catalog {
                let placeholders = { (s: String) in Set(s.split(separator: "{", omittingEmptySubsequences: false).dropFirst().compactMap { $0.split(separator: "}").first }) }
                #expect(placeholders(text) == placeholders(english[key]!), "\(language) \(key)")
            }
        }
    }
}
