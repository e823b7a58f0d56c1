// The commands, run against an open library.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync
import MemoSyncRemote

/// Runs one parsed command line.
///
/// Every command that changes the library validates its input before changing anything and
/// calls `Replica.save()` once, at the end; a command that fails before that leaves the library
/// as it was (edits are not durable until saved, and nothing is saved after a failure).
struct Runner {
    var console: Console
    let environment: [String: String]

    init(console: Console, environment: [String: String]) {
        self.console = console
        self.environment = environment
    }

    /// Runs `invocation`.
    mutating func run(_ invocation: Invocation) async throws(CLIError) {
        let json = invocation.json
        switch invocation.command {
        case let .help(topic):
            console.print(topic.map(Help.page) ?? Help.overview)
            return
        case let .new(text):
            // Gathered before the library is opened (and locked): reading standard input or
            // waiting for the editor may take a while.
            let content = try newMemoText(given: text)
            let library = try open(invocation, creating: true)
            let id = try attempt { () throws(ReplicaError) in try library.replica.createMemo(text: content) }
            try await save(library)
            console.print(id.description)
        case .list:
            let library = try open(invocation)
            try printSummaries(library.replica.notebook.list(), library: library, json: json, empty: "(no memos)")
        case .trash:
            let library = try open(invocation)
            try printSummaries(library.replica.notebook.trash(), library: library, json: json, empty: "(the trash is empty)")
        case let .search(query):
            let library = try open(invocation)
            let matches = library.replica.notebook.search(query)
            try printSummaries(matches, library: library, json: json, empty: "(no memo matches)")
            if matches.isEmpty { throw .noMatch }
        case let .show(prefix):
            let library = try open(invocation)
            let memo = try library.memo(try library.resolve(prefix, preferring: [.active, .trashed]))
            if json {
                console.print(try Format.json(Format.json(memo)))
            } else {
                printExactly(memo.text)
            }
        case let .edit(prefix, mode):
            let library = try open(invocation)
            try await edit(library: library, prefix: prefix, mode: mode)
        case let .delete(prefix):
            let library = try open(invocation)
            let memo = try library.memo(try library.resolve(prefix, preferring: [.active]))
            let short = library.shortIDs(memo.id)
            guard memo.status == .active else {
                throw .runtime("memo \(short) is already in the trash")
            }
            try attempt { () throws(ReplicaError) in try library.replica.moveToTrash(memo.id) }
            try await save(library)
            console.print("Moved \(short) \(quoted(memo.title)) to the trash ('memo restore \(short)' brings it back).")
        case let .restore(prefix):
            let library = try open(invocation)
            let memo = try library.memo(try library.resolve(prefix, preferring: [.trashed], listCommand: "memo trash"))
            let short = library.shortIDs(memo.id)
            guard memo.status == .trashed else {
                throw .runtime("memo \(short) is not in the trash")
            }
            try attempt { () throws(ReplicaError) in try library.replica.restore(memo.id) }
            try await save(library)
            console.print("Restored \(short) \(quoted(memo.title)).")
        case let .export(target):
            let library = try open(invocation)
            try export(library: library, target: target)
        case let .sync(store):
            let library = try open(invocation, creating: true)
            try await sync(library: library, storeOption: store, json: json)
        case .status:
            let library = try open(invocation)
            try status(library: library, json: json)
        }
    }

    // MARK: Opening

    /// Opens the library. Only `new` and `sync` (`creating`) make one where there is none, and
    /// say so on standard error; every other command refuses a path that holds no library, so
    /// a typo in `--library` never looks like an empty library (and never leaves a folder).
    private func open(_ invocation: Invocation, creating: Bool = false) throws(CLIError) -> Library {
        let path = absolute(try LibraryLocation.resolve(option: invocation.libraryPath, environment: environment))
        let existed = FileManager.default.fileExists(atPath: path + "/" + LibraryCore.stateFileName)
        guard existed || creating else {
            throw .runtime("there is no library at \(path); 'memo new' creates one, 'memo sync --store PATH' gets one from a store")
        }
        do throws(ReplicaError) {
            let library = Library(replica: try Replica(libraryPath: path), path: path)
            if !existed { console.error("memo: created a new library at \(path)\n") }
            return library
        } catch {
            throw .runtime("cannot open the library at \(path): \(error)")
        }
    }

    private func save(_ library: Library) async throws(CLIError) {
        do throws(ReplicaError) {
            try await library.replica.save()
        } catch {
            throw .runtime("cannot save the library at \(library.path): \(error); the change is lost")
        }
    }

    // MARK: new

    private func newMemoText(given: String?) throws(CLIError) -> String {
        if let given { return given }
        if !console.inputIsTerminal {
            guard let text = exactUTF8(try readStandardInput()) else {
                throw .runtime("standard input is not UTF-8 text; no memo was created")
            }
            guard !text.isEmpty else {
                throw .runtime("standard input was empty; no memo was created ('memo new \"\"' creates an empty memo)")
            }
            return text
        }
        let command = try Editor.command(environment: environment, console: console)
        let text = try Editor.edit("", name: "new", command: command)
        guard !text.isEmpty else {
            throw .runtime("the text is empty; no memo was created ('memo new \"\"' creates an empty memo)")
        }
        return text
    }

    private func readStandardInput() throws(CLIError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw .runtime("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    // MARK: list, trash, search, show

    private mutating func printSummaries(_ summaries: [MemoSummary], library: Library, json: Bool, empty: String) throws(CLIError) {
        if json {
            console.print(try Format.json(summaries.map(Format.json)))
            return
        }
        if summaries.isEmpty {
            if console.outputIsTerminal { console.print(empty) }
            return
        }
        let shorts = summaries.map { library.shortIDs($0.id) }
        let width = shorts.map(\.count).max() ?? 8
        let dates = LocalDates()
        for (summary, short) in zip(summaries, shorts) {
            let padded = short + String(repeating: " ", count: width - short.count)
            console.print("\(padded)  \(dates.string(summary.modifiedAt.wallMilliseconds))  \(Format.title(summary.title))")
        }
    }

    /// Prints `text` as it is; on a terminal, ends it with a line break if it has none.
    private mutating func printExactly(_ text: String) {
        let needsBreak = console.outputIsTerminal && !text.isEmpty && text.utf8.last != UInt8(ascii: "\n")
        console.print(text, terminator: needsBreak ? "\n" : "")
    }

    // MARK: edit

    private mutating func edit(library: Library, prefix: String, mode: EditMode) async throws(CLIError) {
        let memo = try library.memo(try library.resolve(prefix, preferring: [.active]))
        let short = library.shortIDs(memo.id)
        guard memo.status == .active else {
            throw .runtime("memo \(short) is in the trash; restore it first ('memo restore \(short)')")
        }
        let replica = library.replica
        switch mode {
        case .editor:
            let command = try Editor.command(environment: environment, console: console)
            let text = try Editor.edit(memo.text, name: short, command: command)
            try attempt { () throws(ReplicaError) in try replica.setText(memo.id, to: text) }
        case let .text(text):
            try attempt { () throws(ReplicaError) in try replica.setText(memo.id, to: text) }
        case let .operations(operations):
            // Checked against the text first, so that a change that does not fit changes nothing.
            var length = memo.text.unicodeScalars.count
            for (index, operation) in operations.enumerated() {
                let which = operations.count > 1 ? " (change \(index + 1) of \(operations.count))" : ""
                switch operation {
                case let .insert(offset, text):
                    guard offset <= length else {
                        throw .runtime("cannot insert at offset \(offset)\(which): the text has only \(Format.count(length, "character")) (Unicode scalars); nothing was changed")
                    }
                    length += text.unicodeScalars.count
                case let .delete(offset, count):
                    guard offset <= length, count <= length - offset else {
                        throw .runtime("cannot delete \(Format.count(count, "character")) at offset \(offset)\(which): the text has only \(Format.count(length, "character")) (Unicode scalars); nothing was changed")
                    }
                    length -= count
                }
            }
            for operation in operations {
                switch operation {
                case let .insert(offset, text):
                    try attempt { () throws(ReplicaError) in try replica.edit(memo.id, replacingScalars: offset..<offset, with: text) }
                case let .delete(offset, count):
                    try attempt { () throws(ReplicaError) in try replica.edit(memo.id, replacingScalars: offset..<offset + count, with: "") }
                }
            }
        }
        try await save(library)
    }

    // MARK: export

    private mutating func export(library: Library, target: ExportTarget) throws(CLIError) {
        switch target {
        case let .one(prefix, output):
            let memo = try library.memo(try library.resolve(prefix, preferring: [.active, .trashed]))
            guard let output, output != "-" else {
                printExactly(memo.plainText)
                return
            }
            do {
                try Data(memo.plainText.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw .runtime("cannot write \(output): \(error.localizedDescription)")
            }
        case let .all(directory, overwrite):
            try exportAll(library: library, directory: directory, overwrite: overwrite)
        }
    }

    private mutating func exportAll(library: Library, directory: String, overwrite: Bool) throws(CLIError) {
        let texts = library.replica.notebook.exportTexts()
        let files = zip(ExportNaming.fileNames(forTitles: texts.map(\.title)), texts).map { (fileName: $0, text: $1.text) }
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: directory, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw .runtime("\(directory) exists and is not a folder") }
        } else {
            do {
                try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .runtime("cannot create the folder \(directory): \(error.localizedDescription)")
            }
        }
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        let existing = files.map(\.fileName).filter { manager.fileExists(atPath: folder + $0) }
        if !existing.isEmpty && !overwrite {
            let shown = existing.prefix(5).map { "  \(Format.terminalSafe($0))" }.joined(separator: "\n")
            let more = existing.count > 5 ? "\n  and \(existing.count - 5) more" : ""
            throw .runtime("\(Format.count(existing.count, "file")) in \(directory) would be replaced; nothing was written (add --force to replace them):\n\(shown)\(more)")
        }
        var written: [String] = []
        for file in files {
            let path = folder + file.fileName
            do {
                try Data(file.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                if !existing.contains(file.fileName) { written.append(path) }
            } catch {
                // Undo the part done: remove the files this export created.
                for path in written { try? manager.removeItem(atPath: path) }
                throw .runtime("cannot write \(path): \(error.localizedDescription); the files written so far were removed")
            }
        }
        console.print("Exported \(Format.count(files.count, "memo")) to \(directory).")
    }

    // MARK: sync

    private mutating func sync(library: Library, storeOption: StoreOptions, json: Bool) async throws(CLIError) {
        var settings = try CLISettings.load(library: library.path)
        let (store, location) = try openStore(storeOption, remembered: settings.store, library: library.path)
        let shown = Self.storeDisplay(location)

        let progress = ProgressLine(console: console)
        let report: SyncReport
        do throws(ReplicaError) {
            report = try await library.replica.sync(with: store, progress: { progress.update($0) })
        } catch {
            progress.finish()
            throw .runtime("the sync failed: \(error)")
        }
        progress.finish()
        if report.isComplete && settings.store != location.text {
            settings.store = location.text
            try settings.save(library: library.path)
        }

        if json {
            console.print(try Format.json(syncJSON(report, store: location.text, replica: library.replica.id)))
        } else if report.listedStore {
            // A sync that could not list the store did nothing: no summary, only the error.
            printSyncSummary(report, store: shown)
        }
        if !report.listedStore {
            let reason = report.errors.first?.description ?? "the store could not be listed"
            throw .runtime("could not sync with \(shown): \(Format.terminalSafe(reason)); nothing was read or written")
        }
        if !report.errors.isEmpty {
            throw .runtime("the sync did not finish: \(report.errors.count == 1 ? Format.terminalSafe(report.errors[0].description) : "\(report.errors.count) store errors (listed above)")")
        }
    }

    private func syncJSON(_ report: SyncReport, store: String, replica: ReplicaID) -> [String: Any] {
        return [
            "store": store,
            "replica": replica.description,
            "blobsListed": report.blobsListed,
            "blobsRead": report.blobsRead,
            "bytesRead": report.bytesRead,
            "blobsWritten": report.blobsWritten,
            "bytesWritten": report.bytesWritten,
            "blobsDeleted": report.blobsDeleted,
            "complete": report.isComplete,
            "listedStore": report.listedStore,
            "operationsApplied": report.operationsApplied,
            "publishedOperations": report.publishedOperationCount,
            "pendingOperationCount": report.pendingOperationCount,
            "publishedSegment": report.publishedSegment ?? NSNull(),
            "publishedSegments": report.publishedSegments,
            "publishedSnapshot": report.publishedSnapshot ?? NSNull(),
            "skipped": report.skipped.map { ["key": $0.key, "kind": Self.kind(of: $0.reason), "reason": $0.reason.description] },
            "errors": report.errors.map(\.description),
            "problems": report.errors.map { problem -> [String: Any] in
                [
                    "operation": problem.operation.rawValue,
                    "key": problem.key ?? NSNull(),
                    "error": problem.storeError?.description ?? NSNull(),
                    "reason": problem.reason ?? NSNull(),
                ]
            },
        ]
    }

    /// A stable name for a skip reason, for programs.
    private static func kind(of reason: SkipReason) -> String {
        switch reason {
        case .incomplete: "incomplete"
        case .corrupt: "corrupt"
        case .unknownVersion: "unknownVersion"
        case .notMemoSync: "notMemoSync"
        case .unreadable: "unreadable"
        case .tooLarge: "tooLarge"
        case .notListed: "notListed"
        }
    }

    /// The most skipped blobs the summary names one by one (`--json` lists them all).
    private static let skippedShownMax = 20

    /// The summary of a sync that listed the store. Operations are notebook operations, counted
    /// the same way by `status` ("unsynced edits"), "Published" and "Received".
    private mutating func printSyncSummary(_ report: SyncReport, store: String) {
        if report.isComplete {
            console.print("Synced with \(store).")
        } else {
            console.print("The sync with \(store) did not finish (store errors below; run 'memo sync' again).")
        }
        console.print("  Read \(Format.count(report.blobsRead, "blob")) (\(Format.bytes(report.bytesRead))), wrote \(Format.count(report.blobsWritten, "blob")) (\(Format.bytes(report.bytesWritten))), deleted \(Format.count(report.blobsDeleted, "blob")); \(Format.count(report.blobsListed, "blob")) in the store.")
        if report.operationsApplied > 0 {
            console.print("  Received \(Format.count(report.operationsApplied, "operation")) from the store (edits made on other devices).")
        } else {
            console.print("  Nothing new in the store.")
        }
        if report.publishedOperationCount > 0 {
            console.print("  Published \(Format.count(report.publishedOperationCount, "operation")) of this library (its unsynced edits).")
        }
        if report.publishedSnapshot != nil {
            console.print("  Published a snapshot of the whole notebook (new devices start from it).")
        }
        if report.pendingOperationCount > 0 {
            console.print("  Holding \(Format.count(report.pendingOperationCount, "operation")) back until the changes they build on arrive.")
        }
        if !report.skipped.isEmpty {
            console.print("  Skipped \(Format.count(report.skipped.count, "store entry", "store entries")) (tried again at the next sync):")
            for skipped in report.skipped.prefix(Self.skippedShownMax) {
                console.print("    \(Format.terminalSafe(Format.shortened(skipped.key))): \(Format.terminalSafe(skipped.reason.description))")
            }
            if report.skipped.count > Self.skippedShownMax {
                console.print("    and \(report.skipped.count - Self.skippedShownMax) more ('memo sync --json' lists them all).")
            }
        }
        if !report.errors.isEmpty {
            console.print("  Store errors:")
            for error in report.errors { console.print("    \(Format.terminalSafe(error.description))") }
        }
    }

    // MARK: status

    /// How many ids of the lineage `status` shows.
    static let lineageShownMax = 8

    private mutating func status(library: Library, json: Bool) throws(CLIError) {
        let settings = try CLISettings.load(library: library.path)
        let replica = library.replica
        let active = replica.notebook.list().count
        let trashed = replica.notebook.trash().count
        let lastSync = replica.lastSyncMilliseconds
        let unsynced = replica.unpublishedOperationCount
        // The lineage grows by one id per crash or copy of the library (clean sessions keep
        // theirs): shown as its newest ids and a count, so the summary stays short.
        let lineage = replica.syncState.lineage
        let lineageShown = lineage.suffix(Self.lineageShownMax).map(\.description)
        if json {
            let object: [String: Any] = [
                "library": library.path,
                "replica": replica.id.description,
                "lineage": lineageShown,
                "lineageCount": lineage.count,
                "memos": active,
                "trashedMemos": trashed,
                "unsyncedEdits": unsynced,
                "unpublishedOperations": unsynced,
                "lastSync": lastSync == 0 ? NSNull() : Format.isoDate(milliseconds: lastSync),
                "store": settings.store ?? NSNull(),
            ]
            console.print(try Format.json(object))
            return
        }
        console.print("Library:        \(library.path)")
        console.print("Replica:        \(replica.id) (kept while the library is closed cleanly; a new one after a crash or in a copy)")
        let earlier = lineage.filter { $0 != replica.id }
        if !earlier.isEmpty {
            let shown = earlier.suffix(Self.lineageShownMax).map(\.description).joined(separator: ", ")
            let more = earlier.count > Self.lineageShownMax ? " and \(earlier.count - Self.lineageShownMax) older" : ""
            console.print("Earlier ids:    \(shown)\(more) (after crashes or copies)")
        }
        console.print("Memos:          \(active), \(trashed) in the trash")
        console.print("Unsynced edits: \(unsynced == 0 ? "none" : "\(Format.count(unsynced, "operation")) this library has not published yet")")
        console.print("Last sync:      \(lastSync == 0 ? "never" : LocalDates().string(lastSync))")
        console.print("Store:          \(Self.storeSummary(settings.store) ?? "none yet ('memo sync --store PATH' sets one)")")
    }

    // MARK: Helpers

    /// Runs a replica call, turning its error into a runtime error.
    private func attempt<T>(_ body: () throws(ReplicaError) -> T) throws(CLIError) -> T {
        do throws(ReplicaError) {
            return try body()
        } catch {
            throw .runtime("\(error)")
        }
    }

    private func quoted(_ title: String) -> String {
        "“\(Format.title(title))”"
    }

    private func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let current = FileManager.default.currentDirectoryPath
        return current.hasSuffix("/") ? current + path : current + "/" + path
    }
}

/// An open library and what commands ask of it.
final class Library {
    let replica: Replica
    /// The absolute path of the library folder.
    let path: String
    /// Short forms of every id the notebook knows.
    let shortIDs: ShortIDs

    init(replica: Replica, path: String) {
        self.replica = replica
        self.path = path
        shortIDs = ShortIDs(replica.notebook.memoIDs)
    }

    /// Closes the library when the command is done with it. With everything saved, closing
    /// seals the folder, so the next command keeps this one's replica id: a library used from
    /// the command line does not take a new id (and leave a blob in the store) per command.
    deinit {
        replica.closeNow()
    }

    /// The memo `id` (active or in the trash).
    func memo(_ id: MemoID) throws(CLIError) -> Memo {
        guard let memo = replica.notebook.memo(id) else { throw .runtime("no memo \(id)") }
        return memo
    }

    /// The memo a full or abbreviated id names.
    ///
    /// The memos whose status is in `preferred` are searched first (so `restore 3f` picks the
    /// memo in the trash when an active memo also starts with "3f"); when none matches, every
    /// memo that is not purged is, so the command can say why the memo it found does not fit.
    ///
    /// - Throws: a usage error for something that is not hexadecimal; a runtime error when no
    ///   memo or several memos match.
    func resolve(_ prefix: String, preferring preferred: [MemoStatus], listCommand: String = "memo list") throws(CLIError) -> MemoID {
        guard !prefix.isEmpty, prefix.utf8.count <= 32,
            prefix.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) })
        else {
            throw .usage("'\(Format.terminalSafe(prefix))' is not a memo id: ids are up to 32 hexadecimal digits (0-9, a-f); run '\(listCommand)' to see them")
        }
        let notebook = replica.notebook
        let known = notebook.memoIDs.filter { notebook.status(of: $0).map { $0 != .purged } ?? false }
        let candidates = known.filter { id in notebook.status(of: id).map { preferred.contains($0) } ?? false }
        var match = MemoID.matching(prefix: prefix, in: candidates)
        if case .none = match { match = MemoID.matching(prefix: prefix, in: known) }
        switch match {
        case let .unique(id):
            return id
        case .none:
            throw .runtime("no memo has an id starting with '\(prefix)' (run '\(listCommand)' to see the ids)")
        case let .ambiguous(ids):
            let lines = ids.prefix(10).map { id -> String in
                guard let memo = notebook.memo(id) else { return "  \(id)" }
                let trash = memo.status == .trashed ? "  (in the trash)" : ""
                return "  \(shortIDs(id))  \(Format.title(memo.title))\(trash)"
            }
            let more = ids.count > 10 ? "\n  and \(ids.count - 10) more" : ""
            throw .runtime("the id '\(prefix)' is ambiguous: \(ids.count) memos start with it; give more digits:\n\(lines.joined(separator: "\n"))\(more)")
        }
    }
}
