// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for signing S3 requests (AWS Signature
// Version 4). Written once, here, behind two small functions, so that they can be replaced by the
// system crypto library without touching the signer. Tested against NIST's SHA-256 examples and
// RFC 4231's HMAC vectors (Tests/MemoSyncRemoteTests/CryptoTests.swift).
//
// Not constant-time and not meant for secrets beyond request signing, where the key is the
// caller's own and the inputs are public.

/// SHA-256 of a byte array.
enum SHA256 {
    /// The digest's size in bytes.
    static let digestBytes = 32
    /// The block size in bytes (HMAC pads keys to it).
    static let blockBytes = 64

    /// The 32-byte SHA-256 digest of `bytes`.
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var state = initialState
        var block = [UInt32](repeating: 0, count: 64)
        let fullBlocks = bytes.count / blockBytes
        bytes.withUnsafeBufferPointer { buffer in
            for index in 0..<fullBlocks {
                compress(&state, UnsafeBufferPointer(rebasing: buffer[index * blockBytes..<(index + 1) * blockBytes]), &block)
            }
        }
        // The tail: the remaining bytes, 0x80, zeros, and the length in bits (big-endian).
        var tail = Array(bytes[(fullBlocks * blockBytes)...])
        tail.append(0x80)
        while tail.count % blockBytes != blockBytes - 8 { tail.append(0) }
        let bitCount = UInt64(bytes.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        tail.withUnsafeBufferPointer { buffer in
            for index in 0..<(tail.count / blockBytes) {
                compress(&state, UnsafeBufferPointer(rebasing: buffer[index * blockBytes..<(index + 1) * blockBytes]), &block)
            }
        }
        var digest = [UInt8]()
        digest.reserveCapacity(digestBytes)
        for word in state {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// The digest of `bytes` as 64 lowercase hexadecimal digits.
    static func hexHash(_ bytes: [UInt8]) -> String { Hex.lowercase(hash(bytes)) }

    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// One 64-byte block into `state`; `schedule` is scratch space of 64 words.
    private static func compress(_ state: inout [UInt32], _ chunk: UnsafeBufferPointer<UInt8>, _ schedule: inout [UInt32]) {
        for index in 0..<16 {
            schedule[index] = UInt32(chunk[index * 4]) << 24 | UInt32(chunk[index * 4 + 1]) << 16
                | UInt32(chunk[index * 4 + 2]) << 8 | UInt32(chunk[index * 4 + 3])
        }
        for index in 16..<64 {
            let early = schedule[index - 15], late = schedule[index - 2]
            let sigma0 = rotate(early, 7) ^ rotate(early, 18) ^ (early >> 3)
            let sigma1 = rotate(late, 17) ^ rotate(late, 19) ^ (late >> 10)
            schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        for index in 0..<64 {
            let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ sum1 &+ choice &+ roundConstants[index] &+ schedule[index]
            let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = sum0 &+ majority
            h = g; g = f; f = e; e = d &+ temp1
            d = c; c = b; b = a; a = temp1 &+ temp2
        }
        state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
        state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}

/// HMAC-SHA-256 (RFC 2104).
enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > SHA256.blockBytes ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: SHA256.blockBytes - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256.hash(block.map { $0 ^ 0x5c } + inner)
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
