import MemoCRDT
import MemoNotes

// A memo's history through a replica (issue 27): its versions, the text at a version, what
// changed, who wrote what, and getting text back as a local edit. The notebook derives all of
// it from the memo's operations (Notebook+History.swift, FORMAT.md "Memo history"); the text of
// an earlier version needs the content of text deleted since, which is shown only while the
// library retains it (otherwise `ReplicaError.notebook(.history(id, .contentNotRetained))`).

/// A memo's history as a replica held it when read (``Replica/history(of:pauseMilliseconds:)``):
/// its versions, oldest first, and what the memo's text was at each.
///
/// A value: later edits and syncs do not change it. Read it again when the memo changes (a
/// `NotebookEvent.changed` for it) to follow them; versions already listed keep their names,
/// except the newest, which grows while its device keeps editing.
///
/// The shape a history slider binds to: position `i` of `0..<versions.count` shows
/// `versions[i]`, the last position the current text (<doc:ShowingAMemosHistory> binds one).
public struct MemoHistory: Sendable {
    /// What a version is compared with to mark its changes (``changes(at:comparedWith:)``).
    public enum Baseline: Sendable, Equatable {
        /// The memo's current text (the newest version): what changed since the version, and
        /// what a revert to it would undo.
        case current
        /// The version before it (the empty text before the first): what the version's own
        /// editing did.
        case previousVersion
    }

    /// The memo.
    public let memo: MemoID
    /// Its versions, oldest first (``Notebook/versions(of:pauseMilliseconds:)``); empty for a
    /// memo whose text was never typed.
    public let versions: [MemoVersion]
    /// The notebook read (a value: no memo is copied).
    private let notebook: Notebook

    init(memo: MemoID, versions: [MemoVersion], notebook: Notebook) {
        self.memo = memo
        self.versions = versions
        self.notebook = notebook
    }

    /// The memo's text when the history was read (the newest version's).
    public var currentText: String { notebook.memo(memo)?.text ?? "" }

    /// The position of a version in ``versions`` (by its cut), nil when it is not one of them.
    public func index(of version: MemoVersion) -> Int? {
        versions.firstIndex { $0.cut == version.cut }
    }

    /// The version whose short name (``MemoVersion/shortName``) starts with `prefix` (4 to 8
    /// hexadecimal digits, any case); nil when none or more than one distinct version does.
    public func version(named prefix: String) -> MemoVersion? {
        let wanted = prefix.lowercased()
        guard wanted.utf8.count >= 4, wanted.utf8.count <= 8 else { return nil }
        let matches = versions.filter { $0.shortName.hasPrefix(wanted) }
        guard let first = matches.first, matches.allSatisfy({ $0.cut == first.cut }) else { return nil }
        return first
    }

    /// The memo's text at `version`.
    ///
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.history(id, .contentNotRetained(scalars:))`
    ///   when text visible then was deleted since and its content is no longer retained, or
    ///   `.history(id, .versionNotHeld)` for a version of another memo or replica.
    public func text(at version: MemoVersion) throws(ReplicaError) -> String {
        do throws(NotebookError) {
            return try notebook.text(of: memo, at: version.cut)
        } catch {
            throw ReplicaError(error)
        }
    }

    /// What changed between `version` and `baseline`, from the older to the newer: for
    /// ``Baseline/current``, from the version to the current text (passages of kind `deleted`
    /// were deleted since, and ``Replica/restore(_:in:)`` brings one back; `inserted` ones were
    /// typed since); for ``Baseline/previousVersion``, from the version before it to the
    /// version (what the version's editing typed and deleted). ``marked(_:comparedWith:)``
    /// gives the same as passages to display.
    ///
    /// - Throws: as ``text(at:)`` (the baseline's text is needed too).
    public func changes(at version: MemoVersion, comparedWith baseline: Baseline = .current) throws(ReplicaError) -> TextVersionDiff {
        do throws(NotebookError) {
            switch baseline {
            case .current:
                return try notebook.difference(in: memo, from: version.cut, to: versions.last?.cut ?? version.cut)
            case .previousVersion:
                return try notebook.difference(in: memo, from: previousCut(of: version), to: version.cut)
            }
        } catch {
            throw ReplicaError(error)
        }
    }

    /// One passage of a version's text as a history panel shows it (``marked(_:comparedWith:)``).
    public struct MarkedPassage: Sendable, Equatable {
        /// Where the passage is.
        public enum Mark: Sendable, Equatable {
            /// In the version and the baseline.
            case unchanged
            /// In the version only: typed by the version's editing (baseline
            /// ``Baseline/previousVersion``), or deleted since and brought back by a revert to it
            /// (``Baseline/current``). Show it as inserted.
            case versionOnly
            /// In the baseline only: deleted by the version's editing, or typed since and removed
            /// by a revert. Show it as deleted, where it was.
            case baselineOnly
        }

        /// Where the passage is.
        public var mark: Mark
        /// The passage.
        public var text: String

        /// A passage.
        public init(mark: Mark, text: String) {
            self.mark = mark
            self.text = text
        }
    }

    /// The version's text as passages marked against `baseline`, in document order: the
    /// version's text is the passages marked ``MarkedPassage/Mark/unchanged`` and
    /// ``MarkedPassage/Mark/versionOnly`` in order; the baseline's is the
    /// ``MarkedPassage/Mark/unchanged`` and ``MarkedPassage/Mark/baselineOnly`` ones. What a
    /// history panel shows beside its slider (`memo serve`'s does).
    ///
    /// - Throws: as ``changes(at:comparedWith:)``.
    public func marked(_ version: MemoVersion, comparedWith baseline: Baseline = .current) throws(ReplicaError) -> [MarkedPassage] {
        let text = Array(try self.text(at: version).utf16)
        let diff = try changes(at: version, comparedWith: baseline)
        // Each change's range in the version's text, and whether it is the version's own.
        let inVersion: [(range: Range<Int>, versionOnly: Bool, text: String)] = diff.changes.map { change in
            switch (baseline, change.kind) {
            case (.current, .deleted): (change.fromRangeUTF16, true, change.text)
            case (.current, .inserted): (change.fromRangeUTF16.lowerBound..<change.fromRangeUTF16.lowerBound, false, change.text)
            case (.previousVersion, .inserted): (change.toRangeUTF16, true, change.text)
            case (.previousVersion, .deleted): (change.toRangeUTF16.lowerBound..<change.toRangeUTF16.lowerBound, false, change.text)
            }
        }
        var passages: [MarkedPassage] = []
        func add(_ mark: MarkedPassage.Mark, _ units: ArraySlice<UInt16>) {
            guard !units.isEmpty else { return }
            let string = String(decoding: units, as: UTF16.self)
            if let last = passages.last, last.mark == mark {
                passages[passages.count - 1].text += string
            } else {
                passages.append(MarkedPassage(mark: mark, text: string))
            }
        }
        var position = 0
        for change in inVersion {
            let start = min(max(change.range.lowerBound, position), text.count)
            let end = min(max(change.range.upperBound, start), text.count)
            add(.unchanged, text[position..<start])
            if change.versionOnly {
                add(.versionOnly, text[start..<end])
                position = end
            } else {
                add(.baselineOnly, ArraySlice(change.text.utf16))
                position = start
            }
        }
        add(.unchanged, text[position...])
        return passages
    }

    /// The cut of the version before `version` (the empty version before the first).
    private func previousCut(of version: MemoVersion) -> VersionVector {
        guard let index = index(of: version), index > 0 else { return VersionVector() }
        return versions[index - 1].cut
    }

    /// Which device wrote each passage of the current text (``Replica/attribution(of:)``).
    ///
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.corruptMemo` for a memo whose stored text
    ///   cannot be decoded.
    public func attribution() throws(ReplicaError) -> [TextAttribution] {
        do throws(NotebookError) {
            return try notebook.attribution(of: memo)
        } catch {
            throw ReplicaError(error)
        }
    }
}

extension Replica {
    // MARK: History

    /// A memo's history as this replica holds it now: its versions and what the text was at
    /// each (``MemoHistory``). Versions made on other devices arrive with syncs; two replicas
    /// holding the same operations list the same versions. A memo in the trash keeps its
    /// history; a purged memo has none.
    ///
    /// ```swift
    /// let history = try replica.history(of: id)
    /// for version in history.versions.reversed() { print(version.shortName, version.device) }
    /// ```
    ///
    /// - Parameter pauseMilliseconds: the pause in one device's editing that starts a new
    ///   version (``Notebook/defaultHistoryPauseMilliseconds``, 10 minutes, by default).
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.memoNotFound` (an unknown or purged memo)
    ///   or `.corruptMemo`.
    public func history(of id: MemoID, pauseMilliseconds: UInt64 = Notebook.defaultHistoryPauseMilliseconds) throws(ReplicaError) -> MemoHistory {
        let notebook = self.notebook
        do throws(NotebookError) {
            return MemoHistory(memo: id, versions: try notebook.versions(of: id, pauseMilliseconds: pauseMilliseconds), notebook: notebook)
        } catch {
            throw ReplicaError(error)
        }
    }

    /// The versions of a memo, oldest first (``Notebook/versions(of:pauseMilliseconds:)``).
    ///
    /// - Throws: as ``history(of:pauseMilliseconds:)``.
    public func versions(of id: MemoID, pauseMilliseconds: UInt64 = Notebook.defaultHistoryPauseMilliseconds) throws(ReplicaError) -> [MemoVersion] {
        try history(of: id, pauseMilliseconds: pauseMilliseconds).versions
    }

    /// The text of a memo at a version (a ``MemoVersion/cut``).
    ///
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.memoNotFound`, or `.history(id,
    ///   .versionNotHeld)` / `.history(id, .contentNotRetained(scalars:))` when the version is
    ///   not held or text of it is no longer retained.
    public func text(of id: MemoID, at version: VersionVector) throws(ReplicaError) -> String {
        do throws(NotebookError) {
            return try notebook.text(of: id, at: version)
        } catch {
            throw ReplicaError(error)
        }
    }

    /// What changed in a memo between two versions (``Notebook/difference(in:from:to:)``):
    /// inserted and deleted passages in UTF-16 and scalar ranges.
    ///
    /// - Throws: as ``text(of:at:)``.
    public func difference(in id: MemoID, from: VersionVector, to: VersionVector) throws(ReplicaError) -> TextVersionDiff {
        do throws(NotebookError) {
            return try notebook.difference(in: id, from: from, to: to)
        } catch {
            throw ReplicaError(error)
        }
    }

    /// Which device (replica) wrote each passage of a memo's current text, in document order.
    ///
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.memoNotFound` or `.corruptMemo`.
    public func attribution(of id: MemoID) throws(ReplicaError) -> [TextAttribution] {
        do throws(NotebookError) {
            return try notebook.attribution(of: id)
        } catch {
            throw ReplicaError(error)
        }
    }

    /// Makes a memo's text what it was at `version`, as a new local edit of this replica: only
    /// what differs is deleted or typed again, so edits made concurrently on other devices are
    /// kept when they merge. It saves and syncs like any edit, reports a
    /// `NotebookEvent.changed`, and ``undo(_:)`` takes the whole revert back in one step.
    /// Reverting to the text the memo has already changes nothing.
    ///
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.memoInTrash` (restore the memo first),
    ///   `.memoNotFound`, or `.history(id, ...)` when the version's text cannot be shown
    ///   (``text(of:at:)``); ``ReplicaError/closed``. Nothing changes then.
    public func revert(_ id: MemoID, to version: VersionVector) throws(ReplicaError) {
        try change { notebook, now throws(NotebookError) in try notebook.revert(id, to: version, wallMilliseconds: now) }
    }

    /// Brings back one deleted passage (a change of kind `deleted` from
    /// ``difference(in:from:to:)``, an older version to a newer, or from
    /// ``MemoHistory/changes(at:comparedWith:)`` against the current text) as a new local
    /// edit: its text is typed again where it was, right before its first (deleted) character,
    /// whatever was written around it since. Undoable with ``undo(_:)``; saved and synced like
    /// any edit.
    ///
    /// - Returns: the UTF-16 offset in the current text where the passage went (to select it).
    /// - Throws: ``ReplicaError/notebook(_:)`` with `.memoInTrash` or `.memoNotFound`;
    ///   ``ReplicaError/text(_:_:)`` with `TextError.unknownAnchor` for a change that is no
    ///   deleted passage of this memo (an insertion; a passage of another memo, whose first
    ///   character this memo does not hold deleted); ``ReplicaError/closed``.
    @discardableResult
    public func restore(_ passage: TextVersionDiff.Change, in id: MemoID) throws(ReplicaError) -> Int {
        try change { notebook, now throws(NotebookError) -> Int in try notebook.restore(passage, in: id, wallMilliseconds: now) }
    }

    /// Makes this session's notebook keep the content of text deleted from now on (or stop), so
    /// that earlier versions can be shown (`Notebook.keepsHistory`). In memory only, for this
    /// session: the library's own retention setting decides what is kept from one session to
    /// the next. For the simulator and the project's tests until every library retains history.
    package func setKeepsHistory(_ keeps: Bool) throws(ReplicaError) {
        try change { notebook, _ throws(NotebookError) in notebook.keepsHistory = keeps }
    }
}
