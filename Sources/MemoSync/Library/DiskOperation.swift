/// One step of persisting a library, as the sans-I/O library logic asks for it.
///
/// The semantics are those of a POSIX file system with an explicit durability barrier:
/// `write`, `append`, `truncate`, `rename` and `delete` change what reads see at once, but only
/// `sync` (for a file's contents) and `syncDirectory` (for names: creations, renames, deletions)
/// make them survive a crash. A crash reverts every file to its last durable state. The
/// deterministic simulator's disk implements exactly that, losing whatever was not synced.
public enum DiskOperation: Sendable, Equatable, CustomStringConvertible {
    /// Creates `file` or replaces its contents with `bytes`.
    case write(file: String, bytes: [UInt8])
    /// Appends `bytes` to `file` (created if missing).
    case append(file: String, bytes: [UInt8])
    /// Cuts `file` to `length` bytes.
    case truncate(file: String, length: Int)
    /// Makes the contents of `file` durable (fsync).
    case sync(file: String)
    /// Renames `from` to `to`, atomically replacing `to`.
    case rename(from: String, to: String)
    /// Removes `file` (a missing file is not an error).
    case delete(file: String)
    /// Makes the directory's names durable (fsync of the directory).
    case syncDirectory

    public var description: String {
        switch self {
        case let .write(file, bytes): "write \(file) (\(bytes.count) bytes)"
        case let .append(file, bytes): "append \(file) (\(bytes.count) bytes)"
        case let .truncate(file, length): "truncate \(file) to \(length)"
        case let .sync(file): "sync \(file)"
        case let .rename(from, to): "rename \(from) -> \(to)"
        case let .delete(file): "delete \(file)"
        case .syncDirectory: "sync directory"
        }
    }
}

/// What went wrong on the local disk.
public enum DiskError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The library folder cannot be used (missing, not a folder, no permission).
    case unavailable(reason: String)
    /// Another process holds the library.
    case locked(path: String)
    /// This process holds the library already: another ``FileDisk`` (another `Replica`) of
    /// the same folder is open in this app. Use that one, or close it first.
    case alreadyOpen(path: String)
    /// The disk is full.
    case full
    /// Another input/output failure.
    case io(reason: String)
    /// A library file holds more bytes than the library reads of it (FORMAT.md, "Local
    /// library", "Size limits"): refused from its size before it is read, and nothing in the
    /// library is changed. MemoSync never writes a file that large.
    case tooLarge(file: String, sizeBytes: Int, limitBytes: Int)

    public var description: String {
        switch self {
        case let .unavailable(reason): "the library folder cannot be used: \(reason)"
        case let .locked(path): "another process is using the library at \(path)"
        case let .alreadyOpen(path): "the library at \(path) is already open in this process"
        case .full: "the disk is full"
        case let .io(reason): "disk input/output error: \(reason)"
        case let .tooLarge(file, size, limit): "the library file \(file) is too large (\(size) bytes; the limit is \(limit))"
        }
    }
}

/// A flat folder of files the library logic reads and changes, one operation at a time.
///
/// `FileDisk` is the real one (a folder on the local file system); the simulator has its own.
///
/// Public (with ``DiskOperation``) because an app may keep its library somewhere other than a
/// folder, or open a ``Replica`` on `MemoSyncTesting`'s in-memory disk in its own tests
/// (`Replica(disk:)`); the checks, limits and catalogs behind them are the package's own.
public protocol LibraryDisk {
    /// The names of the files in the folder.
    func listFiles() throws(DiskError) -> [String]
    /// The contents of `file`, or nil when it does not exist.
    func read(file: String) throws(DiskError) -> [UInt8]?
    /// Performs one operation.
    func perform(_ operation: DiskOperation) throws(DiskError)
    /// `file` kept open for reading ranges of it, nil when it does not exist: a library opened
    /// from its state list reads each memo's text from the state file when first used. The
    /// reader reads the file as it was opened, even after it was replaced by a rename. The
    /// default reads the whole file and keeps it in memory.
    func openReader(file: String) throws(DiskError) -> (any LibraryFileReader)?
    /// The file system's identity of `file` (nil: of the folder itself), nil when the file does
    /// not exist or the disk cannot tell identities. A library keeps its replica id from one
    /// session to the next only on a disk that can (see `LibrarySeal`).
    func identity(of file: String?) throws(DiskError) -> FileIdentity?
    /// The smallest state file a compaction on this disk writes a state list for, and an open
    /// reads one of (FORMAT.md, "State list"); a smaller state is read whole, every check made,
    /// at each open. The default is `LibraryCore.stateListWorthBytes` (1 MiB): below it, reading
    /// the whole state costs a few milliseconds. The simulator lowers it to 0 in some runs, so
    /// that its small libraries open from lists and read their memos' texts on first use.
    var stateListMinimumBytes: Int { get }
}

extension LibraryDisk {
    /// 1 MiB (`LibraryCore.stateListWorthBytes`).
    public var stateListMinimumBytes: Int { LibraryCore.stateListWorthBytes }

    /// Reads the whole file and keeps its bytes (``InMemoryFileReader``).
    public func openReader(file: String) throws(DiskError) -> (any LibraryFileReader)? {
        try read(file: file).map { InMemoryFileReader(bytes: $0) }
    }

    /// Performs `operations` in order, stopping at the first failure.
    public func perform(_ operations: [DiskOperation]) throws(DiskError) {
        for operation in operations { try perform(operation) }
    }
}


/// A library file kept open for reading ranges of it (``LibraryDisk/openReader(file:)``).
public protocol LibraryFileReader: AnyObject, Sendable {
    /// The file's size in bytes when it was opened.
    var sizeBytes: Int { get }
    /// `count` bytes from `offset`.
    ///
    /// - Throws: ``DiskError`` when they cannot all be read.
    func read(offset: Int, count: Int) throws(DiskError) -> [UInt8]
}

/// A file's bytes held in memory, read as a ``LibraryFileReader``.
public final class InMemoryFileReader: LibraryFileReader {
    private let bytes: [UInt8]

    /// A reader of `bytes`.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    public var sizeBytes: Int { bytes.count }

    public func read(offset: Int, count: Int) throws(DiskError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else {
            throw .io(reason: "a read of \(count) bytes at \(offset) of a file of \(bytes.count)")
        }
        return Array(bytes[offset..<offset + count])
    }
}

/// A library's state file as the source of its notebook's stored texts.
final class StateFileBodySource: NotebookBodySource {
    let file: any LibraryFileReader

    init(file: any LibraryFileReader) { self.file = file }

    func read(offset: Int, count: Int) throws(NotebookBodyReadError) -> [UInt8] {
        do throws(DiskError) {
            let bytes = try file.read(offset: offset, count: count)
            guard bytes.count == count else { throw DiskError.io(reason: "the state file is shorter than it was") }
            return bytes
        } catch {
            throw NotebookBodyReadError(reason: error.description)
        }
    }
}
