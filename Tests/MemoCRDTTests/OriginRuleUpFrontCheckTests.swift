@testable import MemoCRDT
import TestSupport
import Testing

/// The origin rule decided before applying (`appliesWithoutRejectionByTree`, what apply's
/// no-undo tombstone path and a notebook's readiness check rely on) agrees with applying the
/// delta to a copy wherever it decides: on honest partial deltas (where it should decide most of
/// the time) and on deltas whose insertion origins were forged (where it must never say "none
/// rejected" for a delta that apply rejects in part).
///
/// Seeded: a failure prints its seed; rerun one with `MEMOSYNC_SEED=<seed>`.
@Suite struct OriginRuleUpFrontCheckTests {
    @Test func upFrontCheckAgreesWithApplying() throws {
        var totals = Totals()
        for seed in testSeeds(16, salt: 0x0F3_0C4E) { try Self.exercise(seed: seed, totals: &totals) }
        // Honest deltas are mostly decided up front; forged ones are rejected now and then, and
        // the up-front check catches some of those itself.
        #expect(totals.honestDecided * 2 >= totals.honestAsked, "decided \(totals.honestDecided) of \(totals.honestAsked)")
        #expect(totals.forgedRejected > 0)
        #expect(totals.forgedRejectedByTree > 0)
    }

    /// The hinted timestamp lookup validation uses gives what the plain one gives, whatever
    /// order the counters come in.
    @Test func hintedTimestampLookupAgrees() throws {
        var random = SeededRandom(seed: 0x1A3B)
        var a = TextCRDT(replica: ReplicaID(1))
        var b = TextCRDT(replica: ReplicaID(2))
        for _ in 0..<60 {
            try TextPartialDeltaPropertyTests.randomEdit(&a, random: &random)
            try TextPartialDeltaPropertyTests.randomEdit(&b, random: &random)
            if random.chance(0.5) { try a.merge(b) } else { try b.merge(a) }
        }
        for log in a.logs where log.operationCount > 0 {
            #expect(log.lamportRuns.count > 1)
            var hint = 0
            for step in 0..<400 {
                let counter = step < 200
                    ? UInt32(step) % log.operationCount
                    : UInt32(random.int(in: 0..<Int(log.operationCount)))
                #expect(log.lamport(of: counter, hint: &hint) == log.lamport(of: counter))
            }
        }
    }

    struct Totals {
        var honestAsked = 0
        var honestDecided = 0
        var forgedRejected = 0
        var forgedRejectedByTree = 0
    }

    /// Replicas edit and exchange partial deltas; each delta, and a copy with forged origins,
    /// is checked up front and by applying it to a copy of the receiver.
    static func exercise(seed: UInt64, totals: inout Totals) throws {
        var random = SeededRandom(seed: seed)
        var replicas = (0..<3).map { TextCRDT(replica: ReplicaID(UInt64($0) + 1)) }
        for step in 0..<150 {
            let index = random.int(in: 0..<replicas.count)
            if random.chance(0.5) {
                for _ in 0..<random.int(in: 1...4) {
                    try TextPartialDeltaPropertyTests.randomEdit(&replicas[index], random: &random)
                }
                continue
            }
            let source = replicas[random.int(in: 0..<replicas.count)]
            let receiver = replicas[index]
            let honest = TextPartialDeltaPropertyTests.partialDelta(of: source, for: receiver, random: &random)
            if let decided = compare(honest, on: receiver, seed: seed, step: step) {
                totals.honestAsked += 1
                if decided.byTree != nil { totals.honestDecided += 1 }
                #expect(decided.rejected == 0, "seed \(seed), step \(step): an honest delta was rejected in part")
            }
            // The same delta with one insertion's origins forged (items the receiver holds or the
            // delta brings, of any replica, or the start and end).
            if let forged = forgingOrigins(of: honest, on: receiver, random: &random),
                let decided = compare(forged, on: receiver, seed: seed, step: step), decided.rejected > 0
            {
                totals.forgedRejected += 1
                if decided.byTree == false { totals.forgedRejectedByTree += 1 }
            }
            _ = try? replicas[index].apply(honest)
        }
    }

    /// Where `delta` passes validation and can apply completely: the up-front answer (nil when
    /// undecided) and the operations a trial apply rejects, after checking they agree.
    static func compare(_ delta: TextDelta, on text: TextCRDT, seed: UInt64, step: Int) -> (byTree: Bool?, rejected: Int)? {
        guard text.pendingOperationCount == 0, (try? text.validate(delta)) != nil, text.canApplyCompletely(delta) else {
            return nil
        }
        var trial = text
        let report = trial.apply(validated: delta, recordingEdits: false)
        let byTree = text.appliesWithoutRejectionByTree(delta)
        if let byTree {
            #expect(byTree == (report.rejectedOperationCount == 0), "seed \(seed), step \(step): the up-front check says \(byTree), apply rejected \(report.rejectedOperationCount)")
        }
        #expect(text.appliesWithoutRejection(delta) == (report.rejectedOperationCount == 0), "seed \(seed), step \(step)")
        return (byTree, report.rejectedOperationCount)
    }

    /// `delta` with the origins of one insertion run replaced by random items (held by `text`
    /// or brought by the delta) or the start and end; nil when it has no insertion run.
    static func forgingOrigins(of delta: TextDelta, on text: TextCRDT, random: inout SeededRandom) -> TextDelta? {
        let insertions = delta.runs.indices.filter { delta.runs[$0].isInsertion }
        guard let target = insertions.randomElement(using: &random) else { return nil }
        var items: [OperationID] = []
        for entry in text.version.entries where entry.operationCount > 0 {
            for _ in 0..<2 {
                items.append(OperationID(replica: entry.replica, counter: UInt32(random.int(in: 0..<Int(entry.operationCount)))))
            }
        }
        for run in delta.runs where run.isInsertion {
            items.append(OperationID(replica: run.replica, counter: run.counter + UInt32(random.int(in: 0..<Int(run.length)))))
        }
        var runs = delta.runs
        guard case let .insertion(originLeft, originRight, content) = runs[target].kind else { return nil }
        var left = originLeft
        var right = originRight
        switch random.int(in: 0..<3) {
        case 0: left = random.chance(0.2) ? nil : items.randomElement(using: &random)
        case 1: right = random.chance(0.2) ? .end : (items.randomElement(using: &random).map { .item($0) } ?? .end)
        default:
            left = items.randomElement(using: &random)
            right = random.chance(0.3) ? .inherited : (items.randomElement(using: &random).map { .item($0) } ?? .end)
        }
        runs[target].kind = .insertion(originLeft: left, originRight: right, content: content)
        return TextDelta(runs: runs)
    }
}
