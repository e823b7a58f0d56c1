import MemoCRDT

// How long a library keeps the content of deleted text (issue 27; FORMAT.md, "History
// retention"). A library always keeps history: from the first open by a MemoSync that knows it,
// deleting text keeps its content, so earlier versions of a memo can be shown
// (`Notebook.text(of:at:)`), until the retention period has passed. The period is the library's
// own (each device's library has one), in its file `history`; without the file, 90 days.

/// How long a library keeps the content of deleted text: a number of days, or forever.
///
/// The content of a deleted passage is dropped once the wall time of the edit that deleted it is
/// more than the period before the device's clock (``cutoffWallMilliseconds(nowWallMilliseconds:)``):
/// earlier versions of a memo that need it can then no longer be shown
/// (`TextHistoryError.contentNotRetained`). Dropping never changes any memo's text or what any
/// device converges to.
///
/// ```swift
/// try replica.setHistoryRetention(.days(30))
/// try replica.setHistoryRetention(.forever)
/// ```
public enum HistoryRetention: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Deleted content is kept for this many days (1 through ``daysMax``).
    case days(Int)
    /// Deleted content is never dropped (only a purge drops a memo's history).
    case forever

    /// A library's retention when it has none set: 90 days.
    public static let `default` = HistoryRetention.days(90)
    /// The longest period in days: 36,500 (100 years). Longer is ``forever``.
    public static let daysMax = 36_500
    /// One day in milliseconds.
    static let dayMilliseconds: UInt64 = 86_400_000

    /// Whether the period is one a library can keep: ``forever``, or 1 through ``daysMax`` days.
    public var isValid: Bool {
        switch self {
        case .forever: true
        case let .days(days): days >= 1 && days <= Self.daysMax
        }
    }

    /// The period in milliseconds; nil for ``forever``.
    public var periodMilliseconds: UInt64? {
        switch self {
        case .forever: nil
        case let .days(days): UInt64(max(0, min(days, Self.daysMax))) * Self.dayMilliseconds
        }
    }

    /// The wall time (milliseconds since the Unix epoch) before which deleted content is dropped,
    /// at `now`: `now` minus the period (0 when the clock reads less than the period); nil for
    /// ``forever``. A clock set back only gives an earlier cutoff: nothing is dropped that a
    /// correct clock would keep, and nothing dropped comes back.
    public func cutoffWallMilliseconds(nowWallMilliseconds now: UInt64) -> UInt64? {
        guard let period = periodMilliseconds else { return nil }
        return now > period ? now - period : 0
    }

    /// "90 days", "forever" (English, for logs; front ends show their own words).
    public var description: String {
        switch self {
        case .forever: "forever"
        case let .days(days): days == 1 ? "1 day" : "\(days) days"
        }
    }
}

/// The library's `history` file: its retention period (FORMAT.md, "History retention").
enum LibraryHistoryFile {
    /// The file in the library folder.
    static let fileName = "history"
    /// The file being replaced (renamed over ``fileName`` once durable).
    static let temporaryFileName = "history.tmp"
    /// The tag of its body (after the seal's 3 and the encryption file's 4).
    static let tag: UInt8 = 5
    /// Its envelope's version (of kind 6, the library's files).
    static let formatVersion: UInt8 = 3
    /// The most bytes read of it: 64 KiB (it holds a few bytes).
    static let bytesMax = 1 << 16

    /// The file's bytes: envelope kind 6 version 3, body: tag 5, varint days (0: forever).
    static func encoded(_ retention: HistoryRetention) -> [UInt8] {
        var body = ByteWriter(capacity: 8)
        body.byte(tag)
        switch retention {
        case .forever: body.varint(0)
        case let .days(days): body.varint(UInt64(max(1, min(days, HistoryRetention.daysMax))))
        }
        return BlobEnvelope.seal(kind: .localFile, version: formatVersion, body: body.bytes)
    }

    /// Decodes the file's bytes. A file that does not decode (damaged, torn, written by a newer
    /// MemoSync) reads as ``HistoryRetention/forever``: dropping content cannot be taken back, so
    /// a period nobody can read drops nothing.
    static func decoded(_ bytes: [UInt8]) -> HistoryRetention {
        do throws(DecodingError) {
            let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .localFile, versions: formatVersion...formatVersion)
            var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
            guard try reader.byte() == tag else { return .forever }
            let days = try reader.varint()
            guard reader.isAtEnd, days <= UInt64(HistoryRetention.daysMax) else { return .forever }
            return days == 0 ? .forever : .days(Int(days))
        } catch {
            return .forever
        }
    }

    /// The library's retention as its folder says: ``HistoryRetention/default`` without a file.
    static func read(from disk: any LibraryDisk) throws(DiskError) -> HistoryRetention {
        try disk.read(file: fileName).map(decoded) ?? .default
    }

    /// The disk operations that make `retention` the library's, durably: a temporary file,
    /// synced, renamed over the file, then the folder synced. A crash leaves the old file or the
    /// new.
    static func savingOperations(_ retention: HistoryRetention) -> [DiskOperation] {
        [
            .write(file: temporaryFileName, bytes: encoded(retention)), .sync(file: temporaryFileName),
            .rename(from: temporaryFileName, to: fileName), .syncDirectory,
        ]
    }
}
