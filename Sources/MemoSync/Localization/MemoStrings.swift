import Foundation
import Synchronization

// The user-facing texts of MemoSync and of `memo`, in English, Korean and Japanese.
//
// One catalog per language (MemoStrings+English.swift, +Korean, +Japanese): a dictionary from
// a key to a template. A template holds placeholders written `{name}`, replaced by
// ``MemoStrings/text(_:_:language:)``; every language's template of a key has the same
// placeholders (a test checks it, and that every key is in every catalog). The engine's error
// descriptions (`LocalizedError`, shown by apps) and every message and help page of the `memo`
// command line come from these catalogs, so they live here, below the command line: an app
// gets the engine's texts, `memo` its own ("cli." and "help." keys) from the same place.

/// A language MemoSync speaks: the engine's error descriptions (`localizedDescription`,
/// `recoverySuggestion`) are in ``current``, which an app may set to its interface's language.
public enum MemoLanguage: String, CaseIterable, Sendable {
    /// English (`en`).
    case english = "en"
    /// Korean (`ko`).
    case korean = "ko"
    /// Japanese (`ja`).
    case japanese = "ja"

    /// The language of a POSIX locale name or a BCP 47 tag: "ko_KR.UTF-8", "ja", "ja-JP",
    /// "en_GB"; nil for other languages and for "C" and "POSIX".
    package init?(localeName: String) {
        let language = localeName.prefix { $0 != "_" && $0 != "-" && $0 != "." && $0 != "@" }.lowercased()
        guard let match = MemoLanguage(rawValue: language) else { return nil }
        self = match
    }

    /// The language the POSIX locale variables choose: the first of `LC_ALL`, `LC_MESSAGES`
    /// and `LANG` that is set and not empty decides (as `setlocale` does); English when it
    /// names another language (or "C"), nil when none is set.
    package static func fromEnvironment(_ environment: [String: String]) -> MemoLanguage? {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty {
                return MemoLanguage(localeName: value) ?? .english
            }
        }
        return nil
    }

    private static let chosen = Mutex<MemoLanguage?>(nil)

    /// A language for the texts made in one task (and the tasks it starts), over ``current``:
    /// `MemoLanguage.$taskLanguage.withValue(.korean) { error.localizedDescription }`.
    @TaskLocal public static var taskLanguage: MemoLanguage?

    /// The language of the engine's texts (error descriptions): ``taskLanguage`` when set;
    /// else, unless set, the one the locale variables choose, else the first of the system's
    /// preferred languages MemoSync speaks, else English. An app may set it to the language of
    /// its interface.
    public static var current: MemoLanguage {
        get {
            if let taskLanguage { return taskLanguage }
            if let chosen = chosen.withLock({ $0 }) { return chosen }
            if let fromEnvironment = fromEnvironment(ProcessInfo.processInfo.environment) { return fromEnvironment }
            return Locale.preferredLanguages.lazy.compactMap { MemoLanguage(localeName: $0) }.first ?? .english
        }
        set { chosen.withLock { $0 = newValue } }
    }
}

/// The catalogs and the lookup of texts in them.
package enum MemoStrings {
    /// The catalog of `language`: keys to templates.
    package static func catalog(_ language: MemoLanguage) -> [String: String] {
        switch language {
        case .english: english
        case .korean: korean
        case .japanese: japanese
        }
    }

    /// The text of `key` in `language`, with each `{name}` replaced by `arguments[name]`.
    /// A key missing from the language falls back to English, then to the key itself (the
    /// catalog test makes sure neither happens).
    package static func text(_ key: String, _ arguments: [String: String] = [:], language: MemoLanguage = .current) -> String {
        let template = catalog(language)[key] ?? english[key] ?? key
        return fill(template, arguments)
    }

    /// `template` with each `{name}` replaced by `arguments[name]` (left as it is when the
    /// argument is missing). One pass: an argument's own text is never searched again. O(n).
    package static func fill(_ template: String, _ arguments: [String: String]) -> String {
        guard !arguments.isEmpty, template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = arguments[name] {
                result += value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The names of the placeholders of `template`, in order, with repeats.
    package static func placeholders(in template: String) -> [String] {
        var names: [String] = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = rest[rest.index(after: open)..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber }) { names.append(String(name)) }
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
