// Issue 29, message 3: a library the user may not read was reported as "there is no library …;
// 'memo new' creates one" (by `edit`) or as a disk input/output error, and a file given as the
// library (`--library /etc/hostname`) as no library at all. Each now says what is true.
//
// Tests run as root here, and root reads a folder whatever its mode: the commands then run as
// `nobody` through setpriv (util-linux), so that the permission is really refused.

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct PermissionCLITests {
    /// Runs `memo arguments` on `library` as a user other than the library's owner when the
    /// tests run as root (through setpriv, as `nobody`), else as this user.
    private func memoAsAnotherUser(_ sandbox: Sandbox, _ arguments: [String], library: String) throws -> (status: Int32, stderr: String) {
        let executable = try #require(MemoExecutable.path)
        let process = Process()
        if getuid() == 0 {
            let setpriv = try #require(["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                       "setpriv (util-linux) is needed to run a command as another user")
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        process.environment = ["MEMO_LIBRARY": library, "HOME": sandbox.home, "LANG": "C.UTF-8", "TZ": "UTC"]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let bytes = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
    }

    @Test func aLibraryThisUserMayNotReadIsSaidToBeRefusedNotMissing() throws {
        let sandbox = try Sandbox()
        defer {
            chmod(sandbox.at("library"), 0o755)
            sandbox.remove()
        }
        // The sandbox's folders must be enterable by the other user.
        #expect(chmod(sandbox.path, 0o755) == 0)
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("a private memo", library: library)
        #expect(chmod(library, 0o000) == 0)
        for arguments in [["list"], ["show", id], ["edit", id, "--text", "changed"], ["new", "another"], ["status"], ["sync", "--store", "/tmp"]] {
            let run = try memoAsAnotherUser(sandbox, arguments, library: library)
            #expect(run.status == 1, "memo \(arguments): \(run)")
            #expect(run.stderr.contains("the library folder \(library) cannot be read: permission denied"), "memo \(arguments): \(run.stderr)")
            for untrue in ["there is no library", "input/output", "memo new' creates"] {
                #expect(!run.stderr.contains(untrue), "memo \(arguments): \(run.stderr)")
            }
        }
        // Readable but not writable: showing works, changing is refused for the same reason.
        #expect(chmod(library, 0o555) == 0)
        #expect(try memoAsAnotherUser(sandbox, ["list"], library: library).status == 0)
        let edit = try memoAsAnotherUser(sandbox, ["edit", id, "--text", "changed"], library: library)
        #expect(edit.status == 1 && edit.stderr.contains("the library folder \(library) cannot be written: permission denied"), "\(edit)")
        #expect(!edit.stderr.contains("cannot be read"), "it can be read: \(edit)")
        #expect(chmod(library, 0o755) == 0)
        #expect(try sandbox.ok(["show", id], library: library).stdout.contains("a private memo"))
    }

    /// A library on a read-only file system (a read-only bind mount of it: the tests run as
    /// root here) is said to be so: it can be read, not written, in every language.
    @Test func aLibraryOnAReadOnlyFileSystemIsSaidToBeReadOnly() throws {
        let sandbox = try Sandbox()
        let library = sandbox.at("library")
        let mounted = sandbox.at("read-only")
        defer {
            _ = run("/bin/umount", [mounted])
            sandbox.remove()
        }
        let id = try sandbox.newMemo("kept as it is", library: library)
        try FileManager.default.createDirectory(atPath: mounted, withIntermediateDirectories: true)
        try #require(run("/bin/mount", ["--bind", library, mounted]) == 0, "a bind mount needs root (mount(8) as root)")
        try #require(run("/bin/mount", ["-o", "remount,ro,bind", mounted]) == 0, "remounting the bind mount read-only")
        #expect(try sandbox.ok(["show", id], library: mounted).stdout == "kept as it is")
        for arguments in [["edit", id, "--text", "changed"], ["new", "another"], ["sync", "--store", sandbox.at("store")]] {
            let english = try sandbox.fails(arguments, status: 1, containing: ["the library folder \(mounted) cannot be written: it is on a read-only file system"], library: mounted)
            #expect(!english.stderr.contains("cannot be read"), "\(arguments): \(english)")
        }
        let korean = try sandbox.fails(["edit", id, "--text", "changed"], status: 1, library: mounted, environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.stderr.contains("읽기 전용 파일 시스템"), "\(korean)")
        let japanese = try sandbox.fails(["edit", id, "--text", "changed"], status: 1, library: mounted, environment: ["LANG": "ja_JP.UTF-8"])
        #expect(japanese.stderr.contains("読み取り専用のファイルシステム"), "\(japanese)")
    }

    /// Runs a program and returns its exit status (its output dropped).
    private func run(_ program: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func aFileGivenAsTheLibraryIsNamedAsAFile() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let file = sandbox.at("notes.txt")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("mine\n".utf8)))
        for library in [file, file + "/library"] {
            for arguments in [["list"], ["show", "abc"], ["edit", "abc", "--text", "x"], ["new", "x"], ["sync", "--store", sandbox.at("store")]] {
                try sandbox.fails(arguments, status: 1, containing: ["\(file) is a file, not a library folder"], library: library)
            }
        }
        let korean = try sandbox.fails(["list"], status: 1, library: file, environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.stderr.contains("라이브러리 폴더가 아닙니다"), "\(korean)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "mine\n")
    }
}
