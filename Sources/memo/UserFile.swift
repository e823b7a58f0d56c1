// Reading a file the user named on the command line (`--text-file`, `--passphrase-file`,
// `memo import`): with read(2), so that a pipe, a FIFO, a process substitution (`<(cmd)`),
// /dev/stdin and /dev/null read like any regular file (Foundation's `Data(contentsOf:)` refused
// them as "You don't have permission."). What cannot be read is said in the user's language,
// never as a system error number.
//
// POSIX calls: portable to Apple platforms (Darwin) as written.

import Foundation
import MemoSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a named file could not be read (or written: `memo export --output`, standard output).
enum UserFileError: Error, Equatable {
    /// Nothing is at the path (or a folder on the way is missing).
    case missing
    /// The system refused to open or read it for this user.
    case permissionDenied
    /// The system refused to open it for writing for this user.
    case writePermissionDenied
    /// It is a folder.
    case isFolder
    /// It is a socket (`memo export --output` does not write into one).
    case isSocket
    /// It holds more than the limit (checked while reading: a pipe has no size to ask).
    case tooLarge(limitBytes: Int)
    /// The disk (or the user's quota on it) is full.
    case diskFull
    /// The file system is mounted read-only.
    case readOnly
    /// The disk failed: an input/output error.
    case ioError
    /// What the output went to was closed (a pipe whose reader is gone).
    case closed
    /// Any other failure, with the system's own description (never its number alone); in a
    /// language other than English, the catalog's words ("the file operation failed").
    case failed(reason: String)

    /// One clause for "cannot read PATH: …" (or write), in the user's language.
    var localizedReason: String {
        switch self {
        case .missing: t("file.missing")
        case .permissionDenied: t("file.permissionDenied")
        case .writePermissionDenied: t("file.writePermissionDenied")
        case .isFolder: t("file.isFolder")
        case .isSocket: t("file.isSocket")
        case let .tooLarge(limitBytes): t("file.tooLarge", ["limit": Format.bytes(limitBytes)])
        case .diskFull: t("file.diskFull")
        case .readOnly: t("file.readOnly")
        case .ioError: t("file.ioError")
        case .closed: t("file.closed")
        case let .failed(reason): t("file.failed", ["reason": reason])
        }
    }

    /// The failure of a read (or, `writing`, a write) that set `errorNumber`. The system's
    /// own text is English: in another language an error number without a clause of its own
    /// is said in the catalog's words.
    init(errorNumber: Int32, writing: Bool = false) {
        switch errorNumber {
        case ENOENT, ENOTDIR: self = .missing
        case EACCES, EPERM: self = writing ? .writePermissionDenied : .permissionDenied
        case EISDIR: self = .isFolder
        case ENOSPC, EDQUOT: self = .diskFull
        case EROFS: self = .readOnly
        case EIO: self = .ioError
        case EPIPE: self = .closed
        default:
            self = .failed(reason: MemoLanguage.current == .english ? String(cString: strerror(errorNumber)) : t("file.unknownFailure"))
        }
    }
}

enum UserFile {
    /// The most a text file may hold: far beyond any memo a person writes (a memo's text is
    /// held in memory whole), and a bound on what a runaway pipe can make `memo` allocate.
    static let textBytesMax = 256 << 20

    /// Every byte of the file at `path`, read to its end (a pipe until its writer closes it); a
    /// regular file larger than `limitBytes` is refused from its `fstat` size before any read,
    /// anything else after at most `limitBytes` and one chunk.
    ///
    /// - Throws: ``UserFileError``: missing, not permitted, a folder, more than `limitBytes`,
    ///   or another failure with the system's description.
    static func bytes(at path: String, limitBytes: Int = textBytesMax) throws(UserFileError) -> [UInt8] {
        precondition(limitBytes > 0)
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw UserFileError(errorNumber: errno) }
        defer { close(descriptor) }
        var information = stat()
        if fstat(descriptor, &information) == 0 {
            if (information.st_mode & S_IFMT) == S_IFDIR { throw .isFolder }
            // A regular file over the limit is refused from its size, without reading it.
            if (information.st_mode & S_IFMT) == S_IFREG, information.st_size > limitBytes { throw .tooLarge(limitBytes: limitBytes) }
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw UserFileError(errorNumber: errno)
            }
            guard bytes.count + count <= limitBytes else { throw .tooLarge(limitBytes: limitBytes) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes `bytes` into what is at `path` (a pipe, a device) without replacing it: opened
    /// for writing, neither created nor truncated.
    static func writeInto(_ path: String, _ bytes: [UInt8]) throws(UserFileError) {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw UserFileError(errorNumber: errno, writing: true) }
        defer { close(descriptor) }
        let failedWith = bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failedWith { throw UserFileError(errorNumber: failedWith, writing: true) }
    }
}
