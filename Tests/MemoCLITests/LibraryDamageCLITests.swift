import Foundation
import Testing

/// A damaged library through the real `memo` (issue 25): the damage is told (a warning in the
/// user's language, exit status 4), the damaged journal is kept aside untouched, and the next
/// command that changes the library cuts nothing.
@Suite struct LibraryDamageCLITests {
    /// Flips bit `bit` of byte `offset` of `file`; returns the file's bytes after.
    @discardableResult
    static func flip(_ file: String, offset: Int, bit: Int) throws -> [UInt8] {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[offset] ^= UInt8(1 << bit)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return bytes
    }

    @Test("the issue's reproduction: a flipped bit in byte 20 of journal-0 is reported, kept aside, never cut")
    func flippedBitInTheFirstRecord() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("J")
        for text in ["first memo alpha", "second", "third"] { _ = try sandbox.newMemo(text, library: library) }
        let journal = library + "/journal-0"
        let damaged = try Self.flip(journal, offset: 20, bit: 2)

        let list = try sandbox.memo(["list"], library: library)
        #expect(list.status == 4, "\(list)")
        #expect(list.stderr.contains("warning") && list.stderr.contains(journal) && list.stderr.contains("1 saved record(s) lost"), "\(list)")
        #expect(list.stderr.contains("2 intact record(s) recovered"), "\(list)")
        // What waits comes back only from a device that published it (no promise for a library
        // without one: `syncBringsBackWhatADamagedRecordLost` is the case with one).
        #expect(list.stderr.contains("wait for the lost ones, which a sync brings back if another device published them"), "\(list)")
        // Reading changes nothing.
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: journal))) == damaged)

        let fourth = try sandbox.memo(["new", "fourth"], library: library)
        #expect(fourth.status == 4 && fourth.stdout.count == 33, "\(fourth)")
        #expect(fourth.stderr.contains(journal + ".damaged-1"), "\(fourth)")
        // The damaged journal is kept whole, untouched: not cut from 315 to 107 bytes.
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: journal + ".damaged-1"))) == damaged)
        #expect(damaged.count > 300)

        let after = try sandbox.ok(["list"], library: library)
        #expect(after.stdout.contains("fourth") && after.stderr.isEmpty, "\(after)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: journal + ".damaged-1"))) == damaged)

        // Later, `memo status` still shows what waits and what was kept aside (the warning came
        // once, from the command that found the damage).
        let status = try sandbox.ok(["status", "--json"], library: library).object()
        let heldBack = try #require(status["heldBackOperations"] as? Int, "\(status)")
        #expect(heldBack > 0, "\(status)")
        #expect(status["keptAside"] as? [String] == ["journal-0.damaged-1"], "\(status)")
        let text = try sandbox.ok(["status"], library: library).stdout
        #expect(text.contains("Held back:") && text.contains("\(heldBack) operation"), "\(text)")
        #expect(text.contains("Kept aside:") && text.contains("journal-0.damaged-1"), "\(text)")
        #expect(text.contains("'memo recover' shows their text, 'memo recover --restore' puts it in new memos"), "\(text)")

        // What waits is text the user typed, and `memo recover` gives it back to copy: the two
        // memos saved after the damaged record, whose creations wait, in the order typed.
        let recovered = try sandbox.ok(["recover", "--json"], library: library).object()
        #expect(recovered["heldBackOperations"] as? Int == heldBack, "\(recovered)")
        let memos = try #require(recovered["memos"] as? [[String: Any]], "\(recovered)")
        #expect(Set(memos.compactMap { $0["text"] as? String }) == ["second", "third"], "\(recovered)")
        #expect(memos.allSatisfy { $0["title"] is NSNull }, "\(recovered)")
        #expect(memos.reduce(0) { $0 + ($1["operations"] as? Int ?? 0) } == heldBack, "\(recovered)")
        let shown = try sandbox.ok(["recover"], library: library)
        #expect(shown.stdout.contains("\(heldBack) operations wait for operations they build on"), "\(shown)")
        #expect(shown.stdout.contains("\nsecond\n") && shown.stdout.contains("\nthird\n"), "\(shown)")
        #expect(shown.stdout.contains("not in this library (its creation waits too)"), "\(shown)")
        // It changes nothing.
        #expect(try sandbox.ok(["status", "--json"], library: library).object()["heldBackOperations"] as? Int == heldBack)

        // `--restore` puts that text into new memos, once; the operations still wait.
        let restored = try sandbox.ok(["recover", "--restore"], library: library)
        #expect(restored.stdout.contains("Restored as memo") && restored.stdout.contains(": second\n") && restored.stdout.contains(": third\n"), "\(restored)")
        #expect(restored.stdout.contains("The held-back operations still wait"), "\(restored)")
        let titles = try sandbox.ok(["list", "--json"], library: library).objects().compactMap { $0["title"] as? String }
        #expect(titles.filter { $0 == "second" || $0 == "third" }.count == 2, "\(titles)")
        let again = try sandbox.ok(["recover", "--restore", "--json"], library: library).object()
        let entries = try #require(again["restored"] as? [[String: Any]], "\(again)")
        #expect(entries.count == 2 && entries.allSatisfy { $0["created"] as? Bool == false }, "\(again)")
        #expect(try sandbox.ok(["list", "--json"], library: library).objects().count == titles.count)
        #expect(try sandbox.ok(["status", "--json"], library: library).object()["heldBackOperations"] as? Int == heldBack)
    }

    @Test("a library without damage: status shows neither held-back operations nor files kept aside")
    func statusOfAnUndamagedLibrary() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("L")
        _ = try sandbox.newMemo("fine", library: library)
        let status = try sandbox.ok(["status", "--json"], library: library).object()
        #expect(status["heldBackOperations"] as? Int == 0 && (status["keptAside"] as? [String])?.isEmpty == true, "\(status)")
        let text = try sandbox.ok(["status"], library: library).stdout
        #expect(!text.contains("Held back:") && !text.contains("Kept aside:"), "\(text)")
        let recover = try sandbox.ok(["recover"], library: library)
        #expect(recover.stdout == "Nothing is held back: every edit saved in this library shows.\n", "\(recover)")
        let object = try sandbox.ok(["recover", "--json"], library: library).object()
        #expect(object["heldBackOperations"] as? Int == 0 && (object["memos"] as? [Any])?.isEmpty == true, "\(object)")
    }

    @Test("a flipped bit in the last record: the memos before it are listed, with the warning, in English, Korean and Japanese")
    func flippedBitInTheLastRecord() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("J")
        for text in ["first memo alpha", "second", "third"] { _ = try sandbox.newMemo(text, library: library) }
        let journal = library + "/journal-0"
        let size = try Data(contentsOf: URL(fileURLWithPath: journal)).count
        try Self.flip(journal, offset: size - 9, bit: 5)

        let list = try sandbox.memo(["list"], library: library)
        #expect(list.status == 4, "\(list)")
        #expect(list.stdout.contains("first memo alpha") && list.stdout.contains("second") && !list.stdout.contains("third"), "\(list)")
        #expect(list.stderr.contains("1 saved record(s) lost") && list.stderr.contains("2 intact record(s) recovered"), "\(list)")
        let korean = try sandbox.memo(["list"], library: library, environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.status == 4 && korean.stderr.contains("경고"), "\(korean)")
        let japanese = try sandbox.memo(["list"], library: library, environment: ["LANG": "ja_JP.UTF-8"])
        #expect(japanese.status == 4 && japanese.stderr.contains("警告"), "\(japanese)")
        // --quiet does not hide it: something saved was lost.
        let quiet = try sandbox.memo(["--quiet", "list"], library: library)
        #expect(quiet.status == 4 && quiet.stderr.contains("warning"), "\(quiet)")
    }

    @Test("a crash-torn last record is cut without a warning")
    func tornTailIsNotDamage() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("J")
        _ = try sandbox.newMemo("first memo alpha", library: library)
        // A crash while the second command saved: the first command's clean close sealed the
        // journal's length then, and the crashed one never sealed (a journal cut below what a
        // seal says is damage: `journalCutShortAfterACleanClose`).
        let seal = try Data(contentsOf: URL(fileURLWithPath: library + "/seal"))
        _ = try sandbox.newMemo("second", library: library)
        try seal.write(to: URL(fileURLWithPath: library + "/seal"))
        let journal = library + "/journal-0"
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: journal)))
        try Data(bytes.dropLast(5)).write(to: URL(fileURLWithPath: journal))
        let list = try sandbox.ok(["list"], library: library)
        #expect(list.stdout.contains("first memo alpha") && !list.stdout.contains("second") && list.stderr.isEmpty, "\(list)")
    }

    /// Issue 29, message 9: a purge after damage. A memo whose text is in records kept for edits
    /// held back is refused (nothing purged) until a sync brings back what the damage took; then
    /// it is purged, its text is in no library file but the damaged copy kept aside, and the
    /// command names that copy in a warning.
    @Test("purge after damage: refused while the memo's edits are held back, then done, naming the copy kept aside")
    func purgeAfterDamage() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (library, store) = (sandbox.at("J"), sandbox.at("S"))
        let first = try sandbox.newMemo("first memo alpha", library: library)
        try sandbox.ok(["sync", "--store", store], library: library)
        _ = try sandbox.newMemo("second memo beta", library: library)
        try sandbox.ok(["sync"], library: library)
        try sandbox.ok(["edit", first, "--insert", "0", "edited "], library: library)
        // Damage the record that saved the second memo (its text is in it as UTF-8).
        let names = try FileManager.default.contentsOfDirectory(atPath: library).filter { $0.hasPrefix("journal-") }
        let journalName = try #require(names.first, "\(names)")
        let journal = library + "/" + journalName
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: journal)))
        let at = try #require(bytes.firstRange(of: Array("second memo beta".utf8)), "the record is not in \(journal)")
        try Self.flip(journal, offset: at.lowerBound + 3, bit: 1)

        let trashed = try sandbox.memo(["delete", first], library: library)
        #expect(trashed.status == 4 && trashed.stderr.contains(journal + ".damaged-1"), "\(trashed)")
        let refused = try sandbox.memo(["purge", first], library: library)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("held back after damage") && refused.stderr.contains("Sync"), "\(refused)")
        #expect(try sandbox.ok(["trash"], library: library).stdout.contains("first memo alpha"), "the refused purge changed the trash")

        // The sync brings the second memo back; the held-back edit applies (and, made before
        // the trash here saw it, brings the first memo back from the trash).
        try sandbox.ok(["sync"], library: library)
        let list = try sandbox.ok(["list"], library: library)
        #expect(list.stdout.contains("second memo beta"), "\(list)")
        if list.stdout.contains("edited first memo alpha") { try sandbox.ok(["delete", first], library: library) }
        let purged = try sandbox.memo(["purge", "--json", first], library: library)
        #expect(purged.status == 0, "\(purged)")
        #expect(purged.stdout.contains("\"keptAside\"") && purged.stdout.contains(journalName + ".damaged-1"), "\(purged)")
        #expect(purged.stderr.contains("warning") && purged.stderr.contains(journal + ".damaged-1"), "\(purged)")
        // Its text is in no library file but the copy kept aside, which is untouched.
        for name in try FileManager.default.contentsOfDirectory(atPath: library) {
            let contents = Array(try Data(contentsOf: URL(fileURLWithPath: library + "/" + name)))
            let holds = contents.firstRange(of: Array("first memo alpha".utf8)) != nil
            #expect(holds == (name == journalName + ".damaged-1"), "\(name) \(holds ? "holds" : "lacks") the purged text")
        }
    }

    /// A journal cut short after the library was closed cleanly (the seal says how long it
    /// was): told, in the user's language, with exit status 4, and kept aside as found by the
    /// next command that changes the library; never taken for a torn write and cut silently.
    @Test("a journal cut short after a clean close is reported, in three languages, and kept aside")
    func journalCutShortAfterACleanClose() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("cut")
        for text in ["Synced memo", "Saved but not synced yet", "third"] { _ = try sandbox.newMemo(text, library: library) }
        let journal = library + "/journal-0"
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: journal)))
        bytes.removeLast(20)
        try Data(bytes).write(to: URL(fileURLWithPath: journal))

        let list = try sandbox.memo(["list"], library: library)
        #expect(list.status == 4 && list.stdout.contains("Saved but not synced yet") && !list.stdout.contains("third"), "\(list)")
        #expect(list.stderr.contains(journal) && list.stderr.contains("is 20 bytes shorter than the library's last clean close left it"), "\(list)")
        for (language, phrase) in [("ko_KR.UTF-8", "20바이트 짧습니다"), ("ja_JP.UTF-8", "20 バイト短くなっています")] {
            let translated = try sandbox.memo(["list"], library: library, environment: ["LC_ALL": language])
            #expect(translated.status == 4 && translated.stderr.contains(phrase), "\(translated)")
        }
        let fourth = try sandbox.memo(["new", "fourth"], library: library)
        #expect(fourth.status == 4 && fourth.stderr.contains(journal + ".damaged-1"), "\(fourth)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: journal + ".damaged-1"))) == bytes)
        let after = try sandbox.ok(["list"], library: library)
        #expect(after.stdout.contains("fourth") && after.stderr.isEmpty, "\(after)")

        // The whole journal deleted.
        let other = sandbox.at("deleted")
        _ = try sandbox.newMemo("only memo", library: other)
        try FileManager.default.removeItem(atPath: other + "/journal-0")
        let missing = try sandbox.memo(["list"], library: other)
        #expect(missing.status == 4 && missing.stderr.contains("is missing, though the library's last clean close saved"), "\(missing)")
    }
}

/// A memo's text damaged in a large library's state file after it was written (FORMAT.md,
/// "State list"): `memo show` gives what the memo list holds of it, says so, and exits 4; the
/// other memos read whole, and the state file is left as it is.
@Suite struct StoredTextDamageCLITests {
    @Test func aTextDamagedInTheStateFileIsShownAsListedWithAWarning() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("L")
        let paragraph = String(repeating: "Plain words of a long note. ", count: 3_600)
        var ids: [String] = []
        for index in 0..<12 { ids.append(try sandbox.newMemo("Part \(index)\n" + paragraph, library: library)) }
        let damagedID = try sandbox.newMemo("Shopping\nmilk eggs bread " + String(repeating: "and more ", count: 50), library: library)
        // More memos until the journal is compacted into a state of more than 1 MiB, with its list.
        var index = 12
        while !FileManager.default.fileExists(atPath: library + "/state-list") && index < 40 {
            ids.append(try sandbox.newMemo("Part \(index)\n" + paragraph, library: library))
            index += 1
        }
        #expect(FileManager.default.fileExists(atPath: library + "/state-list"))
        let statePath = library + "/state"
        var state = Array(try Data(contentsOf: URL(fileURLWithPath: statePath)))
        let needle = Array("milk eggs".utf8)
        let at = try #require((0...(state.count - needle.count)).first { state[$0..<$0 + needle.count].elementsEqual(needle) })
        state[at] = UInt8(ascii: "s")
        try Data(state).write(to: URL(fileURLWithPath: statePath))

        let shown = try sandbox.memo(["show", damagedID], library: library)
        #expect(shown.status == 4, "\(shown)")
        #expect(shown.stdout.hasPrefix("Shopping\nmilk eggs"), "\(shown)")
        #expect(shown.stderr.contains("cannot be read from the library file \(statePath)"), "\(shown)")
        let other = try sandbox.ok(["show", ids[0]], library: library)
        #expect(other.stdout == "Part 0\n" + paragraph, "\(other)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: statePath))) == state)
    }
}
