import MemoCRDT

// The fuzz targets: one per decoder and apply path. Each takes an arbitrary input, turns it into
// the bytes (or the key) its decoder reads according to a mode chosen by the first input byte
// (FuzzInput.swift), decodes, and when the decode succeeds runs semantic checks against honest
// peers built from the public API (FuzzWorld.swift). A decoder may refuse any input with a typed
// error; it may never trap, and what it accepts must pass every check.
//
// `memo-fuzz` (libFuzzer) and the fixture regression tests (`swift test`) run the same `check`.

/// A decoder or apply path under fuzzing.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `TextDelta(decoding:)`, then apply to text peers.
    case textDelta = "text-delta"
    /// `TextCRDT(decoding:replica:)` and `TextCRDT.decodeString(fromEncoded:)`, then merge.
    case textState = "text-state"
    /// `NotebookDelta(decoding:)`, then apply to notebook peers.
    case notebookDelta = "notebook-delta"
    /// `Notebook(decoding:replica:)`, reading every memo, then merge.
    case notebookState = "notebook-state"
    /// `LibraryCore.recover` of a library folder holding the input as its state file.
    case libraryState = "library-state"
    /// `LibraryCore.recover` of a sound state file and the input as its journal.
    case libraryJournal = "library-journal"
    /// `StoreLayout.parse` of a store key.
    case storeKey = "store-key"
    /// `BlobCipher.open` of an encrypted blob (kind 7); in sealed mode the payload is the padded
    /// plaintext, encrypted under the fuzz keyring, so the padding reader is reached too.
    case encryptedBlob = "encrypted-blob"
    /// `KeyBlob(decoding:key:)` of a key blob (kind 8), then opening its keyring.
    case keyBlob = "key-blob"
    /// `S3Answers.listPage` and `S3Answers.error` (on `XMLReader`) of a remote store's answer;
    /// modes: raw, spliced into an honest page, generated (FuzzXML.swift).
    case s3Listing = "s3-listing"
    /// `WebDAVEntry.parse(multistatus:)` of a remote store's answer, then `relativeKey` of every
    /// href; modes as `s3Listing`.
    case webDAVMultistatus = "webdav-multistatus"
    /// `DirectoryListingCache.decoded`: a folder store's listing cache file in the library
    /// (`store-listing-cache`); raw, with its trailing CRC-32C recomputed, or as a whole file
    /// (magic, version, the payload, its checksum).
    case listingCache = "listing-cache"
    /// `LibraryCore.decodeState(list:state:)`: a library's state list (`state-list`, FORMAT.md
    /// "State list") over the fuzz world's state file of 1 MiB, then reads, edits, merges and a
    /// compaction of the library it opens; modes as the library's files (envelope kind 6).
    case stateList = "state-list"

    /// The kind of blob the target's decoder reads (nil for store keys and XML answers).
    var blobKind: BlobKind? {
        switch self {
        case .textDelta: .textDelta
        case .textState: .textState
        case .notebookDelta: .notebookDelta
        case .notebookState: .notebookState
        case .libraryState, .libraryJournal, .stateList: .localFile
        case .storeKey, .s3Listing, .webDAVMultistatus, .listingCache: nil
        case .encryptedBlob: .encryptedBlob
        case .keyBlob: .keyBlob
        }
    }

    /// Runs `input` through the target's decoder and, when it decodes, through the semantic checks.
    ///
    /// A decoder that refuses the input with a typed error passes. A trap inside the engine stops
    /// the process (that is what the fuzzer looks for).
    ///
    /// - Throws: ``FuzzFailure`` when a decoded value fails a semantic check (a round trip that
    ///   changes it, a broken invariant, peers at equal versions with different texts, a refused
    ///   apply that changed its target).
    public func check(_ input: [UInt8]) throws(FuzzFailure) {
        let input = FuzzInput(input)
        switch self {
        case .textDelta: try Self.checkTextDelta(input.blob(kind: .textDelta))
        case .textState: try Self.checkTextState(input.blob(kind: .textState))
        case .notebookDelta: try Self.checkNotebookDelta(input.blob(kind: .notebookDelta))
        case .notebookState: try Self.checkNotebookState(input.blob(kind: .notebookState))
        case .libraryState: try Self.checkLibraryState(input.blob(kind: .localFile))
        case .libraryJournal: try Self.checkLibraryJournal(input.journal())
        case .storeKey: try Self.checkStoreKey(input.storeKey())
        case .encryptedBlob: try Self.checkEncryptedBlob(input)
        case .keyBlob: try Self.checkKeyBlob(input.blob(kind: .keyBlob))
        case .s3Listing: try Self.checkS3Answers(input)
        case .webDAVMultistatus: try Self.checkWebDAVAnswer(input)
        case .listingCache: try Self.checkListingCache(input.listingCache())
        case .stateList: try Self.checkStateList(input.blob(kind: .localFile))
        }
    }

    /// Seed inputs for the target, made with the public API (each blob of the honest histories
    /// in every mode).
    public var seeds: [[UInt8]] { FuzzSeeds.seeds(for: self) }
}

/// The kinds of semantic check, so that a fuzzing campaign can skip one whose failure is already
/// reported (`MEMO_FUZZ_SKIP`, Tests/Fuzz/README.md) and go on looking for others.
public enum FuzzCheck: String, CaseIterable, Sendable {
    /// Invariants, refusals that change nothing, the library's open and repair contract, store
    /// key layout: everything not named below.
    case general
    /// The encoding of an accepted value (decoded, or reached by applying one) decodes to an
    /// equal value.
    case roundTrip = "round-trip"
    /// Replicas at equal versions hold equal texts and memos.
    case convergence
}

/// A semantic check that failed on a decoded input.
public struct FuzzFailure: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String
    /// The kind of check that failed.
    public var check: FuzzCheck

    /// A failure of a check of kind `check`, described by `description`.
    public init(_ description: String, check: FuzzCheck = .general) {
        self.description = description
        self.check = check
    }
}

/// The kinds of check `memo-fuzz` skips (`MEMO_FUZZ_SKIP`); empty in tests. Set once, before
/// the first input.
nonisolated(unsafe) var skippedChecks: Set<FuzzCheck> = []

/// Throws `FuzzFailure(message)` unless `condition` holds or checks of kind `check` are skipped.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String, check: FuzzCheck = .general) throws(FuzzFailure) {
    if !condition && !skippedChecks.contains(check) { throw FuzzFailure(message(), check: check) }
}

/// Runs a check that throws another error type, turning its error into a `FuzzFailure`.
func required<T>(_ what: String, check: FuzzCheck = .general, _ body: () throws -> T) throws(FuzzFailure) -> T {
    do {
        return try body()
    } catch {
        throw FuzzFailure("\(what): \(error)", check: check)
    }
}
