import MemoCRDT
import MemoNotes

/// The key a device derived from a store's passphrase, with the derivation it belongs to: what
/// a device keeps so that it asks for the passphrase once. It opens the store's key blob (and
/// so every data key, including rotated ones) until the passphrase is changed.
///
/// `memo` keeps it in the library folder (`store-key`, readable by the user only); an app keeps
/// ``encoded`` in the Keychain instead (a generic password item, accessible after first unlock,
/// this device only) and passes it back to ``StoreEncryption/unlock(_:remembered:random:)``.
public struct RememberedStoreKey: Sendable, Equatable {
    /// How the key was derived (scrypt parameters and salt).
    public var derivation: KeyDerivation
    /// The 32-byte derived key.
    public var wrappingKey: [UInt8]

    /// A remembered key.
    public init(derivation: KeyDerivation, wrappingKey: [UInt8]) {
        self.derivation = derivation
        self.wrappingKey = wrappingKey
    }

    /// Its bytes, for a file or a Keychain item (FORMAT.md, "Remembered store key"):
    /// "msk1", log2 n, r, p (one byte each), the 16-byte salt, the 32-byte key.
    public var encoded: [UInt8] {
        Array("msk1".utf8) + [UInt8(derivation.log2N), UInt8(derivation.r), UInt8(derivation.p)] + derivation.salt + wrappingKey
    }

    /// Decodes ``encoded``; nil for anything else.
    public init?(encoded bytes: [UInt8]) {
        guard bytes.count == 4 + 3 + 16 + 32, bytes.starts(with: Array("msk1".utf8)) else { return nil }
        derivation = KeyDerivation(log2N: Int(bytes[4]), r: Int(bytes[5]), p: Int(bytes[6]), salt: Array(bytes[7..<23]))
        wrappingKey = Array(bytes[23...])
    }
}

/// Whether a store is encrypted: decided by its key blob (FORMAT.md, "Key blob").
public enum StoreEncryptionStatus: Sendable, Equatable {
    /// No key blob: blobs are plain.
    case plain
    /// Encrypted: the newest key blob's key, and how its passphrase is derived.
    case encrypted(keyBlobKey: String, derivation: KeyDerivation)
}

/// Turning a store's encryption on, opening it, changing its passphrase, rotating its data key,
/// and deleting the plain blobs left from before (issue 16). Each operation reads the key blob
/// before anything else, so a wrong passphrase fails before any other blob is read or written.
public enum StoreEncryption {
    /// Whether `store` is encrypted (one listing of its key blobs; one read of the newest).
    public static func status(of store: any BlobStore) async throws(EncryptionError) -> StoreEncryptionStatus {
        guard let (key, blob, _) = try await newestKeyBlob(in: store) else { return .plain }
        return .encrypted(keyBlobKey: key, derivation: blob.derivation)
    }

    /// Encrypts `store` from now on: writes its first key blob (a fresh data key and name key,
    /// wrapped under a key derived from `passphrase`). Fails with
    /// ``EncryptionError/alreadyEncrypted`` when it has one.
    ///
    /// Plain blobs already there stay readable to no one through the encrypted store: the next
    /// sync of each library publishes what it holds again, encrypted (its history looks lost to
    /// it), and ``collectPlainBlobs(in:coveredBy:)`` deletes the plain ones. The library turning
    /// encryption on syncs with ``ReadOnlyBlobStore`` around the plain store first, so that it
    /// holds what the store holds without publishing anything in plain text:
    ///
    /// ```swift
    /// _ = try await replica.sync(with: ReadOnlyBlobStore(folder))        // read what is there
    /// let store = try await StoreEncryption.enable(folder, passphrase: passphrase)
    /// let report = try await replica.sync(with: store)                   // a snapshot, encrypted
    /// if report.isComplete, report.publishedSnapshot != nil {
    ///     _ = await StoreEncryption.collectPlainBlobs(in: folder, coveredBy: replica.notebook.version)
    /// }
    /// ```
    public static func enable(
        _ store: any BlobStore, passphrase: String, log2N: Int = KeyDerivation.defaultLog2N,
        random: any EncryptionRandomSource = SystemEncryptionRandom()
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        if try await newestKeyBlob(in: store) != nil { throw .alreadyEncrypted }
        let derivation = KeyDerivation(log2N: log2N, salt: try random.bytes(16))
        let remembered = RememberedStoreKey(derivation: derivation, wrappingKey: try derivation.deriveKey(passphrase: passphrase))
        return try await writeKeyBlob(StoreKeyring.fresh(random: random), generation: 1, remembered: remembered, to: store, random: random)
    }

    /// `store`, opened with `passphrase`: ``EncryptionError/wrongPassphrase`` when it is not
    /// the store's, ``EncryptionError/notEncrypted`` when the store has no key blob.
    public static func unlock(
        _ store: any BlobStore, passphrase: String, random: any EncryptionRandomSource = SystemEncryptionRandom()
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        guard let (key, blob, bytes) = try await newestKeyBlob(in: store) else { throw .notEncrypted }
        let remembered = RememberedStoreKey(derivation: blob.derivation, wrappingKey: try blob.derivation.deriveKey(passphrase: passphrase))
        let keyring = try blob.openKeyring(wrappingKey: remembered.wrappingKey, key: key)
        return EncryptedBlobStore(base: store, cipher: BlobCipher(keyring: keyring, random: random), keyBlobKey: key, keyBlob: bytes, rememberedKey: remembered)
    }

    /// `store`, opened with a key remembered from an earlier unlock:
    /// ``EncryptionError/passphraseChanged`` when the passphrase was changed since (on any
    /// device), ``EncryptionError/wrongPassphrase`` when the key does not open the key blob.
    public static func unlock(
        _ store: any BlobStore, remembered: RememberedStoreKey, random: any EncryptionRandomSource = SystemEncryptionRandom()
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        guard let (key, blob, bytes) = try await newestKeyBlob(in: store) else { throw .notEncrypted }
        guard blob.derivation == remembered.derivation else { throw .passphraseChanged }
        let keyring = try blob.openKeyring(wrappingKey: remembered.wrappingKey, key: key)
        return EncryptedBlobStore(base: store, cipher: BlobCipher(keyring: keyring, random: random), keyBlobKey: key, keyBlob: bytes, rememberedKey: remembered)
    }

    /// Wraps the store's data keys under `newPassphrase` (a fresh salt) in a new key blob, then
    /// deletes the older key blobs. No blob is re-encrypted. Another device that remembered the
    /// old key gets ``EncryptionError/passphraseChanged`` at its next sync and asks for the new one.
    ///
    /// The library that changed it records the new key blob (``Replica/recordKeyBlob(of:)``)
    /// before saying it is done: otherwise a store that loses its key blob before the library's
    /// next sync gets the old one back, under the old passphrase.
    public static func changePassphrase(
        of unlocked: EncryptedBlobStore, to newPassphrase: String, log2N: Int? = nil,
        random: any EncryptionRandomSource = SystemEncryptionRandom()
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        let (generation, keyring) = try await currentKeyring(of: unlocked)
        let derivation = KeyDerivation(log2N: log2N ?? unlocked.rememberedKey.derivation.log2N, salt: try random.bytes(16))
        let remembered = RememberedStoreKey(derivation: derivation, wrappingKey: try derivation.deriveKey(passphrase: newPassphrase))
        return try await writeKeyBlob(keyring, generation: generation + 1, remembered: remembered, to: unlocked.base, random: random)
    }

    /// Adds a fresh data key (the current one from now on: new blobs are encrypted under it);
    /// blobs under the older keys stay readable until collected. Same passphrase, same salt:
    /// remembered keys keep working. The library that rotated it records the new key blob
    /// (``Replica/recordKeyBlob(of:)``), as after ``changePassphrase(of:to:log2N:random:)``.
    public static func rotateDataKey(
        of unlocked: EncryptedBlobStore, random: any EncryptionRandomSource = SystemEncryptionRandom()
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        let (generation, keyring) = try await currentKeyring(of: unlocked)
        guard keyring.dataKeys.count < KeyBlob.maxDataKeys else { throw .unacceptableParameters("more than \(KeyBlob.maxDataKeys) data keys") }
        return try await writeKeyBlob(
            keyring.rotated(random: random), generation: generation + 1, remembered: unlocked.rememberedKey, to: unlocked.base, random: random)
    }

    // MARK: Steps

    /// The newest key blob's generation and keyring, opened with the unlocked store's key (the
    /// newest may be newer than the one it was unlocked with).
    private static func currentKeyring(of unlocked: EncryptedBlobStore) async throws(EncryptionError) -> (UInt32, StoreKeyring) {
        guard let (key, blob, _) = try await newestKeyBlob(in: unlocked.base) else { throw .notEncrypted }
        guard blob.derivation == unlocked.rememberedKey.derivation else { throw .passphraseChanged }
        return (blob.generation, try blob.openKeyring(wrappingKey: unlocked.rememberedKey.wrappingKey, key: key))
    }

    /// Writes `keyring` in a key blob of `generation`, deletes older key blobs, and returns the
    /// store opened with it.
    private static func writeKeyBlob(
        _ keyring: StoreKeyring, generation: UInt32, remembered: RememberedStoreKey, to store: any BlobStore,
        random: any EncryptionRandomSource
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        let blob = try KeyBlob.seal(keyring, generation: generation, derivation: remembered.derivation, wrappingKey: remembered.wrappingKey, random: random)
        let key = try KeyBlob.key(generation: generation, random: random)
        do throws(BlobStoreError) {
            try await store.write(key: key, bytes: blob.encoded)
            // Older key blobs: deleted once the new one is in place (a failure leaves them, harmless:
            // readers take the newest).
            for old in try await store.list(prefix: KeyBlob.prefix).map(\.key) where old != key {
                if let oldGeneration = KeyBlob.generation(ofKey: old), oldGeneration < generation {
                    try? await store.delete(key: old)
                }
            }
        } catch {
            throw .store(error)
        }
        return EncryptedBlobStore(
            base: store, cipher: BlobCipher(keyring: keyring, random: random), keyBlobKey: key, keyBlob: blob.encoded, rememberedKey: remembered)
    }

    /// The newest key blob in `store`, decoded, and its bytes; nil when there is none.
    static func newestKeyBlob(in store: any BlobStore) async throws(EncryptionError) -> (String, KeyBlob, [UInt8])? {
        let newest: String
        let bytes: [UInt8]
        do throws(BlobStoreError) {
            guard let key = KeyBlob.newest(among: try await store.list(prefix: KeyBlob.prefix).map(\.key)) else { return nil }
            newest = key
            bytes = try await store.read(key: key)
        } catch {
            throw .store(error)
        }
        return (newest, try KeyBlob(decoding: bytes, key: newest), bytes)
    }
}
