// The served library: what pages type reaches the library's files (what `memo list` reads),
// writer commands get the library while the server runs, and what they write reaches the pages.

import Foundation
@testable import MemoNotes
import MemoServe
import MemoSync
import Synchronization
import Testing

@Suite(.serialized) struct ServeHostTests {
    /// Inserts `text` at `offset` of memo `id` through the API, as the page does.
    static func type(_ served: ServedLibrary, _ id: String, _ text: String, at offset: Int, length: Int, revision: Int, client: String = "t") throws -> [String: Any] {
        var operation: [Any] = []
        if offset > 0 { operation.append(offset) }
        operation.append(text)
        if length - offset > 0 { operation.append(length - offset) }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["run": served.host.runID, "revision": revision, "operation": operation, "client": client]), as: UTF8.self)
        return try served.json("POST", "/api/memos/\(id)/edits", body)
    }

    @Test func typedTextReachesTheLibraryFiles() throws {
        let served = try ServedLibrary()
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":""}"#)["id"] as? String)
        let opened = try served.json("GET", "/api/memos/\(id)")
        #expect(opened["revision"] as? Int == 0)
        #expect(try Self.type(served, id, "Groceries", at: 0, length: 0, revision: 0)["revision"] as? Int == 1)
        #expect(try Self.type(served, id, " 한국어", at: 9, length: 9, revision: 1)["revision"] as? Int == 2)
        #expect(try ServedLibrary.wait { try served.saved()?.memo(MemoID(id)!)?.text == "Groceries 한국어" })
        let list = try served.json("GET", "/api/memos")
        #expect((list["memos"] as? [[String: Any]])?.first?["title"] as? String == "Groceries 한국어")
        let found = try served.json("GET", "/api/memos?q=GROCERIES")
        #expect(found["total"] as? Int == 1)
        // Undo maps to the engine's undo of this server's edits.
        _ = try Self.type(served, id, "!", at: 13, length: 13, revision: 2)
        #expect(try served.request("POST", "/api/memos/\(id)/undo", body: "{}").status == 200)
        // Typing on at the caret within 2 s is one undo step (the engine's grouping): what is
        // undone is the last step, which holds the "!" and maybe what was typed before it.
        let undone = try #require(served.host.notebook.memo(MemoID(id)!)?.text)
        #expect("Groceries 한국어".hasPrefix(undone), "\(undone)")
        #expect(try served.request("POST", "/api/memos/\(id)/redo", body: "{}").status == 200)
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "Groceries 한국어!")
    }

    /// The housekeeping thread measures idle and unsaved times, and the time since a change for
    /// syncing, against a clock reading it took before another thread's change stamped a later
    /// one: an unsigned subtraction there stopped `memo serve` (a trap) while two pages typed
    /// under load. Here changes come from two threads all the time while housekeeping, saves
    /// and syncs run every millisecond.
    @Test func changesStampedWhileHousekeepingRunsNeverStopTheServer() throws {
        let folder = NSTemporaryDirectory() + "memo-serve-clock-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = ServeConfiguration(libraryPath: folder)
        configuration.saveQuietMilliseconds = 2
        configuration.maxUnsavedMilliseconds = 3
        configuration.pollMilliseconds = 1
        configuration.syncQuietMilliseconds = 0
        configuration.syncIntervalMilliseconds = 1
        let syncs = Mutex(0)
        let host = try LibraryHost(configuration: configuration) { _ in
            syncs.withLock { $0 += 1 }
            return ServeSyncOutcome(complete: true, reachedStore: true, error: nil)
        }
        defer { host.stop() }
        let id = try host.create(text: "")
        _ = try host.openDocument(id)
        let typed = Mutex(0)
        let threads = (0..<2).map { _ in
            Thread {
                let deadline = Date(timeIntervalSinceNow: 2)
                while Date() < deadline {
                    typed.withLock { count in
                        var operation = TextOperation()
                        if count > 0 { operation.retain(count) }
                        operation.insert(Array("k".utf16))
                        if (try? host.edit(id, operation: operation, base: count, run: host.runID, client: "t")) != nil { count += 1 }
                    }
                }
            }
        }
        threads.forEach { $0.start() }
        #expect(ServedLibrary.wait(seconds: 10) { threads.allSatisfy(\.isFinished) })
        let count = typed.withLock { $0 }
        #expect(count > 0)
        #expect(syncs.withLock { $0 } > 0)
        #expect(host.notebook.memo(id)?.text == String(repeating: "k", count: count))
    }

    /// `memo serve` folds every memo's text for search when it starts, beside the server, so a
    /// page's first search reads the keys from the cache (issue 28: a decoded notebook folds
    /// nothing; SERVE.md and the DocC guide say the server prepares search).
    @Test func startingFoldsEveryMemoForSearch() async throws {
        let folder = NSTemporaryDirectory() + "memo-serve-search-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var ids: [MemoID] = []
        do {
            let replica = try Replica(libraryPath: folder)
            for index in 0..<40 { ids.append(try replica.createMemo(text: "Memo \(index)\nCafé \(index)")) }
            // Compacted: the next open decodes every memo from the state file, folding none.
            try await replica.compact()
            await replica.close()
        }
        let host = try LibraryHost(configuration: ServeConfiguration(libraryPath: folder), syncer: nil)
        defer { host.stop() }
        let folded = ServedLibrary.wait(seconds: 10) {
            Set(host.notebook.searchKeyCache.snapshot().compactMap { $0?.id }) == Set(ids)
        }
        #expect(folded, "every memo's search key in the cache within 10 s of the start")
        #expect(host.notebook.search("CAFE 3").count == 11)
    }

    /// SERVE.md: "`memo serve` stopping (Ctrl-C, SIGTERM) saves and closes the library
    /// cleanly": edits not saved yet (a save waits for a quiet moment) are in the library after
    /// `stop()`, and the next open keeps the replica id, which only a clean close allows.
    @Test func stoppingSavesWhatWasNotSavedYetAndClosesCleanly() throws {
        let folder = NSTemporaryDirectory() + "memo-serve-stop-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before: ReplicaID
        do {
            let replica = try Replica(libraryPath: folder)
            before = replica.id
            replica.closeNow()
        }
        var configuration = ServeConfiguration(libraryPath: folder)
        configuration.saveQuietMilliseconds = 600_000
        configuration.maxUnsavedMilliseconds = 600_000
        configuration.syncIntervalMilliseconds = nil
        let host = try LibraryHost(configuration: configuration, syncer: nil)
        let id = try host.create(text: "typed just before Ctrl-C")
        host.stop()
        let reopened = try Replica(libraryPath: folder)
        defer { reopened.closeNow() }
        #expect(reopened.notebook.memo(id)?.text == "typed just before Ctrl-C")
        #expect(reopened.id == before, "a clean close keeps the replica id")
        #expect(reopened.openReport.damage.isEmpty)
    }

    @Test func concurrentPagesAreTransformed() throws {
        let served = try ServedLibrary()
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"ab"}"#)["id"] as? String)
        _ = try served.json("GET", "/api/memos/\(id)")
        // Both made on revision 0: the second is moved over the first.
        _ = try Self.type(served, id, "X", at: 1, length: 2, revision: 0, client: "one")
        _ = try Self.type(served, id, "Y", at: 2, length: 2, revision: 0, client: "two")
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "aXbY")
        // A revision the server never had: reload.
        let refused = try served.request("POST", "/api/memos/\(id)/edits", body: #"{"run":"\#(served.host.runID)","revision":99,"operation":["z",4],"client":"x"}"#)
        #expect(refused.status == 409)
        // SERVE.md: "the page reloads the memo": it does when the refusal says so (else it
        // would post the same edit again forever, never confirmed, never saved).
        let answer = (try? JSONSerialization.jsonObject(with: Data(refused.body))) as? [String: Any]
        #expect(answer?["reload"] as? Bool == true, "\(answer ?? [:])")
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "aXbY")
    }

    /// SERVE.md, "Reloading keeps the typing": a page that missed events asks for the changes
    /// since its revision; each says who made it (the page's own are its confirmations).
    /// Another run's revision, one newer than the server's or a memo never opened: the page
    /// loads the whole text instead.
    @Test func aPageCatchesUpWithTheChangesItMissed() throws {
        let served = try ServedLibrary()
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"ab"}"#)["id"] as? String)
        let never = try #require(try served.json("POST", "/api/memos", #"{"text":"never opened"}"#)["id"] as? String)
        _ = try served.json("GET", "/api/memos/\(id)")
        _ = try Self.type(served, id, "X", at: 1, length: 2, revision: 0, client: "one")
        _ = try Self.type(served, id, "Y", at: 2, length: 2, revision: 0, client: "two")
        let run = served.host.runID
        let all = try served.json("GET", "/api/memos/\(id)/changes?since=0&run=\(run)")
        #expect(all["revision"] as? Int == 2 && all["status"] as? String == "active" && all["modified"] is Int, "\(all)")
        let changes = try #require(all["changes"] as? [[String: Any]])
        #expect(changes.map { $0["revision"] as? Int } == [1, 2])
        #expect(changes.map { $0["client"] as? String } == ["one", "two"])
        // Applied in order to the text of revision 0, they make the server's text.
        var text = Array("ab".utf16)
        for change in changes {
            let elements = try #require(change["operation"] as? [Any])
            var operation = TextOperation()
            for element in elements {
                if let count = element as? Int { if count > 0 { operation.retain(count) } else { operation.delete(-count) } }
                else if let inserted = element as? String { operation.insert(Array(inserted.utf16)) }
            }
            text = try #require(operation.apply(to: text))
        }
        #expect(String(decoding: text, as: UTF16.self) == "aXbY")
        #expect((try served.json("GET", "/api/memos/\(id)/changes?since=2&run=\(run)")["changes"] as? [Any])?.isEmpty == true)
        for (path, status) in [
            ("/api/memos/\(id)/changes?since=3&run=\(run)", 409), ("/api/memos/\(id)/changes?since=0&run=another", 409),
            ("/api/memos/\(never)/changes?since=0&run=\(run)", 409), ("/api/memos/\(id)/changes?run=\(run)", 400),
            ("/api/memos/\(id)/changes?since=-1&run=\(run)", 400), ("/api/memos/\(id)/changes?since=0", 400),
        ] {
            let refused = try served.request("GET", path)
            #expect(refused.status == status, "\(path)")
            let answer = (try? JSONSerialization.jsonObject(with: Data(refused.body))) as? [String: Any]
            if status == 409 {
                #expect(answer?["reload"] as? Bool == true, "\(path): \(answer ?? [:])")
            } else {
                #expect(answer?["code"] as? String == "malformedChanges", "\(path): \(answer ?? [:])")
            }
        }
        // In the page's language.
        let korean = try served.request("GET", "/api/memos/\(id)/changes?run=\(run)", headers: served.pageHeaders + [("Accept-Language", "ko-KR,ko;q=0.9")])
        let koreanAnswer = (try? JSONSerialization.jsonObject(with: Data(korean.body))) as? [String: Any]
        #expect(korean.status == 400 && (koreanAnswer?["error"] as? String)?.contains("리비전") == true, "\(koreanAnswer ?? [:])")
        // SERVE.md, "Safe on a shared machine": no token or another origin (403), another host
        // (421), refused.
        let path = "/api/memos/\(id)/changes?since=0&run=\(run)"
        for (what, headers, status) in [
            ("no token", [("Host", served.hostHeader)], 403),
            ("another host", [("Host", "evil.example:\(served.port)"), ("X-Memo-Token", served.token)], 421),
            ("another origin", served.pageHeaders + [("Origin", "http://evil.example")], 403),
        ] {
            let refused = try served.request("GET", path, headers: headers)
            #expect(refused.status == status, "\(what): \(refused.status)")
            #expect(!refused.text.contains("\"changes\""), "\(what)")
        }
    }

    @Test func writerCommandsGetTheLibraryAndPagesSeeWhatTheyWrote() throws {
        let served = try ServedLibrary()
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"shared"}"#)["id"] as? String)
        _ = try served.json("GET", "/api/memos/\(id)")
        // Saved within moments (a pause of 100 ms here, 300 ms by default).
        #expect(try ServedLibrary.wait(seconds: 5) { try served.saved()?.memo(MemoID(id)!) != nil })
        // Typing goes on (every 20 ms) while another writer opens the library, as `memo edit` does.
        let typing = Thread {
            for index in 0..<100 {
                _ = try? Self.type(served, id, "k", at: 0, length: 6 + index, revision: index)
                usleep(20_000)
            }
        }
        typing.start()
        usleep(200_000)
        let start = Date()
        var replica: Replica?
        while replica == nil && Date().timeIntervalSince(start) < 6 {
            replica = try? Replica(libraryPath: served.folder)
            if replica == nil { usleep(5_000) }
        }
        let writer = try #require(replica, "the writer waited more than 6 s")
        // At once by design (the server holds the lock only for a save or a look at the
        // folder); bounded generously for a loaded machine.
        #expect(Date().timeIntervalSince(start) < 3)
        try writer.createMemo(text: "from memo new")
        try writer.edit(MemoID(id)!, replacingUTF16: 0..<0, with: "[cli]")
        try writer.saveNow()
        writer.closeNow()
        let written = Date()
        #expect(ServedLibrary.wait(seconds: 3) { served.host.notebook.list().contains { $0.title == "from memo new" } })
        // Within a second by design (the folder is checked every 50 ms here); generous bound.
        #expect(Date().timeIntervalSince(written) < 3, "the page saw it")
        #expect(ServedLibrary.wait(seconds: 3) { served.host.notebook.memo(MemoID(id)!)?.text.contains("[cli]") == true })
        while typing.isExecuting || !typing.isFinished { usleep(20_000) }
        // Every keystroke that was confirmed is in the engine's text, and the CLI's edit too.
        let text = try #require(served.host.notebook.memo(MemoID(id)!)?.text)
        #expect(text.contains("[cli]") && text.hasSuffix("shared"))
        // ...and reaches the library's files, with the CLI's.
        #expect(try ServedLibrary.wait(seconds: 5) { try served.saved()?.memo(MemoID(id)!)?.text == text })

        // A writer that keeps the library open sharing it, as `memo sync` does while it waits on
        // its store: the page's typing is still saved meanwhile, and each sees the other's.
        let syncing = try Replica(libraryPath: served.folder)
        try syncing.shareFolder()
        let revision = try #require(try served.json("GET", "/api/memos/\(id)")["revision"] as? Int)
        let length = text.utf16.count
        #expect(try Self.type(served, id, "+", at: length, length: length, revision: revision)["revision"] as? Int == revision + 1)
        #expect(try ServedLibrary.wait(seconds: 5) { try served.saved()?.memo(MemoID(id)!)?.text == text + "+" })
        try syncing.createMemo(text: "from memo sync")
        try syncing.saveNow()
        #expect(ServedLibrary.wait(seconds: 3) { served.host.notebook.list().contains { $0.title == "from memo sync" } })
        syncing.closeNow()

        // Undo reaches back over the whole session: past saves and other commands' changes.
        for _ in 0..<200 {
            guard try served.request("POST", "/api/memos/\(id)/undo", body: "{}").status == 200 else { break }
        }
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "[cli]shared", "the server's typing undone, the CLI's edit kept")
    }

    /// The server's syncs and a `memo sync` never run at once: the server's sync holds the
    /// library's sync lock, and waits while another process holds it.
    /// A page's edit never waits for a sync (SERVE.md: a sync merges outside the gate), and
    /// lands where it was typed even when the sync merged a change into the memo between the
    /// page's read and its edit. The sync here changes the memo, then stays running until the
    /// test releases it; with the gate held for the sync, the edit would wait for that.
    @Test func pageEditsGoOnDuringASyncAndLandWhereTyped() throws {
        let memo = Mutex<MemoID?>(nil)
        let merged = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let syncTimedOut = Mutex(false)
        let served = try ServedLibrary(syncer: { replica in
            if let id = memo.withLock({ id in defer { id = nil }; return id }) {
                // What a sync merges: text arriving at the start of the memo.
                try? replica.edit(id, replacingUTF16: 0..<0, with: ">>")
                merged.signal()
                if release.wait(timeout: .now() + 20) == .timedOut { syncTimedOut.withLock { $0 = true } }
            }
            return ServeSyncOutcome(complete: true, reachedStore: true, error: nil)
        }, syncIntervalMilliseconds: 100)
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"ab"}"#)["id"] as? String)
        #expect(try served.json("GET", "/api/memos/\(id)")["revision"] as? Int == 0)
        memo.withLock { $0 = MemoID(id)! }
        #expect(merged.wait(timeout: .now() + 10) == .success, "no sync ran")
        // Typed after "ab" on revision 0, while the sync runs.
        let typed = try Self.type(served, id, "X", at: 2, length: 2, revision: 0)
        #expect(!syncTimedOut.withLock { $0 }, "the edit waited for the sync")
        // SERVE.md: typing is saved at least every second, a sync running or not: the edit is
        // in the library's files while the sync still waits (a crash now would keep it).
        let savedDuringSync = try ServedLibrary.wait(seconds: 5) { try served.saved()?.memo(MemoID(id)!)?.text.contains("X") == true }
        #expect(savedDuringSync, "the edit was not saved while the sync ran")
        #expect(!syncTimedOut.withLock { $0 }, "the sync was let go before the save was checked")
        release.signal()
        #expect(typed["revision"] as? Int != nil, "\(typed)")
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == ">>abX")
    }

    /// An edit the engine refuses (its memo went to the trash) is not left in the server's
    /// document: the document follows the engine's text again, though the notebook's version
    /// did not move (a refresh of an unchanged version otherwise compares nothing).
    @Test func aRefusedEditLeavesTheDocumentAsTheEngineHasIt() throws {
        let served = try ServedLibrary()
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"ab"}"#)["id"] as? String)
        #expect(try served.json("GET", "/api/memos/\(id)")["revision"] as? Int == 0)
        #expect(try served.request("POST", "/api/memos/\(id)/trash", body: "{}").status == 200)
        let before = served.host.events.nextID
        let refused = try served.request("POST", "/api/memos/\(id)/edits", body: #"{"run":"\#(served.host.runID)","revision":0,"operation":[2,"X"],"client":"t"}"#)
        #expect(refused.status == 409)
        #expect(try served.host.openDocument(MemoID(id)!).text == "ab")
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "ab")
        // Nothing went to the pages (it once went out, then a change putting it right).
        #expect(served.host.events.nextID == before)
    }

    /// SERVE.md: the server transforms a page's edit "the page's insert first where both insert
    /// at one place": two pages type at one place of revision 0, and the later one's insert
    /// comes first.
    @Test func twoPagesInsertingAtOnePlaceKeepTheLaterPagesInsertFirst() throws {
        let served = try ServedLibrary()
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"ab"}"#)["id"] as? String)
        #expect(try served.json("GET", "/api/memos/\(id)")["revision"] as? Int == 0)
        #expect(try Self.type(served, id, "X", at: 1, length: 2, revision: 0, client: "p1")["revision"] as? Int == 1)
        #expect(try Self.type(served, id, "Y", at: 1, length: 2, revision: 0, client: "p2")["revision"] as? Int == 2)
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "aYXb")
        #expect(try served.host.openDocument(MemoID(id)!).text == "aYXb")
    }

    /// SERVE.md: "Operations never split a surrogate pair": an operation that would is refused
    /// (409, the page reloads) and reaches no page, and the document stays the engine's text.
    @Test func anEditSplittingASurrogatePairReachesNoPage() throws {
        let served = try ServedLibrary()
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"a😀b"}"#)["id"] as? String)
        #expect(try served.json("GET", "/api/memos/\(id)")["revision"] as? Int == 0)
        let before = served.host.events.nextID
        // Keep "a" and the high surrogate, insert "X", keep the low surrogate and "b".
        let refused = try served.request("POST", "/api/memos/\(id)/edits", body: #"{"run":"\#(served.host.runID)","revision":0,"operation":[2,"X",2],"client":"p1"}"#)
        #expect(refused.status == 409, "\(refused.status)")
        #expect(((try? JSONSerialization.jsonObject(with: Data(refused.body))) as? [String: Any])?["reload"] as? Bool == true)
        #expect(served.host.events.nextID == before, "an update went to the pages")
        #expect(try served.host.openDocument(MemoID(id)!).text == "a😀b")
        #expect(try served.json("GET", "/api/memos/\(id)")["revision"] as? Int == 0)
        // The next edit on revision 0 applies.
        let typed = try Self.type(served, id, "Z", at: 4, length: 4, revision: 0)
        #expect(typed["revision"] as? Int == 1, "\(typed)")
        #expect(served.host.notebook.memo(MemoID(id)!)?.text == "a😀bZ")
    }

    /// SERVE.md: "A sync runs 2 s after the last change, at least every 30 s
    /// (`--sync-interval`), and when the page asks" (`POST /api/sync`, the page's Sync now).
    /// With an interval of an hour and no change, only the page's request starts one.
    @Test func thePageAsksForASyncAndOneRuns() throws {
        let syncs = Mutex(0)
        let served = try ServedLibrary(syncer: { _ in
            syncs.withLock { $0 += 1 }
            return ServeSyncOutcome(complete: true, reachedStore: true, error: nil)
        }, syncIntervalMilliseconds: 3_600_000)
        // Whatever runs at the start has run; then nothing for a while.
        usleep(600_000)
        let before = syncs.withLock { $0 }
        usleep(600_000)
        #expect(syncs.withLock { $0 } == before, "a sync ran unasked")
        let asked = try served.json("POST", "/api/sync", "{}")
        #expect(asked["ok"] as? Bool == true, "\(asked)")
        #expect(ServedLibrary.wait(seconds: 5) { syncs.withLock { $0 } > before }, "the page asked and no sync ran")
        // A page without the token, or from elsewhere, asks for nothing.
        let settled = syncs.withLock { $0 }
        let refused = try served.request("POST", "/api/sync", headers: [("Host", served.hostHeader), ("Origin", served.origin), ("Content-Type", "application/json")], body: "{}")
        #expect(refused.status == 403, "\(refused.status)")
        usleep(600_000)
        #expect(syncs.withLock { $0 } == settled, "a refused request started a sync")
    }

    @Test func serverSyncsHoldTheSyncLockAndWaitForAnother() throws {
        let during = Mutex<[Bool]>([])
        let folder = Mutex<String?>(nil)
        let served = try ServedLibrary(syncer: { _ in
            // Another sync of the library cannot start now.
            if let path = folder.withLock({ $0 }) {
                let free = (try? LibrarySyncLock(path: path)) != nil
                during.withLock { $0.append(free) }
            }
            return ServeSyncOutcome(complete: true, reachedStore: true, error: nil)
        }, syncIntervalMilliseconds: 100)
        folder.withLock { $0 = served.folder }
        #expect(ServedLibrary.wait(seconds: 5) { !during.withLock { $0 }.isEmpty })
        #expect(during.withLock { $0 }.allSatisfy { !$0 }, "the sync lock was free during a sync")
        // `memo sync` holds it: no sync of the server's starts until it is released. (Taken
        // between two of the server's syncs, every 100 ms here: a lock held is refused at once.)
        var taken: LibrarySyncLock?
        let start = Date()
        while taken == nil && Date().timeIntervalSince(start) < 10 {
            taken = try? LibrarySyncLock(path: served.folder)
            if taken == nil { usleep(5_000) }
        }
        let other = try #require(taken, "the sync lock was never free between the server's syncs")
        usleep(300_000)
        let before = during.withLock { $0.count }
        usleep(500_000)
        #expect(during.withLock { $0.count } == before)
        other.release()
        #expect(ServedLibrary.wait(seconds: 5) { during.withLock { $0.count } > before })
    }

    @Test func trashRestoreAndPurge() throws {
        let served = try ServedLibrary()
        let id = try #require(try served.json("POST", "/api/memos", #"{"text":"bin me"}"#)["id"] as? String)
        #expect(try served.request("POST", "/api/memos/\(id)/trash", body: "{}").status == 200)
        #expect((try served.json("GET", "/api/trash")["total"] as? Int) == 1)
        #expect((try served.json("GET", "/api/memos")["total"] as? Int) == 0)
        #expect(try served.request("POST", "/api/memos/\(id)/restore", body: "{}").status == 200)
        #expect((try served.json("GET", "/api/memos")["total"] as? Int) == 1)
        let export = try served.request("GET", "/api/memos/\(id)/export")
        #expect(export.text == "bin me")
        #expect(export.headers["content-disposition"]?.contains("bin%20me.txt") == true)
        #expect(try served.request("POST", "/api/memos/\(id)/trash", body: "{}").status == 200)
        #expect(try served.request("POST", "/api/memos/\(id)/purge", body: "{}").status == 200)
        #expect((try served.json("GET", "/api/trash")["total"] as? Int) == 0)
    }
}
