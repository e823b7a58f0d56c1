// `memo delete`, `memo restore`, `memo trash` and `memo purge`.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync

extension Runner {
    mutating func runTrash(_ invocation: Invocation) async throws(CLIError) {
        switch invocation.command {
        case .trash:
            let library = try readLibrary(invocation)
            try printSummaries(library.notebook.trash(), library: library, empty: t("trashEmpty"))
        case let .delete(prefix):
            let library = try open(invocation)
            let memo = try library.memo(try library.resolve(prefix, preferring: [.active]))
            let short = library.shortIDs(memo.id)
            guard memo.status == .active else { throw .runtime("error.alreadyInTrash", ["id": short]) }
            try attempt { () throws(ReplicaError) in try library.writer.moveToTrash(memo.id) }
            try await save(library)
            try report(try library.memo(memo.id), message: t("deleted", ["id": short, "title": quoted(memo.title)]))
        case let .restore(prefix):
            let library = try open(invocation)
            let memo = try library.memo(try library.resolve(prefix, preferring: [.trashed], listCommand: "memo trash"))
            let short = library.shortIDs(memo.id)
            guard memo.status == .trashed else { throw .runtime("error.notInTrash", ["id": short]) }
            try attempt { () throws(ReplicaError) in try library.writer.restore(memo.id) }
            try await save(library)
            try report(try library.memo(memo.id), message: t("restored", ["id": short, "title": quoted(memo.title)]))
        case let .purge(prefixes):
            try await purge(invocation, prefixes: prefixes)
        default:
            preconditionFailure("memo: not a trash command")
        }
    }

    /// Prints `message`, or the memo as JSON.
    private mutating func report(_ memo: Memo, message: String) throws(CLIError) {
        if json {
            console.print(try Format.json(Format.json(memo)))
        } else {
            console.print(message)
        }
    }

    /// Deletes memos in the trash for good: those `prefixes` name, or every one (none given).
    /// Every id is checked first; if any does not name a memo in the trash, nothing is purged.
    private mutating func purge(_ invocation: Invocation, prefixes: [String]) async throws(CLIError) {
        let library = try open(invocation)
        var memos: [Memo] = []
        if prefixes.isEmpty {
            memos = try library.notebook.trash().map { summary throws(CLIError) in try library.memo(summary.id) }
        } else {
            for prefix in prefixes {
                let memo = try library.memo(try library.resolve(prefix, preferring: [.trashed], listCommand: "memo trash"))
                let short = library.shortIDs(memo.id)
                guard memo.status == .trashed else { throw .runtime("error.purgeNotInTrash", ["id": short]) }
                if !memos.contains(where: { $0.id == memo.id }) { memos.append(memo) }
            }
        }
        // All or none: a memo whose text is in records kept for edits held back after damage
        // cannot be purged yet (Replica.purge would refuse it midway).
        if let held = memos.first(where: { library.writer.isInHeldBackRecords($0.id) }) {
            throw CLIError(kind: .runtime, message: explain(ReplicaError.purgeWaitsForHeldBackEdits(held.id)))
        }
        var history = try loadHistory(library)
        let saved = history
        for memo in memos {
            try attempt { () throws(ReplicaError) in try library.writer.purge(memo.id) }
            history.forget(memo.id)
        }
        if !memos.isEmpty {
            // The history without the memos' steps is written first: a purge never leaves their
            // text in it. When it cannot be written, nothing is purged; when the library cannot
            // be saved after it, the history is put back as it was (the memos are still in the
            // trash).
            try await saveHistoryThenLibrary(history, restoring: saved, library)
        }
        // Copies kept aside after damage are never rewritten: say that they may hold the text.
        let keptAside = memos.isEmpty ? [] : try attempt { () throws(ReplicaError) in try library.writer.keptAsideFileNames() }
        if json {
            console.print(try Format.json(["purged": memos.map(\.id.description), "keptAside": keptAside]))
        } else if memos.isEmpty {
            console.print(t("trashEmpty"))
        } else {
            console.print(t("purged", ["count": Format.count(memos.count, "memo")]))
        }
        if !keptAside.isEmpty {
            let files = keptAside.map { Format.terminalSafe(library.path + "/" + $0) }.joined(separator: ", ")
            console.error("memo: " + t("warning.keptAsideAfterPurge", ["files": files]) + "\n")
        }
    }
}
