// The library as one command uses it.

import MemoCRDT
import MemoNotes
import MemoSync

/// The library as a command uses it: open to change it (a ``Replica``, which locks the
/// folder), or read without a lock (a ``LibrarySnapshot``).
final class Library {
    /// The open replica; nil when the library was only read.
    private let replica: Replica?
    /// What was read, for a library only read.
    private let readSnapshot: LibrarySnapshot?
    /// The absolute path of the library folder.
    let path: String
    /// Short forms of every id the notebook knows.
    let shortIDs: ShortIDs

    /// A library open to change it.
    init(replica: Replica, path: String) {
        self.replica = replica
        readSnapshot = nil
        self.path = path
        shortIDs = ShortIDs(replica.notebook.memoIDs)
    }

    /// A library read without opening it.
    init(snapshot: LibrarySnapshot, path: String) {
        replica = nil
        readSnapshot = snapshot
        self.path = path
        shortIDs = ShortIDs(snapshot.notebook.memoIDs)
    }

    /// Closes the library when the command is done with it. With everything saved, closing
    /// seals the folder, so the next command keeps this one's replica id: a library used from
    /// the command line does not take a new id (and leave a blob in the store) per command.
    deinit {
        replica?.closeNow()
    }

    /// The replica of a library opened to change it (a command that changes the library
    /// opens it so: calling this on one only read is a mistake in `memo`).
    var writer: Replica {
        guard let replica else { preconditionFailure("memo: a library only read is changed") }
        return replica
    }

    /// The library as read (only for a library read, not opened).
    var snapshot: LibrarySnapshot {
        guard let readSnapshot else { preconditionFailure("memo: the snapshot of a library opened to change it") }
        return readSnapshot
    }

    /// The memos: the replica's, or as read.
    var notebook: Notebook { replica?.notebook ?? snapshot.notebook }

    /// The memo `id` (active or in the trash).
    func memo(_ id: MemoID) throws(CLIError) -> Memo {
        guard let memo = notebook.memo(id) else { throw .runtime("error.noSuchMemo", ["id": id.description]) }
        return memo
    }

    /// The memo a full or abbreviated id names.
    ///
    /// The memos whose status is in `preferred` are searched first (so `restore 3f` picks the
    /// memo in the trash when an active memo also starts with "3f"); when none matches, every
    /// memo that is not purged is, so the command can say why the memo it found does not fit.
    ///
    /// - Throws: a usage error for something that is not hexadecimal; a runtime error when no
    ///   memo or several memos match.
    func resolve(_ prefix: String, preferring preferred: [MemoStatus], listCommand: String = "memo list") throws(CLIError) -> MemoID {
        guard !prefix.isEmpty, prefix.utf8.count <= 32,
            prefix.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) })
        else {
            throw .usage("error.notAnID", ["id": Format.terminalSafe(prefix), "list": listCommand])
        }
        let notebook = self.notebook
        let known = notebook.memoIDs.filter { notebook.status(of: $0).map { $0 != .purged } ?? false }
        let candidates = known.filter { id in notebook.status(of: id).map { preferred.contains($0) } ?? false }
        var match = MemoID.matching(prefix: prefix, in: candidates)
        if case .none = match { match = MemoID.matching(prefix: prefix, in: known) }
        switch match {
        case let .unique(id):
            return id
        case .none:
            throw .runtime("error.noMatchingID", ["id": prefix, "list": listCommand])
        case let .ambiguous(ids):
            let lines = ids.prefix(10).map { id -> String in
                guard let memo = notebook.memo(id) else { return "  \(id)" }
                let trash = memo.status == .trashed ? "  " + t("inTrashMark") : ""
                return "  \(shortIDs(id))  \(Format.title(memo.title))\(trash)"
            }
            let more = ids.count > 10 ? "\n  " + t("andMore", ["count": Format.number(ids.count - 10)]) : ""
            throw .runtime("error.ambiguousID", ["id": prefix, "count": Format.number(ids.count), "list": lines.joined(separator: "\n") + more])
        }
    }

    /// The memo `prefix` names, which must not be in the trash.
    func activeMemo(_ prefix: String) throws(CLIError) -> Memo {
        let memo = try self.memo(try resolve(prefix, preferring: [.active]))
        let short = shortIDs(memo.id)
        guard memo.status == .active else { throw .runtime("error.memoInTrash", ["id": short]) }
        return memo
    }
}
