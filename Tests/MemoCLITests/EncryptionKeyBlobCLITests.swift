// The store's key blob and the library's copy of it, through `memo`: a passphrase change or a
// rotation is never undone by a store that loses (or rolls back) its key blob before the next
// sync; a damaged key blob is replaced by a library's intact copy; entries skipped in an
// encrypted store are named as the store lists them; a damaged `store-key` is said to be damaged.

import Foundation
import Testing

@Suite struct EncryptionKeyBlobCLITests {
    static let old = ["MEMO_PASSPHRASE": "old-passphrase-1"]
    static let new = ["MEMO_PASSPHRASE": "new-passphrase-2"]

    /// The key blobs in `store` (file names, sorted).
    private func keyBlobs(in store: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store + "/memosync/v1/keys")) ?? []).filter { $0.hasSuffix(".key") }.sorted()
    }

    /// The bytes of the store's key blob `name`.
    private func keyBlob(_ name: String, in store: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: store + "/memosync/v1/keys/" + name)))
    }

    /// Everything in `store` removed, the folder kept (`rm -rf store/*`).
    private func wipe(_ store: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: store) {
            try FileManager.default.removeItem(atPath: store + "/" + name)
        }
    }

    /// Whether `file` holds `text` (its UTF-8 bytes).
    private func file(_ file: String, holds text: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: file) else { return false }
        return Data(data).range(of: Data(text.utf8)) != nil
    }

    /// `memo store passphrase` (finding 1 of the exploratory test): the old binary left the
    /// library's copy of the key blob at generation 1, so a store wiped before the next sync got
    /// generation 1 back, and the old passphrase opened the store again (exit 0), the new one
    /// did not (exit 3). The library records the new key blob before saying it is done: a wiped
    /// store gets generation 2 back, under the new passphrase only; a store rolled back to
    /// generation 1 gets generation 2 back too, and the old passphrase is refused there.
    @Test func aPassphraseChangeIsNotUndoneByAWipedOrRolledBackStore() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store) = (sandbox.at("a"), sandbox.at("store"))
        _ = try sandbox.newMemo("Secret memo", library: a)
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: Self.old)
        let first = try #require(keyBlobs(in: store).first)
        let firstBytes = try keyBlob(first, in: store)
        try sandbox.ok(["store", "passphrase"], library: a, environment: ["MEMO_NEW_PASSPHRASE": "new-passphrase-2"])
        let second = try #require(keyBlobs(in: store).first)
        #expect(keyBlobs(in: store) == [second] && second.hasPrefix("0000000002-"), "\(keyBlobs(in: store))")
        let secondBytes = try keyBlob(second, in: store)
        #expect(file(a + "/encryption", holds: second), "the library did not record the new key blob")
        // Wiped before the next sync: the new key blob comes back, under the new passphrase.
        try wipe(store)
        let restored = try sandbox.ok(["sync"], library: a)
        #expect(restored.stderr.contains("no key blob"), "\(restored)")
        #expect(keyBlobs(in: store) == [second])
        #expect(try keyBlob(second, in: store) == secondBytes)
        try sandbox.fails(["sync"], status: 3, library: a, environment: Self.old)
        try sandbox.fails(["sync", "--store", store], status: 3, library: sandbox.at("b"), environment: Self.old)
        try sandbox.ok(["sync", "--store", store], library: sandbox.at("c"), environment: Self.new)
        #expect(try sandbox.ok(["list"], library: sandbox.at("c")).stdout.contains("Secret memo"))
        // Wiped, then synced first with the old passphrase: refused, nothing written.
        try wipe(store)
        try sandbox.fails(["sync"], status: 3, library: a, environment: Self.old)
        #expect(keyBlobs(in: store).isEmpty)
        // Rolled back to generation 1 alone: the old passphrase is refused (the passphrase was
        // changed), nothing is written; the remembered key puts generation 2 back.
        try FileManager.default.createDirectory(atPath: store + "/memosync/v1/keys", withIntermediateDirectories: true)
        try Data(firstBytes).write(to: URL(fileURLWithPath: store + "/memosync/v1/keys/" + first))
        let rolledBack = sandbox.contents(of: store)
        try sandbox.fails(["sync"], status: 3, containing: ["changed"], library: a, environment: Self.old)
        #expect(sandbox.contents(of: store) == rolledBack)
        let putBack = try sandbox.ok(["sync", "--quiet"], library: a)
        #expect(putBack.stderr.contains("older key blob"), "\(putBack)")
        #expect(keyBlobs(in: store).last == second)
        try sandbox.fails(["sync", "--store", store], status: 3, library: sandbox.at("d"), environment: Self.old)
        try sandbox.ok(["sync", "--store", store], library: sandbox.at("e"), environment: Self.new)
        #expect(try sandbox.ok(["list"], library: sandbox.at("e")).stdout.contains("Secret memo"))
    }

    /// `memo store rotate-key` (finding 1): the old binary's next sync after a wipe put
    /// generation 1 back, silently dropping the rotated data key. The rotated key blob comes
    /// back, and what is written after it is read by a new device.
    @Test func aRotatedKeyIsNotUndoneByAWipedStore() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store) = (sandbox.at("a"), sandbox.at("store"))
        _ = try sandbox.newMemo("Secret memo", library: a)
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: Self.old)
        try sandbox.ok(["store", "rotate-key"], library: a)
        let rotated = try #require(keyBlobs(in: store).first)
        #expect(keyBlobs(in: store) == [rotated] && rotated.hasPrefix("0000000002-"), "\(keyBlobs(in: store))")
        let rotatedBytes = try keyBlob(rotated, in: store)
        #expect(file(a + "/encryption", holds: rotated), "the library did not record the rotated key blob")
        try wipe(store)
        try sandbox.ok(["sync"], library: a)
        #expect(keyBlobs(in: store) == [rotated])
        #expect(try keyBlob(rotated, in: store) == rotatedBytes)
        _ = try sandbox.newMemo("After the rotation", library: a)
        try sandbox.ok(["sync"], library: a)
        let b = sandbox.at("b")
        let received = try sandbox.ok(["sync", "--store", store], library: b, environment: Self.old)
        #expect(!received.stdout.contains("Skipped"), "\(received)")
        let list = try sandbox.ok(["list"], library: b).stdout
        #expect(list.contains("Secret memo") && list.contains("After the rotation"), "\(list)")
    }

    /// Finding 2: one flipped byte in the store's key blob stopped every device's sync for good
    /// ("damaged", exit 1), although each library held an intact copy. A library holding the
    /// same key blob writes its copy back (said under --quiet too) and syncs; a new device,
    /// with no copy, is told what to do, and syncs once a device with one has synced.
    @Test func aDamagedKeyBlobIsReplacedByALibrarysCopy() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, b, c, store) = (sandbox.at("a"), sandbox.at("b"), sandbox.at("c"), sandbox.at("store"))
        _ = try sandbox.newMemo("Shared memo", library: a)
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: Self.old)
        try sandbox.ok(["sync", "--store", store], library: b, environment: Self.old)
        let name = try #require(keyBlobs(in: store).first)
        let path = store + "/memosync/v1/keys/" + name
        let intact = try keyBlob(name, in: store)
        func damage() throws {
            var bytes = intact
            bytes[60] ^= 1
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        try damage()
        // A new device has no copy: it is told to sync a device that has one.
        try sandbox.fails(["sync", "--store", store], status: 1, containing: ["damaged", name, "memo sync"], library: c, environment: Self.old)
        #expect(try keyBlob(name, in: store) != intact)
        let repaired = try sandbox.ok(["sync", "--quiet"], library: a)
        #expect(repaired.stderr.contains("damaged") && repaired.stderr.contains(name), "\(repaired)")
        #expect(try keyBlob(name, in: store) == intact)
        #expect(keyBlobs(in: store) == [name])
        try sandbox.ok(["sync"], library: b)
        try sandbox.ok(["sync", "--store", store], library: c, environment: Self.old)
        #expect(try sandbox.ok(["list"], library: c).stdout.contains("Shared memo"))
        // The other device's copy does as well, with its passphrase given (no remembered key).
        try damage()
        try FileManager.default.removeItem(atPath: b + "/store-key")
        try sandbox.ok(["sync"], library: b, environment: Self.old)
        #expect(try keyBlob(name, in: store) == intact)
    }

    /// Finding 3: in an encrypted store, skipped entries were reported under their plain
    /// `memosync/v1/` keys (and unmasked hashes), names the store does not hold. Each skipped
    /// entry (a truncated segment, a symbolic link, a junk file) is named by the key the store
    /// lists, in the JSON report and the text one.
    @Test func skippedEntriesOfAnEncryptedStoreAreNamedAsTheStoreListsThem() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store) = (sandbox.at("a"), sandbox.at("store"))
        _ = try sandbox.newMemo("memo one", library: a)
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: Self.old)
        _ = try sandbox.newMemo("memo two", library: a)
        try sandbox.ok(["sync"], library: a)
        let root = store + "/memosync/e1"
        let replica = try #require(try FileManager.default.contentsOfDirectory(atPath: root).first)
        let segments = try FileManager.default.contentsOfDirectory(atPath: root + "/" + replica + "/segments").sorted()
        let last = try #require(segments.last)
        let truncated = root + "/" + replica + "/segments/" + last
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: truncated))
        try handle.truncate(atOffset: 300)
        try handle.close()
        try FileManager.default.createSymbolicLink(
            atPath: root + "/" + replica + "/segments/0000000099-0000000100-aaaaaaaaaaaaaaaa.seg", withDestinationPath: "/etc/passwd")
        try Data("junk\n".utf8).write(to: URL(fileURLWithPath: root + "/junk.seg"))
        let expected: Set<String> = [
            "memosync/e1/\(replica)/segments/\(last)", "memosync/e1/\(replica)/segments/0000000099-0000000100-aaaaaaaaaaaaaaaa.seg",
            "memosync/e1/junk.seg",
        ]
        let report = try sandbox.ok(["sync", "--store", store, "--json"], library: sandbox.at("b"), environment: Self.old).object()
        let skipped = try #require(report["skipped"] as? [[String: Any]])
        let keys = skipped.compactMap { $0["key"] as? String }
        #expect(Set(keys) == expected, "\(skipped)")
        for key in keys {
            var status = stat()
            #expect(lstat(store + "/" + key, &status) == 0, "\(key) is not in the store")
        }
        // The reason of the one read names it the same way.
        let reason = skipped.first { ($0["key"] as? String)?.hasSuffix(last) == true }.map { "\($0)" } ?? ""
        #expect(!reason.contains("memosync/v1/"), "\(reason)")
        let text = try sandbox.ok(["sync", "--store", store], library: sandbox.at("c"), environment: Self.old).stdout
        for key in expected { #expect(text.contains(key), "\(key) missing from:\n\(text)") }
        #expect(!text.contains("memosync/v1/"), "\(text)")
    }

    /// Finding 4: a byte flipped in the library's `store-key` said "the store's passphrase was
    /// changed on another device". It says the remembered key is damaged (exit 3, the passphrase
    /// is needed, nothing written), wherever the byte is and when the file does not decode; the
    /// passphrase given is remembered again.
    @Test func aDamagedRememberedKeyIsSaidToBeDamaged() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (a, store) = (sandbox.at("a"), sandbox.at("store"))
        _ = try sandbox.newMemo("Secret memo", library: a)
        try sandbox.ok(["sync", "--store", store, "--encrypt"], library: a, environment: Self.old)
        let keyFile = a + "/store-key"
        let intact = Array(try Data(contentsOf: URL(fileURLWithPath: keyFile)))
        // In the salt, in the derived key, and cut short.
        for damaged in [{ var b = intact; b[10] ^= 1; return b }(), { var b = intact; b[b.count - 1] ^= 0x80; return b }(), Array(intact.dropLast())] {
            try Data(damaged).write(to: URL(fileURLWithPath: keyFile))
            let before = sandbox.contents(of: store)
            let failed = try sandbox.fails(["sync"], status: 3, containing: ["damaged", "store-key"], library: a)
            #expect(!failed.stderr.contains("another device"), "\(failed)")
            #expect(sandbox.contents(of: store) == before)
            try sandbox.ok(["sync"], library: a, environment: Self.old)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: keyFile))) == intact)
            try sandbox.ok(["sync"], library: a)
        }
        // A passphrase changed on another device still says so.
        try sandbox.ok(["sync", "--store", store], library: sandbox.at("b"), environment: Self.old)
        try sandbox.ok(["store", "passphrase"], library: sandbox.at("b"), environment: ["MEMO_NEW_PASSPHRASE": "new-passphrase-2"])
        let changed = try sandbox.fails(["sync"], status: 3, containing: ["changed on another device"], library: a)
        #expect(!changed.stderr.contains("damaged"), "\(changed)")
    }
}
