// An in-memory library folder for an app's tests (and this package's tests and benchmarks).
// Not for shipping: it is in the MemoSyncTesting product, which an app adds to its test target
// only.
import Foundation
import MemoSync

/// A library folder in memory with POSIX durability: every change is visible at once, but
/// survives ``crash()`` only once made durable (a file's contents by ``DiskOperation/sync(file:)``,
/// the folder's names by ``DiskOperation/syncDirectory``), as on a real disk after a power loss.
///
/// Files are *objects* (inodes): a rename moves an object to a new name, and what a crash keeps
/// of a name is the durable contents of the object that name durably shows. With a `device`,
/// the disk reports file identities (device, inode serial never reused, size, a change counter
/// moved by every write, append, truncate and rename), so a library on it keeps its replica id
/// across clean sessions exactly as on a real folder (FORMAT.md, "The seal"); without one it
/// reports none, and every session opens under a fresh id.
///
/// Thread-safe (one lock); every operation is O(size of the file it touches), ``crash()`` and
/// ``durableCopy()`` O(size of the folder).
public final class MemoryDisk: LibraryDisk, @unchecked Sendable {
    private struct Object {
        var contents: [UInt8] = []
        var durableContents: [UInt8]?
        let serial: UInt64
        var changed: UInt64 = 0
    }

    private let lock = NSLock()
    private let device: UInt64?
    /// Objects by serial.
    private var objects: [UInt64: Object] = [:]
    /// What each visible name is.
    private var names: [String: UInt64] = [:]
    /// What each name durably shows.
    private var durableNames: [String: UInt64] = [:]
    private var nextSerial: UInt64 = 2
    private var changeClock: UInt64 = 0
    private var performed = 0
    private var failingFrom: Int?

    /// An empty folder; with `device`, one that reports file identities on that device (give
    /// each disk its own).
    public init(device: UInt64? = nil) {
        self.device = device
    }

    /// How many operations ``perform(_:)`` was asked to do (for crash-point tests).
    public var operationCount: Int { lock.withLock { performed } }

    /// When set, the operation with this number (counting from 1) and every later one fail
    /// with ``DiskError/io(reason:)``, until ``crash()``.
    public var failAtOperation: Int? {
        get { lock.withLock { failingFrom } }
        set { lock.withLock { failingFrom = newValue } }
    }

    /// The bytes the folder's files hold.
    public var totalBytes: Int {
        lock.withLock { names.values.reduce(0) { $0 + (objects[$1]?.contents.count ?? 0) } }
    }

    /// A copy of this disk's durable state, as a backup or a library copied to another device
    /// would hold it (same device and serials: a copy that must look moved gets a new disk).
    public func durableCopy() -> MemoryDisk {
        lock.withLock {
            let copy = MemoryDisk(device: device)
            copy.objects = objects.compactMapValues { object in
                guard let durable = object.durableContents else { return nil }
                var kept = object
                kept.contents = durable
                return kept
            }
            copy.names = durableNames.filter { copy.objects[$0.value] != nil }
            copy.durableNames = copy.names
            copy.nextSerial = nextSerial
            copy.changeClock = changeClock
            return copy
        }
    }

    /// Loses everything not durable, and clears ``failAtOperation``.
    public func crash() {
        var none: SystemRandomNumberGenerator? = nil
        crash(keepingTornTails: &none)
    }

    /// Loses everything not durable. With a random source, a file whose unsynced contents
    /// extend its durable ones keeps a prefix of the extension (its length drawn from
    /// `random`), as a disk may have written part of an append before the power went.
    public func crash<Random: RandomNumberGenerator>(keepingTornTails random: inout Random?) {
        lock.withLock {
            var kept: [UInt64: Object] = [:]
            for (name, serial) in durableNames.sorted(by: { $0.key < $1.key }) {
                guard var object = objects[serial] else { continue }
                var bytes = object.durableContents ?? []
                if random != nil, names[name] == serial, object.contents.count > bytes.count, object.contents.starts(with: bytes) {
                    let extra = Int.random(in: 0...(object.contents.count - bytes.count), using: &random!)
                    bytes += object.contents[bytes.count..<bytes.count + extra]
                }
                object.contents = bytes
                object.durableContents = bytes
                kept[serial] = object
            }
            objects = kept
            names = durableNames.filter { kept[$0.value] != nil }
            durableNames = names
            failingFrom = nil
        }
    }

    public func listFiles() throws(DiskError) -> [String] {
        lock.withLock { names.keys.sorted() }
    }

    public func read(file: String) throws(DiskError) -> [UInt8]? {
        lock.withLock { names[file].flatMap { objects[$0]?.contents } }
    }

    public func identity(of file: String?) throws(DiskError) -> FileIdentity? {
        lock.withLock {
            guard let device else { return nil }
            guard let file else { return FileIdentity(device: device, inode: 1, sizeBytes: 0, changeSeconds: 0, changeNanoseconds: 0) }
            guard let serial = names[file], let object = objects[serial] else { return nil }
            return FileIdentity(
                device: device, inode: serial, sizeBytes: UInt64(object.contents.count),
                changeSeconds: Int64(object.changed), changeNanoseconds: 0)
        }
    }

    public func perform(_ operation: DiskOperation) throws(DiskError) {
        lock.lock()
        defer { lock.unlock() }
        performed += 1
        if let failingFrom, performed >= failingFrom { throw .io(reason: "injected failure") }
        switch operation {
        case let .write(file, bytes):
            try Self.validate(file)
            let serial = create(file)
            objects[serial]!.contents = bytes
            touch(serial)
        case let .append(file, bytes):
            try Self.validate(file)
            let serial = create(file)
            objects[serial]!.contents += bytes
            touch(serial)
        case let .truncate(file, length):
            guard let serial = names[file] else { throw .io(reason: "truncate \(file): no such file") }
            guard length >= 0 else { throw .io(reason: "truncate \(file): negative length \(length)") }
            let count = objects[serial]!.contents.count
            if length <= count {
                objects[serial]!.contents.removeLast(count - length)
            } else {
                objects[serial]!.contents += repeatElement(0, count: length - count)
            }
            touch(serial)
        case let .sync(file):
            guard let serial = names[file] else { throw .io(reason: "sync \(file): no such file") }
            objects[serial]!.durableContents = objects[serial]!.contents
        case let .rename(from, to):
            try Self.validate(to)
            guard let serial = names.removeValue(forKey: from) else { throw .io(reason: "rename \(from): no such file") }
            names[to] = serial
            touch(serial)
        case let .delete(file):
            names[file] = nil
        case .syncDirectory:
            durableNames = names
        }
        // Objects no name shows, now or durably, are gone for good.
        if case .delete = operation { collect() } else if case .rename = operation { collect() } else if case .syncDirectory = operation { collect() }
    }

    private func create(_ file: String) -> UInt64 {
        if let serial = names[file] { return serial }
        nextSerial += 1
        objects[nextSerial] = Object(serial: nextSerial)
        names[file] = nextSerial
        return nextSerial
    }

    private func touch(_ serial: UInt64) {
        changeClock += 1
        objects[serial]!.changed = changeClock
    }

    private func collect() {
        let shown = Set(names.values).union(durableNames.values)
        objects = objects.filter { shown.contains($0.key) }
    }

    /// A library file name is one plain name: no separator, not empty, not "." or "..".
    private static func validate(_ file: String) throws(DiskError) {
        guard !file.isEmpty, file != ".", file != "..", !file.contains("/"), !file.utf8.contains(0) else {
            throw .io(reason: "not a plain file name: \(file)")
        }
    }
}
