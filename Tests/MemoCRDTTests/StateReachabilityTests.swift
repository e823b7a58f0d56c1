@testable import MemoCRDT
import TestSupport
import Testing

/// A text state is accepted only if it is what its own history gives a replica that starts
/// empty (issue 25, FORMAT.md "What a reader checks").
@Suite struct StateReachabilityTests {
    /// Issue 25's text state (114 bytes, valid checksum): an item whose left origin is the start
    /// and whose right origin lies before it. It decoded to "ΩloéHe   oa\\0ld&" while a new replica
    /// given its history got "ΩloéHed&   oa\\0l" at the same version; now it is refused.
    /// (Also `Tests/Fixtures/fuzz/text-state/issue25-state-disagrees-with-its-history.hex`.)
    @Test func issue25TextStateIsRefused() {
        let bytes = bytesFromHex("6d73126a12cea96c6f65cc8148652020206f61006c6426030a000000000000000b020000000000000c0200000000000013041311590100000d2b01001326180901000f030f021213020d1303000901030208030100010d03020c000603030004000a2901020d0801220d00000204c2b9888c")
        #expect(throws: DecodingError.self) { try TextCRDT(decoding: bytes, replica: ReplicaID(0xE1)) }
        do {
            _ = try TextCRDT(decoding: bytes, replica: ReplicaID(0xE1))
        } catch {
            guard case .malformed = error else {
                Issue.record("expected a malformed state, got \(error)")
                return
            }
        }
        // The text section alone is still readable (it is only the text, as documented).
        #expect(throws: Never.self) { try TextCRDT.decodeString(fromEncoded: bytes) }
    }

    /// Honest states, concurrent edits of several replicas merged: each decodes, and what it
    /// decodes to is what its history gives a new replica, byte for byte.
    /// Seeded: a failure names its seed; rerun one with `MEMOSYNC_SEED=<seed>`.
    @Test(arguments: testSeeds(3, salt: 0x25))
    func honestConcurrentStatesDecode(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var decodedCount = 0
        for round in 0..<40 {
            var texts = (0..<3).map { TextCRDT(replica: ReplicaID(UInt64(0x100 + $0))) }
            for _ in 0..<30 {
                let index = random.int(in: 0..<3)
                let length = texts[index].string.unicodeScalars.count
                if length > 0 && random.int(in: 0..<3) == 0 {
                    let start = random.int(in: 0..<length)
                    try texts[index].delete(scalarRange: start..<min(length, start + random.int(in: 1..<4)))
                } else {
                    try texts[index].insert(["a", "é", "😀", "b c"][random.int(in: 0..<4)], atScalar: random.int(in: 0..<length + 1))
                }
                if random.int(in: 0..<4) == 0 {
                    let other = random.int(in: 0..<3)
                    try texts[other].merge(texts[index])
                }
            }
            for text in texts {
                let encoded = text.encoded()
                let decoded = try TextCRDT(decoding: encoded, replica: ReplicaID(0xE1))
                #expect(decoded.string == text.string, "seed \(seed), round \(round)")
                #expect(decoded.encoded() == encoded, "seed \(seed), round \(round)")
                decodedCount += 1
            }
        }
        #expect(decodedCount == 120)
    }

    /// `SharedTextDecodes`: a body decoded once is kept byte for byte, and decoding it again
    /// gives the same text; a body that fails is never kept (so it fails every time); a body
    /// differing in one byte is not taken for a kept one; the bytes kept stay within the limit.
    @Test func bodiesThatPassedAreRememberedByteForByteOnly() throws {
        var random = SeededRandom(seed: 0x7B0D)
        var encodings: [[UInt8]] = []
        for _ in 0..<20 {
            var texts = (0..<3).map { TextCRDT(replica: ReplicaID(UInt64(0x200 + $0))) }
            for step in 0..<24 {
                let index = step % 3
                try texts[index].insert(["a", "é", "😀"][random.int(in: 0..<3)], atScalar: random.int(in: 0..<texts[index].string.unicodeScalars.count + 1))
                if random.int(in: 0..<3) == 0 { try texts[(index + 1) % 3].merge(texts[index]) }
            }
            encodings.append(texts[0].encoded())
        }
        let checks = SharedTextDecodes()
        try SharedTextDecodes.$current.withValue(checks) {
            for encoded in encodings {
                let first = try TextCRDT(decoding: encoded, replica: ReplicaID(0xE1))
                let again = try TextCRDT(decoding: encoded, replica: ReplicaID(0xE2))
                #expect(first.string == again.string && first.version == again.version && TextCRDT.sameItemsInOrder(first, again))
                #expect(again.encoded() == encoded)
            }
        }
        #expect(checks.count > 0, "every body decoded is kept")
        #expect(checks.hits >= checks.count, "every kept body was found again by its second decode")

        let bad = bytesFromHex("6d73126a12cea96c6f65cc8148652020206f61006c6426030a000000000000000b020000000000000c0200000000000013041311590100000d2b01001326180901000f030f021213020d1303000901030208030100010d03020c000603030004000a2901020d0801220d00000204c2b9888c")
        let remembered = checks.count
        SharedTextDecodes.$current.withValue(checks) {
            for _ in 0..<2 {
                #expect(throws: DecodingError.self) { try TextCRDT(decoding: bad, replica: ReplicaID(0xE1)) }
            }
        }
        #expect(checks.count == remembered, "a body that failed is never remembered")

        // The bytes compared, not only their hash.
        let body = Array(encodings[0].dropFirst(8))
        let text = TextCRDT(replica: ReplicaID(0xE3))
        checks.keep(text, body, range: body.indices, historyChecked: true)
        var changed = body
        changed[changed.count / 2] ^= 0x01
        #expect(checks.text(body, range: body.indices, needsHistoryChecked: true) != nil)
        #expect(checks.text(changed, range: changed.indices, needsHistoryChecked: true) == nil)

        let small = SharedTextDecodes(bytesMax: 3 * body.count)
        for offset in 0..<10 {
            var other = body
            other[0] = UInt8(offset)
            small.keep(text, other, range: other.indices, historyChecked: true)
        }
        #expect(small.count == 3)
        #expect(small.text({ var last = body; last[0] = 9; return last }(), range: body.indices, needsHistoryChecked: true) != nil)
        #expect(small.text({ var first = body; first[0] = 0; return first }(), range: body.indices, needsHistoryChecked: true) == nil)
    }

    /// `SharedTextDecodes`: a body decoded once is taken for any replica, and what it gives is
    /// what decoding the body for that replica gives: the same replica table (the local replica
    /// last when the body holds nothing of it), the same items, bytes and local edits after.
    @Test func sharedDecodesGiveWhatADecodeForThatReplicaGives() throws {
        var alice = TextCRDT(replica: ReplicaID(0x10))
        var bob = TextCRDT(replica: ReplicaID(0x20))
        try alice.insert("hello", atScalar: 0)
        try bob.merge(alice)
        try bob.insert("X", atScalar: 2)
        try alice.insert("Y", atScalar: 2)
        try alice.merge(bob)
        let encoded = alice.encoded()
        let shared = SharedTextDecodes()
        // 0x10 and 0x20 hold operations in the body; 0x30 and 0x05 do not (one sorts before them).
        let replicas = [ReplicaID(0x30), ReplicaID(0x10), ReplicaID(0x05), ReplicaID(0x20), ReplicaID(0x30)]
        for replica in replicas {
            let direct = try TextCRDT(decoding: encoded, replica: replica)
            let viaShared = try SharedTextDecodes.$current.withValue(shared) { try TextCRDT(decoding: encoded, replica: replica) }
            #expect(viaShared.replica == replica && viaShared.replicaTable.ids == direct.replicaTable.ids)
            #expect(viaShared.localReplicaIndex == direct.localReplicaIndex && viaShared.logs.count == direct.logs.count)
            #expect(viaShared.string == direct.string && viaShared.version == direct.version && TextCRDT.sameItemsInOrder(viaShared, direct))
            #expect(viaShared.encoded() == encoded)
            var editedDirect = direct
            var editedShared = viaShared
            try editedDirect.insert("!", atScalar: 1)
            try editedShared.insert("!", atScalar: 1)
            #expect(editedShared.encoded() == editedDirect.encoded(), "replica \(replica): a local edit goes to the same replica")
        }
        #expect(shared.count == 1 && shared.hits == replicas.count - 1)

        // A body decoded without the history check (its own, in release builds) is not taken for
        // a decode that must check; one that checked is taken for both.
        let other = SharedTextDecodes()
        let bytes = Array(encoded)
        let body = try BlobEnvelope.open(bytes, kind: .textState, versions: 1...TextCRDT.stateFormatVersionWithHistory).body
        let (unchecked, checked) = (TextCRDT(replica: ReplicaID(0x40)), try TextCRDT(decoding: encoded, replica: ReplicaID(0x40)))
        other.keep(unchecked, bytes, range: body, historyChecked: false)
        #expect(other.text(bytes, range: body, needsHistoryChecked: true) == nil)
        #expect(other.text(bytes, range: body, needsHistoryChecked: false) != nil)
        other.keep(checked, bytes, range: body, historyChecked: true)
        #expect(other.text(bytes, range: body, needsHistoryChecked: true) != nil)
        var changed = bytes
        changed[body.lowerBound + body.count / 2] ^= 0x01
        #expect(other.text(changed, range: body, needsHistoryChecked: false) == nil, "the bytes compared, not only their hash")
    }
}
