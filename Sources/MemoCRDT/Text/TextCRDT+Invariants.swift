/// A broken internal invariant: a bug in MemoSync, never the caller's fault.
package struct InvariantViolation: Error, CustomStringConvertible, Sendable {
    /// What is broken.
    package var description: String

    /// Creates a violation report.
    package init(_ description: String) {
        self.description = description
    }
}

/// Throws an `InvariantViolation` with `message` unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantViolation) {
    if !condition { throw InvariantViolation(message()) }
}

extension TextCRDT {
    /// Checks every internal invariant of the text's structures, in O(n).
    ///
    /// Debug builds (`MEMOSYNC_INTERNAL_CHECKS`) run this after every mutation of a small text
    /// and periodically for large ones; tests call it directly.
    ///
    /// Checked: the B+tree's shape, parent links and counts; the leaf chain; every span's
    /// lengths against its content; runs maximally merged within each leaf; each replica's spans
    /// in counter order, matching its block index; counters dense (each one an item or a
    /// deletion, none missing); every deletion's target deleted, and every deleted item the
    /// target of a deletion held (no tombstone without its deletion); the content garbage count.
    ///
    /// - Throws: ``InvariantViolation`` naming the first broken invariant.
    package func checkInvariants() throws(InvariantViolation) {
        try checkInvariants(orphansAllowed: false)
    }

    /// ``checkInvariants()``; with `orphansAllowed`, deleted items need no deletion (a notebook
    /// applying runs one by one checks that once its whole call is done).
    func checkInvariants(orphansAllowed: Bool) throws(InvariantViolation) {
        // Tree shape and counts.
        try require(nodeHeaders[root].parent == noIndex, "root has a parent")
        try require(leafSlots.count == leafHeaders.count * TreeShape.leafCapacity, "leaf slot storage")
        try require(nodeEntries.count == nodeHeaders.count * TreeShape.nodeCapacity, "node entry storage")
        var walk = TreeWalk()
        let total = try walk.visit(root, in: self)
        try require(total == totalCounts, "cached totals \(totalCounts) != \(total)")
        try checkCursors()
        try require(walk.visitedNodes == nodeHeaders.count, "unreachable nodes")
        let leafOrder = walk.leafOrder
        try checkLeafChain(leafOrder)
        let slotsInTree = try checkSpansInDocumentOrder(leafOrder, total: total)
        // Each replica: counter-order list, block index, dense counters, timestamps.
        var slotsInLists = 0
        for replicaIndex in logs.indices {
            slotsInLists += try checkReplicaLog(replicaIndex)
        }
        try require(slotsInLists == slotsInTree, "spans on replica lists \(slotsInLists) != spans in the tree \(slotsInTree)")
        if !orphansAllowed {
            try checkEveryTombstoneHasItsDeletion(leafOrder)
        }
        try require(replicaTable.ids.count == logs.count, "replica table")
        try require(replicaTable.ids[localReplicaIndex] == replica, "local replica index")
        try replicaTable.check()
        try checkRetainedContent()
    }

    /// Retained content (history) names only deleted insertions this text holds, each once,
    /// with one valid scalar per item.
    private func checkRetainedContent() throws(InvariantViolation) {
        var previous: RetainedContent.Entry?
        for entry in retained.entries {
            try require(entry.replica < logs.count && entry.length > 0, "retained entry replica or length")
            if let previous {
                try require(previous.precedes(replica: entry.replica, counter: entry.counter), "retained entries not sorted")
                try require(previous.replica != entry.replica || previous.end <= entry.counter, "retained entries overlap")
            }
            try require(
                holdsItems(replica: entry.replica, counter: entry.counter, length: entry.length),
                "retained content for items not held")
            var counter = entry.counter
            while counter < entry.end {
                guard let (slot, offset) = lookup(ItemRef(replica: entry.replica, counter: counter)) else { break }
                try require(spans[slot].isDeleted, "retained content for a visible item")
                counter += spans[slot].lengthScalars - offset
            }
            let bytes = retained.bytes[Int(entry.byteOffset)..<Int(entry.byteOffset + entry.byteLength)]
            try require(UTF8Scanning.counts(of: bytes).scalars == Int(entry.length), "retained bytes do not match their items")
            previous = entry
        }
    }

    /// A walk of the B+tree from the root: checks each node's entries, links and counts, and
    /// lists the leaves in order.
    private struct TreeWalk {
        var leafOrder: [UInt32] = []
        var visitedNodes = 0

        /// Checks `node`'s subtree and returns its counts.
        mutating func visit(_ node: UInt32, in text: TextCRDT) throws(InvariantViolation) -> Counts {
            visitedNodes += 1
            let count = text.entryCount(of: node)
            try require(count > 0 && count <= TreeShape.nodeCapacity, "node \(node) has \(count) entries")
            var total = Counts()
            for index in 0..<count {
                let entry = text.entry(of: node, at: index)
                let actual: Counts
                if text.nodeHeaders[node].height == 1 {
                    try require(text.leafHeaders[entry.child].parent == node, "leaf \(entry.child) parent link")
                    try require(Int(text.leafHeaders[entry.child].parentEntry) == index, "leaf \(entry.child) parent entry")
                    leafOrder.append(entry.child)
                    actual = text.slots(of: entry.child).reduce(Counts()) { $0 + text.spans[$1].counts }
                } else {
                    try require(text.nodeHeaders[entry.child].parent == node, "node \(entry.child) parent link")
                    try require(Int(text.nodeHeaders[entry.child].parentEntry) == index, "node \(entry.child) parent entry")
                    try require(text.nodeHeaders[entry.child].height + 1 == text.nodeHeaders[node].height, "node \(entry.child) height")
                    actual = try visit(entry.child, in: text)
                }
                try require(actual == entry.counts, "counts of child \(entry.child) of node \(node): \(entry.counts) != \(actual)")
                total += actual
            }
            return total
        }
    }

    /// The cached cursors: the cursor leaf's start and counts, the typing cursor's offset.
    private func checkCursors() throws(InvariantViolation) {
        if cursorLeaf != noIndex {
            try require(countsBeforeUncached(leaf: cursorLeaf) == cursorLeafStart, "cursor leaf start")
            let parent = leafHeaders[cursorLeaf].parent
            try require(entry(of: parent, at: Int(leafHeaders[cursorLeaf].parentEntry)).counts == cursorLeafCounts, "cursor leaf counts")
        }
        if let cursor = typingCursor, !spans[cursor.slot].isDeleted, spans[cursor.slot].leaf != noIndex {
            let location = location(ofSlot: cursor.slot)
            let end = countsBefore(location).scalars + spans[cursor.slot].visibleScalars
            try require(end == cursor.offsetScalars, "typing cursor offset \(cursor.offsetScalars) != \(end)")
            if spans[cursor.slot].replica == localReplicaIndex && spans[cursor.slot].end == logs[localReplicaIndex].operationCount {
                let next = self.location(after: location).map { spans[$0.slot].item(at: 0) } ?? .none
                try require(next == spans[cursor.slot].originRight, "typing cursor span is not followed by its originRight")
            }
        }
    }

    /// Every leaf reached from the root, and the leaf chain linking them in that order.
    private func checkLeafChain(_ leafOrder: [UInt32]) throws(InvariantViolation) {
        try require(leafOrder.count == leafHeaders.count, "unreachable leaves")
        try require(leafOrder.first == firstLeaf, "first leaf")
        var previous = noIndex
        for leaf in leafOrder {
            try require(leafHeaders[leaf].previous == previous, "leaf \(leaf) previous link")
            if previous != noIndex { try require(leafHeaders[previous].next == leaf, "leaf \(previous) next link") }
            previous = leaf
        }
        try require(leafHeaders[previous].next == noIndex, "last leaf next link")
    }

    /// The spans in document order: each one's leaf, lengths and content, runs merged within a
    /// leaf; the item total, span slots and content garbage. Returns the spans in the tree.
    private func checkSpansInDocumentOrder(_ leafOrder: [UInt32], total: Counts) throws(InvariantViolation) -> Int {
        var slotsInTree = 0
        var visibleBytes = 0
        for leaf in leafOrder {
            let slots = Array(slots(of: leaf))
            try require(slots.count <= TreeShape.leafCapacity, "leaf \(leaf) overfull")
            try require(!slots.isEmpty || leafHeaders.count == 1, "leaf \(leaf) empty")
            for (index, slot) in slots.enumerated() {
                let span = spans[slot]
                slotsInTree += 1
                try require(span.leaf == leaf, "span \(slot) leaf link")
                try require(span.lengthScalars > 0 && Int(span.lengthScalars) <= Limits.spanLengthScalarsMax, "span \(slot) length")
                try require(Int(span.replica) < logs.count, "span \(slot) replica")
                try require(span.end <= logs[span.replica].operationCount, "span \(slot) beyond its replica's count")
                if span.isDeleted {
                    try require(span.lengthUTF16 == 0 && span.lengthUTF8 == 0 && span.contentOffset == 0, "deleted span \(slot) keeps lengths")
                } else {
                    let start = Int(span.contentOffset)
                    let end = start + Int(span.lengthUTF8)
                    try require(end <= content.count, "span \(slot) content out of the buffer")
                    let (scalars, utf16) = UTF8Scanning.counts(of: content[start..<end])
                    try require(scalars == Int(span.lengthScalars) && utf16 == Int(span.lengthUTF16), "span \(slot) lengths do not match its content")
                    visibleBytes += Int(span.lengthUTF8)
                }
                if index + 1 < slots.count {
                    try require(!canMerge(span, spans[slots[index + 1]]), "spans \(slot) and \(slots[index + 1]) not merged")
                }
            }
        }
        try require(total.items == leafOrder.reduce(0) { $0 + slots(of: $1).reduce(0) { $0 + Int(spans[$1].lengthScalars) } }, "item total")
        try require(slotsInTree + freeSpanSlots.count == spans.count, "span slots leaked")
        try require(content.count - visibleBytes == contentGarbageBytes, "content garbage count")
        return slotsInTree
    }

    /// One replica's log: its spans in counter order and its block index, counters dense (each
    /// an item or a deletion), its timestamps, every deletion's targets deleted items. Returns
    /// the spans on its list.
    private func checkReplicaLog(_ replicaIndex: Int) throws(InvariantViolation) -> Int {
        let log = logs[replicaIndex]
        var slotsInList = 0
        var expectedBlocks: [UInt32] = []
        var slot = log.firstSpan
        var last = noIndex
        var counter: UInt32 = 0
        var deletionIndex = 0
        while slot != noIndex {
            let span = spans[slot]
            slotsInList += 1
            try require(Int(span.replica) == replicaIndex, "span \(slot) on the wrong replica list")
            try require(span.leaf != noIndex, "freed span \(slot) on a list")
            // Counters before this span are deletions.
            while counter < span.counter {
                try require(deletionIndex < log.deletionRuns.count && log.deletionRuns[deletionIndex].counter == counter, "replica \(replicaIndex) counter \(counter) missing")
                counter = log.deletionRuns[deletionIndex].end
                deletionIndex += 1
            }
            try require(counter == span.counter, "replica \(replicaIndex) counters overlap at \(span.counter)")
            for block in Int(span.counter >> TreeShape.blockShift)...Int((span.end - 1) >> TreeShape.blockShift) {
                while expectedBlocks.count <= block { expectedBlocks.append(noIndex) }
                if expectedBlocks[block] == noIndex { expectedBlocks[block] = slot }
            }
            counter = span.end
            last = slot
            slot = span.nextInReplica
        }
        while deletionIndex < log.deletionRuns.count {
            try require(log.deletionRuns[deletionIndex].counter == counter, "replica \(replicaIndex) deletion run at \(counter)")
            counter = log.deletionRuns[deletionIndex].end
            deletionIndex += 1
        }
        try require(counter == log.operationCount, "replica \(replicaIndex) holds \(counter) counters, count says \(log.operationCount)")
        try require(last == log.lastSpan, "replica \(replicaIndex) last span")
        try require(log.blockFirstSpan == expectedBlocks, "replica \(replicaIndex) block index")
        try checkTimestampsAndDeletionTargets(of: replicaIndex)
        return slotsInList
    }

    /// One replica's Lamport runs (in counter order, from counter 0, within the clock), and
    /// its deletions' targets: items, deleted.
    private func checkTimestampsAndDeletionTargets(of replicaIndex: Int) throws(InvariantViolation) {
        let log = logs[replicaIndex]
        try require(log.operationCount == 0 || log.lamportRuns.first?.counter == 0, "replica \(replicaIndex) timestamps start")
        for pair in zip(log.lamportRuns, log.lamportRuns.dropFirst()) {
            try require(pair.0.counter < pair.1.counter, "replica \(replicaIndex) timestamp runs order")
        }
        if log.operationCount > 0 {
            try require(log.lamport(of: log.operationCount - 1) <= lamport, "replica \(replicaIndex) timestamps beyond the clock")
        }
        for run in log.deletionRuns {
            try require(run.length > 0, "empty deletion run")
            var target = run.targetCounter
            while target < run.targetCounter + run.length {
                guard let (slot, offset) = lookup(ItemRef(replica: run.targetReplica, counter: target)) else {
                    throw InvariantViolation("deletion target \(run.targetReplica).\(target) is not an item")
                }
                try require(spans[slot].isDeleted, "deletion target \(run.targetReplica).\(target) is visible")
                target += spans[slot].lengthScalars - offset
            }
        }
    }

    /// Every deleted item is deleted by an operation held (else two texts with equal versions
    /// could differ, and the state would not encode to this text).
    private func checkEveryTombstoneHasItsDeletion(_ leafOrder: [UInt32]) throws(InvariantViolation) {
        var deleted = [[Range<UInt32>]](repeating: [], count: logs.count)
        for log in logs {
            for run in log.deletionRuns { deleted[Int(run.targetReplica)].append(run.targetCounter..<run.end - run.counter + run.targetCounter) }
        }
        deleted = deleted.map(mergedRanges)
        for leaf in leafOrder {
            for slot in slots(of: leaf) where spans[slot].isDeleted {
                let span = spans[slot]
                try require(covers(deleted[Int(span.replica)], span.counter..<span.end), "deleted items \(span.replica).\(span.counter)..<\(span.end) have no deletion")
            }
        }
    }

    /// Runs ``checkInvariants()`` under `MEMOSYNC_INTERNAL_CHECKS`: after every mutation while
    /// the text holds at most 256 operations, after one mutation in 8 while it holds at most
    /// 2048, then after one in 1024 (the check is O(n), so checking every edit of a large text
    /// would make debug builds quadratic; checking every edit up to 2048 operations was a sixth
    /// of the simulator's debug runs).
    @inline(__always)
    mutating func checkInvariantsIfEnabled(orphansAllowed: Bool = false) {
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active != nil { return }  // as in a release build: the harness must find it
        #endif
        #if MEMOSYNC_INTERNAL_CHECKS
        debugMutationCount &+= 1
        if Self.selfChecks(afterMutation: debugMutationCount, operationCount: operationCount) {
            do {
                try checkInvariants(orphansAllowed: orphansAllowed)
            } catch {
                preconditionFailure("TextCRDT invariant violated: \(error)")
            }
        }
        #endif
    }

    #if MEMOSYNC_INTERNAL_CHECKS
    /// Whether the self-check runs after the `mutation`th mutation of a text holding
    /// `operationCount` operations (``checkInvariantsIfEnabled(orphansAllowed:)``).
    static func selfChecks(afterMutation mutation: Int, operationCount: Int) -> Bool {
        operationCount <= 256 || (operationCount <= 2048 && mutation % 8 == 0) || mutation % 1024 == 0
    }
    #endif
}
