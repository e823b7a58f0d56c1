// `memo completion bash|zsh|fish`: completion scripts made from the same command and option
// lists the parser uses (Arguments.swift), with the one-line summaries of `memo help`. Memo
// ids complete from `memo list` (and `memo trash` for restore and purge) of the library the
// command line names (`--library PATH`, else MEMO_LIBRARY, else the default), found by stepping
// over every option's values as the parser does; `memo store` completes its actions and
// `memo demo` its `--dir`. Tested in the real shells (FeatureTests).

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

    /// The options of `command`, sorted, global ones included (`demo` parses its own `--dir`).
    private static func options(_ command: CommandName) -> [String] {
        var options = ArgumentParser.options(of: command).union(ArgumentParser.globalOptions)
        if command == .demo { options.insert("--dir") }
        return options.sorted()
    }

    /// Which list a command's ids come from: "trash" for restore and purge, "list" for the
    /// other commands that take an id, nil for those that take none.
    private static func idSource(_ command: CommandName) -> String? {
        switch command {
        case .restore, .purge: "trash"
        case .show, .edit, .undo, .redo, .delete, .export, .history, .diff, .revert: "list"
        default: nil
        }
    }

    /// The words a command takes besides ids and options.
    private static func words(_ command: CommandName) -> [String] {
        switch command {
        case .completion: Shell.allCases.map(\.rawValue)
        case .help: commands.map(\.rawValue)
        case .store: StoreAction.allCases.map(\.rawValue)
        default: []
        }
    }

    /// Options whose value is a file or folder.
    private static let pathOptions = ["--library", "--store", "--all", "--output", "-o", "--text-file", "--dir", "--passphrase-file", "--new-passphrase-file"]

    /// Options that take one value, and two (`--all` is handled apart: a value for export only).
    private static var oneValue: [String] {
        ArgumentParser.optionsTakingValues.filter { $0.count == 1 && $0.name != "--all" }.map(\.name) + ["--dir"]
    }
    private static var twoValues: [String] { ArgumentParser.optionsTakingValues.filter { $0.count == 2 }.map(\.name) }

    private static func bash() -> String {
        var cases = ""
        for command in commands {
            let ids = idSource(command).map { "$(memo \"${library[@]}\" \($0) 2>/dev/null | cut -d' ' -f1)" } ?? ""
            let others = words(command).joined(separator: " ")
            cases += "        \(command.rawValue)) options=\"\(options(command).joined(separator: " "))\"; arguments=\"\(others) \(ids)\" ;;\n"
        }
        return """
            # bash completion for memo (memo completion bash)
            _memo() {
                local current="${COMP_WORDS[COMP_CWORD]}" previous="${COMP_WORDS[COMP_CWORD-1]}" command="" word options="" arguments=""
                local -a library=()
                local index=1 skip=0
                # The command is the first word that is neither an option nor an option's value.
                while (( index < COMP_CWORD )); do
                    word="${COMP_WORDS[index]}"
                    index=$((index + 1))
                    if (( skip > 0 )); then
                        [[ "$word" == "=" ]] || skip=$((skip - 1))
                        continue
                    fi
                    case "$word" in
                        --library)
                            if [[ "${COMP_WORDS[index]}" == "=" ]]; then library=(--library "${COMP_WORDS[index+1]}"); else library=(--library "${COMP_WORDS[index]}"); fi
                            skip=1 ;;
                        --library=*) library=(--library "${word#--library=}") ;;
                        \(twoValues.joined(separator: "|"))) skip=2 ;;
                        \(oneValue.joined(separator: "|"))) skip=1 ;;
                        --all) [[ "$command" == "export" ]] && skip=1 ;;
                        -*) ;;
                        *) [[ -z "$command" ]] && command="$word" ;;
                    esac
                done
                case "$command" in
                    "") options="--version --help --library --quiet"; arguments="\(commands.map(\.rawValue).joined(separator: " "))" ;;
            \(cases)    esac
                case "$previous" in
                    \(pathOptions.joined(separator: "|"))) COMPREPLY=($(compgen -f -- "$current")); return ;;
                    =) case "${COMP_WORDS[COMP_CWORD-2]}" in \(pathOptions.filter { $0.hasPrefix("--") }.joined(separator: "|"))) COMPREPLY=($(compgen -f -- "$current")); return ;; esac ;;
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
            let ids = idSource(command).map { " ${(f)\"$(memo \"${library[@]}\" \($0) 2>/dev/null | cut -d' ' -f1)\"}" } ?? ""
            let others = words(command).map { " " + $0 }.joined()
            cases += "        \(command.rawValue)) compadd -- \(options(command).joined(separator: " "))\(others)\(ids) ;;\n"
        }
        return """
            #compdef memo
            # zsh completion for memo (memo completion zsh)
            _memo() {
                local -a commands library
                local command="" word index=2 skip=0
                commands=(\(described))
                # The command is the first word that is neither an option nor an option's value.
                while (( index < CURRENT )); do
                    word="${words[index]}"
                    index=$((index + 1))
                    if (( skip > 0 )); then skip=$((skip - 1)); continue; fi
                    case "$word" in
                        --library) library=(--library "${words[index]}"); skip=1 ;;
                        --library=*) library=(--library "${word#--library=}") ;;
                        \(twoValues.joined(separator: "|"))) skip=2 ;;
                        \(oneValue.joined(separator: "|"))) skip=1 ;;
                        --all) [[ "$command" == "export" ]] && skip=1 ;;
                        -*) ;;
                        *) [[ -z "$command" ]] && command="$word" ;;
                    esac
                done
                case "${words[CURRENT-1]}" in
                    \(pathOptions.joined(separator: "|"))) _files; return ;;
                esac
                if [[ -z "$command" ]]; then
                    _describe 'command' commands
                    return
                fi
                case "$command" in
            \(cases)    esac
            }
            compdef _memo memo

            """
    }

    private static func fish() -> String {
        var lines = [
            "# fish completion for memo (memo completion fish)",
            "complete -c memo -f",
            "# The library the command line names (--library PATH or --library=PATH), for memo ids.",
            "function __memo_library",
            "    set -l words (commandline -opc)",
            "    for index in (seq (count $words))",
            "        if test \"$words[$index]\" = --library; and test $index -lt (count $words)",
            "            echo --library; echo $words[(math $index + 1)]",
            "        else if string match -q -- '--library=*' $words[$index]",
            "            echo --library; string replace -- '--library=' '' $words[$index]",
            "        end",
            "    end",
            "end",
        ]
        let all = commands.map(\.rawValue).joined(separator: " ")
        for command in commands {
            lines.append("complete -c memo -n 'not __fish_seen_subcommand_from \(all)' -a \(command.rawValue) -d '\(quotedForFish(Help.text("summary." + command.rawValue)))'")
            for option in options(command) where option.hasPrefix("--") {
                let takesPath = pathOptions.contains(option) ? " -r -F" : ""
                lines.append("complete -c memo -n '__fish_seen_subcommand_from \(command.rawValue)' -l \(option.dropFirst(2))\(takesPath)")
            }
            if let source = idSource(command) {
                lines.append("complete -c memo -n '__fish_seen_subcommand_from \(command.rawValue)' -a '(memo (__memo_library) \(source) 2>/dev/null | string split -f1 \" \")'")
            }
            if !words(command).isEmpty {
                lines.append("complete -c memo -n '__fish_seen_subcommand_from \(command.rawValue)' -a '\(words(command).joined(separator: " "))'")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func quotedForZsh(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: ":", with: "\\:")
    }

    private static func quotedForFish(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
