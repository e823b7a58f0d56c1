import Foundation
import MemoCRDT
@testable import MemoNotes
@testable import MemoSync
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Numbers the documentation gives an app or a user, each checked where it is set: a change of
/// one of them breaks a test here until the sentence that promises it changes too.
@Suite struct DocumentedDefaultsTests {
    /// WritingABlobStore.md: "up to 8 attempts within 20 seconds by default".
    @Test func aRetryPolicyByDefaultTriesEightTimesWithinTwentySeconds() {
        let policy = RetryPolicy()
        #expect(policy.attemptsMax == 8)
        #expect(policy.deadlineMilliseconds == 20_000)
    }

    /// README: a sync keeps "up to 8 requests in flight" (and its sync loop example, "Up to 8
    /// store operations in flight"): the default; that a sync keeps at most that many running
    /// is `SyncConcurrencyTests.aBootstrapKeepsUpToMaxInFlightOperationsRunning`.
    @Test func aSyncKeepsUpToEightOperationsInFlightByDefault() {
        #expect(SyncConfiguration().maxInFlight == 8)
    }

    /// SERVE.md: a received change merges in pieces of "at most 2,048 operations";
    /// EmbeddingInANotesApp.md: a replica keeps "1,000" texts decoded by default, and its event
    /// stream "keeps the newest 10,000 between calls".
    @Test func mergePiecesDecodedTextsAndQueuedEventsKeepTheirDocumentedNumbers() {
        #expect(SyncConfiguration().mergePieceOperationsMax == 2_048)
        #expect(Replica.defaultDecodedTextLimit == 1_000)
        #expect(EventHub.queuedEventsMax == 10_000)
    }

    /// Replica.releaseDecodedTexts(keepingMostRecent:): texts are turned back "a few at a time,
    /// the lock released between": 4 per hold (`decodedTextsReleasedPerLock`); BENCHMARKS.md: the
    /// pass that lists them "takes 2,048 memos per hold". That a release holds the lock for no
    /// more is `ReplicaNeverBlocksTests.aReleaseOfDecodedTextsHoldsTheLockForAFewTextsAtATime`.
    @Test func aReleaseOfDecodedTextsTakesFourTextsOr2048MemosPerHoldOfTheLock() {
        #expect(Replica.decodedTextsReleasedPerLock == 4)
        #expect(Replica.memosListedPerLock == 2_048)
    }

    /// FORMAT.md: the writer's snapshot rules ("Publishing": a snapshot every 20,000 operations
    /// or after 4 segments; past a newest snapshot of 1 MiB, once the segments after it weigh
    /// 25 % of it or number 128), a folder store's depth ("more than 32 levels" is left out),
    /// and the sync state's memory of bad blobs ("At most 20,000 blobs are remembered").
    @Test func theWritersRulesAndTheStoresLimitsKeepTheirDocumentedNumbers() {
        let configuration = SyncConfiguration()
        #expect(configuration.snapshotEveryOperations == 20_000 && configuration.snapshotAfterSegments == 4)
        #expect(configuration.snapshotAmortizedAboveBytes == 1 << 20)
        #expect(configuration.snapshotAmortizedSegmentBytesPercent == 25 && configuration.snapshotAfterSegmentsMax == 128)
        #expect(DirectoryBlobStore.maxFolderDepth == 32)
        #expect(SyncState.skippedBlobsMax == 20_000)
    }

    /// README: a passphrase guess costs "32 MiB" (scrypt: 128 * r * N bytes), with n = 2^15,
    /// r = 8, p = 1 (KeyBlob.swift, FORMAT.md "Keys").
    @Test func aPassphraseGuessCosts32MiB() {
        let derivation = KeyDerivation(salt: [UInt8](repeating: 0, count: 16))
        #expect(derivation.log2N == 15 && derivation.r == 8 && derivation.p == 1)
        #expect(128 * derivation.r * (1 << derivation.log2N) == 32 * 1024 * 1024)
    }

    /// FORMAT.md "Folder store listing cache": a cache file is read up to 2^28 bytes, a folder's
    /// record settles after two reads 3 s apart and is trusted up to 600 s, and the file is
    /// written again after 64 changed records. A cache file over the limit is not read: the
    /// listing is a fresh one, and the cache is written anew.
    @Test func theListingCacheKeepsItsDocumentedNumbers() throws {
        #expect(DirectoryListingCache.maxFileBytes == 1 << 28)
        #expect(DirectoryListingCache.settleSeconds == 3)
        #expect(DirectoryListingCache.maxTrustSeconds == 600)
        #expect(DirectoryListingCache.saveAfterChangedRecords == 64)

        let folder = IOTestFolder("listing-cache-limit")
        try folder.createFolder("store")
        defer { folder.remove() }
        try folder.createFile("store/memosync/v1/aaaa/segments/1.seg", [1, 2, 3])
        let cachePath = folder.path("store-listing-cache")
        let descriptor = open(cachePath, O_WRONLY | O_CREAT, 0o644)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(DirectoryListingCache.maxFileBytes + 1)) == 0)
        close(descriptor)
        let cached = try DirectoryBlobStore(path: folder.path("store"), listingCachePath: cachePath)
        let fresh = try DirectoryBlobStore(path: folder.path("store"))
        #expect(try cached.listing(prefix: "").blobs.map(\.key) == (try fresh.listing(prefix: "").blobs.map(\.key)))
        #expect(try cached.listing(prefix: "").blobs.map(\.key) == ["memosync/v1/aaaa/segments/1.seg"])
    }

    /// FORMAT.md "Local library": a state file's generation is at most 2^62 (each compaction adds
    /// one); a larger one is a damaged file, refused.
    @Test func aStateGenerationPast2To62IsRefused() throws {
        let notebook = Notebook(replica: ReplicaID(9))
        let atLimit = (try LibraryCore.encodeState(generation: LibraryCore.maxGeneration, notebook: notebook, syncState: SyncState()).state)
        #expect(LibraryCore.maxGeneration == 1 << 62)
        #expect(try LibraryCore.decodeState(atLimit).generation == 1 << 62)
        let past = (try LibraryCore.encodeState(generation: LibraryCore.maxGeneration + 1, notebook: notebook, syncState: SyncState()).state)
        #expect {
            try LibraryCore.decodeState(past)
        } throws: { error in
            guard case let .corruptLibrary(_, reason) = error as? ReplicaError else { return false }
            return reason.contains("generation")
        }
    }
}
