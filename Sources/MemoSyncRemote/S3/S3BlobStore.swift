import Foundation
import MemoSync

/// A ``BlobStore`` in an S3-compatible bucket (AWS S3, Cloudflare R2, Backblaze B2, MinIO,
/// SeaweedFS, …), over HTTP with AWS Signature Version 4.
///
/// - Listing: `ListObjectsV2` page by page (1,000 keys a page) with continuation tokens, keys
///   URL-encoded by the server (`encoding-type=url`) so that any key survives XML.
/// - Writing: `PUT` with `If-None-Match: *`. Blobs are content-named, so 412 ("it exists")
///   means the blob is already there: it is read back and compared, and replaced only when what
///   is there differs (a damaged copy).
/// - Retries by MemoSync's `RetryPolicy`, the one every store shares (5xx, `SlowDown`, 429,
///   timeouts, dropped connections; a busy server's `Retry-After` is honoured, and kept in a
///   final ``BlobStoreError/retryLater(afterMilliseconds:reason:)``), never for refused credentials, which throw ``BlobStoreError/denied(code:message:)``; other server
///   errors throw ``BlobStoreError/server(status:code:message:)`` with S3's code and message.
///
/// Credentials travel only in the signature (never in a URL) and never appear in a
/// description or an error.
public struct S3BlobStore: BlobStore, CustomStringConvertible {
    /// How a bucket is addressed.
    public enum Addressing: String, Sendable, Equatable {
        /// `https://endpoint/bucket/key`: what most S3-compatible servers expect.
        case path
        /// `https://bucket.endpoint/key`: AWS's default.
        case virtualHosted
    }

    /// Where the bucket is and how to reach it.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The bucket's name.
        public var bucket: String
        /// A prefix inside the bucket ("" or ending with "/"): blob keys are stored under it.
        public var prefix: String
        /// The region signed into requests ("us-east-1" for most S3-compatible servers).
        public var region: String
        /// The service's base URL ("https://s3.eu-west-1.amazonaws.com", "http://127.0.0.1:8333").
        public var endpoint: URL
        /// Path-style or virtual-hosted addressing.
        public var addressing: Addressing
        /// The credentials. Never printed.
        public var credentials: S3Credentials
        /// When to retry a request.
        public var retryPolicy = RetryPolicy()
        /// A request times out after this long without progress.
        public var timeoutMilliseconds = 30_000
        /// Connections to the server at most (a sync keeps up to 8 requests in flight).
        public var connectionsPerHost = 8

        /// A configuration; `endpoint` nil means AWS (`https://s3.<region>.amazonaws.com`,
        /// virtual-hosted), otherwise path-style unless `addressing` says otherwise. A `region`
        /// that is no region name (``isRegionName(_:)``) makes no AWS endpoint of it: the
        /// endpoint is then `https://region-not-valid.invalid`, a name that never resolves, so
        /// every request fails with a network error instead of going to a host the text spells.
        public init(
            bucket: String, prefix: String = "", region: String = "us-east-1", endpoint: URL? = nil, addressing: Addressing? = nil,
            credentials: S3Credentials
        ) {
            self.bucket = bucket
            self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
            self.region = region
            self.endpoint =
                endpoint ?? (Self.isRegionName(region) ? URL(string: "https://s3.\(region).amazonaws.com") : nil)
                ?? URL(string: "https://region-not-valid.invalid")!
            self.addressing = addressing ?? (endpoint == nil ? .virtualHosted : .path)
            self.credentials = credentials
        }

        /// Whether `text` can be a region name: 1 to 63 ASCII letters, digits, hyphens and
        /// underscores (`us-east-1`, `eu-1`, a MinIO server's own).
        public static func isRegionName(_ text: String) -> Bool {
            (1...63).contains(text.utf8.count)
                && text.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
                }
        }

        /// "S3 bucket B, prefix P, at ENDPOINT (region R)": no credentials.
        public var description: String {
            "S3 bucket \(bucket)\(prefix.isEmpty ? "" : ", prefix \(prefix)") at \(endpoint.absoluteString) (region \(region))"
        }
    }

    /// The configuration (its description holds no secret).
    public let configuration: Configuration
    let client: RemoteHTTPClient
    let signer: SigV4
    /// Wall-clock seconds since 1970, for signatures.
    let wallClockSeconds: @Sendable () -> Int64

    /// A store over `URLSession`. `environment` and `wallClockSeconds` are for tests (retry
    /// timing, a skewed clock).
    public init(
        configuration: Configuration, environment: RetryEnvironment = .system,
        wallClockSeconds: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws(BlobStoreError) {
        try self.init(
            configuration: configuration,
            transport: URLSessionTransport(timeoutMilliseconds: configuration.timeoutMilliseconds, connectionsPerHost: configuration.connectionsPerHost),
            environment: environment, wallClockSeconds: wallClockSeconds)
    }

    init(
        configuration: Configuration, transport: any HTTPTransport, environment: RetryEnvironment,
        wallClockSeconds: @escaping @Sendable () -> Int64
    ) throws(BlobStoreError) {
        guard Self.isValidBucketName(configuration.bucket) else {
            throw .unavailable(reason: "\"\(serverText(configuration.bucket, limit: 80))\" is not a valid bucket name")
        }
        guard let scheme = configuration.endpoint.scheme?.lowercased(), scheme == "https" || scheme == "http",
            configuration.endpoint.host != nil, configuration.endpoint.user == nil, configuration.endpoint.password == nil
        else { throw .unavailable(reason: "the endpoint must be an http or https URL with a host and no user name or password") }
        self.configuration = configuration
        self.signer = SigV4(region: configuration.region, service: "s3")
        self.wallClockSeconds = wallClockSeconds
        self.client = RemoteHTTPClient(transport: transport, policy: configuration.retryPolicy, environment: environment) { response in
            (try? S3Answers.error(response.body))?.code
        }
    }

    public var description: String { configuration.description }

    /// Requests and bytes so far.
    public var statistics: RemoteStoreStatistics { client.statistics }

    // MARK: - BlobStore

    public func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
        var blobs: [BlobInfo] = []
        var token: String?
        var pages = 0
        repeat {
            var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", configuration.prefix + prefix), ("encoding-type", "url")]
            if let token { query.append(("continuation-token", token)) }
            let response = try await send("GET", objectKey: nil, query: query)
            guard response.status == 200 else { throw error(response, key: nil) }
            let page: S3Answers.ListPage
            do { page = try S3Answers.listPage(response.body) } catch {
                throw .io(reason: "the bucket listing could not be read: \(error)")
            }
            blobs += Self.blobs(in: page, under: configuration.prefix)
            pages += 1
            guard page.isTruncated else { break }
            guard let next = page.nextContinuationToken, !next.isEmpty, next != token, pages < 1_000_000 else {
                throw .io(reason: "the bucket listing was cut short without a usable continuation token")
            }
            token = next
        } while true
        return blobs
    }

    public func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        let response = try await send("GET", objectKey: try objectKey(key), query: [], blobKey: key)
        switch response.status {
        case 200:
            guard response.body.count <= StoreLayout.maxListedBlobBytes else {
                throw .tooLarge(key: key, sizeBytes: response.body.count, limitBytes: StoreLayout.maxListedBlobBytes)
            }
            return response.body
        case 404 where S3Answers.errorCode(response) != "NoSuchBucket": throw .notFound(key: key)
        default: throw error(response, key: key)
        }
    }

    public func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
        let objectKey = try objectKey(key)
        let response = try await send("PUT", objectKey: objectKey, query: [], headers: [("If-None-Match", "*")], body: bytes)
        switch response.status {
        case 200, 201, 204: return
        case 412: try await settleExisting(key: key, objectKey: objectKey, bytes: bytes)
        case 409 where S3Answers.errorCode(response) == "ConditionalRequestConflict":
            try await settleExisting(key: key, objectKey: objectKey, bytes: bytes)
        default:
            throw error(response, key: key)
        }
    }

    /// The blob `key` exists (or is being written by a concurrent request): it holds `bytes`,
    /// since a key names its content, unless what is there is damaged, which is then replaced.
    private func settleExisting(key: String, objectKey: String, bytes: [UInt8]) async throws(BlobStoreError) {
        let existing: [UInt8]?
        do { existing = try await read(key: key) } catch .notFound { existing = nil }
        guard existing != bytes else { return }
        let replaced = try await send("PUT", objectKey: objectKey, query: [], body: bytes)
        guard (200..<300).contains(replaced.status) else { throw error(replaced, key: key) }
    }

    public func delete(key: String) async throws(BlobStoreError) {
        let response = try await send("DELETE", objectKey: try objectKey(key), query: [])
        switch response.status {
        case 200, 204: return
        case 404 where S3Answers.errorCode(response) != "NoSuchBucket": return
        default: throw error(response, key: key)
        }
    }
}
