import Foundation
import Synchronization
import MemoSync
import Testing

@testable import MemoSyncRemote

/// The XML reader, S3 listing pages and WebDAV multistatus answers.
@Suite struct ParsingTests {
    @Test func xmlReaderReadsNamespacesEntitiesAndCDATA() throws {
        let document = """
            <?xml version="1.0"?><!-- a comment --><!DOCTYPE x>
            <D:root xmlns:D="DAV:" a='1>2'><D:item>a &amp; b &lt;c&gt; &#65;&#x42;</D:item><empty/><![CDATA[<raw>]]></D:root>
            """
        let root = try XMLReader.parse(Array(document.utf8))
        #expect(root.name == "root")
        #expect(root.text(of: "item") == "a & b <c> AB")
        #expect(root.child("empty") != nil)
        #expect(root.text.contains("<raw>"))
    }

    @Test func xmlReaderRejectsBrokenDocuments() {
        for broken in ["", "<a>", "<a></b>", "<a>&bogus;</a>", "<a><b></a>", "<a x=\"1></a>", String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)] {
            #expect(throws: XMLReadError.self, "\(broken.prefix(20))") { try XMLReader.parse(Array(broken.utf8)) }
        }
    }

    @Test func s3ListingPageWithContinuationAndURLEncodedKeys() throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p%2F</Prefix>
            <KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
            <Contents><Key>p/memosync/v1/a+b%2Bc.seg</Key><Size>12</Size><ETag>&quot;x&quot;</ETag></Contents>
            <Contents><Key>p/%E1%88%B4</Key><Size>0</Size></Contents>
            <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken></ListBucketResult>
            """
        let page = try S3Answers.listPage(Array(body.utf8))
        #expect(page.objects.map(\.key) == ["p/memosync/v1/a b+c.seg", "p/\u{1234}"])
        #expect(page.objects.map(\.sizeBytes) == [12, 0])
        #expect(page.isTruncated)
        #expect(page.nextContinuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        #expect(throws: XMLReadError.self) { try S3Answers.listPage(Array("<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>".utf8)) }
        #expect(throws: XMLReadError.self) { try S3Answers.listPage(Array("<Error><Code>x</Code></Error>".utf8)) }
    }

    @Test func s3ListingFollowsContinuationTokensPastAThousandKeys() async throws {
        // 2,500 keys in pages of 1,000: three requests, each after the first carrying the
        // previous page's token.
        let keys = (0..<2_500).map { "memosync/v1/0000000000000001/segments/\(String(format: "%010d", $0)).seg" }
        let transport = ScriptedTransport { request, _ in
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let start = Int(query.first { $0.name == "continuation-token" }?.value ?? "0") ?? 0
            let page = keys[start..<min(start + 1_000, keys.count)]
            let contents = page.map { "<Contents><Key>notes/\($0)</Key><Size>7</Size></Contents>" }.joined()
            let more = start + 1_000 < keys.count
            return xmlResponse(200, "<ListBucketResult><IsTruncated>\(more)</IsTruncated>\(contents)\(more ? "<NextContinuationToken>\(start + 1_000)</NextContinuationToken>" : "")</ListBucketResult>")
        }
        let store = try S3BlobStore(
            configuration: .init(bucket: "notes-bucket", prefix: "notes", endpoint: URL(string: "http://127.0.0.1:9")!, credentials: .init(accessKeyID: "AK", secretAccessKey: "SK")),
            transport: transport, environment: FakeRetryClock().environment, wallClockSeconds: { 1_700_000_000 })
        let listed = try await store.list(prefix: "memosync/v1/")
        #expect(listed.map(\.key) == keys)
        #expect(transport.requests.count == 3)
        #expect(transport.requests.map { $0.url.query ?? "" }.filter { $0.contains("continuation-token") }.count == 2)
        #expect(transport.requests[0].url.absoluteString.hasPrefix("http://127.0.0.1:9/notes-bucket/?"))
        #expect(transport.requests[0].url.query?.contains("prefix=notes%2Fmemosync%2Fv1%2F") == true)
    }

    @Test func webDAVMultistatusWithPercentEncodedHrefs() throws {
        let body = """
            <?xml version="1.0" encoding="utf-8" ?>
            <d:multistatus xmlns:d="DAV:"><d:response><d:href>/remote.php/dav/My%20Notes/memosync/</d:href>
            <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
            <d:propstat><d:prop><d:getcontentlength/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat></d:response>
            <d:response><d:href>https://cloud.example.com/remote.php/dav/My%20Notes/memosync/a%2Bb%E1%88%B4.seg</d:href>
            <d:propstat><d:prop><d:resourcetype/><d:getcontentlength>42</d:getcontentlength></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            </d:multistatus>
            """
        let entries = try WebDAVEntry.parse(multistatus: Array(body.utf8))
        #expect(entries.count == 2)
        #expect(entries[0].isCollection && entries[0].sizeBytes == nil)
        #expect(!entries[1].isCollection && entries[1].sizeBytes == 42)
        let store = try WebDAVBlobStore(
            configuration: .init(folder: URL(string: "https://cloud.example.com/remote.php/dav/My%20Notes")!, credentials: nil),
            transport: ScriptedTransport { _, _ in .failure(.timedOut) }, environment: FakeRetryClock().environment)
        #expect(store.relativeKey(href: entries[0].href) == "memosync")
        #expect(store.relativeKey(href: entries[1].href) == "memosync/a+b\u{1234}.seg")
        #expect(store.relativeKey(href: "/remote.php/dav/My%20Notes/") == "")
        #expect(store.relativeKey(href: "/remote.php/dav/Other/x") == nil)
        #expect(store.relativeKey(href: "/remote.php/dav/My%20Notes/%ZZ") == nil)
        #expect(try store.url(forKey: "memosync/v1/a b.seg") == "https://cloud.example.com/remote.php/dav/My%20Notes/memosync/v1/a%20b.seg")
        for bad in ["", "/abs", "a//b", "a/../b", "a/\u{7}"] {
            #expect(throws: BlobStoreError.invalidKey(bad)) { try store.url(forKey: bad) }
        }
    }
}

/// What the fuzz targets `s3-listing` and `webdav-multistatus` found or bound (Tests/Fuzz).
@Suite struct HostileAnswerTests {
    /// Names are bytes: one that starts with a combining mark (U+0301 after the folder's "/") is
    /// in its folder; Character-wise `hasPrefix` saw "/\u{301}" as one character and left it out.
    @Test func aNameStartingWithACombiningMarkIsInItsFolder() {
        #expect(WebDAVBlobStore.relativeKey(href: "/dav/n/%CC%81x", decodedBasePath: "/dav/n/") == "\u{301}x")
        #expect(WebDAVBlobStore.relativeKey(href: "https://h/dav/n/%CC%81/", decodedBasePath: "/dav/n/") == "\u{301}")
        // No Unicode equivalence either: a decomposed "é" is another folder than a precomposed one.
        #expect(WebDAVBlobStore.relativeKey(href: "/N%C3%A9/x", decodedBasePath: "/Ne\u{301}/") == nil)
        let page = S3Answers.ListPage(objects: [("notes/\u{301}.seg", 3), ("notesx", 1), ("other/a", 2)], isTruncated: false, nextContinuationToken: nil)
        #expect(S3BlobStore.blobs(in: page, under: "notes/") == [BlobInfo(key: "\u{301}.seg", sizeBytes: 3)])
        #expect(droppingPrefix("a/", of: "a/\u{301}") == "\u{301}" && droppingPrefix("a/", of: "b/") == nil)
    }

    /// An href that starts with "/" is a path even when a name in it holds "://".
    @Test func aPathHoldingASchemeSeparatorIsAPath() {
        #expect(WebDAVBlobStore.relativeKey(href: "/dav/n/a://b", decodedBasePath: "/dav/n/") == "a://b")
        #expect(WebDAVBlobStore.relativeKey(href: "http://h:8080/dav/n/a://b/", decodedBasePath: "/dav/n/") == "a://b")
        #expect(WebDAVBlobStore.relativeKey(href: "/dav/n///", decodedBasePath: "/dav/n/") == "")
        #expect(WebDAVBlobStore.relativeKey(href: "/dav/n", decodedBasePath: "/dav/n/") == "")
    }

    /// An escape is "%" and two hexadecimal digits: "%+F" and "%-0" (which `UInt8(_:radix:)`
    /// reads as 15 and 0) are badly encoded.
    @Test func percentEscapesTakeHexDigitsOnly() {
        #expect(percentDecoded("a%2Bb%e1%88%b4+c", plusIsSpace: true) == "a+b\u{1234} c")
        for bad in ["%+F", "%-0", "% 1", "%1", "%", "%G0", "%C3"] { #expect(percentDecoded(bad) == nil, "\(bad)") }
        #expect(WebDAVBlobStore.relativeKey(href: "/dav/n/%+F", decodedBasePath: "/dav/n/") == nil)
    }

    @Test func aNegativeContentLengthIsRefused() throws {
        func answer(_ length: String, status: String = "200 OK") -> [UInt8] {
            Array(("<d:multistatus xmlns:d=\"DAV:\"><d:response><d:href>/x</d:href><d:propstat><d:prop><d:getcontentlength>\(length)"
                + "</d:getcontentlength></d:prop><d:status>HTTP/1.1 \(status)</d:status></d:propstat></d:response></d:multistatus>").utf8)
        }
        #expect(throws: XMLReadError.self) { try WebDAVEntry.parse(multistatus: answer("-5")) }
        #expect(try WebDAVEntry.parse(multistatus: answer("-5", status: "404 Not Found")).first?.sizeBytes == nil)
        #expect(try WebDAVEntry.parse(multistatus: answer(" 5\n")).first?.sizeBytes == 5)
        #expect(throws: XMLReadError.self) { try S3Answers.listPage(Array("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>".utf8)) }
    }

    /// One root element: a second one (a proxy's page appended, say) is refused rather than read
    /// in place of the first; text and comments after the root are fine.
    @Test func aSecondRootElementIsRefused() throws {
        #expect(throws: XMLReadError.self) { try XMLReader.parse(Array("<Error><Code>A</Code></Error><Error><Code>B</Code></Error>".utf8)) }
        #expect(throws: XMLReadError.self) { try XMLReader.parse(Array("<a/><b/>".utf8)) }
        #expect(try XMLReader.parse(Array("\u{FEFF}<a>x</a>\n<!-- end -->\n".utf8)).text == "x")
    }

    /// Errors show at most 40 characters of a name, however long the name in the answer.
    @Test func errorReasonsShowBoundedNames() {
        let long = String(repeating: "n", count: 100_000)
        for document in ["<\(long)>", "<a></\(long)>", "<\(long)/>", "<a/><\(long)/>"] {
            do {
                _ = try S3Answers.listPage(Array(document.utf8))
                Issue.record("\(document.prefix(12)) was read")
            } catch {
                #expect(error.reason.count < 100, "\(error.reason.prefix(60))")
            }
        }
    }

    /// Large answers are read whole and exactly: a long text run, many entities, many siblings,
    /// nesting at the limit (every construct is scanned once; see XMLReader's documentation).
    @Test func largeAnswersAreReadExactly() throws {
        let run = String(repeating: "abcdefgh", count: 250_000)
        #expect(try XMLReader.parse(Array("<a>\(run)</a>".utf8)).text == run)
        let entities = String(repeating: "&amp;&#x1F600;", count: 100_000)
        #expect(try XMLReader.parse(Array("<a>\(entities)</a>".utf8)).text == String(repeating: "&\u{1F600}", count: 100_000))
        let siblings = try XMLReader.parse(Array(("<a>" + String(repeating: "<b>x</b>", count: 100_000) + "</a>").utf8))
        #expect(siblings.children.count == 100_000)
        let deepest = XMLReader.depthMax
        let nested = String(repeating: "<e>", count: deepest) + String(repeating: "</e>", count: deepest)
        #expect(try XMLReader.parse(Array(nested.utf8)).name == "e")
        #expect(throws: XMLReadError(reason: "nested too deeply")) { try XMLReader.parse(Array(("<f>" + nested + "</f>").utf8)) }
    }
}

/// The WebDAV listing walk against a scripted server.
@Suite struct WebDAVWalkTests {
    private static func multistatus(_ entries: [(String, Bool, Int)]) -> Result<HTTPResponse, TransportFailure> {
        let responses = entries.map { href, isFolder, size in
            "<D:response><D:href>\(href)</D:href><D:propstat><D:prop><D:resourcetype>\(isFolder ? "<D:collection/>" : "")</D:resourcetype>"
                + (isFolder ? "" : "<D:getcontentlength>\(size)</D:getcontentlength>") + "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
        }.joined()
        return xmlResponse(207, "<D:multistatus xmlns:D=\"DAV:\">\(responses)</D:multistatus>")
    }

    @Test func walksFolderByFolderSkippingHiddenFilesAndUnrelatedFolders() async throws {
        let transport = ScriptedTransport { request, _ in
            #expect(request.method == "PROPFIND" && request.headers.contains { $0 == ("Depth", "1") })
            switch request.url.absoluteString.replacingOccurrences(of: "http://127.0.0.1:9", with: "") {
            case "/dav/n/memosync/v1/":
                return Self.multistatus([("/dav/n/memosync/v1/", true, 0), ("/dav/n/memosync/v1/a%20b/", true, 0), ("/dav/n/memosync/v1/c/", true, 0)])
            case "/dav/n/memosync/v1/a%20b/":
                return Self.multistatus([("/dav/n/memosync/v1/a%20b/", true, 0), ("/dav/n/memosync/v1/a%20b/x.seg", false, 5), ("/dav/n/memosync/v1/a%20b/.upload-1-x.seg", false, 2)])
            case "/dav/n/memosync/v1/c/":
                return .success(HTTPResponse(status: 403))
            default:
                return .success(HTTPResponse(status: 404))
            }
        }
        let store = try WebDAVBlobStore(
            configuration: .init(folder: URL(string: "http://127.0.0.1:9/dav/n/")!, credentials: nil), transport: transport, environment: FakeRetryClock().environment)
        let listing = try await store.listing(prefix: "memosync/v1/")
        #expect(listing.blobs == [BlobInfo(key: "memosync/v1/a b/x.seg", sizeBytes: 5)])
        #expect(listing.skipped == [SkippedEntry(key: "memosync/v1/c", problem: .unreadable(reason: "HTTP 403 Forbidden"))])
        #expect(transport.requests.count == 3)
    }

    /// FORMAT.md "Store layout": WebDAV listings "walk at most 12 levels below the folder". A
    /// server that answers every folder with a folder inside it (and a blob) is walked 12 levels
    /// down; the 13th level is reported once as too deep, never asked about.
    @Test func aListingWalksAtMost12LevelsBelowTheFolder() async throws {
        let transport = ScriptedTransport { request, _ in
            let path = request.url.absoluteString.replacingOccurrences(of: "http://127.0.0.1:9", with: "")
            return Self.multistatus([(path, true, 0), (path + "d/", true, 0), (path + "b.seg", false, 3)])
        }
        let store = try WebDAVBlobStore(
            configuration: .init(folder: URL(string: "http://127.0.0.1:9/dav/n/")!, credentials: nil), transport: transport, environment: FakeRetryClock().environment)
        let listing = try await store.listing(prefix: "")
        // Blobs in the store's folder and in each of the 12 levels below it.
        #expect(listing.blobs.count == 13)
        #expect(listing.blobs.last?.key == String(repeating: "d/", count: 12) + "b.seg")
        #expect(listing.skipped == [SkippedEntry(key: String(repeating: "d/", count: 13).dropLast().description, problem: .tooDeep(levels: 12))])
        #expect(transport.requests.count == 13)
        #expect(WebDAVBlobStore.depthMax == 12)
    }

    /// With `createsMissingFolder`, a missing store folder is made level by level (MKCOL from
    /// the top; 405 where a level exists) and the listing is empty.
    @Test func aMissingStoreFolderIsMadeWhenAllowed() async throws {
        let made = Mutex<[String]>([])
        let transport = ScriptedTransport { request, _ in
            let path = request.url.absoluteString.replacingOccurrences(of: "http://127.0.0.1:9", with: "")
            if request.method == "MKCOL" {
                made.withLock { $0.append(path) }
                return .success(HTTPResponse(status: path == "/dav/" ? 405 : 201))
            }
            return .success(HTTPResponse(status: 404))
        }
        var configuration = WebDAVBlobStore.Configuration(folder: URL(string: "http://127.0.0.1:9/dav/my%20notes/")!, credentials: nil)
        configuration.createsMissingFolder = true
        let store = try WebDAVBlobStore(configuration: configuration, transport: transport, environment: FakeRetryClock().environment)
        #expect(try await store.list(prefix: "memosync/v1/").isEmpty)
        #expect(made.withLock { $0 } == ["/dav/", "/dav/my%20notes/"])
    }

    @Test func aMissingStartFolderIsEmptyUnlessTheStoreFolderIsMissingToo() async throws {
        for baseExists in [true, false] {
            let transport = ScriptedTransport { request, _ in
                if request.url.absoluteString == "http://127.0.0.1:9/dav/n/" {
                    return baseExists ? Self.multistatus([("/dav/n/", true, 0)]) : .success(HTTPResponse(status: 404))
                }
                return .success(HTTPResponse(status: 404))
            }
            let store = try WebDAVBlobStore(
                configuration: .init(folder: URL(string: "http://127.0.0.1:9/dav/n/")!, credentials: nil), transport: transport, environment: FakeRetryClock().environment)
            if baseExists {
                #expect(try await store.list(prefix: "memosync/v1/").isEmpty)
            } else {
                await #expect(throws: BlobStoreError.self) { try await store.list(prefix: "memosync/v1/") }
            }
        }
    }
}
