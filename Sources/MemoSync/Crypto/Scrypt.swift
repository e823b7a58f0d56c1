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

    // The loops below run millions of times per derivation, and a debug build (the tests'),
    // which inlines nothing, took seconds for one: so they are written as an optimiser would
    // leave them, rotations inline, `while` loops and wrapping arithmetic (`&+`, `&<<`), which
    // call no generic code.

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
            var index = 0
            while index < words {
                x[index] ^= v[index]
                index &+= 1
            }
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
        var index = 0
        while index < 2 &* r {
            let chunk = input + index &* 16
            var word = 0
            while word < 16 {
                x[word] ^= chunk[word]
                word &+= 1
            }
            salsa20_8(x)
            let target = output + ((index & 1) &* r &+ index / 2) &* 16
            target.update(from: x, count: 16)
            index &+= 1
        }
    }

    /// The Salsa20/8 core, in place on 16 words.
    private static func salsa20_8(_ b: UnsafeMutablePointer<UInt32>) {
        var x0 = b[0], x1 = b[1], x2 = b[2], x3 = b[3], x4 = b[4], x5 = b[5], x6 = b[6], x7 = b[7]
        var x8 = b[8], x9 = b[9], x10 = b[10], x11 = b[11], x12 = b[12], x13 = b[13], x14 = b[14], x15 = b[15]
        var t: UInt32 = 0
        var round = 0
        while round < 4 {
            round &+= 1
            // Columns.
            t = x0 &+ x12; x4 ^= (t &<< 7) | (t &>> 25); t = x4 &+ x0; x8 ^= (t &<< 9) | (t &>> 23); t = x8 &+ x4; x12 ^= (t &<< 13) | (t &>> 19); t = x12 &+ x8; x0 ^= (t &<< 18) | (t &>> 14)
            t = x5 &+ x1; x9 ^= (t &<< 7) | (t &>> 25); t = x9 &+ x5; x13 ^= (t &<< 9) | (t &>> 23); t = x13 &+ x9; x1 ^= (t &<< 13) | (t &>> 19); t = x1 &+ x13; x5 ^= (t &<< 18) | (t &>> 14)
            t = x10 &+ x6; x14 ^= (t &<< 7) | (t &>> 25); t = x14 &+ x10; x2 ^= (t &<< 9) | (t &>> 23); t = x2 &+ x14; x6 ^= (t &<< 13) | (t &>> 19); t = x6 &+ x2; x10 ^= (t &<< 18) | (t &>> 14)
            t = x15 &+ x11; x3 ^= (t &<< 7) | (t &>> 25); t = x3 &+ x15; x7 ^= (t &<< 9) | (t &>> 23); t = x7 &+ x3; x11 ^= (t &<< 13) | (t &>> 19); t = x11 &+ x7; x15 ^= (t &<< 18) | (t &>> 14)
            // Rows.
            t = x0 &+ x3; x1 ^= (t &<< 7) | (t &>> 25); t = x1 &+ x0; x2 ^= (t &<< 9) | (t &>> 23); t = x2 &+ x1; x3 ^= (t &<< 13) | (t &>> 19); t = x3 &+ x2; x0 ^= (t &<< 18) | (t &>> 14)
            t = x5 &+ x4; x6 ^= (t &<< 7) | (t &>> 25); t = x6 &+ x5; x7 ^= (t &<< 9) | (t &>> 23); t = x7 &+ x6; x4 ^= (t &<< 13) | (t &>> 19); t = x4 &+ x7; x5 ^= (t &<< 18) | (t &>> 14)
            t = x10 &+ x9; x11 ^= (t &<< 7) | (t &>> 25); t = x11 &+ x10; x8 ^= (t &<< 9) | (t &>> 23); t = x8 &+ x11; x9 ^= (t &<< 13) | (t &>> 19); t = x9 &+ x8; x10 ^= (t &<< 18) | (t &>> 14)
            t = x15 &+ x14; x12 ^= (t &<< 7) | (t &>> 25); t = x12 &+ x15; x13 ^= (t &<< 9) | (t &>> 23); t = x13 &+ x12; x14 ^= (t &<< 13) | (t &>> 19); t = x14 &+ x13; x15 ^= (t &<< 18) | (t &>> 14)
        }
        b[0] &+= x0; b[1] &+= x1; b[2] &+= x2; b[3] &+= x3; b[4] &+= x4; b[5] &+= x5; b[6] &+= x6; b[7] &+= x7
        b[8] &+= x8; b[9] &+= x9; b[10] &+= x10; b[11] &+= x11; b[12] &+= x12; b[13] &+= x13; b[14] &+= x14; b[15] &+= x15
    }

    private static func littleEndianWord(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
