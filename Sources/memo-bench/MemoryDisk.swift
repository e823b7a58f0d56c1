// A library folder in memory for `memo-bench longevity`: thousands of sessions open, save and
// close a library, and a real folder's fsyncs would make the benchmark measure the disk.

import MemoSync

/// A library folder in memory that reports file identities, so a library on it keeps its
/// replica id across clean sessions exactly as on a real folder (FORMAT.md, "The seal").
///
/// Modelled on the simulator's `SimulatedDisk` without its crash model: nothing is ever lost,
/// so `sync` and `syncDirectory` do nothing. Each file is an inode with a serial number never
/// reused on this disk and a change counter, moved by every write, append, truncate and rename
/// (a real file's `st_ctime`). Single-threaded.
final class MemoryDisk: LibraryDisk {
    private struct Inode {
        var contents: [UInt8]
        var serial: UInt64
        var changed: UInt64
    }

    private var files: [String: Inode] = [:]
    private let device: UInt64
    private var nextSerial: UInt64 = 2
    private var changeClock: UInt64 = 1

    /// An empty folder on device `device` (give each disk its own).
    init(device: UInt64) {
        self.device = device
    }

    /// The bytes the folder's files hold.
    var totalBytes: Int { files.values.reduce(0) { $0 + $1.contents.count } }

    func listFiles() throws(DiskError) -> [String] {
        files.keys.sorted()
    }

    func read(file: String) throws(DiskError) -> [UInt8]? {
        files[file]?.contents
    }

    func identity(of file: String?) throws(DiskError) -> FileIdentity? {
        guard let file else { return FileIdentity(device: device, inode: 1, sizeBytes: 0, changeSeconds: 0, changeNanoseconds: 0) }
        guard let node = files[file] else { return nil }
        return FileIdentity(
            device: device, inode: node.serial, sizeBytes: UInt64(node.contents.count), changeSeconds: Int64(node.changed),
            changeNanoseconds: 0)
    }

    func perform(_ operation: DiskOperation) throws(DiskError) {
        switch operation {
        case let .write(file, bytes):
            try Self.validate(file)
            create(file)
            files[file]!.contents = bytes
            touch(file)
        case let .append(file, bytes):
            try Self.validate(file)
            create(file)
            files[file]!.contents.append(contentsOf: bytes)
            touch(file)
        case let .truncate(file, length):
            guard files[file] != nil else { throw .io(reason: "truncate \(file): no such file") }
            guard length >= 0 else { throw .io(reason: "truncate \(file): negative length \(length)") }
            let count = files[file]!.contents.count
            if length <= count {
                files[file]!.contents.removeLast(count - length)
            } else {
                files[file]!.contents.append(contentsOf: repeatElement(0, count: length - count))
            }
            touch(file)
        case let .sync(file):
            guard files[file] != nil else { throw .io(reason: "sync \(file): no such file") }
        case let .rename(from, to):
            try Self.validate(to)
            guard let node = files.removeValue(forKey: from) else { throw .io(reason: "rename \(from): no such file") }
            files[to] = node
            touch(to)
        case let .delete(file):
            files[file] = nil
        case .syncDirectory:
            break
        }
    }

    private func create(_ file: String) {
        guard files[file] == nil else { return }
        nextSerial += 1
        files[file] = Inode(contents: [], serial: nextSerial, changed: 0)
    }

    private func touch(_ file: String) {
        changeClock += 1
        files[file]!.changed = changeClock
    }

    private static func validate(_ file: String) throws(DiskError) {
        guard !file.isEmpty, !file.contains("/"), file != ".", file != ".." else {
            throw .io(reason: "invalid file name \"\(file)\"")
        }
    }
}
