// The platform's cryptography, behind one small interface: CryptoKit on Apple platforms, the
// system's libcrypto (OpenSSL 3, through the `CLibCrypto` system library target) on Linux.
// Nothing here is a hand-written cipher: ChaCha20-Poly1305, SHA-256, HMAC-SHA256 and the system's
// random bytes all come from the platform. (scrypt, which CryptoKit lacks, is `Scrypt.swift`,
// built on this file's HMAC.)
//
// Why ChaCha20-Poly1305 rather than AES-256-GCM (FORMAT.md, "Encrypted blob"): both are in
// CryptoKit and libcrypto, both take a 256-bit key and a 96-bit nonce; ChaCha20 is constant-time
// in software on every CPU (no table lookups, no need for AES instructions, which older phones
// and small ARM boards lack), and its security margin with random nonces is the same as GCM's.
// Through libcrypto it runs well above the 1 GB/s target on this machine (BENCHMARKS.md).
#if canImport(CryptoKit)
import CryptoKit
import Foundation
#elseif canImport(CLibCrypto)
import CLibCrypto
#endif

/// The primitives encryption is built on, from the platform's library.
package enum PlatformCrypto {
    /// Key length of the AEAD, in bytes (256 bits).
    package static let keyBytes = 32
    /// Nonce length of the AEAD, in bytes (96 bits).
    package static let nonceBytes = 12
    /// Authentication tag length of the AEAD, in bytes (128 bits).
    package static let tagBytes = 16

    /// The name of the AEAD, for benchmarks and reports.
    package static let aeadName = "ChaCha20-Poly1305"

    /// The name of the library the primitives come from.
    package static var libraryName: String {
        #if canImport(CryptoKit)
        "CryptoKit"
        #else
        "libcrypto (\(String(cString: OpenSSL_version(OPENSSL_VERSION))))"
        #endif
    }

    /// ChaCha20-Poly1305 encryption of `plaintext`: the ciphertext followed by the 16-byte tag.
    /// `key` is 32 bytes, `nonce` 12.
    package static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], associatedData: [UInt8]) throws(EncryptionError) -> [UInt8] {
        precondition(key.count == keyBytes && nonce.count == nonceBytes, "AEAD key or nonce of the wrong length")
        #if canImport(CryptoKit)
        do {
            let box = try ChaChaPoly.seal(
                plaintext, using: SymmetricKey(data: key), nonce: ChaChaPoly.Nonce(data: nonce), authenticating: associatedData)
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .platform("ChaChaPoly.seal: \(error)")
        }
        #else
        guard let sealed = try LibCrypto.aead(encrypt: true, key: key, nonce: nonce, input: plaintext, associatedData: associatedData)
        else { throw .platform("EVP ChaCha20-Poly1305 encryption failed") }
        return sealed
        #endif
    }

    /// ChaCha20-Poly1305 decryption of `sealed` (ciphertext then tag); nil when the tag does not
    /// verify (wrong key, other associated data, any changed byte) or `sealed` is shorter than a tag.
    package static func open(key: [UInt8], nonce: [UInt8], sealed: [UInt8], associatedData: [UInt8]) throws(EncryptionError) -> [UInt8]? {
        precondition(key.count == keyBytes && nonce.count == nonceBytes, "AEAD key or nonce of the wrong length")
        guard sealed.count >= tagBytes else { return nil }
        #if canImport(CryptoKit)
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: sealed.dropLast(tagBytes), tag: sealed.suffix(tagBytes))
            return Array(try ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: associatedData))
        } catch {
            return nil
        }
        #else
        return try LibCrypto.aead(encrypt: false, key: key, nonce: nonce, input: sealed, associatedData: associatedData)
        #endif
    }

    /// SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: [UInt8]) throws(EncryptionError) -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(SHA256.hash(data: bytes))
        #else
        return try LibCrypto.sha256(bytes)
        #endif
    }

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) throws(EncryptionError) -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        #else
        return try LibCrypto.hmacSHA256(key: key, message: message)
        #endif
    }

    /// `count` bytes from the system's cryptographic random source.
    package static func randomBytes(_ count: Int) throws(EncryptionError) -> [UInt8] {
        #if canImport(CryptoKit)
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #else
        return try LibCrypto.randomBytes(count)
        #endif
    }
}

#if !canImport(CryptoKit) && canImport(CLibCrypto)
/// The libcrypto calls (long-standing ones: EVP_CIPHER_CTX, EVP_Digest, HMAC, RAND_bytes).
private enum LibCrypto {
    /// Encrypts (ciphertext then tag) or decrypts and verifies (nil when the tag is wrong).
    static func aead(encrypt: Bool, key: [UInt8], nonce: [UInt8], input: [UInt8], associatedData: [UInt8]) throws(EncryptionError) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { throw .platform("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        let tagBytes = PlatformCrypto.tagBytes
        let bodyCount = encrypt ? input.count : input.count - tagBytes
        var output = [UInt8](repeating: 0, count: bodyCount + (encrypt ? tagBytes : 0))
        let ok: Bool = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { inp in
                var length: Int32 = 0
                let start = encrypt
                    ? EVP_EncryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce)
                    : EVP_DecryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce)
                guard start == 1 else { return false }
                if !associatedData.isEmpty {
                    let added = encrypt
                        ? EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count))
                        : EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count))
                    guard added == 1 else { return false }
                }
                return encrypt
                    ? finishEncryption(context, out, inp, bodyCount)
                    : finishDecryption(context, out, inp, bodyCount)
            }
        }
        if !ok && encrypt { throw .platform("EVP ChaCha20-Poly1305 encryption failed") }
        return ok ? output : nil
    }

    private static func finishEncryption(
        _ context: OpaquePointer, _ out: UnsafeMutableBufferPointer<UInt8>, _ inp: UnsafeBufferPointer<UInt8>, _ count: Int
    ) -> Bool {
        var length: Int32 = 0
        var final: Int32 = 0
        guard chunked(count, { offset, size in
            EVP_EncryptUpdate(context, out.baseAddress! + offset, &length, inp.baseAddress! + offset, size) == 1
        }) else { return false }
        guard EVP_EncryptFinal_ex(context, out.baseAddress! + count, &final) == 1 else { return false }
        return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(PlatformCrypto.tagBytes), out.baseAddress! + count) == 1
    }

    private static func finishDecryption(
        _ context: OpaquePointer, _ out: UnsafeMutableBufferPointer<UInt8>, _ inp: UnsafeBufferPointer<UInt8>, _ count: Int
    ) -> Bool {
        var length: Int32 = 0
        var final: Int32 = 0
        guard chunked(count, { offset, size in
            EVP_DecryptUpdate(context, out.baseAddress.map { $0 + offset }, &length, inp.baseAddress! + offset, size) == 1
        }) else { return false }
        var tag = Array(inp[count...])
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(PlatformCrypto.tagBytes), &tag) == 1 else { return false }
        var scratch = [UInt8](repeating: 0, count: 64)
        return EVP_DecryptFinal_ex(context, &scratch, &final) == 1
    }

    /// Calls `body` over `count` bytes in pieces that fit an `Int32` length (ChaCha20 is a stream
    /// cipher: no output is held back between pieces).
    private static func chunked(_ count: Int, _ body: (Int, Int32) -> Bool) -> Bool {
        let piece = 1 << 30
        var offset = 0
        repeat {
            let size = min(piece, count - offset)
            if size > 0, !body(offset, Int32(size)) { return false }
            offset += size
        } while offset < count
        return true
    }

    static func sha256(_ bytes: [UInt8]) throws(EncryptionError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil) == 1, length == 32 else {
            throw .platform("EVP_Digest(SHA-256) failed")
        }
        return digest
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) throws(EncryptionError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // Never a null key pointer (an empty key is a valid HMAC key).
        let keyBytes = key.isEmpty ? [0] : key
        let result = HMAC(EVP_sha256(), keyBytes, Int32(key.count), message, message.count, &digest, &length)
        guard result != nil, length == 32 else { throw .platform("HMAC(SHA-256) failed") }
        return digest
    }

    static func randomBytes(_ count: Int) throws(EncryptionError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else { throw .platform("RAND_bytes failed") }
        return bytes
    }
}
#endif
