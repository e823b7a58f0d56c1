import MemoCRDT

/// FugueMax in its *tree* form, written from the definition in Weidner and Kleppmann, "The Art
/// of the Fugue" (2023), as a test oracle for ``TextCRDT``. Plain arrays, no cleverness: every
/// edit and query is O(n) or worse, and that is fine.
///
/// `TextCRDT` stores each item's list-form origins (the items it was inserted between) and places
/// remote items with a YjsMod-style scan. This model stores the tree instead and reads the
/// document order off a traversal, so the two are independent implementations of one order.
///
/// The tree
/// --------
/// Every scalar is a node with a parent (the root stands for the start of the text) and a side.
/// Local insertion at visible index `i`:
/// - `a` is the visible node at `i - 1` (the root for `i == 0`), and `b` the node right after `a`
///   in the traversal, tombstones included (nil: the end of the text).
/// - If `a` has no right children, the new node is a right child of `a` and remembers
///   `rightOrigin = b`. Otherwise `b` is the leftmost descendant of `a`'s first right child, and
///   the new node is a left child of `b`.
///
/// Sibling order:
/// - left children ascending by id `(replica, counter)`;
/// - right children in *reverse* document order of their `rightOrigin` (the end of the text
///   counts as furthest right, so those come first), ties ascending by id.
///
/// Document order is the traversal: left children, the node, right children. (The order is kept
/// in an array that each new leaf is inserted into, since a new leaf moves no other node;
/// ``treeProblems()`` recomputes the traversal from scratch and checks the two agree.)
///
/// Ids are numbered exactly as `TextCRDT` numbers them: each replica counts its operations 0, 1,
/// 2, ... densely; inserting m scalars takes m counters (left to right) and deleting k visible
/// scalars takes k counters (in document order).
///
/// Every operation a replica holds is kept in its log, in the (causal) order it was applied, so
/// reference replicas merge by exchanging the operations they lack.
public struct ReferenceFugueMax: Sendable {
    /// Which child list of its parent a node is in.
    public enum Side: Sendable, Equatable, CustomStringConvertible {
        case left, right

        public var description: String { self == .left ? "L" : "R" }
    }

    /// One operation, as a replica broadcasts it.
    public enum Operation: Sendable, Equatable, CustomStringConvertible {
        /// A new node: child of `parent` (nil: the root) on `side`. `rightOrigin` is set for
        /// right children only (nil: the end of the text).
        case insert(id: OperationID, scalar: Unicode.Scalar, parent: OperationID?, side: Side, rightOrigin: OperationID?)
        /// Marks the node `target` deleted.
        case delete(id: OperationID, target: OperationID)

        /// The operation's own id.
        public var id: OperationID {
            switch self {
            case let .insert(id, _, _, _, _): id
            case let .delete(id, _): id
            }
        }

        /// Ids of the insertions this operation refers to.
        public var referencedNodes: [OperationID] {
            switch self {
            case let .insert(_, _, parent, _, rightOrigin): [parent, rightOrigin].compactMap { $0 }
            case let .delete(_, target): [target]
            }
        }

        public var description: String {
            switch self {
            case let .insert(id, scalar, parent, side, rightOrigin):
                let parentText = parent.map { "\($0)" } ?? "root"
                let originText = side == .right ? " rightOrigin " + (rightOrigin.map { "\($0)" } ?? "end") : ""
                return "insert \(id) \(scalar.escaped(asASCII: true)) as \(side) child of \(parentText)\(originText)"
            case let .delete(id, target):
                return "delete \(id) -> \(target)"
            }
        }
    }

    struct Node: Sendable {
        /// nil for the root.
        var id: OperationID?
        var scalar: Unicode.Scalar
        var isDeleted: Bool
        /// Index of the parent in `nodes`; -1 for the root.
        var parent: Int
        var side: Side
        /// Index in `nodes` of the right origin (right children only); nil: the end.
        var rightOrigin: Int?
        /// Child indexes, each list kept in sibling order.
        var leftChildren: [Int] = []
        var rightChildren: [Int] = []
    }

    /// The replica local edits are attributed to.
    public let replica: ReplicaID
    /// Every operation held, in the order applied (a causal order).
    public private(set) var log: [Operation] = []
    /// Operations held per replica (each replica's counters are dense).
    private var counts: [ReplicaID: UInt32] = [:]
    /// `nodes[0]` is the root.
    private var nodes: [Node]
    private var nodeByID: [OperationID: Int] = [:]
    /// Document order of all nodes, root first. Kept up to date as nodes are added (a new node
    /// is a leaf, so it goes in one place and moves nothing); `treeProblems()` checks it against
    /// a full traversal.
    private var order: [Int]
    private var visibleCount = 0

    /// An empty text whose local edits are attributed to `replica`.
    public init(replica: ReplicaID) {
        self.replica = replica
        nodes = [Node(id: nil, scalar: " ", isDeleted: true, parent: -1, side: .right, rightOrigin: nil)]
        order = [0]
    }

    /// A copy whose local edits are attributed to `replica` (which no other copy may use).
    public func fork(replica: ReplicaID) -> ReferenceFugueMax {
        var copy = ReferenceFugueMax(replica: replica)
        copy.log = log
        copy.counts = counts
        copy.nodes = nodes
        copy.nodeByID = nodeByID
        copy.order = order
        copy.visibleCount = visibleCount
        return copy
    }

    // MARK: Reading

    /// The visible text.
    public var text: String { visibleScalars.string }

    /// The visible scalars in document order.
    public var visibleScalars: [Unicode.Scalar] {
        order.filter { !nodes[$0].isDeleted }.map { nodes[$0].scalar }
    }

    /// Number of visible scalars.
    public var lengthScalars: Int { visibleCount }

    /// Node ids in document order, tombstones included or not.
    public func itemIDs(includingDeleted: Bool) -> [OperationID] {
        order.filter { $0 != 0 && (includingDeleted || !nodes[$0].isDeleted) }.map { nodes[$0].id! }
    }

    /// Every node in document order with its deletion flag.
    public var items: [(id: OperationID, isDeleted: Bool)] {
        order.dropFirst().map { (nodes[$0].id!, nodes[$0].isDeleted) }
    }

    /// How many operations this replica holds, per replica.
    public var version: VersionVector { VersionVector(counts) }

    /// Total operations held.
    public var operationCount: Int { log.count }

    /// Whether operation `id` is held.
    public func holds(_ id: OperationID) -> Bool { id.counter < counts[id.replica, default: 0] }

    /// The operations held that `version` does not include, in a causal order.
    public func operations(notIn version: VersionVector) -> [Operation] {
        log.filter { !version.includes($0.id) }
    }

    // MARK: Local editing

    /// Inserts `scalars` at visible index `index`, one node per scalar, left to right: scalar k
    /// is a local insertion at visible index `index + k`, right after scalar k - 1.
    public mutating func insert(_ scalars: [Unicode.Scalar], at index: Int) {
        precondition(index >= 0 && index <= lengthScalars, "insert index \(index) out of 0...\(lengthScalars)")
        var a = index == 0 ? 0 : order.filter { !nodes[$0].isDeleted }[index - 1]
        for scalar in scalars {
            a = insertOne(scalar, after: a)
        }
    }

    /// Inserts `text`'s scalars at visible index `index`.
    public mutating func insert(_ text: String, at index: Int) {
        insert(Array(text.unicodeScalars), at: index)
    }

    /// Deletes the visible scalars in `range`, one operation per scalar in document order.
    public mutating func delete(range: Range<Int>) {
        let visible = order.filter { !nodes[$0].isDeleted }
        precondition(range.lowerBound >= 0 && range.upperBound <= visible.count, "delete range out of bounds")
        for node in visible[range] {
            let op = Operation.delete(id: nextLocalID(), target: nodes[node].id!)
            apply(op)
        }
    }

    private func nextLocalID() -> OperationID {
        OperationID(replica: replica, counter: counts[replica, default: 0])
    }

    /// Inserts one scalar right after `a`, the visible node before the insertion point (or the
    /// root at the start); returns the new node.
    private mutating func insertOne(_ scalar: Unicode.Scalar, after a: Int) -> Int {
        let positionOfA = position(of: a)
        // The next node after `a` in the traversal, tombstones included.
        let b: Int? = positionOfA + 1 < order.count ? order[positionOfA + 1] : nil
        let op: Operation
        if nodes[a].rightChildren.isEmpty {
            op = .insert(
                id: nextLocalID(), scalar: scalar, parent: nodes[a].id, side: .right,
                rightOrigin: b.map { nodes[$0].id! })
        } else {
            var leftmost = nodes[a].rightChildren[0]
            while let first = nodes[leftmost].leftChildren.first { leftmost = first }
            precondition(b == leftmost, "the node after a node with right children is the leftmost descendant of its first right child")
            op = .insert(id: nextLocalID(), scalar: scalar, parent: nodes[leftmost].id, side: .left, rightOrigin: nil)
        }
        apply(op)
        return nodeByID[op.id]!
    }

    // MARK: Remote operations

    /// Whether `op` can be applied now: not held yet, the replica's previous operation held, and
    /// every node it refers to present.
    public func isDeliverable(_ op: Operation) -> Bool {
        let id = op.id
        guard id.counter == counts[id.replica, default: 0] else { return false }
        return op.referencedNodes.allSatisfy { nodeByID[$0] != nil }
    }

    /// Applies one deliverable operation (local or remote).
    public mutating func apply(_ op: Operation) {
        precondition(isDeliverable(op), "operation \(op) is not deliverable")
        switch op {
        case let .insert(id, scalar, parentID, side, rightOriginID):
            let parent = parentID.map { nodeByID[$0]! } ?? 0
            let rightOrigin = rightOriginID.map { nodeByID[$0]! }
            precondition(side == .right || parent != 0, "the root has no left children")
            var node = Node(id: id, scalar: scalar, isDeleted: false, parent: parent, side: side, rightOrigin: nil)
            let slot: Int
            switch side {
            case .left:
                slot = nodes[parent].leftChildren.firstIndex { id < nodes[$0].id! } ?? nodes[parent].leftChildren.count
            case .right:
                node.rightOrigin = rightOrigin
                let siblings = nodes[parent].rightChildren
                // Right origins are compared by their place in the current document order (the
                // new node is not in the tree yet, and adding it moves no other node).
                slot = siblings.firstIndex {
                    precedesAsRightSibling((id, rightOrigin), (nodes[$0].id!, nodes[$0].rightOrigin)) { position(of: $0) }
                } ?? siblings.count
            }
            let siblings = side == .left ? nodes[parent].leftChildren : nodes[parent].rightChildren
            // Where the new leaf goes in the traversal: just before the subtree of its next
            // sibling, or, as the last left child, just before its parent, or, as the last right
            // child, just after the last node of its parent's subtree.
            let place: Int
            if slot < siblings.count {
                place = position(of: firstInSubtree(siblings[slot]))
            } else if side == .left {
                place = position(of: parent)
            } else {
                place = position(of: lastInSubtree(parent)) + 1
            }
            let index = nodes.count
            nodes.append(node)
            nodeByID[id] = index
            if side == .left {
                nodes[parent].leftChildren.insert(index, at: slot)
            } else {
                nodes[parent].rightChildren.insert(index, at: slot)
            }
            order.insert(index, at: place)
            visibleCount += 1
        case let .delete(_, target):
            let node = nodeByID[target]!
            if !nodes[node].isDeleted {
                nodes[node].isDeleted = true
                visibleCount -= 1
            }
        }
        counts[op.id.replica] = op.id.counter + 1
        log.append(op)
    }

    /// Whether a right child with `(id, rightOrigin)` comes before its sibling `other`, given
    /// where each node is in document order.
    private func precedesAsRightSibling(
        _ node: (id: OperationID, rightOrigin: Int?), _ other: (id: OperationID, rightOrigin: Int?),
        position: (Int) -> Int
    ) -> Bool {
        // The end of the text is furthest right.
        let mine = node.rightOrigin.map(position) ?? Int.max
        let theirs = other.rightOrigin.map(position) ?? Int.max
        if mine != theirs { return mine > theirs }
        return node.id < other.id
    }

    /// Applies every operation of `other` this replica lacks, each once its dependencies are in.
    public mutating func merge(from other: ReferenceFugueMax) {
        deliver(other.log)
    }

    /// Applies the operations of `ops` not held yet, in dependency order (any order given).
    public mutating func deliver(_ ops: [Operation]) {
        var waiting = ops.filter { !holds($0.id) }
        while !waiting.isEmpty {
            var blocked: [Operation] = []
            for op in waiting where !holds(op.id) {
                if isDeliverable(op) { apply(op) } else { blocked.append(op) }
            }
            precondition(blocked.count < waiting.count, "operations with missing dependencies: \(blocked)")
            waiting = blocked
        }
    }

    // MARK: Traversal

    private func position(of node: Int) -> Int { order.firstIndex(of: node)! }

    /// The first node of `node`'s subtree in document order: follow first left children.
    private func firstInSubtree(_ node: Int) -> Int {
        var current = node
        while let first = nodes[current].leftChildren.first { current = first }
        return current
    }

    /// The last node of `node`'s subtree in document order: follow last right children.
    private func lastInSubtree(_ node: Int) -> Int {
        var current = node
        while let last = nodes[current].rightChildren.last { current = last }
        return current
    }

    /// The document order of all nodes computed from scratch, root first: left children, the
    /// node, right children, recursively.
    private func fullTraversal() -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(nodes.count)
        enum Step { case visit(Int), emit(Int) }
        var stack: [Step] = [.visit(0)]
        while let step = stack.popLast() {
            switch step {
            case let .emit(node):
                result.append(node)
            case let .visit(node):
                for child in nodes[node].rightChildren.reversed() { stack.append(.visit(child)) }
                stack.append(.emit(node))
                for child in nodes[node].leftChildren.reversed() { stack.append(.visit(child)) }
            }
        }
        return result
    }

    // MARK: Self-checks and debugging

    /// Checks the tree against the rules: parent links, every node reached once, the root with
    /// no left children, left children with no right origin, sibling lists in FugueMax order.
    /// Returns the problems found (empty when none).
    public func treeProblems() -> [String] {
        var problems: [String] = []
        let traversal = fullTraversal()
        if traversal != order { problems.append("the maintained order is not the traversal") }
        if traversal.count != nodes.count { problems.append("traversal reaches \(traversal.count) of \(nodes.count) nodes") }
        if Set(traversal).count != traversal.count { problems.append("traversal repeats nodes") }
        var position = Array(repeating: -1, count: nodes.count)
        for (place, node) in traversal.enumerated() { position[node] = place }
        if visibleCount != nodes.filter({ !$0.isDeleted }).count { problems.append("visible count") }
        if !nodes[0].leftChildren.isEmpty { problems.append("root has left children") }
        for (index, node) in nodes.enumerated() {
            for child in node.leftChildren where nodes[child].parent != index || nodes[child].side != .left {
                problems.append("left child link \(index) -> \(child)")
            }
            for child in node.rightChildren where nodes[child].parent != index || nodes[child].side != .right {
                problems.append("right child link \(index) -> \(child)")
            }
            for (first, second) in zip(node.leftChildren, node.leftChildren.dropFirst())
            where !(nodes[first].id! < nodes[second].id!) {
                problems.append("left children of \(index) out of order")
            }
            for (first, second) in zip(node.rightChildren, node.rightChildren.dropFirst())
            where !precedesAsRightSibling(
                (nodes[first].id!, nodes[first].rightOrigin), (nodes[second].id!, nodes[second].rightOrigin),
                position: { position[$0] })
            {
                problems.append("right children of \(index) out of order")
            }
            if let origin = node.rightOrigin, position[origin] <= position[index] {
                problems.append("right origin of \(index) is not after it")
            }
        }
        return problems
    }

    /// The tree, one node per line, indented by depth, in document order.
    public var treeDescription: String {
        var lines: [String] = []
        for node in order where node != 0 {
            var depth = 0
            var ancestor = nodes[node].parent
            while ancestor > 0 {
                depth += 1
                ancestor = nodes[ancestor].parent
            }
            let item = nodes[node]
            let origin = item.side == .right ? " ro " + (item.rightOrigin.map { "\(nodes[$0].id!)" } ?? "end") : ""
            lines.append(
                String(repeating: "  ", count: depth)
                    + "\(item.side) \(item.id!) '\(item.scalar.escaped(asASCII: true))'\(item.isDeleted ? " (deleted)" : "")\(origin)")
        }
        return lines.joined(separator: "\n")
    }
}

// MARK: Comparing with TextCRDT

extension ReferenceFugueMax {
    /// How `text` differs from this reference: the version, the full item order with deletion flags (when
    /// `items` is true), the visible scalars, and the lengths. nil when they agree.
    public func difference(from text: TextCRDT, items compareItems: Bool = true) -> String? {
        if text.version != version {
            return "versions differ: reference \(version), text \(text.version)"
        }
        if compareItems {
            let expected = items
            let actual = text.itemsInDocumentOrder
            let common = min(expected.count, actual.count)
            let firstDifference = (0..<common).first {
                expected[$0].id != actual[$0].id || expected[$0].isDeleted != actual[$0].isDeleted
            }
            if let index = firstDifference ?? (expected.count != actual.count ? common : nil) {
                func window(_ list: [(id: OperationID, isDeleted: Bool)]) -> String {
                    let range = max(0, index - 3)..<min(list.count, index + 4)
                    return list[range].map { "\($0.id)\($0.isDeleted ? "x" : "")" }.joined(separator: " ")
                }
                return "item order differs at \(index) (reference \(expected.count) items, text \(actual.count)):\n"
                    + "  reference: \(window(expected))\n  text:      \(window(actual))"
            }
        }
        let expectedScalars = visibleScalars
        let actualScalars = Array(text.string.unicodeScalars)
        if expectedScalars != actualScalars {
            return "text differs: reference \(expectedScalars.string.debugDescription), text \(text.string.debugDescription)"
        }
        let utf16 = expectedScalars.reduce(0) { $0 + ($1.value > 0xFFFF ? 2 : 1) }
        if text.lengthScalars != expectedScalars.count || text.lengthUTF16 != utf16 {
            return "lengths differ: text \(text.lengthScalars) scalars \(text.lengthUTF16) UTF-16, "
                + "reference \(expectedScalars.count) scalars \(utf16) UTF-16"
        }
        return nil
    }
}
