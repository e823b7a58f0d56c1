// `memo sync --encrypt` on a plain store: "the library reads the plain store first (a sync
// through `ReadOnlyBlobStore`, which publishes nothing in plain text)" (FORMAT.md, "Plain,
// encrypted, and the switch"). A plain blob written and collected again in the same command
// would leave no trace in the store afterwards, but a folder a sync client mirrors would have
// uploaded it: so every write the command makes is recorded here, not only what stays.

import Foundation
import MemoSync
import Synchronization
import Testing

@testable import memo

@Suite("sync --encrypt writes nothing in plain text")
struct EncryptOnWritesNothingPlainTests {
    /// A folder store that records the key of every write and delete.
    final class RecordingStore: BlobStore {
        let inner: DirectoryBlobStore
        let writes = Mutex<[String]>([])

        init(path: String) throws {
            inner = try DirectoryBlobStore(path: path)
        }

        func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] { try inner.list(prefix: prefix) }
        func listing(prefix: String) async throws(BlobStoreError) -> BlobListing { try await inner.listing(prefix: prefix) }
        func read(key: String) async throws(BlobStoreError) -> [UInt8] { try inner.read(key: key) }
        func delete(key: String) async throws(BlobStoreError) { try inner.delete(key: key) }
        func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
            writes.withLock { $0.append(key) }
            try inner.write(key: key, bytes: bytes)
        }
    }

    @Test("turning encryption on writes only the key blob and ciphertext, though the library has unpublished memos")
    func turningEncryptionOnWritesOnlyCiphertext() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("encrypt-on-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let storePath = root + "/store"
        try FileManager.default.createDirectory(atPath: storePath, withIntermediateDirectories: true)
        // Another library's plain blobs in the store, to be read first.
        let other = try Replica(libraryPath: root + "/other")
        _ = try other.createMemo(text: "another device's plain memo")
        _ = try await other.sync(with: DirectoryBlobStore(path: storePath))
        await other.close()
        // This library has never published its memos.
        let replica = try Replica(libraryPath: root + "/library")
        _ = try replica.createMemo(text: "Unpublished secret memo")
        let store = try RecordingStore(path: storePath)
        let plainBefore = store.inner.keysForTest()
        let session = EncryptionSession(
            environment: ["MEMO_PASSPHRASE": "correct horse battery staple"], options: EncryptionOptions(encrypt: true),
            libraryPath: root + "/library", storeName: storePath, quiet: true)
        let report = try await session.sync(replica: replica, store: store, progress: { _ in })
        #expect(report.isComplete)
        let written = store.writes.withLock { $0 }
        #expect(!written.isEmpty)
        for key in written {
            #expect(key.hasPrefix("memosync/e1/") || key.hasPrefix(StoreLayout.root + "keys/"), "written in plain text: \(key)")
        }
        // It read the other device's memo, and the plain blobs it covered are gone.
        #expect(replica.notebook.list().count == 2)
        #expect(store.inner.keysForTest().isDisjoint(with: plainBefore))
        await replica.close()
    }
}

extension DirectoryBlobStore {
    /// Every blob key in the store's folder, listed directly (no cache).
    fileprivate func keysForTest() -> Set<String> {
        let root = URL(fileURLWithPath: path).path
        var keys: Set<String> = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue {
                keys.insert(relative)
            }
        }
        return keys
    }
}
