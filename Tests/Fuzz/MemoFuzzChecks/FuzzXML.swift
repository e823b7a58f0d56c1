import MemoSyncRemote

// Pieces shared by the remote stores' XML targets (FuzzTarget+S3.swift, FuzzTarget+WebDAV.swift):
// a reader of input bytes that drives the generators, and the encodings a server applies to what
// it lists (XML escapes, CDATA, comments between text pieces, percent-encoding).
//
// Modes of these targets (first input byte % 3), documented in Tests/Fuzz/README.md:
// - 0, raw: the rest is the document.
// - 1, spliced: the rest is inserted, unescaped, into an honest document at the splice point the
//   first byte chooses (`(first / 3) % points`): a text, or between elements.
// - 2, generated: the rest drives a generator of a valid document (keys, sizes, encodings,
//   namespace prefixes, nesting depth); what it parses to is known exactly.

/// Input bytes read one at a time (zero once exhausted), for the generators.
struct FuzzByteReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte was read.
    var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, or 0 past the end.
    mutating func next() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }
}

enum FuzzXML {
    /// What generated keys are made of: plain characters, the ones XML escapes and URLs encode,
    /// combining marks (alone too), astral scalars, control characters, and look-alikes of escapes.
    static let keyPieces: [String] = [
        "a", "b", "Z", "0", "9", ".", "-", "_", "~", " ", "+", "%", "&", "<", ">", "\"", "'", "é", "e\u{301}", "\u{301}",
        "\u{1234}", "\u{1F600}", "\t", ":", "?", "#", "=", "]]>", "\u{0}", "\u{7F}", ";", "&amp;", "%2F", "\r\n", "://", "seg",
    ]

    /// A key of 1 to 8 pieces, with "/" between some (never first, never two in a row; "a" added
    /// when it would end in "/").
    static func key(_ reader: inout FuzzByteReader) -> String {
        let count = Int(reader.next() % 8) + 1
        var key = ""
        var previousWasSlash = true
        for _ in 0..<count {
            let byte = reader.next()
            if byte % 7 == 0 && !previousWasSlash {
                key += "/"
                previousWasSlash = true
            } else {
                key += keyPieces[Int(byte) % keyPieces.count]
                previousWasSlash = false
            }
        }
        return key.utf8.last == UInt8(ascii: "/") ? key + "a" : key
    }

    /// A size: 0, one byte, two bytes, or near `Int.max`.
    static func size(_ reader: inout FuzzByteReader) -> Int {
        let byte = reader.next()
        switch byte % 4 {
        case 0: return 0
        case 1: return Int(reader.next())
        case 2: return Int(reader.next()) << 8 | Int(reader.next())
        default: return Int.max - Int(reader.next())
        }
    }

    /// Depth of a chain of unknown elements: mostly small, else around the reader's limit.
    static func chainDepth(_ reader: inout FuzzByteReader) -> Int {
        let byte = Int(reader.next())
        return byte < 200 ? byte % 4 : XMLReader.depthMax - 8 + (byte - 200) % 16
    }

    /// `count` nested elements named `name` (the innermost holding a text), as a server's
    /// unknown extension would send them.
    static func chain(_ count: Int, name: String) -> String {
        String(repeating: "<\(name)>", count: count) + (count > 0 ? "x" : "") + String(repeating: "</\(name)>", count: count)
    }

    /// `text` as XML character data, by `style`: escapes named or numeric, optional escapes of
    /// the characters that need none, CDATA when it holds no "]]>", a comment between two pieces.
    static func escaped(_ text: String, style: UInt8) -> String {
        // Bytes, not Characters: in "]]>\u{301}" the ">" and the mark are one Character.
        let cdataEnd = Array("]]>".utf8)
        let utf8 = Array(text.utf8)
        let holdsCDATAEnd = utf8.count >= 3 && (0...(utf8.count - 3)).contains { utf8[$0..<$0 + 3].elementsEqual(cdataEnd) }
        if style & 0x10 != 0 && !holdsCDATAEnd && !text.isEmpty {
            return "<![CDATA[" + text + "]]>"
        }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += style & 1 == 0 ? "&amp;" : "&#38;"
            case "<": out += style & 1 == 0 ? "&lt;" : "&#x3C;"
            case ">": out += style & 2 == 0 ? "&gt;" : ">"
            case "\"": out += style & 2 == 0 ? "&quot;" : "\""
            case "'": out += style & 2 == 0 ? "&apos;" : "'"
            default:
                if style & 4 != 0 && !scalar.isASCII {
                    out += "&#x\(String(scalar.value, radix: 16, uppercase: style & 8 != 0));"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        if style & 0x20 != 0, out.utf8.count > 1, let split = out.utf8.firstIndex(where: { $0 == UInt8(ascii: "&") }) ?? out.utf8.indices.last {
            // Two text pieces around a comment (at a character boundary: before an "&" or the last ASCII byte).
            if let index = String.Index(split, within: out) {
                return String(out[..<index]) + "<!-- between -->" + String(out[index...])
            }
        }
        return out
    }

    /// The sub-delimiters of RFC 3986 and ":" and "@", which some servers leave unencoded in paths.
    private static let subDelimiters = Array(":@!$&'()*+,;=".utf8)

    /// `text` percent-encoded by `style`: unreserved characters (and "/" when `keepSlash`) as
    /// they are unless bit 2 asks to encode them too, sub-delimiters (":", "+", "&", …) kept when
    /// bit 3 is set and `keepSubDelimiters`, a space as "+" when `spaceAsPlus`, hex digits
    /// uppercase unless bit 1.
    static func percentEncoded(_ text: String, style: UInt8, keepSlash: Bool, spaceAsPlus: Bool, keepSubDelimiters: Bool = false) -> String {
        var out: [UInt8] = []
        let hex = Array((style & 1 == 0 ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        for byte in text.utf8 {
            let unreserved = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            let subDelimiter = subDelimiters.contains(byte)
            if (unreserved && style & 4 == 0) || (keepSlash && byte == UInt8(ascii: "/"))
                || (keepSubDelimiters && subDelimiter && style & 8 != 0) {
                out.append(byte)
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                out.append(UInt8(ascii: "+"))
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` for a failure message: printable ASCII as it is, every other scalar as `\u{…}`
    /// (so that combining marks and look-alikes show).
    static func shown(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined() + "\""
    }

    /// The depth of the deepest element of `element`'s tree (1 for an element without children).
    static func depth(of element: MarkupElement) -> Int {
        1 + (element.children.map { depth(of: $0) }.max() ?? 0)
    }

    /// The marker a document renders at its splice point.
    static let marker = "\u{1}SPLICE\u{1}"

    /// `document` cut where ``marker`` is (once per process: spliced inputs only join bytes).
    static func split(_ document: String) -> (before: [UInt8], after: [UInt8]) {
        let bytes = Array(document.utf8)
        let needle = Array(marker.utf8)
        guard let start = (0...(bytes.count - needle.count)).first(where: { bytes[$0..<$0 + needle.count].elementsEqual(needle) }) else {
            preconditionFailure("no splice marker in the honest document")
        }
        return (Array(bytes[..<start]), Array(bytes[(start + needle.count)...]))
    }
}
