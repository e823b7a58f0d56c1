import Testing

@testable import MemoServe

/// SERVE.md: "What pages type is saved 300 to 500 ms after the last change, and at least every
/// second while typing goes on". The host looks every `pollMilliseconds` and saves when
/// `LibraryHost.saveIsDue` says so; this plays that loop against typing on a simulated clock
/// (no sleeps), for every phase of the looks against the keystrokes.
@Suite struct ServeSaveTimingTests {
    /// Typing every `typingEveryMilliseconds` from 0 to `typingMilliseconds`, looks every poll
    /// starting at `firstLook`: for each change, how long it waited to be saved.
    static func waits(typingEveryMilliseconds: UInt64, typingMilliseconds: UInt64, firstLook: UInt64) -> [UInt64] {
        let configuration = ServeConfiguration(libraryPath: "/nonexistent")
        let base: UInt64 = 1_000_000
        var changes = Array(stride(from: base, to: base + typingMilliseconds, by: Int(typingEveryMilliseconds)))
        var unsavedSince: UInt64 = 0
        var lastChange: UInt64 = 0
        var waits: [UInt64] = []
        var pending: [UInt64] = []
        var look = base + firstLook
        while look < base + typingMilliseconds + 5_000 {
            // The changes made before this look.
            while let next = changes.first, next <= look {
                changes.removeFirst()
                if unsavedSince == 0 { unsavedSince = next }
                lastChange = next
                pending.append(next)
            }
            if unsavedSince > 0 && LibraryHost.saveIsDue(lastChange: lastChange, unsavedSince: unsavedSince, now: look, configuration) {
                waits += pending.map { look - $0 }
                pending = []
                unsavedSince = 0
            }
            look += UInt64(configuration.pollMilliseconds)
        }
        #expect(pending.isEmpty && changes.isEmpty)
        return waits
    }

    @Test func typingIsSavedAtLeastEverySecondAndSoonAfterItStops() {
        for every: UInt64 in [10, 50, 120, 290] {
            for firstLook in stride(from: UInt64(0), to: 200, by: 10) {
                let waits = Self.waits(typingEveryMilliseconds: every, typingMilliseconds: 5_000, firstLook: firstLook)
                // No change waits more than a second.
                #expect(waits.allSatisfy { $0 <= 1_000 }, "typing every \(every) ms, first look at \(firstLook): \(waits.max() ?? 0) ms")
            }
        }
        // One change alone: saved 300 to 500 ms after it.
        for firstLook in stride(from: UInt64(0), to: 200, by: 10) {
            let alone = Self.waits(typingEveryMilliseconds: 10_000, typingMilliseconds: 1, firstLook: firstLook)
            #expect(alone.count == 1 && (300...500).contains(alone[0]), "first look at \(firstLook): \(alone)")
        }
    }
}
