// Reading a file the user named on the command line (`--text-file`, `--passphrase-file`,
// `memo import`): with read(2), so that a pipe, a FIFO, a process substitution (`<(cmd)`),
// /dev/stdin and /dev/null read like any regular file (Foundation's `Data(contentsOf:)` refused
// them as "You don't have permission."). What cannot be read is said in the user's language,
// never as a system error number.
//
// POSIX calls: portable to Apple platforms (Darwin) as written.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a named file could not be read.
enum UserFileError: Error, Equatable {
    /// Nothing is at the path (or a folder on the way is missing).
    case missing
    /// The system refused to open or read it for this user.
    case permissionDenied
    /// It is a folder.
    case isFolder
    /// It holds more than the limit (checked while reading: a pipe has no size to ask).
    case tooLarge(limitBytes: Int)
    /// Any other failure, with the system's own description (never its number alone).
    case failed(reason: String)

    /// One clause for "cannot read PATH: …", in the user's language.
    var localizedReason: String {
        switch self {
        case .missing: t("file.missing")
        case .permissionDenied: t("file.permissionDenied")
        case .isFolder: t("file.isFolder")
        case let .tooLarge(limitBytes): t("file.tooLarge", ["limit": Format.bytes(limitBytes)])
        case let .failed(reason): t("file.failed", ["reason": reason])
        }
    }

    init(errorNumber: Int32) {
        switch errorNumber {
        case ENOENT, ENOTDIR: self = .missing
        case EACCES, EPERM: self = .permissionDenied
        case EISDIR: self = .isFolder
        default: self = .failed(reason: String(cString: strerror(errorNumber)))
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
}
