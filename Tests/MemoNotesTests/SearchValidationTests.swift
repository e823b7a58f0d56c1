import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// `SearchFolding.validatedKey` validates UTF-8 while folding, `SearchFolding.isValidUTF8`
/// without folding (a notebook checks every text it loads with it); both must accept exactly what
/// the standard library accepts, and the key must fold like `key(for:)`.
@Suite struct SearchValidationTests {
    @Test(arguments: testSeeds(10, salt: 0x7A11D))
    func agreesWithTheStandardLibrary(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<2_000 {
            var bytes: [UInt8]
            if random.chance(0.5) {
                // Valid text, perhaps damaged at one byte.
                bytes = Array(RandomText.string(random.int(in: 0...40), using: &random).utf8)
                // ASCII runs around it, for the validator's eight-bytes-at-a-time path.
                if random.chance(0.5) {
                    bytes = Array(repeating: 0x61, count: random.int(in: 0...20)) + bytes + Array(repeating: 0x62, count: random.int(in: 0...20))
                }
                if !bytes.isEmpty && random.chance(0.7) {
                    bytes[random.int(in: 0..<bytes.count)] = random.pick([0x80, 0xBF, 0xC0, 0xC1, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF, 0x41, UInt8(truncatingIfNeeded: random.next())])
                }
                if !bytes.isEmpty && random.chance(0.2) { bytes.removeLast(random.int(in: 1...min(3, bytes.count))) }
            } else {
                bytes = (0..<random.int(in: 0...24)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            let expected = String(validating: bytes, as: UTF8.self)
            let key = bytes.withUnsafeBufferPointer { SearchFolding.validatedKey(forUTF8: $0) }
            #expect((key != nil) == (expected != nil), "seed \(seed): \(bytes)")
            #expect(bytes.withUnsafeBufferPointer { SearchFolding.isValidUTF8($0) } == (expected != nil), "seed \(seed): \(bytes)")
            if let key, let expected {
                #expect(key == SearchFolding.key(for: expected), "seed \(seed)")
            }
        }
        // Surrogates, overlong forms and values past U+10FFFF, spelled out.
        for bad: [UInt8] in [[0xED, 0xA0, 0x80], [0xE0, 0x80, 0xAF], [0xC0, 0xAF], [0xF0, 0x80, 0x80, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            #expect(bad.withUnsafeBufferPointer { SearchFolding.validatedKey(forUTF8: $0) } == nil)
            #expect(!bad.withUnsafeBufferPointer { SearchFolding.isValidUTF8($0) })
            #expect(!(Array("abcdefghijklmnop".utf8) + bad).withUnsafeBufferPointer { SearchFolding.isValidUTF8($0) })
        }
    }
}
