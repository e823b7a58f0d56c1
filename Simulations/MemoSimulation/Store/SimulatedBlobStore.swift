import MemoSync

/// The blob store every replica of a simulation shares: a cloud folder as each device sees it.
///
/// Each key has a history of versions (a blob's bytes, or a deletion), each version reaching
/// each reader at its own simulated time: the writer sees it at once, others after a delay
/// drawn per reader (seconds to days with ``StoreFaults/delayedVisibility`` on). A reader sees,
/// for each key, the newest version that has reached it. On top of that, faults: listings that
/// are stale (the view of a while ago) or lossy (entries missing or doubled), conflicted copies
/// (a second key with the same bytes, named as Dropbox or Syncthing name them, sometimes
/// damaged), blobs that show half-written for a while, reads with a flipped bit, transient
/// errors (a failed write may still have happened), and a full store (writes fail with
/// ``BlobStoreError/full`` until ``fullUntilMilliseconds``).
///
/// Everything is decided by the store's own seeded random stream, so a run is deterministic.
/// Not thread-safe: the simulator is single-threaded. ``client(reader:now:)`` wraps it as a
/// `BlobStore` for code that wants one.
public final class SimulatedBlobStore {
    /// One version of a key.
    struct Version {
        /// The bytes; nil for a deletion.
        var bytes: [UInt8]?
        /// The reader that wrote it; -1 for a conflicted copy the store made.
        var writer: Int
        var writtenAt: UInt64
        /// When each reader sees it; nil when everyone sees it at `writtenAt`.
        var visibleAt: [UInt64]?
        /// Until when each reader sees it half-written; nil when never.
        var tornUntil: [UInt64]?
        /// The length shown while half-written.
        var tornLength: Int

        func visible(to reader: Int, at time: UInt64) -> Bool {
            (visibleAt?[reader] ?? writtenAt) <= time
        }

        func isTorn(for reader: Int, at time: UInt64) -> Bool {
            guard let tornUntil else { return false }
            return tornUntil[reader] > time
        }
    }

    /// The readers (devices) that use the store, numbered from 0.
    public let readerCount: Int
    /// The faults injected while ``faultsEnabled`` is on.
    public var faults: StoreFaults
    /// Off in a run's final phase: new operations behave perfectly (versions written before
    /// still arrive when they were due).
    public var faultsEnabled = true
    /// Until this simulated time, writes fail with ``BlobStoreError/full``.
    public var fullUntilMilliseconds: UInt64 = 0
    /// What the store did.
    public internal(set) var statistics = StoreStatistics()

    var random: SimulationRandom
    var histories: [String: [Version]] = [:]
    /// Every key with a history, sorted (listings walk it in order).
    var sortedKeys: [String] = []
    /// Ground truth: keys whose newest version is a blob, and their bytes.
    public private(set) var blobCount = 0
    public private(set) var totalBytes = 0
    /// The latest time at which some version still reaches some reader or stops showing
    /// half-written: after it, every reader sees the ground truth.
    public private(set) var settledAfterMilliseconds: UInt64 = 0
    var writesSincePruning = 0
    /// The key each conflicted copy copies.
    var copies: [String: String] = [:]
    /// The keys of the junk files the junk-names fault put in the store.
    var junkKeys: Set<String> = []
    /// For each reader, the simulated time its latest listing showed the store as of (earlier
    /// than when it listed when the listing was stale); 0 before its first listing.
    public internal(set) var listingViewMilliseconds: [UInt64]

    /// The key `key` is a conflicted copy of, if it is one.
    public func original(ofCopy key: String) -> String? { copies[key] }

    /// The conflicted copies made of `key`, sorted.
    public func copies(of key: String) -> [String] { copies.filter { $0.value == key }.map(\.key).sorted() }

    /// An empty store for `readerCount` readers.
    public init(readerCount: Int, seed: UInt64, faults: StoreFaults = StoreFaults()) {
        precondition(readerCount > 0 && readerCount <= 1024, "reader count out of range")
        self.readerCount = readerCount
        self.faults = faults
        listingViewMilliseconds = [UInt64](repeating: 0, count: readerCount)
        random = SimulationRandom(seed: seed, stream: 0x5707E)
    }

    /// The faults in force now.
    var active: StoreFaults { faultsEnabled ? faults : StoreFaults() }

    // MARK: Views

    /// The version of `key` that `reader` sees at `time`, if any (a deletion counts).
    func version(of key: String, reader: Int, at time: UInt64) -> Version? {
        guard let versions = histories[key] else { return nil }
        for version in versions.reversed() where version.visible(to: reader, at: time) {
            return version
        }
        return nil
    }

    /// Ground truth: the newest version's bytes of `key`, or nil.
    public func bytes(of key: String) -> [UInt8]? {
        histories[key]?.last?.bytes
    }

    /// Ground truth: every key holding a blob, sorted, with its size.
    public func groundTruth(prefix: String = "") -> [BlobInfo] {
        sortedKeys.compactMap { key in
            guard key.hasPrefixBytes(prefix), let bytes = histories[key]?.last?.bytes else { return nil }
            return BlobInfo(key: key, sizeBytes: bytes.count)
        }
    }

    // MARK: Recording versions

    /// Adds a version of `key` and updates the ground-truth counts.
    func append(_ version: Version, to key: String) {
        let previous = histories[key]?.last?.bytes
        if histories[key] == nil {
            histories[key] = []
            let index = insertionIndex(of: key)
            sortedKeys.insert(key, at: index)
        }
        histories[key]!.append(version)
        switch (previous, version.bytes) {
        case (nil, let new?):
            blobCount += 1
            totalBytes += new.count
        case (let old?, let new?):
            totalBytes += new.count - old.count
        case (let old?, nil):
            blobCount -= 1
            totalBytes -= old.count
        case (nil, nil):
            break
        }
        if let visibleAt = version.visibleAt {
            settledAfterMilliseconds = max(settledAfterMilliseconds, visibleAt.max() ?? 0)
        }
        if let tornUntil = version.tornUntil {
            settledAfterMilliseconds = max(settledAfterMilliseconds, tornUntil.max() ?? 0)
        }
        settledAfterMilliseconds = max(settledAfterMilliseconds, version.writtenAt)
        writesSincePruning += 1
    }

    private func insertionIndex(of key: String) -> Int {
        var low = 0
        var high = sortedKeys.count
        while low < high {
            let middle = (low + high) / 2
            if sortedKeys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Forgets versions no reader can see any more: older than a version every reader sees
    /// whole by `now`; keys whose only remaining version is a deletion everyone sees go away.
    public func prune(now: UInt64) {
        writesSincePruning = 0
        var removed: Set<String> = []
        for key in sortedKeys {
            var versions = histories[key]!
            guard let settled = versions.lastIndex(where: { version in
                (0..<readerCount).allSatisfy { version.visible(to: $0, at: now) && !version.isTorn(for: $0, at: now) }
            }) else { continue }
            if settled > 0 { versions.removeFirst(settled) }
            if versions.count == 1 && versions[0].bytes == nil {
                histories[key] = nil
                removed.insert(key)
            } else {
                histories[key] = versions
            }
        }
        if !removed.isEmpty { sortedKeys.removeAll { removed.contains($0) } }
    }

    /// Versions held (for tests of pruning).
    var versionCount: Int { histories.values.reduce(0) { $0 + $1.count } }
}

extension SimulatedBlobStore {
    /// Replaces every blob with `image` at `now`, seen by every reader at once: blobs not in it
    /// are gone, the others hold its bytes (a folder wiped and re-created, or restored from a
    /// backup). Conflicted copies are forgotten with the rest.
    public func replaceContents(with image: [(key: String, bytes: [UInt8])], now: UInt64) {
        var wanted: [String: [UInt8]] = [:]
        for (key, bytes) in image { wanted[key] = bytes }
        for key in sortedKeys where histories[key]?.last?.bytes != nil && wanted[key] == nil {
            append(Version(bytes: nil, writer: -1, writtenAt: now, visibleAt: nil, tornUntil: nil, tornLength: 0), to: key)
        }
        for (key, bytes) in image where histories[key]?.last?.bytes != bytes {
            append(Version(bytes: bytes, writer: -1, writtenAt: now, visibleAt: nil, tornUntil: nil, tornLength: 0), to: key)
        }
        copies = copies.filter { wanted[$0.key] != nil }
    }
}
