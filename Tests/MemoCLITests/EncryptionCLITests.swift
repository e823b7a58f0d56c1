// `memo sync --encrypt`, `memo store passphrase`, and the "Done when" of issue 16: two libraries
// sync an encrypted store folder, converge, and no memo text appears in any store file.

import Foundation
import Synchronization
import Testing

@Suite struct EncryptionCLITests {
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

    /// README and `memo help sync`: with no passphrase given, a new one is "asked twice without
    /// echo on a terminal". Under script(1) (a terminal), each answer is typed only once its
    /// prompt shows: the transcript holds both prompts and never the passphrase; answers that
    /// differ encrypt nothing (exit status 3).
    @Test(.timeLimit(.minutes(2))) func aNewPassphraseIsAskedTwiceWithoutEcho() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) gives memo a terminal")
        let executable = try #require(MemoExecutable.path)
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("Dear diary, the code is 4711", library: library)
        let passphrase = "correct horse battery staple"
        func typed(_ answers: [String], store: String) throws -> (transcript: String, status: Int32) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", "\(executable) sync --store \(store) --encrypt; echo status=$?", "/dev/null"]
            process.environment = ["MEMO_LIBRARY": library, "HOME": sandbox.home, "LANG": "C.UTF-8", "TZ": "UTC", "PATH": "/usr/bin:/bin"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let transcript = Mutex("")
            output.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                transcript.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
            defer { output.fileHandleForReading.readabilityHandler = nil }
            let prompts = ["New passphrase for the store: ", "The same passphrase again: "]
            for (index, answer) in answers.enumerated() {
                let deadline = Date(timeIntervalSinceNow: 60)
                func promptsShown() -> Int { transcript.withLock { $0.components(separatedBy: prompts[index]).count - 1 } }
                while Date() < deadline && promptsShown() < 1 { usleep(20_000) }
                try #require(promptsShown() == 1, "no prompt \(prompts[index]): \(transcript.withLock { $0 })")
                input.fileHandleForWriting.write(Data((answer + "\n").utf8))
            }
            let deadline = Date(timeIntervalSinceNow: 60)
            while Date() < deadline && !transcript.withLock({ $0.contains("status=") }) { usleep(20_000) }
            process.waitUntilExit()
            let text = transcript.withLock { $0 }
            let status = text.firstMatch(of: /status=(\d+)/).flatMap { Int32($0.1) } ?? -1
            return (text, status)
        }
        let differing = try typed([passphrase, passphrase + "!"], store: sandbox.at("other-store"))
        #expect(differing.status == 3 && !differing.transcript.contains(passphrase), "\(differing.transcript)")
        #expect(files(in: sandbox.at("other-store"), containing: "").filter { $0.hasSuffix(".seg") || $0.hasSuffix(".snap") }.isEmpty)
        let store = sandbox.at("store")
        let matching = try typed([passphrase, passphrase], store: store)
        #expect(matching.status == 0, "\(matching.transcript)")
        #expect(!matching.transcript.contains(passphrase) && !matching.transcript.contains("horse"), "\(matching.transcript)")
        #expect(files(in: store, containing: "Dear diary").isEmpty && files(in: store, containing: "4711").isEmpty)
        // The passphrase typed is the store's: another library opens it with the same one.
        let other = sandbox.at("other")
        try sandbox.ok(["sync", "--store", store], library: other, environment: ["MEMO_PASSPHRASE": passphrase])
        #expect(try sandbox.ok(["list"], library: other).stdout.contains("Dear diary"))
    }

    @Test func twoLibrariesSyncAnEncryptedStoreAndNoMemoTextIsInIt() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = sandbox.at("store")
        let (a, b) = (sandbox.at("a"), sandbox.at("b"))
        let texts = ["Groceries: oat milk", "Dear diary, the code is 4711", "Meeting with Ana"]
        _ = try sandbox.newMemo(texts[0], library: a)
        _ = try sandbox.newMemo(texts[1], library: b)
        let passphrase = ["MEMO_PASSPHRASE": "correct horse battery staple"]
        // A store that was plain first: the plain blob is collected after the encrypted sync.
        try sandbox.ok(["sync", "--store", store], library: a)
        #expect(!files(in: store, containing: "Groceries").isEmpty)
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: passphrase)
        #expect(FileManager.default.fileExists(atPath: a + "/store-key"))
        let mode = try FileManager.default.attributesOfItem(atPath: a + "/store-key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // B without the passphrase: exit 3, nothing written.
        let before = sandbox.contents(of: store)
        try sandbox.fails(["sync", "--store", store], status: 3, containing: ["passphrase"], library: b)
        try sandbox.fails(["sync", "--store", store], status: 3, containing: ["does not open"], library: b,
                          environment: ["MEMO_PASSPHRASE": "not the passphrase"])
        #expect(sandbox.contents(of: store) == before)
        // With it, B syncs, and from then on remembers the key.
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: b, environment: passphrase)
        _ = try sandbox.newMemo(texts[2], library: b)
        try sandbox.ok(["sync"], library: b)
        try sandbox.ok(["sync"], library: a)
        let listA = try sandbox.ok(["list"], library: a).stdout
        let listB = try sandbox.ok(["list"], library: b).stdout
        #expect(listA == listB)
        for text in texts { #expect(listA.contains(text.prefix(12))) }
        for word in ["Groceries", "oat milk", "diary", "code is 4711", "Meeting", "Ana"] {
            #expect(files(in: store, containing: word).isEmpty, "the store shows \(word): \(files(in: store, containing: word))")
        }
    }

    /// Issue 29, message 7: turning encryption on said "Read 0 blobs … Nothing new … deleted 1
    /// blob" while it received another device's memo and deleted every plain blob; a first sync
    /// said "wrote 3 blobs; 0 blobs in the store". The counts are the command's own: what the
    /// plain read received, every blob deleted (the plain ones collected), every blob written
    /// (the key blob too), and the listing named as the store found at the start.
    @Test func turningEncryptionOnCountsWhatTheWholeCommandDid() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, b, store) = (sandbox.at("a"), sandbox.at("b"), sandbox.at("store"))
        _ = try sandbox.newMemo("on a", library: a)
        let first = try sandbox.ok(["sync", "--store", store], library: a).stdout
        #expect(first.contains("0 blobs listed at the start"), "\(first)")
        _ = try sandbox.newMemo("a memo only b has", library: b)
        try sandbox.ok(["sync", "--store", store], library: b)
        let before = sandbox.contents(of: store)
        let result = try sandbox.ok(["sync", "--store", store, "--encrypt", "--json"], library: a,
                                   environment: ["MEMO_PASSPHRASE": "correct horse battery staple"])
        let after = sandbox.contents(of: store)
        let report = try result.object()
        let removed = Set(before.keys).subtracting(after.keys)
        let added = Set(after.keys).subtracting(before.keys)
        #expect(!removed.isEmpty && !added.isEmpty)
        #expect(report["blobsDeleted"] as? Int == removed.count, "\(report), removed \(removed.sorted())")
        let written = try #require(report["blobsWritten"] as? Int)
        #expect(written >= added.count && written <= added.count + Set(before.keys).intersection(after.keys).count,
                "\(written) written, \(added.count) files added")
        #expect(report["blobsListed"] as? Int == before.count)
        #expect((report["operationsApplied"] as? Int ?? 0) >= "a memo only b has".count, "\(report)")
        #expect((report["blobsRead"] as? Int ?? 0) > 0)
        #expect(try sandbox.ok(["list"], library: a).stdout.contains("a memo only b has"))
        // The text summary says the same: received, not "Nothing new".
        let (c, other) = (sandbox.at("c"), sandbox.at("other"))
        _ = try sandbox.newMemo("on c", library: c)
        try sandbox.ok(["sync", "--store", other], library: c)
        _ = try sandbox.newMemo("on b, for c", library: b)
        try sandbox.ok(["sync", "--store", other], library: b)
        let summary = try sandbox.ok(["sync", "--store", other, "--encrypt"], library: c,
                                     environment: ["MEMO_PASSPHRASE": "correct horse battery staple"]).stdout
        #expect(summary.contains("Received") && !summary.contains("Nothing new") && !summary.contains("Read 0 blobs"), "\(summary)")
    }

    /// Issue 29, message 2: on a plain store, `store passphrase` and `store rotate-key` said
    /// "the store is encrypted: a passphrase is needed". They say it is not encrypted, ask for
    /// nothing and change nothing.
    @Test func passphraseAndRotateKeyOnAPlainStoreSayItIsNotEncrypted() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (library, store) = (sandbox.at("library"), sandbox.at("store"))
        _ = try sandbox.newMemo("plain memo", library: library)
        try sandbox.ok(["sync", "--store", store], library: library)
        let before = sandbox.contents(of: store)
        for action in ["passphrase", "rotate-key"] {
            try sandbox.fails(["store", action], status: 1, containing: ["is not encrypted", "memo sync --encrypt"], library: library,
                              environment: ["MEMO_PASSPHRASE": "correct horse battery staple", "MEMO_NEW_PASSPHRASE": "another long passphrase"])
            let korean = try sandbox.fails(["store", action], status: 1, library: library, environment: ["LANG": "ko_KR.UTF-8"])
            #expect(korean.stderr.contains("암호화되어 있지 않습니다"), "\(korean)")
        }
        #expect(sandbox.contents(of: store) == before)
        #expect(!FileManager.default.fileExists(atPath: library + "/store-key"))
    }

    /// Issue 29, message 8: a wrong passphrase on a new device exits 3, "nothing was read or
    /// written", and used to leave a new empty library behind. A first sync that fails with
    /// nothing received removes the library it created (and only what it created). And a
    /// passphrase given with a remembered key was silently ignored.
    @Test func aFailedFirstSyncLeavesNoNewLibrary() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store) = (sandbox.at("a"), sandbox.at("store"))
        _ = try sandbox.newMemo("only on a", library: a)
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: ["MEMO_PASSPHRASE": "correct horse battery staple"])
        let wrong = ["MEMO_PASSPHRASE": "not the passphrase"]
        // A folder that did not exist: gone again.
        let fresh = sandbox.at("fresh")
        let failed = try sandbox.fails(["sync", "--store", store], status: 3, containing: ["does not open", "removed the new library"],
                                       library: fresh, environment: wrong)
        #expect(!FileManager.default.fileExists(atPath: fresh), "\(failed)")
        // A folder the user made, with a file of theirs: the file stays, the library goes.
        let theirs = sandbox.at("theirs")
        try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: theirs + "/notes.txt", contents: Data("mine".utf8)))
        try sandbox.fails(["sync", "--store", store], status: 3, containing: ["does not open"], library: theirs, environment: wrong)
        #expect(try FileManager.default.contentsOfDirectory(atPath: theirs) == ["notes.txt"])
        // An existing library is never removed, whatever the sync does.
        // A passphrase given on purpose is checked, remembered key or not (it was ignored).
        try sandbox.fails(["sync", "--store", store], status: 3, containing: ["does not open"], library: a, environment: wrong)
        let file = sandbox.at("other-passphrase")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("not the passphrase either\n".utf8)))
        try sandbox.fails(["sync", "--passphrase-file", file], status: 3, containing: ["does not open"], library: a)
        try sandbox.ok(["sync"], library: a)
        let unreachable = try sandbox.memo(["sync", "--store", "http://127.0.0.1:9/dav"], library: a)
        #expect(unreachable.status == 1 && !unreachable.stderr.contains("removed"), "\(unreachable)")
        #expect(try sandbox.ok(["list"], library: a).stdout.contains("only on a"))
        // With the right passphrase the new device gets the memo.
        try sandbox.ok(["sync", "--store", store], library: fresh, environment: ["MEMO_PASSPHRASE": "correct horse battery staple"])
        #expect(try sandbox.ok(["list"], library: fresh).stdout.contains("only on a"))
    }

    @Test func thePassphraseChangesAndTheOtherDeviceAsksForTheNewOne() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = sandbox.at("store")
        let (a, b) = (sandbox.at("a"), sandbox.at("b"))
        let file = sandbox.at("passphrase.txt")
        try Data("first passphrase\n".utf8).write(to: URL(fileURLWithPath: file))
        _ = try sandbox.newMemo("shared words", library: a)
        try sandbox.ok(["sync", "--store", store, "--encrypt", "--passphrase-file", file], library: a)
        try sandbox.ok(["sync", "--store", store, "--passphrase-file", file], library: b)
        // A changes it; a short new one is refused first.
        try sandbox.fails(["store", "passphrase"], status: 3, containing: ["too short"], library: a,
                          environment: ["MEMO_NEW_PASSPHRASE": "short"])
        try sandbox.ok(["store", "passphrase"], library: a, environment: ["MEMO_NEW_PASSPHRASE": "second passphrase"])
        try sandbox.ok(["sync"], library: a)
        // B's remembered key no longer opens it; the old passphrase neither; the new one does.
        try sandbox.fails(["sync"], status: 3, containing: ["changed"], library: b)
        try sandbox.fails(["sync", "--passphrase-file", file], status: 3, containing: ["does not open"], library: b)
        try sandbox.ok(["sync"], library: b, environment: ["MEMO_PASSPHRASE": "second passphrase"])
        try sandbox.ok(["sync"], library: b)
        // The new passphrase from a file (`--new-passphrase-file`, its last newline dropped).
        let third = sandbox.at("third.txt")
        try Data("third passphrase\n".utf8).write(to: URL(fileURLWithPath: third))
        try sandbox.ok(["store", "passphrase", "--new-passphrase-file", third], library: b)
        try sandbox.ok(["sync"], library: b)
        try sandbox.fails(["sync"], status: 3, containing: ["changed"], library: a)
        try sandbox.ok(["sync", "--passphrase-file", third], library: a)
        try sandbox.ok(["store", "rotate-key"], library: b)
        _ = try sandbox.newMemo("after rotation", library: b)
        try sandbox.ok(["sync"], library: b)
        try sandbox.ok(["sync"], library: a)
        #expect(try sandbox.ok(["list"], library: a).stdout.contains("after rotation"))
        try sandbox.fails(["store", "shuffle"], status: 2, containing: ["passphrase, rotate-key"], library: a)
    }
}
