// Measuring: wall-clock time on a monotonic clock, medians, and resident memory.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Timing and memory measurements.
enum Measure {
    // MARK: Time

    /// Runs `body` once and returns its result with the elapsed time in milliseconds, measured
    /// with `ContinuousClock` (monotonic).
    static func timed<Result, Failure: Error>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> (result: Result, milliseconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        let elapsed = clock.now - start
        return (result, milliseconds(elapsed))
    }

    /// ``timed(_:)`` for an async body (a sync, a save).
    static func timed<Result, Failure: Error>(
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> (result: Result, milliseconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await body()
        let elapsed = clock.now - start
        return (result, milliseconds(elapsed))
    }

    /// The processor time this process has used so far (user and system, every thread), in
    /// milliseconds: on a shared, loaded machine, what a piece of work costs apart from
    /// waiting for a processor.
    static func processorMilliseconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            let who = RUSAGE_SELF.rawValue
        #else
            let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        func ms(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000 + Double(time.tv_usec) / 1_000 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }

    /// A `Duration` in milliseconds.
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }

    /// The median of `values` (the mean of the two middle values for an even count; 0 when empty).
    static func median(_ values: [Double]) -> Double {
        if values.isEmpty { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Runs `body` `runs` times and returns the median time in milliseconds and the result of the
    /// first run. Each result is dropped (deallocated) outside the timed region.
    static func medianMilliseconds<Result, Failure: Error>(
        runs: Int, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> (firstResult: Result, milliseconds: Double) {
        precondition(runs >= 1)
        let first = try timed(body)
        var times = [first.milliseconds]
        for _ in 1..<runs {
            let run = try timed(body)
            times.append(run.milliseconds)
        }
        return (first.result, median(times))
    }

    // MARK: Memory

    /// Bytes in one MiB.
    static let bytesPerMebibyte = 1024.0 * 1024.0

    /// The peak resident set size of this process, in MiB, from `getrusage`'s `ru_maxrss` (KiB
    /// on Linux, bytes on Darwin): since the process started, or on Linux since the last
    /// ``resetPeakResident()``.
    static func peakResidentMebibytes() -> Double? {
        var usage = rusage()
        #if os(Linux)
            guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
            return Double(usage.ru_maxrss) * 1024 / bytesPerMebibyte
        #elseif canImport(Darwin)
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Double(usage.ru_maxrss) / bytesPerMebibyte
        #else
            return nil
        #endif
    }

    /// Linux-only: resets the process's resident-memory high-water mark (the one `ru_maxrss`
    /// reports) to the current RSS, by writing `5` to `/proc/self/clear_refs` (Linux 4.0 and
    /// later). `memo-bench` calls it before loading each trace, after releasing free heap memory,
    /// so that with `memo-bench all` each trace's `peak_rss_mib` is its own peak (from loading
    /// its JSON on) rather than the largest trace's so far. Does nothing elsewhere or on failure.
    static func resetPeakResident() {
        #if os(Linux)
            let descriptor = open("/proc/self/clear_refs", O_WRONLY)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            _ = write(descriptor, "5", 1)
        #endif
    }

    /// Linux-only: the current resident set size of this process in bytes, read from the second
    /// field of `/proc/self/statm` (resident pages) times the page size. `nil` on other systems
    /// or when the file cannot be read.
    static func currentResidentBytes() -> Int? {
        #if os(Linux)
            let descriptor = open("/proc/self/statm", O_RDONLY)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: " ")
            guard fields.count >= 2, let residentPages = Int(fields[1]) else { return nil }
            return residentPages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
            return nil
        #endif
    }

    /// Linux-only: asks glibc's allocator to return free heap memory to the system
    /// (`malloc_trim(0)`, which also releases free pages in the middle of the heap), so that an
    /// RSS reading counts live memory rather than garbage the allocator keeps cached. Looked up
    /// with `dlsym` because the Glibc module does not export it; does nothing where it is absent
    /// (musl, other systems).
    static func releaseFreeHeapMemory() {
        #if os(Linux)
            typealias MallocTrim = @convention(c) (Int) -> Int32
            guard let process = dlopen(nil, RTLD_NOW) else { return }
            defer { dlclose(process) }
            guard let symbol = dlsym(process, "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    /// The resident memory, in MiB, that the document built by `build` adds to the process while
    /// it is alive, with the document (kept alive until the second reading). The figure is nil
    /// where RSS cannot be read (not Linux).
    ///
    /// How it is measured: free heap memory is released to the system (``releaseFreeHeapMemory()``)
    /// and RSS is read from `/proc/self/statm`; `build` runs and its result is kept alive; free
    /// memory is released again (garbage from building — intermediate buffers, deltas, other
    /// replicas — is gone by then, as `build` returns only the document) and RSS is read again.
    /// The difference is the pages the document's live allocations occupy, including the slack
    /// capacity of its growable arrays and allocator overhead, rounded to pages. It is an
    /// estimate: allocations that land in pages already resident are not counted, and memory
    /// the runtime keeps for itself after the first use (type metadata, caches) is.
    static func documentResidentMebibytes<Document>(
        _ build: () -> Document
    ) -> (document: Document, mebibytes: Double?) {
        releaseFreeHeapMemory()
        let before = currentResidentBytes()
        let document = build()
        releaseFreeHeapMemory()
        let after = currentResidentBytes()
        return withExtendedLifetime(document) {
            guard let before, let after else { return (document, nil) }
            return (document, Double(after - before) / bytesPerMebibyte)
        }
    }
}
