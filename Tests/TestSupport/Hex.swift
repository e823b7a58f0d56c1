/// The bytes a hex string spells (two digits a byte; a pair that is not hex reads as 0).
public func bytesFromHex(_ text: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        result.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return result
}

/// `bytes` as lowercase hex, two digits a byte (the inverse of ``bytesFromHex(_:)``).
public func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}
