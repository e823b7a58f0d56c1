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
