// The smaller commands and flags: --version, --quiet, undo and redo, purge, --json on every
// command that prints, exit statuses, help by task, the man page, completions, progress.

import Foundation
import Testing

@testable import memo

@Suite("memo commands and flags (issue 17)")
struct FeatureTests {
    @Test("--version prints the version; --quiet leaves standard error to errors")
    func versionAndQuiet() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        #expect(try sandbox.ok(["--version"]).stdout.hasPrefix("memo 0."))
        let version = try sandbox.ok(["--version", "--json"]).object()
        #expect((version["memo"] as? String)?.hasPrefix("0.") == true && version["libraryFormat"] as? Int == 4)
        let quiet = try sandbox.ok(["new", "--quiet", "text"], library: sandbox.at("quiet"))
        #expect(quiet.stderr.isEmpty, "\(quiet)")
        let loud = try sandbox.ok(["new", "text"], library: sandbox.at("loud"))
        #expect(loud.stderr.contains("created a new library"))
        try sandbox.fails(["show", "-q", "abc"], status: 1, containing: ["no memo"], library: sandbox.at("quiet"))
    }

    @Test("undo and redo the edits memo made, keeping edits made since")
    func undoRedo() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("Shopping\nmilk", library: library)
        try sandbox.fails(["undo", id], status: 1, containing: ["nothing to undo"], library: library)
        try sandbox.ok(["edit", id, "--text", "Shopping\nmilk\neggs"], library: library)
        try sandbox.ok(["edit", id, "--insert", "0", "My "], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "My Shopping\nmilk\neggs")
        #expect(try sandbox.ok(["undo", id], library: library).stdout.contains("Undid"))
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Shopping\nmilk\neggs")
        let undone = try sandbox.ok(["undo", id, "--json"], library: library).object()
        #expect(undone["text"] as? String == "Shopping\nmilk")
        try sandbox.ok(["redo", id], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Shopping\nmilk\neggs")
        try sandbox.ok(["redo", id], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "My Shopping\nmilk\neggs")
        try sandbox.fails(["redo", id], status: 1, containing: ["nothing to redo"], library: library)
        // `memo help redo`: "A new edit of the memo clears what can be redone."
        try sandbox.ok(["undo", id], library: library)
        try sandbox.ok(["edit", id, "--insert", "0", "Our "], library: library)
        try sandbox.fails(["redo", id], status: 1, containing: ["nothing to redo"], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "Our Shopping\nmilk\neggs")
        try sandbox.ok(["undo", id], library: library)
        try sandbox.ok(["edit", id, "--text", "My Shopping\nmilk\neggs"], library: library)

        // Undo merges with what changed since the edit.
        let other = sandbox.at("other")
        let store = sandbox.at("store")
        try sandbox.ok(["sync", "--store", store], library: library)
        try sandbox.ok(["sync", "--store", store], library: other)
        try sandbox.ok(["edit", id, "--text", "My Shopping\nmilk\neggs\nbread"], library: library)
        try sandbox.ok(["edit", id, "--insert", "0", "(Sat) "], library: other)
        try sandbox.ok(["sync"], library: other)
        try sandbox.ok(["sync"], library: library)
        try sandbox.ok(["undo", id], library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "(Sat) My Shopping\nmilk\neggs")
    }

    /// `memo help undo`: "Each memo keeps its last 20 edits" (FORMAT.md: at most 20 steps per
    /// memo and direction). After 22 edits, 20 undo and the 21st finds nothing; the text is the
    /// one after the second edit, the oldest two steps having been dropped.
    @Test func eachMemoKeepsItsLast20Edits() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        // `memo help new`: 'memo new ""' creates an empty memo.
        let id = try sandbox.newMemo("", library: library)
        #expect(try sandbox.ok(["show", id], library: library).stdout == "")
        for index in 0..<22 { try sandbox.ok(["edit", id, "--insert", "\(index)", "\(index % 10)"], library: library) }
        #expect(try sandbox.ok(["show", id], library: library).stdout == "0123456789012345678901")
        let file = try #require(FileManager.default.contents(atPath: library + "/cli-history.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        #expect((object["undo"] as? [String: [Any]])?.values.first?.count == 20)
        for _ in 0..<20 { try sandbox.ok(["undo", id], library: library) }
        #expect(try sandbox.ok(["show", id], library: library).stdout == "01")
        try sandbox.fails(["undo", id], status: 1, containing: ["nothing to undo"], library: library)
    }

    @Test("purge deletes memos in the trash for good; --all empties the trash")
    func purge() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let a = try sandbox.newMemo("first", library: library)
        let b = try sandbox.newMemo("second", library: library)
        let c = try sandbox.newMemo("third", library: library)
        try sandbox.ok(["edit", a, "--text", "first, edited"], library: library)
        try sandbox.ok(["delete", a], library: library)
        try sandbox.ok(["delete", b], library: library)
        // Not in the trash: refused, and nothing is purged.
        let before = sandbox.contents(of: library)
        try sandbox.fails(["purge", a, c], status: 1, containing: ["not in the trash", "nothing was purged"], library: library)
        #expect(sandbox.contents(of: library) == before)
        try sandbox.fails(["purge"], status: 2, containing: ["--all"], library: library)
        try sandbox.fails(["purge", "--all", a], status: 2, library: library)
        let purged = try sandbox.ok(["purge", a, "--json"], library: library).object()
        #expect(purged["purged"] as? [String] == [a])
        try sandbox.fails(["show", a], status: 1, library: library)
        let history = (try? String(contentsOfFile: library + "/cli-history.json", encoding: .utf8)) ?? ""
        #expect(!history.contains(a) && !history.contains("first, edited"), "a purged memo's texts do not linger in the undo history")
        #expect(try sandbox.ok(["purge", "--all"], library: library).stdout.contains("1 memo"))
        #expect(try sandbox.ok(["trash", "--json"], library: library).objects().isEmpty)
        #expect(try sandbox.ok(["purge", "--all", "--json"], library: library).object()["purged"] as? [String] == [])
        #expect(try sandbox.ok(["list", "--json"], library: library).objects().count == 1)
    }

    @Test("--json on every command that prints something")
    func jsonEverywhere() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let store = sandbox.at("store")
        let created = try sandbox.ok(["new", "Groceries\nmilk", "--json"], library: library).object()
        let id = try #require(created["id"] as? String)
        #expect(created["text"] as? String == "Groceries\nmilk" && isISODate(created["createdAt"]))
        let runs: [[String]] = [
            ["list"], ["show", id], ["search", "milk"], ["status"], ["sync", "--store", store],
            ["edit", id, "--insert", "0", "My "], ["undo", id], ["redo", id], ["delete", id], ["trash"],
            ["restore", id], ["export", id], ["export", "--all", sandbox.at("out")], ["--version"],
        ]
        for arguments in runs {
            let result = try sandbox.ok(arguments + ["--json"], library: library)
            #expect((try? result.json()) != nil, "\(arguments): not JSON: \(result)")
        }
        let file = sandbox.at("imported.txt")
        try Data("Imported\nline".utf8).write(to: URL(fileURLWithPath: file))
        let imported = try sandbox.ok(["import", file, "--json"], library: library).object()
        #expect((imported["imported"] as? [[String: Any]])?.count == 1)
        // The same in every language.
        for language in ["ko_KR.UTF-8", "ja_JP.UTF-8"] {
            // The text itself (keys sorted): Foundation on Linux does not find a Bool parsed from
            // one output equal to the same Bool parsed from another through NSDictionary.
            let localized = try sandbox.ok(["status", "--json"], library: library, environment: ["LANG": language]).stdout
            let english = try sandbox.ok(["status", "--json"], library: library).stdout
            #expect(localized == english, "\(language):\n\(localized)\nEnglish:\n\(english)")
        }
    }

    @Test("search exits like grep: 0 matched, 1 none, 2 on errors")
    func searchExitStatus() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("milk", library: library)
        #expect(try sandbox.memo(["search", "milk"], library: library).status == 0)
        let none = try sandbox.memo(["search", "bread"], library: library)
        #expect(none.status == 1 && none.stdout.isEmpty && none.stderr.isEmpty)
        try sandbox.fails(["search", "milk"], status: 2, containing: ["there is no library"], library: sandbox.at("missing"))
        try sandbox.fails(["search"], status: 2, library: library)
    }

    @Test("help groups the commands by task; every page has examples and exit statuses; help demo")
    func helpByTask() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let overview = try sandbox.ok(["help"]).stdout
        var position = overview.startIndex
        for group in ["Write", "Find", "Trash", "Sync", "Export and import", "More"] {
            let range = try #require(overview.range(of: "\n" + group + "\n", range: position..<overview.endIndex), "no group \(group)")
            position = range.upperBound
        }
        // Every command (README: "`memo help COMMAND` shows … examples and exit statuses").
        for command in CommandName.allCases.map(\.rawValue) {
            #expect(overview.contains("  \(command)"), "help lacks \(command)")
            let page = try sandbox.ok(["help", command]).stdout
            #expect(page.contains("Usage: memo \(command)") && page.contains("Examples:\n  "), "\(command): \(page)")
            #expect(page.contains("Exit status:"), "\(command) does not document its exit status")
        }
        #expect(try sandbox.ok(["help", "demo"]).stdout.contains("--dir DIR"))
    }

    @Test("the man page is made from the help and is valid roff")
    func manPage() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let page = try sandbox.ok(["help", "--man"]).stdout
        #expect(page.hasPrefix(".TH MEMO 1"))
        for section in ["NAME", "SYNOPSIS", "COMMANDS", "MEMO SYNC", "MEMO IMPORT", "NOTES"] {
            #expect(page.contains("\n.SH \(section)\n"), "no section \(section)")
        }
        #expect(page.contains("Exchanges changes with the store"), "the sync page's text")
        #expect(!page.split(separator: "\n").contains { $0.hasPrefix("'") }, "a line would be a roff request")
        // Rendered by groff when it is installed, without warnings.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            let manual = sandbox.at("memo.1")
            try Data(page.utf8).write(to: URL(fileURLWithPath: manual))
            let rendered = try run("/usr/bin/groff", ["-man", "-Tutf8", "-ww", manual])
            #expect(rendered.status == 0 && rendered.stderr.isEmpty && rendered.stdout.contains("memo"), "\(rendered)")
        }
    }

    @Test("completion scripts for bash, zsh and fish; bash completes commands and memo ids")
    func completion() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("completed", library: library)
        for shell in ["bash", "zsh", "fish"] {
            let script = try sandbox.ok(["completion", shell]).stdout
            #expect(script.contains("memo") && script.contains("sync") && script.contains("json"), "\(shell)")
        }
        try sandbox.fails(["completion", "tcsh"], status: 2, containing: ["bash, zsh or fish"])
        let executable = try #require(MemoExecutable.path)
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent().path
        let bash = """
            source <(memo completion bash)
            COMP_WORDS=(memo sy); COMP_CWORD=1; _memo; echo "commands: ${COMPREPLY[*]}"
            COMP_WORDS=(memo show ""); COMP_CWORD=2; _memo; echo "ids: ${COMPREPLY[*]}"
            COMP_WORDS=(memo edit x --te); COMP_CWORD=3; _memo; echo "options: ${COMPREPLY[*]}"
            """
        let result = try run("/bin/bash", ["-c", bash], environment: ["PATH": folder + ":/usr/bin:/bin", "MEMO_LIBRARY": library, "HOME": sandbox.home])
        #expect(result.stdout.contains("commands: sync"), "\(result)")
        #expect(result.stdout.contains("ids: \(id.prefix(8))\n"), "\(result)")
        #expect(result.stdout.contains("options: --text --text-file"), "\(result)")
    }

    /// The three shells complete from the library the command line names (not the default one),
    /// past any option's values, and offer `store` actions and `demo --dir`. Each runs for real:
    /// bash through its completion function, zsh with its completion builtins standing in
    /// (they only run inside a completion widget), fish through `complete -C`.
    @Test("bash, zsh and fish complete ids of --library's library, store actions and demo --dir")
    func completionInEveryShell() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let named = sandbox.at("named library")
        let other = sandbox.at("default library")
        let wanted = String(try sandbox.newMemo("in the named library", library: named).prefix(8))
        let unwanted = String(try sandbox.newMemo("in the default library", library: other).prefix(8))
        let executable = try #require(MemoExecutable.path)
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent().path
        let environment = ["PATH": folder + ":/usr/bin:/bin", "MEMO_LIBRARY": other, "HOME": sandbox.home, "LIBRARY": named, "LANG": "C.UTF-8"]
        var shellsRun = 0
        if FileManager.default.isExecutableFile(atPath: "/bin/bash") {
            let bash = """
                source <(memo completion bash)
                COMP_WORDS=(memo --library "$LIBRARY" show ""); COMP_CWORD=4; _memo; echo "ids: ${COMPREPLY[*]}"
                COMP_WORDS=(memo --quiet --library "$LIBRARY" edit --text-file f ""); COMP_CWORD=7; _memo; echo "edit: ${COMPREPLY[*]}"
                COMP_WORDS=(memo store ""); COMP_CWORD=2; _memo; echo "store: ${COMPREPLY[*]}"
                COMP_WORDS=(memo demo --); COMP_CWORD=2; _memo; echo "demo: ${COMPREPLY[*]}"
                """
            let result = try run("/bin/bash", ["-c", bash], environment: environment)
            #expect(result.stdout.contains("ids: \(wanted)\n") && result.stdout.contains("edit: \(wanted)\n"), "\(result)")
            #expect(!result.stdout.contains(unwanted), "\(result)")
            #expect(result.stdout.contains("store: passphrase rotate-key"), "\(result)")
            #expect(result.stdout.contains("demo: ") && result.stdout.contains("--dir"), "\(result)")
            shellsRun += 1
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") {
            let zsh = """
                compadd() { shift; print -r -- "compadd: $*" }
                _describe() { print -r -- "describe" }
                _files() { print -r -- "files" }
                compdef() { : }
                source <(memo completion zsh)
                words=(memo --library "$LIBRARY" show ""); CURRENT=5; _memo
                words=(memo store ""); CURRENT=3; _memo
                words=(memo --library "$LIBRARY" ""); CURRENT=4; _memo
                words=(memo show --library ""); CURRENT=4; _memo
                """
            let result = try run("/usr/bin/zsh", ["-f", "-c", zsh], environment: environment)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4, "\(result)")
            #expect(lines.first?.hasSuffix(" \(wanted)") == true && !result.stdout.contains(unwanted), "\(result)")
            #expect(lines.dropFirst().first?.contains("passphrase rotate-key") == true, "\(result)")
            #expect(lines.dropFirst(2).first == "describe" && lines.last == "files", "\(result)")
            shellsRun += 1
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") {
            let fish = """
                memo completion fish | source
                complete -C "memo --library '$LIBRARY' show "
                echo ---
                complete -C "memo store "
                echo ---
                complete -C "memo demo --"
                """
            let result = try run("/usr/bin/fish", ["--no-config", "-c", fish], environment: environment)
            let parts = result.stdout.components(separatedBy: "---\n")
            #expect(parts.count == 3, "\(result)")
            #expect(parts.first?.contains(wanted) == true && !result.stdout.contains(unwanted), "\(result)")
            #expect(parts.dropFirst().first?.contains("passphrase") == true && parts.dropFirst().first?.contains("rotate-key") == true, "\(result)")
            #expect(parts.last?.contains("--dir") == true, "\(result)")
            shellsRun += 1
        }
        // Tests/setup-test-tools.sh installs zsh and fish where they are missing (Debian): all
        // three run in the test command; a missing shell is a failure here, not a skip.
        #expect(shellsRun == 3, "only \(shellsRun) of bash, zsh and fish are installed: run Tests/setup-test-tools.sh")
    }

    /// FORMAT.md, "Files of the memo command line": a `cli-history.json` or `cli-settings.json`
    /// that cannot be read is reported with its path and never replaced; the history's memo
    /// keys are sorted, and the file is removed when no step is left.
    @Test("unreadable history and settings files are reported, never replaced; the history file's keys sorted, removed when empty")
    func commandLineFilesThatCannotBeRead() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let first = try sandbox.newMemo("first", library: library)
        let second = try sandbox.newMemo("second", library: library)
        try sandbox.ok(["edit", second, "--insert", "0", "my "], library: library)
        try sandbox.ok(["edit", first, "--insert", "0", "my "], library: library)
        let historyPath = library + "/cli-history.json"
        let history = try String(contentsOfFile: historyPath, encoding: .utf8)
        let ids = [first, second].map { $0.lowercased() }.sorted()
        let positions = ids.compactMap { history.range(of: $0)?.lowerBound }
        #expect(positions.count == 2 && positions[0] < positions[1], "\(history)")
        // Undo both edits: no step left to undo; redo both: none left at all, and the file goes.
        try sandbox.ok(["undo", first], library: library)
        try sandbox.ok(["undo", second], library: library)
        try sandbox.ok(["redo", first], library: library)
        try sandbox.ok(["redo", second], library: library)
        try sandbox.ok(["purge", "--all"], library: library)
        try sandbox.ok(["delete", first], library: library)
        try sandbox.ok(["delete", second], library: library)
        try sandbox.ok(["purge", "--all"], library: library)
        #expect(!FileManager.default.fileExists(atPath: historyPath), "\((try? String(contentsOfFile: historyPath, encoding: .utf8)) ?? "")")

        let kept = sandbox.at("kept")
        let memo = try sandbox.newMemo("kept memo", library: kept)
        let garbage = Array("{\"undo\": [not json".utf8)
        try Data(garbage).write(to: URL(fileURLWithPath: kept + "/cli-history.json"))
        // A history that is not valid JSON is kept aside, untouched, and undo starts afresh
        // (HistoryFileCLITests): here there is nothing to undo then.
        try sandbox.fails(["undo", memo], status: 1, containing: ["cli-history.json is not valid JSON", "cli-history.json.damaged-1"], library: kept)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: kept + "/cli-history.json.damaged-1"))) == garbage)
        try Data(garbage).write(to: URL(fileURLWithPath: kept + "/cli-settings.json"))
        try sandbox.fails(["sync"], status: 1, containing: ["cli-settings.json", "cannot be read"], library: kept)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: kept + "/cli-settings.json"))) == garbage)
    }

    @Test("progress shows on a terminal, not when piped or --quiet")
    func progress() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        for index in 0..<30 { _ = try sandbox.newMemo("memo \(index)", library: library) }
        let executable = try #require(MemoExecutable.path)
        let environment = ["MEMO_LIBRARY": library, "HOME": sandbox.home, "MEMO_PROGRESS_DELAY_MS": "0", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        func onTerminal(_ arguments: String) throws -> String {
            try MemoCLITests.onTerminal("\(executable) \(arguments)", environment: environment)
        }
        #expect(try onTerminal("sync --store \(sandbox.at("store"))").contains("syncing: "))
        #expect(try onTerminal("export --all \(sandbox.at("out"))").contains("exporting: "))
        #expect(!(try onTerminal("export --all \(sandbox.at("out2")) --quiet")).contains("exporting"))
        let piped = try sandbox.ok(["export", "--all", sandbox.at("out3")], library: library, environment: ["MEMO_PROGRESS_DELAY_MS": "0"])
        #expect(!piped.stderr.contains("exporting"))
        // README: progress shows for a run that takes "more than a second": by default a short
        // export on a terminal shows none.
        var byDefault = environment
        byDefault["MEMO_PROGRESS_DELAY_MS"] = nil
        let short = try MemoCLITests.onTerminal("\(executable) export --all \(sandbox.at("out4"))", environment: byDefault)
        #expect(!short.contains("exporting") && short.contains("30"), "\(short)")
        if ProcessInfo.processInfo.environment["MEMO_PROGRESS_DELAY_MS"] == nil {
            #expect(ProgressLine.delaySeconds == 1)
        }
    }

    /// Runs a program and returns what it did.
    private func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdoutBytes: Array(outData), stderr: String(decoding: errData, as: UTF8.self))
    }
}
