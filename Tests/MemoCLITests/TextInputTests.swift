// Text from files and standard input: `memo new -`, `--text-file PATH`, `edit --text -`.

import Foundation
import Testing

@Suite("memo new and edit read text from files and standard input")
struct TextInputTests {
    @Test("- and --text-file - read standard input; --text-file PATH reads a file, exactly")
    func textFromInputAndFiles() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        // Larger than an argument may be (128 KB on Linux): only a file or a pipe can carry it.
        let large = String(repeating: "한국어 日本語 line\r\n", count: 12_000)
        let fromDash = try sandbox.ok(["new", "-"], library: library, input: Array(large.utf8)).stdout.trimmingCharacters(in: .newlines)
        #expect(try sandbox.ok(["show", fromDash], library: library).stdoutBytes == Array(large.utf8))

        let file = sandbox.at("note.txt")
        try Data("\u{FEFF}From a file\nsecond line".utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try sandbox.ok(["new", "--text-file", file], library: library).stdout.trimmingCharacters(in: .newlines)
        #expect(try sandbox.ok(["show", fromFile], library: library).stdoutBytes == Array("\u{FEFF}From a file\nsecond line".utf8))

        try sandbox.ok(["edit", fromFile, "--text", "-"], library: library, input: Array("piped in".utf8))
        #expect(try sandbox.ok(["show", fromFile], library: library).stdout == "piped in")
        try sandbox.ok(["edit", fromFile, "--text-file", "-"], library: library, input: Array("piped again".utf8))
        #expect(try sandbox.ok(["show", fromFile], library: library).stdout == "piped again")
        try sandbox.ok(["edit", fromFile, "--text-file", file], library: library)
        #expect(try sandbox.ok(["show", fromFile], library: library).stdout == "\u{FEFF}From a file\nsecond line")
        try sandbox.ok(["new", "--text-file=-"], library: library, input: Array("equals form".utf8))
    }

    @Test("unreadable, missing and non-UTF-8 sources are refused and change nothing")
    func badSourcesRefused() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("kept", library: library)
        let before = sandbox.contents(of: library)
        let latin1 = sandbox.at("latin1.txt")
        try Data([0x63, 0x61, 0x66, 0xE9]).write(to: URL(fileURLWithPath: latin1))
        try sandbox.fails(["new", "--text-file", latin1], status: 1, containing: ["not UTF-8"], library: library)
        try sandbox.fails(["edit", id, "--text-file", latin1], status: 1, containing: ["not UTF-8"], library: library)
        try sandbox.fails(["edit", id, "--text", "-"], status: 1, containing: ["not UTF-8"], library: library, input: [0xFF, 0x41])
        try sandbox.fails(["new", "--text-file", sandbox.at("missing.txt")], status: 1, containing: ["cannot read", "missing.txt"], library: library)
        try sandbox.fails(["new", "-"], status: 1, containing: ["empty"], library: library, input: [])
        try sandbox.fails(["new", "words", "--text-file", latin1], status: 2, containing: ["either"], library: library)
        try sandbox.fails(["edit", id, "--text", "a", "--text-file", latin1], status: 2, containing: ["once"], library: library)
        try sandbox.fails(["new", "--text-file", ""], status: 2, library: library)
        // "-" with more words: standard input or a text starting with "-"? Refused, not guessed.
        try sandbox.fails(["new", "-", "extra"], status: 2, containing: ["memo new -- '-"], library: library, input: Array("piped".utf8))
        #expect(sandbox.contents(of: library) == before)
        let dashed = try sandbox.ok(["new", "--", "- extra"], library: library).stdout.trimmingCharacters(in: .newlines)
        #expect(try sandbox.ok(["show", dashed], library: library).stdout == "- extra")
    }

    /// Starts `/bin/sh -c SCRIPT` (a writer into a FIFO, say) and returns it running.
    private func background(_ script: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        return process
    }

    @Test("pipes, FIFOs, /dev/stdin and /dev/null read like files; a folder or a missing file says what it is")
    func pipesAndDevicesReadLikeFiles() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        // /dev/stdin (here a file the harness feeds) and a FIFO with a writer at its other end.
        let fromStdin = try sandbox.ok(["new", "--text-file", "/dev/stdin"], library: library, input: Array("from stdin".utf8))
        #expect(try sandbox.ok(["show", fromStdin.stdout.trimmingCharacters(in: .newlines)], library: library).stdout == "from stdin")
        let fifo = sandbox.at("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = try background("printf 'through a fifo' > '\(fifo)'")
        let fromFIFO = try sandbox.ok(["new", "--text-file", fifo], library: library)
        writer.waitUntilExit()
        #expect(try sandbox.ok(["show", fromFIFO.stdout.trimmingCharacters(in: .newlines)], library: library).stdout == "through a fifo")
        // memo import of a FIFO named on the command line.
        let writer2 = try background("printf 'imported through a fifo' > '\(fifo)'")
        let imported = try sandbox.ok(["import", fifo], library: library)
        writer2.waitUntilExit()
        #expect(imported.stdout.contains("Imported 1 memo"), "\(imported)")
        // /dev/null is empty: a new memo needs text.
        try sandbox.fails(["new", "--text-file", "/dev/null"], status: 1, containing: ["empty"], library: library)
        // A folder and a missing file: said plainly, never as a system error number.
        let folder = try sandbox.fails(["new", "--text-file", sandbox.path], status: 1, containing: ["a folder"], library: library)
        let missing = try sandbox.fails(["new", "--text-file", sandbox.at("nope.txt")], status: 1, containing: ["no such file"], library: library)
        for result in [folder, missing] {
            #expect(!result.stderr.contains("error 2") && !result.stderr.contains("Domain"), "\(result)")
        }
    }
}
