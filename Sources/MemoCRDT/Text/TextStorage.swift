// How a text is stored
// ====================
//
// Every Unicode scalar ever inserted is an *item* with an id `(replica, counter)`. Items are kept
// in one list in document order, deleted ones included (tombstones), because later insertions
// anywhere may name them as origins. Each item remembers the two neighbours it was inserted
// between, `originLeft` and `originRight`; FugueMax decides from these alone where an item goes,
// so every replica ends up with the same list whatever order operations arrive in.
//
// Items are not stored one by one. A *span* is a run of items that one replica typed in one go:
// consecutive counters, each item's originLeft the item before it, all sharing one originRight,
// all deleted or all visible. Typing "hello" is one span; deleting the "ll" later splits it into
// three spans ("he", a deleted "ll", "o").
//
//   document order:  [he]  [ll: deleted]  [o]  [XY by another replica]
//   replica A:       counters 0 1 | 2 3 | 4      one insertion, split in three
//
// Three structures find spans:
//
// 1. A B+tree over document order (`leafHeaders` and `leafSlots`, `nodeHeaders` and
//    `nodeEntries`, from `root`). Leaves hold up to `leafCapacity` span slots; internal nodes
//    hold, for each child, the number of visible scalars, visible UTF-16 units and items
//    (tombstones included) below it. Finding the span at a visible offset, or the offset of a
//    span, is O(log n).
// 2. An arena of span records (`spans`), addressed by slot number, so a span keeps its slot while
//    leaves split around it. A span records the leaf it sits in.
// 3. Per replica, the spans in counter order as a linked list (`nextInReplica`), and an index
//    `blockFirstSpan[counter >> blockShift]` (in the replica's `ReplicaLog`) pointing into that
//    list. Finding the span that holds an id walks at most `1 << blockShift` links, so it is
//    O(1); with the leaf pointer and the tree, the id's document offset is O(log n).
//
// Text content lives in one append-only UTF-8 buffer (`content`); a visible span names a byte
// range in it. Deleted content is garbage there until `compactContent` copies the live bytes out.
//
// Operation history is kept per replica (`ReplicaLog`): how many operations it has made, the
// Lamport timestamp of each (as runs where timestamps rise by one per counter), and its deletion
// runs (insertions need no separate log: the spans are their record).

/// Marks "no slot", "no leaf", "no node", "no replica".
@usableFromInline let noIndex: UInt32 = .max

/// An item's id inside one text: the replica as an index into the text's replica table.
@usableFromInline
struct ItemRef: Hashable, Sendable {
    var replica: UInt32
    var counter: UInt32

    /// The start of the document (as an originLeft) or its end (as an originRight).
    static let none = ItemRef(replica: noIndex, counter: noIndex)

    var isNone: Bool { replica == noIndex }
}

/// Sizes of a run of items in the three units positions are counted in.
@usableFromInline
struct Counts: Equatable, Sendable {
    /// Visible Unicode scalars.
    var scalars: Int = 0
    /// Visible UTF-16 code units.
    var utf16: Int = 0
    /// Items, visible or deleted.
    var items: Int = 0

    static func + (lhs: Counts, rhs: Counts) -> Counts {
        Counts(scalars: lhs.scalars + rhs.scalars, utf16: lhs.utf16 + rhs.utf16, items: lhs.items + rhs.items)
    }

    static func - (lhs: Counts, rhs: Counts) -> Counts {
        Counts(scalars: lhs.scalars - rhs.scalars, utf16: lhs.utf16 - rhs.utf16, items: lhs.items - rhs.items)
    }

    static func += (lhs: inout Counts, rhs: Counts) { lhs = lhs + rhs }
    static func -= (lhs: inout Counts, rhs: Counts) { lhs = lhs - rhs }
}

/// A run of items typed by one replica in one go (see the top of this file).
///
/// 44 bytes: lengths are stored in 16 bits (a span holds at most `Limits.spanLengthScalarsMax`
/// scalars, so at most 4 × that many UTF-8 bytes), keeping more spans in cache.
@usableFromInline
struct Span: Sendable {
    var replica: UInt32
    /// Counter of the first item; item `i` has counter `counter + i`.
    var counter: UInt32
    /// Offset of the content in the text's content buffer; 0 when deleted.
    var contentOffset: UInt32
    /// The originLeft of the first item; later items' originLeft is the item before them.
    var originLeft: ItemRef
    /// The originRight of every item.
    var originRight: ItemRef
    /// The leaf this span's slot is in.
    var leaf: UInt32
    /// The next span of the same replica in counter order.
    var nextInReplica: UInt32
    private var storedLengthScalars: UInt16
    private var storedLengthUTF16: UInt16
    private var storedLengthUTF8: UInt16
    var isDeleted: Bool

    init(
        replica: UInt32, counter: UInt32, lengthScalars: UInt32, lengthUTF16: UInt32, lengthUTF8: UInt32,
        contentOffset: UInt32, originLeft: ItemRef, originRight: ItemRef, leaf: UInt32, nextInReplica: UInt32,
        isDeleted: Bool
    ) {
        self.replica = replica
        self.counter = counter
        self.contentOffset = contentOffset
        self.originLeft = originLeft
        self.originRight = originRight
        self.leaf = leaf
        self.nextInReplica = nextInReplica
        self.storedLengthScalars = UInt16(lengthScalars)
        self.storedLengthUTF16 = UInt16(lengthUTF16)
        self.storedLengthUTF8 = UInt16(lengthUTF8)
        self.isDeleted = isDeleted
    }

    var lengthScalars: UInt32 {
        get { UInt32(storedLengthScalars) }
        set { storedLengthScalars = UInt16(newValue) }
    }
    /// UTF-16 length of the content; 0 when deleted.
    var lengthUTF16: UInt32 {
        get { UInt32(storedLengthUTF16) }
        set { storedLengthUTF16 = UInt16(newValue) }
    }
    /// UTF-8 length of the content; 0 when deleted.
    var lengthUTF8: UInt32 {
        get { UInt32(storedLengthUTF8) }
        set { storedLengthUTF8 = UInt16(newValue) }
    }

    var end: UInt32 { counter + lengthScalars }

    var counts: Counts {
        isDeleted
            ? Counts(scalars: 0, utf16: 0, items: Int(lengthScalars))
            : Counts(scalars: Int(lengthScalars), utf16: Int(lengthUTF16), items: Int(lengthScalars))
    }

    var visibleScalars: Int { isDeleted ? 0 : Int(lengthScalars) }
    var visibleUTF16: Int { isDeleted ? 0 : Int(lengthUTF16) }

    func item(at offset: UInt32) -> ItemRef { ItemRef(replica: replica, counter: counter + offset) }
    var lastItem: ItemRef { item(at: lengthScalars - 1) }

    /// The originLeft of the item at `offset`.
    func originLeft(at offset: UInt32) -> ItemRef {
        offset == 0 ? originLeft : item(at: offset - 1)
    }
}

/// A leaf's bookkeeping; its slots are in `TextCRDT.leafSlots`.
@usableFromInline
struct LeafHeader: Sendable {
    var count: UInt16
    /// This leaf's entry index in its parent node.
    var parentEntry: UInt16
    var parent: UInt32
    var next: UInt32
    var previous: UInt32
}

@usableFromInline
struct NodeEntry: Sendable {
    var child: UInt32
    var counts: Counts
}

/// An internal node's bookkeeping; its entries are in `TextCRDT.nodeEntries`.
@usableFromInline
struct NodeHeader: Sendable {
    var count: UInt16
    /// This node's entry index in its parent node.
    var parentEntry: UInt16
    /// 1 when the children are leaves.
    var height: UInt8
    var parent: UInt32
}

/// Timestamps of one replica's operations: from `counter` on, timestamps are `lamport + (c - counter)`
/// until the next run starts.
@usableFromInline
struct LamportRun: Equatable, Sendable {
    var counter: UInt32
    var lamport: UInt64
}

/// Consecutive deletions by one replica: operation `counter + i` deletes one item of the target
/// range `targetCounter ..< targetCounter + length` of `targetReplica`, in ascending order, or in
/// descending order when `isReversed` (what holding backspace produces).
@usableFromInline
struct DeletionRun: Equatable, Sendable {
    var counter: UInt32
    var length: UInt32
    var targetReplica: UInt32
    var targetCounter: UInt32
    var isReversed: Bool

    var end: UInt32 { counter + length }

    /// The target of operation `counter + offset`.
    func target(at offset: UInt32) -> ItemRef {
        ItemRef(replica: targetReplica, counter: isReversed ? targetCounter + length - 1 - offset : targetCounter + offset)
    }
}

/// One replica's history in a text.
@usableFromInline
struct ReplicaLog: Sendable {
    /// Operations applied from this replica; also its next counter.
    var operationCount: UInt32 = 0
    var lamportRuns: [LamportRun] = []
    var deletionRuns: [DeletionRun] = []
    /// `blockFirstSpan[b]` is the first span in counter order holding an item with counter in
    /// block `b`, or `noIndex` when the block holds only deletions.
    var blockFirstSpan: [UInt32] = []
    /// First and last span in counter order.
    var firstSpan: UInt32 = noIndex
    var lastSpan: UInt32 = noIndex

    /// Lamport timestamp of operation `counter` (which must have been applied).
    func lamport(of counter: UInt32) -> UInt64 {
        // Most lookups name a recent operation: the last run, without a search.
        if let last = lamportRuns.last, last.counter <= counter { return last.lamport + UInt64(counter - last.counter) }
        var low = 0
        var high = lamportRuns.count
        while low + 1 < high {
            let middle = (low + high) / 2
            if lamportRuns[middle].counter <= counter { low = middle } else { high = middle }
        }
        let run = lamportRuns[low]
        return run.lamport + UInt64(counter - run.counter)
    }

    /// ``lamport(of:)`` for lookups that mostly move forward a little (validation reads the
    /// origins of a delta's runs in counter order): `hint` is the index in `lamportRuns` the
    /// last lookup ended at; that run and the next are tried before a bisection. Updated.
    func lamport(of counter: UInt32, hint: inout Int) -> UInt64 {
        let count = lamportRuns.count
        var index = hint
        if index < count && lamportRuns[index].counter <= counter {
            if index + 1 < count && lamportRuns[index + 1].counter <= counter {
                index += 1
                if index + 1 < count && lamportRuns[index + 1].counter <= counter {
                    index = lamportRuns.partitioningIndex { $0.counter > counter } - 1
                }
            }
        } else {
            index = max(0, lamportRuns.partitioningIndex { $0.counter > counter } - 1)
        }
        assert(index < count && lamportRuns[index].counter <= counter, "operation \(counter) has been applied")
        hint = index
        let run = lamportRuns[index]
        return run.lamport + UInt64(counter - run.counter)
    }

    /// Records that operations `counter ..< counter + length` got timestamps `lamport ...`.
    mutating func appendTimestamps(counter: UInt32, lamport: UInt64) {
        if let last = lamportRuns.last, lamport &- UInt64(counter) == last.lamport &- UInt64(last.counter) {
            return
        }
        lamportRuns.append(LamportRun(counter: counter, lamport: lamport))
    }

    /// Records deletions, extending the last run when they continue it. A single deletion is
    /// always recorded as ascending, so equal histories give equal runs.
    mutating func appendDeletions(_ run: DeletionRun) {
        var run = run
        if run.length == 1 { run.isReversed = false }
        if var last = deletionRuns.last, last.end == run.counter, last.targetReplica == run.targetReplica {
            let forward = !run.isReversed || run.length == 1
            let backward = run.isReversed || run.length == 1
            if forward && (!last.isReversed || last.length == 1) && last.targetCounter + last.length == run.targetCounter {
                last.length += run.length
                last.isReversed = false
                deletionRuns[deletionRuns.count - 1] = last
                return
            }
            if backward && (last.isReversed || last.length == 1) && run.targetCounter + run.length == last.targetCounter {
                last.length += run.length
                last.targetCounter = run.targetCounter
                last.isReversed = true
                deletionRuns[deletionRuns.count - 1] = last
                return
            }
        }
        deletionRuns.append(run)
    }

    /// Index of the deletion run holding `counter`, if `counter` is a deletion.
    func deletionRunIndex(of counter: UInt32) -> Int? {
        var low = 0
        var high = deletionRuns.count
        while low < high {
            let middle = (low + high) / 2
            if deletionRuns[middle].end <= counter { low = middle + 1 } else { high = middle }
        }
        return low < deletionRuns.count && deletionRuns[low].counter <= counter ? low : nil
    }
}

/// Interned replica ids: index `i` in a text stands for `ids[i]`.
///
/// Texts look replica ids up constantly (every run applied or validated names some), and a
/// text rarely holds more than a few dozen replicas: while it holds at most
/// ``sortedCapacity`` (or more, all interned in ascending order), the ids are found by
/// bisection and listed in id order, so versions are built without sorting (``SortedIDIndex``).
@usableFromInline
struct ReplicaTable: Sendable {
    private(set) var ids: [ReplicaID] = []
    private var idIndex = SortedIDIndex<ReplicaID, UInt32>(sortedCapacity: sortedCapacity)

    /// Most ids the sorted view takes out of id order.
    static let sortedCapacity = 1024

    /// The index of `id`, if it is interned.
    ///
    /// - Complexity: O(log r) comparisons while sorted, else one hash lookup.
    func index(of id: ReplicaID) -> UInt32? { idIndex.position(of: id) }

    /// The index of `id`, interning it first if it is new.
    ///
    /// - Complexity: O(log r) for a known id; O(r) for a new one while sorted, else O(1).
    mutating func intern(_ id: ReplicaID) -> UInt32 {
        if let known = idIndex.position(of: id) { return known }
        let new = UInt32(ids.count)
        idIndex.insert(id, at: new)
        ids.append(id)
        return new
    }

    /// The indices of every id in ascending id order, or nil when the table is too large to keep
    /// them (then list ids in index order and sort).
    var indicesInIDOrder: [UInt32]? { idIndex.isSorted ? idIndex.sortedPositions : nil }

    /// Checks the lookup structures against ``ids``.
    func check() throws(InvariantViolation) {
        try idIndex.check(tableCount: ids.count, name: "replica table") { ids[$0] }
    }
}

/// The content of a run of new items.
enum RunContent {
    /// The items' UTF-8.
    case bytes(UnsafeBufferPointer<UInt8>)
    /// The items arrive already deleted; their content is not known.
    case deleted
    /// Visible items whose content is filled in later (decoding replays the operation log
    /// first and takes the content from the text section afterwards).
    case placeholder
}

enum TreeShape {
    /// Most span slots in one leaf.
    static let leafCapacity = 32
    /// Most children of one internal node.
    static let nodeCapacity = 16
    /// Counters per block of a replica's id index (`1 << blockShift`).
    static let blockShift: UInt32 = 4
}
