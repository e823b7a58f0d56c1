@testable import MemoCRDT
import TestSupport
import Testing

/// Issue 12, item 5: whatever part of a history a replica receives (deltas since any version,
/// restricted to any replica and counter range, asked for by id range, duplicated, reordered,
/// or mutated byte by byte with a valid checksum), texts with equal versions hold equal texts
/// and encode to equal bytes, `encoded()` never traps, and every encoding decodes to the same
/// text and bytes.
///
/// Seeded: a failure prints its seed; rerun one with `MEMOSYNC_SEED=<seed>`, more with
/// `MEMOSYNC_SEEDS=<count>`. Runs in release builds too:
/// `swift test -c release --filter TextPartialDeltaPropertyTests`.
@Suite struct TextPartialDeltaPropertyTests {
    /// Honest replicas edit and exchange partial deltas; every pair at an equal version agrees.
    @Test(arguments: testSeeds(24, salt: 0x5EED_12))
    func partialDeltasNeverMakeStatesThatDisagree(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var replicas = (0..<4).map { TextCRDT(replica: ReplicaID(UInt64($0) + 1)) }
        var step = 0
        func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { Issue.record("seed \(seed), step \(step): \(message())") }
        }
        for _ in 0..<120 {
            step += 1
            let index = random.int(in: 0..<replicas.count)
            if random.chance(0.45) {
                try Self.randomEdit(&replicas[index], random: &random)
                continue
            }
            let source = replicas[random.int(in: 0..<replicas.count)]
            let delta = Self.partialDelta(of: source, for: replicas[index], random: &random)
            let before = replicas[index]
            do {
                try replicas[index].apply(delta)
            } catch {
                check(false, "an honest delta was refused: \(error)")
                replicas[index] = before
            }
            // Equal versions: equal texts and bytes.
            for other in replicas.indices where other != index && replicas[other].version == replicas[index].version {
                check(replicas[other].string == replicas[index].string, "replicas \(other) and \(index) at \(replicas[index].version) show \"\(replicas[other].string)\" and \"\(replicas[index].string)\"")
                check(replicas[other].encoded() == replicas[index].encoded(), "replicas \(other) and \(index) at an equal version encode differently")
            }
            do {
                try checkRoundTrip(replicas[index])
            } catch {
                check(false, "round trip failed: \(error)")
            }
        }
        // Whole deltas bring everyone together, held-back operations included.
        for _ in 0..<2 {
            for target in replicas.indices {
                for source in replicas.indices where source != target {
                    try replicas[target].apply(replicas[source].changes(since: replicas[target].version))
                }
            }
        }
        for index in replicas.indices.dropFirst() {
            check(replicas[index].version == replicas[0].version, "replica \(index) did not converge")
            check(replicas[index].string == replicas[0].string, "replica \(index) shows another text")
            check(replicas[index].encoded() == replicas[0].encoded(), "replica \(index) encodes differently")
            check(replicas[index].pendingOperationCount == 0, "replica \(index) still holds operations back")
        }
    }

    /// Mutated deltas (a byte changed, removed, inserted, checksum made valid): refused with a
    /// typed error, leaving the text unchanged, or applied leaving a text that encodes and
    /// decodes; two texts given the same mutated delta in different pieces agree at equal
    /// versions.
    @Test(arguments: testSeeds(24, salt: 0x0BAD_12))
    func mutatedDeltasNeverMakeStatesThatDisagree(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var replicas = (0..<3).map { TextCRDT(replica: ReplicaID(UInt64($0) + 1)) }
        var step = 0
        var decodedCount = 0
        var appliedToAFreshTextCount = 0
        func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { Issue.record("seed \(seed), step \(step): \(message())") }
        }
        // Until enough mutated deltas decoded and enough of those were taken by a fresh text
        // (most mutations are refused by the decoder), at most 1,000 steps.
        while step < 1_000 && (decodedCount < 10 || appliedToAFreshTextCount < 3) {
            step += 1
            let index = random.int(in: 0..<replicas.count)
            try Self.randomEdit(&replicas[index], random: &random)
            if random.chance(0.3) {
                let source = random.int(in: 0..<replicas.count)
                try replicas[index].apply(replicas[source].changes(since: replicas[index].version))
            }
            let source = replicas[random.int(in: 0..<replicas.count)]
            let partial = Self.partialDelta(of: source, for: TextCRDT(replica: ReplicaID(99)), random: &random)
            var bytes = partial.encoded()
            for _ in 0..<random.int(in: 1...3) { Self.mutate(&bytes, random: &random) }
            guard let delta = try? TextDelta(decoding: bytes) else { continue }
            decodedCount += 1
            // Applied to a copy of a replica that holds other operations under the same ids:
            // refused, or a text that behaves.
            var victim = replicas[random.int(in: 0..<replicas.count)]
            let victimBefore = victim.encoded()
            do {
                try victim.apply(delta)
                try checkRoundTrip(victim)
            } catch let error as TextError {
                check(victim.encoded() == victimBefore, "a refused delta changed the text (\(error))")
            } catch {
                check(false, "applying a mutated delta: \(error)")
            }
            // Two fresh texts given the same delta, one whole, one in pieces: equal versions hold
            // equal texts (they hold the same operations: no other history to contradict).
            var whole = TextCRDT(replica: ReplicaID(200))
            var pieces = TextCRDT(replica: ReplicaID(201))
            if (try? whole.apply(delta)) != nil, !whole.version.entries.isEmpty { appliedToAFreshTextCount += 1 }
            var ranges = delta.operationRanges
            ranges.shuffle(using: &random)
            for range in ranges {
                let low = range.counters.lowerBound
                let cut = low + UInt32(random.int(in: 0...Int(range.counters.count)))
                _ = try? pieces.apply(delta.restricted(to: range.replica, counters: cut..<range.counters.upperBound))
                if pieces.version == whole.version {
                    check(pieces.string == whole.string, "equal versions, texts \"\(pieces.string)\" and \"\(whole.string)\"")
                    check(pieces.encoded() == whole.encoded(), "equal versions, different bytes")
                }
                _ = try? pieces.apply(delta.restricted(to: range.replica, counters: low..<cut))
            }
            for text in [whole, pieces] {
                do {
                    try checkRoundTrip(text)
                } catch {
                    check(false, "round trip failed: \(error)")
                }
            }
            if pieces.version == whole.version {
                check(pieces.string == whole.string, "equal versions, texts \"\(pieces.string)\" and \"\(whole.string)\"")
                check(pieces.encoded() == whole.encoded(), "equal versions, different bytes")
            }
        }
        // The checks above ran on real inputs: enough mutated deltas decoded, and some were
        // taken by a fresh text (a mutator that only made garbage would skip every check).
        #expect(decodedCount >= 10, "seed \(seed): only \(decodedCount) of \(step) mutated deltas decoded")
        #expect(appliedToAFreshTextCount >= 3, "seed \(seed): only \(appliedToAFreshTextCount) mutated deltas applied to a fresh text")
    }

    /// The checks a notebook makes of a memo's text without replaying it (``TextCRDT/summary``)
    /// never refuse a body the full decoder accepts, and agree with it on the version: mutated
    /// text states with valid checksums, compared.
    @Test(arguments: testSeeds(12, salt: 0x5A11_12))
    func lazyChecksNeverRefuseWhatTheDecoderAccepts(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var replicas = (0..<3).map { TextCRDT(replica: ReplicaID(UInt64($0) + 1)) }
        for step in 0..<40 {
            let index = random.int(in: 0..<replicas.count)
            try Self.randomEdit(&replicas[index], random: &random)
            if random.chance(0.4) {
                let source = random.int(in: 0..<replicas.count)
                try replicas[index].apply(replicas[source].changes(since: replicas[index].version))
            }
            let encoded = replicas[index].encoded()
            for _ in 0..<8 {
                var bytes = encoded
                guard let (bodyRange, version) = try? BlobEnvelope.open(bytes, kind: .textState, versions: 1...15) else {
                    Issue.record("seed \(seed), step \(step): the text's own encoding does not open")
                    continue
                }
                var body = Array(bytes[bodyRange])
                for _ in 0..<random.int(in: 0...2) where !body.isEmpty {
                    body[random.int(in: 0..<body.count)] = random.chance(0.5) ? UInt8(truncatingIfNeeded: random.next()) : random.pick([0x00, 0x01, 0x7F, 0x80, 0xFF])
                }
                bytes = BlobEnvelope.seal(kind: .textState, version: version, body: body)
                let full = try? TextCRDT(decoding: bytes, replica: ReplicaID(9))
                let sealedBody = try BlobEnvelope.open(bytes, kind: .textState, versions: 1...15).body
                let summary = try? TextCRDT.summary(ofBody: bytes, range: sealedBody, version: version)
                if let full {
                    #expect(summary != nil, "seed \(seed), step \(step): the lazy checks refuse a body the decoder accepts")
                    #expect(summary?.version == full.version, "seed \(seed), step \(step): the lazy checks read another version")
                }
            }
        }
    }

    // MARK: Helpers

    /// One local edit: an insertion, a deletion or a replacement at a random place.
    static func randomEdit(_ text: inout TextCRDT, random: inout SeededRandom) throws {
        let length = text.lengthScalars
        if length > 0 && (random.chance(0.4) || length > 150) {
            let start = random.int(in: 0..<length)
            let end = min(length, start + random.int(in: 1...6))
            if random.chance(0.5) {
                try text.delete(scalarRange: start..<end)
            } else {
                try text.replace(scalarRange: start..<end, with: random.pick(["x", "yz", "é", "👍🏽"]))
            }
        } else {
            try text.insert(random.pick(["a", "bc", "def ", "ghij", "ü", "한"]), atScalar: random.int(in: 0...length))
        }
    }

    /// A delta an honest replica can make for `receiver`: whole, since a random version at or
    /// below it, restricted to one replica and a random counter range, by id ranges, or through
    /// its bytes.
    static func partialDelta(of source: TextCRDT, for receiver: TextCRDT, random: inout SeededRandom) -> TextDelta {
        let version = source.version
        var since = VersionVector()
        for entry in version.entries {
            switch random.int(in: 0..<3) {
            case 0: since[entry.replica] = min(receiver.version[entry.replica], entry.operationCount)
            case 1: since[entry.replica] = UInt32(random.int(in: 0...Int(entry.operationCount)))
            default: break
            }
        }
        var delta: TextDelta
        switch random.int(in: 0..<4) {
        case 0:
            delta = source.changes(since: receiver.version)
        case 1:
            delta = source.changes(since: since)
        case 2:
            delta = source.changes(since: since)
            if let range = delta.operationRanges.randomElement(using: &random) {
                let low = UInt32(random.int(in: Int(range.counters.lowerBound)...Int(range.counters.upperBound)))
                let high = UInt32(random.int(in: Int(low)...Int(range.counters.upperBound)))
                delta = delta.restricted(to: range.replica, counters: low..<high)
            }
        default:
            var ranges: [(replica: ReplicaID, counters: Range<UInt32>)] = []
            for entry in version.entries where random.chance(0.6) {
                let low = UInt32(random.int(in: 0...Int(entry.operationCount)))
                let high = UInt32(random.int(in: Int(low)...Int(entry.operationCount)))
                ranges.append((entry.replica, low..<high))
            }
            delta = (try? source.changes(in: ranges)) ?? TextDelta()
        }
        if random.chance(0.3), let decoded = try? TextDelta(decoding: delta.encoded()) { delta = decoded }
        return delta
    }

    /// One change to the body of an encoded blob, sealed again with a valid checksum.
    static func mutate(_ bytes: inout [UInt8], random: inout SeededRandom) {
        guard let (bodyRange, version) = try? BlobEnvelope.open(bytes, kind: .textDelta, versions: 1...1) else { return }
        var body = Array(bytes[bodyRange])
        switch random.int(in: 0..<4) {
        case 0 where !body.isEmpty:
            body[random.int(in: 0..<body.count)] = UInt8(truncatingIfNeeded: random.next())
        case 1 where !body.isEmpty:
            body.remove(at: random.int(in: 0..<body.count))
        case 2:
            body.insert(UInt8(truncatingIfNeeded: random.next()), at: random.int(in: 0...body.count))
        default:
            if !body.isEmpty { body[random.int(in: 0..<body.count)] = random.pick([0x00, 0x01, 0x7F, 0x80, 0xFF]) }
        }
        bytes = BlobEnvelope.seal(kind: .textDelta, version: version, body: body)
    }
}

/// `text` encodes without trapping, its invariants hold, and its encoding decodes to the same
/// string and version, and encodes to the same bytes again.
func checkRoundTrip(_ text: TextCRDT) throws {
    try text.checkInvariants()
    let encoded = text.encoded()
    let decoded = try TextCRDT(decoding: encoded, replica: text.replica)
    guard decoded.string == text.string, decoded.version == text.version, decoded.encoded() == encoded else {
        throw InvariantViolation("the encoding does not decode to the same text")
    }
}
