// The text of `memo help`: the commands grouped by task, and one page per command. The texts
// are in the catalogs ("help." keys, MemoStrings); the usage lines, which are the same in
// every language, are here. Manual.swift makes the man page from the same texts, and
// Completion.swift the shell completions from the same command list.

import MemoSync

/// The help pages.
enum Help {
    /// The text of `key` ("help." is prepended) in the language `memo` speaks.
    static func text(_ key: String) -> String {
        MemoStrings.text("help." + key)
    }

    /// The groups of the overview: a catalog key ("help.group.KEY") and its commands.
    static let groups: [(key: String, commands: [CommandName])] = [
        ("write", [.new, .edit, .undo, .redo, .revert]),
        ("find", [.list, .show, .search, .history, .diff]),
        ("trash", [.delete, .restore, .trash, .purge]),
        ("sync", [.sync, .status, .recover, .store]),
        ("files", [.export, .import]),
        ("more", [.serve, .help, .completion, .demo]),
    ]

    /// How to call `command`: one line per form, without "memo ".
    static func usage(_ command: CommandName) -> [String] {
        switch command {
        case .new: ["new [TEXT...] [--text-file PATH | -] [--json]"]
        case .edit:
            [
                "edit ID",
                "edit ID --text TEXT | --text - | --text-file PATH",
                "edit ID (--insert OFFSET TEXT | --delete OFFSET LENGTH)...",
            ]
        case .undo: ["undo ID [--json]"]
        case .redo: ["redo ID [--json]"]
        case .list: ["list [--json]"]
        case .show: ["show ID [--json]", "show ID --at VERSION | --before TIME [--json]"]
        case .history: ["history ID [--json]", "history --keep DAYS|forever [--json]"]
        case .diff: ["diff ID [FROM [TO]] [--json]"]
        case .revert: ["revert ID VERSION [--json]"]
        case .search: ["search QUERY... [--kana-distinct] [--json]"]
        case .delete: ["delete ID [--json]"]
        case .restore: ["restore ID [--json]"]
        case .trash: ["trash [--json]"]
        case .purge: ["purge ID... [--json]", "purge --all [--json]"]
        case .sync:
            [
                "sync [--store PATH|URL] [--encrypt] [--passphrase-file FILE] [--json]",
                "sync --store s3://BUCKET/PREFIX [--endpoint URL] [--region REGION]",
            ]
        case .status: ["status [--json]"]
        case .recover: ["recover [--restore] [--json]"]
        case .store:
            [
                "store passphrase [--store PATH] [--passphrase-file FILE] [--new-passphrase-file FILE]",
                "store rotate-key [--store PATH] [--passphrase-file FILE]",
                "store decrypt [--store PATH] [--passphrase-file FILE]",
            ]
        case .export: ["export ID [--output FILE] [--json]", "export --all DIR [--force] [--json]"]
        case .import: ["import PATH... [--again] [--json]"]
        case .help: ["help [COMMAND]", "help --man"]
        case .completion: ["completion bash|zsh|fish"]
        case .demo: ["demo [--dir DIR]"]
        case .serve: ["serve [--port N] [--no-open] [--store PATH|URL] [--sync-interval SECONDS]", "serve --listen ADDRESS[:PORT] [--no-open]"]
        }
    }

    /// The overview: the commands grouped by task, each with one line, then the conventions.
    static func overview() -> String {
        var lines = [text("title"), "", "\(text("usageLabel")) memo [--library PATH] [--quiet] COMMAND [ARGUMENTS] [OPTIONS]"]
        for group in groups {
            lines.append("")
            lines.append(text("group." + group.key))
            for command in group.commands {
                let form = usage(command)[0]
                let summary = text("summary." + command.rawValue)
                if form.count <= 26 {
                    lines.append("  " + form + String(repeating: " ", count: 28 - form.count) + summary)
                } else {
                    lines.append("  " + form)
                    lines.append(String(repeating: " ", count: 30) + summary)
                }
            }
        }
        lines.append("")
        lines.append(text("footer"))
        return lines.joined(separator: "\n")
    }

    /// The page of one command: its usage lines, then its text (options, examples, exit status).
    static func page(_ command: CommandName) -> String {
        let forms = usage(command)
        let label = text("usageLabel")
        var lines = ["\(label) memo \(forms[0])"]
        let indent = String(repeating: " ", count: Format.displayWidth(label) + 1)
        for form in forms.dropFirst() { lines.append("\(indent)memo \(form)") }
        lines.append("")
        lines.append(text("summary." + command.rawValue))
        lines.append("")
        lines.append(text("page." + command.rawValue))
        // Every command that opens a library exits 4 when it found it damaged (main.swift).
        if !commandsWithoutLibrary.contains(command) {
            lines.append("")
            lines.append(text("exitDamaged"))
        }
        return lines.joined(separator: "\n")
    }

    /// The commands that open no library: their pages say nothing of exit status 4.
    static let commandsWithoutLibrary: Set<CommandName> = [.help, .completion, .demo]
}
