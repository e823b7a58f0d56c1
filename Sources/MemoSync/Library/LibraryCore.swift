import MemoCRDT
import MemoNotes

// The local library, as pure logic: what to read when opening, how to recover from a crash, and
// which disk operations save and compaction consist of. `Replica` performs the operations on a
// `LibraryDisk` (a real folder, or the simulator's disk that loses unsynced writes in a crash).
//
// Files in the library folder (FORMAT.md, "Local library"):
//
//     state              the notebook state, the replica id, what was published; generation g
//     journal-<g>        records appended since state g was written: each a notebook delta and
//                        the sync state after it
//     state.tmp          a compaction in progress (deleted when found at open)
//
// Save appends one record to `journal-<g>` and fsyncs it (and, for the record that creates the
// file, the folder). Compaction writes `state.tmp` (generation g+1), fsyncs it, renames it over
// `state`, fsyncs the folder, then deletes `journal-<g>`. Whatever instant a crash hits, the
// folder holds a `state` and at most a journal whose intact records are all saved edits: the
// open path reads `state`, replays the intact prefix of its journal, cuts a torn tail, and
// deletes files of other generations.

/// What opening a library found and repaired.
public struct LibraryOpenReport: Sendable, Equatable {
    /// True when the library was created by this open.
    public var created = false
    /// Journal records replayed.
    public var journalRecords = 0
    /// Bytes cut from the end of the journal: a record torn by a crash while it was being saved
    /// (its edits were never reported saved).
    public var discardedJournalBytes = 0
    /// Leftover files of an interrupted compaction, deleted.
    public var removedFiles: [String] = []

    /// Nothing found.
    public init() {}
}

/// The persistence logic of a library, free of I/O.
package struct LibraryCore: Sendable {
    /// The state file's name.
    package static let stateFileName = "state"
    /// The temporary name a new state file is written under.
    package static let temporaryStateFileName = "state.tmp"
    /// The journal of generation `generation`.
    package static func journalFileName(generation: UInt64) -> String { "journal-\(generation)" }

    /// The format version of the local files.
    static let formatVersion: UInt8 = 4
    static let stateTag: UInt8 = 1
    static let recordTag: UInt8 = 2

    /// The generation of the state file; its journal is `journal-<generation>`.
    package private(set) var generation: UInt64
    /// The replica id the state file was last written under (the session that compacted it).
    package private(set) var replica: ReplicaID
    /// Bytes in the journal.
    package private(set) var journalBytes: Int
    /// Records in the journal.
    package private(set) var journalRecords: Int
    /// Bytes of the state file.
    package private(set) var stateBytes: Int
    /// Set when an append may have left a torn record behind: the next save compacts instead.
    package private(set) var needsCompaction = false

    /// The operations the files hold.
    package private(set) var durableVersion: VersionVector
    /// The sync state the files hold.
    package private(set) var durableSyncState: SyncState

    // MARK: Opening

    /// What a library folder holds, recovered.
    package struct Recovery {
        /// The persistence state.
        package var core: LibraryCore
        /// The notebook.
        package var notebook: Notebook
        /// The sync state.
        package var syncState: SyncState
        /// Operations that repair the folder (cut a torn journal tail, delete leftovers),
        /// to perform before anything else.
        package var repairs: [DiskOperation]
        /// What was found.
        package var report: LibraryOpenReport
    }

    /// The files to read to open a library whose folder lists `files`.
    package static func filesToRead(listing files: [String]) -> [String] {
        guard files.contains(stateFileName) else { return [] }
        return [stateFileName] + files.filter { $0.hasPrefix("journal-") }.sorted() + files.filter { $0 == LibrarySeal.fileName }
    }

    /// Recovers a library from the files of its folder.
    ///
    /// - Parameters:
    ///   - files: the folder's file names.
    ///   - contents: the contents of the files ``filesToRead(listing:)`` named.
    /// - Returns: nil when the folder holds no library yet (see ``create(replica:)``).
    /// - Throws: ``ReplicaError/corruptLibrary(file:reason:)`` for a damaged state file (never
    ///   replaced silently: that would lose every edit), ``ReplicaError/unknownLibraryVersion(file:kind:version:)``.
    package static func recover(files: [String], contents: [String: [UInt8]]) throws(ReplicaError) -> Recovery? {
        var repairs: [DiskOperation] = []
        var report = LibraryOpenReport()
        guard let stateBytes = contents[stateFileName] else {
            if let journal = files.filter({ $0.hasPrefix("journal-") }).sorted().first {
                throw .corruptLibrary(file: journal, reason: "a journal without a state file; the state file was removed")
            }
            for file in files where file == temporaryStateFileName {
                repairs.append(.delete(file: file))
                report.removedFiles.append(file)
            }
            return nil
        }
        let decoded = try decodeState(stateBytes)
        var notebook = decoded.notebook
        var syncState = decoded.syncState
        let journalName = journalFileName(generation: decoded.generation)
        for file in files.sorted() where file == temporaryStateFileName || (file.hasPrefix("journal-") && file != journalName) {
            repairs.append(.delete(file: file))
            report.removedFiles.append(file)
        }
        var journalBytes = 0
        var records = 0
        if let journal = contents[journalName] {
            var offset = 0
            while offset < journal.count {
                guard let record = decodeRecord(journal, at: offset, generation: decoded.generation, replica: decoded.notebook.replica),
                    (try? notebook.applyWithoutEvents(record.delta)) != nil
                else { break }
                #if MEMOSYNC_MUTANTS
                if EngineMutant.active == .recoveryDropsLastRecord, record.end == journal.count { break }
                #endif
                if let recorded = record.syncState { syncState = recorded }
                offset = record.end
                records += 1
            }
            if offset < journal.count {
                report.discardedJournalBytes = journal.count - offset
                repairs.append(.truncate(file: journalName, length: offset))
                repairs.append(.sync(file: journalName))
            }
            journalBytes = offset
        }
        if !repairs.isEmpty { repairs.append(.syncDirectory) }
        _ = notebook.takeEvents()
        report.journalRecords = records
        let core = LibraryCore(
            generation: decoded.generation, replica: notebook.replica, journalBytes: journalBytes, journalRecords: records,
            stateBytes: stateBytes.count, durableVersion: notebook.version, durableSyncState: syncState)
        return Recovery(core: core, notebook: notebook, syncState: syncState, repairs: repairs, report: report)
    }

    /// A new library for `replica`: the core and the operations that create its state file.
    package static func create(replica: ReplicaID) -> (core: LibraryCore, operations: [DiskOperation]) {
        let notebook = Notebook(replica: replica)
        let bytes = encodeState(generation: 0, notebook: notebook, syncState: SyncState())
        let core = LibraryCore(
            generation: 0, replica: replica, journalBytes: 0, journalRecords: 0, stateBytes: bytes.count,
            durableVersion: VersionVector(), durableSyncState: SyncState())
        return (core, replaceState(with: bytes, removingJournal: nil))
    }

    // MARK: Saving

    /// Whether `notebook` and `syncState` hold anything the files do not.
    package func hasUnsavedChanges(notebook: Notebook, syncState: SyncState) -> Bool {
        notebook.version != durableVersion || syncState != durableSyncState
    }

    /// The operations that make `notebook` and `syncState` durable: one journal record, or a
    /// compaction when the journal has grown past the state.
    ///
    /// Call ``didSave(_:notebook:syncState:)`` after performing all of them, or
    /// ``saveFailed()`` when one failed.
    ///
    /// - Throws: ``ReplicaError/notebook(_:)`` when a lazily loaded memo cannot be read.
    package func planSave(notebook: Notebook, syncState: SyncState) throws(ReplicaError) -> SavePlan {
        var notebook = notebook
        return try planSave(keepingTextBodiesOf: &notebook, syncState: syncState)
    }

    /// ``planSave(notebook:syncState:)``; a compaction keeps the memos' encoded text bodies in
    /// `notebook` (``Notebook/encodedKeepingTextBodies()``), so that the next encoding of it (a
    /// snapshot, the next compaction) copies those of the memos unchanged by then. The plan is
    /// the same.
    func planSave(keepingTextBodiesOf notebook: inout Notebook, syncState: SyncState) throws(ReplicaError) -> SavePlan {
        if needsCompaction {
            return planCompaction(keepingTextBodiesOf: &notebook, syncState: syncState)
        }
        let delta: NotebookDelta
        do throws(NotebookError) {
            delta = try notebook.changes(since: durableVersion)
        } catch {
            throw ReplicaError(error)
        }
        let record = Self.encodeRecord(
            generation: generation, delta: delta, syncState: syncState == durableSyncState ? nil : syncState)
        // A journal larger than the state costs more to replay than the state to rewrite.
        if journalBytes + record.count > max(Self.journalBytesMin, stateBytes) {
            return planCompaction(keepingTextBodiesOf: &notebook, syncState: syncState)
        }
        let journal = Self.journalFileName(generation: generation)
        var operations: [DiskOperation] = [.append(file: journal, bytes: record), .sync(file: journal)]
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active == .skippedFsync { operations.removeLast() }
        #endif
        // The record that creates the journal must make its name durable too.
        if journalBytes == 0 { operations.append(.syncDirectory) }
        return SavePlan(operations: operations, isCompaction: false, bytes: record.count)
    }

    /// The operations that rewrite the state file from `notebook` and start an empty journal.
    package func planCompaction(notebook: Notebook, syncState: SyncState) -> SavePlan {
        let bytes = Self.encodeState(generation: generation + 1, notebook: notebook, syncState: syncState)
        return compactionPlan(stateBytes: bytes)
    }

    /// ``planCompaction(notebook:syncState:)``, keeping the memos' encoded text bodies in
    /// `notebook` (see ``planSave(keepingTextBodiesOf:syncState:)``). The plan is the same.
    func planCompaction(keepingTextBodiesOf notebook: inout Notebook, syncState: SyncState) -> SavePlan {
        let bytes = Self.encodeState(generation: generation + 1, keepingTextBodiesOf: &notebook, syncState: syncState)
        return compactionPlan(stateBytes: bytes)
    }

    /// The operations that replace the state file with `bytes` and start an empty journal.
    private func compactionPlan(stateBytes bytes: [UInt8]) -> SavePlan {
        let operations = Self.replaceState(
            with: bytes, removingJournal: journalBytes > 0 || needsCompaction ? Self.journalFileName(generation: generation) : nil)
        return SavePlan(operations: operations, isCompaction: true, bytes: bytes.count)
    }

    /// Disk operations that save, and what they are.
    package struct SavePlan: Sendable {
        /// The operations, in order.
        package var operations: [DiskOperation]
        /// True for a compaction (a new state file and generation).
        package var isCompaction: Bool
        /// The bytes of the record or state file written.
        package var bytes: Int
    }

    /// Records that `plan` was performed: `notebook` and `syncState` are durable.
    package mutating func didSave(_ plan: SavePlan, notebook: Notebook, syncState: SyncState) {
        if plan.isCompaction {
            generation += 1
            stateBytes = plan.bytes
            journalBytes = 0
            journalRecords = 0
            replica = notebook.replica
            needsCompaction = false
        } else {
            journalBytes += plan.bytes
            journalRecords += 1
        }
        durableVersion = notebook.version
        durableSyncState = syncState
    }

    /// Records that an operation of a save failed: what it wrote may be torn, so the next save
    /// compacts (rewrites the state whole) rather than appending after it.
    package mutating func saveFailed() {
        needsCompaction = true
    }

    /// Journals smaller than this are never compacted for size.
    static let journalBytesMin = 1 << 20

    private static func replaceState(with bytes: [UInt8], removingJournal journal: String?) -> [DiskOperation] {
        var operations: [DiskOperation] = [
            .write(file: temporaryStateFileName, bytes: bytes),
            .sync(file: temporaryStateFileName),
            .rename(from: temporaryStateFileName, to: stateFileName),
            .syncDirectory,
        ]
        if let journal {
            operations.append(.delete(file: journal))
            operations.append(.syncDirectory)
        }
        return operations
    }
}
