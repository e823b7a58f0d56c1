// The baseline for the sequential replays: a plain, non-collaborative text buffer.
//
// Design. A gap buffer of Unicode scalar values (one `UInt32` per scalar, so a scalar offset is
// an array index and needs no scanning), in one manually managed allocation:
//
//     [ text before the gap | gap (free) | text after the gap ]
//     0                  gapStart     gapEnd            capacity
//
// An edit at scalar offset p first moves the gap to p with one `memmove` of the scalars between
// the old and new gap position (editing traces are local, so this is usually a few bytes), then
// deletes by widening the gap and inserts by copying pre-decoded scalars into it. When the gap is
// too small, the buffer grows geometrically (doubling, at least to fit), so inserting is
// amortised O(1) per scalar plus the gap move. There is no per-edit allocation, no bounds-checked
// Array access in the inner loops, and no undo or line index: this is close to the fastest
// simple structure for replaying a local editing trace, which is what a fair baseline should be.
//
// It is fed the same patches as the CRDT, with the inserted text already decoded to scalars at
// parse time (the CRDT gets the `String` and pays for reading its UTF-8 itself).

import Foundation

/// Why the baseline buffer refused an edit.
enum GapBufferError: Error, CustomStringConvertible {
    /// The deleted range, or the insertion point, is not inside the text.
    case rangeOutOfBounds(positionScalars: Int, deleteCountScalars: Int, lengthScalars: Int)

    var description: String {
        switch self {
        case let .rangeOutOfBounds(position, deleteCount, length):
            "baseline: range \(position)..<\(position + deleteCount) is not inside the text (length \(length))"
        }
    }
}

/// A gap buffer of Unicode scalar values: the plain-text baseline the CRDT is compared with.
/// See the comment at the top of this file for its design.
final class ScalarGapBuffer {
    private var storage: UnsafeMutablePointer<UInt32>
    private var capacityScalars: Int
    private var gapStart: Int
    private var gapEnd: Int

    /// Creates an empty buffer with room for `initialCapacityScalars` scalars before it grows.
    init(initialCapacityScalars: Int = 1024) {
        capacityScalars = max(16, initialCapacityScalars)
        storage = .allocate(capacity: capacityScalars)
        gapStart = 0
        gapEnd = capacityScalars
    }

    deinit {
        storage.deallocate()
    }

    /// The length of the text in Unicode scalars.
    var countScalars: Int { capacityScalars - (gapEnd - gapStart) }

    /// Deletes `deleteCountScalars` scalars at `positionScalars`, then inserts the scalars of
    /// `inserted` there.
    ///
    /// - Throws: ``GapBufferError/rangeOutOfBounds(positionScalars:deleteCountScalars:lengthScalars:)``
    ///   when the deleted range is not inside the text; the text is then unchanged.
    /// - Complexity: O(d + m + g) for d deleted, m inserted scalars, and a gap move over g scalars
    ///   (amortised, counting growth).
    func replace(
        positionScalars: Int, deleteCountScalars: Int, with inserted: UnsafeBufferPointer<UInt32>
    ) throws(GapBufferError) {
        let length = countScalars
        guard positionScalars >= 0, deleteCountScalars >= 0, positionScalars <= length,
            deleteCountScalars <= length - positionScalars
        else {
            throw .rangeOutOfBounds(
                positionScalars: positionScalars, deleteCountScalars: deleteCountScalars, lengthScalars: length)
        }
        moveGap(to: positionScalars)
        gapEnd += deleteCountScalars
        if inserted.isEmpty { return }
        if gapEnd - gapStart < inserted.count { grow(toFit: inserted.count) }
        (storage + gapStart).initialize(from: inserted.baseAddress!, count: inserted.count)
        gapStart += inserted.count
    }

    /// The text, as a `String`.
    ///
    /// - Complexity: O(n).
    var string: String {
        var view = String.UnicodeScalarView()
        func append(_ range: Range<Int>) {
            for index in range {
                // Every value came from a decoded `Unicode.Scalar`, so this never fails.
                if let scalar = Unicode.Scalar(storage[index]) { view.append(scalar) }
            }
        }
        append(0..<gapStart)
        append(gapEnd..<capacityScalars)
        return String(view)
    }

    /// Moves the gap so that it starts at scalar offset `position` (which must be valid).
    private func moveGap(to position: Int) {
        if position < gapStart {
            // Text in position..<gapStart moves to just before gapEnd.
            let moved = gapStart - position
            memmove(storage + gapEnd - moved, storage + position, moved * MemoryLayout<UInt32>.stride)
            gapStart = position
            gapEnd -= moved
        } else if position > gapStart {
            // Text in gapEnd..<gapEnd + moved moves to gapStart.
            let moved = position - gapStart
            memmove(storage + gapStart, storage + gapEnd, moved * MemoryLayout<UInt32>.stride)
            gapStart += moved
            gapEnd += moved
        }
    }

    /// Reallocates so that the gap holds at least `neededScalars`, at least doubling the capacity.
    private func grow(toFit neededScalars: Int) {
        let length = countScalars
        let newCapacity = max(capacityScalars * 2, length + neededScalars)
        let newStorage = UnsafeMutablePointer<UInt32>.allocate(capacity: newCapacity)
        let tailCount = capacityScalars - gapEnd
        newStorage.initialize(from: storage, count: gapStart)
        (newStorage + newCapacity - tailCount).initialize(from: storage + gapEnd, count: tailCount)
        storage.deallocate()
        storage = newStorage
        gapEnd = newCapacity - tailCount
        capacityScalars = newCapacity
    }
}
