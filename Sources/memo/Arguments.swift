// Parsing the command line into an `Invocation`. Nothing here touches the library.

/// A failed command: what to tell the user, and whether it was a usage error (exit status 2)
/// or a runtime error (exit status 1).
struct CLIError: Error, Equatable, CustomStringConvertible {
    /// The two kinds of failure, which exit with different statuses.
    enum Kind: Equatable {
        /// The command line itself is wrong: an unknown command or option, a missing argument.
        case usage
        /// The command line is fine but the command failed: an unknown memo, a disk error.
        case runtime
        /// `search` found nothing: exit status 1 and no message, as grep does.
        case noMatch
    }

    /// The kind of failure.
    var kind: Kind
    /// The message, without the "memo: " prefix. May span several lines.
    var message: String

    /// A usage error.
    static func usage(_ message: String) -> CLIError { CLIError(kind: .usage, message: message) }
    /// A runtime error.
    static func runtime(_ message: String) -> CLIError { CLIError(kind: .runtime, message: message) }

    /// `search` found nothing (exit status 1, nothing printed).
    static let noMatch = CLIError(kind: .noMatch, message: "")

    /// The process exit status for this error: 2 for usage errors, 1 otherwise.
    var exitStatus: Int32 { kind == .usage ? 2 : 1 }

    var description: String { message }
}

/// The commands `memo` knows.
enum CommandName: String, CaseIterable {
    case new, list, show, edit, search, delete, restore, trash, export, sync, status, help
}

/// One change `memo edit` makes, in Unicode scalar offsets of the text as it is at that point.
enum EditOperation: Equatable {
    /// Inserts `text` before the scalar at `offset` (`offset` may equal the length: append).
    case insert(offset: Int, text: String)
    /// Removes `length` scalars starting at `offset`.
    case delete(offset: Int, length: Int)
}

/// How `memo edit` changes the memo.
enum EditMode: Equatable {
    /// Open `$VISUAL` or `$EDITOR` on the text.
    case editor
    /// Set the whole text.
    case text(String)
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

/// A parsed command.
enum Command: Equatable {
    case help(topic: CommandName?)
    case new(text: String?)
    case list
    case show(id: String)
    case edit(id: String, mode: EditMode)
    case search(query: String)
    case delete(id: String)
    case restore(id: String)
    case trash
    case export(ExportTarget)
    case sync(StoreOptions)
    case status
}

/// A whole command line, parsed.
struct Invocation: Equatable {
    /// `--library PATH`, if given.
    var libraryPath: String?
    /// `--json`: machine-readable output.
    var json = false
    /// The command.
    var command: Command
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
        "--library": 1, "--json": 0, "--help": 0, "-h": 0,
        "--text": 1, "--insert": 2, "--delete": 2,
        "--output": 1, "-o": 1, "--all": 1, "--force": 0,
        "--store": 1, "--endpoint": 1, "--region": 1,
    ]

    /// Options every command accepts.
    private static let globalOptions: Set<String> = ["--library", "--help", "-h"]

    /// The options each command accepts, besides the global ones.
    private static func options(of command: CommandName) -> Set<String> {
        switch command {
        case .list, .show, .search, .status, .trash: ["--json"]
        case .sync: ["--json", "--store", "--endpoint", "--region"]
        case .edit: ["--text", "--insert", "--delete"]
        case .export: ["--output", "-o", "--all", "--force"]
        case .new, .delete, .restore, .help: []
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
        var invocation = Invocation(command: .help(topic: nil))
        invocation.libraryPath = try libraryPath(given)

        guard let commandWord = positionals.first else {
            if wantsHelp { return invocation }
            throw .usage("no command given (run 'memo help' for the list of commands)")
        }
        guard let command = CommandName(rawValue: commandWord) else {
            throw .usage("unknown command '\(commandWord)' (run 'memo help' for the list of commands)")
        }
        if wantsHelp {
            invocation.command = .help(topic: command == .help ? nil : command)
            return invocation
        }
        let allowed = options(of: command).union(globalOptions)
        for option in given where !allowed.contains(option.name) {
            throw .usage("option \(option.name) does not apply to '\(command.rawValue)' (run 'memo help \(command.rawValue)')")
        }
        invocation.json = given.contains { $0.name == "--json" }
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
            guard let count = arity[name] else {
                if Int(argument) != nil {
                    throw .usage("unexpected number \(argument); to give text that starts with a dash, put -- before it")
                }
                throw .usage("unknown option \(name) (run 'memo help')")
            }
            var values: [String] = []
            if let inlineValue {
                guard count == 1 else {
                    throw .usage(count == 0 ? "option \(name) takes no value" : "option \(name) takes \(count) values; give them as separate arguments")
                }
                values = [inlineValue]
            } else {
                guard arguments.count - index >= count else {
                    throw .usage("option \(name) needs \(valueNames(name))")
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
            guard path == nil else { throw .usage("option --library is given twice") }
            guard !option.values[0].isEmpty else { throw .usage("option --library needs a folder path, not an empty string") }
            path = option.values[0]
        }
        return path
    }

    private static func parseCommand(_ command: CommandName, arguments: [String], options: [GivenOption]) throws(CLIError) -> Command {
        switch command {
        case .help:
            guard arguments.count <= 1 else { throw .usage("'help' takes at most one command name") }
            guard let word = arguments.first else { return .help(topic: nil) }
            guard let topic = CommandName(rawValue: word) else {
                throw .usage("unknown command '\(word)' (run 'memo help' for the list of commands)")
            }
            return .help(topic: topic == .help ? nil : topic)
        case .new:
            return .new(text: arguments.isEmpty ? nil : arguments.joined(separator: " "))
        case .list:
            try expectNoArguments(arguments, command)
            return .list
        case .trash:
            try expectNoArguments(arguments, command)
            return .trash
        case .status:
            try expectNoArguments(arguments, command)
            return .status
        case .show:
            return .show(id: try oneID(arguments, command))
        case .delete:
            return .delete(id: try oneID(arguments, command))
        case .restore:
            return .restore(id: try oneID(arguments, command))
        case .search:
            let query = arguments.joined(separator: " ")
            guard !query.allSatisfy(\.isWhitespace) else { throw .usage("'search' needs something to search for") }
            return .search(query: query)
        case .edit:
            let id = try oneID(arguments, command)
            return .edit(id: id, mode: try editMode(options))
        case .export:
            return .export(try exportTarget(arguments, options: options))
        case .sync:
            try expectNoArguments(arguments, command)
            let store = try single("--store", in: options)
            if let store, store.isEmpty { throw .usage("option --store needs a folder path or a store URL") }
            return .sync(StoreOptions(store: store, endpoint: try single("--endpoint", in: options), region: try single("--region", in: options)))
        }
    }

    /// What `memo export` writes: one memo (to standard output or `--output FILE`), or every
    /// memo into the folder of `--all DIR`.
    private static func exportTarget(_ arguments: [String], options: [GivenOption]) throws(CLIError) -> ExportTarget {
        let output = try single("--output", in: options)
        let shortOutput = try single("-o", in: options)
        guard output == nil || shortOutput == nil else { throw .usage("option --output is given twice") }
        let force = options.contains { $0.name == "--force" }
        if let directory = try single("--all", in: options) {
            guard arguments.isEmpty else {
                throw .usage("'export --all DIR' exports every memo; it takes no memo id")
            }
            guard output == nil && shortOutput == nil else {
                throw .usage("--output names one file; with --all, give a folder only")
            }
            guard !directory.isEmpty else { throw .usage("option --all needs a folder path") }
            return .all(directory: directory, overwrite: force)
        }
        if force { throw .usage("--force applies to 'export --all DIR' only") }
        let file = output ?? shortOutput
        if let file, file.isEmpty { throw .usage("option --output needs a file path") }
        return .one(id: try oneID(arguments, .export), output: file)
    }

    /// The value of option `name`, which takes one value and may be given at most once.
    private static func single(_ name: String, in options: [GivenOption]) throws(CLIError) -> String? {
        let matching = options.filter { $0.name == name }
        guard matching.count <= 1 else { throw .usage("option \(name) is given twice") }
        return matching.first?.values[0]
    }

    /// The edit mode the options of `memo edit` ask for.
    private static func editMode(_ options: [GivenOption]) throws(CLIError) -> EditMode {
        var text: String?
        var operations: [EditOperation] = []
        for option in options {
            switch option.name {
            case "--text":
                guard text == nil else { throw .usage("option --text is given twice") }
                text = option.values[0]
            case "--insert":
                let offset = try number(option.values[0], what: "the offset of --insert")
                operations.append(.insert(offset: offset, text: option.values[1]))
            case "--delete":
                let offset = try number(option.values[0], what: "the offset of --delete")
                let length = try number(option.values[1], what: "the length of --delete")
                operations.append(.delete(offset: offset, length: length))
            default:
                continue
            }
        }
        if let text {
            guard operations.isEmpty else {
                throw .usage("--text replaces the whole text; it cannot be combined with --insert or --delete")
            }
            return .text(text)
        }
        return operations.isEmpty ? .editor : .operations(operations)
    }

    /// A non-negative decimal integer.
    private static func number(_ text: String, what: String) throws(CLIError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .usage("\(what) must be a whole number of characters, 0 or more (got '\(text)')")
        }
        guard let value = Int(text) else {
            throw .usage("\(what) is too large (got \(text))")
        }
        return value
    }

    private static func expectNoArguments(_ arguments: [String], _ command: CommandName) throws(CLIError) {
        guard arguments.isEmpty else {
            throw .usage("'\(command.rawValue)' takes no arguments (got '\(arguments[0])'; run 'memo help \(command.rawValue)')")
        }
    }

    private static func oneID(_ arguments: [String], _ command: CommandName) throws(CLIError) -> String {
        guard let id = arguments.first else {
            throw .usage("'\(command.rawValue)' needs a memo id (run 'memo list' to see them)")
        }
        guard arguments.count == 1 else {
            throw .usage("'\(command.rawValue)' takes one memo id (got also '\(arguments[1])')")
        }
        return id
    }

    private static func valueNames(_ option: String) -> String {
        switch option {
        case "--insert": "OFFSET and TEXT"
        case "--delete": "OFFSET and LENGTH"
        case "--library", "--all": "a folder path"
        case "--store": "a folder path or a store URL"
        case "--endpoint": "a URL"
        case "--region": "a region name"
        case "--output", "-o": "a file path"
        default: "a value"
        }
    }
}
