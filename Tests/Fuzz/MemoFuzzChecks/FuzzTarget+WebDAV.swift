import Foundation
import MemoSyncRemote

// WebDAV answers: `WebDAVEntry.parse(multistatus:)` (a `207 Multi-Status` body of `PROPFIND
// Depth: 1`, on `XMLReader`), then `WebDAVBlobStore.relativeKey(href:decodedBasePath:)` (with
// `percentDecoded`) for every href, as a listing does. The server, or a proxy, writes these bytes.

/// A multistatus answer for one folder, and how it is written.
struct WebDAVAnswerDocument {
    /// One `<response>`: the key relative to the folder ("" for the folder itself).
    struct Entry {
        var key: String
        var isCollection: Bool
        var sizeBytes: Int
        /// Bit 0: an absolute URL; bit 1: a folder's href without its trailing "/"; bit 2: white
        /// space around the href; bit 3: a 404 propstat (with a bogus length) before the 200 one;
        /// bits 4–7: percent-encoding (``FuzzXML/percentEncoded``).
        var style: UInt8
    }

    /// The folder's decoded path, ending in "/".
    var basePath: String
    var entries: [Entry]
    /// Unknown properties nested inside the first response's `<prop>`.
    var chainDepth = 0
    /// Bits 0–1: the namespace prefix ("D:", "d:", none, "lp1:"); bit 2: an XML declaration;
    /// bits 3–7: the XML escapes of hrefs (``FuzzXML/escaped(_:style:)``, shifted).
    var style: UInt8 = 0

    /// The folders' paths the generator and the checks use (decoded).
    static let basePaths = ["/", "/dav/n/", "/remote.php/dav/files/me/My Notes é+1/"]

    /// The deepest element's depth (multistatus, response, propstat, prop, the chain).
    var deepest: Int { entries.isEmpty ? 1 : 4 + chainDepth }

    /// The href of `entry` as a server sends it (percent-encoded).
    func href(_ entry: Entry) -> String {
        let path = basePath + entry.key + (entry.isCollection && !entry.key.isEmpty && entry.style & 2 == 0 ? "/" : "")
        let encoded = FuzzXML.percentEncoded(path, style: entry.style >> 4, keepSlash: true, spaceAsPlus: false, keepSubDelimiters: true)
        return (entry.style & 1 != 0 ? "https://cloud.example.com" : "") + encoded
    }

    /// The document's text; `marker` appears verbatim where a `Splice` asks.
    func render(marker: (Splice, String)? = nil) -> String {
        let p = ["D:", "d:", "", "lp1:"][Int(style & 3)]
        func at(_ splice: Splice) -> String { marker?.0 == splice ? marker!.1 : "" }
        var out = style & 4 != 0 ? "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" : ""
        out += "<\(p)multistatus xmlns\(p.isEmpty ? "" : ":" + p.dropLast())=\"DAV:\">"
        let middle = entries.count / 2
        for (index, entry) in entries.enumerated() {
            let splice = index == middle
            let space = entry.style & 4 != 0 ? "\n  " : ""
            out += (splice ? at(.betweenResponses) : "") + "<\(p)response><\(p)href>\(space)\(FuzzXML.escaped(href(entry), style: style >> 3))\(space)"
            out += (splice ? at(.href) : "") + "</\(p)href>"
            if entry.style & 8 != 0 {
                out += "<\(p)propstat><\(p)prop><\(p)getcontentlength>-1</\(p)getcontentlength><\(p)quota-used-bytes/></\(p)prop>"
                out += "<\(p)status>HTTP/1.1 404 Not Found</\(p)status></\(p)propstat>"
            }
            out += "<\(p)propstat><\(p)prop>"
            out += entry.isCollection ? "<\(p)resourcetype><\(p)collection/></\(p)resourcetype>" : "<\(p)resourcetype/>"
            if !entry.isCollection { out += "<\(p)getcontentlength>\(entry.sizeBytes)\(splice ? at(.size) : "")</\(p)getcontentlength>" }
            out += (index == 0 ? FuzzXML.chain(chainDepth, name: "\(p)x") : "") + (splice ? at(.inProp) : "")
            out += "<\(p)getlastmodified>Thu, 26 Nov 2026 05:00:00 GMT</\(p)getlastmodified></\(p)prop>"
            out += "<\(p)status>HTTP/1.1 200 OK</\(p)status></\(p)propstat></\(p)response>"
        }
        return out + "</\(p)multistatus>"
    }

    /// Where spliced mode inserts its payload (by `(first byte / 3) % 4`).
    enum Splice: CaseIterable {
        /// The middle response's href text (after its honest href).
        case href
        /// The middle response's `getcontentlength` text.
        case size
        /// Inside the middle response's `<prop>`.
        case inProp
        /// In the root, before the middle `<response>`.
        case betweenResponses
    }

    /// The honest answer spliced mode inserts into: the folder, a file, a file. After each
    /// splice point it holds no comment, CDATA section, quote or "?>" a payload could open.
    static let honest = WebDAVAnswerDocument(
        basePath: basePaths[2],
        entries: [
            Entry(key: "", isCollection: true, sizeBytes: 0, style: 0x08),
            Entry(key: "memosync/v1/a b+c%.seg", isCollection: false, sizeBytes: 42, style: 0x51),
            Entry(key: "memosync/v1/\u{1F600}.snap", isCollection: false, sizeBytes: 7, style: 0xC4),
        ],
        style: 0x04)

    /// The honest answer cut at each splice point, in the order of `Splice.allCases`.
    static let honestSplits = Splice.allCases.map { FuzzXML.split(honest.render(marker: ($0, FuzzXML.marker))) }
    /// The honest answer's entries as `parse(multistatus:)` reads them.
    static let honestEntries = honest.entries.map { WebDAVEntry(honest, $0) }

    /// A document generated from `reader`: the folder itself, then up to 12 entries (keys from
    /// ``FuzzXML/keyPieces``), written in the styles the bytes choose.
    static func generated(_ reader: inout FuzzByteReader) -> WebDAVAnswerDocument {
        let header = reader.next()
        var document = WebDAVAnswerDocument(basePath: basePaths[Int(header % 3)], entries: [], style: reader.next())
        document.chainDepth = FuzzXML.chainDepth(&reader)
        document.entries.append(Entry(key: "", isCollection: true, sizeBytes: 0, style: reader.next()))
        while !reader.isAtEnd && document.entries.count < 13 {
            let style = reader.next()
            let isCollection = reader.next() & 1 != 0
            document.entries.append(Entry(key: FuzzXML.key(&reader), isCollection: isCollection, sizeBytes: FuzzXML.size(&reader), style: style))
        }
        return document
    }
}

extension FuzzTarget {
    /// Raw and spliced answers: whatever parses is consistent with the reader's tree (one entry
    /// per `<response>`, no negative size, every href trimmed and not empty), and a key
    /// `relativeKey` finds comes back from an href written for it; spliced ones keep the honest
    /// entries around the splice. Generated answers parse to exactly the hrefs, kinds and sizes
    /// written, and each href to its key (or are refused when nested too deeply).
    static func checkWebDAVAnswer(_ input: FuzzInput) throws(FuzzFailure) {
        switch input.mode {
        case .raw:
            try checkWebDAVConsistency(input.payload)
        case .checksumRecomputed:
            let splices = WebDAVAnswerDocument.Splice.allCases
            let (before, after) = WebDAVAnswerDocument.honestSplits[Int(input.version - 1) % splices.count]
            let bytes = before + input.payload + after
            try checkWebDAVConsistency(bytes)
            guard let entries = try? WebDAVEntry.parse(multistatus: bytes) else { return }
            try require(entries.count >= 2, "\(entries.count) entries left of the honest three")
            let written = WebDAVAnswerDocument.honestEntries
            try require(entries.first!.sameListing(written.first!) && entries.last!.sameListing(written.last!), "the entries around the splice changed")
        case .sealed:
            var reader = FuzzByteReader(input.payload)
            try checkWebDAVGenerated(WebDAVAnswerDocument.generated(&reader))
        }
    }

    private static func checkWebDAVConsistency(_ bytes: [UInt8]) throws(FuzzFailure) {
        let tree = try? XMLReader.parse(bytes)
        if let tree { try require(FuzzXML.depth(of: tree) <= XMLReader.depthMax, "a tree \(FuzzXML.depth(of: tree)) deep was read") }
        guard let entries = try? WebDAVEntry.parse(multistatus: bytes) else { return }
        guard let tree else { throw FuzzFailure("a multistatus parsed where the reader refused the document") }
        let responses = tree.children("response")
        try require(tree.name == "multistatus" && entries.count == responses.count, "\(entries.count) entries of \(responses.count) <response>")
        for entry in entries {
            try require(entry.sizeBytes.map { $0 >= 0 } ?? true, "a negative size: \(entry)")
            try require(!entry.href.isEmpty && entry.href.trimmingCharacters(in: .whitespacesAndNewlines) == entry.href, "an href not trimmed: \(entry.href.debugDescription)")
            for base in WebDAVAnswerDocument.basePaths {
                guard let key = WebDAVBlobStore.relativeKey(href: entry.href, decodedBasePath: base), !key.isEmpty else { continue }
                try require(key.utf8.last != UInt8(ascii: "/"), "the key \(key.debugDescription) of \(entry.href.debugDescription) ends in /")
                let again = FuzzXML.percentEncoded(base + key, style: 0, keepSlash: true, spaceAsPlus: false)
                let back = WebDAVBlobStore.relativeKey(href: again, decodedBasePath: base)
                try require(back.map { $0.utf8.elementsEqual(key.utf8) } ?? false,
                            "\(entry.href.debugDescription) names \(key.debugDescription) under \(base), its own href \(again) names \(String(describing: back))")
            }
        }
    }

    private static func checkWebDAVGenerated(_ document: WebDAVAnswerDocument) throws(FuzzFailure) {
        let bytes = Array(document.render().utf8)
        let entries: [WebDAVEntry]
        do {
            entries = try WebDAVEntry.parse(multistatus: bytes)
        } catch {
            try require(document.deepest > XMLReader.depthMax, "an answer of \(document.entries.count) entries \(document.deepest) deep refused: \(error)")
            return
        }
        try require(document.deepest <= XMLReader.depthMax, "an answer \(document.deepest) deep was read (limit \(XMLReader.depthMax))")
        try require(entries.count == document.entries.count, "\(entries.count) entries read, \(document.entries.count) written")
        for (read, written) in zip(entries, document.entries) {
            let expected = WebDAVEntry(document, written)
            try require(read.sameListing(expected) && read.href.utf8.elementsEqual(expected.href.utf8), "\(read) read, \(expected) written", check: .roundTrip)
            let key = WebDAVBlobStore.relativeKey(href: read.href, decodedBasePath: document.basePath)
            try require(
                key.map { $0.utf8.elementsEqual(written.key.utf8) } ?? false,
                "\(read.href.debugDescription) under \(document.basePath.debugDescription) names \(String(describing: key)), written for \(written.key.debugDescription)",
                check: .roundTrip)
        }
    }
}

extension WebDAVEntry {
    /// The same href, kind and size: what these checks write and compare (the revision, read
    /// from `getetag` and `getlastmodified`, is whatever the honest answer's dates say).
    func sameListing(_ other: WebDAVEntry) -> Bool {
        href == other.href && isCollection == other.isCollection && sizeBytes == other.sizeBytes
    }

    /// What `parse(multistatus:)` should read for `entry` of `document`.
    init(_ document: WebDAVAnswerDocument, _ entry: WebDAVAnswerDocument.Entry) {
        self.init(href: document.href(entry), isCollection: entry.isCollection, sizeBytes: entry.isCollection ? nil : entry.sizeBytes)
    }
}
