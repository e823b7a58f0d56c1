import Foundation
import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// A "random" source that gives 0x33 bytes: for pinned bytes only.
struct FixedEncryptionRandom: EncryptionRandomSource {
    func bytes(_ count: Int) throws(EncryptionError) -> [UInt8] { Array(repeating: 0x33, count: count) }
}

/// The bytes of FORMAT.md's encrypted blob (kind 7) and key blob (kind 8), pinned against an
/// independent implementation of the document (Python's `cryptography`, `hashlib.scrypt` and a
/// bitwise CRC-32C), and every way a blob can be refused.
@Suite struct EncryptedBlobFormatTests {
    static let keyring = StoreKeyring(
        nameKey: Array(repeating: 0x11, count: 32),
        dataKeys: [StoreKeyring.DataKey(id: Array(1...8), key: Array(repeating: 0x22, count: 32))])
    static let plainKey = "memosync/v1/0123456789abcdef/segments/0000000000-0000000003-0123456789abcdef.seg"

    @Test func encryptedBlobBytesAreFORMATs() throws {
        let cipher = BlobCipher(keyring: Self.keyring, random: FixedEncryptionRandom())
        let stored = cipher.storedKey(forPlainKey: Self.plainKey)
        #expect(stored == "memosync/e1/0123456789abcdef/segments/0000000000-0000000003-8e71d225d31e6f6b.seg")
        #expect(cipher.plainKey(forStoredKey: stored) == Self.plainKey)
        let sealed = try cipher.seal(key: Self.plainKey, plain: Array("hello".utf8))
        #expect(sealed.count == 557)
        #expect(hexString(Array(sealed.prefix(40))) == "6d7371a40401020304050607083333333333333333333333338a203ff6bc7e83dfde9b472c57c4b1")
        #expect(hexString(try PlatformCrypto.sha256(sealed)) == "2677b65825501559d5d22c09521ba20859c37be29d2de0aa278e5327a66426d5")
        #expect(try cipher.open(key: Self.plainKey, bytes: sealed) == Array("hello".utf8))
    }

    @Test func keyBlobBytesAreFORMATs() throws {
        let derivation = KeyDerivation(log2N: 4, r: 1, p: 1, salt: Array(repeating: 0x44, count: 16))
        let wrapping = try derivation.deriveKey(passphrase: "correct horse")
        #expect(hexString(wrapping) == "514915be987b3839aa655b7141254dd1362b1bb27f4f6ab569284e2c518ace2a")
        let blob = try KeyBlob.seal(Self.keyring, generation: 1, derivation: derivation, wrappingKey: wrapping, random: FixedEncryptionRandom())
        #expect(hexString(blob.encoded) == "6d73817a010104010144444444444444444444444444444444333333333333333333333333bb542df05f0c6ab8a34249ec9b2d8834a03f1ff30321f0c260826a7ecef8ca7a93b0f254a817d3e1780a2769a20bc7295c130d3d6d905ae037f6c67b8c832cbf02ebbdf7bc149c4583bfb19e510fc1cca4f8822e53469f54f5c09e7b0b")
        // FORMAT.md's worked example is these bytes.
        #expect(try formatExamples()["key-blob"] == blob.encoded, "FORMAT.md's key-blob example is not what the encoder writes")
        let key = try KeyBlob.key(generation: 1, random: FixedEncryptionRandom())
        #expect(key == "memosync/v1/keys/0000000001-3333333333333333.key")
        let decoded = try KeyBlob(decoding: blob.encoded, key: key)
        #expect(decoded == blob)
        #expect(try decoded.openKeyring(wrappingKey: wrapping, key: key) == Self.keyring)
        // Another passphrase, a tampered byte, another generation's name, a newer version.
        let other = try derivation.deriveKey(passphrase: "correct horse.")
        #expect(throws: EncryptionError.wrongPassphrase) { try decoded.openKeyring(wrappingKey: other, key: key) }
        var flipped = decoded
        flipped.sealedKeyring[3] ^= 0x80
        #expect(throws: EncryptionError.wrongPassphrase) { try flipped.openKeyring(wrappingKey: wrapping, key: key) }
        var salted = decoded
        salted.derivation.salt[0] ^= 1
        #expect(throws: EncryptionError.wrongPassphrase) { try salted.openKeyring(wrappingKey: wrapping, key: key) }
        #expect(throws: EncryptionError.self) { try KeyBlob(decoding: blob.encoded, key: "memosync/v1/keys/0000000002-3333333333333333.key") }
        var newer = blob.encoded
        newer[2] = 8 << 4 | 2
        #expect(throws: EncryptionError.unknownKeyBlobVersion(key: key, version: 2)) { try KeyBlob(decoding: newer, key: key) }
        #expect(KeyBlob.newest(among: [key, "memosync/v1/keys/0000000002-0000000000000000.key", "memosync/v1/keys/junk"])
            == "memosync/v1/keys/0000000002-0000000000000000.key")
        // Two devices that raised the generation at once: within a generation the greatest key
        // wins, whatever order the listing gives (so every reader picks the same key blob); a
        // higher generation wins over any key of a lower one.
        let tied = ["memosync/v1/keys/0000000003-00000000000000ff.key", "memosync/v1/keys/0000000003-a000000000000000.key",
            "memosync/v1/keys/0000000003-0a00000000000000.key", "memosync/v1/keys/0000000002-ffffffffffffffff.key"]
        for rotation in 0..<tied.count {
            let listed = Array(tied[rotation...] + tied[..<rotation])
            #expect(KeyBlob.newest(among: listed) == "memosync/v1/keys/0000000003-a000000000000000.key", "\(listed)")
            #expect(KeyBlob.newest(among: listed.reversed()) == "memosync/v1/keys/0000000003-a000000000000000.key")
        }
        #expect(KeyBlob.newest(among: ["memosync/v1/keys/0000000010-0000000000000000.key", "memosync/v1/keys/0000000009-ffffffffffffffff.key"])
            == "memosync/v1/keys/0000000010-0000000000000000.key")
    }

    /// FORMAT.md, "Remembered store key": the ASCII bytes "msk1", `log2N`, `r`, `p` (one byte
    /// each), the 16-byte salt, the 32-byte wrapping key. The expected bytes are spelled out by
    /// hand from that layout (parameters chosen all different, so an order swapped shows).
    @Test func aRememberedKeyIsFORMATsLayout() {
        let key = RememberedStoreKey(
            derivation: KeyDerivation(log2N: 14, r: 8, p: 3, salt: Array(0xA0...0xAF)), wrappingKey: Array(0x40...0x5F))
        let expected =
            "6d736b31"  // "msk1"
            + "0e" + "08" + "03"  // log2N 14, r 8, p 3
            + "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"  // salt
            + "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"  // wrapping key
        #expect(hexString(key.encoded) == expected)
        #expect(key.encoded.count == 55)
        #expect(RememberedStoreKey(encoded: bytesFromHex(expected)) == key)
    }

    /// Every refusal FORMAT.md lists, in its order, and the names that still open.
    @Test func everyTamperingIsRefusedWithItsReason() throws {
        let cipher = BlobCipher(keyring: Self.keyring, random: SeededEncryptionRandom(seed: 5))
        let plain = Array("Groceries: milk".utf8)
        let sealed = try cipher.seal(key: Self.plainKey, plain: plain)
        func refusal(_ bytes: [UInt8], at key: String = Self.plainKey) -> BlobRefusal? {
            do throws(BlobRefusal) {
                _ = try cipher.open(key: key, bytes: bytes)
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal(sealed) == nil)
        // Plain bytes where an encrypted blob belongs.
        #expect(refusal(BlobEnvelope.seal(kind: .syncHead, version: 1, body: [0, 0, 0])) == .notEncrypted)
        #expect(refusal(plain) == .notEncrypted)
        // A newer version.
        #expect(refusal(BlobEnvelope.seal(kind: .encryptedBlob, version: 2, body: [1])) == .unknownVersion(2))
        // Truncated (an incomplete download), a flipped bit (the checksum catches it).
        if case .damaged? = refusal(Array(sealed.dropLast(7))) {} else { Issue.record("truncation not refused as damaged") }
        var flipped = sealed
        flipped[100] ^= 0x04
        if case .damaged? = refusal(flipped) {} else { Issue.record("a flipped bit not refused as damaged") }
        // A flipped bit with the checksum made valid again: the tag catches it.
        let body = Array(sealed[try BlobEnvelope.open(sealed, kind: .encryptedBlob, versions: 1...1).body])
        var forged = body
        forged[90] ^= 0x04
        #expect(refusal(BlobEnvelope.seal(kind: .encryptedBlob, version: 1, body: forged)) == .authenticationFailed)
        // Another data key id.
        var otherKey = body
        otherKey[0] ^= 0xFF
        #expect(refusal(BlobEnvelope.seal(kind: .encryptedBlob, version: 1, body: otherKey)) == .unknownDataKey(keyID: "fe02030405060708"))
        // Copied or renamed to another blob's name: another segment, another replica, a snapshot.
        for other in [
            "memosync/v1/0123456789abcdef/segments/0000000000-0000000004-0123456789abcdef.seg",
            "memosync/v1/0123456789abcdee/segments/0000000000-0000000003-0123456789abcdef.seg",
            "memosync/v1/0123456789abcdef/segments/0000000000-0000000003-0123456789abcdee.seg",
            "memosync/v1/0123456789abcdef/snapshots/000000000003-0123456789abcdef.snap",
        ] {
            #expect(refusal(sealed, at: other) == .authenticationFailed, "\(other)")
        }
        // A sync client's conflicted copy of it opens.
        #expect(refusal(sealed, at: Self.plainKey.replacingOccurrences(of: ".seg", with: " (Bob's conflicted copy 2026-01-02).seg")) == nil)
        // Truncated inside the ciphertext with the checksum made valid: the tag catches it.
        #expect(refusal(BlobEnvelope.seal(kind: .encryptedBlob, version: 1, body: Array(body.dropLast(1)))) == .authenticationFailed)
        #expect(refusal(BlobEnvelope.seal(kind: .encryptedBlob, version: 1, body: Array(body.prefix(20)))) == .malformed("shorter than its key id, nonce and tag"))
    }

    /// FORMAT.md's refusal table, last row: a padded plaintext whose length, zero padding or
    /// size bucket is wrong is `malformed`, whatever the tag said (a writer's bug, or a key
    /// holder forging): checked where the opened plaintext is unpadded.
    @Test func aPlaintextWithWrongPaddingIsMalformed() throws {
        let blob: [UInt8] = Array("a plain blob".utf8)
        var padded = [UInt8(blob.count)] + blob
        padded += [UInt8](repeating: 0, count: BlobCipher.paddedLength(padded.count) - padded.count)
        #expect(try BlobCipher.unpad(padded) == blob)
        var nonZero = padded
        nonZero[nonZero.count - 1] = 1
        #expect(throws: BlobRefusal.malformed("padding is not zeros")) { try BlobCipher.unpad(nonZero) }
        #expect(throws: BlobRefusal.malformed("padding is not the size bucket's")) { try BlobCipher.unpad(padded + [0]) }
        #expect(throws: BlobRefusal.self) { try BlobCipher.unpad([200] + blob) }  // a length past the end
    }

    @Test func paddingBucketsAreFORMATs() {
        #expect(BlobCipher.paddedLength(1) == 512)
        #expect(BlobCipher.paddedLength(512) == 512)
        #expect(BlobCipher.paddedLength(513) == 1024)
        #expect(BlobCipher.paddedLength(16 * 1024) == 16 * 1024)
        #expect(BlobCipher.paddedLength(16 * 1024 + 1) == 32 * 1024)
        #expect(BlobCipher.paddedLength(1_600_000) == 1_605_632)
    }

    /// Two seals of one blob differ (a fresh nonce each); both open.
    @Test func everySealTakesAFreshNonce() throws {
        let cipher = BlobCipher(keyring: Self.keyring, random: SeededEncryptionRandom(seed: 9))
        let first = try cipher.seal(key: Self.plainKey, plain: [1, 2, 3])
        let second = try cipher.seal(key: Self.plainKey, plain: [1, 2, 3])
        #expect(first != second)
        #expect(try cipher.open(key: Self.plainKey, bytes: first) == [1, 2, 3])
        #expect(try cipher.open(key: Self.plainKey, bytes: second) == [1, 2, 3])
    }
}
