import Foundation
import Dispatch
import Synchronization
import MemoNotes

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
/// - Nothing outside the root is ever read, written, removed or walked: the walk and every
///   write and delete go folder by folder from the root (`openat`) without following a
///   symbolic link (`O_NOFOLLOW`), so a key through a link names no blob, whatever changes
///   during the walk (one race of the listing cache aside, below: a size, never contents).
///   A read does too, unless the latest listing found the key's file inside folders it opened
///   that way: then the file is opened by its whole path in one call and read only when it is
///   that same file (device, inode, modification and change times; a rename or new link
///   changes the change time), else closed and opened folder by folder (a junk store's first
///   sync reads thousands of small files it has just listed). A read never blocks on a
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
/// **Listing cache.** A listing reads again (opens and `readdir`s) only the folders that may
/// have changed since the store last read them; every other folder's names come from what the
/// store remembers (in memory, and between processes in the file given as `listingCachePath`,
/// FORMAT.md "Folder store listing cache"). Every file is still asked its status at every
/// listing, so sizes and revisions are always current, and a file filled or replaced in place
/// shows at once. A folder's remembered names are used only when
/// - its device, inode, modification and change times (with nanoseconds) are the ones it had
///   when it was last read (adding, removing or renaming an entry changes both times: a blob
///   written by rename, created in place, or in a new subfolder changes its folder's times);
/// - two reads at least 3 s apart by this device's
///   clock found those same times: the times' granule was then over before the second read, so
///   a change after it gives other times, on a file system that keeps times to 2 s (FAT), to
///   the second, or with a clock of its own (a network share's server);
/// - its last read is at most 10 minutes old, and
///   this device's clock has not gone back since: a file system that never changes a folder's
///   times (some network and FUSE ones) delays a new name by at most that.
/// A folder whose remembered names are used is not opened: its entries are asked their status
/// by their path from the root (`fstatat` not following the entry itself), which, should a
/// checked folder be replaced by a symbolic link in the instant between, could list the size
/// of a file outside the store under a name the folder held; nothing through a link is ever
/// read, written or removed (those go folder by folder without following links). A cache
/// that cannot be read, is damaged, of another version or of another root is ignored and
/// rebuilt, never an error.
///
/// On case-insensitive file systems (the macOS default) keys that differ only in case name the
/// same file. The store's only mutable state is its listing cache, behind a lock, so it is
/// `Sendable` and may be used from many threads at once.
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

    /// How old (by its modification time) a temporary file of a write must be before a listing
    /// that reads its folder deletes it, in seconds: one hour. A write renames its file within
    /// seconds; one still there after an hour belongs to a write that was killed (a process
    /// stopped with `kill -9`, a machine that lost power) and would otherwise stay for good,
    /// holding a whole blob, in plain text if it was written before the store was encrypted.
    public static let leftoverTemporaryFileAgeSeconds: Double = 3_600

    /// For tests: given a system call a walk makes ("openat" of a folder, "readdir", "fstatat"),
    /// or "read" of a blob's contents by ``read(key:)``, and the key of its entry ("" for the
    /// root), an error number to fail it with instead. Lets tests running as root (who may read
    /// any folder) see permission errors, and count what is read.
    let injectedFailure: (@Sendable (_ call: String, _ key: String) -> Int32?)?

    /// The file the listing cache is kept in between processes (see ``init(path:maxBlobBytes:listingCachePath:)``),
    /// or nil when it is kept in memory only.
    public var listingCachePath: String? { listingCache.filePath }

    /// The name a library gives the file of its folder store's listing cache
    /// (`store-listing-cache`, FORMAT.md "Folder store listing cache"), for
    /// ``init(path:maxBlobBytes:listingCachePath:)``. The `memo` command keeps it in its library.
    public static let listingCacheFileName = "store-listing-cache"

    /// What listings remember of the store's folders (``DirectoryListingCache``).
    let listingCache: DirectoryListingCacheHolder

    /// The files the latest listings found inside folders they opened (never through a symbolic
    /// link), by key, with the device, inode and times each had then: ``read(key:)`` opens such
    /// a file by its whole path in one system call and reads it only when it is that same file,
    /// unchanged (see the type's notes on what is never read).
    let walkedFiles = Mutex<[String: FolderStamp]>([:])

    /// The time, in seconds since 1970: when folders were read, for the cache's rule. Tests
    /// give their own.
    let clock: @Sendable () -> Double

    /// The fewest entries of one folder a listing walks on more than one thread
    /// (``parallelWalkEntriesMinDefault``; tests give their own).
    let parallelWalkEntriesMin: Int

    /// A folder read with at least this many entries has them walked on every core, in chunks
    /// (see `visitEntries`): a store's replica folders are all in one folder, and a store full
    /// of junk names has thousands of them.
    static let parallelWalkEntriesMinDefault = 256

    /// Opens the store rooted at the folder `path`, creating it (and any missing folder above
    /// it) when it does not exist. A relative path is resolved against the current folder now.
    ///
    /// - Parameter maxBlobBytes: the largest blob ``read(key:)`` reads; MemoSync's format limit
    ///   by default.
    /// - Throws: ``BlobStoreError/unavailable(reason:)`` when the folder cannot be created or
    ///   something that is not a folder has its name; ``BlobStoreError/full`` when the disk has
    ///   no room for it.
    /// - Parameter listingCachePath: a file (in the app's own storage, never in the store) where
    ///   the listing cache is kept between processes, so that a later process's listings also
    ///   read only the folders that changed; nil (the default) keeps it in memory only, for the
    ///   life of this store. The file is created, replaced and read by the store alone; one that
    ///   cannot be read, is damaged, of another version or of another store folder is ignored
    ///   (and replaced), never an error. Give each store folder its own file.
    public convenience init(path: String, maxBlobBytes: Int = StoreLayout.maxListedBlobBytes, listingCachePath: String? = nil) throws(BlobStoreError) {
        try self.init(path: path, maxBlobBytes: maxBlobBytes, listingCachePath: listingCachePath, injectedFailure: nil)
    }

    /// ``init(path:maxBlobBytes:listingCachePath:)`` with failures injected into listings, and
    /// a clock (for tests).
    init(
        path: String, maxBlobBytes: Int = StoreLayout.maxListedBlobBytes, listingCachePath: String? = nil,
        injectedFailure: (@Sendable (_ call: String, _ key: String) -> Int32?)?,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        parallelWalkEntriesMin: Int = DirectoryBlobStore.parallelWalkEntriesMinDefault
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
        self.listingCache = DirectoryListingCacheHolder(filePath: listingCachePath.flatMap(POSIX.absolutePath))
        self.clock = clock
        self.parallelWalkEntriesMin = max(1, parallelWalkEntriesMin)
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
    /// are left out silently. O(entries walked + k log k) for k results: one `fstatat` per file
    /// and folder, plus an `openat`, `fstat` and `readdir` per folder read again (see "Listing
    /// cache" above).
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
        // The root stays open for the whole walk: folders taken from the cache are not opened,
        // and their entries are asked their status by their path from the root.
        let root: Int32
        let rootStamp: FolderStamp
        do throws(POSIXFailure) {
            try injectFailure("openat", key: "")
            root = try POSIX.openFolder(path)
            do throws(POSIXFailure) {
                rootStamp = try POSIX.status(of: root, path: path).stamp
            } catch {
                POSIX.closeQuietly(root)
                throw error
            }
        } catch {
            throw mapped(error)
        }
        defer { POSIX.closeQuietly(root) }
        // Down to the prefix's folder, one level at a time, never through a symbolic link.
        var folder = root
        var reached = ""
        for name in folders {
            reached += reached.isEmpty ? String(name) : "/" + name
            let next: Int32
            do throws(POSIXFailure) {
                try injectFailure("openat", key: reached)
                next = try POSIX.openFolder(String(name), in: folder, path: absolutePath(ofKey: reached))
            } catch {
                if folder != root { POSIX.closeQuietly(folder) }
                switch error.kind {
                case .notFound: return BlobListing()
                case .notDirectory, .symbolicLink:
                    // Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW.
                    guard (try? POSIX.status(of: reached, in: root, path: reached))?.kind == .symbolicLink else {
                        return BlobListing()
                    }
                    return BlobListing(skipped: [SkippedEntry(key: reached, problem: .symbolicLink)])
                default: throw mapped(error)
                }
            }
            if folder != root { POSIX.closeQuietly(folder) }
            folder = next
        }
        // The walk consumes (closes) the folder it is given: the root's own descriptor stays.
        if folder == root {
            do throws(POSIXFailure) {
                folder = try POSIX.duplicate(root, path: path)
            } catch {
                throw mapped(error)
            }
        }
        let stamp: FolderStamp
        do throws(POSIXFailure) {
            stamp = try POSIX.status(of: folder, path: absolutePath(ofKey: reached)).stamp
        } catch {
            POSIX.closeQuietly(folder)
            throw mapped(error)
        }
        var walk = ListingWalk(
            prefix: prefix, root: root, old: listingCache.current(rootDevice: rootStamp.device, rootInode: rootStamp.inode),
            now: clock())
        var listing = BlobListing()
        try visit(reached, open: folder, stamp: stamp, trusted: nil, depth: folders.count, isRegionRoot: true, walk: &walk, into: &listing)
        // An unmounted root makes entries fail one by one: that is the whole store missing.
        if !listing.skipped.isEmpty { try checkRoot() }
        listingCache.store(walk.updatedCache(regionKey: reached), changedRecords: walk.readCount)
        var found = [String: FolderStamp](minimumCapacity: walk.walkedFiles.count)
        // A later entry replaces an earlier one, as `String` holds canonically equivalent names equal.
        for file in walk.walkedFiles { found[file.key] = file.stamp }
        walkedFiles.withLock { files in
            if prefix.isEmpty {
                files = found
            } else {
                files = files.filter { key, _ in !key.hasPrefixBytes(prefix) }
                files.merge(found) { _, new in new }
            }
        }
        listing.blobs.sort { $0.key < $1.key }
        listing.skipped.sort { $0.key < $1.key }
        return listing
    }

    /// One listing's walk: its prefix, the open root, the cache as it was, the records of the
    /// folders it read, how many it took from the cache, and when it began.
    private struct ListingWalk {
        let prefix: String
        let root: Int32
        let old: DirectoryListingCache
        let now: Double
        var read: [String: DirectoryListingCache.Record] = [:]
        var readCount = 0
        var trustedCount = 0
        /// The regular files listed that were asked their status inside a folder this walk
        /// opened (``DirectoryBlobStore/walkedFiles``).
        var walkedFiles: [(key: String, stamp: FolderStamp)] = []
        /// Whether this walk is one chunk of a folder's entries walked on several threads (its
        /// folders are then walked on its thread alone: no chunks within chunks).
        var isChunk = false

        /// The cache after this walk of the folder `regionKey` and what is under it: the old one
        /// with the records read now, and without the records of the region's folders that are
        /// gone (not reachable from the region's folder through records naming their subfolders;
        /// looked for only when the walk visited fewer of the region's folders than the cache
        /// held, so a walk that changed nothing copies nothing).
        func updatedCache(regionKey: String) -> DirectoryListingCache {
            let regionSlash = regionKey.isEmpty ? "" : regionKey + "/"
            func inRegion(_ key: String) -> Bool { regionKey.isEmpty || key == regionKey || key.hasPrefixBytes(regionSlash) }
            let newlyKnown = read.keys.reduce(0) { $0 + (old.records[$1] == nil ? 1 : 0) }
            // Old records the walk visited, and those of the folders above the region (never in
            // it): when they are all, none is to be dropped, without looking at each key.
            var above = 0
            var ancestor = Substring(regionKey)
            while !ancestor.isEmpty {
                ancestor = ancestor.utf8.lastIndex(of: UInt8(ascii: "/")).map { ancestor[..<$0] } ?? ""
                if old.records[String(ancestor)] != nil { above += 1 }
            }
            let visitedOld = trustedCount + read.count - newlyKnown
            var mayDrop = visitedOld + above < old.records.count
            if mayDrop {
                var oldInRegion = 0
                for key in old.records.keys where inRegion(key) { oldInRegion += 1 }
                mayDrop = visitedOld < oldInRegion
            }
            // A walk that read no folder and left none out changes nothing: the cache as it was,
            // not a copy of its records (a copy of every record at every listing through the
            // cache was a tenth of the junk store's: issue 25).
            if read.isEmpty && !mayDrop { return old }
            var cache = old
            cache.records.reserveCapacity(old.records.count + newlyKnown)
            for (key, record) in read { cache.records[key] = record }
            guard mayDrop else { return cache }
            // Some folders of the region were not visited: keep those still reachable.
            var reachable: Set<String> = []
            var pending = [regionKey]
            while let key = pending.popLast() {
                guard reachable.insert(key).inserted, let record = cache.records[key] else { continue }
                let slash = key.isEmpty ? "" : key + "/"
                for entry in record.entries where cache.records[slash + entry.name] != nil { pending.append(slash + entry.name) }
            }
            cache.records = cache.records.filter { key, _ in !inRegion(key) || reachable.contains(key) }
            return cache
        }
    }

    /// Lists the folder `key` ("" for the root, "a/b" for a folder, which is `depth` levels below
    /// the root) and walks its subfolders that may hold keys starting with the prefix. Closes
    /// `folder` (its open descriptor, if the caller has one). `stamp` is the folder's, when the
    /// caller knows it (for `folder`, from its `fstat`).
    ///
    /// A folder the cache trusts at this stamp (`DirectoryListingCache.Record.isTrusted(stamp:now:)`)
    /// is not read: its names come from the cache. Any other is opened (from the root, folder by
    /// folder, when the caller has no descriptor), its stamp taken (`fstat`), then its names read
    /// (`readdir`), and its record replaces the cache's. Every entry of either kind is asked its
    /// status (`fstatat`: in the open folder, or by its path from the root), so sizes and
    /// revisions are always current; an entry `readdir` says is a folder, and that the cache
    /// does not know, is opened at once instead.
    private func visit(
        _ key: String, open folder: Int32?, stamp: FolderStamp?, trusted: DirectoryListingCache.Record?, depth: Int, isRegionRoot: Bool,
        walk: inout ListingWalk, into listing: inout BlobListing
    ) throws(BlobStoreError) {
        let folderKey = key.isEmpty ? "" : key + "/"
        // Every entry of a folder whose key starts with the prefix does too.
        let underPrefix = folderKey.hasPrefixBytes(walk.prefix)
        let record = trusted ?? stamp.flatMap { stamp in walk.old.records[key].flatMap { $0.isTrusted(stamp: stamp, now: walk.now) ? $0 : nil } }
        if let record {
            walk.trustedCount += 1
            defer { if let folder { POSIX.closeQuietly(folder) } }
            for entry in record.entries {
                try visitEntry(entry, in: folder, folderKey: folderKey, underPrefix: underPrefix, depth: depth, walk: &walk, into: &listing)
            }
            return
        }
        let descriptor: Int32
        if let folder {
            descriptor = folder
        } else {
            guard let opened = openFromRoot(key, root: walk.root, into: &listing) else { return }
            descriptor = opened
        }
        do throws(POSIXFailure) {
            try injectFailure("readdir", key: key)
        } catch {
            POSIX.closeQuietly(descriptor)
            if isRegionRoot { throw mapped(error) }
            listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
            return
        }
        // The clock before and after the stamp: the record's read time is no later, and the
        // first sighting of its stamp no earlier, than the stamp was taken.
        let before = clock()
        let current: FolderStamp
        do throws(POSIXFailure) {
            current = try POSIX.status(of: descriptor, path: absolutePath(ofKey: key)).stamp
        } catch {
            POSIX.closeQuietly(descriptor)
            if isRegionRoot { throw mapped(error) }
            if error.kind != .notFound {
                listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
            }
            return
        }
        let after = clock()
        let (read, close) = POSIX.folderEntries(consuming: descriptor, path: absolutePath(ofKey: key))
        defer { close() }
        let entries: [POSIX.FolderEntry]
        var keepsLeftovers = false
        switch read {
        case let .success(found):
            entries = found.filter { BlobKeyRules.isListableName(Substring($0.name)) }
            // (The first byte first: most names are not hidden, and this runs for every entry read.)
            for entry in found where entry.name.utf8.first == UInt8(ascii: ".") && !entry.isFolder
                && entry.name.hasPrefix(Self.temporaryNamePrefix)
            {
                keepsLeftovers = !removeLeftoverTemporaryFile(entry.name, in: descriptor, folderKey: folderKey, now: after) || keepsLeftovers
            }
        case let .failure(error):
            if isRegionRoot { throw mapped(error) }
            if error.kind != .notFound {
                listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
            }
            return
        }
        let previous = walk.old.records[key]
        let firstSeen = previous?.stamp == current ? min(previous?.firstSeenSeconds ?? after, after) : after
        // A folder holding a write's temporary file too young to delete is read again by every
        // listing (its name must be seen again when it is old enough), not taken from the cache.
        if !keepsLeftovers {
            walk.read[key] = DirectoryListingCache.Record(stamp: current, entries: entries, firstSeenSeconds: firstSeen, readSeconds: before)
        }
        walk.readCount += 1
        try visitEntries(entries, in: descriptor, folderKey: folderKey, underPrefix: underPrefix, depth: depth, walk: &walk, into: &listing)
    }

    /// The entries of one folder just read (``visitEntry(_:in:folderKey:underPrefix:depth:walk:into:)``
    /// each; a folder whose names come from the cache has them walked on the calling thread). A
    /// folder with ``parallelWalkEntriesMin`` entries or more, most of whose subfolders the cache
    /// does not know (BENCHMARKS.md, "The junk store's first sync, in parts"), has them cut into chunks
    /// of consecutive entries, walked with `concurrentPerform` (the calling thread takes part,
    /// so this never waits for a thread that cannot come), each chunk with its own walk and
    /// listing; they are then taken in chunk order, so the listing and the folders' records
    /// are what one thread's walk in entry order gives, and the first chunk's error is the one
    /// thrown (the walk is dropped then, as it is when one thread throws). The system calls
    /// (`openat`, `fstatat` relative to the open folder, `readdir`) are safe on one descriptor
    /// from several threads.
    private func visitEntries(
        _ entries: [POSIX.FolderEntry], in folder: Int32?, folderKey: String, underPrefix: Bool, depth: Int,
        walk: inout ListingWalk, into listing: inout BlobListing
    ) throws(BlobStoreError) {
        // Only while the cache knows few of its folders (a store listed for the first time):
        // a folder the cache knows is walked by paths from the root, and two threads walking
        // paths through the same folders contend in the kernel (the listing through the cache
        // took twice the processor time in chunks).
        func mostlyKnown() -> Bool {
            var known = 0
            for entry in entries where entry.isFolder && walk.old.records[folderKey + entry.name] != nil { known += 1 }
            return known * 2 >= entries.count
        }
        guard entries.count >= parallelWalkEntriesMin, entries.count > 1, !walk.isChunk, !mostlyKnown() else {
            for entry in entries {
                try visitEntry(entry, in: folder, folderKey: folderKey, underPrefix: underPrefix, depth: depth, walk: &walk, into: &listing)
            }
            return
        }
        // Several chunks per processor of a small machine: folders differ in what they hold.
        let chunkCount = min(entries.count, 16)
        let base = ListingWalk(prefix: walk.prefix, root: walk.root, old: walk.old, now: walk.now, isChunk: true)
        let chunks = ChunkSlots<ListingChunk>(count: chunkCount)
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            var chunkWalk = base
            var chunkListing = BlobListing()
            var failure: BlobStoreError?
            do throws(BlobStoreError) {
                for position in (entries.count * chunk / chunkCount)..<(entries.count * (chunk + 1) / chunkCount) {
                    try self.visitEntry(
                        entries[position], in: folder, folderKey: folderKey, underPrefix: underPrefix, depth: depth,
                        walk: &chunkWalk, into: &chunkListing)
                }
            } catch {
                failure = error
            }
            chunks.store(chunk, ListingChunk(walk: chunkWalk, listing: chunkListing, failure: failure))
        }
        for chunk in 0..<chunkCount {
            let done = chunks.take(chunk)
            if let failure = done.failure { throw failure }
            // A later record replaces an earlier one, as in one thread's walk (two folder names
            // `String` holds equal, canonically equivalent spellings, share one key).
            walk.read.merge(done.walk.read) { _, later in later }
            walk.readCount += done.walk.readCount
            walk.trustedCount += done.walk.trustedCount
            walk.walkedFiles.append(contentsOf: done.walk.walkedFiles)
            listing.blobs.append(contentsOf: done.listing.blobs)
            listing.skipped.append(contentsOf: done.listing.skipped)
        }
    }

    /// What one chunk of a folder's entries gives back (``ChunkSlots``).
    private struct ListingChunk {
        var walk: ListingWalk
        var listing: BlobListing
        var failure: BlobStoreError?
    }

    /// One entry `entry` of the folder whose key is `folderKey` (with a trailing "/", or "" for
    /// the root, and which starts with the prefix when `underPrefix`), which is open as
    /// `folder` or, when nil, reached by paths from the root.
    private func visitEntry(
        _ entry: POSIX.FolderEntry, in folder: Int32?, folderKey: String, underPrefix: Bool, depth: Int,
        walk: inout ListingWalk, into listing: inout BlobListing
    ) throws(BlobStoreError) {
        let name = entry.name
        let key = folderKey + name
        // Only entries that are, or may hold, keys starting with the prefix (as bytes).
        guard underPrefix || key.hasPrefixBytes(walk.prefix) || walk.prefix.hasPrefixBytes(key + "/") else { return }
        let known = entry.isFolder ? walk.old.records[key] : nil
        // A folder the cache does not know is opened at once (no `fstatat` first).
        if entry.isFolder, let folder, known == nil,
           try openSubfolder(folder, name: name, key: key, depth: depth, typeFromReaddir: true, walk: &walk, into: &listing) {
            return
        }
        let status: FileStatus
        do throws(POSIXFailure) {
            try injectFailure("fstatat", key: key)
            if let folder {
                status = try POSIX.status(ofEntry: name, in: folder, path: { self.absolutePath(ofKey: key) })
            } else {
                status = try POSIX.status(ofEntry: key, in: walk.root, path: { self.absolutePath(ofKey: key) })
            }
        } catch {
            if error.kind == .notFound || error.kind == .notDirectory { return }  // vanished meanwhile
            listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
            return
        }
        switch status.kind {
        case .regular:
            if status.size > 0, underPrefix || key.hasPrefixBytes(walk.prefix) {
                listing.blobs.append(BlobInfo(key: key, sizeBytes: status.size, revision: status.revision))
                if folder != nil { walk.walkedFiles.append((key, status.stamp)) }
            }
        case .symbolicLink:
            listing.skipped.append(SkippedEntry(key: key, problem: .symbolicLink))
        case .other:
            listing.skipped.append(SkippedEntry(key: key, problem: .specialFile))
        case .directory:
            guard depth < Self.maxFolderDepth else {
                listing.skipped.append(SkippedEntry(key: key, problem: .tooDeep(levels: Self.maxFolderDepth)))
                return
            }
            if let record = known ?? walk.old.records[key], record.isTrusted(stamp: status.stamp, now: walk.now) {
                try visit(key, open: nil, stamp: status.stamp, trusted: record, depth: depth + 1, isRegionRoot: false, walk: &walk, into: &listing)
            } else if let folder {
                _ = try openSubfolder(folder, name: name, key: key, depth: depth, typeFromReaddir: false, walk: &walk, into: &listing)
            } else {
                try visit(key, open: nil, stamp: nil, trusted: nil, depth: depth + 1, isRegionRoot: false, walk: &walk, into: &listing)
            }
        }
    }

    /// Deletes the temporary file `name` of a write, in the open folder `folder` (key
    /// `folderKey`, "" or ending in "/"), when it is a regular file last modified at least
    /// ``leftoverTemporaryFileAgeSeconds`` before `now`; true when it is gone (deleted, or
    /// vanished meanwhile), false when it stays (too young, not a regular file, or not
    /// deletable: a read-only store). Never reported: it is no blob.
    private func removeLeftoverTemporaryFile(_ name: String, in folder: Int32, folderKey: String, now: Double) -> Bool {
        let path = absolutePath(ofKey: folderKey + name)
        guard let status = try? POSIX.status(ofEntry: name, in: folder, path: { path }) else { return true }
        let modified = Double(status.stamp.modifiedSeconds) + Double(status.stamp.modifiedNanoseconds) / 1e9
        guard status.kind == .regular, now - modified >= Self.leftoverTemporaryFileAgeSeconds else { return false }
        do throws(POSIXFailure) {
            try POSIX.unlink(name, in: folder, path: path)
            return true
        } catch {
            return error.kind == .notFound
        }
    }

    /// Opens the subfolder `name` (key `key`) of the open folder `folder` and visits it,
    /// reporting what cannot be read. When only `readdir` said it is a folder
    /// (`typeFromReaddir`), returns false, having listed and reported nothing, if it is not one
    /// when opened (a symbolic link, a file: the caller asks `fstatat` what it is).
    private func openSubfolder(
        _ folder: Int32, name: String, key: String, depth: Int, typeFromReaddir: Bool,
        walk: inout ListingWalk, into listing: inout BlobListing
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
            case .notDirectory: break  // replaced by a file meanwhile: the next listing shows it
            default: listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
            }
            return true
        }
        try visit(key, open: subfolder, stamp: nil, trusted: nil, depth: depth + 1, isRegionRoot: false, walk: &walk, into: &listing)
        return true
    }

    /// Opens the folder `key` from the open root `root`, one level at a time without following
    /// a symbolic link (for a folder whose parent was not opened: its names came from the
    /// cache). Nil, with the folder reported when it is a link or cannot be opened, or silently
    /// when it vanished or turned into something else (the next listing shows what it is).
    private func openFromRoot(_ key: String, root: Int32, into listing: inout BlobListing) -> Int32? {
        let components = BlobKeyRules.split(key)
        var folder: Int32 = -1
        var reached = ""
        for (index, component) in components.enumerated() {
            reached += reached.isEmpty ? String(component) : "/" + component
            let parent = folder
            do throws(POSIXFailure) {
                try injectFailure("openat", key: reached)
                folder = try POSIX.openFolder(String(component), in: parent < 0 ? root : parent, path: absolutePath(ofKey: reached))
            } catch {
                if parent >= 0 { POSIX.closeQuietly(parent) }
                let isLast = index == components.count - 1
                switch error.kind {
                case .notFound: break
                case .notDirectory, .symbolicLink:
                    // Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW.
                    if isLast, (try? POSIX.status(of: key, in: root, path: key))?.kind == .symbolicLink {
                        listing.skipped.append(SkippedEntry(key: key, problem: .symbolicLink))
                    }
                default: listing.skipped.append(SkippedEntry(key: key, problem: .unreadable(reason: error.reason)))
                }
                return nil
            }
            if parent >= 0 { POSIX.closeQuietly(parent) }
        }
        return folder
    }

    /// The whole contents of the blob `key`. O(size), and never more memory than
    /// ``maxBlobBytes`` (plus one byte).
    ///
    /// The file is opened folder by folder from the root without following symbolic links and
    /// without blocking, and only a regular file is read. A file the latest listing found inside
    /// folders it opened is opened by its path in one call instead, and read only when it is the
    /// file the listing found, unchanged (see the type's notes); otherwise as above.
    ///
    /// - Throws: ``BlobStoreError/notFound(key:)`` when no regular file has this name (a folder,
    ///   a symbolic link, a FIFO or device is not a blob, and neither is a name under a symbolic
    ///   link to a folder); ``BlobStoreError/tooLarge(key:sizeBytes:limitBytes:)`` when the file
    ///   is larger than ``maxBlobBytes``, before reading any of it (or when it grew past it while
    ///   read); ``BlobStoreError/invalidKey(_:)``; ``BlobStoreError/unavailable(reason:)`` when
    ///   the root folder is missing; ``BlobStoreError/io(reason:)`` for a failed read, or a file
    ///   that grew while it was read.
    public func read(key: String) throws(BlobStoreError) -> [UInt8] {
        let filePath = absolutePath(ofKey: key)
        let descriptor: Int32
        let status: FileStatus
        // A key a listing found is valid (listings show only valid keys). A key `String` holds
        // equal to a listed one (canonically equivalent) names other bytes, so another file or
        // none: the identity check sends it folder by folder, where it is validated.
        if let walked = walkedFiles.withLock({ $0[key] }), let opened = openWalkedFile(filePath, walked: walked) {
            (descriptor, status) = opened
        } else {
            guard let components = BlobKeyRules.components(of: key) else { throw .invalidKey(key) }
            descriptor = try openFolderByFolder(key, components: components, filePath: filePath)
            do throws(POSIXFailure) {
                status = try POSIX.status(of: descriptor, path: filePath)
            } catch {
                POSIX.closeQuietly(descriptor)
                throw mapped(error)
            }
        }
        defer { POSIX.closeQuietly(descriptor) }
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

    /// The blob `key` (its `components`, at `filePath`) opened for reading folder by folder from
    /// the root, without following a symbolic link or blocking.
    private func openFolderByFolder(_ key: String, components: [Substring], filePath: String) throws(BlobStoreError) -> Int32 {
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
        return descriptor
    }

    /// The file at `filePath` opened in one system call, when it is the file a listing found
    /// inside folders it opened without following links (`walked`: the same device, inode and
    /// modification and change times); nil, with nothing left open, for anything else.
    private func openWalkedFile(_ filePath: String, walked: FolderStamp) -> (descriptor: Int32, status: FileStatus)? {
        guard let descriptor = try? POSIX.openForReading(filePath, in: AT_FDCWD, path: filePath) else { return nil }
        guard let status = try? POSIX.status(of: descriptor, path: filePath), status.kind == .regular, status.stamp == walked else {
            POSIX.closeQuietly(descriptor)
            return nil
        }
        return (descriptor, status)
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
