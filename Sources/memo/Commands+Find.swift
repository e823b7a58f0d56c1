// `memo list`, `memo show`, `memo search`, `memo status` and `memo recover`: they read the
// library without locking it.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync

extension Runner {
    mutating func runFinding(_ invocation: Invocation) throws(CLIError) {
        let library = try readLibrary(invocation)
        // Texts a read found damaged in the state file since it was written (FORMAT.md, "State list").
        defer { warnDamagedTexts(library.notebook, path: library.path) }
        switch invocation.command {
        case .list:
            try printSummaries(library.notebook.list(), library: library, empty: t("listEmpty"))
        case let .search(query, foldsKana):
            let matches = library.notebook.search(query, options: SearchOptions(foldsKana: foldsKana))
            try printSummaries(matches, library: library, empty: t("searchEmpty"))
            if matches.isEmpty { throw .noMatch }
        case let .show(prefix):
            let memo = try library.memo(try library.resolve(prefix, preferring: [.active, .trashed]))
            if json {
                console.print(try Format.json(Format.json(memo)))
            } else {
                printExactly(memo.text)
            }
        case .status:
            try status(library: library)
        case .recover:
            try recover(library: library)
        default:
            preconditionFailure("memo: not a finding command")
        }
    }

    /// Prints memo summaries, one a line (short id, local date, title), or as JSON.
    mutating func printSummaries(_ summaries: [MemoSummary], library: Library, empty: String) throws(CLIError) {
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
        let dates = LocalDates(environment: environment)
        // On a terminal each row fits its width (a title is cut with "…"); a pipe gets it whole.
        let columns = console.outputColumns(environment: environment)
        for (summary, short) in zip(summaries, shorts) {
            let padded = short + String(repeating: " ", count: width - short.count)
            let head = "\(padded)  \(dates.string(summary.modifiedAt.wallMilliseconds))  "
            let titleColumns = columns.map { max(8, $0 - Format.displayWidth(head)) }
            console.print(head + Format.fitted(Format.title(summary.title), columns: titleColumns))
        }
    }

    /// Prints `text` as it is; on a terminal, ends it with a line break if it has none.
    mutating func printExactly(_ text: String) {
        let needsBreak = console.outputIsTerminal && !text.isEmpty && text.utf8.last != UInt8(ascii: "\n")
        console.print(text, terminator: needsBreak ? "\n" : "")
    }

    // MARK: recover

    /// `memo recover`: the text of the operations held back, memo by memo
    /// (``Notebook/heldBackTexts``), to copy. Changes nothing.
    private mutating func recover(library: Library) throws(CLIError) {
        let notebook = library.notebook
        let held = notebook.heldBackTexts
        let count = notebook.pendingOperationCount
        if json {
            let memos: [[String: Any]] = held.map { item in
                [
                    "id": item.memo.description,
                    "operations": item.operationCount,
                    "title": notebook.memo(item.memo).map { $0.title as Any } ?? NSNull(),
                    "text": item.text,
                ]
            }
            console.print(try Format.json(["heldBackOperations": count, "memos": memos] as [String: Any]))
            return
        }
        guard !held.isEmpty else {
            console.print(t("recover.none"))
            return
        }
        console.print(t("recover.intro", ["count": Format.count(count, "operation")]))
        for item in held {
            let title = notebook.memo(item.memo).map { Format.title($0.title) } ?? t("recover.notHere")
            console.print("")
            console.print(
                t("recover.memo", ["id": library.shortIDs(item.memo), "count": Format.count(item.operationCount, "operation"), "title": title]))
            if item.text.isEmpty {
                console.print(t("recover.noText"))
            } else {
                // As typed, like `memo show`: to copy.
                console.print(item.text)
            }
        }
    }

    // MARK: status

    /// How many ids of the lineage `status` shows.
    static let lineageShownMax = 8

    private mutating func status(library: Library) throws(CLIError) {
        let settings = try CLISettings.load(library: library.path)
        let snapshot = library.snapshot
        let active = snapshot.notebook.list().count
        let trashed = snapshot.notebook.trash().count
        let lastSync = snapshot.lastSyncMilliseconds
        let unsynced = snapshot.unpublishedOperationCount
        // The lineage grows by one id per crash or copy of the library (clean sessions keep
        // theirs): shown as its newest ids and a count, so the summary stays short.
        let lineage = snapshot.lineage
        // Encryption is the library's (its `encryption` file; `store-key` for a library that
        // synced encrypted before libraries kept their key blob): its store is encrypted too,
        // since it syncs only through encryption. A plain library's store was plain at its last
        // sync (else the library would be encrypted).
        let encrypted = FileManager.default.fileExists(atPath: library.path + "/" + LibraryEncryption.fileName)
            || FileManager.default.fileExists(atPath: library.path + "/store-key")
        let keyRemembered = FileManager.default.fileExists(atPath: library.path + "/store-key")
        // After damage (a journal record lost, a file kept aside): what waits, and what was kept,
        // stays visible here, not only in the warning of the command that found it.
        let heldBack = snapshot.notebook.pendingOperationCount
        let keptAside = ((try? FileManager.default.contentsOfDirectory(atPath: library.path)) ?? []).filter(LibraryCore.isKeptAside).sorted()
        if json {
            let object: [String: Any] = [
                "library": library.path,
                "replica": snapshot.replica.description,
                "lineage": lineage.suffix(Self.lineageShownMax).map(\.description),
                "lineageCount": lineage.count,
                "memos": active,
                "trashedMemos": trashed,
                "unsyncedEdits": unsynced,
                "unpublishedOperations": unsynced,
                "lastSync": lastSync == 0 ? NSNull() : Format.isoDate(milliseconds: lastSync),
                "store": settings.store ?? NSNull(),
                "encrypted": encrypted,
                "storeEncrypted": encrypted ? true as Any : (settings.store == nil ? NSNull() as Any : false as Any),
                "passphraseRemembered": keyRemembered,
                "historyKeepDays": { if case let .days(days) = snapshot.historyRetention { days as Any } else { NSNull() as Any } }(),
                "heldBackOperations": heldBack,
                "keptAside": keptAside,
            ]
            console.print(try Format.json(object))
            return
        }
        var rows: [(String, String)] = [
            (t("status.library"), library.path),
            (t("status.replica"), t("status.replicaValue", ["id": snapshot.replica.description])),
        ]
        let earlier = lineage.filter { $0 != snapshot.replica }
        if !earlier.isEmpty {
            let shown = earlier.suffix(Self.lineageShownMax).map(\.description).joined(separator: ", ")
            let more = earlier.count > Self.lineageShownMax ? t("status.older", ["count": Format.number(earlier.count - Self.lineageShownMax)]) : ""
            rows.append((t("status.earlier"), t("status.earlierValue", ["ids": shown, "more": more])))
        }
        rows.append((t("status.memos"), t("status.memosValue", ["active": Format.count(active, "memo"), "trashed": Format.count(trashed, "memo")])))
        rows.append((t("status.unsynced"), unsynced == 0 ? t("status.none") : t("status.unsyncedValue", ["count": Format.count(unsynced, "operation")])))
        rows.append((t("status.lastSync"), lastSync == 0 ? t("status.never") : LocalDates(environment: environment).string(lastSync)))
        rows.append((t("status.store"), Self.storeSummary(settings.store) ?? t("status.noStore")))
        let encryption = encrypted
            ? t(keyRemembered ? "status.encryptedRemembered" : "status.encrypted")
            : t(settings.store == nil ? "status.plainNoStore" : "status.plain")
        rows.append((t("status.encryption"), encryption))
        rows.append((t("status.history"), t("status.historyValue", ["period": Self.periodText(snapshot.historyRetention)])))
        if heldBack > 0 {
            rows.append((t("status.heldBack"), t("status.heldBackValue", ["count": Format.count(heldBack, "operation")])))
        }
        if !keptAside.isEmpty {
            rows.append((t("status.keptAside"), t("status.keptAsideValue", ["files": keptAside.map(Format.terminalSafe).joined(separator: ", ")])))
        }
        let width = rows.map { Format.displayWidth($0.0) }.max() ?? 0
        for (label, value) in rows {
            console.print(label + String(repeating: " ", count: width - Format.displayWidth(label) + 1) + value)
        }
    }
}
