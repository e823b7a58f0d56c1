import Foundation
@testable import MemoSync
import TestSupport
import Testing

/// A unique, empty temporary folder for one test, removed by `remove()` (or `defer`).
/// Shared by the file driver tests (`DirectoryBlobStoreTests`, `FileDiskTests`).
struct IOTestFolder: Sendable {
    /// Its absolute path (the folder itself is not created).
    let path: String

    init(_ label: String) {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("memosync-\(label)-\(UUID().uuidString)").path
    }

    /// The path of `relative` inside the folder.
    func path(_ relative: String) -> String { path + "/" + relative }

    /// Creates the file `relative` with `bytes`, and the folders above it.
    func createFile(_ relative: String, _ bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: path(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// Creates the folder `relative` and the folders above it.
    func createFolder(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    /// The names in the folder `relative` ("" for the folder itself), sorted.
    func names(_ relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? path : path(relative)).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Checks that `body` throws an error of type `E` for which `matches` holds.
func expectError<E: Error, T>(
    _ type: E.Type, _ matches: (E) -> Bool, sourceLocation: SourceLocation, _ body: () throws -> T
) {
    do {
        _ = try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
    } catch let error as E {
        #expect(matches(error), "unexpected error: \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a \(E.self), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Checks that `body` throws a `BlobStoreError` for which `matches` holds.
func expectBlobStoreError<T>(
    _ matches: (BlobStoreError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) {
    expectError(BlobStoreError.self, matches, sourceLocation: sourceLocation, body)
}

extension BlobStoreError {
    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }

    var isIO: Bool {
        if case .io = self { return true }
        return false
    }
}

/// Mutable state shared between a test and its background threads.
final class IOTestBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withValue<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// The folder blob store: round trips, keys, listings and their skip rules, errors, atomicity
/// under concurrent readers and writers.
@Suite struct DirectoryBlobStoreTests {
    /// A blob whose bytes tell its own length and content: `size` copies of `fill`.
    static func blob(_ fill: UInt8, size: Int) -> [UInt8] { [UInt8](repeating: fill, count: size) }

    /// The size of version `version` of the blob the atomicity test rewrites: (v % 7 + 1) ×
    /// 256 KiB, so a prefix or a mix of two versions is detectable.
    static func size(ofVersion version: UInt8) -> Int { (Int(version) % 7 + 1) << 18 }

    // MARK: Round trips

    @Test func createsTheRootAndRoundTripsBlobs() throws {
        let folder = IOTestFolder("store")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path + "/nested/root/")
        #expect(store.path == folder.path + "/nested/root")
        let keys = ["a", "x/y/z.seg", "memosync/v1/0000000000000abc/segments/0000000000-0000000010-ff.seg"]
        for (index, key) in keys.enumerated() {
            try store.write(key: key, bytes: Self.blob(UInt8(index + 1), size: 100 * (index + 1)))
        }
        for (index, key) in keys.enumerated() {
            #expect(try store.read(key: key) == Self.blob(UInt8(index + 1), size: 100 * (index + 1)))
        }
        #expect(try store.list(prefix: "").map(\.key) == keys.sorted())
        #expect(try store.list(prefix: "").map(\.sizeBytes) == [100, 300, 200])
        // Replacing, then a larger and an empty blob.
        try store.write(key: "a", bytes: [9, 8, 7])
        #expect(try store.read(key: "a") == [9, 8, 7])
        let large = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try store.write(key: "big/blob", bytes: large)
        #expect(try store.read(key: "big/blob") == large)
        try store.write(key: "empty", bytes: [])
        #expect(try store.read(key: "empty") == [])
        #expect(try !store.list(prefix: "").contains { $0.key == "empty" })
        // No temporary file is left anywhere.
        #expect(try folder.names("nested/root/x/y") == ["z.seg"])
        #expect(try !folder.names("nested/root").contains { $0.hasPrefix(".") })
    }

    @Test func opensAnExistingFolderAndAFileURL() throws {
        let folder = IOTestFolder("store-url")
        defer { folder.remove() }
        try folder.createFile("k", [1, 2])
        let store = try DirectoryBlobStore(url: URL(fileURLWithPath: folder.path, isDirectory: true))
        #expect(try store.read(key: "k") == [1, 2])
        #expect(throws: BlobStoreError.self) { try DirectoryBlobStore(url: URL(string: "https://example.com/x")!) }
    }

    @Test func aRootThatIsAFileIsUnavailable() throws {
        let folder = IOTestFolder("store-file-root")
        defer { folder.remove() }
        try folder.createFile("file", [1])
        expectBlobStoreError(\.isUnavailable) { try DirectoryBlobStore(path: folder.path("file")) }
        expectBlobStoreError(\.isUnavailable) { try DirectoryBlobStore(path: "") }
    }

    @Test func relativeRootsAreResolvedAgainstTheCurrentFolder() throws {
        let folder = IOTestFolder("store-relative")
        defer { folder.remove() }
        // A relative path from the current folder to the test folder (the current folder is
        // shared by every test running in parallel, so it is not changed here).
        let current = FileManager.default.currentDirectoryPath
        let depth = current.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + folder.path.dropFirst() + "/blobs"
        let store = try DirectoryBlobStore(path: relative)
        #expect(store.path.hasPrefix("/"))
        try store.write(key: "k", bytes: [1])
        #expect(FileManager.default.fileExists(atPath: folder.path("blobs/k")))
        #expect(try DirectoryBlobStore(path: folder.path("blobs")).read(key: "k") == [1])
    }

    // MARK: Keys

    @Test func rejectsInvalidKeysWithTypedErrors() throws {
        let folder = IOTestFolder("store-keys")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path)
        let invalid = [
            "", "/", "/abs", "a/", "a//b", ".", "..", "../x", "a/../b", "a/./b", "./a",
            "nul\u{0}x", "tab\tx", "new\nline", "del\u{7F}", "c1\u{85}", ".hidden", "a/.hidden/b",
            ".memosync-tmp-1234", "x.tmp", "x.TMP", "x.part", "x.partial", "x.crdownload", "x.download", "x~",
            String(repeating: "n", count: 256),
        ]
        for key in invalid {
            #expect(!DirectoryBlobStore.isValidKey(key), "\(key.debugDescription)")
            #expect(throws: BlobStoreError.invalidKey(key)) { try store.write(key: key, bytes: [1]) }
            #expect(throws: BlobStoreError.invalidKey(key)) { try store.read(key: key) }
            #expect(throws: BlobStoreError.invalidKey(key)) { try store.delete(key: key) }
        }
        // Nothing escaped the root.
        #expect(try folder.names() == [])
    }

    @Test func acceptsNamesSyncClientsGive() throws {
        let folder = IOTestFolder("store-names")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path)
        let keys = [
            "x (Alice's conflicted copy 2026-01-02).seg",
            "x.sync-conflict-20260102-101010-ABC.seg",
            "x (1).seg",
            "dossier é/日本語 ノート 🎉.seg",
            "with space/and-dash_underscore+plus=eq,comma;semi[br]{c}@#$%&'!.seg",
            "x.tmpl", "x.part1", "a.b.c", "-", "~x", "x~y",
            String(repeating: "n", count: 255),
        ]
        for (index, key) in keys.enumerated() {
            #expect(DirectoryBlobStore.isValidKey(key), "\(key)")
            try store.write(key: key, bytes: [UInt8(index + 1)])
        }
        #expect(try store.list(prefix: "").map(\.key) == keys.sorted())
        for (index, key) in keys.enumerated() {
            #expect(try store.read(key: key) == [UInt8(index + 1)])
        }
    }

    @Test func conflictedCopiesMadeBySyncClientsAreListedAndReadable() throws {
        let folder = IOTestFolder("store-conflicts")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path)
        try store.write(key: "r/segments/0001-0002-aa.seg", bytes: [1])
        try folder.createFile("r/segments/0001-0002-aa (Alice's conflicted copy 2026-01-02).seg", [2])
        try folder.createFile("r/segments/0001-0002-aa.sync-conflict-20260102-101010-ABC.seg", [3])
        let listed = try store.list(prefix: "r/segments/0001")
        #expect(listed.map(\.key) == [
            "r/segments/0001-0002-aa (Alice's conflicted copy 2026-01-02).seg",
            "r/segments/0001-0002-aa.seg",
            "r/segments/0001-0002-aa.sync-conflict-20260102-101010-ABC.seg",
        ])
        #expect(try listed.map { try store.read(key: $0.key) } == [[2], [1], [3]])
    }

    // MARK: Listing

    @Test func listsByPrefixThroughNestedFolders() throws {
        let folder = IOTestFolder("store-prefix")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path)
        let keys = ["a/b/c/1", "a/b/c/2", "a/b/d", "a/bc/1", "a/x", "ab", "b/1", "top"]
        for key in keys { try store.write(key: key, bytes: Array(key.utf8)) }
        func listed(_ prefix: String) throws -> [String] { try store.list(prefix: prefix).map(\.key) }
        #expect(try listed("") == keys)
        #expect(try listed("a") == ["a/b/c/1", "a/b/c/2", "a/b/d", "a/bc/1", "a/x", "ab"])
        #expect(try listed("a/") == ["a/b/c/1", "a/b/c/2", "a/b/d", "a/bc/1", "a/x"])
        #expect(try listed("a/b") == ["a/b/c/1", "a/b/c/2", "a/b/d", "a/bc/1"])
        #expect(try listed("a/b/") == ["a/b/c/1", "a/b/c/2", "a/b/d"])
        #expect(try listed("a/b/c/2") == ["a/b/c/2"])
        #expect(try listed("a/b/c/2/") == [])
        #expect(try listed("a/b/c/3") == [])
        #expect(try listed("missing/folder/") == [])
        #expect(try listed("top/") == [])  // a file where the prefix wants a folder
        #expect(try listed("/") == [])
        #expect(try listed("/etc/") == [])
        #expect(try listed("../") == [])
        #expect(try listed("a/../") == [])
        #expect(try listed("a//") == [])
        #expect(try store.list(prefix: "a/b/c").map(\.sizeBytes) == [7, 7])
    }

    @Test func listingSkipsHiddenPartialEmptyAndNonRegularEntries() throws {
        let folder = IOTestFolder("store-skip")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path)
        try store.write(key: "d/kept.seg", bytes: [1])
        let skipped = [
            ".memosync-tmp-0123abcd", ".DS_Store", ".kept.seg.icloud", ".syncthing.kept.seg.tmp",
            "x.tmp", "x.TMP", "x.part", "x.partial", "x.crdownload", "x.download", "x.Download", "x~",
            "~syncthing~x.seg.tmp", "Icon\r",
        ]
        for name in skipped { try folder.createFile("d/" + name, [1, 2, 3]) }
        try folder.createFile("d/empty.seg", [])
        try folder.createFile("d/.stversions/old.seg", [1])  // hidden folders are not walked
        try folder.createFile(".dropbox.cache/x.seg", [1])
        try folder.createFile("d/unfinished.download/x.seg", [1])
        try folder.createFolder("d/only-a-folder")
        try FileManager.default.createSymbolicLink(atPath: folder.path("d/link-to-folder"), withDestinationPath: folder.path("d/only-a-folder"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("d/loop"), withDestinationPath: folder.path("d"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("d/dangling"), withDestinationPath: folder.path("d/none"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("d/link-to-file.seg"), withDestinationPath: folder.path("d/kept.seg"))
        #expect(mkfifo(folder.path("d/fifo"), 0o644) == 0)

        #expect(try store.list(prefix: "").map(\.key) == ["d/kept.seg"])
        #expect(try store.list(prefix: "d/").map(\.key) == ["d/kept.seg"])
        // Symbolic links and the FIFO are reported, once each; hidden, partial and empty
        // entries are left out silently.
        let expected = [
            SkippedEntry(key: "d/dangling", problem: .symbolicLink),
            SkippedEntry(key: "d/fifo", problem: .specialFile),
            SkippedEntry(key: "d/link-to-file.seg", problem: .symbolicLink),
            SkippedEntry(key: "d/link-to-folder", problem: .symbolicLink),
            SkippedEntry(key: "d/loop", problem: .symbolicLink),
        ]
        #expect(try store.listing(prefix: "").skipped == expected)
        #expect(try store.listing(prefix: "d/").skipped == expected)
        #expect(try store.listing(prefix: "d/f").skipped == [SkippedEntry(key: "d/fifo", problem: .specialFile)])
        #expect(try store.list(prefix: "d/unfinished.download/").map(\.key) == [])
        #expect(try store.list(prefix: "d/.stversions/").map(\.key) == [])
        try folder.createFile("d/only-a-folder/inside.seg", [1])
        #expect(try store.listing(prefix: "d/link-to-folder/") == BlobListing(skipped: [SkippedEntry(key: "d/link-to-folder", problem: .symbolicLink)]))
        #expect(try store.listing(prefix: "d/loop/") == BlobListing(skipped: [SkippedEntry(key: "d/loop", problem: .symbolicLink)]))
        #expect(try store.list(prefix: "d/only-a-folder/").map(\.key) == ["d/only-a-folder/inside.seg"])
        // A symbolic link is never read, not even one to a blob of the store.
        #expect(throws: BlobStoreError.notFound(key: "d/link-to-file.seg")) { try store.read(key: "d/link-to-file.seg") }
        #expect(throws: BlobStoreError.notFound(key: "d/link-to-folder/inside.seg")) { try store.read(key: "d/link-to-folder/inside.seg") }
        #expect(try store.read(key: "d/only-a-folder/inside.seg") == [1])
        // Reading what is not a regular file: not found, and never blocks on the FIFO.
        #expect(throws: BlobStoreError.notFound(key: "d/fifo")) { try store.read(key: "d/fifo") }
        #expect(throws: BlobStoreError.notFound(key: "d/only-a-folder")) { try store.read(key: "d/only-a-folder") }
        #expect(throws: BlobStoreError.notFound(key: "d/kept.seg/x")) { try store.read(key: "d/kept.seg/x") }
    }

    // MARK: Bad entries never stop a listing (issue 12, item 4)

    /// A store with three readable blobs, around the bad entries a test adds.
    static func storeWithGoodBlobs(_ folder: IOTestFolder, injectedFailure: (@Sendable (String, String) -> Int32?)? = nil) throws -> DirectoryBlobStore {
        let store = try DirectoryBlobStore(path: folder.path, injectedFailure: injectedFailure)
        for key in goodKeys { try store.write(key: key, bytes: Array(key.utf8)) }
        return store
    }

    static let goodKeys = [
        "memosync/v1/0000000000000001/segments/0000000000-0000000003-00.seg",
        "memosync/v1/0000000000000002/segments/0000000000-0000000001-00.seg",
        "memosync/v1/zz/x.seg",
    ]

    @Test func aFolderThatCannotBeReadIsSkippedAndReportedOnce() throws {
        let folder = IOTestFolder("store-unreadable")
        defer { folder.remove() }
        // Tests run as root, who reads every folder: the errors are injected into the walk.
        let store = try Self.storeWithGoodBlobs(folder) { call, key in
            switch (call, key) {
            case ("openat", "memosync/v1/bad"): EACCES
            case ("readdir", "memosync/v1/flaky"): EIO
            case ("fstatat", "memosync/v1/odd.seg"): EACCES
            default: nil
            }
        }
        for key in ["memosync/v1/bad/a.seg", "memosync/v1/bad/deeper/b.seg", "memosync/v1/flaky/c.seg", "memosync/v1/odd.seg"] {
            try store.write(key: key, bytes: [1])
        }
        let listing = try store.listing(prefix: StoreLayout.root)
        #expect(listing.blobs.map(\.key) == Self.goodKeys)
        let permission = String(cString: strerror(EACCES))
        #expect(listing.skipped == [
            SkippedEntry(key: "memosync/v1/bad", problem: .unreadable(reason: permission)),
            SkippedEntry(key: "memosync/v1/flaky", problem: .unreadable(reason: String(cString: strerror(EIO)))),
            SkippedEntry(key: "memosync/v1/odd.seg", problem: .unreadable(reason: permission)),
        ])
        // Short, typed messages: no path, no call.
        for entry in listing.skipped { #expect(entry.description.utf8.count < 100, "\(entry)") }
        #expect(try store.list(prefix: StoreLayout.root) == listing.blobs)
        // The folder a prefix names failing is the listing failing.
        expectBlobStoreError(\.isIO) { try store.listing(prefix: "memosync/v1/bad/") }
    }

    @Test func aFolderWithoutPermissionIsSkippedAndReportedOnce() throws {
        // The same with a real permission error. Root reads every folder, so as root the listing
        // runs on a thread of its own whose file system user is "nobody" (Linux's setfsuid
        // changes only the calling thread, and drops root's file permission override).
        let folder = IOTestFolder("store-chmod")
        defer {
            chmod(folder.path("memosync/v1/locked"), 0o755)
            folder.remove()
        }
        let store = try Self.storeWithGoodBlobs(folder)
        try store.write(key: "memosync/v1/locked/a.seg", bytes: [1])
        #expect(chmod(folder.path("memosync/v1/locked"), 0) == 0)
        let listing = try Self.asUnprivilegedUser { () throws(BlobStoreError) in try store.listing(prefix: StoreLayout.root) }
        #expect(listing.blobs.map(\.key) == Self.goodKeys)
        #expect(listing.skipped == [SkippedEntry(key: "memosync/v1/locked", problem: .unreadable(reason: String(cString: strerror(EACCES))))])
        // The folder the prefix names being unreadable fails the listing.
        let prefixListing = Result { try Self.asUnprivilegedUser { () throws(BlobStoreError) in try store.listing(prefix: "memosync/v1/locked/") } }
        #expect(throws: BlobStoreError.self) { try prefixListing.get() }
    }

    /// Runs `body` with file permissions checked as for an ordinary user: directly when the
    /// tests do not run as root; as root (Linux), on a new thread whose file system user id is
    /// 65534 ("nobody") for the call.
    static func asUnprivilegedUser<T: Sendable>(_ body: @escaping @Sendable () throws(BlobStoreError) -> T) throws -> T {
        if geteuid() != 0 { return try body() }
        #if os(Linux)
        // setfsuid(2) is not in Glibc's Swift module: found by name.
        typealias SetFSUID = @convention(c) (UInt32) -> Int32
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setfsuid"), "no setfsuid")
        let setfsuid = unsafeBitCast(symbol, to: SetFSUID.self)
        let result = IOTestBox<Result<T, BlobStoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = setfsuid(65_534)
            defer { _ = setfsuid(0) }
            let outcome = Result { () throws(BlobStoreError) -> T in try body() }
            result.withValue { $0 = outcome }
            done.signal()
        }
        thread.start()
        done.wait()
        return try #require(result.withValue { $0 }).get()
        #else
        throw CancellationError()  // never reached on Apple platforms (tests do not run as root)
        #endif
    }

    /// Creates folders `name` nested `levels` deep inside `folder` (relative to the store),
    /// with a file `leaf` (holding `[1]`) in the deepest, going down with `openat`/`mkdirat` as
    /// no path could (the whole path may be far longer than PATH_MAX). Returns the key of the leaf.
    static func createDeepTree(in root: String, under relative: String, name: String, levels: Int, leaf: String) throws -> String {
        var descriptor = open(root + "/" + relative, O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0)
        for _ in 0..<levels {
            #expect(mkdirat(descriptor, name, 0o755) == 0)
            let next = openat(descriptor, name, O_RDONLY | O_DIRECTORY)
            close(descriptor)
            descriptor = next
            try #require(descriptor >= 0)
        }
        let file = openat(descriptor, leaf, O_WRONLY | O_CREAT, 0o644)
        try #require(file >= 0)
        #expect(write(file, [UInt8(1)], 1) == 1)
        close(file)
        close(descriptor)
        return relative + "/" + Array(repeating: name, count: levels).joined(separator: "/") + "/" + leaf
    }

    /// Removes a tree that may be deeper than PATH_MAX (which `FileManager` cannot remove).
    static func removeDeepTree(_ path: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/rm")
        process.arguments = ["-rf", path]
        try? process.run()
        process.waitUntilExit()
    }

    @Test func aJunkFolderDeeperThanThePathLimitIsSkippedAndReportedOnce() throws {
        let folder = IOTestFolder("store-deep")
        defer { Self.removeDeepTree(folder.path) }
        let store = try Self.storeWithGoodBlobs(folder)
        // 3,000 levels of "junk-folder": a path of 36,000 bytes, nine times PATH_MAX.
        _ = try Self.createDeepTree(in: folder.path, under: "memosync/v1", name: "junk-folder", levels: 3_000, leaf: "x.seg")
        // A blob whose path is longer than PATH_MAX, but nested less than the walk's limit:
        // listed and readable (the store goes folder by folder, never by the whole path).
        let long = String(repeating: "L", count: 250)
        let deepKey = try Self.createDeepTree(in: folder.path, under: "memosync/v1", name: long, levels: 20, leaf: "deep.seg")
        #expect(folder.path(deepKey).utf8.count > 4_096)

        let listing = try store.listing(prefix: StoreLayout.root)
        #expect(listing.blobs.map(\.key) == (Self.goodKeys + [deepKey]).sorted())
        #expect(try store.read(key: deepKey) == [1])
        try #require(listing.skipped.count == 1)
        let skipped = listing.skipped[0]
        #expect(skipped.problem == .tooDeep(levels: DirectoryBlobStore.maxFolderDepth))
        // Reported in a few hundred bytes, not thousands: the key is shortened in the middle.
        #expect(skipped.key.hasPrefix("memosync/v1/junk-folder/junk-folder/") && skipped.key.hasSuffix("/junk-folder"))
        #expect(skipped.key.utf8.count <= 200 && skipped.key.contains("\u{2026}"))
        #expect(skipped.description.utf8.count < 300)
    }

    @Test func shortenedKeysAreBoundedAndKeepBothEnds() {
        var random = SeededRandom(seed: 0x5EED_0012)
        let alphabet: [Unicode.Scalar] = ["a", "/", "é", "日", "🎉", "-", "0"]
        for round in 0..<500 {
            var key = String.UnicodeScalarView()
            for _ in 0..<random.int(in: 0...400) { key.append(random.pick(alphabet)) }
            let text = String(key)
            let shortened = BlobKeyRules.abbreviated(text)
            if text.utf8.count <= BlobKeyRules.maxReportedKeyBytes {
                #expect(shortened == text, "round \(round)")
            } else {
                #expect(shortened.utf8.count <= BlobKeyRules.maxReportedKeyBytes, "round \(round): \(shortened.utf8.count) bytes")
                #expect(shortened.utf8.count >= BlobKeyRules.maxReportedKeyBytes - 8, "round \(round): needlessly short")
                let parts = shortened.components(separatedBy: "\u{2026}")
                #expect(parts.count >= 2 && text.hasPrefix(parts[0]) && text.hasSuffix(parts[parts.count - 1]), "round \(round)")
            }
        }
    }

    @Test func symbolicLinksNeverLeadOutOfTheStore() throws {
        let folder = IOTestFolder("store-links")
        defer { folder.remove() }
        let outside = IOTestFolder("store-links-outside")
        defer { outside.remove() }
        try outside.createFile("secret/0000000000-0000000001-00.seg", Array("secret".utf8))
        let store = try Self.storeWithGoodBlobs(folder)
        let links = [
            "memosync/v1/0000000000000003": outside.path,  // a replica folder leading out
            "memosync/v1/0000000000000001/snapshots": outside.path("secret"),  // a kind folder
            "memosync/v1/0000000000000002/segments/0000000001-0000000002-00.seg": outside.path("secret/0000000000-0000000001-00.seg"),
            "memosync/v1/dangling.seg": outside.path("none"),
        ]
        for (key, target) in links {
            try FileManager.default.createSymbolicLink(atPath: folder.path(key), withDestinationPath: target)
        }
        let listing = try store.listing(prefix: StoreLayout.root)
        #expect(listing.blobs.map(\.key) == Self.goodKeys)
        #expect(listing.skipped == links.keys.sorted().map { SkippedEntry(key: $0, problem: .symbolicLink) })
        // Reads through a link, or of one, find nothing; the prefix through a link reports it.
        for key in [
            "memosync/v1/0000000000000003/secret/0000000000-0000000001-00.seg",
            "memosync/v1/0000000000000001/snapshots/0000000000-0000000001-00.seg",
            "memosync/v1/0000000000000002/segments/0000000001-0000000002-00.seg",
            "memosync/v1/dangling.seg",
        ] {
            #expect(throws: BlobStoreError.notFound(key: key)) { try store.read(key: key) }
        }
        #expect(try store.listing(prefix: "memosync/v1/0000000000000003/secret/")
            == BlobListing(skipped: [SkippedEntry(key: "memosync/v1/0000000000000003", problem: .symbolicLink)]))
        // Writes and deletes never go through a link either.
        expectBlobStoreError(\.isIO) { try store.write(key: "memosync/v1/0000000000000003/secret/planted.seg", bytes: [6]) }
        expectBlobStoreError(\.isIO) { try store.write(key: "memosync/v1/0000000000000001/snapshots/x.snap", bytes: [6]) }
        try store.delete(key: "memosync/v1/0000000000000003/secret/0000000000-0000000001-00.seg")
        try store.delete(key: "memosync/v1/0000000000000001/snapshots/0000000000-0000000001-00.seg")
        #expect(try outside.names("secret") == ["0000000000-0000000001-00.seg"])
        // Writing over a link replaces the link itself, inside the store.
        let overLink = "memosync/v1/0000000000000002/segments/0000000001-0000000002-00.seg"
        try store.write(key: overLink, bytes: [5])
        #expect(try store.read(key: overLink) == [5])
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside.path("secret/0000000000-0000000001-00.seg"))) == Data("secret".utf8))
        // The root itself may be a link (a Dropbox folder often is).
        let linkedRoot = outside.path("linked-root")
        try FileManager.default.createSymbolicLink(atPath: linkedRoot, withDestinationPath: folder.path)
        let throughLink = try DirectoryBlobStore(path: linkedRoot)
        #expect(try throughLink.list(prefix: StoreLayout.root).map(\.key) == (Self.goodKeys + [overLink]).sorted())
        #expect(try throughLink.read(key: Self.goodKeys[0]) == Array(Self.goodKeys[0].utf8))
    }

    @Test func aFIFOIsListedAsSkippedAndNeverBlocksARead() throws {
        let folder = IOTestFolder("store-fifo")
        defer { folder.remove() }
        let store = try Self.storeWithGoodBlobs(folder)
        let key = "memosync/v1/0000000000000001/segments/0000000003-0000000004-00.seg"
        #expect(mkfifo(folder.path(key), 0o644) == 0)
        let listing = try store.listing(prefix: StoreLayout.root)
        #expect(listing.blobs.map(\.key) == Self.goodKeys)
        #expect(listing.skipped == [SkippedEntry(key: key, problem: .specialFile)])
        // A read on a thread, with a watchdog: a blocked read fails the test instead of
        // hanging it (the watchdog then opens the FIFO for writing, which releases the read).
        let outcome = IOTestBox<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result: String
            do { _ = try store.read(key: key); result = "read" } catch { result = "\(error)" }
            outcome.withValue { $0 = result }
            done.signal()
        }
        if done.wait(timeout: .now() + 10) == .timedOut {
            Issue.record("reading a FIFO blocked")
            let writer = open(folder.path(key), O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            done.wait()
        }
        #expect(outcome.withValue { $0 } == "\(BlobStoreError.notFound(key: key))")
    }

    @Test func aBlobLargerThanTheLimitIsRefusedBeforeItIsRead() throws {
        let folder = IOTestFolder("store-large")
        defer { folder.remove() }
        // Every read of a blob's contents, counted (the store's hook for tests; nothing fails).
        let reads = IOTestBox<[String]>([])
        let store = try Self.storeWithGoodBlobs(folder) { call, key in
            if call == "read" { reads.withValue { $0.append(key) } }
            return nil
        }
        #expect(store.maxBlobBytes == StoreLayout.maxListedBlobBytes)
        #expect(StoreLayout.maxBlobBytes == 1 << 28)
        #expect(StoreLayout.maxListedBlobBytes == (1 << 28) + 16_384 + 48)
        // A sparse 3 GiB file named like a segment: no disk used, and refused from its size.
        let key = "memosync/v1/0000000000000001/segments/0000000003-0000000009-00.seg"
        let huge = 3 << 30
        let descriptor = open(folder.path(key), O_WRONLY | O_CREAT, 0o644)
        try #require(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(huge)) == 0)
        close(descriptor)
        #expect(try store.list(prefix: StoreLayout.root).first { $0.key == key }?.sizeBytes == huge)
        reads.withValue { $0 = [] }
        #expect(throws: BlobStoreError.tooLarge(key: key, sizeBytes: huge, limitBytes: StoreLayout.maxListedBlobBytes)) {
            try store.read(key: key)
        }
        // Refused without reading any of it (3 GiB would take seconds, and gigabytes of memory).
        #expect(reads.withValue { $0 } == [])
        // The count is real: a blob within the limit is read once.
        let good = try #require(Self.goodKeys.first)
        _ = try store.read(key: good)
        #expect(reads.withValue { $0 } == [good])

        // At the limit exactly a blob reads; one byte more does not (a small limit for the test).
        let small = try DirectoryBlobStore(path: folder.path, maxBlobBytes: 1_000)
        try small.write(key: "at-limit", bytes: Self.blob(7, size: 1_000))
        try small.write(key: "over-limit", bytes: Self.blob(7, size: 1_001))
        #expect(try small.read(key: "at-limit") == Self.blob(7, size: 1_000))
        #expect(throws: BlobStoreError.tooLarge(key: "over-limit", sizeBytes: 1_001, limitBytes: 1_000)) {
            try small.read(key: "over-limit")
        }
        #expect(BlobStoreError.tooLarge(key: key, sizeBytes: huge, limitBytes: 1_000).description.contains("too large"))
    }

    @Test func aFileThatGrowsWhileReadIsRefused() throws {
        let folder = IOTestFolder("store-growing")
        defer { folder.remove() }
        try folder.createFile("f", Self.blob(3, size: 5_000))
        // `size` is what the reader took from fstat; the file may have changed since.
        func read(takingSize size: Int) throws(POSIXFailure) -> [UInt8] {
            let descriptor = try POSIX.open(folder.path("f"), .read)
            defer { POSIX.closeQuietly(descriptor) }
            return try POSIX.readWhole(descriptor, size: size, path: folder.path("f"))
        }
        #expect(try read(takingSize: 5_000) == Self.blob(3, size: 5_000))
        // It shrank: what is there is returned (the envelope then says it is incomplete).
        #expect(try read(takingSize: 9_000) == Self.blob(3, size: 5_000))
        // It grew: refused, without reading more than the size taken and one byte.
        for size in [0, 10, 4_999] {
            do {
                _ = try read(takingSize: size)
                Issue.record("a file that grew was read (size taken \(size))")
            } catch {
                #expect(error.kind == .grewWhileRead)
            }
        }
    }

    /// A library file is read into one buffer of the size `fstat` gave plus a byte; a file that
    /// grew since is read on to its end (a library file may be appended to meanwhile), but never
    /// past the limit, and one that shrank is returned as it is.
    @Test func aLibraryFileIsReadWhateverItsSizeDidSinceItsStatus() throws {
        let folder = IOTestFolder("library-read")
        defer { folder.remove() }
        let content = Self.blob(5, size: 300_000)
        try folder.createFile("f", content)
        func read(takingSize size: Int, limitBytes: Int = 1 << 20) throws(POSIXFailure) -> [UInt8]? {
            let descriptor = try POSIX.open(folder.path("f"), .read)
            defer { POSIX.closeQuietly(descriptor) }
            return try POSIX.readAll(descriptor, size: size, path: folder.path("f"), limitBytes: limitBytes)
        }
        let whole = try POSIX.open(folder.path("f"), .read)
        defer { POSIX.closeQuietly(whole) }
        #expect(try POSIX.readAll(whole, path: folder.path("f"), limitBytes: 1 << 20) == content)
        for size in [300_000, 0, 1, 65_535, 65_536, 150_000, 299_999, 400_000] {
            #expect(try read(takingSize: size) == content, "size taken \(size)")
        }
        // Larger than the limit, from the size taken or once read.
        #expect(try read(takingSize: 300_001, limitBytes: 300_000) == nil)
        #expect(try read(takingSize: 10, limitBytes: 299_999) == nil)
        #expect(try read(takingSize: 10, limitBytes: 300_000) == content)
        try folder.createFile("empty", [])
        let descriptor = try POSIX.open(folder.path("empty"), .read)
        defer { POSIX.closeQuietly(descriptor) }
        #expect(try POSIX.readAll(descriptor, path: folder.path("empty"), limitBytes: 0) == [])
    }

    /// A file of 8 MiB and more is read into a buffer whose middle is advised onto large pages
    /// (Linux): the bytes read are the file's, whatever the buffer's alignment, and the advice
    /// leaves memory already written as it was.
    @Test func aLargeFileReadsTheSameIntoLargePages() throws {
        let folder = IOTestFolder("large-read")
        defer { folder.remove() }
        for size in [(8 << 20) - 1, 8 << 20, (9 << 20) + 4_097] {
            var content = [UInt8](repeating: 0, count: size)
            for index in content.indices { content[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
            try folder.createFile("f", content)
            let descriptor = try POSIX.open(folder.path("f"), .read)
            defer { POSIX.closeQuietly(descriptor) }
            #expect(try POSIX.readAll(descriptor, path: folder.path("f"), limitBytes: 16 << 20) == content, "\(size) bytes")
        }
        var written = [UInt8](repeating: 0, count: 10 << 20)
        for index in stride(from: 0, to: written.count, by: 4_093) { written[index] = UInt8(truncatingIfNeeded: index >> 12) }
        let copy = written
        written.withUnsafeMutableBytes { POSIX.adviseLargePages($0) }
        #expect(written == copy)
    }

    // MARK: Errors

    @Test func missingBlobsAndMissingRoots() throws {
        let folder = IOTestFolder("store-missing")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path("root"))
        #expect(throws: BlobStoreError.notFound(key: "nope")) { try store.read(key: "nope") }
        #expect(throws: BlobStoreError.notFound(key: "no/such/folder")) { try store.read(key: "no/such/folder") }
        try store.delete(key: "nope")
        try store.delete(key: "no/such/folder")
        try store.write(key: "k/v", bytes: [1])
        try store.delete(key: "k/v")
        try store.delete(key: "k/v")
        try store.delete(key: "k")  // a folder: there is no blob to remove
        #expect(throws: BlobStoreError.notFound(key: "k/v")) { try store.read(key: "k/v") }
        #expect(try store.list(prefix: "") == [])

        // The root disappears (an unmounted drive): unavailable, and not recreated.
        try FileManager.default.removeItem(atPath: folder.path("root"))
        expectBlobStoreError(\.isUnavailable) { try store.list(prefix: "") }
        expectBlobStoreError(\.isUnavailable) { try store.read(key: "k") }
        expectBlobStoreError(\.isUnavailable) { try store.write(key: "k", bytes: [1]) }
        expectBlobStoreError(\.isUnavailable) { try store.write(key: "a/b/c", bytes: [1]) }
        expectBlobStoreError(\.isUnavailable) { try store.delete(key: "k") }
        #expect(!FileManager.default.fileExists(atPath: folder.path("root")))
    }

    @Test func aFileInTheWayOfAFolderIsAnIOError() throws {
        let folder = IOTestFolder("store-in-the-way")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path)
        try store.write(key: "a", bytes: [1])
        expectBlobStoreError(\.isIO) { try store.write(key: "a/b", bytes: [2]) }
        try store.write(key: "f/g", bytes: [1])
        expectBlobStoreError(\.isIO) { try store.write(key: "f", bytes: [2]) }
        #expect(try store.read(key: "a") == [1])
        #expect(try store.read(key: "f/g") == [1])
        #expect(try folder.names() == ["a", "f"])
        #expect(try folder.names("f") == ["g"])
    }

    // MARK: Atomicity and concurrency

    @Test func aConcurrentReaderNeverSeesAPartialBlob() throws {
        let folder = IOTestFolder("store-atomic")
        defer { folder.remove() }
        let store = try DirectoryBlobStore(path: folder.path)
        let key = "seg/blob.seg"
        // (reads, missing, bad, done)
        let state = IOTestBox((reads: 0, missing: 0, bad: [String](), done: false))
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            while !state.withValue({ $0.done }) {
                do throws(BlobStoreError) {
                    let bytes = try store.read(key: key)
                    let fill = bytes.first ?? 0
                    let whole = bytes.count == Self.size(ofVersion: fill) && bytes.allSatisfy { $0 == fill }
                    state.withValue {
                        $0.reads += 1
                        if !whole { $0.bad.append("\(bytes.count) bytes starting with \(fill)") }
                    }
                } catch .notFound {
                    state.withValue { $0.missing += 1 }
                } catch {
                    state.withValue { $0.bad.append("\(error)") }
                }
            }
            finished.signal()
        }
        var version: UInt8 = 1
        var writes = 0
        // Writes go on until the reader has read 40 times (a busy machine may starve its
        // thread for a while), for at most 60 seconds.
        let deadline = Date().addingTimeInterval(60)
        while writes < 40 || (state.withValue({ $0.reads }) < 40 && Date() < deadline) {
            try store.write(key: key, bytes: Self.blob(version, size: Self.size(ofVersion: version)))
            version = version == 255 ? 1 : version + 1
            writes += 1
        }
        state.withValue { $0.done = true }
        finished.wait()
        let (reads, _, bad, _) = state.withValue { $0 }
        #expect(bad == [])
        #expect(reads >= 40)
        #expect(try folder.names("seg") == ["blob.seg"])
    }

    @Test func twoStoresOnOneFolderWriteDifferentKeysAtOnce() throws {
        let folder = IOTestFolder("store-two-writers")
        defer { folder.remove() }
        let stores = [try DirectoryBlobStore(path: folder.path), try DirectoryBlobStore(path: folder.path)]
        let failures = IOTestBox([String]())
        let group = DispatchGroup()
        for (writer, store) in stores.enumerated() {
            DispatchQueue.global().async(group: group) {
                for index in 0..<60 {
                    let key = "shared/\(writer)/\(index % 3)/\(index).seg"
                    let bytes = [UInt8](repeating: UInt8(writer * 100 + index), count: 10_000 + index)
                    do {
                        try store.write(key: key, bytes: bytes)
                        // Read back something the other writer may be writing right now.
                        let other = "shared/\(1 - writer)/\(index % 3)/\(index).seg"
                        if let read = try? stores[1 - writer].read(key: other),
                           read != [UInt8](repeating: UInt8((1 - writer) * 100 + index), count: 10_000 + index) {
                            failures.withValue { $0.append("\(other) read partially") }
                        }
                        _ = try store.list(prefix: "shared/")
                    } catch {
                        failures.withValue { $0.append("\(key): \(error)") }
                    }
                }
            }
        }
        group.wait()
        #expect(failures.withValue { $0 } == [])
        let listed = try stores[0].list(prefix: "shared/")
        #expect(listed.count == 120)
        for info in listed {
            let bytes = try stores[1].read(key: info.key)
            #expect(bytes.count == info.sizeBytes)
        }
    }
}
