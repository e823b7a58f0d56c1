// ============================================================================================
// PLATFORM FILE: the only file in MemoNotes that calls the operating system's C library.
// ============================================================================================
//
// A memory hint and nothing else: no I/O, nothing that changes a result. On Linux it asks the
// kernel to back a large buffer about to be filled with 2 MiB pages (`madvise(MADV_HUGEPAGE)`);
// elsewhere it does nothing. The buffer's contents are the same either way.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Large pages for large buffers about to be filled (here, and for MemoSync's state file reads).
package enum LargePages {
    /// Asks Linux to back the 2 MiB-aligned middle of `buffer`, about to be filled, with large
    /// pages: one page fault and one page cleared per 2 MiB instead of per 4 KiB. The first
    /// search at 100,000 memos writes 200 MB of keys into fresh memory, and its page faults were
    /// a quarter of its folding (BENCHMARKS.md, "The first search's keys left where they were
    /// folded"); opening a library reads its state file into fresh memory the same way.
    /// Buffers under 8 MiB, and other systems, are left as they are.
    package static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
            let largePageBytes = 2 << 20
            guard buffer.count >= 4 * largePageBytes, let base = buffer.baseAddress else { return }
            let start = (Int(bitPattern: base) + largePageBytes - 1) & ~(largePageBytes - 1)
            let end = (Int(bitPattern: base) + buffer.count) & ~(largePageBytes - 1)
            guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
            _ = madvise(aligned, end - start, MADV_HUGEPAGE)
        #endif
    }

    /// An empty array with room for `capacity` bytes, advised as ``advise(_:)`` says.
    static func emptyBuffer(capacity: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            advise(UnsafeMutableRawBufferPointer(buffer))
            initialized = 0
        }
    }
}
