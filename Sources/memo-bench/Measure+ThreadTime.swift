// A call's time on this thread, split into what it computed and what it waited for: for the
// slowest keystrokes of `memo-bench remote` (issue 25), whether the engine made them wait or
// the operating system gave the processor to another thread.
//
// PLATFORM CODE: Linux counts a thread's context switches (`getrusage(RUSAGE_THREAD)`); other
// systems report the wall time and the thread's processor time, with no switch counts.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Measure {
    /// One timed call on the calling thread.
    struct ThreadTiming: Sendable {
        /// From start to end, on a monotonic clock.
        var wallMilliseconds: Double
        /// What this thread computed meanwhile (user and system).
        var processorMilliseconds: Double
        /// Times the thread gave up the processor to wait (a lock, a page read): Linux only.
        var voluntarySwitches: Int
        /// Times the system took the processor away for another thread: Linux only.
        var involuntarySwitches: Int
    }

    /// Runs `body` and times it on this thread: wall time, this thread's processor time, and
    /// (Linux) its voluntary and involuntary context switches.
    static func threadTimed<Result, Failure: Error>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> (result: Result, timing: ThreadTiming) {
        let before = ThreadCounters.now()
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        let elapsed = clock.now - start
        let after = ThreadCounters.now()
        return (result, ThreadTiming(
            wallMilliseconds: milliseconds(elapsed),
            processorMilliseconds: (after.processorNanoseconds - before.processorNanoseconds) / 1e6,
            voluntarySwitches: after.voluntarySwitches - before.voluntarySwitches,
            involuntarySwitches: after.involuntarySwitches - before.involuntarySwitches))
    }

    private struct ThreadCounters {
        var processorNanoseconds: Double
        var voluntarySwitches: Int
        var involuntarySwitches: Int

        static func now() -> ThreadCounters {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            var counters = ThreadCounters(
                processorNanoseconds: Double(time.tv_sec) * 1e9 + Double(time.tv_nsec), voluntarySwitches: 0, involuntarySwitches: 0)
            #if os(Linux)
                // RUSAGE_THREAD (1 on Linux) is behind _GNU_SOURCE, which Swift's Glibc does not set.
                let rusageThread: Int32 = 1
                var usage = rusage()
                if getrusage(rusageThread, &usage) == 0 {
                    counters.voluntarySwitches = usage.ru_nvcsw
                    counters.involuntarySwitches = usage.ru_nivcsw
                }
            #endif
            return counters
        }
    }
}
