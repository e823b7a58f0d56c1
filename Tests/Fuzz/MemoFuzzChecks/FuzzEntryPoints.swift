// The C entry points of `memo-fuzz` (Tests/Fuzz/memo-fuzz/main.c): its `main` selects a target,
// then hands `memo_fuzz_test_one_input` to libFuzzer (or, in a build without libFuzzer, runs
// files through it once).

/// The target `memo_fuzz_test_one_input` runs.
nonisolated(unsafe) private var selectedTarget: FuzzTarget?
/// The seeds `memo_fuzz_seed` hands out, kept alive while the C side writes them.
nonisolated(unsafe) private var selectedSeeds: [[UInt8]] = []

/// Selects the target named `name` (a ``FuzzTarget`` raw value): 0, or -1 for an unknown name.
@_cdecl("memo_fuzz_select")
public func memoFuzzSelect(_ name: UnsafePointer<CChar>) -> Int32 {
    guard let target = FuzzTarget(rawValue: String(cString: name)) else { return -1 }
    selectedTarget = target
    selectedSeeds = target.seeds
    return 0
}

/// Prints the target names, one a line (for the usage message).
@_cdecl("memo_fuzz_print_targets")
public func memoFuzzPrintTargets() {
    for target in FuzzTarget.allCases { print("  \(target.rawValue)") }
}

/// Runs one input through the selected target; a failed semantic check stops the process with
/// its description (libFuzzer records the input as a crash).
@_cdecl("memo_fuzz_test_one_input")
public func memoFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let target = selectedTarget else { fatalError("memo-fuzz: no target selected") }
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    do {
        try target.check(input)
    } catch where !skippedChecks.contains(error.check) {
        fatalError("memo-fuzz \(target.rawValue): \(error)")
    } catch {
        // A check of a skipped kind failed where nothing after it could run.
    }
    return 0
}

/// Skips the checks of the kinds named in `names` (comma-separated ``FuzzCheck`` raw values, from
/// `MEMO_FUZZ_SKIP`): 0, or -1 for an unknown name.
@_cdecl("memo_fuzz_skip")
public func memoFuzzSkip(_ names: UnsafePointer<CChar>) -> Int32 {
    for name in String(cString: names).split(separator: ",") {
        guard let check = FuzzCheck(rawValue: String(name)) else { return -1 }
        skippedChecks.insert(check)
    }
    return 0
}

/// The number of seeds of the selected target.
@_cdecl("memo_fuzz_seed_count")
public func memoFuzzSeedCount() -> Int {
    selectedSeeds.count
}

/// Copies seed `index` of the selected target into `buffer` (of `capacity` bytes) and returns its
/// length, or -1 when it does not fit.
@_cdecl("memo_fuzz_seed")
public func memoFuzzSeed(_ index: Int, _ buffer: UnsafeMutablePointer<UInt8>, _ capacity: Int) -> Int {
    let seed = selectedSeeds[index]
    guard seed.count <= capacity else { return -1 }
    for (offset, byte) in seed.enumerated() { buffer[offset] = byte }
    return seed.count
}
