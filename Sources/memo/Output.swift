// Writing to the terminal: standard output and error, dates, JSON, short ids, sync progress.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync

/// `bytes` as a string if they are valid UTF-8, kept exactly (a byte order mark included);
/// nil otherwise.
func exactUTF8(_ bytes: [UInt8]) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.utf8.elementsEqual(bytes) ? text : nil
}

/// Standard output (buffered until ``flush()``), standard error (unbuffered) and whether they
/// are terminals.
///
/// Output goes through `write(2)` rather than `FileHandle` (whose write traps on a closed pipe
/// in corelibs Foundation) or C `stdout` (a shared mutable global in Swift 6).
struct Console {
    private var buffer: [UInt8] = []
    /// Why writing standard output failed (a full disk, a closed file), if it did.
    private(set) var outputFailure: String?

    /// Whether standard output is a terminal.
    let outputIsTerminal = isatty(1) == 1
    /// Whether standard error is a terminal.
    let errorIsTerminal = isatty(2) == 1
    /// Whether standard input is a terminal.
    let inputIsTerminal = isatty(0) == 1

    /// The width of the terminal standard output is, in columns: the terminal's own size, else
    /// `$COLUMNS`, else 80; nil when standard output is not a terminal (a pipe or a file gets
    /// whole lines).
    func outputColumns(environment: [String: String]) -> Int? {
        guard outputIsTerminal else { return nil }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// Appends `text` to standard output.
    mutating func print(_ text: String, terminator: String = "\n") {
        buffer.append(contentsOf: text.utf8)
        buffer.append(contentsOf: terminator.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes what ``print(_:terminator:)`` collected.
    /// After a failure, later output is dropped and ``outputFailure`` says why.
    mutating func flush() {
        if outputFailure == nil, let failure = Console.writeAll(buffer, to: 1) {
            outputFailure = failure
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `text` to standard error at once (a failure there has nowhere to be reported).
    func error(_ text: String) {
        _ = Console.writeAll(Array(text.utf8), to: 2)
    }

    /// Writes every byte, continuing after partial writes; returns why it failed, in the user's
    /// language (the disk is full, ...: never the system's English text in another language),
    /// nil on success.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return UserFileError(errorNumber: errno, writing: true).localizedReason
                }
                offset += written
            }
            return nil
        }
    }
}

/// The locales `memo` formats for people with, from the POSIX locale variables (`LC_ALL`,
/// then `LC_TIME` or `LC_NUMERIC`, then `LANG`). nil for the "C" and "POSIX" locales (and when
/// nothing is set): then dates are `yyyy-MM-dd HH:mm` and numbers plain digits.
enum Locales {
    /// The locale of dates.
    static func time(_ environment: [String: String]) -> Locale? { locale(environment, "LC_TIME") }
    /// The locale of numbers.
    static let numeric: Locale? = locale(ProcessInfo.processInfo.environment, "LC_NUMERIC")

    private static func locale(_ environment: [String: String], _ category: String) -> Locale? {
        for name in ["LC_ALL", category, "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            let identifier = value.prefix { $0 != "." && $0 != "@" }
            if identifier == "C" || identifier == "POSIX" { return nil }
            return Locale(identifier: String(identifier))
        }
        return nil
    }
}

/// Local dates for people: in the locale's format (year, month, day, hours and minutes), or
/// `yyyy-MM-dd HH:mm` in the "C" locale, in the current time zone. One formatter serves a
/// whole list.
struct LocalDates {
    private let formatter: DateFormatter

    init(environment: [String: String]) {
        formatter = DateFormatter()
        formatter.timeZone = TimeZone.current
        if let locale = Locales.time(environment) {
            formatter.locale = locale
            formatter.dateFormat = DateFormatter.dateFormat(fromTemplate: "yyyyMMddHHmm", options: 0, locale: locale) ?? "yyyy-MM-dd HH:mm"
        } else {
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
        }
    }

    /// Milliseconds since the Unix epoch (as `HybridTimestamp.wallMilliseconds` holds them).
    func string(_ milliseconds: UInt64) -> String {
        formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

/// Formats for people and for programs.
enum Format {
    /// Milliseconds since the Unix epoch as ISO 8601 in UTC with milliseconds,
    /// `2026-01-02T03:04:05.678Z`. Computed exactly from the integer (no floating point).
    static func isoDate(milliseconds: UInt64) -> String {
        let totalSeconds = Int64(milliseconds / 1000)
        let millis = Int(milliseconds % 1000)
        let days = totalSeconds / 86_400
        let secondsOfDay = Int(totalSeconds % 86_400)
        let (year, month, day) = CivilDate.of(daysSince1970: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    /// A hybrid timestamp's wall time as ISO 8601 (see ``isoDate(milliseconds:)``).
    static func isoDate(_ timestamp: HybridTimestamp) -> String {
        isoDate(milliseconds: timestamp.wallMilliseconds)
    }

    private static func pad<T: BinaryInteger>(_ value: T, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// A hybrid timestamp's wall time as a `Date`.
    static func date(_ timestamp: HybridTimestamp) -> Date {
        Date(timeIntervalSince1970: Double(timestamp.wallMilliseconds) / 1000)
    }

    /// An integer in the locale's format ("1,234" in English); plain digits in the "C" locale.
    static func number(_ value: Int) -> String {
        guard let locale = Locales.numeric else { return String(value) }
        let formatter = NumberFormatter()
        formatter.locale = locale
        formatter.numberStyle = .decimal
        return formatter.string(from: NSNumber(value: value)) ?? String(value)
    }

    /// A number with one decimal in the locale's format ("1.5"; "1,5" in German).
    private static func decimal(_ value: Double) -> String {
        let plain = String(format: "%.1f", value)
        guard let separator = Locales.numeric?.decimalSeparator, separator != "." else { return plain }
        return plain.replacingOccurrences(of: ".", with: separator)
    }

    /// A byte count for people: "512 bytes", "1.5 KB", "2.0 MB".
    static func bytes(_ count: Int) -> String {
        if count < 1024 { return Format.count(count, "byte") }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return decimal(value) + " " + units[unit]
    }

    /// A count of things in the user's language: "1 memo", "2 memos", "메모 2개" (the catalog's
    /// "cli.count.NOUN.one" and "cli.count.NOUN.other").
    static func count(_ count: Int, _ noun: String) -> String {
        t("count.\(noun).\(count == 1 ? "one" : "other")", ["count": number(count)])
    }

    /// The columns `text` takes on a terminal: 2 for East Asian wide characters (Hangul,
    /// kana, CJK ideographs, full-width forms), 1 for others.
    static func displayWidth(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { width, scalar in
            switch scalar.value {
            case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
                0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
                width + 2
            default:
                width + 1
            }
        }
    }

    /// `text` safe to print on a terminal: control characters (which could move the cursor or
    /// change colours) shown as U+FFFD. Titles come from other devices, so they are not trusted.
    static func terminalSafe(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F: result.append("\u{FFFD}")
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// `text`, or when longer than `limit` characters its start and end with "…" between them
    /// (a store may hold junk with very long names; a summary line stays readable).
    static func shortened(_ text: String, limit: Int = 120) -> String {
        guard text.count > limit else { return text }
        let head = (limit - 1) * 2 / 3
        return String(text.prefix(head)) + "\u{2026}" + String(text.suffix(limit - 1 - head))
    }

    /// A title for a list: the title made terminal-safe, or "(untitled)".
    static func title(_ title: String) -> String {
        title.isEmpty ? t("untitled") : terminalSafe(title)
    }

    /// `text` cut to at most `columns` terminal columns (``displayWidth(_:)``), ending in "…"
    /// when cut; whole when it fits or when `columns` is nil. Cuts between grapheme clusters, so
    /// an emoji or a syllable is never split.
    static func fitted(_ text: String, columns: Int?) -> String {
        guard let columns, displayWidth(text) > columns else { return text }
        guard columns >= 1 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let width = displayWidth(String(character))
            if used + width > columns - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    /// JSON text for `value` (dictionaries, arrays, strings, numbers, booleans and `NSNull`),
    /// pretty-printed with sorted keys, followed by nothing (the caller adds the line break).
    static func json(_ value: Any) throws(CLIError) -> String {
        var options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys]
        if #available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *) { options.insert(.withoutEscapingSlashes) }
        do {
            let data = try JSONSerialization.data(withJSONObject: value, options: options)
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw .runtime("error.json", ["error": describe(error)])
        }
    }

    /// A memo summary as JSON.
    static func json(_ summary: MemoSummary) -> [String: Any] {
        [
            "id": summary.id.description,
            "title": summary.title,
            "preview": summary.preview,
            "createdAt": isoDate(summary.createdAt),
            "modifiedAt": isoDate(summary.modifiedAt),
            "status": summary.status.description,
        ]
    }

    /// A memo as JSON.
    static func json(_ memo: Memo) -> [String: Any] {
        [
            "id": memo.id.description,
            "title": memo.title,
            "preview": memo.preview,
            "text": memo.text,
            "createdAt": isoDate(memo.createdAt),
            "modifiedAt": isoDate(memo.modifiedAt),
            "status": memo.status.description,
        ]
    }
}

/// The shortest prefixes that tell ids apart: at least `minimum` digits, and enough that no
/// other id (of any status) starts the same way.
struct ShortIDs {
    private var lengths: [MemoID: Int] = [:]
    private let minimum: Int

    /// Short ids among `ids` (every id the notebook knows, purged ones included, so a short id
    /// printed now names one memo only). O(n log n).
    init(_ ids: [MemoID], minimum: Int = 8) {
        self.minimum = minimum
        let sorted = ids.sorted()
        let texts = sorted.map { Array($0.description.utf8) }
        for index in texts.indices {
            var shared = 0
            for neighbour in [index - 1, index + 1] where texts.indices.contains(neighbour) {
                shared = max(shared, ShortIDs.commonPrefix(texts[index], texts[neighbour]))
            }
            lengths[sorted[index]] = min(32, max(minimum, shared + 1))
        }
    }

    /// The short form of `id`.
    func callAsFunction(_ id: MemoID) -> String {
        String(id.description.prefix(lengths[id] ?? minimum))
    }

    private static func commonPrefix(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var count = 0
        while count < a.count && count < b.count && a[count] == b[count] { count += 1 }
        return count
    }
}

/// A single updating line on standard error showing how far a sync or an export has come.
/// Silent unless standard error is a terminal (and not `--quiet`), and silent for the first
/// second: short runs show nothing.
/// Unchecked: the sync calls ``update(_:)`` from its task, one call at a time, and ``finish()``
/// runs after the sync returned; no two calls ever overlap.
final class ProgressLine: @unchecked Sendable {
    private let enabled: Bool
    private let task: String
    private let start = Date()
    private var lastDrawn: Date?
    private var shown = false
    private let console: Console

    /// How long a run goes before its progress shows, in seconds: 1, or
    /// `$MEMO_PROGRESS_DELAY_MS` milliseconds (0 shows every run's progress, as a test of the
    /// line needs).
    static let delaySeconds: Double = {
        guard let text = ProcessInfo.processInfo.environment["MEMO_PROGRESS_DELAY_MS"], let milliseconds = Int(text), milliseconds >= 0 else {
            return 1
        }
        return Double(milliseconds) / 1000
    }()

    /// A progress line for `task` ("syncing"), shown when `enabled` and standard error is a
    /// terminal.
    init(console: Console, enabled: Bool, task: String) {
        self.console = console
        self.task = task
        self.enabled = enabled && console.errorIsTerminal
    }

    /// Redraws the line for a sync's `progress` (before its first store operation is done,
    /// the sync is listing the store).
    func update(_ progress: SyncProgress) {
        update(done: progress.blobsDone, planned: progress.blobsPlanned, unit: "storeOperation",
               bytesRead: progress.bytesRead, bytesWritten: progress.bytesWritten,
               phase: progress.blobsDone == 0 ? t("progress.listing") : nil)
    }

    /// Redraws the line (at most ten times a second): `done` of `planned` things counted as
    /// `unit` (a "cli.count." noun), and the bytes moved.
    func update(done: Int, planned: Int, unit: String, bytesRead: Int, bytesWritten: Int, phase: String? = nil) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(start) >= Self.delaySeconds else { return }
        if let lastDrawn, now.timeIntervalSince(lastDrawn) < 0.1 { return }
        lastDrawn = now
        shown = true
        let line = t("progress.line", [
            "task": phase.map { task + " (" + $0 + ")" } ?? task, "done": Format.number(done), "planned": Format.count(max(planned, done), unit),
            "read": Format.bytes(bytesRead), "written": Format.bytes(bytesWritten),
        ])
        console.error("\r\u{1B}[K" + line)
    }

    /// Erases the line, if it was drawn.
    func finish() {
        if shown { console.error("\r\u{1B}[K") }
        shown = false
    }
}
