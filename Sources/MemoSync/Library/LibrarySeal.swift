import MemoCRDT

// Keeping a replica id across sessions (FORMAT.md, "The seal").
//
// A fresh replica id per session keeps copies of a library (a clone of its folder, a restored
// backup) from ever making different operations under one id, but every session then adds an id
// to the notebook's metadata and a blob to the store, for good. So a library keeps its id from
// one session to the next while nothing shows it was copied: a clean close writes a *seal* (the
// id, the generation, the journal's length, the id's operation count, and the file system's
// identity of the folder, the state file and the journal: device, inode, size and change time),
// and the next open keeps the id only when the folder is still exactly what the seal describes.
// A copy of the folder has other inodes; a file restored in place, or written by anyone, has
// another change time (which no ordinary program can set back); a crash after a save has a
// longer journal; anything else opens under a fresh id, as before. A disk that cannot tell file
// identities (``LibraryDisk/identity(of:)`` returns nil) never keeps an id.

/// A file's identity as the file system knows it: what a copy of the file, or a change to it,
/// cannot keep.
public struct FileIdentity: Sendable, Equatable {
    /// The device (file system) holding it.
    public var device: UInt64
    /// Its inode (file serial number) on that device.
    public var inode: UInt64
    /// Its size in bytes.
    public var sizeBytes: UInt64
    /// When its contents or metadata last changed (`st_ctime`): seconds since 1970 and
    /// nanoseconds. Set by the system on every write, rename or restore; not settable by
    /// programs.
    public var changeSeconds: Int64
    /// The nanoseconds of ``changeSeconds``.
    public var changeNanoseconds: UInt32

    /// An identity.
    public init(device: UInt64, inode: UInt64, sizeBytes: UInt64, changeSeconds: Int64, changeNanoseconds: UInt32) {
        self.device = device
        self.inode = inode
        self.sizeBytes = sizeBytes
        self.changeSeconds = changeSeconds
        self.changeNanoseconds = changeNanoseconds
    }
}

extension LibraryDisk {
    /// Disks that cannot tell file identities: a library on them takes a fresh id every session.
    public func identity(of file: String?) throws(DiskError) -> FileIdentity? { nil }
}

/// The identities a seal records and an open compares.
struct LibraryIdentities: Equatable {
    var folder: FileIdentity
    var state: FileIdentity
    var journal: FileIdentity?

    /// The identities of `disk`'s folder, state file and the journal of `generation`, or nil
    /// when the disk cannot tell them.
    static func read(from disk: any LibraryDisk, generation: UInt64) -> LibraryIdentities? {
        // The folder by device and inode only: sealing changes its size and change time.
        guard var folder = try? disk.identity(of: nil), let state = try? disk.identity(of: LibraryCore.stateFileName) else {
            return nil
        }
        folder.sizeBytes = 0
        folder.changeSeconds = 0
        folder.changeNanoseconds = 0
        guard let journal = try? disk.identity(of: LibraryCore.journalFileName(generation: generation)) else {
            // Missing is nil; a failure to read it means nothing can be told.
            return (try? disk.listFiles())?.contains(LibraryCore.journalFileName(generation: generation)) == false
                ? LibraryIdentities(folder: folder, state: state, journal: nil) : nil
        }
        return LibraryIdentities(folder: folder, state: state, journal: journal)
    }
}

/// What a clean close recorded.
struct LibrarySeal: Equatable {
    static let fileName = "seal"
    static let tag: UInt8 = 3

    var replica: ReplicaID
    var generation: UInt64
    var journalBytes: Int
    var operationCount: UInt32
    var identities: LibraryIdentities

    func encoded() -> [UInt8] {
        var body = ByteWriter(capacity: 160)
        body.byte(Self.tag)
        body.uint64LittleEndian(replica.rawValue)
        body.varint(generation)
        body.varint(journalBytes)
        body.varint(operationCount)
        func write(_ identity: FileIdentity) {
            body.uint64LittleEndian(identity.device)
            body.uint64LittleEndian(identity.inode)
            body.varint(identity.sizeBytes)
            body.signedVarint(identity.changeSeconds)
            body.varint(identity.changeNanoseconds)
        }
        write(identities.folder)
        write(identities.state)
        if let journal = identities.journal {
            body.byte(1)
            write(journal)
        } else {
            body.byte(0)
        }
        return BlobEnvelope.seal(kind: .localFile, version: LibraryCore.formatVersion, body: body.bytes)
    }

    /// The seal in `bytes`, or nil when they are not an intact seal of this format (a torn or
    /// foreign seal keeps no id: safe).
    init?(decoding bytes: [UInt8]) {
        do throws(DecodingError) {
            let (bodyRange, _) = try BlobEnvelope.open(bytes, kind: .localFile, versions: 3...LibraryCore.formatVersion)
            var reader = ByteReader(bytes, from: bodyRange.lowerBound, to: bodyRange.upperBound)
            guard try reader.byte() == Self.tag else { return nil }
            replica = ReplicaID(try reader.uint64LittleEndian())
            generation = try reader.varint()
            let journal = try reader.varint()
            guard journal <= UInt64(Int.max) else { return nil }
            journalBytes = Int(journal)
            operationCount = try reader.uint32Varint("operation count")
            func identity() throws(DecodingError) -> FileIdentity {
                let device = try reader.uint64LittleEndian()
                let inode = try reader.uint64LittleEndian()
                let size = try reader.varint()
                let seconds = try reader.signedVarint()
                let nanoseconds = try reader.uint32Varint("nanoseconds")
                return FileIdentity(device: device, inode: inode, sizeBytes: size, changeSeconds: seconds, changeNanoseconds: nanoseconds)
            }
            let folder = try identity()
            let state = try identity()
            let journalIdentity: FileIdentity?
            switch try reader.byte() {
            case 0: journalIdentity = nil
            case 1: journalIdentity = try identity()
            default: return nil
            }
            guard reader.isAtEnd, replica.rawValue != 0 else { return nil }
            identities = LibraryIdentities(folder: folder, state: state, journal: journalIdentity)
        } catch {
            return nil
        }
    }

    init(replica: ReplicaID, generation: UInt64, journalBytes: Int, operationCount: UInt32, identities: LibraryIdentities) {
        self.replica = replica
        self.generation = generation
        self.journalBytes = journalBytes
        self.operationCount = operationCount
        self.identities = identities
    }

    /// The id to keep for a library recovered as `recovery`, whose folder now has `identities`:
    /// the sealed one when everything matches, else nil (take a fresh id).
    static func replicaToKeep(seal bytes: [UInt8]?, recovery: LibraryCore.Recovery, identities: LibraryIdentities?) -> ReplicaID? {
        guard let bytes, let seal = LibrarySeal(decoding: bytes), let identities, recovery.repairs.isEmpty,
            seal.identities == identities, seal.generation == recovery.core.generation,
            seal.journalBytes == recovery.core.journalBytes,
            seal.operationCount == recovery.notebook.version[seal.replica],
            // The id is this library's: the one the state was written under, one of its lineage,
            // or one that made no operation here.
            seal.replica == recovery.notebook.replica || recovery.syncState.lineage.contains(seal.replica)
                || seal.operationCount == 0
        else { return nil }
        return seal.replica
    }
}

extension FileDisk {
    /// The identity of `file` (nil: the library folder) from `lstat`, or nil when it does not
    /// exist.
    public func identity(of file: String?) throws(DiskError) -> FileIdentity? {
        let target: String
        if let file {
            guard FileDisk.isValidFileName(file) else { throw .io(reason: "invalid file name \"\(file)\" in the library at \(path)") }
            target = path.hasSuffix("/") ? path + file : path + "/" + file
        } else {
            target = path
        }
        return POSIXIdentity.identity(of: target)
    }
}
