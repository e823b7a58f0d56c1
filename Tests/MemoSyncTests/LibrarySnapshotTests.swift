// Reading a library without opening it, while a replica has it open.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync
import Testing

@Suite("LibrarySnapshot")
struct LibrarySnapshotTests {
    private func folder() -> String {
        var generator = SystemRandomNumberGenerator()
        return FileManager.default.temporaryDirectory.path + "/snapshot-test-\(String(generator.next(), radix: 16))"
    }

    @Test("no library: nil, and nothing is created")
    func noLibrary() throws {
        let path = folder()
        #expect(try LibrarySnapshot.read(libraryPath: path) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try LibrarySnapshot.read(libraryPath: path) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty)
    }

    @Test("while a replica holds the library: its saved edits, across saves and compactions")
    func readsWhileOpen() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replica = try Replica(libraryPath: path)
        let first = try replica.createMemo(text: "saved")
        try await replica.save()
        let unsaved = try replica.createMemo(text: "not saved yet")
        let snapshot = try #require(try LibrarySnapshot.read(libraryPath: path))
        #expect(snapshot.notebook.memo(first)?.text == "saved")
        #expect(snapshot.notebook.memo(unsaved) == nil, "unsaved edits are not in the files")
        for round in 0..<20 {
            try replica.edit(first, replacingUTF16: 0..<0, with: "\(round % 10)")
            try await replica.save()
            if round % 5 == 4 { try await replica.compact() }
            let text = try #require(try LibrarySnapshot.read(libraryPath: path)).notebook.memo(first)?.text
            #expect(text == replica.notebook.memo(first)?.text)
        }
        await replica.close()
        // Closed cleanly: the snapshot names the id the next session keeps.
        let closed = try #require(try LibrarySnapshot.read(libraryPath: path))
        let reopened = try Replica(libraryPath: path)
        #expect(closed.replica == reopened.id)
        #expect(closed.unpublishedOperationCount == reopened.unpublishedOperationCount)
        await reopened.close()
    }

    @Test("a damaged state file is reported as opening reports it")
    func damagedState() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: path + "/state"))
        #expect(throws: ReplicaError.self) { try LibrarySnapshot.read(libraryPath: path) }
    }
}
