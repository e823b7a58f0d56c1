import MemoCRDT
import TestSupport
import Testing

@Suite struct TextLocalEditingTests {
    @Test func insertDeleteReplaceBasics() throws {
        var text = TextCRDT(replica: ReplicaID(1))
        try text.insert("Hello world", atUTF16: 0)
        #expect(text.string == "Hello world")
        try text.insert(",", atUTF16: 5)
        #expect(text.string == "Hello, world")
        try text.delete(utf16Range: 0..<7)
        #expect(text.string == "world")
        try text.replace(utf16Range: 0..<1, with: "W")
        #expect(text.string == "World")
        #expect(text.lengthUTF16 == 5 && text.lengthScalars == 5)
        try text.checkInvariants()
    }

    /// Random local edits against a plain array of scalars, checked after every edit.
    @Test(arguments: testSeeds(20))
    func randomEditsMatchPlainText(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var text = TextCRDT(replica: ReplicaID(random.next()))
        var model: [Unicode.Scalar] = []
        for step in 0..<400 {
            let length = model.count
            if length == 0 || random.chance(0.6) {
                let offset = random.int(in: 0...length)
                let inserted = RandomText.scalars(random.int(in: 1...(random.chance(0.1) ? 40 : 4)), using: &random)
                try text.insert(inserted.string, atScalar: offset)
                model.insert(contentsOf: inserted, at: offset)
            } else {
                let lower = random.int(in: 0..<length)
                let upper = min(length, lower + random.int(in: 1...8))
                if random.chance(0.3) {
                    let inserted = RandomText.scalars(random.int(in: 0...3), using: &random)
                    try text.replace(scalarRange: lower..<upper, with: inserted.string)
                    model.replaceSubrange(lower..<upper, with: inserted)
                } else {
                    try text.delete(scalarRange: lower..<upper)
                    model.removeSubrange(lower..<upper)
                }
            }
            #expect(text.string == model.string, "seed \(seed) step \(step)")
            #expect(text.lengthScalars == model.count, "seed \(seed) step \(step)")
            #expect(text.lengthUTF16 == model.string.utf16.count, "seed \(seed) step \(step)")
            try text.checkInvariants()
            if text.string != model.string { return }
        }
    }

    /// Typing then holding backspace (single-scalar deletions walking left), at random places,
    /// in several planes: the text matches a plain array, a peer that receives the changes gets
    /// the same items, and the encoding round-trips.
    @Test(arguments: testSeeds(20, salt: 0xBAC5))
    func heldBackspace(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var text = TextCRDT(replica: ReplicaID(1))
        var model: [Unicode.Scalar] = []
        var peer = TextCRDT(replica: ReplicaID(2))
        for round in 0..<40 {
            var position = random.int(in: 0...model.count)
            let typed = RandomText.scalars(random.int(in: 1...12), using: &random)
            for scalar in typed {
                try text.insert(String(scalar), atScalar: position)
                model.insert(scalar, at: position)
                position += 1
            }
            for _ in 0..<random.int(in: 0...(typed.count + 3)) where position > 0 {
                try text.delete(scalarRange: position - 1..<position)
                model.remove(at: position - 1)
                position -= 1
            }
            #expect(text.string == model.string, "seed \(seed) round \(round)")
            try text.checkInvariants()
            if random.chance(0.3) {
                try peer.apply(text.changes(since: peer.version))
                try peer.checkInvariants()
                #expect(peer.string == text.string, "seed \(seed) round \(round)")
            }
        }
        let decoded = try TextCRDT(decoding: text.encoded(), replica: ReplicaID(3))
        #expect(decoded.string == model.string, "seed \(seed)")
        #expect(decoded.encoded() == text.encoded(), "seed \(seed)")
    }

    /// The example in README.md, step by step.
    @Test func readmeExample() throws {
        var alice = TextCRDT(replica: ReplicaID(0xA11CE))
        try alice.insert("Buy milk", atUTF16: 0)
        var bob = alice.fork(replica: ReplicaID(0xB0B))
        try alice.insert(" and eggs", atUTF16: 8)
        try bob.replace(utf16Range: 4..<8, with: "oat milk")
        let toBob = alice.changes(since: bob.version).encoded()
        let toAlice = bob.changes(since: alice.version).encoded()
        try bob.apply(TextDelta(decoding: toBob))
        try alice.apply(TextDelta(decoding: toAlice))
        #expect(alice.string == "Buy oat milk and eggs")
        #expect(alice.string == bob.string)
    }
}
