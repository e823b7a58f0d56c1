// memo: the command line front end of MemoSync. See `memo help` (Help.swift) for the commands.
//
// The parts: Arguments.swift parses the command line into an `Invocation`; Commands.swift runs
// it against the library (a `Replica`); Output.swift formats for people (local dates, short
// ids) and programs (JSON); Editor.swift runs $VISUAL/$EDITOR; Settings.swift finds the library
// folder and keeps the remembered store path in it.
//
// Exit status: 0 on success, 1 when the command failed (or, for `search`, matched nothing, as
// grep does), 2 for a wrong command line. Errors are printed to standard error as
// "memo: <message>".

import Foundation

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
            throw .usage("argument \(index) is not valid UTF-8; memo stores text exactly as given, so it refuses it")
        }
        arguments.append(argument)
    }
    return arguments
}

var console = Console()
var status: Int32 = 0
do throws(CLIError) {
    let invocation = try ArgumentParser.parse(try validatedArguments())
    var runner = Runner(console: console, environment: ProcessInfo.processInfo.environment)
    defer { console = runner.console }
    try await runner.run(invocation)
} catch {
    console.flush()
    if error.kind != .noMatch { console.error("memo: \(error.message)\n") }
    status = error.exitStatus
}
console.flush()
if let failure = console.outputFailure, status == 0 {
    console.error("memo: cannot write to standard output: \(failure)\n")
    status = 1
}
exit(status)
