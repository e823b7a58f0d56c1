import MemoCRDT
import MemoNotes

// Held-back text put back into memos
// ==================================
//
// After damage took a record this library never synced, every operation saved after it waits
// for it, in every memo (operations apply in the order they were made). If no device published
// the lost record, nothing brings it back and the operations wait for good: their text is
// readable (`Notebook.heldBackTexts`, `memo recover`) but in no memo. Restoring makes it one:
// each memo's held-back text becomes a new memo, which syncs like any other. The held-back
// operations are left as they are: should what they wait for arrive after all, they still apply,
// and the memo they build shows beside the restored copy (nothing is lost either way; a copy
// too many is the user's to delete).

/// One memo's held-back text as a memo of its own (``Replica/restoreHeldBackTexts(headingForExistingMemo:)``).
public struct RestoredHeldBackText: Sendable, Equatable {
    /// The memo the held-back operations change.
    public var heldBackMemo: MemoID
    /// The memo that holds the text: one this call created, or (``wasCreated`` false) an active
    /// memo that already held exactly this text, as after an earlier restore.
    public var memo: MemoID
    /// Whether this call created ``memo``.
    public var wasCreated: Bool

    /// Creates a record of a restored text.
    public init(heldBackMemo: MemoID, memo: MemoID, wasCreated: Bool) {
        self.heldBackMemo = heldBackMemo
        self.memo = memo
        self.wasCreated = wasCreated
    }
}

extension Replica {
    /// Puts the text of the operations held back (``Notebook/heldBackTexts``) into new
    /// memos, one per memo whose held-back operations insert text, in the order of
    /// ``Notebook/heldBackTexts``: its text as it stands when the memo itself is not
    /// in this library (its creation waits too), else `headingForExistingMemo(title)` (the
    /// existing memo's title), a line break, and the text, so that the restored edits say
    /// where they belong. A text that an active memo already holds exactly (restored before) is
    /// not created again: the result names that memo. All the memos are created in one change
    /// (one journal record), or none is.
    ///
    /// Nothing else changes: the held-back operations still wait, and apply by themselves if a
    /// sync brings what they wait for (the restored memo then stays beside the memo they
    /// build). Memos created report `.added` and `.changed`, as ``createMemo(text:)``'s do.
    ///
    /// - Returns: One entry per memo with held-back text; empty when nothing held back inserts
    ///   text.
    /// - Throws: ``ReplicaError/closed``, and what saving the change throws.
    /// - Complexity: O(h log h + n) for h held-back operations and n active memos.
    public func restoreHeldBackTexts(headingForExistingMemo: (_ title: String) -> String) throws(ReplicaError) -> [RestoredHeldBackText] {
        var generator = EnvironmentRandom(environment: environment)
        return try change { notebook, now throws(NotebookError) in
            var restored: [RestoredHeldBackText] = []
            let held = notebook.heldBackTexts.filter { !$0.text.isEmpty }
            guard !held.isEmpty else { return [] }
            // On a copy, put in place once every memo is created: all of them, or none.
            var notebookCopy = notebook
            // Active memos by title, to find a text restored before without reading every text.
            var activeByTitle: [String: [MemoID]] = [:]
            for summary in notebookCopy.list() { activeByTitle[summary.title, default: []].append(summary.id) }
            for item in held {
                let text = notebookCopy.memo(item.memo).map { headingForExistingMemo($0.title) + "\n" + item.text } ?? item.text
                let title = MemoText.title(of: text)
                if let existing = activeByTitle[title, default: []].first(where: { notebookCopy.memo($0)?.text == text }) {
                    restored.append(RestoredHeldBackText(heldBackMemo: item.memo, memo: existing, wasCreated: false))
                    continue
                }
                var id = MemoID(using: &generator)
                while notebookCopy.status(of: id) != nil { id = MemoID(using: &generator) }
                try notebookCopy.createMemo(id, text: text, wallMilliseconds: now)
                activeByTitle[title, default: []].append(id)
                restored.append(RestoredHeldBackText(heldBackMemo: item.memo, memo: id, wasCreated: true))
            }
            notebook = notebookCopy
            return restored
        }
    }
}
