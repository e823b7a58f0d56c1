// An index from ids to positions in a table (memo ids to records in a notebook's memo table,
// replica ids to interned indices in a text), looked up on every operation applied. The ids are
// kept in ascending order and found by bisection (a few integer comparisons instead of hashing
// an id), and listed in id order. An id above every id held is appended, at any size: a decoder
// reads its ids in ascending order, so a table of 100,000 memos decoded from a state or a state
// list is indexed by one array filled in order, no dictionary (a tenth of such an open went to
// filling one: docs/PROPOSALS.md, section 1). An id below the largest costs O(n) to put in its
// place, so once the sorted view holds `sortedCapacity` ids such an id goes to an unsorted
// overflow dictionary instead, and the view no longer lists every id.

/// Ids to positions: a sorted view, and past `sortedCapacity` an overflow for ids that came
/// out of order.
///
/// Public only to the engine's own modules (`@_spi(Engine)`), so that its lookups can be
/// inlinable: a `package` generic is not specialized in another module (Swift 6.3), and a
/// notebook's memo table (MemoNotes) looked its ids up through the generic witnesses.
@_spi(Engine) public struct SortedIDIndex<ID: Hashable & Comparable & Sendable, Position: BinaryInteger & Sendable>: Sendable {
    /// Ids in ascending order, and the position of each.
    @usableFromInline private(set) var sortedIDs: [ID] = []
    @usableFromInline private(set) var sortedPositions: [Position] = []
    /// Ids added below the sorted view's largest once it held `sortedCapacity` ids.
    @usableFromInline var overflow: [ID: Position] = [:]
    /// Most ids the sorted view takes out of order (an append in order is always taken).
    @usableFromInline let sortedCapacity: Int

    package init(sortedCapacity: Int) { self.sortedCapacity = sortedCapacity }

    /// How many ids are held.
    @inlinable var count: Int { sortedIDs.count + overflow.count }

    /// Whether the sorted view lists every id.
    @inlinable var isSorted: Bool { overflow.isEmpty }

    /// The position of `id`, if it is held.
    ///
    /// - Complexity: O(log n) comparisons, and one hash lookup when the overflow holds ids.
    @inlinable public func position(of id: ID) -> Position? {
        let at = sortedIDs.firstPosition(notBelow: id)
        if at < sortedIDs.count && sortedIDs[at] == id { return sortedPositions[at] }
        return overflow.isEmpty ? nil : overflow[id]
    }

    /// Makes room for `count` ids in all, so that adding that many in ascending order copies
    /// nothing (a decoder that knows how many ids it reads).
    package mutating func reserveCapacity(_ count: Int) {
        sortedIDs.reserveCapacity(count)
        sortedPositions.reserveCapacity(count)
    }

    /// Adds `id`, which is not held yet, at `position`. Inlinable, for the reason the type is
    /// public: called generically, each insert instantiated the arrays' generic metadata at
    /// run time, an eighth of opening a 10,000-memo library's notebook (BENCHMARKS.md, "Checks
    /// beside the decoding").
    ///
    /// - Complexity: O(1) amortized for an id above every id held; else O(n) while the sorted
    ///   view holds fewer than `sortedCapacity` ids, O(1) amortized past it.
    @inlinable public mutating func insert(_ id: ID, at position: Position) {
        if let last = sortedIDs.last, last >= id {
            if sortedIDs.count < sortedCapacity && overflow.isEmpty {
                let at = sortedIDs.firstPosition(notBelow: id)
                sortedIDs.insert(id, at: at)
                sortedPositions.insert(position, at: at)
            } else {
                overflow[id] = position
            }
        } else {
            sortedIDs.append(id)
            sortedPositions.append(position)
        }
    }

    /// Checks the index against the table, where `idAt(p)` is the id at position `p` for each
    /// of the `tableCount` positions; `name` says which table in the message.
    package func check(tableCount: Int, name: String, idAt: (Int) -> ID) throws(InvariantViolation) {
        guard count == tableCount, sortedPositions.count == sortedIDs.count else {
            throw InvariantViolation("\(name): \(count) ids indexed for \(tableCount) positions")
        }
        guard zip(sortedIDs, sortedPositions).allSatisfy({ Int($0.1) < tableCount && idAt(Int($0.1)) == $0.0 }),
            overflow.allSatisfy({ Int($0.value) < tableCount && idAt(Int($0.value)) == $0.key })
        else { throw InvariantViolation("\(name): index by id does not match the table") }
        for (lower, upper) in zip(sortedIDs, sortedIDs.dropFirst()) where lower >= upper {
            throw InvariantViolation("\(name): sorted view out of order")
        }
        // Every position once: the ids at the positions are distinct when every lookup holds.
        guard (0..<tableCount).allSatisfy({ position(of: idAt($0)) == Position($0) }) else {
            throw InvariantViolation("\(name): a position not indexed")
        }
        guard overflow.isEmpty || sortedIDs.count >= sortedCapacity else {
            throw InvariantViolation("\(name): an overflow beside a sorted view under its capacity")
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
