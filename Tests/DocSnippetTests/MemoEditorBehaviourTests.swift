// The editor of "Embedding in a notes app" (`MemoEditor` and `TextEdit.rebased(over:)` in
// Snippets/EmbeddingEditorSnippets.swift, verbatim from the article), run: the article says the
// view shows every change in order and "still shows exactly what the replica holds, so the two
// never drift apart", that the caret follows insertions before it and lands after text it
// replaced, and how `rebased(over:)` moves an edit. A fake text view stands for UITextView.

import Foundation
import MemoSync
import TestSupport
import Testing

/// A text view over a string: what `MemoTextView` asks of UITextView or NSTextView.
@MainActor
final class FakeTextView: MemoTextView {
    private(set) var utf16: [UInt16] = []
    var selectionUTF16: Range<Int> = 0..<0
    var isEditable = true

    var text: String { String(decoding: utf16, as: UTF16.self) }

    func replace(_ edits: [TextEdit]) {
        for edit in edits { utf16.replaceSubrange(edit.rangeUTF16, with: Array(edit.replacement.utf16)) }
    }

    func setText(_ text: String) { utf16 = Array(text.utf16) }

    /// What the view does when the user types `replacement` over `range` and the editor lets it
    /// (`userWillReplace` returned true): the change, the caret after it.
    func typed(_ range: Range<Int>, _ replacement: String) {
        utf16.replaceSubrange(range, with: Array(replacement.utf16))
        let caret = range.lowerBound + replacement.utf16.count
        selectionUTF16 = caret..<caret
    }
}

/// Two devices' libraries and a folder store between them, a memo on the first, synced to the
/// second, shown in the article's editor on a fake text view.
@MainActor
final class TwoDevices {
    let folders: [String]
    let here: Replica
    let there: Replica
    let store: DirectoryBlobStore
    let memo: MemoID
    let view = FakeTextView()
    let editor: MemoEditor

    init(text: String) async throws {
        folders = ["a", "b", "store"].map {
            FileManager.default.temporaryDirectory.appendingPathComponent("memo-editor-\($0)-\(UUID().uuidString)").path
        }
        here = try Replica(libraryPath: folders[0])
        there = try Replica(libraryPath: folders[1])
        store = try DirectoryBlobStore(path: folders[2])
        memo = try here.createMemo(text: text)
        _ = try await here.sync(with: store)
        _ = try await there.sync(with: store)
        editor = MemoEditor(memo: memo, replica: here, selection: nil, didEdit: {})
        editor.attach(view)
    }

    func close() async {
        editor.detach()
        await here.close()
        await there.close()
    }

    nonisolated func remove() {
        for path in folders { try? FileManager.default.removeItem(atPath: path) }
    }
}

@MainActor
@Suite("the article's editor, run against a fake text view")
struct MemoEditorBehaviourTests {
    private static let pieces = ["a", "b", " ", "\n", "é", "한", "👍🏽", "xyz"]

    /// A UTF-16 range of `text` whose ends are character boundaries.
    private func randomRange(in text: String, _ random: inout SeededRandom) -> Range<Int> {
        let boundaries = [0] + text.indices.dropFirst().map { text.utf16.distance(from: text.startIndex, to: $0) } + [text.utf16.count]
        let a = boundaries.randomElement(using: &random)!, b = boundaries.randomElement(using: &random)!
        let range = min(a, b)..<max(a, b)
        return range.count > 12 ? range.lowerBound..<range.lowerBound : range
    }

    private func randomText(_ random: inout SeededRandom) -> String {
        (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
    }

    @Test("typing here, another device's edits arriving: the view always shows what the replica holds", arguments: [1, 2, 3, 4] as [UInt64])
    func theViewNeverDriftsFromTheReplica(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let devices = try await TwoDevices(text: "Groceries\nmilk")
        defer { devices.remove() }
        let (here, there, store, memo, view, editor) = (devices.here, devices.there, devices.store, devices.memo, devices.view, devices.editor)
        #expect(view.text == "Groceries\nmilk")
        for step in 0..<120 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                // The user types over a range of what the view shows.
                let range = randomRange(in: view.text, &random)
                let replacement = randomText(&random)
                if editor.userWillReplace(utf16: range, with: replacement) { view.typed(range, replacement) }
            case 6..<8:
                // Another device edits the memo, and this one syncs.
                let text = try #require(there.notebook.memo(memo)?.text)
                let range = randomRange(in: text, &random)
                try there.edit(memo, replacingUTF16: range, with: randomText(&random))
                _ = try await there.sync(with: store)
                _ = try await here.sync(with: store)
            default:
                _ = try await there.sync(with: store)
                _ = try await here.sync(with: store)
                _ = try await there.sync(with: store)
            }
            editor.catchUp()
            let held = here.notebook.memo(memo)?.text
            #expect(view.text == held, "seed \(seed), step \(step): the view shows \(view.text.debugDescription), the replica holds \(held.debugDescription)")
            #expect(view.selectionUTF16.upperBound <= view.utf16.count, "seed \(seed), step \(step): selection past the end")
            if view.text != held { break }
        }
        await devices.close()
    }

    @Test("the caret follows an insertion before it, stays before one after it, and lands after text it replaced")
    func theCaretFollowsTheText() async throws {
        let devices = try await TwoDevices(text: "one two three")
        defer { devices.remove() }
        let (here, there, store, memo, view, editor) = (devices.here, devices.there, devices.store, devices.memo, devices.view, devices.editor)
        view.selectionUTF16 = 8..<8                     // before "three"
        try there.edit(memo, replacingUTF16: 0..<0, with: ">> ")
        try there.edit(memo, replacingUTF16: 16..<16, with: "!")   // after "three" ("…three" ends at 16)
        _ = try await there.sync(with: store)
        _ = try await here.sync(with: store)
        editor.catchUp()
        #expect(view.text == ">> one two three!")
        #expect(view.selectionUTF16 == 11..<11, "moved by the 3 characters inserted before it only")
        // Another device replaces the selected word while it is selected here: the selection
        // becomes a caret after the new text.
        view.selectionUTF16 = 7..<10                    // "two"
        try there.edit(memo, replacingUTF16: 7..<10, with: "2")
        _ = try await there.sync(with: store)
        _ = try await here.sync(with: store)
        editor.catchUp()
        #expect(view.text == ">> one 2 three!")
        #expect(view.selectionUTF16 == 8..<8)
        await devices.close()
    }

    @Test("rebased(over:) moves an edit past earlier ones, keeping both texts where they overlap")
    func rebasedOverEarlierEdits() {
        func edit(_ range: Range<Int>, _ text: String) -> TextEdit { TextEdit(rangeUTF16: range, replacement: text) }
        // Wholly before: shifted by what it inserted minus what it removed.
        #expect(edit(5..<7, "X").rebased(over: [edit(0..<2, "abcd")]) == edit(7..<9, "X"))
        // Wholly after: unchanged.
        #expect(edit(1..<2, "X").rebased(over: [edit(5..<9, "")]) == edit(1..<2, "X"))
        // Overlapping, this edit starts first: it keeps its part before the earlier one.
        #expect(edit(2..<6, "X").rebased(over: [edit(4..<8, "yy")]) == edit(2..<4, "X"))
        // Overlapping, the earlier one starts first: this edit goes after its text.
        #expect(edit(4..<8, "X").rebased(over: [edit(2..<6, "yy")]) == edit(4..<6, "X"))
        // An insertion at the same place as an earlier insertion goes after it.
        #expect(edit(3..<3, "X").rebased(over: [edit(3..<3, "ab")]) == edit(5..<5, "X"))
        // Edits in order, each against the text the one before left.
        #expect(edit(10..<10, "X").rebased(over: [edit(0..<0, "12"), edit(0..<1, "")]) == edit(11..<11, "X"))
    }
}
