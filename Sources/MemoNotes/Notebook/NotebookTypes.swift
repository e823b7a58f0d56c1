import MemoCRDT
// The public values a notebook hands out: memos, their status, events, errors.

/// Where a memo is in its life.
public enum MemoStatus: Sendable, Equatable, CustomStringConvertible {
    /// In the list.
    case active
    /// In the trash: hidden from the list, recoverable.
    case trashed
    /// Removed for good (its content is deleted on every replica).
    case purged

    public var description: String {
        switch self {
        case .active: "active"
        case .trashed: "trashed"
        case .purged: "purged"
        }
    }
}

/// A memo as a list shows it: cheap to produce for thousands of memos. It holds the beginning
/// of the text (shared, not copied) and works out the title and preview when they are read, so a
/// list of 10,000 memos costs only what its visible rows show.
public struct MemoSummary: Sendable, Equatable, Identifiable {
    /// The memo's id.
    public var id: MemoID
    /// When the memo was created (hybrid logical clock).
    public var createdAt: HybridTimestamp
    /// The latest change to the memo, by any replica (hybrid logical clock).
    public var modifiedAt: HybridTimestamp
    /// Active or trashed (purged memos are never listed).
    public var status: MemoStatus
    /// The beginning of the text's UTF-8 (whole scalars), shared with the notebook: its first
    /// `MemoRecord.derivedPrefixBytes` bytes, or (a memo still in the state file) the shortest
    /// beginning that gives the same title and preview.
    var textPrefix: ArraySlice<UInt8>

    /// The first line of the text.
    ///
    /// - Complexity: O(length of the first line), computed on each read.
    public var title: String { MemoText.title(of: String(decoding: textPrefix, as: UTF8.self)) }

    /// A short one-line preview of the body.
    ///
    /// - Complexity: O(length of the first line and of the preview), computed on each read.
    public var preview: String { MemoText.preview(of: String(decoding: textPrefix, as: UTF8.self)) }

    /// Equal when the memo, its times, status, title and preview are: the beginning of the text
    /// each keeps may differ in length (a library opened from its state list keeps only what
    /// the title and preview need; FORMAT.md, "State list").
    public static func == (left: MemoSummary, right: MemoSummary) -> Bool {
        left.id == right.id && left.createdAt == right.createdAt && left.modifiedAt == right.modifiedAt && left.status == right.status
            && listsAlike(left.textPrefix, right.textPrefix)
    }

    /// Whether two beginnings of a text give the same title and preview (equal bytes, or one the
    /// beginning of the other with the same title and preview).
    static func listsAlike(_ left: ArraySlice<UInt8>, _ right: ArraySlice<UInt8>) -> Bool {
        if ByteComparison.equal(left, right) { return true }
        let (short, long) = left.count <= right.count ? (left, right) : (right, left)
        guard ByteComparison.equal(short, long.prefix(short.count)) else { return false }
        let shortText = String(decoding: short, as: UTF8.self)
        let longText = String(decoding: long, as: UTF8.self)
        return MemoText.title(of: shortText) == MemoText.title(of: longText) && MemoText.preview(of: shortText) == MemoText.preview(of: longText)
    }

    /// A summary made by the library (list and search results) around its stored text.
    init(id: MemoID, createdAt: HybridTimestamp, modifiedAt: HybridTimestamp, status: MemoStatus, textPrefix: ArraySlice<UInt8>) {
        self.id = id
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.status = status
        self.textPrefix = textPrefix
    }

    /// A summary of a memo with `text`, as a notebook's list would give it: for SwiftUI
    /// previews and an app's view tests (a running app gets its summaries from the notebook).
    /// Only the beginning of `text` is kept, as the list keeps it (the title and preview come
    /// from it).
    public init(id: MemoID, text: String, createdAt: HybridTimestamp, modifiedAt: HybridTimestamp, status: MemoStatus = .active) {
        var end = min(text.utf8.count, MemoRecord.derivedPrefixBytes)
        let bytes = Array(text.utf8)
        while end > 0 && end < bytes.count && bytes[end] & 0xC0 == 0x80 { end -= 1 }  // whole scalars
        self.init(id: id, createdAt: createdAt, modifiedAt: modifiedAt, status: status, textPrefix: bytes[..<end])
    }
}

/// A memo with its text.
public struct Memo: Sendable, Equatable, Identifiable {
    /// The memo's id.
    public var id: MemoID
    /// The whole text: the title line, then the body.
    public var text: String
    /// When the memo was created (hybrid logical clock).
    public var createdAt: HybridTimestamp
    /// The latest change to the memo, by any replica (hybrid logical clock).
    public var modifiedAt: HybridTimestamp
    /// Active or trashed.
    public var status: MemoStatus

    /// The first line of the text.
    public var title: String { MemoText.title(of: text) }
    /// Everything after the first line.
    public var body: String { MemoText.body(of: text) }
    /// A short one-line preview of the body.
    public var preview: String { MemoText.preview(of: text) }
    /// The memo as plain text for sharing: the title line, then the body.
    public var plainText: String { MemoText.plainText(of: text) }

    /// A memo with these values: for SwiftUI previews and an app's view tests (a running app
    /// reads memos from the notebook).
    public init(id: MemoID, text: String, createdAt: HybridTimestamp, modifiedAt: HybridTimestamp, status: MemoStatus = .active) {
        self.id = id
        self.text = text
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.status = status
    }
}

/// Who made a change a notebook reports.
public enum ChangeOrigin: Sendable, Equatable {
    /// This replica (the app's own edit).
    case local
    /// Another replica, arriving through a merge or a delta.
    case remote
}

/// One change to a notebook, as a user interface follows it.
public enum NotebookEvent: Sendable, Equatable, CustomStringConvertible {
    /// A memo appeared in the notebook.
    case added(MemoID, origin: ChangeOrigin)
    /// A memo's text changed: apply `edits` in order (UTF-16 ranges of the text before each
    /// edit) to a copy of the text to follow along without reloading.
    case changed(MemoID, edits: [TextEdit], origin: ChangeOrigin)
    /// A memo moved to the trash.
    case trashed(MemoID, origin: ChangeOrigin)
    /// A memo left the trash (restored, or brought back by an edit the deleter had not seen).
    case restored(MemoID, origin: ChangeOrigin)
    /// A memo was removed for good.
    case purged(MemoID, origin: ChangeOrigin)

    /// The memo the event is about.
    public var memo: MemoID {
        switch self {
        case let .added(id, _), let .changed(id, _, _), let .trashed(id, _), let .restored(id, _), let .purged(id, _): id
        }
    }

    public var description: String {
        switch self {
        case let .added(id, origin): "added \(id) (\(origin))"
        case let .changed(id, edits, origin): "changed \(id): \(edits) (\(origin))"
        case let .trashed(id, origin): "trashed \(id) (\(origin))"
        case let .restored(id, origin): "restored \(id) (\(origin))"
        case let .purged(id, origin): "purged \(id) (\(origin))"
        }
    }
}

/// What went wrong with a notebook operation. Every failure leaves the notebook unchanged.
///
/// Errors nest at most two levels: a text failure is ``text(_:_:)`` with the memo's id and
/// exactly the `TextError` a `TextCRDT` throws for the same edit (a UTF-16 range past the end is
/// `.text(id, .rangeOutOfBounds(lowerBound:upperBound:length:))` here, and
/// `.rangeOutOfBounds(...)` with the same payload from `TextCRDT.replace(utf16Range:with:)`).
/// ``textError`` and ``memo`` read them without a `switch`. MemoSync's `ReplicaError` mirrors
/// this: `.text(id, error)` for ``text(_:_:)``, `.notebook(error)` for the other cases.
public enum NotebookError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No memo has this id (or it was purged).
    case memoNotFound(MemoID)
    /// A memo with this id exists already.
    case memoExists(MemoID)
    /// The memo is in the trash; restore it before editing.
    case memoInTrash(MemoID)
    /// The memo is not in the trash.
    case memoNotInTrash(MemoID)
    /// The text operation failed (an offset or range outside the text, a limit).
    case text(MemoID, TextError)
    /// A delta contradicts what the notebook holds (only a corrupt or hostile replica makes one).
    case invalidDelta(reason: String)
    /// The memo's stored text could not be decoded.
    case corruptMemo(MemoID, DecodingError)
    /// Nothing to undo or redo.
    case nothingToUndo(MemoID)
    /// An earlier version of the memo cannot be shown (not held, or its deleted text is no
    /// longer kept).
    case history(MemoID, TextHistoryError)

    /// The text's error, as `TextCRDT` throws it for the same edit (``text(_:_:)``); `nil`
    /// for the other cases.
    public var textError: TextError? {
        if case let .text(_, error) = self { error } else { nil }
    }

    /// The memo the failure is about; `nil` for ``invalidDelta(reason:)``.
    public var memo: MemoID? {
        switch self {
        case let .memoNotFound(id), let .memoExists(id), let .memoInTrash(id), let .memoNotInTrash(id),
            let .text(id, _), let .corruptMemo(id, _), let .nothingToUndo(id), let .history(id, _):
            id
        case .invalidDelta: nil
        }
    }

    public var description: String {
        switch self {
        case let .memoNotFound(id): "no memo \(id)"
        case let .memoExists(id): "a memo \(id) exists already"
        case let .memoInTrash(id): "memo \(id) is in the trash; restore it first"
        case let .memoNotInTrash(id): "memo \(id) is not in the trash"
        case let .text(id, error): "memo \(id): \(error)"
        case let .invalidDelta(reason): "invalid notebook delta: \(reason)"
        case let .corruptMemo(id, error): "memo \(id) cannot be read: \(error)"
        case let .nothingToUndo(id): "nothing to undo or redo in memo \(id)"
        case let .history(id, error): "memo \(id): \(error)"
        }
    }
}
