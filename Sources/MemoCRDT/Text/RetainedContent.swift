// The content of deleted items a text still retains (issue 27: history). Deleting text normally
// turns its bytes into garbage of the content buffer; a text that keeps deleted content copies
// them here first, keyed by the items' ids, so the text at an earlier version can be rebuilt.
// It takes no part in merging: two texts with the same operations are the same text whatever
// each retains (FORMAT.md, "Text state, version 3").

/// Retained content of deleted items: entries sorted by (replica index, counter), not
/// overlapping. Entries are not merged in memory (their bytes need not be adjacent); the
/// encoding merges them.
@usableFromInline
struct RetainedContent: Sendable {
    /// `length` deleted items of one replica from `counter`, whose UTF-8 is
    /// `bytes[byteOffset ..< byteOffset + byteLength]`.
    struct Entry: Sendable, Equatable {
        var replica: UInt32
        var counter: UInt32
        var length: UInt32
        var byteOffset: UInt32
        var byteLength: UInt32

        var end: UInt32 { counter + length }

        func precedes(replica otherReplica: UInt32, counter otherCounter: UInt32) -> Bool {
            replica < otherReplica || (replica == otherReplica && counter < otherCounter)
        }
    }

    private(set) var entries: [Entry] = []
    private(set) var bytes: [UInt8] = []
    /// Bytes of `bytes` no entry refers to.
    private var garbageBytes = 0

    var isEmpty: Bool { entries.isEmpty }

    /// Scalars retained.
    var itemCount: Int { entries.reduce(0) { $0 + Int($1.length) } }

    /// Bytes retained (without garbage).
    var byteCount: Int { bytes.count - garbageBytes }

    /// Index of the first entry not before (replica, counter).
    private func firstIndex(notBefore replica: UInt32, counter: UInt32) -> Int {
        entries.partitioningIndex { !$0.precedes(replica: replica, counter: counter) }
    }

    /// Records the content of `length` newly deleted items `counter ..<` of `replica`. The items
    /// must not be retained already (an item is deleted once in a text's structure).
    mutating func record(replica: UInt32, counter: UInt32, length: UInt32, utf8: ArraySlice<UInt8>) {
        guard length > 0, !utf8.isEmpty else { return }
        let entry = Entry(
            replica: replica, counter: counter, length: length, byteOffset: UInt32(bytes.count),
            byteLength: UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
        if let last = entries.last, last.precedes(replica: replica, counter: counter) {
            // Typing then deleting forwards: the common case, appended; merged when it continues
            // the last entry in both counters and bytes.
            if last.replica == replica && last.end == counter && last.byteOffset + last.byteLength == entry.byteOffset {
                entries[entries.count - 1].length += length
                entries[entries.count - 1].byteLength += entry.byteLength
            } else {
                entries.append(entry)
            }
            return
        }
        entries.insert(entry, at: firstIndex(notBefore: replica, counter: counter))
    }

    /// The UTF-8 of items `counters` of `replica` when every one of them is retained, else nil.
    ///
    /// - Complexity: O(log e + k) for e entries and k bytes.
    func content(replica: UInt32, counters: Range<UInt32>) -> [UInt8]? {
        guard !counters.isEmpty else { return [] }
        // The entry holding the first counter: the last entry that starts at or before it.
        var index = firstIndex(notBefore: replica, counter: counters.lowerBound + 1) - 1
        guard index >= 0 else { return nil }
        var result: [UInt8] = []
        var counter = counters.lowerBound
        while counter < counters.upperBound {
            guard index < entries.count else { return nil }
            let entry = entries[index]
            guard entry.replica == replica, entry.counter <= counter, counter < entry.end else { return nil }
            let start = Int(entry.byteOffset)
            let skip = UTF8Scanning.advance(bytes, from: start, scalars: Int(counter - entry.counter)).bytes
            let taken = min(counters.upperBound, entry.end) - counter
            let length = UTF8Scanning.advance(bytes, from: start + skip, scalars: Int(taken)).bytes
            result.append(contentsOf: bytes[start + skip..<start + skip + length])
            counter += taken
            index += 1
        }
        return result
    }

    /// Drops the content of the items in `ranges` (per replica index: ascending, disjoint).
    ///
    /// - Complexity: O(e + r) for e entries and r ranges, plus the bytes kept when compacting.
    mutating func drop(_ ranges: [UInt32: [Range<UInt32>]]) {
        guard !ranges.isEmpty, !entries.isEmpty else { return }
        var kept: [Entry] = []
        kept.reserveCapacity(entries.count)
        for entry in entries {
            guard let dropped = ranges[entry.replica] else {
                kept.append(entry)
                continue
            }
            // The parts of the entry no range covers.
            var pieces: [Range<UInt32>] = []
            var start = entry.counter
            var index = dropped.partitioningIndex { $0.upperBound > entry.counter }
            while index < dropped.count && dropped[index].lowerBound < entry.end {
                if dropped[index].lowerBound > start { pieces.append(start..<dropped[index].lowerBound) }
                start = max(start, dropped[index].upperBound)
                index += 1
            }
            if start < entry.end { pieces.append(start..<entry.end) }
            if pieces.count == 1 && pieces[0] == entry.counter..<entry.end {
                kept.append(entry)
                continue
            }
            var droppedBytes = Int(entry.byteLength)
            for piece in pieces {
                let skip = UTF8Scanning.advance(bytes, from: Int(entry.byteOffset), scalars: Int(piece.lowerBound - entry.counter)).bytes
                let length = UTF8Scanning.advance(bytes, from: Int(entry.byteOffset) + skip, scalars: piece.count).bytes
                kept.append(
                    Entry(
                        replica: entry.replica, counter: piece.lowerBound, length: UInt32(piece.count),
                        byteOffset: entry.byteOffset + UInt32(skip), byteLength: UInt32(length)))
                droppedBytes -= length
            }
            garbageBytes += droppedBytes
        }
        entries = kept
        compactIfWorthwhile()
    }

    /// Drops everything retained (purge).
    mutating func removeAll() {
        entries = []
        bytes = []
        garbageBytes = 0
    }

    /// Copies the live bytes into a fresh buffer when most of it is garbage.
    private mutating func compactIfWorthwhile() {
        guard garbageBytes > 4096 && garbageBytes * 2 > bytes.count else { return }
        var fresh: [UInt8] = []
        fresh.reserveCapacity(bytes.count - garbageBytes)
        for index in entries.indices {
            let start = Int(entries[index].byteOffset)
            entries[index].byteOffset = UInt32(fresh.count)
            fresh.append(contentsOf: bytes[start..<start + Int(entries[index].byteLength)])
        }
        bytes = fresh
        garbageBytes = 0
    }

    /// The entries as the encoding lists them, with replica indices mapped by `map` (to a
    /// state's replica table): sorted by (mapped replica, counter), maximal (adjacent counters of
    /// one replica joined); and their UTF-8 in that order.
    func canonicalEntries(mapping map: (UInt32) -> UInt32) -> (
        entries: [(replica: UInt32, counter: UInt32, length: UInt32)], content: [UInt8]
    ) {
        let sorted = entries.map { entry in
            var mapped = entry
            mapped.replica = map(entry.replica)
            return mapped
        }.sorted { $0.precedes(replica: $1.replica, counter: $1.counter) }
        var result: [(replica: UInt32, counter: UInt32, length: UInt32)] = []
        var content: [UInt8] = []
        content.reserveCapacity(byteCount)
        for entry in sorted {
            content.append(contentsOf: bytes[Int(entry.byteOffset)..<Int(entry.byteOffset + entry.byteLength)])
            if let last = result.last, last.replica == entry.replica, last.counter + last.length == entry.counter {
                result[result.count - 1].length += entry.length
            } else {
                result.append((entry.replica, entry.counter, entry.length))
            }
        }
        return (result, content)
    }

    /// Rebuilds from decoded entries (sorted by replica index and counter, disjoint) whose
    /// content is `content[byteRange]`, one after the other.
    init(decodedEntries: [(replica: UInt32, counter: UInt32, length: UInt32, byteRange: Range<Int>)], content: [UInt8]) {
        bytes = content
        entries = decodedEntries.map { entry in
            Entry(
                replica: entry.replica, counter: entry.counter, length: entry.length,
                byteOffset: UInt32(entry.byteRange.lowerBound), byteLength: UInt32(entry.byteRange.count))
        }
    }

    init() {}
}
