// `memo export ID --output PATH` and what is at PATH (memo help export): a symbolic link is
// followed and the file it points to replaced; a pipe or a device is written into, never
// replaced; a file this user may not write is refused, with a message that says "write".

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("memo export --output PATH")
struct ExportOutputCLITests {
    private func fileType(_ path: String) -> mode_t? {
        var information = stat()
        return lstat(path, &information) == 0 ? information.st_mode & S_IFMT : nil
    }

    @Test("a symbolic link is followed: the file it points to is replaced, keeping its permissions; the link stays")
    func followsALink() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("exported text", library: library)
        let target = sandbox.at("notes/target.txt")
        try FileManager.default.createDirectory(atPath: sandbox.at("notes"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        #expect(chmod(target, 0o600) == 0)
        let link = sandbox.at("link.txt")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "notes/target.txt")

        try sandbox.ok(["export", id, "--output", link], library: library)
        #expect(fileType(link) == S_IFLNK, "the link was replaced by a file")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "notes/target.txt")
        #expect(FileManager.default.contents(atPath: target) == Data("exported text".utf8))
        var information = stat()
        #expect(stat(target, &information) == 0 && information.st_mode & 0o7777 == 0o600, "the file's permissions were not kept")

        // A link to nothing yet: the file is made where it points.
        let dangling = sandbox.at("dangling.txt")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: sandbox.at("notes/new.txt"))
        try sandbox.ok(["export", id, "-o", dangling], library: library)
        #expect(fileType(dangling) == S_IFLNK)
        #expect(FileManager.default.contents(atPath: sandbox.at("notes/new.txt")) == Data("exported text".utf8))
    }

    @Test("a FIFO and a device are written into, never replaced")
    func writesIntoAFIFOAndADevice() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("through the pipe", library: library)
        let fifo = sandbox.at("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A reader at the other end, as `memo export ID -o fifo` with `cat fifo` beside it.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo]
        let pipe = Pipe()
        reader.standardOutput = pipe
        try reader.run()
        try sandbox.ok(["export", id, "--output", fifo], library: library)
        #expect(fileType(fifo) == S_IFIFO, "the FIFO was replaced")
        // A FIFO replaced by a file would leave the reader waiting for a writer for ever.
        if fileType(fifo) != S_IFIFO { reader.terminate() }
        let read = pipe.fileHandleForReading.readDataToEndOfFile()
        reader.waitUntilExit()
        #expect(read == Data("through the pipe".utf8))

        // A character device: /dev/null's numbers (1, 3), made in the sandbox (as root), or /dev/null.
        var device = sandbox.at("null")
        if geteuid() != 0 || mknod(device, S_IFCHR | 0o666, dev_t(0x103)) != 0 { device = "/dev/null" }
        try sandbox.ok(["export", id, "--output", device], library: library)
        #expect(fileType(device) == S_IFCHR, "the device was replaced")
        // One that is full (/dev/full's numbers, 1, 7): the disk is full, said as such; the device stays.
        let full = sandbox.at("full")
        if geteuid() == 0 && mknod(full, S_IFCHR | 0o666, dev_t(0x107)) == 0 {
            try sandbox.fails(["export", id, "--output", full], status: 1, containing: ["cannot write \(full): the disk is full"], library: library)
            #expect(fileType(full) == S_IFCHR, "the device was replaced")
        }
    }

    @Test("a file this user may not write is refused, saying write; /dev/stdout is standard output")
    func refusesAReadOnlyFile() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let id = try sandbox.newMemo("not for that file", library: library)
        let user = try UnprivilegedMemo(sandbox)
        // The file is not the user's and not writable, in a folder that is theirs (where a
        // rename could replace it).
        let file = sandbox.at("read-only.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: file))
        #expect(chmod(file, 0o444) == 0)
        if geteuid() == 0 { #expect(chown(file, 0, 0) == 0) }
        let refused = try user.run(["export", id, "--output", file], library: library)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("cannot write \(file): you do not have permission to write it"), "\(refused)")
        #expect(FileManager.default.contents(atPath: file) == Data("keep me".utf8))
        let korean = try user.run(["export", id, "--output", file], library: library, locale: "ko_KR.UTF-8")
        #expect(korean.status == 1 && korean.stderr.contains("쓸 권한이 없습니다"), "\(korean)")

        let standard = try user.run(["export", id, "--output", "/dev/stdout"], library: library)
        #expect(standard.status == 0, "\(standard)")
        #expect(standard.stdout == "not for that file")
    }
}
