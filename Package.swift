// swift-tools-version: 6.0
//
// MemoSync: an offline-first replication engine for notes.
//
// Three library modules, each depending only on those below it:
//   MemoCRDT   the replicated data types: identities, version vectors, Lamport and hybrid clocks,
//              the text CRDT, the codec primitives.
//   MemoNotes  the notes model: memos, the notebook, undo, search, plain text for sharing.
//   MemoSync   replicas, the local library, sync, blob stores; re-exports the two below, so an
//              app writes `import MemoSync` only.
// Above them: `memo` (the command line), `memo-bench`, `MemoSimulation`/`memo-sim`, the fuzz
// checks and the tests.
//
// Self-checks, for the project's own tests only (`Tests/run.sh`, the test command README gives
// and `.ci/run` runs, sets MEMOSYNC_SELF_CHECKS=1). Without that variable, which is every client
// app's build, Debug included, none of this code is compiled:
// - MEMOSYNC_INTERNAL_CHECKS: the core types run their `checkInvariants()` at the end of
//   mutations (spaced out as they grow: README, "Tests"). This voids the documented complexity
//   (checks are O(n) per edit).
// - MEMOSYNC_MUTANTS: compiles the deliberately broken engine variants (`EngineMutant`) that
//   prove the simulation harness can find bugs (issue 5), and their hooks in the engine.
// Both apply to debug builds only: release builds and benchmarks never contain them.
import PackageDescription

/// Whether the project's own test command asked for self-checks (`Tests/run.sh`).
let selfChecks = Context.environment["MEMOSYNC_SELF_CHECKS"] == "1"

let mutants: [SwiftSetting] = selfChecks ? [
    .define("MEMOSYNC_MUTANTS", .when(configuration: .debug)),
] : []

/// Test hooks of the `memo` command (Sources/memo/TestHooks.swift), for the CLI tests of the
/// self-check build only.
let testHooks: [SwiftSetting] = selfChecks ? [
    .define("MEMOSYNC_TEST_HOOKS", .when(configuration: .debug)),
] : []

/// The self-check build compiles the two lowest modules optimized (`-O`), with `assert` kept
/// (`-assert-config Debug`) and their checks compiled in as above. Their self-checks run at
/// every mutation and walk generic standard-library code, which an unoptimized build runs
/// through witness calls and metadata lookups: the tests took about 800 processor seconds,
/// now about 350, for about 120 s more of building on two cores (BENCHMARKS.md, "The engine's
/// lowest modules optimized in the self-check build"). An app's
/// build never gets these flags (no `MEMOSYNC_SELF_CHECKS`: the list is empty).
let optimizedSelfChecks: [SwiftSetting] = selfChecks ? [
    .unsafeFlags(["-O", "-assert-config", "Debug"], .when(configuration: .debug)),
] : []

let internalChecks: [SwiftSetting] = (selfChecks ? [
    .define("MEMOSYNC_INTERNAL_CHECKS", .when(configuration: .debug)),
] : []) + mutants

let package = Package(
    name: "MemoSync",
    // The releases that ship the Swift 6 runtime: typed throws through generic function types
    // (the benchmarks' `Measure`), `AsyncStream.makeStream` (replica events) and Swift 6
    // concurrency checking need it. Built and tested on Linux only (README, "Platforms").
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "MemoCRDT", targets: ["MemoCRDT"]),
        .library(name: "MemoNotes", targets: ["MemoNotes"]),
        .library(name: "MemoSync", targets: ["MemoSync"]),
        // For an app's own tests: an in-memory blob store and library folder. Never in an app.
        .library(name: "MemoSyncTesting", targets: ["MemoSyncTesting"]),
        // Stores over HTTP (S3-compatible buckets, WebDAV folders): a module of its own, so an app
        // that does not use them does not link FoundationNetworking.
        .library(name: "MemoSyncRemote", targets: ["MemoSyncRemote"]),
        .executable(name: "memo", targets: ["memo"]),
        .executable(name: "memo-bench", targets: ["memo-bench"]),
        .executable(name: "memo-sim", targets: ["memo-sim"]),
    ],
    targets: [
        // The pure core: identities, clocks, the text CRDT and its codec. Standard library only,
        // and one C function: the processor's CRC-32C instruction (`CMemoCRC32C`, asked at run
        // time; a table where there is none).
        .target(name: "MemoCRDT", dependencies: ["CMemoCRC32C"], swiftSettings: internalChecks + optimizedSelfChecks),
        .target(name: "CMemoCRC32C"),
        // The notes model on the text CRDT: memos, notebook, undo, search. Standard library only.
        .target(name: "MemoNotes", dependencies: ["MemoCRDT"], swiftSettings: internalChecks + optimizedSelfChecks),
        // Replicas, persistence, sync and blob stores. The logic is sans-I/O (state machines that
        // ask for store and disk operations); drivers for real folders and disks live beside it.
        // Encryption (issue 16) uses the platform's cryptography: CryptoKit on Apple platforms, the
        // system's libcrypto (OpenSSL 3) on Linux, through the system library target below.
        .target(
            name: "MemoSync",
            dependencies: ["MemoNotes", "MemoCRDT", .target(name: "CLibCrypto", condition: .when(platforms: [.linux]))],
            swiftSettings: internalChecks),
        // The system's libcrypto (a system library, not a package): `Tests/setup-system.sh`
        // installs Debian's libssl-dev when pkg-config does not find it.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Blob stores over HTTP: S3-compatible object storage (SigV4) and WebDAV, and store URLs.
        .target(name: "MemoSyncRemote", dependencies: ["MemoSync"]),
        // An in-memory store and library folder for tests (this package's and an app's).
        .target(name: "MemoSyncTesting", dependencies: ["MemoSync"]),
        // `memo serve`'s notes app in the browser (a front end: the engine's public API only):
        // the HTTP server, the page <-> server scheme, the page's files.
        .target(name: "MemoServe", dependencies: ["MemoSync", "MemoNotes", "MemoCRDT"]),
        // The command line front end.
        .executableTarget(name: "memo", dependencies: ["MemoSync", "MemoSyncRemote", "MemoNotes", "MemoCRDT", "MemoServe"], swiftSettings: testHooks),
        .executableTarget(name: "memo-bench", dependencies: ["MemoCRDT", "MemoNotes", "MemoSync", "MemoSyncRemote", "MemoSyncTesting"]),
        // A child process the crash-safety test kills at random moments.
        .executableTarget(name: "memo-crash-child", dependencies: ["MemoCRDT", "MemoSync"], path: "Tests/CrashChild"),
        // The deterministic simulation harness (issue 5): many replicas of the real engine against
        // a simulated store, disk and clock, under faults, from a seed.
        .target(
            name: "MemoSimulation", dependencies: ["MemoCRDT", "MemoNotes", "MemoSync"], path: "Simulations/MemoSimulation",
            swiftSettings: mutants),
        .executableTarget(name: "memo-sim", dependencies: ["MemoSimulation"], path: "Simulations/memo-sim"),
        // The fuzz targets (Tests/Fuzz/README.md): one check per decoder and apply path, shared by
        // the libFuzzer driver and the fixture regression tests. Public and package API (never internals).
        .target(name: "MemoFuzzChecks", dependencies: ["MemoCRDT", "MemoNotes", "MemoSync", "MemoSyncRemote", "MemoSyncTesting"], path: "Tests/Fuzz/MemoFuzzChecks"),
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
            name: "MemoNotesTests",
            dependencies: ["MemoNotes", "MemoCRDT", "TestSupport"],
            swiftSettings: internalChecks
        ),
        .testTarget(
            name: "MemoSyncTests",
            dependencies: ["MemoSync", "MemoSyncTesting", "MemoNotes", "MemoCRDT", "TestSupport"],
            swiftSettings: internalChecks
        ),
        // Runs the built `memo` executable as a subprocess.
        .testTarget(name: "MemoCLITests", dependencies: ["memo", "MemoSync", "MemoNotes", "MemoCRDT", "TestSupport"]),
        // Every fuzz fixture (a crash the fuzzers found, Tests/Fixtures/fuzz) and every seed
        // through its target's checks.
        .testTarget(name: "FuzzRegressionTests", dependencies: ["MemoFuzzChecks"]),
        // The remote stores: the signer, parsers and retry policy, and the stores against real
        // servers (SeaweedFS, wsgidav) that Tests/Servers/servers.sh starts.
        .testTarget(
            name: "MemoSyncRemoteTests",
            dependencies: ["MemoSyncRemote", "MemoSync", "MemoSyncTesting", "MemoNotes", "MemoCRDT", "TestSupport"]
        ),
        // `memo serve`: the HTTP layer and its refusals, the page <-> server scheme, the host.
        .testTarget(name: "MemoServeTests", dependencies: ["MemoServe", "MemoSync", "MemoNotes", "MemoCRDT"]),
        // Issue 29: every ```swift block of README.md and the DocC catalogs, compiled as an app
        // writes it (the public modules only, no @testable: `-package-name` is set apart from the
        // package's, so `package` declarations are out of reach too), and a test that each block
        // is in these sources verbatim; and tests that run what the snippets say they do (with
        // TestSupport's seeded generator, itself public API of a test module).
        .testTarget(
            name: "DocSnippetTests",
            dependencies: ["MemoSync", "MemoCRDT", "TestSupport"],
            swiftSettings: [.unsafeFlags(["-package-name", "memosync_doc_snippets"])]
        ),
        .testTarget(
            name: "SimulationTests",
            dependencies: ["MemoSimulation", "MemoSync", "MemoNotes", "MemoCRDT", "TestSupport"],
            swiftSettings: mutants
        ),
    ],
    swiftLanguageModes: [.v6]
)
