import Foundation
import MemoSync

/// Where a library syncs, as a user writes it:
///
/// - a folder: a path (`~/Dropbox/Notes`, `/mnt/share/notes`) or a `file://` URL;
/// - an S3-compatible bucket: `s3://BUCKET/PREFIX`, with the service's endpoint and region
///   given apart (`--endpoint`, `--region`) or in the URL's query
///   (`s3://notes/team?endpoint=https://minio.example.com&region=eu-1`);
/// - a WebDAV folder: `https://HOST/PATH` or `webdav://HOST/PATH` (HTTPS), or `http://…`
///   for a server on this machine.
///
/// A location never holds credentials: a URL with a user name or password is refused, so that
/// a location can be shown, logged and remembered. ``text`` is the canonical form, which
/// ``init(parsing:endpoint:region:)`` reads back.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// A folder (``DirectoryBlobStore``).
    case folder(path: String)
    /// A bucket (``S3BlobStore``): `prefix` is "" or ends with "/"; `endpoint` nil means AWS.
    case s3(bucket: String, prefix: String, endpoint: URL?, region: String?)
    /// A WebDAV folder (``WebDAVBlobStore``), its URL ending with "/".
    case webDAV(folder: URL)

    /// Reads a location; `endpoint` and `region` apply to an `s3://` location only (and win
    /// over the URL's own query).
    public init(parsing text: String, endpoint: String? = nil, region: String? = nil) throws(StoreLocationError) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("s3://") {
            self = try Self.s3(text, endpoint: endpoint, region: region)
            return
        }
        guard endpoint == nil, region == nil else {
            throw StoreLocationError("--endpoint and --region apply to s3:// stores only")
        }
        if lowered.hasPrefix("https://") || lowered.hasPrefix("http://") || lowered.hasPrefix("webdav://") || lowered.hasPrefix("webdavs://") {
            self = try Self.webDAV(text)
        } else if lowered.hasPrefix("file://") {
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else { throw StoreLocationError("\"\(Self.redactingCredentials(text))\" is not a file URL") }
            self = .folder(path: url.path)
        } else if let scheme = text.firstRange(of: "://") {
            throw StoreLocationError("unknown kind of store \"\(text[..<scheme.lowerBound])://\" (use a folder path, s3://, https:// or webdav://)")
        } else {
            guard !text.isEmpty else { throw StoreLocationError("no store given") }
            self = .folder(path: text)
        }
    }

    /// `text` with any user name and password of a URL replaced by "•••" (a refused location is
    /// echoed in messages, and a password must never be printed or logged).
    public static func redactingCredentials(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") else {
            // A nested URL (an s3:// endpoint in the query) may hold credentials too.
            guard let nested = text[authorityEnd...].range(of: "://") else { return text }
            let head = text[..<nested.lowerBound]
            let schemeStart = head.lastIndex { !($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }.map { head.index(after: $0) } ?? head.startIndex
            return String(text[..<schemeStart]) + redactingCredentials(String(text[schemeStart...]))
        }
        return String(text[..<schemeEnd.upperBound]) + "•••" + redactingCredentials(String(text[at...]))
    }

    /// A port written in a URL, checked: 1 to 65535 (Foundation takes any number and fails only
    /// when the request is sent).
    private static func checkPort(_ port: Int?, in text: String) throws(StoreLocationError) {
        guard let port else { return }
        guard (1...65_535).contains(port) else {
            throw StoreLocationError("the port \(port) of \"\(redactingCredentials(text))\" is not between 1 and 65535")
        }
    }

    /// An IPv6 address literal as a host (`https://[::1]:8443/…`) is refused on Linux:
    /// swift-corelibs-foundation's URLSession fails every request to one as a bad URL (seen with
    /// Swift 6.3.1), so the location is refused when it is read, with the way around it, rather
    /// than at every sync. Apple's URLSession takes them.
    private static func checkHost(_ host: String?, in text: String) throws(StoreLocationError) {
        #if !canImport(Darwin)
        guard let host, host.contains(":") else { return }
        throw StoreLocationError(
            "an IPv6 address as the host (\"\(redactingCredentials(text))\") is not supported on Linux; use a host name for it (localhost for ::1, or an /etc/hosts entry)")
        #endif
    }

    /// "folder", "S3 bucket" or "WebDAV folder".
    public var kind: String {
        switch self {
        case .folder: "folder"
        case .s3: "S3 bucket"
        case .webDAV: "WebDAV folder"
        }
    }

    /// The canonical text: the path, `s3://bucket/prefix[?endpoint=…&region=…]`, or the
    /// WebDAV folder's URL. Holds no secret.
    public var text: String {
        switch self {
        case let .folder(path): return path
        case let .s3(bucket, prefix, endpoint, region):
            var query: [String] = []
            if let endpoint { query.append("endpoint=" + SigV4.uriEncode(endpoint.absoluteString)) }
            if let region { query.append("region=" + SigV4.uriEncode(region)) }
            return "s3://\(bucket)/\(prefix)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        case let .webDAV(folder): return folder.absoluteString
        }
    }

    /// The kind and the location, for people: "S3 bucket notes, prefix team/, at
    /// https://minio.example.com (region eu-1)". Holds no secret.
    public var description: String {
        switch self {
        case let .folder(path): return "folder \(path)"
        case let .s3(bucket, prefix, endpoint, region):
            return "S3 bucket \(bucket)\(prefix.isEmpty ? "" : ", prefix \(prefix)")\(endpoint.map { ", at \($0.absoluteString)" } ?? " (AWS)")\(region.map { " (region \($0))" } ?? "")"
        case let .webDAV(folder): return "WebDAV folder \(folder.absoluteString)"
        }
    }

    private static func s3(_ text: String, endpoint: String?, region: String?) throws(StoreLocationError) -> StoreLocation {
        guard let components = URLComponents(string: text), let bucket = components.host, !bucket.isEmpty else {
            throw StoreLocationError("\"\(redactingCredentials(text))\" is not an s3://BUCKET/PREFIX URL")
        }
        guard components.user == nil, components.password == nil, components.port == nil else {
            throw StoreLocationError("an s3:// URL takes no user name, password or port (credentials come from the environment or the credentials file)")
        }
        guard S3BlobStore.isValidBucketName(bucket) else { throw StoreLocationError("\"\(bucket)\" is not a valid bucket name") }
        var prefix = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
        guard !prefix.split(separator: "/", omittingEmptySubsequences: false).dropLast().contains(where: \.isEmpty) else {
            throw StoreLocationError("the prefix \"\(prefix)\" has an empty folder name")
        }
        var endpointText = endpoint
        var regionText = region
        for item in components.queryItems ?? [] {
            switch item.name {
            case "endpoint": endpointText = endpointText ?? item.value
            case "region": regionText = regionText ?? item.value
            default: throw StoreLocationError("unknown s3:// option \"\(item.name)\" (endpoint and region are known)")
            }
        }
        var endpointURL: URL?
        if let endpointText {
            guard let url = URL(string: endpointText), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
                url.user == nil, url.password == nil
            else { throw StoreLocationError("the endpoint \"\(redactingCredentials(endpointText))\" is not an http(s)://HOST[:PORT] URL without credentials") }
            try checkPort(url.port, in: endpointText)
            try checkHost(url.host, in: endpointText)
            endpointURL = url
        }
        if let regionText, !S3BlobStore.Configuration.isRegionName(regionText) {
            throw StoreLocationError("\"\(regionText)\" is not a region name")
        }
        return .s3(bucket: bucket, prefix: prefix, endpoint: endpointURL, region: regionText)
    }

    private static func webDAV(_ text: String) throws(StoreLocationError) -> StoreLocation {
        guard var components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw StoreLocationError("\"\(redactingCredentials(text))\" is not a URL with a host")
        }
        guard components.user == nil, components.password == nil else {
            throw StoreLocationError("a store URL takes no user name or password (they come from the environment or the credentials file)")
        }
        guard components.query == nil, components.fragment == nil else { throw StoreLocationError("a WebDAV folder URL takes no query or fragment") }
        try checkPort(components.port, in: text)
        try checkHost(host, in: text)
        let scheme = components.scheme?.lowercased() ?? ""
        components.scheme = scheme == "http" ? "http" : "https"
        if !components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath += "/" }
        guard let url = components.url else { throw StoreLocationError("\"\(redactingCredentials(text))\" is not a valid URL") }
        return .webDAV(folder: url)
    }
}

/// Why a store location or its credentials cannot be used.
public struct StoreLocationError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// What is wrong, in one sentence without a final period.
    public var reason: String

    /// An error with its reason.
    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
    /// One sentence in ``MemoLanguage/current``: the store cannot be used, and the reason's
    /// cause when it is one the catalogs know (the reason as it is, in English).
    public var errorDescription: String? { errorSentence("error.StoreLocationError.what", detail: FailureCause.detail(of: reason)) }
}
