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
}
