import MemoCRDT
import MemoSync

// Encrypted stores (issue 16): the encrypted blob reader (`BlobCipher.open`, envelope, key id,
// tag, padding) and the key blob reader (`KeyBlob(decoding:key:)`, then its keyring).

extension FuzzTarget {
    /// The plain key every fuzzed encrypted blob is opened under.
    static let fuzzPlainKey = "memosync/v1/0123456789abcdef/segments/0000000000-0000000003-0123456789abcdef.seg"
    /// The key name every fuzzed key blob is decoded under (generation 1).
    static let fuzzKeyBlobKey = "memosync/v1/keys/0000000001-0123456789abcdef.key"
    /// The fixed keyring and key-wrapping key of the fuzz world (no randomness: inputs replay).
    static let fuzzKeyring = StoreKeyring(
        nameKey: Array(repeating: 0x11, count: 32), dataKeys: [StoreKeyring.DataKey(id: Array(1...8), key: Array(repeating: 0x22, count: 32))])
    static let fuzzWrappingKey = [UInt8](repeating: 0x33, count: 32)
    static let fuzzCipher = BlobCipher(keyring: fuzzKeyring, random: FuzzFixedRandom())
    static let fuzzKeyBlob: KeyBlob = {
        let derivation = KeyDerivation(log2N: 4, r: 1, p: 1, salt: Array(repeating: 0x44, count: 16))
        return try! KeyBlob.seal(fuzzKeyring, generation: 1, derivation: derivation, wrappingKey: fuzzWrappingKey, random: FuzzFixedRandom())
    }()

    /// `blob`'s padded plaintext, as an encrypted blob holds it: its length, it, zeros to the bucket.
    static func padded(_ blob: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.varint(blob.count)
        writer.append(contentsOf: blob)
        return writer.bytes + [UInt8](repeating: 0, count: BlobCipher.paddedLength(writer.count) - writer.count)
    }

    /// Whatever opens reseals and opens to the same plain blob, no larger than the input.
    static func checkEncryptedBlob(_ input: FuzzInput) throws(FuzzFailure) {
        let bytes: [UInt8]
        if input.mode == .sealed {
            // The payload as the plaintext, sealed under the fuzz key: reaches the padding reader.
            guard let sealed = try? PlatformCrypto.seal(
                key: fuzzKeyring.current.key, nonce: Array(repeating: 0x33, count: 12), plaintext: input.payload,
                associatedData: Array("memosync encrypted blob v1".utf8) + [0] + fuzzKeyring.current.id + Array(fuzzPlainKey.utf8))
            else { return }
            bytes = BlobEnvelope.seal(kind: .encryptedBlob, version: input.version, body: fuzzKeyring.current.id + Array(repeating: 0x33, count: 12) + sealed)
        } else {
            bytes = input.blob(kind: .encryptedBlob)
        }
        guard let plain = try? fuzzCipher.open(key: fuzzPlainKey, bytes: bytes) else { return }
        try require(plain.count <= bytes.count, "an encrypted blob of \(bytes.count) bytes opened to \(plain.count)")
        let again = fuzzCipher.sealForFuzzing(plain)
        try require((try? fuzzCipher.open(key: fuzzPlainKey, bytes: again)) == plain, "a resealed blob does not open to itself", check: .roundTrip)
        try require((try? fuzzCipher.open(key: fuzzPlainKey.replacingOccurrences(of: "-0000000003-", with: "-0000000004-"), bytes: bytes)) == nil,
                    "an encrypted blob opened under another name")
    }

    /// A decoded key blob encodes to the same bytes; opening its keyring never traps.
    static func checkKeyBlob(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let blob = try? KeyBlob(decoding: bytes, key: fuzzKeyBlobKey) else { return }
        try require(blob.encoded == bytes, "a key blob does not encode to the bytes it was decoded from", check: .roundTrip)
        if let keyring = try? blob.openKeyring(wrappingKey: fuzzWrappingKey, key: fuzzKeyBlobKey) {
            try require(!keyring.dataKeys.isEmpty && keyring.dataKeys.count <= KeyBlob.maxDataKeys, "a keyring of \(keyring.dataKeys.count) data keys")
        }
    }
}

extension BlobCipher {
    /// Seals `plain` under the fuzz plain key (the fixed random source never fails).
    func sealForFuzzing(_ plain: [UInt8]) -> [UInt8] {
        (try? seal(key: FuzzTarget.fuzzPlainKey, plain: plain)) ?? []
    }
}

/// Random bytes that are all 0x33: the fuzz world must replay exactly.
struct FuzzFixedRandom: EncryptionRandomSource {
    func bytes(_ count: Int) throws(EncryptionError) -> [UInt8] { Array(repeating: 0x33, count: count) }
}
