import MemoCRDT
import TestSupport
import Testing

/// Algebraic properties of `apply` and `merge`: idempotent, commutative, associative, and
/// indifferent to out-of-order and duplicated delivery. States are compared item by item
/// (tombstones included), not just by their visible text.
@Suite struct TextMergePropertyTests {
    // MARK: Idempotence

    @Test(arguments: testSeeds(10, salt: 0x3E6E_0001))
    func applyingADeltaTwiceEqualsApplyingItOnce(seed: UInt64) throws {
        let scenario = try DivergedReplicas(seed: seed, replicaCount: 3)
        for (index, source) in scenario.replicas.enumerated() {
            var receiver = scenario.base.fork(replica: ReplicaID(0xFEED))
            let delta = source.changes(since: receiver.version)
            let first = try receiver.apply(delta)
            #expect(first.appliedOperationCount == delta.operationCount, "seed \(seed) replica \(index)")
            let once = Snapshot(receiver)
            let second = try receiver.apply(delta, recordingEdits: true)
            #expect(Snapshot(receiver) == once, "seed \(seed) replica \(index)")
            #expect(second.appliedOperationCount == 0, "seed \(seed)")
            #expect(second.duplicateOperationCount == delta.operationCount, "seed \(seed)")
            #expect(second.edits.isEmpty, "seed \(seed)")
            // An older, overlapping delta and a text's own changes are no-ops too.
            try receiver.apply(source.changes(since: VersionVector()))
            try receiver.apply(receiver.changes(since: scenario.base.version))
            try receiver.merge(source)
            #expect(Snapshot(receiver) == once, "seed \(seed) replica \(index)")
            #expect(receiver.pendingOperationCount == 0)
            try receiver.checkInvariants()
        }
    }

    // MARK: Commutativity

    /// The deltas of four diverged replicas (which also exchanged some operations among
    /// themselves, so some deltas depend on others) applied to the base in all 24 orders.
    @Test(arguments: testSeeds(6, salt: 0x3E6E_0002))
    func deltasAppliedInEveryOrderGiveOneState(seed: UInt64) throws {
        let scenario = try DivergedReplicas(seed: seed, replicaCount: 4)
        let deltas = scenario.replicas.map { $0.changes(since: scenario.base.version) }
        var expected: Snapshot?
        for order in permutations(of: Array(deltas.indices)) {
            var receiver = scenario.base.fork(replica: ReplicaID(0xFEED))
            for index in order {
                try applyCheckingEdits(deltas[index], to: &receiver, context: "seed \(seed) order \(order)")
            }
            #expect(receiver.pendingOperationCount == 0, "seed \(seed) order \(order)")
            let state = Snapshot(receiver)
            if let expected {
                #expect(state == expected, "seed \(seed) order \(order)")
            } else {
                expected = state
                #expect(scenario.reference.difference(from: receiver) == nil, "seed \(seed)")
            }
            try receiver.checkInvariants()
        }
    }

    /// `merge` in every order, and merging into each replica rather than into the base.
    @Test(arguments: testSeeds(6, salt: 0x3E6E_0003))
    func mergesInEveryOrderGiveOneState(seed: UInt64) throws {
        let scenario = try DivergedReplicas(seed: seed, replicaCount: 3)
        var expected: Snapshot?
        for order in permutations(of: Array(scenario.replicas.indices)) {
            var receiver = scenario.replicas[order[0]]
            for index in order.dropFirst() { try receiver.merge(scenario.replicas[index]) }
            let state = Snapshot(receiver)
            if let expected {
                #expect(state == expected, "seed \(seed) order \(order)")
            } else {
                expected = state
                #expect(scenario.reference.difference(from: receiver) == nil, "seed \(seed)")
            }
        }
    }

    // MARK: Associativity

    @Test(arguments: testSeeds(10, salt: 0x3E6E_0004))
    func mergeIsAssociative(seed: UInt64) throws {
        let scenario = try DivergedReplicas(seed: seed, replicaCount: 3)
        let (a, b, c) = (scenario.replicas[0], scenario.replicas[1], scenario.replicas[2])
        // (a + b) + c
        var left = a
        try left.merge(b)
        try left.merge(c)
        // a + (b + c), with deltas this time
        var right = b
        try right.apply(c.changes(since: right.version))
        var outer = a
        try outer.apply(right.changes(since: outer.version))
        // (a + c) + b
        var other = a
        try other.apply(c.changes(since: other.version))
        try other.apply(b.changes(since: other.version))
        let expected = Snapshot(left)
        #expect(Snapshot(outer) == expected, "seed \(seed)")
        #expect(Snapshot(other) == expected, "seed \(seed)")
        #expect(scenario.reference.difference(from: left) == nil, "seed \(seed)")
    }

    // MARK: Out-of-order and duplicated delivery

    /// One replica's history cut into deltas at intermediate versions, delivered shuffled and
    /// with duplicates. A delta whose predecessor has not arrived is held back whole; the
    /// receiver's state is always exactly the source's state at the end of the longest run of
    /// deltas delivered from the first.
    @Test(arguments: testSeeds(12, salt: 0x3E6E_0005))
    func shuffledHistoryIsHeldBackUntilComplete(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var source = TextCRDT(replica: ReplicaID(7))
        try source.insert(RandomText.string(10, using: &random), atScalar: 0)
        let base = source
        var snapshots = [source]
        for _ in 0..<random.int(in: 3...7) {
            for _ in 0..<random.int(in: 1...4) { try randomLocalEdit(&source, using: &random) }
            snapshots.append(source)
        }
        let deltas = (0..<snapshots.count - 1).map { snapshots[$0 + 1].changes(since: snapshots[$0].version) }
        var deliveries = Array(deltas.indices)
        deliveries.shuffle(using: &random)
        // Some deltas arrive twice.
        for _ in 0..<random.int(in: 1...3) {
            deliveries.insert(random.pick(deltas.indices), at: random.int(in: 0...deliveries.count))
        }
        var receiver = base.fork(replica: ReplicaID(8))
        var delivered = Set<Int>()
        for index in deliveries {
            let before = receiver.string
            let report = try receiver.apply(deltas[index], recordingEdits: true)
            delivered.insert(index)
            let prefix = (0...deltas.count).first { !delivered.contains($0) }!
            let heldBack = delivered.filter { $0 > prefix }.reduce(0) { $0 + deltas[$1].operationCount }
            let context = "seed \(seed) deliveries \(deliveries) after \(index)"
            // Held-back deltas that arrive again are held once.
            #expect(receiver.pendingOperationCount == heldBack, "\(context)")
            #expect(report.pendingOperationCount == heldBack, "\(context)")
            #expect(Snapshot(receiver) == Snapshot(snapshots[prefix]), "\(context)")
            var shadow = Array(before.utf16)
            for edit in report.edits { edit.apply(to: &shadow) }
            #expect(shadow == Array(receiver.string.utf16), "\(context): reported edits")
            try receiver.checkInvariants()
        }
        #expect(receiver.pendingOperationCount == 0, "seed \(seed)")
        #expect(Snapshot(receiver) == Snapshot(source), "seed \(seed)")
    }

    /// A delta that is held back and then arrives again (a peer retrying a send while the gap
    /// persists) must not be held twice: `pendingOperationCount` counts operations, and
    /// duplicates piling up would eventually hit `Limits.pendingOperationsMax` and make `apply`
    /// throw on a harmless retry.
    @Test func duplicateOfAHeldBackDeltaIsHeldOnce() throws {
        var source = TextCRDT(replica: ReplicaID(7))
        try source.insert("ab", atScalar: 0)
        let first = source.version
        try source.insert("cd", atScalar: 2)
        let second = source.version
        try source.insert("ef", atScalar: 4)
        let late = source.changes(since: second)
        var receiver = TextCRDT(replica: ReplicaID(8))
        try receiver.apply(late)
        #expect(receiver.pendingOperationCount == 2)
        try receiver.apply(late)
        try receiver.apply(late)
        #expect(receiver.pendingOperationCount == 2)
        // Operations 2..<6, overlapping the held-back 4..<6: still missing 0..<2.
        try receiver.apply(source.changes(since: first))
        #expect(receiver.pendingOperationCount == 4)
        #expect(receiver.string.isEmpty)
        try receiver.apply(source.changes(since: VersionVector()))
        #expect(receiver.pendingOperationCount == 0)
        #expect(Snapshot(receiver) == Snapshot(source))
        try receiver.checkInvariants()
    }

    /// Several replicas' histories (with exchanges between them, so deltas depend on other
    /// replicas' deltas) cut into deltas and delivered shuffled, with duplicates, to a fresh
    /// replica: it converges to the full merge and holds nothing back at the end.
    @Test(arguments: testSeeds(10, salt: 0x3E6E_0006))
    func shuffledMultiReplicaHistoryConverges(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var twins = (1...3).map { FugueTwin(replica: UInt64($0) * 11) }
        var deltas: [TextDelta] = []
        for _ in 0..<12 {
            let index = random.int(in: 0..<twins.count)
            let before = twins[index].text.version
            if random.chance(0.3) {
                try twins[index].receive(twins[(index + random.int(in: 1...2)) % 3])
            } else {
                for _ in 0..<random.int(in: 1...3) { try randomTwinEdit(&twins[index], using: &random) }
            }
            let delta = twins[index].text.changes(since: before)
            if !delta.isEmpty { deltas.append(delta) }
        }
        for index in twins.indices {
            for other in twins.indices where other != index { try twins[index].receive(twins[other]) }
        }
        var deliveries = deltas + (0..<3).map { _ in random.pick(deltas) }
        deliveries.shuffle(using: &random)
        var receiver = TextCRDT(replica: ReplicaID(99))
        var shadow: [UInt16] = []
        for delta in deliveries {
            let report = try receiver.apply(delta, recordingEdits: true)
            #expect(report.rejectedOperationCount == 0, "seed \(seed)")
            for edit in report.edits { edit.apply(to: &shadow) }
            #expect(shadow == Array(receiver.string.utf16), "seed \(seed): reported edits")
        }
        #expect(receiver.pendingOperationCount == 0, "seed \(seed)")
        #expect(Snapshot(receiver) == Snapshot(twins[0].text), "seed \(seed)")
        #expect(twins[0].reference.difference(from: receiver) == nil, "seed \(seed)")
        try receiver.checkInvariants()
    }

    // MARK: Helpers

    private func applyCheckingEdits(_ delta: TextDelta, to text: inout TextCRDT, context: String) throws {
        var shadow = Array(text.string.utf16)
        let report = try text.apply(delta, recordingEdits: true)
        for edit in report.edits { edit.apply(to: &shadow) }
        #expect(shadow == Array(text.string.utf16), "\(context): reported edits")
    }
}

/// A text's state for comparisons: the item order with deletion flags, the visible scalars,
/// and the operations held (not the text's own replica id, nor what it holds back).
struct Snapshot: Equatable, CustomStringConvertible {
    var items: [String]
    var scalars: [Unicode.Scalar]
    var version: VersionVector

    init(_ text: TextCRDT) {
        items = text.itemsInDocumentOrder.map { "\($0.id)\($0.isDeleted ? "x" : "")" }
        scalars = Array(text.string.unicodeScalars)
        version = text.version
    }

    var description: String { "\(scalars.string.debugDescription) \(version) items \(items.joined(separator: " "))" }
}

/// A base text, forked into several replicas that each edit it (partly at one shared place) and
/// exchange a few changes among themselves; plus the reference holding everything.
struct DivergedReplicas {
    var base: TextCRDT
    var replicas: [TextCRDT]
    /// The reference after receiving every replica's operations.
    var reference: ReferenceFugueMax

    init(seed: UInt64, replicaCount: Int) throws {
        var random = SeededRandom(seed: seed)
        var origin = FugueTwin(replica: 1000)
        try origin.insert(RandomText.string(random.int(in: 0...15), using: &random), at: 0)
        if origin.text.lengthScalars > 4 && random.chance(0.5) { try origin.delete(1..<3) }
        let hotSpot = random.int(in: 0...origin.text.lengthScalars)
        var twins = (0..<replicaCount).map { origin.fork(replica: ReplicaID(UInt64($0 + 1) * 100 + UInt64(random.int(in: 0..<100)))) }
        for _ in 0..<3 {
            for index in twins.indices {
                for _ in 0..<random.int(in: 1...4) {
                    if random.chance(0.4) {
                        // Type at the shared place (clamped: deletions may have shortened the text).
                        let offset = min(hotSpot, twins[index].text.lengthScalars)
                        try twins[index].insert(RandomText.string(random.int(in: 1...3), using: &random), at: offset)
                    } else {
                        try randomTwinEdit(&twins[index], using: &random)
                    }
                }
            }
            // A few exchanges among the replicas.
            for _ in 0..<random.int(in: 0...2) {
                let receiver = random.int(in: 0..<replicaCount)
                let sender = (receiver + random.int(in: 1..<replicaCount)) % replicaCount
                try twins[receiver].receive(twins[sender])
            }
        }
        base = origin.text
        replicas = twins.map(\.text)
        var reference = origin.reference
        for twin in twins { reference.merge(from: twin.reference) }
        self.reference = reference
    }
}

/// All orders of `elements`.
func permutations<T>(of elements: [T]) -> [[T]] {
    if elements.count <= 1 { return [elements] }
    var result: [[T]] = []
    for index in elements.indices {
        var rest = elements
        let first = rest.remove(at: index)
        for tail in permutations(of: rest) { result.append([first] + tail) }
    }
    return result
}

/// A random insertion, deletion or replacement on a text alone.
func randomLocalEdit(_ text: inout TextCRDT, using random: inout SeededRandom) throws {
    let length = text.lengthScalars
    if length == 0 || random.chance(0.6) {
        try text.insert(RandomText.string(random.int(in: 1...5), using: &random), atScalar: random.int(in: 0...length))
    } else {
        let lower = random.int(in: 0..<length)
        let upper = min(length, lower + random.int(in: 1...4))
        if random.chance(0.3) {
            try text.replace(scalarRange: lower..<upper, with: RandomText.string(random.int(in: 1...3), using: &random))
        } else {
            try text.delete(scalarRange: lower..<upper)
        }
    }
}

/// A random insertion or deletion on both halves of a twin.
func randomTwinEdit(_ twin: inout FugueTwin, using random: inout SeededRandom) throws {
    let length = twin.text.lengthScalars
    if length == 0 || random.chance(0.65) {
        try twin.insert(RandomText.string(random.int(in: 1...5), using: &random), at: random.int(in: 0...length))
    } else {
        let lower = random.int(in: 0..<length)
        try twin.delete(lower..<min(length, lower + random.int(in: 1...4)))
    }
}
