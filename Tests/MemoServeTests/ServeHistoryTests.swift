// The history panel's endpoints (SERVE.md, "History"): the versions of a memo, the text at one
// marked against the current text or the version before, a revert as a new edit that undo takes
// back, the typed refusal of a version whose deleted text is not retained, and every attack
// refused with nothing changed.

import Foundation
import MemoServe
import MemoSync
import Synchronization
import Testing

@Suite(.serialized) struct ServeHistoryTests {
    /// A served memo with two versions: "Groceries\nmilk" made through the page's API, then
    /// "\neggs" appended by another writer of the library (a device of its own, as `memo edit`
    /// while the server runs).
    static func memoWithTwoVersions(_ served: ServedLibrary) throws -> String {
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"Groceries\nmilk"}"#)["id"] as? String)
        #expect(try ServedLibrary.wait { try served.saved()?.memo(MemoID(id)!) != nil })
        let writer = try Self.writer(served)
        try writer.edit(MemoID(id)!, replacingUTF16: 14..<14, with: "\neggs")
        try writer.saveNow()
        writer.closeNow()
        #expect(ServedLibrary.wait { served.host.notebook.memo(MemoID(id)!)?.text == "Groceries\nmilk\neggs" })
        return id
    }

    /// Opens the served library as another writer does (waiting for the server's lock), with
    /// `environment`'s clock.
    static func writer(_ served: ServedLibrary, environment: ReplicaEnvironment = .system) throws -> Replica {
        var opened: Replica?
        let start = Date()
        while opened == nil && Date().timeIntervalSince(start) < 6 {
            opened = try? Replica(libraryPath: served.folder, environment: environment)
            if opened == nil { usleep(5_000) }
        }
        return try #require(opened, "the writer waited more than 6 s")
    }

    /// A served memo whose second version cannot be shown: another writer that keeps no deleted
    /// text (a device without history) typed "\neggs", edited another memo, and 11 minutes later
    /// (by its clock) deleted it, then saved: the server never saw "\neggs", and no device kept
    /// it. Versions: the server's "Groceries\nmilk", the writer's "+\neggs", its "-\neggs".
    static func memoWithAVersionNotRetained(_ served: ServedLibrary) throws -> String {
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"Groceries\nmilk"}"#)["id"] as? String)
        #expect(try ServedLibrary.wait { try served.saved()?.memo(MemoID(id)!) != nil })
        let now = Mutex(UInt64(Date().timeIntervalSince1970 * 1000))
        let clock = ReplicaEnvironment(wallMilliseconds: { now.withLock { $0 } }, randomUInt64: ReplicaEnvironment.system.randomUInt64)
        let writer = try Self.writer(served, environment: clock)
        try writer.setKeepsHistory(false)
        try writer.edit(MemoID(id)!, replacingUTF16: 14..<14, with: "\neggs")
        try writer.createMemo(text: "another memo")
        now.withLock { $0 += 11 * 60 * 1000 }
        try writer.edit(MemoID(id)!, replacingUTF16: 14..<19, with: "")
        try writer.saveNow()
        writer.closeNow()
        #expect(ServedLibrary.wait { served.host.notebook.list().count == 2 })
        return id
    }

    static func passages(_ object: [String: Any]) -> [[String]] {
        (object["passages"] as? [[String: Any]] ?? []).map { [$0["mark"] as? String ?? "?", $0["text"] as? String ?? "?"] }
    }

    @Test func versionsTextAtAVersionAndRevertAsAnEdit() throws {
        let served = try ServedLibrary()
        let id = try Self.memoWithTwoVersions(served)
        #expect(try served.json("GET", "/api/memos/\(id)")["text"] as? String == "Groceries\nmilk\neggs")   // a page has it open

        let versions = try #require(try served.json("GET", "/api/memos/\(id)/history")["versions"] as? [[String: Any]])
        #expect(versions.count == 2)
        // Both made in this library (the writer's id joined its lineage): "this device".
        #expect(versions.map { $0["thisDevice"] as? Bool } == [true, true])
        #expect(Set(versions.compactMap { $0["device"] as? String }).count == 2, "two ids, two versions")
        #expect(versions.map { $0["inserted"] as? Int } == [14, 5])
        #expect(versions.map { $0["deleted"] as? Int } == [0, 0])
        let names = versions.compactMap { $0["version"] as? String }
        #expect(names.count == 2 && names.allSatisfy { $0.count == 8 })
        #expect(names == (try served.host.history(of: MemoID(id)!).history.versions.map(\.shortName)))

        // The first version against the current text: "\neggs" was typed since.
        let first = try served.json("GET", "/api/memos/\(id)/history/\(names[0])")
        #expect(first["text"] as? String == "Groceries\nmilk")
        #expect(first["newest"] as? Bool == false)
        #expect(Self.passages(first) == [["same", "Groceries\nmilk"], ["baseline", "\neggs"]])
        // Against the version before (none: the empty text), and the second against the first.
        #expect(Self.passages(try served.json("GET", "/api/memos/\(id)/history/\(names[0])?compare=previous")) == [["version", "Groceries\nmilk"]])
        let second = try served.json("GET", "/api/memos/\(id)/history/\(names[1])?compare=previous")
        #expect(Self.passages(second) == [["same", "Groceries\nmilk"], ["version", "\neggs"]])
        #expect(second["newest"] as? Bool == true)
        // A prefix of 4 digits names a version too; bad names and comparisons are refused.
        #expect(try served.json("GET", "/api/memos/\(id)/history/\(names[0].prefix(4))")["text"] as? String == "Groceries\nmilk")
        let unknown = ["0000", "1111", "2222", "3333"].first { candidate in !names.contains { $0.hasPrefix(candidate) } }!
        let missing = try served.json("GET", "/api/memos/\(id)/history/\(unknown)")
        #expect(missing["status"] == nil && missing["code"] as? String == "noSuchVersion")
        #expect(try served.request("GET", "/api/memos/\(id)/history/\(unknown)").status == 404)
        #expect(try served.request("GET", "/api/memos/\(id)/history/\(names[0])?compare=sideways").status == 400)
        #expect(try served.request("GET", "/api/memos/\(MemoID(high: 9, low: 9))/history").status == 404)

        // Restore: a revert as a new edit, seen by pages, saved to the library files.
        #expect(try served.request("POST", "/api/memos/\(id)/revert", body: #"{"version":"\#(names[0])"}"#).status == 200)
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "Groceries\nmilk")
        let reopened = try served.json("GET", "/api/memos/\(id)")
        #expect(reopened["text"] as? String == "Groceries\nmilk")
        #expect((reopened["revision"] as? Int ?? 0) >= 1, "the open document followed the revert as a change")
        #expect(try ServedLibrary.wait { try served.saved()?.memo(MemoID(id)!)?.text == "Groceries\nmilk" })
        let after = try #require(try served.json("GET", "/api/memos/\(id)/history")["versions"] as? [[String: Any]])
        #expect(after.count == 3)
        #expect(after.compactMap { $0["version"] as? String }.prefix(2) == names[...])

        // Undo takes the revert back in one step (the same device's editing: the same version).
        #expect(try served.request("POST", "/api/memos/\(id)/undo", body: "{}").status == 200)
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "Groceries\nmilk\neggs")

        // A memo in the trash keeps its history but is not reverted.
        #expect(try served.request("POST", "/api/memos/\(id)/trash", body: "{}").status == 200)
        #expect((try served.json("GET", "/api/memos/\(id)/history")["versions"] as? [[String: Any]])?.count == 3)
        #expect(try served.request("POST", "/api/memos/\(id)/revert", body: #"{"version":"\#(names[0])"}"#).status == 409)
        #expect(try served.request("POST", "/api/memos/\(id)/revert", body: #"{"name":1}"#).status == 400)
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "Groceries\nmilk\neggs")
    }

    /// A version whose deleted text no device kept: listed, but refused with the typed code the
    /// page tells in its language, with the count; a revert to it changes nothing.
    @Test func aVersionNotRetainedIsRefusedWithItsCode() throws {
        let served = try ServedLibrary()
        let id = try Self.memoWithAVersionNotRetained(served)
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "Groceries\nmilk")
        let versions = try #require(try served.json("GET", "/api/memos/\(id)/history")["versions"] as? [[String: Any]])
        #expect(versions.map { $0["inserted"] as? Int } == [14, 5, 0])
        #expect(versions.map { $0["deleted"] as? Int } == [0, 0, 5])
        let names = versions.compactMap { $0["version"] as? String }
        let notRetained = try served.request("GET", "/api/memos/\(id)/history/\(names[1])")
        #expect(notRetained.status == 410)
        let refusal = try #require(try JSONSerialization.jsonObject(with: Data(notRetained.body)) as? [String: Any])
        #expect(refusal["code"] as? String == "notRetained")
        #expect(refusal["count"] as? Int == 5)
        #expect((refusal["error"] as? String ?? "").isEmpty == false)
        #expect(try served.request("GET", "/api/memos/\(id)/history/\(names[1])?compare=previous").status == 410)
        let revertRefused = try served.request("POST", "/api/memos/\(id)/revert", body: #"{"version":"\#(names[1])"}"#)
        #expect(revertRefused.status == 410)
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "Groceries\nmilk", "nothing changed")
        // The versions around it are shown.
        #expect(try served.json("GET", "/api/memos/\(id)/history/\(names[0])")["text"] as? String == "Groceries\nmilk")
        #expect(try served.json("GET", "/api/memos/\(id)/history/\(names[2])")["text"] as? String == "Groceries\nmilk")
    }

    /// The attacks of ServeSecurityTests, on the history endpoints: each refused, nothing
    /// reverted, and the server still serving.
    @Test func historyEndpointsRefuseEachAttackWithNothingChanged() throws {
        let served = try ServedLibrary()
        let id = try Self.memoWithTwoVersions(served)
        let first = try #require((try served.json("GET", "/api/memos/\(id)/history")["versions"] as? [[String: Any]])?.first?["version"] as? String)
        let revert = #"{"version":"\#(first)"}"#
        let path = "/api/memos/\(id)/revert"
        let attacks: [(String, RawResponse, Int)] = [
            ("versions without the token", try served.request("GET", "/api/memos/\(id)/history", headers: [("Host", served.hostHeader)]), 403),
            ("a version without the token", try served.request("GET", "/api/memos/\(id)/history/\(first)", headers: [("Host", served.hostHeader)]), 403),
            ("versions, wrong token", try served.request("GET", "/api/memos/\(id)/history", headers: [("Host", served.hostHeader), ("X-Memo-Token", "0000")]), 403),
            ("versions, wrong Host", try served.request("GET", "/api/memos/\(id)/history", headers: [("Host", "evil.example:\(served.port)"), ("X-Memo-Token", served.token)]), 421),
            ("a version, cross-origin", try served.request("GET", "/api/memos/\(id)/history/\(first)", headers: served.pageHeaders + [("Origin", "http://evil.example")]), 403),
            ("revert without the token", try served.request("POST", path, headers: [("Host", served.hostHeader), ("Origin", served.origin), ("Content-Type", "application/json")], body: revert), 403),
            ("revert, wrong Host", try served.request("POST", path, headers: [("Host", "attacker.example"), ("X-Memo-Token", served.token), ("Origin", served.origin), ("Content-Type", "application/json")], body: revert), 421),
            ("cross-origin revert", try served.request("POST", path, headers: served.pageHeaders + [("Origin", "http://evil.example"), ("Content-Type", "application/json")], body: revert), 403),
            ("revert without Origin", try served.request("POST", path, headers: served.pageHeaders + [("Content-Type", "application/json")], body: revert), 403),
            ("form revert", try served.request("POST", path, headers: served.pageHeaders + [("Origin", served.origin), ("Content-Type", "application/x-www-form-urlencoded")], body: "version=\(first)"), 415),
            ("revert by GET", try served.request("GET", path), 404),
            ("dot dot in a version", try served.request("GET", "/api/memos/\(id)/history/../../../etc/passwd"), 400),
        ]
        for (name, response, status) in attacks {
            #expect(response.status == status, "\(name): \(response.status) \(response.text)")
            #expect(!response.headers.keys.contains { $0.hasPrefix("access-control-") }, "\(name)")
        }
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "Groceries\nmilk\neggs", "nothing reverted")
        #expect((try served.json("GET", "/api/memos/\(id)/history")["versions"] as? [[String: Any]])?.count == 2, "no version made")
        #expect(try served.request("GET", "/api/memos/\(id)/history").status == 200, "still serving")
    }

    /// The page's texts for the panel, in the three languages (the "not retained" message names
    /// the count in each).
    @Test func panelTextsInEveryLanguage() throws {
        for language in ["en", "ko", "ja"] {
            let catalog = ServeText.catalogs[language]!
            for key in ["button.history", "history.slider", "history.restore", "history.restored", "history.notRetained", "history.none", "history.legend"] {
                #expect(catalog[key]?.isEmpty == false, "\(language) \(key)")
            }
            #expect(catalog["history.notRetained"]?.contains("{count}") == true, "\(language)")
        }
        let page = try ServedLibrary().request("GET", "/").text
        for id in ["history-toggle", "history-slider", "history-text", "history-restore", "history-message"] {
            #expect(page.contains("id=\"\(id)\""), "\(id)")
        }
    }
}
