// Applying an edit made on an older text to the text as it is now (`memo edit` with an editor:
// the library is not held while the editor runs, so the memo may change meanwhile).

import MemoNotes

/// A three-way merge of texts, in Unicode scalars.
///
/// The editor's changes (base -> edited) are found as hunks: a range of the base replaced by
/// new text. The concurrent changes (base -> current) are found the same way. Each of the
/// editor's hunks is then moved onto the current text:
/// - its new text goes where its range starts in the current text, after anything inserted
///   there meanwhile;
/// - of the characters it removes, those the concurrent changes already removed or replaced
///   are left alone: what was typed meanwhile is kept, as the text CRDT keeps concurrent
///   insertions.
/// With no concurrent change the result is the edited text; with no change in the editor it
/// is the current text.
enum TextMerge {
    /// One change of a text: the scalars in `range` replaced by `text`.
    struct Change: Equatable {
        var range: Range<Int>
        var text: String
    }

    /// A range of the base text replaced by `scalars`.
    struct Hunk: Equatable {
        var range: Range<Int>
        var scalars: [Unicode.Scalar]

        /// How much longer the text is after the hunk.
        var growth: Int { scalars.count - range.count }
    }

    /// The changes that turn `current` into the merge, in the order to apply them (from the
    /// end of the text to its start, so each one's offsets are those of the text as the
    /// previous ones left it).
    static func changes(from base: String, to edited: String, onto current: String) -> [Change] {
        let baseScalars = Array(base.unicodeScalars)
        let ours = hunks(from: baseScalars, to: Array(edited.unicodeScalars))
        let theirs = hunks(from: baseScalars, to: Array(current.unicodeScalars))
        var deletions: [Range<Int>] = []
        var insertions: [(at: Int, text: String)] = []
        for hunk in ours {
            for gap in untouched(hunk.range, by: theirs) {
                let start = position(gap.lowerBound, through: theirs)
                deletions.append(start..<start + gap.count)
            }
            if !hunk.scalars.isEmpty {
                var text = String.UnicodeScalarView()
                text.append(contentsOf: hunk.scalars)
                insertions.append((insertionPoint(hunk.range.lowerBound, through: theirs), String(text)))
            }
        }
        // From the end: at one offset, the deletion first, then the insertion.
        var changes = deletions.map { (at: $0.lowerBound, order: 0, change: Change(range: $0, text: "")) }
        changes += insertions.map { (at: $0.at, order: 1, change: Change(range: $0.at..<$0.at, text: $0.text)) }
        changes.sort { $0.at != $1.at ? $0.at > $1.at : $0.order < $1.order }
        return changes.map(\.change)
    }

    /// The hunks that turn `old` into `new`, in order: the notes model's minimal diff
    /// (`TextDiff`, Myers' O(ND)), the same one `Replica.setText` records a whole-text change with.
    static func hunks(from old: [Unicode.Scalar], to new: [Unicode.Scalar]) -> [Hunk] {
        TextDiff.scalarEdits(from: old, to: new).map { Hunk(range: $0.range, scalars: $0.replacement) }
    }

    /// The parts of `range` (of the base) that no hunk of `theirs` removed or replaced.
    private static func untouched(_ range: Range<Int>, by theirs: [Hunk]) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        var start = range.lowerBound
        for hunk in theirs {
            // A hunk that overlaps the range, or inserts strictly inside it (what was
            // inserted there stays, so the removal is cut around it).
            let inside = hunk.range.isEmpty
                ? hunk.range.lowerBound > range.lowerBound && hunk.range.lowerBound < range.upperBound
                : hunk.range.overlaps(range)
            guard inside else { continue }
            if hunk.range.lowerBound > start { parts.append(start..<hunk.range.lowerBound) }
            start = max(start, hunk.range.upperBound)
        }
        if start < range.upperBound { parts.append(start..<range.upperBound) }
        return parts
    }

    /// Where the base offset `offset`, which no hunk of `theirs` removed, is in the current
    /// text.
    private static func position(_ offset: Int, through theirs: [Hunk]) -> Int {
        var shift = 0
        for hunk in theirs where hunk.range.upperBound <= offset {
            // An insertion at `offset` itself comes before the character there.
            shift += hunk.growth
        }
        return offset + shift
    }

    /// Where text inserted before the base offset `offset` goes in the current text: after
    /// anything their hunks inserted at `offset`, and after the replacement of a hunk that
    /// removed the character at `offset`.
    private static func insertionPoint(_ offset: Int, through theirs: [Hunk]) -> Int {
        var shift = 0
        for hunk in theirs {
            if hunk.range.upperBound <= offset {
                shift += hunk.growth
            } else if hunk.range.lowerBound <= offset {
                // The character at `offset` was removed or replaced: after the replacement.
                return hunk.range.lowerBound + shift + hunk.scalars.count
            } else {
                break
            }
        }
        return offset + shift
    }
}
