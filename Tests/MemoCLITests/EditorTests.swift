// `memo edit ID` with an editor: small shell scripts stand in for one.

import Foundation
import Testing

@Suite("memo edit with an editor")
struct EditorTests {
    /// Writes an executable shell script `name` into the sandbox and returns its path.
    private func script(_ sandbox: Sandbox, _ name: String, _ body: String) throws -> String {
        let path = sandbox.at(name)
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    @Test("the editor's result becomes the text; the file it gets holds the text")
    func editorRewritesText() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("Original title\nline two", library: library)

        let rewrite = try script(sandbox, "rewrite.sh", #"printf 'new text' > "$1""#)
        try sandbox.ok(["edit", String(id.prefix(8))], library: library, environment: ["EDITOR": rewrite])
        #expect(try sandbox.ok(["show", id], library: library).stdout == "new text")

        // The editor sees the current text: append to it. Its "\n" at the end is dropped,
        // since the text had none (as most editors add one).
        let append = try script(sandbox, "append.sh", #"printf ' and more\n' >> "$1""#)
        try sandbox.ok(["edit", id], library: library, environment: ["EDITOR": append])
        #expect(try sandbox.ok(["show", id], library: library).stdout == "new text and more")
        // A text that ends with a line break keeps the editor's.
        try sandbox.ok(["edit", id, "--text", "ends with a break\n"], library: library)
        try sandbox.ok(["edit", id], library: library, environment: ["EDITOR": append])
        #expect(try sandbox.ok(["show", id], library: library).stdout == "ends with a break\n and more\n")

        // VISUAL wins over EDITOR; the command may carry arguments (run by the shell).
        let copy = try script(sandbox, "copy.sh", #"printf '%s' "$1" > "$2""#)
        try sandbox.ok(["edit", id], library: library, environment: ["VISUAL": "\(copy) 'from visual'", "EDITOR": rewrite])
        #expect(try sandbox.ok(["show", id], library: library).stdout == "from visual")
        // An empty VISUAL is ignored.
        try sandbox.ok(["edit", id], library: library, environment: ["VISUAL": "", "EDITOR": rewrite])
        #expect(try sandbox.ok(["show", id], library: library).stdout == "new text")

        // An editor that leaves the file alone changes nothing.
        let before = sandbox.contents(of: library)
        try sandbox.ok(["edit", id], library: library, environment: ["EDITOR": "true"])
        #expect(try sandbox.ok(["show", id], library: library).stdout == "new text")
        #expect(sandbox.contents(of: library) == before)

        // Failures: the memo stays as it was.
        let invalid = try script(sandbox, "invalid.sh", #"printf '\377\376' > "$1""#)
        let invalidRun = try sandbox.fails(["edit", id], status: 1, containing: ["not valid UTF-8", "kept in"], library: library, environment: ["EDITOR": invalid])
        try removeKeptFile(named: invalidRun.stderr, expecting: [0xFF, 0xFE])
        // An editor that fails after text was typed: the memo is unchanged, and what was typed
        // is kept in the file the message names (as git keeps a failed commit's message).
        let typedThenFailed = try script(sandbox, "typed-then-failed.sh", #"printf ' typed' >> "$1"; exit 3"#)
        let failedRun = try sandbox.fails(["edit", id], status: 1, containing: ["exited with status 3", "kept in"], library: library, environment: ["EDITOR": typedThenFailed])
        try removeKeptFile(named: failedRun.stderr, expecting: Array("new text typed".utf8))
        // An editor that fails having typed nothing leaves no file behind.
        try sandbox.fails(["edit", id], status: 1, containing: ["exited with status 1"], library: library, environment: ["EDITOR": "false"])
        try sandbox.fails(["edit", id], status: 1, containing: ["exited with status"], library: library, environment: ["EDITOR": sandbox.at("no-such-editor")])
        let removing = try script(sandbox, "remove.sh", #"rm "$1""#)
        try sandbox.fails(["edit", id], status: 1, containing: ["cannot read the edited file"], library: library, environment: ["EDITOR": removing])
        #expect(sandbox.contents(of: library) == before)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "new text")

        // The temporary files are gone afterwards.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("memo-\(id.prefix(8))") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// Reads the file an error message says holds the typed text, checks its bytes, removes it.
    private func removeKeptFile(named message: String, expecting bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let range = message.range(of: "kept in ") else {
            Issue.record("no kept file in: \(message)", sourceLocation: sourceLocation)
            return
        }
        let path = String(message[range.upperBound...].prefix { !$0.isNewline })
        let kept = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(kept == bytes, "\(path) holds \(kept)", sourceLocation: sourceLocation)
        try FileManager.default.removeItem(atPath: path)
    }

    @Test("while the editor runs, the library is not held: another memo reads and changes it")
    func libraryFreeDuringEdit() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("text", library: library)
        let executable = try #require(MemoExecutable.path)
        // The "editor" runs memo itself, against the same library, and records what it said.
        let nested = try script(sandbox, "nested.sh", """
            "$MEMO_UNDER_TEST" list > "$OUT_DIR/nested-out" 2> "$OUT_DIR/nested-err" &&
            "$MEMO_UNDER_TEST" new "made meanwhile" >> "$OUT_DIR/nested-out" 2>> "$OUT_DIR/nested-err"
            echo $? > "$OUT_DIR/nested-status"
            printf 'edited' > "$1"
            """)
        try sandbox.ok(["edit", id], library: library, environment: ["EDITOR": nested, "MEMO_UNDER_TEST": executable, "OUT_DIR": sandbox.path])
        #expect(try String(contentsOfFile: sandbox.at("nested-status"), encoding: .utf8) == "0\n")
        #expect(try String(contentsOfFile: sandbox.at("nested-out"), encoding: .utf8).contains("text"))
        #expect(try sandbox.ok(["show", id], library: library).stdout == "edited")
        #expect(try sandbox.ok(["list", "--json"], library: library).objects().count == 2)
    }
}

/// What the commands do on a terminal (run under `script(1)`, which gives them one): `memo
/// help edit` says "vi on a terminal when neither is set", `memo help new` "standard input
/// when it is not a terminal, else your editor", `memo help show` "on a terminal, a final line
/// break is added if the text has none".
@Suite("memo on a terminal")
struct TerminalTests {
    @Test("vi when no editor is set; new opens the editor on a terminal; show ends the line there")
    func editorsAndLineBreaksOnATerminal() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let executable = try #require(MemoExecutable.path)
        let library = sandbox.at("library")
        // A `vi` of our own, first on the PATH: it appends to the file it is given.
        let bin = sandbox.at("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\nprintf ' edited in vi' >> \"$1\"\n".write(toFile: bin + "/vi", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/vi")
        let editor = sandbox.at("editor.sh")
        try "#!/bin/sh\nprintf 'typed in the editor' > \"$1\"\n".write(toFile: editor, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: editor)
        let base = ["MEMO_LIBRARY": library, "HOME": sandbox.home, "LANG": "C.UTF-8", "TZ": "UTC", "PATH": bin + ":/usr/bin:/bin"]
        func onTerminal(_ arguments: String, _ environment: [String: String]) throws -> String {
            try MemoCLITests.onTerminal("\(executable) \(arguments)", environment: environment)
        }
        // `memo new` on a terminal with no text: the editor ($EDITOR here).
        _ = try onTerminal("new", base.merging(["EDITOR": editor]) { $1 })
        let created = try sandbox.ok(["list", "--json"], library: library).objects()
        #expect(created.map { $0["title"] as? String } == ["typed in the editor"], "\(created)")
        let id = try #require(created.first?["id"] as? String)
        // `memo edit` on a terminal, neither VISUAL nor EDITOR set: vi.
        _ = try onTerminal("edit \(id)", base)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "typed in the editor edited in vi")
        // Piped, `show` prints the text exactly; on a terminal it ends the line.
        let shown = try onTerminal("show \(id)", base)
        #expect(shown == "typed in the editor edited in vi\r\n", "\(Array(shown.utf8.suffix(4)))")
        // `memo help search`: exit status 1 when nothing matched, "nothing is printed but on a
        // terminal".
        let unmatchedOnTerminal = try onTerminal("search zzz; echo status=$?", base)
        #expect(unmatchedOnTerminal.contains("(no memo matches)") && unmatchedOnTerminal.contains("status=1"), "\(unmatchedOnTerminal)")
        let unmatched = try sandbox.memo(["search", "zzz"], library: library)
        #expect(unmatched.status == 1 && unmatched.stdout.isEmpty && unmatched.stderr.isEmpty, "\(unmatched)")
        // Without a terminal and no editor set, `edit` refuses instead of running vi.
        try sandbox.fails(["edit", id], status: 2, containing: [], library: library)
    }
}
