import MemoCRDT
/// File names for exporting memos as text files, one per memo, safe on every common file system.
enum ExportNaming {
    /// The extension every exported file gets.
    static let fileExtension = ".txt"

    /// The name a memo with an empty (or entirely unusable) title gets.
    static let untitled = "Untitled"

    /// The smallest `maxBytes` honoured: room for ".txt", "Untitled" and the longest numeric
    /// suffix (" " and 19 digits). Smaller values are raised to this.
    static let minimumMaxBytes = 32

    /// One file name per title, in the same order: safe, distinct, and ending in ".txt".
    ///
    /// Each name is derived from its title (typically ``MemoText/title(of:)``):
    /// 1. The characters that are unsafe in a file name on Windows, macOS or Linux become `-`:
    ///    the path separators `/` and `\`, and `: * ? " < > |`.
    /// 2. Whitespace (including tabs and line breaks) becomes a space; every run of whitespace
    ///    collapses to one space. Other control characters (U+0000–U+001F, U+007F–U+009F) are
    ///    dropped, and so are the invisible characters that could disguise a name: bidirectional
    ///    controls (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and U+FEFF.
    /// 3. Leading dots and spaces (a leading dot hides a file on macOS and Linux) and trailing
    ///    dots and spaces (Windows drops them) are stripped.
    /// 4. A name left empty becomes "Untitled".
    /// 5. The name is shortened so that the whole file name, ".txt" and any suffix included,
    ///    takes at most `maxBytes` bytes of UTF-8, cutting between grapheme clusters (a letter
    ///    and its accents, an emoji sequence, stay whole). Trailing dots and spaces exposed by
    ///    the cut are stripped again; if nothing is left (a single cluster longer than the
    ///    budget), the name is "Untitled".
    /// 6. A name that Windows reserves for a device — CON, PRN, AUX, NUL, COM0–COM9, LPT0–LPT9
    ///    (also with the superscript digits ¹ ² ³), CONIN$ and CONOUT$, in any case, alone or
    ///    before a dot ("nul.tar") — gets `_` after that word ("CON_", "nul_.tar").
    /// 7. Names are made distinct in input order: a name equal to an earlier one, ignoring case
    ///    and Unicode canonical equivalence (precomposed and decomposed accents), gets " 2",
    ///    " 3", … before ".txt" — the first number that makes it distinct from every name given
    ///    so far. Case is compared as case-insensitive file systems (APFS, NTFS) do, or more
    ///    strictly: two names are the same if they are equal lowercased, or uppercased then
    ///    lowercased (which also equates ς/σ, ſ/s and ß/ss). At worst a name gets a number it
    ///    did not strictly need; two names never collide.
    ///
    /// The result depends only on the input: the same titles give the same names.
    ///
    /// - Parameter maxBytes: the longest file name in UTF-8 bytes, ".txt" included (default
    ///   120, well inside the 255-byte limit of common file systems). Values below
    ///   ``minimumMaxBytes`` are raised to it.
    /// - Complexity: O(total length of the titles), plus the suffix search for repeated titles
    ///   (which resumes where the previous search for the same name stopped).
    static func fileNames(forTitles titles: [String], maxBytes: Int = 120) -> [String] {
        let budget = Swift.max(maxBytes, minimumMaxBytes) - fileExtension.utf8.count
        var taken = TakenNames()
        var nextSuffix: [String: Int] = [:]
        var names: [String] = []
        names.reserveCapacity(titles.count)
        for title in titles {
            let base = sanitized(title)
            let stem = finished(base, budget: budget)
            if taken.insert(stem) {
                names.append(stem + fileExtension)
                continue
            }
            // A repeated name: try " 2", " 3", … (resuming after the last number used for this
            // base), shortening the base so that the suffix fits.
            let baseKey = comparisonKey(base)
            var number = nextSuffix[baseKey] ?? 2
            while true {
                let suffix = " \(number)"
                let candidate = finished(base, budget: budget - suffix.utf8.count) + suffix
                number += 1
                if taken.insert(candidate) {
                    names.append(candidate + fileExtension)
                    break
                }
            }
            nextSuffix[baseKey] = number
        }
        return names
    }

    // MARK: Steps

    /// Steps 1–4: the title with unsafe characters replaced or dropped, whitespace collapsed,
    /// dots and spaces stripped, never empty.
    static func sanitized(_ title: String) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in title.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = true
                continue
            }
            if isDropped(scalar) { continue }
            if pendingSpace {
                scalars.append(" ")
                pendingSpace = false
            }
            scalars.append(isReplaced(scalar) ? "-" : scalar)
        }
        let result = strippingDotsAndSpaces(String(scalars))
        return result.isEmpty ? untitled : result
    }

    /// Steps 5–6: `base` cut to at most `budget` UTF-8 bytes, stripped again, with a reserved
    /// device name escaped. `budget` is at least the length of "Untitled".
    static func finished(_ base: String, budget: Int) -> String {
        let stem = escapingReservedName(truncated(base, budget: budget))
        if stem.utf8.count <= budget { return stem }
        // The escape's "_" did not fit: make room for it.
        return escapingReservedName(truncated(base, budget: budget - 1))
    }

    /// `name` cut after the last whole grapheme cluster that fits in `budget` UTF-8 bytes, then
    /// stripped of trailing dots and spaces; "Untitled" if nothing is left.
    static func truncated(_ name: String, budget: Int) -> String {
        if name.utf8.count <= budget { return name }
        var bytes = 0
        var end = name.startIndex
        for index in name.indices {
            let next = name.index(after: index)
            bytes += name.utf8.distance(from: index, to: next)
            if bytes > budget { break }
            end = next
        }
        let stem = strippingDotsAndSpaces(String(name[..<end]))
        return stem.isEmpty ? untitled : stem
    }

    /// `name` without leading dots and spaces and without trailing dots and spaces.
    static func strippingDotsAndSpaces(_ name: String) -> String {
        let scalars = name.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != "." && $0 != " " }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != "." && $0 != " " })!
        return String(scalars[first...last])
    }

    /// `stem` with `_` inserted after its first dot-separated component if Windows reserves it.
    ///
    /// Windows ignores everything from the first dot, and trailing spaces before it, when it
    /// checks for device names, so "con.txt", "CON .notes.txt" and "Con.txt" are all the
    /// console.
    static func escapingReservedName(_ stem: String) -> String {
        let scalars = stem.unicodeScalars
        let dot = scalars.firstIndex(of: ".") ?? scalars.endIndex
        var wordEnd = dot
        while wordEnd > scalars.startIndex && scalars[scalars.index(before: wordEnd)] == " " {
            wordEnd = scalars.index(before: wordEnd)
        }
        guard isReservedDeviceName(scalars[scalars.startIndex..<wordEnd]) else { return stem }
        var escaped = String.UnicodeScalarView(scalars[scalars.startIndex..<wordEnd])
        escaped.append("_")
        escaped.append(contentsOf: scalars[wordEnd...])
        return String(escaped)
    }

    /// Whether `word` is a Windows device name: CON, PRN, AUX, NUL, CONIN$, CONOUT$, or COM or
    /// LPT followed by one digit 0–9, ¹, ² or ³; ASCII letters in any case.
    static func isReservedDeviceName(_ word: Substring.UnicodeScalarView) -> Bool {
        guard word.count >= 3 && word.count <= 7 else { return false }
        var upper = String.UnicodeScalarView()
        for scalar in word {
            // ASCII letters uppercased; anything else as it is.
            upper.append(("a"..."z").contains(scalar) ? Unicode.Scalar(UInt8(scalar.value) - 0x20) : scalar)
        }
        let name = Array(upper)
        switch String(upper) {
        case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
            return true
        default:
            guard name.count == 4, name[0...2] == ["C", "O", "M"] || name[0...2] == ["L", "P", "T"] else { return false }
            return ("0"..."9").contains(name[3]) || name[3] == "¹" || name[3] == "²" || name[3] == "³"
        }
    }

    // MARK: Characters

    /// Characters replaced by `-`: path separators and the characters Windows forbids.
    static func isReplaced(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "/", "\\", ":", "*", "?", "\"", "<", ">", "|": true
        default: false
        }
    }

    /// Characters dropped: controls (whitespace controls are handled before) and invisible
    /// characters that reorder or hide text.
    static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }

    /// The name a case-insensitive file system would treat as `name`, for remembering which
    /// repeats have been numbered: case folded (uppercased, then lowercased).
    static func comparisonKey(_ name: String) -> String {
        name.uppercased().lowercased()
    }

    /// The names given so far, up to case and canonical equivalence.
    ///
    /// A name is taken if it equals an earlier one after lowercasing, or after uppercasing then
    /// lowercasing (which also equates ς and σ, ſ and s, ß and ss, as case folding does).
    /// `Set<String>` compares strings up to canonical equivalence already.
    struct TakenNames {
        private var lowercased: Set<String> = []
        private var folded: Set<String> = []

        /// Records `name` and returns true, or returns false if it is taken.
        mutating func insert(_ name: String) -> Bool {
            let lower = name.lowercased()
            let fold = ExportNaming.comparisonKey(name)
            guard !lowercased.contains(lower) && !folded.contains(fold) else { return false }
            lowercased.insert(lower)
            folded.insert(fold)
            return true
        }
    }
}
