// The document-order B+tree: descending by offset, counting what lies before a leaf, inserting
// span slots into leaves and splitting full leaves and nodes.
//
// Layout: leaves and internal nodes live in flat arrays with a fixed-size region each, so the
// whole tree is a handful of arrays (one uniqueness check per write, no pointer chasing):
//
//   leafSlots[leaf * leafCapacity ..< leaf * leafCapacity + leafHeaders[leaf].count]
//   nodeEntries[node * nodeCapacity ..< node * nodeCapacity + nodeHeaders[node].count]
//
// Every leaf and node records its parent and its entry's index there (`parentEntry`), so walking
// up to add counts or to sum what lies before needs no searching. Leaves never empty out (spans
// are only merged into a neighbour in the same leaf), so there is no rebalancing on removal.

extension Array {
    /// Element access by a 32-bit index, the width the text's internal links use.
    @inline(__always)
    subscript(_ index: UInt32) -> Element {
        // Borrowed, not copied: reading one field of a log must not retain its arrays.
        _read { yield self[Int(index)] }
        _modify { yield &self[Int(index)] }
    }
}

/// A span in a leaf: the leaf, the slot's index in the leaf, and the slot.
@usableFromInline
struct SpanLocation: Equatable {
    var leaf: UInt32
    var index: Int
    var slot: UInt32
}

extension TextCRDT {
    // MARK: Reading the layout

    @inline(__always) func slotCount(of leaf: UInt32) -> Int { Int(leafHeaders[leaf].count) }

    @inline(__always) func slot(in leaf: UInt32, at index: Int) -> UInt32 {
        leafSlots[Int(leaf) * TreeShape.leafCapacity + index]
    }

    /// The slots of `leaf`, in document order.
    func slots(of leaf: UInt32) -> ArraySlice<UInt32> {
        let base = Int(leaf) * TreeShape.leafCapacity
        return leafSlots[base..<base + slotCount(of: leaf)]
    }

    @inline(__always) func entryCount(of node: UInt32) -> Int { Int(nodeHeaders[node].count) }

    @inline(__always) func entry(of node: UInt32, at index: Int) -> NodeEntry {
        nodeEntries[Int(node) * TreeShape.nodeCapacity + index]
    }

    // MARK: Positions

    /// Everything before `leaf` in document order, summed.
    ///
    /// - Complexity: O(log r).
    func countsBefore(leaf: UInt32) -> Counts {
        if leaf == cursorLeaf { return cursorLeafStart }
        return countsBeforeUncached(leaf: leaf)
    }

    func countsBeforeUncached(leaf: UInt32) -> Counts {
        var total = Counts()
        var parent = leafHeaders[leaf].parent
        var entryIndex = Int(leafHeaders[leaf].parentEntry)
        while parent != noIndex {
            let base = Int(parent) * TreeShape.nodeCapacity
            for index in 0..<entryIndex { total += nodeEntries[base + index].counts }
            entryIndex = Int(nodeHeaders[parent].parentEntry)
            parent = nodeHeaders[parent].parent
        }
        return total
    }

    /// Everything before the span at `location`, summed.
    func countsBefore(_ location: SpanLocation) -> Counts {
        var total = countsBefore(leaf: location.leaf)
        for index in 0..<location.index { total += spans[slot(in: location.leaf, at: index)].counts }
        return total
    }

    /// Adds `delta` to the counts of `leaf` and all its ancestors.
    ///
    /// - Complexity: O(log r).
    mutating func addCounts(_ delta: Counts, toLeaf leaf: UInt32) {
        totalCounts += delta
        if leaf == cursorLeaf {
            cursorLeafCounts += delta
        } else {
            cursorLeaf = noIndex
        }
        var parent = leafHeaders[leaf].parent
        var entryIndex = Int(leafHeaders[leaf].parentEntry)
        while parent != noIndex {
            nodeEntries[Int(parent) * TreeShape.nodeCapacity + entryIndex].counts += delta
            entryIndex = Int(nodeHeaders[parent].parentEntry)
            parent = nodeHeaders[parent].parent
        }
    }

    /// The location of `slot` in its leaf.
    func location(ofSlot slot: UInt32) -> SpanLocation {
        let leaf = spans[slot].leaf
        let base = Int(leaf) * TreeShape.leafCapacity
        let count = slotCount(of: leaf)
        precondition(base + count <= leafSlots.count, "leaf \(leaf) outside the slot storage")
        // A plain scan of at most `leafCapacity` slots, without a bounds check per slot (checked
        // once above): this runs for every span an edit, a replay or a merge touches by id.
        let index = leafSlots.withUnsafeBufferPointer { buffer -> Int in
            var index = 0
            while index < count {
                if buffer[base + index] == slot { return index }
                index += 1
            }
            return -1
        }
        precondition(index >= 0, "span \(slot) missing from leaf \(leaf)")
        return SpanLocation(leaf: leaf, index: index, slot: slot)
    }

    /// The span holding the `ordinal`-th visible scalar (1-based) and the scalar's offset in it,
    /// remembering the leaf as the cursor for the next edit.
    ///
    /// - Precondition: `1 <= ordinal <= lengthScalars`.
    /// - Complexity: O(log r); O(1) when the cursor leaf holds it.
    mutating func locateVisibleScalar(ordinal: Int) -> (location: SpanLocation, offset: Int) {
        let (location, offset, leafStart, leafCounts) = findVisibleScalar(ordinal: ordinal)
        cursorLeaf = location.leaf
        cursorLeafStart = leafStart
        cursorLeafCounts = leafCounts
        return (location, offset)
    }

    /// `locateVisibleScalar` without updating the cursor; also returns what lies before the
    /// leaf and what the leaf holds.
    func findVisibleScalar(ordinal: Int) -> (location: SpanLocation, offset: Int, leafStart: Counts, leafCounts: Counts) {
        var remaining = ordinal
        let leaf: UInt32
        var leafStart = Counts()
        var leafCounts = Counts()
        if cursorLeaf != noIndex && ordinal > cursorLeafStart.scalars
            && ordinal <= cursorLeafStart.scalars + cursorLeafCounts.scalars
        {
            leaf = cursorLeaf
            leafStart = cursorLeafStart
            leafCounts = cursorLeafCounts
            remaining -= cursorLeafStart.scalars
        } else {
            var node = root
            while true {
                let base = Int(node) * TreeShape.nodeCapacity
                let last = base + entryCount(of: node) - 1
                var index = base
                while index < last && remaining > nodeEntries[index].counts.scalars {
                    remaining -= nodeEntries[index].counts.scalars
                    leafStart += nodeEntries[index].counts
                    index += 1
                }
                if nodeHeaders[node].height == 1 {
                    leaf = nodeEntries[index].child
                    leafCounts = nodeEntries[index].counts
                    break
                }
                node = nodeEntries[index].child
            }
        }
        let base = Int(leaf) * TreeShape.leafCapacity
        for slotIndex in 0..<slotCount(of: leaf) {
            let slot = leafSlots[base + slotIndex]
            let visible = spans[slot].visibleScalars
            if remaining <= visible {
                return (SpanLocation(leaf: leaf, index: slotIndex, slot: slot), remaining - 1, leafStart, leafCounts)
            }
            remaining -= visible
        }
        preconditionFailure("visible scalar \(ordinal) not found")
    }

    /// The span holding the visible UTF-16 unit at `ordinal` (1-based), how many UTF-16 units of
    /// the span come before and including it, and how many visible scalars lie before the span.
    func locateVisibleUTF16(ordinal: Int) -> (location: SpanLocation, unitsIntoSpan: Int, scalarsBefore: Int) {
        var remaining = ordinal
        var scalarsBefore = 0
        var node = root
        var leaf: UInt32
        while true {
            let base = Int(node) * TreeShape.nodeCapacity
            let last = base + entryCount(of: node) - 1
            var index = base
            while index < last && remaining > nodeEntries[index].counts.utf16 {
                remaining -= nodeEntries[index].counts.utf16
                scalarsBefore += nodeEntries[index].counts.scalars
                index += 1
            }
            if nodeHeaders[node].height == 1 {
                leaf = nodeEntries[index].child
                break
            }
            node = nodeEntries[index].child
        }
        for slotIndex in 0..<slotCount(of: leaf) {
            let slot = slot(in: leaf, at: slotIndex)
            let span = spans[slot]
            if remaining <= span.visibleUTF16 {
                return (SpanLocation(leaf: leaf, index: slotIndex, slot: slot), remaining, scalarsBefore)
            }
            remaining -= span.visibleUTF16
            scalarsBefore += span.visibleScalars
        }
        preconditionFailure("visible UTF-16 unit \(ordinal) not found")
    }

    /// The first span in document order, if any.
    var firstLocation: SpanLocation? {
        slotCount(of: firstLeaf) == 0 ? nil : SpanLocation(leaf: firstLeaf, index: 0, slot: slot(in: firstLeaf, at: 0))
    }

    /// The span after `location` in document order, if any.
    func location(after location: SpanLocation) -> SpanLocation? {
        if location.index + 1 < slotCount(of: location.leaf) {
            return SpanLocation(
                leaf: location.leaf, index: location.index + 1, slot: slot(in: location.leaf, at: location.index + 1))
        }
        let next = leafHeaders[location.leaf].next
        if next == noIndex { return nil }
        return SpanLocation(leaf: next, index: 0, slot: slot(in: next, at: 0))
    }

    /// The last leaf in document order.
    var lastLeaf: UInt32 {
        var node = root
        while true {
            let child = entry(of: node, at: entryCount(of: node) - 1).child
            if nodeHeaders[node].height == 1 { return child }
            node = child
        }
    }

    // MARK: Span slots

    mutating func allocateSpan(_ span: Span) -> UInt32 {
        if let slot = freeSpanSlots.popLast() {
            spans[slot] = span
            return slot
        }
        spans.append(span)
        return UInt32(spans.count - 1)
    }

    mutating func freeSpan(_ slot: UInt32) {
        spans[slot].lengthScalars = 0
        spans[slot].leaf = noIndex
        spans[slot].nextInReplica = noIndex
        freeSpanSlots.append(slot)
    }

    // MARK: Insertion into leaves

    /// Puts `slot` into `leaf` at `index` (splitting a full leaf first) and, unless told not to,
    /// adds its counts up the tree. Returns where the slot ended up.
    @discardableResult
    mutating func insertSlot(_ slot: UInt32, leaf: UInt32, index: Int, countsChange: Bool = true) -> SpanLocation {
        var leaf = leaf
        var index = index
        if slotCount(of: leaf) == TreeShape.leafCapacity {
            let half = TreeShape.leafCapacity / 2
            let newLeaf = splitLeaf(leaf)
            if index > half {
                leaf = newLeaf
                index -= half
            }
        }
        let base = Int(leaf) * TreeShape.leafCapacity
        let count = slotCount(of: leaf)
        var position = base + count
        while position > base + index {
            leafSlots[position] = leafSlots[position - 1]
            position -= 1
        }
        leafSlots[base + index] = slot
        leafHeaders[leaf].count += 1
        spans[slot].leaf = leaf
        if countsChange {
            addCounts(spans[slot].counts, toLeaf: leaf)
        }
        return SpanLocation(leaf: leaf, index: index, slot: slot)
    }

    /// Removes the slot at `index` of `leaf` without changing counts (used when merging spans,
    /// whose counts move to the neighbour). The leaf must keep at least one slot.
    mutating func removeSlot(leaf: UInt32, index: Int) {
        let count = slotCount(of: leaf)
        precondition(count > 1, "a leaf never empties")
        let base = Int(leaf) * TreeShape.leafCapacity
        for position in (base + index)..<(base + count - 1) {
            leafSlots[position] = leafSlots[position + 1]
        }
        leafHeaders[leaf].count -= 1
    }

    /// Moves the upper half of a full `leaf` into a new leaf right after it. Returns the new leaf.
    @discardableResult
    mutating func splitLeaf(_ leaf: UInt32) -> UInt32 {
        cursorLeaf = noIndex
        makeRoomForChild(ofLeaf: leaf)
        let half = TreeShape.leafCapacity / 2
        let newLeaf = UInt32(leafHeaders.count)
        let parent = leafHeaders[leaf].parent
        let next = leafHeaders[leaf].next
        leafHeaders.append(
            LeafHeader(count: UInt16(TreeShape.leafCapacity - half), parentEntry: 0, parent: parent, next: next, previous: leaf))
        leafSlots.append(contentsOf: repeatElement(noIndex, count: TreeShape.leafCapacity))
        let oldBase = Int(leaf) * TreeShape.leafCapacity
        let newBase = Int(newLeaf) * TreeShape.leafCapacity
        var movedCounts = Counts()
        for index in half..<TreeShape.leafCapacity {
            let slot = leafSlots[oldBase + index]
            leafSlots[newBase + index - half] = slot
            spans[slot].leaf = newLeaf
            movedCounts += spans[slot].counts
        }
        leafHeaders[leaf].count = UInt16(half)
        leafHeaders[leaf].next = newLeaf
        if next != noIndex { leafHeaders[next].previous = newLeaf }
        insertEntry(
            NodeEntry(child: newLeaf, counts: movedCounts), into: parent,
            at: Int(leafHeaders[leaf].parentEntry) + 1, childIsLeaf: true)
        nodeEntries[Int(parent) * TreeShape.nodeCapacity + Int(leafHeaders[leaf].parentEntry)].counts -= movedCounts
        return newLeaf
    }

    /// Ensures the parent of `leaf` has room for one more entry.
    private mutating func makeRoomForChild(ofLeaf leaf: UInt32) {
        let parent = leafHeaders[leaf].parent
        if entryCount(of: parent) == TreeShape.nodeCapacity { splitNode(parent) }
    }

    /// Inserts `entry` at `index` of `node`, which has room, fixing its children's links.
    private mutating func insertEntry(_ entry: NodeEntry, into node: UInt32, at index: Int, childIsLeaf: Bool) {
        let base = Int(node) * TreeShape.nodeCapacity
        let count = entryCount(of: node)
        precondition(count < TreeShape.nodeCapacity)
        var position = count
        while position > index {
            nodeEntries[base + position] = nodeEntries[base + position - 1]
            position -= 1
        }
        nodeEntries[base + index] = entry
        nodeHeaders[node].count += 1
        for position in index...count {
            let child = nodeEntries[base + position].child
            if childIsLeaf {
                leafHeaders[child].parent = node
                leafHeaders[child].parentEntry = UInt16(position)
            } else {
                nodeHeaders[child].parent = node
                nodeHeaders[child].parentEntry = UInt16(position)
            }
        }
    }

    /// Moves the upper half of a full `node` into a new node right after it (growing a new root
    /// above it if it is the root).
    private mutating func splitNode(_ node: UInt32) {
        cursorLeaf = noIndex
        if nodeHeaders[node].parent == noIndex {
            // Grow a new root above `node`.
            let newRoot = UInt32(nodeHeaders.count)
            var total = Counts()
            for index in 0..<entryCount(of: node) { total += entry(of: node, at: index).counts }
            nodeHeaders.append(NodeHeader(count: 1, parentEntry: 0, height: nodeHeaders[node].height + 1, parent: noIndex))
            nodeEntries.append(contentsOf: repeatElement(NodeEntry(child: noIndex, counts: Counts()), count: TreeShape.nodeCapacity))
            nodeEntries[Int(newRoot) * TreeShape.nodeCapacity] = NodeEntry(child: node, counts: total)
            nodeHeaders[node].parent = newRoot
            nodeHeaders[node].parentEntry = 0
            root = newRoot
        } else if entryCount(of: nodeHeaders[node].parent) == TreeShape.nodeCapacity {
            splitNode(nodeHeaders[node].parent)
        }
        let parent = nodeHeaders[node].parent
        let half = TreeShape.nodeCapacity / 2
        let newNode = UInt32(nodeHeaders.count)
        let height = nodeHeaders[node].height
        nodeHeaders.append(NodeHeader(count: 0, parentEntry: 0, height: height, parent: parent))
        nodeEntries.append(contentsOf: repeatElement(NodeEntry(child: noIndex, counts: Counts()), count: TreeShape.nodeCapacity))
        let oldBase = Int(node) * TreeShape.nodeCapacity
        let newBase = Int(newNode) * TreeShape.nodeCapacity
        var movedCounts = Counts()
        for index in half..<TreeShape.nodeCapacity {
            let moved = nodeEntries[oldBase + index]
            nodeEntries[newBase + index - half] = moved
            movedCounts += moved.counts
            if height == 1 {
                leafHeaders[moved.child].parent = newNode
                leafHeaders[moved.child].parentEntry = UInt16(index - half)
            } else {
                nodeHeaders[moved.child].parent = newNode
                nodeHeaders[moved.child].parentEntry = UInt16(index - half)
            }
        }
        nodeHeaders[newNode].count = UInt16(TreeShape.nodeCapacity - half)
        nodeHeaders[node].count = UInt16(half)
        insertEntry(
            NodeEntry(child: newNode, counts: movedCounts), into: parent,
            at: Int(nodeHeaders[node].parentEntry) + 1, childIsLeaf: false)
        nodeEntries[Int(parent) * TreeShape.nodeCapacity + Int(nodeHeaders[node].parentEntry)].counts -= movedCounts
    }
}
