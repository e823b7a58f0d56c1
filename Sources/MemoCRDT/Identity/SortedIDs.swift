// Bisection over sorted id tables (memo ids in a notebook's memo table, replica ids in a text's
// replica table): lookups there are the hottest reads of an edit, and comparing two ids costs
// less than hashing one.

extension Array where Element: Comparable {
    /// The first position whose element is not below `value` (`count` when every element is
    /// below it). The array must be sorted ascending.
    ///
    /// - Complexity: O(log n).
    @inline(__always)
    func firstPosition(notBelow value: Element) -> Int {
        withUnsafeBufferPointer { sorted in
            var low = 0
            var high = sorted.count
            while low < high {
                // No overflow: both are at most `count`.
                let middle = (low &+ high) &>> 1
                if sorted[middle] < value { low = middle &+ 1 } else { high = middle }
            }
            return low
        }
    }
}
