@_spi(Engine) import MemoCRDT
import Dispatch
import Synchronization

// Texts left in the state file (issue 28)
// =======================================
//
// A library of 100,000 memos has a 220 MB state file, 94 % of it the memos' text bodies. Reading
// it whole at every open cost 330-760 ms and kept the 220 MB resident, though a list shows only
// titles and previews. So a library writes, beside its state file, a *state list*: for each memo
// where its body is in the state file (offset, length, checksums), what an open derives from the
// body (version, insertion version, Lamport clock, where the visible text is) and its *list text*,
// the shortest beginning of the text that gives the same title and preview as the 4,096 bytes a
// list would otherwise keep; then the replicas' logs, copied. An open that finds a list describing
// its state file reads the list alone: each memo's text becomes `MemoTextStorage.stored`, and the
// body is read from the file only when the memo is first edited, merged, read whole, searched or
// saved. FORMAT.md ("State list") has the bytes.
//
//   state file:  [header, sync state][memo 0 body][memo 1 body] ... [logs][histories][check]
//   state list:  [identity of the state file][sync state][memo 0: offset, length, checks,
//                 version, list text] ... [logs]
//
// Every read of a stored body checks it: a read of the visible text against the text's own
// checksum, a read of the whole body (to decode it, or to copy it into the next state) against
// the body's. A body that fails its check (the file damaged since this device wrote it) never
// reaches a decoder or a new state: the reads that can throw throw `NotebookError.corruptMemo`,
// the reads that cannot give the memo's list text (the title and preview the list shows), and
// ``Notebook/damagedStoredMemoIDs`` names the memo.
//
// What the open no longer does for such a library: check the whole file's checksum, check every
// text's UTF-8 (each is checked when read) and check that the state's history applies (the state
// list describes a state this device wrote from a notebook that had passed those checks).

/// Reads byte ranges of the file a notebook's stored texts are in (a library's state file).
/// `MemoSync` gives one to a notebook it opens from a state list; nothing in `MemoNotes` does I/O.
package protocol NotebookBodySource: AnyObject, Sendable {
    /// `count` bytes at `offset` of the file, or an error when they cannot all be read.
    func read(offset: Int, count: Int) throws(NotebookBodyReadError) -> [UInt8]
}

/// Why a stored body could not be read.
package struct NotebookBodyReadError: Error, Sendable, CustomStringConvertible {
    package var reason: String
    package init(reason: String) { self.reason = reason }
    package var description: String { reason }
}

/// Where a memo's history section is in the state file.
@usableFromInline
struct StoredHistory: Sendable {
    var offset: Int
    var length: Int
    var sectionVersion: UInt8
    var check: UInt32
}

/// A memo text whose body is in a file, not in memory: what a state list says about it.
@usableFromInline
final class StoredTextBody: Sendable {
    let source: any NotebookBodySource
    /// Where the body is in the file, and its length.
    let bodyOffset: Int
    let bodyLength: Int
    /// The text state version of the body (1 or 2).
    let bodyVersion: UInt8
    /// CRC-32C of the body's bytes.
    let bodyCheck: UInt32
    /// Where the visible text (UTF-8) is in the body, and its length in bytes.
    let textStart: Int
    let textLength: Int
    /// CRC-32C of the visible text's bytes.
    let textCheck: UInt32
    let version: VersionVector
    let insertionVersion: VersionVector
    let lamport: UInt64
    let history: StoredHistory?
    /// The list text: the beginning of the visible text a list shows (title and preview).
    let listText: ArraySlice<UInt8>
    let damage = Atomic<Bool>(false)

    init(
        source: any NotebookBodySource, bodyOffset: Int, bodyLength: Int, bodyVersion: UInt8, bodyCheck: UInt32, textStart: Int,
        textLength: Int, textCheck: UInt32, version: VersionVector, insertionVersion: VersionVector, lamport: UInt64,
        history: StoredHistory?, listText: ArraySlice<UInt8>
    ) {
        self.source = source
        self.bodyOffset = bodyOffset
        self.bodyLength = bodyLength
        self.bodyVersion = bodyVersion
        self.bodyCheck = bodyCheck
        self.textStart = textStart
        self.textLength = textLength
        self.textCheck = textCheck
        self.version = version
        self.insertionVersion = insertionVersion
        self.lamport = lamport
        self.history = history
        self.listText = listText
    }

    /// Whether a read of this body failed (it stays failed: the next read is not trusted more).
    var isDamaged: Bool { damage.load(ordering: .relaxed) }

    /// The visible text read from the file and checked (its checksum, UTF-8), or nil when it
    /// cannot be read or fails (then the body is marked damaged).
    func readText() -> [UInt8]? {
        guard !isDamaged else { return nil }
        guard textLength > 0 else { return [] }
        guard let bytes = try? source.read(offset: bodyOffset + textStart, count: textLength), bytes.count == textLength,
            CRC32C.checksum(bytes, bytes.indices) == textCheck,
            bytes.withUnsafeBufferPointer({ SearchFolding.isValidUTF8($0) })
        else {
            damage.store(true, ordering: .relaxed)
            return nil
        }
        return bytes
    }

    /// Where the visible text is in the file.
    private var textRangeInFile: Range<Int> { bodyOffset + textStart..<bodyOffset + textStart + textLength }

    /// The most bytes ``readTexts(_:)`` reads at once.
    static let groupReadBytesMax = 1 << 20

    /// Whether `next` may join `group` in one ``readTexts(_:)``: the same file, after the
    /// group's last text, and the whole within ``groupReadBytesMax``.
    static func canReadWith(_ group: [StoredTextBody], _ next: StoredTextBody) -> Bool {
        guard let first = group.first, let last = group.last, next.source === first.source, !next.isDamaged else { return false }
        return next.textRangeInFile.lowerBound >= last.textRangeInFile.upperBound
            && next.textRangeInFile.upperBound - first.textRangeInFile.lowerBound <= groupReadBytesMax
    }

    /// The visible texts of `group` (``canReadWith(_:_:)``), read with one read of the span
    /// they are in, each checked as ``readText()`` checks it (a text that fails gives its list
    /// text, and its body is marked damaged).
    static func readTexts(_ group: [StoredTextBody]) -> [ArraySlice<UInt8>] {
        guard let first = group.first, let last = group.last else { return [] }
        let start = first.textRangeInFile.lowerBound
        let count = last.textRangeInFile.upperBound - start
        guard group.count > 1, !first.isDamaged, let span = try? first.source.read(offset: start, count: count), span.count == count else {
            return group.map(\.textOrListText)
        }
        // Checked by their checksums alone: what they are read for (folding a search key) takes
        // any bytes (bytes that are not UTF-8 fold to some key, never a crash), and a text that
        // matches its checksum is the one written, which was UTF-8.
        return group.map { stored in
            let range = stored.textRangeInFile.lowerBound - start..<stored.textRangeInFile.upperBound - start
            guard CRC32C.checksum(span, range) == stored.textCheck else {
                stored.damage.store(true, ordering: .relaxed)
                return stored.listText
            }
            return span[range]
        }
    }

    /// The visible text as read, or the list text when it cannot be read (see ``readText()``).
    var textOrListText: ArraySlice<UInt8> {
        readText().map { $0[...] } ?? listText
    }

    /// The body (and history section) read from the file and checked: the storage a text read
    /// from bytes has (`MemoTextStorage.encoded`, its bytes the body alone) and the history.
    func load() throws(DecodingError) -> (storage: MemoTextStorage, history: PendingHistory?) {
        (try loadBody(), try loadHistory())
    }

    /// The body read from the file and checked (its checksum, its text's UTF-8, and its walk
    /// against what the list says): the storage a text read from bytes has
    /// (`MemoTextStorage.encoded`, its bytes the body alone).
    func loadBody() throws(DecodingError) -> MemoTextStorage {
        guard !isDamaged else { throw .malformed("the stored text failed its check before") }
        do throws(DecodingError) {
            let bytes = try readChecked(offset: bodyOffset, count: bodyLength, check: bodyCheck, what: "text")
            let text = textStart..<textStart + textLength
            guard text.upperBound <= bytes.count,
                bytes.withUnsafeBufferPointer({ SearchFolding.isValidUTF8(UnsafeBufferPointer(rebasing: $0[text])) })
            else { throw .malformed("the stored text is not valid UTF-8") }
            // The body is the one the list describes: what the notebook holds of the memo (its
            // version, covered by the logs' runs, and its clock) is what the body gives.
            let walked = try TextCRDT.summary(ofBody: bytes, range: bytes.indices, version: bodyVersion)
            guard walked.text == text, walked.version == version, walked.insertionVersion == insertionVersion, walked.lamport == lamport
            else { throw .malformed("the stored text is not the one the state list describes") }
            return MemoTextStorage.encoded(
                bytes: bytes, body: bytes.indices, text: text, version: version, insertionVersion: insertionVersion, lamport: lamport,
                bodyVersion: bodyVersion)
        } catch {
            damage.store(true, ordering: .relaxed)
            throw error
        }
    }

    /// The history section read from the file and checked; nil when the memo has none.
    func loadHistory() throws(DecodingError) -> PendingHistory? {
        guard let history else { return nil }
        guard !isDamaged else { throw .malformed("the stored text failed its check before") }
        do throws(DecodingError) {
            let section = try readChecked(offset: history.offset, count: history.length, check: history.check, what: "history")
            return PendingHistory(bytes: section, sectionVersion: history.sectionVersion)
        } catch {
            damage.store(true, ordering: .relaxed)
            throw error
        }
    }

    /// `count` bytes at `offset` of the file, which must have CRC-32C `check`.
    private func readChecked(offset: Int, count: Int, check: UInt32, what: String) throws(DecodingError) -> [UInt8] {
        let bytes: [UInt8]
        do throws(NotebookBodyReadError) {
            bytes = try source.read(offset: offset, count: count)
        } catch {
            throw .malformed("the stored \(what) cannot be read: \(error.reason)")
        }
        guard bytes.count == count, CRC32C.checksum(bytes, bytes.indices) == check else {
            throw .malformed("the stored \(what) fails its checksum")
        }
        return bytes
    }
}

/// Where an encoded notebook state put each part (``Notebook/encoded(headroom:wrap:outline:)``),
/// in the bytes returned: what a state list is made from.
package struct NotebookStateOutline: Sendable {
    /// Per memo in id order: its place in the memo table, its body and the body's version.
    var bodies: [(tableIndex: Int, body: Range<Int>, bodyVersion: UInt8)] = []
    /// The replica list and the logs.
    var logs: Range<Int> = 0..<0
    /// The history sections: the memo's place in the state, the section, its version.
    var histories: [(memo: Int, section: Range<Int>, sectionVersion: UInt8)] = []
    /// The notebook state's envelope version.
    var stateVersion: UInt8 = 0

    package init() {}

    mutating func shift(by offset: Int) {
        for index in bodies.indices { bodies[index].body = bodies[index].body.lowerBound - offset..<bodies[index].body.upperBound - offset }
        logs = logs.lowerBound - offset..<logs.upperBound - offset
        for index in histories.indices {
            histories[index].section = histories[index].section.lowerBound - offset..<histories[index].section.upperBound - offset
        }
    }
}

extension MemoText {
    /// The length of the shortest beginning of `prefix` (cut between scalars) whose ``title(of:)``
    /// and ``preview(of:maxCharacters:)`` are those of `prefix` itself: what a list needs to keep of
    /// a memo's text.
    static func listTextLength(of prefix: ArraySlice<UInt8>) -> Int {
        // The preview reads the title's line, then at most 100 characters: first tried on the
        // line and the 1,536 bytes after it, which hold them unless the characters are long
        // clusters or the body begins with a long run of spaces; else on the whole beginning.
        let lineEnd = prefix.firstIndex { $0 == 0x0A || $0 == 0x0D } ?? prefix.endIndex
        var end = min(prefix.endIndex, lineEnd + 1_536)
        while end > prefix.startIndex && end < prefix.endIndex && prefix[end] & 0xC0 == 0x80 { end -= 1 }
        for candidate in end < prefix.endIndex ? [prefix[..<end], prefix] : [prefix] {
            let text = String(decoding: candidate, as: UTF8.self)
            // Where the preview's reading stopped: the end of the first visible character past
            // its cut. Nothing after it changes the title or the preview (a character's end is
            // decided by the scalars around it, all before the stop when it is not the end of
            // the text read), so a text cut there gives both. Not stopped: all of it is needed.
            guard let stop = previewReading(of: text).stop else {
                if candidate.count == prefix.count { return prefix.count }
                continue
            }
            guard stop < text.endIndex || candidate.count == prefix.count else { continue }
            let length = text.utf8.distance(from: text.startIndex, to: stop)
            #if MEMOSYNC_INTERNAL_CHECKS
            let whole = String(decoding: prefix, as: UTF8.self)
            let cut = String(decoding: prefix.prefix(length), as: UTF8.self)
            precondition(
                MemoText.title(of: cut) == MemoText.title(of: whole) && MemoText.preview(of: cut) == MemoText.preview(of: whole),
                "a list text whose title or preview differs")
            #endif
            return length
        }
        return prefix.count
    }
}

extension Notebook {
    /// The memos whose stored text failed a read or its check since the notebook was opened
    /// (the library's state file damaged after the open): their reads that cannot throw give
    /// the text their list shows (title and preview), the others throw
    /// ``NotebookError/corruptMemo(_:_:)``. Empty for a notebook not opened from a state list.
    ///
    /// - Complexity: O(n).
    public var damagedStoredMemoIDs: [MemoID] {
        var ids: [MemoID] = []
        memos.forEachRecord(in: 0..<memos.count) { _, record in
            if case let .stored(stored) = record.pointee.text, stored.isDamaged { ids.append(record.pointee.id) }
        }
        return ids.sorted()
    }

    /// How many memos have their text still in the state file (not read since the open).
    package var storedTextCount: Int {
        var count = 0
        memos.forEachRecord(in: 0..<memos.count) { _, record in
            if case .stored = record.pointee.text { count += 1 }
        }
        return count
    }

    // MARK: The state list

    /// The notebook part of a state list (FORMAT.md, "State list") for the state `bytes` this
    /// notebook just encoded with `outline` (``encoded(headroom:wrap:outline:)``): offsets are
    /// offsets in `bytes`, which must be the whole file the list describes.
    package func stateList(ofState bytes: [UInt8], outline: NotebookStateOutline) -> [UInt8] {
        var historyOf = [Int: (section: Range<Int>, sectionVersion: UInt8)]()
        for history in outline.histories { historyOf[history.memo] = (history.section, history.sectionVersion) }
        // The memos' entries in chunks, on every core: finding each list text (a title and a
        // preview) was 1.9 s of a 100,000-memo bootstrap's save on one.
        let records = memos.records
        let count = outline.bodies.count
        let chunkCount = count < 4_096 ? 1 : Self.listChunkCount
        let chunks = ChunkSlots<[UInt8]>(count: chunkCount)
        let histories = historyOf
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let range = count * chunk / chunkCount..<count * (chunk + 1) / chunkCount
            chunks.store(chunk, Self.listEntries(of: records, range: range, state: bytes, outline: outline, histories: histories))
        }
        var writer = ByteWriter(capacity: count * 384 + outline.logs.count + 64)
        writer.byte(outline.stateVersion)
        writer.varint(count)
        for chunk in 0..<chunkCount { writer.append(contentsOf: chunks.take(chunk)) }
        writer.lengthPrefixed(bytes[outline.logs])
        return writer.bytes
    }

    /// How many pieces ``stateList(ofState:outline:)`` cuts a large notebook's memos into.
    static let listChunkCount = 16

    /// The list entries of the memos at `range` of `outline.bodies`, one after another.
    private static func listEntries(
        of records: MemoTable.Records, range: Range<Int>, state bytes: [UInt8], outline: NotebookStateOutline,
        histories historyOf: [Int: (section: Range<Int>, sectionVersion: UInt8)]
    ) -> [UInt8] {
        var writer = ByteWriter(capacity: range.count * 384)
        for position in range {
            let entry = outline.bodies[position]
            let record = records[entry.tableIndex]
            writer.uint64LittleEndian(record.id.high)
            writer.uint64LittleEndian(record.id.low)
            writer.varint(entry.body.lowerBound)
            writer.varint(entry.body.count)
            writer.byte(entry.bodyVersion)
            writer.uint32LittleEndian(CRC32C.checksum(bytes, entry.body))
            // What an open derives from the body: taken from the record where it was read from
            // bytes already, else from the body just written.
            let summary: (text: Range<Int>, version: VersionVector, insertionVersion: VersionVector, lamport: UInt64)
            let known: ArraySlice<UInt8>?
            switch record.text {
            case let .encoded(_, body, text, version, insertionVersion, lamport, _):
                summary = (text.lowerBound - body.lowerBound + entry.body.lowerBound..<text.upperBound - body.lowerBound + entry.body.lowerBound,
                    version, insertionVersion, lamport)
                known = nil
            case let .stored(stored):
                let start = entry.body.lowerBound + stored.textStart
                summary = (start..<start + stored.textLength, stored.version, stored.insertionVersion, stored.lamport)
                known = stored.listText
            case .materialized:
                guard let walked = try? TextCRDT.summary(ofBody: bytes, range: entry.body, version: entry.bodyVersion) else {
                    preconditionFailure("memo \(record.id): a body this notebook just encoded does not read")
                }
                summary = walked
                known = nil
            }
            #if MEMOSYNC_INTERNAL_CHECKS
            if let walked = try? TextCRDT.summary(ofBody: bytes, range: entry.body, version: entry.bodyVersion) {
                precondition(
                    walked.text == summary.text && walked.version == summary.version
                        && walked.insertionVersion == summary.insertionVersion && walked.lamport == summary.lamport,
                    "memo \(record.id): the state list's summary differs from the body's")
            }
            #endif
            writer.varint(summary.text.lowerBound - entry.body.lowerBound)
            writer.varint(summary.text.count)
            writer.uint32LittleEndian(CRC32C.checksum(bytes, summary.text))
            Self.writeListVersion(summary.version, into: &writer)
            // The insertion version: 1 when it is the version (a memo nobody deleted in since
            // the last insertion, most memos), else 0 and the version.
            if summary.insertionVersion == summary.version {
                writer.byte(1)
            } else {
                writer.byte(0)
                Self.writeListVersion(summary.insertionVersion, into: &writer)
            }
            writer.varint(summary.lamport)
            if let known {
                writer.lengthPrefixed(known)
            } else {
                let prefix = Self.prefix(of: bytes[summary.text], utf8Bytes: MemoRecord.derivedPrefixBytes)
                var length = MemoText.listTextLength(of: prefix)
                #if MEMOSYNC_MUTANTS
                if EngineMutant.active == .stateListTextCut { length = max(0, length - 1) }
                #endif
                writer.lengthPrefixed(prefix.prefix(length))
            }
            if let history = historyOf[position] {
                writer.varint(history.section.count)
                writer.varint(history.section.lowerBound)
                writer.byte(history.sectionVersion)
                writer.uint32LittleEndian(CRC32C.checksum(bytes, history.section))
            } else {
                writer.varint(0)
            }
        }
        return writer.bytes
    }

    /// The first `count` bytes of `text` at most, cut between scalars.
    private static func prefix(of text: ArraySlice<UInt8>, utf8Bytes count: Int) -> ArraySlice<UInt8> {
        var end = min(text.endIndex, text.startIndex + count)
        while end > text.startIndex && end < text.endIndex && text[end] & 0xC0 == 0x80 { end -= 1 }
        return text[text.startIndex..<end]
    }

    private static func writeListVersion(_ version: VersionVector, into writer: inout ByteWriter) {
        writer.varint(version.entries.count)
        for entry in version.entries {
            writer.uint64LittleEndian(entry.replica.rawValue)
            writer.varint(entry.operationCount)
        }
    }

    private static func readListVersion(_ reader: inout ByteReader) throws(DecodingError) -> VersionVector {
        let count = try reader.count(max: reader.remaining / 9, "version size")
        var entries: [VersionVector.Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let replica = ReplicaID(try reader.uint64LittleEndian())
            if let last = entries.last, last.replica >= replica { throw .malformed("version not in replica order") }
            let operations = try reader.uint32Varint("operation count")
            guard operations > 0 else { throw .malformed("an empty version entry") }
            entries.append(VersionVector.Entry(replica: replica, operationCount: operations))
        }
        return VersionVector(ascendingEntries: entries)
    }

    private static func readUInt32(_ reader: inout ByteReader) throws(DecodingError) -> UInt32 {
        let range = try reader.range(count: 4)
        var value: UInt32 = 0
        for (shift, index) in range.enumerated() { value |= UInt32(reader.bytes[index]) << UInt32(8 * shift) }
        return value
    }

    /// A notebook from the notebook part of a state list (``stateList(ofState:outline:)``) at
    /// `range` of `bytes`, its memos' texts left in the file `source` reads (of `fileBytes` bytes):
    /// each read, and checked, when first used.
    package init(
        decodingStateList bytes: [UInt8], range: Range<Int>, source: any NotebookBodySource, fileBytes: Int, replica: ReplicaID
    ) throws(DecodingError) {
        var reader = ByteReader(bytes, from: range.lowerBound, to: range.upperBound)
        let stateVersion = try reader.byte()
        guard stateVersion == Self.stateFormatVersion || stateVersion == Self.stateFormatVersionWithHistory else {
            throw .malformed("a state list of a version \(stateVersion) state")
        }
        var notebook = Notebook(replica: replica)
        let memoCount = try reader.count(max: reader.remaining / 40, "memo count")
        var memoIDs: [MemoID] = []
        memoIDs.reserveCapacity(memoCount)
        notebook.memos.reserveCapacity(memoCount)
        var lamport: UInt64 = 0
        var hasHistory = false
        // Bodies, and history sections, are in the state's order and never overlap: where the
        // one before ends. (Each memo's claims are otherwise only bounded by the file: a list
        // giving thousands of memos the whole file made a compaction reserve their sum, tens of
        // gigabytes, and stop on the failed allocation.)
        var bodiesEnd = 0
        var historiesEnd = 0
        for _ in 0..<memoCount {
            let id = MemoID(high: try reader.uint64LittleEndian(), low: try reader.uint64LittleEndian())
            if let last = memoIDs.last, last >= id { throw .malformed("memo ids not strictly ascending") }
            memoIDs.append(id)
            let bodyOffset = try reader.count(max: fileBytes, "body offset")
            guard bodyOffset >= bodiesEnd else { throw .malformed("memo \(id): a body before the end of the one before it") }
            let bodyLength = try reader.count(max: fileBytes - bodyOffset, "body length")
            bodiesEnd = bodyOffset + bodyLength
            let bodyVersion = try reader.byte()
            guard bodyVersion == 1 || bodyVersion == TextCRDT.stateFormatVersion else { throw .malformed("body version \(bodyVersion)") }
            let bodyCheck = try Self.readUInt32(&reader)
            let textStart = try reader.count(max: bodyLength, "text start")
            let textLength = try reader.count(max: bodyLength - textStart, "text length")
            let textCheck = try Self.readUInt32(&reader)
            let version = try Self.readListVersion(&reader)
            let insertionVersion: VersionVector
            switch try reader.byte() {
            case 1: insertionVersion = version
            case 0: insertionVersion = try Self.readListVersion(&reader)
            default: throw .malformed("memo \(id): an insertion version marked otherwise than 0 or 1")
            }
            guard insertionVersion.isIncluded(in: version) else { throw .malformed("memo \(id): insertions beyond the version") }
            let memoLamport = try reader.varint()
            guard memoLamport <= Limits.lamportMax else { throw .malformed("memo \(id): Lamport clock beyond the limit") }
            let listRange = try reader.lengthPrefixedRange()
            guard listRange.count <= min(textLength, MemoRecord.derivedPrefixBytes),
                bytes.withUnsafeBufferPointer({ SearchFolding.isValidUTF8(UnsafeBufferPointer(rebasing: $0[listRange])) })
            else { throw .malformed("memo \(id): a list text that is not a text's beginning") }
            let historyLength = try reader.count(max: fileBytes, "history length")
            var history: StoredHistory?
            if historyLength > 0 {
                guard stateVersion == Self.stateFormatVersionWithHistory else { throw .malformed("a history in a version \(stateVersion) state") }
                let offset = try reader.count(max: fileBytes - historyLength, "history offset")
                guard offset >= historiesEnd else { throw .malformed("memo \(id): a history before the end of the one before it") }
                historiesEnd = offset + historyLength
                let sectionVersion = try reader.byte()
                guard sectionVersion == TextCRDT.stateFormatVersionWithHistory || sectionVersion == TextCRDT.stateFormatVersionWithCounterRangeHistory
                else { throw .malformed("history section version \(sectionVersion)") }
                history = StoredHistory(offset: offset, length: historyLength, sectionVersion: sectionVersion, check: try Self.readUInt32(&reader))
                hasHistory = true
            }
            let stored = StoredTextBody(
                source: source, bodyOffset: bodyOffset, bodyLength: bodyLength, bodyVersion: bodyVersion, bodyCheck: bodyCheck,
                textStart: textStart, textLength: textLength, textCheck: textCheck, version: version,
                insertionVersion: insertionVersion, lamport: memoLamport, history: history, listText: bytes[listRange])
            lamport = max(lamport, memoLamport)
            var record = MemoRecord(id: id, text: .stored(stored), createdAt: .zero, modifiedAt: .zero)
            record.cachedTextPrefix = bytes[listRange]
            record.derivedVersion = version
            record.searchKey = SearchKey()
            record.searchKeyStamp = MemoRecord.searchKeyLeftToSearches
            notebook.memos.appendNew(record)
        }
        if stateVersion == Self.stateFormatVersionWithHistory && !hasHistory { throw .malformed("a version 4 state without histories") }
        let logsRange = try reader.lengthPrefixedRange()
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remaining) }
        notebook.lamport = lamport
        var logReader = ByteReader(bytes, from: logsRange.lowerBound, to: logsRange.upperBound)
        let replicas = try Self.readStateReplicas(&logReader)
        var logs = StateLogReading(memoCount: memoIDs.count)
        for replicaID in replicas {
            try logs.readLog(of: replicaID, &logReader, version: Self.stateFormatVersion, memos: memoIDs, replicas: replicas, into: &notebook)
        }
        guard logReader.isAtEnd else { throw .trailingBytes(count: logReader.remaining) }
        guard logs.createdCount == memoIDs.count else { throw .malformed("a memo was never created") }
        notebook.clock.observe(logs.latest, wallMilliseconds: 0)
        logs.stampRecords(of: &notebook)
        if let coverageViolation = logs.coverageViolation { throw .malformed(coverageViolation) }
        try notebook.checkTextsAgainstRuns(logs.coverage, memos: memoIDs)
        self = notebook
    }
}
