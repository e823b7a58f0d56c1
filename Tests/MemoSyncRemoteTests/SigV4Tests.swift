import Foundation
import MemoSync
import Testing

@testable import MemoSyncRemote

/// The signer against AWS's published vectors: the Signature Version 4 test suite
/// (aws-sig-v4-test-suite: region us-east-1, service "service", 2015-08-30T12:36:00Z) and the S3
/// documentation's header-signing examples.
@Suite struct SigV4Tests {
    static let suiteCredentials = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let suiteTime: Int64 = 1_440_938_160
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    let suite = SigV4(region: "us-east-1", service: "service")

    private func suiteSignature(
        method: String = "GET", path: String = "/", query: [(name: String, value: String)] = [], headers: [(name: String, value: String)] = [],
        body: String = ""
    ) throws -> SigV4.Signature {
        let request = SigV4.Request(
            method: method, host: "example.amazonaws.com", path: path, query: query, headers: headers, payloadHash: try SHA256.hexHash(Array(body.utf8)))
        return try suite.sign(request, credentials: Self.suiteCredentials, secondsSince1970: Self.suiteTime)
    }

    @Test func getVanilla() throws {
        let signed = try suiteSignature()
        #expect(signed.canonicalRequest == "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(Self.emptyHash)")
        #expect(
            signed.stringToSign
                == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63")
        #expect(
            signed.authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func suiteVectors() throws {
        let vectors: [(name: String, signature: SigV4.Signature, expected: String)] = try [
            ("get-vanilla-query-order-key-case", suiteSignature(query: [("Param2", "value2"), ("Param1", "value1")]),
             "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
            ("get-vanilla-query-order-value", suiteSignature(query: [("Param1", "value2"), ("Param1", "value1")]),
             "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
            ("get-vanilla-utf8-query", suiteSignature(query: [("\u{1234}", "bar")]),
             "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
            ("get-unreserved", suiteSignature(path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
             "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
            ("get-header-value-trim", suiteSignature(headers: [("My-Header1", " value1"), ("My-Header2", "\"a   b   c\"")]),
             "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
            ("get-header-key-duplicate", suiteSignature(headers: [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")]),
             "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
            ("get-header-value-order", suiteSignature(headers: [("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2")]),
             "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
            ("post-x-www-form-urlencoded", suiteSignature(method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "Param1=value1"),
             "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
        ]
        for vector in vectors {
            #expect(vector.signature.signature == vector.expected, "\(vector.name)")
        }
    }

    @Test func sessionTokenIsSignedAndSent() throws {
        var credentials = Self.suiteCredentials
        credentials.sessionToken = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
        let request = SigV4.Request(method: "GET", host: "example.amazonaws.com", path: "/", payloadHash: Self.emptyHash)
        let signed = try suite.sign(request, credentials: credentials, secondsSince1970: Self.suiteTime)
        // aws-sig-v4-test-suite: post-sts-token/post-sts-header-before, as GET (the suite's get variant).
        #expect(signed.authorization.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,"))
        #expect(signed.signature == "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8")
        #expect(signed.headers.contains { $0.name == "x-amz-security-token" && $0.value == credentials.sessionToken })
    }

    /// The S3 documentation's examples (examplebucket, 2013-05-24).
    @Test func s3DocumentationExamples() throws {
        let credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        let s3 = SigV4(region: "us-east-1", service: "s3")
        let getObject = SigV4.Request(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
            headers: [("Range", "bytes=0-9"), ("x-amz-content-sha256", Self.emptyHash)], payloadHash: Self.emptyHash)
        #expect(try s3.sign(getObject, credentials: credentials, secondsSince1970: 1_369_353_600).signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        let listObjects = SigV4.Request(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/", query: [("max-keys", "2"), ("prefix", "J")],
            headers: [("x-amz-content-sha256", Self.emptyHash)], payloadHash: Self.emptyHash)
        #expect(try s3.sign(listObjects, credentials: credentials, secondsSince1970: 1_369_353_600).signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func pathsAndQueriesAreEncodedOnce() {
        #expect(SigV4.canonicalPath("/bucket/memosync/v1/a b/ሴ+%.seg") == "/bucket/memosync/v1/a%20b/%E1%88%B4%2B%25.seg")
        #expect(SigV4.canonicalPath("") == "/")
        #expect(SigV4.canonicalQuery([("prefix", "memosync/v1/"), ("list-type", "2"), ("continuation-token", "a+b=")])
            == "continuation-token=a%2Bb%3D&list-type=2&prefix=memosync%2Fv1%2F")
    }

    @Test func timestampsAreUTC() {
        #expect(SigV4.timestamps(0) == ("19700101", "19700101T000000Z"))
        #expect(SigV4.timestamps(951_782_400) == ("20000229", "20000229T000000Z"))
        #expect(SigV4.timestamps(4_107_542_399) == ("21000228", "21000228T235959Z"))
    }
}

/// How S3 requests are addressed and what they carry.
@Suite struct S3AddressingTests {
    private func request(_ configuration: S3BlobStore.Configuration, key: String) throws -> HTTPRequest {
        let store = try S3BlobStore(
            configuration: configuration, transport: ScriptedTransport { _, _ in .failure(.timedOut) }, environment: FakeRetryClock().environment,
            wallClockSeconds: { 1_369_353_600 })
        return try store.signedRequest("PUT", objectKey: try store.objectKey(key), query: [], headers: [("If-None-Match", "*")], body: [1, 2], payloadHash: try SHA256.hexHash([1, 2]))
    }

    @Test func virtualHostedAndPathStyle() throws {
        let credentials = S3Credentials(accessKeyID: "AK", secretAccessKey: "SK")
        let aws = try request(.init(bucket: "notes", prefix: "team", region: "eu-west-1", credentials: credentials), key: "memosync/v1/a b.seg")
        #expect(aws.url.absoluteString == "https://notes.s3.eu-west-1.amazonaws.com/team/memosync/v1/a%20b.seg")
        let minio = try request(.init(bucket: "notes", endpoint: URL(string: "http://127.0.0.1:9000/s3")!, credentials: credentials), key: "k")
        #expect(minio.url.absoluteString == "http://127.0.0.1:9000/s3/notes/k")
        let signed = Dictionary(minio.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(try signed["x-amz-content-sha256"] == SHA256.hexHash([1, 2]))
        #expect(signed["x-amz-date"] == "20130524T000000Z")
        #expect(signed["if-none-match"] == "*")
        #expect(signed["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AK/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date, Signature=") == true)
    }

    @Test func badBucketsAndKeysAreRefused() throws {
        let credentials = S3Credentials(accessKeyID: "AK", secretAccessKey: "SK")
        for bucket in ["ab", "Notes", "a/b", String(repeating: "a", count: 64)] {
            #expect(throws: BlobStoreError.self, "\(bucket)") { try S3BlobStore(configuration: .init(bucket: bucket, credentials: credentials)) }
        }
        let store = try S3BlobStore(configuration: .init(bucket: "notes", credentials: credentials))
        for key in ["", "/abs", "a\u{0}b", String(repeating: "k", count: 1_025)] {
            #expect(throws: BlobStoreError.invalidKey(key)) { try store.objectKey(key) }
        }
    }
}
