// The undo history file (cli-history.json) and its failures: a command's exit status tells
// whether its change was saved, even when the history cannot be written (a full disk: the
// tests' hook MEMO_TEST_FAIL_HISTORY_WRITE=1); a purge never leaves the purged text in it; a
// history that is not valid JSON is kept aside and undo starts afresh.

import Foundation
import Testing

@Suite("the undo history file")
struct HistoryFileCLITests {
    private let failHistory = ["MEMO_TEST_FAIL_HISTORY_WRITE": "1"]

    @Test("an edit saved with no undo step written: exit 0, a warning that says so")
    func editSavedWithoutItsStep() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("first", library: library)
        try sandbox.ok(["edit", id, "--text", "second"], library: library)
        let history = try #require(FileManager.default.contents(atPath: library + "/cli-history.json"))

        let result = try sandbox.memo(["edit", id, "--text", "third"], library: library, environment: failHistory)
        #expect(result.status == 0, "the edit was saved: a retry would make it twice\n\(result)")
        #expect(result.stderr.contains("the edit was saved; its undo step could not be recorded"), "\(result)")
        #expect(result.stderr.contains("the disk is full"), "\(result)")
        #expect(try sandbox.ok(["show", id], library: library).stdout == "third")
        #expect(FileManager.default.contents(atPath: library + "/cli-history.json") == history)
        let korean = try sandbox.memo(["edit", id, "--text", "fourth"], library: library, environment: failHistory.merging(["LANG": "ko_KR.UTF-8"]) { $1 })
        #expect(korean.status == 0 && korean.stderr.contains("편집은 저장했지만") && korean.stderr.contains("디스크가 가득 찼습니다"), "\(korean)")
        let japanese = try sandbox.memo(["edit", id, "--text", "fifth"], library: library, environment: failHistory.merging(["LANG": "ja_JP.UTF-8"]) { $1 })
        #expect(japanese.status == 0 && japanese.stderr.contains("編集は保存しましたが") && japanese.stderr.contains("ディスクがいっぱいです"), "\(japanese)")
    }

    @Test("an undo or redo whose history cannot be written fails and changes nothing; a retry takes the step once")
    func undoFailsWhole() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("one", library: library)
        try sandbox.ok(["edit", id, "--text", "one two"], library: library)
        try sandbox.ok(["edit", id, "--text", "one two three"], library: library)
        let before = sandbox.contents(of: library)

        try sandbox.fails(["undo", id], status: 1, containing: ["the disk is full"], library: library, environment: failHistory)
        #expect(sandbox.contents(of: library) == before, "a failed undo changed the library folder")
        try sandbox.ok(["undo", id], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "one two")
        try sandbox.ok(["undo", id], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "one")

        let undone = sandbox.contents(of: library)
        try sandbox.fails(["redo", id], status: 1, containing: ["the disk is full"], library: library, environment: failHistory)
        #expect(sandbox.contents(of: library) == undone)
        try sandbox.ok(["redo", id], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "one two")
    }

    @Test("a purge whose history cannot be written purges nothing; when it can, the text is gone from it")
    func purgeNeverLeavesTheTextInTheHistory() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let secret = "pin 2580"
        let id = try sandbox.newMemo("pin", library: library)
        try sandbox.ok(["edit", id, "--text", secret], library: library)
        try sandbox.ok(["delete", id], library: library)
        let before = sandbox.contents(of: library)

        try sandbox.fails(["purge", id], status: 1, containing: ["the disk is full"], library: library, environment: failHistory)
        #expect(sandbox.contents(of: library) == before, "a failed purge changed the library folder")
        #expect(try sandbox.ok(["trash"], library: library).stdout.contains(secret))
        try sandbox.ok(["purge", id], library: library)
        let holding = sandbox.contents(of: library).filter { String(decoding: $0.value, as: UTF8.self).contains(secret) }.keys.sorted()
        #expect(holding == [], "\(holding)")
    }

    @Test("a history that is not valid JSON is kept aside, undo starts afresh, the command goes on (exit 4)")
    func damagedHistoryKeptAside() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("before", library: library)
        let path = library + "/cli-history.json"
        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: path))

        let edit = try sandbox.memo(["edit", id, "--text", "after"], library: library)
        #expect(edit.status == 4, "\(edit)")
        #expect(edit.stderr.contains("the undo history \(path) is not valid JSON"), "\(edit)")
        #expect(edit.stderr.contains(path + ".damaged-1"), "\(edit)")
        #expect(!edit.stderr.contains("the file operation failed"), "\(edit)")
        #expect(FileManager.default.contents(atPath: path + ".damaged-1") == Data("garbage\n".utf8), "kept, untouched")
        #expect(try sandbox.ok(["show", id], library: library).stdout == "after")
        // The new history works: the edit just made is undone.
        try sandbox.ok(["undo", id], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "before")

        // Again: kept under the next free name, never over the first copy.
        try Data("{\"undo\": 3}".utf8).write(to: URL(fileURLWithPath: path))
        let korean = try sandbox.memo(["redo", id], library: library, environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.stderr.contains(path + ".damaged-2") && korean.stderr.contains("올바른 JSON이 아닙니다"), "\(korean)")
        #expect(FileManager.default.contents(atPath: path + ".damaged-1") == Data("garbage\n".utf8))
        #expect(FileManager.default.contents(atPath: path + ".damaged-2") == Data("{\"undo\": 3}".utf8))
    }
}
