import MemoCRDT
/// How a memo's text divides into a title and a body, and the short forms a list shows.
///
/// A memo is plain text. Its first line is its title and everything after the first line break
/// is its body. A line break is any of: LF (`"\n"`), CR LF (`"\r\n"`, one break), a lone CR
/// (`"\r"`), NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029). Vertical
/// tab and form feed are not line breaks here (they are whitespace).
///
/// Whitespace means a Unicode `White_Space` character (`Character.isWhitespace`): spaces of
/// every width, tabs and line breaks.
public enum MemoText {
    /// The title: the first line, trimmed of leading and trailing whitespace.
    ///
    /// Empty when the text is empty or its first line is blank. The first line is the text up
    /// to the first line break, or the whole text if it has none.
    ///
    /// - Complexity: O(length of the first line); the rest of the text is never read.
    public static func title(of text: String) -> String {
        let end = firstLineBreak(in: text)?.lowerBound ?? text.endIndex
        return String(trimmingWhitespace(text[text.startIndex..<end]))
    }

    /// The body: everything after the first line break, exactly as it is (not trimmed).
    ///
    /// Empty when the text has no line break.
    ///
    /// - Complexity: O(n) to copy it; finding it reads only the first line.
    public static func body(of text: String) -> String {
        String(bodySlice(of: text))
    }

    /// A one-line preview of the body, for a list of memos.
    ///
    /// The body's non-blank lines joined with single spaces, with every run of whitespace inside
    /// them collapsed to one space (U+0020) and none at either end. If that is longer than
    /// `maxCharacters` characters, it is cut after at most `maxCharacters` characters (grapheme
    /// clusters, never splitting one, and never ending in the space between two words) and
    /// `"…"` (U+2026) is appended, so a cut preview has at most `maxCharacters + 1` characters.
    /// A `maxCharacters` of 0 or less gives `"…"` for any body with visible content.
    ///
    /// - Complexity: O(length of the first line + the part of the body the preview covers):
    ///   reading stops at the first visible character after the cut, however long the body.
    ///   (So a long run of whitespace right after the cut is read to its end, to tell whether
    ///   anything visible follows.) ASCII text takes a fast path that skips grapheme breaking.
    public static func preview(of text: String, maxCharacters: Int = 100) -> String {
        previewReading(of: text, maxCharacters: maxCharacters).preview
    }

    /// ``preview(of:maxCharacters:)``, and where its reading stopped: the end of the visible
    /// character after the cut that ended it, nil when it read the text to its end. A text cut
    /// there has the same preview (what a state list keeps of a memo's text).
    static func previewReading(of text: String, maxCharacters: Int = 100) -> (preview: String, stop: String.Index?) {
        let limit = Swift.max(maxCharacters, 0)
        let body = bodySlice(of: text)
        let utf8 = body.utf8
        let end = body.endIndex
        var result = ""
        var count = 0  // characters of the preview so far, spaces included
        var pendingSpace = false  // whitespace seen since the last visible character
        var run: String.Index?  // start of the visible characters not yet copied to `result`
        var index = body.startIndex
        while index != end {
            // The next character and whether it is whitespace. Fast path: an ASCII scalar
            // followed by another (or the end) is a whole character, except CR (CR LF is one).
            let byte = utf8[index]
            var next = utf8.index(after: index)
            let isWhitespace: Bool
            if byte < 0x80 && byte != 0x0D && (next == end || utf8[next] < 0x80) {
                isWhitespace = byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
            } else {
                let scalars = body.unicodeScalars
                let scalar = scalars[index]
                let scalarEnd = scalars.index(after: index)
                // Fast path: a scalar of a script without combining sequences (CJK, kana, Hangul
                // syllables), followed by the end, ASCII or another such scalar, is a whole
                // character. Anything else takes the grapheme breaking path.
                if Self.isSingleScalarCharacter(scalar.value)
                    && (scalarEnd == end || utf8[scalarEnd] < 0x80 || Self.isSingleScalarCharacter(scalars[scalarEnd].value))
                {
                    next = scalarEnd
                } else {
                    next = body.index(after: index)
                }
                // As `Character.isWhitespace`: the first scalar decides.
                isWhitespace = Self.isWhitespace(scalar.value)
            }
            if isWhitespace {
                if let start = run {
                    result += body[start..<index]
                    run = nil
                }
                pendingSpace = count > 0
            } else {
                let needed = pendingSpace ? 2 : 1
                if count + needed > limit {
                    if let start = run { result += body[start..<index] }
                    result += "…"
                    return (result, next)
                }
                if pendingSpace {
                    result += " "
                    pendingSpace = false
                }
                if run == nil { run = index }
                count += needed
            }
            index = next
        }
        if let start = run { result += body[start..<end] }
        return (result, nil)
    }

    /// Whether a scalar always forms a character on its own when the next scalar is ASCII or
    /// another such scalar: precomposed Latin letters, CJK ideographs, kana (not the combining
    /// voicing marks), Hangul syllables. (None of them take part in grapheme clusters except
    /// through what follows; `MemoTextFastPathTests` checks every one.)
    @inline(__always)
    static func isSingleScalarCharacter(_ value: UInt32) -> Bool {
        (value >= 0x00C0 && value <= 0x024F) || (value >= 0x4E00 && value <= 0x9FFF)
            || (value >= 0xAC00 && value <= 0xD7A3) || (value >= 0x3041 && value <= 0x3096)
            || (value >= 0x30A1 && value <= 0x30FA) || (value >= 0x3400 && value <= 0x4DBF)
    }

    /// The Unicode White_Space property, without a property lookup (the set is small and fixed).
    @inline(__always)
    static func isWhitespace(_ value: UInt32) -> Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// The memo as plain text for sharing (a share sheet, the clipboard, an exported file):
    /// the title line, then the body.
    ///
    /// That is the text itself, unchanged: a memo has no markup to strip and its title is
    /// already its first line, so this returns `text`. It exists so callers say what they
    /// mean, and so a future change of the memo format has one place to change.
    ///
    /// - Complexity: O(1).
    public static func plainText(of text: String) -> String {
        text
    }

    // MARK: Line breaks

    /// The body as a slice of `text`: after the first line break, or empty.
    static func bodySlice(of text: String) -> Substring {
        guard let lineBreak = firstLineBreak(in: text) else { return text[text.endIndex...] }
        return text[lineBreak.upperBound...]
    }

    /// The first line break in `text` (both scalars of CR LF), or `nil` if it has none.
    ///
    /// Scans UTF-8 bytes. Every break is a single grapheme cluster (line breaks are grapheme
    /// boundaries on both sides), so the bounds are valid `Character` indices of `text`.
    static func firstLineBreak(in text: String) -> Range<String.Index>? {
        let utf8 = text.utf8
        let end = utf8.endIndex
        var index = utf8.startIndex
        while index != end {
            let byte = utf8[index]
            // Every break starts with one of these bytes; anything else is skipped at once.
            if byte == 0x0A || byte == 0x0D || byte == 0xC2 || byte == 0xE2 {
                let next = utf8.index(after: index)
                switch byte {
                case 0x0A:
                    return index..<next
                case 0x0D:
                    if next != end && utf8[next] == 0x0A { return index..<utf8.index(after: next) }
                    return index..<next
                case 0xC2:
                    // NEL: C2 85.
                    if next != end && utf8[next] == 0x85 { return index..<utf8.index(after: next) }
                default:
                    // LINE SEPARATOR and PARAGRAPH SEPARATOR: E2 80 A8, E2 80 A9.
                    if next != end && utf8[next] == 0x80 {
                        let third = utf8.index(after: next)
                        if third != end && (utf8[third] == 0xA8 || utf8[third] == 0xA9) {
                            return index..<utf8.index(after: third)
                        }
                    }
                }
            }
            index = utf8.index(after: index)
        }
        return nil
    }

    /// `text` without leading and trailing whitespace characters.
    static func trimmingWhitespace(_ text: Substring) -> Substring {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }) else { return text[text.endIndex...] }
        let last = text.lastIndex(where: { !$0.isWhitespace })!
        return text[first...last]
    }
}
