/// A set of text operations to send to another replica: what ``TextCRDT/changes(since:)``
/// returns and ``TextCRDT/apply(_:)`` takes.
///
/// Operations are grouped in runs: consecutive operations of one replica, with consecutive
/// counters and consecutive Lamport timestamps, all insertions or all deletions. A typed word is
/// one run. Runs are kept sorted by replica id, then counter, so equal deltas are equal values and
/// encode to equal bytes.
///
/// Content of text that was already deleted when the delta was made is not carried: such
/// insertions travel as tombstones (their ids and origins only), next to the deletions that
/// remove them.
public struct TextDelta: Sendable, Equatable {
    /// Where an insertion run's originRight is.
    @usableFromInline
    package enum RightOrigin: Sendable, Equatable {
        /// The end of the text.
        case end
        /// A named item.
        case item(OperationID)
        /// The same as the originRight of the run's originLeft item: typing more after a
        /// character whose right neighbour has not changed. Resolved when applied; this is how a
        /// keystroke's delta avoids naming a far-away item.
        case inherited
    }

    /// A run of consecutive operations by one replica.
    @usableFromInline
    package struct Run: Sendable, Equatable {
        /// What the operations of a run do.
        @usableFromInline
        package enum Kind: Sendable, Equatable {
            /// Inserting `length` scalars. Item 0 goes between `originLeft` (nil: the start of the
            /// text) and `originRight`; item `i > 0` has item `i - 1` as its originLeft and the
            /// same originRight. `content` is the scalars' UTF-8, or nil when they were deleted by
            /// the time the delta was made.
            case insertion(originLeft: OperationID?, originRight: RightOrigin, content: [UInt8]?)
            /// Deleting the items `target.counter ..< target.counter + length` of
            /// `target.replica`, one per operation, ascending (or descending if `isReversed`).
            case deletion(target: OperationID, isReversed: Bool)
        }

        package var replica: ReplicaID
        package var counter: UInt32
        var lamport: UInt64
        package var length: UInt32
        package var kind: Kind

        package var end: UInt32 { counter + length }

        package var isInsertion: Bool {
            if case .insertion = kind { return true }
            return false
        }

        /// An insertion that travels without its content (deleted when the delta was made).
        var isTombstone: Bool {
            if case .insertion(_, _, nil) = kind { return true }
            return false
        }

        /// The run without its first `count` operations.
        func dropping(_ count: UInt32) -> Run {
            precondition(count < length)
            var result = self
            result.counter += count
            result.lamport += UInt64(count)
            result.length -= count
            switch kind {
            case let .insertion(_, originRight, content):
                let left = OperationID(replica: replica, counter: counter + count - 1)
                var rest: [UInt8]?
                if let content {
                    let (bytes, _) = UTF8Scanning.advance(content, from: 0, scalars: Int(count))
                    rest = Array(content[bytes...])
                }
                result.kind = .insertion(originLeft: left, originRight: originRight, content: rest)
            case let .deletion(target, isReversed):
                var newTarget = target
                if !isReversed { newTarget.counter += count }
                result.kind = .deletion(target: newTarget, isReversed: isReversed && result.length > 1)
            }
            return result
        }

        /// The first `count` operations of the run.
        func prefix(_ count: UInt32) -> Run {
            precondition(count > 0 && count <= length)
            var result = self
            result.length = count
            switch kind {
            case let .insertion(originLeft, originRight, content):
                var head: [UInt8]?
                if let content {
                    let (bytes, _) = UTF8Scanning.advance(content, from: 0, scalars: Int(count))
                    head = Array(content[..<bytes])
                }
                result.kind = .insertion(originLeft: originLeft, originRight: originRight, content: head)
            case let .deletion(target, isReversed):
                var newTarget = target
                if isReversed { newTarget.counter += length - count }
                result.kind = .deletion(target: newTarget, isReversed: isReversed && count > 1)
            }
            return result
        }

        /// Appends `next` when it continues this run (same replica and kind, consecutive
        /// counters and timestamps, and for insertions a continued typing run).
        mutating func append(_ next: Run) -> Bool {
            guard next.replica == replica, next.counter == end, next.lamport == lamport + UInt64(length) else {
                return false
            }
            if case let .insertion(nextLeft, nextRight, nextContent) = next.kind {
                guard case .insertion(let originLeft, let originRight, var content) = kind,
                    nextLeft == OperationID(replica: replica, counter: end - 1),
                    nextRight == originRight || nextRight == .inherited,
                    (content == nil) == (nextContent == nil),
                    Int(length) + Int(next.length) <= Int(Limits.operationsPerReplicaMax)
                else { return false }
                // The run lets go of its content first, so that when it held the only reference
                // the bytes are appended in place (amortized O(appended)) instead of copied.
                kind = .deletion(target: OperationID(replica: replica, counter: 0), isReversed: false)
                content?.append(contentsOf: nextContent!)
                kind = .insertion(originLeft: originLeft, originRight: originRight, content: content)
                length += next.length
                return true
            }
            guard case let .deletion(nextTarget, nextReversed) = next.kind, case let .deletion(target, isReversed) = kind,
                target.replica == nextTarget.replica
            else { return false }
            let forward = (!isReversed || length == 1) && (!nextReversed || next.length == 1)
            let backward = (isReversed || length == 1) && (nextReversed || next.length == 1)
            if forward && target.counter + length == nextTarget.counter {
                kind = .deletion(target: target, isReversed: false)
            } else if backward && nextTarget.counter + next.length == target.counter {
                kind = .deletion(target: nextTarget, isReversed: true)
            } else {
                return false
            }
            length += next.length
            return true
        }

    }

    /// Runs sorted by replica, then counter; runs of one replica do not overlap.
    @usableFromInline package var runs: [Run]

    /// An empty delta.
    public init() {
        runs = []
    }

    package init(runs: [Run]) {
        self.runs = runs
    }

    /// True when the delta holds no operations.
    public var isEmpty: Bool { runs.isEmpty }

    /// How many operations the delta holds, deletions included.
    public var operationCount: Int { runs.reduce(0) { $0 + Int($1.length) } }

    /// For each replica, the highest counter in this delta plus one. Applying the delta to a text
    /// that already holds the operations before them yields at least this version.
    public var upperVersion: VersionVector {
        VersionVector(entries: runs.map { VersionVector.Entry(replica: $0.replica, operationCount: $0.end) })
    }

    /// The ids of all operations in the delta: for each replica, the counter ranges it covers.
    public var operationRanges: [(replica: ReplicaID, counters: Range<UInt32>)] {
        var result: [(replica: ReplicaID, counters: Range<UInt32>)] = []
        for run in runs {
            if let last = result.last, last.replica == run.replica, last.counters.upperBound == run.counter {
                result[result.count - 1].counters = last.counters.lowerBound..<run.end
            } else {
                result.append((run.replica, run.counter..<run.end))
            }
        }
        return result
    }
}

/// One change to a text as a text view sees it: replace the UTF-16 range `rangeUTF16` (in the
/// text as it was just before this change) with `replacement`.
///
/// ``TextCRDT/apply(_:)`` reports the changes a delta made, in order, so a text view can follow
/// them without reloading the whole text.
public struct TextEdit: Equatable, Sendable, CustomStringConvertible {
    /// The UTF-16 range replaced, in the text before this edit.
    public var rangeUTF16: Range<Int>
    /// The text put in its place (empty for a deletion).
    ///
    /// An edit that brings a whole text still encoded (a new device adopting a snapshot
    /// announces every memo's text so) holds its UTF-8 where the snapshot holds it and makes
    /// the string when this is read: at 100,000 memos, making every string at once took about
    /// 300 ms of a bootstrap, for events of which a replica keeps the newest 10,000
    /// (BENCHMARKS.md, "A new device's list sooner").
    public var replacement: String {
        get {
            switch replacementStorage {
            case let .string(string): string
            case let .utf8(bytes): String(decoding: bytes, as: UTF8.self)
            }
        }
        set { replacementStorage = .string(newValue) }
    }

    private var replacementStorage: Replacement

    private enum Replacement: Sendable {
        case string(String)
        /// Valid UTF-8 (checked by whoever made the edit).
        case utf8(ArraySlice<UInt8>)
    }

    /// Creates an edit.
    public init(rangeUTF16: Range<Int>, replacement: String) {
        self.rangeUTF16 = rangeUTF16
        self.replacementStorage = .string(replacement)
    }

    /// Creates an edit whose replacement is `utf8`, which must be valid UTF-8 (a text a decoder
    /// checked); the string is made when ``replacement`` is read.
    package init(rangeUTF16: Range<Int>, replacementUTF8 utf8: ArraySlice<UInt8>) {
        assert(UTF8Scanning.isValid(utf8), "an edit's replacement is valid UTF-8")
        self.rangeUTF16 = rangeUTF16
        self.replacementStorage = .utf8(utf8)
    }

    /// Equal ranges and equal replacements (as strings: canonically equivalent), however each
    /// replacement is held.
    public static func == (lhs: TextEdit, rhs: TextEdit) -> Bool {
        lhs.rangeUTF16 == rhs.rangeUTF16 && lhs.replacement == rhs.replacement
    }

    public var description: String { "[\(rangeUTF16.lowerBound)..<\(rangeUTF16.upperBound)] -> \"\(replacement)\"" }

    /// Applies the edit to a UTF-16 buffer (a test or a text view's shadow copy).
    ///
    /// - Precondition: ``rangeUTF16`` lies within `text`, as it does in the text the edit was
    ///   reported against (each edit of an event against the text after the edits before it).
    ///   A buffer that went its own way is a programmer error, and this traps.
    public func apply(to text: inout [UInt16]) {
        text.replaceSubrange(rangeUTF16, with: Array(replacement.utf16))
    }
}

/// What ``TextCRDT/apply(_:)`` did with a delta.
public struct TextApplyReport: Equatable, Sendable {
    /// Operations applied now (including earlier held-back ones whose dependencies arrived).
    public var appliedOperationCount: Int = 0
    /// Operations the text already held, skipped.
    public var duplicateOperationCount: Int = 0
    /// Operations still held back for missing dependencies, after this call.
    public var pendingOperationCount: Int = 0
    /// Held-back operations dropped because they contradict what arrived (only a corrupt or
    /// hostile replica produces these).
    public var rejectedOperationCount: Int = 0
    /// The visible changes, in order, as UTF-16 edits.
    public var edits: [TextEdit] = []

    /// Creates an empty report.
    public init() {}
}
