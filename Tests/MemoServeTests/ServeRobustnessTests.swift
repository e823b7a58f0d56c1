// What an exploratory test of `memo serve` found (SERVE.md, "Safe on a shared machine"): two
// servers' cookies overwrote each other; the opener's token stayed good for the whole run; silent
// connections held every place for 30 s. Each is refused now, and the server goes on serving.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MemoServe
import MemoSync
import Testing

@Suite(.serialized) struct ServeRobustnessTests {
    /// Cookies belong to the host, not the port: under one name two servers on one machine
    /// overwrote each other's and logged each other's pages out. Each server's cookie is named
    /// with its port; a browser sends both to each, and each takes its own.
    @Test func twoServersCookiesDoNotOverwriteEachOther() throws {
        let one = try ServedLibrary(), two = try ServedLibrary()
        func cookieName(_ served: ServedLibrary) throws -> (name: String, value: String) {
            let visit = try served.request("GET", "/?token=\(served.token)", headers: [("Host", served.hostHeader)])
            #expect(visit.status == 303)
            let cookie = try #require(visit.headers["set-cookie"])
            let pair = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1))
            return (String(pair[0]), String(pair[1]))
        }
        let first = try cookieName(one), second = try cookieName(two)
        #expect(first.name == "memo_serve_\(one.port)" && second.name == "memo_serve_\(two.port)")
        #expect(first.name != second.name)
        // What the browser sends to either: both cookies.
        let both = "\(second.name)=\(second.value); \(first.name)=\(first.value)"
        for served in [one, two] {
            #expect(try served.request("GET", "/api/memos", headers: [("Host", served.hostHeader), ("Cookie", both)]).status == 200)
        }
        // The other server's cookie alone opens nothing.
        #expect(try one.request("GET", "/api/memos", headers: [("Host", one.hostHeader), ("Cookie", "\(second.name)=\(second.value)")]).status == 403)
    }

    /// The address given to the browser opener is on its command line, which other users of
    /// the machine can read: its token is good for one visit (the cookie), then refused, while
    /// the printed address's token stays good.
    @Test func theOpenersTokenIsGoodForOneVisit() throws {
        let served = try ServedLibrary()
        let security = served.app.security
        #expect(security.openerToken != security.token && security.openerToken.count == 64 && security.openerToken.allSatisfy(\.isHexDigit))
        let first = try served.request("GET", "/?token=\(security.openerToken)", headers: [("Host", served.hostHeader)])
        #expect(first.status == 303 && first.headers["set-cookie"]?.hasPrefix(served.cookie + ";") == true, "\(first.status) \(first.headers)")
        let again = try served.request("GET", "/?token=\(security.openerToken)", headers: [("Host", served.hostHeader)])
        #expect(again.status == 403 && again.headers["set-cookie"] == nil, "\(again.status)")
        // Not a token anywhere else either.
        #expect(try served.request("GET", "/api/memos", headers: [("Host", served.hostHeader), ("Cookie", "\(security.cookieName)=\(security.openerToken)")]).status == 403)
        // The printed address's token, as often as asked.
        for _ in 0..<2 {
            #expect(try served.request("GET", "/?token=\(served.token)", headers: [("Host", served.hostHeader)]).status == 303)
        }
    }

    /// Reads until the server closes the connection: true when it did within `seconds`.
    static func closedByServer(_ descriptor: Int32, within seconds: Double) -> Bool {
        var timeout = timeval(tv_sec: Int(seconds) + 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let started = Date()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            return count == 0 && Date().timeIntervalSince(started) < seconds
        }
    }

    /// Any local process, without the token, could hold every connection for the 30 s idle
    /// time and repeat it forever. A connection's first request must arrive within 3 s of the
    /// accept, and a request refused for its token closes its connection.
    @Test func connectionsWithoutARequestOrTheTokenAreClosedSoon() throws {
        var limits = ServedLibrary.testLimits
        limits.idleTimeoutMilliseconds = 30_000
        let served = try ServedLibrary(limits: limits)
        // Nothing sent: closed after the first request's 3 s, not the 30 s idle time.
        let silent = try RawHTTP.connect(port: served.port)
        #expect(Self.closedByServer(silent, within: 6), "a connection that sent nothing stayed open")
        close(silent)
        // A request without the token: refused, and the connection closed at once.
        let refused = try RawHTTP.connect(port: served.port)
        RawHTTP.send(refused, Array("GET /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\n\r\n".utf8))
        let refusal = try RawHTTP.readResponse(refused)
        #expect(refusal.status == 403 && refusal.headers["connection"]?.lowercased() == "close", "\(refusal.status) \(refusal.headers)")
        #expect(Self.closedByServer(refused, within: 2), "a refused connection stayed open")
        close(refused)
        // A page's keep-alive connection stays open past the first request's time.
        let page = try RawHTTP.connect(port: served.port)
        defer { close(page) }
        let get = "GET /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\nCookie: \(served.cookie)\r\n\r\n"
        RawHTTP.send(page, Array(get.utf8))
        #expect(try RawHTTP.readResponse(page).status == 200)
        usleep(3_500_000)
        RawHTTP.send(page, Array(get.utf8))
        #expect(try RawHTTP.readResponse(page).status == 200)
    }

    /// An HTTP/1.0 request without `Connection: keep-alive` kept its connection open for the
    /// idle time; it is closed after the response. With keep-alive it stays open, and says so.
    @Test func http10ConnectionsCloseUnlessKeptAlive() throws {
        var limits = ServedLibrary.testLimits
        limits.idleTimeoutMilliseconds = 30_000
        let served = try ServedLibrary(limits: limits)
        let plain = try RawHTTP.connect(port: served.port)
        RawHTTP.send(plain, Array("GET /api/memos HTTP/1.0\r\nHost: \(served.hostHeader)\r\nCookie: \(served.cookie)\r\n\r\n".utf8))
        let answer = try RawHTTP.readResponse(plain)
        #expect(answer.status == 200 && answer.headers["connection"]?.lowercased() == "close", "\(answer.status) \(answer.headers)")
        #expect(Self.closedByServer(plain, within: 2), "an HTTP/1.0 connection stayed open")
        close(plain)
        let kept = try RawHTTP.connect(port: served.port)
        defer { close(kept) }
        let get = "GET /api/memos HTTP/1.0\r\nHost: \(served.hostHeader)\r\nCookie: \(served.cookie)\r\nConnection: keep-alive\r\n\r\n"
        RawHTTP.send(kept, Array(get.utf8))
        let first = try RawHTTP.readResponse(kept)
        #expect(first.status == 200 && first.headers["connection"]?.lowercased() == "keep-alive", "\(first.headers)")
        RawHTTP.send(kept, Array(get.utf8))
        #expect(try RawHTTP.readResponse(kept).status == 200)
    }
}
