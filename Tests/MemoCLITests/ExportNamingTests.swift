import TestSupport
import Testing

@testable import memo

/// Export file names: the cleaning rules one by one, Windows device names, length limits that
/// respect grapheme clusters, uniqueness up to case and canonical equivalence, and random titles
/// checked against the rules.
@Suite struct ExportNamingTests {
    func name(_ title: String, maxBytes: Int = 120) -> String {
        ExportNaming.fileNames(forTitles: [title], maxBytes: maxBytes)[0]
    }

    // MARK: Cleaning

    @Test func plainTitlesAreKept() {
        #expect(name("Groceries") == "Groceries.txt")
        #expect(name("Ideas for 2025 (draft) – v2, #3 & more!") == "Ideas for 2025 (draft) – v2, #3 & more!.txt")
        #expect(name("한국어 메모 日本語 😀") == "한국어 메모 日本語 😀.txt")
        #expect(name("report.final") == "report.final.txt")
    }

    @Test func unsafeCharactersBecomeDashes() {
        #expect(name("a/b\\c:d*e?f\"g<h>i|j") == "a-b-c-d-e-f-g-h-i-j.txt")
        #expect(name("/etc/passwd") == "-etc-passwd.txt")
        #expect(name("..\\..\\windows") == "-..-windows.txt")
        #expect(name("../../etc") == "-..-etc.txt")
    }

    @Test func controlsAndInvisiblesAreDropped() {
        #expect(name("be\u{0}ll\u{7}\u{1B}[0m") == "bell[0m.txt")
        #expect(name("a\u{7F}b\u{85}c\u{9F}d") == "ab cd.txt")  // NEL is whitespace
        #expect(name("invoice\u{202E}fdp.exe") == "invoicefdp.exe.txt")
        #expect(name("\u{FEFF}\u{200E}Title\u{2066}\u{2069}") == "Title.txt")
    }

    @Test func whitespaceCollapsesToSingleSpaces() {
        #expect(name("  tab\tand\nnew\r\nline  \u{3000}\u{A0} wide ") == "tab and new line wide.txt")
        #expect(name("a \u{2028}\u{2029} b") == "a b.txt")
    }

    @Test func dotsAndSpacesAreStrippedAtTheEnds() {
        #expect(name(".hidden") == "hidden.txt")
        #expect(name(" . .. hidden") == "hidden.txt")
        #expect(name("Title.") == "Title.txt")
        #expect(name("Title . . ") == "Title.txt")
        #expect(name("a.b") == "a.b.txt")
        #expect(name("...") == "Untitled.txt")
    }

    @Test func emptyTitlesAreUntitled() {
        #expect(name("") == "Untitled.txt")
        #expect(name("  \t\n ") == "Untitled.txt")
        #expect(name("\u{0}\u{1}\u{202E}") == "Untitled.txt")
        #expect(name(". . .") == "Untitled.txt")
        #expect(ExportNaming.fileNames(forTitles: ["", "", ""]) == ["Untitled.txt", "Untitled 2.txt", "Untitled 3.txt"])
    }

    // MARK: Windows device names

    @Test(arguments: ["CON", "con", "Prn", "aux", "NUL", "COM1", "com9", "COM0", "LPT1", "lpt9", "COM¹", "lpt³",
                      "CONIN$", "conout$"])
    func reservedNamesAreEscaped(word: String) {
        #expect(name(word) == word + "_.txt")
        #expect(name(word + ".notes") == word + "_.notes.txt")
        #expect(name(word + " .x") == word + "_ .x.txt")
        #expect(name(word + ".") == word + "_.txt")  // the dot is stripped first
    }

    @Test(arguments: ["CONSOLE", "COM", "COM10", "LPT", "NULL", "AUX1", "xCON", "CON x", "COM-1", "COM⁴", "ＣＯＮ"])
    func similarNamesAreNot(word: String) {
        #expect(name(word) == word + ".txt")
    }

    // MARK: Length

    @Test func longTitlesAreCutToTheByteLimit() {
        let long = String(repeating: "abcdefghij", count: 30)
        let cut = name(long)
        #expect(cut.utf8.count == 120)
        #expect(cut == String(long.prefix(116)) + ".txt")
        #expect(name(long, maxBytes: 40) == String(long.prefix(36)) + ".txt")
        // No trailing space or dot left by the cut.
        let spaced = String(repeating: "a", count: 35) + " . b"
        #expect(name(spaced, maxBytes: 40) == String(repeating: "a", count: 35) + ".txt")
    }

    @Test func cutsNeverSplitAGraphemeCluster() {
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦"  // 25 bytes, one cluster
        let title = String(repeating: family, count: 10)
        let cut = name(title, maxBytes: 60)
        #expect(cut == family + family + ".txt")  // 54 bytes: a third would not fit
        let accented = String(repeating: "e\u{301}\u{308}", count: 50)  // 5 bytes each
        let accentedName = name(accented, maxBytes: 40)
        #expect(Array(accentedName.unicodeScalars) == Array((String(repeating: "e\u{301}\u{308}", count: 7) + ".txt").unicodeScalars))
    }

    @Test func aClusterLongerThanTheLimitGivesUntitled() {
        let zalgo = "a" + String(repeating: "\u{301}", count: 200)
        #expect(name(zalgo) == "Untitled.txt")
        #expect(name(zalgo + " b") == "Untitled.txt")
    }

    @Test func tooSmallLimitsAreRaised() {
        let long = String(repeating: "x", count: 100)
        #expect(name(long, maxBytes: 5) == String(repeating: "x", count: 28) + ".txt")
        #expect(name(long, maxBytes: -1).utf8.count == ExportNaming.minimumMaxBytes)
    }

    @Test func suffixesFitTheLimitToo() {
        let long = String(repeating: "x", count: 200)
        let names = ExportNaming.fileNames(forTitles: Array(repeating: long, count: 12), maxBytes: 40)
        #expect(names[0] == String(repeating: "x", count: 36) + ".txt")
        #expect(names[1] == String(repeating: "x", count: 34) + " 2.txt")
        #expect(names[11] == String(repeating: "x", count: 33) + " 12.txt")
        #expect(names.allSatisfy { $0.utf8.count == 40 })
    }

    @Test func escapingFitsTheLimit() {
        // A reserved word at the start of a title cut to the limit: the "_" still fits.
        let title = "CON." + String(repeating: "y", count: 100)
        let result = name(title, maxBytes: 40)
        #expect(result == "CON_." + String(repeating: "y", count: 31) + ".txt")
        #expect(result.utf8.count == 40)
    }

    // MARK: Uniqueness

    @Test func repeatedNamesGetNumbers() {
        #expect(ExportNaming.fileNames(forTitles: ["Note", "note", "NOTE", "Note 2", "Other", "nOtE"])
            == ["Note.txt", "note 2.txt", "NOTE 3.txt", "Note 2 2.txt", "Other.txt", "nOtE 4.txt"])
        // A generated name that a later title also wants.
        #expect(ExportNaming.fileNames(forTitles: ["a", "a", "a 2"]) == ["a.txt", "a 2.txt", "a 2 2.txt"])
        // A title that already has the number comes first: the repeat skips it.
        #expect(ExportNaming.fileNames(forTitles: ["a 2", "a", "a"]) == ["a 2.txt", "a.txt", "a 3.txt"])
        // Titles that clean to the same name.
        #expect(ExportNaming.fileNames(forTitles: ["a/b", "a:b", "a-b", " a-b. "]) == ["a-b.txt", "a-b 2.txt", "a-b 3.txt", "a-b 4.txt"])
    }

    @Test func canonicallyEquivalentTitlesAreOneName() {
        let names = ExportNaming.fileNames(forTitles: ["Café", "Cafe\u{301}", "CAFE\u{301}", "café"])
        #expect(names[0] == "Café.txt")
        #expect(Array(names[1].unicodeScalars) == Array("Cafe\u{301} 2.txt".unicodeScalars))
        #expect(Array(names[2].unicodeScalars) == Array("CAFE\u{301} 3.txt".unicodeScalars))
        #expect(names[3] == "café 4.txt")
        // Hangul syllables and conjoining jamo.
        let hangul = ExportNaming.fileNames(forTitles: ["한", "\u{1112}\u{1161}\u{11AB}"])
        #expect(Array(hangul[1].unicodeScalars) == Array("\u{1112}\u{1161}\u{11AB} 2.txt".unicodeScalars))
    }

    @Test func caseFoldingCoversMoreThanLowercasing() {
        #expect(ExportNaming.fileNames(forTitles: ["σ", "ς", "Σ"]) == ["σ.txt", "ς 2.txt", "Σ 3.txt"])
        #expect(ExportNaming.fileNames(forTitles: ["Straße", "STRASSE"]) == ["Straße.txt", "STRASSE 2.txt"])
        #expect(ExportNaming.fileNames(forTitles: ["ſ", "s"]) == ["ſ.txt", "s 2.txt"])
    }

    @Test func manyRepeatsStayFast() {
        let names = ExportNaming.fileNames(forTitles: Array(repeating: "Same", count: 5000))
        #expect(names[4999] == "Same 5000.txt")
        #expect(Set(names).count == 5000)
    }

    // MARK: Random titles

    /// Random titles from several planes with controls, unsafe characters, dots and spaces,
    /// long ones, and repeats that differ in case or normalization: every name keeps the rules,
    /// no two collide on a case-insensitive file system, and the result is deterministic.
    @Test(arguments: testSeeds(20, salt: 0xE8F0_0001))
    func randomTitlesGiveValidDistinctNames(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let maxBytes = random.chance(0.3) ? random.int(in: 0...60) : 120
        let specials: [String] = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|", ".", "..", " ", "  ", "\t", "\n",
                                  "\r\n", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "\u{85}", "\u{9F}", "\u{A0}",
                                  "\u{2028}", "\u{202E}", "\u{FEFF}", "\u{3000}", "CON", "nul", "Com1", "LPT²",
                                  "e\u{301}", "é", "ß", "ς", "İ", "👨\u{200D}👩\u{200D}👧", "🇯🇵"]
        var titles: [String] = []
        for _ in 0..<150 {
            if !titles.isEmpty && random.chance(0.25) {
                // A variant of an earlier title.
                let earlier = random.pick(titles)
                titles.append(random.pick([earlier, earlier.uppercased(), earlier.lowercased(), earlier + ".", " " + earlier]))
                continue
            }
            var title = ""
            let length = random.chance(0.1) ? random.int(in: 20...80) : random.int(in: 0...8)
            for _ in 0..<length {
                title += random.chance(0.4) ? random.pick(specials) : RandomText.string(random.int(in: 1...4), using: &random)
            }
            titles.append(title)
        }
        let names = ExportNaming.fileNames(forTitles: titles, maxBytes: maxBytes)
        #expect(names.count == titles.count, "seed \(seed)")
        #expect(ExportNaming.fileNames(forTitles: titles, maxBytes: maxBytes) == names, "seed \(seed)")
        let limit = max(maxBytes, 32)
        for (title, name) in zip(titles, names) {
            let context: Comment = "seed \(seed) title \(Array(title.unicodeScalars)) name \(Array(name.unicodeScalars))"
            #expect(isValid(name, maxBytes: limit), context)
        }
        // Pairwise distinct: `Set<String>` compares up to canonical equivalence.
        #expect(Set(names.map { $0.lowercased() }).count == names.count, "seed \(seed)")
        #expect(Set(names.map { $0.uppercased().lowercased() }).count == names.count, "seed \(seed)")
    }

    /// The rules, checked independently of the implementation.
    func isValid(_ name: String, maxBytes: Int) -> Bool {
        guard name.hasSuffix(".txt"), name.utf8.count <= maxBytes else { return false }
        let stem = Array(name.unicodeScalars.dropLast(4))
        guard let first = stem.first, let last = stem.last else { return false }
        if first == "." || first == " " || last == "." || last == " " { return false }
        for (index, scalar) in stem.enumerated() {
            if "/\\:*?\"<>|".unicodeScalars.contains(scalar) { return false }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return false }
            if [0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF].contains(scalar.value) {
                return false
            }
            if scalar.properties.isWhitespace && scalar != " " { return false }
            if scalar == " " && index > 0 && stem[index - 1] == " " { return false }
        }
        // The device-name check Windows applies: up to the first dot, without trailing spaces.
        var word = String(String.UnicodeScalarView(stem.prefix { $0 != "." }))
        while word.hasSuffix(" ") { word.removeLast() }
        let reserved = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
            + ["COM", "LPT"].flatMap { prefix in ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³"].map { prefix + $0 } }
        if reserved.contains(where: { $0.lowercased() == word.lowercased() }) { return false }
        return true
    }
}
