import MemoSync
import MemoSyncRemote

// S3 answers: `S3Answers.listPage` (a `ListObjectsV2` page) and `S3Answers.error` (an `<Error>`
// document, whose code and message `serverText` cleans before a user sees them), both on
// `XMLReader`. A bucket's server, a proxy, or whoever controls the answers writes these bytes.

/// A `ListBucketResult` page or an `<Error>` document, and how it is written.
struct S3AnswerDocument {
    var objects: [(key: String, sizeBytes: Int)] = []
    /// The store's prefix inside the bucket ("" or ending in "/"), before every object's key.
    var storePrefix = ""
    var urlEncoded = true
    var isTruncated = false
    var token: String?
    /// Unknown elements nested inside the first `<Contents>` (inside the root without objects).
    var chainDepth = 0
    /// An `<Error>` document of this code and message instead of a page.
    var error: (code: String, message: String)?
    /// Bit 0: an XML declaration; bit 1: a namespace prefix on every element; bit 2: comments
    /// between elements; bit 3: spaces around sizes.
    var style: UInt8 = 0
    /// The escapes and percent-encoding of each object's key (``FuzzXML/escaped(_:style:)``).
    var keyStyles: [UInt8] = []

    /// The deepest element's depth.
    var deepest: Int { error != nil ? 2 : (objects.isEmpty ? 1 : 2) + chainDepth }

    /// The document's text; `marker` (a splice point) appears verbatim where a `Splice` asks.
    func render(marker: (Splice, String)? = nil) -> String {
        let p = style & 2 != 0 ? "s3:" : ""
        let comment = style & 4 != 0 ? "<!-- c -->" : ""
        func at(_ splice: Splice) -> String { marker?.0 == splice ? marker!.1 : "" }
        var out = style & 1 != 0 ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : ""
        if let error {
            return out + "<\(p)Error\(p.isEmpty ? "" : " xmlns:s3=\"x\"")><\(p)Code>\(FuzzXML.escaped(error.code, style: style))</\(p)Code>"
                + "<\(p)Message>\(FuzzXML.escaped(error.message, style: style >> 1))\(at(.errorMessage))</\(p)Message>"
                + "<\(p)Resource>/bucket</\(p)Resource><\(p)RequestId>4442587FB7D0A2F9</\(p)RequestId></\(p)Error>"
        }
        let chain = FuzzXML.chain(chainDepth, name: "\(p)Owner")
        out += "<\(p)ListBucketResult xmlns\(p.isEmpty ? "" : ":s3")=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(comment)"
        out += "<\(p)Name>bucket</\(p)Name><\(p)Prefix></\(p)Prefix><\(p)KeyCount>\(objects.count)</\(p)KeyCount>"
        if urlEncoded { out += "<\(p)EncodingType>url</\(p)EncodingType>" }
        out += "<\(p)IsTruncated>\(isTruncated)</\(p)IsTruncated>"
        if let token { out += "<\(p)NextContinuationToken>\(FuzzXML.escaped(token, style: style))</\(p)NextContinuationToken>" }
        let middle = objects.count / 2
        for (index, object) in objects.enumerated() {
            let keyStyle = keyStyles[index]
            let fullKey = storePrefix + object.key
            let key = urlEncoded ? FuzzXML.percentEncoded(fullKey, style: keyStyle >> 4, keepSlash: true, spaceAsPlus: keyStyle & 0x80 != 0) : fullKey
            let spaces = style & 8 != 0 ? " \t" : ""
            let splice = index == middle
            out += (splice ? at(.betweenObjects) : "") + "\(comment)<\(p)Contents><\(p)Key>\(FuzzXML.escaped(key, style: keyStyle))\(splice ? at(.key) : "")</\(p)Key>"
            out += "<\(p)LastModified>2026-11-26T05:00:00.000Z</\(p)LastModified><\(p)ETag>&quot;9b2cf535f27731c9&quot;</\(p)ETag>"
            out += "<\(p)Size>\(spaces)\(object.sizeBytes)\(splice ? at(.size) : "")\(spaces)</\(p)Size>\(splice ? at(.inContents) : "")"
            out += (index == 0 ? chain : "") + "<\(p)StorageClass>STANDARD</\(p)StorageClass></\(p)Contents>"
        }
        return out + (objects.isEmpty ? chain : "") + "</\(p)ListBucketResult>"
    }

    /// Where spliced mode inserts its payload (by `(first byte / 3) % 5`).
    enum Splice: CaseIterable {
        /// The middle object's key text (after its honest key).
        case key
        /// The middle object's size text.
        case size
        /// Inside the middle `<Contents>`, after its size.
        case inContents
        /// In the root, before the middle `<Contents>`.
        case betweenObjects
        /// An error document's message text.
        case errorMessage
    }

    /// The honest document spliced mode inserts into: three objects, URL-encoded, truncated.
    /// After each splice point it holds no comment, CDATA section, quote or "?>" that a payload
    /// could open and the honest text close (the checks rely on it).
    static let honest = S3AnswerDocument(
        objects: [("memosync/v1/0123456789abcdef/segments/a b+c%.seg", 12), ("memosync/v1/é/x", 0), ("memosync/v1/\u{1F600}", 7)],
        urlEncoded: true, isTruncated: true, token: "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=", style: 0x0B, keyStyles: [0x00, 0x45, 0xCF])
    /// The honest documents cut at each splice point, in the order of `Splice.allCases`.
    static let honestSplits = Splice.allCases.map { splice in
        FuzzXML.split((splice == .errorMessage ? honestError : honest).render(marker: (splice, FuzzXML.marker)))
    }
    /// The honest error document.
    static let honestError = S3AnswerDocument(error: (code: "SlowDown", message: "Please reduce your request rate."))

    /// A document generated from `reader`: a page of up to 12 objects (keys from
    /// ``FuzzXML/keyPieces``), or an error document, written in the styles the bytes choose.
    static func generated(_ reader: inout FuzzByteReader) -> S3AnswerDocument {
        var document = S3AnswerDocument()
        let header = reader.next()
        document.style = reader.next()
        if header & 0x80 != 0 {
            document.error = (FuzzXML.key(&reader), FuzzXML.key(&reader))
            return document
        }
        document.urlEncoded = header & 1 != 0
        document.isTruncated = header & 2 != 0
        if header & 8 != 0 { document.storePrefix = "notes/" }
        if header & 4 != 0 { document.token = FuzzXML.key(&reader) }
        document.chainDepth = FuzzXML.chainDepth(&reader)
        while !reader.isAtEnd && document.objects.count < 12 {
            document.keyStyles.append(reader.next())
            document.objects.append((FuzzXML.key(&reader), FuzzXML.size(&reader)))
        }
        return document
    }
}

extension FuzzTarget {
    /// Raw and spliced documents: whatever parses is consistent with the reader's tree (one
    /// object per `<Contents>`, sizes not negative, keys as written without URL encoding, depth
    /// within the limit), spliced ones keep the honest objects around the splice; generated
    /// documents parse to exactly what was generated, or are refused when nested too deeply.
    static func checkS3Answers(_ input: FuzzInput) throws(FuzzFailure) {
        switch input.mode {
        case .raw:
            try checkS3Consistency(input.payload)
        case .checksumRecomputed:
            let splices = S3AnswerDocument.Splice.allCases
            let splice = Int(input.version - 1) % splices.count
            let honest = splices[splice] == .errorMessage ? S3AnswerDocument.honestError : S3AnswerDocument.honest
            let (before, after) = S3AnswerDocument.honestSplits[splice]
            let bytes = before + input.payload + after
            try checkS3Splice(checkS3Consistency(bytes), honest: honest)
        case .sealed:
            var reader = FuzzByteReader(input.payload)
            try checkS3Generated(S3AnswerDocument.generated(&reader))
        }
    }

    /// What the readers accepted: a page, or an error's code and message.
    private typealias S3Read = (page: S3Answers.ListPage?, error: (code: String, message: String)?)

    @discardableResult
    private static func checkS3Consistency(_ bytes: [UInt8]) throws(FuzzFailure) -> S3Read {
        // Both readers start with `XMLReader.parse` and refuse another root: each runs on the
        // documents it may accept (a third parse of every input halved the rate).
        guard let tree = try? XMLReader.parse(bytes) else { return (nil, nil) }
        try require(FuzzXML.depth(of: tree) <= XMLReader.depthMax, "a tree \(FuzzXML.depth(of: tree)) deep was read")
        if tree.name == "ListBucketResult" {
            guard let page = try? S3Answers.listPage(bytes) else { return (nil, nil) }
            let contents = tree.children("Contents")
            try require(tree.name == "ListBucketResult" && page.objects.count == contents.count, "\(page.objects.count) objects of \(contents.count) <Contents>")
            try require(page.objects.allSatisfy { $0.sizeBytes >= 0 }, "a negative size listed")
            if tree.text(of: "EncodingType")?.lowercased() != "url" {
                try require(page.objects.map(\.key) == contents.map { $0.text(of: "Key") ?? "" }, "keys other than the <Key> texts")
            }
            return (page, nil)
        }
        if tree.name == "Error" {
            let error: (code: String, message: String)
            do { error = try S3Answers.error(bytes) } catch { throw FuzzFailure("an <Error> document the reader read refused: \(error)") }
            for (text, limit) in [(error.code, 64), (error.message, 200)] {
                let shown = serverText(text, limit: limit)
                try require(shown.count <= limit + 1, "server text of \(shown.count) characters")
                try require(!shown.unicodeScalars.contains { $0.properties.generalCategory == .control }, "server text with a control character")
            }
            return (nil, error)
        }
        return (nil, nil)
    }

    private static func checkS3Splice(_ read: S3Read, honest: S3AnswerDocument) throws(FuzzFailure) {
        if let error = honest.error {
            if let parsed = read.error { try require(parsed.code == error.code, "the error code became \(parsed.code.debugDescription)") }
            return
        }
        guard let page = read.page else { return }
        try require(page.isTruncated == honest.isTruncated && page.nextContinuationToken == honest.token, "the page's truncation or token changed")
        try require(page.objects.count >= 2, "\(page.objects.count) objects left of the honest three")
        try require(sameObject(page.objects.first!, honest.objects.first!) && sameObject(page.objects.last!, honest.objects.last!), "the objects around the splice changed")
    }

    private static func checkS3Generated(_ document: S3AnswerDocument) throws(FuzzFailure) {
        let bytes = Array(document.render().utf8)
        let refused = document.deepest > XMLReader.depthMax
        if let error = document.error {
            let parsed: (code: String, message: String)
            do { parsed = try S3Answers.error(bytes) } catch { throw FuzzFailure("an error document refused: \(error)") }
            try require(parsed.code == error.code && parsed.message == error.message, "the error reads as \(parsed), written \(error)")
            try require((try? S3Answers.listPage(bytes)) == nil, "an error document read as a listing page")
            return
        }
        let page: S3Answers.ListPage
        do {
            page = try S3Answers.listPage(bytes)
        } catch {
            try require(refused, "a page of \(document.objects.count) objects \(document.deepest) deep refused: \(error)")
            return
        }
        try require(!refused, "a page \(document.deepest) deep was read (limit \(XMLReader.depthMax))")
        for (read, written) in zip(page.objects, document.objects) {
            try require(sameObject(read, (document.storePrefix + written.key, written.sizeBytes)), "object \(FuzzXML.shown(read.key)) (\(read.sizeBytes) bytes) read, \(FuzzXML.shown(document.storePrefix + written.key)) (\(written.sizeBytes)) written", check: .roundTrip)
        }
        let blobs = S3BlobStore.blobs(in: page, under: document.storePrefix)
        try require(
            blobs.count == document.objects.count && zip(blobs, document.objects).allSatisfy { sameObject(($0.key, $0.sizeBytes), $1) },
            "the store's blobs under \(document.storePrefix.debugDescription) are \(blobs), written \(document.objects)")
        try require(page.objects.count == document.objects.count, "\(page.objects.count) objects read, \(document.objects.count) written")
        try require(page.isTruncated == document.isTruncated && page.nextContinuationToken == document.token, "truncation or token changed", check: .roundTrip)
    }
}

/// Whether two listed objects have the same key (byte for byte) and size.
private func sameObject(_ lhs: (key: String, sizeBytes: Int), _ rhs: (key: String, sizeBytes: Int)) -> Bool {
    lhs.key.utf8.elementsEqual(rhs.key.utf8) && lhs.sizeBytes == rhs.sizeBytes
}
