// ============================================================================================
// PLATFORM FILE: the only file in MemoSync that calls the operating system's C library.
// ============================================================================================
//
// Everything here is POSIX and compiles against Glibc (Linux), Musl (static Linux) and Darwin
// (macOS, iOS and the other Apple platforms). The rest of MemoSync is portable Swift and reaches
// the file system only through the `POSIX` namespace below, so porting MemoSync to another
// system (Windows, WASI) means rewriting this one file.
//
// Platform differences handled here:
// - Durability. On Darwin `fsync` only hands data to the drive, whose cache may lose it on power
//   failure; `fcntl(F_FULLFSYNC)` asks the drive to flush. `synchronize` uses F_FULLFSYNC there
//   and falls back to `fsync` on file systems that do not support it. Linux `fsync` flushes.
// - Directory `fsync` is refused by some file systems (EINVAL, ENOTSUP); there it is a no-op.
// - `mode_t` is 32 bits on Linux and 16 bits on Darwin; file type bits are the same everywhere.
// - `opendir` returns an opaque pointer on Linux and a typed one on Darwin (inferred below).
// - Working inside an open folder (`openat`, `fstatat`, `fdopendir`) is POSIX 2008 and the same
//   on every system here. With `O_NOFOLLOW`, Linux and Darwin both refuse a symbolic link with
//   ELOOP, except that Linux says ENOTDIR when `O_DIRECTORY` is given too (callers check the
//   entry's type with `fstatat` when they need to tell).
// - Locks are `flock(2)` locks: owned by an open file description, so two opens of the lock
//   file conflict even inside one process (unlike `fcntl` locks) and closing the descriptor
//   releases the lock. (On Linux NFS, `flock` is emulated with `fcntl` locks: it still excludes
//   other machines and processes, but not a second open inside the same process.)
// - Large pages (`madvise(MADV_HUGEPAGE)`) are asked for large read buffers on Linux only, where
//   the kernel gives them only where asked; elsewhere the advice is left out.
//
// Every call retries on EINTR where POSIX allows it; `close` is never retried (on Linux the
// descriptor is released even when `close` reports EINTR).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("MemoSync's file drivers need a POSIX C library (Glibc, Musl or Darwin).")
#endif

import MemoNotes

/// A failed system call: which call, on which path, and the `errno` it set, already classified
/// so that callers never see platform constants.
struct POSIXFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the error number means for MemoSync's drivers.
    enum Kind: Sendable, Equatable {
        /// ENOENT: a missing file or folder.
        case notFound
        /// ENOTDIR: a path component is not a folder.
        case notDirectory
        /// EISDIR: a folder where a file was expected.
        case isDirectory
        /// EEXIST: the name is taken.
        case exists
        /// ENOSPC or EDQUOT: no room left.
        case noSpace
        /// EACCES or EPERM: not allowed.
        case accessDenied
        /// EROFS: a read-only file system.
        case readOnly
        /// EWOULDBLOCK / EAGAIN: a lock is held elsewhere.
        case wouldBlock
        /// ENAMETOOLONG: a name or path is too long.
        case nameTooLong
        /// ELOOP: a symbolic link where none may be followed (`O_NOFOLLOW`), or a loop of them.
        case symbolicLink
        /// EFBIG: a file too large.
        case tooLarge
        /// A file that grew while it was read (not an error number: see `POSIX.readWhole`).
        case grewWhileRead
        /// Anything else.
        case other
    }

    /// The system call, for example "open" or "fsync".
    var call: String
    /// The path it was about.
    var path: String
    /// The classified error number.
    var kind: Kind
    /// The system's text for the error number (`strerror`).
    var reason: String

    /// "call path: reason", for example "open /tmp/x: No such file or directory".
    var description: String { "\(call) \(path): \(reason)" }

    /// Classifies the error number `code`.
    init(call: String, path: String, code: Int32) {
        self.call = call
        self.path = path
        self.reason = POSIX.errorText(code)
        switch code {
        case ENOENT: kind = .notFound
        case ENOTDIR: kind = .notDirectory
        case EISDIR: kind = .isDirectory
        case EEXIST: kind = .exists
        case ENOSPC, EDQUOT: kind = .noSpace
        case EACCES, EPERM: kind = .accessDenied
        case EROFS: kind = .readOnly
        case EWOULDBLOCK, EAGAIN: kind = .wouldBlock
        case ENAMETOOLONG: kind = .nameTooLong
        case ELOOP: kind = .symbolicLink
        case EFBIG: kind = .tooLarge
        default: kind = .other
        }
    }

    /// A failure with an explicit kind and reason (for checks that are not system calls, and
    /// for tests of error mapping).
    init(call: String, path: String, kind: Kind, reason: String) {
        self.call = call
        self.path = path
        self.kind = kind
        self.reason = reason
    }
}

/// What `status(of:followLinks:)` reports about a path.
struct FileStatus: Sendable, Equatable {
    /// The type of a file system entry.
    enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, other
    }

    /// The entry's type.
    var kind: Kind
    /// Its size in bytes (for a regular file: the length of its contents).
    var size: Int
    /// Its inode, modification and change times (`st_ino`, `st_mtime`, `st_ctime`, with
    /// nanoseconds) as one short string: a file replaced or rewritten shows another one
    /// (``BlobInfo/revision``). Made from ``stamp`` when asked (a listing asks only files).
    var revision: String {
        "\(stamp.inode):\(stamp.modifiedSeconds).\(stamp.modifiedNanoseconds):\(stamp.changedSeconds).\(stamp.changedNanoseconds)"
    }
    /// Its device, inode and modification and change times, as numbers: for a folder, what a
    /// listing's cache compares (a folder gains, loses or renames an entry: both times change).
    var stamp: FolderStamp
}

/// A folder's identity (device, inode) and times (`st_mtime`, `st_ctime`, with nanoseconds) as
/// `stat` gives them: adding, removing or renaming an entry of a folder changes both times, so
/// a folder whose stamp is unchanged holds the names it held (within the times' granularity;
/// see ``DirectoryBlobStore``'s listing cache).
struct FolderStamp: Sendable, Equatable, Hashable {
    var device: UInt64
    var inode: UInt64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: UInt32
    var changedSeconds: Int64
    var changedNanoseconds: UInt32
}

/// How `POSIX.open` opens a path. Every descriptor is close-on-exec.
enum OpenMode: Sendable {
    /// Reading; does not block on FIFOs or devices (O_NONBLOCK has no effect on regular files).
    case read
    /// Writing from the start, creating the file (0644) or cutting it to zero length.
    case writeTruncating
    /// Writing at the end (O_APPEND), creating the file (0644) if missing.
    case append
    /// Writing an existing file (for `ftruncate`); fails when it is missing.
    case writeExisting
    /// Writing a new file (0644) that must not exist yet (O_EXCL).
    case createExclusive
    /// Reading and writing, creating the file (0644) if missing; for lock files.
    case readWriteCreating
    /// Reading a folder (O_DIRECTORY), to `fsync` it.
    case directory

    var flags: Int32 {
        switch self {
        case .read: O_RDONLY | O_NONBLOCK | O_CLOEXEC
        case .writeTruncating: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        case .append: O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC
        case .writeExisting: O_WRONLY | O_CLOEXEC
        case .createExclusive: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC
        case .readWriteCreating: O_RDWR | O_CREAT | O_CLOEXEC
        case .directory: O_RDONLY | O_DIRECTORY | O_CLOEXEC
        }
    }
}

/// Thin, typed wrappers of the POSIX calls MemoSync's drivers use. Every function either
/// succeeds or throws a `POSIXFailure` naming the call and the path.
enum POSIX {
    /// Writes are issued in pieces of at most 1 GiB (Darwin refuses counts above `Int32.max`).
    static let maxWriteChunk = 1 << 30

    /// The system's text for an error number.
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    // MARK: Descriptors

    /// Opens `path`, retrying on EINTR.
    static func open(_ path: String, _ mode: OpenMode) throws(POSIXFailure) -> Int32 {
        while true {
            let descriptor = systemOpen(path, mode.flags, mode_t(0o644))
            if descriptor >= 0 { return descriptor }
            let code = errno
            if code == EINTR { continue }
            throw POSIXFailure(call: "open", path: path, code: code)
        }
    }

    /// Closes a descriptor that was only read (or whose failure no longer matters).
    static func closeQuietly(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    /// Closes a descriptor that was written, reporting a failure (network file systems report
    /// delayed write errors here). EINTR counts as success: the descriptor is gone either way.
    static func close(_ descriptor: Int32, path: String) throws(POSIXFailure) {
        if systemClose(descriptor) == 0 { return }
        let code = errno
        if code == EINTR { return }
        throw POSIXFailure(call: "close", path: path, code: code)
    }

    /// The status of an open descriptor.
    static func status(of descriptor: Int32, path: @autoclosure () -> String) throws(POSIXFailure) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            throw POSIXFailure(call: "fstat", path: path(), code: code)
        }
        return FileStatus(info)
    }

    /// Every byte of the open file `descriptor` when it holds at most `limitBytes`; nil when it
    /// holds more: from its `fstat` size, before reading anything, or (a file that grew since)
    /// once `limitBytes` + 1 bytes were read, never more. The bytes are read into one buffer of
    /// the `fstat` size plus one byte that is not filled first (``readUpTo(_:count:path:)``): no
    /// byte of it is written but what the file holds, and nothing is copied. Only a file that
    /// grew since is read on into a larger buffer. O(size).
    static func readAll(_ descriptor: Int32, path: String, limitBytes: Int) throws(POSIXFailure) -> [UInt8]? {
        try readAll(descriptor, size: status(of: descriptor, path: path).size, path: path, limitBytes: limitBytes)
    }

    /// ``readAll(_:path:limitBytes:)`` of a file whose size the caller took from `fstat` on
    /// `descriptor` (`size`; the file may have changed since).
    static func readAll(_ descriptor: Int32, size: Int, path: String, limitBytes: Int) throws(POSIXFailure) -> [UInt8]? {
        precondition(limitBytes >= 0)
        guard size <= limitBytes else { return nil }
        let first = max(size, 0) + 1
        var bytes = try readUpTo(descriptor, count: first, path: path)
        if bytes.count < first { return bytes }
        // It grew since its fstat: on, in steps, until the end or past the limit.
        var filled = bytes.count
        while true {
            if filled == bytes.count {
                guard filled <= limitBytes else { return nil }
                bytes.append(contentsOf: repeatElement(0, count: min(max(bytes.count, 1 << 16), limitBytes + 1 - filled)))
            }
            let count = try readSome(descriptor, into: &bytes, at: filled, path: path)
            if count == 0 { break }
            filled += count
        }
        guard filled <= limitBytes else { return nil }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Reads a file whose size the caller took from `fstat` on `descriptor` (`size`), into one
    /// buffer of `size` + 1 bytes that never grows: a file that turns out longer (it grew since)
    /// throws `.grewWhileRead`; one that got shorter is returned as it is. O(size).
    static func readWhole(_ descriptor: Int32, size: Int, path: String) throws(POSIXFailure) -> [UInt8] {
        let capacity = max(size, 0) + 1
        let bytes = try readUpTo(descriptor, count: capacity, path: path)
        if bytes.count == capacity {
            throw POSIXFailure(call: "read", path: path, kind: .grewWhileRead, reason: "the file grew while it was read")
        }
        return bytes
    }

    /// The next bytes of `descriptor`, `count` at most (fewer at the end of the file), read into
    /// a buffer of `count` bytes allocated but not filled first, retrying on EINTR. (A 220 MB
    /// state file used to be read into a zeroed 64 MiB buffer grown by doubling: 256 MiB zeroed
    /// and 192 MiB copied, 10% of opening 100,000 memos in a profile, and 36 MiB of zeros kept
    /// resident behind the notebook.) O(bytes read).
    static func readUpTo(_ descriptor: Int32, count capacity: Int, path: String) throws(POSIXFailure) -> [UInt8] {
        precondition(capacity > 0)
        return try readFilling(descriptor, count: capacity, at: nil, path: path, advisingLargePages: true)
    }

    /// `count` bytes read into a buffer allocated but not filled first: from the descriptor's
    /// offset (`read`), or from `offset` (`pread`, leaving the descriptor's offset as it was),
    /// retrying on EINTR and after short reads; fewer only at the end of the file. Only the
    /// bytes read count: the rest of the buffer is never read.
    private static func readFilling(
        _ descriptor: Int32, count capacity: Int, at offset: Int?, path: String, advisingLargePages: Bool
    ) throws(POSIXFailure) -> [UInt8] {
        var failure: POSIXFailure?
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            if advisingLargePages { adviseLargePages(UnsafeMutableRawBufferPointer(buffer)) }
            var filled = 0
            while filled < capacity {
                let count =
                    if let offset { systemReadAt(descriptor, buffer.baseAddress! + filled, capacity - filled, offset + filled) }
                    else { systemRead(descriptor, buffer.baseAddress! + filled, capacity - filled) }
                if count > 0 {
                    filled += count
                    continue
                }
                if count == 0 { break }
                let code = errno
                if code == EINTR { continue }
                failure = POSIXFailure(call: offset == nil ? "read" : "pread", path: path, code: code)
                break
            }
            initialized = filled
        }
        if let failure { throw failure }
        return bytes
    }

    /// `count` bytes of `descriptor` from `offset` (`pread`, retrying on EINTR and after short
    /// reads), fewer only at the end of the file. The file's offset is left as it was, so
    /// threads may read one descriptor at once. O(count).
    static func read(_ descriptor: Int32, offset: Int, count: Int, path: String) throws(POSIXFailure) -> [UInt8] {
        precondition(offset >= 0 && count >= 0)
        guard count > 0 else { return [] }
        return try readFilling(descriptor, count: count, at: offset, path: path, advisingLargePages: false)
    }

    /// Every byte of the file at `path` when it is a file of at most `limitBytes`, else nil.
    static func readFileIfSmall(_ path: String, limitBytes: Int) throws(POSIXFailure) -> [UInt8]? {
        let descriptor = try open(path, .read)
        defer { closeQuietly(descriptor) }
        return try readAll(descriptor, path: path, limitBytes: limitBytes)
    }

    /// Asks Linux to back the 2 MiB-aligned middle of a buffer about to be filled with large
    /// pages (MemoNotes' `LargePages`, whose platform file holds the call). A 22 MB state file read
    /// into fresh memory took a page fault and a page cleared per 4 KiB, most of the read's
    /// time; with large pages it takes one per 2 MiB (BENCHMARKS.md, "The processor's CRC
    /// instruction, and large pages for the state file"). Advice only: the memory and what is
    /// read into it are the same whether the kernel follows it or not, and buffers under 8 MiB,
    /// or other systems, are left as they are.
    static func adviseLargePages(_ buffer: UnsafeMutableRawBufferPointer) {
        LargePages.advise(buffer)
    }

    /// One `read` into `bytes` from `offset` to its end, retrying on EINTR; 0 at the end of the file.
    private static func readSome(_ descriptor: Int32, into bytes: inout [UInt8], at offset: Int, path: String) throws(POSIXFailure) -> Int {
        while true {
            let (count, code) = bytes.withUnsafeMutableBytes { buffer -> (Int, Int32) in
                guard let base = buffer.baseAddress else { return (0, 0) }
                let count = systemRead(descriptor, base + offset, buffer.count - offset)
                return (count, count < 0 ? errno : 0)
            }
            if count >= 0 { return count }
            if code == EINTR { continue }
            throw POSIXFailure(call: "read", path: path, code: code)
        }
    }

    /// Writes all of `bytes`, continuing after partial writes and retrying on EINTR. O(size).
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(POSIXFailure) {
        var offset = 0
        while offset < bytes.count {
            let (count, code) = bytes.withUnsafeBytes { buffer -> (Int, Int32) in
                guard let base = buffer.baseAddress else { return (0, 0) }
                let count = systemWrite(descriptor, base + offset, min(buffer.count - offset, maxWriteChunk))
                return (count, count < 0 ? errno : 0)
            }
            if count < 0 {
                if code == EINTR { continue }
                throw POSIXFailure(call: "write", path: path, code: code)
            }
            if count == 0 {
                throw POSIXFailure(call: "write", path: path, kind: .other, reason: "the system wrote nothing")
            }
            offset += count
        }
    }

    /// Makes the file's contents (and size) durable: F_FULLFSYNC on Darwin when the file system
    /// supports it, `fsync` otherwise.
    static func synchronize(_ descriptor: Int32, path: String) throws(POSIXFailure) {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) != -1 { return }
        #endif
        while fsync(descriptor) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw POSIXFailure(call: "fsync", path: path, code: code)
        }
    }

    /// Makes the names in the folder `path` durable (creations, renames, deletions). File
    /// systems that cannot sync a folder (EINVAL, ENOTSUP) are taken as having nothing to do.
    static func synchronizeDirectory(_ path: String) throws(POSIXFailure) {
        let descriptor = try open(path, .directory)
        defer { closeQuietly(descriptor) }
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) != -1 { return }
        #endif
        while fsync(descriptor) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EINVAL || code == ENOTSUP || code == EOPNOTSUPP { return }
            throw POSIXFailure(call: "fsync", path: path, code: code)
        }
    }

    /// Sets the file's length to `length` bytes (cutting it, or extending it with zeros).
    static func truncate(_ descriptor: Int32, to length: Int, path: String) throws(POSIXFailure) {
        while ftruncate(descriptor, off_t(length)) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw POSIXFailure(call: "ftruncate", path: path, code: code)
        }
    }

    /// Takes an exclusive `flock` lock without waiting; a lock held elsewhere throws
    /// `.wouldBlock`. The lock lasts until the descriptor is closed.
    static func lockExclusively(_ descriptor: Int32, path: String) throws(POSIXFailure) {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw POSIXFailure(call: "flock", path: path, code: code)
        }
    }

    /// Releases the `flock` lock held through `descriptor` (the descriptor stays open).
    static func unlock(_ descriptor: Int32) {
        while flock(descriptor, LOCK_UN) != 0 && errno == EINTR {}
    }

    // MARK: Paths

    /// The status of `path`; with `followLinks` false a symbolic link is reported as one.
    static func status(of path: String, followLinks: Bool) throws(POSIXFailure) -> FileStatus {
        var info = stat()
        let result = followLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else {
            throw POSIXFailure(call: followLinks ? "stat" : "lstat", path: path, code: errno)
        }
        return FileStatus(info)
    }

    /// Whether `path` is a folder (following symbolic links); false when it cannot be checked.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && FileStatus(info).kind == .directory
    }

    /// Creates the folder `path` (0755). Returns false when a folder was already there; throws
    /// `.exists` when something else has that name.
    @discardableResult
    static func makeDirectory(_ path: String) throws(POSIXFailure) -> Bool {
        if mkdir(path, mode_t(0o755)) == 0 { return true }
        let code = errno
        if code == EEXIST {
            if isDirectory(path) { return false }
            throw POSIXFailure(call: "mkdir", path: path, kind: .exists, reason: "a file with this name is in the way")
        }
        throw POSIXFailure(call: "mkdir", path: path, code: code)
    }

    /// Creates the folder `path` and every missing folder above it (`mkdir -p`). `path` must be
    /// absolute.
    static func makeDirectories(_ path: String) throws(POSIXFailure) {
        if isDirectory(path) { return }
        var partial = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            partial += "/" + component
            try makeDirectory(partial)
        }
    }

    /// Renames `source` to `destination`, atomically replacing it.
    static func rename(_ source: String, to destination: String) throws(POSIXFailure) {
        guard systemRename(source, destination) == 0 else {
            throw POSIXFailure(call: "rename", path: "\(source) -> \(destination)", code: errno)
        }
    }

    /// A second descriptor of the open file `descriptor` (close-on-exec), at the same offset.
    static func duplicate(_ descriptor: Int32, path: String) throws(POSIXFailure) -> Int32 {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw POSIXFailure(call: "fcntl", path: path, code: errno) }
        return copy
    }

    /// The whole file `path` when it holds at most `limitBytes`, else nil (from its size,
    /// before reading it). O(size).
    static func readFile(_ path: String, limitBytes: Int) throws(POSIXFailure) -> [UInt8]? {
        let descriptor = try open(path, .read)
        defer { closeQuietly(descriptor) }
        guard try status(of: descriptor, path: path).kind == .regular else { return nil }
        return try readAll(descriptor, path: path, limitBytes: limitBytes)
    }

    /// Replaces the file `path` by one holding `bytes`, atomically (a new temporary file beside
    /// it, named `path` + ".tmp-" and a random suffix, renamed over it) but not durably (no
    /// `fsync`: for caches, which a crash may lose). The temporary file is removed on failure.
    static func replaceFile(_ path: String, with bytes: [UInt8]) throws(POSIXFailure) {
        var generator = SystemRandomNumberGenerator()
        let temporary = path + ".tmp-" + String(generator.next() as UInt64, radix: 16)
        let descriptor = try open(temporary, .createExclusive)
        do throws(POSIXFailure) {
            do throws(POSIXFailure) {
                try writeAll(descriptor, bytes, path: temporary)
            } catch {
                closeQuietly(descriptor)
                throw error
            }
            try close(descriptor, path: temporary)
            try rename(temporary, to: path)
        } catch {
            try? unlink(temporary)
            throw error
        }
    }

    /// Removes the file `path`.
    static func unlink(_ path: String) throws(POSIXFailure) {
        guard systemUnlink(path) == 0 else {
            throw POSIXFailure(call: "unlink", path: path, code: errno)
        }
    }

    /// The names in the folder `path`, except "." and "..", in no particular order. Names that
    /// are not valid UTF-8 are left out (no `String` can name them). O(entries).
    static func directoryEntries(_ path: String) throws(POSIXFailure) -> [String] {
        guard let directory = opendir(path) else {
            throw POSIXFailure(call: "opendir", path: path, code: errno)
        }
        defer { closedir(directory) }
        return try entries(path: path) { readdir(directory) }
    }

    /// The names in the open folder `folder` (see ``directoryEntries(_:)``); `folder` stays
    /// open and usable (the entries are read through a duplicate of it). `path` names the
    /// folder in errors. O(entries).
    static func directoryEntries(ofFolder folder: Int32, path: String) throws(POSIXFailure) -> [String] {
        let duplicate = dup(folder)
        guard duplicate >= 0 else { throw POSIXFailure(call: "dup", path: path, code: errno) }
        guard let directory = fdopendir(duplicate) else {
            let code = errno
            closeQuietly(duplicate)
            throw POSIXFailure(call: "fdopendir", path: path, code: code)
        }
        defer { closedir(directory) }
        // The duplicate shares the folder's position: start from the beginning.
        rewinddir(directory)
        return try entries(path: path) { readdir(directory) }
    }

    /// A folder's entry as a listing reads it: its name, and whether `readdir` says it is a
    /// folder (`d_type`; false when it says it is something else or does not say: the caller
    /// then asks `fstatat`).
    struct FolderEntry: Sendable, Equatable {
        var name: String
        var isFolder: Bool
    }

    /// The entries of the open folder `folder`, except "." and ".." and names that are not
    /// valid UTF-8, in no particular order, read from its start through a stream that takes
    /// `folder` over; and the function that closes it (and so `folder`), which the caller calls
    /// once it is done with `folder`, whatever the result. Unlike
    /// ``directoryEntries(ofFolder:path:)``, no duplicate descriptor and no `fstat` of each
    /// subfolder: a listing pays one `openat`, the stream's opening and its reads per folder.
    /// `folder` must be freshly opened (at its start). `path` names the folder in errors.
    /// O(entries).
    static func folderEntries(consuming folder: Int32, path: @autoclosure () -> String) -> (entries: Result<[FolderEntry], POSIXFailure>, close: () -> Void) {
        guard let directory = fdopendir(folder) else {
            let code = errno
            let failure = POSIXFailure(call: "fdopendir", path: path(), code: code)
            closeQuietly(folder)
            return (.failure(failure), {})
        }
        var entries: [FolderEntry] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                let code = errno
                if code == 0 { break }
                return (.failure(POSIXFailure(call: "readdir", path: path(), code: code)), { closedir(directory) })
            }
            // d_type: DT_DIR is 4 on Linux and Darwin.
            let isFolder = entry.pointee.d_type == 4
            let name: String? = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let bytes = raw.prefix { $0 != 0 }
                let decoded = String(decoding: bytes, as: UTF8.self)
                // Decoding repairs invalid UTF-8; a repaired name would not open the file.
                return decoded.utf8.elementsEqual(bytes) ? decoded : nil
            }
            guard let name, name != ".", name != ".." else { continue }
            entries.append(FolderEntry(name: name, isFolder: isFolder))
        }
        return (.success(entries), { closedir(directory) })
    }

    /// Reads the names of an open directory stream to its end; `next` is `readdir` on it (whose
    /// stream type differs between Linux and Darwin).
    private static func entries(path: String, next: () -> UnsafeMutablePointer<dirent>?) throws(POSIXFailure) -> [String] {
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = next() else {
                let code = errno
                if code == 0 { break }
                throw POSIXFailure(call: "readdir", path: path, code: code)
            }
            let name: String? = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let bytes = raw.prefix { $0 != 0 }
                let decoded = String(decoding: bytes, as: UTF8.self)
                // Decoding repairs invalid UTF-8; a repaired name would not open the file.
                return decoded.utf8.elementsEqual(bytes) ? decoded : nil
            }
            guard let name, name != ".", name != ".." else { continue }
            names.append(name)
        }
        return names
    }

    // MARK: Inside an open folder (never following symbolic links)

    /// Opens the folder `path` (following symbolic links: for a store's root) to work inside it
    /// with the functions below.
    static func openFolder(_ path: String) throws(POSIXFailure) -> Int32 {
        try open(path, .directory)
    }

    /// Opens the folder `name` inside the open folder `folder`. A symbolic link is never
    /// followed (`.symbolicLink`); something that is not a folder is `.notDirectory`. `path`
    /// names the entry in errors.
    static func openFolder(_ name: String, in folder: Int32, path: @autoclosure () -> String) throws(POSIXFailure) -> Int32 {
        try open(name, in: folder, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, path: path())
    }

    /// Opens the entry `name` of the open folder `folder` for reading, without following a
    /// symbolic link (`.symbolicLink`) and without blocking (a FIFO with no writer opens at
    /// once; the caller checks the type with ``status(of:path:)`` before reading).
    static func openForReading(_ name: String, in folder: Int32, path: @autoclosure () -> String) throws(POSIXFailure) -> Int32 {
        try open(name, in: folder, flags: O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, path: path())
    }

    private static func open(_ name: String, in folder: Int32, flags: Int32, path: @autoclosure () -> String) throws(POSIXFailure) -> Int32 {
        while true {
            let descriptor = systemOpenAt(folder, name, flags)
            if descriptor >= 0 { return descriptor }
            let code = errno
            if code == EINTR { continue }
            throw POSIXFailure(call: "openat", path: path(), code: code)
        }
    }

    /// Creates the folder `name` (0755) inside the open folder `folder`. Returns false when
    /// something already has that name (the caller's `openFolder` then tells what).
    @discardableResult
    static func makeFolder(_ name: String, in folder: Int32, path: String) throws(POSIXFailure) -> Bool {
        if mkdirat(folder, name, mode_t(0o755)) == 0 { return true }
        let code = errno
        if code == EEXIST { return false }
        throw POSIXFailure(call: "mkdirat", path: path, code: code)
    }

    /// Creates the file `name` (0644) inside the open folder `folder` for writing; it must not
    /// exist yet (`O_EXCL`, which never follows a symbolic link either).
    static func createExclusive(_ name: String, in folder: Int32, path: String) throws(POSIXFailure) -> Int32 {
        while true {
            let descriptor = systemOpenAt(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o644))
            if descriptor >= 0 { return descriptor }
            let code = errno
            if code == EINTR { continue }
            throw POSIXFailure(call: "openat", path: path, code: code)
        }
    }

    /// Renames the entry `source` of the open folder `folder` to `destination` in the same
    /// folder, atomically replacing it (a symbolic link with that name is replaced, not followed).
    static func rename(_ source: String, to destination: String, in folder: Int32, path: String) throws(POSIXFailure) {
        guard renameat(folder, source, folder, destination) == 0 else {
            throw POSIXFailure(call: "renameat", path: path, code: errno)
        }
    }

    /// Removes the entry `name` (not a folder) of the open folder `folder`.
    static func unlink(_ name: String, in folder: Int32, path: String) throws(POSIXFailure) {
        guard unlinkat(folder, name, 0) == 0 else {
            throw POSIXFailure(call: "unlinkat", path: path, code: errno)
        }
    }

    /// Makes the names in the open folder `folder` durable; see ``synchronizeDirectory(_:)``.
    static func synchronizeFolder(_ folder: Int32, path: String) throws(POSIXFailure) {
        #if canImport(Darwin)
        if fcntl(folder, F_FULLFSYNC) != -1 { return }
        #endif
        while fsync(folder) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EINVAL || code == ENOTSUP || code == EOPNOTSUPP { return }
            throw POSIXFailure(call: "fsync", path: path, code: code)
        }
    }

    /// The status of the entry `name` of the open folder `folder`; a symbolic link is reported
    /// as one (`AT_SYMLINK_NOFOLLOW`). `path` names the entry in errors.
    static func status(of name: String, in folder: Int32, path: String) throws(POSIXFailure) -> FileStatus {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw POSIXFailure(call: "fstatat", path: path, code: errno)
        }
        return FileStatus(info)
    }

    /// ``status(of:in:path:)`` with the path for errors built only when one is thrown (a
    /// listing asks for every entry's status).
    static func status(ofEntry name: String, in folder: Int32, path: () -> String) throws(POSIXFailure) -> FileStatus {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            let code = errno
            throw POSIXFailure(call: "fstatat", path: path(), code: code)
        }
        return FileStatus(info)
    }

    /// The current working folder, or nil when it cannot be determined.
    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let found = buffer.withUnsafeMutableBufferPointer { pointer -> Bool in
            guard let base = pointer.baseAddress else { return false }
            return getcwd(base, pointer.count) != nil
        }
        guard found else { return nil }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `path` made absolute (against the current folder) without trailing slashes; nil for an
    /// empty path or when the current folder is unknown. O(length).
    static func absolutePath(_ path: String) -> String? {
        guard !path.isEmpty else { return nil }
        var result = path
        if !result.hasPrefix("/") {
            guard let current = currentDirectory() else { return nil }
            result = current.hasSuffix("/") ? current + result : current + "/" + result
        }
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return result
    }
}

extension FileStatus {
    /// The type and size from a `stat` record. The file type bits (`S_IFMT`) have the same
    /// values on every POSIX system MemoSync runs on.
    fileprivate init(_ info: stat) {
        switch UInt32(info.st_mode) & 0o170000 {
        case 0o100000: kind = .regular
        case 0o040000: kind = .directory
        case 0o120000: kind = .symbolicLink
        default: kind = .other
        }
        size = Int(clamping: info.st_size)
        #if canImport(Darwin)
        let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
        #else
        let (modified, changed) = (info.st_mtim, info.st_ctim)
        #endif
        stamp = FolderStamp(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino),
            modifiedSeconds: Int64(modified.tv_sec), modifiedNanoseconds: UInt32(truncatingIfNeeded: modified.tv_nsec),
            changedSeconds: Int64(changed.tv_sec), changedNanoseconds: UInt32(truncatingIfNeeded: changed.tv_nsec))
    }
}

// MARK: The C functions, at file scope: inside `POSIX` their names would find the wrappers.

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

private func systemOpenAt(_ folder: Int32, _ name: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    openat(folder, name, flags, mode)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemReadAt(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int) -> Int {
    pread(descriptor, buffer, count, off_t(offset))
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func systemRename(_ source: String, _ destination: String) -> Int32 {
    rename(source, destination)
}

private func systemUnlink(_ path: String) -> Int32 {
    unlink(path)
}
