@_spi(Engine) import MemoCRDT
import Synchronization
// How a notebook is stored
// ========================
//
// A notebook is a set of memos, each with its own text CRDT, plus one operation log that says,
// in order, what each replica did to which memo. Every operation of a replica has a notebook
// counter, dense per replica, so a notebook version vector names an exact set of operations.
//
// Notebook operations map one to one onto what happened:
//
//   create(memo)                   one operation
//   text(memo, first text counter) one notebook operation per text operation, in a run
//   trash / restore / purge(memo)  one operation each, carrying the text version it saw
//
// Because text runs map counter for counter, a notebook version translates exactly into "which
// text operations of which memo" (a delta since version V carries precisely the text operations
// behind the notebook operations V lacks), and runs compress like text runs do: typing a memo
// is one run.
//
//   replica A:  [0: create M1] [1..<41: text M1 0..<40] [41: create M2] [42..<60: text M2 0..<18]
//
// Each run also carries the hybrid logical timestamp of its last operation; a memo's
// `modifiedAt` is the latest of its runs'. A run's timestamp is exact on every replica once it
// is held whole: a delta always reaches the sender's newest operation, so a run received in
// parts ends with the same operation, and the same timestamp, as the sender's. A run applied
// only in part meanwhile (its later operations wait for another replica's) holds a lower bound
// (the replica's timestamp before it), never the whole run's newer one: a later copy of its
// operations must never look older than what is held (`readyTextPrefix`).
//
// Memo status is derived, never stored: purged if a purge saw every character anyone inserted in
// the memo; else trashed if the latest trash or restore (by timestamp) is a trash that saw them
// all; else active. Text the deleting replica had not seen therefore brings a memo back (a
// deletion it had not seen does not: it loses nothing).

/// What a notebook operation run does.
@usableFromInline
enum NotebookRunKind: Sendable, Equatable {
    /// Creates the memo.
    case create
    /// Text operations of the run's replica in the memo, from text counter `textCounter`, one
    /// per notebook operation.
    case text(textCounter: UInt32)
    /// Moves the memo to the trash, having seen text version `seen`.
    case trash(seen: VersionVector)
    /// Takes the memo out of the trash.
    case restore
    /// Removes the memo for good, having seen (and deleted) text version `seen`.
    case purge(seen: VersionVector)

    var isLifecycle: Bool {
        switch self {
        case .trash, .restore, .purge: true
        case .create, .text: false
        }
    }
}

/// Consecutive notebook operations of one replica on one memo.
@usableFromInline
struct NotebookRun: Sendable, Equatable {
    var counter: UInt32
    var length: UInt32
    var memo: MemoID
    var kind: NotebookRunKind
    /// The hybrid logical timestamp of the run's last operation.
    var timestamp: HybridTimestamp

    var end: UInt32 { counter + length }

    /// Extends this run with `next` when it continues it (text operations on the same memo,
    /// consecutive counters). Returns whether it did.
    mutating func append(_ next: NotebookRun) -> Bool {
        guard next.counter == end, next.memo == memo,
            case let .text(textCounter) = kind, case let .text(nextCounter) = next.kind,
            nextCounter == textCounter + length
        else { return false }
        length += next.length
        timestamp = max(timestamp, next.timestamp)
        return true
    }

    /// The run without its first `count` operations (text runs only).
    func dropping(_ count: UInt32) -> NotebookRun {
        precondition(count < length)
        guard case let .text(textCounter) = kind else { preconditionFailure("only text runs have parts") }
        var result = self
        result.counter += count
        result.length -= count
        result.kind = .text(textCounter: textCounter + count)
        return result
    }
}

/// One replica's notebook operations.
@usableFromInline
struct NotebookLog: Sendable, Equatable {
    /// Operations applied from this replica; also its next notebook counter.
    var operationCount: UInt32 = 0
    /// Runs in counter order, maximally merged, covering `0 ..< operationCount`.
    var runs: [NotebookRun] = []

    mutating func append(_ run: NotebookRun) {
        precondition(run.counter == operationCount, "notebook operations are appended in order")
        operationCount = run.end
        if var last = runs.last, last.append(run) {
            runs[runs.count - 1] = last
        } else {
            runs.append(run)
        }
    }

    /// Index of the first run ending after `counter`.
    func firstRun(endingAfter counter: UInt32) -> Int {
        runs.partitioningIndex { $0.end > counter }
    }
}

/// A lifecycle operation as a memo keeps it.
@usableFromInline
struct LifecycleRecord: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case trash(seen: VersionVector)
        case restore
        case purge(seen: VersionVector)
    }

    var kind: Kind
    var timestamp: HybridTimestamp
    var replica: ReplicaID
    var counter: UInt32

    /// Later lifecycle operations win: by timestamp, then replica, then counter.
    func isLater(than other: LifecycleRecord) -> Bool {
        (timestamp, replica, counter) > (other.timestamp, other.replica, other.counter)
    }
}

/// A memo's text, decoded lazily: loading a notebook reads each memo's visible text, version and
/// clock, and replays its operations only when the memo is first edited or merged.
@usableFromInline
enum MemoTextStorage: Sendable {
    /// Boxed: the decoded text's struct is 288 bytes, and inline it made every memo record 464
    /// bytes though most memos stay encoded (248 boxed; BENCHMARKS.md, "Then smaller memo
    /// records"; 256 since a search key names its range of a shared buffer, "The first search's
    /// keys left where they were folded").
    indirect case materialized(TextCRDT)
    /// A text state body (FORMAT.md) at `body` of `bytes` (the loaded notebook's buffer, shared by
    /// all its memos), its visible text (valid UTF-8, checked when loaded) at `text`, its version,
    /// insertion version and highest Lamport time, and the text state version of the body.
    case encoded(
        bytes: [UInt8], body: Range<Int>, text: Range<Int>, version: VersionVector, insertionVersion: VersionVector,
        lamport: UInt64, bodyVersion: UInt8)
    /// A text state body left in the library's state file, read when first used
    /// (``StoredTextBody``; FORMAT.md, "State list").
    case stored(StoredTextBody)

    var string: String {
        switch self {
        case let .materialized(text): text.string
        case let .encoded(bytes, _, text, _, _, _, _): String(decoding: bytes[text], as: UTF8.self)
        case let .stored(stored): String(decoding: stored.textOrListText, as: UTF8.self)
        }
    }

    /// The text's UTF-8 as stored (no `String` made, nothing checked or repaired).
    var utf8: ArraySlice<UInt8> {
        switch self {
        case let .materialized(text): text.visibleBytes()[...]
        case let .encoded(bytes, _, text, _, _, _, _): bytes[text]
        case let .stored(stored): stored.textOrListText
        }
    }

    var version: VersionVector {
        switch self {
        case let .materialized(text): text.version
        case let .encoded(_, _, _, version, _, _, _): version
        case let .stored(stored): stored.version
        }
    }

    var insertionVersion: VersionVector {
        switch self {
        case let .materialized(text): text.insertionVersion
        case let .encoded(_, _, _, _, insertionVersion, _, _): insertionVersion
        case let .stored(stored): stored.insertionVersion
        }
    }

    var lamport: UInt64 {
        switch self {
        case let .materialized(text): text.lamport
        case let .encoded(_, _, _, _, _, lamport, _): lamport
        case let .stored(stored): stored.lamport
        }
    }

    /// The text's search key (``SearchFolding/key(for:options:)`` of ``string``), folded from
    /// the loaded bytes in place for a text still encoded (no string made first).
    var foldedSearchKey: [UInt8] {
        switch self {
        case let .materialized(text): return SearchFolding.key(for: text.string)
        case let .encoded(bytes, _, text, _, _, _, _):
            var key: [UInt8] = []
            SearchFolding.appendKey(forUTF8: bytes[text], to: &key)
            return key
        case let .stored(stored):
            var key: [UInt8] = []
            SearchFolding.appendKey(forUTF8: stored.textOrListText, to: &key)
            return key
        }
    }

    /// Appends ``foldedSearchKey`` to `key`.
    func appendFoldedSearchKey(to key: inout [UInt8]) {
        switch self {
        case let .materialized(text): key.append(contentsOf: SearchFolding.key(for: text.string))
        case let .encoded(bytes, _, text, _, _, _, _): SearchFolding.appendKey(forUTF8: bytes[text], to: &key)
        case let .stored(stored): SearchFolding.appendKey(forUTF8: stored.textOrListText, to: &key)
        }
    }

    /// About how many bytes folding the visible text reads: its UTF-8 length when encoded, its
    /// UTF-16 length (a lower bound) when decoded. For sharing work out, not for sizes.
    var foldBytesEstimate: Int {
        switch self {
        case let .materialized(text): text.lengthUTF16
        case let .encoded(_, _, text, _, _, _, _): text.count
        case let .stored(stored): stored.textLength
        }
    }

    /// Whether the text is decoded.
    var isMaterialized: Bool {
        if case .materialized = self { return true }
        return false
    }

    /// A stand-in while the text is taken out to be edited in place.
    static let placeholder = MemoTextStorage.encoded(
        bytes: [], body: 0..<0, text: 0..<0, version: VersionVector(), insertionVersion: VersionVector(), lamport: 0,
        bodyVersion: TextCRDT.stateFormatVersion)

    /// The UTF-8 of the visible text's first `count` bytes at most, cut at a scalar boundary.
    func prefixUTF8(_ count: Int) -> ArraySlice<UInt8> {
        switch self {
        case let .materialized(text):
            return text.prefixBytes(utf8Bytes: count)[...]
        case let .encoded(bytes, _, text, _, _, _, _):
            var end = min(text.upperBound, text.lowerBound + count)
            while end > text.lowerBound && end < text.upperBound && bytes[end] & 0xC0 == 0x80 { end -= 1 }
            return bytes[text.lowerBound..<end]
        case let .stored(stored):
            let text = stored.textOrListText
            var end = min(text.endIndex, text.startIndex + count)
            while end > text.startIndex && end < text.endIndex && text[end] & 0xC0 == 0x80 { end -= 1 }
            return text[text.startIndex..<end]
        }
    }
}

/// A memo's text state body as this notebook last encoded it, kept so that the next notebook
/// state copies these bytes instead of encoding an unchanged text again (most memos do not change
/// between two snapshots of a replica).
///
/// It is keyed by the text's version, not invalidated by each mutation: a text changes only by
/// gaining operations, which changes its version, and a version names an exact set of operations
/// (``VersionVector``), which the canonical encoding turns into exactly one body. So the cached
/// body is the body of the current text whenever the versions are equal, whatever path changed
/// the text in between; builds with internal checks compare it with a fresh encoding at each use.
@usableFromInline
struct EncodedTextBody: Sendable {
    /// The buffer the body is in: a whole notebook state, shared by all the memos encoded with
    /// it (so the cache costs one copy of the last state written, not one buffer per memo).
    var bytes: [UInt8]
    /// Where the body is in ``bytes``.
    var range: Range<Int>
    /// The version of the text the body was encoded from.
    var version: VersionVector
}

/// A memo's history section read with its text still encoded: its bytes, and the text state
/// version whose section layout it has (3: counter ranges; 4: runs over the deleted insertions;
/// FORMAT.md "Text state, version 4").
struct PendingHistory: Sendable {
    var bytes: [UInt8]
    var sectionVersion: UInt8
}

/// Everything a notebook keeps about one memo.
@usableFromInline
struct MemoRecord: Sendable {
    var id: MemoID
    /// Setting it (any change, in place or not) gives the record a new ``textStamp``.
    var text: MemoTextStorage {
        didSet { textStamp = Self.newTextStamp() }
    }
    /// The text's encoded body, when ``Notebook/encodedKeepingTextBodies()`` kept it (current
    /// while the text's version is the one it was encoded at; see ``EncodedTextBody``).
    var encodedTextBody: EncodedTextBody?
    /// The history section read with a text still encoded (FORMAT.md, "Notebook state, version
    /// 4"), attached (and checked) when the text is decoded.
    var pendingHistory: PendingHistory?
    var createdAt: HybridTimestamp
    var modifiedAt: HybridTimestamp
    var lifecycle: [LifecycleRecord] = []
    // Derived from the above, kept for listing and searching.
    var status: MemoStatus = .active
    /// Set when the text changed and `cachedTextPrefix` was not taken again (only edits and
    /// remote text runs do that); every other change refreshes it at once. (The flags are
    /// declared together, beside `status`: in the record's layout they share one word.)
    var derivedTextIsStale = false
    /// Whether the encoded text is a body this notebook encoded itself from its decoded text
    /// (``Notebook/releaseDecodedTexts(keepingMostRecent:atMost:)``), not one read from bytes:
    /// decoding it again skips the second replay of its history (`TextCRDT(decodingOwnBody:)`).
    var textIsOwnEncoding = false
    /// Whether ``encodedTextBody`` is known to be the canonical encoding of the text at its
    /// version: true for bodies this engine encoded, false for the body a text was decoded from
    /// when that came from bytes read (a file, a store). What a decoder accepts need not be the
    /// canonical encoding of what it decodes to (a run in id form where the encoder writes
    /// position form, say), so such a body is used only once a fresh encoding of the text was
    /// found equal to it (``Notebook/releaseDecodedTexts(keepingMostRecent:atMost:)``), never
    /// copied into a state as it is. (Here rather than in ``EncodedTextBody``, where it made
    /// every record 8 bytes longer.)
    var encodedTextBodyIsCanonical = true
    /// The beginning of the text (UTF-8) as of `derivedVersion`, what titles and previews are
    /// made from; older than the text means stale (``textPrefix`` takes it on the fly until
    /// ``refreshDerivedText()`` caches it again). Edits and remote text runs leave it stale
    /// instead of taking 4 KB of text again on every change (any number of memos may be stale:
    /// see ``MemoTable/markDerivedTextStale(at:)``).
    var cachedTextPrefix: ArraySlice<UInt8> = []
    /// The text's search key when ``searchKeyStamp`` is the text's stamp.
    var searchKey = SearchKey()
    /// The text version `cachedTextPrefix` was taken from.
    var derivedVersion = VersionVector()
    /// The ``textStamp`` of the text `searchKey` was folded from; another stamp means stale
    /// (searches fold the text on the fly, or take the shared cache's key, until
    /// ``Notebook/refreshSearchKeys()`` caches it), ``noSearchKeyYet`` that the record was never
    /// given one, ``searchKeyLeftToSearches`` that it is not to be folded before a search.
    var searchKeyStamp: UInt64 = MemoRecord.noSearchKeyYet
    /// Names the text's value: taken from a counter of the whole process each time ``text`` is
    /// set, so no two texts that ever differed share one, while copies of a record (a notebook's
    /// copies share their records) keep the text and its stamp together. Search keys are
    /// checked against it, not against the text's version: reading 100,000 versions (each its
    /// own allocation, far apart) was half of a search whose keys were all folded already
    /// (BENCHMARKS.md, "Search keys in two-byte codes, checked by stamp"). Local: never encoded
    /// or compared between processes; nothing but key lookups reads it.
    var textStamp: UInt64 = MemoRecord.newTextStamp()
    /// When the text was last decoded or changed, by the notebook's ``Notebook/decodedUseClock``
    /// (local, not encoded): ``Notebook/releaseDecodedTexts(keepingMostRecent:)`` keeps the
    /// texts used last.
    var decodedUse: UInt64 = 0

    /// The beginning of the text (UTF-8, whole scalars, at most `derivedPrefixBytes` bytes): the
    /// cached prefix when it is current, else taken now.
    ///
    /// - Complexity: O(1) when cached, else O(log n + p).
    var textPrefix: ArraySlice<UInt8> {
        derivedTextIsStale ? text.prefixUTF8(Self.derivedPrefixBytes) : cachedTextPrefix
    }

    var summary: MemoSummary {
        MemoSummary(id: id, createdAt: createdAt, modifiedAt: modifiedAt, status: status, textPrefix: textPrefix)
    }

    /// Whether the record holds a history section not decoded yet: read with its text still
    /// encoded (``pendingHistory``), or left in the state file with it (`.stored`).
    var holdsUndecodedHistory: Bool {
        if pendingHistory != nil { return true }
        if case let .stored(stored) = text { return stored.history != nil }
        return false
    }

    /// Whether the text is decoded and holds no operation back (what a release may turn back).
    var holdsDecodedTextHoldingNothingBack: Bool {
        if case let .materialized(text) = text { return text.pendingOperationCount == 0 }
        return false
    }

    /// Recomputes the status from the lifecycle operations and the text: a trash or purge holds
    /// only if it saw every character anyone inserted (unseen deletions lose nothing and do not
    /// bring a memo back).
    mutating func refreshStatus() {
        // No trash, restore or purge ever: active (and no version to build).
        if lifecycle.isEmpty {
            status = .active
            return
        }
        var result = MemoStatus.active
        var latest: LifecycleRecord?
        for record in lifecycle {
            if case let .purge(seen) = record.kind, sawEveryInsertion(seen) {
                status = .purged
                return
            }
            if case .purge = record.kind { continue }
            if latest.map({ record.isLater(than: $0) }) ?? true { latest = record }
        }
        if let latest, case let .trash(seen) = latest.kind, sawEveryInsertion(seen) {
            result = .trashed
        }
        status = result
    }

    /// Whether `seen` includes every character anyone inserted in the memo (the text's insertion
    /// version is included in it), without building that version for a decoded text.
    func sawEveryInsertion(_ seen: VersionVector) -> Bool {
        if case let .materialized(text) = text { return text.insertionsAreIncluded(in: seen) }
        return text.insertionVersion.isIncluded(in: seen)
    }

    /// Takes the beginning of the text again (for titles and previews), if the text changed.
    ///
    /// - Complexity: O(log n + p) for a prefix of p = `MemoRecord.derivedPrefixBytes` bytes.
    mutating func refreshDerivedText() {
        let version = text.version
        derivedTextIsStale = false
        guard version != derivedVersion || searchKeyStamp == Self.noSearchKeyYet else { return }
        cachedTextPrefix = text.prefixUTF8(Self.derivedPrefixBytes)
        derivedVersion = version
        if searchKeyStamp == Self.noSearchKeyYet { refreshSearchKey() }
    }

    /// Caches the search key for the current text.
    mutating func refreshSearchKey() {
        searchKey = SearchKey(text.foldedSearchKey)
        searchKeyStamp = textStamp
    }

    /// Whether `searchKey` is the current text's.
    var hasCurrentSearchKey: Bool { searchKeyStamp == textStamp }

    /// Sets ``text`` to `storage`, the same text in another form (decoded from its body, or
    /// turned back into one), keeping its stamp: the keys folded from it stay current.
    mutating func setTextForm(_ storage: consuming MemoTextStorage) {
        let stamp = textStamp
        text = storage
        textStamp = stamp
    }

    /// `searchKeyStamp` of a record that never had a search key: the next refresh of its title
    /// and preview folds one.
    static let noSearchKeyYet: UInt64 = 0
    /// `searchKeyStamp` of a record whose key is left to the first search that needs it (a
    /// decoded notebook's: folding every text at open was a third of opening).
    static let searchKeyLeftToSearches: UInt64 = 1
    /// The stamps taken so far; the first is 2, after the two values above.
    private static let textStamps = Atomic<UInt64>(2)

    /// A stamp no text has had in this process.
    static func newTextStamp() -> UInt64 {
        textStamps.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Title and preview are computed from at most this many bytes of the text.
    static let derivedPrefixBytes = 4096
}

/// The memos of a notebook: records in an append-only array (memos are never removed; purged
/// ones stay as small tombstones) with an index by id. Scans borrow records from the array
/// instead of copying them out of a dictionary.
///
/// The array is kept in chunks of ``chunkSize`` records, each an array of its own: a notebook
/// is a value, and one whose storage is shared with a copy (a save or a sync's snapshot
/// encoding a copy away from the replica's lock) copies on its next change only the chunk it
/// changes, not every record. One flat array made the first keystroke after such a copy copy
/// all 10,000 records: 6-20 ms, under the replica's lock (issue 25).
///
/// Memos are looked up by id on every operation applied: by bisection of their ids in
/// ascending order, not by hashing 16 bytes (``SortedIDIndex``). A decoder adds them in id
/// order, so the index of a notebook opened from a state is one array filled in order; a memo
/// created or received later below the largest id goes into its place while the table holds
/// fewer than ``sortedCapacity`` memos, else into a small dictionary beside.
///
/// Beside the records, the table keeps each record's list key (its `modifiedAt` and status, 16
/// bytes) in chunks of the same shape, set whenever a record is added or changed through the
/// table (the only ways in). The list and its first rows scan those instead of the 248-byte
/// records: at 100,000 memos a scan of the records for the newest 50 read a cache line of each
/// record, 6 MB, and took 1.4-2.5 ms (issue 28's target: 2; BENCHMARKS.md, "List keys apart
/// from the records").
@usableFromInline
struct MemoTable: Sendable {
    /// The records, ``chunkSize`` to a chunk (the last one may hold fewer), in the order they
    /// were added.
    private var chunks: [[MemoRecord]] = []
    /// Each record's list key, in the same chunks.
    private var listKeyChunks: [[ListKey]] = []
    /// How many records there are.
    private(set) var count = 0
    private var indexByID = SortedIDIndex<MemoID, Int>(sortedCapacity: sortedCapacity)

    /// Most memos the sorted view takes out of id order.
    static let sortedCapacity = 4096

    /// Records per chunk (a power of two): what a change copies at most when the table's
    /// storage is shared.
    static let chunkSize = 1 << chunkShift
    static let chunkShift = 7

    /// Every record, in the order they were added (a view of the chunks: no record is copied).
    var records: Records { ChunkedView(chunks: chunks, count: count) }

    /// Every record's list key, by record position (a view of the chunks: nothing is copied).
    var listKeys: ChunkedView<ListKey> { ChunkedView(chunks: listKeyChunks, count: count) }

    /// What the list orders and filters memos by, kept apart from their records.
    struct ListKey: Sendable, Equatable {
        /// The record's `modifiedAt`, raw.
        var modifiedAt: UInt64
        var status: MemoStatus

        init(of record: MemoRecord) {
            self.init(modifiedAt: record.modifiedAt.rawValue, status: record.status)
        }

        init(modifiedAt: UInt64, status: MemoStatus) {
            self.modifiedAt = modifiedAt
            self.status = status
        }
    }

    /// The records of a table, as one collection.
    typealias Records = ChunkedView<MemoRecord>

    /// A table's records, or their list keys, as one collection over its chunks.
    struct ChunkedView<Element: Sendable>: RandomAccessCollection, Sendable {
        fileprivate let chunks: [[Element]]
        let count: Int
        var startIndex: Int { 0 }
        var endIndex: Int { count }
        // A getter, not a `_read` coroutine: see ``MemoTable/subscript(at:)``.
        subscript(position: Int) -> Element {
            chunks[position >> MemoTable.chunkShift][position & (MemoTable.chunkSize - 1)]
        }
    }

    /// The record of `id`, if any. Setting a record for a new id appends it; records cannot be
    /// removed.
    subscript(id: MemoID) -> MemoRecord? {
        get { index(of: id).map { self[at: $0] } }
        set {
            guard let newValue else { preconditionFailure("memos are never removed") }
            precondition(newValue.id == id)
            if let index = index(of: id) {
                self[at: index] = newValue
            } else {
                appendNew(newValue)
            }
        }
    }

    /// Adds the record of an id the table does not hold (a decoder reading memos in strictly
    /// ascending id order knows it): the setter above without its lookup of the id first.
    mutating func appendNew(_ record: MemoRecord) {
        assert(index(of: record.id) == nil, "a new id")
        indexByID.insert(record.id, at: count)
        if count & (Self.chunkSize - 1) == 0 {
            var chunk: [MemoRecord] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
            var keys: [ListKey] = []
            keys.reserveCapacity(Self.chunkSize)
            listKeyChunks.append(keys)
        }
        listKeyChunks[listKeyChunks.count - 1].append(ListKey(of: record))
        chunks[chunks.count - 1].append(record)
        count += 1
    }

    /// The record of `id`, which must exist, for reading or changing in place.
    subscript(existing id: MemoID) -> MemoRecord {
        get { self[at: index(of: id)!] }
        _modify { yield &self[at: index(of: id)!] }
    }

    func contains(_ id: MemoID) -> Bool { index(of: id) != nil }

    /// Makes room in the index for `count` memos in all (a decoder that knows how many it reads).
    mutating func reserveCapacity(_ count: Int) {
        indexByID.reserveCapacity(count)
        chunks.reserveCapacity((count + Self.chunkSize - 1) >> Self.chunkShift)
        listKeyChunks.reserveCapacity((count + Self.chunkSize - 1) >> Self.chunkShift)
    }

    /// Checks the lookup structures and the list keys against the records.
    func checkIndex() throws(InvariantViolation) {
        try indexByID.check(tableCount: count, name: "memo table") { self[at: $0].id }
        guard listKeys.count == count, listKeyChunks.count == chunks.count else {
            throw InvariantViolation("memo table: \(listKeys.count) list keys for \(count) records")
        }
        for index in 0..<count where listKeys[index] != ListKey(of: self[at: index]) {
            throw InvariantViolation("memo table: the list key of record \(index) is not its record's")
        }
    }

    /// Notes that the text of the record at `index` changed without its title prefix being
    /// taken again. Nothing is taken now, for this memo or any other: a stale prefix is taken on
    /// the fly by whatever reads it (``MemoRecord/textPrefix``: lists, the trash, exports) until
    /// ``Notebook/refreshSearchKeys()`` caches it again. Changes that nobody lists cost nothing.
    ///
    /// - Complexity: O(1).
    mutating func markDerivedTextStale(at index: Int) {
        self[at: index].derivedTextIsStale = true
    }

    /// Where the record of `id` is in ``records``, if there is one.
    ///
    /// - Complexity: O(log m) comparisons while sorted, else one hash lookup.
    func index(of id: MemoID) -> Int? { indexByID.position(of: id) }

    /// The record at `index` (from ``index(of:)``), for reading or changing in place.
    ///
    /// Reading is a getter, not a `_read` coroutine: Swift 6.3.1 optimizing file by file
    /// (`-O` without whole-module optimization) compiled callers in other files to read the
    /// record a `_read` yielded after the coroutine had freed its copy (AddressSanitizer:
    /// heap-use-after-free in `Notebook.materializeText(at:)`; the simulator crashed in
    /// `Notebook.purge` on seeds 1, 9 and 20). A getter's copy belongs to the caller. Loops
    /// over many records use ``forEachRecord(in:_:)`` and ``forEachListKey(_:)``, which lend
    /// them in place.
    subscript(at index: Int) -> MemoRecord {
        get { chunks[index >> Self.chunkShift][index & (Self.chunkSize - 1)] }
        _modify {
            let chunk = index >> Self.chunkShift
            let slot = index & (Self.chunkSize - 1)
            // Also when the change is abandoned by a throw: what was changed before it stays.
            defer {
                // The two fields read in place, not the record copied.
                listKeyChunks[chunk][slot] = ListKey(
                    modifiedAt: chunks[chunk][slot].modifiedAt.rawValue, status: chunks[chunk][slot].status)
            }
            yield &chunks[chunk][slot]
        }
    }

    /// Every id, in no particular order.
    var ids: [MemoID] { records.map(\.id) }

    /// Calls `body` with the position and the list key of every record, in position order, the
    /// keys read chunk by chunk in place.
    func forEachListKey(_ body: (Int, ListKey) -> Void) {
        for chunk in listKeyChunks.indices {
            let base = chunk << Self.chunkShift
            listKeyChunks[chunk].withUnsafeBufferPointer { keys in
                for slot in keys.indices { body(base + slot, keys[slot]) }
            }
        }
    }

    /// Calls `body` with the position and the record of each position in `range`, the record
    /// lent from the table's storage rather than copied (a copy retains and releases every
    /// reference it holds: 10,000 of them took 6 ms). The record comes as a pointer valid only
    /// during the call: passed as a borrowed value, the compiler still copied it whole.
    func forEachRecord(in range: Range<Int>, _ body: (Int, UnsafePointer<MemoRecord>) -> Void) {
        var index = range.lowerBound
        while index < range.upperBound {
            let chunk = index >> Self.chunkShift
            let end = min(range.upperBound, (chunk + 1) << Self.chunkShift)
            chunks[chunk].withUnsafeBufferPointer { records in
                let base = records.baseAddress!
                for position in index..<end { body(position, base + (position & (Self.chunkSize - 1))) }
            }
            index = end
        }
    }
}
