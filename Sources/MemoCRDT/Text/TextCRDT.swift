/// A collaborative plain text: a sequence CRDT using the FugueMax ordering rule.
///
/// Every replica holds its own `TextCRDT` and edits it locally, by UTF-16 offsets (what `NSRange`
/// and UIKit use) or by Unicode scalar offsets. Replicas exchange their changes as ``TextDelta``
/// values (or whole texts with ``merge(_:)``); once two replicas hold the same operations they
/// hold the same text, whatever order the operations arrived in.
///
/// FugueMax (Weidner and Kleppmann, "The Art of the Fugue", 2023) is *maximally
/// non-interleaving*: when two replicas type at the same place concurrently, forwards or
/// backwards, their runs of text end up one after the other, never shuffled together.
/// Concurrent insertions at the same place are ordered by replica id.
///
/// ```swift
/// var alice = TextCRDT(replica: ReplicaID(1))
/// try alice.insert("Hello world", atUTF16: 0)
/// var bob = alice.fork(replica: ReplicaID(2))
/// try alice.insert(",", atUTF16: 5)
/// try bob.replace(utf16Range: 6..<11, with: "there")
/// try alice.apply(bob.changes(since: alice.version))
/// try bob.apply(alice.changes(since: bob.version))
/// // alice.string == bob.string == "Hello, there"
/// ```
///
/// `TextCRDT` is a value: copies are independent and copying is O(1) until one copy is changed.
/// It is pure: no clock, no randomness, no I/O.
///
/// - Complexity: with n items (tombstones included) and r runs: a local edit, a remote insertion,
///   and an offset conversion are O(log r) plus the length of the edit; reading ``string`` is O(n).
public struct TextCRDT: Sendable {
    /// The replica that local edits are attributed to.
    public internal(set) var replica: ReplicaID

    @usableFromInline var replicaTable = ReplicaTable()
    @usableFromInline var logs: [ReplicaLog] = []
    @usableFromInline var spans: [Span] = []
    @usableFromInline var freeSpanSlots: [UInt32] = []
    @usableFromInline var leafHeaders: [LeafHeader] = []
    @usableFromInline var leafSlots: [UInt32] = []
    @usableFromInline var nodeHeaders: [NodeHeader] = []
    @usableFromInline var nodeEntries: [NodeEntry] = []
    @usableFromInline var root: UInt32 = 0
    @usableFromInline var firstLeaf: UInt32 = 0
    @usableFromInline var content: [UInt8] = []
    /// Bytes of `content` no visible span refers to.
    @usableFromInline var contentGarbageBytes: Int = 0
    /// The content of deleted items this text still retains (history; FORMAT.md, "Text state,
    /// version 3"). Never part of the text's operations: two texts with the same operations are
    /// the same text whatever each retains.
    @usableFromInline var retained = RetainedContent()
    /// Operations received before their dependencies, in arrival order.
    @usableFromInline var pending: [TextDelta.Run] = []
    @usableFromInline var localReplicaIndex: UInt32 = 0
    /// Everything in the text, summed (the root's entries).
    @usableFromInline var totalCounts = Counts()
    /// The leaf the last edit touched, what lies before it, and what it holds: lets a run of
    /// edits in one leaf skip the descent from the root. `noIndex` when not valid. Any count
    /// change in another leaf, and any split, invalidates it.
    @usableFromInline var cursorLeaf: UInt32 = noIndex
    @usableFromInline var cursorLeafStart = Counts()
    @usableFromInline var cursorLeafCounts = Counts()
    /// Where the last local insertion ended: its span and the visible scalar offset after it.
    /// Typing at that offset again extends the span without searching. Every other mutation
    /// clears it.
    @usableFromInline var typingCursor: (slot: UInt32, offsetScalars: Int)?
    #if MEMOSYNC_INTERNAL_CHECKS
    /// Mutations so far, to space out the O(n) invariant checks of debug builds.
    var debugMutationCount = 0
    #endif

    /// Whether deleting text keeps its content (so the text at earlier versions can be shown:
    /// ``string(at:)``). Off by default. Local configuration: not encoded, not compared; content
    /// already retained is kept (and encoded) either way until dropped.
    public var keepsDeletedContent = false

    /// The highest Lamport timestamp of any operation this text holds. The next local operation
    /// gets a higher one.
    public internal(set) var lamport: UInt64 = 0

    /// Creates an empty text whose local edits are attributed to `replica`.
    public init(replica: ReplicaID) {
        self.replica = replica
        leafHeaders = [LeafHeader(count: 0, parentEntry: 0, parent: 0, next: noIndex, previous: noIndex)]
        leafSlots = Array(repeating: noIndex, count: TreeShape.leafCapacity)
        nodeHeaders = [NodeHeader(count: 1, parentEntry: 0, height: 1, parent: noIndex)]
        nodeEntries = Array(repeating: NodeEntry(child: noIndex, counts: Counts()), count: TreeShape.nodeCapacity)
        nodeEntries[0] = NodeEntry(child: 0, counts: Counts())
        root = 0
        firstLeaf = 0
        localReplicaIndex = replicaTable.intern(replica)
        logs = [ReplicaLog()]
        checkInvariantsIfEnabled()
    }

    /// The visible text.
    ///
    /// - Complexity: O(n) in the length of the text.
    public var string: String {
        String(decoding: visibleBytes(), as: UTF8.self)
    }

    /// The visible text's UTF-8, in document order.
    ///
    /// - Complexity: O(n) in the length of the text.
    package func visibleBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(content.count - contentGarbageBytes)
        // The content read through one buffer pointer: a slice of the array per span retained
        // and released its storage each time (a percent of a long simulation, which compares
        // every text after each change).
        content.withUnsafeBufferPointer { content in
            var leaf = firstLeaf
            while leaf != noIndex {
                for slot in slots(of: leaf) where !spans[slot].isDeleted {
                    let start = Int(spans[slot].contentOffset)
                    let end = start + Int(spans[slot].lengthUTF8)
                    precondition(end <= content.count, "a span's content within the text's")
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: content[start..<end]))
                }
                leaf = leafHeaders[leaf].next
            }
        }
        return bytes
    }

    /// The length of the visible text in UTF-16 code units.
    public var lengthUTF16: Int { totalCounts.utf16 }

    /// The length of the visible text in Unicode scalars.
    public var lengthScalars: Int { totalCounts.scalars }

    /// True when no visible text is left (there may still be deleted items).
    public var isEmpty: Bool { totalCounts.scalars == 0 }

    /// How many operations this text holds, from all replicas, deletions included.
    public var operationCount: Int { logs.reduce(0) { $0 + Int($1.operationCount) } }

    /// How many operations of this text's own ``replica`` it holds (its entry in ``version``,
    /// without a lookup): the counter of the next local operation.
    ///
    /// - Complexity: O(1).
    package var localOperationCount: UInt32 { logs[Int(localReplicaIndex)].operationCount }

    /// How many operations are held back until their causal dependencies arrive.
    public var pendingOperationCount: Int { pending.reduce(0) { $0 + Int($1.length) } }

    /// The operations this text holds: for each replica, how many of its operations.
    ///
    /// - Complexity: O(r) for r replicas (listed in id order: nothing to sort), O(r log r) past
    ///   `ReplicaTable.sortedCapacity` replicas.
    public var version: VersionVector {
        let ids = replicaTable.ids
        return VersionVector(
            entries: replicaIndicesInIDOrder.map { index in
                VersionVector.Entry(replica: ids[Int(index)], operationCount: logs[Int(index)].operationCount)
            })
    }

    /// Every replica index, in ascending replica id order when the table keeps that order (else
    /// in index order).
    private var replicaIndicesInIDOrder: [UInt32] {
        replicaTable.indicesInIDOrder ?? (0..<UInt32(replicaTable.ids.count)).map { $0 }
    }

    /// For each replica, one past the counter of its last insertion: the operations up to there
    /// include every character it ever inserted. (A version that includes this one has seen all
    /// the text anyone typed; only deletions may be missing.)
    ///
    /// - Complexity: as ``version``.
    public var insertionVersion: VersionVector {
        let ids = replicaTable.ids
        return VersionVector(
            entries: replicaIndicesInIDOrder.compactMap { index in
                let lastSpan = logs[Int(index)].lastSpan
                return lastSpan == noIndex ? nil : VersionVector.Entry(replica: ids[Int(index)], operationCount: spans[lastSpan].end)
            })
    }

    /// Whether `seen` includes every character anyone inserted: `insertionVersion.isIncluded(in:
    /// seen)`, without building the version.
    ///
    /// - Complexity: O(r + s) for r replicas here and s in `seen`, with no allocation (as
    ///   ``insertionVersion`` past `ReplicaTable.sortedCapacity` replicas).
    public func insertionsAreIncluded(in seen: VersionVector) -> Bool {
        guard let sortedIndices = replicaTable.indicesInIDOrder else { return insertionVersion.isIncluded(in: seen) }
        let entries = seen.entries
        var position = 0
        for index in sortedIndices {
            let lastSpan = logs[Int(index)].lastSpan
            if lastSpan == noIndex { continue }
            let id = replicaTable.ids[Int(index)]
            while position < entries.count && entries[position].replica < id { position += 1 }
            guard position < entries.count, entries[position].replica == id,
                entries[position].operationCount >= spans[lastSpan].end
            else { return false }
        }
        return true
    }

    /// A copy of this text whose local edits are attributed to `replica`.
    ///
    /// `replica` must not be used by any other copy; a shared replica id would give two different
    /// operations the same id.
    public func fork(replica: ReplicaID) -> TextCRDT {
        var copy = self
        copy.replica = replica
        copy.localReplicaIndex = copy.internReplica(replica)
        return copy
    }

    /// Raises this text's Lamport clock to at least `timestamp`, so the next local operation is
    /// ordered after it. A notebook uses this to keep one clock across many texts.
    ///
    /// The clock never goes past its limit, 2^48 − 2^16: a larger `timestamp` raises it to the
    /// limit, after which local edits throw ``TextError/clockExhausted`` (no state can hold an
    /// operation timestamped past it).
    public mutating func observeLamport(_ timestamp: UInt64) {
        lamport = max(lamport, min(timestamp, Limits.lamportMax))
    }

    /// Sets the clock back to `timestamp`, what it was before ``observeLamport(_:)`` raised it
    /// for an edit that then made no operation (a notebook's failed edit changes nothing, not
    /// even the clock). Cheaper than keeping a copy of the text to put back: a copy held while
    /// the text is edited makes every array the edit touches a copy of its own (issue 30: a
    /// whole text copied at every keystroke).
    package mutating func restoreLamport(_ timestamp: UInt64) {
        precondition(timestamp <= lamport, "a clock is only set back to what it was")
        lamport = timestamp
    }

    @usableFromInline mutating func internReplica(_ id: ReplicaID) -> UInt32 {
        if let index = replicaTable.index(of: id) { return index }
        let index = replicaTable.intern(id)
        logs.append(ReplicaLog())
        return index
    }
}
