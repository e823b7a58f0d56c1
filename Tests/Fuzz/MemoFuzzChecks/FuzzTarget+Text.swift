import MemoCRDT

// Text deltas and text states: decode, round trip, apply and merge with honest peers.

extension FuzzTarget {
    /// A decoded text delta: round trip, then applied to each honest peer, where a refusal must
    /// leave the peer unchanged and an acceptance a valid text that takes the honest history,
    /// transfers whole to a new replica and merges into one.
    static func checkTextDelta(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let delta = try? TextDelta(decoding: bytes) else { return }
        let encoded = delta.encoded()
        let again = try required("decoding the encoding of a decoded text delta") { try TextDelta(decoding: encoded) }
        try require(again == delta, "a text delta changed through encode and decode")
        try require(again.encoded() == encoded, "a text delta's encoding changed through decode and encode")
        let world = FuzzWorld.shared.texts
        for (index, peer) in world.peers.enumerated() {
            var text = peer
            do {
                _ = try text.apply(delta)
            } catch {
                try require(
                    text.string == peer.string && text.version == peer.version && text.pendingOperationCount == peer.pendingOperationCount,
                    "text peer \(index): a refused delta (\(error)) changed the text")
                continue
            }
            try checkText(text, "text peer \(index) after the delta")
            _ = try? text.apply(world.complete.changes(since: VersionVector()))
            try checkText(text, "text peer \(index) after the delta and the honest history")
            try checkTransfer(text, "text peer \(index) after the delta and the honest history")
        }
    }

    /// A decoded text state: both decoders agree, round trip, transfer to a new replica; with
    /// each honest peer and with a text of other replicas, histories applied both ways and
    /// merges both ways. A refusal is allowed (a hostile state may reuse the peers' operation
    /// ids for other operations) and must leave the text unchanged; equal versions give equal
    /// texts when the two share no replica. (FORMAT.md, "Operation ids are trusted": texts that
    /// spent one id on two different insertions may differ at equal versions, so convergence is
    /// not checked where the decoded text and the peer share a replica.)
    static func checkTextState(_ bytes: [UInt8]) throws(FuzzFailure) {
        let quick = try? TextCRDT.decodeString(fromEncoded: bytes)
        guard let text = try? TextCRDT(decoding: bytes, replica: ReplicaID(0xE1)) else { return }
        try require(quick == text.string, "decodeString(fromEncoded:) gives \(String(describing: quick)), the decoded text \(text.string)")
        try checkText(text, "the decoded text")
        try checkRebuild(text, "the decoded text")
        try checkTransfer(text, "the decoded text")
        let world = FuzzWorld.shared.texts
        for (index, peer) in (world.peers + [world.stranger]).enumerated() {
            let context = index < world.peers.count ? "text peer \(index)" : "a stranger text"
            let disjoint = Set(peer.version.replicas).isDisjoint(with: text.version.replicas)
            var forward = peer
            var backward = text
            let forwardApplied = (try? forward.apply(text.changes(since: VersionVector()))) != nil
            let backwardApplied = (try? backward.apply(peer.changes(since: VersionVector()))) != nil
            try required("\(context) after the decoded text's history") { try forward.checkInvariants() }
            try required("the decoded text after \(context)'s history") { try backward.checkInvariants() }
            if forwardApplied && backwardApplied && disjoint {
                try requireEqualTexts(forward, backward, "\(context) and the decoded text, each given the other's history")
            }
            var forwardMerge = peer
            var backwardMerge = text
            let forwardMerged = try mergeOrRefuse(&forwardMerge, text, "\(context) merging the decoded text")
            let backwardMerged = try mergeOrRefuse(&backwardMerge, peer, "the decoded text merging \(context)")
            if forwardMerged && backwardMerged && disjoint {
                try requireEqualTexts(forwardMerge, backwardMerge, "\(context) and the decoded text, merged both ways")
            }
        }
    }

    /// Merges `other` into `text`: true, or false when refused (leaving `text` unchanged).
    static func mergeOrRefuse(_ text: inout TextCRDT, _ other: TextCRDT, _ context: @autoclosure () -> String) throws(FuzzFailure) -> Bool {
        let before = text
        do {
            try text.merge(other)
        } catch {
            try require(
                text.string == before.string && text.version == before.version && text.pendingOperationCount == before.pendingOperationCount,
                "\(context()): a refused merge (\(error)) changed the text")
            return false
        }
        try required(context()) { try text.checkInvariants() }
        return true
    }

    /// Equal versions give equal texts (when neither holds operations back).
    static func requireEqualTexts(_ first: TextCRDT, _ second: TextCRDT, _ context: @autoclosure () -> String) throws(FuzzFailure) {
        guard first.version == second.version, first.pendingOperationCount == 0, second.pendingOperationCount == 0 else { return }
        try require(
            first.string == second.string,
            "\(context()): equal versions \(first.version), different texts \(first.string.debugDescription) and \(second.string.debugDescription)", check: .convergence)
    }

    /// `text`'s invariants hold and its encoding decodes to an equal text.
    static func checkText(_ text: TextCRDT, _ context: @autoclosure () -> String) throws(FuzzFailure) {
        try required(context()) { try text.checkInvariants() }
        let encoded = text.encoded()
        let decoded = try required("\(context()): decoding its encoding", check: .roundTrip) { try TextCRDT(decoding: encoded, replica: text.replica) }
        try require(decoded.string == text.string, "\(context()): the encoding decodes to another text", check: .roundTrip)
        try require(decoded.version == text.version, "\(context()): the encoding decodes to another version", check: .roundTrip)
        try require(decoded.encoded() == encoded, "\(context()): the encoding is not stable through decode and encode", check: .roundTrip)
        let quick = try required("\(context()): decodeString(fromEncoded:) of its encoding", check: .roundTrip) { try TextCRDT.decodeString(fromEncoded: encoded) }
        try require(quick == text.string, "\(context()): decodeString(fromEncoded:) of its encoding gives another text")
    }

    /// A decoded state is what its own history gives (issue 25): applied to a new replica, the
    /// state's delta holds nothing back and gives the same text at the same version, which
    /// encodes to the same bytes.
    static func checkRebuild(_ text: TextCRDT, _ context: @autoclosure () -> String) throws(FuzzFailure) {
        var rebuilt = TextCRDT(replica: ReplicaID(0xE4))
        // A state with history (version 4) sends the deleted content it retains; a replica
        // keeping deleted content, as the writer did, retains it too (issue 27).
        rebuilt.keepsDeletedContent = text.encodedHistorySection() != nil
        _ = try required("\(context()): a new replica applying its own history", check: .convergence) {
            try rebuilt.apply(text.changes(since: VersionVector()))
        }
        try require(
            rebuilt.pendingOperationCount == 0,
            "\(context()): a new replica given its own history holds \(rebuilt.pendingOperationCount) operations back", check: .convergence)
        try require(
            rebuilt.version == text.version,
            "\(context()): its own history gives a new replica version \(rebuilt.version), not \(text.version)", check: .convergence)
        try require(
            rebuilt.string == text.string,
            "\(context()): its own history gives a new replica \(rebuilt.string.debugDescription), not \(text.string.debugDescription)",
            check: .convergence)
        try require(rebuilt.encoded() == text.encoded(), "\(context()): rebuilt from its own history, it encodes to other bytes", check: .roundTrip)
    }

    /// `text`'s whole history, applied to a new replica and merged into another, gives its text.
    static func checkTransfer(_ text: TextCRDT, _ context: @autoclosure () -> String) throws(FuzzFailure) {
        var applied = TextCRDT(replica: ReplicaID(0xE2))
        _ = try required("\(context()): a new replica applying its whole history") { try applied.apply(text.changes(since: VersionVector())) }
        try required("\(context()): a new replica after its whole history") { try applied.checkInvariants() }
        if applied.version == text.version && applied.pendingOperationCount == 0 && text.pendingOperationCount == 0 {
            try require(
                applied.string == text.string,
                "\(context()): equal versions \(text.version), different texts \(text.string.debugDescription) and, its history applied to a new replica, \(applied.string.debugDescription)",
                check: .convergence)
        }
        var merged = TextCRDT(replica: ReplicaID(0xE3))
        try required("\(context()): merged into a new replica") {
            try merged.merge(text)
            try merged.checkInvariants()
        }
        if merged.version == text.version && merged.pendingOperationCount == 0 && text.pendingOperationCount == 0 {
            try require(
                merged.string == text.string,
                "\(context()): equal versions \(text.version), different texts \(text.string.debugDescription) and, merged into a new replica, \(merged.string.debugDescription)",
                check: .convergence)
        }
    }
}
