import MemoCRDT

// Opening a store for a library that is encrypted (issue 25): a store that lost its key blob
// gets the library's back, never plain blobs (FORMAT.md, "Library encryption").

/// What opening a store for an encrypted library wrote to it
/// (``EncryptedBlobStore/keyBlobWrittenBack``): the library's key blob, put back because the
/// store's was missing, older, or damaged (FORMAT.md, "Library encryption").
public enum KeyBlobWriteBack: Sendable, Equatable {
    /// The store held no key blob (wiped, its key blob deleted, or a new store).
    case missing
    /// The store held only key blobs of a lower generation than the library's (rolled back, or
    /// restored from a backup made before a passphrase change or a rotation).
    case rolledBack
    /// The store's newest key blob has the library's key blob's name and other bytes (damaged,
    /// or changed by someone who can write to the store): the library's copy was written over it.
    case damaged
}

extension StoreEncryption {
    /// `store`, opened for a library that is encrypted (``Replica/encryption``), with the key this
    /// device remembered.
    ///
    /// As ``unlock(_:remembered:random:)``, except when the store has no key blob (wiped, its key
    /// blob deleted, or a new store), only older ones than the library's (rolled back), or a
    /// damaged copy of the library's own (the same name, other bytes): then the library's key
    /// blob is written back first, once the remembered key has opened it, and the store is
    /// opened with it (``EncryptedBlobStore/keyBlobWrittenBack`` says why). Without a key blob to
    /// put back, ``EncryptionError/keyBlobMissing``. A key blob the key does not open (another
    /// library's, or a passphrase changed elsewhere) fails as ``unlock(_:remembered:random:)``
    /// fails; a rolled-back store whose older key blob the key opens but the library's newer
    /// one not fails with ``EncryptionError/passphraseChanged`` (the passphrase was changed
    /// since: the newer one is needed). Nothing is written when it fails.
    public static func unlock(
        _ store: any BlobStore, remembered: RememberedStoreKey, library: LibraryEncryption,
        random: any EncryptionRandomSource = SystemEncryptionRandom()
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        let restored = try await restoreKeyBlob(of: library, in: store, random: random) { derivation throws(EncryptionError) in
            guard derivation == remembered.derivation else { throw .passphraseChanged }
            return remembered
        }
        if let restored { return restored }
        return try await unlock(store, remembered: remembered, random: random)
    }

    /// `store`, opened for a library that is encrypted with `passphrase`: as
    /// ``unlock(_:remembered:library:random:)``, the key derived from the passphrase.
    public static func unlock(
        _ store: any BlobStore, passphrase: String, library: LibraryEncryption,
        random: any EncryptionRandomSource = SystemEncryptionRandom()
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        let restored = try await restoreKeyBlob(of: library, in: store, random: random) { derivation throws(EncryptionError) in
            RememberedStoreKey(derivation: derivation, wrappingKey: try derivation.deriveKey(passphrase: passphrase))
        }
        if let restored { return restored }
        return try await unlock(store, passphrase: passphrase, random: random)
    }

    /// Whether `passphrase` opens the library's key blob (before turning its encryption off):
    /// ``EncryptionError/wrongPassphrase`` when not, ``EncryptionError/keyBlobMissing`` when the
    /// library holds none.
    public static func verify(passphrase: String, opens library: LibraryEncryption) throws(EncryptionError) {
        guard let key = library.keyBlobKey, let bytes = library.keyBlob else { throw .keyBlobMissing }
        let blob = try KeyBlob(decoding: bytes, key: key)
        _ = try blob.openKeyring(wrappingKey: try blob.derivation.deriveKey(passphrase: passphrase), key: key)
    }

    /// Whether `remembered` opens the library's key blob: false when it does not (a remembered
    /// key that is damaged, or not the one this library last synced with), true when it does or
    /// when the library holds no key blob to try it on. Costs no key derivation.
    public static func remembered(_ remembered: RememberedStoreKey, opens library: LibraryEncryption) -> Bool {
        guard let key = library.keyBlobKey, let bytes = library.keyBlob, let blob = try? KeyBlob(decoding: bytes, key: key) else { return true }
        return blob.derivation == remembered.derivation && (try? blob.openKeyring(wrappingKey: remembered.wrappingKey, key: key)) != nil
    }

    /// Whether the library's key blob goes back into `store` before it is opened, and why; nil
    /// when the store's own key blob is to be used. One listing of the key blobs, and one read
    /// when the store's newest has the library's key blob's name.
    private static func writeBackNeeded(of library: LibraryEncryption, in store: any BlobStore) async throws(EncryptionError) -> KeyBlobWriteBack? {
        do throws(BlobStoreError) {
            guard let storeNewest = KeyBlob.newest(among: try await store.list(prefix: KeyBlob.prefix).map(\.key)) else { return .missing }
            guard let own = library.keyBlobKey, let ownBytes = library.keyBlob, let ownGeneration = library.generation,
                let theirs = KeyBlob.generation(ofKey: storeNewest)
            else { return nil }
            // Only a lower generation is a rollback: two blobs of one generation are the race of
            // two passphrase changes, which readers settle by name.
            if ownGeneration > theirs { return .rolledBack }
            // Key blobs are never rewritten under their name: the library's name with other
            // bytes is damage (FORMAT.md, "Library encryption").
            guard storeNewest == own else { return nil }
            return try await store.read(key: storeNewest) == ownBytes ? nil : .damaged
        } catch {
            throw .store(error)
        }
    }

    /// Writes the library's key blob back when the store has none, only older ones, or a
    /// damaged copy of it (``writeBackNeeded(of:in:)``), after `key` opened it; nil when the
    /// store's own key blob is to be used.
    private static func restoreKeyBlob(
        of library: LibraryEncryption, in store: any BlobStore, random: any EncryptionRandomSource,
        key: (KeyDerivation) throws(EncryptionError) -> RememberedStoreKey
    ) async throws(EncryptionError) -> EncryptedBlobStore? {
        guard let reason = try await writeBackNeeded(of: library, in: store) else { return nil }
        guard let keyBlobKey = library.keyBlobKey, let bytes = library.keyBlob else { throw .keyBlobMissing }
        let remembered: RememberedStoreKey
        let keyring: StoreKeyring
        do throws(EncryptionError) {
            let blob = try KeyBlob(decoding: bytes, key: keyBlobKey)
            remembered = try key(blob.derivation)
            keyring = try blob.openKeyring(wrappingKey: remembered.wrappingKey, key: keyBlobKey)
        } catch {
            // A rolled-back store is never opened with its older key blob in place of the
            // library's: that would undo the passphrase change (or rotation) the library knows
            // of. When the key opens the older one, the passphrase was changed since.
            if reason == .rolledBack, (try? await unlockNewest(of: store, key: key)) != nil { throw .passphraseChanged }
            throw error
        }
        do throws(BlobStoreError) {
            try await store.write(key: keyBlobKey, bytes: bytes)
        } catch {
            throw .store(error)
        }
        return EncryptedBlobStore(
            base: store, cipher: BlobCipher(keyring: keyring, random: random), keyBlobKey: keyBlobKey, keyBlob: bytes, rememberedKey: remembered,
            keyBlobWrittenBack: reason)
    }

    /// Whether `key` opens the store's newest key blob (its keyring, or a thrown error).
    private static func unlockNewest(
        of store: any BlobStore, key: (KeyDerivation) throws(EncryptionError) -> RememberedStoreKey
    ) async throws(EncryptionError) -> StoreKeyring {
        guard let (storeKey, blob, _) = try await newestKeyBlob(in: store) else { throw .notEncrypted }
        return try blob.openKeyring(wrappingKey: try key(blob.derivation).wrappingKey, key: storeKey)
    }
}
