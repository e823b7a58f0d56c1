// The scheme between an open page and the server (SERVE.md, "Between the page and the engine").
//
// The server is the single authority for each open memo: it numbers every change it applies to
// the memo's text (a revision), whoever made it (a page, a sync, another `memo` command). A page
// sends each edit naming the revision it was made on; the server transforms it over the changes
// since that revision and applies it to the engine. This is the client-server scheme of Jupiter
// and ot.js: `TextOperation` (retain / insert / delete over the whole text, in UTF-16 code units,
// the units of JavaScript strings and of `Replica.edit(_:replacingUTF16:with:)`), `transform`
// and `compose`, the server's `CollabDocument.receive`, and the page's three states
// (`CollabPage`: synchronized, awaiting confirmation, awaiting with a buffer), which
// `Page/app.js` transcribes function by function. The property tests
// (Tests/MemoServeTests/CollabTests.swift) run random interleavings of both.

/// One component of a ``TextOperation``.
public enum TextComponent: Equatable, Sendable {
    /// Keep this many UTF-16 code units.
    case retain(Int)
    /// Insert this text (UTF-16 code units).
    case insert([UInt16])
    /// Remove this many UTF-16 code units.
    case delete(Int)
}

/// A change to a whole text: its components walk the text from start to end. Canonical:
/// no empty component, no two adjacent of the same kind, an insert before a delete where both
/// meet.
public struct TextOperation: Equatable, Sendable {
    /// The components, canonical.
    public private(set) var components: [TextComponent] = []
    /// The length of the text it applies to, in UTF-16 code units.
    public private(set) var baseLengthUTF16 = 0
    /// The length of the text it makes, in UTF-16 code units.
    public private(set) var targetLengthUTF16 = 0

    /// The longest text an operation may walk, in UTF-16 code units: a memo's content is at most
    /// 4 GiB (`Limits.contentBytesMax`), so no count and no length of a valid operation is larger.
    /// The server refuses an operation that names more (`POST /api/memos/ID/edits`, 400), before
    /// it is built: ``retain(_:)``, ``insert(_:)`` and ``delete(_:)`` take counts and lengths
    /// within it, where their sums cannot overflow.
    public static let lengthUTF16Max = Int(UInt32.max)

    /// The operation that changes nothing.
    public init() {}

    /// Keeps `count` code units.
    public mutating func retain(_ count: Int) {
        guard count > 0 else { return }
        baseLengthUTF16 += count
        targetLengthUTF16 += count
        if case let .retain(last) = components.last {
            components[components.count - 1] = .retain(last + count)
        } else {
            components.append(.retain(count))
        }
    }

    /// Inserts `text` (UTF-16 code units).
    public mutating func insert(_ text: [UInt16]) {
        guard !text.isEmpty else { return }
        targetLengthUTF16 += text.count
        let count = components.count
        if case let .insert(last) = components.last {
            components[count - 1] = .insert(last + text)
        } else if case .delete = components.last {
            // Canonical: the insert goes before the delete it meets.
            if count >= 2, case let .insert(before) = components[count - 2] {
                components[count - 2] = .insert(before + text)
            } else {
                components.insert(.insert(text), at: count - 1)
            }
        } else {
            components.append(.insert(text))
        }
    }

    /// Removes `count` code units.
    public mutating func delete(_ count: Int) {
        guard count > 0 else { return }
        baseLengthUTF16 += count
        if case let .delete(last) = components.last {
            components[components.count - 1] = .delete(last + count)
        } else {
            components.append(.delete(count))
        }
    }

    /// Whether it changes nothing.
    public var isNoop: Bool { components.allSatisfy { if case .retain = $0 { true } else { false } } }

    /// The operation replacing `range` of a text `lengthUTF16` long with `text`.
    public static func replacing(_ range: Range<Int>, with text: [UInt16], lengthUTF16: Int) -> TextOperation {
        var operation = TextOperation()
        operation.retain(range.lowerBound)
        operation.insert(text)
        operation.delete(range.count)
        operation.retain(lengthUTF16 - range.upperBound)
        return operation
    }

    /// The operation from `old` to `new`: the smallest single replacement (common beginning and
    /// end kept), never splitting a surrogate pair.
    public static func difference(from old: [UInt16], to new: [UInt16]) -> TextOperation {
        let limit = min(old.count, new.count)
        var prefix = 0
        while prefix < limit && old[prefix] == new[prefix] { prefix += 1 }
        if prefix > 0 && UTF16.isLeadSurrogate(old[prefix - 1]) { prefix -= 1 }
        var suffix = 0
        while suffix < limit - prefix && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        if suffix > 0 && UTF16.isTrailSurrogate(old[old.count - suffix]) { suffix -= 1 }
        return replacing(prefix..<(old.count - suffix), with: Array(new[prefix..<(new.count - suffix)]), lengthUTF16: old.count)
    }

    /// `text` changed by this operation; nil when its length is not ``baseLengthUTF16``.
    public func apply(to text: [UInt16]) -> [UInt16]? {
        guard text.count == baseLengthUTF16 else { return nil }
        var result: [UInt16] = []
        result.reserveCapacity(targetLengthUTF16)
        var index = 0
        for component in components {
            switch component {
            case let .retain(count):
                result += text[index..<index + count]
                index += count
            case let .insert(inserted):
                result += inserted
            case let .delete(count):
                index += count
            }
        }
        return result
    }

    /// The operation as replacements applied one after the other (UTF-16 ranges of the text as
    /// it is at that point): what ``Replica/edit(_:replacingUTF16:with:)`` takes.
    public var replacements: [(range: Range<Int>, text: [UInt16])] {
        var result: [(range: Range<Int>, text: [UInt16])] = []
        var position = 0
        var index = 0
        while index < components.count {
            switch components[index] {
            case let .retain(count):
                position += count
                index += 1
            case let .insert(text):
                var deleted = 0
                if index + 1 < components.count, case let .delete(count) = components[index + 1] {
                    deleted = count
                    index += 1
                }
                result.append((position..<position + deleted, text))
                position += text.count
                index += 1
            case let .delete(count):
                result.append((position..<position + count, []))
                index += 1
            }
        }
        return result
    }

    /// `a` then `b` as one operation (`b` applies to what `a` makes); nil when the lengths do
    /// not meet.
    public static func compose(_ a: TextOperation, _ b: TextOperation) -> TextOperation? {
        guard a.targetLengthUTF16 == b.baseLengthUTF16 else { return nil }
        var result = TextOperation()
        var first = ComponentCursor(a.components)
        var second = ComponentCursor(b.components)
        while true {
            let x = first.current, y = second.current
            if x == nil && y == nil { return result }
            if case let .delete(count)? = x {
                result.delete(count)
                first.advance()
                continue
            }
            if case let .insert(text)? = y {
                result.insert(text)
                second.advance()
                continue
            }
            guard let x, let y else { return nil }
            switch (x, y) {
            case let (.retain(m), .retain(n)):
                let k = min(m, n)
                result.retain(k)
                first.consume(k)
                second.consume(k)
            case let (.insert(text), .delete(n)):
                let k = min(text.count, n)
                first.consume(k)
                second.consume(k)
            case let (.insert(text), .retain(n)):
                let k = min(text.count, n)
                result.insert(Array(text[0..<k]))
                first.consume(k)
                second.consume(k)
            case let (.retain(m), .delete(n)):
                let k = min(m, n)
                result.delete(k)
                first.consume(k)
                second.consume(k)
            default:
                return nil
            }
        }
    }

    /// `a` and `b` made on the same text, each moved over the other: `a′` applies after `b`,
    /// `b′` after `a`, and both orders make the same text. Where both insert at one place, `a`'s
    /// text comes first. Nil when the base lengths differ.
    public static func transform(_ a: TextOperation, _ b: TextOperation) -> (TextOperation, TextOperation)? {
        guard a.baseLengthUTF16 == b.baseLengthUTF16 else { return nil }
        var aPrime = TextOperation(), bPrime = TextOperation()
        var first = ComponentCursor(a.components)
        var second = ComponentCursor(b.components)
        while true {
            let x = first.current, y = second.current
            if x == nil && y == nil { return (aPrime, bPrime) }
            if case let .insert(text)? = x {
                aPrime.insert(text)
                bPrime.retain(text.count)
                first.advance()
                continue
            }
            if case let .insert(text)? = y {
                aPrime.retain(text.count)
                bPrime.insert(text)
                second.advance()
                continue
            }
            guard let x, let y else { return nil }
            switch (x, y) {
            case let (.retain(m), .retain(n)):
                let k = min(m, n)
                aPrime.retain(k)
                bPrime.retain(k)
                first.consume(k)
                second.consume(k)
            case let (.delete(m), .delete(n)):
                let k = min(m, n)
                first.consume(k)
                second.consume(k)
            case let (.delete(m), .retain(n)):
                let k = min(m, n)
                aPrime.delete(k)
                first.consume(k)
                second.consume(k)
            case let (.retain(m), .delete(n)):
                let k = min(m, n)
                bPrime.delete(k)
                first.consume(k)
                second.consume(k)
            default:
                return nil
            }
        }
    }

    /// Where the position `offset` (in the text this applies to) is in the text it makes: an
    /// insert exactly there goes after it (a caret stays with the characters before it).
    public func mapPosition(_ offset: Int) -> Int {
        var before = 0
        var after = 0
        for component in components {
            if before >= offset {
                return after
            }
            switch component {
            case let .retain(count):
                let k = min(count, offset - before)
                before += k
                after += k
                if k < count { return after }
            case let .insert(text):
                after += text.count
            case let .delete(count):
                let k = min(count, offset - before)
                before += k
                if k < count { return after }
            }
        }
        return after
    }
}

/// Walks an operation's components, consuming them in parts.
struct ComponentCursor {
    private let components: [TextComponent]
    private var index = 0
    /// The rest of the component at `index`.
    private(set) var current: TextComponent?

    init(_ components: [TextComponent]) {
        self.components = components
        current = components.first
    }

    mutating func advance() {
        index += 1
        current = index < components.count ? components[index] : nil
    }

    /// Takes `count` units of the current component.
    mutating func consume(_ count: Int) {
        switch current {
        case let .retain(n)? where n > count: current = .retain(n - count)
        case let .delete(n)? where n > count: current = .delete(n - count)
        case let .insert(text)? where text.count > count: current = .insert(Array(text[count...]))
        default: advance()
        }
    }
}

/// Why the server refused a page's operation (the page reloads the memo).
public enum CollabRefusal: Error, Equatable, Sendable {
    /// The revision named is newer than the server's, or older than the history it keeps.
    case unknownRevision(Int)
    /// The operation does not apply to the text of its revision.
    case lengthMismatch
}

/// The server's side of one open memo: its text as the server last applied it, and the history
/// of every change, numbered (revision n is the text after n changes in this server's life).
public struct CollabDocument: Sendable {
    /// The text, in UTF-16 code units.
    public private(set) var text: [UInt16]
    /// How many changes were applied since the document was opened.
    public private(set) var revision: Int
    /// The newest changes, oldest first, each with who made it (a page's client name; empty
    /// for the engine's): `history[i]` made revision `historyStart + i + 1`.
    private var history: [(operation: TextOperation, client: String)] = []
    private var historyStart: Int
    /// How many changes are kept for pages that are behind.
    public let historyLimit: Int

    /// A document holding `text` at revision `revision`.
    public init(text: [UInt16], revision: Int = 0, historyLimit: Int = 10_000) {
        self.text = text
        self.revision = revision
        historyStart = revision
        self.historyLimit = historyLimit
    }

    /// Takes an operation page `client` made on revision `base`: moves it over every change
    /// since, applies it and returns it as applied (revision ``revision``).
    public mutating func receive(_ operation: TextOperation, base: Int, client: String = "") throws(CollabRefusal) -> TextOperation {
        guard base <= revision, base >= historyStart else { throw .unknownRevision(base) }
        var moved = operation
        for concurrent in history[(base - historyStart)...] {
            guard let pair = TextOperation.transform(moved, concurrent.operation) else { throw .lengthMismatch }
            moved = pair.0
        }
        try record(moved, client: client)
        return moved
    }

    /// Applies a change made on the current revision: the engine's (a sync, another command,
    /// an undo) when `client` is empty, else what ``receive(_:base:client:)`` moved.
    public mutating func record(_ operation: TextOperation, client: String = "") throws(CollabRefusal) {
        guard let changed = operation.apply(to: text) else { throw .lengthMismatch }
        text = changed
        history.append((operation, client))
        revision += 1
        if history.count > historyLimit {
            let dropped = history.count - historyLimit
            history.removeFirst(dropped)
            historyStart += dropped
        }
    }

    /// Every change after revision `base`, oldest first, each with the revision it made and
    /// who made it: what a page that heard of `base` and then missed events needs to catch up
    /// (its own changes among them are its confirmations). Refused when `base` is newer than
    /// ``revision`` or older than the history kept (the page reloads the whole text).
    public func changes(since base: Int) throws(CollabRefusal) -> [(revision: Int, operation: TextOperation, client: String)] {
        guard base <= revision, base >= historyStart else { throw .unknownRevision(base) }
        return (base - historyStart..<history.count).map { index in
            (revision: historyStart + index + 1, operation: history[index].operation, client: history[index].client)
        }
    }
}

/// The page's side (a Swift reference of `Page/app.js`'s `Collab`, statement by statement): the
/// text shown, the revision it last heard of, and what it sent and has not heard back.
public struct CollabPage: Sendable {
    /// The text shown (with every local edit), UTF-16.
    public private(set) var text: [UInt16]
    /// The server revision this page has heard of.
    public private(set) var revision: Int
    /// Sent, not yet confirmed.
    public private(set) var outstanding: TextOperation?
    /// Typed while `outstanding` was on its way.
    public private(set) var buffer: TextOperation?

    /// A page showing `text` at `revision`.
    public init(text: [UInt16], revision: Int) {
        self.text = text
        self.revision = revision
    }

    /// The user changed the text to `newText`: returns the operation to send now (with the
    /// revision it is on), or nil when one is already on its way.
    public mutating func edit(to newText: [UInt16]) -> (operation: TextOperation, base: Int)? {
        let operation = TextOperation.difference(from: text, to: newText)
        text = newText
        if operation.isNoop { return nil }
        if outstanding == nil {
            outstanding = operation
            return (operation, revision)
        }
        if let buffer {
            self.buffer = TextOperation.compose(buffer, operation)
        } else {
            buffer = operation
        }
        return nil
    }

    /// The server confirmed this page's outstanding operation: returns the buffer to send
    /// next, if any.
    public mutating func confirmed() -> (operation: TextOperation, base: Int)? {
        revision += 1
        outstanding = buffer
        buffer = nil
        return outstanding.map { ($0, revision) }
    }

    /// Another change the server applied: moves what is unconfirmed over it and applies it to
    /// the text. Returns the change as applied here (for moving the caret), or nil when it does
    /// not fit (the page reloads).
    public mutating func received(_ operation: TextOperation) -> TextOperation? {
        var incoming = operation
        if let outstanding {
            guard let pair = TextOperation.transform(outstanding, incoming) else { return nil }
            self.outstanding = pair.0
            incoming = pair.1
            if let buffer {
                guard let second = TextOperation.transform(buffer, incoming) else { return nil }
                self.buffer = second.0
                incoming = second.1
            }
        }
        guard let changed = incoming.apply(to: text) else { return nil }
        text = changed
        revision += 1
        return incoming
    }
}
