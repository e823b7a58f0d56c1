import Foundation
import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// FORMAT.md, "Plain, encrypted, and the switch" and "Library encryption": two sentences the
/// other encryption tests passed without holding them to.
@Suite("turning a store encrypted: the order of writes, and every library's plain blobs")
struct EncryptionSwitchTests {
    static let log2N = 8

    /// A store that, at the first ciphertext it is asked to write, looks at what a crash at that
    /// moment would leave of the library: the durable copy of its disk.
    final class FirstCiphertextWatch: BlobStore, @unchecked Sendable {
        let inner = InMemoryBlobStore()
        let disk: MemoryDisk
        private let lock = NSLock()
        private var seen: [UInt8]??

        init(disk: MemoryDisk) { self.disk = disk }

        /// The durable `encryption` file at the first ciphertext write: nil when no ciphertext
        /// was written, `.some(nil)` when the file was not durable then.
        var encryptionFileAtFirstCiphertext: [UInt8]?? { lock.withLock { seen } }

        func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] { try inner.list(prefix: prefix) }
        func read(key: String) throws(BlobStoreError) -> [UInt8] { try inner.read(key: key) }
        func delete(key: String) throws(BlobStoreError) { try inner.delete(key: key) }
        func write(key: String, bytes: [UInt8]) throws(BlobStoreError) {
            if key.hasPrefix("memosync/e1/") {
                lock.withLock {
                    if seen == nil { seen = .some(try? disk.durableCopy().read(file: LibraryEncryption.fileName)) }
                }
            }
            try inner.write(key: key, bytes: bytes)
        }
    }

    /// "The library writes the `encryption` file (durably) before the first encrypted write of
    /// that sync": a crash after a blob went out encrypted never leaves a library that reads as
    /// plain (and would publish plain text at its next sync).
    @Test func theEncryptionFileIsDurableBeforeTheFirstCiphertext() async throws {
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: TestEnvironment(seed: 21).environment)
        _ = try replica.createMemo(text: "a secret")
        let raw = FirstCiphertextWatch(disk: disk)
        let store = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 21))
        let report = try await replica.sync(with: store)
        #expect(report.isComplete && report.blobsWritten > 0)
        let file = try #require(raw.encryptionFileAtFirstCiphertext, "no ciphertext written")
        let bytes = try #require(file, "the encryption file was not durable at the first ciphertext")
        #expect(LibraryEncryption(decoding: bytes) == store.libraryEncryption)
    }

    /// "Every other library does the same at its first encrypted sync … Once every library has
    /// synced encrypted, nothing plain remains": here a plain blob only the second library can
    /// collect (published after the first one's plain read, so outside what its snapshot holds).
    @Test func eachLibraryCollectsThePlainBlobsOnlyItCovers() async throws {
        let environment = TestEnvironment(seed: 22)
        let raw = InMemoryBlobStore()
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        _ = try alice.createMemo(text: "alice, plain at first")
        _ = try bob.createMemo(text: "bob, plain at first")
        try await syncUntilQuiet([alice, bob], store: raw)
        // Alice reads the plain store; then Bob publishes one more plain segment.
        _ = try await alice.sync(with: ReadOnlyBlobStore(raw))
        _ = try bob.createMemo(text: "bob, after alice read")
        _ = try await bob.sync(with: raw)
        let bobsLate = raw.keys.filter { $0.hasPrefix(StoreLayout.root) && !$0.hasPrefix(KeyBlob.prefix) }
        // Alice turns encryption on and collects: Bob's late blob is not hers to collect.
        let aliceStore = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 3))
        #expect(try await alice.sync(with: aliceStore).publishedSnapshot != nil)
        _ = await StoreEncryption.collectPlainBlobs(in: raw, coveredBy: alice.notebook.version)
        let leftAfterAlice = raw.keys.filter { $0.hasPrefix(StoreLayout.root) && !$0.hasPrefix(KeyBlob.prefix) }
        #expect(!leftAfterAlice.isEmpty, "a plain blob Alice does not cover was collected")
        #expect(Set(leftAfterAlice).isSubset(of: Set(bobsLate)))
        // Bob's first encrypted sync and collection leave nothing plain.
        let bobStore = try await StoreEncryption.unlock(raw, passphrase: "pw", random: SeededEncryptionRandom(seed: 4))
        #expect(try await bob.sync(with: bobStore).isComplete)
        let collected = await StoreEncryption.collectPlainBlobs(in: raw, coveredBy: bob.notebook.version)
        #expect(!collected.deleted.isEmpty)
        let plainLeft = raw.keys.filter { $0.hasPrefix(StoreLayout.root) && !$0.hasPrefix(KeyBlob.prefix) }
        #expect(plainLeft.isEmpty, "\(plainLeft)")
        // And Alice gets Bob's late memo from ciphertext.
        try await syncUntilQuiet([alice, bob], store: aliceStore)
        expectConverged([alice, bob])
        #expect(alice.notebook.list().count == 3)
    }
}
