import Foundation
import Testing

import MemoSync

/// Two replicas (two libraries, as two processes would have) syncing one real folder at the same
/// moment, over and over, while they edit.
@Suite struct ConcurrentFolderSyncTests {
    final class Shared: @unchecked Sendable {
        let replicas: [Replica]
        let store: DirectoryBlobStore
        init(replicas: [Replica], store: DirectoryBlobStore) {
            self.replicas = replicas
            self.store = store
        }
    }

    @Test func twoReplicasSyncTheSameFolderAtOnce() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memosync-concurrent-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("store"), withIntermediateDirectories: true)
        let shared = Shared(
            replicas: try (0..<2).map { try Replica(libraryPath: root.appendingPathComponent("library-\($0)").path) },
            store: try DirectoryBlobStore(path: root.appendingPathComponent("store").path))
        let memo = try shared.replicas[0].createMemo(text: "start\n")
        try await syncUntilQuiet(shared.replicas, store: shared.store)
        let failures = await withTaskGroup(of: [String].self) { group in
            for index in 0..<2 {
                group.addTask {
                    let replica = shared.replicas[index]
                    var failures: [String] = []
                    do {
                        for round in 0..<40 {
                            try replica.edit(memo, replacingUTF16: 0..<0, with: "r\(index).\(round) ")
                            let report = try await replica.sync(with: shared.store)
                            if !report.skipped.isEmpty || !report.errors.isEmpty {
                                failures.append("replica \(index) round \(round): \(report.skipped) \(report.errors)")
                            }
                        }
                    } catch {
                        failures.append("replica \(index): \(error)")
                    }
                    return failures
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures)")
        try await syncUntilQuiet(shared.replicas, store: shared.store)
        expectConverged(shared.replicas)
        let text = try #require(shared.replicas[0].notebook.memo(memo)?.text)
        for index in 0..<2 { for round in 0..<40 { #expect(text.contains("r\(index).\(round) ")) } }
    }
}
