// Issue 25, part 2: a store operator cannot turn encryption off. Each path that once republished
// the notebook in plain text (the store wiped, the key blob alone deleted, the key blob replaced
// by another library's, the store switched, the library copied to a new device) leaves a store
// in which no memo text can be found; `memo status` says whether encryption is on; plain blobs
// beside the ciphertext are reported, never applied; `memo store decrypt` is the only way off.

import Foundation
import Testing

@Suite struct EncryptionDowngradeCLITests {
    static let passphrase = ["MEMO_PASSPHRASE": "correct horse battery staple"]
    static let secrets = ["Groceries: oat milk", "Dear diary, the code is 4711"]
    // "code is 4711", not "4711": four digits alone turn up in the hex of blob names by chance.
    static let words = ["Groceries", "oat milk", "diary", "code is 4711"]

    /// Every file under `folder` whose name or bytes contain `text`.
    private func files(in folder: String, containing text: String) -> [String] {
        let needle = Array(text.utf8)
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            let path = folder + "/" + relative
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = Array(data)
            let inBytes = bytes.count >= needle.count && (0...(bytes.count - needle.count)).contains { start in
                bytes[start..<(start + needle.count)].elementsEqual(needle)
            }
            if inBytes || relative.contains(text) { found.append(relative) }
        }
        return found
    }

    /// No memo text anywhere in `store` (the `grep` of the issue).
    private func expectNoMemoText(in store: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for word in Self.words {
            #expect(files(in: store, containing: word).isEmpty, "the store shows \(word): \(files(in: store, containing: word))",
                    sourceLocation: sourceLocation)
        }
    }

    /// The key blobs in `store`.
    private func keyBlobs(in store: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store + "/memosync/v1/keys")) ?? []).filter { $0.hasSuffix(".key") }.sorted()
    }

    /// A library `a` holding the two secret memos, synced to `store` with encryption on.
    private func encryptedLibrary(_ sandbox: Sandbox, _ a: String, _ store: String) throws {
        for text in Self.secrets { _ = try sandbox.newMemo(text, library: a) }
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: Self.passphrase)
        expectNoMemoText(in: store)
        #expect(keyBlobs(in: store).count == 1)
        #expect(FileManager.default.fileExists(atPath: a + "/encryption"))
    }

    /// After a decrypt finished (at once, or run again): library `a` is plain, the store holds
    /// its memos in plain text, and a new device `b` gets every one.
    private func expectPlainAndWhole(
        _ sandbox: Sandbox, _ a: String, _ store: String, _ b: String, step: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try sandbox.ok(["status", "--json"], library: a).object()["encrypted"] as? Bool == false, sourceLocation: sourceLocation)
        #expect(!files(in: store, containing: "Groceries").isEmpty, "step \(step)", sourceLocation: sourceLocation)
        try sandbox.ok(["sync", "--store", store], library: b)
        let other = try sandbox.ok(["list"], library: b).stdout
        for text in Self.secrets {
            #expect(other.contains(String(text.prefix(20))), "step \(step): \(other)", sourceLocation: sourceLocation)
        }
    }

    private func wipe(_ folder: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    @Test func aWipedStoreGetsTheLibrarysKeyBlobBackAndNoPlainText() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, b, store) = (sandbox.at("a"), sandbox.at("b"), sandbox.at("store"))
        try encryptedLibrary(sandbox, a, store)
        let keyBlob = keyBlobs(in: store)
        try wipe(store)
        let result = try sandbox.ok(["sync"], library: a)
        #expect(result.stderr.contains("key blob"), "\(result)")
        expectNoMemoText(in: store)
        #expect(keyBlobs(in: store) == keyBlob)
        // Another device with the passphrase reads everything back.
        try sandbox.ok(["sync", "--store", store], library: b, environment: Self.passphrase)
        let list = try sandbox.ok(["list"], library: b).stdout
        for text in Self.secrets { #expect(list.contains(text.prefix(12))) }
        expectNoMemoText(in: store)
    }

    @Test func aDeletedKeyBlobIsPutBackAndTheCiphertextOpensAgain() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, b, store) = (sandbox.at("a"), sandbox.at("b"), sandbox.at("store"))
        try encryptedLibrary(sandbox, a, store)
        try sandbox.ok(["sync", "--store", store], library: b, environment: Self.passphrase)
        let keyBlob = keyBlobs(in: store)
        try FileManager.default.removeItem(atPath: store + "/memosync/v1/keys/" + keyBlob[0])
        _ = try sandbox.newMemo("written after the key blob went", library: b)
        // B, with its remembered key, puts it back, then syncs encrypted.
        try sandbox.ok(["sync"], library: b)
        #expect(keyBlobs(in: store) == keyBlob)
        try sandbox.ok(["sync"], library: a)
        #expect(try sandbox.ok(["list"], library: a).stdout.contains("written after"))
        expectNoMemoText(in: store)
        #expect(files(in: store, containing: "written after").isEmpty)
    }

    @Test func anotherLibrarysKeyBlobIsRefusedAndNothingIsWritten() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, c, store, other) = (sandbox.at("a"), sandbox.at("c"), sandbox.at("store"), sandbox.at("other"))
        try encryptedLibrary(sandbox, a, store)
        _ = try sandbox.newMemo("someone else's notes", library: c)
        try sandbox.ok(["sync", "--store", other, "--encrypt"], library: c, environment: ["MEMO_PASSPHRASE": "the operator's passphrase"])
        // The operator swaps the key blob for the one of a library it controls.
        for name in keyBlobs(in: store) { try FileManager.default.removeItem(atPath: store + "/memosync/v1/keys/" + name) }
        let foreign = keyBlobs(in: other)[0]
        try FileManager.default.copyItem(atPath: other + "/memosync/v1/keys/" + foreign, toPath: store + "/memosync/v1/keys/" + foreign)
        let before = sandbox.contents(of: store)
        try sandbox.fails(["sync"], status: 3, library: a)
        try sandbox.fails(["sync"], status: 3, containing: ["does not open"], library: a, environment: Self.passphrase)
        #expect(sandbox.contents(of: store) == before)
        expectNoMemoText(in: store)
    }

    @Test func aNewStoreForAnEncryptedLibraryIsEncrypted() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, b, store, moved) = (sandbox.at("a"), sandbox.at("b"), sandbox.at("store"), sandbox.at("moved"))
        try encryptedLibrary(sandbox, a, store)
        try sandbox.ok(["sync", "--store", moved], library: a)
        expectNoMemoText(in: moved)
        #expect(keyBlobs(in: moved) == keyBlobs(in: store))
        // Asked for plain text explicitly? `--encrypt` on the new store changes nothing either.
        try sandbox.ok(["sync", "--store", moved, "--encrypt"], library: a, environment: Self.passphrase)
        expectNoMemoText(in: moved)
        try sandbox.ok(["sync", "--store", moved], library: b, environment: Self.passphrase)
        #expect(try sandbox.ok(["list"], library: b).stdout.contains("Groceries"))
    }

    @Test func aCopiedLibraryStaysEncryptedOnANewDevice() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store) = (sandbox.at("a"), sandbox.at("store"))
        try encryptedLibrary(sandbox, a, store)
        // Copied to a new device; the remembered key stays behind (it is the device's).
        let copy = sandbox.at("copy")
        try FileManager.default.copyItem(atPath: a, toPath: copy)
        try? FileManager.default.removeItem(atPath: copy + "/store-key")
        try? FileManager.default.removeItem(atPath: copy + "/.memosync.lock")
        try wipe(store)
        // Without the passphrase it cannot open its own key blob: nothing is written.
        try sandbox.fails(["sync"], status: 3, containing: ["passphrase"], library: copy)
        #expect(sandbox.contents(of: store).isEmpty)
        try sandbox.ok(["sync"], library: copy, environment: Self.passphrase)
        expectNoMemoText(in: store)
        #expect(keyBlobs(in: store).count == 1)
        let status = try sandbox.ok(["status", "--json"], library: copy).object()
        #expect(status["encrypted"] as? Bool == true)
        #expect(status["storeEncrypted"] as? Bool == true)
    }

    @Test func statusSaysWhetherTheLibraryAndItsStoreAreEncrypted() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, p, store, plainStore) = (sandbox.at("a"), sandbox.at("p"), sandbox.at("store"), sandbox.at("plain"))
        _ = try sandbox.newMemo("plain words", library: p)
        var status = try sandbox.ok(["status", "--json"], library: p).object()
        #expect(status["encrypted"] as? Bool == false)
        #expect(status["storeEncrypted"] is NSNull)
        try sandbox.ok(["sync", "--store", plainStore], library: p)
        status = try sandbox.ok(["status", "--json"], library: p).object()
        #expect(status["storeEncrypted"] as? Bool == false)
        #expect(try encryptionLine(sandbox, p).contains("off: the store held plain text"))
        try encryptedLibrary(sandbox, a, store)
        status = try sandbox.ok(["status", "--json"], library: a).object()
        #expect(status["encrypted"] as? Bool == true)
        #expect(status["storeEncrypted"] as? Bool == true)
        #expect(status["passphraseRemembered"] as? Bool == true)
        #expect(try encryptionLine(sandbox, a).contains("on: this library syncs only encrypted"))
    }

    /// The line of `memo status` about encryption.
    private func encryptionLine(_ sandbox: Sandbox, _ library: String) throws -> String {
        let lines = try sandbox.ok(["status"], library: library).stdout.split(separator: "\n")
        return lines.first { $0.hasPrefix("Encryption:") }.map(String.init) ?? ""
    }

    @Test func plainBlobsBesideTheCiphertextAreReportedAndNotApplied() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, p, store, plainStore) = (sandbox.at("a"), sandbox.at("p"), sandbox.at("store"), sandbox.at("plain"))
        try encryptedLibrary(sandbox, a, store)
        _ = try sandbox.newMemo("planted by the operator", library: p)
        try sandbox.ok(["sync", "--store", plainStore], library: p)
        let planted = sandbox.contents(of: plainStore).filter { $0.key.hasPrefix("memosync/v1/") }
        #expect(!planted.isEmpty)
        for (relative, bytes) in planted {
            let target = URL(fileURLWithPath: store + "/" + relative)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: target)
        }
        let result = try sandbox.ok(["sync", "--json"], library: a)
        let report = try result.object()
        #expect(report["encrypted"] as? Bool == true)
        let ignored = report["plainBlobsIgnored"] as? [String] ?? []
        #expect(Set(ignored) == Set(planted.keys), "\(ignored)\n\(result)")
        #expect(result.stderr.contains("not applied"), "\(result)")
        #expect(!(try sandbox.ok(["list"], library: a).stdout.contains("planted")))
    }

    @Test func decryptAsksForThePassphraseAndTurnsEncryptionOff() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store) = (sandbox.at("a"), sandbox.at("store"))
        try encryptedLibrary(sandbox, a, store)
        try sandbox.fails(["store", "decrypt"], status: 3, containing: ["passphrase"], library: a)
        try sandbox.fails(["store", "decrypt"], status: 3, containing: ["does not open"], library: a,
                          environment: ["MEMO_PASSPHRASE": "not the passphrase"])
        expectNoMemoText(in: store)
        #expect(FileManager.default.fileExists(atPath: a + "/encryption"))
        let result = try sandbox.ok(["store", "decrypt"], library: a, environment: Self.passphrase)
        #expect(result.stderr.contains("plain text"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: a + "/encryption"))
        #expect(!FileManager.default.fileExists(atPath: a + "/store-key"))
        #expect(keyBlobs(in: store).isEmpty)
        #expect(!files(in: store, containing: "Groceries").isEmpty)
        #expect(sandbox.contents(of: store).keys.allSatisfy { !$0.hasPrefix("memosync/e1/") })
        #expect(try sandbox.ok(["status", "--json"], library: a).object()["encrypted"] as? Bool == false)
        try sandbox.fails(["store", "decrypt"], status: 1, containing: ["not encrypted"], library: a)
    }

    /// `memo store decrypt` stopped (killed) after each of its steps: receiving everything (1),
    /// deleting the key blob (2), forgetting the remembered key (3), making the library plain
    /// (4), deleting the ciphertext (5), publishing in plain text (6). Whatever the step, both
    /// memos are still in the library; a library that says it is encrypted has put no plain
    /// blob in the store, and its next sync puts the key blob back with only ciphertext beside
    /// it, after which `memo store decrypt` finishes the job; a library already plain publishes
    /// in plain text at its next sync. Another device then reads both memos from the store.
    @Test(arguments: 1...6)
    func decryptStoppedAfterEachStepLosesNothingAndLeaksNothing(step: Int) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store, b) = (sandbox.at("a"), sandbox.at("store"), sandbox.at("b"))
        try encryptedLibrary(sandbox, a, store)
        let stopped = try sandbox.memo(
            ["store", "decrypt"], library: a, environment: Self.passphrase.merging(["MEMO_TEST_STOP_DECRYPT_AFTER": String(step)]) { $1 })
        #expect(stopped.status == 86, "step \(step): \(stopped)")
        let listed = try sandbox.ok(["list"], library: a).stdout
        for text in Self.secrets { #expect(listed.contains(String(text.prefix(20))), "step \(step): \(listed)") }
        let encrypted = try sandbox.ok(["status", "--json"], library: a).object()["encrypted"] as? Bool
        #expect(encrypted == (step < 4), "step \(step)")
        if encrypted == true {
            expectNoMemoText(in: store)
            try sandbox.ok(["sync"], library: a, environment: Self.passphrase)
            expectNoMemoText(in: store)
            #expect(keyBlobs(in: store).count == 1, "step \(step)")
            let result = try sandbox.ok(["store", "decrypt"], library: a, environment: Self.passphrase)
            #expect(result.stderr.contains("plain text"), "\(result)")
        } else {
            #expect(keyBlobs(in: store).isEmpty, "step \(step)")
            try sandbox.fails(["store", "decrypt"], status: 1, containing: ["not encrypted"], library: a)
            try sandbox.ok(["sync"], library: a)
        }
        try expectPlainAndWhole(sandbox, a, store, b, step: step)
    }

    /// `memo store decrypt` failing (not killed) at each of its steps says where it stopped, and
    /// what it says holds: before the library is plain, it stays encrypted and its next sync
    /// puts the key blob back, with only ciphertext beside it; after, `memo sync` publishes.
    @Test("a store decrypt that fails says where it stopped, loses nothing and leaks nothing", arguments: [2, 4, 6])
    func decryptThatFailsSaysWhereItStopped(step: Int) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store, b) = (sandbox.at("a"), sandbox.at("store"), sandbox.at("b"))
        try encryptedLibrary(sandbox, a, store)
        let failed = try sandbox.fails(
            ["store", "decrypt"], status: 1, library: a, environment: Self.passphrase.merging(["MEMO_TEST_FAIL_DECRYPT_AT": String(step)]) { $1 })
        #expect(!failed.stderr.contains("nothing was read or written"), "\(failed)")
        let encrypted = try sandbox.ok(["status", "--json"], library: a).object()["encrypted"] as? Bool
        #expect(encrypted == (step < 6), "step \(step)")
        if step < 6 {
            #expect(failed.stderr.contains("stays encrypted") || failed.stderr.contains("stay encrypted"), "\(failed)")
            #expect(failed.stderr.contains("nothing was lost") && failed.stderr.contains("memo store decrypt"), "\(failed)")
            expectNoMemoText(in: store)
            try sandbox.ok(["sync"], library: a, environment: Self.passphrase)
            expectNoMemoText(in: store)
            #expect(keyBlobs(in: store).count == 1, "step \(step)")
            try sandbox.ok(["store", "decrypt"], library: a, environment: Self.passphrase)
        } else {
            #expect(failed.stderr.contains("encryption is off") && failed.stderr.contains("'memo sync'"), "\(failed)")
            #expect(keyBlobs(in: store).isEmpty)
            try sandbox.ok(["sync"], library: a)
        }
        try expectPlainAndWhole(sandbox, a, store, b, step: step)
    }

    /// "--quiet: nothing on standard error but errors and warnings of damage" (memo help): the
    /// encryption notes (a key blob put back, plain blobs collected, what decrypt does) are
    /// notes; plain blobs in an encrypted store, which no library of it wrote, are said anyway.
    @Test("--quiet leaves out the encryption notes")
    func quietLeavesOutTheEncryptionNotes() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store, plain) = (sandbox.at("a"), sandbox.at("store"), sandbox.at("plain"))
        // Plain blobs first, collected when encryption is turned on.
        _ = try sandbox.newMemo("published in plain text first", library: a)
        try sandbox.ok(["sync", "--store", plain], library: a)
        let turnedOn = try sandbox.ok(["sync", "--quiet", "--encrypt"], library: a, environment: Self.passphrase)
        #expect(turnedOn.stderr.isEmpty, "\(turnedOn)")
        #expect(files(in: plain, containing: "published in plain").isEmpty)
        let loud = sandbox.at("loud")
        _ = try sandbox.newMemo("another", library: loud)
        try sandbox.ok(["sync", "--store", sandbox.at("loud-store")], library: loud)
        let said = try sandbox.ok(["sync", "--encrypt"], library: loud, environment: Self.passphrase)
        #expect(said.stderr.contains("plain text"), "without --quiet the note is there: \(said)")
        // A wiped store: the key blob goes back without a word.
        try encryptedLibrary(sandbox, sandbox.at("c"), store)
        try wipe(store)
        let restored = try sandbox.ok(["sync", "--quiet"], library: sandbox.at("c"))
        #expect(restored.stderr.isEmpty, "\(restored)")
        #expect(keyBlobs(in: store).count == 1)
        let decrypted = try sandbox.ok(["store", "decrypt", "--quiet"], library: sandbox.at("c"), environment: Self.passphrase)
        #expect(decrypted.stderr.isEmpty, "\(decrypted)")
    }

    /// A library from before the `encryption` file, known encrypted by its `store-key` alone
    /// (FORMAT.md, "Library encryption"), is encrypted too: with no key blob of its own to put
    /// back, a wiped store is an error, never the notebook in plain text.
    @Test("a library with a store-key but no encryption file stays encrypted")
    func aRememberedKeyAloneKeepsTheLibraryEncrypted() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store) = (sandbox.at("a"), sandbox.at("store"))
        try encryptedLibrary(sandbox, a, store)
        try FileManager.default.removeItem(atPath: a + "/encryption")
        #expect(FileManager.default.fileExists(atPath: a + "/store-key"))
        #expect(try sandbox.ok(["status", "--json"], library: a).object()["encrypted"] as? Bool == true)
        try wipe(store)
        _ = try sandbox.newMemo("Groceries, written after the wipe", library: a)
        try sandbox.fails(["sync"], status: 1, containing: ["has no key blob", "nothing written in plain text"], library: a)
        expectNoMemoText(in: store)
        #expect(sandbox.contents(of: store).isEmpty)
        #expect(try sandbox.ok(["status", "--json"], library: a).object()["encrypted"] as? Bool == true)
    }

    /// "remembers the derived key (never the passphrase)" (README) and "never the passphrase
    /// itself" (memo help): no library file holds a passphrase given any way, old or new.
    @Test("no file of a library holds its passphrase")
    func noLibraryFileHoldsThePassphrase() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, b, store) = (sandbox.at("a"), sandbox.at("b"), sandbox.at("store"))
        try encryptedLibrary(sandbox, a, store)
        let file = sandbox.at("passphrase.txt")
        try Data("correct horse battery staple\n".utf8).write(to: URL(fileURLWithPath: file))
        try sandbox.ok(["sync", "--store", store, "--passphrase-file", file], library: b)
        let newFile = sandbox.at("new-passphrase.txt")
        try Data("a brand new passphrase\n".utf8).write(to: URL(fileURLWithPath: newFile))
        try sandbox.ok(["store", "passphrase", "--new-passphrase-file", newFile], library: b, environment: Self.passphrase)
        try sandbox.ok(["sync"], library: a, environment: ["MEMO_PASSPHRASE": "a brand new passphrase"])
        for library in [a, b] {
            #expect(FileManager.default.fileExists(atPath: library + "/store-key"))
            for secret in ["correct horse", "brand new passphrase"] {
                #expect(files(in: library, containing: secret).isEmpty, "\(library) holds \(secret): \(files(in: library, containing: secret))")
            }
        }
        for secret in ["correct horse", "brand new passphrase"] { #expect(files(in: store, containing: secret).isEmpty) }
    }
}
