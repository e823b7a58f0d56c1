// Hooks for the project's own tests, compiled only into a self-check debug build
// (MEMOSYNC_TEST_HOOKS, Package.swift): never in a release or an app's build, which gets only
// the inert versions at the end of this file.

import Foundation
import MemoSync

#if MEMOSYNC_TEST_HOOKS

/// A store that holds its first read of a blob until the test says so: with
/// `MEMO_TEST_STORE_GATE=DIR`, the first `read` creates `DIR/reading` and waits until
/// `DIR/go` exists (a store that answers slowly, without timing). Everything else passes
/// through at once.
final class GatedStore: BlobStore {
    let inner: any BlobStore
    let gate: String
    private let held = NSLock()
    private nonisolated(unsafe) var passed = false

    init(inner: any BlobStore, gate: String) {
        self.inner = inner
        self.gate = gate
    }

    func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] { try await inner.list(prefix: prefix) }
    func listing(prefix: String) async throws(BlobStoreError) -> BlobListing { try await inner.listing(prefix: prefix) }
    func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) { try await inner.write(key: key, bytes: bytes) }
    func delete(key: String) async throws(BlobStoreError) { try await inner.delete(key: key) }

    func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        let first = held.withLock { () -> Bool in
            defer { passed = true }
            return !passed
        }
        if first {
            _ = FileManager.default.createFile(atPath: gate + "/reading", contents: Data())
            while !FileManager.default.fileExists(atPath: gate + "/go") {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        return try await inner.read(key: key)
    }
}

extension EncryptionSession {
    /// The scrypt cost (log2 N) of a store `memo sync --encrypt` turns encrypted:
    /// `MEMO_TEST_SCRYPT_LOG2N=n` for the tests (in a debug build, one derivation at the
    /// default 2^15 takes about a second, and the encryption tests make dozens), else the
    /// default. Unlocking takes the cost from the key blob, so one test's store stays cheap.
    func scryptLog2NForNewStores() -> Int {
        environment["MEMO_TEST_SCRYPT_LOG2N"].flatMap { Int($0) } ?? KeyDerivation.defaultLog2N
    }
}

extension Runner {
    /// `environment` with its wall clock stopped at `MEMO_TEST_NOW_MILLISECONDS` when that is
    /// set (history retention against a clock the test moves).
    func clockedForTests(_ environment: ReplicaEnvironment) -> ReplicaEnvironment {
        guard let text = self.environment["MEMO_TEST_NOW_MILLISECONDS"], let now = UInt64(text) else { return environment }
        return ReplicaEnvironment(wallMilliseconds: { now }, randomUInt64: environment.randomUInt64)
    }

    /// `memo store decrypt` finished its step `step` (EncryptionCommands.swift numbers them):
    /// with `MEMO_TEST_STOP_DECRYPT_AFTER=step` the process ends at once (exit status 86:
    /// nothing closed, saved or flushed, as a kill would leave it).
    func decryptStepDone(_ step: Int) {
        guard environment["MEMO_TEST_STOP_DECRYPT_AFTER"] == String(step) else { return }
        _exit(86)
    }

    /// `memo serve` is about to catch SIGINT and SIGTERM, before it prints its address: with
    /// `MEMO_TEST_SERVE_SIGNAL_GAP_MS=N` it waits N ms there, so that a server that printed its
    /// address before catching them would show it in a moment a stop signal is lost.
    static func serveSignalGap(_ environment: [String: String]) {
        guard let text = environment["MEMO_TEST_SERVE_SIGNAL_GAP_MS"], let milliseconds = UInt32(text) else { return }
        usleep(min(milliseconds, 60_000) * 1000)  // at most a minute: no overflow
    }

    /// `memo store decrypt` fails at its step `step` (2: deleting the key blobs; 4: turning the
    /// library plain; 6: publishing in plain text) with `MEMO_TEST_FAIL_DECRYPT_AT=step`, as a
    /// store or disk would (the steps as `decryptStepDone` numbers them: the one after it).
    func decryptFailsForTests(at step: Int) -> Bool {
        environment["MEMO_TEST_FAIL_DECRYPT_AT"] == String(step)
    }

    /// `memo export --all` fails putting its file number `n` in place (0 is the first) with
    /// `MEMO_TEST_FAIL_EXPORT_AT=n`, as a disk would, after the files before it were put.
    func exportFailureForTests() -> Int? {
        environment["MEMO_TEST_FAIL_EXPORT_AT"].flatMap { Int($0) }
    }

    /// Writing the undo history (cli-history.json) fails as on a full disk, writing nothing,
    /// with `MEMO_TEST_FAIL_HISTORY_WRITE=1`.
    func historyWriteFailsForTests() -> Bool {
        environment["MEMO_TEST_FAIL_HISTORY_WRITE"] == "1"
    }

    /// `store` behind the test gate when `MEMO_TEST_STORE_GATE` is set.
    func gatedForTests(_ store: any BlobStore) -> any BlobStore {
        guard let gate = environment["MEMO_TEST_STORE_GATE"], !gate.isEmpty else { return store }
        return GatedStore(inner: store, gate: gate)
    }
}
#else
extension EncryptionSession {
    /// The scrypt cost of a store `memo sync --encrypt` turns encrypted: the default outside the
    /// self-check build's tests.
    @inline(__always)
    func scryptLog2NForNewStores() -> Int { KeyDerivation.defaultLog2N }
}

extension Runner {
    /// `memo serve` about to catch its stop signals: nothing to do outside the self-check
    /// build's tests.
    @inline(__always)
    static func serveSignalGap(_ environment: [String: String]) {}

    /// `memo store decrypt` finished its step `step`: nothing to do outside the self-check
    /// build's tests.
    @inline(__always)
    func decryptStepDone(_ step: Int) {}

    /// `memo store decrypt` never fails on purpose outside the self-check build's tests.
    @inline(__always)
    func decryptFailsForTests(at step: Int) -> Bool { false }

    /// `memo export --all` never fails on purpose outside the self-check build's tests.
    @inline(__always)
    func exportFailureForTests() -> Int? { nil }

    /// Writing the undo history never fails on purpose outside the self-check build's tests.
    @inline(__always)
    func historyWriteFailsForTests() -> Bool { false }
}
#endif
