// The app `memo serve` serves: the security checks every request passes, the page's files, and
// the JSON API (SERVE.md lists every route).

import Foundation
import MemoSync
import Synchronization

/// The security checks of `memo serve` (SERVE.md, "Safe on a shared machine").
public struct ServeSecurity: Sendable {
    /// The per-start secret: in the address printed; the first visit hands it to the page in the
    /// address's fragment (`/#token=`, never sent to a server), and the page keeps it in its
    /// session storage (this origin's: this host and port only) and sends it in the
    /// ``tokenHeader`` header of every request. No cookie carries it: a cookie is the host's,
    /// not the port's, and went to every other server on 127.0.0.1.
    public let token: String
    /// The header a page sends the token in ("X-Memo-Token"; lowercase, as requests hold names).
    public static let tokenHeader = "x-memo-token"
    /// The `Host` values accepted ("127.0.0.1:8080", "localhost:8080").
    public let allowedHosts: Set<String>
    /// The token of the address given to the browser opener (`$BROWSER`, `xdg-open`): a command
    /// line, which other users of the machine can read while it runs (`/proc/PID/cmdline`).
    /// It is good for one visit, which gives the page ``token``, and refused afterwards,
    /// so a token read from a command line later is worthless. The address printed keeps
    /// ``token``, good for the whole run (a second browser, a page opened again).
    public let openerToken: String
    private let openerTicket = OpenerTicket()

    /// A fresh random token, and the hosts of `address:port` (with `localhost` for a loopback
    /// address).
    public init(address: String, port: UInt16, token: String? = nil) {
        var generator = SystemRandomNumberGenerator()
        self.token = token ?? (0..<4).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(16) }.joined()
        openerToken = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(16) }.joined()
        var hosts: Set<String> = ["\(address):\(port)"]
        if address == "127.0.0.1" { hosts.insert("localhost:\(port)") }
        allowedHosts = hosts
    }

    /// Why `request` is refused, or nil. `stateChanging`: a request that changes something or
    /// opens the event stream, which must come from the app's own origin. `pageFile`: one of the
    /// page's own files (the page, its script, style and texts), which hold no memo and are
    /// served without the token, so that a page reloaded from `/` finds its token again.
    /// A refusal closes its connection (``HTTPResponse/closesConnection``): a client without the
    /// token keeps no idle connection, and with it a place among the server's connections.
    func refusal(_ request: HTTPRequest, stateChanging: Bool, pageFile: Bool) -> HTTPResponse? {
        guard var refusal = openRefusal(request, stateChanging: stateChanging, pageFile: pageFile) else { return nil }
        refusal.closesConnection = true
        return refusal
    }

    private func openRefusal(_ request: HTTPRequest, stateChanging: Bool, pageFile: Bool) -> HTTPResponse? {
        guard request.headerCount("host") == 1, let host = request.header("host"), allowedHosts.contains(host.lowercased()) else {
            return .text(421, "this server answers only to its own address\n")
        }
        let origin = request.headers.filter { $0.name == "origin" }
        if origin.count > 1 { return .text(403, "cross-origin requests are refused\n") }
        if let origin = origin.first?.value, !allowedHosts.contains(where: { "http://" + $0 == origin.lowercased() }) {
            return .text(403, "cross-origin requests are refused\n")
        }
        if stateChanging && origin.isEmpty {
            // A browser names the origin of every POST; an event stream opened by the page is
            // same-origin (Fetch Metadata), never a cross-site one.
            let site = request.header("sec-fetch-site")
            guard request.method == "GET", site == "same-origin" else { return .text(403, "cross-origin requests are refused\n") }
        }
        if request.path == "/", let given = request.query["token"] {
            if constantTimeEqual(given, token) { return nil }
            if constantTimeEqual(given, openerToken) {
                guard openerTicket.take() else {
                    return .text(403, "this address opened the browser once already; open the address memo serve printed\n")
                }
                return nil
            }
            return .text(403, "open the address memo serve printed (it holds the access token)\n")
        }
        if pageFile { return nil }
        guard request.headerCount(Self.tokenHeader) == 1, let given = request.header(Self.tokenHeader), constantTimeEqual(given, token) else {
            return .text(403, "open the address memo serve printed (it holds the access token)\n")
        }
        return nil
    }

    private func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// The browser opener's address, used or not (``ServeSecurity/openerToken``).
final class OpenerTicket: Sendable {
    private let used = Mutex(false)

    /// True the first time only.
    func take() -> Bool {
        used.withLock { used in
            defer { used = true }
            return !used
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// `POST /api/memos`: the new memo's text.
struct NewMemoBody: Decodable {
    var text: String
}

/// `POST /api/memos/ID/edits`: an operation made on `revision` of run `run` (``LibraryHost/runID``)
/// by the page `client`.
struct EditBody: Decodable {
    var run: String
    var revision: Int
    var operation: [JSON.OperationElement]
    var client: String
}

/// `POST /api/held-back/restore`: the language of the first lines naming a memo's title (English
/// when absent or without a catalog).
struct RestoreBody: Decodable {
    var language: String?
}

/// The app: routes every request.
public final class ServeApp: Sendable {
    public let host: LibraryHost
    public let security: ServeSecurity
    /// How long an event stream waits before a keep-alive comment.
    let heartbeatMilliseconds: Int

    public init(host: LibraryHost, security: ServeSecurity, heartbeatMilliseconds: Int = 15_000) {
        self.host = host
        self.security = security
        self.heartbeatMilliseconds = heartbeatMilliseconds
    }

    /// Answers `request`.
    public func handle(_ request: HTTPRequest) -> HTTPReply {
        let changing = !(request.method == "GET" || request.method == "HEAD") || request.path == "/api/events"
        if let refusal = security.refusal(request, stateChanging: changing, pageFile: PageAssets.files[request.path] != nil) {
            return .response(refusal)
        }
        if request.path == "/" && request.query["token"] != nil {
            // The token (this run's, for the opener's single-use one too) goes to the page in
            // the fragment, which no request carries; the page keeps it and drops it from the
            // address bar.
            return .response(HTTPResponse(status: 303, headers: [("Location", "/#token=\(security.token)")]))
        }
        if let asset = PageAssets.files[request.path] {
            guard request.method == "GET" || request.method == "HEAD" else { return .response(.text(405, "method not allowed\n")) }
            return .response(HTTPResponse(status: 200, headers: [("Content-Type", asset.type)], body: Array(asset.body.utf8)))
        }
        guard request.path.hasPrefix("/api/") else { return .response(.text(404, "not found\n")) }
        if request.path == "/api/events" {
            guard request.method == "GET" else { return .response(.text(405, "method not allowed\n")) }
            return eventStream(request)
        }
        do throws(ServeFailure) {
            return .response(try api(request))
        } catch {
            var body: [String: Any] = ["error": error.message, "reload": error.reload]
            if let code = error.code { body["code"] = code }
            if let count = error.count { body["count"] = count }
            return .response(Self.json(error.status, body))
        }
    }

    static func json(_ status: Int, _ value: Any) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(JSON.encode(value).utf8))
    }

    private func api(_ request: HTTPRequest) throws(ServeFailure) -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)   // ["api", ...]
        let method = request.method
        if method != "GET" && method != "HEAD" {
            guard request.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
                throw ServeFailure(status: 415, message: "JSON only")
            }
        }
        switch (method, parts.count > 1 ? parts[1] : "", parts.count) {
        case ("GET", "memos", 2):
            return Self.json(200, list(request, trash: false))
        case ("GET", "trash", 2):
            return Self.json(200, list(request, trash: true))
        case ("POST", "memos", 2):
            let body = try decode(NewMemoBody.self, request, refusal: "error.malformedMemo", code: "malformedMemo")
            let id = try host.create(text: body.text)
            return Self.json(200, ["id": id.description])
        case ("GET", "memos", 3):
            let id = try memoID(parts[2])
            let (text, revision, memo) = try host.openDocument(id)
            let notebook = host.notebook
            return Self.json(200, [
                "id": id.description, "text": text, "revision": revision, "run": host.runID, "status": Self.status(memo.status),
                "canUndo": notebook.canUndo(id), "canRedo": notebook.canRedo(id), "modified": memo.modifiedAt.wallMilliseconds,
            ])
        case ("GET", "memos", 4) where parts[3] == "export":
            let id = try memoID(parts[2])
            guard let memo = host.notebook.memo(id), memo.status != .purged else { throw ServeFailure(status: 404, message: "no such memo") }
            let name = Self.fileName(memo.title)
            return HTTPResponse(status: 200, headers: [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Disposition", "attachment; filename=\"memo.txt\"; filename*=UTF-8''" + Self.percentEncoded(name)),
            ], body: Array(memo.plainText.utf8))
        case ("GET", "memos", 4) where parts[3] == "changes":
            // What a page missed since the revision it heard of (SERVE.md, "Reloading keeps the typing").
            let id = try memoID(parts[2])
            guard let since = request.query["since"].flatMap({ Int($0) }), since >= 0, let run = request.query["run"] else {
                throw ServeFailure(
                    status: 400, message: ServeText.text("error.malformedChanges", acceptLanguage: request.header("accept-language")),
                    code: "malformedChanges")
            }
            let (revision, changes, memo) = try host.documentChanges(id, since: since, run: run)
            return Self.json(200, [
                "revision": revision, "status": Self.status(memo.status), "modified": memo.modifiedAt.wallMilliseconds,
                "changes": changes.map { ["revision": $0.revision, "operation": JSON.operation($0.operation), "client": $0.client] },
            ] as [String: Any])
        case ("GET", "memos", 4) where parts[3] == "history":
            let id = try memoID(parts[2])
            return Self.json(200, try historyList(id))
        case ("GET", "memos", 5) where parts[3] == "history":
            let id = try memoID(parts[2])
            return Self.json(200, try historyVersion(id, named: parts[4], compare: request.query["compare"] ?? "current"))
        case ("POST", "memos", 4):
            let id = try memoID(parts[2])
            let body = try object(request)
            switch parts[3] {
            case "revert":
                guard let name = body["version"] as? String else { throw ServeFailure(status: 400, message: "a malformed body") }
                try host.revert(id, toVersionNamed: name)
                return Self.json(200, ["ok": true])
            case "edits":
                let malformed = ServeFailure(
                    status: 400, message: ServeText.text("error.malformedEdit", acceptLanguage: request.header("accept-language")), code: "malformedEdit")
                let edit = try decode(EditBody.self, request, refusal: "error.malformedEdit", code: "malformedEdit")
                guard edit.revision >= 0, edit.client.utf8.count <= 64, let operation = JSON.operation(from: edit.operation) else { throw malformed }
                let revision = try host.edit(id, operation: operation, base: edit.revision, run: edit.run, client: edit.client)
                return Self.json(200, ["revision": revision])
            case "undo", "redo":
                try host.undo(id, redo: parts[3] == "redo")
                return Self.json(200, ["ok": true])
            case "trash", "restore", "purge":
                try host.setStatus(id, to: parts[3])
                return Self.json(200, ["ok": true])
            default:
                throw ServeFailure(status: 404, message: "not found")
            }
        case ("POST", "sync", 2):
            // Every POST carries a JSON object (SERVE.md), this one an empty one.
            _ = try object(request)
            host.syncSoon()
            return Self.json(200, ["ok": true])
        case ("GET", "held-back", 2):
            return Self.json(200, host.heldBackJSON)
        case ("POST", "held-back", 3) where parts[2] == "restore":
            let body = try decode(RestoreBody.self, request, refusal: "error.malformedLanguage", code: "malformedLanguage")
            return Self.json(200, try host.restoreHeldBackTexts(language: body.language ?? "en"))
        case ("GET", "status", 2):
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(host.statusJSON.utf8))
        default:
            throw ServeFailure(status: 404, message: "not found")
        }
    }

    /// A memo's versions, oldest first, for the history panel's slider (SERVE.md, "History").
    private func historyList(_ id: MemoID) throws(ServeFailure) -> [String: Any] {
        let (history, own) = try host.history(of: id)
        return [
            "id": id.description,
            "versions": history.versions.map { version -> [String: Any] in
                [
                    "version": version.shortName, "device": version.device.description, "thisDevice": own.contains(version.device),
                    "time": version.wallMilliseconds, "inserted": version.insertedCount, "deleted": version.deletedCount,
                ]
            },
        ]
    }

    /// The text of a memo at its version named `name`, as passages marked against the current
    /// text or the version before (`MemoHistory.marked(_:comparedWith:)`).
    private func historyVersion(_ id: MemoID, named name: String, compare: String) throws(ServeFailure) -> [String: Any] {
        let baseline: MemoHistory.Baseline
        switch compare {
        case "current": baseline = .current
        case "previous": baseline = .previousVersion
        default: throw ServeFailure(status: 400, message: "compare is current or previous")
        }
        let (history, _) = try host.history(of: id)
        guard let version = history.version(named: name) else {
            throw ServeFailure(status: 404, message: ServeText.text("history.noSuchVersion"), code: "noSuchVersion")
        }
        let passages: [MemoHistory.MarkedPassage]
        do throws(ReplicaError) {
            passages = try history.marked(version, comparedWith: baseline)
        } catch {
            throw LibraryHost.historyFailure(error)
        }
        return [
            "version": version.shortName, "newest": history.versions.last?.cut == version.cut,
            "text": passages.filter { $0.mark != .baselineOnly }.map(\.text).joined(),
            "passages": passages.map { passage -> [String: Any] in
                let mark = switch passage.mark {
                case .unchanged: "same"
                case .versionOnly: "version"
                case .baselineOnly: "baseline"
                }
                return ["mark": mark, "text": passage.text]
            },
        ]
    }

    /// A page of the list (or the trash, or a search's results): newest first.
    private func list(_ request: HTTPRequest, trash: Bool) -> [String: Any] {
        let notebook = host.notebook
        let query = request.query["q"] ?? ""
        let summaries = trash || query.isEmpty ? host.summaries(trash: trash) : notebook.search(query)
        let offset = max(0, Int(request.query["offset"] ?? "") ?? 0)
        let limit = min(500, max(1, Int(request.query["limit"] ?? "") ?? 100))
        let page = summaries.dropFirst(offset).prefix(limit)
        return [
            "total": summaries.count, "offset": offset,
            "memos": page.map { summary -> [String: Any] in
                ["id": summary.id.description, "title": summary.title, "preview": summary.preview, "modified": summary.modifiedAt.wallMilliseconds]
            },
        ]
    }

    private func object(_ request: HTTPRequest) throws(ServeFailure) -> [String: Any] {
        guard let object = JSON.decode(request.body) as? [String: Any] else { throw ServeFailure(status: 400, message: "a malformed body") }
        return object
    }

    /// The body of `request` as a `T`, every field of its JSON type (a number is no text, `true`
    /// is no number); else a 400 refusal with the text `refusal` in the request's language
    /// (`Accept-Language`) and `code`, for the page to tell in its own.
    private func decode<T: Decodable>(_ type: T.Type, _ request: HTTPRequest, refusal: String, code: String) throws(ServeFailure) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(request.body))
        } catch {
            throw ServeFailure(status: 400, message: ServeText.text(refusal, acceptLanguage: request.header("accept-language")), code: code)
        }
    }

    private func memoID(_ text: String) throws(ServeFailure) -> MemoID {
        guard let id = MemoID(text) else { throw ServeFailure(status: 404, message: "no such memo") }
        return id
    }

    static func status(_ status: MemoStatus) -> String {
        switch status {
        case .active: "active"
        case .trashed: "trashed"
        case .purged: "purged"
        }
    }

    /// A file name from a title: no path separators or control characters, at most 80 characters.
    static func fileName(_ title: String) -> String {
        let cleaned = String(title.unicodeScalars.map { scalar -> Character in
            scalar.value < 0x20 || "/\\:*?\"<>|".unicodeScalars.contains(scalar) ? "_" : Character(scalar)
        }.prefix(80)).trimmingCharacters(in: .whitespaces)
        return (cleaned.isEmpty || cleaned.hasPrefix(".") ? "memo" : cleaned) + ".txt"
    }

    static func percentEncoded(_ text: String) -> String {
        text.utf8.map { byte -> String in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                String(UnicodeScalar(byte))
            default:
                "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }.joined()
    }

    /// The event stream: the status, then every event (from `Last-Event-ID` on, when given).
    private func eventStream(_ request: HTTPRequest) -> HTTPReply {
        let events = host.events
        let newest = events.nextID - 1
        let resumed = request.header("last-event-id").flatMap { Int($0) }
        let start = resumed.map { min($0, newest) } ?? newest
        let status = host.statusJSON
        let heartbeat = heartbeatMilliseconds
        let head = HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8")])
        return .eventStream(head) { writer in
            guard writer.write(Array("retry: 1000\nevent: status\ndata: \(status)\n\n".utf8)) else { return }
            var last = start
            while true {
                guard let batch = events.events(after: last, timeoutMilliseconds: heartbeat) else {
                    _ = writer.write(Array("event: reload\ndata: {}\n\n".utf8))
                    return
                }
                var text = batch.isEmpty ? ": keep-alive\n\n" : ""
                for event in batch {
                    text += "id: \(event.id)\nevent: \(event.name)\ndata: \(event.data)\n\n"
                    last = event.id
                }
                guard writer.write(Array(text.utf8)) else { return }
            }
        }
    }
}
