import MemoSync

extension SimulatedBlobStore {
    /// Performs one store operation for `reader` at simulated time `now`, with the faults in
    /// force, and returns what the sync session gets back.
    package func perform(_ action: SyncAction, reader: Int, now: UInt64) -> SyncResult {
        precondition(reader >= 0 && reader < readerCount, "unknown reader \(reader)")
        let faults = active
        if random.chance(faults.transientErrors) {
            statistics.transientErrors += 1
            // A failed write or delete may still have happened (the answer was lost).
            if random.chance(0.5) {
                switch action {
                case let .write(key, bytes): _ = write(key: key, bytes: bytes, reader: reader, now: now, faults: faults)
                case let .delete(key): delete(key: key, reader: reader, now: now, faults: faults)
                case .list, .read: break
                }
            }
            return .failed(random.chance(0.5) ? .unavailable(reason: "simulated network error") : .io(reason: "simulated store error"))
        }
        switch action {
        case let .list(prefix):
            return .listed(BlobListing(blobs: list(prefix: prefix, reader: reader, now: now, faults: faults)))
        case let .read(key):
            return read(key: key, reader: reader, now: now, faults: faults)
        case let .write(key, bytes):
            if let error = write(key: key, bytes: bytes, reader: reader, now: now, faults: faults) { return .failed(error) }
            return .done
        case let .delete(key):
            delete(key: key, reader: reader, now: now, faults: faults)
            return .done
        }
    }

    // MARK: List

    func list(prefix: String, reader: Int, now: UInt64, faults: StoreFaults) -> [BlobInfo] {
        statistics.lists += 1
        var viewTime = now
        if random.chance(faults.staleListing) {
            statistics.staleListings += 1
            viewTime = now - min(now, random.logUniform(1_000, max(1_000, faults.staleListingMaxMilliseconds)))
        }
        listingViewMilliseconds[reader] = viewTime
        let lossy = random.chance(faults.lossyListing)
        var entries: [BlobInfo] = []
        for key in sortedKeys where key.hasPrefixBytes(prefix) {
            guard let version = version(of: key, reader: reader, at: viewTime), let bytes = version.bytes else { continue }
            let size = version.isTorn(for: reader, at: now) ? version.tornLength : bytes.count
            if lossy && random.chance(0.25) {
                statistics.droppedEntries += 1
                continue
            }
            // The revision: when this version was written (a folder's change time, an S3 ETag).
            let revision = String(version.writtenAt)
            entries.append(BlobInfo(key: key, sizeBytes: size, revision: revision))
            if lossy && random.chance(0.05) {
                statistics.duplicatedEntries += 1
                entries.append(BlobInfo(key: key, sizeBytes: size, revision: revision))
            }
        }
        // Any order is allowed: when listings misbehave, they come shuffled too.
        if lossy || viewTime != now { random.shuffle(&entries) }
        return entries
    }

    // MARK: Read

    func read(key: String, reader: Int, now: UInt64, faults: StoreFaults) -> SyncResult {
        guard let version = version(of: key, reader: reader, at: now), var bytes = version.bytes else {
            statistics.readsOfMissing += 1
            return .failed(.notFound(key: key))
        }
        statistics.reads += 1
        if junkKeys.contains(key) { statistics.junkReads += 1 }
        if case .snapshot? = StoreLayout.parse(key) { statistics.snapshotReads += 1 }
        if version.isTorn(for: reader, at: now) {
            statistics.tornReads += 1
            bytes = Array(bytes.prefix(version.tornLength))
        }
        if !bytes.isEmpty && random.chance(faults.bitFlips) {
            statistics.flippedReads += 1
            let bit = random.int(in: 0..<(bytes.count * 8))
            bytes[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
        }
        statistics.bytesRead += bytes.count
        return .read(bytes)
    }

    // MARK: Write

    func write(key: String, bytes: [UInt8], reader: Int, now: UInt64, faults: StoreFaults) -> BlobStoreError? {
        guard DirectoryBlobStore.isValidKey(key) else { return .invalidKey(key) }
        if now < fullUntilMilliseconds && faultsEnabled {
            statistics.fullRejections += 1
            return .full
        }
        statistics.writes += 1
        statistics.bytesWritten += bytes.count
        append(newVersion(bytes: bytes, writer: reader, now: now, faults: faults), to: key)
        if !bytes.isEmpty && random.chance(faults.conflictedCopies) {
            statistics.conflictedCopies += 1
            var copy = bytes
            if random.chance(faults.bitFlips) {
                let bit = random.int(in: 0..<(copy.count * 8))
                copy[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            }
            let copyKey = conflictedCopyKey(of: key, reader: reader, now: now)
            if DirectoryBlobStore.isValidKey(copyKey) {
                copies[copyKey] = key
                append(newVersion(bytes: copy, writer: -1, now: now + random.uint64(in: 1_000...600_000), faults: faults), to: copyKey)
            }
        }
        if !bytes.isEmpty && random.chance(faults.bitRot) {
            // Rots a while later, restored from a backup later still: two versions ahead.
            statistics.rottenBlobs += 1
            var rotten = bytes
            let bit = random.int(in: 0..<(rotten.count * 8))
            rotten[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            let rotAt = now + random.logUniform(1_000, SimulatedTime.day)
            let restoredAt = rotAt + random.logUniform(SimulatedTime.minute, 3 * SimulatedTime.day)
            append(Version(bytes: rotten, writer: -1, writtenAt: rotAt, visibleAt: nil, tornUntil: nil, tornLength: 0), to: key)
            append(Version(bytes: bytes, writer: -1, writtenAt: restoredAt, visibleAt: nil, tornUntil: nil, tornLength: 0), to: key)
        }
        if random.chance(faults.junkNames) { writeJunk(now: now, faults: faults) }
        if writesSincePruning >= 256 { prune(now: now) }
        return nil
    }

    /// A junk file (the junk-names fault): named like a segment, a snapshot or a head of a
    /// replica nobody has (ids from 0xf000000000000000 up: never drawn for a replica), or no
    /// MemoSync key, with 1 to 300 junk bytes. Never written again under the same key.
    func writeJunk(now: UInt64, faults: StoreFaults) {
        statistics.junkBlobs += 1
        let index = UInt64(statistics.junkBlobs)
        let replica = ReplicaID(0xF000_0000_0000_0000 | random.uint64(in: 0...0xFF))
        let hash = String(index &* 0x9E37_79B9_7F4A_7C15, radix: 16)
        let digits = String(repeating: "0", count: 16 - hash.count) + hash
        func padded(_ value: UInt64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let key: String = switch random.int(in: 0..<4) {
        case 0: "memosync/v1/\(replica)/segments/\(padded(0, 10))-\(padded(random.uint64(in: 1...400), 10))-\(digits).seg"
        case 1: "memosync/v1/\(replica)/snapshots/\(padded(random.uint64(in: 1...5_000), 12))-\(digits).snap"
        case 2: "memosync/v1/\(replica)/heads/\(digits).head"
        default: "memosync/v1/junk/notes-\(index).txt"
        }
        guard histories[key] == nil else { return }
        let bytes = (0..<random.int(in: 1...300)).map { _ in UInt8(truncatingIfNeeded: random.uint64(in: 0...255)) }
        junkKeys.insert(key)
        append(newVersion(bytes: bytes, writer: -1, now: now, faults: faults), to: key)
    }

    // MARK: Delete

    func delete(key: String, reader: Int, now: UInt64, faults: StoreFaults) {
        statistics.deletes += 1
        guard histories[key]?.last?.bytes != nil else { return }
        append(newVersion(bytes: nil, writer: reader, now: now, faults: faults), to: key)
    }

    // MARK: Versions

    /// A version written by `writer` at `now`, with its per-reader delays and torn windows.
    func newVersion(bytes: [UInt8]?, writer: Int, now: UInt64, faults: StoreFaults) -> Version {
        var version = Version(bytes: bytes, writer: writer, writtenAt: now, visibleAt: nil, tornUntil: nil, tornLength: 0)
        if faults.delayedVisibility > 0 {
            var visibleAt = [UInt64](repeating: now, count: readerCount)
            var delayed = false
            for other in 0..<readerCount where other != writer && random.chance(faults.delayedVisibility) {
                visibleAt[other] = now + random.logUniform(1_000, max(1_000, faults.visibilityDelayMaxMilliseconds))
                delayed = true
            }
            if delayed {
                version.visibleAt = visibleAt
                statistics.delayedVersions += 1
            }
        }
        if let count = bytes?.count, count > 1, faults.tornBlobs > 0 {
            var tornUntil = [UInt64](repeating: 0, count: readerCount)
            var torn = false
            for other in 0..<readerCount where other != writer && random.chance(faults.tornBlobs) {
                tornUntil[other] = version.visible(to: other, at: now) ? now : version.visibleAt![other]
                tornUntil[other] += random.logUniform(100, max(100, faults.tornMaxMilliseconds))
                torn = true
            }
            if torn {
                version.tornUntil = tornUntil
                version.tornLength = random.int(in: 1..<count)
            }
        }
        return version
    }

    /// The name a sync client gives a second copy of `key`: Dropbox's "(… conflicted copy
    /// date)" or Syncthing's ".sync-conflict-date-time-device", before the extension.
    func conflictedCopyKey(of key: String, reader: Int, now: UInt64) -> String {
        let dot = key.lastIndex(of: ".") ?? key.endIndex
        let stem = key[..<dot]
        let ext = key[dot...]
        let wall = SimulatedClock().wallMilliseconds(at: now)
        let civil = CivilDate.of(daysSince1970: Int64(wall / SimulatedTime.day))
        let (year, month, day) = (Int(civil.year), Int(civil.month), Int(civil.day))
        let secondsOfDay = Int(wall % SimulatedTime.day / 1_000)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(year)-\(two(month))-\(two(day))"
        if random.chance(0.5) {
            return "\(stem) (device \(reader)'s conflicted copy \(date))\(ext)"
        }
        let time = "\(two(secondsOfDay / 3600))\(two(secondsOfDay / 60 % 60))\(two(secondsOfDay % 60))"
        let device = String(["ABC", "QRS", "XYZ", "MNO"][random.int(in: 0..<4)])
        return "\(stem).sync-conflict-\(year)\(two(month))\(two(day))-\(time)-\(device)\(ext)"
    }

    // MARK: A BlobStore view

    /// The store as reader `reader` sees it, as a `BlobStore`; `now` gives the simulated time
    /// of each call. For tests and tools that want the protocol (the simulator calls
    /// ``perform(_:reader:now:)`` directly).
    public func client(reader: Int, now: @escaping () -> UInt64) -> SimulatedBlobStoreClient {
        SimulatedBlobStoreClient(store: self, reader: reader, now: now)
    }
}

/// A ``SimulatedBlobStore`` seen by one reader, as a `BlobStore`.
///
/// `@unchecked Sendable`: the simulation is single-threaded, and this wrapper exists only so
/// that code written against the protocol (which requires `Sendable`) can run against the
/// simulated store on that one thread.
public final class SimulatedBlobStoreClient: BlobStore, @unchecked Sendable {
    let store: SimulatedBlobStore
    let reader: Int
    let now: () -> UInt64

    init(store: SimulatedBlobStore, reader: Int, now: @escaping () -> UInt64) {
        self.store = store
        self.reader = reader
        self.now = now
    }

    public func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] {
        switch store.perform(.list(prefix: prefix), reader: reader, now: now()) {
        case let .listed(listing): return listing.blobs
        case let .failed(error): throw error
        default: throw .io(reason: "unexpected answer")
        }
    }

    public func read(key: String) throws(BlobStoreError) -> [UInt8] {
        switch store.perform(.read(key: key), reader: reader, now: now()) {
        case let .read(bytes): return bytes
        case let .failed(error): throw error
        default: throw .io(reason: "unexpected answer")
        }
    }

    public func write(key: String, bytes: [UInt8]) throws(BlobStoreError) {
        if case let .failed(error) = store.perform(.write(key: key, bytes: bytes), reader: reader, now: now()) { throw error }
    }

    public func delete(key: String) throws(BlobStoreError) {
        if case let .failed(error) = store.perform(.delete(key: key), reader: reader, now: now()) { throw error }
    }
}
