/// Random text drawn from several Unicode planes: ASCII, accented Latin with combining marks,
/// Hangul, Japanese, and astral emoji (surrogate pairs in UTF-16, with ZWJ sequences).
public enum RandomText {
    static let alphabets: [[Unicode.Scalar]] = [
        Array("abcdefghijklmnopqrstuvwxyz ABC\n.,".unicodeScalars),
        Array("éèçñüåøß".unicodeScalars) + ["\u{301}", "\u{308}"],
        Array("한국어텍스트".unicodeScalars) + ["\u{1100}", "\u{1161}", "\u{11A8}"],
        Array("日本語のテキストかな".unicodeScalars),
        ["\u{1F600}", "\u{1F468}", "\u{200D}", "\u{1F469}", "\u{1F3FD}", "\u{1F1EF}", "\u{1F1F5}"],
    ]

    /// A random string of `length` scalars, mostly from one alphabet.
    public static func scalars(_ length: Int, using random: inout SeededRandom) -> [Unicode.Scalar] {
        let main = random.int(in: 0..<alphabets.count)
        return (0..<length).map { _ in
            let alphabet = random.chance(0.8) ? alphabets[main] : random.pick(alphabets)
            return random.pick(alphabet)
        }
    }

    /// A random string of `length` scalars.
    public static func string(_ length: Int, using random: inout SeededRandom) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars(length, using: &random))
        return String(result)
    }
}

extension Array where Element == Unicode.Scalar {
    /// The scalars as a string.
    public var string: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: self)
        return String(view)
    }
}
