// What an exploratory test of `memo serve` found (SERVE.md, "Between the page and the engine" and
// "Safe on a shared machine"): an edit with a huge count crashed the server; wrong JSON types
// were taken as something else; an edit of an earlier run's revision was applied to this run's
// text; two servers' cookies overwrote each other (and every server of the host got the token);
// silent connections held every place for 30 s.
// Each is refused now with nothing changed, and the server goes on serving.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MemoServe
import MemoSync
import Testing

@Suite(.serialized) struct ServeRobustnessTests {

    /// A memo holding `text`, opened as a page opens it: its id and the run its revisions
    /// belong to.
    static func openedMemo(_ served: ServedLibrary, text: String) throws -> (id: String, run: String) {
        let created = try served.json("POST", "/api/memos", String(decoding: try JSONSerialization.data(withJSONObject: ["text": text]), as: UTF8.self))
        let id = try #require(created["id"] as? String, "\(created)")
        let opened = try served.json("GET", "/api/memos/\(id)")
        #expect(opened["revision"] as? Int == 0)
        return (id, opened["run"] as? String ?? "")
    }

    static func body(_ response: RawResponse) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]) ?? [:]
    }

    /// An edit whose counts overflow `Int` when added up (or negated) once trapped the server
    /// (`TextOperation.retain`, `-number`), losing the edits it had answered and not saved yet.
    /// Each is refused 400 "malformedEdit", the text is unchanged, and the server goes on.
    @Test func anEditWithHugeCountsIsRefusedAndTheServerGoesOn() throws {
        let served = try ServedLibrary()
        let (id, run) = try Self.openedMemo(served, text: "hello")
        let operations = [
            "[9223372036854775807,1]", "[-9223372036854775808]", #"[9223372036854775807,"X"]"#, #"[2,-9223372036854775807,"Y"]"#,
            "[5,9223372036854775807]", "[4294967296]", "[-4294967296]", "[4294967295,4294967295]", "[1,-4294967295,4294967295]",
            "[0,5]", "[1.5,4]", "[5e300]",
        ]
        for operation in operations {
            let refused = try served.request("POST", "/api/memos/\(id)/edits", body: #"{"run":"\#(run)","revision":0,"operation":\#(operation),"client":"x"}"#)
            #expect(refused.status == 400, "\(operation): \(refused.status) \(refused.text)")
            #expect(Self.body(refused)["code"] as? String == "malformedEdit", "\(operation): \(refused.text)")
            #expect(served.host.notebook.memo(MemoID(id)!)?.text == "hello", "\(operation)")
        }
        // Still serving, and still at revision 0: the next edit applies.
        let typed = try served.request("POST", "/api/memos/\(id)/edits", body: #"{"run":"\#(run)","revision":0,"operation":[5,"!"],"client":"x"}"#)
        #expect(typed.status == 200, "\(typed.text)")
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "hello!")
        #expect(try served.request("GET", "/api/memos").status == 200)
    }

    /// A value of the wrong JSON type was taken as something else (`true` as 1, a number or
    /// null as an empty text, 5 as English): each is refused 400 with its code and a message
    /// in the request's language, and nothing is created or changed.
    @Test func wrongJSONTypesAreRefusedWithNothingChanged() throws {
        let served = try ServedLibrary()
        for body in [#"{"text":5}"#, #"{"text":{"x":1}}"#, #"{"text":null}"#, "{}", #"{"text":true}"#, #"{"text":["a"]}"#] {
            let refused = try served.request("POST", "/api/memos", body: body)
            #expect(refused.status == 400, "\(body): \(refused.status)")
            #expect(Self.body(refused)["code"] as? String == "malformedMemo", "\(body): \(refused.text)")
        }
        #expect(try served.json("GET", "/api/memos")["total"] as? Int == 0, "a memo was created")
        let (id, run) = try Self.openedMemo(served, text: "abc")
        let edits = [
            #"{"run":"\#(run)","revision":0,"operation":[true,"y",2],"client":"x"}"#,
            #"{"run":"\#(run)","revision":true,"operation":["y",3],"client":"x"}"#,
            #"{"run":"\#(run)","revision":"0","operation":["y",3],"client":"x"}"#,
            #"{"run":"\#(run)","revision":-1,"operation":["y",3],"client":"x"}"#,
            #"{"run":"\#(run)","revision":0,"operation":[null,"y",3],"client":"x"}"#,
            #"{"run":"\#(run)","revision":0,"operation":"y","client":"x"}"#,
            #"{"run":"\#(run)","revision":0,"operation":[{"n":3},"y"],"client":"x"}"#,
            #"{"run":"\#(run)","revision":0,"operation":["y",3],"client":5}"#,
            #"{"run":"\#(run)","revision":0,"operation":["y",3]}"#,
            #"{"run":5,"revision":0,"operation":["y",3],"client":"x"}"#,
            #"{"revision":0,"operation":["y",3],"client":"x"}"#,
        ]
        for edit in edits {
            let refused = try served.request("POST", "/api/memos/\(id)/edits", body: edit)
            #expect(refused.status == 400, "\(edit): \(refused.status) \(refused.text)")
            #expect(Self.body(refused)["code"] as? String == "malformedEdit", "\(edit): \(refused.text)")
        }
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "abc")
        // The refusal speaks the request's language (Accept-Language), else English.
        let korean = try served.request("POST", "/api/memos/\(id)/edits", headers: served.postHeaders + [("Accept-Language", "ko-KR,ko;q=0.9")], body: edits[0])
        #expect(Self.body(korean)["error"] as? String == ServeText.catalogs["ko"]?["error.malformedEdit"])
        let japanese = try served.request("POST", "/api/memos", headers: served.postHeaders + [("Accept-Language", "ja")], body: "{}")
        #expect(Self.body(japanese)["error"] as? String == ServeText.catalogs["ja"]?["error.malformedMemo"])
        let english = try served.request("POST", "/api/memos", headers: served.postHeaders + [("Accept-Language", "fr-FR")], body: "{}")
        #expect(Self.body(english)["error"] as? String == ServeText.catalogs["en"]?["error.malformedMemo"])
        // The held-back restore's language must be a text.
        let language = try served.request("POST", "/api/held-back/restore", body: #"{"language":5}"#)
        #expect(language.status == 400 && Self.body(language)["code"] as? String == "malformedLanguage", "\(language.status) \(language.text)")
        #expect(try served.request("POST", "/api/held-back/restore", body: #"{"language":"ko"}"#).status == 200)
        // An edit of a memo this library does not have: 404, not "changed too much meanwhile".
        let missing = try served.request(
            "POST", "/api/memos/0123456789abcdef0123456789abcdef/edits", body: #"{"run":"\#(run)","revision":0,"operation":["y"],"client":"x"}"#)
        #expect(missing.status == 404, "\(missing.status) \(missing.text)")
        #expect(Self.body(missing)["reload"] as? Bool == false)
        #expect(try served.json("GET", "/api/memos")["total"] as? Int == 1)
    }

    /// Revisions restart at 0 each run: an edit made on an earlier run's revision 0 was applied
    /// to this run's text. The page gets the run with the memo and sends it back; an edit of
    /// another run is refused 409 ("staleRun", reload) with nothing changed, here across a real
    /// restart of the host on the same library.
    @Test func anEditOfAnEarlierRunIsRefusedAndTheMemoReloads() throws {
        let served = try ServedLibrary()
        try withExtendedLifetime(served) {
            let (id, firstRun) = try Self.openedMemo(served, text: "abcdef")
            #expect(!firstRun.isEmpty, "GET /api/memos/ID names no run")
            // The status event names the run too (a page whose stream reconnects to a later
            // run reloads).
            let status = try #require(try JSONSerialization.jsonObject(with: Data(served.host.statusJSON.utf8)) as? [String: Any])
            #expect(status["run"] as? String == firstRun)
            served.server.stop()
            served.host.stop()
            // The next run, on the same library.
            var configuration = ServeConfiguration(libraryPath: served.folder)
            configuration.pollMilliseconds = 50
            let host = try LibraryHost(configuration: configuration, syncer: nil)
            defer { host.stop() }
            let app = ServeApp(host: host, security: ServeSecurity(address: "127.0.0.1", port: 1))
            let headers = [
                (name: "host", value: "127.0.0.1:1"), (name: "x-memo-token", value: app.security.token),
                (name: "origin", value: "http://127.0.0.1:1"), (name: "content-type", value: "application/json"),
            ]
            func send(_ method: String, _ path: String, _ body: String = "") -> (status: Int, json: [String: Any]) {
                guard case let .response(response) = app.handle(HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8))) else {
                    return (0, [:])
                }
                return (response.status, ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]) ?? [:])
            }
            let reopened = send("GET", "/api/memos/\(id)")
            #expect(reopened.status == 200 && reopened.json["revision"] as? Int == 0 && reopened.json["text"] as? String == "abcdef")
            let secondRun = try #require(reopened.json["run"] as? String)
            #expect(secondRun != firstRun)
            // Deleting "abc" on the first run's revision 0.
            let stale = send("POST", "/api/memos/\(id)/edits", #"{"run":"\#(firstRun)","revision":0,"operation":[-3,3],"client":"x"}"#)
            #expect(stale.status == 409, "\(stale)")
            #expect(stale.json["reload"] as? Bool == true && stale.json["code"] as? String == "staleRun", "\(stale)")
            #expect(host.notebook.memo(MemoID(id)!)?.text == "abcdef")
            // The same edit on this run's revision 0 applies.
            let fresh = send("POST", "/api/memos/\(id)/edits", #"{"run":"\#(secondRun)","revision":0,"operation":[-3,3],"client":"x"}"#)
            #expect(fresh.status == 200, "\(fresh)")
            #expect(host.notebook.memo(MemoID(id)!)?.text == "def")
        }
    }

    /// Cookies belong to the host, not the port: under one name two servers on one machine
    /// overwrote each other's cookie and logged each other's pages out, and the browser sent it to
    /// every other server of the host. No cookie carries the token now: the page sends it in its
    /// header, and each server takes only its own.
    @Test func twoServersOnOneHostShareNoCookieAndNoToken() throws {
        let one = try ServedLibrary(), two = try ServedLibrary()
        for served in [one, two] {
            let visit = try served.request("GET", "/?token=\(served.token)", headers: [("Host", served.hostHeader)])
            #expect(visit.status == 303 && visit.headers["set-cookie"] == nil, "\(visit.headers)")
            #expect(visit.headers["location"] == "/#token=\(served.token)")
            #expect(try served.request("GET", "/api/memos").status == 200)
        }
        // The other server's token opens nothing, in the header or in a cookie.
        #expect(try one.request("GET", "/api/memos", headers: [("Host", one.hostHeader), ("X-Memo-Token", two.token)]).status == 403)
        #expect(try one.request("GET", "/api/memos", headers: [("Host", one.hostHeader), ("Cookie", "memo_serve=\(one.token)")]).status == 403)
    }

    /// The address given to the browser opener is on its command line, which other users of
    /// the machine can read: its token is good for one visit (the page gets the run's token), then refused, while
    /// the printed address's token stays good.
    @Test func theOpenersTokenIsGoodForOneVisit() throws {
        let served = try ServedLibrary()
        let security = served.app.security
        #expect(security.openerToken != security.token && security.openerToken.count == 64 && security.openerToken.allSatisfy(\.isHexDigit))
        let first = try served.request("GET", "/?token=\(security.openerToken)", headers: [("Host", served.hostHeader)])
        #expect(first.status == 303 && first.headers["location"] == "/#token=\(served.token)", "\(first.status) \(first.headers)")
        let again = try served.request("GET", "/?token=\(security.openerToken)", headers: [("Host", served.hostHeader)])
        #expect(again.status == 403 && again.headers["location"] == nil, "\(again.status)")
        // Not a token anywhere else either.
        #expect(try served.request("GET", "/api/memos", headers: [("Host", served.hostHeader), ("X-Memo-Token", security.openerToken)]).status == 403)
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
        let get = "GET /api/memos HTTP/1.1\r\nHost: \(served.hostHeader)\r\n\(served.tokenLine)\r\n\r\n"
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
        RawHTTP.send(plain, Array("GET /api/memos HTTP/1.0\r\nHost: \(served.hostHeader)\r\n\(served.tokenLine)\r\n\r\n".utf8))
        let answer = try RawHTTP.readResponse(plain)
        #expect(answer.status == 200 && answer.headers["connection"]?.lowercased() == "close", "\(answer.status) \(answer.headers)")
        #expect(Self.closedByServer(plain, within: 2), "an HTTP/1.0 connection stayed open")
        close(plain)
        let kept = try RawHTTP.connect(port: served.port)
        defer { close(kept) }
        let get = "GET /api/memos HTTP/1.0\r\nHost: \(served.hostHeader)\r\n\(served.tokenLine)\r\nConnection: keep-alive\r\n\r\n"
        RawHTTP.send(kept, Array(get.utf8))
        let first = try RawHTTP.readResponse(kept)
        #expect(first.status == 200 && first.headers["connection"]?.lowercased() == "keep-alive", "\(first.headers)")
        RawHTTP.send(kept, Array(get.utf8))
        #expect(try RawHTTP.readResponse(kept).status == 200)
    }
}
