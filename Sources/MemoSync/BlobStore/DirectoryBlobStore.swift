import Foundation

/// A blob store over a folder of the local file system, which a sync client (Dropbox, iCloud
/// Drive, Syncthing, a network share) may mirror between devices.
///
/// Each blob is one file: the key "segments/abc/1.seg" is the file `segments/abc/1.seg` under the
/// root, and folders are created as needed.
///
/// - Writes are atomic and durable: the bytes go to a hidden temporary file in the blob's folder
///   (`.memosync-tmp-` and a random suffix), which is flushed (`fsync`), renamed over the final
///   name and followed by an `fsync` of the folder. A reader, in this process or another, sees
///   the whole old blob, the whole new blob or no blob, never a prefix; two processes writing
///   different keys never disturb each other.
/// - Listings show only what could be a finished blob: they skip hidden names (our temporary
///   files, `.DS_Store`, iCloud placeholders `.name.icloud`, Syncthing's `.syncthing.*.tmp` and
///   `.stversions`), names of partial downloads (ending in `.tmp`, `.part`, `.partial`,
///   `.crdownload`, `.download` or `~`, in any case), names with control characters or invalid
///   UTF-8, and empty files. Names a sync client gives conflicting copies, such as
///   "x (Alice's conflicted copy 2026-01-02).seg" or "x.sync-conflict-20260102-101010-ABC.seg",
///   are ordinary names: listed and readable.
/// - One bad entry never fails a listing: a folder that cannot be read, a symbolic link, a FIFO,
///   socket or device, and a folder nested more than ``maxFolderDepth`` levels deep are left
///   out and reported once each in ``listing(prefix:)``'s ``BlobListing/skipped``; everything
///   readable is listed. Only the root, or the folder a prefix names, failing to be read fails
///   a listing.
/// - Nothing outside the root is ever listed, read, written or removed: the walk and every
///   read, write and delete go folder by folder from the root (`openat`) without following a
///   symbolic link (`O_NOFOLLOW`), so a key through a link names no blob, whatever changes
///   during the walk. A read never blocks on a
///   FIFO or device (`O_NONBLOCK`, then `fstat`: only regular files are read), and never takes
///   more memory than ``maxBlobBytes`` (plus one byte): a larger file is refused from its
///   `fstat` size before any of it is read, and the read goes into one buffer of that size
///   plus one byte, so a file that grows while it is read is refused too (it is still being
///   written; the next sync tries again).
/// - Keys follow the same rules (see ``isValidKey(_:)``), so every key `list` returns can be
///   read, and every blob written under a valid key shows in listings (unless it is empty).
///
/// The root folder must exist: when it disappears (an unmounted drive), operations throw
/// ``BlobStoreError/unavailable(reason:)`` and nothing recreates it behind the user's back.
/// The root itself may be a symbolic link (`~/Dropbox` often is).
///
/// On case-insensitive file systems (the macOS default) keys that differ only in case name the
/// same file. The store holds no mutable state, so it is `Sendable` and may be used from many
/// threads at once.
public final class DirectoryBlobStore: BlobStore {
    /// The absolute path of the root folder, without a trailing "/".
    public let path: String

    /// The largest blob ``read(key:)`` reads, in bytes (``StoreLayout/maxListedBlobBytes`` unless
    /// given to ``init(path:maxBlobBytes:)``).
    public let maxBlobBytes: Int

    /// The most folder levels below the root a listing walks (32). A folder deeper than this is
    /// left out and reported as ``ListingProblem/tooDeep(levels:)``: no MemoSync key is nearly
    /// that deep, and the bound keeps the walk's open folders (one per level) and its time
    /// bounded on a junk tree of any depth.
    public static let maxFolderDepth = 32

    /// The start of the name of every temporary file a write creates; a random suffix follows.
    public static let temporaryNamePrefix = ".memosync-tmp-"

    /// For tests: given a system call a walk makes ("openat" of a folder, "readdir", "fstatat"),
    /// or "read" of a blob's contents by ``read(key:)``, and the key of its entry ("" for the
    /// root), an error number to fail it with instead. Lets tests running as root (who may read
    /// any folder) see permission errors, and count what is read.
    let injectedFailure: (@Sendable (_ call: String, _ key: String) -> Int32?)?

    /// Opens the store rooted at the folder `path`, creating it (and any missing folder above
    /// it) when it does not exist. A relative path is resolved against the current folder now.
    ///
    /// - Parameter maxBlobBytes: the largest blob ``read(key:)`` reads; MemoSync's format limit
    ///   by default.
    /// - Throws: ``BlobStoreError/unavailable(reason:)`` when the folder cannot be created or
    ///   something that is not a folder has its name; ``BlobStoreError/full`` when the disk has
    ///   no room for it.
    public convenience init(path: String, maxBlobBytes: Int = StoreLayout.maxListedBlobBytes) throws(BlobStoreError) {
        try self.init(path: path, maxBlobBytes: maxBlobBytes, injectedFailure: nil)
    }

    /// ``init(path:maxBlobBytes:)`` with failures injected into listings (for tests).
    init(
        path: String, maxBlobBytes: Int = StoreLayout.maxListedBlobBytes,
        injectedFailure: (@Sendable (_ call: String, _ key: String) -> Int32?)?
    ) throws(BlobStoreError) {
        guard let absolute = POSIX.absolutePath(path) else {
            throw .unavailable(reason: "no folder path given (\"\(path)\")")
        }
        do throws(POSIXFailure) {
            try POSIX.makeDirectories(absolute)
        } catch {
            throw error.kind == .noSpace ? .full : .unavailable(reason: error.description)
        }
        guard POSIX.isDirectory(absolute) else {
            throw .unavailable(reason: "\(absolute) is not a folder")
        }
        self.path = absolute
        self.maxBlobBytes = max(0, maxBlobBytes)
        self.injectedFailure = injectedFailure
    }

    /// Opens the store rooted at the folder of the file URL `url`; see ``init(path:maxBlobBytes:)``.
    ///
    /// - Throws: ``BlobStoreError/unavailable(reason:)`` for a URL that is not a file URL, and
    ///   the errors of ``init(path:maxBlobBytes:)``.
    public convenience init(url: URL) throws(BlobStoreError) {
        guard url.isFileURL else {
            throw .unavailable(reason: "\(url) is not a file URL")
        }
        let path = url.withUnsafeFileSystemRepresentation { pointer in
            pointer.map { String(cString: $0) } ?? ""
        }
        try self.init(path: path)
    }

    /// Whether `key` is acceptable: one or more "/"-separated components, each non-empty,
    /// at most 255 UTF-8 bytes, without control characters, not hidden (starting with "."; this
    /// also excludes "." and ".."), and not named like a partial download (ending in `.tmp`,
    /// `.part`, `.partial`, `.crdownload`, `.download` or `~`). So a key is never absolute and
    /// never leaves the root. Every store in MemoSync accepts exactly these keys. O(length).
    public static func isValidKey(_ key: String) -> Bool {
        BlobKeyRules.components(of: key) != nil
    }

    // MARK: BlobStore

    /// Every blob whose key starts with `prefix`, sorted by key, with its size: the blobs of
    /// ``listing(prefix:)``, without the entries it left out.
    ///
    /// - Throws: see ``listing(prefix:)``.
    public func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] {
        try listing(prefix: prefix).blobs
    }

    /// Every blob whose key starts with `prefix`, sorted by key, with its size; and the entries
    /// left out (sorted by key): folders that cannot be read, symbolic links, FIFOs, sockets,
    /// devices, folders nested more than ``maxFolderDepth`` levels deep. Each is reported once,
    /// and nothing under it is listed; everything readable is.
    ///
    /// Only the folder named by the prefix's part up to its last "/" is walked, and inside it
    /// only subfolders whose keys can still start with `prefix`: listing "segments/ab" reads
    /// `segments` and the subfolders of it whose names start with "ab". A prefix that no valid
    /// key can start with (absolute, with a hidden or ".." folder) lists nothing, and so does a
    /// prefix through a missing folder; a prefix through a symbolic link lists nothing but
    /// reports the link. Entries that vanish during the walk
    /// are left out silently. O(entries walked + k log k) for k results.
    ///
    /// - Throws: ``BlobStoreError/unavailable(reason:)`` when the root folder is missing;
    ///   ``BlobStoreError/io(reason:)`` when the root or the folder the prefix names cannot be
    ///   read.
    public func listing(prefix: String) throws(BlobStoreError) -> BlobListing {
        try checkRoot()
        var folderKey = ""
        var folders: [Substring] = []
        // The "/" bytes, not Characters: in "a/\u{301}" the "/" and the mark are one Character.
        if let slash = prefix.utf8.lastIndex(of: UInt8(ascii: "/")) {
            folderKey = String(Substring(prefix.utf8[...slash]))
            folders = Array(BlobKeyRules.split(folderKey).dropLast())
            guard folders.allSatisfy(BlobKeyRules.isListableName) else { return BlobListing() }
        }
        // Down to the prefix's folder, one level at a time, never through a symbolic link.
        var folder: Int32
        do throws(POSIXFailure) {
            try injectFailure("openat", key: "")
            folder = try POSIX.openFolder(path)
        } catch {
            throw mapped(error)
        }
        // Closed here until the listing's stream takes it over.
        var folderOwned = true
        defer { if folderOwned { POSIX.closeQuietly(folder) } }
        var reached = ""
        for name in folders {
            reached += reached.isEmpty ? String(name) : "/" + name
            let next: Int32
            do throws(POSIXFailure) {
                try injectFailure("openat", key: reached)
                next = try POSIX.openFolder(String(name), in: folder, path: absolutePath(ofKey: reached))
            } catch {
                switch error.kind {
                case .notFound: return BlobListing()
                case .notDirectory, .symbolicLink:
                    // Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW.
                    guard (try? POSIX.status(of: String(name), in: folder, path: reached))?.kind == .symbolicLink else {
                        return BlobListing()
                    }
                    return BlobListing(skipped: [SkippedEntry(key: reached, problem: .symbolicLink)])
                default: throw mapped(error)
                }
            }
            POSIX.closeQuietly(folder)
            folder = next
        }
        do throws(POSIXFailure) {
            try injectFailure("readdir", key: reached)
        } catch {
            throw mapped(error)
        }
        folderOwned = false
        let (read, close) = POSIX.folderEntries(consuming: folder, path: absolutePath(ofKey: folderKey))
        defer { close() }
        let entries: [POSIX.FolderEntry]
        switch read {
        case let .success(found): entries = found
        case let .failure(error): throw mapped(error)
        }
        var listing = BlobListing()
        try walk(folder, entries: entries, key: folderKey, depth: folders.count, prefix: prefix, into: &listing)
        // An unmounted root makes entries fail one by one: that is the whole store missing.
        if !listing.skipped.isEmpty { try checkRoot() }
        listing.blobs.sort { $0.key < $1.key }
        listing.skipped.sort { $0.key < $1.key }
        return listing
    }

    /// Lists the entries `entries` of the open folder `folder`, whose key is `folderKey` (with a
    /// trailing "/", or "" for the root) and which is `depth` levels below the root, and walks
    /// its subfolders that may hold keys starting with `prefix`. Holds one open folder per level.
    ///
    /// Per entry one `fstatat` (a listing gives sizes and revisions), except for an entry
    /// `readdir` says is a folder, which is opened at once (`O_DIRECTORY | O_NOFOLLOW`: one that
    /// turned into something else meanwhile is then asked `fstatat` like any other entry).
    private func walk(
        _ folder: Int32, entries: [POSIX.FolderEntry], key folderKey: String, depth: Int, prefix: String, into listing: inout BlobListing
    ) throws(BlobStoreError) {
        for entry in entries where BlobKeyRules.isListableName(Substring(entry.name)) {
            let name = entry.name
            let key = folderKey + name
            // Only entries that are, or may hold, keys starting with the prefix (as bytes).
            guard key.hasPrefixBytes(prefix) || prefix.hasPrefixBytes(key + "/") else { continue }
            if entry.isFolder, try walkFolder(folder, name: name, key: key, depth: depth, prefix: prefix, typeFromReaddir: true, into: &listing) {
                continue
            }
            let status: FileStatus
            do throws(POSIXFailure) {
                try injectFailure("fstatat", key: key)
                status = try POSIX.status(ofEntry: name, in: folder, path: { self.absolutePath(ofKey: key) })
            } catch {
                if error.kind == .notFound { continue }  // vanished meanwhile
                listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
                continue
            }
            switch status.kind {
            case .regular:
                if status.size > 0, key.hasPrefixBytes(prefix) {
                    listing.blobs.append(BlobInfo(key: key, sizeBytes: status.size, revision: status.revision))
                }
            case .symbolicLink:
                listing.skipped.append(SkippedEntry(key: key, problem: .symbolicLink))
            case .other:
                listing.skipped.append(SkippedEntry(key: key, problem: .specialFile))
            case .directory:
                _ = try walkFolder(folder, name: name, key: key, depth: depth, prefix: prefix, typeFromReaddir: false, into: &listing)
            }
        }
    }

    /// Walks the subfolder `name` (key `key`) of the open folder `folder`, reporting what cannot
    /// be read. When only `readdir` said it is a folder (`typeFromReaddir`), returns false,
    /// having listed and reported nothing, if it is not one when opened (a symbolic link, a
    /// file: the caller asks `fstatat` what it is).
    private func walkFolder(
        _ folder: Int32, name: String, key: String, depth: Int, prefix: String, typeFromReaddir: Bool, into listing: inout BlobListing
    ) throws(BlobStoreError) -> Bool {
        guard depth < Self.maxFolderDepth else {
            listing.skipped.append(SkippedEntry(key: key, problem: .tooDeep(levels: Self.maxFolderDepth)))
            return true
        }
        let subfolder: Int32
        do throws(POSIXFailure) {
            try injectFailure("openat", key: key)
            subfolder = try POSIX.openFolder(name, in: folder, path: absolutePath(ofKey: key))
        } catch {
            switch error.kind {
            case .notFound: return true  // vanished meanwhile
            case .symbolicLink where typeFromReaddir, .notDirectory where typeFromReaddir: return false
            case .symbolicLink: listing.skipped.append(SkippedEntry(key: key, problem: .symbolicLink))
            default: listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
            }
            return true
        }
        do throws(POSIXFailure) {
            try injectFailure("readdir", key: key)
        } catch {
            POSIX.closeQuietly(subfolder)
            listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
            return true
        }
        let (read, close) = POSIX.folderEntries(consuming: subfolder, path: absolutePath(ofKey: key))
        defer { close() }
        switch read {
        case let .success(entries):
            try walk(subfolder, entries: entries, key: key + "/", depth: depth + 1, prefix: prefix, into: &listing)
        case let .failure(error):
            if error.kind != .notFound {
                listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
            }
        }
        return true
    }

    /// The whole contents of the blob `key`. O(size), and never more memory than
    /// ``maxBlobBytes`` (plus one byte).
    ///
    /// The file is opened folder by folder from the root without following symbolic links and
    /// without blocking, and only a regular file is read.
    ///
    /// - Throws: ``BlobStoreError/notFound(key:)`` when no regular file has this name (a folder,
    ///   a symbolic link, a FIFO or device is not a blob, and neither is a name under a symbolic
    ///   link to a folder); ``BlobStoreError/tooLarge(key:sizeBytes:limitBytes:)`` when the file
    ///   is larger than ``maxBlobBytes``, before reading any of it (or when it grew past it while
    ///   read); ``BlobStoreError/invalidKey(_:)``; ``BlobStoreError/unavailable(reason:)`` when
    ///   the root folder is missing; ``BlobStoreError/io(reason:)`` for a failed read, or a file
    ///   that grew while it was read.
    public func read(key: String) throws(BlobStoreError) -> [UInt8] {
        guard let components = BlobKeyRules.components(of: key) else { throw .invalidKey(key) }
        let filePath = absolutePath(ofKey: key)
        var descriptor: Int32
        do throws(POSIXFailure) {
            descriptor = try POSIX.openFolder(path)
            for (index, component) in components.enumerated() {
                let next: Int32
                do throws(POSIXFailure) {
                    next = index == components.count - 1
                        ? try POSIX.openForReading(String(component), in: descriptor, path: filePath)
                        : try POSIX.openFolder(String(component), in: descriptor, path: filePath)
                } catch {
                    POSIX.closeQuietly(descriptor)
                    throw error
                }
                POSIX.closeQuietly(descriptor)
                descriptor = next
            }
        } catch {
            switch error.kind {
            case .notFound, .notDirectory, .symbolicLink:
                try checkRoot()
                throw .notFound(key: key)
            default:
                throw mapped(error)
            }
        }
        defer { POSIX.closeQuietly(descriptor) }
        let status: FileStatus
        do throws(POSIXFailure) {
            status = try POSIX.status(of: descriptor, path: filePath)
        } catch {
            throw mapped(error)
        }
        // A folder, FIFO, socket or device with the key's name is not a blob.
        guard status.kind == .regular else { throw .notFound(key: key) }
        guard status.size <= maxBlobBytes else {
            throw .tooLarge(key: key, sizeBytes: status.size, limitBytes: maxBlobBytes)
        }
        do throws(POSIXFailure) {
            try injectFailure("read", key: key)
            return try POSIX.readWhole(descriptor, size: status.size, path: filePath)
        } catch {
            guard error.kind == .grewWhileRead else { throw mapped(error) }
            // Still being written (a sync client copying it in place): refused, like a file
            // that is too large if it now is.
            let now = (try? POSIX.status(of: descriptor, path: filePath))?.size ?? 0
            if now > maxBlobBytes { throw .tooLarge(key: key, sizeBytes: now, limitBytes: maxBlobBytes) }
            throw .io(reason: "\(BlobKeyRules.abbreviated(key)) grew while it was read (it is still being written)")
        }
    }

    /// Stores `bytes` under `key`, atomically and durably (temporary file, `fsync`, rename,
    /// `fsync` of the folder), creating the folders the key names. O(size).
    ///
    /// Like reads, a write goes folder by folder from the root and never through a symbolic
    /// link: a link where the key needs a folder is in the way (an `io` error), so nothing is
    /// ever written outside the store.
    ///
    /// An empty blob is stored but never listed (listings skip empty files, which are usually
    /// downloads that have not started).
    ///
    /// - Throws: ``BlobStoreError/invalidKey(_:)``; ``BlobStoreError/full`` when the disk is
    ///   full; ``BlobStoreError/unavailable(reason:)`` when the root folder is missing;
    ///   ``BlobStoreError/io(reason:)`` otherwise (for example a folder of the key is a file).
    ///   After a failure no temporary file is left behind, and the previous blob, if any, is
    ///   unchanged, except when only the final `fsync` of the folder failed: then the new blob
    ///   is in place but may not survive a crash.
    public func write(key: String, bytes: [UInt8]) throws(BlobStoreError) {
        guard let components = BlobKeyRules.components(of: key) else { throw .invalidKey(key) }
        let filePath = absolutePath(ofKey: key)
        // The open folders from the root down to the key's folder, and whether each was created.
        var chain: [(descriptor: Int32, created: Bool)] = []
        defer { for folder in chain { POSIX.closeQuietly(folder.descriptor) } }
        do throws(POSIXFailure) {
            chain.append((try POSIX.openFolder(path), false))
            var folderKey = ""
            for component in components.dropLast() {
                let name = String(component)
                folderKey += folderKey.isEmpty ? name : "/" + name
                let folderPath = absolutePath(ofKey: folderKey)
                let parent = chain[chain.count - 1].descriptor
                let created = try POSIX.makeFolder(name, in: parent, path: folderPath)
                chain.append((try POSIX.openFolder(name, in: parent, path: folderPath), created))
            }
        } catch {
            throw mapped(error)
        }
        let folder = chain[chain.count - 1].descriptor
        let name = String(components[components.count - 1])
        let (descriptor, temporaryName) = try createTemporaryFile(in: folder, near: filePath)
        let temporaryPath = parentPath(of: filePath) + "/" + temporaryName
        do throws(POSIXFailure) {
            do throws(POSIXFailure) {
                try POSIX.writeAll(descriptor, bytes, path: temporaryPath)
                try POSIX.synchronize(descriptor, path: temporaryPath)
            } catch {
                POSIX.closeQuietly(descriptor)
                throw error
            }
            try POSIX.close(descriptor, path: temporaryPath)
            try POSIX.rename(temporaryName, to: name, in: folder, path: filePath)
        } catch {
            try? POSIX.unlink(temporaryName, in: folder, path: temporaryPath)
            throw mapped(error)
        }
        do throws(POSIXFailure) {
            try POSIX.synchronizeFolder(folder, path: parentPath(of: filePath))
            // A new folder's own name lives in its parent: make those durable too.
            for level in chain.indices.dropFirst().reversed() where chain[level].created {
                let parentKey = components.prefix(level - 1).joined(separator: "/")
                try POSIX.synchronizeFolder(chain[level - 1].descriptor, path: absolutePath(ofKey: parentKey))
            }
        } catch {
            throw mapped(error)
        }
    }

    /// Removes the blob `key`. A missing blob (or a folder with that name) is not an error, and
    /// neither is a key through a symbolic link (which names no blob of the store: nothing
    /// outside it is removed). The removal is not followed by an `fsync`: a blob that reappears
    /// after a crash is harmless, since listings never decide anything by absence. Empty
    /// folders are kept (a writer in another process may be about to use them).
    ///
    /// - Throws: ``BlobStoreError/invalidKey(_:)``; ``BlobStoreError/unavailable(reason:)`` when
    ///   the root folder is missing; ``BlobStoreError/io(reason:)`` when the file cannot be
    ///   removed.
    public func delete(key: String) throws(BlobStoreError) {
        guard let components = BlobKeyRules.components(of: key) else { throw .invalidKey(key) }
        let filePath = absolutePath(ofKey: key)
        var folder: Int32
        do throws(POSIXFailure) {
            folder = try POSIX.openFolder(path)
        } catch {
            throw mapped(error)
        }
        defer { POSIX.closeQuietly(folder) }
        for component in components.dropLast() {
            do throws(POSIXFailure) {
                let next = try POSIX.openFolder(String(component), in: folder, path: filePath)
                POSIX.closeQuietly(folder)
                folder = next
            } catch {
                switch error.kind {
                case .notFound, .notDirectory, .symbolicLink: return try checkRoot()
                default: throw mapped(error)
                }
            }
        }
        let name = String(components[components.count - 1])
        do throws(POSIXFailure) {
            try POSIX.unlink(name, in: folder, path: filePath)
        } catch {
            switch error.kind {
            case .notFound, .notDirectory:
                try checkRoot()
            case .isDirectory:
                return
            case .accessDenied where (try? POSIX.status(of: name, in: folder, path: filePath))?.kind == .directory:
                return  // Darwin's unlink of a folder is EPERM.
            default:
                throw mapped(error)
            }
        }
    }

    // MARK: Paths and errors

    /// The absolute path of `key` (or of a folder key, with or without a trailing "/").
    private func absolutePath(ofKey key: String) -> String {
        var relative = Substring(key)
        while relative.hasSuffix("/") { relative = relative.dropLast() }
        if relative.isEmpty { return path }
        return path.hasSuffix("/") ? path + relative : path + "/" + relative
    }

    /// The folder that holds `path`.
    private func parentPath(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return self.path }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Throws `unavailable` unless the root is a folder.
    private func checkRoot() throws(BlobStoreError) {
        guard POSIX.isDirectory(path) else {
            throw .unavailable(reason: "the folder \(path) does not exist or is not a folder")
        }
    }

    /// A `BlobStoreError` for a failed call: `full` for no room, `unavailable` when the root is
    /// gone, `io` with the call, path and system message otherwise.
    private func mapped(_ failure: POSIXFailure) -> BlobStoreError {
        if failure.kind == .noSpace { return .full }
        if !POSIX.isDirectory(path) {
            return .unavailable(reason: "the folder \(path) does not exist or is not a folder")
        }
        return .io(reason: failure.description)
    }

    /// Throws the failure ``injectedFailure`` asks for, if any.
    private func injectFailure(_ call: String, key: String) throws(POSIXFailure) {
        guard let code = injectedFailure?(call, key) else { return }
        throw POSIXFailure(call: call, path: absolutePath(ofKey: key), code: code)
    }

    /// Creates a new, empty temporary file in the open folder `folder` (an unused random
    /// name), for the blob at `filePath`; returns its descriptor and name.
    private func createTemporaryFile(in folder: Int32, near filePath: String) throws(BlobStoreError) -> (Int32, String) {
        var attempt = 0
        while true {
            var generator = SystemRandomNumberGenerator()
            let name = DirectoryBlobStore.temporaryNamePrefix + String(generator.next(), radix: 16)
            do throws(POSIXFailure) {
                return (try POSIX.createExclusive(name, in: folder, path: parentPath(of: filePath) + "/" + name), name)
            } catch {
                attempt += 1
                if error.kind == .exists, attempt < 16 { continue }
                throw mapped(error)
            }
        }
    }
}

/// The rules for blob keys and for the names listings show, shared by every store in MemoSync.
enum BlobKeyRules {
    /// The longest component, in UTF-8 bytes (NAME_MAX on every common file system).
    static let maxComponentBytes = 255

    /// Name endings of files that are still being downloaded or written, compared ignoring
    /// ASCII case.
    static let partialSuffixes: [[UInt8]] = [".tmp", ".part", ".partial", ".crdownload", ".download", "~"]
        .map { Array($0.utf8) }

    /// The components of `key`, or nil when it is not a valid key. O(length).
    static func components(of key: String) -> [Substring]? {
        let components = split(key)
        guard !key.isEmpty, components.allSatisfy(isListableName) else { return nil }
        return components
    }

    /// `key` cut at each "/" byte, empty parts kept: by bytes, since a Character may hold a "/"
    /// and the combining mark after it ("a/\u{301}b" is "a" and "\u{301}b"). O(length).
    static func split(_ key: String) -> [Substring] {
        key.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// Whether a listing shows a file or folder named `name` (and so whether it may be a key
    /// component): non-empty, at most 255 UTF-8 bytes, no "/", no control character (C0, DEL,
    /// C1), not hidden, not a partial download. O(length).
    static func isListableName(_ name: Substring) -> Bool {
        let utf8 = name.utf8
        guard let first = utf8.first, first != UInt8(ascii: "."), utf8.count <= maxComponentBytes else {
            return false
        }
        for scalar in name.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2F { return false }
        }
        for suffix in partialSuffixes where utf8.count >= suffix.count {
            let tail = utf8.suffix(suffix.count)
            if zip(tail, suffix).allSatisfy({ asciiLowercased($0) == $1 }) { return false }
        }
        return true
    }

    /// The most UTF-8 bytes of a key in a report (``SkippedEntry``, error messages).
    static let maxReportedKeyBytes = 200

    /// `key`, or when it has more than ``maxReportedKeyBytes`` UTF-8 bytes, its start and end
    /// with "…" between them, at most that long (cut between Unicode scalars). O(length).
    static func abbreviated(_ key: String) -> String {
        guard key.utf8.count > maxReportedKeyBytes else { return key }
        let ellipsis = "\u{2026}"
        let headBudget = (maxReportedKeyBytes - ellipsis.utf8.count) * 2 / 3
        let tailBudget = maxReportedKeyBytes - ellipsis.utf8.count - headBudget
        var head = String.UnicodeScalarView()
        var used = 0
        for scalar in key.unicodeScalars {
            let size = UTF8.width(scalar)
            guard used + size <= headBudget else { break }
            head.append(scalar)
            used += size
        }
        var tail: [Unicode.Scalar] = []
        used = 0
        for scalar in key.unicodeScalars.reversed() {
            let size = UTF8.width(scalar)
            guard used + size <= tailBudget else { break }
            tail.append(scalar)
            used += size
        }
        head.append(contentsOf: ellipsis.unicodeScalars)
        head.append(contentsOf: tail.reversed())
        return String(head)
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
