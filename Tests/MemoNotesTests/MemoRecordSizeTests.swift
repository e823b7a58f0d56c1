import MemoCRDT
import Testing

@testable import MemoNotes

/// A memo's record holds its text encoded (most memos) or decoded; the decoded text is boxed so
/// that the encoded majority does not pay for its size (BENCHMARKS.md, "Then smaller memo
/// records": 464 bytes a record inline, 248 boxed, on 64-bit platforms; 256 since the search key
/// names its range of a shared buffer; 248 again with the text's stamp, its flags side by side).
@Suite struct MemoRecordSizeTests {
    @Test func aRecordDoesNotHoldADecodedTextInline() {
        #expect(MemoryLayout<MemoTextStorage>.size < MemoryLayout<TextCRDT>.size)
        if MemoryLayout<Int>.size == 8 {
            #expect(MemoryLayout<MemoRecord>.stride <= 248, "\(MemoryLayout<MemoRecord>.stride) bytes")
        }
    }
}
