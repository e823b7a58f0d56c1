// `memo new`, `memo edit`, `memo undo` and `memo redo`.

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync

extension Runner {
    mutating func runWriting(_ invocation: Invocation) async throws(CLIError) {
        switch invocation.command {
        case let .new(text):
            // Gathered before the library is opened (and locked): reading standard input or
            // waiting for the editor may take a while.
            let content = try newMemoText(given: text)
            let library = try open(invocation, creating: true)
            let id = try attempt { () throws(ReplicaError) in try library.writer.createMemo(text: content) }
            try await save(library)
            if json {
                console.print(try Format.json(Format.json(try library.memo(id))))
            } else {
                console.print(id.description)
            }
        case let .edit(prefix, mode):
            try await edit(invocation, prefix: prefix, mode: mode)
        case let .undo(prefix):
            try await undoOrRedo(invocation, prefix: prefix, undoing: true)
        case let .redo(prefix):
            try await undoOrRedo(invocation, prefix: prefix, undoing: false)
        default:
            preconditionFailure("memo: not a writing command")
        }
    }

    // MARK: recover --restore

    /// `memo recover --restore`: the text of the operations held back put into new memos
    /// (``Replica/restoreHeldBackTexts(headingForExistingMemo:)``), each told with its id and
    /// title; one already restored is named, not created again.
    mutating func restoreHeldBack(_ invocation: Invocation) async throws(CLIError) {
        let library = try open(invocation)
        let restored = try attempt { () throws(ReplicaError) in
            try library.writer.restoreHeldBackTexts { title in t("recover.heading", ["title": title.isEmpty ? t("untitled") : title]) }
        }
        try await save(library)
        if json {
            let entries: [[String: Any]] = restored.map {
                ["heldBackMemo": $0.heldBackMemo.description, "memo": $0.memo.description, "created": $0.wasCreated]
            }
            console.print(try Format.json(["restored": entries] as [String: Any]))
            return
        }
        guard !restored.isEmpty else {
            console.print(t("recover.nothingToRestore"))
            return
        }
        let notebook = library.notebook
        for item in restored {
            let title = Format.title(notebook.memo(item.memo)?.title ?? "")
            console.print(t(item.wasCreated ? "recover.restored" : "recover.alreadyRestored", ["id": library.shortIDs(item.memo), "title": title]))
        }
        console.print(t("recover.stillWaiting"))
    }

    // MARK: new

    private func newMemoText(given: TextSource?) throws(CLIError) -> String {
        if let given {
            let text = try readText(given)
            if given != .argument(text) && text.isEmpty { throw .runtime("error.readEmpty") }
            return text
        }
        if !console.inputIsTerminal {
            let text = try readText(.standardInput)
            guard !text.isEmpty else { throw .runtime("error.inputEmpty") }
            return text
        }
        let command = try Editor.command(environment: environment, console: console)
        let text = try Editor.edit("", name: "new", command: command)
        guard !text.isEmpty else { throw .runtime("error.editorEmpty") }
        return text
    }

    /// The text from `source`, exactly as given or read; a file or standard input must hold
    /// UTF-8 (a byte order mark is kept, as any other character).
    private func readText(_ source: TextSource) throws(CLIError) -> String {
        switch source {
        case let .argument(text):
            return text
        case .standardInput:
            guard let text = exactUTF8(try readStandardInput()) else { throw .runtime("error.inputNotUTF8") }
            return text
        case let .file(path):
            let bytes: [UInt8]
            do throws(UserFileError) {
                bytes = try UserFile.bytes(at: path)
            } catch {
                throw .runtime("error.cannotRead", ["path": path, "error": error.localizedReason])
            }
            guard let text = exactUTF8(bytes) else { throw .runtime("error.fileNotUTF8", ["path": path]) }
            return text
        }
    }

    private func readStandardInput() throws(CLIError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw .runtime("error.cannotReadInput", ["error": UserFileError(errorNumber: errno).localizedReason])
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    // MARK: edit

    private mutating func edit(_ invocation: Invocation, prefix: String, mode: EditMode) async throws(CLIError) {
        switch mode {
        case .editor:
            try await editInEditor(invocation, prefix: prefix)
        case let .text(source):
            // Read before the library is locked: standard input may take a while.
            let text = try readText(source)
            let library = try open(invocation)
            let memo = try library.activeMemo(prefix)
            let replica = library.writer
            try attempt { () throws(ReplicaError) in try replica.setText(memo.id, to: text) }
            try await finishEdit(library, memo: memo)
        case let .operations(operations):
            let library = try open(invocation)
            let memo = try library.activeMemo(prefix)
            try checkFits(operations, length: memo.text.unicodeScalars.count)
            let replica = library.writer
            for operation in operations {
                switch operation {
                case let .insert(offset, text):
                    try attempt { () throws(ReplicaError) in try replica.edit(memo.id, replacingScalars: offset..<offset, with: text) }
                case let .delete(offset, count):
                    try attempt { () throws(ReplicaError) in try replica.edit(memo.id, replacingScalars: offset..<offset + count, with: "") }
                }
            }
            try await finishEdit(library, memo: memo)
        }
    }

    /// Saves an edit of `memo` (as it was before), records it for `memo undo`, and prints the
    /// memo with `--json`.
    ///
    /// The edit is saved first: once it is, the command has done what it was asked, so an undo
    /// step that cannot be written (a full disk) is a warning, not a failure (exit status 0: a
    /// retry would make the edit twice).
    mutating func finishEdit(_ library: Library, memo: Memo) async throws(CLIError) {
        let after = try library.memo(memo.id)
        if after.text != memo.text {
            var history = try loadHistory(library)
            history.record(memo: memo.id, before: memo.text, after: after.text)
            try await save(library)
            do throws(CLIError) {
                try saveHistory(history, library)
            } catch {
                console.error("memo: " + t("warning.editStepNotRecorded", ["error": error.message]) + "\n")
            }
        }
        if json { console.print(try Format.json(Format.json(after))) }
    }

    /// Checks `--insert` and `--delete` against the text first, so that a change that does
    /// not fit changes nothing.
    private func checkFits(_ operations: [EditOperation], length start: Int) throws(CLIError) {
        var length = start
        for (index, operation) in operations.enumerated() {
            let which = operations.count > 1 ? t("whichChange", ["index": Format.number(index + 1), "count": Format.number(operations.count)]) : ""
            switch operation {
            case let .insert(offset, text):
                guard offset <= length else {
                    throw .runtime("error.insertDoesNotFit", ["offset": Format.number(offset), "which": which, "length": Format.count(length, "character")])
                }
                length += text.unicodeScalars.count
            case let .delete(offset, count):
                guard offset <= length, count <= length - offset else {
                    throw .runtime("error.deleteDoesNotFit", ["count": Format.count(count, "character"), "offset": Format.number(offset), "which": which, "length": Format.count(length, "character")])
                }
                length -= count
            }
        }
    }

    /// `memo edit ID` with the editor. The library is read (not locked) to get the text, and
    /// nothing holds it while the editor runs: other commands, syncs included, go on. When the
    /// editor is done, the library is opened and what was changed in the editor is applied as
    /// a change of the text the editor started from (``TextMerge``), so changes made meanwhile
    /// (by another command, or received by a sync) are kept.
    private mutating func editInEditor(_ invocation: Invocation, prefix: String) async throws(CLIError) {
        let before = try readLibrary(invocation)
        let memo = try before.activeMemo(prefix)
        let short = before.shortIDs(memo.id)
        let command = try Editor.command(environment: environment, console: console)
        let edited = try Editor.edit(memo.text, name: short, command: command)
        guard edited != memo.text else {
            if json { console.print(try Format.json(Format.json(memo))) }
            return
        }
        do throws(CLIError) {
            let library = try open(invocation)
            let current = try library.activeMemo(prefix)
            try apply(TextMerge.changes(from: memo.text, to: edited, onto: current.text), to: memo.id, in: library)
            try await finishEdit(library, memo: current)
        } catch {
            // What was typed is never lost: kept in a file the message names.
            let kept = Editor.keep(edited, name: short).map { t("typedKeptIn", ["path": $0]) } ?? ""
            throw CLIError(kind: error.kind, message: error.message + kept)
        }
    }

    private func apply(_ changes: [TextMerge.Change], to id: MemoID, in library: Library) throws(CLIError) {
        let replica = library.writer
        for change in changes {
            try attempt { () throws(ReplicaError) in try replica.edit(id, replacingScalars: change.range, with: change.text) }
        }
    }

    // MARK: undo, redo

    /// Undoes (or redoes) the last edit `memo` made of the memo on this device, as a change of
    /// the text as it is now: edits made since, here or on other devices, stay.
    ///
    /// The history is written before the library is saved: when it cannot be, nothing is
    /// changed (and the step stays to undo); when the save fails after it, the history is put
    /// back as it was. So the exit status tells whether the step was taken, and a retry never
    /// takes it twice.
    private mutating func undoOrRedo(_ invocation: Invocation, prefix: String, undoing: Bool) async throws(CLIError) {
        let library = try open(invocation)
        let memo = try library.activeMemo(prefix)
        let short = library.shortIDs(memo.id)
        var history = try loadHistory(library)
        let saved = history
        guard let step = undoing ? history.takeUndo(memo.id) : history.takeRedo(memo.id) else {
            throw .runtime(undoing ? "error.nothingToUndo" : "error.nothingToRedo", ["id": short])
        }
        let (from, to) = undoing ? (step.after, step.before) : (step.before, step.after)
        try apply(TextMerge.changes(from: from, to: to, onto: memo.text), to: memo.id, in: library)
        let now = try library.memo(memo.id)
        if undoing {
            // Redoing goes from "before" to "after", as the edit did.
            history.pushRedo(memo.id, EditHistory.Step(before: now.text, after: memo.text))
        } else {
            history.pushUndo(memo.id, EditHistory.Step(before: memo.text, after: now.text))
        }
        try await saveHistoryThenLibrary(history, restoring: saved, library)
        if json {
            console.print(try Format.json(Format.json(now)))
        } else {
            console.print(t(undoing ? "undone" : "redone", ["id": short, "title": quoted(now.title)]))
        }
    }
}
