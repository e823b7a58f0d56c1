import MemoCRDT
import MemoSync
import MemoSyncTesting

// The local library's files: the state file and the journal, through the public open path
// (`LibraryCore.recover`), then a compaction and a second open.

extension FuzzTarget {
    /// A folder holding `bytes` as its state file: opens to a valid notebook or a typed error, and
    /// what it opens survives a compaction and a second open.
    static func checkLibraryState(_ bytes: [UInt8]) throws(FuzzFailure) {
        try checkStateChecksBeside(bytes)
        let files = [LibraryCore.stateFileName]
        let recovery: LibraryCore.Recovery?
        do {
            recovery = try LibraryCore.recover(files: files, contents: [LibraryCore.stateFileName: bytes])
        } catch {
            return
        }
        guard let recovery else { throw FuzzFailure("a folder with a state file opened as no library") }
        try checkNotebook(recovery.notebook, "the opened library's notebook")
        try checkRebuild(recovery.notebook, "the opened library's notebook")
        try checkTransfer(recovery.notebook, "the opened library's notebook")
        try checkCompaction(recovery, "the opened library")
    }

    /// The state file decoded with its checks beside the decoding (what an open does from
    /// 1 MiB on, so fuzz inputs would never reach it) and on one thread: the same notebook, or
    /// the same refusal in the same words.
    static func checkStateChecksBeside(_ bytes: [UInt8]) throws(FuzzFailure) {
        func outcome(besideFrom threshold: Int) -> Result<[UInt8], ReplicaError> {
            do throws(ReplicaError) {
                let decoded = try LibraryCore.decodeState(bytes, checksBesideFromBytes: threshold)
                return .success(decoded.notebook.encoded())
            } catch {
                return .failure(error)
            }
        }
        let beside = outcome(besideFrom: 0)
        let alone = outcome(besideFrom: .max)
        guard beside == alone else {
            throw FuzzFailure("checked beside the decoding, the state file gives \(beside); on one thread, \(alone)")
        }
    }

    /// A sound generation-1 state file with `journal` as its journal: opens (a journal never
    /// makes a library unreadable) with every intact record replayed; only a torn tail is cut,
    /// damage is kept aside (the journal renamed, never cut or deleted); the repaired folder
    /// opens to the same library; a compaction keeps it.
    static func checkLibraryJournal(_ journal: [UInt8]) throws(FuzzFailure) {
        let world = FuzzWorld.shared.library
        let files = [LibraryCore.stateFileName, world.journalName]
        let contents = [LibraryCore.stateFileName: world.journalState, world.journalName: journal]
        let opened: LibraryCore.Recovery?
        do {
            opened = try LibraryCore.recover(files: files, contents: contents)
        } catch {
            // An intact record of a version this reader does not know: a newer MemoSync wrote the
            // library, which is refused whole and changed in nothing (FORMAT.md, "Local library").
            if case let .unknownLibraryVersion(file, kind, version) = error, file == world.journalName,
                kind == BlobKind.localFile.rawValue, version > LibraryCore.recordVersionMax
            {
                return
            }
            throw FuzzFailure("opening a sound state file with a hostile journal: \(error)")
        }
        guard let recovery = opened else { throw FuzzFailure("a folder with a state file opened as no library") }
        let report = recovery.report
        try require(
            report.discardedJournalBytes >= 0 && report.discardedJournalBytes <= journal.count,
            "discarded \(report.discardedJournalBytes) of \(journal.count) journal bytes")
        let kept = journal.count - report.discardedJournalBytes
        if let damage = report.damage.first {
            try require(damage.file == world.journalName && !damage.damagedByteRanges.isEmpty, "damage reported for another file: \(report)")
            try require(
                recovery.repairs.contains(.rename(from: world.journalName, to: world.journalName + ".damaged-1"))
                    && !recovery.repairs.contains { if case .truncate = $0 { true } else { false } }
                    && !recovery.repairs.contains(.delete(file: world.journalName)),
                "a damaged journal is not kept aside whole: \(recovery.repairs)")
            try checkNotebook(recovery.notebook, "the library opened with a damaged journal")
            return
        }
        try require(
            (report.discardedJournalBytes == 0) == !recovery.repairs.contains(.truncate(file: world.journalName, length: kept)),
            "the repairs do not cut the journal to its intact \(kept) bytes: \(recovery.repairs)")
        // Nothing replayed: the sound state alone (checked by the seeds), the whole journal cut.
        if report.journalRecords == 0 { return }
        try checkNotebook(recovery.notebook, "the library opened with a hostile journal")
        try checkCompaction(recovery, "the library opened with a hostile journal")
        guard report.discardedJournalBytes > 0 else { return }
        // The repaired folder opens to the same library, with nothing more to cut.
        let repaired = [LibraryCore.stateFileName: world.journalState, world.journalName: Array(journal.prefix(kept))]
        let reopened = try required("reopening the repaired folder") { try LibraryCore.recover(files: files, contents: repaired) }
        guard let reopened else { throw FuzzFailure("the repaired folder opened as no library") }
        try require(reopened.report.discardedJournalBytes == 0, "the repaired journal is cut again")
        try require(reopened.report.journalRecords == report.journalRecords, "the repaired journal replays another number of records")
        try require(reopened.notebook.version == recovery.notebook.version, "the repaired folder opens to another version")
        try require(reopened.syncState == recovery.syncState, "the repaired folder opens to another sync state")
    }

    /// `plan`'s operations performed on an empty folder of their own: the files it holds then,
    /// sorted, and their bytes. `what` names the step in a failure.
    static func performedOnAnEmptyFolder(
        _ plan: LibraryCore.SavePlan, _ what: String
    ) throws(FuzzFailure) -> (files: [String], folder: [String: [UInt8]]) {
        let disk = MemoryDisk()
        return try required(what) { () throws -> ([String], [String: [UInt8]]) in
            try disk.perform(plan.operations)
            let files = try disk.listFiles().sorted()
            var folder: [String: [UInt8]] = [:]
            for file in files { folder[file] = try disk.read(file: file) }
            return (files, folder)
        }
    }

    /// A compaction of what `recovery` opened, opened again, gives the same notebook and sync
    /// state, one generation later. Every operation of the plan is performed on a folder of its
    /// own: a compaction of a library with records held back writes their new journal first.
    static func checkCompaction(_ recovery: LibraryCore.Recovery, _ context: @autoclosure () -> String) throws(FuzzFailure) {
        let plan = try required("\(context()): planning its compaction") { () throws -> LibraryCore.SavePlan in
            try recovery.core.planCompaction(notebook: recovery.notebook, syncState: recovery.syncState)
        }
        let (files, folder) = try performedOnAnEmptyFolder(plan, "\(context()): performing its compaction")
        guard folder[LibraryCore.stateFileName] != nil else {
            throw FuzzFailure("\(context()): a compaction writes no state file")
        }
        let reopened = try required("\(context()): opening its compaction") {
            try LibraryCore.recover(files: files, contents: folder)
        }
        guard let reopened else { throw FuzzFailure("\(context()): its compaction opened as no library") }
        try require(reopened.core.generation == recovery.core.generation &+ 1, "\(context()): the compaction's generation")
        try require(reopened.notebook.version == recovery.notebook.version, "\(context()): the compaction opens to another version")
        try require(reopened.syncState == recovery.syncState, "\(context()): the compaction opens to another sync state")
        let ids = recovery.notebook.memoIDs
        try require(reopened.notebook.memoIDs == ids, "\(context()): the compaction opens to other memos")
        try require(
            ids.map { reopened.notebook.memo($0) } == ids.map { recovery.notebook.memo($0) },
            "\(context()): the compaction opens to other memo contents")
    }
}
