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

    /// This delta cut into pieces of at most `maxOperations` operations each (a longer run is
    /// a piece of its own), for a caller that applies a large delta in steps with other work
    /// between them (a sync merging what it received while the user types).
    ///
    /// Each piece holds consecutive runs of one replica, with exactly the text operations they
    /// stand for, so for each replica the pieces are successive counter ranges: applied in
    /// order, every piece builds only on what the notebook held and the pieces before it, and
    /// the pieces give the notebook what the whole delta gives (apply is commutative and
    /// idempotent; a piece whose operations wait for something is held back as any delta is).
    /// A delta of at most `maxOperations` operations is one piece, itself.
    ///
    /// - Complexity: O(r log r + t) for r runs and the text operations t of the memos they touch.
    package func pieces(maxOperations: Int) -> [NotebookDelta] {
        guard operationCount > maxOperations else { return [self] }
        var pieces: [NotebookDelta] = []
        var start = 0
        while start < runs.count {
            let replica = runs[start].replica
            var end = start
            var operations = 0
            while end < runs.count, runs[end].replica == replica,
                end == start || operations + Int(runs[end].run.length) <= maxOperations
            {
                operations += Int(runs[end].run.length)
                end += 1
            }
            // A replica's text operations on one memo are counted in the order of its notebook
            // operations, so the piece's text runs of a memo are one range of text counters
            // that no other piece's runs reach into.
            var textRanges: [MemoID: Range<UInt32>] = [:]
            for item in runs[start..<end] {
                guard case let .text(textCounter) = item.run.kind else { continue }
                let range = textCounter..<textCounter + item.run.length
                if let known = textRanges[item.run.memo] {
                    textRanges[item.run.memo] = min(known.lowerBound, range.lowerBound)..<max(known.upperBound, range.upperBound)
                } else {
                    textRanges[item.run.memo] = range
                }
            }
            let texts = textRanges.keys.sorted().map { memo in
                (memo: memo, delta: text(for: memo).restricted(to: replica, counters: textRanges[memo]!))
            }
            pieces.append(NotebookDelta(runs: Array(runs[start..<end]), texts: texts))
            start = end
        }
        return pieces
    }

    public static func == (lhs: NotebookDelta, rhs: NotebookDelta) -> Bool {
        lhs.runs == rhs.runs && lhs.texts.count == rhs.texts.count
            && zip(lhs.texts, rhs.texts).allSatisfy { $0.memo == $1.memo && $0.delta == $1.delta }
    }
}
