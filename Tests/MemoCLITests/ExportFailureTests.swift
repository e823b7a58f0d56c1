// `memo export --all`: "An export that fails changes nothing: files already there keep what they
// held, and no new file is left" (memo help export), and its files are dated with their memos'
// last changes (README, "one .txt file per memo, dated with the memo's last change").

import Foundation
import Testing

@Suite("memo export --all, failed and dated")
struct ExportFailureTests {
    /// Three memos exported once, then changed (and one more made), so that exporting again with
    /// --force would replace two files and add one.
    private func exported(_ sandbox: Sandbox, library: String, folder: String) throws -> (ids: [String], names: [String]) {
        var ids: [String] = []
        for title in ["Alpha", "Beta", "Gamma"] { ids.append(try sandbox.newMemo("\(title)\nfirst", library: library)) }
        try sandbox.ok(["export", "--all", folder], library: library)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == ["Alpha.txt", "Beta.txt", "Gamma.txt"])
        try sandbox.ok(["edit", ids[0], "--text", "Alpha\nsecond"], library: library)
        try sandbox.ok(["edit", ids[2], "--text", "Gamma\nsecond"], library: library)
        ids.append(try sandbox.newMemo("Delta\nnew", library: library))
        return (ids, names)
    }

    @Test("a folder where a file would go: every file replaced before it is put back, no file added")
    func aFolderInTheWayTakesEverythingBack() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let folder = sandbox.at("out")
        _ = try exported(sandbox, library: library, folder: folder)
        // Beta's file becomes a folder holding a file: Alpha's file is replaced before Beta's
        // fails (files go in the order the memos were made).
        try FileManager.default.removeItem(atPath: folder + "/Beta.txt")
        try FileManager.default.createDirectory(atPath: folder + "/Beta.txt", withIntermediateDirectories: false)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: folder + "/Beta.txt/inside"))
        let before = sandbox.contents(of: folder)
        let failed = try sandbox.fails(["export", "--all", folder, "--force"], status: 1, containing: ["nothing was changed", "Beta.txt"], library: library)
        #expect(!failed.stderr.contains("Domain") && !failed.stderr.contains("error 2"), "\(failed)")
        #expect(sandbox.contents(of: folder) == before)
        #expect(String(decoding: before["Alpha.txt"] ?? [], as: UTF8.self) == "Alpha\nfirst")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Alpha.txt", "Beta.txt", "Gamma.txt"])
    }

    @Test("a disk failing while files are put in place: the replaced ones get their bytes back", arguments: [0, 1, 2, 3])
    func aFailureWhilePuttingFilesInPlaceTakesEverythingBack(failingAt index: Int) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        let folder = sandbox.at("out")
        _ = try exported(sandbox, library: library, folder: folder)
        let before = sandbox.contents(of: folder)
        try sandbox.fails(
            ["export", "--all", folder, "--force"], status: 1, containing: ["nothing was changed"], library: library,
            environment: ["MEMO_TEST_FAIL_EXPORT_AT": String(index)])
        #expect(sandbox.contents(of: folder) == before, "failing at file \(index)")
        // Hidden files included: nothing staged or kept aside is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Alpha.txt", "Beta.txt", "Gamma.txt"])
        // And the same export without the failure replaces and adds.
        try sandbox.ok(["export", "--all", folder, "--force"], library: library)
        let after = sandbox.contents(of: folder)
        #expect(after.keys.sorted() == ["Alpha.txt", "Beta.txt", "Delta.txt", "Gamma.txt"])
        #expect(String(decoding: after["Alpha.txt"] ?? [], as: UTF8.self) == "Alpha\nsecond")
        #expect(String(decoding: after["Gamma.txt"] ?? [], as: UTF8.self) == "Gamma\nsecond")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 4)
    }

    @Test("a failed export into a new folder removes the folders it made")
    func aFailedExportRemovesTheFoldersItMade() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("One\nbody", library: library)
        _ = try sandbox.newMemo("Two\nbody", library: library)
        try sandbox.fails(
            ["export", "--all", sandbox.at("made/for/export")], status: 1, containing: ["nothing was changed"], library: library,
            environment: ["MEMO_TEST_FAIL_EXPORT_AT": "1"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.at("made")))
    }

    @Test("exported files are dated with their memos' last change, with --all and with --output")
    func exportedFilesAreDatedWithTheMemosLastChange() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        // Memos made at a clock the test sets: 40 days ago, and 3 days ago (whole seconds).
        let now = UInt64(Date().timeIntervalSince1970) * 1000
        let early = now - 40 * 86_400_000
        let later = now - 3 * 86_400_000
        let clock = { (milliseconds: UInt64) in ["MEMO_TEST_NOW_MILLISECONDS": String(milliseconds)] }
        let first = try sandbox.ok(["new", "Early\nbody"], library: library, environment: clock(early)).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try sandbox.ok(["new", "Later\nbody"], library: library, environment: clock(later))
        let folder = sandbox.at("dated")
        try sandbox.ok(["export", "--all", folder], library: library)
        let single = sandbox.at("single.txt")
        try sandbox.ok(["export", first, "--output", single], library: library)
        let expected = [
            folder + "/Early.txt": Double(early) / 1000, folder + "/Later.txt": Double(later) / 1000, single: Double(early) / 1000,
        ]
        for (path, seconds) in expected {
            let date = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            #expect(date.map { abs($0.timeIntervalSince1970 - seconds) < 0.001 } == true, "\(path): \(String(describing: date)) against \(seconds)")
        }
    }
}
