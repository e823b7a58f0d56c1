// A skipped blob's reason in the user's language: what `memo sync` prints for each blob it
// skipped, and what an app shows in a list of them.

extension SkipReason {
    /// The reason in ``MemoLanguage/current``, for a person: "corrupt (checksum mismatch)" in
    /// English (the same text as ``description``), "손상됨(…)" in Korean, "破損(…)" in Japanese.
    ///
    /// A lower layer's detail (a decoder's or the file system's English text) is told in English
    /// only; in Korean and Japanese the detail is its recognised cause ("권한이 없습니다") or left
    /// out, so a translation never carries an English sentence. ``description`` stays English
    /// for logs and `memo sync --json`.
    public var localizedDescription: String {
        switch self {
        case .incomplete: MemoStrings.text("skip.incomplete")
        case let .corrupt(reason): Self.withDetail("skip.corrupt", reason)
        case let .unknownVersion(kind, version): MemoStrings.text("skip.unknownVersion", ["kind": "\(kind)", "version": "\(version)"])
        case .notMemoSync: MemoStrings.text("skip.notMemoSync")
        case let .unreadable(reason): Self.withDetail("skip.unreadable", reason)
        case let .tooLarge(size, limit): MemoStrings.text("skip.tooLarge", ["size": "\(size)", "limit": "\(limit)"])
        case let .notListed(problem): MemoStrings.text("skip.notListed", ["problem": Self.localized(problem)])
        }
    }

    /// A listing problem in ``MemoLanguage/current``.
    private static func localized(_ problem: ListingProblem) -> String {
        switch problem {
        case let .unreadable(reason): withDetail("skip.problem.unreadable", reason)
        case .symbolicLink: MemoStrings.text("skip.problem.symbolicLink")
        case .specialFile: MemoStrings.text("skip.problem.specialFile")
        case let .tooDeep(levels): MemoStrings.text("skip.problem.tooDeep", ["levels": "\(levels)"])
        }
    }

    /// The text of `key`, then `reason` in parentheses: as it is in English, its recognised
    /// cause in the other languages, nothing when none is recognised.
    private static func withDetail(_ key: String, _ reason: String) -> String {
        let what = MemoStrings.text(key)
        let detail = MemoLanguage.current == .english ? reason : FailureCause(reason: reason)?.localizedClause
        guard let detail, !detail.isEmpty else { return what }
        return MemoStrings.text("skip.withDetail", ["what": what, "detail": detail])
    }
}
