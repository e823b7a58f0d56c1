// `memo help --man`: the man page, made from the help texts (Help.swift) in the language
// `memo` speaks, so the two never disagree.

/// The man page.
enum Manual {
    /// The whole manual in roff (man(7)): name, synopsis, the commands by task, one section
    /// per command with its page, and the conventions of the overview.
    static func page() -> String {
        var roff = [".TH MEMO 1 \"\" \"memo \(Version.memo)\" \"MemoSync\"", ".SH NAME"]
        let title = Help.text("title")
        roff.append(escaped("memo \\- " + (title.hasPrefix("memo: ") ? String(title.dropFirst(6)) : title), raw: true))
        roff += [".SH SYNOPSIS", ".nf"]
        roff.append(escaped("memo [--library PATH] [--quiet] COMMAND [ARGUMENTS] [OPTIONS]"))
        roff.append(escaped("memo --version"))
        roff += [".fi", ".SH COMMANDS"]
        for group in Help.groups {
            roff.append(".SS " + escaped(Help.text("group." + group.key)))
            for command in group.commands {
                roff.append(".TP")
                roff.append(".B " + escaped("memo " + Help.usage(command)[0]))
                roff.append(escaped(Help.text("summary." + command.rawValue)))
            }
        }
        for group in Help.groups {
            for command in group.commands {
                roff.append(".SH " + escaped("MEMO " + command.rawValue.uppercased()))
                roff.append(".nf")
                roff += Help.page(command).split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }
                roff.append(".fi")
            }
        }
        roff += [".SH NOTES", ".nf"]
        roff += Help.text("footer").split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }
        roff.append(".fi")
        return roff.joined(separator: "\n") + "\n"
    }

    /// `line` safe in roff: backslashes as `\e`, dashes as `\-`, characters past ASCII as
    /// `\[uXXXX]` (groff reads its input as Latin-1, not UTF-8: "ß" and "ガ" of the search page
    /// would be garbled or warned about), and a leading "." or "'" (a request) guarded by `\&`.
    /// With `raw`, backslashes already are escapes.
    static func escaped(_ line: String, raw: Bool = false) -> String {
        var text = raw ? line : line.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if text.unicodeScalars.contains(where: { $0.value > 0x7F }) {
            var escapedText = ""
            for scalar in text.unicodeScalars {
                if scalar.value > 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    escapedText += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                } else {
                    escapedText.unicodeScalars.append(scalar)
                }
            }
            text = escapedText
        }
        if text.hasPrefix(".") || text.hasPrefix("'") { text = "\\&" + text }
        return text
    }
}
