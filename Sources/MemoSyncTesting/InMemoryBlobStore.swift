import Foundation
import MemoSync

/// A blob store in memory, for tests (the MemoSyncTesting product; an app adds it to its test
/// target only): a dictionary behind a lock, with hooks to inspect and
/// damage its contents, count traffic and inject failures.
///
/// It follows the same rules as ``DirectoryBlobStore``: the same valid keys
/// (``DirectoryBlobStore/isValidKey(_:)``), and listings that leave out empty blobs (a folder
/// store skips empty files as unfinished downloads). Listings are sorted by key, so tests are
/// deterministic. Unlike a folder, it lets one key be a prefix folder of another ("a" and "a/b").
///
/// Every method is safe to call from any thread.
public final class InMemoryBlobStore: BlobStore, @unchecked Sendable {
    /// The four store operations, to choose which ones an injected failure hits.
    public enum Operation: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// ``InMemoryBlobStore/list(prefix:)``.
        case list
        /// ``InMemoryBlobStore/read(key:)``.
        case read
        /// ``InMemoryBlobStore/write(key:bytes:)``.
        case write
        /// ``InMemoryBlobStore/delete(key:)``.
        case delete

        /// The operation's name: "list", "read", "write" or "delete".
        public var description: String {
            switch self {
            case .list: "list"
            case .read: "read"
            case .write: "write"
            case .delete: "delete"
            }
        }
    }

    /// Failures waiting to be thrown: the next `remaining` operations among `operations`.
    private struct InjectedFailures {
        var remaining: Int
        var error: BlobStoreError
        var operations: Set<Operation>
    }

    // Guarded by `lock`.
    private let lock = NSLock()
    private var blobs: [String: [UInt8]] = [:]
    /// Each blob's revision (``BlobInfo/revision``): the number of the change that stored it.
    private var revisions: [String: UInt64] = [:]
    private var changes: UInt64 = 0
    private var failures: InjectedFailures?
    private var counters = Counters()

    /// Traffic counts of successful operations.
    private struct Counters {
        var lists = 0, reads = 0, writes = 0, deletes = 0, bytesRead = 0, bytesWritten = 0
    }

    /// An empty store.
    public init() {}

    // MARK: BlobStore

    /// Every non-empty blob whose key starts with `prefix` (byte for byte), sorted by key, each with its size and
    /// its revision (the number of the change that stored it, in decimal: every write, `put`,
    /// `corrupt` or `truncate` gives the blob a new one). O(n + k log k) for n blobs and k results.
    ///
    /// - Throws: an injected failure (see ``failNext(_:with:on:)``).
    public func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] {
        lock.lock()
        defer { lock.unlock() }
        try takeInjectedFailure(for: .list)
        counters.lists += 1
        return blobs.compactMap { key, bytes in
            bytes.isEmpty || !key.hasPrefixBytes(prefix) ? nil : BlobInfo(key: key, sizeBytes: bytes.count, revision: String(revisions[key] ?? 0))
        }.sorted { $0.key < $1.key }
    }

    /// The bytes of the blob `key`. O(size) (a copy-on-write copy: O(1) until changed).
    ///
    /// - Throws: ``BlobStoreError/invalidKey(_:)``, ``BlobStoreError/notFound(key:)``, or an
    ///   injected failure.
    public func read(key: String) throws(BlobStoreError) -> [UInt8] {
        try InMemoryBlobStore.validate(key)
        lock.lock()
        defer { lock.unlock() }
        try takeInjectedFailure(for: .read)
        guard let bytes = blobs[key] else { throw .notFound(key: key) }
        counters.reads += 1
        counters.bytesRead += bytes.count
        return bytes
    }

    /// Stores `bytes` under `key`, replacing any blob there. O(1) amortized.
    ///
    /// - Throws: ``BlobStoreError/invalidKey(_:)`` or an injected failure; then nothing changes.
    public func write(key: String, bytes: [UInt8]) throws(BlobStoreError) {
        try InMemoryBlobStore.validate(key)
        lock.lock()
        defer { lock.unlock() }
        try takeInjectedFailure(for: .write)
        store(bytes, key: key)
        counters.writes += 1
        counters.bytesWritten += bytes.count
    }

    /// Removes the blob `key`; a missing blob is not an error. O(1).
    ///
    /// - Throws: ``BlobStoreError/invalidKey(_:)`` or an injected failure; then nothing changes.
    public func delete(key: String) throws(BlobStoreError) {
        try InMemoryBlobStore.validate(key)
        lock.lock()
        defer { lock.unlock() }
        try takeInjectedFailure(for: .delete)
        blobs[key] = nil
        revisions[key] = nil
        counters.deletes += 1
    }

    // MARK: Inspecting

    /// Every key, empty blobs included, sorted. O(n log n).
    public var keys: [String] {
        lock.lock()
        defer { lock.unlock() }
        return blobs.keys.sorted()
    }

    /// The bytes stored under `key`, or nil; not counted as a read.
    public func bytes(key: String) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return blobs[key]
    }

    /// How many `list` calls succeeded.
    public var listCount: Int { withCounters { $0.lists } }
    /// How many `read` calls succeeded.
    public var readCount: Int { withCounters { $0.reads } }
    /// How many `write` calls succeeded.
    public var writeCount: Int { withCounters { $0.writes } }
    /// How many `delete` calls succeeded.
    public var deleteCount: Int { withCounters { $0.deletes } }
    /// The bytes returned by successful reads, in total.
    public var bytesRead: Int { withCounters { $0.bytesRead } }
    /// The bytes stored by successful writes, in total.
    public var bytesWritten: Int { withCounters { $0.bytesWritten } }

    /// Sets every counter back to zero.
    public func resetCounters() {
        lock.lock()
        defer { lock.unlock() }
        counters = Counters()
    }

    // MARK: Changing contents behind the store's back

    /// Stores `bytes` under `key` directly: not counted, never failed by injection.
    ///
    /// - Throws: ``BlobStoreError/invalidKey(_:)``.
    public func put(key: String, bytes: [UInt8]) throws(BlobStoreError) {
        try InMemoryBlobStore.validate(key)
        lock.lock()
        defer { lock.unlock() }
        store(bytes, key: key)
    }

    /// Stores `bytes` under `key` with a new revision. The lock is held.
    private func store(_ bytes: [UInt8], key: String) {
        blobs[key] = bytes
        changes += 1
        revisions[key] = changes
    }

    /// Flips every bit of the byte at `index` of the blob `key` (bit rot, a damaged download).
    ///
    /// - Throws: ``BlobStoreError/notFound(key:)`` when there is no such blob;
    ///   ``BlobStoreError/io(reason:)`` when `index` is outside it.
    public func corrupt(key: String, byteAt index: Int) throws(BlobStoreError) {
        lock.lock()
        defer { lock.unlock() }
        guard var bytes = blobs[key] else { throw .notFound(key: key) }
        guard bytes.indices.contains(index) else {
            throw .io(reason: "byte \(index) is outside \(key) (\(bytes.count) bytes)")
        }
        bytes[index] ^= 0xFF
        store(bytes, key: key)
    }

    /// Cuts the blob `key` to its first `length` bytes (an interrupted upload or download).
    ///
    /// - Throws: ``BlobStoreError/notFound(key:)`` when there is no such blob;
    ///   ``BlobStoreError/io(reason:)`` when `length` is negative or beyond its size.
    public func truncate(key: String, to length: Int) throws(BlobStoreError) {
        lock.lock()
        defer { lock.unlock() }
        guard let bytes = blobs[key] else { throw .notFound(key: key) }
        guard (0...bytes.count).contains(length) else {
            throw .io(reason: "cannot cut \(key) (\(bytes.count) bytes) to \(length) bytes")
        }
        store(Array(bytes.prefix(length)), key: key)
    }

    // MARK: Injecting failures

    /// Makes the next `count` calls among `operations` throw `error` instead of doing anything
    /// (calls of other operations are unaffected and do not use up the count). Replaces any
    /// failures still pending; a count of zero or less cancels them. Invalid keys are reported
    /// as such before an injected failure.
    public func failNext(_ count: Int = 1, with error: BlobStoreError, on operations: Set<Operation> = Set(Operation.allCases)) {
        lock.lock()
        defer { lock.unlock() }
        failures = count > 0 && !operations.isEmpty
            ? InjectedFailures(remaining: count, error: error, operations: operations) : nil
    }

    /// How many injected failures are still to be thrown.
    public var pendingFailureCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return failures?.remaining ?? 0
    }

    // MARK: Private

    /// Throws the next injected failure for `operation`, if any. Call with the lock held.
    private func takeInjectedFailure(for operation: Operation) throws(BlobStoreError) {
        guard var pending = failures, pending.operations.contains(operation) else { return }
        pending.remaining -= 1
        failures = pending.remaining > 0 ? pending : nil
        throw pending.error
    }

    /// One counter, read under the lock.
    private func withCounters(_ counter: (Counters) -> Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counter(counters)
    }

    private static func validate(_ key: String) throws(BlobStoreError) {
        guard DirectoryBlobStore.isValidKey(key) else { throw .invalidKey(key) }
    }
}
