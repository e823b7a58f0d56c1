@testable import MemoCRDT
import Testing

/// `Limits.lamportMax`: no state, delta or local edit carries a Lamport timestamp past it, so
/// every operation a replica makes is one a state can hold. Before it, a delta whose timestamp
/// sat at the offset limit was accepted, and the receiver's own next edit (timestamped one
/// later, with a small counter) made a state that no decoder accepts: its library failed to open.
@Suite struct LamportLimitTests {
    let victimID = ReplicaID(0xA11CE)
    let peerID = ReplicaID(0xBAD)

    /// A peer's text whose one insertion is timestamped exactly at the limit (the most an
    /// accepted operation can carry).
    func peerAtTheLimit() throws -> TextCRDT {
        var peer = TextCRDT(replica: peerID)
        peer.observeLamport(Limits.lamportMax - 1)
        try peer.insert("x", atUTF16: 0)
        #expect(peer.lamport == Limits.lamportMax)
        return peer
    }

    @Test func anEditAfterATimestampAtTheLimitIsRefusedAndTheStateStillDecodes() throws {
        var victim = TextCRDT(replica: victimID)
        try victim.insert("mine", atUTF16: 0)
        try victim.apply(TextDelta(decoding: try peerAtTheLimit().changes(since: VersionVector()).encoded()))
        let before = victim.string
        #expect(throws: TextError.clockExhausted) { try victim.insert("!", atUTF16: 0) }
        #expect(throws: TextError.clockExhausted) { try victim.replace(utf16Range: 0..<1, with: "M") }
        #expect(throws: TextError.clockExhausted) { try victim.delete(utf16Range: 0..<1) }
        #expect(victim.string == before)
        // What the replica holds still encodes to a state that decodes to it.
        let decoded = try TextCRDT(decoding: victim.encoded(), replica: victimID)
        #expect(decoded.string == before && decoded.version == victim.version)
    }

    @Test func aDeltaTimestampedPastTheLimitIsRefused() throws {
        var peer = TextCRDT(replica: peerID)
        try peer.insert("abc", atUTF16: 0)
        let honest = peer.changes(since: VersionVector())
        // Forged: the run's last operation one past the limit, its offset from its counter
        // still within the offset limit (which alone let it in before).
        var runs = honest.runs
        runs[runs.count - 1].lamport = Limits.lamportMax - UInt64(runs[runs.count - 1].length) + 2
        #expect(runs[runs.count - 1].lamport - UInt64(runs[runs.count - 1].counter) <= Limits.lamportOffsetMax)
        var victim = TextCRDT(replica: victimID)
        try victim.insert("mine", atUTF16: 0)
        #expect {
            try victim.apply(TextDelta(runs: runs))
        } throws: { error in
            guard case .invalidDelta = error as? TextError else { return false }
            return true
        }
        #expect(victim.string == "mine" && victim.lamport == 4)
        // The same run ending exactly at the limit is accepted.
        runs[runs.count - 1].lamport -= 1
        try victim.apply(TextDelta(runs: runs))
        #expect(victim.string.count == 7)
    }

    @Test func aStateTimestampedPastTheLimitIsRefused() throws {
        var text = TextCRDT(replica: peerID)
        try text.insert("abc", atUTF16: 0)
        let valid = text.encoded()
        // The same text with its operations timestamped past the limit (by the log itself:
        // no edit can make it).
        var forged = text
        forged.logs[forged.localReplicaIndex].lamportRuns = []
        forged.logs[forged.localReplicaIndex].appendTimestamps(counter: 0, lamport: Limits.lamportMax - 1)
        forged.lamport = Limits.lamportMax + 1
        let bytes = forged.encoded()
        #expect(bytes != valid)
        #expect(throws: DecodingError.self) { try TextCRDT(decoding: bytes, replica: victimID) }
        // One below: accepted.
        forged.logs[forged.localReplicaIndex].lamportRuns = []
        forged.logs[forged.localReplicaIndex].appendTimestamps(counter: 0, lamport: Limits.lamportMax - 2)
        forged.lamport = Limits.lamportMax
        #expect(try TextCRDT(decoding: forged.encoded(), replica: victimID).string == "abc")
    }

    @Test func observingAHugeTimestampStopsAtTheLimit() throws {
        var text = TextCRDT(replica: victimID)
        try text.insert("a", atUTF16: 0)
        text.observeLamport(.max)
        #expect(text.lamport == Limits.lamportMax)
        #expect(throws: TextError.clockExhausted) { try text.insert("b", atUTF16: 1) }
        #expect(try TextCRDT(decoding: text.encoded(), replica: victimID).string == "a")
        // Room for exactly one more operation.
        text.restoreLamport(Limits.lamportMax - 1)
        try text.insert("b", atUTF16: 1)
        #expect(throws: TextError.clockExhausted) { try text.insert("c", atUTF16: 2) }
        #expect(try TextCRDT(decoding: text.encoded(), replica: victimID).string == "ab")
    }

    @Test func deletingCharactersChecksTheClockBeforeAnyPiece() throws {
        var text = TextCRDT(replica: victimID)
        try text.insert("abcdef", atUTF16: 0)
        let first = OperationID(replica: victimID, counter: 0)
        try text.delete(utf16Range: 2..<4)  // "abef": the characters a..f are now two visible pieces
        text.observeLamport(Limits.lamportMax - 3)  // room for 3 operations, not 4
        #expect(throws: TextError.clockExhausted) { try text.deleteCharacters(first: first, count: 6) }
        #expect(text.string == "abef")
    }

    @Test func aCountPastTheCounterLimitIsAnUnknownAnchorNotATrap() throws {
        var text = TextCRDT(replica: victimID)
        try text.insert("abc", atUTF16: 0)
        let last = OperationID(replica: victimID, counter: 2)
        #expect(throws: TextError.unknownAnchor) { try text.deleteCharacters(first: last, count: Int(UInt32.max) - 1) }
        #expect(throws: TextError.unknownAnchor) { try text.deleteCharacters(first: last, count: Int(Limits.operationsPerReplicaMax)) }
        #expect(text.string == "abc")
    }
}
