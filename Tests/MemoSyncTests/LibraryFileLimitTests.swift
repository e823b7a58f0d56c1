import Foundation
import Testing

@testable import MemoSync

/// The library reads its own files with a size limit (issue 29; FORMAT.md, "Local library",
/// "Size limits"): a file over its limit is refused with `DiskError.tooLarge`, from its size and
/// without reading it (the files here are sparse: a test never writes gigabytes), by open and by
/// `LibrarySnapshot`, and nothing in the folder changes.
@Suite struct LibraryFileLimitTests {
    /// A library in `folder` with one saved memo, closed (so it has `state`, a journal and `seal`).
    private func makeLibrary(_ folder: IOTestFolder) async throws -> [String] {
        try folder.createFolder("")
        let replica = try Replica(libraryPath: folder.path)
        _ = try replica.createMemo(text: "kept")
        try await replica.save()
        await replica.close()
        return try folder.names()
    }

    /// Each file's name, size, inode and modification time.
    private func listing(_ folder: IOTestFolder) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for name in try folder.names() {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.path(name))
            result[name] = [attributes[.size], attributes[.systemFileNumber], attributes[.modificationDate]].map { "\($0 ?? "-")" }
        }
        return result
    }

    /// Makes `file` in `folder` `size` bytes long: extended with a hole (sparse), never written.
    private func extend(_ folder: IOTestFolder, _ file: String, to size: Int) throws {
        let descriptor = open(folder.path(file), O_WRONLY | O_CREAT, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(ftruncate(descriptor, off_t(size)) == 0)
    }

    @Test(arguments: ["state", "journal", "seal", "encryption", "history"])
    func aFileOverItsLimitIsRefusedAndNothingChanges(kind: String) async throws {
        let folder = IOTestFolder("file-limit")
        defer { folder.remove() }
        let names = try await makeLibrary(folder)
        let file = kind == "journal" ? try #require(names.first { LibraryCore.journalGeneration($0) != nil }) : kind
        // A library has no encryption or history file until one is set: the test makes one.
        #expect(kind == "encryption" || kind == "history" || names.contains(file), "\(names)")
        let limit = LibraryFileLimits.limitBytes(ofFile: file)
        try extend(folder, file, to: limit + 1)
        let before = try listing(folder)
        let expected = ReplicaError.disk(.tooLarge(file: file, sizeBytes: limit + 1, limitBytes: limit))
        #expect(throws: expected) { try Replica(libraryPath: folder.path) }
        if kind == "encryption" {
            // Reading without opening does not read the encryption file.
            #expect(try LibrarySnapshot.read(libraryPath: folder.path)?.notebook.activeMemoCount == 1)
        } else {
            #expect(throws: expected) { try LibrarySnapshot.read(libraryPath: folder.path) }
        }
        #expect(try listing(folder) == before, "the folder changed")
        // The message names the file, its size and the limit.
        let message = MemoLanguage.$taskLanguage.withValue(.english) {
            DiskError.tooLarge(file: file, sizeBytes: limit + 1, limitBytes: limit).errorDescription ?? ""
        }
        #expect(message.contains(file) && message.contains("\(limit + 1)") && message.contains("\(limit)"), "\(message)")
    }

    /// A file of exactly its limit is read (here a seal that does not decode: the open takes a
    /// fresh id, as for any damaged seal); one byte more is refused.
    @Test func aFileAtItsLimitIsRead() async throws {
        let folder = IOTestFolder("file-limit-edge")
        defer { folder.remove() }
        _ = try await makeLibrary(folder)
        try extend(folder, "seal", to: LibraryFileLimits.sealBytesMax)
        let replica = try Replica(libraryPath: folder.path)
        #expect(replica.notebook.activeMemoCount == 1)
        await replica.close()
    }

    /// The limits: each above what MemoSync writes, in the order FORMAT.md gives.
    @Test func theLimitsAreTheDocumentedOnes() {
        #expect(LibraryFileLimits.stateBytesMax == 1_073_741_836)
        #expect(LibraryFileLimits.journalBytesMax == 2_147_483_672)
        #expect(LibraryFileLimits.sealBytesMax == 65_536 && LibraryFileLimits.encryptionBytesMax == 1_048_576)
        #expect(LibraryFileLimits.limitBytes(ofFile: "state.tmp") == LibraryFileLimits.stateBytesMax)
        #expect(LibraryFileLimits.limitBytes(ofFile: "journal-12") == LibraryFileLimits.journalBytesMax)
        #expect(LibraryFileLimits.limitBytes(ofFile: "encryption.tmp") == LibraryFileLimits.encryptionBytesMax)
        #expect(LibraryHistoryFile.bytesMax == 65_536)
        #expect(LibraryFileLimits.limitBytes(ofFile: "history") == 65_536 && LibraryFileLimits.limitBytes(ofFile: "history.tmp") == 65_536)
    }
}
