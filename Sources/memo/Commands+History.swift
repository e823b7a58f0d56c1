// `memo history`, `memo show --at`, `memo diff` and `memo revert` (issue 27): a memo's versions,
// derived from its operations (FORMAT.md, "Memo history"). The first three read the library
// without locking it; revert is an edit (saved, and `memo undo` takes it back).

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync

extension Runner {
    mutating func runHistory(_ invocation: Invocation) throws(CLIError) {
        let library = try readLibrary(invocation)
        switch invocation.command {
        case let .history(prefix):
            let id = try library.resolve(prefix, preferring: [.active, .trashed])
            let versions = try Self.versions(of: id, in: library.notebook, library: library)
            try printVersions(versions.reversed(), library: library)
        case let .showAt(prefix, name):
            let id = try library.resolve(prefix, preferring: [.active, .trashed])
            let version = try Self.version(named: name, of: id, in: library.notebook, library: library)
            let text = try Self.text(of: id, at: version.cut, in: library.notebook, library: library)
            if json {
                console.print(try Format.json(["id": id.description, "version": version.shortName, "text": text] as [String: Any]))
            } else {
                printExactly(text)
            }
        case let .showBefore(prefix, time):
            let id = try library.resolve(prefix, preferring: [.active, .trashed])
            guard let limit = Self.milliseconds(parsing: time) else { throw .usage("error.notATime", ["time": Format.terminalSafe(time)]) }
            let versions = try Self.versions(of: id, in: library.notebook, library: library)
            guard let version = versions.last(where: { $0.wallMilliseconds < limit }) else {
                throw .runtime("error.noVersionBefore", ["time": time, "id": library.shortIDs(id)])
            }
            let text = try Self.text(of: id, at: version.cut, in: library.notebook, library: library)
            if json {
                console.print(try Format.json(["id": id.description, "version": version.shortName, "text": text] as [String: Any]))
            } else {
                printExactly(text)
            }
        case let .diff(prefix, fromName, toName):
            let id = try library.resolve(prefix, preferring: [.active, .trashed])
            try diff(id, from: fromName, to: toName, library: library)
        default:
            preconditionFailure("memo: not a history command")
        }
    }

    /// `memo revert ID VERSION`: the memo's text as it was at VERSION, as a new edit.
    mutating func runRevert(_ invocation: Invocation) async throws(CLIError) {
        guard case let .revert(prefix, name) = invocation.command else { preconditionFailure("memo: not revert") }
        let library = try open(invocation)
        let memo = try library.activeMemo(prefix)
        let version = try Self.version(named: name, of: memo.id, in: library.notebook, library: library)
        let text = try Self.text(of: memo.id, at: version.cut, in: library.notebook, library: library)
        let replica = library.writer
        try attempt { () throws(ReplicaError) in try replica.setText(memo.id, to: text) }
        try await finishEdit(library, memo: memo)
    }

    /// `memo history --keep DAYS|forever`: makes the period the library's (its `history`
    /// file; FORMAT.md, "History retention"), drops at once the deleted text it no longer keeps,
    /// and saves (a compaction when something was dropped, so the files no longer hold it).
    mutating func runHistoryRetention(_ invocation: Invocation) async throws(CLIError) {
        guard case let .historyRetention(retention) = invocation.command else { preconditionFailure("memo: not history --keep") }
        // A period for a library that does not exist is a typo in its path: refused, as every
        // command but `new`, `import`, `sync` and `serve` refuses it.
        let library = try open(invocation)
        let replica = library.writer
        let dropped = try attempt { () throws(ReplicaError) in try replica.setHistoryRetention(retention) }
        try await save(library)
        if json {
            let days: Any = if case let .days(days) = retention { days } else { NSNull() }
            console.print(try Format.json(["keepDays": days, "forever": retention == .forever, "droppedCharacters": dropped] as [String: Any]))
            return
        }
        console.print(t("historyKept", ["period": Self.periodText(retention)]))
        if dropped > 0 { console.print(t("historyDropped", ["count": Format.count(dropped, "character")])) }
    }

    /// "for 90 days", "forever", in the user's language.
    static func periodText(_ retention: HistoryRetention) -> String {
        switch retention {
        case .forever: t("period.forever")
        case let .days(days): t("period.days", ["days": Format.count(days, "day")])
        }
    }

    // MARK: Helpers

    /// Milliseconds since the Unix epoch of a time as memo prints them: `yyyy-MM-dd HH:mm` or
    /// `yyyy-MM-dd` in the local time zone, or ISO 8601 with a zone (`--json`'s form).
    static func milliseconds(parsing text: String) -> UInt64? {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) ?? ISO8601DateFormatter().date(from: text) {
            return date.timeIntervalSince1970 < 0 ? nil : UInt64(date.timeIntervalSince1970 * 1000)
        }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = TimeZone.current
        for format in ["yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            local.dateFormat = format
            if let date = local.date(from: text) {
                return date.timeIntervalSince1970 < 0 ? nil : UInt64(date.timeIntervalSince1970 * 1000)
            }
        }
        return nil
    }

    static func versions(of id: MemoID, in notebook: Notebook, library: Library) throws(CLIError) -> [MemoVersion] {
        do throws(NotebookError) {
            return try notebook.versions(of: id)
        } catch {
            throw .runtime("error.cannotReadHistory", ["id": library.shortIDs(id), "error": explain(error)])
        }
    }

    /// The version of memo `id` that `name` (a short name or a prefix of one) names.
    static func version(named name: String, of id: MemoID, in notebook: Notebook, library: Library) throws(CLIError) -> MemoVersion {
        let short = library.shortIDs(id)
        guard name.utf8.count >= 4, name.utf8.count <= 8,
            name.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) })
        else {
            throw .usage("error.notAVersion", ["version": Format.terminalSafe(name), "id": short])
        }
        let matches = try versions(of: id, in: notebook, library: library).filter { $0.shortName.hasPrefix(name.lowercased()) }
        guard let first = matches.first else { throw .runtime("error.noSuchVersion", ["version": name, "id": short]) }
        // Distinct versions may share a short name only by a hash collision; one cut is one version.
        guard matches.allSatisfy({ $0.cut == first.cut }) else {
            throw .runtime("error.ambiguousVersion", ["version": name, "id": short, "count": Format.number(matches.count)])
        }
        return first
    }

    static func text(of id: MemoID, at cut: VersionVector, in notebook: Notebook, library: Library) throws(CLIError) -> String {
        do throws(NotebookError) {
            return try notebook.text(of: id, at: cut)
        } catch {
            throw .runtime("error.cannotReadHistory", ["id": library.shortIDs(id), "error": explain(error)])
        }
    }

    /// One version a line, newest first: short name, local date, device, scalars added and
    /// removed; or JSON.
    private mutating func printVersions(_ versions: [MemoVersion], library: Library) throws(CLIError) {
        let own = library.notebook.replica
        if json {
            let objects: [[String: Any]] = versions.map { version in
                var cut: [String: Any] = [:]
                for entry in version.cut.entries { cut[entry.replica.description] = Int(entry.operationCount) }
                return [
                    "version": version.shortName, "cut": cut, "device": version.device.description,
                    "thisDevice": version.device == own, "time": Format.isoDate(milliseconds: version.wallMilliseconds),
                    "inserted": version.insertedCount, "deleted": version.deletedCount,
                ]
            }
            console.print(try Format.json(objects))
            return
        }
        let dates = LocalDates(environment: environment)
        for version in versions {
            let device = version.device == own ? t("history.thisDevice") : version.device.description
            console.print(
                "\(version.shortName)  \(dates.string(version.wallMilliseconds))  +\(version.insertedCount) -\(version.deletedCount)  \(device)")
        }
    }

    /// `memo diff ID [FROM [TO]]`: without FROM, the newest version against the one before it;
    /// with FROM only, FROM against the current text.
    private mutating func diff(_ id: MemoID, from fromName: String?, to toName: String?, library: Library) throws(CLIError) {
        let notebook = library.notebook
        let versions = try Self.versions(of: id, in: notebook, library: library)
        let short = library.shortIDs(id)
        let newest = versions.last
        let from: (name: String, cut: VersionVector)
        let to: (name: String, cut: VersionVector)
        if let fromName {
            let version = try Self.version(named: fromName, of: id, in: notebook, library: library)
            from = (version.shortName, version.cut)
            if let toName {
                let later = try Self.version(named: toName, of: id, in: notebook, library: library)
                to = (later.shortName, later.cut)
            } else {
                to = (newest?.shortName ?? "0000", newest?.cut ?? VersionVector())
            }
        } else {
            let before = versions.count >= 2 ? versions[versions.count - 2] : nil
            from = (before?.shortName ?? "00000000", before?.cut ?? VersionVector())
            to = (newest?.shortName ?? "00000000", newest?.cut ?? VersionVector())
        }
        let oldText = try Self.text(of: id, at: from.cut, in: notebook, library: library)
        let newText = try Self.text(of: id, at: to.cut, in: notebook, library: library)
        if json {
            let difference: TextVersionDiff
            do throws(NotebookError) {
                difference = try notebook.difference(in: id, from: from.cut, to: to.cut)
            } catch {
                throw .runtime("error.cannotReadHistory", ["id": short, "error": explain(error)])
            }
            let changes: [[String: Any]] = difference.changes.map { change in
                [
                    "kind": change.kind == .inserted ? "inserted" : "deleted", "text": change.text,
                    "fromUTF16": [change.fromRangeUTF16.lowerBound, change.fromRangeUTF16.upperBound],
                    "fromScalars": [change.fromRangeScalars.lowerBound, change.fromRangeScalars.upperBound],
                    "toUTF16": [change.toRangeUTF16.lowerBound, change.toRangeUTF16.upperBound],
                    "toScalars": [change.toRangeScalars.lowerBound, change.toRangeScalars.upperBound],
                ]
            }
            let hunks: [[String: Any]] = LineDiff.hunks(from: oldText, to: newText).map { hunk in
                ["oldLines": [hunk.oldLines.lowerBound, hunk.oldLines.upperBound], "newLines": [hunk.newLines.lowerBound, hunk.newLines.upperBound]]
            }
            console.print(try Format.json(["id": id.description, "from": from.name, "to": to.name, "changes": changes, "lines": hunks] as [String: Any]))
            return
        }
        console.print(
            LineDiff.unified(from: oldText, to: newText, fromLabel: "\(short)@\(from.name)", toLabel: "\(short)@\(to.name)"),
            terminator: "")
    }
}
