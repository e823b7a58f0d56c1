// Doc blocks: MemoSync.docc/EmbeddingInANotesApp.md ("The AppKit text view"). Compiled as an app
// writes them (public API only); each ```swift block appears here verbatim (DocSnippetTests checks
// it), so a change to one goes in both places.
// Apple platforms only: this file compiles where AppKit exists (not on Linux, where the test
// command runs), and DocSnippetTests counts and names its blocks as not compiled there.
#if canImport(AppKit)
import AppKit
import MemoSync

/// The article shows only the delegate method; around it, the AppKit counterpart of the UIKit
/// controller that owns the editor.
@MainActor
final class MemoNSTextViewDelegate: NSObject, NSTextViewDelegate {
    let editor: MemoEditor

    init(editor: MemoEditor) { self.editor = editor }

    func textView(_ textView: NSTextView, shouldChangeTextIn affectedCharRange: NSRange, replacementString: String?) -> Bool {
        guard let replacementString else { return true }
        return editor.userWillReplace(
            utf16: affectedCharRange.location..<affectedCharRange.location + affectedCharRange.length,
            with: replacementString)
    }
}
#endif
