// The content of deleted items a text still retains (issue 27: history). Deleting text normally
// turns its bytes into garbage of the content buffer; a text that keeps deleted content copies
// them here first, keyed by the items' ids, so the text at an earlier version can be rebuilt.
// It takes no part in merging: two texts with the same operations are the same text whatever
// each retains (FORMAT.md, "Text state, version 3").

/// Retained content of deleted items, per replica index in blocks of `1 << blockShift`
/// counters (as the spans' block index): an entry lies within one block, so recording a deletion
/// anywhere in a long text touches one small block, never a long sorted array. Entries are not
/// merged across blocks in memory (their bytes need not be adjacent); the encoding merges them.
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

    /// Counters per block: `1 << blockShift`.
    static let blockShift: UInt32 = 6

    /// `blocks[replica][block]`: the entries in that block of counters, ascending.
    private var blocks: [[[Entry]]] = []
    private(set) var bytes: [UInt8] = []
    /// Bytes of `bytes` no entry refers to.
    private var garbageBytes = 0
    /// Scalars retained.
    private(set) var itemCount = 0

    init() {}

    var isEmpty: Bool { itemCount == 0 }

    /// Bytes retained (without garbage).
    var byteCount: Int { bytes.count - garbageBytes }

    /// Every entry, sorted by (replica index, counter).
    var entries: [Entry] { blocks.flatMap { $0.flatMap { $0 } } }

    /// Records the content of `length` newly deleted items `counter ..<` of `replica`. The items
    /// must not be retained already (an item is deleted once in a text's structure).
    mutating func record(replica: UInt32, counter: UInt32, length: UInt32, utf8: ArraySlice<UInt8>) {
        guard length > 0, !utf8.isEmpty else { return }
        let offset = UInt32(bytes.count)
        bytes.append(contentsOf: utf8)
        insert(replica: replica, counter: counter, length: length, byteOffset: offset, byteLength: UInt32(utf8.count))
    }

    /// Adds items whose bytes are already in `bytes`, cut at block boundaries.
    private mutating func insert(replica: UInt32, counter start: UInt32, length total: UInt32, byteOffset: UInt32, byteLength: UInt32) {
        while blocks.count <= Int(replica) { blocks.append([]) }
        var counter = start
        var offset = byteOffset
        let end = start + total
        let byteEnd = byteOffset + byteLength
        while counter < end {
            let block = Int(counter >> Self.blockShift)
            let blockEnd = UInt32(block + 1) << Self.blockShift
            let taken = min(end, blockEnd) - counter
            let takenBytes = counter + taken == end
                ? byteEnd - offset : UInt32(UTF8Scanning.advance(bytes, from: Int(offset), scalars: Int(taken)).bytes)
            while blocks[Int(replica)].count <= block { blocks[Int(replica)].append([]) }
            let entry = Entry(replica: replica, counter: counter, length: taken, byteOffset: offset, byteLength: takenBytes)
            var list = blocks[Int(replica)][block]
            blocks[Int(replica)][block] = []
            let position = list.partitioningIndex { $0.counter > counter }
            if position > 0, list[position - 1].end == counter, list[position - 1].byteOffset + list[position - 1].byteLength == offset {
                list[position - 1].length += taken
                list[position - 1].byteLength += takenBytes
            } else {
                list.insert(entry, at: position)
            }
            blocks[Int(replica)][block] = list
            itemCount += Int(taken)
            counter += taken
            offset += takenBytes
        }
    }

    /// The UTF-8 of items `counters` of `replica` when every one of them is retained, else nil.
    ///
    /// - Complexity: O(k + b) for k bytes and b entries in the blocks touched.
    func content(replica: UInt32, counters: Range<UInt32>) -> [UInt8]? {
        guard !counters.isEmpty else { return [] }
        guard Int(replica) < blocks.count else { return nil }
        let replicaBlocks = blocks[Int(replica)]
        var result: [UInt8] = []
        var counter = counters.lowerBound
        while counter < counters.upperBound {
            let block = Int(counter >> Self.blockShift)
            guard block < replicaBlocks.count else { return nil }
            let list = replicaBlocks[block]
            let index = list.partitioningIndex { $0.end > counter }
            guard index < list.count, list[index].counter <= counter else { return nil }
            let entry = list[index]
            let start = Int(entry.byteOffset)
            let skip = UTF8Scanning.advance(bytes, from: start, scalars: Int(counter - entry.counter)).bytes
            let taken = min(counters.upperBound, entry.end) - counter
            let length = counter + taken == entry.end
                ? Int(entry.byteLength) - skip : UTF8Scanning.advance(bytes, from: start + skip, scalars: Int(taken)).bytes
            result.append(contentsOf: bytes[start + skip..<start + skip + length])
            counter += taken
        }
        return result
    }

    /// The longest first part of items `counters` (not empty) of `replica` that are all retained
    /// or all not: whether they are, and how many items it holds.
    ///
    /// - Complexity: O(b) for b entries and blocks between the range's start and the part's end.
    func uniformPrefix(replica: UInt32, counters: Range<UInt32>) -> (isRetained: Bool, length: UInt32) {
        precondition(!counters.isEmpty, "an empty range has no first part")
        guard Int(replica) < blocks.count else { return (false, UInt32(counters.count)) }
        let replicaBlocks = blocks[Int(replica)]
        /// The entry holding `counter`, or else the first counter after it that an entry holds
        /// (nil: none below the range's end).
        func find(_ counter: UInt32) -> (holding: Entry?, nextStart: UInt32?) {
            var block = Int(counter >> Self.blockShift)
            while block < replicaBlocks.count && UInt32(block) << Self.blockShift < counters.upperBound {
                let list = replicaBlocks[block]
                let index = list.partitioningIndex { $0.end > counter }
                if index < list.count {
                    if list[index].counter <= counter { return (list[index], nil) }
                    return (nil, list[index].counter < counters.upperBound ? list[index].counter : nil)
                }
                block += 1
            }
            return (nil, nil)
        }
        let first = find(counters.lowerBound)
        guard var entry = first.holding else {
            return (false, (first.nextStart ?? counters.upperBound) - counters.lowerBound)
        }
        // Entries continue one another across blocks (an entry lies within one block).
        while entry.end < counters.upperBound, let next = find(entry.end).holding { entry = next }
        return (true, min(entry.end, counters.upperBound) - counters.lowerBound)
    }

    /// How many of items `counters` of `replica` are retained.
    func retainedCount(replica: UInt32, counters: Range<UInt32>) -> Int {
        guard Int(replica) < blocks.count else { return 0 }
        var total = 0
        var block = Int(counters.lowerBound >> Self.blockShift)
        while block < blocks[Int(replica)].count && UInt32(block) << Self.blockShift < counters.upperBound {
            for entry in blocks[Int(replica)][block] {
                let lower = max(entry.counter, counters.lowerBound)
                let upper = min(entry.end, counters.upperBound)
                if lower < upper { total += Int(upper - lower) }
            }
            block += 1
        }
        return total
    }

    /// Drops the content of the items in `ranges` (per replica index: ascending, disjoint).
    ///
    /// - Complexity: O(e + r) for e entries in the blocks the ranges touch and r ranges, plus
    ///   the bytes kept when compacting.
    mutating func drop(_ ranges: [UInt32: [Range<UInt32>]]) {
        guard !isEmpty else { return }
        for (replica, dropped) in ranges.sorted(by: { $0.key < $1.key }) where Int(replica) < blocks.count {
            var touched: [Int] = []
            for range in dropped where !range.isEmpty {
                let first = Int(range.lowerBound >> Self.blockShift)
                let last = min(Int((range.upperBound - 1) >> Self.blockShift), blocks[Int(replica)].count - 1)
                if first <= last { touched.append(contentsOf: first...last) }
            }
            var previousBlock = -1
            for block in touched.sorted() where block != previousBlock {
                previousBlock = block
                blocks[Int(replica)][block] = remaining(blocks[Int(replica)][block], without: dropped)
            }
        }
        compactIfWorthwhile()
    }

    /// The parts of `list`'s entries no range of `dropped` covers.
    private mutating func remaining(_ list: [Entry], without dropped: [Range<UInt32>]) -> [Entry] {
        var kept: [Entry] = []
        for entry in list {
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
            itemCount -= Int(entry.length) - pieces.reduce(0) { $0 + $1.count }
        }
        return kept
    }

    /// Drops everything retained (purge).
    mutating func removeAll() {
        blocks = []
        bytes = []
        garbageBytes = 0
        itemCount = 0
    }

    /// Copies the live bytes into a fresh buffer when most of it is garbage.
    private mutating func compactIfWorthwhile() {
        if itemCount == 0 {
            removeAll()
            return
        }
        guard garbageBytes > 4096 && garbageBytes * 2 > bytes.count else { return }
        var fresh: [UInt8] = []
        fresh.reserveCapacity(bytes.count - garbageBytes)
        for replica in blocks.indices {
            for block in blocks[replica].indices {
                for index in blocks[replica][block].indices {
                    let start = Int(blocks[replica][block][index].byteOffset)
                    blocks[replica][block][index].byteOffset = UInt32(fresh.count)
                    fresh.append(contentsOf: bytes[start..<start + Int(blocks[replica][block][index].byteLength)])
                }
            }
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
        let order = blocks.indices.filter { !blocks[$0].isEmpty }.sorted { map(UInt32($0)) < map(UInt32($1)) }
        var result: [(replica: UInt32, counter: UInt32, length: UInt32)] = []
        var content: [UInt8] = []
        content.reserveCapacity(byteCount)
        for replica in order {
            let mapped = map(UInt32(replica))
            for list in blocks[replica] {
                for entry in list {
                    content.append(contentsOf: bytes[Int(entry.byteOffset)..<Int(entry.byteOffset + entry.byteLength)])
                    if let last = result.last, last.replica == mapped, last.counter + last.length == entry.counter {
                        result[result.count - 1].length += entry.length
                    } else {
                        result.append((mapped, entry.counter, entry.length))
                    }
                }
            }
        }
        return (result, content)
    }

    /// Rebuilds from decoded entries (disjoint) whose content is `content[byteRange]`.
    init(decodedEntries: [(replica: UInt32, counter: UInt32, length: UInt32, byteRange: Range<Int>)], content: [UInt8]) {
        bytes = content
        for entry in decodedEntries {
            insert(
                replica: entry.replica, counter: entry.counter, length: entry.length,
                byteOffset: UInt32(entry.byteRange.lowerBound), byteLength: UInt32(entry.byteRange.count))
        }
    }
}
