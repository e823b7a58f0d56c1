import Foundation
import Synchronization

/// The library folder on the local file system: the real ``LibraryDisk``.
///
/// Opening it takes an exclusive advisory lock (`flock`) on the lock file
/// ``lockFileName`` inside the folder, so only one `FileDisk` (in this process or any other)
/// uses a library at a time; the lock lasts until ``close()`` or until the disk is released.
/// The lock file is never listed, read or changed through the disk.
///
/// Operations have POSIX semantics, performed with file descriptors: `write` truncates and
/// writes every byte (continuing after partial writes), `append` uses O_APPEND, `sync` is
/// `fsync` (F_FULLFSYNC on Apple platforms), `rename` is `rename(2)`, `delete` is `unlink`,
/// `syncDirectory` is an `fsync` of the folder. Nothing is buffered: each operation reaches the
/// system before it returns, and is durable after the `sync` or `syncDirectory` that follows.
///
/// File names are plain names (see ``isValidFileName(_:)``). Calls are serialized by an
/// internal lock, so the disk may be shared between threads.
public final class FileDisk: LibraryDisk, @unchecked Sendable {
    /// The name of the lock file inside the library folder.
    public static let lockFileName = ".memosync.lock"
    /// The name of the sync lock file inside the library folder: held (with `flock`) for a
    /// whole sync by a process that shares the library while it syncs (`memo sync`), so that
    /// two syncs of one library never run at once. Never listed, read or changed through the
    /// disk.
    public static let syncLockFileName = ".memosync.sync-lock"
    /// Tries to take the lock, 10 ms apart, before reporting it held.
    static let lockAttempts = 20

    /// The absolute path of the library folder, without a trailing "/".
    public let path: String

    // Guarded by `lock`: the descriptor holding the library lock, nil once closed.
    private let lock = NSLock()
    private var lockDescriptor: Int32?
    /// False between ``releaseLock()`` and ``takeLock(waitingMilliseconds:)``.
    private var holdsLockNow = true
    /// The lock file's identity while this disk is open, counted in ``openInThisProcess``.
    private var registered: LockFileID?

    /// A lock file, by device and inode.
    private struct LockFileID: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// The lock files the open `FileDisk`s of this process hold, with how many hold each: a
    /// second open of a library in the same process (which `flock` refuses as it refuses
    /// another process's) is told apart as ``DiskError/alreadyOpen(path:)``.
    private static let openInThisProcess = Mutex<[LockFileID: Int]>([:])

    /// The identity of the file open as `descriptor`, nil when `fstat` fails.
    private static func lockFileID(_ descriptor: Int32) -> LockFileID? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return LockFileID(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino))
    }

    /// Whether an open `FileDisk` of this process holds the lock file open as `descriptor`.
    private static func isOpenInThisProcess(_ descriptor: Int32) -> Bool {
        guard let id = lockFileID(descriptor) else { return false }
        return openInThisProcess.withLock { $0[id, default: 0] > 0 }
    }

    /// Forgets this disk in ``openInThisProcess``; called with `lock` held, or from `deinit`.
    private func unregister() {
        guard let registered else { return }
        Self.openInThisProcess.withLock { open in
            let count = open[registered, default: 0] - 1
            open[registered] = count > 0 ? count : nil
        }
        self.registered = nil
    }

    /// Opens the library folder at `path`, creating it (and any missing folder above it) when
    /// needed, and locks it. A relative path is resolved against the current folder now.
    ///
    /// - Throws: ``DiskError/locked(path:)`` when another process holds the library;
    ///   ``DiskError/alreadyOpen(path:)`` when another `FileDisk` of this process holds it
    ///   (another `Replica` of the same library); ``DiskError/unavailable(reason:)`` when the folder cannot
    ///   be created or used (something else has its name, no permission);
    ///   ``DiskError/full`` when the disk has no room for it.
    public init(path: String) throws(DiskError) {
        guard let absolute = POSIX.absolutePath(path) else {
            throw .unavailable(reason: "no folder path given (\"\(path)\")")
        }
        self.path = absolute
        let lockPath = absolute.hasSuffix("/") ? absolute + FileDisk.lockFileName : absolute + "/" + FileDisk.lockFileName
        do throws(POSIXFailure) {
            try POSIX.makeDirectories(absolute)
        } catch {
            throw error.kind == .noSpace ? .full : .unavailable(reason: error.description)
        }
        let descriptor: Int32
        do throws(POSIXFailure) {
            descriptor = try POSIX.open(lockPath, .readWriteCreating)
        } catch {
            throw error.kind == .noSpace ? .full : .unavailable(reason: error.description)
        }
        // A lock just released may still be held for a moment: a process that forked before
        // the holder closed its descriptor shares it until it execs. Tried for up to 200 ms.
        var attempt = 0
        while true {
            do throws(POSIXFailure) {
                try POSIX.lockExclusively(descriptor, path: lockPath)
                break
            } catch {
                attempt += 1
                if error.kind == .wouldBlock && Self.isOpenInThisProcess(descriptor) {
                    POSIX.closeQuietly(descriptor)
                    throw .alreadyOpen(path: absolute)
                }
                if error.kind == .wouldBlock && attempt < Self.lockAttempts {
                    usleep(10_000)
                    continue
                }
                POSIX.closeQuietly(descriptor)
                throw error.kind == .wouldBlock ? .locked(path: absolute) : .unavailable(reason: error.description)
            }
        }
        lockDescriptor = descriptor
        registered = Self.lockFileID(descriptor)
        if let registered { Self.openInThisProcess.withLock { $0[registered, default: 0] += 1 } }
    }

    /// Opens the library folder of the file URL `url`; see ``init(path:)``.
    ///
    /// - Throws: ``DiskError/unavailable(reason:)`` for a URL that is not a file URL, and the
    ///   errors of ``init(path:)``.
    public convenience init(url: URL) throws(DiskError) {
        guard url.isFileURL else {
            throw .unavailable(reason: "\(url) is not a file URL")
        }
        let path = url.withUnsafeFileSystemRepresentation { pointer in
            pointer.map { String(cString: $0) } ?? ""
        }
        try self.init(path: path)
    }

    deinit {
        unregister()
        if let lockDescriptor { POSIX.closeQuietly(lockDescriptor) }
    }

    /// Releases the library lock; afterwards every call throws
    /// ``DiskError/unavailable(reason:)``. Closing twice does nothing.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        unregister()
        if let lockDescriptor { POSIX.closeQuietly(lockDescriptor) }
        lockDescriptor = nil
    }

    /// Lets other `FileDisk`s (other processes) take the library lock until ``takeLock(waitingMilliseconds:)``.
    /// Meanwhile every operation throws ``DiskError/unavailable(reason:)``: the folder may be
    /// changing under another holder. A `Replica` sharing its folder (`Replica.shareFolder()`)
    /// holds the lock only while it reads or writes the library files.
    public func releaseLock() {
        lock.lock()
        defer { lock.unlock() }
        guard let lockDescriptor, holdsLockNow else { return }
        POSIX.unlock(lockDescriptor)
        holdsLockNow = false
    }

    /// Takes the library lock again after ``releaseLock()``, waiting up to
    /// `waitingMilliseconds` for another holder to release it (a command that changes the
    /// library holds it for moments).
    ///
    /// - Throws: ``DiskError/locked(path:)`` when it was not released in time;
    ///   ``DiskError/unavailable(reason:)`` when the disk was closed.
    public func takeLock(waitingMilliseconds: Int) throws(DiskError) {
        let lockPath = filePath(FileDisk.lockFileName)
        var waited = 0
        while true {
            lock.lock()
            guard let lockDescriptor else {
                lock.unlock()
                throw .unavailable(reason: "the library at \(path) was closed")
            }
            if holdsLockNow {
                lock.unlock()
                return
            }
            do throws(POSIXFailure) {
                try POSIX.lockExclusively(lockDescriptor, path: lockPath)
                holdsLockNow = true
                lock.unlock()
                return
            } catch {
                lock.unlock()
                guard error.kind == .wouldBlock else { throw .unavailable(reason: error.description) }
                guard waited < waitingMilliseconds else { throw .locked(path: path) }
            }
            usleep(5_000)
            waited += 5
        }
    }

    /// Whether this disk holds the library lock now (open, and not released).
    public var holdsLock: Bool {
        lock.lock()
        defer { lock.unlock() }
        return lockDescriptor != nil && holdsLockNow
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return lockDescriptor == nil
    }

    /// Whether `name` may name a file of the library: non-empty, at most 255 UTF-8 bytes, no
    /// "/", no control character, not "." or "..", and not the lock file. O(length).
    public static func isValidFileName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= 255, name != ".", name != "..", name != lockFileName,
            name != syncLockFileName
        else {
            return false
        }
        return name.unicodeScalars.allSatisfy { scalar in
            let value = scalar.value
            return value >= 0x20 && !(0x7F...0x9F).contains(value) && value != 0x2F
        }
    }

    // MARK: LibraryDisk

    /// The names of the regular files in the folder, sorted, except the lock file and names no
    /// operation accepts (control characters, invalid UTF-8). Folders and symbolic links are
    /// left out. O(n log n) for n entries.
    ///
    /// - Throws: ``DiskError/unavailable(reason:)`` when the folder is gone or the disk is
    ///   closed; ``DiskError/io(reason:)`` when it cannot be read.
    public func listFiles() throws(DiskError) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        do throws(POSIXFailure) {
            var files: [String] = []
            for name in try POSIX.directoryEntries(path) where FileDisk.isValidFileName(name) {
                do throws(POSIXFailure) {
                    if try POSIX.status(of: filePath(name), followLinks: false).kind == .regular {
                        files.append(name)
                    }
                } catch where error.kind == .notFound {
                    continue  // removed meanwhile
                }
            }
            return files.sorted()
        } catch {
            throw mapped(error)
        }
    }

    /// The contents of `file`, or nil when there is no such file. O(size).
    ///
    /// A file larger than the library reads of it (FORMAT.md, "Local library", "Size limits":
    /// 1 GiB + 12 bytes for `state`, twice that for a journal, 64 KiB for `seal`, 1 MiB for
    /// `encryption`) is refused from its `fstat` size without reading it; a file that grows past
    /// its limit while it is read, after at most the limit and one byte.
    ///
    /// - Throws: ``DiskError/tooLarge(file:sizeBytes:limitBytes:)`` for a file over its limit;
    ///   ``DiskError/io(reason:)`` for an invalid name, a name that is not a regular
    ///   file (a folder) or a failed read; ``DiskError/unavailable(reason:)`` when the folder is
    ///   gone or the disk is closed.
    public func read(file: String) throws(DiskError) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        let path = try validatedPath(file)
        let limit = LibraryFileLimits.limitBytes(ofFile: file)
        var sizeBytes = 0
        do throws(POSIXFailure) {
            let descriptor: Int32
            do throws(POSIXFailure) {
                descriptor = try POSIX.open(path, .read)
            } catch where error.kind == .notFound && POSIX.isDirectory(self.path) {
                return nil
            }
            defer { POSIX.closeQuietly(descriptor) }
            let status = try POSIX.status(of: descriptor, path: path)
            guard status.kind == .regular else {
                throw POSIXFailure(call: "read", path: path, kind: .other, reason: "not a regular file")
            }
            if let bytes = try POSIX.readAll(descriptor, path: path, limitBytes: limit) { return bytes }
            sizeBytes = max(status.size, limit + 1)
        } catch {
            throw mapped(error)
        }
        throw .tooLarge(file: file, sizeBytes: sizeBytes, limitBytes: limit)
    }

    /// `file` kept open (its descriptor) for `pread`s of ranges of it; nil when there is no
    /// such file. Reads go on reading the file opened, after a rename replaced it, and after
    /// this disk is closed.
    ///
    /// - Throws: as ``read(file:)``, except that nothing is read (a file over its limit is
    ///   refused from its size).
    public func openReader(file: String) throws(DiskError) -> (any LibraryFileReader)? {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        let path = try validatedPath(file)
        let limit = LibraryFileLimits.limitBytes(ofFile: file)
        var sizeBytes = 0
        opening: do throws(POSIXFailure) {
            let descriptor: Int32
            do throws(POSIXFailure) {
                descriptor = try POSIX.open(path, .read)
            } catch where error.kind == .notFound && POSIX.isDirectory(self.path) {
                return nil
            }
            let status: FileStatus
            do throws(POSIXFailure) {
                status = try POSIX.status(of: descriptor, path: path)
                guard status.kind == .regular else {
                    throw POSIXFailure(call: "read", path: path, kind: .other, reason: "not a regular file")
                }
            } catch {
                POSIX.closeQuietly(descriptor)
                throw error
            }
            guard status.size <= limit else {
                POSIX.closeQuietly(descriptor)
                sizeBytes = status.size
                break opening
            }
            return FileStateReader(descriptor: descriptor, path: path, sizeBytes: status.size)
        } catch {
            throw mapped(error)
        }
        throw .tooLarge(file: file, sizeBytes: sizeBytes, limitBytes: limit)
    }

    /// Performs `operation` with POSIX semantics (see ``DiskOperation``).
    ///
    /// - `write`: create or truncate, then write every byte. O(size).
    /// - `append`: O_APPEND write, creating the file. O(size).
    /// - `truncate`: `ftruncate` of an existing file (a length beyond the end extends it with
    ///   zeros, as POSIX does).
    /// - `sync`: `fsync` of an existing file.
    /// - `rename`: `rename(2)`, replacing the destination.
    /// - `delete`: `unlink`; a missing file is not an error.
    /// - `syncDirectory`: `fsync` of the folder.
    ///
    /// - Throws: ``DiskError/full`` when the disk is full; ``DiskError/unavailable(reason:)``
    ///   when the folder is gone, permission is denied or the disk is closed;
    ///   ``DiskError/io(reason:)`` for an invalid file name, a negative length, a missing file
    ///   to truncate, sync or rename, or another failure (with the system's message).
    public func perform(_ operation: DiskOperation) throws(DiskError) {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        switch operation {
        case let .write(file, bytes):
            try writeFile(try validatedPath(file), bytes: bytes, mode: .writeTruncating)
        case let .append(file, bytes):
            try writeFile(try validatedPath(file), bytes: bytes, mode: .append)
        case let .truncate(file, length):
            let path = try validatedPath(file)
            guard length >= 0 else { throw .io(reason: "truncate \(path): negative length \(length)") }
            try withDescriptor(path, .writeExisting) { descriptor throws(POSIXFailure) in
                try POSIX.truncate(descriptor, to: length, path: path)
            }
        case let .sync(file):
            let path = try validatedPath(file)
            try withDescriptor(path, .read) { descriptor throws(POSIXFailure) in
                try POSIX.synchronize(descriptor, path: path)
            }
        case let .rename(from, to):
            let source = try validatedPath(from)
            let destination = try validatedPath(to)
            do throws(POSIXFailure) {
                try POSIX.rename(source, to: destination)
            } catch {
                throw mapped(error)
            }
        case let .delete(file):
            let path = try validatedPath(file)
            do throws(POSIXFailure) {
                try POSIX.unlink(path)
            } catch where error.kind == .notFound && POSIX.isDirectory(self.path) {
                return
            } catch {
                throw mapped(error)
            }
        case .syncDirectory:
            do throws(POSIXFailure) {
                try POSIX.synchronizeDirectory(path)
            } catch {
                throw mapped(error)
            }
        }
    }

    // MARK: Private

    /// Throws `unavailable` once the disk is closed. Call with the lock held.
    private func checkOpen() throws(DiskError) {
        guard lockDescriptor != nil else {
            throw .unavailable(reason: "the library at \(path) was closed")
        }
        guard holdsLockNow else {
            throw .unavailable(reason: "the library at \(path) is not locked by this process now")
        }
    }

    private func filePath(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    /// The path of the file `name`, after checking the name.
    private func validatedPath(_ name: String) throws(DiskError) -> String {
        guard FileDisk.isValidFileName(name) else {
            throw .io(reason: "invalid file name \"\(name)\" in the library at \(path)")
        }
        return filePath(name)
    }

    /// Opens `path` in `mode`, writes `bytes`, and closes it (reporting a failed close).
    private func writeFile(_ path: String, bytes: [UInt8], mode: OpenMode) throws(DiskError) {
        do throws(POSIXFailure) {
            let descriptor = try POSIX.open(path, mode)
            do throws(POSIXFailure) {
                try POSIX.writeAll(descriptor, bytes, path: path)
            } catch {
                POSIX.closeQuietly(descriptor)
                throw error
            }
            try POSIX.close(descriptor, path: path)
        } catch {
            throw mapped(error)
        }
    }

    /// Opens `path` in `mode`, runs `body` on the descriptor, and closes it.
    private func withDescriptor(
        _ path: String, _ mode: OpenMode, _ body: (Int32) throws(POSIXFailure) -> Void
    ) throws(DiskError) {
        do throws(POSIXFailure) {
            let descriptor = try POSIX.open(path, mode)
            defer { POSIX.closeQuietly(descriptor) }
            try body(descriptor)
        } catch {
            throw mapped(error)
        }
    }

    /// The `DiskError` for a failed call: `full` for no room; `unavailable` when the folder is
    /// gone or access is denied; `io` with the call, path and system message otherwise.
    func mapped(_ failure: POSIXFailure) -> DiskError {
        switch failure.kind {
        case .noSpace:
            return .full
        case .accessDenied, .readOnly:
            return .unavailable(reason: failure.description)
        default:
            if !POSIX.isDirectory(path) {
                return .unavailable(reason: "the library folder \(path) does not exist or is not a folder")
            }
            return .io(reason: failure.description)
        }
    }
}

/// The sync lock of a library folder (``FileDisk/syncLockFileName``): held for a whole sync by
/// a process that shares its library while it syncs (`Replica.shareFolder()`), so that two
/// syncs of one library never run at once while other processes change it. Released by
/// ``release()`` or when the lock is deinitialized (or the process ends).
public final class LibrarySyncLock: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptor: Int32?

    /// Takes the sync lock of the library folder at `path` (created when missing), without
    /// waiting.
    ///
    /// - Throws: ``DiskError/locked(path:)`` when another process (or another lock in this one)
    ///   holds it; ``DiskError/unavailable(reason:)`` when the folder cannot be used;
    ///   ``DiskError/full``.
    public init(path: String) throws(DiskError) {
        guard let absolute = POSIX.absolutePath(path) else {
            throw .unavailable(reason: "no folder path given (\"\(path)\")")
        }
        let lockPath = absolute.hasSuffix("/") ? absolute + FileDisk.syncLockFileName : absolute + "/" + FileDisk.syncLockFileName
        let opened: Int32
        do throws(POSIXFailure) {
            try POSIX.makeDirectories(absolute)
            opened = try POSIX.open(lockPath, .readWriteCreating)
        } catch {
            throw error.kind == .noSpace ? .full : .unavailable(reason: error.description)
        }
        do throws(POSIXFailure) {
            try POSIX.lockExclusively(opened, path: lockPath)
        } catch {
            POSIX.closeQuietly(opened)
            throw error.kind == .wouldBlock ? .locked(path: absolute) : .unavailable(reason: error.description)
        }
        descriptor = opened
    }

    deinit {
        if let descriptor { POSIX.closeQuietly(descriptor) }
    }

    /// Releases the lock. Releasing twice does nothing.
    public func release() {
        lock.lock()
        defer { lock.unlock() }
        if let descriptor { POSIX.closeQuietly(descriptor) }
        descriptor = nil
    }
}


/// A file kept open for `pread`s of ranges of it (``FileDisk/openReader(file:)``, and a
/// ``LibrarySnapshot``'s state file read through its state list). Reads go on reading the file
/// opened, after a rename replaced it.
final class FileStateReader: LibraryFileReader, @unchecked Sendable {
    // Unchecked: the descriptor is only read with `pread`, which threads may share; it is
    // closed once, when the last reference goes.
    let descriptor: Int32
    let path: String
    let sizeBytes: Int

    init(descriptor: Int32, path: String, sizeBytes: Int) {
        self.descriptor = descriptor
        self.path = path
        self.sizeBytes = sizeBytes
    }

    deinit { POSIX.closeQuietly(descriptor) }

    /// `path` opened for reading: nil when it is not a regular file of at most `limitBytes`.
    static func open(_ path: String, limitBytes: Int) throws(POSIXFailure) -> FileStateReader? {
        let descriptor = try POSIX.open(path, .read)
        guard let status = try? POSIX.status(of: descriptor, path: path), status.kind == .regular, status.size <= limitBytes else {
            POSIX.closeQuietly(descriptor)
            return nil
        }
        return FileStateReader(descriptor: descriptor, path: path, sizeBytes: status.size)
    }

    func read(offset: Int, count: Int) throws(DiskError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= sizeBytes, count <= sizeBytes - offset else {
            throw .io(reason: "a read of \(count) bytes at \(offset) of \(path), \(sizeBytes) bytes long")
        }
        do throws(POSIXFailure) {
            return try POSIX.read(descriptor, offset: offset, count: count, path: path)
        } catch {
            throw .io(reason: error.description)
        }
    }
}
