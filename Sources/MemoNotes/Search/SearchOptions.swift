import MemoCRDT
/// How a search folds text, beyond what it always folds (case with full case folding, accents,
/// Unicode normalization, full-width and half-width forms).
///
/// The default folds everything: `SearchOptions()` is what ``Notebook/search(_:options:)`` and
/// ``SearchQuery/init(_:options:)`` use when given no options.
public struct SearchOptions: Sendable, Hashable {
    /// Whether hiragana and katakana match each other (true by default): katakana U+30A1–U+30F6
    /// fold to hiragana U+3041–U+3096 and ヽ ヾ to ゝ ゞ, so "カタカナ" finds "かたかな" and the
    /// other way round, as the platforms' searches do. False keeps them distinct; halfwidth
    /// katakana then fold to (fullwidth) katakana only.
    public var foldsKana: Bool

    /// Options for a search.
    ///
    /// - Parameter foldsKana: Whether hiragana and katakana match each other (default true).
    public init(foldsKana: Bool = true) {
        self.foldsKana = foldsKana
    }
}

extension SearchFolding {
    /// `key`, a key folded with kana kept distinct, with its katakana folded to hiragana: the key
    /// the same text has with the default options (the kana rule is the last to apply, and
    /// hiragana fold no further; a test checks this for every scalar).
    static func kanaFolded(_ key: [UInt8]) -> [UInt8] {
        var folded: [UInt8] = []
        folded.reserveCapacity(key.count)
        for scalar in keyScalars(key) {
            let value = scalar.value
            let kana = isFoldedKatakana(value) ? Unicode.Scalar(value - katakanaToHiragana)! : scalar
            appendKeyEncoding(of: kana, to: &folded)
        }
        return folded
    }
}
