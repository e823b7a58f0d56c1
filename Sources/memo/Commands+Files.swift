// `memo export` and `memo import`.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync

extension Runner {
    // MARK: export

    mutating func export(_ library: Library, target: ExportTarget) throws(CLIError) {
        switch target {
        case let .one(prefix, output):
            let memo = try library.memo(try library.resolve(prefix, preferring: [.active, .trashed]))
            guard let output, output != "-" else {
                if json {
                    console.print(try Format.json(Format.json(memo)))
                } else {
                    printExactly(memo.plainText)
                }
                return
            }
            try writeExport(Data(memo.plainText.utf8), to: output, modified: Format.date(memo.modifiedAt))
            if json { console.print(try Format.json(["id": memo.id.description, "file": output])) }
        case let .all(directory, overwrite):
            try exportAll(library: library, directory: directory, overwrite: overwrite)
        }
    }

    /// Writes `data` to `path` for `memo export ID --output PATH`, as `memo help export` says:
    ///
    /// - a regular file is replaced whole, atomically (written beside it, then renamed over it:
    ///   a failed write leaves it as it was), keeping its permissions; one this user may not
    ///   write is refused (as a shell's `>` refuses it), even where the folder would let a
    ///   rename replace it;
    /// - a symbolic link is followed: the file it points to is replaced so (created when the
    ///   link points to nothing yet), never the link itself;
    /// - a pipe (FIFO) or a device (a terminal, /dev/null, /dev/full) is written into, never
    ///   replaced; so are the names of open descriptors (/dev/stdout, /dev/fd/N), whatever they
    ///   lead to; a socket is refused;
    /// - nothing there: a new file, dated `modified`.
    private mutating func writeExport(_ data: Data, to path: String, modified: Date) throws(CLIError) {
        func failure(_ reason: UserFileError) -> CLIError {
            .runtime("error.cannotWrite", ["path": path, "error": reason.localizedReason])
        }
        if let descriptor = Self.descriptorNamed(path) {
            console.flush()
            if let reason = Console.writeAll(Array(data), to: descriptor) { throw .runtime("error.cannotWrite", ["path": path, "error": reason]) }
            return
        }
        var information = stat()
        guard stat(path, &information) == 0 else {
            guard errno == ENOENT else { throw failure(UserFileError(errorNumber: errno, writing: true)) }
            // Nothing there, or a symbolic link to nothing yet: the file is made where it leads.
            try replaceFile(data, at: Self.linkTarget(path), modified: modified, shownAs: path)
            return
        }
        switch information.st_mode & S_IFMT {
        case S_IFDIR:
            throw failure(.isFolder)
        case S_IFSOCK:
            throw failure(.isSocket)
        case S_IFREG:
            // The file itself (through any links), if this user may write it.
            guard let resolved = realpath(path, nil) else { throw failure(UserFileError(errorNumber: errno, writing: true)) }
            let target = String(cString: resolved)
            free(resolved)
            guard access(target, W_OK) == 0 else { throw failure(UserFileError(errorNumber: errno, writing: true)) }
            try replaceFile(data, at: target, modified: modified, shownAs: path, mode: information.st_mode & 0o7777)
        default:
            // A pipe or a device: written into, as `>` would.
            do throws(UserFileError) {
                try UserFile.writeInto(path, Array(data))
            } catch {
                throw failure(error)
            }
        }
    }

    /// Replaces (or creates) the regular file `target` with `data`, atomically, dated
    /// `modified`; with `mode`, the file keeps those permissions.
    private func replaceFile(_ data: Data, at target: String, modified: Date, shownAs path: String, mode: mode_t? = nil) throws(CLIError) {
        do {
            try data.write(to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            throw .runtime("error.cannotWrite", ["path": path, "error": describe(error)])
        }
        if let mode { _ = chmod(target, mode) }
        try? FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: target)
    }

    /// The descriptor a path names when it is the name of an open descriptor of this process
    /// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), else nil.
    static func descriptorNamed(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                let digits = path.dropFirst(prefix.count)
                guard !digits.isEmpty, digits.count <= 9, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
                return Int32(digits)
            }
            return nil
        }
    }

    /// Where a chain of symbolic links starting at `path` leads (relative targets taken from
    /// each link's folder), at most 40 links deep; `path` itself when it is not a link.
    static func linkTarget(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            let folder = (current as NSString).deletingLastPathComponent
            current = target.hasPrefix("/") || folder.isEmpty ? target : folder + "/" + target
        }
        return current
    }

    /// Writes every active memo into `directory`, one file each, named after its title; each
    /// file's modification date is the memo's (so `memo import` gives it back).
    private mutating func exportAll(library: Library, directory: String, overwrite: Bool) throws(CLIError) {
        let notebook = library.notebook
        let memos = notebook.list().sorted { $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : $0.id < $1.id }
            .compactMap { notebook.memo($0.id) }
        let files = zip(ExportNaming.fileNames(forTitles: memos.map(\.title)), memos).map { (fileName: $0, memo: $1) }
        let manager = FileManager.default
        let createdFolders = try makeFolder(directory)
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        let existing = files.map(\.fileName).filter { manager.fileExists(atPath: folder + $0) }
        if !existing.isEmpty && !overwrite {
            let shown = existing.prefix(5).map { "  \(Format.terminalSafe($0))" }.joined(separator: "\n")
            let more = existing.count > 5 ? "\n  " + t("andMore", ["count": Format.number(existing.count - 5)]) : ""
            throw .runtime("error.exportWouldReplace", ["count": Format.count(existing.count, "file"), "path": directory, "files": shown + more])
        }
        let progress = ProgressLine(console: console, enabled: !quiet, task: t("progress.export"))
        var staged = ExportStaging(folder: folder, createdFolders: createdFolders)
        var bytes = 0
        do throws(ExportStaging.Failure) {
            // Every file is written under a hidden name first; only then are they put in place.
            for (index, file) in files.enumerated() {
                let data = Data(file.memo.plainText.utf8)
                try staged.stage(data, as: file.fileName, modified: Format.date(file.memo.modifiedAt))
                bytes += data.count
                progress.update(done: index + 1, planned: files.count, unit: "file", bytesRead: 0, bytesWritten: bytes)
            }
            try staged.putInPlace(failingAt: exportFailureForTests())
        } catch {
            progress.finish()
            staged.takeBack()
            throw .runtime("error.exportFailed", ["path": error.path, "error": describe(error.underlying)])
        }
        progress.finish()
        if json {
            let objects = files.map { ["id": $0.memo.id.description, "file": folder + $0.fileName] }
            console.print(try Format.json(["directory": directory, "files": objects]))
        } else {
            console.print(t("exported", ["count": Format.count(files.count, "memo"), "path": directory]))
        }
    }

    /// Makes `directory` (and the folders on the way) when missing. Returns the folders it
    /// created, the outermost first (an export that fails removes them again).
    private func makeFolder(_ directory: String) throws(CLIError) -> [String] {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw .runtime("error.notAFolder", ["path": directory]) }
            return []
        }
        var missing: [String] = []
        var path = URL(fileURLWithPath: directory).standardizedFileURL.path
        while path != "/" && !path.isEmpty && !FileManager.default.fileExists(atPath: path) {
            missing.insert(path, at: 0)
            path = (path as NSString).deletingLastPathComponent
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .runtime("error.cannotCreateFolder", ["path": directory, "error": describe(error)])
        }
        return missing
    }

    // MARK: import

    /// Imports text and Markdown files (``ImportedFile``): every file is read and checked
    /// first; if any cannot be imported, nothing is. A file whose text is already a memo's
    /// (in the library or its trash, or another file of this import) is skipped unless
    /// `again`. Memos are created in the order of their files' dates, at those dates.
    mutating func importFiles(_ invocation: Invocation, paths: [String], again: Bool) async throws(CLIError) {
        let files = try ImportedFile.collect(paths)
        let clock = ImportClock()
        let library = try open(invocation, creating: true, replicaEnvironment: clock.environment)
        var known = Set(library.notebook.memoIDs.compactMap { library.notebook.memo($0)?.text })
        var fresh: [ImportedFile] = []
        var skipped: [ImportedFile] = []
        for file in files {
            if !again && known.contains(file.text) {
                skipped.append(file)
            } else {
                known.insert(file.text)
                fresh.append(file)
            }
        }
        let created = try createMemos(fresh, in: library, clock: clock)
        if !created.isEmpty { try await save(library) }
        if json {
            let imported = zip(fresh, created).map { ["file": $0.path, "id": $1.description] }
            console.print(try Format.json(["imported": imported, "skipped": skipped.map(\.path)]))
            return
        }
        console.print(t("imported", ["count": Format.count(created.count, "memo")]))
        if !skipped.isEmpty {
            console.print(t("importSkipped", ["count": Format.count(skipped.count, "file")]))
            for file in skipped.prefix(10) { console.print("  " + Format.terminalSafe(file.path)) }
            if skipped.count > 10 { console.print("  " + t("andMore", ["count": Format.number(skipped.count - 10)])) }
        }
    }

    /// Creates one memo per file, at its file's dates: each memo (empty) at its creation date,
    /// each text at its modification date, all in date order, since the library's hybrid clock
    /// never goes back (a date earlier than a change the library holds becomes just after
    /// that change). Returns the memos' ids in the order of `files`.
    private func createMemos(_ files: [ImportedFile], in library: Library, clock: ImportClock) throws(CLIError) -> [MemoID] {
        // (time, file index, whether it sets the text): a file's creation comes first at a tie
        // (its creation date is never after its modification date).
        var events: [(time: UInt64, index: Int, setsText: Bool)] = []
        for (index, file) in files.enumerated() {
            events.append((file.createdMilliseconds, index, false))
            if !file.text.isEmpty { events.append((file.modifiedMilliseconds, index, true)) }
        }
        events.sort { ($0.time, $0.setsText ? 1 : 0, $0.index) < ($1.time, $1.setsText ? 1 : 0, $1.index) }
        let replica = library.writer
        var ids = [MemoID?](repeating: nil, count: files.count)
        for event in events {
            clock.set(event.time)
            if event.setsText, let id = ids[event.index] {
                try attempt { () throws(ReplicaError) in try replica.setText(id, to: files[event.index].text) }
            } else if !event.setsText {
                ids[event.index] = try attempt { () throws(ReplicaError) in try replica.createMemo(text: "") }
            }
        }
        clock.set(nil)
        return ids.compactMap { $0 }
    }
}
