// Clear-box accessors for tests and tools inside this package.

extension TextCRDT {
    /// Every item in document order, deleted ones included, with its scalar (nil once deleted:
    /// deleted content is not kept).
    ///
    /// - Complexity: O(n).
    package var itemsInDocumentOrder: [(id: OperationID, isDeleted: Bool)] {
        var result: [(id: OperationID, isDeleted: Bool)] = []
        var leaf = firstLeaf
        while leaf != noIndex {
            for slot in slots(of: leaf) {
                let span = spans[slot]
                let replicaID = replicaTable.ids[span.replica]
                for offset in 0..<span.lengthScalars {
                    result.append((OperationID(replica: replicaID, counter: span.counter + offset), span.isDeleted))
                }
            }
            leaf = leafHeaders[leaf].next
        }
        return result
    }

    /// Number of spans in the document-order tree.
    package var spanCount: Int { spans.count - freeSpanSlots.count }

    /// Number of leaves and internal nodes of the tree.
    package var treeNodeCounts: (leaves: Int, nodes: Int) { (leafHeaders.count, nodeHeaders.count) }
}
