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
//     state.tmp          a compaction in progress
//     *.damaged-<n>      a damaged file, kept aside untouched; *.kept-<n>: a leftover kept aside
//
// Save appends one framed record to `journal-<g>` and fsyncs it (and, for the record that
// creates the file, the folder). Compaction writes the records held back (waiting for
// operations a damaged record lost) to `journal-<g+1>`, then `state.tmp` (generation g+1),
// fsyncs it, renames it over `state`, fsyncs the folder, then deletes `journal-<g>`. Open reads
// `state`, replays every intact record of its journal, cuts only a torn tail (the last record,
// written after the last fsync), and treats anything else it cannot read as damage: the
// journal is kept aside under a new name, every intact record before and after the damage is
// kept (by a compaction), and the report says what was lost. Leftover files are deleted only
// when they hold nothing the library lacks; otherwise they are kept aside too.

/// What opening a library found and repaired.
public struct LibraryOpenReport: Sendable, Equatable {
    /// True when the library was created by this open.
    public var created = false
    /// Journal records replayed.
    public var journalRecords = 0
    /// Bytes cut from the end of the journal: a record torn by a crash while it was being saved
    /// (its edits were never reported saved).
    public var discardedJournalBytes = 0
    /// Leftover files of an interrupted compaction, deleted: each held nothing the library
    /// lacks.
    public var removedFiles: [String] = []
    /// Damaged library files, and leftovers holding operations the library lacks: each kept
    /// aside under a new name, untouched, and what was lost. Empty when nothing was found.
    public var damage: [LibraryDamage] = []

    /// Nothing found.
    public init() {}
}

/// A library file open found damaged, or a leftover it kept aside because it holds operations
/// the library lacks. Open never deletes such a file: it renames it (a name never used before,
/// never overwritten) and recovers what it can.
public struct LibraryDamage: Sendable, Equatable {
    /// The file's name in the library folder ("journal-3", "state.tmp").
    public var file: String
    /// The name it was kept under ("journal-3.damaged-1", "state.tmp.kept-1"); nil when the
    /// library was only read (``LibrarySnapshot``), which changes nothing.
    public var keptAs: String?
    /// The byte ranges of the file that hold no intact record. Empty for a leftover kept only
    /// because it holds operations the library lacks.
    public var damagedByteRanges: [Range<Int>]
    /// Records lost: one per damaged range, except a range that was only a record's frame
    /// header (the record behind it was recovered). A range may have held more than one.
    public var recordsLost: Int
    /// Intact records recovered from the file, before and after the damage.
    public var recordsRecovered: Int
    /// Operations of recovered records that wait for operations a lost record held: applied
    /// when a sync brings those back from the store.
    public var operationsHeldBack: Int
    /// Bytes the file lacks at its end against what the library's last clean close left in it
    /// (its seal recorded a longer journal): records saved, then cut off or deleted with the
    /// file, never a record torn by a crash (only what comes after a clean close can be torn).
    /// 0 for other damage. ``damagedByteRanges`` then holds the missing range; a file missing
    /// altogether has ``keptAs`` nil.
    public var bytesMissing: Int
    /// Whether the file is gone altogether (its bytes all missing; nothing to keep aside).
    public var fileIsMissing: Bool

    /// A report of damage.
    public init(
        file: String, keptAs: String?, damagedByteRanges: [Range<Int>], recordsLost: Int, recordsRecovered: Int, operationsHeldBack: Int,
        bytesMissing: Int = 0, fileIsMissing: Bool = false
    ) {
        self.fileIsMissing = fileIsMissing
        self.file = file
        self.keptAs = keptAs
        self.damagedByteRanges = damagedByteRanges
        self.recordsLost = recordsLost
        self.recordsRecovered = recordsRecovered
        self.operationsHeldBack = operationsHeldBack
        self.bytesMissing = bytesMissing
    }

    /// Whether the file was kept because it is damaged (else: a leftover holding operations).
    public var isDamaged: Bool { !damagedByteRanges.isEmpty }
}

/// The persistence logic of a library, free of I/O.
package struct LibraryCore: Sendable {
    /// The state file's name.
    package static let stateFileName = "state"
    /// The temporary name a new state file is written under.
    package static let temporaryStateFileName = "state.tmp"
    /// The journal of generation `generation`.
    package static func journalFileName(generation: UInt64) -> String { "journal-\(generation)" }

    /// The format version of the local files: 4 frames journal records and adds the blobs found
    /// bad to the sync state (FORMAT.md).
    static let formatVersion: UInt8 = 4
    /// The version of a journal record whose sync state leaves out parts that are as before it
    /// (FORMAT.md, "Local library": `hasSyncState` 2). Written only for such a record (every
    /// other file and record stays ``formatVersion``): a sync that learned nothing new of a
    /// store full of junk recorded its 10,000 remembered blobs and every head again, 636 KB at
    /// every sync.
    static let recordVersionWithPartsAsBefore: UInt8 = 5
    /// The newest journal record version read.
    package static let recordVersionMax: UInt8 = 5
    static let stateTag: UInt8 = 1
    static let recordTag: UInt8 = 2
    /// The tag of a state list (FORMAT.md, "State list").
    static let stateListTag: UInt8 = 3
    /// The state list beside the state file: what an open reads instead of the whole state
    /// (FORMAT.md, "State list"). A cache: one that is missing, damaged or describes another
    /// state file costs a slower open and nothing else.
    package static let stateListFileName = "state-list"
    /// The smallest state file that has a state list: below, reading the state whole (and
    /// checking all of it) costs a few milliseconds, and the state is read whole. An open
    /// without a list of a state this large makes the next save write one (a compaction).
    package static let stateListWorthBytes = 1 << 20

    /// The smallest state file this library's compactions write a state list for: its disk's
    /// ``LibraryDisk/stateListMinimumBytes``.
    package var stateListMinimumBytes = LibraryCore.stateListWorthBytes

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
    /// Set when an append may have left a torn record behind, or the files are of an older
    /// version: the next save compacts instead.
    package private(set) var needsCompaction = false
    /// Journal records whose operations wait (held back) for operations a damaged record lost:
    /// each compaction writes them to the new journal until they apply.
    package private(set) var carried: [NotebookDelta] = []

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

    /// Whether `name` is a copy kept aside: `<file>.damaged-<n>` or `<file>.kept-<n>`.
    package static func isKeptAside(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return false }
        let suffix = name[name.index(after: dot)...]
        for what in ["damaged-", "kept-"] where suffix.hasPrefix(what) {
            let digits = suffix.dropFirst(what.count)
            return !digits.isEmpty && digits.utf8.allSatisfy { (0x30...0x39).contains($0) }
        }
        return false
    }

    /// Whether `name` is a journal's (`journal-<g>`, digits only): kept-aside copies are not.
    package static func journalGeneration(_ name: String) -> UInt64? {
        guard name.hasPrefix("journal-") else { return nil }
        let digits = name.dropFirst("journal-".count)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(digits)
    }

    /// The files to read to open a library whose folder lists `files`.
    package static func filesToRead(listing files: [String]) -> [String] {
        let temporary = files.filter { $0 == temporaryStateFileName }
        guard files.contains(stateFileName) else { return temporary }
        return [stateFileName] + files.filter { journalGeneration($0) != nil }.sorted() + files.filter { $0 == LibrarySeal.fileName }
            + files.filter { $0 == LibraryHistoryFile.fileName } + temporary
    }

    /// A name for keeping `file` aside: `<file>.<what>-<n>`, n the smallest from 1 whose name
    /// is not in `files` (nor `taken`).
    static func keptName(_ file: String, _ what: String, files: [String], taken: [String]) -> String {
        var number = 1
        while files.contains("\(file).\(what)-\(number)") || taken.contains("\(file).\(what)-\(number)") { number += 1 }
        return "\(file).\(what)-\(number)"
    }

    /// What to do with the files of a folder that holds no state file: `state.tmp` (a creation
    /// interrupted by a crash) is deleted when it holds no operation, and kept aside otherwise.
    package static func leftoversWithoutState(files: [String], contents: [String: [UInt8]]) -> (repairs: [DiskOperation], report: LibraryOpenReport) {
        var report = LibraryOpenReport()
        var repairs: [DiskOperation] = []
        for file in files where file == temporaryStateFileName {
            if let bytes = contents[file], let temporary = try? decodeState(bytes), !temporary.notebook.version.isEmpty {
                let kept = keptName(file, "kept", files: files, taken: [])
                repairs.append(.rename(from: file, to: kept))
                report.damage.append(
                    LibraryDamage(file: file, keptAs: kept, damagedByteRanges: [], recordsLost: 0, recordsRecovered: 0, operationsHeldBack: 0))
            } else {
                repairs.append(.delete(file: file))
                report.removedFiles.append(file)
            }
        }
        if !repairs.isEmpty { repairs.append(.syncDirectory) }
        return (repairs, report)
    }

    /// A journal read: its intact records applied to `notebook`, what was damage, the torn tail.
    struct JournalReplay {
        var records = 0
        var damagedRanges: [Range<Int>] = []
        var recordsLost = 0
        var tornStart: Int?
        var olderRecords = false
        var carried: [NotebookDelta] = []
        var lastSyncState: SyncState?
        /// Each intact record's delta, in order (for telling whether a leftover journal is redundant).
        var deltas: [NotebookDelta] = []
    }

    /// Reads `journal` (of `generation`): applies each intact record's delta to `notebook`
    /// when `apply`, else only collects them.
    /// `syncState` is the state file's: a record whose sync state leaves out parts as before it
    /// takes them from the sync state in effect before it.
    static func replayJournal(
        _ journal: [UInt8], file: String, generation: UInt64, replica: ReplicaID, syncState: SyncState = SyncState(),
        notebook: inout Notebook, apply: Bool
    ) throws(ReplicaError) -> JournalReplay {
        var decoded: [Int: DecodedRecord] = [:]
        var newer: UInt8?
        let parts = LibraryJournal.parts(journal) { body, version in
            if version > recordVersionMax {
                newer = newer ?? version
                return true
            }
            guard version >= 1, let record = decodeRecordBody(journal, body, version: version, generation: generation, replica: replica) else {
                return false
            }
            decoded[body.lowerBound] = record
            return true
        }
        if let newer { throw .unknownLibraryVersion(file: file, kind: BlobKind.localFile.rawValue, version: newer) }
        var replay = JournalReplay()
        #if MEMOSYNC_MUTANTS
        var cutAtDamage = false
        #endif
        for part in parts {
            #if MEMOSYNC_MUTANTS
            if cutAtDamage { continue }
            #endif
            switch part {
            case let .record(range, body, version, damagedHeader):
                guard let record = decoded[body.lowerBound] else { continue }
                if damagedHeader { replay.recordsLost -= 1 }
                replay.deltas.append(record.delta)
                guard apply else { continue }
                #if MEMOSYNC_MUTANTS
                if EngineMutant.active == .recoveryDropsLastRecord, range.upperBound == journal.count { continue }
                #endif
                do throws(NotebookError) {
                    try notebook.applyWithoutEvents(record.delta)
                } catch {
                    // A record that does not apply: damage, like one that does not decode.
                    replay.damagedRanges.append(range)
                    replay.recordsLost += 1
                    continue
                }
                if var recorded = record.syncState {
                    recorded.takeParts(record.partsAsBefore, from: replay.lastSyncState ?? syncState)
                    replay.lastSyncState = recorded
                }
                if !record.delta.upperVersion.isIncluded(in: notebook.version) { replay.carried.append(record.delta) }
                if version < formatVersion { replay.olderRecords = true }
                replay.records += 1
            case let .damaged(range):
                #if MEMOSYNC_MUTANTS
                if EngineMutant.active == .recoveryCutsAtDamage {
                    replay.tornStart = range.lowerBound
                    cutAtDamage = true
                    continue
                }
                #endif
                replay.damagedRanges.append(range)
                replay.recordsLost += 1
            case let .torn(range):
                replay.tornStart = range.lowerBound
            }
        }
        // Adjacent ranges (a frame header, then the record it framed not applying) as one.
        var merged: [Range<Int>] = []
        for range in replay.damagedRanges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, last.upperBound == range.lowerBound {
                merged[merged.count - 1] = last.lowerBound..<range.upperBound
            } else {
                merged.append(range)
            }
        }
        replay.damagedRanges = merged
        // Carried records the later ones completed are no longer waiting.
        replay.carried.removeAll { $0.upperVersion.isIncluded(in: notebook.version) }
        return replay
    }

    /// Recovers a library from the files of its folder.
    ///
    /// - Parameters:
    ///   - files: the folder's file names.
    ///   - contents: the contents of the files ``filesToRead(listing:)`` named.
    /// - Returns: nil when the folder holds no library yet (see ``create(replica:)`` and
    ///   ``leftoversWithoutState(files:contents:)``).
    /// - Throws: ``ReplicaError/corruptLibrary(file:reason:)`` for a damaged state file (never
    ///   replaced silently: that would lose every edit), ``ReplicaError/unknownLibraryVersion(file:kind:version:)``.
    package static func recover(
        files: [String], contents: [String: [UInt8]], listed: (state: DecodedState, fileBytes: Int)? = nil,
        stateListMinimumBytes: Int = stateListWorthBytes
    ) throws(ReplicaError) -> Recovery? {
        var repairs: [DiskOperation] = []
        var report = LibraryOpenReport()
        let decoded: DecodedState
        let stateFileBytes: Int
        if let listed {
            decoded = listed.state
            stateFileBytes = listed.fileBytes
        } else {
            guard let stateBytes = contents[stateFileName] else {
                if let journal = files.filter({ journalGeneration($0) != nil }).sorted().first {
                    throw .corruptLibrary(file: journal, reason: "a journal without a state file; the state file was removed")
                }
                return nil
            }
            decoded = try decodeState(stateBytes)
            stateFileBytes = stateBytes.count
        }
        var notebook = decoded.notebook
        // A library keeps history (FORMAT.md, "History retention"): the journal's deletions
        // keep the content they delete, as they did when they were made.
        notebook.keepsHistory = true
        var syncState = decoded.syncState
        let journalName = journalFileName(generation: decoded.generation)
        var journalBytes = 0
        var records = 0
        // A journal shorter than the last clean close left it (the seal says how long it was, in
        // this generation): saved records were cut off or deleted after the close. That is
        // damage, never a torn tail, which only a save after the close can leave.
        var bytesMissing = 0
        let journalFound = contents[journalName]?.count
        if let seal = contents[LibrarySeal.fileName].flatMap(LibrarySeal.init(decoding:)), seal.generation == decoded.generation,
            seal.journalBytes > (journalFound ?? 0)
        {
            bytesMissing = seal.journalBytes - (journalFound ?? 0)
        }
        var replay = JournalReplay()
        if let journal = contents[journalName] {
            replay = try replayJournal(
                journal, file: journalName, generation: decoded.generation, replica: decoded.notebook.replica, syncState: syncState,
                notebook: &notebook, apply: true)
            if let recorded = replay.lastSyncState { syncState = recorded }
            records = replay.records
            journalBytes = replay.tornStart ?? journal.count
            if let tornStart = replay.tornStart {
                report.discardedJournalBytes = journal.count - tornStart
                // (Not a journal cut short since its seal: that is kept aside as it is, below.)
                if replay.damagedRanges.isEmpty && bytesMissing == 0 {
                    repairs.append(.truncate(file: journalName, length: tornStart))
                    repairs.append(.sync(file: journalName))
                }
            }
        }
        var kept: [String] = []
        // Leftovers: journals of other generations, an interrupted compaction's state file.
        // Each is deleted only when it holds nothing the recovered library lacks.
        for file in files.sorted() where file != journalName {
            let redundant: Bool
            if let generation = journalGeneration(file) {
                var scratch = notebook
                let other = contents[file].flatMap { bytes in
                    try? replayJournal(bytes, file: file, generation: generation, replica: decoded.notebook.replica, notebook: &scratch, apply: false)
                }
                redundant =
                    other.map { other in
                        other.damagedRanges.isEmpty
                            && other.deltas.allSatisfy { delta in
                                delta.upperVersion.isIncluded(in: notebook.version) || replay.carried.contains(delta)
                            }
                    } ?? false
            } else if file == temporaryStateFileName {
                // Torn (never renamed: its saved edits are in state and journal), or holding
                // nothing more.
                redundant = contents[file].flatMap { try? decodeState($0) }.map { $0.notebook.version.isIncluded(in: notebook.version) } ?? true
            } else {
                continue
            }
            if redundant {
                repairs.append(.delete(file: file))
                report.removedFiles.append(file)
            } else {
                let name = keptName(file, "kept", files: files, taken: kept)
                kept.append(name)
                repairs.append(.rename(from: file, to: name))
                report.damage.append(
                    LibraryDamage(file: file, keptAs: name, damagedByteRanges: [], recordsLost: 0, recordsRecovered: 0, operationsHeldBack: 0))
            }
        }
        _ = notebook.takeEvents()
        report.journalRecords = records
        var core = LibraryCore(
            generation: decoded.generation, replica: notebook.replica, journalBytes: journalBytes, journalRecords: records,
            stateBytes: stateFileBytes, durableVersion: notebook.version, durableSyncState: syncState)
        core.stateListMinimumBytes = stateListMinimumBytes
        core.carried = replay.carried
        if bytesMissing > 0 && journalFound == nil {
            // Nothing to keep aside: the whole journal is gone.
            let sealed = journalBytes + bytesMissing
            report.damage.insert(
                LibraryDamage(
                    file: journalName, keptAs: nil, damagedByteRanges: [0..<sealed], recordsLost: 1, recordsRecovered: 0,
                    operationsHeldBack: notebook.pendingOperationCount, bytesMissing: bytesMissing, fileIsMissing: true),
                at: 0)
            // The seal no longer describes the folder: the next open neither reports this again
            // nor keeps the sealed id. (Last: should this be cut short, the next open reports it.)
            repairs += [.delete(file: LibrarySeal.fileName), .syncDirectory]
        } else if bytesMissing > 0 {
            // The journal cut short is kept aside as it is; a compaction keeps every intact record.
            let found = journalFound ?? 0
            let name = keptName(journalName, "damaged", files: files, taken: kept)
            let ranges = replay.damagedRanges + [found..<found + bytesMissing]
            report.damage.insert(
                LibraryDamage(
                    file: journalName, keptAs: name, damagedByteRanges: ranges, recordsLost: max(0, replay.recordsLost) + 1,
                    recordsRecovered: records, operationsHeldBack: notebook.pendingOperationCount, bytesMissing: bytesMissing),
                at: 0)
            repairs.append(.syncDirectory)
            core.journalBytes = 0
            let plan = try core.planCompaction(notebook: notebook, syncState: syncState, keepingJournalAs: name)
            repairs += plan.operations
            // After the compaction (a new generation, which no seal of the old one matches).
            repairs += [.delete(file: LibrarySeal.fileName), .syncDirectory]
            core.didSave(plan, notebook: notebook, syncState: syncState)
        } else if !replay.damagedRanges.isEmpty {
            // The damaged journal is kept aside; a compaction keeps every intact record.
            let name = keptName(journalName, "damaged", files: files, taken: kept)
            report.damage.insert(
                LibraryDamage(
                    file: journalName, keptAs: name, damagedByteRanges: replay.damagedRanges, recordsLost: max(0, replay.recordsLost),
                    recordsRecovered: records, operationsHeldBack: notebook.pendingOperationCount),
                at: 0)
            if !repairs.isEmpty { repairs.append(.syncDirectory) }
            core.journalBytes = 0
            let plan = try core.planCompaction(notebook: notebook, syncState: syncState, keepingJournalAs: name)
            repairs += plan.operations
            core.didSave(plan, notebook: notebook, syncState: syncState)
        } else {
            if !repairs.isEmpty { repairs.append(.syncDirectory) }
            // Files of an older version: the next save rewrites them (an older MemoSync then
            // refuses the library, rather than cutting a journal it cannot read).
            core.needsCompaction = decoded.version < formatVersion || replay.olderRecords
            // A large state without its list (written by an older MemoSync, or the list lost):
            // the next save writes both, so that the next open reads the list alone.
            if listed == nil, stateFileBytes >= stateListMinimumBytes { core.needsCompaction = true }
        }
        return Recovery(core: core, notebook: notebook, syncState: syncState, repairs: repairs, report: report)
    }

    /// A new library for `replica`: the core and the operations that create its state file.
    package static func create(replica: ReplicaID, stateListMinimumBytes: Int = stateListWorthBytes) -> (core: LibraryCore, operations: [DiskOperation]) {
        let notebook = Notebook(replica: replica)
        // An empty notebook has no stored text to read; it needs no state list.
        guard let (bytes, _) = try? encodeState(generation: 0, notebook: notebook, syncState: SyncState(), listFromBytes: .max) else {
            preconditionFailure("an empty notebook encodes")
        }
        var core = LibraryCore(
            generation: 0, replica: replica, journalBytes: 0, journalRecords: 0, stateBytes: bytes.count,
            durableVersion: VersionVector(), durableSyncState: SyncState())
        core.stateListMinimumBytes = stateListMinimumBytes
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
            return try planCompaction(keepingTextBodiesOf: &notebook, syncState: syncState)
        }
        // A save that adds at least as many operations as the files hold (a bootstrap adds
        // everything) makes a record about as large as the state, and then a compaction
        // (below): compact at once, without building the record. At 100,000 memos the record
        // alone (the changes of every memo, encoded) was a third of a bootstrap's time.
        let operationCount = notebook.version.operationCount
        let added = operationCount - min(operationCount, durableVersion.operationCount)
        if added >= Self.directCompactionOperationsMin && added >= operationCount - added {
            return try planCompaction(keepingTextBodiesOf: &notebook, syncState: syncState)
        }
        let delta: NotebookDelta
        do throws(NotebookError) {
            delta = try notebook.changes(since: durableVersion)
        } catch {
            throw ReplicaError(error)
        }
        // Only a changed sync state is recorded, and only then are its parts compared (a save
        // per edit pays no comparison of 10,000 remembered blobs).
        let changed = syncState != durableSyncState
        let record = Self.encodeRecord(
            generation: generation, delta: delta, syncState: changed ? syncState : nil,
            partsAsBefore: changed ? syncState.partsAsIn(durableSyncState) : [])
        // A journal larger than the state costs more to replay than the state to rewrite.
        if journalBytes + record.count > max(Self.journalBytesMin, stateBytes) {
            return try planCompaction(keepingTextBodiesOf: &notebook, syncState: syncState)
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

    /// The operations that rewrite the state file from `notebook` and start a journal holding
    /// only the records still held back.
    package func planCompaction(notebook: Notebook, syncState: SyncState) throws(ReplicaError) -> SavePlan {
        try planCompaction(notebook: notebook, syncState: syncState, keepingJournalAs: nil)
    }

    /// ``planCompaction(notebook:syncState:)``; the old journal is renamed to `keptJournal`
    /// rather than deleted, when given.
    func planCompaction(notebook: Notebook, syncState: SyncState, keepingJournalAs keptJournal: String?) throws(ReplicaError) -> SavePlan {
        let (bytes, list) = try Self.encodeState(generation: generation + 1, notebook: notebook, syncState: syncState, listFromBytes: stateListMinimumBytes)
        return compactionPlan(stateBytes: bytes, list: list, notebook: notebook, keepingJournalAs: keptJournal)
    }

    /// ``planCompaction(notebook:syncState:)``, keeping the memos' encoded text bodies in
    /// `notebook` (see ``planSave(keepingTextBodiesOf:syncState:)``). The plan is the same.
    func planCompaction(keepingTextBodiesOf notebook: inout Notebook, syncState: SyncState) throws(ReplicaError) -> SavePlan {
        let (bytes, list) = try Self.encodeState(
            generation: generation + 1, keepingTextBodiesOf: &notebook, syncState: syncState, listFromBytes: stateListMinimumBytes)
        return compactionPlan(stateBytes: bytes, list: list, notebook: notebook, keepingJournalAs: nil)
    }

    /// The operations that replace the state file with `bytes` and start a journal with the
    /// records still held back (written first: until the rename, the old journal holds them).
    private func compactionPlan(stateBytes bytes: [UInt8], list: [UInt8]?, notebook: Notebook, keepingJournalAs keptJournal: String?) -> SavePlan {
        let stillCarried = carried.filter { !$0.upperVersion.isIncluded(in: notebook.version) }
        var operations: [DiskOperation] = []
        var journal: [UInt8] = []
        if !stillCarried.isEmpty {
            let next = Self.journalFileName(generation: generation + 1)
            for delta in stillCarried { journal += Self.encodeRecord(generation: generation + 1, delta: delta, syncState: nil) }
            operations = [.write(file: next, bytes: journal), .sync(file: next)]
        }
        let oldJournal = journalBytes > 0 || needsCompaction || keptJournal != nil ? Self.journalFileName(generation: generation) : nil
        operations += Self.replaceState(with: bytes, removingJournal: oldJournal, keepingAs: keptJournal)
        return SavePlan(
            operations: operations, isCompaction: true, bytes: bytes.count, carried: stillCarried, journalBytes: journal.count,
            stateList: list)
    }

    /// Disk operations that save, and what they are.
    package struct SavePlan: Sendable {
        /// The operations, in order.
        package var operations: [DiskOperation]
        /// True for a compaction (a new state file and generation).
        package var isCompaction: Bool
        /// The bytes of the record or state file written.
        package var bytes: Int
        /// For a compaction: the records still held back, written to the new journal.
        package var carried: [NotebookDelta] = []
        /// For a compaction: the new journal's bytes.
        package var journalBytes = 0
        /// For a compaction of a state of at least ``LibraryCore/stateListMinimumBytes``: the state
        /// list of the new state file, written after the operations (``stateListOperations``).
        package var stateList: [UInt8]?

        /// The write of the state list, once every operation succeeded: after the state it
        /// describes is in place (it names that file's size and checksum, so a list left from
        /// before, by a crash before this write, is never taken for this state's), then its
        /// fsync and the folder's, so that an open after a power failure finds it too. A
        /// failure is not the save's: a list lost or torn costs a slower open. A compaction of
        /// a smaller state deletes the list left from before, if any.
        package var stateListOperations: [DiskOperation] {
            guard isCompaction else { return [] }
            guard let stateList else { return [.delete(file: LibraryCore.stateListFileName)] }
            return [.write(file: LibraryCore.stateListFileName, bytes: stateList), .sync(file: LibraryCore.stateListFileName), .syncDirectory]
        }
    }

    /// Records that `plan` was performed: `notebook` and `syncState` are durable.
    package mutating func didSave(_ plan: SavePlan, notebook: Notebook, syncState: SyncState) {
        if plan.isCompaction {
            generation += 1
            stateBytes = plan.bytes
            journalBytes = plan.journalBytes
            journalRecords = plan.carried.count
            carried = plan.carried
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
    /// The fewest operations a save adds for it to compact at once when they are at least as
    /// many as the files held (``planSave(keepingTextBodiesOf:syncState:)``): below, a record is
    /// cheap whatever the state.
    static let directCompactionOperationsMin = 4_096

    private static func replaceState(with bytes: [UInt8], removingJournal journal: String?, keepingAs kept: String? = nil) -> [DiskOperation] {
        var operations: [DiskOperation] = [
            .write(file: temporaryStateFileName, bytes: bytes),
            .sync(file: temporaryStateFileName),
            .rename(from: temporaryStateFileName, to: stateFileName),
            .syncDirectory,
        ]
        if let journal {
            operations.append(kept.map { .rename(from: journal, to: $0) } ?? .delete(file: journal))
            operations.append(.syncDirectory)
        }
        return operations
    }
}
