import MemoCRDT
import TestSupport
import Testing

/// The interleaving cases of "The Art of the Fugue": runs typed concurrently at one place,
/// forwards or backwards, must come out one after the other, never shuffled together. Every case
/// is also checked item by item against the tree-form reference.
@Suite struct TextInterleavingTests {
    /// Bases the concurrent typing goes into, and the place: an empty text, the end of a text,
    /// and the middle of a typed word (where the new text goes between two items of one run).
    static let places: [(base: String, offset: Int)] = [("", 0), ("List: ", 6), ("ab", 1), ("ab", 0)]

    @Test(arguments: places)
    func forwardTypingDoesNotInterleave(base: String, offset: Int) throws {
        for (first, second) in [(UInt64(1), UInt64(2)), (2, 1)] {
            var (alice, bob) = try twins(base: base, first, second)
            for (index, character) in "milk".unicodeScalars.enumerated() {
                try alice.insert(String(character), at: offset + index)
            }
            for (index, character) in "eggs".unicodeScalars.enumerated() {
                try bob.insert(String(character), at: offset + index)
            }
            try exchange(&alice, &bob)
            // Concurrent insertions at one place are ordered by replica id: lower first.
            let runs = first < second ? "milkeggs" : "eggsmilk"
            let expected = insert(runs, into: base, at: offset)
            #expect(alice.text.string == expected, "ids \(first), \(second)")
            #expect(bob.text.string == expected, "ids \(first), \(second)")
            alice.expectMatchesReference()
            bob.expectMatchesReference()
        }
    }

    @Test(arguments: places)
    func backwardTypingDoesNotInterleave(base: String, offset: Int) throws {
        for (first, second) in [(UInt64(1), UInt64(2)), (2, 1)] {
            var (alice, bob) = try twins(base: base, first, second)
            // Each character goes before the previous one: typing "milk" from its end.
            for character in "milk".unicodeScalars.reversed() {
                try alice.insert(String(character), at: offset)
            }
            for character in "eggs".unicodeScalars.reversed() {
                try bob.insert(String(character), at: offset)
            }
            #expect(alice.text.string == insert("milk", into: base, at: offset))
            try exchange(&alice, &bob)
            let runs = first < second ? "milkeggs" : "eggsmilk"
            let expected = insert(runs, into: base, at: offset)
            #expect(alice.text.string == expected, "ids \(first), \(second)")
            #expect(bob.text.string == expected, "ids \(first), \(second)")
            alice.expectMatchesReference()
            bob.expectMatchesReference()
        }
    }

    /// One replica types forwards, the other backwards, at the same place.
    @Test(arguments: places)
    func forwardAndBackwardTypingDoNotInterleave(base: String, offset: Int) throws {
        for (first, second) in [(UInt64(1), UInt64(2)), (2, 1)] {
            var (alice, bob) = try twins(base: base, first, second)
            for (index, character) in "milk".unicodeScalars.enumerated() {
                try alice.insert(String(character), at: offset + index)
            }
            for character in "eggs".unicodeScalars.reversed() {
                try bob.insert(String(character), at: offset)
            }
            try exchange(&alice, &bob)
            let candidates = [insert("milkeggs", into: base, at: offset), insert("eggsmilk", into: base, at: offset)]
            #expect(candidates.contains(alice.text.string), "ids \(first), \(second): \(alice.text.string)")
            #expect(alice.text.string == bob.text.string)
            alice.expectMatchesReference()
            bob.expectMatchesReference()
        }
    }

    /// The three-replica case the paper uses to show that Yjs's original algorithm can
    /// interleave: replica C inserts "c"; A receives it and inserts "a" before it; concurrently B
    /// inserts "b" into its empty text. With ids A < B < C, FugueMax gives "bac": "b" and "c"
    /// are both inserted at the start of an empty text, so they are ordered by id, and "a" stays
    /// attached to the "c" it was typed in front of.
    @Test func yjsInterleavingCase() throws {
        let (a, b, c) = (UInt64(1), UInt64(2), UInt64(3))
        let result = try yjsCase(a: a, b: b, c: c)
        #expect(result.text == "bac")
        #expect(result.reference == "bac")
    }

    /// The same three-replica case under every assignment of ids: the text and the reference
    /// agree, "a" is always right before "c", and "b" goes before or after that pair by id.
    @Test func yjsInterleavingCaseUnderEveryIDOrder() throws {
        for (a, b, c) in [(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1)] as [(UInt64, UInt64, UInt64)] {
            let result = try yjsCase(a: a, b: b, c: c)
            #expect(result.text == result.reference, "ids a=\(a) b=\(b) c=\(c)")
            #expect(result.text == (b < c ? "bac" : "acb"), "ids a=\(a) b=\(b) c=\(c)")
        }
    }

    /// Runs the Yjs case and returns the merged text of TextCRDT and of the reference.
    private func yjsCase(a: UInt64, b: UInt64, c: UInt64) throws -> (text: String, reference: String) {
        var replicaC = FugueTwin(replica: c)
        var replicaA = FugueTwin(replica: a)
        var replicaB = FugueTwin(replica: b)
        try replicaC.insert("c", at: 0)
        try replicaA.receive(replicaC)
        try replicaA.insert("a", at: 0)
        try replicaB.insert("b", at: 0)
        // Everyone receives everything, in different orders.
        try replicaB.receive(replicaA)
        try replicaA.receive(replicaB)
        try replicaC.receive(replicaB)
        try replicaC.receive(replicaA)
        for twin in [replicaA, replicaB, replicaC] {
            twin.expectMatchesReference()
            #expect(twin.text.string == replicaA.text.string)
        }
        return (replicaA.text.string, replicaA.reference.text)
    }

    /// 3 to 5 replicas type runs at one place concurrently, each forwards, backwards, or
    /// anywhere inside its own run, in several calls of 1 to 3 scalars. After a full sync each
    /// replica's run is one contiguous block holding exactly what that replica typed.
    @Test(arguments: testSeeds(16, salt: 0x1A7E_0001))
    func concurrentRunsStayContiguous(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let count = random.int(in: 3...5)
        var twins: [FugueTwin] = []
        var seedTwin = FugueTwin(replica: random.next())
        try seedTwin.insert(RandomText.string(random.int(in: 0...12), using: &random), at: 0)
        for _ in 0..<count {
            twins.append(seedTwin.fork(replica: ReplicaID(random.next())))
        }
        let base = seedTwin.text.lengthScalars
        let position = random.int(in: 0...base)
        var runs: [[Unicode.Scalar]] = []
        var firstCounters: [UInt32] = []
        for index in twins.indices {
            firstCounters.append(twins[index].text.version[twins[index].text.replica])
            var run: [Unicode.Scalar] = []
            let style = random.int(in: 0..<3)
            while run.count < 12 {
                let scalars = RandomText.scalars(random.int(in: 1...3), using: &random)
                let offset: Int
                switch style {
                case 0: offset = run.count  // forwards
                case 1: offset = 0  // backwards
                default: offset = random.int(in: 0...run.count)  // anywhere inside the run
                }
                try twins[index].insert(scalars.string, at: position + offset)
                run.insert(contentsOf: scalars, at: offset)
            }
            #expect(Array(twins[index].text.string.unicodeScalars)[position..<position + run.count] == run[...])
            runs.append(run)
        }
        // Random pairwise syncs, then a full sync.
        for _ in 0..<count * 2 {
            let receiver = random.int(in: 0..<count)
            let sender = (receiver + random.int(in: 1..<count)) % count
            try twins[receiver].receive(twins[sender])
        }
        for receiver in twins.indices {
            for sender in twins.indices where sender != receiver { try twins[receiver].receive(twins[sender]) }
        }
        for receiver in twins.indices { try twins[receiver].receive(twins[count - 1]) }
        let merged = twins[0].text
        let visible = merged.itemsInDocumentOrder.filter { !$0.isDeleted }.map(\.id)
        let scalars = Array(merged.string.unicodeScalars)
        for index in twins.indices {
            #expect(twins[index].text.string == merged.string, "seed \(seed)")
            twins[index].expectMatchesReference("seed \(seed)")
            let replica = twins[index].text.replica
            let places = visible.indices.filter {
                visible[$0].replica == replica && visible[$0].counter >= firstCounters[index]
            }
            guard let first = places.first, let last = places.last else {
                Issue.record("seed \(seed): replica \(index)'s run is missing")
                continue
            }
            #expect(last - first + 1 == places.count, "seed \(seed): replica \(index)'s run is split: \(merged.string.debugDescription)")
            #expect(scalars[first...last] == runs[index][...], "seed \(seed): replica \(index)'s run changed")
        }
    }

    // MARK: Helpers

    /// Two replicas with ids `first` and `second` holding `base` (typed by a third replica).
    private func twins(base: String, _ first: UInt64, _ second: UInt64) throws -> (FugueTwin, FugueTwin) {
        var origin = FugueTwin(replica: 100)
        // Typed in one go, so each character is the right child of the one before.
        try origin.insert(base, at: 0)
        var alice = FugueTwin(replica: first)
        var bob = FugueTwin(replica: second)
        try alice.receive(origin)
        try bob.receive(origin)
        return (alice, bob)
    }

    private func exchange(_ alice: inout FugueTwin, _ bob: inout FugueTwin) throws {
        let aliceBefore = alice
        try alice.receive(bob)
        try bob.receive(aliceBefore)
    }

    private func insert(_ text: String, into base: String, at offset: Int) -> String {
        var scalars = Array(base.unicodeScalars)
        scalars.insert(contentsOf: text.unicodeScalars, at: offset)
        return scalars.string
    }
}

/// A replica held twice: as a `TextCRDT` and as the tree-form reference, edited and merged alike.
struct FugueTwin {
    var text: TextCRDT
    var reference: ReferenceFugueMax

    /// A new empty replica with raw id `raw`.
    init(replica raw: UInt64) {
        text = TextCRDT(replica: ReplicaID(raw))
        reference = ReferenceFugueMax(replica: ReplicaID(raw))
    }

    private init(text: TextCRDT, reference: ReferenceFugueMax) {
        self.text = text
        self.reference = reference
    }

    func fork(replica: ReplicaID) -> FugueTwin {
        FugueTwin(text: text.fork(replica: replica), reference: reference.fork(replica: replica))
    }

    /// Inserts `string` at scalar offset `offset` in both.
    mutating func insert(_ string: String, at offset: Int) throws {
        try text.insert(string, atScalar: offset)
        reference.insert(string, at: offset)
    }

    /// Deletes the scalar range `range` in both.
    mutating func delete(_ range: Range<Int>) throws {
        try text.delete(scalarRange: range)
        reference.delete(range: range)
    }

    /// Receives everything `other` holds: the text by a delta, the reference by its own merge.
    mutating func receive(_ other: FugueTwin) throws {
        let report = try text.apply(other.text.changes(since: text.version))
        #expect(report.pendingOperationCount == 0 && report.rejectedOperationCount == 0)
        reference.merge(from: other.reference)
    }

    /// Expects the text to agree with the reference item by item.
    func expectMatchesReference(_ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        let difference = reference.difference(from: text)
        #expect(difference == nil, "\(context) \(difference ?? "")\n\(reference.treeDescription)", sourceLocation: sourceLocation)
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try text.checkInvariants() }
    }
}
