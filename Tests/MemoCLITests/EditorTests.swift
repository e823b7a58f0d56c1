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
