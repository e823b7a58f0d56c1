import MemoCRDT
/// Notebook operations to send to another replica: what ``Notebook/changes(since:)`` returns and
/// ``Notebook/apply(_:)`` takes.
///
/// It holds the notebook operation runs the receiver lacks and, for each memo they touch, the
/// text operations behind them, and nothing about other memos: the delta for one edit is as large
/// as that edit, whatever the size of the notebook.
public struct NotebookDelta: Sendable, Equatable {
    /// A notebook operation run with its replica.
    @usableFromInline
    struct ReplicaRun: Sendable, Equatable {
        var replica: ReplicaID
        var run: NotebookRun
    }

    /// Runs sorted by replica, then counter.
    @usableFromInline var runs: [ReplicaRun]
    /// For each memo with text runs, the text operations they stand for; sorted by memo id.
    @usableFromInline var texts: [(memo: MemoID, delta: TextDelta)]

    /// An empty delta.
    public init() {
        runs = []
        texts = []
    }

    init(runs: [ReplicaRun], texts: [(memo: MemoID, delta: TextDelta)]) {
        self.runs = runs
        self.texts = texts
    }

    /// True when the delta holds no operations.
    public var isEmpty: Bool { runs.isEmpty }

    /// How many notebook operations the delta holds (one per text operation, plus one per
    /// create, trash, restore and purge).
    public var operationCount: Int { runs.reduce(0) { $0 + Int($1.run.length) } }

    /// The memos the delta touches, in id order.
    public var memos: [MemoID] {
        var ids = runs.map(\.run.memo)
        ids.sort()
        var unique: [MemoID] = []
        for id in ids where unique.last != id { unique.append(id) }
        return unique
    }

    /// For each replica, the highest notebook counter in this delta plus one.
    public var upperVersion: VersionVector {
        VersionVector(entries: runs.map { VersionVector.Entry(replica: $0.replica, operationCount: $0.run.end) })
    }

    /// The text operations for `memo`.
    func text(for memo: MemoID) -> TextDelta {
        textIndex(for: memo).map { texts[$0].delta } ?? TextDelta()
    }

    /// Where the text operations for `memo` are in ``texts``, if it has some.
    ///
    /// - Complexity: O(log m) for m memos with text operations.
    func textIndex(for memo: MemoID) -> Int? {
        let index = texts.partitioningIndex { $0.memo >= memo }
        return index < texts.count && texts[index].memo == memo ? index : nil
    }

    public static func == (lhs: NotebookDelta, rhs: NotebookDelta) -> Bool {
        lhs.runs == rhs.runs && lhs.texts.count == rhs.texts.count
            && zip(lhs.texts, rhs.texts).allSatisfy { $0.memo == $1.memo && $0.delta == $1.delta }
    }
}
