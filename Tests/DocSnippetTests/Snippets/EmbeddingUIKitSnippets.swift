// Doc blocks: MemoSync.docc/EmbeddingInANotesApp.md ("The UIKit text view"). Compiled as an app
// writes them (public API only); each ```swift block appears here verbatim (DocSnippetTests checks
// it), so a change to one goes in both places.
// Apple platforms only: this file compiles where UIKit exists (not on Linux, where the test command
// runs), and DocSnippetTests counts and names its blocks as not compiled there.
#if canImport(UIKit)
import MemoSync
import UIKit

final class MemoTextViewController: UIViewController, UITextViewDelegate, MemoTextView {
    private let textView = UITextView()
    private let editor: MemoEditor

    init(editor: MemoEditor) {
        self.editor = editor
        super.init(nibName: nil, bundle: nil)
    }

    required init?(coder: NSCoder) { fatalError("not from a storyboard") }

    override func loadView() {
        view = textView
        textView.delegate = self
        editor.attach(self)
    }

    // The user's edit, before the text view makes it.
    func textView(_ textView: UITextView, shouldChangeTextIn range: NSRange, replacementText text: String) -> Bool {
        editor.userWillReplace(utf16: range.location..<range.location + range.length, with: text)
    }

    // MemoTextView: what the editor reads and changes.
    var text: String { textView.text }

    var selectionUTF16: Range<Int> {
        get { textView.selectedRange.location..<textView.selectedRange.location + textView.selectedRange.length }
        set { textView.selectedRange = NSRange(location: newValue.lowerBound, length: newValue.count) }
    }

    var isEditable: Bool {
        get { textView.isEditable }
        set { textView.isEditable = newValue }
    }

    func replace(_ edits: [TextEdit]) {
        let storage = textView.textStorage
        storage.beginEditing()
        for edit in edits {       // in order: each range is in the text the previous one left
            let range = NSRange(location: edit.rangeUTF16.lowerBound, length: edit.rangeUTF16.count)
            storage.replaceCharacters(in: range, with: edit.replacement)
        }
        storage.endEditing()
    }

    func setText(_ text: String) { textView.text = text }
}
#endif
