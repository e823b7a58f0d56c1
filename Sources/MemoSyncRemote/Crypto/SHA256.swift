// SHA-256 and HMAC-SHA-256 for signing S3 requests (AWS Signature Version 4), from the
// platform's library through MemoSync's `PlatformCrypto` (libcrypto on Linux, CryptoKit on Apple
// platforms): the package computes them in one place. Tested against NIST's SHA-256 examples and
// RFC 4231's HMAC vectors (Tests/MemoSyncRemoteTests/CryptoTests.swift).
//
// The platform calls can only fail when the library itself does (an allocation failure inside
// libcrypto); such a failure is a `BlobStoreError.io` for the request being signed, never a crash.
import MemoSync

/// SHA-256 of a byte array.
enum SHA256 {
    /// The 32-byte SHA-256 digest of `bytes`; `.io` when the platform's library fails.
    static func hash(_ bytes: [UInt8]) throws(BlobStoreError) -> [UInt8] {
        do {
            return try PlatformCrypto.sha256(bytes)
        } catch {
            throw .io(reason: "SHA-256 failed: \(error)")
        }
    }

    /// The digest of `bytes` as 64 lowercase hexadecimal digits.
    static func hexHash(_ bytes: [UInt8]) throws(BlobStoreError) -> String { Hex.lowercase(try hash(bytes)) }
}

/// HMAC-SHA-256 (RFC 2104).
enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`; `.io` when the platform's
    /// library fails.
    static func authenticationCode(key: [UInt8], message: [UInt8]) throws(BlobStoreError) -> [UInt8] {
        do {
            return try PlatformCrypto.hmacSHA256(key: key, message: message)
        } catch {
            throw .io(reason: "HMAC-SHA-256 failed: \(error)")
        }
    }
}

/// Hexadecimal text of bytes.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hexadecimal digits, two per byte.
    static func lowercase(_ bytes: [UInt8]) -> String {
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
