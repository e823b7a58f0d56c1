import MemoCRDT
/// One replacement in a text: the scalars in `range` of the old text become `replacement`.
///
/// A deletion has an empty `replacement`; an insertion has an empty `range` (its lower bound is
/// where the scalars go).
public struct ScalarEdit: Equatable, Sendable {
    /// The replaced scalars, as offsets into the old text.
    public var range: Range<Int>
    /// The scalars that take their place.
    public var replacement: [Unicode.Scalar]

    /// Creates an edit.
    public init(range: Range<Int>, replacement: [Unicode.Scalar]) {
        self.range = range
        self.replacement = replacement
    }
}

/// The smallest set of edits that turns one text into another, to record a whole-text change
/// (a paste over everything, a text set from outside the editor) as the few operations that
/// really changed, so concurrent edits elsewhere in the memo survive a merge.
public enum TextDiff {
    /// Edits that turn `old` into `new`: as few inserted plus deleted scalars as possible.
    ///
    /// The edits' ranges are offsets into `old`, ascending and non-overlapping, and never
    /// adjacent: a deletion directly followed by an insertion (or any edits with nothing
    /// unchanged between them) is one edit that replaces. Applying them from the last to the
    /// first (so earlier offsets stay valid) turns `old` into `new`:
    ///
    /// ```swift
    /// var text = old
    /// for edit in edits.reversed() { text.replaceSubrange(edit.range, with: edit.replacement) }
    /// // text == new
    /// ```
    ///
    /// Equal texts give no edits. The common prefix and suffix are removed first (linear
    /// time); the rest is diffed with the O(ND) algorithm of Eugene W. Myers, "An O(ND)
    /// Difference Algorithm and Its Variations" (Algorithmica 1, 1986), in its linear-space
    /// form: a bidirectional search finds a point on a shortest edit path (the "middle snake"),
    /// and the two halves are solved the same way. The result is minimal: the total number of
    /// deleted and inserted scalars is the edit distance D (insertions and deletions only,
    /// `old.count + new.count − 2 × LCS`).
    ///
    /// If D exceeds `maxEditDistance`, the search stops there and the result is a single edit
    /// that replaces everything between the common prefix and the common suffix. That is still
    /// correct (it turns `old` into `new`), just not minimal; it bounds the time spent on texts
    /// that have little in common.
    ///
    /// - Parameters:
    ///   - maxEditDistance: the largest D searched for (default 4096; values below 0 count as
    ///     0, which always takes the fallback for texts that differ).
    /// - Complexity: O(N + M) to trim the common ends, then O((n + m) × min(D,
    ///   maxEditDistance)) time, where n and m are the lengths left, and O(min(n + m,
    ///   maxEditDistance)) memory besides the result. Texts that differ in a few places cost
    ///   little more than the trimming (200,000 scalars with 20 small changes: about 2 ms in a
    ///   release build); texts with little in common stop at the limit (two unrelated texts
    ///   of 200,000 scalars: about 40 ms).
    public static func scalarEdits(
        from old: [Unicode.Scalar], to new: [Unicode.Scalar], maxEditDistance: Int = 4096
    ) -> [ScalarEdit] {
        var differ = MyersDiff(a: old, b: new)
        let (aLow, aHigh, bLow, bHigh) = differ.trimmed(0, old.count, 0, new.count)
        if aLow == aHigh && bLow == bHigh { return [] }

        let limit = Swift.max(maxEditDistance, 0)
        var ranges: [(old: Range<Int>, new: Range<Int>)] = []
        if (aHigh - aLow) - (bHigh - bLow) > limit || (bHigh - bLow) - (aHigh - aLow) > limit {
            // The length difference alone is more than the limit.
            ranges = [(aLow..<aHigh, bLow..<bHigh)]
        } else if let found = differ.edits(aLow, aHigh, bLow, bHigh, maxCost: limit) {
            ranges = found
        } else {
            ranges = [(aLow..<aHigh, bLow..<bHigh)]
        }
        return ranges.map { ScalarEdit(range: $0.old, replacement: Array(new[$0.new])) }
    }
}

/// Myers' diff on two arrays of scalars, in linear space, without recursion.
///
/// Coordinates follow the paper: x indexes `a` (the old text), y indexes `b`; a move right
/// deletes `a[x]`, a move down inserts `b[y]`, a diagonal move keeps an equal element. Diagonal
/// k holds the points with x − y = k. A "d-path" is a path with d non-diagonal moves.
struct MyersDiff {
    let a: [Unicode.Scalar]
    let b: [Unicode.Scalar]
    /// Furthest-reaching x per diagonal, forward (from the top left) and reverse (from the
    /// bottom right, in mirrored coordinates); reused across subproblems.
    private var forward: [Int] = []
    private var reverse: [Int] = []

    init(a: [Unicode.Scalar], b: [Unicode.Scalar]) {
        self.a = a
        self.b = b
    }

    /// The bounds of `a[aLow..<aHigh]` and `b[bLow..<bHigh]` without their common prefix and
    /// suffix.
    func trimmed(_ aLow: Int, _ aHigh: Int, _ bLow: Int, _ bHigh: Int) -> (Int, Int, Int, Int) {
        var (aLow, aHigh, bLow, bHigh) = (aLow, aHigh, bLow, bHigh)
        while aLow < aHigh && bLow < bHigh && a[aLow] == b[bLow] {
            aLow += 1
            bLow += 1
        }
        while aLow < aHigh && bLow < bHigh && a[aHigh - 1] == b[bHigh - 1] {
            aHigh -= 1
            bHigh -= 1
        }
        return (aLow, aHigh, bLow, bHigh)
    }

    /// A shortest edit script between `a[aLow..<aHigh]` and `b[bLow..<bHigh]`, as maximal
    /// (old range, new range) replacements in ascending order; `nil` if it is longer than
    /// `maxCost`. The inputs must already be trimmed.
    mutating func edits(_ aLow: Int, _ aHigh: Int, _ bLow: Int, _ bHigh: Int, maxCost: Int) -> [(old: Range<Int>, new: Range<Int>)]? {
        var result: [(old: Range<Int>, new: Range<Int>)] = []
        // Subproblems still to solve, the next one last; each with the cost it is known to have
        // (or `maxCost` for the first, where it is only bounded).
        var stack: [(aLow: Int, aHigh: Int, bLow: Int, bHigh: Int, cost: Int)] = [(aLow, aHigh, bLow, bHigh, maxCost)]
        var isFirst = true
        while let problem = stack.popLast() {
            let (aLow, aHigh, bLow, bHigh) = trimmed(problem.aLow, problem.aHigh, problem.bLow, problem.bHigh)
            if aLow == aHigh || bLow == bHigh {
                if aLow != aHigh || bLow != bHigh { append((aLow..<aHigh, bLow..<bHigh), to: &result) }
                isFirst = false
                continue
            }
            switch middle(aLow, aHigh, bLow, bHigh, maxCost: problem.cost) {
            case .tooCostly:
                // Only the first problem has an unknown cost; the others are solved within
                // theirs. (If that ever failed, replacing the whole part would stay correct.)
                if isFirst { return nil }
                append((aLow..<aHigh, bLow..<bHigh), to: &result)
            case .nothingInCommon:
                append((aLow..<aHigh, bLow..<bHigh), to: &result)
            case let .split(x, y, before, after):
                if isFirst && before + after > maxCost { return nil }
                if (x == aLow && y == bLow) || (x == aHigh && y == bHigh) {
                    // No progress (cannot happen for a trimmed problem); stay correct anyway.
                    append((aLow..<aHigh, bLow..<bHigh), to: &result)
                } else {
                    stack.append((x, aHigh, y, bHigh, after))
                    stack.append((aLow, x, bLow, y, before))
                }
            }
            isFirst = false
        }
        return result
    }

    /// Appends a replacement, joining it to the previous one when they touch.
    private func append(_ edit: (old: Range<Int>, new: Range<Int>), to result: inout [(old: Range<Int>, new: Range<Int>)]) {
        if let last = result.last, last.old.upperBound == edit.old.lowerBound, last.new.upperBound == edit.new.lowerBound {
            result[result.count - 1] = (last.old.lowerBound..<edit.old.upperBound, last.new.lowerBound..<edit.new.upperBound)
        } else {
            result.append(edit)
        }
    }

    enum Middle {
        /// A point (x, y) on a shortest path, with the costs of the paths before and after it.
        case split(x: Int, y: Int, before: Int, after: Int)
        /// The two parts share no element: the cost is n + m.
        case nothingInCommon
        /// The cost is more than the bound given.
        case tooCostly
    }

    /// Myers' bidirectional search on a trimmed, non-empty problem: extends d-paths from both
    /// corners, d = 0, 1, 2, …, until a forward and a reverse path meet on one diagonal.
    ///
    /// When they meet after a forward step (the cost D is odd, D = 2d − 1) or a reverse step
    /// (D even, D = 2d), the end (x, y) of the forward path lies on a shortest path: it is
    /// reached from the start with at most d moves, and (costs to the end only decrease along
    /// a diagonal) the end is reached from it with at most D − d. Neither half is empty, so
    /// the halves are strictly smaller problems.
    private mutating func middle(_ aLow: Int, _ aHigh: Int, _ bLow: Int, _ bHigh: Int, maxCost: Int) -> Middle {
        let n = aHigh - aLow
        let m = bHigh - bLow
        // Cost D is found at step ceil(D / 2); the loop below runs steps 0..<steps. With
        // D ≤ n + m − 2 whenever anything is in common, (n + m + 1) / 2 steps always suffice
        // for that; with a bound, ceil(bound / 2) + 1 suffice.
        let naturalSteps = (n + m + 1) / 2
        let boundedSteps = (maxCost + 1) / 2 + 1
        let steps = Swift.min(naturalSteps, boundedSteps)
        let grid = Grid(aLow: aLow, aHigh: aHigh, bLow: bLow, bHigh: bHigh, offset: steps + 1)
        resetPaths(count: grid.length)
        forward[grid.offset + 1] = 0
        reverse[grid.offset + 1] = 0
        // Diagonals that have run off the grid are not extended again.
        var forwardStart = 0, forwardEnd = 0, reverseStart = 0, reverseEnd = 0
        for d in 0..<steps {
            if let split = extendForward(d, grid, start: &forwardStart, end: &forwardEnd) { return split }
            if let split = extendReverse(d, grid, start: &reverseStart, end: &reverseEnd) { return split }
        }
        return steps == naturalSteps ? .nothingInCommon : .tooCostly
    }

    /// The subproblem `middle` searches, `a[aLow..<aHigh]` against `b[bLow..<bHigh]`, and where
    /// its diagonals are in `forward` and `reverse`.
    private struct Grid {
        let aLow: Int, aHigh: Int, bLow: Int, bHigh: Int
        let n: Int, m: Int
        /// Index of diagonal 0 in `forward` and `reverse`, and how many diagonals they hold.
        let offset: Int, length: Int
        /// n − m: forward diagonal k faces reverse diagonal `delta − k`.
        let delta: Int
        /// Whether the paths can meet after a forward step (the cost is odd), else after a
        /// reverse step.
        let meetsForward: Bool

        init(aLow: Int, aHigh: Int, bLow: Int, bHigh: Int, offset: Int) {
            (self.aLow, self.aHigh, self.bLow, self.bHigh) = (aLow, aHigh, bLow, bHigh)
            n = aHigh - aLow
            m = bHigh - bLow
            self.offset = offset
            length = 2 * offset + 1
            delta = n - m
            meetsForward = delta % 2 != 0
        }
    }

    /// Sets the first `count` diagonals of both directions to unreached (−1), growing the
    /// arrays when they are shorter.
    private mutating func resetPaths(count length: Int) {
        if forward.count < length {
            forward = Array(repeating: -1, count: length)
            reverse = Array(repeating: -1, count: length)
        } else {
            for index in 0..<length {
                forward[index] = -1
                reverse[index] = -1
            }
        }
    }

    /// Extends the forward (d − 1)-paths, from (0, 0), to d-paths; the split when one meets a
    /// reverse path. `start` and `end` count the diagonals at either side that ran off the grid.
    @inline(__always)
    private mutating func extendForward(_ d: Int, _ grid: Grid, start: inout Int, end: inout Int) -> Middle? {
        let (n, m, offset) = (grid.n, grid.m, grid.offset)
        // The texts as local constants: the optimizer keeps them at hand while the paths are
        // written (measured: fewer instructions than reading the properties).
        let (a, b) = (self.a, self.b)
        var k = -d + start
        while k <= d - end {
            let index = offset + k
            var x = k == -d || (k != d && forward[index - 1] < forward[index + 1])
                ? forward[index + 1] : forward[index - 1] + 1
            var y = x - k
            while x < n && y < m && a[grid.aLow + x] == b[grid.bLow + y] {
                x += 1
                y += 1
            }
            forward[index] = x
            if x > n {
                end += 2
            } else if y > m {
                start += 2
            } else if grid.meetsForward {
                let mirrored = offset + grid.delta - k
                if mirrored >= 0 && mirrored < grid.length && reverse[mirrored] != -1 && x >= n - reverse[mirrored] {
                    return .split(x: grid.aLow + x, y: grid.bLow + y, before: d, after: d - 1)
                }
            }
            k += 2
        }
        return nil
    }

    /// Extends the reverse (d − 1)-paths, from (n, m) in mirrored coordinates (x counts from
    /// the end), to d-paths; the split when one meets a forward path.
    @inline(__always)
    private mutating func extendReverse(_ d: Int, _ grid: Grid, start: inout Int, end: inout Int) -> Middle? {
        let (n, m, offset) = (grid.n, grid.m, grid.offset)
        let (a, b) = (self.a, self.b)  // (as in `extendForward`)
        var k = -d + start
        while k <= d - end {
            let index = offset + k
            var x = k == -d || (k != d && reverse[index - 1] < reverse[index + 1])
                ? reverse[index + 1] : reverse[index - 1] + 1
            var y = x - k
            while x < n && y < m && a[grid.aHigh - 1 - x] == b[grid.bHigh - 1 - y] {
                x += 1
                y += 1
            }
            reverse[index] = x
            if x > n {
                end += 2
            } else if y > m {
                start += 2
            } else if !grid.meetsForward {
                let mirrored = offset + grid.delta - k
                if mirrored >= 0 && mirrored < grid.length && forward[mirrored] != -1 {
                    let forwardX = forward[mirrored]
                    let forwardY = forwardX - (mirrored - offset)
                    if forwardX >= n - x {
                        return .split(x: grid.aLow + forwardX, y: grid.bLow + forwardY, before: d, after: d)
                    }
                }
            }
            k += 2
        }
        return nil
    }
}
