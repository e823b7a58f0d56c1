import MemoCRDT
import Synchronization

/// Search keys folded by searches on a notebook whose memos' keys were not cached in their
/// records: a decoded notebook (opening leaves every key unfolded: folding 22 MB of text took
/// a third of opening 10,000 memos, issue 28) fills it on its first search, and later searches,
/// on the notebook or any copy of it, read it instead of folding again.
///
/// Shared by a notebook and its copies (a reference): searching is not mutating, and a front end
/// searches copies of the notebook its replica holds. Each key is stored with its memo's id and
/// the stamp of the text it was folded from (``MemoRecord/textStamp``) and used only while both
/// match the record read, so it is exact whatever happened to the copy in between (a stamp is
/// never given to two texts that differ, in any copy), and copies that diverged (different memos
/// at the same table index, changed texts) never use each other's keys. Nothing in it affects
/// state, encodings or events.
final class SearchKeyCache: Sendable {
    /// A folded key, what it was folded from.
    struct Entry: Sendable {
        var id: MemoID
        var textStamp: UInt64
        var key: SearchKey
    }

    /// By memo table index; nil where no key was folded.
    private let entries = Mutex<[Entry?]>([])

    init() {}

    /// The keys so far, by memo table index (a copy of the array: copy on write, O(1)).
    func snapshot() -> [Entry?] { entries.withLock { $0 } }

    /// Stores keys folded for the memos at the given table indices. The entries are moved in,
    /// not copied (a copy retains each entry's key once more).
    func store(_ folded: consuming [(index: Int, entry: Entry)]) {
        if folded.isEmpty { return }
        var folded = folded
        entries.withLock { entries in
            if let highest = folded.lazy.map(\.index).max(), entries.count <= highest {
                entries.append(contentsOf: repeatElement(nil, count: highest + 1 - entries.count))
            }
            while let (index, entry) = folded.popLast() { entries[index] = entry }
        }
    }
}
