/// A blob in a store, as a listing shows it.
public struct BlobInfo: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The blob's key: a path relative to the store's root, with "/" between components.
    public var key: String
    /// Its size in bytes, as listed (a blob still being written or downloaded may show less).
    public var sizeBytes: Int
    /// What else the store tells about this version of the blob, in any form the store likes
    /// (an S3 ETag, a WebDAV `getetag`, a file's inode and change times), or "" when it tells
    /// nothing: a value that differs from one listing to the next means the blob may have
    /// changed. A sync remembers a blob it found unusable by its key, size and revision, and
    /// reads it again only when one of them changes (FORMAT.md, "Blobs found bad"); a store
    /// whose blobs can be replaced in place under one key at the same size should give one.
    /// At most 256 UTF-8 bytes are kept.
    public var revision: String

    /// Creates a listing entry.
    public init(key: String, sizeBytes: Int, revision: String = "") {
        self.key = key
        self.sizeBytes = sizeBytes
        self.revision = revision.utf8.count <= Self.revisionBytesMax ? revision : String(decoding: revision.utf8.prefix(Self.revisionBytesMax), as: UTF8.self)
    }

    /// The most UTF-8 bytes of ``revision`` kept.
    public static let revisionBytesMax = 256

    public var description: String { "\(key) (\(sizeBytes) bytes)" }
}

/// What went wrong talking to a blob store.
public enum BlobStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No blob has this key (or it was deleted meanwhile).
    case notFound(key: String)
    /// The key is not acceptable (empty, absolute, "..", a control character).
    case invalidKey(String)
    /// The store has no room left.
    case full
    /// The store cannot be reached now (a missing folder, a network error); try later.
    case unavailable(reason: String)
    /// Another input/output failure.
    case io(reason: String)
    /// The blob is larger than the store reads (``StoreLayout/maxListedBlobBytes`` for MemoSync's
    /// stores): refused without reading it (or, when it grew past the limit while being read,
    /// without reading more). `sizeBytes` is its size as last seen.
    case tooLarge(key: String, sizeBytes: Int, limitBytes: Int)
    /// The task performing the operation was cancelled. A cancelled write or deletion may still
    /// have happened; a sync counts it as not done.
    case cancelled
    /// An encrypted store (``EncryptedBlobStore``) refused the blob's bytes: not encrypted,
    /// damaged, under an unknown key, or failing authentication. A sync skips and reports it.
    /// `key` is the key the store itself holds it under (its `memosync/e1/` key).
    case undecryptable(key: String, reason: BlobRefusal)
    /// The store is encrypted (it holds a key blob) and was used without its key: a sync stops
    /// after the listing, having read and written nothing. Sync through ``EncryptedBlobStore``.
    case encrypted
    /// The server refused the request's credentials or permissions: wrong or expired
    /// credentials, a signature it does not accept, a clock too far from the server's, no access
    /// to the bucket or folder. Retrying does not help until the credentials (or the clock) are
    /// fixed. `code` is the server's error code ("AccessDenied", "SignatureDoesNotMatch",
    /// "RequestTimeTooSkewed", or "HTTP 401" when it gives none) and `message` its text, both
    /// as the server sent them (shortened, without control characters); never a credential.
    case denied(code: String, message: String)
    /// The server answered with an error that is not about credentials: a missing bucket or
    /// folder, a request it rejects, or a server failure that persisted through every retry.
    /// `status` is the HTTP status, `code` and `message` the server's ("NoSuchBucket", …).
    case server(status: Int, code: String, message: String)
    /// The store asked to be tried again after a wait: it is busy, or throttling this client (an
    /// HTTP 429 or 503 with a `Retry-After`; an SDK's "retry after" error, as CloudKit gives).
    /// `afterMilliseconds` is the wait it asked for, `reason` its text (never a credential).
    /// Transient: ``RetryingBlobStore`` waits at least that long before trying again
    /// (``RetryPolicy``), and a sync reports it for the next sync to retry.
    case retryLater(afterMilliseconds: Int, reason: String)

    public var description: String {
        switch self {
        case let .notFound(key): "no blob \(key)"
        case let .invalidKey(key): "invalid blob key \"\(key)\""
        case .full: "the store is full"
        case let .unavailable(reason): "the store is unavailable: \(reason)"
        case let .io(reason): "store input/output error: \(reason)"
        case let .tooLarge(key, size, limit):
            "the blob \(BlobKeyRules.abbreviated(key)) is too large (\(size) bytes; the limit is \(limit))"
        case .cancelled: "the store operation was cancelled"
        case let .undecryptable(key, reason): "the blob \(BlobKeyRules.abbreviated(key)) cannot be decrypted: \(reason)"
        case .encrypted: "the store is encrypted: sync with its passphrase"
        case let .denied(code, message):
            "the server refused the credentials: \(code)\(message.isEmpty ? "" : " (\(message))")"
        case let .server(status, code, message):
            "the server answered HTTP \(status) \(code)\(message.isEmpty ? "" : " (\(message))")"
        case let .retryLater(milliseconds, reason):
            "the store asked to be tried again in \(Self.seconds(milliseconds)) s\(reason.isEmpty ? "" : ": \(reason)")"
        }
    }

    /// Milliseconds as seconds for a message: "0.25", "2", "90".
    static func seconds(_ milliseconds: Int) -> String {
        let whole = max(0, milliseconds) / 1_000, rest = max(0, milliseconds) % 1_000
        guard rest > 0 else { return "\(whole)" }
        var fraction = String(rest + 1_000).dropFirst()   // three digits
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return "\(whole).\(fraction)"
    }
}

/// Why a listing left out an entry of the store that could be, or hold, a blob. Each entry is
/// reported once per listing (a folder that cannot be read is one entry, whatever it holds).
public enum ListingProblem: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// A folder that cannot be read, or an entry whose type cannot be read; `reason` is the
    /// system's short text ("Permission denied"). Nothing under it is listed.
    case unreadable(reason: String)
    /// A symbolic link: never followed, so nothing outside the store is ever listed or read.
    case symbolicLink
    /// A FIFO, socket or device: never opened (reading one could block, or never end).
    case specialFile
    /// A folder nested deeper than the store walks (`levels` folders below the root); nothing
    /// under it is listed. No MemoSync key is nearly that deep.
    case tooDeep(levels: Int)

    public var description: String {
        switch self {
        case let .unreadable(reason): "cannot be read (\(reason))"
        case .symbolicLink: "a symbolic link (never followed)"
        case .specialFile: "not a regular file or folder (a FIFO, socket or device)"
        case let .tooDeep(levels): "a folder nested more than \(levels) levels deep (not walked)"
        }
    }
}

/// An entry a listing left out, and why.
public struct SkippedEntry: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Its key (for a folder, without a trailing "/"), shortened in the middle (with "…") to at
    /// most 200 UTF-8 bytes when longer, so that a report stays small.
    public var key: String
    /// Why it was left out.
    public var problem: ListingProblem

    /// An entry; `key` is shortened when too long.
    public init(key: String, problem: ListingProblem) {
        self.key = BlobKeyRules.abbreviated(key)
        self.problem = problem
    }

    public var description: String { "\(key): \(problem)" }
}

/// What a listing found: the blobs, and the entries it left out because they cannot be blobs
/// it may read (see ``ListingProblem``). Hidden files, partial downloads and empty files are
/// left out silently: they are normal in a synced folder.
public struct BlobListing: Sendable, Equatable {
    /// The blobs, as ``BlobStore/list(prefix:)`` gives them.
    public var blobs: [BlobInfo]
    /// The entries left out, each once.
    public var skipped: [SkippedEntry]

    /// A listing.
    public init(blobs: [BlobInfo] = [], skipped: [SkippedEntry] = []) {
        self.blobs = blobs
        self.skipped = skipped
    }
}

/// Somewhere replicas exchange immutable blobs: a local folder (which a sync client may mirror),
/// a cloud bucket, a WebDAV server, memory. Only four operations, so any store fits.
///
/// Contract:
/// - `write` is atomic: a reader sees the whole blob or nothing, never a prefix.
/// - Keys are paths relative to the store's root with "/" separators; `list` returns every blob
///   whose key starts with `prefix`, compared byte for byte as UTF-8 (not by Unicode canonical
///   equivalence, as `String.hasPrefix` compares: "e\u{301}" and "\u{E9}" are two keys, and
///   "e" is a prefix of the first), in any order, possibly missing blobs written very recently
///   (listings may be stale) and possibly including blobs it cannot read yet.
/// - A missing blob never means anything was deleted on purpose: MemoSync decides from versions
///   inside blobs, never from listings or file dates.
/// - Calls may run concurrently (a sync keeps up to ``SyncConfiguration/maxInFlight`` in
///   flight, reads of different blobs and independent writes), and may be cancelled: a store
///   over a network throws ``BlobStoreError/cancelled`` (or finishes) when its task is.
///
/// The operations are `async`, so a store can be written with `URLSession` or any async SDK; a
/// store whose calls are quick and local (``DirectoryBlobStore``) may implement them
/// synchronously. MemoSync's sync logic never calls them itself: it is a state machine that asks
/// for operations; `Replica.sync(with:)` performs them here, and the deterministic simulator
/// performs them on its simulated store.
public protocol BlobStore: Sendable {
    /// Every blob whose key starts with `prefix`.
    func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo]
    /// Every blob whose key starts with `prefix`, and the entries under it the listing left out
    /// (a folder it cannot read, a symbolic link, a FIFO). A store whose listings never leave
    /// anything out need not implement it: the default is ``list(prefix:)`` with nothing
    /// skipped. A sync uses this, and reports the skipped entries.
    func listing(prefix: String) async throws(BlobStoreError) -> BlobListing
    /// The bytes of the blob `key`.
    func read(key: String) async throws(BlobStoreError) -> [UInt8]
    /// Stores `bytes` under `key`, atomically, replacing any blob with that key.
    func write(key: String, bytes: [UInt8]) async throws(BlobStoreError)
    /// Removes the blob `key`; removing a missing blob is not an error.
    func delete(key: String) async throws(BlobStoreError)
}

extension BlobStore {
    /// ``list(prefix:)``, with nothing skipped.
    public func listing(prefix: String) async throws(BlobStoreError) -> BlobListing {
        BlobListing(blobs: try await list(prefix: prefix), skipped: [])
    }
}
