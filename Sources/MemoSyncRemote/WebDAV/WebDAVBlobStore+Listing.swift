import Foundation
import MemoSync

extension WebDAVBlobStore {
    /// Folders below the store's folder that a listing walks at most.
    static let depthMax = 12

    /// Folders a listing asks about at once.
    static let concurrentFoldersMax = 8

    /// Walks the folders that can hold keys starting with `prefix`, one `PROPFIND Depth: 1` per
    /// folder, level by level (the folders of one level asked at once, up to
    /// ``concurrentFoldersMax``). A missing start folder is an empty listing (nothing was
    /// written yet) when the store's own folder exists; when that is missing too, it is made
    /// (``Configuration/createsMissingFolder``) or the listing fails with 404.
    public func listing(prefix: String) async throws(BlobStoreError) -> BlobListing {
        var listing = BlobListing()
        let start = Self.folderPart(of: prefix)
        let first = try await propfind(folder: start, depth: "1")
        if first.status == 404 {
            if try await !storeFolderExists(start: start) {
                guard configuration.createsMissingFolder else {
                    throw .server(status: 404, code: "Not Found", message: "the WebDAV folder \(configuration.folder.absoluteString) does not exist")
                }
                try await makeStoreFolder()
            }
            return listing
        }
        var level = [(folder: start, response: first)]
        while !level.isEmpty {
            var next: [String] = []
            for (folder, response) in level {
                switch response.status {
                case 207: next += try read(response, folder: folder, prefix: prefix, into: &listing)
                case 404 where folder != start, 410 where folder != start:
                    continue  // deleted while being listed
                case 403 where folder != start:
                    listing.skipped.append(SkippedEntry(key: String(folder.dropLast()), problem: .unreadable(reason: "HTTP 403 Forbidden")))
                default: throw error(response)
                }
            }
            level = try await propfinds(next)
        }
        return listing
    }

    /// The answers to `PROPFIND Depth: 1` on each of `folders`, in their order.
    private func propfinds(_ folders: [String]) async throws(BlobStoreError) -> [(folder: String, response: HTTPResponse)] {
        var answers: [(folder: String, response: HTTPResponse)] = []
        var index = 0
        while index < folders.count {
            let batch = Array(folders[index..<min(index + Self.concurrentFoldersMax, folders.count)])
            index += batch.count
            let results = await withTaskGroup(of: FolderAnswer.self) { group in
                for (position, folder) in batch.enumerated() {
                    group.addTask { await FolderAnswer(position: position, asking: self, folder: folder) }
                }
                var collected: [FolderAnswer] = []
                for await answer in group { collected.append(answer) }
                return collected.sorted { $0.position < $1.position }
            }
            guard results.count == batch.count else { throw .cancelled }
            for (folder, answer) in zip(batch, results) {
                if let failure = answer.failure { throw failure }
                guard let response = answer.response else { throw .cancelled }
                answers.append((folder, response))
            }
        }
        return answers
    }

    /// One folder's answer (or failure), and its place in the batch.
    private struct FolderAnswer: Sendable {
        var position: Int
        var response: HTTPResponse?
        var failure: BlobStoreError?

        init(position: Int, asking store: WebDAVBlobStore, folder: String) async {
            self.position = position
            do throws(BlobStoreError) { response = try await store.propfind(folder: folder, depth: "1") } catch { failure = error }
        }
    }

    /// Adds the blobs of one folder's multistatus answer to `listing`; returns the subfolders
    /// to walk.
    private func read(_ response: HTTPResponse, folder: String, prefix: String, into listing: inout BlobListing) throws(BlobStoreError) -> [String] {
        let entries: [WebDAVEntry]
        do { entries = try WebDAVEntry.parse(multistatus: response.body) } catch {
            throw .io(reason: "the folder listing could not be read: \(error)")
        }
        var folders: [String] = []
        for entry in entries {
            // Keys are bytes: compared, cut and counted by their UTF-8, never by Characters.
            guard let key = relativeKey(href: entry.href), !key.utf8.elementsEqual(folder.utf8.dropLast()), !key.isEmpty else { continue }
            let components = key.utf8.split(separator: UInt8(ascii: "/"))
            if components.last?.first == UInt8(ascii: ".") { continue }
            if entry.isCollection {
                let child = key + "/"
                guard child.hasPrefixBytes(prefix) || prefix.hasPrefixBytes(child) else { continue }
                if components.count > Self.depthMax {
                    listing.skipped.append(SkippedEntry(key: key, problem: .tooDeep(levels: Self.depthMax)))
                } else {
                    folders.append(child)
                }
            } else if key.hasPrefixBytes(prefix) {
                listing.blobs.append(BlobInfo(key: key, sizeBytes: entry.sizeBytes ?? 0, revision: entry.revision))
            }
        }
        return folders
    }

    /// Whether the store's own folder exists, after the listing's start folder was not found
    /// (false at once when `start` is the store's folder); throws when it cannot be told.
    private func storeFolderExists(start: String) async throws(BlobStoreError) -> Bool {
        guard !start.isEmpty else { return false }
        let response = try await propfind(folder: "", depth: "0")
        switch response.status {
        case 207: return true
        case 404, 410: return false
        default: throw error(response)
        }
    }

    fileprivate func propfind(folder: String, depth: String) async throws(BlobStoreError) -> HTTPResponse {
        let body = #"<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getetag/><D:getlastmodified/></D:prop></D:propfind>"#
        return try await send(
            "PROPFIND", url: try url(forKey: folder, isFolder: true),
            headers: [("Depth", depth), ("Content-Type", "application/xml; charset=utf-8")], body: Array(body.utf8))
    }

    /// The key an href names (relative to the store's folder, decoded, without a trailing "/"),
    /// or nil when it lies outside the folder or is badly encoded.
    func relativeKey(href: String) -> String? {
        Self.relativeKey(href: href, decodedBasePath: decodedBasePath)
    }

    /// The key `href` names relative to the folder whose decoded path is `decodedBasePath`
    /// (ending in "/"), as ``relativeKey(href:)``. An href that starts with "/" is a path (a
    /// "://" inside it is part of a name); paths are compared byte for byte (UTF-8), never by
    /// Unicode equivalence, so a name that starts with a combining mark is still in its folder.
    package static func relativeKey(href: String, decodedBasePath: String) -> String? {
        var path = Substring(href)
        if !path.hasPrefix("/"), let schemeEnd = path.range(of: "://") {
            let afterScheme = path[schemeEnd.upperBound...]
            path = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        guard let decoded = percentDecoded(String(path)) else { return nil }
        if decoded.utf8.last != UInt8(ascii: "/") && (decoded + "/").utf8.elementsEqual(decodedBasePath.utf8) { return "" }
        guard let relative = droppingPrefix(decodedBasePath, of: decoded) else { return nil }
        let slashes = relative.utf8.reversed().prefix { $0 == UInt8(ascii: "/") }.count
        return String(decoding: relative.utf8.dropLast(slashes), as: UTF8.self)
    }

    // MARK: - Requests

    /// The absolute URL of `key` (a folder's when `isFolder`, ending in "/"), each path segment
    /// percent-encoded.
    func url(forKey key: String, isFolder: Bool = false) throws(BlobStoreError) -> String {
        var segments = key.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
        if isFolder {
            guard segments.last == "" else { throw .invalidKey(key) }
            segments.removeLast()
        }
        guard !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
            segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else { throw .invalidKey(key) }
        return origin + basePath + (key.isEmpty ? "" : SigV4.canonicalPath(key))
    }

    /// Sends a request (with the credentials), retrying by the policy; an answer too large is
    /// refused naming `blobKey` (a read's blob).
    func send(
        _ method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], blobKey: String? = nil
    ) async throws(BlobStoreError) -> HTTPResponse {
        guard let target = URL(string: url) else { throw .invalidKey(url) }
        var allHeaders = headers
        if let authorization { allHeaders.append((name: "Authorization", value: authorization)) }
        let request = HTTPRequest(method: method, url: target, headers: allHeaders, body: body)
        return try await client.send(blobKey: blobKey) { () throws(BlobStoreError) -> HTTPRequest in request }
    }

    /// The error for a failed answer: 401 and 403 refuse the credentials; a busy server's
    /// `Retry-After` is kept (``BlobStoreError/retryLater(afterMilliseconds:reason:)``) for a
    /// caller that retries.
    func error(_ response: HTTPResponse) -> BlobStoreError {
        if response.status == 503 || response.status == 429,
            let wait = RetryPolicy.retryAfterMilliseconds(header: response.headers["retry-after"])
        {
            return .retryLater(afterMilliseconds: wait, reason: "the server is busy (HTTP \(response.status))")
        }
        return switch response.status {
        case 401: .denied(code: "HTTP 401", message: "the server refused the user name or password")
        case 403: .denied(code: "HTTP 403", message: "the user may not use this folder")
        case 507: .full
        case 503, 429: .unavailable(reason: "the server is busy (HTTP \(response.status)); try later")
        default: .server(status: response.status, code: S3BlobStore.statusName(response.status), message: "")
        }
    }
}

/// One `<response>` of a WebDAV multistatus answer.
package struct WebDAVEntry: Equatable {
    /// The href as sent (percent-encoded, a path or an absolute URL).
    package var href: String
    /// Whether it is a folder.
    package var isCollection: Bool
    /// Its `getcontentlength`, when the server gave one.
    package var sizeBytes: Int?
    /// Its `getetag` and `getlastmodified`, when the server gave them (``BlobInfo/revision``;
    /// "" when it gave neither).
    package var revision: String

    /// An entry from its parts.
    package init(href: String, isCollection: Bool, sizeBytes: Int?, revision: String = "") {
        self.href = href
        self.isCollection = isCollection
        self.sizeBytes = sizeBytes
        self.revision = revision
    }

    /// The entries of a `207 Multi-Status` body, from the properties the server found (the
    /// `propstat` whose status is 200).
    package static func parse(multistatus body: [UInt8]) throws(XMLReadError) -> [WebDAVEntry] {
        let root = try XMLReader.parse(body)
        guard root.name == "multistatus" else { throw XMLReadError(reason: "expected multistatus, found \(XMLReadError.shown(root.name))") }
        var entries: [WebDAVEntry] = []
        for response in root.children("response") {
            guard let href = response.text(of: "href")?.trimmingCharacters(in: .whitespacesAndNewlines), !href.isEmpty else {
                throw XMLReadError(reason: "a response without an href")
            }
            let found = response.children("propstat").filter { ($0.text(of: "status") ?? "").contains(" 200") }
            let properties = found.compactMap { $0.child("prop") }
            let isCollection = properties.contains { $0.child("resourcetype")?.child("collection") != nil }
                || (properties.isEmpty && href.hasSuffix("/"))
            let size = properties.lazy.compactMap { $0.text(of: "getcontentlength").flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } }.first
            if let size, size < 0 { throw XMLReadError(reason: "a negative getcontentlength (\(size))") }
            let etag = properties.lazy.compactMap { $0.text(of: "getetag")?.trimmingCharacters(in: .whitespacesAndNewlines) }.first ?? ""
            let modified = properties.lazy.compactMap { $0.text(of: "getlastmodified")?.trimmingCharacters(in: .whitespacesAndNewlines) }.first ?? ""
            let revision = etag.isEmpty && modified.isEmpty ? "" : etag + " " + modified
            entries.append(WebDAVEntry(href: href, isCollection: isCollection, sizeBytes: size, revision: revision))
        }
        return entries
    }
}
