import MemoCRDT
import Synchronization

/// Any store, end-to-end encrypted: what goes through it is kept as ciphertext under
/// `memosync/e1/` (FORMAT.md, "Encrypted store layout"), and what comes out was authenticated
/// under the store's data keys and the blob's name. A sync sees the plain keys and plain blobs,
/// as with any store; the store sees neither memo text nor content hashes.
///
/// Get one from ``StoreEncryption`` (``StoreEncryption/unlock(_:passphrase:random:)`` and its
/// siblings), which opens the store's key blob first: a wrong passphrase fails there, before any
/// other blob is read or written.
///
/// - A blob that does not open (not encrypted, damaged, moved to another name, under an unknown
///   key) fails its read with ``BlobStoreError/undecryptable(key:reason:)``, naming the key the
///   store holds it under: a sync skips and reports it (under that key, ``storedKey(forPlainKey:)``),
///   never applies it.
/// - Each listing also lists the key blobs. A newer one (a data key rotated on another device)
///   is opened with the key this store was unlocked with, and its new data key used from then
///   on; one this key does not open (the passphrase was changed elsewhere) fails the listing
///   with ``BlobStoreError/encrypted``, so the sync stops having read and written nothing.
/// - Plain blobs (under `memosync/v1/`, from before encryption was turned on) are not listed;
///   ``plainBlobsListed`` counts them, ``StoreEncryption/collectPlainBlobs(in:coveredBy:)`` deletes them.
public final class EncryptedBlobStore: BlobStore {
    /// The store holding the ciphertext.
    public let base: any BlobStore
    /// The passphrase-derived key this store was unlocked with, and its derivation.
    public let rememberedKey: RememberedStoreKey
    /// Whether unlocking it for an encrypted library wrote the library's key blob back into the
    /// store, and why (``StoreEncryption/unlock(_:remembered:library:random:)``); nil when the
    /// store's own key blob was used.
    public let keyBlobWrittenBack: KeyBlobWriteBack?

    private struct State {
        var cipher: BlobCipher
        var keyBlobKey: String
        var keyBlob: [UInt8]
        var plainBlobsListed = 0
        var plainBlobKeys: [String] = []
    }

    private let state: Mutex<State>

    package init(
        base: any BlobStore, cipher: BlobCipher, keyBlobKey: String, keyBlob: [UInt8], rememberedKey: RememberedStoreKey,
        keyBlobWrittenBack: KeyBlobWriteBack? = nil
    ) {
        self.base = base
        self.rememberedKey = rememberedKey
        self.keyBlobWrittenBack = keyBlobWrittenBack
        self.state = Mutex(State(cipher: cipher, keyBlobKey: keyBlobKey, keyBlob: keyBlob))
    }

    /// What a library that syncs through this store remembers of its encryption: the key blob
    /// in use (``Replica/sync(with:progress:)`` records it before anything is written).
    public var libraryEncryption: LibraryEncryption {
        state.withLock { LibraryEncryption(keyBlobKey: $0.keyBlobKey, keyBlob: $0.keyBlob) }
    }

    /// The plain blobs (their keys, sorted) the last listing found beside the ciphertext: never
    /// read, never applied. Left from before encryption was turned on, or put there by someone
    /// who can write to the store.
    public var plainBlobKeys: [String] { state.withLock { $0.plainBlobKeys } }

    /// The key blob in use (the newest this store has seen).
    public var keyBlobKey: String { state.withLock { $0.keyBlobKey } }

    /// Plain blobs (under `memosync/v1/`, key blobs aside) the last listing found.
    public var plainBlobsListed: Int { state.withLock { $0.plainBlobsListed } }

    /// The cipher in use (its keyring).
    package var cipher: BlobCipher { state.withLock { $0.cipher } }

    /// The key the store itself lists the blob `key` under, `key` being what a sync sees (its
    /// plain `memosync/v1/` key): its `memosync/e1/` key, the content hash masked (FORMAT.md,
    /// "Encrypted blob"). What a report names, so that a user finds the file. Keys outside
    /// `memosync/v1/` are returned unchanged.
    public func storedKey(forPlainKey key: String) -> String {
        cipher.storedKey(forPlainKey: key)
    }

    public func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
        try await listing(prefix: prefix).blobs
    }

    public func listing(prefix: String) async throws(BlobStoreError) -> BlobListing {
        let listed = try await base.listing(prefix: "memosync/")
        try await refreshKeyring(from: listed.blobs.map(\.key))
        let cipher = self.cipher
        var blobs: [BlobInfo] = []
        var plain: [String] = []
        for entry in listed.blobs {
            if let key = cipher.plainKey(forStoredKey: entry.key) {
                if key.hasPrefixBytes(prefix) { blobs.append(BlobInfo(key: key, sizeBytes: entry.sizeBytes, revision: entry.revision)) }
            } else if entry.key.hasPrefixBytes(StoreLayout.root), KeyBlob.generation(ofKey: entry.key) == nil, !entry.key.hasPrefixBytes(KeyBlob.prefix) {
                plain.append(entry.key)
            }
        }
        state.withLock { state in
            state.plainBlobsListed = plain.count
            state.plainBlobKeys = plain.sorted()
        }
        let skipped = listed.skipped.compactMap { entry in
            cipher.plainKey(forStoredKey: entry.key).map { SkippedEntry(key: $0, problem: entry.problem) }
        }
        return BlobListing(blobs: blobs, skipped: skipped)
    }

    public func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        let cipher = self.cipher
        let storedKey = cipher.storedKey(forPlainKey: key)
        let bytes = try await base.read(key: storedKey)
        do throws(BlobRefusal) {
            return try cipher.open(key: key, bytes: bytes)
        } catch {
            // Named as the store holds it: the key a user can find.
            throw .undecryptable(key: storedKey, reason: error)
        }
    }

    public func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
        let cipher = self.cipher
        let sealed: [UInt8]
        do throws(EncryptionError) {
            sealed = try cipher.seal(key: key, plain: bytes)
        } catch {
            throw .io(reason: "encrypting \(BlobKeyRules.abbreviated(key)) failed: \(error)")
        }
        try await base.write(key: cipher.storedKey(forPlainKey: key), bytes: sealed)
    }

    public func delete(key: String) async throws(BlobStoreError) {
        try await base.delete(key: cipher.storedKey(forPlainKey: key))
    }

    /// Takes up a newer key blob among `keys`: a rotated data key opens with the same derived
    /// key; a changed passphrase does not (``BlobStoreError/encrypted``).
    private func refreshKeyring(from keys: [String]) async throws(BlobStoreError) {
        let known = keyBlobKey
        guard let newest = KeyBlob.newest(among: keys), KeyBlob.newest(among: [known, newest]) != known else { return }
        let bytes = try await base.read(key: newest)
        do throws(EncryptionError) {
            let blob = try KeyBlob(decoding: bytes, key: newest)
            guard blob.derivation == rememberedKey.derivation else { throw .passphraseChanged }
            let keyring = try blob.openKeyring(wrappingKey: rememberedKey.wrappingKey, key: newest)
            state.withLock { state in
                state.cipher = BlobCipher(keyring: keyring, random: state.cipher.random)
                state.keyBlobKey = newest
                state.keyBlob = bytes
            }
        } catch {
            throw .encrypted
        }
    }
}
