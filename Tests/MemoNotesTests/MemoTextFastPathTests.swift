import MemoCRDT
@testable import MemoNotes
import Testing

/// The fast paths of `MemoText.preview` rest on two facts about Unicode; these tests check them
/// against the standard library for every scalar concerned.
@Suite struct MemoTextFastPathTests {
    @Test func whitespaceListMatchesTheProperty() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(MemoText.isWhitespace(value) == scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
        }
    }

    @Test func singleScalarCharactersStandAlone() {
        let ranges: [ClosedRange<UInt32>] = [0xC0...0x24F, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0x3041...0x3096, 0x30A1...0x30FA, 0x3400...0x4DBF]
        let followers: [Unicode.Scalar] = ["a", " ", "\n", "\r", "\u{E9}", "\u{24F}", "\u{4E00}", "\u{AC00}", "\u{3042}", "\u{30A2}", "\u{3400}"]
        for range in ranges {
            for value in range {
                #expect(MemoText.isSingleScalarCharacter(value))
                let scalar = Unicode.Scalar(value)!
                for follower in followers {
                    var view = String.UnicodeScalarView()
                    view.append(scalar)
                    view.append(follower)
                    #expect(String(view).count == 2, "U+\(String(value, radix: 16)) then U+\(String(follower.value, radix: 16))")
                }
            }
        }
        #expect(!MemoText.isSingleScalarCharacter(0x3099) && !MemoText.isSingleScalarCharacter(0x1100))
    }
}
