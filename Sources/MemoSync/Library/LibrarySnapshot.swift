import Foundation
import MemoCRDT
import MemoNotes

/// What a library folder holds, read without opening the library: for showing memos while
/// another process (or another `Replica` in this one) has the library open.
///
/// A ``Replica`` locks its folder for as long as it is open, so a second one cannot open it.
/// A snapshot takes no lock and writes nothing: it lists the folder, notes each file's identity
/// (device, inode, size, change time), reads the files, and notes the identities again. When
/// something changed in between (a save appended to the journal, a compaction replaced the
/// state file), it reads again, so what it recovers is the folder as it was at one instant. Any
/// such instant is a state a crash could leave (saves and compactions are built so), and it
/// is recovered the way opening recovers one, in memory only: a torn journal record is left
/// out, leftovers are ignored; damage is reported (``report``), as opening reports it, and left
/// as it is. What it shows are the saved edits: an open replica's unsaved
/// edits are not in its files yet.
public struct LibrarySnapshot: Sendable {
    /// The memos, as saved.
    public let notebook: Notebook
    /// The replica id of the library's last session: the one a clean close sealed (which the
    /// next session keeps), else the newest of its lineage.
    public let replica: ReplicaID
    /// What the library remembers of its syncs.
    package let syncState: SyncState
    /// What reading found: damage (``LibraryOpenReport/damage``, each with `keptAs` nil: a
    /// snapshot changes nothing; the next open of the library keeps the file aside), a torn
    /// journal tail left out.
    public let report: LibraryOpenReport
    /// The library's history retention period (its `history` file; ``Replica/historyRetention``).
    public let historyRetention: HistoryRetention

    /// Operations of the library's ids not yet known to be in the store (as
    /// ``Replica/unpublishedOperationCount``).
    public var unpublishedOperationCount: Int { syncState.unpublishedOperationCount(in: notebook) }
    /// When the library last completed a sync, in milliseconds since 1970; 0 before its first.
    public var lastSyncMilliseconds: UInt64 { syncState.lastSyncMilliseconds }
    /// The replica ids the library has made edits under, oldest first.
    public var lineage: [ReplicaID] { syncState.lineage }

    /// How many times ``read(libraryPath:)`` reads a folder that keeps changing before it
    /// reports it busy: 10 ms apart, so about 2 seconds of saves without a pause.
    static let attempts = 200

    /// Reads the library in the folder at `libraryPath`.
    ///
    /// - Returns: nil when the folder holds no library (or does not exist).
    /// - Throws: ``ReplicaError/corruptLibrary(file:reason:)`` and
    ///   ``ReplicaError/unknownLibraryVersion(file:kind:version:)`` as opening does;
    ///   ``ReplicaError/disk(_:)`` when the folder cannot be read, or with
    ///   ``DiskError/locked(path:)`` when it changed at every one of ``attempts`` reads.
    public static func read(libraryPath: String) throws(ReplicaError) -> LibrarySnapshot? {
        guard let path = POSIX.absolutePath(libraryPath) else {
            throw .disk(.unavailable(reason: "no folder path given (\"\(libraryPath)\")"))
        }
        guard POSIX.isDirectory(path) else { return nil }
        for attempt in 1...attempts {
            if let files = try StableFolder.read(path: path) {
                return try recover(files, path: path)
            }
            if attempt < attempts { usleep(10_000) }
        }
        throw .disk(.locked(path: path))
    }

    /// The snapshot of files read at one instant.
    private static func recover(_ folder: StableFolder, path: String) throws(ReplicaError) -> LibrarySnapshot? {
        guard let recovery = try LibraryCore.recover(files: folder.names, contents: folder.contents, listed: folder.listed) else { return nil }
        let kept = LibrarySeal.replicaToKeep(
            seal: folder.contents[LibrarySeal.fileName], recovery: recovery,
            identities: LibraryIdentities.read(from: folder, generation: recovery.core.generation))
        let replica = kept ?? recovery.syncState.lineage.last ?? recovery.notebook.replica
        var report = recovery.report
        for index in report.damage.indices { report.damage[index].keptAs = nil }
        report.removedFiles = []
        let retention = folder.contents[LibraryHistoryFile.fileName].map(LibraryHistoryFile.decoded) ?? .default
        return LibrarySnapshot(notebook: recovery.notebook, replica: replica, syncState: recovery.syncState, report: report, historyRetention: retention)
    }
}

/// The library files of a folder, read while nothing changed them; a read-only disk over them.
private struct StableFolder: LibraryDisk {
    var path: String
    var names: [String]
    var contents: [String: [UInt8]]
    var identities: [String: FileIdentity]
    /// The state decoded from its state list, when one describes the state file (which is
    /// then kept open, not read: FORMAT.md, "State list").
    var listed: (state: LibraryCore.DecodedState, fileBytes: Int)?

    /// Reads the folder at `path`; nil when a file changed while it was read.
    static func read(path: String) throws(ReplicaError) -> StableFolder? {
        let before = try listing(path)
        var contents: [String: [UInt8]] = [:]
        var listed: (state: LibraryCore.DecodedState, fileBytes: Int)?
        if before.names.contains(LibraryCore.stateListFileName), before.names.contains(LibraryCore.stateFileName),
            let list = try? POSIX.readFileIfSmall(path + "/" + LibraryCore.stateListFileName, limitBytes: LibraryFileLimits.stateBytesMax),
            let reader = try? FileStateReader.open(path + "/" + LibraryCore.stateFileName, limitBytes: LibraryFileLimits.stateBytesMax),
            let decoded = LibraryCore.decodeState(list: list, state: reader)
        {
            listed = (decoded, reader.sizeBytes)
        }
        for name in LibraryCore.filesToRead(listing: before.names) where !(listed != nil && name == LibraryCore.stateFileName) {
            // Each file bounded as an open reads it (``LibraryFileLimits``).
            let limit = LibraryFileLimits.limitBytes(ofFile: name)
            var sizeBytes = 0
            do throws(POSIXFailure) {
                let descriptor = try POSIX.open(path + "/" + name, .read)
                defer { POSIX.closeQuietly(descriptor) }
                sizeBytes = try POSIX.status(of: descriptor, path: path + "/" + name).size
                if let bytes = try POSIX.readAll(descriptor, path: path + "/" + name, limitBytes: limit) {
                    contents[name] = bytes
                    continue
                }
            } catch where error.kind == .notFound {
                return nil  // removed meanwhile
            } catch {
                throw .disk(.io(reason: error.description))
            }
            throw .disk(.tooLarge(file: name, sizeBytes: max(sizeBytes, limit + 1), limitBytes: limit))
        }
        let after = try listing(path)
        guard after.names == before.names, after.identities == before.identities else { return nil }
        return StableFolder(path: path, names: before.names, contents: contents, identities: before.identities, listed: listed)
    }

    /// The regular files' names, sorted, and the identities of the folder ("") and of each.
    private static func listing(_ path: String) throws(ReplicaError) -> (names: [String], identities: [String: FileIdentity]) {
        var names: [String] = []
        var identities: [String: FileIdentity] = [:]
        identities[""] = POSIXIdentity.identity(of: path)
        do throws(POSIXFailure) {
            for name in try POSIX.directoryEntries(path) where FileDisk.isValidFileName(name) {
                guard let identity = POSIXIdentity.identity(of: path + "/" + name),
                    (try? POSIX.status(of: path + "/" + name, followLinks: false).kind) == .regular
                else { continue }
                names.append(name)
                identities[name] = identity
            }
        } catch {
            throw .disk(error.kind == .accessDenied ? .unavailable(reason: error.description) : .io(reason: error.description))
        }
        return (names.sorted(), identities)
    }

    func listFiles() throws(DiskError) -> [String] { names }
    func read(file: String) throws(DiskError) -> [UInt8]? { contents[file] }
    func perform(_ operation: DiskOperation) throws(DiskError) {
        throw .unavailable(reason: "a library snapshot is read-only")
    }
    func identity(of file: String?) throws(DiskError) -> FileIdentity? { identities[file ?? ""] }
}
