// An index from ids to positions in a table (memo ids to records in a notebook's memo table,
// replica ids to interned indices in a text), looked up on every operation applied. While the
// table is small the ids are also kept in ascending order and found by bisection (a few integer
// comparisons instead of hashing an id), and listed in id order; past a capacity, adding an id
// would cost O(n), so the sorted view is dropped and lookups hash.

/// Ids to positions, with a sorted view while at most `sortedCapacity` ids are held.
///
/// Public only to the engine's own modules (`@_spi(Engine)`), so that its lookups can be
/// inlinable: a `package` generic is not specialized in another module (Swift 6.3), and a
/// notebook's memo table (MemoNotes) looked its ids up through the generic witnesses.
@_spi(Engine) public struct SortedIDIndex<ID: Hashable & Comparable & Sendable, Position: BinaryInteger & Sendable>: Sendable {
    @usableFromInline var positionByID: [ID: Position] = [:]
    /// While ``isSorted``: every id in ascending order, and the position of each.
    @usableFromInline private(set) var sortedIDs: [ID] = []
    @usableFromInline private(set) var sortedPositions: [Position] = []
    /// Most ids kept in the sorted view.
    @usableFromInline let sortedCapacity: Int

    package init(sortedCapacity: Int) { self.sortedCapacity = sortedCapacity }

    /// How many ids are held.
    @inlinable var count: Int { positionByID.count }

    /// Whether the sorted view lists every id.
    @inlinable var isSorted: Bool { sortedIDs.count == positionByID.count }

    /// The position of `id`, if it is held.
    ///
    /// - Complexity: O(log n) comparisons while sorted, else one hash lookup.
    @inlinable public func position(of id: ID) -> Position? {
        guard isSorted else { return positionByID[id] }
        let at = sortedIDs.firstPosition(notBelow: id)
        return at < sortedIDs.count && sortedIDs[at] == id ? sortedPositions[at] : nil
    }

    /// Makes room for `count` ids in all, so that adding that many rehashes nothing (a decoder
    /// that knows how many ids it reads).
    package mutating func reserveCapacity(_ count: Int) {
        positionByID.reserveCapacity(count)
    }

    /// Adds `id`, which is not held yet, at `position`. Inlinable, for the reason the type is
    /// public: called generically, each insert instantiated the arrays' generic metadata at
    /// run time, an eighth of opening a 10,000-memo library's notebook (BENCHMARKS.md, "Checks
    /// beside the decoding").
    ///
    /// - Complexity: O(n) while sorted (O(1) amortized past the capacity).
    @inlinable public mutating func insert(_ id: ID, at position: Position) {
        if isSorted && count < sortedCapacity {
            let at = sortedIDs.firstPosition(notBelow: id)
            sortedIDs.insert(id, at: at)
            sortedPositions.insert(position, at: at)
        } else if !sortedIDs.isEmpty {
            sortedIDs = []
            sortedPositions = []
        }
        positionByID[id] = position
    }

    /// Checks the index against the table, where `idAt(p)` is the id at position `p` for each
    /// of the `tableCount` positions; `name` says which table in the message.
    package func check(tableCount: Int, name: String, idAt: (Int) -> ID) throws(InvariantViolation) {
        guard count == tableCount, (0..<tableCount).allSatisfy({ positionByID[idAt($0)] == Position($0) }) else {
            throw InvariantViolation("\(name): index by id")
        }
        if !isSorted {
            guard sortedIDs.isEmpty && sortedPositions.isEmpty && count > sortedCapacity else {
                throw InvariantViolation("\(name): sorted view dropped below its capacity")
            }
            return
        }
        guard sortedPositions.count == count,
            zip(sortedIDs, sortedPositions).allSatisfy({ Int($0.1) < tableCount && idAt(Int($0.1)) == $0.0 })
        else { throw InvariantViolation("\(name): sorted view does not match the table") }
        for (lower, upper) in zip(sortedIDs, sortedIDs.dropFirst()) where lower >= upper {
            throw InvariantViolation("\(name): sorted view out of order")
        }
    }
}

extension Array where Element: Comparable {
    /// The first position whose element is not below `value` (`count` when every element is
    /// below it). The array must be sorted ascending.
    ///
    /// - Complexity: O(log n).
    @inlinable @inline(__always)
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
