// Editing a text in the user's editor.

import Foundation

/// Runs `$VISUAL` or `$EDITOR` on a temporary file.
enum Editor {
    /// The editor command: `$VISUAL`, else `$EDITOR` (ignoring empty values), else `vi` when
    /// standard input and output are terminals.
    ///
    /// - Throws: a usage error when no editor is set and there is no terminal to run `vi` in.
    static func command(environment: [String: String], console: Console) throws(CLIError) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], !value.allSatisfy(\.isWhitespace) { return value }
        }
        guard console.inputIsTerminal && console.outputIsTerminal else {
            throw .usage("error.noEditor")
        }
        return "vi"
    }

    /// Lets the user edit `text` and returns the result.
    ///
    /// The text goes to a new private temporary file (mode 0600) named `memo-<name>-<random>.txt`;
    /// the editor runs as `/bin/sh -c '<command> "$@"' memo <file>` (so the command may hold
    /// options, as `EDITOR="code --wait"`), with the terminal; the file is read back and
    /// removed. If `text` did not end with a line break and the result ends with "\n" (most
    /// editors add one), that one "\n" is dropped.
    ///
    /// When the editor exits unsuccessfully, or leaves text that is not UTF-8, the file is kept
    /// if it holds anything other than `text` (what was typed is never lost, as git keeps a
    /// commit message), and the error names it.
    ///
    /// - Throws: a runtime error when the file cannot be written or read, the editor cannot be
    ///   started or exits unsuccessfully, or the result is not UTF-8.
    static func edit(_ text: String, name: String, command: String) throws(CLIError) -> String {
        let file = try temporaryFile(name: name, contents: Array(text.utf8))
        // Removes the file unless it holds something other than what it was given; returns
        // the sentence that tells the user where their text is, if it was kept.
        func discardUnlessTyped() -> String {
            let now = try? Data(contentsOf: URL(fileURLWithPath: file))
            guard let now, Array(now) != Array(text.utf8) else {
                _ = unlink(file)
                return ""
            }
            return t("typedKeptIn", ["path": file])
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " \"$@\"", "memo", file]
        do {
            try process.run()
        } catch {
            _ = unlink(file)
            throw .runtime("error.editorNotStarted", ["command": command, "error": describe(error)])
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit && process.terminationStatus == 0 else {
            let how = process.terminationReason == .exit
                ? t("editorExited", ["status": String(process.terminationStatus)])
                : t("editorSignalled", ["signal": String(process.terminationStatus)])
            throw .runtime("error.editorFailed", ["command": command, "how": how, "kept": discardUnlessTyped()])
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw .runtime("error.editedUnreadable", ["path": file, "error": describe(error), "kept": discardUnlessTyped()])
        }
        guard var result = exactUTF8(Array(data)) else {
            throw .runtime("error.editedNotUTF8", ["kept": discardUnlessTyped()])
        }
        _ = unlink(file)
        if text.utf8.last != UInt8(ascii: "\n") && result.utf8.last == UInt8(ascii: "\n") {
            result.removeLast()
            // "\r\n" is one Character in Swift: removeLast dropped both. Keep the "\r" then.
            if data.count >= 2 && data[data.count - 2] == UInt8(ascii: "\r") { result.append("\r") }
        }
        return result
    }

    /// Writes `text` to a new private temporary file and returns its path; nil when that
    /// fails too. For an edit that could not be applied after the editor closed.
    static func keep(_ text: String, name: String) -> String? {
        try? temporaryFile(name: name, contents: Array(text.utf8))
    }

    /// Creates a new file in the temporary folder, readable only by the user, holding `contents`.
    private static func temporaryFile(name: String, contents: [UInt8]) throws(CLIError) -> String {
        var folder = FileManager.default.temporaryDirectory.path
        if folder.hasSuffix("/") { folder.removeLast() }
        for _ in 0..<16 {
            var generator = SystemRandomNumberGenerator()
            let path = folder + "/memo-\(name)-\(String(generator.next() & 0xFFFF_FFFF, radix: 16)).txt"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            if descriptor < 0 {
                if errno == EEXIST { continue }
                throw .runtime("error.cannotCreateTemporary", ["path": folder, "error": UserFileError(errorNumber: errno, writing: true).localizedReason])
            }
            defer { close(descriptor) }
            var failed = false
            contents.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        failed = true
                        return
                    }
                    offset += written
                }
            }
            if failed {
                let message = UserFileError(errorNumber: errno, writing: true).localizedReason
                _ = unlink(path)
                throw .runtime("error.cannotWrite", ["path": path, "error": message])
            }
            return path
        }
        throw .runtime("error.cannotCreateTemporary", ["path": folder, "error": t("file.exists")])
    }
}
