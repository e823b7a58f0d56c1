import Foundation
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Known-answer tests of the platform primitives (through libcrypto here) and of the Swift scrypt.
@Suite struct EncryptionPrimitiveTests {
    /// RFC 8439, section 2.8.2: the AEAD_CHACHA20_POLY1305 example.
    @Test func chaCha20Poly1305MatchesRFC8439() throws {
        let key = Array(UInt8(0x80)...UInt8(0x9F))
        let nonce = bytesFromHex("070000004041424344454647")
        let aad = bytesFromHex("50515253c0c1c2c3c4c5c6c7")
        let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let expected = bytesFromHex(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
                + "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
                + "3ff4def08e4b7a9de576d26586cec64b6116" + "1ae10b594f09e26a7e902ecbd0600691")
        let sealed = try PlatformCrypto.seal(key: key, nonce: nonce, plaintext: plaintext, associatedData: aad)
        #expect(sealed == expected)
        #expect(try PlatformCrypto.open(key: key, nonce: nonce, sealed: sealed, associatedData: aad) == plaintext)
        // Any flipped bit, other associated data, another key or nonce: refused.
        for index in [0, 57, sealed.count - 1] {
            var flipped = sealed
            flipped[index] ^= 0x01
            #expect(try PlatformCrypto.open(key: key, nonce: nonce, sealed: flipped, associatedData: aad) == nil)
        }
        #expect(try PlatformCrypto.open(key: key, nonce: nonce, sealed: sealed, associatedData: aad + [0]) == nil)
        #expect(try PlatformCrypto.open(key: key.reversed(), nonce: nonce, sealed: sealed, associatedData: aad) == nil)
        #expect(try PlatformCrypto.open(key: key, nonce: nonce.reversed(), sealed: sealed, associatedData: aad) == nil)
        #expect(try PlatformCrypto.open(key: key, nonce: nonce, sealed: Array(sealed.prefix(15)), associatedData: aad) == nil)
        // Empty plaintext: just the tag.
        let empty = try PlatformCrypto.seal(key: key, nonce: nonce, plaintext: [], associatedData: [])
        #expect(empty.count == 16)
        #expect(try PlatformCrypto.open(key: key, nonce: nonce, sealed: empty, associatedData: []) == [])
    }

    /// FIPS 180 "abc", and RFC 4231 test case 2.
    @Test func sha256AndHMACMatchTheirStandards() throws {
        #expect(hexString(try PlatformCrypto.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let mac = try PlatformCrypto.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(hexString(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(try PlatformCrypto.hmacSHA256(key: [], message: []).count == 32)
    }

    @Test func randomBytesAreFreshEachTime() throws {
        let first = try PlatformCrypto.randomBytes(32)
        let second = try SystemEncryptionRandom().bytes(32)
        #expect(first.count == 32 && second.count == 32 && first != second)
        #expect(try PlatformCrypto.randomBytes(0) == [])
    }

    /// RFC 7914, section 11: PBKDF2-HMAC-SHA256 with one iteration.
    @Test func pbkdf2MatchesRFC7914() throws {
        let derived = try Scrypt.pbkdf2SHA256(password: Array("passwd".utf8), salt: Array("salt".utf8), length: 64)
        #expect(hexString(derived) == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    /// RFC 7914, section 12: the first three vectors (the fourth, n = 2^20, takes 1 GiB and many
    /// seconds in a debug build: `scryptMatchesRFC7914LargeVector`, opt-in).
    @Test func scryptMatchesRFC7914() throws {
        let vectors: [(String, String, Int, Int, Int, String)] = [
            ("", "", 4, 1, 1, "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"),
            ("password", "NaCl", 10, 8, 16, "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"),
            ("pleaseletmein", "SodiumChloride", 14, 8, 1, "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"),
        ]
        for (password, salt, log2N, r, p, expected) in vectors {
            let derived = try Scrypt.derive(passphrase: Array(password.utf8), salt: Array(salt.utf8), log2N: log2N, r: r, p: p, length: 64)
            #expect(hexString(derived) == expected, "scrypt(\(password), \(salt), 2^\(log2N), \(r), \(p))")
        }
    }

    /// RFC 7914's n = 2^20 vector: set MEMOSYNC_SCRYPT_LARGE=1 to run it (1 GiB of memory).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["MEMOSYNC_SCRYPT_LARGE"] == "1"))
    func scryptMatchesRFC7914LargeVector() throws {
        let derived = try Scrypt.derive(passphrase: Array("pleaseletmein".utf8), salt: Array("SodiumChloride".utf8), log2N: 20, r: 8, p: 1, length: 64, memoryLimitBytes: 1 << 30)
        #expect(hexString(derived) == "2101cb9b6a511aaeaddbbe09cf70f881ec568d574a2ffd4dabe5ee9820adaa478e56fd8f4ba5d09ffa1c6d927c40f4c337304049e8a952fbcbf45c6fa77a41a4")
    }

    @Test func scryptRefusesParametersBeyondItsLimits() {
        // Out of range, or more than 256 MiB (2^20 with r = 8 is RFC 7914's 1 GiB vector).
        for (log2N, r, p) in [(0, 8, 1), (23, 1, 1), (15, 0, 1), (15, 33, 1), (15, 8, 0), (15, 8, 17), (22, 32, 1), (20, 8, 1)] {
            #expect(throws: EncryptionError.self) {
                try Scrypt.derive(passphrase: [1], salt: [2], log2N: log2N, r: r, p: p, length: 32)
            }
        }
    }

    /// FORMAT.md, "Keys": "A reader refuses `log2N` outside 1...22, `r` outside 1...32, `p`
    /// outside 1...16, or more than 256 MiB of memory (`unacceptableParameters`)": a key blob
    /// with such parameters is refused as that (not as a damaged blob) when it is read, and
    /// derivation refuses them too; the largest it accepts is read.
    @Test func aKeyBlobsParametersOutOfRangeAreUnacceptable() throws {
        let key = try KeyBlob.key(generation: 1, random: SeededEncryptionRandom(seed: 3))
        func blob(_ log2N: Int, _ r: Int, _ p: Int) -> [UInt8] {
            let derivation = KeyDerivation(log2N: log2N, r: r, p: p, salt: [UInt8](repeating: 1, count: 16))
            return KeyBlob(generation: 1, derivation: derivation, nonce: [UInt8](repeating: 2, count: 12), sealedKeyring: [UInt8](repeating: 3, count: 120)).encoded
        }
        let refused = [(23, 8, 1), (0, 8, 1), (15, 33, 1), (15, 8, 17), (15, 1_000_000, 1), (15, 0, 1), (15, 8, 0), (22, 32, 1), (20, 8, 1)]
        for (log2N, r, p) in refused {
            do {
                _ = try KeyBlob(decoding: blob(log2N, r, p), key: key)
                Issue.record("read a key blob with log2N \(log2N), r \(r), p \(p)")
            } catch {
                guard case .unacceptableParameters = error else { Issue.record("log2N \(log2N), r \(r), p \(p): \(error)"); continue }
            }
            let derivation = KeyDerivation(log2N: log2N, r: r, p: p, salt: [UInt8](repeating: 1, count: 16))
            do {
                _ = try derivation.deriveKey(passphrase: "correct horse battery staple")
                Issue.record("derived a key with log2N \(log2N), r \(r), p \(p)")
            } catch {
                guard case .unacceptableParameters = error else { Issue.record("\(error)"); continue }
            }
        }
        // 2^21 × 128 × 1 = 256 MiB: the most a reader accepts.
        #expect(try KeyBlob(decoding: blob(21, 1, 16), key: key).derivation.log2N == 21)
    }

    /// "é" typed precomposed or as e + combining accent derives one key.
    @Test func passphrasesAreNormalizedBeforeDerivation() throws {
        let derivation = KeyDerivation(log2N: 4, r: 1, p: 1, salt: Array(repeating: 7, count: 16))
        #expect(try derivation.deriveKey(passphrase: "caf\u{E9}") == derivation.deriveKey(passphrase: "cafe\u{301}"))
        #expect(try derivation.deriveKey(passphrase: "cafe") != derivation.deriveKey(passphrase: "caf\u{E9}"))
    }
}
