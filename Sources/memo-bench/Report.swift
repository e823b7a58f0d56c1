// One result line: an ordered list of key/value pairs rendered as a single-line JSON object.
// Adding a figure is one `report.add(...)` call; keys come out in the order they were added.

/// A value in a result line.
enum ReportValue {
    /// A JSON string.
    case string(String)
    /// A JSON integer.
    case integer(Int)
    /// A JSON number with a fixed number of decimals (`nil` for non-finite values).
    case decimal(Double, places: Int)
    /// A JSON boolean.
    case boolean(Bool)
    /// A JSON array of integers.
    case integers([Int])
    /// A JSON array of numbers, each with 3 decimals (`null` for non-finite ones).
    case numbers([Double])

    /// A time in milliseconds, with 3 decimals.
    static func milliseconds(_ value: Double) -> ReportValue { .decimal(value, places: 3) }

    /// A ratio or a size in MiB, with 3 decimals.
    static func number(_ value: Double) -> ReportValue { .decimal(value, places: 3) }

    /// The value as JSON text.
    var json: String {
        switch self {
        case let .string(text): return Self.quoted(text)
        case let .integer(value): return String(value)
        case let .boolean(value): return value ? "true" : "false"
        case let .integers(values): return "[" + values.map(String.init).joined(separator: ", ") + "]"
        case let .numbers(values): return "[" + values.map { ReportValue.number($0).json }.joined(separator: ", ") + "]"
        case let .decimal(value, places):
            guard value.isFinite else { return "null" }
            return Self.fixed(value, places: places)
        }
    }

    /// `value` with exactly `places` decimals, without locale effects.
    private static func fixed(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let units = Int(scaled)
        let whole = units / Int(scale)
        var fraction = String(units % Int(scale))
        fraction = String(repeating: "0", count: places - fraction.count) + fraction
        let sign = value < 0 && units != 0 ? "-" : ""
        return places == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// The result of one trace: key/value pairs in a stable order, printed as one JSON line.
struct Report {
    /// The pairs, in the order they were added.
    private(set) var fields: [(key: String, value: ReportValue)] = []

    /// Appends `key` with `value`; a nil value leaves the key out.
    mutating func add(_ key: String, _ value: ReportValue?) {
        guard let value else { return }
        fields.append((key, value))
    }

    /// The value stored for `key`, if any.
    subscript(key: String) -> ReportValue? {
        fields.first { $0.key == key }?.value
    }

    /// The same pairs, sorted by key (a stable sort: equal keys keep their order).
    func sortedByKey() -> Report {
        var sorted = self
        sorted.fields = fields.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
        return sorted
    }

    /// The report as a one-line JSON object.
    var json: String {
        "{" + fields.map { ReportValue.quoted($0.key) + ": " + $0.value.json }.joined(separator: ", ") + "}"
    }
}
