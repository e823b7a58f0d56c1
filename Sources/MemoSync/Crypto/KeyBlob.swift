import MemoCRDT

extension BlobKind {
    /// A blob encrypted under a store's data key (FORMAT.md, "Encrypted blob").
    public static let encryptedBlob = BlobKind(rawValue: 7, name: "encrypted blob")
    /// A store's key blob: its data keys, wrapped under a passphrase-derived key (FORMAT.md, "Key blob").
    public static let keyBlob = BlobKind(rawValue: 8, name: "key blob")
}

/// How a passphrase becomes the key that wraps a store's data keys: scrypt's parameters and salt.
/// Stored in the key blob, so that they can be raised later.
public struct KeyDerivation: Sendable, Equatable, Hashable {
    /// log2 of scrypt's cost n.
    public var log2N: Int
    /// scrypt's block size factor.
    public var r: Int
    /// scrypt's parallelization factor.
    public var p: Int
    /// 16 random bytes.
    public var salt: [UInt8]

    /// MemoSync's default cost: n = 2^15, r = 8, p = 1 (32 MiB, tens of milliseconds in a release build).
    public static let defaultLog2N = 15

    /// Parameters with a salt.
    public init(log2N: Int = KeyDerivation.defaultLog2N, r: Int = 8, p: Int = 1, salt: [UInt8]) {
        self.log2N = log2N
        self.r = r
        self.p = p
        self.salt = salt
    }

    /// The 32-byte key derived from `passphrase` (its UTF-8 bytes after Unicode canonical
    /// composition, so that every keyboard's form of "é" gives one key).
    public func deriveKey(passphrase: String) throws(EncryptionError) -> [UInt8] {
        try Scrypt.derive(passphrase: Self.passphraseBytes(passphrase), salt: salt, log2N: log2N, r: r, p: p, length: 32)
    }

    /// The bytes of `passphrase` scrypt takes: NFC, UTF-8.
    package static func passphraseBytes(_ passphrase: String) -> [UInt8] {
        Array(passphrase.precomposedForKeyDerivation.utf8)
    }
}

/// A store's keys, as its key blob holds them once unwrapped: the name key (masks content hashes
/// in blob names) and the data keys (the last is current: new blobs use it; the others still
/// open the blobs written under them).
package struct StoreKeyring: Sendable, Equatable {
    package struct DataKey: Sendable, Equatable {
        /// 8 random bytes naming the key in every blob encrypted under it.
        package var id: [UInt8]
        /// 32 bytes.
        package var key: [UInt8]

        package init(id: [UInt8], key: [UInt8]) {
            self.id = id
            self.key = key
        }
    }

    package var nameKey: [UInt8]
    package var dataKeys: [DataKey]

    package init(nameKey: [UInt8], dataKeys: [DataKey]) {
        self.nameKey = nameKey
        self.dataKeys = dataKeys
    }

    package var current: DataKey { dataKeys[dataKeys.count - 1] }

    package func dataKey(id: ArraySlice<UInt8>) -> DataKey? {
        dataKeys.first { $0.id.elementsEqual(id) }
    }

    /// A keyring with a fresh name key and one fresh data key.
    package static func fresh(random: any EncryptionRandomSource) throws(EncryptionError) -> StoreKeyring {
        StoreKeyring(nameKey: try random.bytes(32), dataKeys: [DataKey(id: try random.bytes(8), key: try random.bytes(32))])
    }

    /// This keyring with a fresh data key appended (the new current one).
    package func rotated(random: any EncryptionRandomSource) throws(EncryptionError) -> StoreKeyring {
        var rotated = self
        rotated.dataKeys.append(DataKey(id: try random.bytes(8), key: try random.bytes(32)))
        return rotated
    }
}

/// A store's key blob (FORMAT.md, "Key blob, version 1 (kind 8)"): the keyring, sealed under the
/// passphrase-derived key, with the derivation's parameters in the clear.
package struct KeyBlob: Sendable, Equatable {
    /// Every key blob's key starts with this.
    package static let prefix = StoreLayout.root + "keys/"
    /// The most data keys one keyring holds (each rotation adds one).
    package static let maxDataKeys = 255

    /// Raised by each passphrase change and data key rotation; readers use the highest.
    package var generation: UInt32
    package var derivation: KeyDerivation
    package var nonce: [UInt8]
    /// The sealed keyring (ciphertext and tag).
    package var sealedKeyring: [UInt8]

    package init(generation: UInt32, derivation: KeyDerivation, nonce: [UInt8], sealedKeyring: [UInt8]) {
        self.generation = generation
        self.derivation = derivation
        self.nonce = nonce
        self.sealedKeyring = sealedKeyring
    }

    /// The key this blob is stored under: generation (10 digits) and 16 random hex digits, so
    /// two devices raising the generation at once never write one name.
    package static func key(generation: UInt32, random: any EncryptionRandomSource) throws(EncryptionError) -> String {
        let digits = String(generation)
        let suffix = try random.bytes(8).map { byte in String(byte, radix: 16).leftPadded(2) }.joined()
        return prefix + String(repeating: "0", count: 10 - digits.count) + digits + "-" + suffix + ".key"
    }

    /// The generation a key blob's name says, or nil when `key` is not a key blob's name.
    package static func generation(ofKey key: String) -> UInt32? {
        guard key.hasPrefixBytes(prefix) else { return nil }
        let name = Array(key.utf8.dropFirst(prefix.utf8.count))
        guard name.count >= 31, name[10] == UInt8(ascii: "-"), name[0..<10].allSatisfy({ (48...57).contains($0) }),
            name[11..<27].allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
            String(decoding: name[27...], as: UTF8.self) == ".key"
        else { return nil }
        return UInt32(String(decoding: name[0..<10], as: UTF8.self))
    }

    /// The newest key blob among listed keys: highest generation, then greatest name.
    package static func newest(among keys: [String]) -> String? {
        keys.compactMap { key in generation(ofKey: key).map { ($0, key) } }.max { ($0.0, $0.1) < ($1.0, $1.1) }?.1
    }

    /// Seals `keyring` under `wrappingKey` (derived from the passphrase with `derivation`).
    package static func seal(
        _ keyring: StoreKeyring, generation: UInt32, derivation: KeyDerivation, wrappingKey: [UInt8],
        random: any EncryptionRandomSource
    ) throws(EncryptionError) -> KeyBlob {
        var blob = KeyBlob(generation: generation, derivation: derivation, nonce: try random.bytes(PlatformCrypto.nonceBytes), sealedKeyring: [])
        var plain = ByteWriter()
        plain.append(contentsOf: keyring.nameKey)
        plain.varint(keyring.dataKeys.count)
        for dataKey in keyring.dataKeys {
            plain.append(contentsOf: dataKey.id)
            plain.append(contentsOf: dataKey.key)
        }
        blob.sealedKeyring = try PlatformCrypto.seal(
            key: wrappingKey, nonce: blob.nonce, plaintext: plain.bytes, associatedData: blob.associatedData)
        return blob
    }

    /// The keyring, or ``EncryptionError/wrongPassphrase`` when `wrappingKey` does not open it.
    package func openKeyring(wrappingKey: [UInt8], key: String) throws(EncryptionError) -> StoreKeyring {
        guard let plain = try PlatformCrypto.open(key: wrappingKey, nonce: nonce, sealed: sealedKeyring, associatedData: associatedData)
        else { throw .wrongPassphrase }
        do throws(DecodingError) {
            var reader = ByteReader(plain)
            let nameKey = Array(plain[try reader.range(count: 32)])
            let count = try reader.count(max: Self.maxDataKeys, "data keys")
            guard count > 0 else { throw .malformed("no data key") }
            var dataKeys: [StoreKeyring.DataKey] = []
            for _ in 0..<count {
                let id = Array(plain[try reader.range(count: 8)])
                dataKeys.append(StoreKeyring.DataKey(id: id, key: Array(plain[try reader.range(count: 32)])))
            }
            guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
            return StoreKeyring(nameKey: nameKey, dataKeys: dataKeys)
        } catch {
            throw .damagedKeyBlob(key: key, reason: "its keyring: \(error)")
        }
    }

    /// Every byte of the body before the nonce, after a context string: bound to the keyring.
    private var associatedData: [UInt8] {
        Array("memosync key blob v1".utf8) + [0] + headerBytes
    }

    private var headerBytes: [UInt8] {
        var writer = ByteWriter()
        writer.varint(generation)
        writer.byte(1)  // KDF: scrypt
        writer.byte(UInt8(derivation.log2N))
        writer.varint(derivation.r)
        writer.varint(derivation.p)
        writer.append(contentsOf: derivation.salt)
        return writer.bytes
    }

    /// The blob's bytes: the envelope (kind 8, version 1) around the header, nonce and sealed keyring.
    package var encoded: [UInt8] {
        BlobEnvelope.seal(kind: .keyBlob, version: 1, body: headerBytes + nonce + sealedKeyring)
    }

    /// Decodes the key blob stored under `key`, checking that its generation is the one its name says.
    package init(decoding bytes: [UInt8], key: String) throws(EncryptionError) {
        do throws(DecodingError) {
            let (body, _) = try BlobEnvelope.open(bytes, kind: .keyBlob, versions: 1...1)
            var reader = ByteReader(bytes, from: body.lowerBound, to: body.upperBound)
            generation = try reader.uint32Varint("generation")
            guard try reader.byte() == 1 else { throw .malformed("unknown key derivation function") }
            // Read as written, then refused below as `unacceptableParameters` when out of
            // scrypt's ranges (FORMAT.md, "Keys"): a decoded key blob always holds parameters
            // scrypt accepts (the remembered key stores each in one byte).
            let log2N = Int(try reader.byte())
            let r = try reader.count(max: Int(UInt32.max), "scrypt r")
            let p = try reader.count(max: Int(UInt32.max), "scrypt p")
            let salt = Array(bytes[try reader.range(count: 16)])
            derivation = KeyDerivation(log2N: log2N, r: r, p: p, salt: salt)
            nonce = Array(bytes[try reader.range(count: PlatformCrypto.nonceBytes)])
            guard reader.remaining >= PlatformCrypto.tagBytes + 32 + 1 + 40 else { throw .malformed("sealed keyring too short") }
            sealedKeyring = Array(bytes[try reader.range(count: reader.remaining)])
        } catch let .unsupportedVersion(_, version) {
            throw .unknownKeyBlobVersion(key: key, version: version)
        } catch {
            throw .damagedKeyBlob(key: key, reason: error.description)
        }
        guard Self.generation(ofKey: key) == generation else {
            throw .damagedKeyBlob(key: key, reason: "its generation \(generation) is not the one its name says")
        }
        let (log2N, r, p) = (derivation.log2N, derivation.r, derivation.p)
        guard (1...Scrypt.maxLog2N).contains(log2N), (1...Scrypt.maxR).contains(r), (1...Scrypt.maxP).contains(p),
            128 * r << log2N <= Scrypt.maxMemoryBytes
        else { throw .unacceptableParameters("scrypt log2N=\(log2N) r=\(r) p=\(p)") }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
