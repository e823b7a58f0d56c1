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
///   UTF-8, empty files, and anything that is not a regular file (folders are walked, except
///   hidden ones and symbolic links to folders; a symbolic link to a regular file is listed).
///   Names a sync client gives conflicting copies, such as
///   "x (Alice's conflicted copy 2026-01-02).seg" or "x.sync-conflict-20260102-101010-ABC.seg",
///   are ordinary names: listed and readable.
/// - Keys follow the same rules (see ``isValidKey(_:)``), so every key `list` returns can be
///   read, and every blob written under a valid key shows in listings (unless it is empty).
///
/// The root folder must exist: when it disappears (an unmounted drive), operations throw
/// ``BlobStoreError/unavailable(reason:)`` and nothing recreates it behind the user's back.
///
/// On case-insensitive file systems (the macOS default) keys that differ only in case name the
/// same file. The store holds no mutable state, so it is `Sendable` and may be used from many
/// threads at once.
public final class DirectoryBlobStore: BlobStore {
    /// The absolute path of the root folder, without a trailing "/".
    public let path: String

    /// The start of the name of every temporary file a write creates; a random suffix follows.
    public static let temporaryNamePrefix = ".memosync-tmp-"

    /// Opens the store rooted at the folder `path`, creating it (and any missing folder above
    /// it) when it does not exist. A relative path is resolved against the current folder now.
    ///
    /// - Throws: ``BlobStoreError/unavailable(reason:)`` when the folder cannot be created or
    ///   something that is not a folder has its name; ``BlobStoreError/full`` when the disk has
    ///   no room for it.
    public init(path: String) throws(BlobStoreError) {
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
    }

    /// Opens the store rooted at the folder of the file URL `url`; see ``init(path:)``.
    ///
    /// - Throws: ``BlobStoreError/unavailable(reason:)`` for a URL that is not a file URL, and
    ///   the errors of ``init(path:)``.
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

    /// Every blob whose key starts with `prefix`, sorted by key, with its size.
    ///
    /// Only the folder named by the prefix's part up to its last "/" is walked, and inside it
    /// only subfolders whose keys can still start with `prefix`: listing "segments/ab" reads
    /// `segments` and the subfolders of it whose names start with "ab". A prefix that no valid
    /// key can start with (absolute, with a hidden or ".." folder) lists nothing, and so does a
    /// prefix through a symbolic link to a folder (a full walk never enters one either). Entries
    /// that vanish during the walk are left out. O(entries walked + k log k) for k results.
    ///
    /// - Throws: ``BlobStoreError/unavailable(reason:)`` when the root folder is missing;
    ///   ``BlobStoreError/io(reason:)`` when a folder cannot be read.
    public func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] {
        try checkRoot()
        var folderKey = ""
        if let slash = prefix.lastIndex(of: "/") {
            folderKey = String(prefix[...slash])
            let folders = folderKey.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            guard folders.allSatisfy(BlobKeyRules.isListableName) else { return [] }
            // Like a walk from the root, never enter a symbolic link to a folder.
            var folderPath = path
            for folder in folders {
                folderPath = folderPath.hasSuffix("/") ? folderPath + folder : folderPath + "/" + folder
                guard let status = try statusOfEntry(folderPath), status.kind == .directory else { return [] }
            }
        }
        var found: [BlobInfo] = []
        // Folders to read: (their key with a trailing "/", or "" for the root; their path).
        var pending: [(key: String, path: String)] = [(folderKey, absolutePath(ofKey: folderKey))]
        while let (folder, folderPath) = pending.popLast() {
            let names: [String]
            do throws(POSIXFailure) {
                names = try POSIX.directoryEntries(folderPath)
            } catch {
                if error.kind == .notFound || error.kind == .notDirectory { continue }
                throw mapped(error)
            }
            for name in names where BlobKeyRules.isListableName(Substring(name)) {
                let key = folder + name
                let entryPath = folderPath.hasSuffix("/") ? folderPath + name : folderPath + "/" + name
                guard var status = try statusOfEntry(entryPath) else { continue }
                if status.kind == .symbolicLink {
                    // Listed when it leads to a regular file; never walked into.
                    guard let target = try statusOfEntry(entryPath, followLinks: true),
                          target.kind == .regular
                    else { continue }
                    status = target
                }
                switch status.kind {
                case .regular:
                    if status.size > 0, key.hasPrefix(prefix) {
                        found.append(BlobInfo(key: key, sizeBytes: status.size))
                    }
                case .directory:
                    let subfolder = key + "/"
                    if subfolder.hasPrefix(prefix) || prefix.hasPrefix(subfolder) {
                        pending.append((subfolder, entryPath))
                    }
                case .symbolicLink, .other:
                    continue
                }
            }
        }
        found.sort { $0.key < $1.key }
        return found
    }

    /// The whole contents of the blob `key`. O(size).
    ///
    /// - Throws: ``BlobStoreError/notFound(key:)`` when no regular file has this name;
    ///   ``BlobStoreError/invalidKey(_:)``; ``BlobStoreError/unavailable(reason:)`` when the
    ///   root folder is missing; ``BlobStoreError/io(reason:)`` for a failed read.
    public func read(key: String) throws(BlobStoreError) -> [UInt8] {
        let filePath = try validatedPath(ofKey: key)
        let descriptor: Int32
        do throws(POSIXFailure) {
            descriptor = try POSIX.open(filePath, .read)
        } catch {
            switch error.kind {
            case .notFound, .notDirectory:
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
        // A folder, FIFO or device with the key's name is not a blob.
        guard status.kind == .regular else { throw .notFound(key: key) }
        do throws(POSIXFailure) {
            return try POSIX.readAll(descriptor, path: filePath)
        } catch {
            throw mapped(error)
        }
    }

    /// Stores `bytes` under `key`, atomically and durably (temporary file, `fsync`, rename,
    /// `fsync` of the folder), creating the folders the key names. O(size).
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
        let folderPath = absolutePath(ofKey: components.dropLast().joined(separator: "/"))
        let filePath = absolutePath(ofKey: key)
        var createdFolders: [String] = []
        let temporary: (descriptor: Int32, path: String)
        do throws(POSIXFailure) {
            temporary = try createTemporaryFile(in: folderPath)
        } catch let error where error.kind == .notFound && components.count > 1 {
            // The key's folders do not exist yet (or the root is gone: `mapped` tells).
            createdFolders = try createFolders(components.dropLast())
            do throws(POSIXFailure) {
                temporary = try createTemporaryFile(in: folderPath)
            } catch {
                throw mapped(error)
            }
        } catch {
            throw mapped(error)
        }
        let (descriptor, temporaryPath) = temporary
        do throws(POSIXFailure) {
            do throws(POSIXFailure) {
                try POSIX.writeAll(descriptor, bytes, path: temporaryPath)
                try POSIX.synchronize(descriptor, path: temporaryPath)
            } catch {
                POSIX.closeQuietly(descriptor)
                throw error
            }
            try POSIX.close(descriptor, path: temporaryPath)
            try POSIX.rename(temporaryPath, to: filePath)
        } catch {
            try? POSIX.unlink(temporaryPath)
            throw mapped(error)
        }
        do throws(POSIXFailure) {
            try POSIX.synchronizeDirectory(folderPath)
            // A new folder's own name lives in its parent: make those durable too.
            for created in createdFolders.reversed() {
                try POSIX.synchronizeDirectory(parentPath(of: created))
            }
        } catch {
            throw mapped(error)
        }
    }

    /// Removes the blob `key`. A missing blob (or a folder with that name) is not an error.
    /// The removal is not followed by an `fsync`: a blob that reappears after a crash is
    /// harmless, since listings never decide anything by absence. Empty folders are kept (a
    /// writer in another process may be about to use them).
    ///
    /// - Throws: ``BlobStoreError/invalidKey(_:)``; ``BlobStoreError/unavailable(reason:)`` when
    ///   the root folder is missing; ``BlobStoreError/io(reason:)`` when the file cannot be
    ///   removed.
    public func delete(key: String) throws(BlobStoreError) {
        let filePath = try validatedPath(ofKey: key)
        do throws(POSIXFailure) {
            try POSIX.unlink(filePath)
        } catch {
            switch error.kind {
            case .notFound, .notDirectory:
                try checkRoot()
            case .isDirectory:
                return
            case .accessDenied where POSIX.isDirectory(filePath):
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

    /// The absolute path of a valid `key`.
    private func validatedPath(ofKey key: String) throws(BlobStoreError) -> String {
        guard BlobKeyRules.components(of: key) != nil else { throw .invalidKey(key) }
        return absolutePath(ofKey: key)
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

    /// The status of a directory entry, or nil when it vanished meanwhile.
    private func statusOfEntry(_ entryPath: String, followLinks: Bool = false) throws(BlobStoreError) -> FileStatus? {
        do throws(POSIXFailure) {
            return try POSIX.status(of: entryPath, followLinks: followLinks)
        } catch {
            if error.kind == .notFound || error.kind == .notDirectory { return nil }
            throw mapped(error)
        }
    }

    /// Creates a new, empty temporary file in `folderPath` (an unused random name).
    private func createTemporaryFile(in folderPath: String) throws(POSIXFailure) -> (Int32, String) {
        var attempt = 0
        while true {
            var generator = SystemRandomNumberGenerator()
            let suffix = String(generator.next(), radix: 16)
            let temporaryPath = folderPath + "/" + DirectoryBlobStore.temporaryNamePrefix + suffix
            do throws(POSIXFailure) {
                return (try POSIX.open(temporaryPath, .createExclusive), temporaryPath)
            } catch {
                attempt += 1
                if error.kind == .exists, attempt < 16 { continue }
                throw error
            }
        }
    }

    /// Creates the folders `components` names under the root, level by level, and returns the
    /// paths of those it created (outermost first).
    private func createFolders(_ components: ArraySlice<Substring>) throws(BlobStoreError) -> [String] {
        var created: [String] = []
        var folderPath = path
        for component in components {
            folderPath = folderPath.hasSuffix("/") ? folderPath + component : folderPath + "/" + component
            do throws(POSIXFailure) {
                if try POSIX.makeDirectory(folderPath) { created.append(folderPath) }
            } catch {
                throw mapped(error)
            }
        }
        return created
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
        let components = key.split(separator: "/", omittingEmptySubsequences: false)
        guard !key.isEmpty, components.allSatisfy(isListableName) else { return nil }
        return components
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

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
