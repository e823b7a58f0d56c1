// The catalogs (MemoStrings, in MemoSync/Localization): every key in every language with the
// same placeholders, every key the code uses present; and `memo` speaking the language the
// locale variables choose.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync
import Testing

@testable import memo

@Suite("the catalogs of texts")
struct CatalogTests {
    @Test("every key is in every language, with the same placeholders")
    func keysAndPlaceholdersMatch() {
        let english = MemoStrings.catalog(.english)
        #expect(english.count > 200)
        for language in MemoLanguage.allCases {
            let catalog = MemoStrings.catalog(language)
            #expect(Set(catalog.keys) == Set(english.keys), "\(language): missing \(Set(english.keys).subtracting(catalog.keys).sorted()), extra \(Set(catalog.keys).subtracting(english.keys).sorted())")
            for (key, template) in catalog {
                let expected = MemoStrings.placeholders(in: english[key] ?? "").sorted()
                #expect(MemoStrings.placeholders(in: template).sorted() == expected, "\(language) \(key): \(template)")
                #expect(!template.isEmpty, "\(language) \(key) is empty")
            }
        }
    }

    @Test("Korean and Japanese are translated: no English sentence left in them")
    func translated() {
        let english = MemoStrings.catalog(.english)
        for language in [MemoLanguage.korean, .japanese] {
            let catalog = MemoStrings.catalog(language)
            for (key, template) in catalog where template.contains(" ") && english[key] == template {
                // Only texts that are the same in every language (a format of placeholders, a
                // quotation) may match.
                let words = template.replacing(/\{[A-Za-z]+\}/, with: "")
                #expect(!words.contains(where: \.isLetter) || key.hasPrefix("cli.version") || key == "help.usageLabel", "\(language) \(key) is not translated: \(template)")
            }
        }
    }

    /// The literal keys the sources use: `t("...")`, `.runtime("...")`, `.usage("...")`,
    /// `.passphrase("...")` in Sources/memo ("cli." keys), `localized("...")` in the engine's
    /// LocalizedErrors.swift.
    private func keysUsedInSources() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var keys: [String] = []
        let cli = root.appendingPathComponent("Sources/memo")
        for file in try FileManager.default.contentsOfDirectory(atPath: cli.path) where file.hasSuffix(".swift") {
            let source = try String(contentsOf: cli.appendingPathComponent(file), encoding: .utf8)
            for pattern in [
                #"\bt\("([A-Za-z.]+)""#, #"\.runtime\("([A-Za-z.]+)""#, #"\.usage\("([A-Za-z.]+)""#,
                #"\.passphrase\("([A-Za-z.]+)""#,
                // Either key of `t(flag ? "one" : "other", ...)` and of `.runtime(...)`, `.usage(...)`.
                #"(?:\bt|\.runtime|\.usage|\.passphrase)\([^()"]*\? "([A-Za-z.]+)" : "[A-Za-z.]+""#,
                #"(?:\bt|\.runtime|\.usage|\.passphrase)\([^()"]*\? "[A-Za-z.]+" : "([A-Za-z.]+)""#,
            ] {
                keys += matches(pattern, in: source).map { "cli." + $0 }
            }
        }
        let errors = try String(contentsOf: root.appendingPathComponent("Sources/MemoSync/Errors/LocalizedErrors.swift"), encoding: .utf8)
        keys += matches(#"localized\("([A-Za-z.]+)""#, in: errors)
        // `errorSentence("...")` in the engine's error texts (LocalizedErrors.swift, ReplicaModel.swift,
        // MemoSyncRemote's StoreLocation.swift).
        for file in ["Sources/MemoSync/Errors/LocalizedErrors.swift", "Sources/MemoSync/Replica/ReplicaModel.swift", "Sources/MemoSyncRemote/StoreLocation.swift"] {
            let source = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            keys += matches(#"errorSentence\("([A-Za-z.]+)""#, in: source)
        }
        return keys
    }

    private func matches(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test("every key the code uses is in the catalogs")
    func usedKeysExist() throws {
        let english = MemoStrings.catalog(.english)
        let used = try keysUsedInSources()
        #expect(used.count > 100, "the scan found the sources")
        for key in used where key != "cli.cli." {
            #expect(english[key] != nil, "\(key) is used but not in the catalogs")
        }
        // Keys made at run time: every command's summary and page, every group, every noun.
        for command in CommandName.allCases {
            #expect(english["help.summary." + command.rawValue] != nil && english["help.page." + command.rawValue] != nil, "\(command)")
        }
        for group in Help.groups { #expect(english["help.group." + group.key] != nil) }
        for noun in ["memo", "blob", "byte", "character", "file", "operation", "storeEntry", "storeError", "storeOperation"] {
            #expect(english["cli.count.\(noun).one"] != nil && english["cli.count.\(noun).other"] != nil, "\(noun)")
        }
    }

    /// The help footer and README name the commands without `--json`, and the exit status of
    /// a command that found the library damaged: what the parser and the runner do.
    @Test("--json on every command but those the help names; exit status 4 in the help and README")
    func jsonAndExitStatusAsTheHelpSays() throws {
        let withoutJSON = Set(CommandName.allCases.filter { !ArgumentParser.options(of: $0).contains("--json") }.map(\.rawValue))
        #expect(withoutJSON == ["help", "store", "serve", "demo", "completion"])
        let footer = MemoStrings.text("help.footer", language: .english).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(footer.contains("on every command but help, store, serve, demo and completion"), "\(footer)")
        #expect(footer.contains("3 for a wrong, missing or outdated passphrase, 4 when it did its work but found the library damaged"), "\(footer)")
        #expect(footer.contains("nothing on standard error but errors and warnings of damage"), "\(footer)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(readme.contains("Every command but `help`, `store`, `serve`, `demo` and `completion` takes `--json`"))
        #expect(readme.contains("3 for a wrong, missing or outdated passphrase, 4 when it did its work but found the library damaged"))
        // The statuses themselves: a wrong passphrase is `.passphrase` (3); damage found is
        // exit status 4 (LibraryDamageCLITests).
        #expect(CLIError(kind: .passphrase, message: "").exitStatus(command: .sync) == 3)
        // Each of them refuses it, as a wrong command line.
        for name in withoutJSON.sorted() {
            var arguments = [name]
            if name == "store" { arguments.append("encrypt") }
            if name == "completion" { arguments.append("bash") }
            #expect(throws: CLIError.self, "\(name) --json") { try ArgumentParser.parse(arguments + ["--json"]) }
        }
    }

    /// Each page of a command that opens a library says, in the page's language, that it
    /// exits 4 when it found the library damaged (as the footer does, and as
    /// LibraryDamageCLITests checks the runner does); the others do not.
    @Test func everyLibraryCommandsPageGivesExitStatus4() {
        for language in [MemoLanguage.english, .korean, .japanese] {
            let line = MemoStrings.text("help.exitDamaged", language: language)
            #expect(line.contains("4") && !line.isEmpty)
            MemoLanguage.$taskLanguage.withValue(language) {
                for command in CommandName.allCases {
                    let page = Help.page(command)
                    #expect(page.contains(line) == !Help.commandsWithoutLibrary.contains(command), "\(language) \(command)")
                }
            }
        }
        #expect(Help.commandsWithoutLibrary == [.help, .completion, .demo])
    }

    @Test("README's command line section follows memo help: the same groups, every command")
    func readmeMatchesHelp() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```sh\n# Write\n"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let block = String(readme[start.lowerBound..<end.lowerBound])
        let english = MemoStrings.catalog(.english)
        var position = block.startIndex
        for group in Help.groups {
            let heading = "# " + (english["help.group." + group.key] ?? "?") + "\n"
            let range = try #require(block.range(of: heading, range: position..<block.endIndex), "README lacks \(heading)")
            position = range.upperBound
            for command in group.commands where command != .demo {
                #expect(block.contains("memo \(command.rawValue)"), "README lacks memo \(command.rawValue)")
            }
        }
    }

    @Test("the engine's error descriptions come from the same catalogs")
    func engineErrorsLocalized() {
        let errors: [any LocalizedError] = [
            DiskError.full, DiskError.locked(path: "/x"), DiskError.tooLarge(file: "state", sizeBytes: 2, limitBytes: 1), ReplicaError.closed, ReplicaError.syncInProgress,
            BlobStoreError.full, NotebookError.memoInTrash(MemoID(high: 1, low: 2)),
            EncryptionError.wrongPassphrase, EncryptionError.passphraseRequired, EncryptionError.passphraseChanged,
            EncryptionError.notEncrypted, EncryptionError.alreadyEncrypted,
            EncryptionError.unknownKeyBlobVersion(key: "memosync/v1/keys/k", version: 9),
        ]
        for error in errors {
            var seen: Set<String> = []
            for language in MemoLanguage.allCases {
                // Task-local: tests running at the same time keep their language.
                let description = MemoLanguage.$taskLanguage.withValue(language) { error.errorDescription ?? "" }
                #expect(!description.isEmpty && !description.hasPrefix("error."), "\(language): \(error)")
                seen.insert(description)
            }
            #expect(seen.count == 3, "one description per language: \(seen)")
        }
    }

    @Test("the language comes from LC_ALL, then LC_MESSAGES, then LANG; English otherwise")
    func languageFromEnvironment() {
        #expect(MemoLanguage.fromEnvironment(["LANG": "ko_KR.UTF-8"]) == .korean)
        #expect(MemoLanguage.fromEnvironment(["LANG": "ko_KR.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8"]) == .japanese)
        #expect(MemoLanguage.fromEnvironment(["LANG": "ko_KR.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8", "LC_ALL": "C"]) == .english)
        #expect(MemoLanguage.fromEnvironment(["LC_ALL": "", "LANG": "ja"]) == .japanese)
        #expect(MemoLanguage.fromEnvironment(["LANG": "fr_FR.UTF-8"]) == .english)
        #expect(MemoLanguage.fromEnvironment([:]) == nil)
        #expect(MemoStrings.fill("{a} and {b} {a} {c}", ["a": "{b}", "b": "2"]) == "{b} and 2 {b} {c}")
    }
}

@Suite("memo in Korean and Japanese")
struct LocalizedCLITests {
    @Test("help, messages and errors follow the locale; --json does not")
    func speaksTheLocale() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let korean = ["LANG": "ko_KR.UTF-8"]
        let japanese = ["LANG": "ja_JP.UTF-8"]
        let help = try sandbox.ok(["help"], environment: korean).stdout
        #expect(help.contains("쓰기") && help.contains("동기화") && help.contains("메모"), "\(help)")
        #expect(try sandbox.ok(["help"], environment: japanese).stdout.contains("同期"))
        #expect(try sandbox.ok(["help"], environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "ja_JP.UTF-8"]).stdout.contains("同期"))
        #expect(try sandbox.ok(["help"], environment: ["LANG": "fr_FR.UTF-8"]).stdout.contains("Write"))
        for command in CommandName.allCases {
            for environment in [korean, japanese] {
                let page = try sandbox.ok(["help", command.rawValue], environment: environment).stdout
                #expect(!page.contains("help.") && !page.contains("cli.") && !page.contains("Examples"), "\(command) \(environment): \(page)")
            }
        }
        let id = try sandbox.ok(["new", "買い物\n牛乳"], library: library, environment: japanese).stdout.trimmingCharacters(in: .newlines)
        let sync = try sandbox.ok(["sync", "--store", sandbox.at("store")], library: library, environment: japanese)
        #expect(sync.stdout.contains("同期しました") && sync.stdout.contains("公開しました"), "\(sync)")
        #expect(try sandbox.ok(["status"], library: library, environment: korean).stdout.contains("마지막 동기화"))
        try sandbox.fails(["show", "zz"], status: 2, containing: ["메모 ID가 아닙니다"], library: library, environment: korean)
        try sandbox.fails(["show", "0000"], status: 1, containing: ["メモはありません"], library: library, environment: japanese)
        try sandbox.fails(["frobnicate"], status: 2, containing: ["不明なコマンド"], environment: japanese)
        // The engine's errors too: a library locked by a damaged state file, in Korean.
        let damaged = sandbox.at("damaged")
        try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: true)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: damaged + "/state"))
        try sandbox.fails(["list"], status: 1, containing: ["라이브러리", "손상"], library: damaged, environment: korean)
        // JSON is the same in every language.
        let english = try sandbox.ok(["show", id, "--json"], library: library).object()
        let localized = try sandbox.ok(["show", id, "--json"], library: library, environment: japanese).object()
        #expect(NSDictionary(dictionary: english).isEqual(to: localized))
    }

    /// Issue 29, message 12: the errors of the layers below (a store that cannot be reached, a
    /// file where a folder should be) in the user's language, with no English sentence and no
    /// blob key.
    @Test("store and disk errors in Korean and Japanese: the cause in the catalog's words")
    func lowerLayerErrorsAreTranslated() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("offline", library: library)
        let korean = ["LANG": "ko_KR.UTF-8"]
        let japanese = ["LANG": "ja_JP.UTF-8"]
        let file = sandbox.at("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        var results: [RunResult] = []
        // A WebDAV server nobody runs: port 9 (discard) on this machine refuses.
        results.append(try sandbox.fails(["sync", "--store", "http://127.0.0.1:9/dav"], status: 1,
                                         containing: ["동기화할 수 없습니다: 서버에 연결할 수 없습니다"], library: library, environment: korean))
        results.append(try sandbox.fails(["sync", "--store", "http://127.0.0.1:9/dav"], status: 1,
                                         containing: ["同期できませんでした: サーバーに接続できません"], library: library, environment: japanese))
        // A file where the store folder, or the library folder, should be.
        results.append(try sandbox.fails(["sync", "--store", file + "/store"], status: 1, containing: ["같은 이름의 파일이 가로막고 있습니다"],
                                         library: library, environment: korean))
        results.append(try sandbox.fails(["sync", "--store", file], status: 1, containing: ["同じ名前のファイルが邪魔をしています"],
                                         library: library, environment: japanese))
        results.append(try sandbox.fails(["list"], status: 1, containing: ["파일이며 라이브러리 폴더가 아닙니다"], library: file, environment: korean))
        // A file where the store's own folder should be: every write fails, and the summary and
        // the error say why without the blob's key.
        let store = sandbox.at("store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: store + "/memosync"))
        let blocked = try sandbox.memo(["sync", "--store", store], library: library, environment: korean)
        #expect(blocked.status == 1 && blocked.stderr.contains("동기화 저장소에 파일을 쓸 수 없습니다: 같은 이름의 파일이 가로막고 있습니다"), "\(blocked)")
        #expect(blocked.stdout.contains("같은 이름의 파일이 가로막고 있습니다") && !blocked.stdout.contains("memosync/"), "\(blocked)")
        results.append(blocked)
        // A remote store is named by its kind in the catalogs' words.
        #expect(results[0].stderr.contains("WebDAV 폴더") && results[1].stderr.contains("WebDAV フォルダー"), "\(results[0])")
        for result in results {
            // Paths, URLs and quoted commands are not sentences.
            let message = (result.stderr + result.stdout).replacing(/\S*\/\S*/, with: "").replacing(/'[^']*'/, with: "")
            #expect(message.firstMatch(of: /[A-Za-z]{2,}(?:[ ,;'()-]+[A-Za-z]{2,}){2,}/) == nil, "English left: \(message)")
            #expect(!message.contains("memosync/"), "\(message)")
        }
    }

    @Test("a wrong or missing passphrase in Korean and Japanese: the catalog's message, exit status 3")
    func passphraseErrorsFollowTheLocale() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = sandbox.at("store")
        let (a, b) = (sandbox.at("a"), sandbox.at("b"))
        _ = try sandbox.newMemo("secret words", library: a)
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: ["MEMO_PASSPHRASE": "correct horse battery staple"])
        let before = sandbox.contents(of: store)
        let wrong = ["MEMO_PASSPHRASE": "not the passphrase"]
        let cases: [(locale: String, language: MemoLanguage, wrongWords: String, missingWords: String)] = [
            ("ko_KR.UTF-8", .korean, "이 암호로는 저장소", "암호가 필요합니다"),
            ("ja_JP.UTF-8", .japanese, "このパスフレーズではストア", "パスフレーズが必要です"),
            ("C.UTF-8", .english, "the passphrase does not open the store", "a passphrase is needed"),
        ]
        for (locale, language, wrongWords, missingWords) in cases {
            let environment = ["LANG": locale]
            // The whole message is the catalog's, in the locale's language, with the store's path.
            let wrongMessage = MemoStrings.text("cli.error.wrongPassphrase", ["path": store], language: language)
            let result = try sandbox.fails(["sync", "--store", store], status: 3, containing: [wrongWords, wrongMessage], library: b,
                                           environment: environment.merging(wrong) { $1 })
            // (After the note that B's library was created, on the first run.)
            #expect(result.stderr.hasSuffix("memo: \(wrongMessage)\n"), "\(locale): \(result)")
            try sandbox.fails(["sync", "--store", store], status: 3, containing: [missingWords, store], library: b, environment: environment)
            // The store command's usage error lists its actions as they are typed.
            try sandbox.fails(["store", "shuffle"], status: 2, containing: ["passphrase, rotate-key"], library: a, environment: environment)
        }
        // Nothing was read or written, and no key was remembered.
        #expect(sandbox.contents(of: store) == before)
        #expect(!FileManager.default.fileExists(atPath: b + "/store-key"))
        // A new passphrase that is too short, and the store command's report, in Korean.
        let korean = ["LANG": "ko_KR.UTF-8"]
        try sandbox.fails(["store", "passphrase"], status: 3, containing: ["암호가 너무 짧습니다", "8"], library: a,
                          environment: korean.merging(["MEMO_NEW_PASSPHRASE": "short"]) { $1 })
        let changed = try sandbox.ok(["store", "passphrase"], library: a, environment: korean.merging(["MEMO_NEW_PASSPHRASE": "second passphrase"]) { $1 })
        #expect(changed.stdout.contains("암호를 바꿨습니다"), "\(changed)")
        let rotated = try sandbox.ok(["store", "rotate-key"], library: a, environment: ["LANG": "ja_JP.UTF-8"])
        #expect(rotated.stdout.contains("新しいデータ鍵を追加しました"), "\(rotated)")
        // --json stays the same in every language: an encrypted sync's keys and values (after
        // one sync that takes what the rotation wrote, two that find nothing new).
        try sandbox.ok(["sync"], library: a)
        let english = try sandbox.ok(["sync", "--json"], library: a)
        let japanese = try sandbox.ok(["sync", "--json"], library: a, environment: ["LANG": "ja_JP.UTF-8"])
        #expect(try english.object()["complete"] as? Bool == true)
        #expect(english.stdout == japanese.stdout, "\(english)\n\(japanese)")
    }

    @Test("memo demo converges, in English and in Japanese")
    func demo() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let english = try sandbox.ok(["demo", "--dir", sandbox.at("en")])
        #expect(english.stdout.contains("converged: yes"), "\(english)")
        // README: it prints the commands of Alice's first step, and one that shows the merged
        // memo from Bob's library: run, that one prints the text both edits made.
        let commands = english.stdout.split(separator: "\n").compactMap { line -> [String]? in
            guard let start = line.range(of: "memo --library ") else { return nil }
            return line[start.upperBound...].split(separator: " ").map(String.init)
        }
        #expect(commands.count == 3, "\(commands)")
        #expect(commands.first.map { $0.count >= 3 && $0[1] == "new" } == true && commands.dropFirst().first.map { $0[1] == "sync" } == true)
        let show = try #require(commands.last)
        #expect(show.count == 3 && show[1] == "show" && show[0] == sandbox.at("en") + "/bob", "\(show)")
        let shown = try sandbox.ok(["show", show[2]], library: show[0])
        #expect(shown.stdout == "Groceries\noat milk, eggs", "\(shown)")
        let japanese = try sandbox.ok(["demo", "--dir", sandbox.at("ja")], environment: ["LANG": "ja_JP.UTF-8"])
        #expect(japanese.stdout.contains("収束: はい") && japanese.stdout.contains("共有フォルダー"), "\(japanese)")
        try sandbox.fails(["demo", "--frobnicate"], status: 2, containing: ["memo demo [--dir DIR]"])
    }

    @Test("memo demo writes only into its own folder: new, empty, or an earlier demo's; one folder per user by default")
    func demoFolders() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        // A folder holding a library of the user's (no demo marker): refused, the library intact.
        let mine = sandbox.at("mine")
        let id = try sandbox.newMemo("my own memo", library: mine + "/alice")
        try sandbox.fails(["demo", "--dir", mine], status: 1, containing: ["new or empty folder"])
        #expect(try sandbox.ok(["show", id], library: mine + "/alice").stdout == "my own memo")
        #expect(!FileManager.default.fileExists(atPath: mine + "/shared-folder"))
        // A file: refused with what it is, not a system error number.
        let file = sandbox.at("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try sandbox.fails(["demo", "--dir", file], status: 1, containing: ["is a file"])
        #expect(!refused.stderr.contains("error 5"), "\(refused)")
        // Run twice in one folder: the second replaces the first.
        let demo = sandbox.at("demo")
        try sandbox.ok(["demo", "--dir", demo])
        let second = try sandbox.ok(["demo", "--dir", demo])
        #expect(second.stdout.contains("converged: yes"), "\(second)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: demo).sorted() == [".memosync-demo", "alice", "bob", "shared-folder"])
        // Without --dir: one folder in the temporary folder, whatever the number of runs.
        let temporary = sandbox.at("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        try sandbox.ok(["demo"], environment: ["TMPDIR": temporary])
        try sandbox.ok(["demo"], environment: ["TMPDIR": temporary])
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == ["memosync-demo-\(getuid())"])
    }

    /// A failed save ends the command: the message says its change was not saved, never the
    /// engine's "unsaved edits are kept in memory" (true of an app, not of a process that exits).
    @Test func aFailedSaveSaysTheChangeWasNotSaved() {
        let message = t("error.cannotSave", ["path": "/p", "error": explain(ReplicaError.disk(.full), withSuggestion: false)])
        #expect(message.contains("disk is full") && message.contains("was not saved"), "\(message)")
        #expect(!message.contains("memory") && !message.contains("lost"), "\(message)")
    }

    @Test("dates and numbers in the locale's format")
    func datesAndNumbers() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        try sandbox.ok(["new", String(repeating: "long text ", count: 300)], library: library)
        let year = String(Calendar(identifier: .gregorian).component(.year, from: Date()))
        #expect(try sandbox.ok(["list"], library: library).stdout.contains("\(year)-"), "C: yyyy-MM-dd")
        #expect(try sandbox.ok(["list"], library: library, environment: ["LANG": "ja_JP.UTF-8"]).stdout.contains("\(year)/"))
        #expect(try sandbox.ok(["list"], library: library, environment: ["LANG": "ko_KR.UTF-8"]).stdout.contains("\(year). "))
        #expect(try sandbox.ok(["list"], library: library, environment: ["LANG": "de_DE.UTF-8"]).stdout.contains(".\(year)"))
        // A sync writes more than a kilobyte: "2.9 KB" in English, "2,9 KB" in German.
        let german = try sandbox.ok(["sync", "--store", sandbox.at("store")], library: library, environment: ["LANG": "de_DE.UTF-8"]).stdout
        #expect(german.range(of: #"\d,\d KB"#, options: .regularExpression) != nil, "\(german)")
        #expect(german.contains("Synced with"), "German is not a catalog language: English")
    }

    /// README: "`memo help sync` lists every source" of a remote store's credentials, region and
    /// endpoint: every variable `StoreCredentialSources` reads is on the page, in every language.
    @Test("memo help sync names every variable the store credentials are read from")
    func theSyncPageNamesEveryCredentialVariable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: root.appendingPathComponent("Sources/MemoSyncRemote/StoreCredentials.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"(?:nonEmpty\(|environment\[)"([A-Z0-9_]+)""#)
        let names = Set(pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap { match in
            Range(match.range(at: 1), in: source).map { String(source[$0]) }
        }).subtracting(["HOME"])
        #expect(names.count >= 11, "\(names.sorted())")
        for language in MemoLanguage.allCases {
            let page = MemoStrings.text("help.page.sync", language: language)
            for name in names.sorted() { #expect(page.contains(name), "\(language): \(name) missing from memo help sync") }
        }
    }
}
