// Running the real `memo` executable in a private temporary folder.

import Foundation
import Testing

/// What one run of `memo` did.
struct RunResult: CustomStringConvertible {
    var status: Int32
    var stdoutBytes: [UInt8]
    var stderr: String

    var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }

    /// Standard output parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdoutBytes), options: [.fragmentsAllowed])
    }

    /// Standard output parsed as a JSON object.
    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "not a JSON object: \(stdout)")
    }

    /// Standard output parsed as a JSON array of objects.
    func objects() throws -> [[String: Any]] {
        try #require(try json() as? [[String: Any]], "not a JSON array of objects: \(stdout)")
    }

    var description: String { "exit \(status)\n--- stdout:\n\(stdout)\n--- stderr:\n\(stderr)" }
}

/// Where the `memo` executable is: `$MEMO_EXECUTABLE`, else next to the test bundle (SwiftPM
/// puts every product of the package in one folder, and `swift test` builds them all).
enum MemoExecutable {
    static let path: String? = {
        let manager = FileManager.default
        var folders: [URL] = []
        if let override = ProcessInfo.processInfo.environment["MEMO_EXECUTABLE"], !override.isEmpty {
            return override
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for folder in folders {
            let candidate = folder.appendingPathComponent("memo").path
            if manager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()
}

/// A private temporary folder for one test, with helpers to run `memo` in it. Call
/// ``remove()`` at the end (`defer { sandbox.remove() }`).
struct Sandbox {
    /// The folder (absolute, no trailing "/").
    let path: String
    /// A home folder inside it, so that nothing a test runs touches the real one.
    var home: String { path + "/home" }

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        var generator = SystemRandomNumberGenerator()
        let folder = (base.hasSuffix("/") ? base : base + "/") + "memo-cli-test-\(String(generator.next(), radix: 16))"
        try FileManager.default.createDirectory(atPath: folder + "/home", withIntermediateDirectories: true)
        // Resolve symbolic links (/tmp on macOS is /private/tmp), as the executable sees them.
        path = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
    }

    /// Removes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/relative`.
    func at(_ relative: String) -> String { path + "/" + relative }

    /// Runs `memo arguments` with the library `library` (through `MEMO_LIBRARY`; nil leaves it
    /// unset), `input` on standard input (nil: /dev/null), in an environment holding only what
    /// a run needs plus `environment`: HOME inside the sandbox, TZ=UTC, no editor. The current
    /// folder is the sandbox. Standard output goes to `standardOutput` if given (then the
    /// result's output is empty).
    @discardableResult
    func memo(
        _ arguments: [String], library: String? = nil, input: [UInt8]? = nil, environment: [String: String] = [:],
        standardOutput: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let executable = try #require(MemoExecutable.path, "the memo executable was not found next to the tests; build it (swift build) or set MEMO_EXECUTABLE", sourceLocation: sourceLocation)
        var generator = SystemRandomNumberGenerator()
        let tag = String(generator.next(), radix: 16)
        let outPath = at("out-\(tag)")
        let errPath = at("err-\(tag)")
        let inPath = at("in-\(tag)")
        let manager = FileManager.default
        defer {
            for file in [outPath, errPath, inPath] { try? manager.removeItem(atPath: file) }
        }
        let process = try memoProcess(executable, arguments, library: library, environment: environment, outPath: outPath, errPath: errPath)
        let outHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: standardOutput ?? outPath))
        let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        if let input {
            try Data(input).write(to: URL(fileURLWithPath: inPath))
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        let out = try Data(contentsOf: URL(fileURLWithPath: outPath))
        let err = try Data(contentsOf: URL(fileURLWithPath: errPath))
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        return RunResult(status: status, stdoutBytes: Array(out), stderr: String(decoding: err, as: UTF8.self))
    }

    /// A `memo` process not started yet: `arguments`, the sandbox as its current folder, an
    /// environment holding only what a run needs (HOME inside the sandbox, TZ=UTC, LANG=C.UTF-8, a
    /// cheap scrypt for stores made encrypted,
    /// PATH, MEMO_LIBRARY when `library` is given) plus `environment`; empty files made at
    /// `outPath` and `errPath` for its output.
    func memoProcess(
        _ executable: String, _ arguments: [String], library: String?, environment: [String: String], outPath: String, errPath: String
    ) throws -> Process {
        try Data().write(to: URL(fileURLWithPath: outPath))
        try Data().write(to: URL(fileURLWithPath: errPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: path)
        var variables: [String: String] = [
            "HOME": home, "TZ": "UTC", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            // Stores the tests turn encrypted take a cheap scrypt (the test build's hook): each
            // derivation at the default cost is about a second in a debug build.
            "MEMO_TEST_SCRYPT_LOG2N": "10",
        ]
        if let library { variables["MEMO_LIBRARY"] = library }
        variables.merge(environment) { $1 }
        process.environment = variables
        return process
    }

    /// Runs `memo` and expects success; returns the result.
    @discardableResult
    func ok(
        _ arguments: [String], library: String? = nil, input: [UInt8]? = nil, environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try memo(arguments, library: library, input: input, environment: environment, sourceLocation: sourceLocation)
        #expect(result.status == 0, "memo \(arguments.joined(separator: " ")) failed:\n\(result)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs `memo` and expects it to fail with `status` and a "memo: " message containing
    /// every one of `fragments`, with nothing on standard output.
    @discardableResult
    func fails(
        _ arguments: [String], status: Int32, containing fragments: [String] = [], library: String? = nil,
        input: [UInt8]? = nil, environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try memo(arguments, library: library, input: input, environment: environment, sourceLocation: sourceLocation)
        #expect(result.status == status, "memo \(arguments.joined(separator: " ")): expected exit \(status):\n\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("memo: "), "no 'memo: ' message:\n\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "output on a failure:\n\(result)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(result.stderr.contains(fragment), "message lacks \"\(fragment)\":\n\(result)", sourceLocation: sourceLocation)
        }
        return result
    }

    /// Creates a memo and returns its id (the single line `memo new` prints).
    func newMemo(_ text: String, library: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try ok(["new", text], library: library, sourceLocation: sourceLocation)
        let id = result.stdout.trimmingCharacters(in: .newlines)
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "not an id: \(result.stdout)", sourceLocation: sourceLocation)
        return id
    }

    /// Every file of the folder `folder` (recursively, relative paths) with its bytes, except
    /// the library's lock files (empty, holding nothing saved): what a command must leave
    /// unchanged when it fails.
    func contents(of folder: String) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return files }
        while let relative = enumerator.nextObject() as? String {
            let full = folder + "/" + relative
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue,
                !relative.hasSuffix(".memosync.lock"), !relative.hasSuffix(".memosync.sync-lock")
            else { continue }
            files[relative] = (try? Data(contentsOf: URL(fileURLWithPath: full))).map(Array.init) ?? []
        }
        return files
    }
}

/// What a terminal showed while `shellCommand` ran on it (script(1) gives the command a pseudo-
/// terminal; its lines end with CR LF), in exactly `environment`, with nothing on standard input.
func onTerminal(_ shellCommand: String, environment: [String: String]) throws -> String {
    // script(1) is in Debian's essential bsdutils: missing, the test fails, never skips.
    try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) gives the commands a terminal")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-qec", shellCommand, "/dev/null"]
    process.environment = environment
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// Matches ISO 8601 dates as `memo --json` prints them: `2026-01-02T03:04:05.678Z`.
func isISODate(_ value: Any?) -> Bool {
    guard let text = value as? String else { return false }
    let pattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#
    return text.range(of: pattern, options: .regularExpression) != nil
}
