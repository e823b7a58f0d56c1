// memo: the command line front end of MemoSync. See `memo help` (Help.swift) for the commands.
//
// The parts: Arguments.swift parses the command line into an `Invocation`; Commands*.swift run
// it against the library (a `Replica` to change it, a `LibrarySnapshot` to read it);
// Output.swift formats for people (local dates and numbers, short ids) and programs (JSON);
// Editor.swift runs $VISUAL/$EDITOR; Settings.swift finds the library folder and keeps the
// remembered store path in it; Help.swift, Manual.swift and Completion.swift are the help,
// the man page and the shell completions, all from the same descriptions.
//
// Every message and help page comes from the catalogs in MemoSync (MemoStrings, "cli." and
// "help." keys), in the language LC_ALL, LC_MESSAGES or LANG chooses (English otherwise);
// `--json` output does not depend on it.
//
// Exit status: 0 on success, 1 when the command failed, 2 for a wrong command line; `search`
// exits 1 when nothing matched and 2 on any error, as grep does; 4 when the command did its work
// but found the library damaged (a warning says what was lost and where the damaged file was kept). Errors are printed to
// standard error as "memo: <message>".

import Foundation
import MemoSync

let environment = ProcessInfo.processInfo.environment
MemoLanguage.current = MemoLanguage.fromEnvironment(environment) ?? .english

// `memo demo`: two devices converging through a shared folder (Demo.swift).
if CommandLine.arguments.dropFirst().first == "demo" {
    exit(await Demo.run(arguments: Array(CommandLine.arguments.dropFirst(2))))
}

/// The arguments as given, each checked to be UTF-8: `CommandLine.arguments` would repair an
/// invalid one with U+FFFD, and the memo would silently hold other text than what was given.
func validatedArguments() throws(CLIError) -> [String] {
    var arguments: [String] = []
    for index in 1..<Int(CommandLine.argc) {
        guard let pointer = CommandLine.unsafeArgv[index], let argument = String(validatingCString: pointer) else {
            throw .usage("error.argumentNotUTF8", ["index": String(index)])
        }
        arguments.append(argument)
    }
    return arguments
}

var console = Console()
var status: Int32 = 0
var commandName: CommandName?
var libraryWarnings: LibraryWarnings?
do throws(CLIError) {
    let invocation = try ArgumentParser.parse(try validatedArguments())
    commandName = invocation.commandName
    var runner = Runner(console: console, environment: environment)
    libraryWarnings = runner.libraryWarnings
    defer { console = runner.console }
    try await runner.run(invocation)
} catch {
    console.flush()
    if error.kind != .noMatch { console.error("memo: \(error.message)\n") }
    status = error.exitStatus(command: commandName)
}
console.flush()
if status == 0, libraryWarnings?.found == true { status = 4 }
if let failure = console.outputFailure, status == 0 {
    console.error("memo: " + t("error.cannotWriteOutput", ["error": failure]) + "\n")
    status = 1
}
exit(status)
