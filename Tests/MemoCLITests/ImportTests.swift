// `memo import`: text and Markdown files and folders, their dates, encodings, duplicates, and
// the round trip through `memo export --all`.

import Foundation
import MemoSync
import Testing

@testable import memo

@Suite("memo import")
struct ImportTests {
    private func write(_ bytes: [UInt8], to path: String, modified: Date? = nil) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        if let modified { try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path) }
    }

    @Test("files and folders: title from the first line, dates from the file, BOM dropped, CR LF made LF")
    func importsFilesAndFolders() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let notes = sandbox.at("notes")
        let march = Date(timeIntervalSince1970: 1_741_000_000)  // 2025-03-03
        let may = Date(timeIntervalSince1970: 1_747_000_000)  // 2025-05-11
        try write(Array("Groceries\r\nmilk\r\neggs".utf8), to: notes + "/groceries.txt", modified: march)
        try write([0xEF, 0xBB, 0xBF] + Array("# 회의록\n안건".utf8), to: notes + "/sub/meeting.md", modified: may)
        try write(Array("ignored".utf8), to: notes + "/picture.png")
        try write(Array("hidden".utf8), to: notes + "/.hidden/secret.txt")
        let single = sandbox.at("single.markdown")
        try write(Array("日本語のメモ\n本文".utf8), to: single)

        let result = try sandbox.ok(["import", notes, single], library: library)
        #expect(result.stdout.contains("Imported 3 memos"), "\(result)")
        let memos = try sandbox.ok(["list", "--json"], library: library).objects()
        let byTitle = Dictionary(uniqueKeysWithValues: memos.map { ($0["title"] as? String ?? "", $0) })
        #expect(Set(byTitle.keys) == ["Groceries", "# 회의록", "日本語のメモ"])
        let groceries = try #require(byTitle["Groceries"]?["id"] as? String)
        #expect(try sandbox.ok(["show", groceries], library: library).stdout == "Groceries\nmilk\neggs")
        #expect(byTitle["Groceries"]?["modifiedAt"] as? String == "2025-03-03T11:06:40.000Z")
        #expect(byTitle["Groceries"]?["createdAt"] as? String == "2025-03-03T11:06:40.000Z")
        #expect(byTitle["# 회의록"]?["modifiedAt"] as? String == "2025-05-11T21:46:40.000Z")
        let meeting = try #require(byTitle["# 회의록"]?["id"] as? String)
        #expect(try sandbox.ok(["show", meeting], library: library).stdoutBytes == Array("# 회의록\n안건".utf8))
    }

    /// A file dated in the future is imported at the time of the import: its date would
    /// otherwise move the library's clock (which never goes back) there, and every later change,
    /// here and on every device syncing, would carry it (exploratory test of 2026-12-02).
    @Test("a file dated in the future is imported at the time of the import; later changes keep today's dates")
    func aFileDatedInTheFutureDoesNotMoveTheClock() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let future = sandbox.at("photo-notes.txt")
        try write(Array("old photo notes".utf8), to: future, modified: Date(timeIntervalSince1970: 7_258_118_400))  // 2200-01-01
        let imported = try sandbox.ok(["import", future, "--json"], library: library).object()
        let id = try #require((imported["imported"] as? [[String: Any]])?.first?["id"] as? String, "\(imported)")
        let year = String(Calendar(identifier: .gregorian).component(.year, from: Date()))
        let memo = try sandbox.ok(["show", id, "--json"], library: library).object()
        #expect((memo["modifiedAt"] as? String)?.hasPrefix(year) == true && (memo["createdAt"] as? String)?.hasPrefix(year) == true, "\(memo)")
        let later = try sandbox.newMemo("written after the import", library: library)
        let laterMemo = try sandbox.ok(["show", later, "--json"], library: library).object()
        #expect((laterMemo["modifiedAt"] as? String)?.hasPrefix(year) == true, "\(laterMemo)")
    }

    /// `memo help import`: ".text" files are imported too, and "a date earlier than a change
    /// the library already holds becomes just after it"; `memo help export`: "to standard
    /// output (also with --output -)".
    @Test(".text files; a date older than the library's last change comes just after it; export --output -")
    func textFilesEarlierDatesAndExportToStandardOutput() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        // A change the library holds now (its clock is past 2025).
        let existing = try sandbox.newMemo("written today", library: library)
        let before = try #require(try sandbox.ok(["show", existing, "--json"], library: library).object()["modifiedAt"] as? String)
        let old = sandbox.at("old.text")
        try write(Array("An old note\nfrom 2001".utf8), to: old, modified: Date(timeIntervalSince1970: 1_000_000_000))
        let imported = try sandbox.ok(["import", old, "--json"], library: library).object()
        let id = try #require((imported["imported"] as? [[String: Any]])?.first?["id"] as? String, "\(imported)")
        let memo = try sandbox.ok(["show", id, "--json"], library: library).object()
        let modified = try #require(memo["modifiedAt"] as? String)
        // ISO 8601 in UTC compares as text: not in 2001 but at the existing change's time (to
        // the millisecond; "just after" is a step of the hybrid clock's counter there).
        #expect(modified >= before && !modified.hasPrefix("2001"), "\(modified) after \(before)")
        #expect(memo["text"] as? String == "An old note\nfrom 2001")
        // Newest first: the imported memo lists above the one written before the import.
        let listed = try sandbox.ok(["list", "--json"], library: library).objects().compactMap { $0["id"] as? String }
        #expect(listed.first.map { id.hasPrefix($0) || $0.hasPrefix(id) } == true, "\(listed)")

        let toStandardOutput = try sandbox.ok(["export", id, "--output", "-"], library: library)
        #expect(toStandardOutput.stdout == "An old note\nfrom 2001", "\(toStandardOutput)")
        #expect(toStandardOutput.stdout == (try sandbox.ok(["export", id], library: library).stdout))
    }

    @Test("a folder's symbolic links are followed inside it only: a link out of it refuses the import")
    func linksOutOfTheFolderAreNotFollowed() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let notes = sandbox.at("notes")
        try write(Array("inside".utf8), to: notes + "/a.txt")
        try write(Array("private".utf8), to: sandbox.at("private/secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: notes + "/alias.txt", withDestinationPath: notes + "/a.txt")
        try FileManager.default.createSymbolicLink(atPath: notes + "/out.txt", withDestinationPath: sandbox.at("private/secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: notes + "/outfolder", withDestinationPath: sandbox.at("private"))
        let refused = try sandbox.fails(["import", notes], status: 1, containing: ["out.txt", "symbolic link"], library: library)
        #expect(!refused.stderr.contains("alias.txt"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: library), "a refused import made a library")
        // Without the links out, the link inside is imported like any file.
        try FileManager.default.removeItem(atPath: notes + "/out.txt")
        try FileManager.default.removeItem(atPath: notes + "/outfolder")
        let imported = try sandbox.ok(["import", notes, "--again"], library: library)
        #expect(imported.stdout.contains("Imported 2 memos"), "\(imported)")
        #expect(try sandbox.ok(["list", "--json"], library: library).objects().allSatisfy { $0["title"] as? String == "inside" })
    }

    /// A pipe, socket or device inside a folder is refused with the reason, never opened: a
    /// FIFO named like a note once made the import wait for good. (Named on the command line,
    /// a pipe is read: `memo import <(cmd)`.)
    @Test func specialFilesInAFolderAreRefusedNotOpened() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let notes = sandbox.at("notes")
        try write(Array("inside".utf8), to: notes + "/a.txt")
        let fifo = notes + "/pipe.txt"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Should the import open it after all, a writer comes after 30 s and ends the wait, so
        // the test fails instead of hanging.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
        let refused = try sandbox.fails(["import", notes], status: 1, containing: ["pipe.txt", "not a regular file"], library: library)
        #expect(!refused.stderr.contains("a.txt:"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: library), "a refused import made a library")
        // Named on the command line, a pipe with a writer is read.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "printf 'From a pipe' > \"$0\"", fifo]
        try writer.run()
        let imported = try sandbox.ok(["import", fifo], library: library)
        writer.waitUntilExit()
        #expect(imported.stdout.contains("Imported 1 memo"), "\(imported)")
    }

    @Test("the same files twice: no duplicates unless --again")
    func noDuplicates() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let file = sandbox.at("note.txt")
        try write(Array("Once\nonly".utf8), to: file)
        try write(Array("Once\nonly".utf8), to: sandbox.at("copy/same.txt"))
        try sandbox.ok(["import", file, sandbox.at("copy")], library: library)
        #expect(try sandbox.ok(["list", "--json"], library: library).objects().count == 1)
        let again = try sandbox.ok(["import", file, "--json"], library: library).object()
        #expect((again["imported"] as? [Any])?.isEmpty == true && (again["skipped"] as? [String]) == [file])
        // In the trash counts too: importing does not bring back what was deleted.
        let id = try #require(try sandbox.ok(["list", "--json"], library: library).objects().first?["id"] as? String)
        try sandbox.ok(["delete", id], library: library)
        #expect(try sandbox.ok(["import", file], library: library).stdout.contains("Skipped 1 file"))
        try sandbox.ok(["import", file, "--again"], library: library)
        #expect(try sandbox.ok(["list", "--json"], library: library).objects().count == 1)
        #expect(try sandbox.ok(["trash", "--json"], library: library).objects().count == 1)
    }

    @Test("other encodings are refused with the reason, and nothing is imported")
    func otherEncodingsRefused() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("existing", library: library)
        let before = sandbox.contents(of: library)
        try write(Array("fine".utf8), to: sandbox.at("in/ok.txt"))
        try write([0xFF, 0xFE, 0x41, 0x00], to: sandbox.at("in/utf16.txt"))
        try write([0x63, 0x61, 0x66, 0xE9], to: sandbox.at("in/latin1.txt"))
        try sandbox.fails(["import", sandbox.at("in")], status: 1, containing: ["utf16.txt: is UTF-16", "latin1.txt: is not UTF-8", "nothing was imported"], library: library)
        try sandbox.fails(["import", sandbox.at("missing.txt")], status: 1, containing: ["missing.txt: no such file"], library: library)
        try sandbox.fails(["import"], status: 2, library: library)
        #expect(sandbox.contents(of: library) == before)
        #expect(try sandbox.ok(["list", "--json"], library: library).objects().map { $0["id"] as? String } == [id])
        try sandbox.fails(["import", sandbox.at("in/latin1.txt")], status: 1, containing: ["UTF-8 텍스트가 아닙니다", "latin1.txt"], library: library, environment: ["LANG": "ko_KR.UTF-8"])
    }

    @Test("export --all then import into an empty library gives the same memos")
    func roundTrip() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let first = sandbox.at("first")
        let texts = [
            "Groceries\nmilk", "Ideas\r\nwith a CR LF kept in the memo? no: made LF", "한국어 메모\n본문", "", "Same title\none", "Same title\ntwo",
            "😀 emoji\n", "\u{FEFF}A byte order mark first\nthen text",
        ]
        for text in texts { try sandbox.ok(["new", text], library: first) }
        try sandbox.ok(["export", "--all", sandbox.at("out")], library: first)
        let second = sandbox.at("second")
        try sandbox.ok(["import", sandbox.at("out")], library: second)
        func memos(_ library: String) throws -> [String: String] {
            var result: [String: String] = [:]
            for memo in try sandbox.ok(["list", "--json"], library: library).objects() {
                let text = try sandbox.ok(["show", memo["id"] as? String ?? ""], library: library).stdout
                result[text] = (memo["modifiedAt"] as? String).map { String($0.prefix(19)) }
            }
            return result
        }
        let original = try memos(first)
        let imported = try memos(second)
        // The same texts (CR LF becomes LF on import, a byte order mark at the start is dropped:
        // `memo help export` says both), each with its last change to the second.
        func asImported(_ text: String) -> String {
            let lf = text.replacingOccurrences(of: "\r\n", with: "\n")
            return lf.hasPrefix("\u{FEFF}") ? String(lf.dropFirst()) : lf
        }
        #expect(original.keys.contains { $0.hasPrefix("\u{FEFF}") } && original.keys.contains { $0.contains("\r\n") }, "\(original.keys)")
        let expected = Dictionary(uniqueKeysWithValues: original.map { (asImported($0.key), $0.value) })
        #expect(imported == expected)
        #expect(imported.count == texts.count)
    }

    @Test("decoding: BOM, CR LF, lone CR kept, invalid UTF-8 refused")
    func decoding() {
        #expect(ImportedFile.decode([0xEF, 0xBB, 0xBF] + Array("a\r\nb".utf8)) == "a\nb")
        #expect(ImportedFile.decode(Array("a\rb\r".utf8)) == "a\rb\r")
        #expect(ImportedFile.decode(Array("\r\n\r\n".utf8)) == "\n\n")
        #expect(ImportedFile.decode([0xC3, 0x28]) == nil)
    }

    /// `memo help export` says the import it names gives the same memos back, and `memo help
    /// import` shows it for moving a library: memos whose texts are the same come back too
    /// (a plain import skips them as duplicates).
    @Test("the round trip the help gives keeps memos whose texts are the same")
    func roundTripAsTheHelpSays() throws {
        let (export, importing) = MemoLanguage.$taskLanguage.withValue(.english) {
            (Help.page(.export).split(whereSeparator: \.isWhitespace).joined(separator: " "), Help.page(.import))
        }
        #expect(export.contains("so 'memo import --again DIR' gives the same memos back"), "\(export)")
        #expect(importing.contains("memo export --all backup && memo --library new-library import --again backup"), "\(importing)")

        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let first = sandbox.at("first")
        let texts = ["Call mom", "Call mom", "Other", "Call mom"]
        for text in texts { try sandbox.ok(["new", text], library: first) }
        let backup = sandbox.at("backup")
        try sandbox.ok(["export", "--all", backup], library: first)
        let second = sandbox.at("new-library")
        try sandbox.ok(["--library", second, "import", "--again", backup])
        let listed = try sandbox.ok(["list", "--json"], library: second).objects()
        let imported = try listed.map { try sandbox.ok(["show", $0["id"] as? String ?? ""], library: second).stdout }
        #expect(imported.sorted() == texts.sorted())
    }
}
