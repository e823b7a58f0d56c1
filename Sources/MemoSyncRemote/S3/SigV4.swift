import MemoSync

/// Credentials for an S3-compatible service: an access key, its secret, and a session token for
/// temporary credentials. Their `description` never shows the secret or the token (nor the whole
/// key), so logging a configuration or a report cannot leak them.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access key ID ("AKIA…").
    public var accessKeyID: String
    /// The secret access key. Never printed.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`. Never printed.
    public var sessionToken: String?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The key's first four characters and "…"; never the secret.
    public var description: String {
        "S3 credentials (access key \(accessKeyID.prefix(4))…\(sessionToken == nil ? "" : ", with a session token"))"
    }

    public var debugDescription: String { description }
}

/// AWS Signature Version 4 for one request (header signing, as S3 and compatible services
/// accept it). Pure functions of the request, the credentials and the time: no I/O, no clock.
///
/// The request's path is given decoded ("/bucket/memosync/v1/…"); ``canonicalPath(_:)`` encodes
/// each segment once (S3 neither normalizes nor double-encodes paths), and the caller sends the
/// URL built from that same encoded path, so what is signed is what travels.
struct SigV4 {
    /// The region ("us-east-1").
    var region: String
    /// The service ("s3").
    var service: String

    /// One request, as signed.
    struct Request {
        /// "GET", "PUT", …
        var method: String
        /// The host, with ":port" when the URL gives a port that is not the scheme's default.
        var host: String
        /// The decoded path, starting with "/".
        var path: String
        /// The query's names and values, decoded, in any order.
        var query: [(name: String, value: String)] = []
        /// Headers to sign besides host and x-amz-date (lowercase or not; repeated names are
        /// joined with "," in order).
        var headers: [(name: String, value: String)] = []
        /// The hex SHA-256 of the body (or "UNSIGNED-PAYLOAD").
        var payloadHash: String
    }

    /// What signing produced: the headers to send (besides those of the request) and the
    /// intermediate texts, which tests compare with published vectors.
    struct Signature {
        /// `Authorization`, `x-amz-date` and, with a session token, `x-amz-security-token`.
        var headers: [(name: String, value: String)]
        var canonicalRequest: String
        var stringToSign: String
        var signature: String
        var authorization: String
    }

    /// Signs `request` with `credentials` at `secondsSince1970` (UTC). Throws `.io` only when the
    /// platform's hashing fails.
    func sign(_ request: Request, credentials: S3Credentials, secondsSince1970: Int64) throws(BlobStoreError) -> Signature {
        let (dateStamp, amzDate) = Self.timestamps(secondsSince1970)
        var headers = request.headers
        headers.append((name: "host", value: request.host))
        headers.append((name: "x-amz-date", value: amzDate))
        if let token = credentials.sessionToken { headers.append((name: "x-amz-security-token", value: token)) }
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(headers)
        let canonicalRequest = [
            request.method, Self.canonicalPath(request.path), Self.canonicalQuery(request.query),
            canonicalHeaders, signedHeaders, request.payloadHash,
        ].joined(separator: "\n")
        let scope = "\(dateStamp)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, try SHA256.hexHash(Array(canonicalRequest.utf8))].joined(separator: "\n")
        let key = try signingKey(secret: credentials.secretAccessKey, dateStamp: dateStamp)
        let signature = Hex.lowercase(try HMACSHA256.authenticationCode(key: key, message: Array(stringToSign.utf8)))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        var added: [(name: String, value: String)] = [(name: "Authorization", value: authorization), (name: "x-amz-date", value: amzDate)]
        if let token = credentials.sessionToken { added.append((name: "x-amz-security-token", value: token)) }
        return Signature(headers: added, canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature, authorization: authorization)
    }

    /// The key derived from the secret for one day, region and service.
    func signingKey(secret: String, dateStamp: String) throws(BlobStoreError) -> [UInt8] {
        var key = try HMACSHA256.authenticationCode(key: Array("AWS4\(secret)".utf8), message: Array(dateStamp.utf8))
        for part in [region, service, "aws4_request"] {
            key = try HMACSHA256.authenticationCode(key: key, message: Array(part.utf8))
        }
        return key
    }

    /// Each segment of the decoded `path` percent-encoded once ("/" kept); "/" for an empty path.
    static func canonicalPath(_ path: String) -> String {
        guard !path.isEmpty else { return "/" }
        // Cut at "/" bytes: as Characters, "/" and a combining mark after it are one, and the
        // "/" would be encoded as %2F inside a segment.
        return path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { uriEncode(String(Substring($0))) }
            .joined(separator: "/")
    }

    /// The query sorted by encoded name, then encoded value, as `name=value` joined with "&".
    static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        query.map { (uriEncode($0.name), uriEncode($0.value)) }
            .sorted { $0.0 != $1.0 ? Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) : Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// The canonical header block (each `name:value` and a newline, sorted by lowercase name,
    /// values trimmed, inner runs of spaces collapsed, repeated names joined with ",") and the
    /// signed header list.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (block: String, signed: String) {
        var names: [String] = []
        var values: [String: [String]] = [:]
        for header in headers {
            let name = header.name.lowercased()
            if values[name] == nil { names.append(name) }
            values[name, default: []].append(collapseSpaces(header.value))
        }
        names.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let block = names.map { "\($0):\(values[$0, default: []].joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    /// `value` without leading and trailing spaces, and with each run of spaces inside as one.
    private static func collapseSpaces(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// RFC 3986 percent-encoding of every byte except the unreserved characters
    /// (A–Z a–z 0–9 - _ . ~), with uppercase hex digits.
    static func uriEncode(_ text: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return encoded
    }

    /// "20150830" and "20150830T123600Z" for a time in seconds since 1970 (UTC).
    static func timestamps(_ secondsSince1970: Int64) -> (dateStamp: String, amzDate: String) {
        let days = secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400
        let secondOfDay = secondsSince1970 - days * 86_400
        let (year, month, day) = CivilDate.of(daysSince1970: days)
        let date = pad(year, 4) + pad(month, 2) + pad(day, 2)
        let time = pad(secondOfDay / 3_600, 2) + pad(secondOfDay / 60 % 60, 2) + pad(secondOfDay % 60, 2)
        return (date, "\(date)T\(time)Z")
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
