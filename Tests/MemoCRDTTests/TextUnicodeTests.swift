import MemoCRDT
import TestSupport
import Testing

/// Text beyond ASCII: offsets in UTF-16 units and in Unicode scalars, surrogate pairs, and the
/// typed errors for offsets that are out of range or split a pair. Texts are compared scalar by
/// scalar: `String ==` treats canonically equivalent texts (precomposed and decomposed Hangul)
/// as equal, which would hide a wrong scalar.
@Suite struct TextUnicodeTests {
    static let samples: [String] = [
        "한국어 텍스트",  // precomposed Hangul syllables
        "\u{1112}\u{1161}\u{11AB}\u{1100}\u{1173}\u{11AF}",  // the same kind of text as conjoining jamo
        "日本語のテキスト、カタカナ",
        "😀 grin 👍🏽",  // astral scalars, a skin-tone modifier
        "👨\u{200D}👩\u{200D}👧\u{200D}👦 family",  // a ZWJ sequence
        "🇯🇵🇫🇷🇰🇷",  // flags: pairs of regional indicators, all astral
        "e\u{301}a\u{308} 한\u{1100}😀x🇯🇵日",  // everything mixed, with combining marks
    ]

    // MARK: Offsets

    /// Both conversions, at every offset, against `String.unicodeScalars` and `String.utf16`,
    /// for texts built in pieces by two replicas (so offsets cross spans of both).
    @Test(arguments: samples)
    func offsetConversionsMatchStringViews(sample: String) throws {
        let text = try builtInPieces(sample)
        let scalars = Array(sample.unicodeScalars)
        #expect(Array(text.string.unicodeScalars) == scalars)
        #expect(text.lengthScalars == scalars.count)
        #expect(text.lengthUTF16 == sample.utf16.count)
        try expectOffsetsMatch(text, scalars)
    }

    /// The same with tombstones between the visible scalars: random deletions, then the offsets
    /// of what is left.
    @Test(arguments: testSeeds(10, salt: 0x0C0D_E001))
    func offsetConversionsSkipDeletedText(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var model = RandomText.scalars(40, using: &random)
        var text = TextCRDT(replica: ReplicaID(1))
        try text.insert(model.string, atScalar: 0)
        for _ in 0..<8 {
            if random.chance(0.5) {
                let inserted = RandomText.scalars(random.int(in: 1...5), using: &random)
                let offset = random.int(in: 0...model.count)
                try text.insert(inserted.string, atUTF16: utf16Length(model[..<offset]))
                model.insert(contentsOf: inserted, at: offset)
            } else if !model.isEmpty {
                let lower = random.int(in: 0..<model.count)
                let upper = min(model.count, lower + random.int(in: 1...6))
                try text.delete(utf16Range: utf16Length(model[..<lower])..<utf16Length(model[..<upper]))
                model.removeSubrange(lower..<upper)
            }
            #expect(Array(text.string.unicodeScalars) == model, "seed \(seed)")
            try expectOffsetsMatch(text, model, context: "seed \(seed)")
        }
    }

    // MARK: Surrogate pairs

    /// Every way of naming a UTF-16 offset inside a surrogate pair throws
    /// `offsetInsideSurrogatePair` with that offset and changes nothing.
    @Test(arguments: samples)
    func offsetsInsideSurrogatePairsThrowAndChangeNothing(sample: String) throws {
        var text = try builtInPieces(sample)
        let units = Array(sample.utf16)
        let length = units.count
        let before = Snapshot(text)
        let inside = (1..<max(length, 1)).filter { UTF16.isTrailSurrogate(units[$0]) }
        #expect(inside.isEmpty == !sample.unicodeScalars.contains { $0.value > 0xFFFF })
        for offset in inside {
            let error = TextError.offsetInsideSurrogatePair(offsetUTF16: offset)
            #expect(throws: error) { try text.scalarOffset(fromUTF16: offset) }
            #expect(throws: error) { try text.insert("x", atUTF16: offset) }
            #expect(throws: error) { try text.insert("😀", atUTF16: offset) }
            #expect(throws: error) { try text.delete(utf16Range: offset..<length) }
            #expect(throws: error) { try text.delete(utf16Range: 0..<offset) }
            #expect(throws: error) { try text.delete(utf16Range: offset..<offset) }
            #expect(throws: error) { try text.replace(utf16Range: offset..<length, with: "x") }
            #expect(throws: error) { try text.replace(utf16Range: 0..<offset, with: "x") }
            #expect(Snapshot(text) == before, "offset \(offset)")
        }
        // Next to a pair is fine.
        if let offset = inside.first {
            try text.insert("|", atUTF16: offset + 1)
            try text.insert("|", atUTF16: offset - 1)
            let bar = "|".utf16.first!
            var expected = units
            expected.insert(bar, at: offset + 1)
            expected.insert(bar, at: offset - 1)
            #expect(Array(text.string.utf16) == expected)
        }
        try text.checkInvariants()
    }

    // MARK: Out-of-range offsets and ranges

    @Test(arguments: samples)
    func outOfRangeOffsetsAndRangesThrowAndChangeNothing(sample: String) throws {
        var text = try builtInPieces(sample)
        let scalars = text.lengthScalars
        let units = text.lengthUTF16
        let before = Snapshot(text)
        for offset in [-1, -100, units + 1, units + 100] {
            let error = TextError.offsetOutOfBounds(offset: offset, length: units)
            #expect(throws: error) { try text.scalarOffset(fromUTF16: offset) }
            #expect(throws: error) { try text.insert("x", atUTF16: offset) }
        }
        for offset in [-1, -100, scalars + 1, scalars + 100] {
            let error = TextError.offsetOutOfBounds(offset: offset, length: scalars)
            #expect(throws: error) { try text.utf16Offset(fromScalar: offset) }
            #expect(throws: error) { try text.insert("x", atScalar: offset) }
        }
        for range in [-1..<1, 0..<units + 1, units..<units + 1, units + 1..<units + 2, -3..<(-1)] {
            let error = TextError.rangeOutOfBounds(lowerBound: range.lowerBound, upperBound: range.upperBound, length: units)
            #expect(throws: error) { try text.delete(utf16Range: range) }
            #expect(throws: error) { try text.replace(utf16Range: range, with: "x") }
        }
        for range in [-1..<1, 0..<scalars + 1, scalars..<scalars + 1, scalars + 1..<scalars + 2, -3..<(-1)] {
            let error = TextError.rangeOutOfBounds(lowerBound: range.lowerBound, upperBound: range.upperBound, length: scalars)
            #expect(throws: error) { try text.delete(scalarRange: range) }
            #expect(throws: error) { try text.replace(scalarRange: range, with: "x") }
        }
        #expect(Snapshot(text) == before)
        // The bounds themselves are valid.
        #expect(try text.scalarOffset(fromUTF16: units) == scalars)
        #expect(try text.utf16Offset(fromScalar: scalars) == units)
        try text.insert("!", atUTF16: units)
        try text.insert("¡", atScalar: 0)
        #expect(Array(text.string.unicodeScalars) == ["¡"] + Array(sample.unicodeScalars) + ["!"])
    }

    /// An empty text: only offset 0 and the empty range 0..<0 exist.
    @Test func emptyTextBounds() throws {
        var text = TextCRDT(replica: ReplicaID(1))
        #expect(try text.scalarOffset(fromUTF16: 0) == 0)
        #expect(try text.utf16Offset(fromScalar: 0) == 0)
        #expect(throws: TextError.offsetOutOfBounds(offset: 1, length: 0)) { try text.insert("x", atUTF16: 1) }
        #expect(throws: TextError.rangeOutOfBounds(lowerBound: 0, upperBound: 1, length: 0)) {
            try text.delete(scalarRange: 0..<1)
        }
        try text.delete(utf16Range: 0..<0)
        try text.insert("", atUTF16: 0)
        #expect(text.operationCount == 0)
    }

    // MARK: Editing inside clusters, across replicas

    /// Scalar-level edits inside grapheme clusters (between jamo, inside a ZWJ sequence, between
    /// the two halves of a flag), made concurrently by two replicas and merged: both converge,
    /// agree with the reference, and the reported UTF-16 edits turn the old text into the new.
    @Test func concurrentEditsInsideClusters() throws {
        let base = "\u{1112}\u{1161}\u{11AB}👨\u{200D}👩\u{200D}👧🇯🇵"
        var origin = FugueTwin(replica: 9)
        try origin.insert(base, at: 0)
        var alice = origin.fork(replica: ReplicaID(1))
        var bob = origin.fork(replica: ReplicaID(2))
        // Alice: a vowel jamo replaced, a woman turned into a man, a second flag inside the first.
        try alice.delete(1..<2)
        try alice.insert("\u{1165}", at: 1)
        try alice.delete(5..<6)
        try alice.insert("👨", at: 5)
        try alice.insert("🇫🇷", at: 9)
        // Bob: the ZWJs deleted, a skin tone added, an emoji at the end.
        try bob.delete(6..<7)
        try bob.delete(4..<5)
        try bob.insert("🏽", at: 4)
        try bob.insert("😀", at: bob.text.lengthScalars)
        for (receiver, sender) in [(0, 1), (1, 0)] {
            var twin = receiver == 0 ? alice : bob
            let other = receiver == 0 ? bob : alice
            var shadow = Array(twin.text.string.utf16)
            let report = try twin.text.apply(other.text.changes(since: twin.text.version), recordingEdits: true)
            twin.reference.merge(from: other.reference)
            for edit in report.edits { edit.apply(to: &shadow) }
            #expect(shadow == Array(twin.text.string.utf16), "receiver \(receiver) from \(sender)")
            twin.expectMatchesReference()
            if receiver == 0 { alice = twin } else { bob = twin }
        }
        #expect(Array(alice.text.string.unicodeScalars) == Array(bob.text.string.unicodeScalars))
        try expectOffsetsMatch(alice.text, Array(alice.text.string.unicodeScalars))
    }

    // MARK: Helpers

    /// `sample` typed in random pieces, left to right, alternately by two replicas that merge
    /// after each piece.
    private func builtInPieces(_ sample: String) throws -> TextCRDT {
        var random = SeededRandom(seed: UInt64(sample.utf8.count))
        let scalars = Array(sample.unicodeScalars)
        var texts = [TextCRDT(replica: ReplicaID(1)), TextCRDT(replica: ReplicaID(2))]
        var done = 0
        var turn = 0
        while done < scalars.count {
            let piece = min(scalars.count - done, random.int(in: 1...3))
            try texts[turn].insert(scalars[done..<done + piece].map { $0 }.string, atScalar: done)
            done += piece
            try texts[1 - turn].merge(texts[turn])
            turn = 1 - turn
        }
        return texts[turn]
    }

    private func utf16Length(_ scalars: ArraySlice<Unicode.Scalar>) -> Int {
        scalars.reduce(0) { $0 + UTF16.width($1) }
    }

    /// Checks both conversions at every offset against the scalars the text should hold.
    private func expectOffsetsMatch(
        _ text: TextCRDT, _ scalars: [Unicode.Scalar], context: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var utf16 = 0
        var scalarAt: [Int: Int] = [:]
        for index in 0...scalars.count {
            scalarAt[utf16] = index
            #expect(try text.utf16Offset(fromScalar: index) == utf16, "\(context) scalar \(index)", sourceLocation: sourceLocation)
            if index < scalars.count { utf16 += UTF16.width(scalars[index]) }
        }
        #expect(text.lengthUTF16 == utf16, "\(context)", sourceLocation: sourceLocation)
        for offset in 0...utf16 {
            if let index = scalarAt[offset] {
                #expect(try text.scalarOffset(fromUTF16: offset) == index, "\(context) UTF-16 \(offset)", sourceLocation: sourceLocation)
            } else {
                #expect(throws: TextError.offsetInsideSurrogatePair(offsetUTF16: offset), "\(context)", sourceLocation: sourceLocation) {
                    try text.scalarOffset(fromUTF16: offset)
                }
            }
        }
    }
}
