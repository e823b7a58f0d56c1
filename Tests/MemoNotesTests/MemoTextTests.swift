import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// Title, body, preview and plain text of a memo: every kind of line break, whitespace of
/// every width, grapheme clusters at the cut, and random texts against a simple model.
@Suite struct MemoTextTests {
    static let breaks = ["\n", "\r\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"]

    // MARK: Title and body

    @Test(arguments: breaks)
    func everyLineBreakEndsTheTitle(lineBreak: String) {
        let text = "  Groceries \t" + lineBreak + "milk\neggs"
        #expect(MemoText.title(of: text) == "Groceries")
        #expect(MemoText.body(of: text) == "milk\neggs")
        // The first break only: the rest of the body keeps its breaks.
        let twice = "Title" + lineBreak + "one" + lineBreak + "two"
        #expect(MemoText.title(of: twice) == "Title")
        #expect(equalScalars(MemoText.body(of: twice), "one" + lineBreak + "two"))
    }

    @Test func crLFIsOneBreakButCRThenTextIsNot() {
        #expect(equalScalars(MemoText.body(of: "a\r\nb"), "b"))
        #expect(equalScalars(MemoText.body(of: "a\r\n\nb"), "\nb"))
        #expect(equalScalars(MemoText.body(of: "a\r\rb"), "\rb"))
        #expect(equalScalars(MemoText.body(of: "a\n\rb"), "\rb"))
        #expect(equalScalars(MemoText.body(of: "a\r"), ""))
        #expect(equalScalars(MemoText.body(of: "\r\n"), ""))
        #expect(MemoText.title(of: "\r\nb") == "")
    }

    @Test func noBreakMeansAllTitle() {
        #expect(MemoText.title(of: "") == "")
        #expect(MemoText.body(of: "") == "")
        #expect(MemoText.title(of: "  just a title  ") == "just a title")
        #expect(MemoText.body(of: "just a title") == "")
        #expect(MemoText.title(of: "Title\n") == "Title")
        #expect(MemoText.body(of: "Title\n") == "")
    }

    @Test func othersAreNotLineBreaks() {
        // Vertical tab and form feed are whitespace, not breaks; neither are lookalike bytes
        // (C2 and E2 80 lead bytes of other characters).
        #expect(MemoText.title(of: "a\u{0B}b\u{0C}c") == "a\u{0B}b\u{0C}c")
        #expect(MemoText.title(of: "\u{0B}a\u{0C}") == "a")
        #expect(MemoText.title(of: "©…‘’ – ‰ €") == "©…‘’ – ‰ €")
        #expect(MemoText.body(of: "©…‘’ – ‰ €") == "")
        #expect(MemoText.title(of: "x\u{2027}y\u{202A}z") == "x\u{2027}y\u{202A}z")
    }

    @Test func titleTrimsEveryKindOfWhitespace() {
        #expect(MemoText.title(of: "\u{A0}\u{3000}\t Title\u{2003}\u{A0}\nbody") == "Title")
        #expect(MemoText.title(of: " \t \u{3000}\nbody") == "")
        #expect(MemoText.title(of: "  two  words  ") == "two  words")
    }

    @Test func titleKeepsGraphemeClustersWhole() {
        #expect(equalScalars(MemoText.title(of: "e\u{301}\u{308}\nx"), "e\u{301}\u{308}"))
        #expect(equalScalars(MemoText.title(of: "👨\u{200D}👩\u{200D}👧 🇯🇵\r\nx"), "👨\u{200D}👩\u{200D}👧 🇯🇵"))
        #expect(equalScalars(MemoText.title(of: "한\u{1100}\u{1161}\u{11A8}\u{2029}"), "한\u{1100}\u{1161}\u{11A8}"))
        // A combining mark right after a break starts the body (a break is a boundary).
        #expect(equalScalars(MemoText.body(of: "a\n\u{301}b"), "\u{301}b"))
    }

    @Test func bodyIsKeptAsIs() {
        let body = "  indented\n\n\ttabbed  \r\n trailing   "
        #expect(equalScalars(MemoText.body(of: "Title\n" + body), body))
    }

    @Test func titleAndBodyWorkOnSubstringBackedAndBridgedStrings() {
        // A string built from a slice of a larger one.
        let big = "xxTitle\nBodyxx"
        let text = String(big.dropFirst(2).dropLast(2))
        #expect(MemoText.title(of: text) == "Title")
        #expect(MemoText.body(of: text) == "Body")
    }

    // MARK: Preview

    @Test func previewJoinsLinesAndCollapsesWhitespace() {
        let text = "Title\n\n  line one  \n\n\tline   two\u{2028}three\u{A0}\u{A0}four\r\n   \n"
        #expect(MemoText.preview(of: text) == "line one line two three four")
        #expect(MemoText.preview(of: "Title only") == "")
        #expect(MemoText.preview(of: "Title\n \n\t\n\u{3000}") == "")
    }

    @Test func previewIsCutWithAnEllipsis() {
        let text = "T\nabcdefghij klmnop"
        #expect(MemoText.preview(of: text, maxCharacters: 100) == "abcdefghij klmnop")
        #expect(MemoText.preview(of: text, maxCharacters: 17) == "abcdefghij klmnop")
        #expect(MemoText.preview(of: text, maxCharacters: 16) == "abcdefghij klmno…")
        #expect(MemoText.preview(of: text, maxCharacters: 12) == "abcdefghij k…")
        // Never ends in the space between two words.
        #expect(MemoText.preview(of: text, maxCharacters: 11) == "abcdefghij…")
        #expect(MemoText.preview(of: text, maxCharacters: 10) == "abcdefghij…")
        #expect(MemoText.preview(of: text, maxCharacters: 1) == "a…")
        #expect(MemoText.preview(of: text, maxCharacters: 0) == "…")
        #expect(MemoText.preview(of: text, maxCharacters: -5) == "…")
        #expect(MemoText.preview(of: "T\n  \n ", maxCharacters: 0) == "")
        // Trailing whitespace after exactly enough characters is not a cut.
        #expect(MemoText.preview(of: "T\nabc  \n\n  ", maxCharacters: 3) == "abc")
    }

    @Test func previewCountsGraphemeClusters() {
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦"
        let text = "T\n" + family + "🇯🇵e\u{301}\u{308}한\u{1100}\u{1161}\u{11A8}x"
        #expect(equalScalars(MemoText.preview(of: text, maxCharacters: 1), family + "…"))
        #expect(equalScalars(MemoText.preview(of: text, maxCharacters: 2), family + "🇯🇵…"))
        #expect(equalScalars(MemoText.preview(of: text, maxCharacters: 3), family + "🇯🇵e\u{301}\u{308}…"))
        #expect(equalScalars(MemoText.preview(of: text, maxCharacters: 5), family + "🇯🇵e\u{301}\u{308}한\u{1100}\u{1161}\u{11A8}…"))
        #expect(equalScalars(MemoText.preview(of: text, maxCharacters: 6), family + "🇯🇵e\u{301}\u{308}한\u{1100}\u{1161}\u{11A8}x"))
    }

    @Test func previewOfAHugeBodyStopsEarly() {
        // A long first line is read to find the body, the body only up to the cut.
        let text = String(repeating: "title ", count: 1000) + "\n" + String(repeating: "word ", count: 200_000)
        let preview = MemoText.preview(of: text, maxCharacters: 20)
        #expect(preview == "word word word word…")
    }

    /// Random texts from several planes with every kind of break and whitespace, against a
    /// model: the body split into words at whitespace, joined by single spaces, then cut.
    @Test(arguments: testSeeds(20, salt: 0x7E47_0001))
    func previewMatchesAModel(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let spaces: [String] = [" ", "  ", "\t", "\u{A0}", "\u{3000}", "\u{2003}", "\u{0B}", "\u{0C}"] + MemoTextTests.breaks
        for _ in 0..<50 {
            var text = ""
            for _ in 0..<random.int(in: 0...12) {
                text += random.chance(0.5) ? random.pick(spaces) : RandomText.string(random.int(in: 0...30), using: &random)
            }
            let limit = random.chance(0.2) ? random.int(in: 0...3) : random.int(in: 1...120)
            let body = MemoText.body(of: text)
            // The body's characters, each whitespace run between words as one space. (Counted
            // as characters of the body: a space followed by a combining mark that started a
            // body character would render as one cluster, but counts as two.)
            var full: [Character] = []
            for word in body.split(whereSeparator: \.isWhitespace) {
                if !full.isEmpty { full.append(" ") }
                full.append(contentsOf: word)
            }
            let expected: String
            if full.count <= limit {
                expected = String(full)
            } else {
                let cut = limit > 0 && full[limit - 1] == " " ? limit - 1 : limit
                expected = String(full[..<cut]) + "…"
            }
            let preview = MemoText.preview(of: text, maxCharacters: limit)
            #expect(equalScalars(preview, expected), "seed \(seed) limit \(limit) text \(Array(text.unicodeScalars))")
            #expect(preview.count <= limit + 1, "seed \(seed)")
            #expect(!preview.contains(where: { $0.isNewline }), "seed \(seed)")
            // Title and body partition the text around the first break.
            let title = MemoText.title(of: text)
            #expect(!title.contains(where: { $0.isNewline && $0 != "\u{0B}" && $0 != "\u{0C}" }), "seed \(seed)")
            #expect(title.first?.isWhitespace != true && title.last?.isWhitespace != true, "seed \(seed)")
            let scalars = Array(text.unicodeScalars)
            let bodyScalars = Array(body.unicodeScalars)
            #expect(scalars.count >= bodyScalars.count, "seed \(seed)")
            #expect(Array(scalars.suffix(bodyScalars.count)) == bodyScalars, "seed \(seed)")
            #expect(equalScalars(MemoText.plainText(of: text), text), "seed \(seed)")
        }
    }

    // MARK: Plain text

    @Test func plainTextIsTheTextItself() {
        for text in ["", "Title", "Title\nbody", "  Title  \r\n\n body \u{2028}", "e\u{301}\n한\u{1100}\u{1161}"] {
            #expect(equalScalars(MemoText.plainText(of: text), text))
        }
    }

    /// Compares scalar by scalar: `==` on strings treats canonically equivalent texts as equal.
    func equalScalars(_ lhs: String, _ rhs: String) -> Bool {
        Array(lhs.unicodeScalars) == Array(rhs.unicodeScalars)
    }
}
