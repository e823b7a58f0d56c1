import Foundation
import MemoSync

/// User name and password for a WebDAV server (HTTP basic authentication). Their
/// `description` never shows the password.
public struct WebDAVCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The user name.
    public var user: String
    /// The password (often an app password). Never printed.
    public var password: String

    /// Credentials from their parts.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "WebDAV credentials (user \(user))" }
    public var debugDescription: String { description }
}

/// A ``BlobStore`` in a WebDAV folder (Nextcloud, ownCloud, Synology, Apache `mod_dav`, …).
///
/// - Listing: `PROPFIND` with `Depth: 1`, folder by folder (servers refuse `Depth: infinity`);
///   hrefs are percent-decoded before they are compared.
/// - Writing: missing folders are made with `MKCOL`, level by level (405 means it exists); the
///   blob is `PUT` under a hidden temporary name (".upload-…", which listings leave out) and
///   published with `MOVE` and `Overwrite: F` to its absolute URL, so a reader never sees part
///   of it. 412 means it is already there: the blobs are content-named, so it is compared, and
///   replaced only when damaged.
/// - Basic authentication, over HTTPS only (plain HTTP only to this machine, or when the
///   configuration allows it explicitly).
///
/// A crashed upload elsewhere can leave a truncated file that the server serves with 200: this
/// store does not check contents; every MemoSync blob carries a checksum that a sync checks.
public struct WebDAVBlobStore: BlobStore, CustomStringConvertible {
    /// Where the folder is and how to reach it.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The folder's URL ("https://cloud.example.com/remote.php/dav/files/me/Notes/"),
        /// without user name or password.
        public var folder: URL
        /// The credentials, when the server asks for them. Never printed.
        public var credentials: WebDAVCredentials?
        /// Whether plain `http://` is acceptable for a host other than this machine (it sends
        /// the password readable by anyone on the way). Off by default.
        public var allowsPlainHTTP = false
        /// When to retry a request.
        public var retryPolicy = RetryPolicy()
        /// A request times out after this long without progress.
        public var timeoutMilliseconds = 30_000
        /// Connections to the server at most.
        public var connectionsPerHost = 8
        /// Whether a missing folder is made (with MKCOL, each missing level from the top) when a
        /// listing or a write finds it missing, as a folder store's folder is made on its first
        /// sync. Set it when the user names the folder for the first time; keep it off for a folder
        /// synced before, whose disappearance is news (a share moved or deleted), never hidden by a
        /// new empty folder. Off by default.
        public var createsMissingFolder = false

        /// A configuration.
        public init(folder: URL, credentials: WebDAVCredentials?) {
            self.folder = folder
            self.credentials = credentials
        }

        /// "WebDAV folder URL": no credentials.
        public var description: String { "WebDAV folder \(folder.absoluteString)" }
    }

    /// The configuration (its description holds no secret).
    public let configuration: Configuration
    let client: RemoteHTTPClient
    /// The folder's URL up to its path ("https://host:port"), and its path as sent, ending in "/".
    let origin: String
    let basePath: String
    /// The folder's path, decoded, ending in "/".
    let decodedBasePath: String
    let authorization: String?

    /// A store over `URLSession`; `environment` is for tests (retry timing).
    public init(configuration: Configuration, environment: RetryEnvironment = .system) throws(BlobStoreError) {
        try self.init(
            configuration: configuration,
            transport: URLSessionTransport(timeoutMilliseconds: configuration.timeoutMilliseconds, connectionsPerHost: configuration.connectionsPerHost),
            environment: environment)
    }

    init(configuration: Configuration, transport: any HTTPTransport, environment: RetryEnvironment) throws(BlobStoreError) {
        let folder = configuration.folder
        guard let scheme = folder.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = folder.host, !host.isEmpty,
            folder.user == nil, folder.password == nil
        else { throw .unavailable(reason: "the WebDAV folder must be an http or https URL with a host and no user name or password") }
        if scheme == "http", !configuration.allowsPlainHTTP, configuration.credentials != nil, !Self.isLoopback(host) {
            throw .unavailable(reason: "refusing to send a password over plain http to \(host); use https")
        }
        self.configuration = configuration
        // An IPv6 literal: Foundation on Linux gives its host with the brackets, Apple's without.
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let hostPart = bareHost.contains(":") ? "[\(bareHost)]" : bareHost
        origin = "\(scheme)://\(hostPart)\(folder.port.map { ":\($0)" } ?? "")"
        var path = folder.path.isEmpty ? "/" : folder.path
        if !path.hasSuffix("/") { path += "/" }
        decodedBasePath = path
        basePath = SigV4.canonicalPath(path)
        authorization = configuration.credentials.map { "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString() }
        client = RemoteHTTPClient(transport: transport, policy: configuration.retryPolicy, environment: environment) { _ in nil }
    }

    public var description: String { configuration.description }

    /// Requests and bytes so far.
    public var statistics: RemoteStoreStatistics { client.statistics }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    // MARK: - BlobStore

    public func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
        try await listing(prefix: prefix).blobs
    }

    public func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        let response = try await send("GET", url: try url(forKey: key), blobKey: key)
        switch response.status {
        case 200:
            guard response.body.count <= StoreLayout.maxListedBlobBytes else {
                throw .tooLarge(key: key, sizeBytes: response.body.count, limitBytes: StoreLayout.maxListedBlobBytes)
            }
            return response.body
        case 404, 410: throw .notFound(key: key)
        default: throw error(response)
        }
    }

    public func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
        let target = try url(forKey: key)
        let name = Self.names(of: key).last.map(String.init) ?? key
        let temporary = try url(forKey: Self.folderPart(of: key) + ".upload-\(Self.randomHex())-\(name)")
        var put = try await send("PUT", url: temporary, body: bytes)
        if put.status == 404 || put.status == 409 {
            try await makeFolders(for: key)
            put = try await send("PUT", url: temporary, body: bytes)
        }
        guard (200..<300).contains(put.status) else { throw error(put) }
        let move = try await send("MOVE", url: temporary, headers: [("Destination", target), ("Overwrite", "F")])
        switch move.status {
        case 200..<300: return
        case 412:
            // Already there: the same bytes, unless damaged (then replaced).
            if try await holds(key: key, bytes: bytes) {
                _ = try? await send("DELETE", url: temporary)
                return
            }
            let replace = try await send("MOVE", url: temporary, headers: [("Destination", target), ("Overwrite", "T")])
            guard (200..<300).contains(replace.status) else { throw error(replace) }
        case 404 where try await holds(key: key, bytes: bytes):
            // A retried MOVE whose first attempt succeeded but whose answer was lost.
            return
        default:
            _ = try? await send("DELETE", url: temporary)
            throw error(move)
        }
    }

    public func delete(key: String) async throws(BlobStoreError) {
        let response = try await send("DELETE", url: try url(forKey: key))
        guard (200..<300).contains(response.status) || response.status == 404 || response.status == 410 else { throw error(response) }
    }

    /// Whether the blob `key` exists and holds `bytes`.
    private func holds(key: String, bytes: [UInt8]) async throws(BlobStoreError) -> Bool {
        do { return try await read(key: key) == bytes } catch .notFound { return false }
    }

    /// Makes the folders above `key` that are missing, from the top down (405: it exists); the
    /// store's own folder too when it is missing and may be made, once.
    private func makeFolders(for key: String, storeFolderMade: Bool = false) async throws(BlobStoreError) {
        let parts = Self.names(of: key).dropLast()
        var folder = ""
        for (index, part) in parts.enumerated() {
            folder += part + "/"
            let response = try await send("MKCOL", url: try url(forKey: folder, isFolder: true))
            switch response.status {
            case 200..<300, 405: continue
            case 409 where index == 0:
                guard configuration.createsMissingFolder, !storeFolderMade else {
                    throw .server(status: 409, code: "Conflict", message: "the WebDAV folder \(configuration.folder.absoluteString) does not exist")
                }
                try await makeStoreFolder()
                try await makeFolders(for: key, storeFolderMade: true)
                return
            default: throw error(response)
            }
        }
    }

    /// Makes the store's own folder, each missing level of its path from the top (201 made,
    /// 405 already there); the server's refusal (401, 403, 507 …) is thrown.
    func makeStoreFolder() async throws(BlobStoreError) {
        let levels = Self.names(of: decodedBasePath)
        var path = "/"
        for level in levels {
            path += level + "/"
            let response = try await send("MKCOL", url: origin + SigV4.canonicalPath(path))
            switch response.status {
            case 200..<300, 405: continue
            default: throw error(response)
            }
        }
    }

    /// `key` up to its last "/" (included); "" without one. By bytes: in "a/\u{301}" the "/"
    /// and the mark are one Character.
    static func folderPart(of key: String) -> String {
        guard let slash = key.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(Substring(key.utf8[...slash]))
    }

    /// The non-empty names of `path` between its "/" bytes.
    static func names(of path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
    }

    static func randomHex() -> String {
        Hex.lowercase((0..<8).map { _ in UInt8.random(in: 0...255) })
    }
}
