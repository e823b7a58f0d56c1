// `memo completion bash|zsh|fish`: completion scripts made from the same command and option
// lists the parser uses (Arguments.swift), with the one-line summaries of `memo help`. Memo
// ids complete from `memo list` (and `memo trash` for restore and purge).

/// The completion scripts.
enum Completion {
    /// The script for `shell`.
    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: bash()
        case .zsh: zsh()
        case .fish: fish()
        }
    }

    /// The commands in help order.
    private static var commands: [CommandName] { Help.groups.flatMap(\.commands) }

    /// The options of `command`, sorted, global ones included.
    private static func options(_ command: CommandName) -> [String] {
        ArgumentParser.options(of: command).union(ArgumentParser.globalOptions).sorted()
    }

    /// Which list a command's ids come from: "trash" for restore and purge, "list" for the
    /// other commands that take an id, nil for those that take none.
    private static func idSource(_ command: CommandName) -> String? {
        switch command {
        case .restore, .purge: "trash"
        case .show, .edit, .undo, .redo, .delete, .export: "list"
        default: nil
        }
    }

    private static func bash() -> String {
        var cases = ""
        for command in commands {
            let ids = idSource(command).map { "$(memo \($0) 2>/dev/null | cut -d' ' -f1)" } ?? ""
            let others = command == .completion ? "bash zsh fish" : command == .help ? commands.map(\.rawValue).joined(separator: " ") : ""
            cases += "        \(command.rawValue)) options=\"\(options(command).joined(separator: " "))\"; arguments=\"\(others)\(ids)\" ;;\n"
        }
        return """
            # bash completion for memo (memo completion bash)
            _memo() {
                local current="${COMP_WORDS[COMP_CWORD]}" command="" word options="" arguments=""
                for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
                    case "$word" in -*) ;; *) command="$word"; break ;; esac
                done
                case "$command" in
                    "") options="--version --help --library --quiet"; arguments="\(commands.map(\.rawValue).joined(separator: " "))" ;;
            \(cases)    esac
                case "${COMP_WORDS[COMP_CWORD-1]}" in
                    --library|--store|--all|--output|-o|--text-file|--dir) COMPREPLY=($(compgen -f -- "$current")); return ;;
                esac
                case "$current" in
                    -*) COMPREPLY=($(compgen -W "$options" -- "$current")) ;;
                    *) COMPREPLY=($(compgen -W "$arguments" -- "$current")) ;;
                esac
            }
            complete -o default -F _memo memo

            """
    }

    private static func zsh() -> String {
        let described = commands.map { "'\($0.rawValue):\(quotedForZsh(Help.text("summary." + $0.rawValue)))'" }.joined(separator: " ")
        var cases = ""
        for command in commands {
            let ids = idSource(command).map { " ${(f)\"$(memo \($0) 2>/dev/null | cut -d' ' -f1)\"}" } ?? ""
            cases += "        \(command.rawValue)) compadd -- \(options(command).joined(separator: " "))\(ids) ;;\n"
        }
        return """
            #compdef memo
            # zsh completion for memo (memo completion zsh)
            _memo() {
                local -a commands
                commands=(\(described))
                if (( CURRENT == 2 )); then
                    _describe 'command' commands
                    return
                fi
                case "${words[CURRENT-1]}" in
                    --library|--store|--all|--output|-o|--text-file|--dir) _files; return ;;
                esac
                case "${words[2]}" in
            \(cases)    esac
            }
            compdef _memo memo

            """
    }

    private static func fish() -> String {
        var lines = ["# fish completion for memo (memo completion fish)", "complete -c memo -f"]
        let all = commands.map(\.rawValue).joined(separator: " ")
        for command in commands {
            lines.append("complete -c memo -n 'not __fish_seen_subcommand_from \(all)' -a \(command.rawValue) -d '\(quotedForFish(Help.text("summary." + command.rawValue)))'")
            for option in options(command) where option.hasPrefix("--") {
                lines.append("complete -c memo -n '__fish_seen_subcommand_from \(command.rawValue)' -l \(option.dropFirst(2))")
            }
            if let source = idSource(command) {
                lines.append("complete -c memo -n '__fish_seen_subcommand_from \(command.rawValue)' -a '(memo \(source) 2>/dev/null | string split -f1 \" \")'")
            }
        }
        lines.append("complete -c memo -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func quotedForZsh(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: ":", with: "\\:")
    }

    private static func quotedForFish(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
