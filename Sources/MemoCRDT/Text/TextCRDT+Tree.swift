// The document-order B+tree: descending by offset, counting what lies before a leaf, inserting
// span slots into leaves and splitting full leaves and nodes. Leaves never empty out (spans are
// only ever merged into a neighbour in the same leaf), so there is no rebalancing on removal.

extension Array {
    /// Element access by a 32-bit index, the width the text's internal links use.
    @inline(__always)
    subscript(_ index: UInt32) -> Element {
        get { self[Int(index)] }
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
    // MARK: Positions

    /// Everything before `leaf` in document order, summed.
    ///
    /// - Complexity: O(log r).
    func countsBefore(leaf: UInt32) -> Counts {
        var total = Counts()
        var child = leaf
        var parent = leaves[leaf].parent
        while parent != noIndex {
            for entry in nodes[parent].entries {
                if entry.child == child { break }
                total += entry.counts
            }
            child = parent
            parent = nodes[parent].parent
        }
        return total
    }

    /// Everything before the span at `location`, summed.
    func countsBefore(_ location: SpanLocation) -> Counts {
        var total = countsBefore(leaf: location.leaf)
        let slots = leaves[location.leaf].slots
        for index in 0..<location.index { total += spans[slots[index]].counts }
        return total
    }

    /// Adds `delta` to the counts of `leaf` and all its ancestors.
    mutating func addCounts(_ delta: Counts, toLeaf leaf: UInt32) {
        var child = leaf
        var parent = leaves[leaf].parent
        while parent != noIndex {
            let index = entryIndex(of: child, in: parent)
            nodes[parent].entries[index].counts += delta
            child = parent
            parent = nodes[parent].parent
        }
    }

    func entryIndex(of child: UInt32, in node: UInt32) -> Int {
        let entries = nodes[node].entries
        for index in entries.indices where entries[index].child == child { return index }
        preconditionFailure("child \(child) missing from node \(node)")
    }

    /// The index of `slot` in its leaf.
    func location(ofSlot slot: UInt32) -> SpanLocation {
        let leaf = spans[slot].leaf
        let slots = leaves[leaf].slots
        for index in slots.indices where slots[index] == slot {
            return SpanLocation(leaf: leaf, index: index, slot: slot)
        }
        preconditionFailure("span \(slot) missing from leaf \(leaf)")
    }

    /// The span holding the `ordinal`-th visible scalar (1-based), and the scalar's offset in it.
    ///
    /// - Precondition: `1 <= ordinal <= lengthScalars`.
    /// - Complexity: O(log r).
    func locateVisibleScalar(ordinal: Int) -> (location: SpanLocation, offset: Int) {
        var remaining = ordinal
        var node = root
        while true {
            let entries = nodes[node].entries
            var index = 0
            while index < entries.count - 1 && remaining > entries[index].counts.scalars {
                remaining -= entries[index].counts.scalars
                index += 1
            }
            if nodes[node].height == 1 {
                let leaf = entries[index].child
                let slots = leaves[leaf].slots
                for slotIndex in slots.indices {
                    let visible = spans[slots[slotIndex]].visibleScalars
                    if remaining <= visible {
                        return (SpanLocation(leaf: leaf, index: slotIndex, slot: slots[slotIndex]), remaining - 1)
                    }
                    remaining -= visible
                }
                preconditionFailure("visible scalar \(ordinal) not found")
            }
            node = entries[index].child
        }
    }

    /// The span holding the visible UTF-16 unit at `ordinal` (1-based), and how many UTF-16
    /// units of the span come before and including it.
    func locateVisibleUTF16(ordinal: Int) -> (location: SpanLocation, unitsIntoSpan: Int, scalarsBefore: Int) {
        var remaining = ordinal
        var scalarsBefore = 0
        var node = root
        while true {
            let entries = nodes[node].entries
            var index = 0
            while index < entries.count - 1 && remaining > entries[index].counts.utf16 {
                remaining -= entries[index].counts.utf16
                scalarsBefore += entries[index].counts.scalars
                index += 1
            }
            if nodes[node].height == 1 {
                let leaf = entries[index].child
                let slots = leaves[leaf].slots
                for slotIndex in slots.indices {
                    let span = spans[slots[slotIndex]]
                    if remaining <= span.visibleUTF16 {
                        return (SpanLocation(leaf: leaf, index: slotIndex, slot: slots[slotIndex]), remaining, scalarsBefore)
                    }
                    remaining -= span.visibleUTF16
                    scalarsBefore += span.visibleScalars
                }
                preconditionFailure("visible UTF-16 unit \(ordinal) not found")
            }
            node = entries[index].child
        }
    }

    /// The first span in document order, if any.
    var firstLocation: SpanLocation? {
        let slots = leaves[firstLeaf].slots
        return slots.isEmpty ? nil : SpanLocation(leaf: firstLeaf, index: 0, slot: slots[0])
    }

    /// The span after `location` in document order, if any.
    func location(after location: SpanLocation) -> SpanLocation? {
        let slots = leaves[location.leaf].slots
        if location.index + 1 < slots.count {
            return SpanLocation(leaf: location.leaf, index: location.index + 1, slot: slots[location.index + 1])
        }
        var leaf = leaves[location.leaf].next
        while leaf != noIndex {
            if let first = leaves[leaf].slots.first {
                return SpanLocation(leaf: leaf, index: 0, slot: first)
            }
            leaf = leaves[leaf].next
        }
        return nil
    }

    /// The span before `location` in document order, if any.
    func location(before location: SpanLocation) -> SpanLocation? {
        if location.index > 0 {
            return SpanLocation(
                leaf: location.leaf, index: location.index - 1, slot: leaves[location.leaf].slots[location.index - 1])
        }
        var leaf = leaves[location.leaf].previous
        while leaf != noIndex {
            if let last = leaves[leaf].slots.last {
                return SpanLocation(leaf: leaf, index: leaves[leaf].slots.count - 1, slot: last)
            }
            leaf = leaves[leaf].previous
        }
        return nil
    }

    /// The last leaf in document order.
    var lastLeaf: UInt32 {
        var node = root
        while true {
            let child = nodes[node].entries[nodes[node].entries.count - 1].child
            if nodes[node].height == 1 { return child }
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

    /// Puts `slot` into `leaf` at `index` and adds its counts up the tree.
    /// Returns where the slot ended up (a full leaf splits).
    @discardableResult
    mutating func insertSlot(_ slot: UInt32, leaf: UInt32, index: Int, countsChange: Bool = true) -> SpanLocation {
        spans[slot].leaf = leaf
        leaves[leaf].slots.insert(slot, at: index)
        if countsChange {
            addCounts(spans[slot].counts, toLeaf: leaf)
        }
        if leaves[leaf].slots.count > TreeShape.leafCapacity {
            splitLeaf(leaf)
            return location(ofSlot: slot)
        }
        return SpanLocation(leaf: leaf, index: index, slot: slot)
    }

    /// Removes the slot at `index` of `leaf` without changing counts (used when merging spans,
    /// whose counts move to the neighbour). The leaf must keep at least one slot.
    mutating func removeSlot(leaf: UInt32, index: Int) {
        precondition(leaves[leaf].slots.count > 1, "a leaf never empties")
        leaves[leaf].slots.remove(at: index)
    }

    private mutating func splitLeaf(_ leaf: UInt32) {
        let slots = leaves[leaf].slots
        let half = slots.count / 2
        let moved = Array(slots[half...])
        let newLeaf = UInt32(leaves.count)
        let parent = leaves[leaf].parent
        let next = leaves[leaf].next
        leaves.append(Leaf(slots: moved, parent: parent, next: next, previous: leaf))
        leaves[leaf].slots.removeSubrange(half...)
        leaves[leaf].next = newLeaf
        if next != noIndex { leaves[next].previous = newLeaf }
        var movedCounts = Counts()
        for slot in moved {
            spans[slot].leaf = newLeaf
            movedCounts += spans[slot].counts
        }
        let index = entryIndex(of: leaf, in: parent)
        nodes[parent].entries[index].counts -= movedCounts
        nodes[parent].entries.insert(NodeEntry(child: newLeaf, counts: movedCounts), at: index + 1)
        if nodes[parent].entries.count > TreeShape.nodeCapacity {
            splitNode(parent)
        }
    }

    private mutating func splitNode(_ node: UInt32) {
        let entries = nodes[node].entries
        let half = entries.count / 2
        let moved = Array(entries[half...])
        let newNode = UInt32(nodes.count)
        let height = nodes[node].height
        var parent = nodes[node].parent
        if parent == noIndex {
            // Grow a new root above `node`.
            parent = UInt32(nodes.count + 1)
            var total = Counts()
            for entry in entries { total += entry.counts }
            nodes.append(Node(entries: moved, parent: parent, height: height))
            nodes.append(Node(entries: [NodeEntry(child: node, counts: total)], parent: noIndex, height: height + 1))
            nodes[node].parent = parent
            root = parent
        } else {
            nodes.append(Node(entries: moved, parent: parent, height: height))
        }
        nodes[node].entries.removeSubrange(half...)
        var movedCounts = Counts()
        for entry in moved {
            movedCounts += entry.counts
            if height == 1 {
                leaves[entry.child].parent = newNode
            } else {
                nodes[entry.child].parent = newNode
            }
        }
        let index = entryIndex(of: node, in: parent)
        nodes[parent].entries[index].counts -= movedCounts
        nodes[parent].entries.insert(NodeEntry(child: newNode, counts: movedCounts), at: index + 1)
        if nodes[parent].entries.count > TreeShape.nodeCapacity {
            splitNode(parent)
        }
    }
}
