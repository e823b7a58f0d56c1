import Foundation
import MemoCRDT
import Synchronization
import TestSupport
import Testing

@testable import MemoSync

/// A library folder in memory with POSIX durability: changes are visible at once but survive
/// ``crash()`` only once synced (file contents by `sync`, names by `syncDirectory`).
final class MemoryDisk: LibraryDisk, @unchecked Sendable {
    private let lock = NSLock()
    /// What reads see.
    private var files: [String: [UInt8]] = [:]
    /// Contents made durable, per file object.
    private var durableContents: [String: [UInt8]] = [:]
    /// Names made durable: name -> the file whose durable contents it shows.
    private var durableNames: [String: String] = [:]
    /// Which file object each visible name is (renames move objects).
    private var objects: [String: String] = [:]
    private var nextObject = 0
    /// Operations performed, for crash-point tests.
    private(set) var operationCount = 0
    /// When set, the operation with this number (counting from 1) and every later one fails.
    var failAtOperation: Int?

    init() {}

    /// A copy of this disk's durable state (a backup, or a library copied to another device).
    func durableCopy() -> MemoryDisk {
        lock.withLock {
            let copy = MemoryDisk()
            for (name, object) in durableNames {
                copy.files[name] = durableContents[object] ?? []
                copy.objects[name] = object
            }
            copy.durableContents = durableContents
            copy.durableNames = durableNames
            copy.nextObject = nextObject
            return copy
        }
    }

    /// Loses everything not durable. With `keepingTornTails`, a file whose unsynced contents
    /// extend its durable ones keeps a prefix of the extension, as a disk may have written part
    /// of an append before the power went (the prefix length comes from `random`).
    func crash(keepingTornTails random: inout SeededRandom?) {
        lock.withLock {
            let visible = files
            let visibleObjects = objects
            files = [:]
            objects = [:]
            for (name, object) in durableNames.sorted(by: { $0.key < $1.key }) {
                var bytes = durableContents[object] ?? []
                if random != nil, visibleObjects[name] == object, let now = visible[name], now.count > bytes.count,
                    now.starts(with: bytes)
                {
                    let kept = random!.int(in: 0..<now.count - bytes.count + 1)
                    bytes += now[bytes.count..<bytes.count + kept]
                    durableContents[object] = bytes
                }
                files[name] = bytes
                objects[name] = object
            }
            failAtOperation = nil
        }
    }

    /// Loses everything not durable.
    func crash() {
        var none: SeededRandom? = nil
        crash(keepingTornTails: &none)
    }

    func listFiles() throws(DiskError) -> [String] {
        lock.withLock { files.keys.sorted() }
    }

    func read(file: String) throws(DiskError) -> [UInt8]? {
        lock.withLock { files[file] }
    }

    func perform(_ operation: DiskOperation) throws(DiskError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            operationCount += 1
            if let failAtOperation, operationCount >= failAtOperation { throw DiskError.io(reason: "injected failure") }
            switch operation {
            case let .write(file, bytes):
                files[file] = bytes
                if objects[file] == nil { objects[file] = newObject() }
            case let .append(file, bytes):
                files[file, default: []] += bytes
                if objects[file] == nil { objects[file] = newObject() }
            case let .truncate(file, length):
                guard var bytes = files[file] else { throw DiskError.io(reason: "no file \(file)") }
                if length < bytes.count { bytes.removeLast(bytes.count - length) } else { bytes += Array(repeating: 0, count: length - bytes.count) }
                files[file] = bytes
            case let .sync(file):
                guard let object = objects[file] else { throw DiskError.io(reason: "no file \(file)") }
                durableContents[object] = files[file]
            case let .rename(from, to):
                guard let bytes = files[from], let object = objects[from] else { throw DiskError.io(reason: "no file \(from)") }
                files[from] = nil
                objects[from] = nil
                files[to] = bytes
                objects[to] = object
            case let .delete(file):
                files[file] = nil
                objects[file] = nil
            case .syncDirectory:
                durableNames = objects
            }
        }
    }

    private func newObject() -> String {
        nextObject += 1
        return "object-\(nextObject)"
    }
}

/// A clock tests move by hand, and a seeded random source, as a replica environment.
final class TestEnvironment: @unchecked Sendable {
    private let state: Mutex<(now: UInt64, random: SeededRandom)>

    init(seed: UInt64, startMilliseconds: UInt64 = 1_790_000_000_000) {
        state = Mutex((startMilliseconds, SeededRandom(seed: seed)))
    }

    var nowMilliseconds: UInt64 { state.withLock { $0.now } }

    func advance(milliseconds: UInt64) { state.withLock { $0.now += milliseconds } }

    var environment: ReplicaEnvironment {
        ReplicaEnvironment(
            wallMilliseconds: { self.state.withLock { $0.now } },
            randomUInt64: { self.state.withLock { $0.random.next() } })
    }
}

/// Syncs every replica with `store`, in rounds, until a whole round changes nothing.
@discardableResult
func syncUntilQuiet(_ replicas: [Replica], store: any BlobStore, roundsMax: Int = 10) throws -> Int {
    for round in 1...roundsMax {
        var changed = false
        for replica in replicas {
            let report = try replica.sync(with: store)
            if ProcessInfo.processInfo.environment["MEMOSYNC_TRACE_SYNC"] != nil {
                print("sync \(replica.id): read \(report.blobsRead) wrote \(report.blobsWritten) deleted \(report.blobsDeleted) applied \(report.operationsApplied) pending \(report.pendingOperationCount) skipped \(report.skipped) errors \(report.errors) version \(replica.notebook.version)")
            }
            if report.operationsApplied > 0 || report.publishedSegment != nil { changed = true }
        }
        if !changed { return round }
    }
    Issue.record("replicas did not go quiet in \(roundsMax) rounds")
    return roundsMax
}

/// Expects every replica to hold the same notebook: same operations, same memos and texts, and
/// byte-identical encodings.
func expectConverged(_ replicas: [Replica], seed: UInt64? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let first = replicas.first else { return }
    let seedNote = seed.map { " (seed \($0))" } ?? ""
    for replica in replicas.dropFirst() {
        let sameVersion = replica.notebook.version == first.notebook.version
        #expect(sameVersion, "versions differ\(seedNote): \(replica.notebook.version) vs \(first.notebook.version)", sourceLocation: sourceLocation)
        let sameBytes = replica.notebook.encoded() == first.notebook.encoded()
        #expect(sameBytes, "encodings differ\(seedNote)", sourceLocation: sourceLocation)
        guard sameVersion && sameBytes else { return }
        #expect(replica.notebook.pendingOperationCount == 0, "operations held back\(seedNote)", sourceLocation: sourceLocation)
        for id in first.notebook.memoIDs {
            let same = replica.notebook.memo(id)?.text == first.notebook.memo(id)?.text
            #expect(same, "memo \(id) differs\(seedNote)", sourceLocation: sourceLocation)
        }
    }
}
