import Testing

@testable import MemoCRDT

/// An edit holds its replacement as a string or as UTF-8 (a whole text still encoded, which a
/// new device's bootstrap announces without making a string of it); both read, compare and
/// apply alike.
@Suite struct TextEditTests {
    @Test func anEditHeldAsUTF8ReadsComparesAndAppliesAsAString() {
        let text = "Café 한국어 かな 👍🏽\nsecond line"
        let buffer: [UInt8] = Array("prefix ".utf8) + Array(text.utf8) + Array(" suffix".utf8)
        let start = "prefix ".utf8.count
        let slice = buffer[start..<start + text.utf8.count]
        var fromBytes = TextEdit(rangeUTF16: 0..<0, replacementUTF8: slice)
        let fromString = TextEdit(rangeUTF16: 0..<0, replacement: text)
        #expect(fromBytes.replacement == text)
        #expect(fromBytes == fromString)
        #expect(fromBytes.description == fromString.description)
        #expect(fromBytes != TextEdit(rangeUTF16: 0..<1, replacement: text))
        #expect(fromBytes != TextEdit(rangeUTF16: 0..<0, replacement: text + "!"))
        // Canonically equivalent replacements are equal, as strings are.
        #expect(TextEdit(rangeUTF16: 0..<0, replacementUTF8: Array("e\u{301}".utf8)[...]) == TextEdit(rangeUTF16: 0..<0, replacement: "é"))

        var shadow: [UInt16] = Array("xy".utf16)
        fromBytes.rangeUTF16 = 1..<1
        fromBytes.apply(to: &shadow)
        #expect(String(decoding: shadow, as: UTF16.self) == "x" + text + "y")

        // Setting the replacement replaces what was held.
        fromBytes.replacement = "new"
        #expect(fromBytes.replacement == "new")
        #expect(fromBytes == TextEdit(rangeUTF16: 1..<1, replacement: "new"))
        #expect(TextEdit(rangeUTF16: 0..<0, replacementUTF8: []).replacement.isEmpty)
    }
}
