import Foundation
import MemoSync

/// Where the credentials of a remote store come from, first found first used:
///
/// - S3: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`) in the
///   environment; else the `[s3]` section of the library's credentials file; else the AWS shared
///   credentials file (`AWS_SHARED_CREDENTIALS_FILE`, or `~/.aws/credentials`), profile
///   `AWS_PROFILE` or "default". Region: the location's, else `AWS_REGION` or
///   `AWS_DEFAULT_REGION`, else "us-east-1". Endpoint: the location's, else
///   `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`, else AWS.
/// - WebDAV: `MEMOSYNC_WEBDAV_USER` and `MEMOSYNC_WEBDAV_PASSWORD` in the environment; else
///   the `[webdav]` section (`user`, `password`) of the library's credentials file; else none.
///
/// A credentials file is INI text, the format of AWS's shared credentials file:
///
///     [s3]
///     aws_access_key_id = AKIA…
///     aws_secret_access_key = …
///     [webdav]
///     user = me
///     password = …
///
/// Nothing here prints a secret: errors name the variable or file, never its value.
public struct StoreCredentialSources: Sendable {
    /// The process environment (or a test's).
    public var environment: [String: String]
    /// The library's credentials file, if the app keeps one.
    public var credentialsFile: String?

    /// Sources from an environment and an optional credentials file.
    public init(environment: [String: String], credentialsFile: String? = nil) {
        self.environment = environment
        self.credentialsFile = credentialsFile
    }

    /// A store for `location`, with credentials from these sources.
    ///
    /// - Parameter createsMissingFolder: Whether a WebDAV folder that does not exist is made
    ///   (``WebDAVBlobStore/Configuration/createsMissingFolder``): true when the user names the
    ///   location now, false for one remembered from an earlier sync. A folder store's folder is
    ///   made by ``DirectoryBlobStore`` itself; a bucket is never made.
    /// - Parameter listingCachePath: For a folder store, the file its listing cache is kept in
    ///   between processes (``DirectoryBlobStore/init(path:maxBlobBytes:listingCachePath:)``);
    ///   nil keeps it in memory only. Other stores ignore it.
    public func store(for location: StoreLocation, createsMissingFolder: Bool = false, listingCachePath: String? = nil) throws(StoreLocationError) -> any BlobStore {
        switch location {
        case let .folder(path):
            return try Self.opening { () throws(BlobStoreError) in try DirectoryBlobStore(path: path, listingCachePath: listingCachePath) }
        case .s3:
            let configuration = try s3Configuration(for: location)
            return try Self.opening { () throws(BlobStoreError) in try S3BlobStore(configuration: configuration) }
        case let .webDAV(folder):
            var configuration = WebDAVBlobStore.Configuration(folder: folder, credentials: try webDAVCredentials())
            configuration.createsMissingFolder = createsMissingFolder
            return try Self.opening { () throws(BlobStoreError) in try WebDAVBlobStore(configuration: configuration) }
        }
    }

    private static func opening(_ make: () throws(BlobStoreError) -> any BlobStore) throws(StoreLocationError) -> any BlobStore {
        do throws(BlobStoreError) { return try make() } catch { throw StoreLocationError("\(error)") }
    }

    /// The configuration of an `s3://` location: region, endpoint and credentials resolved.
    public func s3Configuration(for location: StoreLocation) throws(StoreLocationError) -> S3BlobStore.Configuration {
        guard case let .s3(bucket, prefix, endpoint, region) = location else { throw StoreLocationError("not an S3 location") }
        let resolvedRegion = region ?? nonEmpty("AWS_REGION") ?? nonEmpty("AWS_DEFAULT_REGION") ?? "us-east-1"
        // (A region from the location was checked when it was read; one from the environment is
        // checked here: "eu west-1" made an endpoint URL of nothing, and the store trapped.)
        guard S3BlobStore.Configuration.isRegionName(resolvedRegion) else {
            throw StoreLocationError("the region \"\(resolvedRegion)\" (from AWS_REGION or AWS_DEFAULT_REGION) is not a region name")
        }
        var resolvedEndpoint = endpoint
        if resolvedEndpoint == nil, let text = nonEmpty("AWS_ENDPOINT_URL_S3") ?? nonEmpty("AWS_ENDPOINT_URL") {
            guard let url = URL(string: text), url.host != nil else { throw StoreLocationError("AWS_ENDPOINT_URL(_S3) is not a URL") }
            resolvedEndpoint = url
        }
        return S3BlobStore.Configuration(bucket: bucket, prefix: prefix, region: resolvedRegion, endpoint: resolvedEndpoint, credentials: try s3Credentials())
    }

    /// The S3 credentials, or an error naming where they were looked for.
    public func s3Credentials() throws(StoreLocationError) -> S3Credentials {
        if let key = nonEmpty("AWS_ACCESS_KEY_ID") {
            guard let secret = nonEmpty("AWS_SECRET_ACCESS_KEY") else {
                throw StoreLocationError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
            }
            return S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: nonEmpty("AWS_SESSION_TOKEN"))
        }
        if let credentialsFile, let section = try Self.section("s3", inFile: credentialsFile), let found = try Self.s3(section, file: credentialsFile) {
            return found
        }
        let shared = nonEmpty("AWS_SHARED_CREDENTIALS_FILE") ?? (nonEmpty("HOME").map { $0 + "/.aws/credentials" } ?? "")
        let profile = nonEmpty("AWS_PROFILE") ?? "default"
        if !shared.isEmpty, let section = try Self.section(profile, inFile: shared), let found = try Self.s3(section, file: shared) {
            return found
        }
        throw StoreLocationError(
            "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or put them in the [s3] section of \(credentialsFile ?? "the library's credentials file") or in profile \"\(profile)\" of \(shared.isEmpty ? "~/.aws/credentials" : shared)")
    }

    /// The WebDAV credentials, or nil when none are configured (a server without
    /// authentication).
    public func webDAVCredentials() throws(StoreLocationError) -> WebDAVCredentials? {
        if let user = nonEmpty("MEMOSYNC_WEBDAV_USER") {
            return WebDAVCredentials(user: user, password: environment["MEMOSYNC_WEBDAV_PASSWORD"] ?? "")
        }
        if let credentialsFile, let section = try Self.section("webdav", inFile: credentialsFile), let user = section["user"], !user.isEmpty {
            return WebDAVCredentials(user: user, password: section["password"] ?? "")
        }
        return nil
    }

    private func nonEmpty(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    private static func s3(_ section: [String: String], file: String) throws(StoreLocationError) -> S3Credentials? {
        guard let key = section["aws_access_key_id"], !key.isEmpty else { return nil }
        guard let secret = section["aws_secret_access_key"], !secret.isEmpty else {
            throw StoreLocationError("\(file) has aws_access_key_id but no aws_secret_access_key")
        }
        return S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: section["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The keys and values of section `name` of the INI file at `path`; nil when the file or
    /// the section does not exist.
    static func section(_ name: String, inFile path: String) throws(StoreLocationError) -> [String: String]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20, let text = String(data: data, encoding: .utf8) else {
            throw StoreLocationError("the credentials file \(path) cannot be read")
        }
        return parseINI(text)[name]
    }

    /// The sections of an INI text: `[name]` lines, `key = value` lines, `#` and `;` comments.
    static func parseINI(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                var name = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                if name.hasPrefix("profile ") { name = String(name.dropFirst(8)).trimmingCharacters(in: .whitespaces) }
                current = name
                sections[name, default: [:]] = sections[name, default: [:]]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[current, default: [:]][key] = value
        }
        return sections
    }
}
