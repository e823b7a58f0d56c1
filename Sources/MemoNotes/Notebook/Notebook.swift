import MemoCRDT
/// One user's collection of memos, replicated: every device holds its own `Notebook` and they
/// converge by exchanging ``NotebookDelta`` values (or merging whole notebooks).
///
/// A notes front end embeds this and never writes merge logic: create, edit, trash, restore and
/// purge memos, list them newest first, search them, follow changes as events, keep carets
/// with anchors, undo its own edits. Concurrency policy, enforced by the tests:
///
/// - Concurrent edits to one memo merge character by character (FugueMax).
/// - An edit the trashing replica had not seen wins over the trash: the memo comes back, with the
///   edit. The same holds for a purge, which removes (and deletes the text of) only what the
///   purging replica had seen; a concurrent edit brings the memo back with what that edit wrote.
/// - Trash and restore racing each other: the later one by hybrid logical time wins.
///
/// `Notebook` is a pure value: time comes in as a parameter (wall milliseconds since the Unix
/// epoch, fed to a hybrid logical clock), memo ids from the caller's random source.
///
/// ```swift
/// var notebook = Notebook(replica: ReplicaID(7))
/// let id = MemoID(using: &generator)
/// try notebook.createMemo(id, text: "Groceries\nmilk", wallMilliseconds: now)
/// try notebook.edit(id, replacingUTF16: 14..<14, with: ", eggs", wallMilliseconds: now)
/// notebook.list().first?.title   // "Groceries"
/// ```
public struct Notebook: Sendable {
    /// The replica local changes are attributed to.
    public internal(set) var replica: ReplicaID
    /// The hybrid logical clock that stamps local operations.
    public internal(set) var clock = HybridClock()

    @usableFromInline var memos = MemoTable()
    /// Every replica's log, with the version they make (kept up to date on every change).
    @usableFromInline var logs = NotebookLogs()
    /// The highest Lamport timestamp of any text operation in any memo.
    @usableFromInline var lamport: UInt64 = 0
    /// Runs received before their dependencies, per replica in counter order, each with the text
    /// operations it stands for.
    @usableFromInline var pending: [ReplicaID: [PendingRun]] = [:]
    /// Events not yet taken by ``takeEvents()``.
    @usableFromInline var events: [NotebookEvent] = []
    /// This replica's undo and redo history, per memo (not replicated, not encoded).
    @usableFromInline var undoHistories: [MemoID: UndoHistory] = [:]
    /// Bumped by ``endUndoGrouping()``: edits in different groups never coalesce into one undo
    /// step (not replicated, not encoded).
    @usableFromInline var undoGroup: UInt64 = 0
    /// This replica's moves to the trash and restores, to undo and redo (not replicated, not
    /// encoded).
    @usableFromInline var trashUndo = TrashUndoHistory()
    /// Whether texts keep the content of deleted text (``keepsHistory``; local, not encoded).
    @usableFromInline var keepsHistoryStorage = false
    /// Search keys folded by searches for memos whose records hold none current (a decoded
    /// notebook's, until ``refreshSearchKeys()``); shared with copies (``SearchKeyCache``).
    var searchKeyCache = SearchKeyCache()
    /// Texts decoded for reading while their memos held them encoded; shared with copies
    /// (``DecodedTextCache``).
    var decodedTextCache = DecodedTextCache()
    /// Ticks once per decode or change of a memo's text (``MemoRecord/decodedUse``; local, not
    /// encoded).
    var decodedUseClock: UInt64 = 0
    /// The use clock, memo count and count kept when ``releaseDecodedTexts(keepingMostRecent:atMost:)``
    /// last left at most that many texts decoded: until a text is decoded or changed (the clock
    /// ticks) or a memo is added, nothing more is decoded, and a call keeping as many or more has
    /// nothing to do (local, not encoded). Texts become decoded only through `materializeText`
    /// and new memos.
    var releaseSettled: (useClock: UInt64, memoCount: Int, keep: Int)?
    #if MEMOSYNC_INTERNAL_CHECKS
    var debugMutationCount = 0
    /// How many times a held-back run's readiness was checked (self-check builds only: a test
    /// counts them).
    var debugReadinessCheckCount = 0
    #endif

    /// A held-back run and its text operations.
    @usableFromInline
    struct PendingRun: Sendable {
        var run: NotebookRun {
            didSet { notReadyAtTextOperationCount = nil }
        }
        var text: TextDelta {
            didSet {
                hasTombstones = text.hasTombstones
                notReadyAtTextOperationCount = nil
            }
        }
        /// Whether ``text`` carries characters already deleted (`TextDelta.hasTombstones`),
        /// kept so that each apply reads a flag per run held back instead of every run of
        /// every held-back text (with a sync merging in pieces, one apply per piece).
        private(set) var hasTombstones: Bool
        /// For a text run found not ready, with no ready first part: how many operations its
        /// memo's text held then. Readiness is a function of that text alone (it only grows),
        /// so while it holds as many the run is still not ready, and the check (trial applies
        /// of the run and of its prefixes) is not made again. A bootstrap merging a snapshot in
        /// pieces used to check every held-back head again at every piece: 1.5-2 ms each
        /// (issue 25). Not part of what the run is: a change of `run` or `text` clears it.
        var notReadyAtTextOperationCount: Int?

        init(run: NotebookRun, text: TextDelta) {
            self.run = run
            self.text = text
            hasTombstones = text.hasTombstones
        }

        /// Whether both are text runs of one memo with text operations in common.
        func overlaps(_ other: PendingRun) -> Bool {
            guard run.memo == other.run.memo, case let .text(start) = run.kind, case let .text(otherStart) = other.run.kind else {
                return false
            }
            return start < otherStart + other.run.length && otherStart < start + run.length
        }

        /// Takes, for its tombstones, the content other queued copies of its operations carry.
        mutating func takeContent(fromQueued queue: [PendingRun]) {
            guard hasTombstones else { return }
            for other in queue where other.overlaps(self) {
                let filled = text.fillingTombstones(from: other.text)
                if filled != text { text = filled }
                if !hasTombstones { return }
            }
        }
    }

    /// An empty notebook whose local changes are attributed to `replica`.
    public init(replica: ReplicaID) {
        self.replica = replica
    }

    /// The operations this notebook holds: for each replica, how many notebook operations.
    ///
    /// - Complexity: O(1) (maintained as the logs change).
    public var version: VersionVector { logs.version }

    /// How many notebook operations wait for their dependencies (each once, however many
    /// copies of it arrived).
    ///
    /// - Complexity: O(r log r) in the runs held back.
    public var pendingOperationCount: Int {
        pending.keys.reduce(0) { $0 + pendingOperationCount(of: $1) }
    }

    /// How many notebook operations of `replica` wait for their dependencies (each once, and
    /// not those of a copy the log holds already, which the next apply drops).
    ///
    /// - Complexity: O(r log r) in the runs of `replica` held back.
    package func pendingOperationCount(of replica: ReplicaID) -> Int {
        guard let runs = pending[replica] else { return 0 }
        // One sweep over the ranges in counter order (applying leaves them so; sorted otherwise),
        // from the log's end.
        var ranges = runs.map { $0.run.counter..<$0.run.end }
        if !Self.isInCounterOrder(runs) { ranges.sort { $0.lowerBound < $1.lowerBound } }
        var total = 0
        var reach = logs[replica]?.operationCount ?? 0
        for range in ranges where range.upperBound > reach {
            total += Int(range.upperBound - max(range.lowerBound, reach))
            reach = range.upperBound
        }
        return total
    }

    /// The events since the last call, oldest first, and forgets them. A front end calls this
    /// after each change it makes or merges, and updates its views.
    public mutating func takeEvents() -> [NotebookEvent] {
        defer { events.removeAll() }
        return events
    }

    /// A copy whose local changes are attributed to `replica` (which no other copy may use).
    /// Undo histories (text and trash) and untaken events stay with the original.
    public func fork(replica: ReplicaID) -> Notebook {
        var copy = self
        copy.replica = replica
        copy.events = []
        copy.undoHistories = [:]
        copy.trashUndo = TrashUndoHistory()
        for record in copy.memos.records {
            if case let .materialized(text) = record.text {
                copy.memos[existing: record.id].text = .materialized(text.fork(replica: replica))
            }
        }
        return copy
    }

    /// The log of `replica`, empty when it has made no operation.
    func log(of replica: ReplicaID) -> NotebookLog { logs[replica] ?? NotebookLog() }

    /// The memo's text, decoded if it was still encoded. Records the decoded text, so later calls
    /// are O(1).
    mutating func materializedText(of id: MemoID) throws(NotebookError) -> TextCRDT {
        guard let index = memos.index(of: id) else { throw .memoNotFound(id) }
        try materializeText(at: index)
        guard case let .materialized(text) = memos[at: index].text else { preconditionFailure("materialized above") }
        return text
    }

    /// Decodes the text of the record at `index` if it is still encoded, in place (the record is
    /// not copied).
    mutating func materializeText(at index: Int) throws(NotebookError) {
        decodedUseClock += 1
        memos[at: index].decodedUse = decodedUseClock
        if case .materialized = memos[at: index].text { return }
        if case let .stored(stored) = memos[at: index].text {
            // Read from the state file (and checked) first: then decoded as a body read from bytes.
            do throws(DecodingError) {
                let loaded = try stored.load()
                memos[at: index].pendingHistory = loaded.history
                memos[at: index].setTextForm(loaded.storage)
            } catch {
                throw .corruptMemo(memos[at: index].id, error)
            }
        }
        guard case let .encoded(bytes, body, _, version, _, _, bodyVersion) = memos[at: index].text else { preconditionFailure("encoded") }
        // A body this notebook encoded itself is the canonical encoding of the text at its
        // version: kept (``EncodedTextBody``), so that turning the text back again, or the next
        // state, copies it while the text has not changed instead of encoding it once more. A
        // body read from bytes is kept too, as not known to be canonical: turning the text back
        // unchanged compares a fresh encoding with it and, when equal, keeps referring to these
        // bytes (the loaded state, alive while any memo is still encoded in it) instead of
        // holding a copy of its own (at 100,000 memos, 220 MB more at each round of every text
        // decoded and given back: BENCHMARKS.md, "Texts given back into the bytes they came from").
        if bodyVersion == TextCRDT.stateFormatVersion, memos[at: index].encodedTextBody?.version != version {
            memos[at: index].encodedTextBody = EncodedTextBody(bytes: bytes, range: body, version: version)
            memos[at: index].encodedTextBodyIsCanonical = memos[at: index].textIsOwnEncoding
        }
        do throws(DecodingError) {
            // A text a read decoded from this very body (taken: the record then holds the only
            // reference, so edits change it in place), else decoded now.
            var text = try keptOrDecodedText(of: memos[at: index], bytes: bytes, body: body, bodyVersion: bodyVersion, taking: true)
            text.keepsDeletedContent = keepsHistoryStorage
            memos[at: index].pendingHistory = nil
            // The same text, decoded: its stamp (and the keys folded from it) stay.
            memos[at: index].setTextForm(.materialized(text))
        } catch {
            throw .corruptMemo(memos[at: index].id, error)
        }
    }

    /// The text of `record`, whose storage is the body at `body` of `bytes`: the one
    /// ``DecodedTextCache`` keeps for that body (taken out of it when `taking`), else decoded
    /// now (and kept there unless `taking`: the caller then holds it in the record).
    private func keptOrDecodedText(
        of record: MemoRecord, bytes: [UInt8], body: Range<Int>, bodyVersion: UInt8, taking: Bool
    ) throws(DecodingError) -> TextCRDT {
        #if MEMOSYNC_INTERNAL_CHECKS
        if let (kept, hitCount) = decodedTextCache.debugText(
            id: record.id, replica: replica, bytes: bytes, range: body, bodyVersion: bodyVersion, history: record.pendingHistory,
            taking: taking)
        {
            if hitCount % DecodedTextCache.debugRecheckInterval == 0 { checkKeptTextDecodesAlike(kept, record: record) }
            return kept
        }
        #else
        if let kept = decodedTextCache.text(
            id: record.id, replica: replica, bytes: bytes, range: body, bodyVersion: bodyVersion, history: record.pendingHistory,
            taking: taking)
        {
            return kept
        }
        #endif
        #if MEMOSYNC_INTERNAL_CHECKS
        decodedTextCache.debugDecodeCount += 1
        #endif
        let text = try Self.decodeText(record, bytes: bytes, body: body, version: bodyVersion, replica: replica)
        if !taking {
            decodedTextCache.store(
                DecodedTextCache.Entry(
                    id: record.id, replica: replica, bodyVersion: bodyVersion, body: Array(bytes[body]), history: record.pendingHistory,
                    text: text))
        }
        return text
    }

    /// The text of `record`, whose storage is the body at `body` of `bytes`, decoded with its
    /// pending history section attached.
    static func decodeText(
        _ record: MemoRecord, bytes: [UInt8], body: Range<Int>, version: UInt8, replica: ReplicaID
    ) throws(DecodingError) -> TextCRDT {
        var text = try decodeText(bytes, body: body, version: version, own: record.textIsOwnEncoding, replica: replica)
        if let history = record.pendingHistory {
            try text.attachHistory(history.bytes, range: history.bytes.indices, sectionVersion: history.sectionVersion)
        }
        return text
    }

    #if MEMOSYNC_INTERNAL_CHECKS
    /// Self-check builds: a text taken from ``DecodedTextCache`` is what decoding the record's
    /// body gives (items and their order, deletions, version, visible text, kept content).
    func checkKeptTextDecodesAlike(_ kept: TextCRDT, record: MemoRecord) {
        guard case let .encoded(bytes, body, _, _, _, _, bodyVersion) = record.text,
            let withHistory = try? Self.decodeText(record, bytes: bytes, body: body, version: bodyVersion, replica: replica)
        else { preconditionFailure("memo \(record.id): a kept text for a body that does not decode") }
        precondition(
            withHistory.version == kept.version && withHistory.string == kept.string && TextCRDT.sameItemsInOrder(withHistory, kept)
                && withHistory.encodedHistorySection() == kept.encodedHistorySection(),
            "memo \(record.id): a kept text differs from its body's decoding")
    }
    #endif

    /// A memo's text from its encoded body: one this notebook encoded itself (`own`, see
    /// ``MemoRecord/textIsOwnEncoding``) without rebuilding it a second time from its history.
    static func decodeText(
        _ bytes: [UInt8], body: Range<Int>, version: UInt8, own: Bool, replica: ReplicaID
    ) throws(DecodingError) -> TextCRDT {
        if own && version == TextCRDT.stateFormatVersion {
            return try TextCRDT(decodingOwnBody: bytes, range: body, replica: replica)
        }
        return try TextCRDT(decodingBody: bytes, range: body, version: version, replica: replica)
    }

    /// Takes the (materialized) text out of the record at `index`, leaving a placeholder, so
    /// that the caller holds the only reference and edits it in place; the caller puts it back
    /// with `memos[at: index].text = .materialized(text)` on every path.
    mutating func takeText(at index: Int) -> TextCRDT {
        decodedUseClock += 1
        memos[at: index].decodedUse = decodedUseClock
        var storage = MemoTextStorage.placeholder
        swap(&storage, &memos[at: index].text)
        guard case let .materialized(text) = consume storage else { preconditionFailure("materialize the text first") }
        return text
    }

    /// The memo's text without recording a decoding (for reads on a value that must not change).
    func readableText(of record: MemoRecord) throws(NotebookError) -> TextCRDT {
        switch record.text {
        case let .materialized(text):
            return text
        case let .encoded(bytes, body, _, _, _, _, bodyVersion):
            do throws(DecodingError) {
                return try keptOrDecodedText(of: record, bytes: bytes, body: body, bodyVersion: bodyVersion, taking: false)
            } catch {
                throw .corruptMemo(record.id, error)
            }
        case let .stored(stored):
            let loaded: (storage: MemoTextStorage, history: PendingHistory?)
            do throws(DecodingError) {
                loaded = try stored.load()
            } catch {
                throw .corruptMemo(record.id, error)
            }
            var copy = record
            copy.pendingHistory = loaded.history
            copy.setTextForm(loaded.storage)
            return try readableText(of: copy)
        }
    }
}
