// `memo sync --encrypt`, `memo store passphrase`, and the "Done when" of issue 16: two libraries
// sync an encrypted store folder, converge, and no memo text appears in any store file.

import Foundation
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
        for word in ["Groceries", "oat milk", "diary", "4711", "Meeting", "Ana"] {
            #expect(files(in: store, containing: word).isEmpty, "the store shows \(word): \(files(in: store, containing: word))")
        }
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
        try sandbox.ok(["store", "rotate-key"], library: b)
        _ = try sandbox.newMemo("after rotation", library: b)
        try sandbox.ok(["sync"], library: b)
        try sandbox.ok(["sync"], library: a)
        #expect(try sandbox.ok(["list"], library: a).stdout.contains("after rotation"))
        try sandbox.fails(["store", "shuffle"], status: 2, containing: ["passphrase, rotate-key"], library: a)
    }
}
