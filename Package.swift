// swift-tools-version: 6.0
//
// MemoSync: an offline-first replication engine for notes.
//
// Build flags:
// - MEMOSYNC_INTERNAL_CHECKS: every core type runs its full `checkInvariants()` at the end of
//   each mutation. This voids the documented complexity (checks are O(n) per edit), so it is on
//   only in debug builds, which is what `swift test` uses; release builds and benchmarks run
//   without it.
// - MEMOSYNC_MUTANTS: compiles the deliberately broken engine variants (`EngineMutant`) that
//   prove the simulation harness can find bugs (issue 5). Debug builds only: release builds
//   contain no mutant code at all.
import PackageDescription

let mutants: [SwiftSetting] = [
    .define("MEMOSYNC_MUTANTS", .when(configuration: .debug)),
]

let internalChecks: [SwiftSetting] = [
    .define("MEMOSYNC_INTERNAL_CHECKS", .when(configuration: .debug)),
] + mutants

let package = Package(
    name: "MemoSync",
    products: [
        .library(name: "MemoCRDT", targets: ["MemoCRDT"]),
        .library(name: "MemoSync", targets: ["MemoSync"]),
        .executable(name: "memo", targets: ["memo"]),
        .executable(name: "memo-bench", targets: ["memo-bench"]),
        .executable(name: "memo-sim", targets: ["memo-sim"]),
    ],
    targets: [
        // The pure core: identities, clocks, the text CRDT and its codec. Standard library only.
        .target(name: "MemoCRDT", swiftSettings: internalChecks),
        // Replicas, persistence, sync and blob stores. The logic is sans-I/O (state machines that
        // ask for store and disk operations); drivers for real folders and disks live beside it.
        .target(name: "MemoSync", dependencies: ["MemoCRDT"], swiftSettings: internalChecks),
        // The command line front end.
        .executableTarget(name: "memo", dependencies: ["MemoSync"]),
        .executableTarget(name: "memo-bench", dependencies: ["MemoCRDT", "MemoSync"]),
        // A child process the crash-safety test kills at random moments.
        .executableTarget(name: "memo-crash-child", dependencies: ["MemoCRDT", "MemoSync"], path: "Tests/CrashChild"),
        // The deterministic simulation harness (issue 5): many replicas of the real engine against
        // a simulated store, disk and clock, under faults, from a seed.
        .target(
            name: "MemoSimulation", dependencies: ["MemoCRDT", "MemoSync"], path: "Simulations/MemoSimulation",
            swiftSettings: mutants),
        .executableTarget(name: "memo-sim", dependencies: ["MemoSimulation"], path: "Simulations/memo-sim"),
        // The fuzz targets (Tests/Fuzz/README.md): one check per decoder and apply path, shared by
        // the libFuzzer driver and the fixture regression tests. Public API only.
        .target(name: "MemoFuzzChecks", dependencies: ["MemoCRDT", "MemoSync"], path: "Tests/Fuzz/MemoFuzzChecks"),
        // The libFuzzer driver (C: SwiftPM renames a Swift executable's `main`). The ordinary build
        // gets a replay loop; `Tests/Fuzz/fuzz.sh` builds it with libFuzzer and AddressSanitizer
        // (`-sanitize=fuzzer,address`, `-DMEMOSYNC_LIBFUZZER`) under its own scratch path.
        .executableTarget(name: "memo-fuzz", dependencies: ["MemoFuzzChecks"], path: "Tests/Fuzz/memo-fuzz"),
        // Shared by every test target: seeded random sources and the reference models.
        .target(name: "TestSupport", dependencies: ["MemoCRDT"], path: "Tests/TestSupport"),
        .testTarget(
            name: "MemoCRDTTests",
            dependencies: ["MemoCRDT", "TestSupport"],
            swiftSettings: internalChecks
        ),
        .testTarget(
            name: "MemoSyncTests",
            dependencies: ["MemoSync", "MemoCRDT", "TestSupport"],
            swiftSettings: internalChecks
        ),
        // Runs the built `memo` executable as a subprocess.
        .testTarget(name: "MemoCLITests", dependencies: ["MemoSync", "MemoCRDT"]),
        // Every fuzz fixture (a crash the fuzzers found, Tests/Fixtures/fuzz) and every seed
        // through its target's checks.
        .testTarget(name: "FuzzRegressionTests", dependencies: ["MemoFuzzChecks"]),
        .testTarget(
            name: "SimulationTests",
            dependencies: ["MemoSimulation", "MemoSync", "MemoCRDT", "TestSupport"],
            swiftSettings: mutants
        ),
    ],
    swiftLanguageModes: [.v6]
)
