import Foundation
import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Replicas syncing through encrypted stores (issue 16): convergence with nothing readable in
/// the store, wrong passphrases, devices without the passphrase, tampered blobs in a sync,
/// migration from a plain store, passphrase changes and data key rotation.
@Suite struct EncryptedStoreSyncTests {
    /// Cheap key derivation for tests (the default, 2^15, is for real passphrases).
    static let log2N = 8

    private func makeReplica(_ environment: TestEnvironment) throws -> Replica {
        try Replica(disk: MemoryDisk(), environment: environment.environment)
    }

    /// Whether any blob of `store` holds `text` (UTF-8) anywhere in its bytes or its key.
    private func storeShows(_ text: String, in store: InMemoryBlobStore) -> Bool {
        let needle = Array(text.utf8)
        return store.keys.contains { key in
            let bytes = store.bytes(key: key)!
            return key.contains(text) || (bytes.count >= needle.count && (0...(bytes.count - needle.count)).contains { start in
                bytes[start..<(start + needle.count)].elementsEqual(needle)
            })
        }
    }

    @Test func twoLibrariesConvergeAndTheStoreShowsNoMemoText() async throws {
        let environment = TestEnvironment(seed: 11)
        let raw = InMemoryBlobStore()
        let alice = try makeReplica(environment)
        let bob = try makeReplica(environment)
        let aliceStore = try await StoreEncryption.enable(raw, passphrase: "hunter2 hunter2", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        let bobStore = try await StoreEncryption.unlock(raw, passphrase: "hunter2 hunter2", random: SeededEncryptionRandom(seed: 2))
        let groceries = try alice.createMemo(text: "Groceries\nmilk, eggs")
        let secret = try bob.createMemo(text: "Diary: the combination is 4711")
        try await syncUntilQuiet([alice, bob], store: aliceStore)
        try await syncUntilQuiet([bob, alice], store: bobStore)
        try alice.edit(groceries, replacingUTF16: 0..<9, with: "Shopping")
        try bob.edit(secret, replacingUTF16: 0..<5, with: "Journal")
        try await syncUntilQuiet([alice, bob], store: aliceStore)
        try await syncUntilQuiet([bob, alice], store: bobStore)
        expectConverged([alice, bob])
        #expect(alice.notebook.memo(secret)?.text == "Journal: the combination is 4711")
        #expect(bob.notebook.memo(groceries)?.text == "Shopping\nmilk, eggs")
        for text in ["Groceries", "Shopping", "milk", "Diary", "Journal", "combination", "4711"] {
            #expect(!storeShows(text, in: raw), "the store shows \(text)")
        }
        // Nothing plain: every blob is a key blob or under memosync/e1/, and no name carries a
        // plain content hash.
        for key in raw.keys {
            #expect(key.hasPrefix(KeyBlob.prefix) || key.hasPrefix(BlobCipher.encryptedRoot), "\(key)")
        }
        for key in raw.keys where key.hasPrefix(BlobCipher.encryptedRoot) {
            let plain = aliceStore.cipher.plainKey(forStoredKey: key)!
            #expect(plain.dropFirst(StoreLayout.root.count) != key.dropFirst(BlobCipher.encryptedRoot.count), "\(key)")
        }
    }

    @Test func aWrongPassphraseFailsBeforeAnyBlobIsReadOrWritten() async throws {
        let raw = InMemoryBlobStore()
        _ = try await StoreEncryption.enable(raw, passphrase: "right", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        raw.resetCounters()
        await #expect(throws: EncryptionError.wrongPassphrase) {
            _ = try await StoreEncryption.unlock(raw, passphrase: "wrong", random: SeededEncryptionRandom(seed: 2))
        }
        // One listing of the key blobs and one read of the newest; nothing else.
        #expect(raw.readCount == 1 && raw.writeCount == 0 && raw.deleteCount == 0)
        await #expect(throws: EncryptionError.alreadyEncrypted) {
            _ = try await StoreEncryption.enable(raw, passphrase: "other", log2N: Self.log2N)
        }
        await #expect(throws: EncryptionError.notEncrypted) {
            _ = try await StoreEncryption.unlock(InMemoryBlobStore(), passphrase: "right")
        }
    }

    @Test func aDeviceWithoutThePassphraseReadsAndWritesNothing() async throws {
        let environment = TestEnvironment(seed: 12)
        let raw = InMemoryBlobStore()
        let alice = try makeReplica(environment)
        let store = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        _ = try alice.createMemo(text: "private")
        try await alice.sync(with: store)
        let bob = try makeReplica(environment)
        _ = try bob.createMemo(text: "bob's plain words")
        let keysBefore = raw.keys
        raw.resetCounters()
        let report = try await bob.sync(with: raw)
        #expect(report.errors == [SyncProblem(.list, storeError: .encrypted)])
        #expect(raw.readCount == 0 && raw.writeCount == 0 && raw.deleteCount == 0)
        #expect(raw.keys == keysBefore)
        #expect(bob.notebook.memoIDs.count == 1)
        #expect(bob.unpublishedOperationCount > 0)
    }

    /// Tampered blobs met by a real sync: skipped and reported, never applied; the rest converges.
    @Test func tamperedBlobsAreSkippedAndReportedNeverApplied() async throws {
        let environment = TestEnvironment(seed: 13)
        let raw = InMemoryBlobStore()
        let alice = try makeReplica(environment)
        let store = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        let memo = try alice.createMemo(text: "first")
        try await alice.sync(with: store)
        try alice.edit(memo, replacingUTF16: 5..<5, with: " second")
        try await alice.sync(with: store)
        let segments = raw.keys.filter { $0.contains("/segments/") }.sorted()
        #expect(segments.count == 2)
        // The second segment's bytes replaced by the first's (a replay under another name).
        try raw.put(key: segments[1], bytes: raw.bytes(key: segments[0])!)
        let bob = try makeReplica(environment)
        let report = try await bob.sync(with: store)
        // Reported under the key the store lists (its `memosync/e1/` key), in the reason too:
        // the plain key (and its unmasked hash) names no file in the store.
        #expect(report.skipped.map(\.key) == [segments[1]])
        #expect(report.skipped.first { $0.key == segments[1] }?.reason
            == .unreadable(BlobStoreError.undecryptable(key: segments[1], reason: .authenticationFailed).description))
        #expect(store.storedKey(forPlainKey: store.cipher.plainKey(forStoredKey: segments[1])!) == segments[1])
        #expect(bob.notebook.memo(memo)?.text == "first")
        // Restored: the next sync reads it.
        let carol = try makeReplica(environment)
        try await carol.sync(with: store)
        #expect(carol.notebook.memo(memo)?.text == "first")
        _ = carol
    }

    /// A plain store with two libraries turns encrypted: the first library syncs plain, turns
    /// encryption on, syncs encrypted and collects; the other, without the passphrase, is
    /// refused; with it, it converges; after both collected, nothing plain remains.
    @Test func aPlainStoreTurnsEncryptedAndNothingPlainRemains() async throws {
        let environment = TestEnvironment(seed: 14)
        let raw = InMemoryBlobStore()
        let alice = try makeReplica(environment)
        let bob = try makeReplica(environment)
        let memo = try alice.createMemo(text: "plain at first")
        _ = try bob.createMemo(text: "bob wrote this plain")
        try await syncUntilQuiet([alice, bob], store: raw)
        try bob.edit(memo, replacingUTF16: 0..<5, with: "Plain")
        try await bob.sync(with: raw)
        // Alice types more, then reads the plain store (read-only: nothing of hers goes out in
        // plain), enables, syncs encrypted, collects.
        try alice.edit(memo, replacingUTF16: 14..<14, with: ", never plain")
        raw.resetCounters()
        let readOnly = try await alice.sync(with: ReadOnlyBlobStore(raw))
        #expect(raw.writeCount == 0 && raw.deleteCount == 0 && readOnly.operationsApplied > 0)
        #expect(!storeShows("never plain", in: raw))
        let aliceStore = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        let first = try await alice.sync(with: aliceStore)
        #expect(first.isComplete && first.publishedSnapshot != nil)
        let collected = await StoreEncryption.collectPlainBlobs(in: raw, coveredBy: alice.notebook.version)
        #expect(!collected.deleted.isEmpty)
        // Bob, offline meanwhile, typed more; without the passphrase he is refused.
        try bob.edit(memo, replacingUTF16: 0..<0, with: "> ")
        let refused = try await bob.sync(with: raw)
        #expect(refused.errors.first?.storeError == .encrypted)
        let bobStore = try await StoreEncryption.unlock(raw, passphrase: "pw", random: SeededEncryptionRandom(seed: 2))
        let bobFirst = try await bob.sync(with: bobStore)
        #expect(bobFirst.isComplete)
        _ = await StoreEncryption.collectPlainBlobs(in: raw, coveredBy: bob.notebook.version)
        try await syncUntilQuiet([alice, bob], store: aliceStore)
        expectConverged([alice, bob])
        #expect(alice.notebook.memo(memo)?.text == "> Plain at first, never plain")
        let plainLeft = raw.keys.filter { $0.hasPrefix(StoreLayout.root) && !$0.hasPrefix(KeyBlob.prefix) }
        #expect(plainLeft.isEmpty, "\(plainLeft)")
        #expect(!storeShows("plain at first", in: raw) && !storeShows("bob wrote", in: raw) && !storeShows("never plain", in: raw))
        // A fresh device with the passphrase gets everything from ciphertext alone.
        let carol = try makeReplica(environment)
        try await carol.sync(with: StoreEncryption.unlock(raw, passphrase: "pw"))
        expectConverged([alice, carol])
    }

    /// FORMAT.md "Key blob": a key blob of a version this build does not know is
    /// `unknownKeyBlobVersion` ("update the app"), and nothing syncs. A store already open when
    /// such a key blob appears fails its listing as `encrypted` (it cannot take the newer key
    /// blob up), writing nothing; unlocking it again then meets the newer version.
    @Test func aNewerKeyBlobStopsSyncsAndUnlockingSaysSo() async throws {
        let environment = TestEnvironment(seed: 16)
        let raw = InMemoryBlobStore()
        let store = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 3))
        let alice = try makeReplica(environment)
        _ = try alice.createMemo(text: "before the upgrade")
        #expect(try await alice.sync(with: store).isComplete)
        // A newer MemoSync writes a key blob of version 2, generation 9.
        let newer = KeyBlob.prefix + "0000000009-00000000000000aa.key"
        try raw.write(key: newer, bytes: BlobEnvelope.seal(kind: .keyBlob, version: 2, body: [9, 1, 2, 3]))
        _ = try alice.createMemo(text: "after the upgrade")
        raw.resetCounters()
        let report = try await alice.sync(with: store)
        #expect(!report.isComplete && report.errors.first?.storeError == .encrypted)
        #expect(raw.writeCount == 0 && raw.deleteCount == 0)
        await #expect(throws: EncryptionError.unknownKeyBlobVersion(key: newer, version: 2)) {
            _ = try await StoreEncryption.unlock(raw, passphrase: "pw", random: SeededEncryptionRandom(seed: 4))
        }
    }

    /// FORMAT.md "Plain, encrypted, and the switch": `collectPlainBlobs` deletes the plain
    /// segments within the version, the plain snapshots whose version it includes and the plain
    /// heads, and keeps everything else: a segment or snapshot holding an operation the version
    /// lacks (its writer has not synced encrypted yet), a key it cannot parse, a snapshot it
    /// cannot read, and the key blobs.
    @Test func collectingPlainBlobsKeepsWhatTheVersionLacks() async throws {
        let raw = InMemoryBlobStore()
        let (x, y) = (ReplicaID(0x11), ReplicaID(0x22))
        var notebook = Notebook(replica: x)
        try notebook.createMemo(MemoID(high: 1, low: 1), text: "abcd", wallMilliseconds: 1)
        let snapshotBytes = notebook.encoded()
        let snapshotKey = StoreLayout.snapshotKey(replica: x, totalOperations: UInt64(notebook.version.operationCount), bytes: snapshotBytes)
        let segmentKey = StoreLayout.segmentKey(replica: y, counters: 0..<3, bytes: [1, 2, 3])
        let headKey = StoreLayout.headKey(replica: y, bytes: [4])
        let unreadableSnapshot = StoreLayout.snapshotKey(replica: y, totalOperations: 3, bytes: [5])
        let junk = StoreLayout.root + "notes.txt"
        try raw.write(key: snapshotKey, bytes: snapshotBytes)
        for (key, bytes) in [(segmentKey, [1, 2, 3] as [UInt8]), (headKey, [4]), (unreadableSnapshot, [5]), (junk, [6])] {
            try raw.write(key: key, bytes: bytes)
        }
        let keyBlob = KeyBlob.prefix + "0000000000000001.key"
        try raw.write(key: keyBlob, bytes: [7])
        // The version lacks y's third operation and x's last: only the head goes.
        var lacking = notebook.version
        lacking[x] = notebook.version[x] - 1
        lacking[y] = 2
        let first = await StoreEncryption.collectPlainBlobs(in: raw, coveredBy: lacking)
        #expect(first.deleted == [headKey])
        #expect(Set(first.kept) == [snapshotKey, segmentKey, unreadableSnapshot, junk])
        // A version holding both: the segment and the readable snapshot go too.
        var covering = notebook.version
        covering[y] = 3
        let second = await StoreEncryption.collectPlainBlobs(in: raw, coveredBy: covering)
        #expect(Set(second.deleted) == [snapshotKey, segmentKey])
        #expect(Set(raw.keys) == [unreadableSnapshot, junk, keyBlob])
    }

    /// A store mixing plain and encrypted blobs: plain blobs dropped into the encrypted layout are
    /// refused (never applied); plain blobs left under the plain root are not even listed.
    @Test func aStoreMixingPlainAndEncryptedBlobsAppliesOnlyTheEncrypted() async throws {
        let environment = TestEnvironment(seed: 15)
        let raw = InMemoryBlobStore()
        let plainStore = InMemoryBlobStore()
        let mallory = try makeReplica(environment)
        _ = try mallory.createMemo(text: "injected")
        try await mallory.sync(with: plainStore)
        let alice = try makeReplica(environment)
        let store = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        _ = try alice.createMemo(text: "genuine")
        try await alice.sync(with: store)
        // Mallory's plain blobs, under the plain root and under encrypted names.
        for key in plainStore.keys {
            try raw.put(key: key, bytes: plainStore.bytes(key: key)!)
            try raw.put(key: store.cipher.storedKey(forPlainKey: key), bytes: plainStore.bytes(key: key)!)
        }
        let bob = try makeReplica(environment)
        let report = try await bob.sync(with: store)
        #expect(bob.notebook.memoIDs.map { bob.notebook.memo($0)?.text } == ["genuine"])
        let refusedPlain = report.skipped.filter { $0.reason == .unreadable(BlobStoreError.undecryptable(key: $0.key, reason: .notEncrypted).description) }
        #expect(refusedPlain.count == plainStore.keys.count)
        #expect(store.plainBlobsListed == plainStore.keys.count)
    }

    /// Bob is offline while Alice changes the passphrase: his remembered key is refused with
    /// `passphraseChanged`, his open store stops at the listing having written nothing, and the
    /// new passphrase brings him back.
    @Test func aPassphraseChangedWhileAnotherDeviceIsOffline() async throws {
        let environment = TestEnvironment(seed: 16)
        let raw = InMemoryBlobStore()
        let alice = try makeReplica(environment)
        let bob = try makeReplica(environment)
        let aliceStore = try await StoreEncryption.enable(raw, passphrase: "old", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        let bobStore = try await StoreEncryption.unlock(raw, passphrase: "old", random: SeededEncryptionRandom(seed: 2))
        let remembered = bobStore.rememberedKey
        let memo = try alice.createMemo(text: "before")
        try await syncUntilQuiet([alice, bob], store: aliceStore)
        let encryptedBefore = raw.keys.filter { $0.hasPrefix(BlobCipher.encryptedRoot) }.map { ($0, raw.bytes(key: $0)!) }
        let changed = try await StoreEncryption.changePassphrase(of: aliceStore, to: "new", random: SeededEncryptionRandom(seed: 3))
        // No blob was re-encrypted; one key blob remains, of generation 2.
        for (key, bytes) in encryptedBefore { #expect(raw.bytes(key: key) == bytes) }
        #expect(raw.keys.filter { $0.hasPrefix(KeyBlob.prefix) }.map { KeyBlob.generation(ofKey: $0) } == [2])
        try alice.edit(memo, replacingUTF16: 6..<6, with: " and after")
        try await alice.sync(with: changed)
        // Bob comes back.
        _ = try bob.createMemo(text: "bob offline")
        await #expect(throws: EncryptionError.passphraseChanged) {
            _ = try await StoreEncryption.unlock(raw, remembered: remembered)
        }
        await #expect(throws: EncryptionError.wrongPassphrase) {
            _ = try await StoreEncryption.unlock(raw, passphrase: "old")
        }
        raw.resetCounters()
        let stale = try await bob.sync(with: bobStore)
        #expect(stale.errors == [SyncProblem(.list, storeError: .encrypted)])
        #expect(raw.writeCount == 0 && raw.deleteCount == 0)
        let bobNew = try await StoreEncryption.unlock(raw, passphrase: "new", random: SeededEncryptionRandom(seed: 4))
        try await syncUntilQuiet([bob, alice], store: bobNew)
        expectConverged([alice, bob])
        #expect(bob.notebook.memo(memo)?.text == "before and after")
        // The new remembered key opens it from now on.
        _ = try await StoreEncryption.unlock(raw, remembered: bobNew.rememberedKey)
    }

    /// FORMAT.md, "Keys": "Changing the passphrase writes a new key blob (new salt, same keys;
    /// no blob is re-encrypted)". The keyring the new key blob holds is the one before (name key
    /// and every data key), only the salt and wrapping key differ; a new device unlocking with
    /// the new passphrase reads every blob written before the change, skipping nothing.
    @Test func aPassphraseChangeKeepsTheKeys() async throws {
        let environment = TestEnvironment(seed: 19)
        let raw = InMemoryBlobStore()
        let alice = try makeReplica(environment)
        let store = try await StoreEncryption.enable(raw, passphrase: "old", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        let first = try alice.createMemo(text: "under the first data key")
        try await alice.sync(with: store)
        let rotated = try await StoreEncryption.rotateDataKey(of: store, random: SeededEncryptionRandom(seed: 2))
        let second = try alice.createMemo(text: "under the second data key")
        try await alice.sync(with: rotated)
        let keyringBefore = rotated.cipher.keyring
        #expect(keyringBefore.dataKeys.count == 2)
        // The store holds blobs under each of the two data keys.
        func keyIDsInUse() throws -> Set<[UInt8]> {
            Set(try raw.keys.filter { $0.hasPrefix(BlobCipher.encryptedRoot) }.map { key in
                let bytes = raw.bytes(key: key)!
                let body = try BlobEnvelope.open(bytes, kind: .encryptedBlob, versions: 1...1).body
                return Array(bytes[body.prefix(8)])
            })
        }
        #expect(try keyIDsInUse() == Set(keyringBefore.dataKeys.map(\.id)))
        let changed = try await StoreEncryption.changePassphrase(of: rotated, to: "new", random: SeededEncryptionRandom(seed: 3))
        #expect(changed.cipher.keyring == keyringBefore, "same name key, same data keys")
        #expect(changed.rememberedKey.derivation.salt != rotated.rememberedKey.derivation.salt)
        // A new device with only the new passphrase: the store's key blob holds the same keys,
        // and every blob written before the change is read.
        let newcomer = try await StoreEncryption.unlock(raw, passphrase: "new", random: SeededEncryptionRandom(seed: 4))
        #expect(newcomer.cipher.keyring == keyringBefore)
        let bob = try makeReplica(environment)
        let report = try await bob.sync(with: newcomer)
        #expect(report.skipped.isEmpty && report.errors.isEmpty, "\(report.skipped) \(report.errors)")
        #expect(bob.notebook.memo(first)?.text == "under the first data key")
        #expect(bob.notebook.memo(second)?.text == "under the second data key")
        // And what is written after the change too.
        let third = try alice.createMemo(text: "after the change")
        try await alice.sync(with: changed)
        let later = try await bob.sync(with: newcomer)
        #expect(later.skipped.isEmpty && later.errors.isEmpty)
        #expect(bob.notebook.memo(third)?.text == "after the change")
    }

    /// Alice rotates the data key: her new blobs use the new key id; Bob's open store takes up the
    /// new key blob at its next listing (same passphrase) and reads old and new blobs.
    @Test func aRotatedDataKeyKeepsOldBlobsReadable() async throws {
        let environment = TestEnvironment(seed: 17)
        let raw = InMemoryBlobStore()
        let alice = try makeReplica(environment)
        let bob = try makeReplica(environment)
        let aliceStore = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        let bobStore = try await StoreEncryption.unlock(raw, remembered: aliceStore.rememberedKey, random: SeededEncryptionRandom(seed: 2))
        let memo = try alice.createMemo(text: "under the first key")
        try await alice.sync(with: aliceStore)
        let rotated = try await StoreEncryption.rotateDataKey(of: aliceStore, random: SeededEncryptionRandom(seed: 3))
        #expect(rotated.cipher.keyring.dataKeys.count == 2)
        #expect(rotated.cipher.keyring.nameKey == aliceStore.cipher.keyring.nameKey)
        try alice.edit(memo, replacingUTF16: 0..<0, with: "Both: ")
        try await alice.sync(with: rotated)
        let newID = rotated.cipher.keyring.current.id
        let newest = raw.keys.filter { $0.contains("/segments/") }.sorted().last!
        let newestBytes = raw.bytes(key: newest)!
        let body = try BlobEnvelope.open(newestBytes, kind: .encryptedBlob, versions: 1...1).body
        #expect(Array(newestBytes[body.prefix(8)]) == newID)
        let report = try await bob.sync(with: bobStore)
        #expect(report.skipped.isEmpty && report.errors.isEmpty)
        #expect(bob.notebook.memo(memo)?.text == "Both: under the first key")
        #expect(bobStore.cipher.keyring.current.id == newID)
    }

    /// A sync client's conflicted copy of an encrypted blob (in a real folder) opens like the
    /// original: with only the copy left, a new device reads it, skips nothing and gets the memo.
    @Test func aConflictedCopyOfAnEncryptedBlobOpens() async throws {
        let environment = TestEnvironment(seed: 18)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memosync-encrypted-\(UInt64.random(in: 0...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let raw = try DirectoryBlobStore(path: folder)
        let alice = try makeReplica(environment)
        let store = try await StoreEncryption.enable(raw, passphrase: "pw", log2N: Self.log2N, random: SeededEncryptionRandom(seed: 1))
        let memo = try alice.createMemo(text: "copied by Dropbox")
        try await alice.sync(with: store)
        let segment = try #require(try raw.list(prefix: BlobCipher.encryptedRoot).map(\.key).first { $0.contains("/segments/") })
        let copy = segment.replacingOccurrences(of: ".seg", with: " (Alice's conflicted copy 2026-11-26).seg")
        try raw.write(key: copy, bytes: try raw.read(key: segment))
        // Only the copy is left (and the snapshot, if one was written, goes too): it must be read.
        for key in try raw.list(prefix: BlobCipher.encryptedRoot).map(\.key) where key != copy { try raw.delete(key: key) }
        let bob = try makeReplica(environment)
        let report = try await bob.sync(with: StoreEncryption.unlock(raw, passphrase: "pw"))
        #expect(report.skipped.isEmpty, "\(report.skipped)")
        #expect(report.errors.isEmpty)
        #expect(bob.notebook.memo(memo)?.text == "copied by Dropbox")
    }

    @Test func aRememberedKeyRoundTrips() throws {
        let key = RememberedStoreKey(derivation: KeyDerivation(log2N: 15, r: 8, p: 1, salt: Array(0..<16)), wrappingKey: Array(100..<132))
        #expect(RememberedStoreKey(encoded: key.encoded) == key)
        #expect(RememberedStoreKey(encoded: Array(key.encoded.dropLast())) == nil)
        #expect(RememberedStoreKey(encoded: [UInt8](repeating: 0, count: key.encoded.count)) == nil)
    }
}
