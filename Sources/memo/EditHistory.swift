// What `memo undo` and `memo redo` undo and redo.

import Foundation
import MemoCRDT
import MemoNotes

/// The edits `memo` made of each memo on this device, for `memo undo` and `memo redo`, kept in
/// `cli-history.json` inside the library folder (the library ignores files it does not know).
///
/// A notebook's undo history lives in memory, for one session, while each `memo` command is
/// a session of its own; so the command line keeps its own: for each edit, the memo's text
/// before and after it. Undoing applies the change from "after" back to "before" to the text
/// as it is now (``TextMerge``), so edits made since, on this device or others, stay. At most
/// ``stepsKept`` steps per memo are kept; `memo purge` forgets a memo's.
struct EditHistory: Codable, Equatable {
    /// One edit: the memo's text before and after it.
    struct Step: Codable, Equatable {
        var before: String
        var after: String
    }

    /// The file's name.
    static let fileName = "cli-history.json"
    /// The most steps kept per memo, in each direction.
    static let stepsKept = 20
    /// The most bytes of the file (256 MiB, as a text file `memo` reads): a larger file is
    /// refused without being read, and a save drops the oldest steps until the file fits.
    static let bytesMax = UserFile.textBytesMax

    /// Memo id (32 hexadecimal digits) to its undoable steps, oldest first.
    var undo: [String: [Step]] = [:]
    /// Memo id to its redoable steps, oldest first.
    var redo: [String: [Step]] = [:]

    /// Records a new edit: it can be undone, and nothing undone before can be redone.
    mutating func record(memo: MemoID, before: String, after: String) {
        pushUndo(memo, Step(before: before, after: after))
        redo[memo.description] = nil
    }

    mutating func pushUndo(_ memo: MemoID, _ step: Step) {
        undo[memo.description, default: []].append(step)
        undo[memo.description]?.trimPrefix(to: Self.stepsKept)
    }

    mutating func pushRedo(_ memo: MemoID, _ step: Step) {
        redo[memo.description, default: []].append(step)
        redo[memo.description]?.trimPrefix(to: Self.stepsKept)
    }

    /// The last undoable step of `memo`, removed; nil when there is none.
    mutating func takeUndo(_ memo: MemoID) -> Step? { take(&undo, memo) }

    /// The last redoable step of `memo`, removed; nil when there is none.
    mutating func takeRedo(_ memo: MemoID) -> Step? { take(&redo, memo) }

    /// Forgets every step of `memo` (purged: its texts must not linger).
    mutating func forget(_ memo: MemoID) {
        undo[memo.description] = nil
        redo[memo.description] = nil
    }

    private func take(_ steps: inout [String: [Step]], _ memo: MemoID) -> Step? {
        let key = memo.description
        guard let step = steps[key]?.popLast() else { return nil }
        if steps[key]?.isEmpty == true { steps[key] = nil }
        return step
    }

    /// What ``load(library:)`` found.
    struct Loaded {
        /// The history; an empty one when there was no file, or one that is not valid JSON.
        var history: EditHistory
        /// The name a file that is not valid JSON was kept aside under (its path with
        /// ".damaged-N"); nil when the file was fine or missing.
        var keptAside: String?
    }

    /// The history saved in `library`; an empty one when there is no file yet. A file that is
    /// not valid JSON (a damaged disk, a hand edit) does not block editing: it is kept aside,
    /// untouched, as `cli-history.json.damaged-N` (never deleted: it may hold text the user
    /// wants back), and the history starts afresh.
    ///
    /// - Throws: when the file cannot be read (permissions, a disk error), or is not valid JSON
    ///   and cannot be kept aside; the message names the cause.
    static func load(library: String) throws(CLIError) -> Loaded {
        let path = filePath(library: library)
        guard FileManager.default.fileExists(atPath: path) else { return Loaded(history: EditHistory()) }
        let bytes: [UInt8]
        do throws(UserFileError) {
            bytes = try UserFile.bytes(at: path, limitBytes: bytesMax)
        } catch {
            throw .runtime("error.historyUnreadable", ["path": path, "error": error.localizedReason])
        }
        if let history = try? JSONDecoder().decode(EditHistory.self, from: Data(bytes)) { return Loaded(history: history) }
        // Not valid JSON (or not a history): kept aside under the first free name.
        var number = 1
        while FileManager.default.fileExists(atPath: "\(path).damaged-\(number)") { number += 1 }
        let kept = "\(path).damaged-\(number)"
        guard rename(path, kept) == 0 else {
            let reason = UserFileError(errorNumber: errno, writing: true).localizedReason
            throw .runtime("error.historyUnreadable", ["path": path, "error": t("history.notKeptAside", ["kept": kept, "error": reason])])
        }
        return Loaded(history: EditHistory(), keptAside: kept)
    }

    /// Forgets the steps of every memo `notebook` has purged (or no longer knows): a purge,
    /// here or received by a sync, leaves none of the memo's text in this file. Returns
    /// whether any step was dropped.
    mutating func forgetPurged(in notebook: Notebook) -> Bool {
        let kept = Set(notebook.memoIDs.filter { notebook.status(of: $0).map { $0 != .purged } ?? false }.map(\.description))
        let before = (undo.count, redo.count)
        undo = undo.filter { kept.contains($0.key) }
        redo = redo.filter { kept.contains($0.key) }
        return before != (undo.count, redo.count)
    }

    /// Writes the history into `library`, atomically; removes the file when it is empty.
    /// `failure` (the tests' hook) fails the write as a full disk would, before anything is
    /// written.
    func save(library: String, failure: UserFileError? = nil) throws(CLIError) {
        let path = Self.filePath(library: library)
        if let failure { throw .runtime("error.cannotWrite", ["path": path, "error": failure.localizedReason]) }
        do {
            if undo.isEmpty && redo.isEmpty {
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
                return
            }
            try encoded(limitBytes: Self.bytesMax).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .runtime("error.cannotWrite", ["path": path, "error": describe(error)])
        }
    }

    /// The file's bytes, at most `limitBytes` (over it a load refuses the file): while they are
    /// more, the oldest step of the memo and direction whose steps hold the most text is dropped.
    func encoded(limitBytes: Int) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var kept = self
        var data = try encoder.encode(kept)
        while data.count > limitBytes, kept.dropOldestStepOfLargest() {
            data = try encoder.encode(kept)
        }
        return data
    }

    /// Drops the oldest step of the memo and direction whose steps hold the most text (ties:
    /// the greatest memo id, undo before redo); false when there is no step.
    mutating func dropOldestStepOfLargest() -> Bool {
        func textBytes(_ steps: [Step]) -> Int { steps.reduce(0) { $0 + $1.before.utf8.count + $1.after.utf8.count } }
        let candidates = undo.map { (memo: $0.key, undo: 1, bytes: textBytes($0.value)) } + redo.map { (memo: $0.key, undo: 0, bytes: textBytes($0.value)) }
        guard let largest = candidates.max(by: { ($0.bytes, $0.memo, $0.undo) < ($1.bytes, $1.memo, $1.undo) }) else { return false }
        if largest.undo == 1 {
            undo[largest.memo]?.removeFirst()
            if undo[largest.memo]?.isEmpty == true { undo[largest.memo] = nil }
        } else {
            redo[largest.memo]?.removeFirst()
            if redo[largest.memo]?.isEmpty == true { redo[largest.memo] = nil }
        }
        return true
    }

    static func filePath(library: String) -> String {
        library.hasSuffix("/") ? library + fileName : library + "/" + fileName
    }
}

extension Array {
    /// Drops elements from the front until at most `count` remain.
    fileprivate mutating func trimPrefix(to count: Int) {
        if self.count > count { removeFirst(self.count - count) }
    }
}

extension Runner {
    /// The undo history of `library` (opened to change it), without the steps of memos it has
    /// purged.
    func loadHistory(_ library: Library) throws(CLIError) -> EditHistory {
        var history = try historyAsSaved(library)
        _ = history.forgetPurged(in: library.notebook)
        return history
    }

    /// After a sync: when the library now holds purges the undo history still has steps of,
    /// the history is written without them at once (the purged text must not stay in this
    /// library's files until the next edit). Nothing is written when nothing was dropped.
    func forgetPurgedInHistory(_ library: Library) throws(CLIError) {
        guard FileManager.default.fileExists(atPath: EditHistory.filePath(library: library.path)) else { return }
        var history = try historyAsSaved(library)
        if history.forgetPurged(in: library.notebook) { try saveHistory(history, library) }
    }

    /// Writes `history` into `library`; with the tests' hook (`MEMO_TEST_FAIL_HISTORY_WRITE=1`,
    /// TestHooks.swift) the write fails as on a full disk, writing nothing.
    func saveHistory(_ history: EditHistory, _ library: Library) throws(CLIError) {
        try history.save(library: library.path, failure: historyWriteFailsForTests() ? .diskFull : nil)
    }

    /// Writes `history`, then saves the library; when the library cannot be saved, puts the
    /// history back as `saved` (what it was before the command), so that a command that failed
    /// changed nothing and a retry takes its step once. (Undo, redo and purge: their history
    /// must be written first, a purge's never holding the purged text.)
    func saveHistoryThenLibrary(_ history: EditHistory, restoring saved: EditHistory, _ library: Library) async throws(CLIError) {
        try saveHistory(history, library)
        do throws(CLIError) {
            try await save(library)
        } catch {
            try? saveHistory(saved, library)
            throw error
        }
    }

    /// The history file as saved. One that is not valid JSON was kept aside: a warning says
    /// where, and the command exits 4 once it is done (it did its work, but found a file of
    /// the library damaged).
    private func historyAsSaved(_ library: Library) throws(CLIError) -> EditHistory {
        let loaded = try EditHistory.load(library: library.path)
        if let kept = loaded.keptAside {
            libraryWarnings.found = true
            console.error("memo: " + t("warning.historyDamaged", ["path": EditHistory.filePath(library: library.path), "kept": kept]) + "\n")
        }
        return loaded.history
    }
}
