// Reading the files `memo import` takes.

import Foundation
import MemoSync
import Synchronization

/// One text or Markdown file to import: its text (normalised) and dates.
struct ImportedFile {
    /// The file's path as found (a folder given is searched recursively).
    var path: String
    /// Its text: UTF-8 without a byte order mark, line breaks "\n" (CR LF made LF).
    var text: String
    /// When it was created (its birth time where the file system keeps one and it is earlier
    /// than the modification date, else its modification date), in milliseconds since 1970.
    var createdMilliseconds: UInt64
    /// When it was last modified, in milliseconds since 1970.
    var modifiedMilliseconds: UInt64

    /// The file name extensions a folder's files must have to be imported (a file named on
    /// the command line is imported whatever its name).
    static let extensions: Set<String> = ["txt", "text", "md", "markdown", "mdown", "mkd"]

    /// Reads every file `paths` name, and the text and Markdown files of the folders they
    /// name (recursively; hidden files and folders are left out), in path order.
    ///
    /// - Throws: a runtime error listing every file that cannot be imported (missing,
    ///   unreadable, not UTF-8, a link out of a folder given, a pipe, socket or device in one):
    ///   then nothing is imported.
    static func collect(_ paths: [String]) throws(CLIError) -> [ImportedFile] {
        var found: [String] = []
        var problems: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                problems.append(t("import.missing", ["path": path]))
                continue
            }
            if isFolder.boolValue {
                let (files, outside, special) = filesInFolder(path)
                found += files
                problems += outside.map { t("import.linkOutside", ["path": $0]) }
                problems += special.map { t("import.notRegularFile", ["path": $0]) }
            } else {
                found.append(path)
            }
        }
        var files: [ImportedFile] = []
        for path in found {
            do throws(CLIError) {
                files.append(try read(path))
            } catch {
                problems.append(error.message)
            }
        }
        guard problems.isEmpty else {
            let shown = problems.prefix(10).map { "  " + Format.terminalSafe($0) }.joined(separator: "\n")
            let more = problems.count > 10 ? "\n  " + t("andMore", ["count": Format.number(problems.count - 10)]) : ""
            throw .runtime("error.importRefused", ["count": Format.count(problems.count, "file"), "files": shown + more])
        }
        return files
    }

    /// The text and Markdown files under `folder`, sorted by path; those among them that are
    /// symbolic links (or lie under one) leading out of the folder: never followed there (a link
    /// to /etc/passwd in a folder of notes is not a note); and those that are no regular file (a
    /// pipe, a socket, a device): never opened, as reading a pipe nothing writes to waits for
    /// good (a path named on the command line is read whatever it is: `memo import <(cmd)`).
    private static func filesInFolder(_ folder: String) -> (files: [String], outside: [String], special: [String]) {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return ([], [], []) }
        var result: [String] = []
        var outside: [String] = []
        var special: [String] = []
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        let realBase = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        let realPrefix = realBase.hasSuffix("/") ? realBase : realBase + "/"
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            let ext = (name as NSString).pathExtension.lowercased()
            var isFolder: ObjCBool = false
            guard extensions.contains(ext), FileManager.default.fileExists(atPath: base + relative, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            let real = URL(fileURLWithPath: base + relative).resolvingSymlinksInPath().path
            // Paths are bytes: by Characters, "/a/\u{E9}/" would hold "/a/e\u{301}/x".
            if !real.hasPrefixBytes(realPrefix) {
                outside.append(base + relative)
            } else if !isRegularFile(base + relative) {
                special.append(base + relative)
            } else {
                result.append(base + relative)
            }
        }
        return (result.sorted(), outside.sorted(), special.sorted())
    }

    /// Whether `path` (its links followed) is a regular file.
    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads and checks one file.
    static func read(_ path: String) throws(CLIError) -> ImportedFile {
        let bytes: [UInt8]
        let attributes: [FileAttributeKey: Any]
        do throws(UserFileError) {
            bytes = try UserFile.bytes(at: path)
        } catch {
            throw .runtime("import.unreadable", ["path": path, "error": error.localizedReason])
        }
        // A pipe or FIFO has no dates worth keeping: its memo gets the time of the import.
        attributes = (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:]
        guard let text = decode(bytes) else {
            let utf16 = bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
            throw .runtime(utf16 ? "import.utf16" : "import.notUTF8", ["path": path])
        }
        let modified = milliseconds(attributes[.modificationDate] as? Date)
        let created = min(milliseconds(attributes[.creationDate] as? Date) ?? modified ?? 0, modified ?? UInt64.max)
        return ImportedFile(path: path, text: text, createdMilliseconds: created, modifiedMilliseconds: modified ?? created)
    }

    /// UTF-8 `bytes` as text: a byte order mark dropped, CR LF made LF; nil when not UTF-8.
    static func decode(_ bytes: [UInt8]) -> String? {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        guard let text = exactUTF8(body) else { return nil }
        // "\r\n" is one Character in Swift: replace it through the scalars.
        var scalars = String.UnicodeScalarView()
        var previousCR = false
        for scalar in text.unicodeScalars {
            if previousCR && scalar != "\n" { scalars.append("\r") }
            previousCR = scalar == "\r"
            if !previousCR { scalars.append(scalar) }
        }
        if previousCR { scalars.append("\r") }
        return String(scalars)
    }

    private static func milliseconds(_ date: Date?) -> UInt64? {
        guard let date, date.timeIntervalSince1970 > 0 else { return nil }
        return UInt64(date.timeIntervalSince1970 * 1000)
    }
}

/// The clock of the replica `memo import` uses: a date set for each memo it creates, the system
/// clock otherwise. A date later than the system clock (a file dated in the future: a camera's
/// clock, a bad restore) is the system clock's time: the library's hybrid clock never goes back,
/// so one such date made every later change of the library, and of every device it syncs
/// with, carry that future date (exploratory test of 2026-12-02: a file dated 2200).
final class ImportClock: Sendable {
    private let fixed = Mutex<UInt64?>(nil)

    /// Sets the time the next changes are made at; nil: the system clock.
    func set(_ milliseconds: UInt64?) {
        fixed.withLock { $0 = milliseconds }
    }

    /// A replica environment reading this clock.
    var environment: ReplicaEnvironment {
        let system = ReplicaEnvironment.system
        return ReplicaEnvironment(
            wallMilliseconds: { [self] in
                let now = system.wallMilliseconds()
                return fixed.withLock { $0 }.map { min($0, now) } ?? now
            },
            randomUInt64: system.randomUInt64)
    }
}
