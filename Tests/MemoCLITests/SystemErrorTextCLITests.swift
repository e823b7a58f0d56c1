// Failures of standard output and standard input are said in the user's language, never with
// the system's English text in a Korean or Japanese message ("표준 출력에 쓸 수 없습니다: No
// space left on device").

import Foundation
import Testing

@Suite("standard output and input failures in the user's language")
struct SystemErrorTextCLITests {
    @Test("memo list > /dev/full: the disk is full, in English, Korean and Japanese")
    func fullStandardOutput() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("a memo to list", library: library)
        for (locale, expected) in [("C.UTF-8", "cannot write to standard output: the disk is full"), ("ko_KR.UTF-8", "표준 출력에 쓸 수 없습니다: 디스크가 가득 찼습니다"), ("ja_JP.UTF-8", "標準出力に書き込めません: ディスクがいっぱいです")] {
            let result = try sandbox.memo(["list"], library: library, environment: ["LANG": locale], standardOutput: "/dev/full")
            #expect(result.status == 1, "\(locale): \(result)")
            #expect(result.stderr.contains(expected), "\(locale): \(result)")
            #expect(!result.stderr.contains("No space left"), "\(locale): \(result)")
        }
    }

    @Test("memo new < a folder: standard input cannot be read, said in the user's language")
    func unreadableStandardInput() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let executable = try #require(MemoExecutable.path)
        for (locale, expected) in [("C.UTF-8", "cannot read standard input: it is a folder, not a file"), ("ko_KR.UTF-8", "표준 입력을 읽을 수 없습니다: 파일이 아니라 폴더입니다"), ("ja_JP.UTF-8", "標準入力を読み込めません: ファイルではなくフォルダーです")] {
            let (out, err) = (sandbox.at("out"), sandbox.at("err"))
            let process = try sandbox.memoProcess(executable, ["new"], library: sandbox.at("library"), environment: ["LANG": locale], outPath: out, errPath: err)
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: sandbox.path))
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
            try process.run()
            process.waitUntilExit()
            let message = try String(contentsOfFile: err, encoding: .utf8)
            #expect(process.terminationStatus == 1, "\(locale): \(message)")
            #expect(message.contains(expected), "\(locale): \(message)")
            #expect(!message.contains("Is a directory"), "\(locale): \(message)")
        }
    }
}
