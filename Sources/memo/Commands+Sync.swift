// `memo sync`.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync
import MemoSyncRemote

extension Runner {
    /// `memo sync`: through the store's encryption when it has a key blob, turning it on first
    /// with `--encrypt` (EncryptionCommands.swift).
    mutating func sync(library: Library, storeOptions: StoreOptions, encryption: EncryptionOptions) async throws(CLIError) {
        guard json else { return try await syncCommand(library: library, storeOptions: storeOptions, encryption: encryption) }
        // `--json` is the same in every language (memo help): its errors are written in English,
        // as the report's own are (and so is the message on standard error).
        do {
            try await MemoLanguage.$taskLanguage.withValue(.english) {
                try await syncCommand(library: library, storeOptions: storeOptions, encryption: encryption)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(kind: .runtime, message: String(describing: error))
        }
    }

    private mutating func syncCommand(library: Library, storeOptions: StoreOptions, encryption: EncryptionOptions) async throws(CLIError) {
        var settings = try CLISettings.load(library: library.path)
        // A folder, an S3 bucket or a WebDAV folder (StoreOption.swift).
        let opened: any BlobStore
        let location: StoreLocation
        do throws(CLIError) {
            (opened, location) = try openStore(storeOptions, remembered: settings.store, library: library.path)
        } catch {
            // `--json` prints its object even when the store could not be opened (a remembered
            // folder that is not mounted, missing credentials): nothing was read or written.
            if json { try printFailedSync(error, store: storeOptions.store ?? settings.store, replica: library.writer.id) }
            throw error
        }
        #if MEMOSYNC_TEST_HOOKS
        let store = gatedForTests(opened)
        #else
        let store = opened
        #endif
        let shown = Self.storeDisplay(location)

        let progress = ProgressLine(console: console, enabled: !quiet, task: t("progress.sync"))
        let report: SyncReport
        do throws(CLIError) {
            let session = EncryptionSession(environment: environment, options: encryption, libraryPath: library.path, storeName: shown, quiet: quiet)
            report = try await session.sync(replica: library.writer, store: store, progress: { progress.update($0) })
        } catch {
            progress.finish()
            // `--json` prints its object even when the sync failed (memo help sync): here
            // nothing was read or written, and the error is the only one.
            if json { try printFailedSync(error, store: location.text, replica: library.writer.id) }
            throw error
        }
        progress.finish()
        // Remembered once the store could be listed, finished or not: a sync that stopped on a
        // store error says to run `memo sync` again, which then needs no --store.
        if report.listedStore && settings.store != location.text {
            settings.store = location.text
            try settings.save(library: library.path)
        }

        if json {
            console.print(try Format.json(syncJSON(report, store: location.text, replica: library.writer.id)))
        } else if report.listedStore {
            // A sync that could not list the store did nothing: no summary, only the error.
            printSyncSummary(report, store: shown)
        }
        // A purge received drops the memo's undo steps at once: its text is gone from this
        // library's files after this sync, as `memo help purge` says.
        try forgetPurgedInHistory(library)
        if !report.listedStore {
            let reason = report.errors.first.map(problemCause) ?? t("storeNotListed")
            throw .runtime("error.couldNotSync", ["path": shown, "error": Format.terminalSafe(reason)])
        }
        if !report.errors.isEmpty {
            let what = report.errors.count == 1
                ? Format.terminalSafe(problemText(report.errors[0]))
                : t("storeErrorsAbove", ["count": Format.count(report.errors.count, "storeError")])
            throw .runtime("error.syncUnfinished", ["error": what])
        }
    }

    /// `sync --json`'s object for a sync that failed before it began: nothing read or written,
    /// `error` the only error.
    private mutating func printFailedSync(_ error: CLIError, store: String?, replica: ReplicaID) throws(CLIError) {
        var object = syncJSON(SyncReport(), store: store, replica: replica)
        object["errors"] = [error.message]
        object["problems"] = [["operation": NSNull(), "key": NSNull(), "error": error.message, "reason": NSNull()] as [String: Any]]
        console.print(try Format.json(object))
    }

    private func syncJSON(_ report: SyncReport, store: String?, replica: ReplicaID) -> [String: Any] {
        return [
            "store": store ?? NSNull(),
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
            "encrypted": report.encrypted,
            "plainBlobsIgnored": report.plainBlobsIgnored,
            "skipped": report.skipped.map { ["key": $0.key, "kind": Self.kind(of: $0.reason), "reason": $0.reason.description] },
            "skippedAgain": report.skippedAgainCount,
            "blobsRemembered": report.blobsRemembered,
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
        console.print(t(report.isComplete ? "sync.done" : "sync.unfinished", ["store": store]))
        console.print("  " + t("sync.blobs", [
            "read": Format.count(report.blobsRead, "blob"), "readBytes": Format.bytes(report.bytesRead),
            "written": Format.count(report.blobsWritten, "blob"), "writtenBytes": Format.bytes(report.bytesWritten),
            "deleted": Format.count(report.blobsDeleted, "blob"), "listed": Format.count(report.blobsListed, "blob"),
        ]))
        if report.operationsApplied > 0 {
            console.print("  " + t("sync.received", ["count": Format.count(report.operationsApplied, "operation")]))
        } else {
            console.print("  " + t("sync.nothingNew"))
        }
        if report.publishedOperationCount > 0 {
            console.print("  " + t("sync.published", ["count": Format.count(report.publishedOperationCount, "operation")]))
        }
        if report.publishedSnapshot != nil {
            console.print("  " + t("sync.snapshot"))
        }
        if report.pendingOperationCount > 0 {
            console.print("  " + t("sync.pending", ["count": Format.count(report.pendingOperationCount, "operation")]))
        }
        if !report.skipped.isEmpty {
            console.print("  " + t("sync.skipped", ["count": Format.count(report.skipped.count, "storeEntry")]))
            for skipped in report.skipped.prefix(Self.skippedShownMax) {
                console.print("    \(Format.terminalSafe(Format.shortened(skipped.key))): \(Format.terminalSafe(skipped.reason.localizedDescription))")
            }
            if report.skipped.count > Self.skippedShownMax {
                console.print("    " + t("sync.skippedMore", ["count": Format.number(report.skipped.count - Self.skippedShownMax)]))
            }
        }
        if report.skippedAgainCount > 0 {
            console.print("  " + t("sync.skippedAgain", ["count": Format.count(report.skippedAgainCount, "storeEntry")]))
        }
        if !report.errors.isEmpty {
            console.print("  " + t("sync.storeErrors"))
            for error in report.errors { console.print("    \(Format.terminalSafe(problemText(error)))") }
        }
    }
}
