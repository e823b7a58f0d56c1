import Foundation

/// What went wrong opening, setting up or changing a store's encryption (issue 16). Every case
/// is raised before anything is read from or written to the store's blobs (other than its key
/// blob), so nothing was applied and nothing was written.
public enum EncryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The passphrase (or the remembered key) does not open the store's key blob.
    case wrongPassphrase
    /// The store is encrypted and no passphrase or remembered key was given: nothing is synced.
    case passphraseRequired
    /// The key this device remembered belongs to a passphrase that was changed on another
    /// device since: the new passphrase is needed.
    case passphraseChanged
    /// The store is not encrypted (changing the passphrase or the data key needs an encrypted one).
    case notEncrypted
    /// The store is already encrypted (turning encryption on again would start another key).
    case alreadyEncrypted
    /// The store's key blob is damaged or not a key blob; `reason` says how.
    case damagedKeyBlob(key: String, reason: String)
    /// The store's key blob was written by a newer MemoSync (a format version this build does
    /// not know): update the app.
    case unknownKeyBlobVersion(key: String, version: UInt8)
    /// Key derivation parameters outside what this build accepts (from a damaged or hostile key
    /// blob, or asked for by the caller).
    case unacceptableParameters(String)
    /// The store has no key blob, and the library, which is encrypted, has none to put back (its
    /// `encryption` file could not be read, or it was encrypted before libraries kept their key
    /// blob): nothing is synced, and nothing goes out in plain text.
    case keyBlobMissing
    /// The store failed while its key blob was listed, read or written.
    case store(BlobStoreError)
    /// The platform's cryptography failed (out of memory, say).
    case platform(String)

    public var description: String {
        switch self {
        case .wrongPassphrase: "the passphrase does not open this store's key"
        case .passphraseRequired: "the store is encrypted: a passphrase is needed"
        case .passphraseChanged: "the store's passphrase was changed on another device: the new passphrase is needed"
        case .notEncrypted: "the store is not encrypted"
        case .alreadyEncrypted: "the store is already encrypted"
        case let .damagedKeyBlob(key, reason): "the key blob \(BlobKeyRules.abbreviated(key)) is damaged (\(reason))"
        case let .unknownKeyBlobVersion(key, version):
            "the key blob \(BlobKeyRules.abbreviated(key)) has version \(version), which this build does not know"
        case let .unacceptableParameters(what): "unacceptable key derivation parameters (\(what))"
        case .keyBlobMissing: "the store has no key blob, and this encrypted library has none to put back"
        case let .store(error): "\(error)"
        case let .platform(reason): "the system's cryptography failed: \(reason)"
        }
    }
}

// Its `LocalizedError` texts (from the catalogs) are in Errors/LocalizedErrors.swift.

/// Why an encrypted store refused a blob's bytes (``BlobStoreError/undecryptable(key:reason:)``).
/// A sync skips and reports such a blob; it never applies it.
public enum BlobRefusal: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Not an encrypted blob (a plain MemoSync blob, or anything else) in an encrypted store.
    case notEncrypted
    /// Shorter than its header says (still being written or downloaded), or its checksum fails.
    case damaged(String)
    /// An encrypted blob format version this build does not know.
    case unknownVersion(UInt8)
    /// Encrypted under a data key the store's key blob does not hold (`keyID`, 16 hex digits).
    case unknownDataKey(keyID: String)
    /// The authentication tag does not verify: the blob was changed, or was written under
    /// another name (copied, renamed) or by another store.
    case authenticationFailed
    /// Decrypted, but what it holds is not laid out as FORMAT.md says.
    case malformed(String)

    public var description: String {
        switch self {
        case .notEncrypted: "not encrypted, in an encrypted store"
        case let .damaged(reason): "damaged (\(reason))"
        case let .unknownVersion(version): "encrypted blob version \(version) is unknown to this build"
        case let .unknownDataKey(keyID): "encrypted under an unknown data key \(keyID)"
        case .authenticationFailed: "it fails authentication (changed, or moved from another name)"
        case let .malformed(reason): "malformed (\(reason))"
        }
    }
}

extension String {
    /// Unicode canonical composition (NFC), so that a passphrase typed on any keyboard derives
    /// one key.
    var precomposedForKeyDerivation: String { precomposedStringWithCanonicalMapping }
}
