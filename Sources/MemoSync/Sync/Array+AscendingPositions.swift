extension Array {
    /// Removes the elements at `positions` (ascending, each a valid index, none twice), keeping
    /// the others in order. O(count - positions.first): the survivors after the first position
    /// move down once, nothing is hashed or compared.
    mutating func removeAscendingPositions(_ positions: [Int]) {
        guard let first = positions.first else { return }
        assert(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 }, "positions not ascending")
        assert(positions.last! < count, "position out of range")
        var kept = first
        var next = 0
        for position in first..<count {
            if next < positions.count, positions[next] == position {
                next += 1
                continue
            }
            swapAt(kept, position)
            kept += 1
        }
        removeLast(count - kept)
    }
}
