import MemoCRDT

// Opening a store for a library that is encrypted (issue 25): a store that lost its key blob
// gets the library's back, never plain blobs (FORMAT.md, "Library encryption").

extension StoreEncryption {
    /// `store`, opened for a library that is encrypted (``Replica/encryption``), with the key this
    /// device remembered.
    ///
    /// As ``unlock(_:remembered:random:)``, except when the store has no key blob (wiped, its key
    /// blob deleted, or a new store) or only an older one than the library's (rolled back): then
    /// the library's key blob is written back first, once the remembered key has opened it, and
    /// the store is opened with it. Without a key blob to put back, ``EncryptionError/keyBlobMissing``.
    /// A key blob the key does not open (another library's, or a passphrase changed elsewhere)
    /// fails as ``unlock(_:remembered:random:)`` fails; nothing is written.
    public static func unlock(
        _ store: any BlobStore, remembered: RememberedStoreKey, library: LibraryEncryption,
        random: any EncryptionRandomSource = SystemEncryptionRandom()
    ) async throws(EncryptionError) -> EncryptedBlobStore {
        let newest = try await newestKeyBlob(in: store)
        let restored = try await restoreKeyBlob(of: library, over: newest?.0, in: store, random: random) { derivation throws(EncryptionError) in
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
        let newest = try await newestKeyBlob(in: store)
        let restored = try await restoreKeyBlob(of: library, over: newest?.0, in: store, random: random) { derivation throws(EncryptionError) in
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

    /// Writes the library's key blob back when the store has none (`storeNewest` nil) or only one
    /// of a lower generation, after `key` opened it; nil when the store's own key blob is to be
    /// used.
    private static func restoreKeyBlob(
        of library: LibraryEncryption, over storeNewest: String?, in store: any BlobStore, random: any EncryptionRandomSource,
        key: (KeyDerivation) throws(EncryptionError) -> RememberedStoreKey
    ) async throws(EncryptionError) -> EncryptedBlobStore? {
        let rolledBack: Bool
        if let storeNewest {
            // Only a lower generation is a rollback: two blobs of one generation are the race of
            // two passphrase changes, which readers settle by name.
            guard let own = library.generation, let theirs = KeyBlob.generation(ofKey: storeNewest), own > theirs else { return nil }
            rolledBack = true
        } else {
            rolledBack = false
        }
        guard let keyBlobKey = library.keyBlobKey, let bytes = library.keyBlob else {
            if rolledBack { return nil }
            throw .keyBlobMissing
        }
        let remembered: RememberedStoreKey
        let keyring: StoreKeyring
        do throws(EncryptionError) {
            let blob = try KeyBlob(decoding: bytes, key: keyBlobKey)
            remembered = try key(blob.derivation)
            keyring = try blob.openKeyring(wrappingKey: remembered.wrappingKey, key: keyBlobKey)
        } catch {
            // The library's blob does not open with this key: the store's decides.
            if rolledBack { return nil }
            throw error
        }
        do throws(BlobStoreError) {
            try await store.write(key: keyBlobKey, bytes: bytes)
        } catch {
            throw .store(error)
        }
        return EncryptedBlobStore(
            base: store, cipher: BlobCipher(keyring: keyring, random: random), keyBlobKey: keyBlobKey, keyBlob: bytes, rememberedKey: remembered)
    }
}
