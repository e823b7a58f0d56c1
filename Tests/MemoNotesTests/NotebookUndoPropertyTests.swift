import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// On one replica with nobody else editing, undo walks back through the texts the memo had,
/// one coalesced step at a time, to the text it started with; redo walks forward again.
/// Random keystrokes (typing, backspace, forward delete, range deletes and replacements,
/// bursts and pauses); rerun a failure with `MEMOSYNC_SEED`.
@Suite struct NotebookUndoPropertyTests {
    @Test(arguments: testSeeds(24, salt: 0x0D0E))
    func undoRetracesTheTexts(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let memo = MemoID(high: 9, low: seed)
        var notebook = Notebook(replica: ReplicaID(0xC0 + seed % 7))
        let initial = random.chance(0.5) ? "" : "Start é𝄞 text\nline"
        try notebook.createMemo(memo, text: initial, wallMilliseconds: 1_000)
        var wall: UInt64 = 10_000
        var texts = [initial]
        let alphabet = Array("abcdé𝄞 \n".unicodeScalars)
        var caret = random.int(in: 0...initial.unicodeScalars.count)
        for _ in 0..<random.int(in: 1...120) {
            // Mostly keystrokes close together (they coalesce), sometimes a pause.
            wall += random.chance(0.85) ? UInt64(random.int(in: 20...400)) : UInt64(random.int(in: 2_500...60_000))
            let text = notebook.memo(memo)!.text
            let length = text.unicodeScalars.count
            caret = min(caret, length)
            let range: Range<Int>
            var replacement = ""
            switch random.int(in: 0..<10) {
            case 0..<4:  // type at the caret
                range = caret..<caret
                replacement = String(String.UnicodeScalarView([random.pick(alphabet)]))
            case 4, 5:  // backspace
                guard caret > 0 else { continue }
                range = caret - 1..<caret
            case 6, 7:  // forward delete
                guard caret < length else { continue }
                range = caret..<caret + 1
            case 8:  // move the caret
                caret = random.int(in: 0...length)
                continue
            default:  // select and delete or replace
                let lower = random.int(in: 0...length)
                range = lower..<min(length, lower + random.int(in: 1...6))
                if random.chance(0.5) { replacement = String(String.UnicodeScalarView([random.pick(alphabet), random.pick(alphabet)])) }
            }
            guard !(range.isEmpty && replacement.isEmpty) else { continue }
            try notebook.edit(memo, replacingScalars: range, with: replacement, wallMilliseconds: wall)
            caret = range.lowerBound + replacement.unicodeScalars.count
            texts.append(notebook.memo(memo)!.text)
        }
        let final = notebook.memo(memo)!.text
        // Undo: every step gives back an earlier text, further back each time, down to the first.
        var position = texts.count - 1
        var undone = 0
        while notebook.canUndo(memo) {
            wall += 100
            try notebook.undo(memo, wallMilliseconds: wall)
            undone += 1
            let text = notebook.memo(memo)!.text
            let earlier = texts[..<position].lastIndex(of: text)
            #expect(earlier != nil, "seed \(seed): undo \(undone) gave \(text.debugDescription), which the memo never had before")
            guard let earlier else { return }
            position = earlier
        }
        #expect(notebook.memo(memo)!.text == initial, "seed \(seed): undoing everything did not give back the first text")
        for _ in 0..<undone {
            wall += 100
            try notebook.redo(memo, wallMilliseconds: wall)
        }
        #expect(notebook.memo(memo)!.text == final, "seed \(seed): redoing everything did not give back the last text")
        try notebook.checkInvariants()
    }
}
