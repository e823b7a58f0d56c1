/// A small JSON value for the measurement files (issue 30): integers only (every measurement is
/// an integer count of milliseconds, bytes or events), written canonically (object keys
/// sorted, fixed layout), so the same measurements always give the same bytes, and read back
/// for `memo-sim merge`. Pure Swift: the simulation library does not use Foundation.
public indirect enum JSONText: Equatable, Sendable {
    case integer(Int)
    case string(String)
    case bool(Bool)
    case null
    case array([JSONText])
    /// Keys are written sorted whatever their order here.
    case object([String: JSONText])

    // MARK: Writing

    /// The canonical text: keys sorted, two spaces of indentation per level, arrays of scalars
    /// on one line, a final newline.
    public var text: String {
        var output = ""
        write(into: &output, indent: 0)
        output += "\n"
        return output
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    private func write(into output: inout String, indent: Int) {
        switch self {
        case let .integer(value): output += String(value)
        case let .string(value): Self.writeString(value, into: &output)
        case let .bool(value): output += value ? "true" : "false"
        case .null: output += "null"
        case let .array(items):
            if items.isEmpty {
                output += "[]"
            } else if items.allSatisfy(\.isScalar) {
                output += "["
                for (index, item) in items.enumerated() {
                    if index > 0 { output += ", " }
                    item.write(into: &output, indent: indent)
                }
                output += "]"
            } else {
                let inner = String(repeating: "  ", count: indent + 1)
                output += "[\n"
                for (index, item) in items.enumerated() {
                    output += inner
                    item.write(into: &output, indent: indent + 1)
                    output += index == items.count - 1 ? "\n" : ",\n"
                }
                output += String(repeating: "  ", count: indent) + "]"
            }
        case let .object(members):
            if members.isEmpty {
                output += "{}"
                return
            }
            let inner = String(repeating: "  ", count: indent + 1)
            output += "{\n"
            let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for (index, key) in keys.enumerated() {
                output += inner
                Self.writeString(key, into: &output)
                output += ": "
                members[key]!.write(into: &output, indent: indent + 1)
                output += index == keys.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: "  ", count: indent) + "}"
        }
    }

    private static func writeString(_ value: String, into output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\t": output += "\\t"
            case "\r": output += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }

    // MARK: Accessors

    /// The member `key` of an object.
    public subscript(key: String) -> JSONText? {
        if case let .object(members) = self { return members[key] }
        return nil
    }

    public var int: Int? {
        if case let .integer(value) = self { return value }
        return nil
    }

    public var string: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    public var array: [JSONText]? {
        if case let .array(items) = self { return items }
        return nil
    }

    // MARK: Reading

    /// Reads `text` (integers only: a fraction or exponent is refused).
    public init(parsing text: String) throws(JSONTextError) {
        self = try Self.parseWithLines(text).value
    }

    /// Reads `text`, and the 1-based line where each value starts, by its path (`""` for the
    /// whole, `replicas[0].name` for a member of an element), for messages about a value.
    public static func parseWithLines(_ text: String) throws(JSONTextError) -> (value: JSONText, lines: [String: Int]) {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipSpace()
        let value = try parser.value(depth: 0, path: "")
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("text after the value") }
        return (value, parser.lines)
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var lines: [String: Int] = [:]

        func error(_ reason: String) -> JSONTextError {
            JSONTextError(line: line, reason: reason)
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) {
                if bytes[index] == 0x0A { line += 1 }
                index += 1
            }
        }

        mutating func expect(_ literal: String) throws(JSONTextError) {
            let expected = Array(literal.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw error("expected \(literal)")
            }
            index += expected.count
        }

        mutating func value(depth: Int, path: String) throws(JSONTextError) -> JSONText {
            lines[path] = line
            guard depth < 64 else { throw error("nested too deeply") }
            guard index < bytes.count else { throw error("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: JSONText] = [:]
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
                    let key = try string()
                    skipSpace()
                    try expect(":")
                    skipSpace()
                    guard members[key] == nil else { throw error("key \(key) twice") }
                    members[key] = try value(depth: depth + 1, path: path.isEmpty ? key : path + "." + key)
                    skipSpace()
                    guard index < bytes.count else { throw error("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    try expect("}")
                    return .object(members)
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONText] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1, path: path + "[\(items.count)]"))
                    skipSpace()
                    guard index < bytes.count else { throw error("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    try expect("]")
                    return .array(items)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            default:
                let start = index
                if bytes[index] == UInt8(ascii: "-") { index += 1 }
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard let value = Int(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                    throw error("expected a value")
                }
                if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
                    throw error("only integers are allowed")
                }
                return .integer(value)
            }
        }

        mutating func string() throws(JSONTextError) -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll()
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") {
                    flush()
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw error("a control character in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    run.append(byte)
                    continue
                }
                flush()
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
                        let scalar = Unicode.Scalar(code)
                    else { throw error("a bad \\u escape") }
                    index += 4
                    scalars.append(scalar)
                default:
                    throw error("a bad escape")
                }
            }
            throw error("a string does not end")
        }
    }
}

/// Why a measurement file could not be read.
public struct JSONTextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line.
    public var line: Int
    /// What is wrong.
    public var reason: String

    public var description: String { "line \(line): \(reason)" }
}
