// Two libraries syncing through one store folder, each run of memo a real process.

import Foundation
import Testing

/// Two libraries, A and B, and the store folder they share.
private struct TwoDevices {
    let sandbox: Sandbox
    let store: String

    init(_ sandbox: Sandbox) {
        self.sandbox = sandbox
        store = sandbox.at("store")
    }

    func library(_ name: String) -> String { sandbox.at("library-\(name)") }

    @discardableResult
    func run(_ name: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        try sandbox.ok(arguments, library: library(name), sourceLocation: sourceLocation)
    }

    /// `memo sync --json` on `name`, parsed.
    @discardableResult
    func sync(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try run(name, ["sync", "--store", store, "--json"], sourceLocation: sourceLocation).object()
    }

    func replica(_ name: String) throws -> String {
        try #require(try run(name, ["status", "--json"]).object()["replica"] as? String)
    }

    /// What a library shows: its list, its trash and every memo, as JSON text (sorted keys, so
    /// equal JSON is equal text).
    func view(_ name: String, memos: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        var outputs = [
            try run(name, ["list", "--json"], sourceLocation: sourceLocation).stdout,
            try run(name, ["trash", "--json"], sourceLocation: sourceLocation).stdout,
        ]
        for memo in memos { outputs.append(try run(name, ["show", memo, "--json"], sourceLocation: sourceLocation).stdout) }
        return outputs
    }

    /// The segment files of `replica` in the store.
    func segments(of replica: String) throws -> [String] {
        let folder = store + "/memosync/v1/\(replica)/segments"
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".seg") }.sorted().map { folder + "/" + $0 }
    }

    /// Every segment in the store, under every replica id (a library publishes under the id of
    /// each session that made edits).
    func allSegments() throws -> [String] {
        let root = store + "/memosync/v1"
        var result: [String] = []
        for replica in try FileManager.default.contentsOfDirectory(atPath: root).sorted() {
            guard FileManager.default.fileExists(atPath: root + "/\(replica)/segments") else { continue }
            result += try segments(of: replica)
        }
        return result
    }
}

private func skipped(_ report: [String: Any]) -> [(key: String, kind: String, reason: String)] {
    (report["skipped"] as? [[String: Any]] ?? []).map {
        ($0["key"] as? String ?? "", $0["kind"] as? String ?? "", $0["reason"] as? String ?? "")
    }
}

@Suite("memo sync between two libraries")
struct SyncTests {
    @Test(
        "concurrent offline edits, and a delete against an edit, converge in every sync order",
        arguments: [
            ["A", "B", "A"], ["B", "A", "B"], ["A", "B", "A", "B"], ["B", "A", "B", "A"], ["A", "A", "B", "B", "A", "A"],
        ])
    func concurrentEditsConverge(order: [String]) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let devices = TwoDevices(sandbox)

        // A writes two memos; both libraries get them.
        let shopping = try sandbox.newMemo("Shopping\nmilk", library: devices.library("A"))
        let plans = try sandbox.newMemo("Plans\nsee the sea", library: devices.library("A"))
        try devices.sync("A")
        let first = try devices.sync("B")
        #expect(first["operationsApplied"] as? Int ?? 0 > 0)
        #expect(try devices.view("A", memos: [shopping, plans]) == devices.view("B", memos: [shopping, plans]))

        // Offline: both edit the same memo at different places and at the same place; A deletes
        // the memo B edits.
        try devices.run("A", ["edit", shopping, "--insert", "9", "oat "])
        try devices.run("A", ["edit", shopping, "--insert", "0", "[A] "])
        try devices.run("B", ["edit", shopping, "--insert", "13", ", eggs"])
        try devices.run("B", ["edit", shopping, "--insert", "0", "[B] "])
        try devices.run("A", ["delete", plans])
        try devices.run("B", ["edit", plans, "--insert", "5", " for May"])
        let memoC = try sandbox.newMemo("From B", library: devices.library("B"))

        for name in order { try devices.sync(name) }

        let memos = [shopping, plans, memoC]
        let viewA = try devices.view("A", memos: memos)
        let viewB = try devices.view("B", memos: memos)
        #expect(viewA == viewB, "order \(order): the libraries differ")

        // Nothing was lost: both insertions at the start are whole, one after the other.
        let text = try #require(try devices.run("A", ["show", shopping, "--json"]).object()["text"] as? String)
        #expect(text == "[A] [B] Shopping\noat milk, eggs" || text == "[B] [A] Shopping\noat milk, eggs", "\(text)")
        let planned = try devices.run("B", ["show", plans, "--json"]).object()
        #expect(planned["text"] as? String == "Plans for May\nsee the sea")
        // The notebook's policy: an edit the deleter had not seen brings the memo back.
        #expect(planned["status"] as? String == "active")
        #expect(try devices.run("A", ["show", plans, "--json"]).object()["status"] as? String == "active")
        #expect(try devices.run("A", ["show", memoC]).stdout == "From B")
        for name in ["A", "B"] {
            #expect(try devices.run(name, ["status", "--json"]).object()["unsyncedEdits"] as? Int == 0, "\(name) has unsynced edits")
        }
    }

    @Test("memo sync keeps the folder store's listing cache in the library: new blobs still show, a damaged cache is rebuilt")
    func listingCacheInTheLibrary() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let devices = TwoDevices(sandbox)
        // Enough folders that a listing changes the 64 records that make the file worth writing.
        for index in 0..<70 {
            try FileManager.default.createDirectory(atPath: devices.store + "/memosync/v1/empty-\(index)", withIntermediateDirectories: true)
        }
        _ = try sandbox.newMemo("First", library: devices.library("A"))
        try devices.sync("A")
        try devices.sync("B")
        let cache = devices.library("B") + "/store-listing-cache"
        #expect(FileManager.default.fileExists(atPath: cache))
        let second = try sandbox.newMemo("Second", library: devices.library("A"))
        try devices.sync("A")
        try devices.sync("B")
        #expect(try devices.run("B", ["show", second]).stdout == "Second")
        // A damaged cache is ignored (the sync succeeds and receives) and written again.
        try Data(repeating: 0x55, count: 100).write(to: URL(fileURLWithPath: cache))
        let third = try sandbox.newMemo("Third", library: devices.library("A"))
        try devices.sync("A")
        try devices.sync("B")
        #expect(try devices.run("B", ["show", third]).stdout == "Third")
        #expect(try Data(contentsOf: URL(fileURLWithPath: cache)).prefix(4) == Data("MSLC".utf8))
    }

    @Test("store URLs: a password never echoed, a port out of range or an IPv6 literal a usage error, no raw URL error codes")
    func storeURLMessages() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        _ = try sandbox.newMemo("hello", library: library)
        let password = try sandbox.fails(["sync", "--store", "http://me:topsecret99@127.0.0.1:9/dav"], status: 2, containing: ["•••"], library: library)
        #expect(!password.stderr.contains("topsecret99"), "\(password)")
        try sandbox.fails(["sync", "--store", "http://127.0.0.1:99999/dav"], status: 2, containing: ["65535"], library: library)
        // Linux's URLSession cannot reach an IPv6 literal: refused when read, with the way around.
        try sandbox.fails(["sync", "--store", "http://[::1]:9/dav"], status: 2, containing: ["IPv6", "localhost"], library: library)
        // Nothing listens on port 9: the sync fails as a connection refused, in words.
        let refused = try sandbox.fails(["sync", "--store", "http://localhost:9/dav"], status: 1, containing: ["refused the connection"], library: library)
        #expect(!refused.stderr.contains("Domain") && !refused.stderr.contains("-100"), "\(refused)")
    }

    @Test("damaged, partial, foreign and newer-version blobs are skipped and reported; syncs still converge")
    func badBlobsAreSkipped() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let devices = TwoDevices(sandbox)
        let manager = FileManager.default
        let id = try sandbox.newMemo("Shared\nfirst line", library: devices.library("A"))
        try devices.sync("A")
        let segment = try #require(try devices.allSegments().first)
        // The id A's memo was made under (the session of `memo new`), from the segment's path.
        let replicaA = segment.components(separatedBy: "/memosync/v1/")[1].components(separatedBy: "/")[0]
        let good = try Data(contentsOf: URL(fileURLWithPath: segment))
        let root = devices.store + "/memosync/v1"

        // A sync client kept a good conflicted copy and damaged the original (one bit flipped).
        let conflicted = segment.replacingOccurrences(of: ".seg", with: " (B's conflicted copy 2026-01-02).seg")
        try good.write(to: URL(fileURLWithPath: conflicted))
        var flipped = good
        flipped[flipped.count / 2] ^= 0x10
        try flipped.write(to: URL(fileURLWithPath: segment))
        // Another replica's segment cut short (still downloading), and one from a newer MemoSync
        // (format version 15 in the envelope's low nibble of byte 2).
        let short = root + "/00000000000000aa/segments/0000000000-0000000005-0123456789abcdef.seg"
        try manager.createDirectory(atPath: short.components(separatedBy: "/segments/")[0] + "/segments", withIntermediateDirectories: true)
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: short))
        let newer = root + "/00000000000000bb/segments/0000000000-0000000005-0123456789abcdef.seg"
        try manager.createDirectory(atPath: newer.components(separatedBy: "/segments/")[0] + "/segments", withIntermediateDirectories: true)
        var newVersion = good
        newVersion[2] = newVersion[2] | 0x0F
        try newVersion.write(to: URL(fileURLWithPath: newer))
        // Files that are not blobs: a stray note, and names partial downloads and temporary
        // files have (never listed), an empty file, a file outside MemoSync's folder.
        try Data("notes".utf8).write(to: URL(fileURLWithPath: root + "/README.txt"))
        try Data("junk".utf8).write(to: URL(fileURLWithPath: root + "/\(replicaA)/segments/garbage.seg"))
        for name in [".memosync-tmp-1234", "0000000000-0000000009-0123456789abcdef.seg.tmp", "0000000000-0000000009-0123456789abcdef.seg.part"] {
            try Data("partial".utf8).write(to: URL(fileURLWithPath: root + "/\(replicaA)/segments/" + name))
        }
        try Data().write(to: URL(fileURLWithPath: root + "/\(replicaA)/segments/0000000000-0000000009-0123456789abcdef.seg"))
        try Data("unrelated".utf8).write(to: URL(fileURLWithPath: devices.store + "/unrelated.txt"))

        let report = try devices.sync("B")
        let reasons = Dictionary(skipped(report).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let key = { (path: String) in String(path.dropFirst(devices.store.count + 1)) }
        #expect(reasons[key(segment)]?.kind == "corrupt", "\(reasons)")
        #expect(reasons[key(short)]?.kind == "incomplete", "\(reasons)")
        #expect(reasons[key(newer)]?.kind == "unknownVersion", "\(reasons)")
        #expect(reasons[key(newer)]?.reason.contains("version 15") == true, "\(reasons)")
        #expect(reasons["memosync/v1/README.txt"]?.kind == "notMemoSync", "\(reasons)")
        #expect(reasons["memosync/v1/\(replicaA)/segments/garbage.seg"]?.kind == "notMemoSync", "\(reasons)")
        #expect(reasons[key(conflicted)] == nil, "the good copy was not used: \(reasons)")
        #expect(!reasons.keys.contains { $0.contains("tmp") || $0.contains(".part") || $0.contains("unrelated") }, "\(reasons)")
        #expect(reasons.count == 5, "\(reasons)")
        #expect((report["errors"] as? [Any])?.isEmpty == true)
        // B got A's memo from the conflicted copy.
        #expect(try devices.run("B", ["show", id]).stdout == "Shared\nfirst line")

        // The human summary of the next sync names them no more: they were named once.
        let human = try devices.run("B", ["sync"]).stdout
        #expect(human.contains("skipped as before") && !human.contains("00000000000000bb"), "\(human)")

        // Both keep syncing: edits cross in both directions despite the bad blobs.
        try devices.run("B", ["edit", id, "--insert", "17", "\nfrom B"])
        try devices.run("A", ["edit", id, "--insert", "0", "A: "])
        try devices.sync("A")
        try devices.sync("B")
        let again = try devices.sync("A")
        // Skipped blobs are counted, not named again (a changed one would be read again).
        #expect(skipped(again).isEmpty && (again["skippedAgain"] as? Int ?? 0) > 0, "\(again)")
        #expect(try devices.view("A", memos: [id]) == devices.view("B", memos: [id]))
        #expect(try devices.run("A", ["show", id]).stdout == "A: Shared\nfirst line\nfrom B")
    }

    @Test("a copied library never shares a replica id with its original, and both copies converge")
    func copiedLibraryConverges() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let devices = TwoDevices(sandbox)
        let id = try sandbox.newMemo("Original", library: devices.library("A"))
        try devices.sync("A")
        // Copy A's library folder wholesale, as a backup restore or a disk clone would.
        try FileManager.default.copyItem(atPath: devices.library("A"), toPath: devices.library("B"))
        // A copy (whose files are not those the seal names) opens under a fresh id, so the
        // copies' edits never collide under one id.
        try devices.run("A", ["edit", id, "--insert", "8", " by A"])
        try devices.run("B", ["edit", id, "--insert", "0", "B: "])
        #expect(try devices.replica("A") != devices.replica("B"))
        try devices.sync("A")
        try devices.sync("B")
        try devices.sync("A")
        #expect(try devices.view("A", memos: [id]) == devices.view("B", memos: [id]))
        #expect(try devices.run("A", ["show", id]).stdout == "B: Original by A")
    }
}
