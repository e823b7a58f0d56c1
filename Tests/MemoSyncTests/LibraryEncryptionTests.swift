import Foundation
import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Encryption is the library's, not the store's (issue 25): a replica that synced encrypted
/// refuses plain stores with a typed error, remembers it across sessions and copies, and a store
/// that lost its key blob (wiped, deleted, rolled back, a new store) gets the library's back;
/// one holding another library's key blob is refused; nothing plain is ever written.
@Suite struct LibraryEncryptionTests {
    static let log2N = 8
    static let passphrase = "hunter2 hunter2"
    static let secret = "Diary: the combination is 4711"

    /// Whether any blob of `store` holds `text` in its bytes or its key.
    private func storeShows(_ text: String, in store: InMemoryBlobStore) -> Bool {
        let needle = Array(text.utf8)
        return store.keys.contains { key in
            let bytes = store.bytes(key: key)!
            return key.contains(text) || (bytes.count >= needle.count && (0...(bytes.count - needle.count)).contains { start in
                bytes[start..<(start + needle.count)].elementsEqual(needle)
            })
        }
    }

    /// Every key of `store` is a key blob or ciphertext.
    private func expectOnlyCiphertext(_ store: InMemoryBlobStore, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!storeShows("combination", in: store), sourceLocation: sourceLocation)
        for key in store.keys {
            #expect(key.hasPrefix(KeyBlob.prefix) || key.hasPrefix(BlobCipher.encryptedRoot), "\(key)", sourceLocation: sourceLocation)
        }
    }

    /// A replica on `disk` with the secret memo, synced through a newly encrypted `raw` store.
    private func encryptedReplica(disk: MemoryDisk, raw: InMemoryBlobStore, seed: UInt64 = 1) async throws -> (Replica, EncryptedBlobStore) {
        let replica = try Replica(disk: disk, environment: TestEnvironment(seed: seed).environment)
        _ = try replica.createMemo(text: Self.secret)
        let store = try await StoreEncryption.enable(raw, passphrase: Self.passphrase, log2N: Self.log2N, random: SeededEncryptionRandom(seed: seed))
        #expect(!replica.isEncrypted)
        let report = try await replica.sync(with: store)
        #expect(report.isComplete && report.encrypted)
        #expect(replica.isEncrypted)
        #expect(replica.encryption == store.libraryEncryption)
        #expect(try disk.read(file: LibraryEncryption.fileName) != nil)
        return (replica, store)
    }

    @Test func anEncryptedLibraryRefusesAPlainStoreAndWritesNothing() async throws {
        let disk = MemoryDisk()
        let raw = InMemoryBlobStore()
        let (replica, store) = try await encryptedReplica(disk: disk, raw: raw)
        let plain = InMemoryBlobStore()
        await #expect(throws: ReplicaError.encryptedLibrary) { try await replica.sync(with: plain) }
        #expect(plain.keys.isEmpty && plain.writeCount == 0 && plain.listCount == 0)
        // The raw store of an encrypted one too (a wiped store looks plain).
        for key in raw.keys { try raw.delete(key: key) }
        await #expect(throws: ReplicaError.encryptedLibrary) { try await replica.sync(with: raw) }
        #expect(raw.keys.isEmpty)
        // A read-only view publishes nothing: allowed.
        _ = try await replica.sync(with: ReadOnlyBlobStore(plain))
        // Through encryption, fine; every language says what happened.
        _ = try await replica.sync(with: store)
        var texts: Set<String> = []
        for language in [MemoLanguage.english, .korean, .japanese] {
            let text = MemoLanguage.$taskLanguage.withValue(language) { ReplicaError.encryptedLibrary.errorDescription } ?? ""
            #expect(!text.isEmpty && !text.contains("error.ReplicaError"))
            texts.insert(text)
        }
        #expect(texts.count == 3)
    }

    @Test func theLibraryStaysEncryptedAcrossSessionsCopiesAndADamagedFile() async throws {
        let disk = MemoryDisk()
        let raw = InMemoryBlobStore()
        let (replica, store) = try await encryptedReplica(disk: disk, raw: raw)
        replica.closeNow()
        let reopened = try Replica(disk: disk, environment: TestEnvironment(seed: 2).environment)
        #expect(reopened.encryption == store.libraryEncryption)
        await #expect(throws: ReplicaError.encryptedLibrary) { try await reopened.sync(with: InMemoryBlobStore()) }
        // A copy of the folder (a new device) is encrypted.
        let copy = try Replica(disk: disk.durableCopy(), environment: TestEnvironment(seed: 3).environment)
        #expect(copy.isEncrypted)
        await #expect(throws: ReplicaError.encryptedLibrary) { try await copy.sync(with: InMemoryBlobStore()) }
        // A damaged file still says "encrypted", with no key blob to put back.
        let damaged = disk.durableCopy()
        var bytes = try #require(try damaged.read(file: LibraryEncryption.fileName))
        bytes[bytes.count - 1] ^= 1
        try damaged.perform(.write(file: LibraryEncryption.fileName, bytes: bytes))
        let fromDamaged = try Replica(disk: damaged, environment: TestEnvironment(seed: 4).environment)
        #expect(fromDamaged.encryption == LibraryEncryption(keyBlobKey: nil, keyBlob: nil))
        await #expect(throws: ReplicaError.encryptedLibrary) { try await fromDamaged.sync(with: InMemoryBlobStore()) }
        let empty = InMemoryBlobStore()
        await #expect(throws: EncryptionError.keyBlobMissing) {
            _ = try await StoreEncryption.unlock(empty, remembered: store.rememberedKey, library: fromDamaged.encryption!)
        }
        #expect(empty.keys.isEmpty)
    }

    @Test func theEncryptionFileRoundTrips() {
        let encryption = LibraryEncryption(keyBlobKey: "memosync/v1/keys/0000000003-0123456789abcdef.key", keyBlob: [1, 2, 3])
        #expect(LibraryEncryption(decoding: encryption.encoded()) == encryption)
        #expect(LibraryEncryption(decoding: []) == LibraryEncryption(keyBlobKey: nil, keyBlob: nil))
        #expect(!LibraryEncryption(decoding: []).canRepublishKeyBlob)
        #expect(LibraryEncryption(keyBlobKey: nil, keyBlob: nil).encoded() != encryption.encoded())
    }

    @Test func aWipedStoreGetsTheKeyBlobBackAndOnlyCiphertext() async throws {
        let raw = InMemoryBlobStore()
        let (replica, store) = try await encryptedReplica(disk: MemoryDisk(), raw: raw)
        for key in raw.keys { try raw.delete(key: key) }
        let reopened = try await StoreEncryption.unlock(raw, remembered: store.rememberedKey, library: try #require(replica.encryption))
        #expect(raw.keys == [store.keyBlobKey])
        let report = try await replica.sync(with: reopened)
        #expect(report.isComplete && report.publishedSnapshot != nil)
        expectOnlyCiphertext(raw)
        // Another device with the passphrase reads it all.
        let other = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 9).environment)
        _ = try await other.sync(with: try await StoreEncryption.unlock(raw, passphrase: Self.passphrase))
        #expect(other.notebook.list().map(\.title) == [Self.secret])
    }

    @Test func aDeletedOrRolledBackKeyBlobIsPutBack() async throws {
        let raw = InMemoryBlobStore()
        let (replica, store) = try await encryptedReplica(disk: MemoryDisk(), raw: raw)
        // Deleted alone: the ciphertext stays, the key blob comes back, the passphrase opens it.
        try raw.delete(key: store.keyBlobKey)
        let again = try await StoreEncryption.unlock(raw, passphrase: Self.passphrase, library: try #require(replica.encryption))
        #expect(raw.keys.contains(store.keyBlobKey))
        _ = try await replica.sync(with: again)
        expectOnlyCiphertext(raw)
        // Rotated (generation 2), then the store serves only the old generation: the library's
        // newer one goes back.
        let rotated = try await StoreEncryption.rotateDataKey(of: again)
        _ = try await replica.sync(with: rotated)
        #expect(replica.encryption?.keyBlobKey == rotated.keyBlobKey)
        let newer = try #require(raw.bytes(key: rotated.keyBlobKey))
        try raw.delete(key: rotated.keyBlobKey)
        try raw.put(key: store.keyBlobKey, bytes: try #require(store.libraryEncryption.keyBlob))
        let restored = try await StoreEncryption.unlock(raw, remembered: rotated.rememberedKey, library: try #require(replica.encryption))
        #expect(restored.keyBlobKey == rotated.keyBlobKey)
        #expect(raw.bytes(key: rotated.keyBlobKey) == newer)
    }

    /// A passphrase change and a rotation, recorded by the library (``Replica/recordKeyBlob(of:)``),
    /// are what a wiped or rolled-back store gets back: the old passphrase opens neither, and a
    /// rolled-back store is never opened with its older key blob (which would undo the change).
    /// Before, the library kept generation 1 until its next sync, and a rolled-back store was
    /// opened with its own older key blob when the key did not open the library's.
    @Test func aRecordedPassphraseChangeOrRotationIsNeverUndone() async throws {
        let raw = InMemoryBlobStore()
        let (replica, store) = try await encryptedReplica(disk: MemoryDisk(), raw: raw)
        let (firstKey, firstBytes) = (store.keyBlobKey, try #require(raw.bytes(key: store.keyBlobKey)))
        let newPassphrase = "a new passphrase"
        let changed = try await StoreEncryption.changePassphrase(of: store, to: newPassphrase, random: SeededEncryptionRandom(seed: 5))
        try await replica.recordKeyBlob(of: changed)
        #expect(replica.encryption == changed.libraryEncryption)
        let library = try #require(replica.encryption)
        // Wiped: the old passphrase writes nothing back; the new one puts generation 2 back.
        for key in raw.keys { try raw.delete(key: key) }
        await #expect(throws: EncryptionError.wrongPassphrase) {
            _ = try await StoreEncryption.unlock(raw, passphrase: Self.passphrase, library: library)
        }
        #expect(raw.keys.isEmpty)
        let restored = try await StoreEncryption.unlock(raw, passphrase: newPassphrase, library: library)
        #expect(restored.keyBlobWrittenBack == .missing && raw.keys == [changed.keyBlobKey])
        // Rolled back to generation 1: the old passphrase and the old remembered key are refused
        // (the passphrase was changed), nothing written; the new key puts generation 2 back.
        try raw.delete(key: changed.keyBlobKey)
        try raw.put(key: firstKey, bytes: firstBytes)
        raw.resetCounters()
        await #expect(throws: EncryptionError.passphraseChanged) {
            _ = try await StoreEncryption.unlock(raw, passphrase: Self.passphrase, library: library)
        }
        await #expect(throws: EncryptionError.passphraseChanged) {
            _ = try await StoreEncryption.unlock(raw, remembered: store.rememberedKey, library: library)
        }
        #expect(raw.writeCount == 0 && raw.deleteCount == 0)
        let back = try await StoreEncryption.unlock(raw, remembered: changed.rememberedKey, library: library)
        #expect(back.keyBlobWrittenBack == .rolledBack && back.keyBlobKey == changed.keyBlobKey)
        #expect(KeyBlob.newest(among: raw.keys) == changed.keyBlobKey)
        #expect(try await replica.sync(with: back).isComplete)
        // A rotation, then a wipe: the rotated keyring comes back.
        let rotated = try await StoreEncryption.rotateDataKey(of: back, random: SeededEncryptionRandom(seed: 6))
        try await replica.recordKeyBlob(of: rotated)
        #expect(replica.encryption == rotated.libraryEncryption)
        for key in raw.keys { try raw.delete(key: key) }
        let afterWipe = try await StoreEncryption.unlock(raw, remembered: rotated.rememberedKey, library: try #require(replica.encryption))
        #expect(afterWipe.keyBlobWrittenBack == .missing && raw.keys == [rotated.keyBlobKey])
        #expect(afterWipe.cipher.keyring == rotated.cipher.keyring && afterWipe.cipher.keyring.dataKeys.count == 2)
        #expect(try await replica.sync(with: afterWipe).isComplete)
        expectOnlyCiphertext(raw)
    }

    /// One flipped byte in the store's key blob: a library whose copy is that key blob (same key)
    /// writes its copy back over the damaged one (``KeyBlobWriteBack/damaged``) once its key
    /// opened it, and syncs; a device with no copy meets `damagedKeyBlob`; a key that does not
    /// open the copy writes nothing. Before, every device met `damagedKeyBlob` for good.
    @Test func aDamagedKeyBlobIsReplacedByTheLibrarysCopy() async throws {
        let raw = InMemoryBlobStore()
        let (replica, store) = try await encryptedReplica(disk: MemoryDisk(), raw: raw)
        let intact = try #require(raw.bytes(key: store.keyBlobKey))
        var damaged = intact
        damaged[60] ^= 1
        try raw.put(key: store.keyBlobKey, bytes: damaged)
        do throws(EncryptionError) {
            _ = try await StoreEncryption.unlock(raw, passphrase: Self.passphrase)
            Issue.record("a damaged key blob opened")
        } catch {
            guard case .damagedKeyBlob = error else { Issue.record("\(error)"); return }
        }
        let library = try #require(replica.encryption)
        raw.resetCounters()
        await #expect(throws: EncryptionError.wrongPassphrase) {
            _ = try await StoreEncryption.unlock(raw, passphrase: "not the passphrase", library: library)
        }
        #expect(raw.writeCount == 0 && raw.bytes(key: store.keyBlobKey) == damaged)
        let repaired = try await StoreEncryption.unlock(raw, remembered: store.rememberedKey, library: library)
        #expect(repaired.keyBlobWrittenBack == .damaged && repaired.keyBlobKey == store.keyBlobKey)
        #expect(raw.bytes(key: store.keyBlobKey) == intact && raw.keys.filter { $0.hasPrefix(KeyBlob.prefix) } == [store.keyBlobKey])
        #expect(try await replica.sync(with: repaired).isComplete)
        // Intact now: the store's own key blob is used, nothing written.
        raw.resetCounters()
        let again = try await StoreEncryption.unlock(raw, passphrase: Self.passphrase, library: library)
        #expect(again.keyBlobWrittenBack == nil && raw.writeCount == 0)
    }

    @Test func anotherLibrarysKeyBlobIsRefusedAndNothingIsWritten() async throws {
        let raw = InMemoryBlobStore()
        let (replica, store) = try await encryptedReplica(disk: MemoryDisk(), raw: raw)
        let foreignStore = InMemoryBlobStore()
        let foreign = try await StoreEncryption.enable(foreignStore, passphrase: "the operator's own", log2N: Self.log2N)
        try raw.delete(key: store.keyBlobKey)
        try raw.put(key: foreign.keyBlobKey, bytes: try #require(foreignStore.bytes(key: foreign.keyBlobKey)))
        raw.resetCounters()
        let library = try #require(replica.encryption)
        await #expect(throws: EncryptionError.passphraseChanged) {
            _ = try await StoreEncryption.unlock(raw, remembered: store.rememberedKey, library: library)
        }
        await #expect(throws: EncryptionError.wrongPassphrase) {
            _ = try await StoreEncryption.unlock(raw, passphrase: Self.passphrase, library: library)
        }
        #expect(raw.writeCount == 0 && raw.deleteCount == 0)
        expectOnlyCiphertext(raw)
    }

    @Test func aNewStoreForAnEncryptedLibraryIsEncryptedUnderTheSamePassphrase() async throws {
        let (replica, store) = try await encryptedReplica(disk: MemoryDisk(), raw: InMemoryBlobStore())
        let moved = InMemoryBlobStore()
        await #expect(throws: ReplicaError.encryptedLibrary) { try await replica.sync(with: moved) }
        let opened = try await StoreEncryption.unlock(moved, remembered: store.rememberedKey, library: try #require(replica.encryption))
        let report = try await replica.sync(with: opened)
        #expect(report.isComplete && report.encrypted && report.publishedSnapshot != nil)
        expectOnlyCiphertext(moved)
        #expect(try await StoreEncryption.status(of: moved) != .plain)
    }

    @Test func plainBlobsBesideTheCiphertextAreReportedNotApplied() async throws {
        let raw = InMemoryBlobStore()
        let (replica, store) = try await encryptedReplica(disk: MemoryDisk(), raw: raw)
        let planter = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 7).environment)
        _ = try planter.createMemo(text: "planted by the operator")
        let plain = InMemoryBlobStore()
        _ = try await planter.sync(with: plain)
        for key in plain.keys { try raw.put(key: key, bytes: plain.bytes(key: key)!) }
        let report = try await replica.sync(with: store)
        #expect(report.plainBlobsIgnored == plain.keys.sorted())
        #expect(!replica.notebook.list().contains { $0.title.contains("planted") })
    }

    @Test func turningEncryptionOffNeedsThePassphraseAndThenAllowsAPlainStore() async throws {
        let disk = MemoryDisk()
        let (replica, _) = try await encryptedReplica(disk: disk, raw: InMemoryBlobStore())
        let library = try #require(replica.encryption)
        #expect(throws: EncryptionError.wrongPassphrase) { try StoreEncryption.verify(passphrase: "guess", opens: library) }
        try StoreEncryption.verify(passphrase: Self.passphrase, opens: library)
        try await replica.turnEncryptionOff()
        #expect(!replica.isEncrypted)
        #expect(try disk.read(file: LibraryEncryption.fileName) == nil)
        let plain = InMemoryBlobStore()
        #expect(try await replica.sync(with: plain).isComplete)
        #expect(storeShows("combination", in: plain))
    }
}
