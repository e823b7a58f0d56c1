// Every refusal of `memo serve` (SERVE.md, "Safe on a shared machine"): each attack gets a
// refusal with nothing changed, and the server keeps serving after it.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MemoServe
import MemoSync
import Synchronization
import Testing

@Suite(.serialized) struct ServeSecurityTests {
    @Test func tokenGoesToThePageInTheFragmentNeverInACookie() throws {
        let served = try ServedLibrary()
        let first = try served.request("GET", "/?token=\(served.token)", headers: [("Host", served.hostHeader)])
        #expect(first.status == 303)
        // SERVE.md: the first visit drops the token from the address, and hands it to the page in
        // the fragment (which no request carries); no cookie carries it.
        #expect(first.headers["location"] == "/#token=\(served.token)")
        #expect(first.headers["set-cookie"] == nil)
        // The page's own files hold no memo: served without the token. The API needs it.
        #expect(try served.request("GET", "/", headers: [("Host", served.hostHeader)]).status == 200)
        #expect(try served.request("GET", "/api/memos", headers: [("Host", served.hostHeader)]).status == 403)
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
    /// a head of 16 KiB, a body of 4 MiB, 10 s for a request, 3 s for a connection's first
    /// request, 30 s idle, 64 connections.
    @Test func theDefaultBoundsAreTheDocumentedOnes() {
        let limits = HTTPLimits()
        #expect(limits.firstRequestTimeoutMilliseconds == 3_000)
        #expect(limits.maxHeadBytes == 16 * 1024 && limits.maxBodyBytes == 4 * 1024 * 1024)
        #expect(limits.requestTimeoutMilliseconds == 10_000 && limits.idleTimeoutMilliseconds == 30_000)
        #expect(limits.maxConnections == 64)
        #expect(limits.lingerMilliseconds == 2_000 && limits.lingerBytes == 8 * 1024 * 1024)
    }

    /// After a refusal the server drops what still arrives only within its bounds: a client
    /// that sends a little more within the time bound is read (no reset), one that sends after
    /// it finds the connection closed, and one that sends on and on is cut off at the byte
    /// bound (SERVE.md: "at most 2 s and 8 MiB", here 1.5 s and 256 KiB).
    @Test func theDrainAfterARefusalEndsAtItsBounds() throws {
        var limits = ServedLibrary.testLimits
        limits.lingerMilliseconds = 1_500
        limits.lingerBytes = 256 * 1024
        limits.requestTimeoutMilliseconds = 10_000
        let served = try ServedLibrary(limits: limits)
        let head = "POST /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\n\(served.tokenLine)\r\nOrigin: \(served.origin)\r\nContent-Type: application/json\r\nContent-Length: \(limits.maxBodyBytes + 1)\r\n\r\n"
        let late = try RawHTTP.connect(port: served.port)
        defer { close(late) }
        RawHTTP.send(late, Array(head.utf8))
        #expect(try RawHTTP.readResponse(late).status == 413)
        // The server has stopped writing (the client reads its end) but still reads.
        var byte: UInt8 = 0
        #expect(recv(late, &byte, 1, 0) == 0)
        let little = [UInt8](repeating: 0x61, count: 1_000)
        #expect(RawHTTP.sendCounting(late, little) == little.count)
        usleep(100_000)
        #expect(RawHTTP.sendCounting(late, little) == little.count, "no reset within the time bound")
        // Past the time bound the server has closed: what is sent then is answered with a
        // reset, and the next send fails.
        usleep(2_000_000)
        _ = RawHTTP.sendCounting(late, little)
        usleep(200_000)
        #expect(RawHTTP.sendCounting(late, little) < little.count, "the connection is closed after the time bound")
        // Sending on and on: the server stops reading at the byte bound and closes, so the
        // client's sends fail long before the 64 MiB it tries.
        let flood = try RawHTTP.connect(port: served.port)
        let sent = RawHTTP.sendCounting(flood, Array(head.utf8) + [UInt8](repeating: 0x61, count: 64 * 1024 * 1024))
        close(flood)
        #expect(sent < 16 * 1024 * 1024, "\(sent) bytes sent")
        #expect(try served.request("GET", "/api/memos").status == 200)
    }

    /// SERVE.md: at most `maxConnections` connections at once (64 by default); one more is
    /// answered 503 and closed, and the server goes on serving once the others are gone.
    @Test func aConnectionPastTheLimitIsRefusedAndTheServerGoesOn() throws {
        var limits = ServedLibrary.testLimits
        limits.maxConnections = 2
        limits.requestTimeoutMilliseconds = 5_000
        limits.idleTimeoutMilliseconds = 5_000
        limits.firstRequestTimeoutMilliseconds = 5_000
        let served = try ServedLibrary(limits: limits)
        // Two connections that say nothing hold both places.
        let holders = try (0..<2).map { _ in try RawHTTP.connect(port: served.port) }
        // Until the server counted them, a third may still get in: ask until it is refused.
        var refused: RawResponse?
        _ = ServedLibrary.wait(seconds: 10) {
            guard let answer = try? served.request("GET", "/api/memos"), answer.status == 503 else { return false }
            refused = answer
            return true
        }
        let refusal = try #require(refused, "a third connection was never refused")
        #expect(refusal.text.contains("too many connections") && refusal.headers["connection"]?.lowercased() == "close", "\(refusal.headers)")
        for descriptor in holders { close(descriptor) }
        #expect(ServedLibrary.wait(seconds: 10) { (try? served.request("GET", "/api/memos"))?.status == 200 })
    }

    /// SERVE.md: "30 s idle": a connection that sends nothing (or nothing after a request) is
    /// closed once the idle time is over, so silent connections cannot hold every place for
    /// good. Here with 1 s idle and 2 places: both silent holders are closed by the server, and
    /// a request then gets in.
    @Test func silentConnectionsAreClosedAfterTheIdleTime() throws {
        var limits = ServedLibrary.testLimits
        limits.maxConnections = 2
        limits.idleTimeoutMilliseconds = 1_000
        limits.requestTimeoutMilliseconds = 5_000
        let served = try ServedLibrary(limits: limits)
        let silent = try RawHTTP.connect(port: served.port)
        // One that made a request and then says nothing more.
        let finished = try RawHTTP.connect(port: served.port)
        RawHTTP.send(finished, Array("GET /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\n\(served.tokenLine)\r\n\r\n".utf8))
        #expect(try RawHTTP.readResponse(finished).status == 200)
        for descriptor in [silent, finished] {
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            let started = Date()
            let count = recv(descriptor, &byte, 1, 0)
            #expect(count == 0, "the server did not close an idle connection (recv gave \(count))")
            #expect(Date().timeIntervalSince(started) < 9, "closed only by the test's own timeout")
            close(descriptor)
        }
        #expect(ServedLibrary.wait(seconds: 10) { (try? served.request("GET", "/api/memos"))?.status == 200 })
    }

    /// SERVE.md: `GET /api/memos?offset&limit&q`, newest first, 100 a page (at most 500).
    @Test func theListComesInPagesNewestFirst() throws {
        let served = try ServedLibrary()
        var created: [String] = []
        for index in 0..<120 {
            let memo = try served.json("POST", "/api/memos", "{\"text\":\"memo \(index)\"}")
            created.append(try #require(memo["id"] as? String))
        }
        let first = try served.json("GET", "/api/memos")
        let firstPage = try #require(first["memos"] as? [[String: Any]])
        #expect(first["total"] as? Int == 120 && first["offset"] as? Int == 0 && firstPage.count == 100)
        // Newest first: the last created leads (each POST is a newer change).
        #expect(firstPage.first?["id"] as? String == created.last && firstPage.last?["id"] as? String == created[20])
        let rest = try served.json("GET", "/api/memos?offset=100&limit=50")
        let restPage = try #require(rest["memos"] as? [[String: Any]])
        #expect(rest["offset"] as? Int == 100 && restPage.map { $0["id"] as? String } == created[0..<20].reversed().map { $0 })
        let capped = try served.json("GET", "/api/memos?limit=100000")
        #expect((capped["memos"] as? [Any])?.count == 120)
        let search = try served.json("GET", "/api/memos?q=memo%2011&limit=5")
        #expect((search["memos"] as? [[String: Any]])?.compactMap { $0["title"] as? String }.allSatisfy { $0.hasPrefix("memo 11") } == true)
    }

    /// SERVE.md: the event stream's `Last-Event-ID` resumes: a page that reconnects naming the
    /// last event it saw gets every event after it, and none before.
    @Test func anEventStreamResumesAfterTheLastEventSeen() throws {
        let served = try ServedLibrary()
        /// Opens the stream (resuming after `lastEventID`) and reads until `enough` holds of
        /// the ids received, or 10 s; returns the ids.
        func stream(after lastEventID: Int?, until enough: ([Int]) -> Bool, meanwhile: (_ idsSoFar: Int) throws -> Void = { _ in }) throws -> [Int] {
            let descriptor = try RawHTTP.connect(port: served.port)
            defer { close(descriptor) }
            var text = "GET /api/events HTTP/1.1\r\n"
            for (name, value) in served.postHeaders { text += "\(name): \(value)\r\n" }
            if let lastEventID { text += "Last-Event-ID: \(lastEventID)\r\n" }
            RawHTTP.send(descriptor, Array((text + "\r\n").utf8))
            var received = ""
            var chunk = [UInt8](repeating: 0, count: 65_536)
            var ids: [Int] = []
            var actedAt: Int?
            let deadline = Date(timeIntervalSinceNow: 10)
            while Date() < deadline && !enough(ids) {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                received += String(decoding: chunk[..<count], as: UTF8.self)
                ids = received.split(separator: "\n").compactMap { $0.hasPrefix("id: ") ? Int($0.dropFirst(4)) : nil }
                // Once the stream is open (its first event, the status, arrived), and again each
                // time new ids came, act.
                if received.contains("event: status") && actedAt != ids.count {
                    actedAt = ids.count
                    try meanwhile(ids.count)
                }
            }
            return ids
        }
        // A page sees the events of two new memos, the second made once the first's came.
        let seen = try stream(after: nil, until: { $0.count >= 2 }) { idsSoFar in
            if idsSoFar < 2 { _ = try served.json("POST", "/api/memos", "{\"text\":\"memo \(idsSoFar)\"}") }
        }
        try #require(seen.count >= 2, "\(seen)")
        // Reconnecting after the first of them gives the ones after it, at once.
        let resumed = try stream(after: seen[0], until: { $0.contains(seen.last!) })
        #expect(resumed.first == seen[1] && !resumed.contains(seen[0]), "saw \(seen), resumed with \(resumed)")
        #expect(Array(resumed.prefix(seen.count - 1)) == Array(seen.dropFirst()), "saw \(seen), resumed with \(resumed)")
    }

    /// SERVE.md: `Host` must be the address served, `127.0.0.1:PORT` or `localhost:PORT`
    /// (page and POST alike); the same port under another name is 421.
    @Test func localhostIsAnAcceptedHost() throws {
        let served = try ServedLibrary()
        let local = "localhost:\(served.port)"
        let page = try served.request("GET", "/api/memos", headers: [("Host", local), ("X-Memo-Token", served.token)])
        #expect(page.status == 200, "\(page.status) \(page.text)")
        let post = try served.request(
            "POST", "/api/memos", headers: [("Host", local), ("X-Memo-Token", served.token), ("Origin", "http://\(local)"), ("Content-Type", "application/json")],
            body: #"{"text":"from localhost"}"#)
        #expect(post.status == 200 || post.status == 201, "\(post.status) \(post.text)")
        let other = try served.request("GET", "/api/memos", headers: [("Host", "example.com:\(served.port)"), ("X-Memo-Token", served.token)])
        #expect(other.status == 421)
    }

    /// SERVE.md's numbers for the library and the pages: the folder looked at every 200 ms,
    /// typing saved 300 ms after the last change and at least every second, a sync 2 s after
    /// the last change and at least every 30 s, the newest 10,000 changes kept for pages behind.
    /// SERVE.md: "`--listen` accepts an IPv4 address; pages must use exactly that address (the
    /// `Host` check)": only the loopback address also answers to `localhost`.
    @Test func aListenAddressIsTheOnlyHostAccepted() {
        #expect(ServeSecurity(address: "127.0.0.2", port: 8080).allowedHosts == ["127.0.0.2:8080"])
        #expect(ServeSecurity(address: "192.168.1.5", port: 80).allowedHosts == ["192.168.1.5:80"])
        #expect(ServeSecurity(address: "127.0.0.1", port: 8080).allowedHosts == ["127.0.0.1:8080", "localhost:8080"])
    }

    @Test func theServersTimingsAreTheDocumentedOnes() {
        let configuration = ServeConfiguration(libraryPath: "/nonexistent")
        #expect(configuration.pollMilliseconds == 200)
        #expect(configuration.saveQuietMilliseconds == 300 && configuration.maxUnsavedMilliseconds == 1_000)
        #expect(configuration.syncQuietMilliseconds == 2_000 && configuration.syncIntervalMilliseconds == 30_000)
        #expect(CollabDocument(text: []).historyLimit == 10_000)
    }

    @Test func refusesEachAttackWithNothingChanged() throws {
        let served = try ServedLibrary()
        let created = try served.json("POST", "/api/memos", #"{"text":"keep me"}"#)
        let id = try #require(created["id"] as? String)
        let before = served.host.notebook.list().count
        let attacks: [(String, RawResponse, Int)] = [
            ("no token", try served.request("POST", "/api/memos", headers: [("Host", served.hostHeader), ("Origin", served.origin), ("Content-Type", "application/json")], body: #"{"text":"x"}"#), 403),
            ("the API with the token in a cookie, as before", try served.request("GET", "/api/memos", headers: [("Host", served.hostHeader), ("Cookie", "memo_serve=\(served.token)")]), 403),
            ("another token in the header", try served.request("GET", "/api/memos", headers: [("Host", served.hostHeader), ("X-Memo-Token", String(repeating: "0", count: 64))]), 403),
            ("two token headers", try served.request("GET", "/api/memos", headers: served.pageHeaders + [("X-Memo-Token", "0000")]), 403),
            ("wrong token", try served.request("GET", "/?token=0000", headers: [("Host", served.hostHeader)]), 403),
            ("wrong Host", try served.request("GET", "/api/memos", headers: [("Host", "evil.example:\(served.port)"), ("X-Memo-Token", served.token)]), 421),
            ("DNS rebinding", try served.request("GET", "/?token=\(served.token)", headers: [("Host", "attacker.example")]), 421),
            ("cross-origin POST", try served.request("POST", "/api/memos", headers: served.pageHeaders + [("Origin", "http://evil.example"), ("Content-Type", "application/json")], body: #"{"text":"x"}"#), 403),
            ("POST without Origin", try served.request("POST", "/api/memos/\(id)/trash", headers: served.pageHeaders + [("Content-Type", "application/json")], body: "{}"), 403),
            ("form POST", try served.request("POST", "/api/memos", headers: served.pageHeaders + [("Origin", served.origin), ("Content-Type", "application/x-www-form-urlencoded")], body: "text=x"), 415),
            ("cross-origin event stream", try served.request("GET", "/api/events", headers: served.pageHeaders + [("Origin", "http://evil.example")]), 403),
            ("cross-site event stream", try served.request("GET", "/api/events", headers: served.pageHeaders + [("Sec-Fetch-Site", "cross-site")]), 403),
            ("event stream naming no origin", try served.request("GET", "/api/events", headers: served.pageHeaders), 403),
            ("same-site event stream", try served.request("GET", "/api/events", headers: served.pageHeaders + [("Sec-Fetch-Site", "same-site")]), 403),
            ("a body that is not JSON", try served.request("POST", "/api/memos", body: "text=x"), 400),
            ("the script from another Host", try served.request("GET", "/app.js", headers: [("Host", "evil.example:\(served.port)")]), 421),
            ("held-back text without the token", try served.request("GET", "/api/held-back", headers: [("Host", served.hostHeader)]), 403),
            ("held-back text to another Host", try served.request("GET", "/api/held-back", headers: [("Host", "evil.example:\(served.port)"), ("X-Memo-Token", served.token)]), 421),
            ("held-back restore without the token", try served.request("POST", "/api/held-back/restore", headers: [("Host", served.hostHeader), ("Origin", served.origin), ("Content-Type", "application/json")], body: "{}"), 403),
            ("cross-origin held-back restore", try served.request("POST", "/api/held-back/restore", headers: served.pageHeaders + [("Origin", "http://evil.example"), ("Content-Type", "application/json")], body: "{}"), 403),
            ("held-back restore without Origin", try served.request("POST", "/api/held-back/restore", headers: served.pageHeaders + [("Content-Type", "application/json")], body: "{}"), 403),
            ("the event stream without the token", try served.request("GET", "/api/events", headers: [("Host", served.hostHeader), ("Origin", served.origin), ("Sec-Fetch-Site", "same-origin")]), 403),
            ("the API with the token in its query, without the token", try served.request("GET", "/api/memos?token=\(served.token)", headers: [("Host", served.hostHeader)]), 403),
            ("two Host headers", try served.request("GET", "/api/memos", headers: [("Host", served.hostHeader), ("Host", "evil.example:\(served.port)"), ("X-Memo-Token", served.token)]), 421),
            ("two Origin headers", try served.request("POST", "/api/memos", headers: served.pageHeaders + [("Origin", served.origin), ("Origin", "http://evil.example"), ("Content-Type", "application/json")], body: #"{"text":"x"}"#), 403),
            ("a sync whose body is not JSON", try served.request("POST", "/api/sync", body: "x"), 400),
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
        #expect(try served.json("GET", "/api/held-back")["memos"] as? [Any] != nil, "the held-back texts served to the page")
        #expect(try served.json("POST", "/api/held-back/restore", "{}")["restored"] as? [Any] != nil, "the restore served to the page")
    }

    /// SERVE.md: "a request head of 16 KiB (431)": a head of exactly 16,384 bytes, its blank line
    /// included, is served; one byte more is refused.
    @Test func aHeadOf16KiBIsServedAndOneByteMoreIsNot() throws {
        let served = try ServedLibrary()
        func head(totalBytes: Int) -> [UInt8] {
            let start = "GET /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\n\(served.tokenLine)\r\nX-Pad: "
            let end = "\r\n\r\n"
            return Array((start + String(repeating: "a", count: totalBytes - start.utf8.count - end.utf8.count) + end).utf8)
        }
        for (bytes, status) in [(16_384, 200), (16_385, 431)] {
            let connection = try RawHTTP.connect(port: served.port)
            let request = head(totalBytes: bytes)
            #expect(request.count == bytes)
            RawHTTP.send(connection, request)
            #expect(try RawHTTP.readResponse(connection).status == status, "\(bytes) bytes")
            close(connection)
        }
    }

    /// A client that sends a body over the bound whole, as most clients do before they read,
    /// finishes sending and reads the 413: the server drops what still arrives before it closes.
    /// Closed at once, the server's socket answered the rest of the body with a reset, and the
    /// client's send failed ("connection reset", "broken pipe": what curl then reports instead
    /// of the refusal).
    @Test func aBodyOverTheBoundSentWholeStillReadsItsRefusal() throws {
        // The shipped bound (4 MiB), larger than the sockets' buffers.
        var limits = ServedLibrary.testLimits
        limits.maxBodyBytes = HTTPLimits().maxBodyBytes
        let served = try ServedLibrary(limits: limits)
        let limit = limits.maxBodyBytes
        for attempt in 0..<6 {
            let connection = try RawHTTP.connect(port: served.port)
            let body = [UInt8](repeating: UInt8(ascii: "a"), count: limit + 1)
            let head = "POST /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\n\(served.tokenLine)\r\nOrigin: \(served.origin)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
            let request = Array(head.utf8) + body
            let sent = DispatchSemaphore(value: 0)
            let sentBytes = Mutex(0)
            let sender = Thread {
                let count = RawHTTP.sendCounting(connection, request)
                sentBytes.withLock { $0 = count }
                sent.signal()
            }
            sender.start()
            // Read only once the sender has had time to fill the socket's buffers.
            Thread.sleep(forTimeInterval: 0.05)
            let response = Result { try RawHTTP.readResponse(connection) }
            // The socket is closed only once the sender is done with it (its number could
            // otherwise go to another test's socket while the sender still writes).
            sent.wait()
            close(connection)
            #expect(try response.get().status == 413, "attempt \(attempt)")
            #expect(sentBytes.withLock { $0 } == request.count, "attempt \(attempt): the client could not send its whole request")
        }
        #expect(try served.request("GET", "/api/memos").status == 200)
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
        RawHTTP.send(large, Array("POST /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\n\(served.tokenLine)\r\nOrigin: \(served.origin)\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{".utf8))
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
