/// A small XML reader for the answers remote stores parse (S3 listings and errors, WebDAV
/// multistatus): elements by local name (namespace prefixes dropped, since S3 and WebDAV use one
/// namespace each), their text with entities and CDATA decoded; attributes, comments,
/// processing instructions and the DOCTYPE are skipped; text outside the root element is
/// ignored, a second root element refused. Not a validating parser: it reads well-formed
/// documents and rejects what it cannot read with ``XMLReadError``, never crashes. Linear in the
/// document's length (every construct is scanned once), nesting at most ``XMLReader/depthMax``.
package struct MarkupElement: Sendable, Equatable {
    /// The local name ("Key" for `<Key>`, "href" for `<D:href>`).
    package var name: String
    /// The child elements, in order.
    package var children: [MarkupElement] = []
    /// The text directly inside the element (all its text pieces joined).
    package var text: String = ""

    /// The first child named `name`.
    package func child(_ name: String) -> MarkupElement? { children.first { $0.name == name } }
    /// Every child named `name`, in order.
    package func children(_ name: String) -> [MarkupElement] { children.filter { $0.name == name } }
    /// The text of the first child named `name`.
    package func text(of name: String) -> String? { child(name)?.text }
}

/// Why a document could not be read.
package struct XMLReadError: Error, Equatable, CustomStringConvertible {
    /// What could not be read.
    package var reason: String
    package var description: String { "unreadable XML: \(reason)" }

    /// An element name as a reason shows it: at most 40 characters (a hostile answer's names
    /// can be megabytes long).
    static func shown(_ name: String) -> String {
        name.count > 40 ? name.prefix(40) + "…" : name
    }
}

/// Reads the XML documents remote stores answer with (``parse(_:)``).
package enum XMLReader {
    /// Elements nested deeper than this are refused (no answer we read nests more than 6).
    package static let depthMax = 64

    /// The document's root element.
    package static func parse(_ bytes: [UInt8]) throws(XMLReadError) -> MarkupElement {
        var scanner = Scanner(bytes: bytes)
        var stack: [MarkupElement] = []
        var root: MarkupElement?
        while let byte = scanner.peek() {
            if byte != UInt8(ascii: "<") {
                let text = try scanner.text()
                if !stack.isEmpty { stack[stack.count - 1].text += text }
                continue
            }
            if scanner.skip("<?") { try scanner.skipPast("?>"); continue }
            if scanner.skip("<!--") { try scanner.skipPast("-->"); continue }
            if scanner.skip("<![CDATA[") {
                let text = try scanner.until("]]>")
                if !stack.isEmpty { stack[stack.count - 1].text += String(decoding: text, as: UTF8.self) }
                continue
            }
            if scanner.skip("<!") { try scanner.skipPast(">"); continue }
            if scanner.skip("</") {
                let name = try scanner.name()
                try scanner.skipPast(">")
                guard let element = stack.popLast(), element.name == name else { throw XMLReadError(reason: "unexpected </\(XMLReadError.shown(name))>") }
                if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
                continue
            }
            scanner.advance()
            let name = try scanner.name()
            let selfClosing = try scanner.skipAttributes()
            guard root == nil else { throw XMLReadError(reason: "a second root element <\(XMLReadError.shown(name))>") }
            let element = MarkupElement(name: name)
            if selfClosing {
                if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
            } else {
                guard stack.count < depthMax else { throw XMLReadError(reason: "nested too deeply") }
                stack.append(element)
            }
        }
        guard stack.isEmpty, let root else { throw XMLReadError(reason: stack.isEmpty ? "no element" : "unclosed <\(XMLReadError.shown(stack[stack.count - 1].name))>") }
        return root
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }
        mutating func advance() { index += 1 }

        /// Whether `literal` is next (ASCII; no allocation: this runs at every "<").
        func isAt(_ literal: StaticString, position: Int) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            let start = literal.utf8Start
            for offset in 0..<count where bytes[position + offset] != start[offset] { return false }
            return true
        }

        mutating func skip(_ literal: StaticString) -> Bool {
            guard isAt(literal, position: index) else { return false }
            index += literal.utf8CodeUnitCount
            return true
        }

        /// The bytes up to `terminator`, which is consumed.
        mutating func until(_ terminator: StaticString) throws(XMLReadError) -> ArraySlice<UInt8> {
            let first = terminator.utf8Start[0]
            var position = index
            while position + terminator.utf8CodeUnitCount <= bytes.count {
                if bytes[position] == first && isAt(terminator, position: position) {
                    let found = bytes[index..<position]
                    index = position + terminator.utf8CodeUnitCount
                    return found
                }
                position += 1
            }
            throw XMLReadError(reason: "missing \"\(terminator)\"")
        }

        mutating func skipPast(_ terminator: StaticString) throws(XMLReadError) { _ = try until(terminator) }

        /// An element name; its prefix ("D:") dropped.
        mutating func name() throws(XMLReadError) -> String {
            let start = index
            while let byte = peek(), !isSpace(byte), byte != UInt8(ascii: ">"), byte != UInt8(ascii: "/") { advance() }
            guard index > start else { throw XMLReadError(reason: "an element without a name") }
            let full = bytes[start..<index]
            let local = full.lastIndex(of: UInt8(ascii: ":")).map { full[($0 + 1)...] } ?? full
            return String(decoding: local, as: UTF8.self)
        }

        /// Skips a start tag's attributes and its ">"; whether it ended with "/>".
        mutating func skipAttributes() throws(XMLReadError) -> Bool {
            while let byte = peek() {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    advance()
                    if byte == UInt8(ascii: "\"") { try skipPast("\"") } else { try skipPast("'") }
                case UInt8(ascii: ">"):
                    advance()
                    return false
                case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: ">"):
                    index += 2
                    return true
                default:
                    advance()
                }
            }
            throw XMLReadError(reason: "an unfinished start tag")
        }

        /// Character data up to the next "<", entities decoded.
        mutating func text() throws(XMLReadError) -> String {
            var out: [UInt8] = []
            while let byte = peek(), byte != UInt8(ascii: "<") {
                if byte == UInt8(ascii: "&") {
                    advance()
                    let entity = try until(";")
                    out += try Self.decode(entity)
                } else {
                    out.append(byte)
                    advance()
                }
            }
            return String(decoding: out, as: UTF8.self)
        }

        private static func decode(_ entity: ArraySlice<UInt8>) throws(XMLReadError) -> [UInt8] {
            let name = String(decoding: entity, as: UTF8.self)
            switch name {
            case "lt": return [UInt8(ascii: "<")]
            case "gt": return [UInt8(ascii: ">")]
            case "amp": return [UInt8(ascii: "&")]
            case "quot": return [UInt8(ascii: "\"")]
            case "apos": return [UInt8(ascii: "'")]
            default:
                var value: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    value = UInt32(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    value = UInt32(name.dropFirst(), radix: 10)
                }
                guard let value, let scalar = Unicode.Scalar(value) else { throw XMLReadError(reason: "unknown entity &\(name.prefix(20));") }
                return Array(String(Character(scalar)).utf8)
            }
        }

        private func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
    }
}
