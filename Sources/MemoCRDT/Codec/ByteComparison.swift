// Comparing byte strings for equality.
//
// `Sequence.elementsEqual` is generic: in an unoptimized build (the test command's self-check
// build, where the engine compares cached bodies, prefixes and search keys at every change) it
// walks two iterators through witness calls, byte by byte: 14 % of a debug simulation run
// (`perf record` of `memo-sim --seed 1 --steps 150 --replicas 4`, 2026-12-02). These compare
// eight bytes at a time through raw pointers, which is fast in either build.

package enum ByteComparison {
    /// Whether `a` and `b` hold the same bytes.
    package static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        let count = a.count
        var offset = 0
        while offset + 8 <= count {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                return false
            }
            offset += 8
        }
        while offset < count {
            if a[offset] != b[offset] { return false }
            offset += 1
        }
        return true
    }

    /// Whether `a` and `b` hold the same bytes.
    package static func equal(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { left in b.withUnsafeBytes { right in equal(left, right) } }
    }

    /// Whether `a` and `b` hold the same bytes.
    package static func equal(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
        equal(a[...], b)
    }
}
