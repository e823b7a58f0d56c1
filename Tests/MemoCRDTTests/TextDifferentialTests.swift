import MemoCRDT
import TestSupport
import Testing

/// Random multi-replica runs checked step by step against the tree-form reference
/// (`ReferenceFugueMax`): every replica is held twice, as a `TextCRDT` and as a reference, and
/// both get the same local edits and the same merges. After a local edit the texts must agree;
/// after a merge the whole item order (tombstones included, with deletion flags) must agree.
@Suite struct TextDifferentialTests {
    /// Mixed editing and frequent pairwise syncing.
    @Test(arguments: testSeeds(10, salt: 0xD1FF_0001))
    func randomEditsAndMerges(seed: UInt64) {
        var run = FugueDifferentialRun(seed: seed)
        run.randomPhase(steps: 160, mergeProbability: 0.25)
        run.syncEverything()
        run.finish()
    }

    /// Long divergence: replicas edit for a long time between rare syncs, so merges bring in
    /// many concurrent runs at once.
    @Test(arguments: testSeeds(6, salt: 0xD1FF_0002))
    func rareSyncs(seed: UInt64) {
        var run = FugueDifferentialRun(seed: seed)
        run.randomPhase(steps: 220, mergeProbability: 0.03)
        run.syncEverything()
        run.randomPhase(steps: 80, mergeProbability: 0.03)
        run.syncEverything()
        run.finish()
    }

    /// Replicas type concurrently at one shared position (forwards, backwards, or anywhere in
    /// their own run), partly syncing in between, so concurrent insertions share origins (ties
    /// broken by replica id) or have different right origins at the same parent.
    @Test(arguments: testSeeds(10, salt: 0xD1FF_0003))
    func concurrentTypingAtOnePlace(seed: UInt64) {
        var run = FugueDifferentialRun(seed: seed)
        run.randomPhase(steps: 20, mergeProbability: 0.2)
        for _ in 0..<4 {
            run.syncEverything()
            run.hotSpotRound()
        }
        run.syncEverything()
        run.finish()
    }

    /// All replicas make many small edits in one small region with frequent partial syncs:
    /// left siblings, and right siblings with different right origins.
    @Test(arguments: testSeeds(10, salt: 0xD1FF_0005))
    func tangledEditsInOneRegion(seed: UInt64) {
        var run = FugueDifferentialRun(seed: seed)
        run.randomPhase(steps: 10, mergeProbability: 0.2)
        for _ in 0..<3 {
            run.syncEverything()
            run.tangleRound(steps: 60)
        }
        run.syncEverything()
        run.finish()
    }

    /// A paste longer than `Limits.spanLengthScalarsMax`, which the text stores as several spans,
    /// typed into concurrently and then edited around the place where it is cut. (Splitting both
    /// sides of such a cut once left two mergeable one-item spans unmerged; the minimal case:
    /// paste 2 * limit scalars at 0, insert at limit + 1, insert at limit - 1.)
    @Test func pasteLongerThanOneSpan() throws {
        let limit = Limits.spanLengthScalarsMax
        var minimal = TextCRDT(replica: ReplicaID(1))
        try minimal.insert(String(repeating: "a", count: 2 * limit), atScalar: 0)
        try minimal.insert("x", atScalar: limit + 1)
        try minimal.insert("y", atScalar: limit - 1)
        try minimal.checkInvariants()

        var run = FugueDifferentialRun(seed: 0x5EED, replicaIDs: [ReplicaID(5), ReplicaID(3), ReplicaID(4)])
        run.insert(at: 0, in: 0, count: 10)
        run.syncEverything()
        run.insert(at: 5, in: 0, count: limit + 20)
        run.insert(at: 5, in: 1, count: 3)
        run.insert(at: 6, in: 2, count: 2)
        run.syncEverything()
        let cut = 5 + limit
        for offset in [cut - 1, cut, cut + 1, cut + 5] {
            run.insert(at: offset, in: 1, count: 1)
            run.insert(at: offset, in: 2, count: 2)
        }
        run.delete(cut - 3..<cut + 3, in: 0)
        run.insert(at: cut, in: 0, count: 2)
        run.syncEverything()
        run.finish()
    }

    /// Replica ids 1 to 4, so every tie is between neighbouring ids, and hot-spot rounds that
    /// start without a full sync (replicas type at the same offset of different texts).
    @Test(arguments: testSeeds(6, salt: 0xD1FF_0004))
    func adjacentReplicaIDs(seed: UInt64) {
        var run = FugueDifferentialRun(seed: seed, replicaIDs: (1...4).map { ReplicaID(UInt64($0)) })
        for _ in 0..<5 {
            run.hotSpotRound()
            run.randomPhase(steps: 15, mergeProbability: 0.3)
        }
        run.syncEverything()
        run.finish()
    }
}

/// One randomized run over 2 to 5 replicas, each a `TextCRDT` paired with a reference.
/// Stops at the first disagreement and records it with the seed, the step and the recent actions.
struct FugueDifferentialRun {
    struct Replica {
        var text: TextCRDT
        var reference: ReferenceFugueMax
    }

    let seed: UInt64
    var random: SeededRandom
    var replicas: [Replica]
    var step = 0
    /// What happened so far, for the failure message.
    var trace: [String] = []
    var failed = false

    init(seed: UInt64, replicaIDs: [ReplicaID]? = nil) {
        self.seed = seed
        random = SeededRandom(seed: seed)
        var ids = replicaIDs ?? []
        if replicaIDs == nil {
            let count = random.int(in: 2...5)
            while ids.count < count {
                let id = ReplicaID(random.chance(0.5) ? random.next() : UInt64(random.int(in: 1...50)))
                if !ids.contains(id) { ids.append(id) }
            }
        }
        replicas = ids.map { Replica(text: TextCRDT(replica: $0), reference: ReferenceFugueMax(replica: $0)) }
    }

    // MARK: Phases

    /// `steps` random local edits and pairwise merges.
    mutating func randomPhase(steps: Int, mergeProbability: Double) {
        for index in 0..<steps where !failed {
            if random.chance(mergeProbability) {
                let (receiver, sender) = randomPair()
                merge(into: receiver, from: sender)
                if random.chance(0.3) { merge(into: sender, from: receiver) }
            } else {
                let replica = random.int(in: 0..<replicas.count)
                if replicas[replica].reference.lengthScalars == 0 || random.chance(0.65) {
                    let length = replicas[replica].reference.lengthScalars
                    insert(
                        at: random.int(in: 0...length), in: replica,
                        count: random.chance(0.85) ? random.int(in: 1...4) : random.int(in: 5...30))
                } else {
                    deleteOrReplace(in: replica)
                }
            }
            if index % 50 == 49 { checkStructures() }
        }
    }

    /// Every replica types at one shared position (chosen in replica 0's text, synced or not)
    /// in bursts, with partial syncing between bursts. A replica that receives a merge starts a
    /// new run at the shared position, now in front of whatever runs arrived there, so its next
    /// insertions have the same left origin as earlier ones but other right origins.
    mutating func hotSpotRound() {
        let shared = replicas[0].reference.lengthScalars
        let position = random.int(in: 0...shared)
        // Each replica's typed run: where it starts in that replica's text and how long it is.
        // (Replicas that are not synced, or that received text before the position, just type
        // at that offset of their own text.)
        var runStart = replicas.map { min(position, $0.reference.lengthScalars) }
        var runLength = Array(repeating: 0, count: replicas.count)
        for _ in 0..<3 where !failed {
            for replica in replicas.indices where !failed && random.chance(0.85) {
                let style = random.int(in: 0..<3)
                for _ in 0..<random.int(in: 1...5) where !failed {
                    let offset: Int
                    switch style {
                    case 0: offset = runStart[replica] + runLength[replica]  // forwards
                    case 1: offset = runStart[replica]  // backwards
                    default: offset = runStart[replica] + random.int(in: 0...runLength[replica])  // anywhere in the run
                    }
                    let count = random.chance(0.8) ? 1 : random.int(in: 2...4)
                    insert(at: offset, in: replica, count: count)
                    runLength[replica] += count
                }
            }
            // Partial sync: a few random pairs.
            for _ in 0..<random.int(in: 0...replicas.count) where !failed {
                let (receiver, sender) = randomPair()
                merge(into: receiver, from: sender)
                // The receiver's run may have moved; the simplest safe choice is to restart it
                // at the shared position.
                runStart[receiver] = min(position, replicas[receiver].reference.lengthScalars)
                runLength[receiver] = 0
            }
        }
        checkStructures()
    }

    /// Many small edits by all replicas inside one small region, with frequent partial syncs.
    /// Call on synced replicas. Typed text rarely gives a node two right children with different
    /// right origins (that needs replicas that saw different things right after the node); this
    /// round makes such sibling sets, and left siblings, common.
    mutating func tangleRound(steps: Int) {
        let base = replicas[0].reference.lengthScalars
        let position = random.int(in: 0...base)
        for index in 0..<steps where !failed {
            if random.chance(0.3) {
                let (receiver, sender) = randomPair()
                merge(into: receiver, from: sender)
                continue
            }
            let replica = random.int(in: 0..<replicas.count)
            // Everything new in this round lies between the base scalars at position - 1 and
            // position, so the region is position ..< position + (length - base).
            let added = replicas[replica].reference.lengthScalars - base
            if added > 0 && random.chance(0.15) {
                let lower = position + random.int(in: 0..<added)
                let upper = min(position + added, lower + random.int(in: 1...2))
                delete(lower..<upper, in: replica)
            } else {
                insert(at: position + random.int(in: 0...added), in: replica, count: random.chance(0.9) ? 1 : 2)
            }
            if index % 30 == 29 { checkStructures() }
        }
        checkStructures()
    }

    /// Every replica receives from every other until all hold everything.
    mutating func syncEverything() {
        for receiver in replicas.indices where !failed {
            for sender in replicas.indices where sender != receiver && !failed {
                merge(into: receiver, from: sender)
            }
        }
        for receiver in replicas.indices.dropLast() where !failed {
            merge(into: receiver, from: replicas.count - 1)
        }
        checkStructures()
    }

    /// Checks that all replicas converged to one item order.
    mutating func finish() {
        guard !failed else { return }
        checkStructures()
        let first = replicas[0].text.itemsInDocumentOrder.map { "\($0.id)\($0.isDeleted)" }
        for replica in replicas.indices.dropFirst() {
            let order = replicas[replica].text.itemsInDocumentOrder.map { "\($0.id)\($0.isDeleted)" }
            if order != first || replicas[replica].text.string != replicas[0].text.string {
                fail("replica \(replica) did not converge with replica 0 after a full sync")
                return
            }
        }
        #expect(replicas[0].text.operationCount > 0, "seed \(seed): the run made no operations")
    }

    // MARK: Actions

    mutating func randomPair() -> (Int, Int) {
        let first = random.int(in: 0..<replicas.count)
        var second = random.int(in: 0..<replicas.count - 1)
        if second >= first { second += 1 }
        return (first, second)
    }

    mutating func insert(at offset: Int, in replica: Int, count: Int) {
        step += 1
        let scalars = RandomText.scalars(count, using: &random)
        let viaUTF16 = random.chance(0.5)
        trace.append("\(step): r\(replica) insert \(scalars.string.debugDescription) at \(offset)\(viaUTF16 ? " (UTF-16)" : "")")
        do {
            if viaUTF16 {
                try replicas[replica].text.insert(scalars.string, atUTF16: utf16Offset(offset, in: replica))
            } else {
                try replicas[replica].text.insert(scalars.string, atScalar: offset)
            }
        } catch {
            fail("insert threw \(error)")
            return
        }
        replicas[replica].reference.insert(scalars, at: offset)
        compare(replica, items: false)
    }

    mutating func delete(_ range: Range<Int>, in replica: Int) {
        step += 1
        trace.append("\(step): r\(replica) delete \(range)")
        do {
            try replicas[replica].text.delete(scalarRange: range)
        } catch {
            fail("delete threw \(error)")
            return
        }
        replicas[replica].reference.delete(range: range)
        compare(replica, items: false)
    }

    mutating func deleteOrReplace(in replica: Int) {
        step += 1
        let length = replicas[replica].reference.lengthScalars
        let lower = random.int(in: 0..<length)
        let upper = min(length, lower + (random.chance(0.8) ? random.int(in: 1...3) : random.int(in: 4...20)))
        let viaUTF16 = random.chance(0.5)
        let replacement = random.chance(0.25) ? RandomText.scalars(random.int(in: 0...3), using: &random) : nil
        trace.append(
            "\(step): r\(replica) " + (replacement.map { "replace \(lower)..<\(upper) with \($0.string.debugDescription)" }
                ?? "delete \(lower)..<\(upper)") + (viaUTF16 ? " (UTF-16)" : ""))
        do {
            let utf16Range = utf16Offset(lower, in: replica)..<utf16Offset(upper, in: replica)
            switch (replacement, viaUTF16) {
            case (nil, false): try replicas[replica].text.delete(scalarRange: lower..<upper)
            case (nil, true): try replicas[replica].text.delete(utf16Range: utf16Range)
            case let (scalars?, false): try replicas[replica].text.replace(scalarRange: lower..<upper, with: scalars.string)
            case let (scalars?, true): try replicas[replica].text.replace(utf16Range: utf16Range, with: scalars.string)
            }
        } catch {
            fail("delete threw \(error)")
            return
        }
        replicas[replica].reference.delete(range: lower..<upper)
        if let replacement { replicas[replica].reference.insert(replacement, at: lower) }
        compare(replica, items: false)
    }

    /// `receiver` gets everything `sender` holds: by delta (usually) or by `merge`.
    mutating func merge(into receiver: Int, from sender: Int) {
        step += 1
        let byDelta = random.chance(0.65)
        trace.append("\(step): r\(receiver) <- r\(sender) \(byDelta ? "apply" : "merge")")
        let source = replicas[sender].text
        if byDelta {
            do {
                let report = try replicas[receiver].text.apply(source.changes(since: replicas[receiver].text.version))
                if report.pendingOperationCount != 0 || report.rejectedOperationCount != 0 {
                    fail("apply held back \(report.pendingOperationCount) and rejected \(report.rejectedOperationCount) operations")
                    return
                }
            } catch {
                fail("apply threw \(error)")
                return
            }
        } else {
            do {
                try replicas[receiver].text.merge(source)
            } catch {
                fail("merge threw \(error)")
                return
            }
        }
        replicas[receiver].reference.merge(from: replicas[sender].reference)
        if replicas[receiver].text.replica != replicas[receiver].reference.replica {
            fail("merging changed the receiver's replica id")
        }
        compare(receiver, items: true)
    }

    // MARK: Checks

    func utf16Offset(_ scalarOffset: Int, in replica: Int) -> Int {
        replicas[replica].reference.visibleScalars[..<scalarOffset].reduce(0) { $0 + ($1.value > 0xFFFF ? 2 : 1) }
    }

    mutating func compare(_ replica: Int, items: Bool) {
        guard !failed else { return }
        if let difference = replicas[replica].reference.difference(from: replicas[replica].text, items: items) {
            fail("replica \(replica): \(difference)")
        }
    }

    mutating func checkStructures() {
        guard !failed else { return }
        for index in replicas.indices {
            do {
                try replicas[index].text.checkInvariants()
            } catch {
                fail("replica \(index) invariant: \(error)")
                return
            }
            let problems = replicas[index].reference.treeProblems()
            if !problems.isEmpty {
                fail("replica \(index) reference tree: \(problems)")
                return
            }
        }
    }

    mutating func fail(_ message: String) {
        guard !failed else { return }
        failed = true
        let ids = replicas.enumerated().map { "r\($0.offset)=\($0.element.text.replica)" }.joined(separator: " ")
        Issue.record(
            """
            seed \(seed) step \(step): \(message)
            replicas: \(ids)
            last actions:
            \(trace.suffix(25).joined(separator: "\n"))
            """)
    }
}
