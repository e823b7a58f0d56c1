// Doc blocks: MemoSync.docc/EmbeddingInANotesApp.md ("From the text view to the replica, and
// back"). Compiled as an app writes them (public API only); each ```swift block appears here
// verbatim (DocSnippetTests checks it), so a change to one goes in both places.

import MemoSync

/// What an editor needs from its text view (a UITextView or NSTextView adapter).
@MainActor
protocol MemoTextView: AnyObject {
    var text: String { get }
    var selectionUTF16: Range<Int> { get set }
    var isEditable: Bool { get set }
    /// Applies edits, in order, to the text storage without telling the delegate (no echo).
    func replace(_ edits: [TextEdit])
    func setText(_ text: String)
}

/// The open memo: forwards the text view's edits to the replica, and shows every other change
/// of the memo in the view, in the order the replica made them.
@MainActor
final class MemoEditor {
    let memo: MemoID
    private let replica: Replica
    private let didEdit: () -> Void
    private var anchors: (TextAnchor, TextAnchor)?
    private var wakeUps: Task<Void, Never>?
    private weak var display: (any MemoTextView)?

    init(memo: MemoID, replica: Replica, selection anchors: (TextAnchor, TextAnchor)?, didEdit: @escaping () -> Void) {
        self.memo = memo
        self.replica = replica
        self.anchors = anchors
        self.didEdit = didEdit
    }

    deinit { wakeUps?.cancel() }

    /// Shows the memo in `display`, and follows its changes until `detach()`.
    func attach(_ display: any MemoTextView) {
        self.display = display
        let changes = replica.events()
        reload()
        wakeUps = Task { [weak self] in
            for await _ in changes { self?.catchUp() }
        }
    }

    func detach() {
        wakeUps?.cancel()                        // the stream ends and is removed
        wakeUps = nil
    }

    /// The text view is about to replace `range` (UTF-16, in the text it shows) with
    /// `replacement`. Returns whether the view should make the change itself.
    func userWillReplace(utf16 range: Range<Int>, with replacement: String) -> Bool {
        if range.isEmpty && replacement.isEmpty { return true }
        let missed = show(replica.takeEvents())
        let edit = TextEdit(rangeUTF16: range, replacement: replacement).rebased(over: missed)
        do {
            try replica.edit(memo, replacingUTF16: edit.rangeUTF16, with: edit.replacement)
        } catch {
            return false                         // refused (the memo is in the trash now)
        }
        didEdit()
        let events = replica.takeEvents()
        if missed.isEmpty && events.filter({ $0.memo == memo }) == [.changed(memo, edits: [edit], origin: .local)] {
            return true                          // the usual case: the view makes the same edit
        }
        show(events)                             // this edit, as the replica placed it
        return false
    }

    /// Undo and redo of this device's own edits of the memo (not the text view's undo manager,
    /// which knows nothing of other devices' edits).
    func undo() {
        try? replica.undo(memo)                  // nothing to undo: no change
        catchUp()
        didEdit()
    }

    func redo() {
        try? replica.redo(memo)
        catchUp()
        didEdit()
    }

    /// Shows the changes of the memo made since the last call.
    func catchUp() {
        show(replica.takeEvents())
    }

    /// After a sync: if the view and the replica disagree (more than 10,000 events came
    /// between two calls of `takeEvents()`), shows the replica's text again.
    func verify() {
        catchUp()
        guard let display, display.text != replica.notebook.memo(memo)?.text else { return }
        let selection = display.selectionUTF16
        anchors = nil
        reload()
        display.selectionUTF16 = selection.clamped(to: 0..<display.text.utf16.count)
    }

    /// Shows `events` of this memo, the selection moving with the text around it. Returns the
    /// text changes shown.
    @discardableResult
    private func show(_ events: [NotebookEvent]) -> [TextEdit] {
        guard let display else { return [] }
        var changes: [TextEdit] = []
        for event in events where event.memo == memo {
            switch event {
            case let .changed(_, edits, _): changes += edits
            case .trashed, .purged: display.isEditable = false
            case .added, .restored: display.isEditable = true
            }
        }
        if !changes.isEmpty {
            let selection = TextEdit(rangeUTF16: display.selectionUTF16, replacement: "").rebased(over: changes)
            display.replace(changes)
            display.selectionUTF16 = selection.rangeUTF16
        }
        return changes
    }

    /// Shows the memo's text as the replica has it now, with the selection the anchors name. Reads
    /// again until no change of the memo slipped in between taking the events and reading.
    private func reload() {
        guard let display else { return }
        var notebook: Notebook
        repeat {
            _ = replica.takeEvents()
            notebook = replica.notebook          // a value: the text and the anchors below agree
        } while replica.takeEvents().contains(where: { $0.memo == memo })
        display.setText(notebook.memo(memo)?.text ?? "")
        display.isEditable = notebook.status(of: memo) == .active
        if let anchors,
            let start = try? notebook.utf16Offset(of: anchors.0, in: memo),
            let end = try? notebook.utf16Offset(of: anchors.1, in: memo)
        {
            display.selectionUTF16 = start..<max(start, end)
        }
    }

    /// Anchors for the selection, to put it back when the memo is shown again; nil if a change
    /// slipped in while they were taken.
    func selectionAnchors() -> (TextAnchor, TextAnchor)? {
        catchUp()
        let notebook = replica.notebook
        guard let display, notebook.memo(memo)?.text == display.text else { return nil }
        let selection = display.selectionUTF16
        return try? (notebook.anchor(in: memo, atUTF16: selection.lowerBound),
                     notebook.anchor(in: memo, atUTF16: selection.upperBound))
    }
}

extension TextEdit {
    /// This edit, made on a text that lacked `earlier` (edits applied in order, each to the
    /// text the one before left), moved to apply after them. Text the earlier edits wrote is
    /// kept: where both changed the same characters, this edit's text goes beside theirs.
    func rebased(over earlier: [TextEdit]) -> TextEdit {
        var lower = rangeUTF16.lowerBound, upper = rangeUTF16.upperBound
        for edit in earlier {
            let range = edit.rangeUTF16
            let inserted = edit.replacement.utf16.count
            let shift = inserted - range.count
            if range.upperBound <= lower {            // wholly before this edit
                lower += shift
                upper += shift
            } else if range.lowerBound >= upper {     // wholly after it
                continue
            } else if lower < range.lowerBound {      // overlapping, this edit starts first
                upper = range.lowerBound
            } else {                                  // overlapping, the earlier edit starts first
                let end = range.lowerBound + inserted
                upper = upper > range.upperBound ? upper + shift : end
                lower = end
            }
        }
        return TextEdit(rangeUTF16: lower..<upper, replacement: replacement)
    }
}
