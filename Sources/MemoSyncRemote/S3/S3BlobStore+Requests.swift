import Foundation
import MemoSync

extension S3BlobStore {
    /// The object key of blob `key` (the configured prefix and the key); refuses keys that are
    /// not relative paths of printable characters.
    func objectKey(_ key: String) throws(BlobStoreError) -> String {
        guard !key.isEmpty, key.utf8.first != UInt8(ascii: "/"), key.utf8.count <= 1_024 - configuration.prefix.utf8.count,
            !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalidKey(key) }
        return configuration.prefix + key
    }

    /// Sends a signed request for `objectKey` (nil: the bucket itself), retrying by the policy;
    /// an answer too large is refused naming `blobKey` (a read's blob).
    func send(
        _ method: String, objectKey: String?, query: [(name: String, value: String)], headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], blobKey: String? = nil
    ) async throws(BlobStoreError) -> HTTPResponse {
        let payloadHash = try SHA256.hexHash(body)
        return try await client.send(blobKey: blobKey) { () throws(BlobStoreError) -> HTTPRequest in
            try self.signedRequest(method, objectKey: objectKey, query: query, headers: headers, body: body, payloadHash: payloadHash)
        }
    }

    /// The request, signed now.
    func signedRequest(
        _ method: String, objectKey: String?, query: [(name: String, value: String)], headers: [(name: String, value: String)],
        body: [UInt8], payloadHash: String
    ) throws(BlobStoreError) -> HTTPRequest {
        let endpoint = configuration.endpoint
        let scheme = endpoint.scheme?.lowercased() ?? "https"
        var host = endpoint.host ?? ""
        // An IPv6 literal: Foundation on Linux gives its host with the brackets, Apple's without.
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if configuration.addressing == .virtualHosted { host = "\(configuration.bucket).\(host)" }
        if host.contains(":") { host = "[\(host)]" }
        let defaultPort = scheme == "https" ? 443 : 80
        let hostHeader = endpoint.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
        // The endpoint's own path (a server mounted under a path), the bucket (path-style), the key.
        var path = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        if configuration.addressing == .path { path += "/" + configuration.bucket }
        if let objectKey { path += "/" + objectKey } else { path += "/" }
        var signedHeaders = headers
        signedHeaders.append((name: "x-amz-content-sha256", value: payloadHash))
        let request = SigV4.Request(method: method, host: hostHeader, path: path, query: query, headers: signedHeaders, payloadHash: payloadHash)
        let signature = try signer.sign(request, credentials: configuration.credentials, secondsSince1970: wallClockSeconds())
        let queryText = query.isEmpty ? "" : "?" + SigV4.canonicalQuery(query)
        guard let url = URL(string: "\(scheme)://\(hostHeader)\(SigV4.canonicalPath(path))\(queryText)") else {
            throw .invalidKey(objectKey ?? configuration.bucket)
        }
        var sent = signedHeaders + signature.headers
        if method == "PUT" { sent.append((name: "Content-Type", value: "application/octet-stream")) }
        return HTTPRequest(method: method, url: url, headers: sent, body: body)
    }

    /// The error for a failed answer: refused credentials (403, 401 and S3's credential codes)
    /// as ``BlobStoreError/denied(code:message:)``, anything else as
    /// ``BlobStoreError/server(status:code:message:)``, with the server's code and message.
    func error(_ response: HTTPResponse, key: String?) -> BlobStoreError {
        let parsed = try? S3Answers.error(response.body)
        let code = serverText(parsed?.code ?? "", limit: 64)
        let message = serverText(parsed?.message ?? "")
        if Self.deniedCodes.contains(code) || response.status == 401 || (response.status == 403 && code.isEmpty) {
            return .denied(code: code.isEmpty ? "HTTP \(response.status)" : code, message: message)
        }
        if response.status == 503 || code == "SlowDown" {
            let reason = "the server is busy (HTTP \(response.status)\(code.isEmpty ? "" : " \(code)"))"
            // The wait the server asked for, kept for a caller that retries (RetryPolicy).
            if let wait = RetryPolicy.retryAfterMilliseconds(header: response.headers["retry-after"]) {
                return .retryLater(afterMilliseconds: wait, reason: reason)
            }
            return .unavailable(reason: reason + "; try later")
        }
        return .server(status: response.status, code: code.isEmpty ? Self.statusName(response.status) : code, message: message)
    }

    static let deniedCodes: Set<String> = [
        "AccessDenied", "SignatureDoesNotMatch", "RequestTimeTooSkewed", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken",
        "TokenRefreshRequired", "AuthorizationHeaderMalformed", "InvalidSecurity", "AccountProblem", "AllAccessDisabled",
    ]

    static func statusName(_ status: Int) -> String {
        switch status {
        case 301, 307: "a redirect (wrong region or endpoint?)"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 409: "Conflict"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 504: "Gateway Timeout"
        default: "HTTP error"
        }
    }

    /// Whether `name` is a bucket name S3 accepts (3–63 lowercase letters, digits, ".", "-",
    /// and "_" which some compatible servers allow), so that it is safe in a host name or path.
    static func isValidBucketName(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

extension S3BlobStore {
    /// The blobs of a listing page of a store whose keys live under `prefix` (compared byte for
    /// byte): the objects outside it left out, the prefix taken off the others.
    package static func blobs(in page: S3Answers.ListPage, under prefix: String) -> [BlobInfo] {
        page.objects.indices.compactMap { index in
            let object = page.objects[index]
            let revision = index < page.revisions.count ? page.revisions[index] : ""
            return droppingPrefix(prefix, of: object.key).map { BlobInfo(key: $0, sizeBytes: object.sizeBytes, revision: revision) }
        }
    }
}

/// S3's XML answers: listing pages and errors.
package enum S3Answers {
    /// One page of `ListObjectsV2`.
    package struct ListPage: Equatable {
        /// The objects listed: each key (decoded) and size.
        package var objects: [(key: String, sizeBytes: Int)]
        /// Whether more pages follow.
        package var isTruncated: Bool
        /// The token that asks for the next page.
        package var nextContinuationToken: String?
        /// Each object's `ETag` and `LastModified` (``BlobInfo/revision``), in the order of
        /// ``objects`` ("" when the page gives neither).
        package var revisions: [String] = []

        package static func == (lhs: ListPage, rhs: ListPage) -> Bool {
            lhs.objects.map(\.key) == rhs.objects.map(\.key) && lhs.objects.map(\.sizeBytes) == rhs.objects.map(\.sizeBytes)
                && lhs.isTruncated == rhs.isTruncated && lhs.nextContinuationToken == rhs.nextContinuationToken
        }
    }

    /// Reads a `ListBucketResult`; keys are percent-decoded when the page says
    /// `<EncodingType>url</EncodingType>`.
    package static func listPage(_ body: [UInt8]) throws(XMLReadError) -> ListPage {
        let root = try XMLReader.parse(body)
        guard root.name == "ListBucketResult" else { throw XMLReadError(reason: "expected ListBucketResult, found \(XMLReadError.shown(root.name))") }
        let urlEncoded = root.text(of: "EncodingType")?.lowercased() == "url"
        var objects: [(key: String, sizeBytes: Int)] = []
        var revisions: [String] = []
        for content in root.children("Contents") {
            guard let rawKey = content.text(of: "Key"), let size = content.text(of: "Size").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
                size >= 0
            else { throw XMLReadError(reason: "an object without a key or size") }
            let key = urlEncoded ? percentDecoded(rawKey, plusIsSpace: true) : rawKey
            guard let key else { throw XMLReadError(reason: "a badly encoded key") }
            objects.append((key, size))
            let etag = content.text(of: "ETag")?.trimmingCharacters(in: .whitespaces) ?? ""
            let modified = content.text(of: "LastModified")?.trimmingCharacters(in: .whitespaces) ?? ""
            revisions.append(etag.isEmpty && modified.isEmpty ? "" : etag + " " + modified)
        }
        let truncated = root.text(of: "IsTruncated")?.trimmingCharacters(in: .whitespaces).lowercased() == "true"
        return ListPage(objects: objects, isTruncated: truncated, nextContinuationToken: root.text(of: "NextContinuationToken"), revisions: revisions)
    }

    /// The `<Error>` document's code and message.
    package static func error(_ body: [UInt8]) throws(XMLReadError) -> (code: String, message: String) {
        let root = try XMLReader.parse(body)
        guard root.name == "Error" else { throw XMLReadError(reason: "expected Error, found \(XMLReadError.shown(root.name))") }
        return (root.text(of: "Code") ?? "", root.text(of: "Message") ?? "")
    }

    /// The error code of a failed answer, if its body has one.
    static func errorCode(_ response: HTTPResponse) -> String? { (try? error(response.body))?.code }
}

/// `text` with its %XX escapes decoded (and "+" as a space when `plusIsSpace`, as S3's
/// URL-encoded listings write spaces); nil when an escape is malformed or the bytes are not UTF-8.
package func percentDecoded(_ text: String, plusIsSpace: Bool = false) -> String? {
    var bytes: [UInt8] = []
    let source = Array(text.utf8)
    var index = 0
    while index < source.count {
        let byte = source[index]
        if byte == UInt8(ascii: "%") {
            guard index + 2 < source.count, let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2]) else { return nil }
            bytes.append(high << 4 | low)
            index += 3
        } else {
            bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
    }
    return String(validating: bytes, as: UTF8.self)
}

/// The value of a hexadecimal digit (`UInt8(_:radix:)` would also take "+F" and "-0").
private func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}
