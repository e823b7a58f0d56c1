// The commands one library at a time: round trips, JSON, ids, errors.

import Foundation
import MemoCRDT
import MemoNotes
import Testing

@testable import memo

@Suite("memo commands")
struct CommandTests {
    @Test("new, list, show: text given, from standard input, exact output, JSON")
    func newListShow() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")

        let first = try sandbox.newMemo("Groceries\nmilk\n  eggs", library: library)
        // Standard input is kept exactly, trailing line break, emoji and combining accents included.
        let piped = "Caf\u{65}\u{301} notes 🇫🇷\r\nbody line\n"
        let second = try sandbox.ok(["new"], library: library, input: Array(piped.utf8)).stdout
        #expect(second.hasSuffix("\n") && second.split(separator: "\n").count == 1)
        let secondID = second.trimmingCharacters(in: .newlines)
        // Several words make one text.
        let third = try sandbox.ok(["new", "two", "words"], library: library).stdout.trimmingCharacters(in: .newlines)

        #expect(try sandbox.ok(["show", first], library: library).stdoutBytes == Array("Groceries\nmilk\n  eggs".utf8))
        #expect(try sandbox.ok(["show", secondID], library: library).stdoutBytes == Array(piped.utf8))
        #expect(try sandbox.ok(["show", third], library: library).stdout == "two words")
        // Bytes are kept exactly, a byte order mark included (compared as bytes: corelibs
        // Foundation's JSON reader drops U+FEFF, so this memo stays out of the JSON checks).
        let marked: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("x\r\n".utf8)
        let markedID = try sandbox.ok(["new"], library: library, input: marked).stdout.trimmingCharacters(in: .newlines)
        #expect(try sandbox.ok(["show", markedID], library: library).stdoutBytes == marked)
        try sandbox.ok(["delete", markedID], library: library)

        // Newest first: short id, date, title.
        let lines = try sandbox.ok(["list"], library: library).stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let expected = [(third, "two words"), (secondID, "Caf\u{65}\u{301} notes 🇫🇷"), (first, "Groceries")]
        for (line, (id, title)) in zip(lines, expected) {
            let columns = line.split(separator: " ", maxSplits: 1).map(String.init)
            #expect(columns.count == 2 && columns[0].count >= 8 && id.hasPrefix(columns[0]), "\(line)")
            #expect(line.hasSuffix("  " + title), "\(line)")
            #expect(line.range(of: #"  \d{4}-\d{2}-\d{2} \d{2}:\d{2}  "#, options: .regularExpression) != nil, "\(line)")
        }

        let listed = try sandbox.ok(["list", "--json"], library: library).objects()
        #expect(listed.map { $0["id"] as? String } == [third, secondID, first])
        for object in listed {
            for key in ["id", "title", "preview", "createdAt", "modifiedAt", "status"] {
                #expect(object[key] != nil, "list --json lacks \(key): \(object)")
            }
            #expect(isISODate(object["createdAt"]) && isISODate(object["modifiedAt"]), "\(object)")
            #expect(object["status"] as? String == "active")
        }
        #expect(listed[2]["title"] as? String == "Groceries")
        #expect(listed[2]["preview"] as? String == "milk eggs")

        let shown = try sandbox.ok(["show", secondID, "--json"], library: library).object()
        #expect(shown["id"] as? String == secondID)
        #expect(shown["text"] as? String == piped)
        #expect(shown["title"] as? String == "Caf\u{65}\u{301} notes 🇫🇷")
        #expect(shown["status"] as? String == "active")
        #expect(isISODate(shown["createdAt"]) && isISODate(shown["modifiedAt"]))
        // The dates are those of the memo: its creation is the list's.
        #expect(shown["createdAt"] as? String == listed[1]["createdAt"] as? String)
    }

    @Test("edit --text, --insert and --delete count Unicode scalars; bad edits change nothing")
    func editOptions() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("Title\nbody", library: library)

        try sandbox.ok(["edit", id, "--text", "Hello 👋 world"], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Hello 👋 world")
        // The emoji is one scalar: offset 8 is after "Hello 👋 ".
        try sandbox.ok(["edit", id, "--insert", "8", "big "], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Hello 👋 big world")
        try sandbox.ok(["edit", id, "--delete", "6", "2"], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Hello big world")
        // Several changes apply in order, each to the text the previous one left.
        try sandbox.ok(["edit", id, "--delete", "0", "6", "--insert", "0", "A ", "--insert", "0", "-"], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "-A big world")
        // A value may start with a dash.
        try sandbox.ok(["edit", id, "--text", "-x"], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "-x")
        // Combining accents count separately; the end of the text is a valid offset.
        try sandbox.ok(["edit", id, "--text", "e\u{301}"], library: library)
        try sandbox.ok(["edit", id, "--insert", "2", "!"], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdoutBytes == Array("e\u{301}!".utf8))

        let before = sandbox.contents(of: library)
        try sandbox.fails(["edit", id, "--insert", "4", "x"], status: 1, containing: ["offset 4", "3 characters", "nothing was changed"], library: library)
        try sandbox.fails(["edit", id, "--delete", "1", "3"], status: 1, containing: ["cannot delete 3 characters at offset 1"], library: library)
        // The first change fits, the second does not: neither is made.
        try sandbox.fails(["edit", id, "--insert", "0", "ok", "--delete", "0", "99"], status: 1, containing: ["change 2 of 2"], library: library)
        try sandbox.fails(["edit", id, "--insert", "-1", "x"], status: 2, containing: ["whole number"], library: library)
        try sandbox.fails(["edit", id, "--delete", "0", "1.5"], status: 2, containing: ["length of --delete"], library: library)
        try sandbox.fails(["edit", id, "--insert", "99999999999999999999999", "x"], status: 2, containing: ["too large"], library: library)
        try sandbox.fails(["edit", id, "--delete", "9223372036854775807", "9223372036854775807"], status: 1, containing: ["cannot delete"], library: library)
        try sandbox.fails(["edit", id, "--insert", "0"], status: 2, containing: ["--insert needs OFFSET and TEXT"], library: library)
        try sandbox.fails(["edit", id, "--text", "a", "--insert", "0", "b"], status: 2, containing: ["cannot be combined"], library: library)
        try sandbox.fails(["edit", id, "--text", "a", "--text", "b"], status: 2, containing: ["given twice"], library: library)
        try sandbox.fails(["edit", id, "--insert=0", "b"], status: 2, containing: ["takes 2 values"], library: library)
        #expect(sandbox.contents(of: library) == before, "a failed edit changed the library")
        #expect(try sandbox.ok(["show", id], library: library).stdoutBytes == Array("e\u{301}!".utf8))
    }

    @Test("ids may be shortened to a unique prefix; ambiguous, unknown and malformed ids are errors")
    func idPrefixes() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        // 17 memos: two of them surely share their first digit.
        var ids: [String] = []
        var shared: (String, String)?
        while shared == nil {
            let id = try sandbox.newMemo("memo \(ids.count)", library: library)
            if let twin = ids.first(where: { $0.first == id.first }) { shared = (twin, id) }
            ids.append(id)
            try #require(ids.count <= 17)
        }
        let (a, b) = try #require(shared)
        let common = a.commonPrefix(with: b)

        // Unique prefixes work, in either case.
        let unique = String(a.prefix(common.count + 1))
        #expect(try sandbox.ok(["show", unique], library: library).stdout == "memo \(ids.firstIndex(of: a)!)")
        #expect(try sandbox.ok(["show", unique.uppercased()], library: library).stdout == "memo \(ids.firstIndex(of: a)!)")
        #expect(try sandbox.ok(["show", a], library: library).stdout == "memo \(ids.firstIndex(of: a)!)")

        // Ambiguous: the message lists the candidates with their titles.
        let ambiguous = try sandbox.fails(["show", common], status: 1, containing: ["ambiguous", "memo \(ids.firstIndex(of: a)!)", "memo \(ids.firstIndex(of: b)!)"], library: library)
        for id in [a, b] {
            #expect(ambiguous.stderr.contains(String(id.prefix(8))), "\(ambiguous)")
        }
        try sandbox.fails(["delete", common], status: 1, containing: ["ambiguous"], library: library)

        // Unknown: a digit no id starts with.
        let firstDigits = Set(ids.compactMap(\.first))
        let unused = "0123456789abcdef".first { !firstDigits.contains($0) }.map { String($0) }
            ?? String(a.dropLast()) + (a.last == "0" ? "1" : "0")
        try sandbox.fails(["show", unused], status: 1, containing: ["no memo has an id starting with '\(unused)'"], library: library)
        // Malformed: not hexadecimal, too long, empty.
        try sandbox.fails(["show", "xyz"], status: 2, containing: ["not a memo id"], library: library)
        try sandbox.fails(["show", a + "0"], status: 2, containing: ["not a memo id"], library: library)
        try sandbox.fails(["show", ""], status: 2, containing: ["not a memo id"], library: library)
        try sandbox.fails(["show", "\u{1B}[31m"], status: 2, containing: ["not a memo id"], library: library)

        // A prefix is resolved among the memos the command applies to: with one of the two in
        // the trash, 'restore' finds it by the shared prefix, 'show' still finds two.
        try sandbox.ok(["delete", b], library: library)
        try sandbox.fails(["show", common], status: 1, containing: ["ambiguous", "(in the trash)"], library: library)
        try sandbox.ok(["restore", common], library: library)
        #expect(try sandbox.ok(["trash", "--json"], library: library).objects().isEmpty)

        // Short ids in the list tell the two apart.
        let list = try sandbox.ok(["list"], library: library).stdout
        let shorts = list.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        #expect(Set(shorts).count == ids.count)
        for short in shorts {
            #expect(try sandbox.memo(["show", short], library: library).status == 0)
        }
    }

    @Test("search folds case fully, width and kana; --kana-distinct keeps hiragana and katakana apart")
    func searchFoldsWidthAndKana() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let street = try sandbox.newMemo("Straße", library: library)
        let wide = try sandbox.newMemo("ＡＢＣ", library: library)
        let katakana = try sandbox.newMemo("ガギ", library: library)
        let hiragana = try sandbox.newMemo("がぎ", library: library)
        func ids(_ arguments: [String]) throws -> Set<String> {
            Set(try sandbox.memo(arguments + ["--json"], library: library).objects().compactMap { $0["id"] as? String })
        }
        #expect(try ids(["search", "STRASSE"]) == [street])
        #expect(try ids(["search", "abc"]) == [wide])
        #expect(try ids(["search", "ｶﾞｷﾞ"]) == [katakana, hiragana])
        #expect(try ids(["search", "がぎ"]) == [katakana, hiragana])
        #expect(try ids(["search", "ｶﾞｷﾞ", "--kana-distinct"]) == [katakana])
        #expect(try ids(["search", "--kana-distinct", "がぎ"]) == [hiragana])
        let none = try sandbox.memo(["search", "ぱ", "--kana-distinct"], library: library)
        #expect(none.status == 1, "\(none)")
        try sandbox.fails(["list", "--kana-distinct"], status: 2, library: library)
        #expect(try sandbox.ok(["help", "search"], library: library).stdout.contains("--kana-distinct"))
        #expect(try sandbox.ok(["completion", "bash"], library: library).stdout.contains("--kana-distinct"))
    }

    @Test("search, delete, trash, restore")
    func searchTrashRestore() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let cafe = try sandbox.newMemo("Café list\nbeans", library: library)
        let other = try sandbox.newMemo("Other\nnothing here", library: library)

        #expect(try sandbox.ok(["search", "cafe"], library: library).stdout.contains("Café list"))
        let found = try sandbox.ok(["search", "BEANS", "--json"], library: library).objects()
        #expect(found.map { $0["id"] as? String } == [cafe])
        for key in ["id", "title", "preview", "createdAt", "modifiedAt"] { #expect(found[0][key] != nil) }
        #expect(try sandbox.ok(["search", "nothing", "here"], library: library).stdout.contains("Other"))
        // Nothing matched: exit status 1 and no message, as grep; --json still prints [].
        let none = try sandbox.memo(["search", "zebra", "--json"], library: library)
        #expect(none.status == 1 && none.stderr.isEmpty, "\(none)")
        #expect(try none.objects().isEmpty)
        let noneText = try sandbox.memo(["search", "zebra"], library: library)
        #expect(noneText.status == 1 && noneText.stderr.isEmpty && noneText.stdout.isEmpty, "\(noneText)")
        try sandbox.fails(["search"], status: 2, containing: ["needs something to search for"], library: library)

        let deleted = try sandbox.ok(["delete", String(cafe.prefix(10))], library: library)
        #expect(deleted.stdout.contains("trash"))
        #expect(try sandbox.ok(["list", "--json"], library: library).objects().map { $0["id"] as? String } == [other])
        let trash = try sandbox.ok(["trash", "--json"], library: library).objects()
        #expect(trash.map { $0["id"] as? String } == [cafe])
        #expect(trash[0]["status"] as? String == "trashed")
        #expect(try sandbox.ok(["trash"], library: library).stdout.contains("Café list"))
        #expect(try sandbox.memo(["search", "cafe", "--json"], library: library).objects().isEmpty)  // exit status 1: no match
        // A memo in the trash can be shown, not edited or deleted again.
        #expect(try sandbox.ok(["show", cafe, "--json"], library: library).object()["status"] as? String == "trashed")
        let before = sandbox.contents(of: library)
        try sandbox.fails(["edit", cafe, "--text", "x"], status: 1, containing: ["in the trash", "restore it first"], library: library)
        try sandbox.fails(["delete", cafe], status: 1, containing: ["already in the trash"], library: library)
        try sandbox.fails(["restore", other], status: 1, containing: ["not in the trash"], library: library)
        #expect(sandbox.contents(of: library) == before)

        try sandbox.ok(["restore", String(cafe.prefix(9))], library: library)
        #expect(try sandbox.ok(["trash", "--json"], library: library).objects().isEmpty)
        #expect(Set(try sandbox.ok(["list", "--json"], library: library).objects().map { $0["id"] as? String }) == [cafe, other])
        // The restored memo is editable again.
        try sandbox.ok(["edit", cafe, "--insert", "0", "My "], library: library)
        #expect(try sandbox.ok(["show", cafe], library: library).stdout == "My Café list\nbeans")
    }

    @Test("export one memo to standard output or a file, and every memo to a folder")
    func export() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let titles = ["Plans: 2026/Q1", "con", "Plans: 2026/Q1", "", "  .hidden"]
        var ids: [String] = []
        for (index, title) in titles.enumerated() {
            ids.append(try sandbox.newMemo("\(title)\nbody \(index)", library: library))
        }
        let trashed = try sandbox.newMemo("Trashed one\nbody", library: library)
        try sandbox.ok(["delete", trashed], library: library)

        #expect(try sandbox.ok(["export", ids[0]], library: library).stdout == "Plans: 2026/Q1\nbody 0")
        let file = sandbox.at("one.txt")
        let written = try sandbox.ok(["export", ids[1], "--output", file], library: library)
        #expect(written.stdout.isEmpty)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "con\nbody 1")
        try sandbox.ok(["export", ids[2], "-o", file], library: library)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "Plans: 2026/Q1\nbody 2")
        // A folder, or a file in a missing folder: said plainly, never "NSCocoaErrorDomain error 512".
        let intoFolder = try sandbox.fails(["export", ids[0], "--output", sandbox.path], status: 1, containing: ["a folder"], library: library)
        let intoMissing = try sandbox.fails(["export", ids[0], "--output", sandbox.at("missing/x.txt")], status: 1, library: library)
        for result in [intoFolder, intoMissing] {
            #expect(!result.stderr.contains("Domain") && !result.stderr.contains("error 5"), "\(result)")
        }

        let folder = sandbox.at("exported/notes")
        let summary = try sandbox.ok(["export", "--all", folder], library: library)
        #expect(summary.stdout.contains("5 memos"))
        let names = ExportNaming.fileNames(forTitles: titles.map { MemoText.title(of: $0) })
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(Set(files) == Set(names), "\(files) vs \(names)")
        for (index, name) in names.enumerated() {
            #expect(try String(contentsOfFile: folder + "/" + name, encoding: .utf8) == "\(titles[index])\nbody \(index)")
        }

        // Existing files are not replaced without --force, and then nothing is written.
        try FileManager.default.removeItem(atPath: folder + "/" + names[4])
        try sandbox.fails(["export", "--all", folder], status: 1, containing: ["would be replaced", "--force"], library: library)
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + names[4]))
        try sandbox.ok(["edit", ids[0], "--insert", "0", "New "], library: library)
        try sandbox.ok(["export", "--all", folder, "--force"], library: library)
        // The first memo has a new name; the second "Plans" memo takes the name without " 2".
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 6)
        #expect(try String(contentsOfFile: folder + "/" + ExportNaming.fileNames(forTitles: ["New Plans: 2026/Q1"])[0], encoding: .utf8).hasPrefix("New Plans"))

        try sandbox.fails(["export", "--all", file], status: 1, containing: ["not a folder"], library: library)
        try sandbox.fails(["export", ids[0], "--all", folder], status: 2, containing: ["takes no memo id"], library: library)
        try sandbox.fails(["export"], status: 2, containing: ["needs a memo id"], library: library)
        try sandbox.fails(["export", ids[0], "--force"], status: 2, containing: ["--force"], library: library)
        try sandbox.fails(["export", ids[0], "--output", sandbox.at("missing/folder/x.txt")], status: 1, containing: ["cannot write"], library: library)
    }

    @Test("status, and sync remembering its store")
    func statusAndStore() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("one", library: library)
        let id = try sandbox.newMemo("two", library: library)
        try sandbox.ok(["delete", id], library: library)

        let fresh = try sandbox.ok(["status", "--json"], library: library).object()
        #expect(fresh["library"] as? String == library)
        let replica = try #require(fresh["replica"] as? String)
        #expect(replica.count == 16 && replica.allSatisfy(\.isHexDigit))
        #expect(fresh["memos"] as? Int == 1 && fresh["trashedMemos"] as? Int == 1)
        #expect((fresh["unsyncedEdits"] as? Int ?? 0) > 0)
        #expect(fresh["lastSync"] is NSNull && fresh["store"] is NSNull)
        let lineage = try #require(fresh["lineage"] as? [String])
        #expect(lineage == [replica], "one id: each command, closed cleanly, kept the one before's")
        let human = try sandbox.ok(["status"], library: library).stdout
        #expect(human.contains(lineage[0]) && human.contains("never") && human.contains("Unsynced edits"))

        let before = sandbox.contents(of: library)
        try sandbox.fails(["sync"], status: 2, containing: ["memo sync --store PATH"], library: library)
        #expect(sandbox.contents(of: library) == before)

        let store = sandbox.at("shared/store")
        let report = try sandbox.ok(["sync", "--store", store], library: library)
        // One segment, with the edits of the three runs of `memo` that made them (no head: every
        // operation is in a segment).
        #expect(report.stdout.contains("Synced with \(store)") && report.stdout.contains("wrote 1 blob"), "\(report)")
        let synced = try sandbox.ok(["status", "--json"], library: library).object()
        #expect(synced["store"] as? String == store)
        #expect(synced["unsyncedEdits"] as? Int == 0)
        #expect(isISODate(synced["lastSync"]))
        #expect(try sandbox.ok(["status"], library: library).stdout.contains(store))

        // Later syncs use the remembered store.
        try sandbox.ok(["restore", id], library: library)
        try sandbox.ok(["edit", id, "--text", "changed"], library: library)
        let second = try sandbox.ok(["sync", "--json"], library: library).object()
        #expect(second["store"] as? String == store)
        #expect((second["blobsWritten"] as? Int ?? 0) >= 1)
        #expect(try sandbox.ok(["status", "--json"], library: library).object()["unsyncedEdits"] as? Int == 0)

        // A remembered store that went missing is not created again.
        try FileManager.default.removeItem(atPath: sandbox.at("shared"))
        try sandbox.fails(["sync"], status: 1, containing: ["missing", store], library: library)
        #expect(!FileManager.default.fileExists(atPath: store))

        // A store that cannot be a folder: an error, and the remembered store stays.
        let file = sandbox.at("a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        try sandbox.fails(["sync", "--store", file], status: 1, containing: ["cannot use the store folder"], library: library)
        #expect(try sandbox.ok(["status", "--json"], library: library).object()["store"] as? String == store)
        // --store creates the folder again.
        try sandbox.ok(["sync", "--store", store], library: library)
        #expect(FileManager.default.fileExists(atPath: store))
    }

    @Test("the library folder: --library, MEMO_LIBRARY, then the per-user data folder")
    func libraryLocation() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        func library(_ arguments: [String], environment: [String: String]) throws -> String? {
            // 'new' creates the library where the options and environment say; status names it.
            try sandbox.ok(arguments + ["new", "probe"], environment: environment)
            return try sandbox.ok(arguments + ["status", "--json"], environment: environment).object()["library"] as? String
        }
        let env = sandbox.at("from-env")
        let option = sandbox.at("from-option")
        #expect(try library([], environment: ["MEMO_LIBRARY": env]) == env)
        #expect(try library(["--library", option], environment: ["MEMO_LIBRARY": env]) == option)
        #expect(try library(["--library=" + option], environment: [:]) == option)
        #expect(try library([], environment: ["MEMO_LIBRARY": "~/notes"]) == sandbox.home + "/notes")
        // Options may follow the command.
        #expect(try sandbox.ok(["status", "--json", "--library", option]).object()["library"] as? String == option)
        #if os(Linux)
        let xdg = sandbox.at("xdg")
        #expect(try library([], environment: ["XDG_DATA_HOME": xdg]) == xdg + "/memosync")
        #expect(try library([], environment: [:]) == sandbox.home + "/.local/share/memosync")
        // A relative XDG_DATA_HOME is invalid (XDG Base Directory specification): ignored.
        #expect(try library([], environment: ["XDG_DATA_HOME": "relative"]) == sandbox.home + "/.local/share/memosync")
        #expect(FileManager.default.fileExists(atPath: xdg + "/memosync/state"))
        #endif
        try sandbox.fails(["--library", "", "list"], status: 2, containing: ["--library"])
        // A relative --library is resolved against the current folder.
        try sandbox.ok(["--library", "relative-lib", "new", "probe"])
        #expect(try sandbox.ok(["--library", "relative-lib", "status", "--json"]).object()["library"] as? String == sandbox.at("relative-lib"))
    }

    @Test("an argument that is not UTF-8 is refused, not stored with U+FFFD")
    func invalidUTF8ArgumentIsRefused() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("first", library: library)
        let before = sandbox.contents(of: library)
        let executable = try #require(MemoExecutable.path)
        // Latin-1 "café" (0xE9): not UTF-8. Only a shell can pass such bytes to a process here.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #""$0" new "$(printf 'caf\351')" 2>"$1""#, executable, sandbox.at("stderr")]
        process.environment = ["MEMO_LIBRARY": library, "HOME": sandbox.home, "LANG": "C.UTF-8"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        let message = try String(contentsOfFile: sandbox.at("stderr"), encoding: .utf8)
        #expect(message.contains("argument 2 is not valid UTF-8"), "\(message)")
        #expect(sandbox.contents(of: library) == before, "the library changed")
    }

    /// README: "Only `memo new`, `memo import`, `memo sync` and `memo serve` create a library
    /// where there is none (and say so); every other command refuses a path without one". Every
    /// other command that works on a library, run on a path without one, fails with status 1
    /// and leaves nothing behind (`memo history --keep` once created one).
    @Test func onlyTheFourCreatingCommandsCreateALibrary() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("typo")
        let commands: [[String]] = [
            ["list"], ["show", "abc"], ["show", "abc", "--at", "abcd1234"], ["history", "abc"], ["history", "--keep", "30"],
            ["diff", "abc"], ["revert", "abc", "abcd1234"], ["edit", "abc", "--insert", "0", "x"], ["edit", "abc"], ["undo", "abc"],
            ["redo", "abc"], ["delete", "abc"], ["restore", "abc"], ["trash"], ["purge", "abc"], ["purge", "--all"],
            ["export", "abc"], ["export", "--all", sandbox.at("out")], ["status"], ["recover"], ["recover", "--restore"],
            ["store", "passphrase", "--store", sandbox.at("store")], ["store", "rotate-key", "--store", sandbox.at("store")],
            ["store", "decrypt", "--store", sandbox.at("store")],
        ]
        // README: only new, import, sync and serve create a library (and say so); help, demo and
        // completion use none; search is checked below (it exits as grep does). Every other
        // command is in the list above, so a new command must be put on one side or the other.
        let creating: Set<CommandName> = [.new, .import, .sync, .serve]
        let elsewhere: Set<CommandName> = [.help, .demo, .completion, .search]
        let listed = Set(commands.compactMap { CommandName(rawValue: $0[0]) })
        #expect(listed.union(creating).union(elsewhere) == Set(CommandName.allCases), "\(Set(CommandName.allCases).subtracting(listed.union(creating).union(elsewhere)))")
        for arguments in commands {
            try sandbox.fails(arguments, status: 1, containing: ["there is no library at \(library)"], library: library)
            #expect(!FileManager.default.fileExists(atPath: library), "\(arguments) created the library")
        }
        // `memo search` exits as grep does: 2 for an error.
        try sandbox.fails(["search", "x"], status: 2, containing: ["there is no library at \(library)"], library: library)
        #expect(!FileManager.default.fileExists(atPath: library))
        // The creating commands say so (new and serve are checked elsewhere).
        let note = sandbox.at("note.txt")
        try Data("imported\nbody".utf8).write(to: URL(fileURLWithPath: note))
        let imported = try sandbox.ok(["import", note], library: sandbox.at("by-import"))
        #expect(imported.stderr.contains("created a new library at \(sandbox.at("by-import"))"), "\(imported)")
        let synced = try sandbox.ok(["sync", "--store", sandbox.at("store")], library: sandbox.at("by-sync"))
        #expect(synced.stderr.contains("created a new library at \(sandbox.at("by-sync"))"), "\(synced)")
    }

    @Test("usage errors exit with 2, runtime errors with 1, always with a message")
    func usageErrors() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        // A read-only command never creates a library: a typo in the path is an error, and
        // leaves no folder behind.
        try sandbox.fails(["list"], status: 1, containing: ["there is no library at \(library)"], library: library)
        try sandbox.fails(["show", "abc"], status: 1, containing: ["there is no library"], library: library)
        #expect(!FileManager.default.fileExists(atPath: library))
        // 'new' creates it, and says so.
        let created = try sandbox.ok(["new", "first"], library: library)
        #expect(created.stderr.contains("created a new library at \(library)"))
        #expect(!(try sandbox.ok(["new", "second"], library: library).stderr.contains("created")))
        let cases: [([String], Int32, String)] = [
            ([], 2, "no command given"),
            (["frobnicate"], 2, "unknown command 'frobnicate'"),
            (["list", "--colour"], 2, "unknown option --colour"),
            (["list", "extra"], 2, "'list' takes no arguments"),
            (["show"], 2, "'show' needs a memo id"),
            (["show", "ab", "cd"], 2, "takes one memo id"),
            (["delete", "ab", "--store", "x"], 2, "--store does not apply to 'delete'"),
            (["new", "--store", "x"], 2, "--store does not apply to 'new'"),
            (["list", "--library"], 2, "--library needs a folder path"),
            (["list", "--json=yes"], 2, "takes no value"),
            (["new", "-3"], 2, "put -- before it"),
            (["help", "nothing"], 2, "unknown command 'nothing'"),
            (["sync", "--store", ""], 2, "--store needs a folder path"),
            (["edit", "abc", "--insert", "x", "y"], 2, "whole number"),
            (["show", "abc"], 1, "no memo has an id starting with 'abc'"),
            (["restore", "abc"], 1, "run 'memo trash'"),
        ]
        for (arguments, status, fragment) in cases {
            try sandbox.fails(arguments, status: status, containing: [fragment], library: library)
        }
        // Help goes to standard output and succeeds.
        for arguments in [["help"], ["--help"], ["-h"], ["help", "edit"], ["edit", "--help"], ["sync", "-h"]] {
            let help = try sandbox.ok(arguments, library: library)
            #expect(help.stdout.contains("Usage: memo"), "\(arguments): \(help)")
        }
        #expect(try sandbox.ok(["help", "edit"], library: library).stdout.contains("Unicode scalars"))
        for command in ["new", "list", "show", "edit", "search", "delete", "restore", "trash", "export", "sync", "status", "help"] {
            #expect(try sandbox.ok(["help"], library: library).stdout.contains("  \(command)"), "help lacks \(command)")
        }
        #if os(Linux)
        // Output that cannot be written is an error, not a silent success.
        let full = try sandbox.memo(["help"], library: library, standardOutput: "/dev/full")
        #expect(full.status == 1 && full.stderr.hasPrefix("memo: cannot write to standard output"), "\(full)")
        #endif
        // -- ends the options: text starting with a dash.
        let id = try sandbox.ok(["new", "--", "-3 degrees"], library: library).stdout.trimmingCharacters(in: .newlines)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "-3 degrees")
    }

    @Test("a failed command leaves the library exactly as it was")
    func failedCommandsChangeNothing() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("Keep me\nas I am", library: library)
        try sandbox.ok(["sync", "--store", sandbox.at("store")], library: library)
        let before = sandbox.contents(of: library)
        let failing = sandbox.at("failing-editor.sh")
        try "#!/bin/sh\nprintf 'half-done' > \"$1\"\nexit 3\n".write(toFile: failing, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: failing)

        try sandbox.fails(["edit", id, "--delete", "3", "100"], status: 1, library: library)
        try sandbox.fails(["edit", id], status: 1, containing: ["exited with status 3", "unchanged"], library: library, environment: ["EDITOR": failing])
        try sandbox.fails(["edit", id], status: 2, containing: ["no editor"], library: library)
        try sandbox.fails(["new"], status: 1, containing: ["not UTF-8"], library: library, input: [0x41, 0xFF, 0xFE])
        try sandbox.fails(["new"], status: 1, containing: ["standard input was empty"], library: library, input: [])
        try sandbox.fails(["new"], status: 1, containing: ["standard input was empty"], library: library)
        try sandbox.fails(["delete", "0000"], status: 1, library: library)
        try sandbox.fails(["restore", id], status: 1, library: library)
        let file = sandbox.at("a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        try sandbox.fails(["sync", "--store", file], status: 1, containing: ["cannot use the store folder"], library: library)
        try sandbox.fails(["export", "--all", sandbox.at("library/state")], status: 1, library: library)
        #expect(sandbox.contents(of: library) == before)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Keep me\nas I am")
    }

    @Test("store errors: the summary lists them, the exit status is 1, the store it listed is remembered")
    func storeErrors() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("unpublished", library: library)
        // The id the memo was made under (the session of `new`): the status's lineage.
        let lineage = try #require(try sandbox.ok(["status", "--json"], library: library).object()["lineage"] as? [String])
        #expect(lineage.count == 1)
        let replica = lineage[0]
        // A file where that id's folder of the store should be: publishing fails.
        let store = sandbox.at("store")
        try FileManager.default.createDirectory(atPath: store + "/memosync/v1", withIntermediateDirectories: true)
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: store + "/memosync/v1/" + replica))
        // Another device published a memo: received before the failed write, and kept ("a failed
        // command changes nothing, except a sync, which keeps what it received": `memo help`).
        let other = sandbox.at("other")
        _ = try sandbox.newMemo("from the other device", library: other)
        try sandbox.ok(["sync", "--store", store], library: other)

        let human = try sandbox.memo(["sync", "--store", store], library: library)
        #expect(human.status == 1, "\(human)")
        let titles = try sandbox.ok(["list", "--json"], library: library).objects().compactMap { $0["title"] as? String }
        #expect(titles.sorted() == ["from the other device", "unpublished"], "\(titles)")
        #expect(human.stdout.contains("Store errors:") && human.stdout.contains("writing memosync/v1/\(replica)/segments/"), "\(human)")
        #expect(human.stderr.hasPrefix("memo: the sync did not finish: writing"), "\(human)")
        #expect(human.stdout.contains("run 'memo sync' again"), "\(human)")
        let json = try sandbox.memo(["sync", "--store", store, "--json"], library: library)
        #expect(json.status == 1)
        let report = try json.object()
        #expect((report["errors"] as? [String])?.count == 1)
        #expect(report["publishedSegment"] is NSNull)
        let status = try sandbox.ok(["status", "--json"], library: library).object()
        // Remembered all the same: the summary says to run 'memo sync' again (issue 29, message 1).
        #expect(status["store"] as? String == store, "\(status)")
        #expect((status["unsyncedEdits"] as? Int ?? 0) > 0)

        // Once the way is clear, the edits go out.
        try FileManager.default.removeItem(atPath: store + "/memosync/v1/" + replica)
        try sandbox.ok(["sync"], library: library)
        let after = try sandbox.ok(["status", "--json"], library: library).object()
        #expect(after["store"] as? String == store && after["unsyncedEdits"] as? Int == 0)
    }

    /// `memo list` on a terminal fits each row to its width (a long title cut with "…", wide
    /// characters counted as two columns); through a pipe the title stays whole. The terminal is
    /// a pseudo-terminal of util-linux script(1), 40 columns wide.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) of util-linux"))
    func listFitsTheTerminalWidth() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let long = String(repeating: "a long title ", count: 30)
        _ = try sandbox.newMemo(long, library: library)
        _ = try sandbox.newMemo(String(repeating: "한국어 ", count: 30), library: library)
        let piped = try sandbox.ok(["list"], library: library)
        #expect(piped.stdout.contains(long.trimmingCharacters(in: .whitespaces)), "\(piped)")
        let memo = try #require(MemoExecutable.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "stty cols 40; '\(memo)' --library '\(library)' list", "/dev/null"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.path, "TZ": "UTC", "LANG": "C.UTF-8"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let rows = output.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }  // a pty ends lines with CR LF
        #expect(rows.count == 2, "\(output)")
        for row in rows {
            #expect(Format.displayWidth(row) <= 40 && row.hasSuffix("…"), "\(row) (\(Format.displayWidth(row)) columns)")
        }
    }
}
