import MemoCRDT

// Encryption as a property of the library, not of the store (issue 25). A library that has
// synced through an encrypted store keeps the store's key blob (the keyring wrapped under the
// passphrase-derived key: no key in the clear) in its own file, `encryption` (FORMAT.md,
// "Library encryption"). From then on it syncs only through encryption: `Replica.sync(with:)`
// refuses any other store with `ReplicaError.encryptedLibrary`, and a store without a key blob
// (wiped, its key blob deleted, a new folder) gets this one back before anything else is written
// (`StoreEncryption.unlock(_:remembered:library:random:)`), never plain blobs. Only
// `Replica.turnEncryptionOff()`, which an app calls when its user asks (`memo store decrypt`),
// makes the library plain again.

/// What a library remembers of its encryption: that it is encrypted, and the key blob of the
/// store it last synced with encrypted (FORMAT.md, "Library encryption"). A library without one
/// is plain.
///
/// The key blob holds the store's keys wrapped under the passphrase-derived key, as the store
/// holds it: keeping it reveals nothing the store did not hold, and it lets a library put it back
/// in a store that lost it (only after the device's own key opened it).
public struct LibraryEncryption: Sendable, Equatable {
    /// The file in the library folder.
    public static let fileName = "encryption"
    /// The file being replaced (renamed over ``fileName`` once durable).
    static let temporaryFileName = "encryption.tmp"
    /// The tag of its body (after the seal's 3).
    static let tag: UInt8 = 4
    /// Its envelope's version (of kind 6, the library's files).
    static let formatVersion: UInt8 = 3

    /// The key blob's key (`memosync/v1/keys/…`) in the store the library last synced with
    /// encrypted; nil when the file could not be read (the library is then still encrypted, and a
    /// store without a key blob is an error: ``EncryptionError/keyBlobMissing``).
    public var keyBlobKey: String?
    /// The key blob's bytes (a kind 8 blob); nil with ``keyBlobKey``.
    public var keyBlob: [UInt8]?

    /// A library's encryption with the key blob `keyBlob` stored under `keyBlobKey`.
    public init(keyBlobKey: String?, keyBlob: [UInt8]?) {
        self.keyBlobKey = keyBlobKey
        self.keyBlob = keyBlob
    }

    /// Whether it holds a key blob it can put back in a store that lost it.
    public var canRepublishKeyBlob: Bool { keyBlobKey != nil && keyBlob != nil }

    /// The key blob's generation, when it holds one.
    var generation: UInt32? { keyBlobKey.flatMap(KeyBlob.generation(ofKey:)) }

    /// The file's bytes: envelope kind 6 version 3, body: tag 4, lp-bytes key blob key (UTF-8),
    /// lp-bytes key blob (empty key and blob for an unknown key blob).
    public func encoded() -> [UInt8] {
        var body = ByteWriter(capacity: 200)
        body.byte(Self.tag)
        body.lengthPrefixed(Array((keyBlobKey ?? "").utf8))
        body.lengthPrefixed(keyBlob ?? [])
        return BlobEnvelope.seal(kind: .localFile, version: Self.formatVersion, body: body.bytes)
    }

    /// Decodes the file's bytes. A file that does not decode (damaged, torn, written by a newer
    /// MemoSync) still says the library is encrypted: it decodes to one without a key blob.
    public init(decoding bytes: [UInt8]) {
        do throws(DecodingError) {
            let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .localFile, versions: 3...Self.formatVersion)
            var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
            guard try reader.byte() == Self.tag else { throw .malformed("not a library encryption file") }
            let key = String(decoding: bytes[try reader.lengthPrefixedRange()], as: UTF8.self)
            let blob = Array(bytes[try reader.lengthPrefixedRange()])
            guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
            if KeyBlob.generation(ofKey: key) != nil, !blob.isEmpty {
                self.init(keyBlobKey: key, keyBlob: blob)
            } else {
                self.init(keyBlobKey: nil, keyBlob: nil)
            }
        } catch {
            self.init(keyBlobKey: nil, keyBlob: nil)
        }
    }

    /// The library's encryption as the files of its folder say: nil when it has no `encryption`
    /// file (plain).
    public static func read(from disk: any LibraryDisk) throws(DiskError) -> LibraryEncryption? {
        try disk.read(file: fileName).map(LibraryEncryption.init(decoding:))
    }

    /// The disk operations that make `encryption` the library's, durably: a temporary file,
    /// synced, renamed over the file, then the folder synced. A crash leaves the old file or the new.
    func savingOperations() -> [DiskOperation] {
        [
            .write(file: Self.temporaryFileName, bytes: encoded()), .sync(file: Self.temporaryFileName),
            .rename(from: Self.temporaryFileName, to: Self.fileName), .syncDirectory,
        ]
    }

    /// The disk operations that make a library plain again (``Replica/turnEncryptionOff()``).
    static var removingOperations: [DiskOperation] {
        [.delete(file: temporaryFileName), .delete(file: fileName), .syncDirectory]
    }
}
