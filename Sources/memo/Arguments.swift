// Parsing the command line into an `Invocation`. Nothing here touches the library.

import MemoSync

/// The text of `key` ("cli." is prepended) in the language `memo` speaks, with `arguments`.
/// A key that is not in the catalogs is taken as an (untranslated) English text itself, so a
/// message written as a sentence still reads as one; CatalogTests makes sure `memo`'s own
/// keys are all there.
func t(_ key: String, _ arguments: [String: String] = [:]) -> String {
    let full = "cli." + key
    guard MemoStrings.catalog(.english)[full] != nil else { return MemoStrings.fill(key, arguments) }
    return MemoStrings.text(full, arguments)
}

/// A failed command: what to tell the user, and whether it was a usage error (exit status 2)
/// or a runtime error (exit status 1).
struct CLIError: Error, Equatable, CustomStringConvertible {
    /// The kinds of failure, which exit with different statuses.
    enum Kind: Equatable {
        /// The command line itself is wrong: an unknown command or option, a missing argument.
        case usage
        /// The command line is fine but the command failed: an unknown memo, a disk error.
        case runtime
        /// `search` found nothing: exit status 1 and no message, as grep does.
        case noMatch
        /// A store's passphrase is wrong, missing or changed elsewhere (EncryptionCommands.swift).
        case passphrase
    }

    /// The kind of failure.
    var kind: Kind
    /// The message, without the "memo: " prefix. May span several lines.
    var message: String

    /// A usage error: the text of `key` ("cli." is prepended).
    static func usage(_ key: String, _ arguments: [String: String] = [:]) -> CLIError {
        CLIError(kind: .usage, message: t(key, arguments))
    }

    /// A runtime error: the text of `key` ("cli." is prepended).
    static func runtime(_ key: String, _ arguments: [String: String] = [:]) -> CLIError {
        CLIError(kind: .runtime, message: t(key, arguments))
    }

    /// `search` found nothing (exit status 1, nothing printed).
    static let noMatch = CLIError(kind: .noMatch, message: "")

    /// The process exit status for this error: 2 for usage errors, 3 for passphrase errors, 1
    /// otherwise; for `search` (as grep), 1 when nothing matched and 2 for every error.
    func exitStatus(command: CommandName?) -> Int32 {
        switch kind {
        case .usage: 2
        case .noMatch: 1
        case .passphrase: 3
        case .runtime: command == .search ? 2 : 1
        }
    }

    var description: String { message }
}

/// The commands `memo` knows, in the order `memo help` groups them.
enum CommandName: String, CaseIterable {
    case new, edit, undo, redo, revert
    case list, show, search, history, diff
    case delete, restore, trash, purge
    case sync, status, recover, store
    case export, `import`
    case serve
    case help, completion, demo
}

/// One change `memo edit` makes, in Unicode scalar offsets of the text as it is at that point.
enum EditOperation: Equatable {
    /// Inserts `text` before the scalar at `offset` (`offset` may equal the length: append).
    case insert(offset: Int, text: String)
    /// Removes `length` scalars starting at `offset`.
    case delete(offset: Int, length: Int)
}

/// Where a whole text comes from (`memo new`, `memo edit --text`).
enum TextSource: Equatable {
    /// Given on the command line.
    case argument(String)
    /// Read from this file (`--text-file PATH`).
    case file(String)
    /// Read from standard input (`-`, `--text -`, `--text-file -`).
    case standardInput
}

/// How `memo edit` changes the memo.
enum EditMode: Equatable {
    /// Open `$VISUAL` or `$EDITOR` on the text.
    case editor
    /// Set the whole text.
    case text(TextSource)
    /// Apply these changes in order.
    case operations([EditOperation])
}

/// What `memo export` writes.
enum ExportTarget: Equatable {
    /// One memo, to standard output or to a file.
    case one(id: String, output: String?)
    /// Every active memo, one file each, into a folder.
    case all(directory: String, overwrite: Bool)
}

/// The shells `memo completion` writes a script for.
enum Shell: String, CaseIterable {
    case bash, zsh, fish
}

/// What `memo help` shows.
enum HelpTopic: Equatable {
    /// The overview, commands grouped by task.
    case overview
    /// One command's page.
    case command(CommandName)
    /// The whole manual as a man page (roff).
    case manual
}

/// A parsed command.
enum Command: Equatable {
    case help(HelpTopic)
    case version
    /// `memo new`: the text's source; nil: standard input when it is not a terminal, else the editor.
    case new(text: TextSource?)
    case list
    case show(id: String)
    /// `memo show ID --at VERSION`.
    case showAt(id: String, version: String)
    /// `memo show ID --before TIME`: the newest version made before TIME.
    case showBefore(id: String, time: String)
    /// `memo history ID`.
    case history(id: String)
    /// `memo history --keep DAYS|forever`: the library's history retention period.
    case historyRetention(HistoryRetention)
    /// `memo diff ID [FROM [TO]]`.
    case diff(id: String, from: String?, to: String?)
    /// `memo revert ID VERSION`.
    case revert(id: String, version: String)
    case edit(id: String, mode: EditMode)
    case undo(id: String)
    case redo(id: String)
    /// `memo search QUERY...`; `foldsKana`: false with `--kana-distinct`.
    case search(query: String, foldsKana: Bool)
    case delete(id: String)
    case restore(id: String)
    case trash
    /// `memo purge ID...`, or every memo in the trash (`--all`: an empty list).
    case purge(ids: [String])
    case export(ExportTarget)
    /// `memo import PATH...`; `again`: also files imported before.
    case `import`(paths: [String], again: Bool)
    case sync(StoreOptions)
    case status
    /// `memo recover`: the text of edits held back (``Notebook/heldBackTexts``); `restore`
    /// (`--restore`): put back into new memos (``Replica/restoreHeldBackTexts(headingForExistingMemo:)``).
    case recover(restore: Bool)
    case completion(Shell)
    case store(action: StoreAction, store: String?)
    /// `memo serve`: the notes app in the browser (Commands+Serve.swift).
    case serve(ServeOptions)
}

/// A whole command line, parsed.
struct Invocation: Equatable {
    /// `--library PATH`, if given.
    var libraryPath: String?
    /// `--json`: machine-readable output.
    var json = false
    /// `--quiet` (`-q`): nothing on standard error but errors.
    var quiet = false
    /// The command's name, when one was given (for its exit statuses).
    var commandName: CommandName?
    /// The command.
    var command: Command
    /// `--encrypt`, `--passphrase-file`, `--new-passphrase-file` (EncryptionCommands.swift).
    var encryption = EncryptionOptions()
}

/// The command line parser.
///
/// Options may come before or after the command and its arguments; `--` ends the options (so
/// `memo new -- "-1 idea"` creates a memo whose text starts with a dash). Options that take a
/// value accept it as the next argument or after `=` (`--library=PATH`); the values of options
/// are taken as they are, even when they start with a dash.
enum ArgumentParser {
    /// The options and how many values each takes.
    private static let arity: [String: Int] = [
        "--library": 1, "--json": 0, "--help": 0, "-h": 0, "--quiet": 0, "-q": 0, "--version": 0,
        "--text": 1, "--text-file": 1, "--insert": 2, "--delete": 2,
        "--output": 1, "-o": 1, "--all": 1, "--force": 0,
        "--store": 1, "--endpoint": 1, "--region": 1, "--again": 0, "--man": 0,
        "--encrypt": 0, "--passphrase-file": 1, "--new-passphrase-file": 1, "--kana-distinct": 0,
        "--listen": 1, "--port": 1, "--no-open": 0, "--sync-interval": 1, "--at": 1, "--before": 1,
        "--keep": 1, "--restore": 0,
    ]

    /// The options that take values, with how many (for the completion scripts, which must step
    /// over an option's values to find the command): `--all` takes one for `export` only.
    static var optionsTakingValues: [(name: String, count: Int)] {
        arity.filter { $0.value > 0 }.map { (name: $0.key, count: $0.value) }.sorted { $0.name < $1.name }
    }

    /// Options every command accepts.
    static let globalOptions: Set<String> = ["--library", "--help", "-h", "--quiet", "-q"]

    /// The options each command accepts, besides the global ones.
    static func options(of command: CommandName) -> Set<String> {
        switch command {
        case .list, .status, .trash, .delete, .restore, .undo, .redo, .diff, .revert: ["--json"]
        case .recover: ["--restore", "--json"]
        case .history: ["--keep", "--json"]
        case .show: ["--at", "--before", "--json"]
        case .search: ["--kana-distinct", "--json"]
        case .new: ["--text-file", "--json"]
        case .sync: ["--json", "--store", "--endpoint", "--region", "--encrypt", "--passphrase-file"]
        case .store: ["--store", "--passphrase-file", "--new-passphrase-file"]
        case .edit: ["--text", "--text-file", "--insert", "--delete", "--json"]
        case .export: ["--output", "-o", "--all", "--force", "--json"]
        case .purge: ["--all", "--json"]
        case .import: ["--again", "--json"]
        case .help: ["--man"]
        case .serve: ["--listen", "--port", "--no-open", "--sync-interval", "--store", "--endpoint", "--region", "--passphrase-file"]
        case .completion, .demo: []
        }
    }

    /// One option as given, with its values.
    private struct GivenOption {
        var name: String
        var values: [String]
    }

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: a usage ``CLIError`` describing the first problem.
    static func parse(_ arguments: [String]) throws(CLIError) -> Invocation {
        let (positionals, given) = try separateOptions(arguments)
        let wantsHelp = given.contains { $0.name == "--help" || $0.name == "-h" }
        var invocation = Invocation(command: .help(.overview))
        invocation.libraryPath = try libraryPath(given)
        invocation.quiet = given.contains { $0.name == "--quiet" || $0.name == "-q" }
        invocation.json = given.contains { $0.name == "--json" }

        guard let commandWord = positionals.first else {
            if given.contains(where: { $0.name == "--version" }) {
                invocation.command = .version
                return invocation
            }
            if wantsHelp { return invocation }
            throw .usage("error.noCommand")
        }
        guard let command = CommandName(rawValue: commandWord) else {
            throw .usage("error.unknownCommand", ["command": commandWord])
        }
        invocation.commandName = command
        if wantsHelp {
            invocation.command = .help(command == .help ? .overview : .command(command))
            return invocation
        }
        let allowed = options(of: command).union(globalOptions)
        for option in given where !allowed.contains(option.name) {
            throw .usage("error.optionNotForCommand", ["option": option.name, "command": command.rawValue])
        }
        invocation.encryption = EncryptionOptions(
            encrypt: given.contains { $0.name == "--encrypt" }, passphraseFile: given.last { $0.name == "--passphrase-file" }?.values[0],
            newPassphraseFile: given.last { $0.name == "--new-passphrase-file" }?.values[0])
        let arguments = Array(positionals.dropFirst())
        invocation.command = try parseCommand(command, arguments: arguments, options: given)
        return invocation
    }

    /// Splits the command line into positional arguments and options with their values, in
    /// the order given. Which options apply to which command is checked later.
    private static func separateOptions(_ arguments: [String]) throws(CLIError) -> (positionals: [String], given: [GivenOption]) {
        var positionals: [String] = []
        var given: [GivenOption] = []
        var index = 0
        var optionsEnded = false
        // `--all` names a folder for `export`, and takes no value for `purge`.
        let allTakesNoValue = arguments.contains("purge") && !arguments.contains("export")
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let count = name == "--all" && allTakesNoValue ? 0 : arity[name] else {
                if Int(argument) != nil { throw .usage("error.unexpectedNumber", ["number": argument]) }
                throw .usage("error.unknownOption", ["option": name])
            }
            var values: [String] = []
            if let inlineValue {
                guard count == 1 else {
                    throw count == 0
                        ? .usage("error.optionTakesNoValue", ["option": name])
                        : .usage("error.optionTakesValues", ["option": name, "count": String(count)])
                }
                values = [inlineValue]
            } else {
                guard arguments.count - index >= count else {
                    throw .usage("error.optionNeeds", ["option": name, "what": valueNames(name)])
                }
                values = Array(arguments[index..<index + count])
                index += count
            }
            given.append(GivenOption(name: name, values: values))
        }
        return (positionals, given)
    }

    /// The `--library PATH` option, if given (once, and not empty).
    private static func libraryPath(_ given: [GivenOption]) throws(CLIError) -> String? {
        var path: String?
        for option in given where option.name == "--library" {
            guard path == nil else { throw .usage("error.optionTwice", ["option": "--library"]) }
            guard !option.values[0].isEmpty else { throw .usage("error.optionNeeds", ["option": "--library", "what": valueNames("--library")]) }
            path = option.values[0]
        }
        return path
    }

    private static func parseCommand(_ command: CommandName, arguments: [String], options: [GivenOption]) throws(CLIError) -> Command {
        switch command {
        case .help:
            return .help(try helpTopic(arguments, options: options))
        case .new:
            return .new(text: try newTextSource(arguments, options: options))
        case .list, .trash, .status, .recover, .demo:
            try expectNoArguments(arguments, command)
            switch command {
            case .list: return .list
            case .trash: return .trash
            case .recover: return .recover(restore: options.contains { $0.name == "--restore" })
            default: return .status
            }
        case .show:
            let id = try oneID(arguments, command)
            let at = try single("--at", in: options)
            let before = try single("--before", in: options)
            guard at == nil || before == nil else { throw .usage("error.atOrBefore") }
            if let at { return .showAt(id: id, version: at) }
            if let before { return .showBefore(id: id, time: before) }
            return .show(id: id)
        case .history:
            if let keep = try single("--keep", in: options) {
                try expectNoArguments(arguments, command)
                return .historyRetention(try retention(keep))
            }
            return .history(id: try oneID(arguments, command))
        case .diff:
            guard let id = arguments.first else { throw .usage("error.needsID", ["command": command.rawValue]) }
            guard arguments.count <= 3 else { throw .usage("error.diffArguments") }
            return .diff(id: id, from: arguments.count > 1 ? arguments[1] : nil, to: arguments.count > 2 ? arguments[2] : nil)
        case .revert:
            guard let id = arguments.first else { throw .usage("error.needsID", ["command": command.rawValue]) }
            guard arguments.count == 2 else { throw .usage("error.revertArguments") }
            return .revert(id: id, version: arguments[1])
        case .delete:
            return .delete(id: try oneID(arguments, command))
        case .restore:
            return .restore(id: try oneID(arguments, command))
        case .undo:
            return .undo(id: try oneID(arguments, command))
        case .redo:
            return .redo(id: try oneID(arguments, command))
        case .purge:
            return .purge(ids: try purgeTargets(arguments, options: options))
        case .search:
            let query = arguments.joined(separator: " ")
            guard !query.allSatisfy(\.isWhitespace) else { throw .usage("error.searchNeedsQuery") }
            return .search(query: query, foldsKana: !options.contains { $0.name == "--kana-distinct" })
        case .edit:
            let id = try oneID(arguments, command)
            return .edit(id: id, mode: try editMode(options))
        case .export:
            return .export(try exportTarget(arguments, options: options))
        case .import:
            guard !arguments.isEmpty else { throw .usage("error.importNeedsPaths") }
            guard !arguments.contains(where: \.isEmpty) else { throw .usage("error.emptyPath") }
            return .import(paths: arguments, again: options.contains { $0.name == "--again" })
        case .sync:
            try expectNoArguments(arguments, command)
            let store = try single("--store", in: options)
            if let store, store.isEmpty { throw .usage("error.optionNeeds", ["option": "--store", "what": valueNames("--store")]) }
            return .sync(StoreOptions(store: store, endpoint: try single("--endpoint", in: options), region: try single("--region", in: options)))
        case .completion:
            guard arguments.count == 1, let shell = Shell(rawValue: arguments[0]) else {
                throw .usage("error.completionNeedsShell")
            }
            return .completion(shell)
        case .store:
            return try StoreCommandParser.parse(arguments, store: try single("--store", in: options))
        case .serve:
            try expectNoArguments(arguments, command)
            for name in ["--listen", "--port", "--sync-interval", "--store", "--endpoint", "--region"] { _ = try single(name, in: options) }
            return .serve(try serveOptions(options.map { (name: $0.name, values: $0.values) }))
        }
    }

    /// `memo help [COMMAND]` or `memo help --man`.
    private static func helpTopic(_ arguments: [String], options: [GivenOption]) throws(CLIError) -> HelpTopic {
        if options.contains(where: { $0.name == "--man" }) {
            guard arguments.isEmpty else { throw .usage("error.helpManAlone") }
            return .manual
        }
        guard arguments.count <= 1 else { throw .usage("error.helpOneCommand") }
        guard let word = arguments.first else { return .overview }
        guard let topic = CommandName(rawValue: word) else { throw .usage("error.unknownCommand", ["command": word]) }
        return .command(topic)
    }

    /// `memo purge ID...` or `memo purge --all` (every memo in the trash: an empty list).
    private static func purgeTargets(_ arguments: [String], options: [GivenOption]) throws(CLIError) -> [String] {
        let all = options.filter { $0.name == "--all" }
        guard let first = all.first else {
            guard !arguments.isEmpty else { throw .usage("error.purgeNeedsIDs") }
            return arguments
        }
        guard all.count == 1, arguments.isEmpty, first.values.isEmpty else { throw .usage("error.purgeAllAlone") }
        return []
    }

    /// Where `memo new` takes its text: TEXT..., `-` (standard input) or `--text-file PATH`.
    private static func newTextSource(_ arguments: [String], options: [GivenOption]) throws(CLIError) -> TextSource? {
        if let file = try single("--text-file", in: options) {
            guard arguments.isEmpty else { throw .usage("error.textTwoWays") }
            return try fileSource(file)
        }
        if arguments == ["-"] { return .standardInput }
        // `memo new - more words`: standard input or a text starting with "-"? Neither guessed.
        if arguments.first == "-" { throw .usage("error.dashStandsAlone") }
        return arguments.isEmpty ? nil : .argument(arguments.joined(separator: " "))
    }

    /// `--text-file PATH`: a file, or standard input for `-`.
    private static func fileSource(_ path: String) throws(CLIError) -> TextSource {
        guard !path.isEmpty else { throw .usage("error.optionNeeds", ["option": "--text-file", "what": valueNames("--text-file")]) }
        return path == "-" ? .standardInput : .file(path)
    }

    /// What `memo export` writes: one memo (to standard output or `--output FILE`), or every
    /// memo into the folder of `--all DIR`.
    private static func exportTarget(_ arguments: [String], options: [GivenOption]) throws(CLIError) -> ExportTarget {
        let output = try single("--output", in: options)
        let shortOutput = try single("-o", in: options)
        guard output == nil || shortOutput == nil else { throw .usage("error.optionTwice", ["option": "--output"]) }
        let force = options.contains { $0.name == "--force" }
        if let directory = try single("--all", in: options) {
            guard arguments.isEmpty else { throw .usage("error.exportAllNoID") }
            guard output == nil && shortOutput == nil else { throw .usage("error.exportAllNoOutput") }
            guard !directory.isEmpty else { throw .usage("error.optionNeeds", ["option": "--all", "what": valueNames("--all")]) }
            return .all(directory: directory, overwrite: force)
        }
        if force { throw .usage("error.forceOnlyAll") }
        let file = output ?? shortOutput
        if let file, file.isEmpty { throw .usage("error.optionNeeds", ["option": "--output", "what": valueNames("--output")]) }
        return .one(id: try oneID(arguments, .export), output: file)
    }

    /// The value of option `name`, which takes one value and may be given at most once.
    private static func single(_ name: String, in options: [GivenOption]) throws(CLIError) -> String? {
        let matching = options.filter { $0.name == name }
        guard matching.count <= 1 else { throw .usage("error.optionTwice", ["option": name]) }
        return matching.first?.values.first
    }

    /// The edit mode the options of `memo edit` ask for.
    private static func editMode(_ options: [GivenOption]) throws(CLIError) -> EditMode {
        var text: TextSource?
        var operations: [EditOperation] = []
        for option in options {
            switch option.name {
            case "--text", "--text-file":
                guard text == nil else {
                    let twice = options.filter { $0.name == option.name }.count > 1
                    throw twice ? .usage("error.optionTwice", ["option": option.name]) : .usage("error.textOnce")
                }
                let value = option.values[0]
                text = option.name == "--text-file" ? try fileSource(value) : value == "-" ? .standardInput : .argument(value)
            case "--insert":
                let offset = try number(option.values[0], what: t("what.insertOffset"))
                operations.append(.insert(offset: offset, text: option.values[1]))
            case "--delete":
                let offset = try number(option.values[0], what: t("what.deleteOffset"))
                let length = try number(option.values[1], what: t("what.deleteLength"))
                operations.append(.delete(offset: offset, length: length))
            default:
                continue
            }
        }
        if let text {
            guard operations.isEmpty else { throw .usage("error.textNotCombined") }
            return .text(text)
        }
        return operations.isEmpty ? .editor : .operations(operations)
    }

    /// A non-negative decimal integer.
    private static func number(_ text: String, what: String) throws(CLIError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .usage("error.notWholeNumber", ["what": what, "value": text])
        }
        guard let value = Int(text) else { throw .usage("error.numberTooLarge", ["what": what, "value": text]) }
        return value
    }

    private static func expectNoArguments(_ arguments: [String], _ command: CommandName) throws(CLIError) {
        guard arguments.isEmpty else {
            throw .usage("error.noArguments", ["command": command.rawValue, "argument": arguments[0]])
        }
    }

    private static func oneID(_ arguments: [String], _ command: CommandName) throws(CLIError) -> String {
        guard let id = arguments.first else { throw .usage("error.needsID", ["command": command.rawValue]) }
        guard arguments.count == 1 else {
            throw .usage("error.oneID", ["command": command.rawValue, "argument": arguments[1]])
        }
        return id
    }

    /// The period of `memo history --keep`: `forever`, or a whole number of days from 1 to
    /// ``HistoryRetention/daysMax``.
    private static func retention(_ text: String) throws(CLIError) -> HistoryRetention {
        if text.lowercased() == "forever" { return .forever }
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let days = Int(text), days >= 1, days <= HistoryRetention.daysMax else {
            throw .usage("error.keepValue", ["value": Format.terminalSafe(text), "max": String(HistoryRetention.daysMax)])
        }
        return .days(days)
    }

    private static func valueNames(_ option: String) -> String {
        switch option {
        case "--keep": t("what.daysOrForever")
        case "--insert": t("what.offsetAndText")
        case "--delete": t("what.offsetAndLength")
        case "--library", "--all": t("what.folderPath")
        case "--store": t("what.folderPathOrURL")
        case "--endpoint": t("what.url")
        case "--region": t("what.regionName")
        case "--output", "-o": t("what.filePath")
        case "--text-file": t("what.filePathOrDash")
        default: t("what.value")
        }
    }
}
