// `memo export --all`: a failed export changes nothing (help, "a failed command changes
// nothing"). Files are written in two steps:
//
// 1. Every file is written under a hidden name in the export folder
//    (`.memo-export-<token>-<n>.tmp`), dated with its memo's last change. Nothing the user had
//    is touched yet; a failure removes what was written.
// 2. Each file is put in place by `rename`, which replaces a file already there at once (the
//    name holds the old file or the new one, never a part). Before that, the old file is kept
//    under a hidden name (`…-<n>.old`, a hard link: no bytes copied; a copy where the file
//    system refuses links). A failure here renames every kept file back over its new one and
//    removes the new files that had no old one.
//
// Only once every file is in place are the kept old files removed. A folder where a file
// should go is never replaced (`rename` refuses it, and the export is taken back), and a
// folder the export created is removed again when it failed (if nothing else was put there).
// A crash in between leaves each name holding its old file or its new one, and the hidden
// files beside them (`memo import` skips hidden files).
//
// POSIX calls: portable to Apple platforms (Darwin) as written.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one `memo export --all`, staged and put in place, or taken back.
struct ExportStaging {
    /// Why an export failed: the file concerned and the system's error.
    struct Failure: Error {
        var path: String
        var underlying: any Error
    }

    private struct Staged {
        var name: String
        var temporary: String
    }

    private struct Placed {
        var path: String
        /// Where the file the name held before is kept; nil when there was none.
        var kept: String?
    }

    /// The folder, ending in "/".
    let folder: String
    /// The folders this export created (the outermost first), removed when it is taken back.
    let createdFolders: [String]
    private let token = String(UInt64.random(in: 0...UInt64.max), radix: 16)
    private var staged: [Staged] = []
    private var placed: [Placed] = []

    init(folder: String, createdFolders: [String]) {
        self.folder = folder
        self.createdFolders = createdFolders
    }

    private func hiddenPath(_ index: Int, _ suffix: String) -> String {
        folder + ".memo-export-\(token)-\(index).\(suffix)"
    }

    /// Step 1: writes `data` under a hidden name, to be put in place as `name`.
    mutating func stage(_ data: Data, as name: String, modified: Date) throws(Failure) {
        let temporary = hiddenPath(staged.count, "tmp")
        do {
            try data.write(to: URL(fileURLWithPath: temporary), options: .withoutOverwriting)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw Failure(path: folder + name, underlying: error)
        }
        staged.append(Staged(name: name, temporary: temporary))
        // The date travels with the file through `rename`.
        try? FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: temporary)
    }

    /// Step 2: puts every staged file in place, keeping each file it replaces until all are.
    /// `failingAt` (tests only) fails the placing of that file (0 is the first) as a disk would.
    mutating func putInPlace(failingAt: Int? = nil) throws(Failure) {
        for (index, file) in staged.enumerated() {
            let path = folder + file.name
            var kept: String?
            var status = stat()
            if lstat(path, &status) == 0 {
                // A folder is never replaced (nor linked, nor copied): `rename` refuses it too.
                guard status.st_mode & S_IFMT != S_IFDIR else { throw Failure(path: path, underlying: POSIXError(.EISDIR)) }
                let keptPath = hiddenPath(index, "old")
                if link(path, keptPath) != 0 {
                    do {
                        try FileManager.default.copyItem(atPath: path, toPath: keptPath)
                    } catch {
                        try? FileManager.default.removeItem(atPath: keptPath)
                        throw Failure(path: path, underlying: error)
                    }
                }
                kept = keptPath
            }
            if index == failingAt {
                if let kept { unlink(kept) }
                throw Failure(path: path, underlying: POSIXError(.EIO))
            }
            guard rename(file.temporary, path) == 0 else {
                let number = errno
                if let kept { unlink(kept) }
                throw Failure(path: path, underlying: POSIXError(POSIXErrorCode(rawValue: number) ?? .EIO))
            }
            placed.append(Placed(path: path, kept: kept))
        }
        // Every file is in place: the old ones go.
        for file in placed { if let kept = file.kept { unlink(kept) } }
        placed = []
        staged = []
    }

    /// After a failure: every replaced file back, every new one gone, the hidden files removed,
    /// and the folders this export created removed if they are empty again.
    mutating func takeBack() {
        for file in placed.reversed() {
            if let kept = file.kept {
                rename(kept, file.path)
            } else {
                unlink(file.path)
            }
        }
        for file in staged { unlink(file.temporary) }
        for folder in createdFolders.reversed() { rmdir(folder) }
        placed = []
        staged = []
    }
}
