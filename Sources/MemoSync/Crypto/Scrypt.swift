/// scrypt (RFC 7914), the passphrase-based key derivation: memory-hard, so guessing passphrases
/// costs memory as well as time. Written here once for every platform (CryptoKit has no scrypt),
/// on the platform's HMAC-SHA256 (PBKDF2). Tested against RFC 7914's vectors.
///
/// Costs: `128 · r · n` bytes of memory and about `2 · n · r` Salsa20/8 block operations per
/// parallel lane (`p`). MemoSync's default (n = 2^15, r = 8, p = 1) takes 32 MiB.
package enum Scrypt {
    /// Parameters the derivation accepts: what a key blob may ask for (a damaged or hostile one
    /// must not make a device allocate gigabytes or loop for hours).
    package static let maxLog2N = 22
    package static let maxR = 32
    package static let maxP = 16
    /// The most memory one derivation may use, in bytes (256 MiB: eight times the default, and
    /// little enough for a phone; RFC 7914's largest vector, 1 GiB, passes its own limit).
    package static let maxMemoryBytes = 1 << 28

    /// The key derived from `passphrase` and `salt`: `length` bytes.
    ///
    /// - Parameters:
    ///   - log2N: log2 of the CPU/memory cost `n` (1...``maxLog2N``).
    ///   - r: block size factor (1...``maxR``).
    ///   - p: parallelization factor (1...``maxP``).
    ///   - memoryLimitBytes: the most memory it may take (``maxMemoryBytes`` unless a test says).
    package static func derive(
        passphrase: [UInt8], salt: [UInt8], log2N: Int, r: Int, p: Int, length: Int, memoryLimitBytes: Int = maxMemoryBytes
    ) throws(EncryptionError) -> [UInt8] {
        guard (1...maxLog2N).contains(log2N), (1...maxR).contains(r), (1...maxP).contains(p), length > 0,
            128 * r << log2N <= memoryLimitBytes
        else { throw .unacceptableParameters("scrypt log2N=\(log2N) r=\(r) p=\(p)") }
        let blockBytes = 128 * r
        var lanes = try pbkdf2SHA256(password: passphrase, salt: salt, length: p * blockBytes)
        var words = [UInt32](repeating: 0, count: p * blockBytes / 4)
        for index in words.indices { words[index] = littleEndianWord(lanes, at: 4 * index) }
        var scratch = [UInt32](repeating: 0, count: (1 << log2N) * 32 * r + 64 * r + 16)
        words.withUnsafeMutableBufferPointer { all in
            scratch.withUnsafeMutableBufferPointer { memory in
                for lane in 0..<p {
                    roMix(all.baseAddress! + lane * 32 * r, r: r, n: 1 << log2N, memory: memory.baseAddress!)
                }
            }
        }
        for (index, word) in words.enumerated() {
            for byte in 0..<4 { lanes[4 * index + byte] = UInt8(truncatingIfNeeded: word >> (8 * byte)) }
        }
        return try pbkdf2SHA256(password: passphrase, salt: lanes, length: length)
    }

    /// PBKDF2-HMAC-SHA256 with one iteration per block (what scrypt uses; RFC 8018).
    package static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], length: Int, iterations: Int = 1) throws(EncryptionError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(length + 32)
        var blockIndex: UInt32 = 1
        while output.count < length {
            let counter: [UInt8] = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: blockIndex >> $0) }
            var u = try PlatformCrypto.hmacSHA256(key: password, message: salt + counter)
            var t = u
            for _ in 1..<max(1, iterations) {
                u = try PlatformCrypto.hmacSHA256(key: password, message: u)
                for index in 0..<32 { t[index] ^= u[index] }
            }
            output += t
            blockIndex += 1
        }
        return Array(output.prefix(length))
    }

    /// ROMix on the block at `block` (32·r words), with `memory` for n blocks, two more and 16 words.
    private static func roMix(_ block: UnsafeMutablePointer<UInt32>, r: Int, n: Int, memory: UnsafeMutablePointer<UInt32>) {
        let words = 32 * r
        let x = memory + n * words
        let y = x + words
        let state = y + words
        x.update(from: block, count: words)
        for index in 0..<n {
            (memory + index * words).update(from: x, count: words)
            blockMix(x, into: y, r: r, state: state)
            x.update(from: y, count: words)
        }
        for _ in 0..<n {
            let j = Int(x[words - 16]) & (n - 1)
            let v = memory + j * words
            for index in 0..<words { x[index] ^= v[index] }
            blockMix(x, into: y, r: r, state: state)
            x.update(from: y, count: words)
        }
        block.update(from: x, count: words)
    }

    /// BlockMix with Salsa20/8: `output` gets the even 64-byte results first, then the odd ones.
    private static func blockMix(
        _ input: UnsafeMutablePointer<UInt32>, into output: UnsafeMutablePointer<UInt32>, r: Int, state x: UnsafeMutablePointer<UInt32>
    ) {
        x.update(from: input + (2 * r - 1) * 16, count: 16)
        for index in 0..<(2 * r) {
            let chunk = input + index * 16
            for word in 0..<16 { x[word] ^= chunk[word] }
            salsa20_8(x)
            let target = output + ((index & 1) * r + index / 2) * 16
            target.update(from: x, count: 16)
        }
    }

    /// The Salsa20/8 core, in place on 16 words.
    private static func salsa20_8(_ b: UnsafeMutablePointer<UInt32>) {
        var x0 = b[0], x1 = b[1], x2 = b[2], x3 = b[3], x4 = b[4], x5 = b[5], x6 = b[6], x7 = b[7]
        var x8 = b[8], x9 = b[9], x10 = b[10], x11 = b[11], x12 = b[12], x13 = b[13], x14 = b[14], x15 = b[15]
        for _ in 0..<4 {
            // Columns.
            x4 ^= rotl(x0 &+ x12, 7); x8 ^= rotl(x4 &+ x0, 9); x12 ^= rotl(x8 &+ x4, 13); x0 ^= rotl(x12 &+ x8, 18)
            x9 ^= rotl(x5 &+ x1, 7); x13 ^= rotl(x9 &+ x5, 9); x1 ^= rotl(x13 &+ x9, 13); x5 ^= rotl(x1 &+ x13, 18)
            x14 ^= rotl(x10 &+ x6, 7); x2 ^= rotl(x14 &+ x10, 9); x6 ^= rotl(x2 &+ x14, 13); x10 ^= rotl(x6 &+ x2, 18)
            x3 ^= rotl(x15 &+ x11, 7); x7 ^= rotl(x3 &+ x15, 9); x11 ^= rotl(x7 &+ x3, 13); x15 ^= rotl(x11 &+ x7, 18)
            // Rows.
            x1 ^= rotl(x0 &+ x3, 7); x2 ^= rotl(x1 &+ x0, 9); x3 ^= rotl(x2 &+ x1, 13); x0 ^= rotl(x3 &+ x2, 18)
            x6 ^= rotl(x5 &+ x4, 7); x7 ^= rotl(x6 &+ x5, 9); x4 ^= rotl(x7 &+ x6, 13); x5 ^= rotl(x4 &+ x7, 18)
            x11 ^= rotl(x10 &+ x9, 7); x8 ^= rotl(x11 &+ x10, 9); x9 ^= rotl(x8 &+ x11, 13); x10 ^= rotl(x9 &+ x8, 18)
            x12 ^= rotl(x15 &+ x14, 7); x13 ^= rotl(x12 &+ x15, 9); x14 ^= rotl(x13 &+ x12, 13); x15 ^= rotl(x14 &+ x13, 18)
        }
        b[0] &+= x0; b[1] &+= x1; b[2] &+= x2; b[3] &+= x3; b[4] &+= x4; b[5] &+= x5; b[6] &+= x6; b[7] &+= x7
        b[8] &+= x8; b[9] &+= x9; b[10] &+= x10; b[11] &+= x11; b[12] &+= x12; b[13] &+= x13; b[14] &+= x14; b[15] &+= x15
    }

    @inline(__always)
    private static func rotl(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }

    private static func littleEndianWord(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
