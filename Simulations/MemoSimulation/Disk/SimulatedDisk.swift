import MemoSync

/// A library folder in memory with the durability rules of a POSIX file system, for the
/// simulator: it loses, in a crash, exactly what a real disk may lose.
///
/// Files are inodes with two contents: what reads see now, and what survives a crash. Names are
/// kept twice the same way. `write`, `append`, `truncate`, `rename` and `delete` change only what
/// reads see; `sync(file)` makes that file's contents durable, `syncDirectory` makes the names
/// (creations, renames, deletions) durable. ``crash()`` throws away everything else: a file
/// created and synced but whose name was never made durable disappears; a rename without
/// `syncDirectory` is undone; an append without `sync` is lost, or, with ``tornWrites`` on, cut
/// at a random byte (sometimes with zeros where the data should be), as real disks do.
///
/// A fault hook stops the disk in the middle of a sequence of operations: after
/// ``crashAfterOperations`` more operations the disk stops answering (every call throws
/// ``crashError``) until ``crash()`` is called, so the caller sees its save, compaction or open
/// interrupted at that step, like a process killed there.
///
/// Not thread-safe: the simulator is single-threaded.
public final class SimulatedDisk: LibraryDisk {
    /// A file's contents now and as they would survive a crash.
    struct Inode {
        var contents: [UInt8]
        var durable: [UInt8]
        /// The file's serial number (inode), never reused on this disk.
        var serial: UInt64
        /// The change clock's reading at the file's last change (its `st_ctime`).
        var changed: UInt64
    }

    /// The error every call throws once the crash hook fired.
    public static let crashError = DiskError.io(reason: "simulated crash")

    private var inodes: [Inode] = []
    private var names: [String: Int] = [:]
    private var durableNames: [String: Int] = [:]
    private var random: SimulationRandom
    /// This disk's device number, and the next file serial number and change clock reading.
    private let device: UInt64
    private var nextSerial: UInt64 = 2
    private var changeClock: UInt64 = 1

    /// Whether a crash may keep a random prefix of unsynced bytes (a torn write) instead of
    /// losing them all.
    public var tornWrites: Bool
    /// When set, the disk performs this many more operations, then stops: see
    /// ``crashPerformsLastOperation``. Counts `perform` calls only.
    public var crashAfterOperations: Int?
    /// Whether the operation that trips the hook happens before the disk stops (a process
    /// killed right after the call) or not at all (killed right before).
    public var crashPerformsLastOperation = true
    /// True once the hook fired, until ``crash()``.
    public private(set) var isStopped = false
    /// Files a crash left torn (a prefix of unsynced bytes kept, or zeros where they were):
    /// how often the torn-write fault struck this disk.
    public private(set) var tornFileCount = 0

    /// Operations performed since the disk was made.
    public private(set) var operationCount = 0
    /// `sync` and `syncDirectory` operations performed.
    public private(set) var syncCount = 0
    /// Bytes written or appended.
    public private(set) var bytesWritten = 0
    /// Crashes so far.
    public private(set) var crashCount = 0
    /// The smallest state file that gets a state list (``LibraryDisk/stateListMinimumBytes``):
    /// 1 MiB as on a real disk, which the simulator's small libraries never reach, or lower, so
    /// that they open from their lists and read each memo's text when first used.
    public var stateListMinimumBytes = LibraryCore.stateListWorthBytes

    /// An empty folder. `seed` drives the torn writes of crashes.
    public init(seed: UInt64, tornWrites: Bool = false) {
        random = SimulationRandom(seed: seed, stream: 0xD15C)
        var deviceRandom = SimulationRandom(seed: seed, stream: 0xDE71CE)
        device = deviceRandom.next()
        self.tornWrites = tornWrites
    }

    // MARK: LibraryDisk

    /// The names of the files in the folder, sorted.
    public func listFiles() throws(DiskError) -> [String] {
        if isStopped { throw Self.crashError }
        return names.keys.sorted()
    }

    /// The contents of `file` as reads see them now, or nil when there is no such file.
    public func read(file: String) throws(DiskError) -> [UInt8]? {
        if isStopped { throw Self.crashError }
        return names[file].map { inodes[$0].contents }
    }

    /// The identity of `file` (nil: the folder): this disk's device, the file's serial number,
    /// size and change clock, as `lstat` reports them on a real disk. A restored or copied folder
    /// has new serial numbers; every change moves the change clock.
    public func identity(of file: String?) throws(DiskError) -> FileIdentity? {
        if isStopped { throw Self.crashError }
        guard let file else { return FileIdentity(device: device, inode: 1, sizeBytes: 0, changeSeconds: 0, changeNanoseconds: 0) }
        guard let number = names[file] else { return nil }
        let node = inodes[number]
        return FileIdentity(
            device: device, inode: node.serial, sizeBytes: UInt64(node.contents.count), changeSeconds: Int64(node.changed),
            changeNanoseconds: 0)
    }

    private func touch(_ number: Int) {
        changeClock += 1
        inodes[number].changed = changeClock
    }

    private func newInode(contents: [UInt8], durable: [UInt8]) -> Inode {
        nextSerial += 1
        changeClock += 1
        return Inode(contents: contents, durable: durable, serial: nextSerial, changed: changeClock)
    }

    /// Performs one operation on what reads see (see the type's description for durability).
    ///
    /// - Throws: ``DiskError/io(reason:)`` for a missing file to truncate, sync or rename, an
    ///   invalid name, or ``crashError`` once the crash hook fired.
    public func perform(_ operation: DiskOperation) throws(DiskError) {
        if isStopped { throw Self.crashError }
        if let remaining = crashAfterOperations {
            if remaining <= 1 {
                crashAfterOperations = nil
                if crashPerformsLastOperation { try apply(operation) }
                isStopped = true
                throw Self.crashError
            }
            crashAfterOperations = remaining - 1
        }
        try apply(operation)
    }

    private func apply(_ operation: DiskOperation) throws(DiskError) {
        operationCount += 1
        switch operation {
        case let .write(file, bytes):
            try validate(file)
            let number = inode(creating: file)
            inodes[number].contents = bytes
            touch(number)
            bytesWritten += bytes.count
        case let .append(file, bytes):
            try validate(file)
            let number = inode(creating: file)
            inodes[number].contents.append(contentsOf: bytes)
            touch(number)
            bytesWritten += bytes.count
        case let .truncate(file, length):
            guard let number = names[file] else { throw .io(reason: "truncate \(file): no such file") }
            guard length >= 0 else { throw .io(reason: "truncate \(file): negative length \(length)") }
            if length <= inodes[number].contents.count {
                inodes[number].contents.removeLast(inodes[number].contents.count - length)
            } else {
                inodes[number].contents.append(contentsOf: repeatElement(0, count: length - inodes[number].contents.count))
            }
            touch(number)
        case let .sync(file):
            guard let number = names[file] else { throw .io(reason: "sync \(file): no such file") }
            inodes[number].durable = inodes[number].contents
            syncCount += 1
        case let .rename(from, to):
            try validate(to)
            guard let number = names[from] else { throw .io(reason: "rename \(from): no such file") }
            names[from] = nil
            names[to] = number
            touch(number)
        case let .delete(file):
            names[file] = nil
        case .syncDirectory:
            durableNames = names
            syncCount += 1
        }
    }

    private func validate(_ file: String) throws(DiskError) {
        guard !file.isEmpty, !file.contains("/"), file != ".", file != ".." else {
            throw .io(reason: "invalid file name \"\(file)\"")
        }
    }

    private func inode(creating file: String) -> Int {
        if let number = names[file] { return number }
        inodes.append(newInode(contents: [], durable: []))
        names[file] = inodes.count - 1
        return inodes.count - 1
    }

    // MARK: Crashes

    /// The power fails: every file goes back to its durable state (names and contents), and
    /// the disk answers again. With ``tornWrites`` on, an unsynced file may keep a random part
    /// of what was written to it: a prefix of an append's bytes (sometimes zeros instead), or a
    /// prefix of a rewrite.
    public func crash() {
        crashCount += 1
        isStopped = false
        crashAfterOperations = nil
        var kept: [Inode] = []
        var renumbered: [Int: Int] = [:]
        var newNames: [String: Int] = [:]
        for name in durableNames.keys.sorted() {
            let number = durableNames[name]!
            if let existing = renumbered[number] {
                newNames[name] = existing
                continue
            }
            var node = inodes[number]
            var contents = node.durable
            if tornWrites && node.contents != node.durable && random.chance(0.5) {
                tornFileCount += 1
                if node.contents.count > node.durable.count && node.contents.starts(with: node.durable) {
                    let extra = random.int(in: 0...(node.contents.count - node.durable.count))
                    if random.chance(0.25) {
                        contents.append(contentsOf: repeatElement(0, count: extra))
                    } else {
                        contents.append(contentsOf: node.contents[node.durable.count..<node.durable.count + extra])
                    }
                } else {
                    contents = Array(node.contents.prefix(random.int(in: 0...node.contents.count)))
                }
            }
            if node.contents != contents {
                changeClock += 1
                node.changed = changeClock
            }
            node.contents = contents
            node.durable = contents
            kept.append(node)
            renumbered[number] = kept.count - 1
            newNames[name] = kept.count - 1
        }
        inodes = kept
        names = newNames
        durableNames = newNames
    }

    // MARK: Bit rot

    /// With probability `probability`, flips one random bit of `file` within `range` (bytes
    /// written and synced going bad: a bad sector, bit rot), in what reads see and what survives
    /// a crash, without moving the file's change time (nobody wrote it). Returns the offset.
    public func rotBit(of file: String, in range: Range<Int>, probability: Double) -> Int? {
        guard !range.isEmpty, let number = names[file], range.upperBound <= inodes[number].contents.count, random.chance(probability) else {
            return nil
        }
        let offset = random.int(in: range.lowerBound...range.upperBound - 1)
        let mask = UInt8(1 << random.int(in: 0...7))
        inodes[number].contents[offset] ^= mask
        if offset < inodes[number].durable.count { inodes[number].durable[offset] ^= mask }
        return offset
    }

    // MARK: Images

    /// What the folder would hold after a crash now: each durable name with its durable
    /// contents, sorted by name (a backup taken by copying the folder after a power failure).
    public func durableImage() -> DiskImage {
        DiskImage(files: durableNames.keys.sorted().map { ($0, inodes[durableNames[$0]!].durable) })
    }

    /// What reads see now, sorted by name.
    public func currentImage() -> DiskImage {
        DiskImage(files: names.keys.sorted().map { ($0, inodes[names[$0]!].contents) })
    }

    /// Replaces the whole folder with `image`, durably (a library restored from a backup, or
    /// copied from another device). The crash hook is cleared.
    public func restore(_ image: DiskImage) {
        inodes = []
        names = [:]
        for (name, bytes) in image.files {
            inodes.append(newInode(contents: bytes, durable: bytes))
            names[name] = inodes.count - 1
        }
        durableNames = names
        isStopped = false
        crashAfterOperations = nil
    }

    /// The total size of the files reads see.
    public var totalBytes: Int { names.values.reduce(0) { $0 + inodes[$1].contents.count } }
}

/// The files of a library folder at one moment, sorted by name.
public struct DiskImage: Sendable, Equatable {
    /// Names and contents.
    public var files: [(name: String, bytes: [UInt8])]

    /// An image of `files`.
    public init(files: [(name: String, bytes: [UInt8])]) {
        self.files = files
    }

    /// The total size in bytes.
    public var totalBytes: Int { files.reduce(0) { $0 + $1.bytes.count } }

    public static func == (lhs: DiskImage, rhs: DiskImage) -> Bool {
        lhs.files.count == rhs.files.count && zip(lhs.files, rhs.files).allSatisfy { $0.name == $1.name && $0.bytes == $1.bytes }
    }
}
