import Foundation
import MemoCRDT
import MemoSync
import Testing

@testable import memo

/// `memo` reads its own files in the library folder with a size limit (FORMAT.md, "Files of the
/// `memo` command line"): a larger file is refused from its size, unread, with its path; a save
/// of the undo history keeps it under its limit.
@Suite struct CLIFileLimitTests {
    /// FORMAT.md "Files of the `memo` command line": cli-settings.json is read up to 2^20 bytes,
    /// cli-history.json up to 2^28.
    @Test func theLimitsAreTheDocumentedOnes() {
        #expect(CLISettings.bytesMax == 1 << 20)
        #expect(EditHistory.bytesMax == 1 << 28)
    }

    private func makeFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.path + "/memo-file-limit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A sparse file of `size` bytes at `path` (never written).
    private func sparseFile(_ path: String, size: Int) {
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(size)) == 0)
        close(descriptor)
    }

    @Test func anOversizedSettingsFileIsRefused() throws {
        let library = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: library) }
        let path = CLISettings.filePath(library: library)
        sparseFile(path, size: CLISettings.bytesMax + 1)
        let error = try #require(throws: CLIError.self) { try CLISettings.load(library: library) }
        #expect(error.kind == .runtime && error.message.contains(path), "\(error.message)")
        #expect(error.message.contains(UserFileError.tooLarge(limitBytes: CLISettings.bytesMax).localizedReason), "\(error.message)")
        // At the limit it is read (and refused only as JSON).
        sparseFile(path, size: 0)
        try Data("{\"store\": \"/s\"}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try CLISettings.load(library: library).store == "/s")
    }

    @Test func anOversizedHistoryFileIsRefused() throws {
        let library = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: library) }
        let path = EditHistory.filePath(library: library)
        sparseFile(path, size: EditHistory.bytesMax + 1)
        let error = try #require(throws: CLIError.self) { try EditHistory.load(library: library) }
        #expect(error.kind == .runtime && error.message.contains(path), "\(error.message)")
        #expect(error.message.contains(UserFileError.tooLarge(limitBytes: EditHistory.bytesMax).localizedReason), "\(error.message)")
    }

    /// Over its limit, a history drops the oldest steps of the memo with the most text first.
    @Test func aSavedHistoryFitsItsLimit() throws {
        var history = EditHistory()
        let small = MemoID(high: 1, low: 1)
        let large = MemoID(high: 2, low: 2)
        history.record(memo: small, before: "a", after: "b")
        for step in 0..<5 {
            history.record(memo: large, before: String(repeating: "x", count: 1_000) + "\(step)", after: String(repeating: "y", count: 1_000) + "\(step)")
        }
        let whole = try history.encoded(limitBytes: .max)
        let limit = whole.count - 1_000
        let kept = try JSONDecoder().decode(EditHistory.self, from: history.encoded(limitBytes: limit))
        #expect(try history.encoded(limitBytes: limit).count <= limit)
        #expect(kept.undo[small.description]?.count == 1, "the small memo's step stays")
        let largeSteps = try #require(kept.undo[large.description])
        #expect(largeSteps.count == 4 && largeSteps.last?.after.hasSuffix("4") == true && largeSteps.first?.after.hasSuffix("1") == true)
        // A limit nothing fits in: every step goes.
        let none = try JSONDecoder().decode(EditHistory.self, from: history.encoded(limitBytes: 1))
        #expect(none.undo.isEmpty && none.redo.isEmpty)
    }
}
