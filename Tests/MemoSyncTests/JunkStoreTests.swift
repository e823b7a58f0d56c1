import Foundation
import Synchronization
import Testing

@testable import MemoSync
import MemoSyncTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A store full of junk (issue 25): a blob found bad is remembered by key, listed size and
/// revision, in the library, and not read again until it changes; a blob larger than any writer
/// of the format makes is refused from its listed size, never read; each bad entry is reported
/// once, across processes.
@Suite struct JunkStoreTests {
    /// Any store, with every read counted by key.
    final class CountingStore: BlobStore {
        let inner: any BlobStore
        private let counts = Mutex<[String: Int]>([:])

        init(_ inner: any BlobStore) { self.inner = inner }

        func reads(of key: String) -> Int { counts.withLock { $0[key] ?? 0 } }
        var totalReads: Int { counts.withLock { $0.values.reduce(0, +) } }
        func forget() { counts.withLock { $0 = [:] } }

        func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] { try await inner.list(prefix: prefix) }
        func listing(prefix: String) async throws(BlobStoreError) -> BlobListing { try await inner.listing(prefix: prefix) }
        func read(key: String) async throws(BlobStoreError) -> [UInt8] {
            counts.withLock { $0[key, default: 0] += 1 }
            return try await inner.read(key: key)
        }
        func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) { try await inner.write(key: key, bytes: bytes) }
        func delete(key: String) async throws(BlobStoreError) { try await inner.delete(key: key) }
    }

    /// Junk named like a segment, a snapshot and a head of replicas nobody has.
    static let junkKeys = [
        "memosync/v1/00000000000000a1/segments/0000000000-0000000005-0123456789abcdef.seg",
        "memosync/v1/00000000000000a2/snapshots/000000000007-0123456789abcdef.snap",
        "memosync/v1/00000000000000a3/heads/0123456789abcdef.head",
    ]

    static func junk(_ seed: UInt8, count: Int = 300) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    /// FORMAT.md, "Store layout": "a reader checks the named id's range and skips a segment
    /// that does not match its name". A valid segment of Alice's stored again under names that
    /// claim other operations (a longer range of her id, her operations under another id) is
    /// skipped as corrupt, applies nothing, and does not stop the real one from being read.
    @Test func aSegmentThatIsNotWhatItsNameSaysIsSkipped() async throws {
        let environment = TestEnvironment(seed: 27)
        let store = InMemoryBlobStore()
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let memo = try alice.createMemo(text: "hello")
        try await alice.sync(with: store)
        let real = try #require(store.keys.first { $0.contains("/segments/") })
        guard case let .segment(replica, start, end)? = StoreLayout.parse(real) else { Issue.record("\(real)"); return }
        let bytes = try store.read(key: real)
        let misnamed = [
            StoreLayout.segmentKey(replica: replica, counters: start..<end + 5, bytes: bytes),
            StoreLayout.segmentKey(replica: ReplicaID(0xB0B), counters: start..<end, bytes: bytes),
        ]
        for key in misnamed { try store.put(key: key, bytes: bytes) }
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let report = try await bob.sync(with: store)
        #expect(bob.notebook.memo(memo)?.text == "hello")
        #expect(Set(report.skipped.map(\.key)) == Set(misnamed), "\(report.skipped)")
        for skipped in report.skipped {
            #expect("\(skipped.reason)".contains("not the ones its name says"), "\(skipped)")
        }
        #expect(!bob.notebook.version.replicas.contains(ReplicaID(0xB0B)))
    }

    @Test func junkIsReadUntilFoundBadThenNotAgainUntilItChanges() async throws {
        let environment = TestEnvironment(seed: 25)
        let inner = InMemoryBlobStore()
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let memo = try alice.createMemo(text: "hello")
        try await alice.sync(with: inner)
        for (index, key) in Self.junkKeys.enumerated() { try inner.put(key: key, bytes: Self.junk(UInt8(index))) }
        let store = CountingStore(inner)
        let disk = MemoryDisk()
        var bob = try Replica(disk: disk, environment: environment.environment)
        // First sync: each junk blob read once and reported (bytes that are no MemoSync blob
        // at all, as many as listed, from a store that tells revisions: bad for good at once);
        // then not read at all.
        for sync in 1...5 {
            store.forget()
            let report = try await bob.sync(with: store)
            for key in Self.junkKeys {
                #expect(store.reads(of: key) == (sync == 1 ? 1 : 0), "sync \(sync): \(key)")
            }
            #expect(Set(report.skipped.map(\.key)) == (sync == 1 ? Set(Self.junkKeys) : []), "sync \(sync)")
            #expect(report.skippedAgainCount == (sync == 1 ? 0 : 3), "sync \(sync)")
            #expect(report.blobsRemembered == (sync == 1 ? 0 : 3), "sync \(sync)")
            #expect(bob.notebook.memo(memo)?.text == "hello")
            #expect(report.isComplete)
            if sync == 3 {
                // Another process: the library remembers (its sync state).
                await bob.close()
                bob = try Replica(disk: disk, environment: environment.environment)
            }
        }
        #expect(bob.syncState.skippedBlobs.count == 3)
        // One junk blob changes (same size, new bytes: a new revision): read again, and
        // reported as the new problem it is; the others are not read.
        try inner.put(key: Self.junkKeys[0], bytes: Self.junk(9))
        store.forget()
        let changed = try await bob.sync(with: store)
        #expect(store.reads(of: Self.junkKeys[0]) == 1)
        #expect(store.reads(of: Self.junkKeys[1]) == 0 && store.reads(of: Self.junkKeys[2]) == 0)
        #expect(changed.skipped.map(\.key) == [Self.junkKeys[0]] && changed.skippedAgainCount == 2)
        // Gone from the store: forgotten.
        try inner.delete(key: Self.junkKeys[1])
        store.forget()
        let after = try await bob.sync(with: store)
        #expect(after.skippedAgainCount == 2)
        #expect(bob.syncState.skippedBlobs.keys.sorted() == [Self.junkKeys[0], Self.junkKeys[2]])
    }

    /// Junk from a store that tells no revision (``BlobInfo/revision`` empty) is read by two
    /// syncs: without a revision a file filled in place at its final size would look the same
    /// to the listing, so only the same bytes read twice make it bad for good.
    @Test func junkFromAStoreThatTellsNoRevisionIsReadTwice() async throws {
        let environment = TestEnvironment(seed: 28)
        let inner = InMemoryBlobStore()
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let memo = try alice.createMemo(text: "hello")
        try await alice.sync(with: inner)
        for (index, key) in Self.junkKeys.enumerated() { try inner.put(key: key, bytes: Self.junk(UInt8(index))) }
        let store = CountingStore(NoRevisionStore(inner))
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        for sync in 1...4 {
            store.forget()
            let report = try await bob.sync(with: store)
            for key in Self.junkKeys {
                #expect(store.reads(of: key) == (sync <= 2 ? 1 : 0), "sync \(sync): \(key)")
            }
            #expect(report.blobsRemembered == (sync <= 2 ? 0 : 3), "sync \(sync)")
            #expect(bob.notebook.memo(memo)?.text == "hello")
        }
    }

    /// A store whose listing tells no revision.
    final class NoRevisionStore: BlobStore {
        let inner: InMemoryBlobStore
        init(_ inner: InMemoryBlobStore) { self.inner = inner }
        func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] {
            try inner.list(prefix: prefix).map { BlobInfo(key: $0.key, sizeBytes: $0.sizeBytes) }
        }
        func read(key: String) throws(BlobStoreError) -> [UInt8] { try inner.read(key: key) }
        func write(key: String, bytes: [UInt8]) throws(BlobStoreError) { try inner.write(key: key, bytes: bytes) }
        func delete(key: String) throws(BlobStoreError) { try inner.delete(key: key) }
    }

    @Test func aBadBlobWhoseBytesAreTheOnesItsNameSaysIsReadOnce() async throws {
        let environment = TestEnvironment(seed: 26)
        let inner = InMemoryBlobStore()
        // Bytes that are not a segment, under the key a writer would give them.
        let bytes = Self.junk(3)
        let key = "memosync/v1/00000000000000b1/segments/0000000000-0000000004-\(StoreLayout.hash(bytes)).seg"
        try inner.put(key: key, bytes: bytes)
        let store = CountingStore(inner)
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        for sync in 1...3 {
            store.forget()
            let report = try await bob.sync(with: store)
            #expect(store.reads(of: key) == (sync == 1 ? 1 : 0), "sync \(sync)")
            #expect(report.skipped.map(\.key) == (sync == 1 ? [key] : []))
        }
    }

    @Test func aBlobDamagedOnTheWayIsNotTakenAsBadForGood() async throws {
        // A read that gives other damaged bytes each time: read at every sync, and used once a
        // read is whole.
        let environment = TestEnvironment(seed: 27)
        let inner = InMemoryBlobStore()
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let memo = try alice.createMemo(text: "on the way")
        let report = try await alice.sync(with: inner)
        let segment = try #require(report.publishedSegment)
        let flipping = FlippingStore(inner: inner, key: segment)
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        for sync in 1...4 {
            let before = flipping.reads
            _ = try await bob.sync(with: flipping)
            #expect(flipping.reads == before + 1, "sync \(sync)")
            #expect(bob.notebook.memo(memo) == nil)
        }
        flipping.stopFlipping()
        _ = try await bob.sync(with: flipping)
        #expect(bob.notebook.memo(memo)?.text == "on the way")
    }

    /// A store that flips another bit of `key` at each read (damage on the way).
    final class FlippingStore: BlobStore {
        let inner: InMemoryBlobStore
        let key: String
        private let state = Mutex<(reads: Int, flipping: Bool)>((0, true))

        init(inner: InMemoryBlobStore, key: String) {
            self.inner = inner
            self.key = key
        }

        var reads: Int { state.withLock { $0.reads } }
        func stopFlipping() { state.withLock { $0.flipping = false } }

        func list(prefix: String) throws(BlobStoreError) -> [BlobInfo] { try inner.list(prefix: prefix) }
        func read(key: String) throws(BlobStoreError) -> [UInt8] {
            var bytes = try inner.read(key: key)
            guard key == self.key else { return bytes }
            let (count, flipping) = state.withLock { state in
                state.reads += 1
                return (state.reads, state.flipping)
            }
            if flipping { bytes[(count * 7) % bytes.count] ^= 0x10 }
            return bytes
        }
        func write(key: String, bytes: [UInt8]) throws(BlobStoreError) { try inner.write(key: key, bytes: bytes) }
        func delete(key: String) throws(BlobStoreError) { try inner.delete(key: key) }
    }

    /// README: "a file larger than any blob may be (refused from its size, never read)".
    @Test func aFileLargerThanAnyBlobMayBeIsRefusedFromItsSizeNeverRead() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memosync-junk-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = try DirectoryBlobStore(path: folder)
        let environment = TestEnvironment(seed: 28)
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let memo = try alice.createMemo(text: "beside a huge file")
        try await alice.sync(with: directory)
        // A sparse file one byte larger than any blob a writer of the format produces (encrypted
        // or not), named like a snapshot: no disk used.
        let key = "memosync/v1/00000000000000c1/snapshots/000000000009-0123456789abcdef.snap"
        let size = StoreLayout.maxListedBlobBytes + 1
        try FileManager.default.createDirectory(atPath: folder + "/memosync/v1/00000000000000c1/snapshots", withIntermediateDirectories: true)
        let descriptor = open(folder + "/" + key, O_WRONLY | O_CREAT, 0o644)
        try #require(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(size)) == 0)
        close(descriptor)
        let store = CountingStore(directory)
        let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
        let first = try await bob.sync(with: store)
        #expect(store.reads(of: key) == 0)
        #expect(first.skipped == [SkippedBlob(key: key, reason: .tooLarge(sizeBytes: size, limitBytes: StoreLayout.maxListedBlobBytes))])
        #expect(bob.notebook.memo(memo)?.text == "beside a huge file")
        // Reported once, never read.
        let second = try await bob.sync(with: store)
        #expect(store.reads(of: key) == 0)
        #expect(second.skipped.isEmpty && second.skippedAgainCount == 1)
        // The bound is what a writer of the format can produce: 256 MiB, encrypted 256 MiB
        // plus its padding and framing; the store refuses to read beyond it too.
        #expect(StoreLayout.maxBlobBytes == 1 << 28)
        #expect(StoreLayout.maxListedBlobBytes == BlobCipher.paddedLength(StoreLayout.maxBlobBytes + 5) + BlobCipher.fixedOverheadBytes)
        #expect(throws: BlobStoreError.tooLarge(key: key, sizeBytes: size, limitBytes: StoreLayout.maxListedBlobBytes)) {
            try directory.read(key: key)
        }
    }

    /// An encrypted store lists what it stores (ciphertext, padded): the listed bound is the
    /// largest plain blob's encrypted size, so a blob a writer may write is never refused from
    /// its listed size, encrypted or not.
    @Test func anEncryptedBlobOfTheLargestSizeIsListedWithinTheBound() throws {
        let cipher = BlobCipher(keyring: EncryptedBlobFormatTests.keyring, random: SeededEncryptionRandom(seed: 25))
        for size in [1, 400, 511, 16_379, 16_380, 100_000, 250_001] {
            let sealed = try cipher.seal(key: "memosync/v1/0000000000000001/heads/0000000000000000.head", plain: [UInt8](repeating: 7, count: size))
            #expect(sealed.count <= StoreLayout.listedBytesMax(forBlobBytes: size), "\(size)")
            #expect(StoreLayout.listedBytesMax(forBlobBytes: size) - sealed.count <= 16_384 + 48, "\(size)")
        }
    }

    @Test func aSyncNeverWritesABlobLargerThanReadersRead() async throws {
        var configuration = SyncConfiguration()
        configuration.maxBlobBytes = 400
        let environment = TestEnvironment(seed: 29)
        let inner = InMemoryBlobStore()
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment, configuration: configuration)
        try alice.createMemo(text: String(repeating: "a long memo ", count: 60))
        let report = try await alice.sync(with: inner)
        #expect(!report.isComplete)
        #expect(report.errors.contains { problem in
            if case let .tooLarge(_, size, limit)? = problem.storeError { return size > 400 && limit == 400 }
            return false
        })
        #expect(inner.keys.allSatisfy { !$0.contains("/segments/") && !$0.contains("/snapshots/") })
        #expect(alice.unpublishedOperationCount > 0)
        // A reader with the same limit skips a listed blob larger than it can hold, unread.
        let small = try Replica(disk: MemoryDisk(), environment: environment.environment)
        try small.createMemo(text: String(repeating: "x", count: 2_000))
        try await small.sync(with: inner)
        let segment = try #require(inner.keys.first { $0.contains("/segments/") })
        let store = CountingStore(inner)
        _ = try await alice.sync(with: store)
        #expect(store.reads(of: segment) == 0)
    }

    @Test func theMemoryOfBadBlobsIsBounded() async throws {
        // Junk that does not even parse as a key: refused from the listing, remembered for the
        // report; more than the library keeps.
        let inner = InMemoryBlobStore()
        for index in 0..<(SyncState.skippedBlobsMax + 5) {
            try inner.put(key: "memosync/v1/junk/\(index)", bytes: [1])
        }
        let bob = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 30).environment)
        let report = try await bob.sync(with: inner)
        #expect(report.skipped.count == SyncState.skippedBlobsMax + 5)
        #expect(bob.syncState.skippedBlobs.count == SyncState.skippedBlobsMax)
        // FORMAT.md: "the first by key; the rest are read and reported at every sync".
        let keys = (0..<(SyncState.skippedBlobsMax + 5)).map { "memosync/v1/junk/\($0)" }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(Set(bob.syncState.skippedBlobs.keys) == Set(keys.prefix(SyncState.skippedBlobsMax)))
        let again = try await bob.sync(with: inner)
        #expect(Set(again.skipped.map(\.key)) == Set(keys.suffix(5)), "\(again.skipped.map(\.key))")
        #expect(again.skippedAgainCount == SyncState.skippedBlobsMax)
    }

    /// A sync that learns nothing new of a store full of junk recorded its whole sync state
    /// again, its heads and blobs found bad included (636 KB at every `memo sync` of the junk
    /// benchmark's store), because its last sync time moved. Its record now leaves out the
    /// parts that are those in effect before it (`hasSyncState` 2, record version 5);
    /// reopening gives the whole state back, and the junk is still not read; a compaction
    /// writes it whole into the state file again.
    @Test func aSyncThatLearnsNothingNewDoesNotRecordTheBlobsFoundBadAgain() async throws {
        let environment = TestEnvironment(seed: 31)
        let inner = InMemoryBlobStore()
        let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
        _ = try alice.createMemo(text: "hello")
        try await alice.sync(with: inner)
        // Names of no key, and junk named like a segment, a snapshot and a head of replicas
        // nobody has (the segment's name claims operations: the reader's head says it lacks
        // them, so it has a head of its own to keep).
        let junkKeys = (0..<200).map { "memosync/v1/junk/notes-\($0).txt" } + Self.junkKeys
        for (index, key) in junkKeys.enumerated() { try inner.put(key: key, bytes: Self.junk(UInt8(index % 200))) }
        let store = CountingStore(inner)
        let disk = MemoryDisk()
        var bob = try Replica(disk: disk, environment: environment.environment)
        try await bob.sync(with: store)
        // As the file keeps them: a blob bad for good keeps no evidence.
        let remembered = bob.syncState.skippedBlobs.mapValues { memory in
            var kept = memory
            if kept.isConfirmed { kept.evidence = 0 }
            return kept
        }
        #expect(remembered.count == junkKeys.count)
        let fullBytes = LibraryCore.encodeSyncState(bob.syncState).count
        let journal = LibraryCore.journalFileName(generation: bob.library.generation)
        /// The versions and sizes of the journal's records.
        func records() throws -> [(version: UInt8, bytes: Int)] {
            let bytes = try #require(try disk.read(file: journal))
            return LibraryJournal.parts(bytes) { _, _ in true }.compactMap { part in
                guard case let .record(range, _, version, _) = part else { return nil }
                return (version, range.count)
            }
        }
        let before = try records().count
        for sync in 1...3 {
            environment.advance(milliseconds: 1_000)
            let report = try await bob.sync(with: store)
            #expect(report.skippedAgainCount == junkKeys.count, "sync \(sync)")
            let added = try records().dropFirst(before + sync - 1)
            #expect(added.count == 1, "sync \(sync): \(added.map(\.bytes))")
            #expect(added.allSatisfy { $0.version == 5 && $0.bytes < 200 }, "sync \(sync): \(added.map(\.bytes)) against \(fullBytes)")
        }
        let state = bob.syncState
        #expect(state.ownHead != nil)
        bob.closeNow()
        bob = try Replica(disk: disk, environment: environment.environment)
        let reopened = bob.syncState
        #expect(reopened.lastSyncMilliseconds == state.lastSyncMilliseconds && reopened.lineage == state.lineage)
        #expect(reopened.ownHead == state.ownHead && reopened.otherHeads == state.otherHeads && reopened.readSnapshots == state.readSnapshots)
        #expect(reopened.ownSegments == state.ownSegments && reopened.ownSnapshots == state.ownSnapshots && reopened.published == state.published)
        #expect(reopened.skippedBlobs == remembered)
        store.forget()
        _ = try await bob.sync(with: store)
        #expect(junkKeys.allSatisfy { store.reads(of: $0) == 0 })
        try bob.compactNow()
        bob.closeNow()
        bob = try Replica(disk: disk, environment: environment.environment)
        #expect(bob.syncState.skippedBlobs == remembered)
    }

    /// `hasSyncState` 2: each mask of parts left out decodes to the state without them, which
    /// the parts taken from the state before complete; it is only read in a record of version 5
    /// (in a version 4 record, as an older build wrote, it is not a record), and an empty mask
    /// or an unknown part is not a record either.
    @Test func aSyncStateWithPartsAsBeforeNeedsRecordVersionFive() throws {
        var state = SyncState()
        state.lastSyncMilliseconds = 7
        state.readSnapshots = [SyncState.ReadSnapshot(key: "memosync/v1/00000000000000a1/snapshots/000000000007-0123456789abcdef.snap", version: VersionVector())]
        state.skippedBlobs = ["junk": SkipMemory(sizeBytes: 1, revisionHash: 0, reasonCode: 4, evidence: 0, isConfirmed: true)]
        var earlier = SyncState()
        earlier.lastSyncMilliseconds = 3
        earlier.readSnapshots = state.readSnapshots
        earlier.skippedBlobs = state.skippedBlobs
        #expect(state.partsAsIn(earlier) == .all && state.partsAsIn(SyncState()).isEmpty)
        for parts in [SyncState.Parts.heads, .blobsFoundBad, .all] {
            let framed = LibraryCore.encodeRecord(generation: 0, delta: NotebookDelta(), syncState: state, partsAsBefore: parts)
            let envelope = Array(framed.dropFirst(LibraryJournal.headerBytes))
            let (body, version) = try BlobEnvelope.open(envelope, kind: .localFile, versions: 1...5)
            #expect(version == 5)
            let record = try #require(LibraryCore.decodeRecordBody(envelope, body, version: version, generation: 0, replica: ReplicaID(1)))
            var decoded = try #require(record.syncState)
            #expect(record.partsAsBefore == parts && decoded.lastSyncMilliseconds == 7)
            #expect(decoded.readSnapshots.isEmpty == parts.contains(.heads) && decoded.skippedBlobs.isEmpty == parts.contains(.blobsFoundBad))
            decoded.takeParts(parts, from: earlier)
            #expect(decoded == state)
            #expect(LibraryCore.decodeRecordBody(envelope, body, version: 4, generation: 0, replica: ReplicaID(1)) == nil)
            // The mask byte follows the 2: zero or an unknown part is refused.
            var bodyBytes = Array(envelope[body])
            for bad: UInt8 in [0, 4] {
                let index = try #require(Self.maskIndex(in: bodyBytes))
                bodyBytes[index] = bad
                #expect(LibraryCore.decodeRecordBody(bodyBytes, bodyBytes.indices, version: 5, generation: 0, replica: ReplicaID(1)) == nil)
                bodyBytes[index] = parts.rawValue
            }
        }
        // Without a change that could be left out, a record stays version 4.
        let plain = LibraryCore.encodeRecord(generation: 0, delta: NotebookDelta(), syncState: state)
        #expect(try BlobEnvelope.open(Array(plain.dropFirst(LibraryJournal.headerBytes)), kind: .localFile, versions: 1...5).version == 4)
    }

    /// Where a record body's mask byte is: after the tag, the generation 0 and the delta.
    static func maskIndex(in body: [UInt8]) -> Int? {
        var reader = ByteReader(body, from: 0, to: body.count)
        guard (try? reader.byte()) == 2, (try? reader.varint()) == 0, (try? reader.lengthPrefixedRange()) != nil,
            (try? reader.byte()) == 2
        else { return nil }
        return reader.position
    }

    @Test func theSyncStateKeepsBadBlobsAndForgetsThemUnderAnotherReaderGeneration() throws {
        var state = SyncState()
        state.skippedBlobs = [
            "memosync/v1/00000000000000a1/segments/0000000000-0000000005-0123456789abcdef.seg":
                SkipMemory(sizeBytes: 300, revisionHash: 7, reasonCode: 2, evidence: 0, isConfirmed: true),
            "memosync/v1/00000000000000a1/segments/0000000000-0000000005-0123456789abcdee.seg":
                SkipMemory(sizeBytes: 12, revisionHash: 0, reasonCode: 1, evidence: 99, isConfirmed: false),
            "junk": SkipMemory(sizeBytes: 1, revisionHash: 0, reasonCode: 4, evidence: 0, isConfirmed: true),
        ]
        let bytes = LibraryCore.encodeSyncState(state)
        let decoded = try LibraryCore.decodeSyncState(bytes, version: LibraryCore.formatVersion, replica: ReplicaID(1))
        #expect(decoded == state)
        #expect(LibraryCore.encodeSyncState(decoded) == bytes, "canonical")
        // Version 3 has none.
        var older = state
        older.skippedBlobs = [:]
        let version3 = Array(LibraryCore.encodeSyncState(older).dropLast(2))  // generation 1, count 0
        #expect(try LibraryCore.decodeSyncState(version3, version: 3, replica: ReplicaID(1)) == older)
        // Written under another reader generation: read, checked and forgotten.
        var otherGeneration = LibraryCore.encodeSyncState(older)
        otherGeneration.removeLast(2)
        var rest = Array(bytes[otherGeneration.count...])
        rest[0] = UInt8(StoreLayout.readerGeneration + 1)
        let forgotten = try LibraryCore.decodeSyncState(otherGeneration + rest, version: LibraryCore.formatVersion, replica: ReplicaID(1))
        #expect(forgotten.skippedBlobs.isEmpty)
        // A key sharing less than it could, or out of order: refused.
        var damaged = bytes
        damaged[otherGeneration.count + 2] ^= 0x01
        #expect(throws: DecodingError.self) {
            try LibraryCore.decodeSyncState(damaged, version: LibraryCore.formatVersion, replica: ReplicaID(1))
        }
    }
}
