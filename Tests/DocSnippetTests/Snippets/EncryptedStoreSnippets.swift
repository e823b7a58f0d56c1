// Doc blocks: MemoSync.docc/EmbeddingInANotesApp.md ("An encrypted store"). Compiled as an app
// writes them (public API only); each ```swift block appears here verbatim (DocSnippetTests checks
// it), so a change to one goes in both places.
import Foundation
import MemoSync

/// The app's own Keychain wrapper the article calls `keychain` (a generic password item per
/// name); here it holds nothing.
struct AppKeychain: Sendable {
    func data(for name: String) -> Data? { nil }
    func set(_ data: Data, for name: String) {}
}

let keychain = AppKeychain()

func openStore(folder: String, for replica: Replica, passphrase: String?) async throws(EncryptionError) -> any BlobStore {
    let folderStore: any BlobStore
    do throws(BlobStoreError) {
        folderStore = try DirectoryBlobStore(path: folder)     // or any BlobStore
    } catch {
        throw .store(error)                                     // the folder cannot be used
    }
    // An encrypted library (it synced encrypted once) stays encrypted, whatever the store shows.
    let library = replica.encryption
    if library == nil, case .plain = try await StoreEncryption.status(of: folderStore) { return folderStore }
    if let saved = keychain.data(for: "store-key"), let remembered = RememberedStoreKey(encoded: Array(saved)) {
        do throws(EncryptionError) {
            if let library { return try await StoreEncryption.unlock(folderStore, remembered: remembered, library: library) }
            return try await StoreEncryption.unlock(folderStore, remembered: remembered)
        } catch .passphraseChanged {
            // Changed on another device: fall through and ask for the new passphrase.
        }
    }
    guard let passphrase else { throw .passphraseRequired }    // show the passphrase prompt
    let store = if let library {
        try await StoreEncryption.unlock(folderStore, passphrase: passphrase, library: library)
    } else {
        try await StoreEncryption.unlock(folderStore, passphrase: passphrase)
    }
    keychain.set(Data(store.rememberedKey.encoded), for: "store-key")   // kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
    return store
}

/// "An encrypted store": a passphrase change the library records before the app says it is done.
func changePassphrase(of store: EncryptedBlobStore, to newPassphrase: String, replica: Replica) async throws {
    let changed = try await StoreEncryption.changePassphrase(of: store, to: newPassphrase)
    try await replica.recordKeyBlob(of: changed)           // before saying "changed"
    keychain.set(Data(changed.rememberedKey.encoded), for: "store-key")
}
