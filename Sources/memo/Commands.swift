// The commands, run against the library. Each group of commands has its file:
// Commands+Write.swift (new, edit, undo, redo), Commands+Find.swift (list, show, search,
// status), Commands+Trash.swift (delete, restore, trash, purge), Commands+Sync.swift (sync),
// Commands+Files.swift (export, import).

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync
import MemoSyncRemote

/// Whether a command found the library damaged (``Runner/warn(_:path:)``).
final class LibraryWarnings: @unchecked Sendable {
    /// Set once; read when the command is done.
    var found = false
}

/// Runs one parsed command line.
///
/// Every command that changes the library validates its input before changing anything and
/// calls `Replica.save()` once, at the end; a command that fails before that leaves the library
/// as it was (edits are not durable until saved, and nothing is saved after a failure).
///
/// Commands that only show the library read it without locking it (``readLibrary(_:)``);
/// commands that change it open it, one at a time (``open(_:creating:)``).
struct Runner {
    var console: Console
    let environment: [String: String]
    /// `--quiet`: nothing on standard error but errors (no progress, no notes).
    var quiet = false
    /// `--json`: output for programs.
    var json = false
    /// Set when opening or reading the library found damage (or kept a leftover aside): the
    /// command exits with status 4 once it is done.
    let libraryWarnings = LibraryWarnings()

    init(console: Console, environment: [String: String]) {
        self.console = console
        self.environment = environment
    }

    /// Runs `invocation`.
    mutating func run(_ invocation: Invocation) async throws(CLIError) {
        quiet = invocation.quiet
        json = invocation.json
        switch invocation.command {
        case let .help(topic):
            try printHelp(topic)
        case .version:
            try printVersion()
        case let .completion(shell):
            console.print(Completion.script(for: shell), terminator: "")
        case .new, .edit, .undo, .redo:
            try await runWriting(invocation)
        case .recover(restore: true):
            try await restoreHeldBack(invocation)
        case .list, .show, .search, .status, .recover:
            try runFinding(invocation)
        case .history, .showAt, .showBefore, .diff:
            try runHistory(invocation)
        case .historyRetention:
            try await runHistoryRetention(invocation)
        case .revert:
            try await runRevert(invocation)
        case .delete, .restore, .trash, .purge:
            try await runTrash(invocation)
        case let .sync(storeOptions):
            if let given = storeOptions.store { _ = try Self.parseStore(given, storeOptions) }
            // One sync of a library at a time; the library itself is locked only while the sync
            // reads or writes its files, so commands that change it do not wait for the store
            // (`Replica.shareFolder()`). The sync lock goes last, after the library is closed.
            // What the folder held before, for a first sync that fails (below).
            let path = try libraryPath(invocation)
            let fresh = !FileManager.default.fileExists(atPath: path + "/" + LibraryCore.stateFileName)
            let folderExisted = FileManager.default.fileExists(atPath: path)
            let namesBefore = Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            let syncLock = try lockForSync(invocation, creating: true)
            defer { syncLock.release() }
            let library = try open(invocation, creating: true)
            do throws(ReplicaError) {
                try library.writer.shareFolder()
            } catch {
                throw .runtime("error.cannotOpenLibrary", ["path": library.path, "error": explain(error)])
            }
            do throws(CLIError) {
                try await sync(library: library, storeOptions: storeOptions, encryption: invocation.encryption)
            } catch {
                // A library this command created for a sync that failed with nothing received
                // (a wrong passphrase, a store that cannot be reached) is removed again: the
                // error says nothing was read or written, and no empty library is left behind.
                if fresh, library.writer.notebook.version.isEmpty {
                    await library.writer.close()
                    let created = Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).subtracting(namesBefore)
                    for name in created.sorted() { try? FileManager.default.removeItem(atPath: path + "/" + name) }
                    if !folderExisted { try? FileManager.default.removeItem(atPath: path) }
                    note(t("note.removedNewLibrary", ["path": path]))
                }
                throw error
            }
        case let .store(action, store):
            // Not while a sync of the library runs (it holds the sync lock, not the library's).
            let syncLock = try lockForSync(invocation)
            defer { syncLock.release() }
            let library = try open(invocation)
            try await storeCommand(action: action, storeOption: store, library: library, options: invocation.encryption)
        case let .export(target):
            try export(try readLibrary(invocation), target: target)
        case let .import(paths, again):
            try await importFiles(invocation, paths: paths, again: again)
        case let .serve(options):
            try await serve(invocation, options: options)
        }
    }

    private mutating func printHelp(_ topic: HelpTopic) throws(CLIError) {
        switch topic {
        case .overview: console.print(Help.overview())
        case let .command(command): console.print(Help.page(command))
        case .manual: console.print(Manual.page(), terminator: "")
        }
    }

    private mutating func printVersion() throws(CLIError) {
        if json {
            console.print(try Format.json(["memo": Version.memo, "libraryFormat": Version.libraryFormat, "storeFormat": Version.storeFormat]))
        } else {
            console.print(t("version", ["version": Version.memo, "library": String(Version.libraryFormat), "store": Version.storeFormat]))
        }
    }

    // MARK: Opening

    /// The library folder's absolute path.
    func libraryPath(_ invocation: Invocation) throws(CLIError) -> String {
        absolute(try LibraryLocation.resolve(option: invocation.libraryPath, environment: environment))
    }

    /// How long a command that changes the library waits for another one to finish with it.
    static let lockWaitSeconds = 60.0

    /// Opens the library to change it. Only `new`, `import` and `sync` (`creating`) make one
    /// where there is none, and say so on standard error; every other command refuses a path
    /// that holds no library, so a typo in `--library` never looks like an empty library (and
    /// never leaves a folder).
    ///
    /// The library is locked while it is open (by one command at a time): when another
    /// command holds it (a sync, another change), this one waits for it, up to
    /// ``lockWaitSeconds``, saying so on standard error after a second.
    func open(_ invocation: Invocation, creating: Bool = false, replicaEnvironment: ReplicaEnvironment = .system) throws(CLIError) -> Library {
        let path = try libraryPath(invocation)
        let existed = FileManager.default.fileExists(atPath: path + "/" + LibraryCore.stateFileName)
        guard existed || creating else { throw Self.noLibrary(at: path) }
        let start = Date()
        var told = false
        #if MEMOSYNC_TEST_HOOKS
        let replicaEnvironment = clockedForTests(replicaEnvironment)
        #endif
        while true {
            do throws(ReplicaError) {
                let replica = try Replica(libraryPath: path, environment: replicaEnvironment)
                let library = Library(replica: replica, path: path)
                if !existed { note(t("note.createdLibrary", ["path": path])) }
                warn(replica.openReport, path: path)
                return library
            } catch let error where error.isLocked {
                let waited = Date().timeIntervalSince(start)
                guard waited < Self.lockWaitSeconds else {
                    throw .runtime("error.libraryBusy", ["path": path, "seconds": Format.number(Int(Self.lockWaitSeconds))])
                }
                if waited >= 1 && !told {
                    note(t("note.waitingForLibrary"))
                    told = true
                }
            } catch {
                if case .disk = error, let denied = Self.notPermitted(path, writing: true) { throw denied }
                throw .runtime("error.cannotOpenLibrary", ["path": path, "error": explain(error)])
            }
        }
    }

    /// Why no library could be found at `path`, truthfully (issue 29, message 3): a folder this
    /// user may not read or enter, a file (or a path through one) given as the library, or
    /// nothing there at all.
    static func noLibrary(at path: String) -> CLIError {
        if FileManager.default.fileExists(atPath: path) {
            return notPermitted(path) ?? .runtime("error.noLibrary", ["path": path])
        }
        return throughAFile(path) ?? .runtime("error.noLibrary", ["path": path])
    }

    /// For a `path` that does not exist: the error when it goes through a file
    /// ("notes.txt/library") or a folder this user may not enter; nil otherwise.
    static func throughAFile(_ path: String) -> CLIError? {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        var ancestor = (path as NSString).deletingLastPathComponent
        while !ancestor.isEmpty && ancestor != "/" {
            if manager.fileExists(atPath: ancestor, isDirectory: &isFolder) {
                if !isFolder.boolValue { return .runtime("error.libraryIsAFile", ["path": ancestor]) }
                if !manager.isExecutableFile(atPath: ancestor) { return .runtime("error.libraryNotPermitted", ["path": ancestor]) }
                return nil
            }
            ancestor = (ancestor as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// The error for a library folder this user may not read, enter or (`writing`) change, or
    /// whose files they may not read, or for a file given as the library folder: nil when the
    /// path is a folder whose permissions allow what the command does, or nothing is there.
    /// A folder that can be read but not changed is said to be so: on a read-only file system,
    /// or without the permission to write.
    static func notPermitted(_ path: String, writing: Bool = false) -> CLIError? {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isFolder) else { return throughAFile(path) }
        guard isFolder.boolValue else { return .runtime("error.libraryIsAFile", ["path": path]) }
        let state = path + "/" + LibraryCore.stateFileName
        let stateExists = manager.fileExists(atPath: state)
        let readDenied = !manager.isReadableFile(atPath: path) || !manager.isExecutableFile(atPath: path)
            || (stateExists && !manager.isReadableFile(atPath: state))
        if readDenied { return .runtime("error.libraryNotPermitted", ["path": path]) }
        guard writing else { return nil }
        for file in stateExists ? [path, state] : [path] {
            guard let reason = writeDenial(file) else { continue }
            return .runtime(reason == EROFS ? "error.libraryReadOnly" : "error.libraryNotWritable", ["path": path])
        }
        return nil
    }

    /// Why this user may not write `path` (EROFS, EACCES...), from access(2); nil when they may.
    private static func writeDenial(_ path: String) -> Int32? {
        path.withCString { access($0, W_OK) } == 0 ? nil : errno
    }

    /// Takes the library's sync lock (one sync of a library at a time), waiting for another
    /// sync to finish as ``open(_:creating:replicaEnvironment:)`` waits for the library.
    /// Without `creating`, a path that holds no library is refused first (no folder is made).
    func lockForSync(_ invocation: Invocation, creating: Bool = false) throws(CLIError) -> LibrarySyncLock {
        let path = try libraryPath(invocation)
        if !creating && !FileManager.default.fileExists(atPath: path + "/" + LibraryCore.stateFileName) {
            throw Self.noLibrary(at: path)
        }
        let start = Date()
        var told = false
        while true {
            do throws(DiskError) {
                return try LibrarySyncLock(path: path)
            } catch .locked {
                let waited = Date().timeIntervalSince(start)
                guard waited < Self.lockWaitSeconds else {
                    throw .runtime("error.libraryBusy", ["path": path, "seconds": Format.number(Int(Self.lockWaitSeconds))])
                }
                if waited >= 1 && !told {
                    note(t("note.waitingForLibrary"))
                    told = true
                }
                Thread.sleep(forTimeInterval: 0.02)
            } catch {
                if let denied = Self.notPermitted(path, writing: true) { throw denied }
                throw .runtime("error.cannotOpenLibrary", ["path": path, "error": explain(ReplicaError.disk(error))])
            }
        }
    }

    /// Reads the library without locking it, for commands that only show it: they work while
    /// another command changes it (an editor open, a sync running), and see what it saved.
    func readLibrary(_ invocation: Invocation) throws(CLIError) -> Library {
        let path = try libraryPath(invocation)
        let snapshot: LibrarySnapshot?
        do throws(ReplicaError) {
            snapshot = try LibrarySnapshot.read(libraryPath: path)
        } catch {
            if case .disk = error, let denied = Self.notPermitted(path) { throw denied }
            throw .runtime("error.cannotReadLibrary", ["path": path, "error": explain(error)])
        }
        guard let snapshot else { throw Self.noLibrary(at: path) }
        warn(snapshot.report, path: path)
        return Library(snapshot: snapshot, path: path)
    }

    func save(_ library: Library) async throws(CLIError) {
        do throws(ReplicaError) {
            try await library.writer.save()
        } catch {
            // The engine's suggestion speaks to an app that keeps the replica in memory ("unsaved
            // edits are kept in memory"); this process ends here, so only what went wrong is said.
            throw .runtime("error.cannotSave", ["path": library.path, "error": explain(error, withSuggestion: false)])
        }
    }

    /// Tells, on standard error (even with `--quiet`: something saved may be lost), what
    /// opening or reading the library found damaged or kept aside; the command then exits 4.
    func warn(_ report: LibraryOpenReport, path: String) {
        for damage in report.damage {
            libraryWarnings.found = true
            let file = path + "/" + damage.file
            guard damage.isDamaged else {
                console.error("memo: " + t("warning.leftoverKept", ["file": file, "kept": path + "/" + (damage.keptAs ?? damage.file)]) + "\n")
                continue
            }
            let arguments = [
                "file": file,
                "ranges": damage.damagedByteRanges.map { "\($0.lowerBound)-\($0.upperBound - 1)" }.joined(separator: ", "),
                "lost": Format.number(damage.recordsLost), "recovered": Format.number(damage.recordsRecovered),
                "heldBack": Format.number(damage.operationsHeldBack), "kept": path + "/" + (damage.keptAs ?? ""),
            ]
            let key: String
            switch (damage.bytesMissing > 0, damage.keptAs == nil) {
            case (true, _) where damage.fileIsMissing: key = "warning.libraryFileMissing"
            case (true, true): key = "warning.libraryCutShortReadOnly"
            case (true, false): key = "warning.libraryCutShort"
            case (false, true): key = "warning.libraryDamagedReadOnly"
            case (false, false): key = "warning.libraryDamaged"
            }
            var withMissing = arguments
            withMissing["missing"] = Format.number(damage.bytesMissing)
            console.error("memo: " + t(key, withMissing) + "\n")
        }
    }

    /// Tells, on standard error, which memos' texts a read found damaged in the library's state
    /// file (what was shown of them is what the memo list holds); the command then exits 4.
    func warnDamagedTexts(_ notebook: Notebook, path: String) {
        for id in notebook.damagedStoredMemoIDs {
            libraryWarnings.found = true
            console.error("memo: " + t("warning.memoTextDamaged", ["id": id.description, "file": path + "/" + LibraryCore.stateFileName]) + "\n")
        }
    }

    // MARK: Helpers

    /// Writes a note (not an error) to standard error, unless `--quiet`.
    func note(_ text: String) {
        if !quiet { console.error("memo: " + text + "\n") }
    }

    /// Runs a replica call, turning its error into a runtime error.
    func attempt<T>(_ body: () throws(ReplicaError) -> T) throws(CLIError) -> T {
        do throws(ReplicaError) {
            return try body()
        } catch {
            throw CLIError(kind: .runtime, message: explain(error))
        }
    }

    /// A memo's title in quotation marks, for messages.
    func quoted(_ title: String) -> String {
        t("quoted", ["title": Format.title(title)])
    }

    /// `path` made absolute against the current folder.
    func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let current = FileManager.default.currentDirectoryPath
        return current.hasSuffix("/") ? current + path : current + "/" + path
    }
}

/// An engine error in the user's language: its description, and its suggestion when it has one.
func explain(_ error: any Error, withSuggestion: Bool = true) -> String {
    guard let localized = error as? any LocalizedError, let description = localized.errorDescription else {
        return describe(error)
    }
    var text = description
    if text.hasSuffix(".") || text.hasSuffix("。") { text.removeLast() }
    if withSuggestion, let suggestion = localized.recoverySuggestion { text += t("suggestionSeparator") + suggestion }
    if text.hasSuffix(".") || text.hasSuffix("。") { text.removeLast() }
    return text
}

/// A sync's problem in a message: in English its description, which names the blob (for a user
/// who looks into the store) and the store's own words; in Korean and Japanese the catalogs'
/// sentence (what failed and the innermost cause, no English text, no blob key).
func problemText(_ problem: SyncProblem) -> String {
    MemoLanguage.current == .english ? flattened(problem.description) : explain(problem, withSuggestion: false)
}

/// An English description of nested causes ("listing the store failed: the store is
/// unavailable: open …: Permission denied") as one clause with the inner ones in parentheses
/// ("listing the store failed (the store is unavailable, open …, Permission denied)"), so that a
/// message that puts it after its own ": " stays one join deep.
func flattened(_ description: String) -> String {
    guard let colon = description.firstRange(of: ": ") else { return description }
    let inner = description[colon.upperBound...].replacing(": ", with: ", ")
    return "\(description[..<colon.lowerBound]) (\(inner))"
}

/// A sync's problem after "could not sync with STORE: ", which says already that nothing was
/// synced: in English its description, in Korean and Japanese only the innermost cause.
func problemCause(_ problem: SyncProblem) -> String {
    MemoLanguage.current == .english ? flattened(problem.description) : problem.localizedDetail ?? problemText(problem)
}

extension ReplicaError {
    /// Whether the library is locked by another replica (another `memo` process, or another
    /// replica of this one).
    var isLocked: Bool {
        if case .disk(.locked) = self { return true }
        if case .disk(.alreadyOpen) = self { return true }
        return false
    }
}

/// The versions `memo --version` prints.
enum Version {
    /// This command line's version.
    static let memo = "0.1.0"
    /// The format version of the library files it writes (FORMAT.md, "Local library").
    static let libraryFormat = 4
    /// The store layout it syncs with (FORMAT.md: keys under `memosync/v1/`).
    static let storeFormat = "v1"
}
