import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Golden bytes for every blob kind a store or a library holds (FORMAT.md): a fixed history,
/// replayed with a fixed clock and random source, must encode to these bytes exactly. A change
/// here is a format change: a new version in FORMAT.md first, and the old bytes kept below as a
/// fixture that must still decode. (Text states and deltas, kinds 1 and 2, are pinned in
/// `TextEncodingTests`.)
@Suite struct GoldenBytesTests {
    /// Two devices: one writes a memo, the other receives it and edits it, both sync.
    struct History {
        let store = InMemoryBlobStore()
        let aliceDisk = MemoryDisk()
        let alice: Replica
        let bob: Replica
        let memo: MemoID

        init() async throws {
            let environment = TestEnvironment(seed: 2026)
            alice = try Replica(disk: aliceDisk, environment: environment.environment)
            bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
            memo = try alice.createMemo(text: "Groceries\nmilk")
            environment.advance(milliseconds: 1_000)
            try alice.edit(memo, replacingUTF16: 10..<14, with: "oat milk")
            try await alice.save()
            _ = try await alice.sync(with: store)
            environment.advance(milliseconds: 60_000)
            _ = try await bob.sync(with: store)
            try bob.edit(memo, replacingUTF16: 0..<0, with: "🛒 ")
            try bob.moveToTrash(memo)
            try await bob.save()
            _ = try await bob.sync(with: store)
            environment.advance(milliseconds: 60_000)
            _ = try await alice.sync(with: store)
            try await alice.save()
        }
    }

    @Test func everyKindEncodesToItsGoldenBytes() async throws {
        let history = try await History()
        #expect(history.alice.notebook.version == history.bob.notebook.version)
        let notebookState = hexString(history.alice.notebook.encoded())
        let notebookDelta = hexString(try history.bob.notebook.changes(since: VersionVector()).encoded())
        let head = hexString(SyncHead(holds: history.alice.notebook.version, lacks: VersionVector([history.bob.notebook.replica: 3])).encoded())
        let files = try history.aliceDisk.listFiles().sorted()
        let library = try files.map { name in "\(name)=\(hexString(try history.aliceDisk.read(file: name) ?? []))" }
        let keys = history.store.keys.sorted()
        #expect(notebookState == Self.notebookState, "notebook state (kind 3) changed: \(notebookState)")
        #expect(notebookDelta == Self.notebookDelta, "notebook delta (kind 4) changed: \(notebookDelta)")
        #expect(head == Self.head, "head (kind 5) changed: \(head)")
        #expect(library == Self.library, "library files (kind 6) changed: \(library)")
        #expect(keys == Self.storeKeys, "store keys changed: \(keys)")
    }

    /// The golden bytes decode to what they encoded (and so an older version kept here must go
    /// on decoding after a format change).
    @Test(arguments: [
        (state: notebookState, delta: notebookDelta, library: library, reencoded: notebookState),
        (state: notebookState, delta: notebookDelta, library: libraryGeneration1, reencoded: notebookState),
        (state: notebookStateVersion3, delta: notebookDelta, library: library, reencoded: notebookStateVersion3CarriedOver),
        (state: notebookStateWithoutHistory, delta: notebookDeltaWithoutHistory, library: libraryWithoutHistory, reencoded: notebookStateWithoutHistory),
        (state: notebookStateWithoutHistory, delta: notebookDeltaWithoutHistory, library: libraryVersion3, reencoded: notebookStateWithoutHistory),
        (state: notebookStateVersion1, delta: notebookDeltaWithoutHistory, library: libraryVersion1, reencoded: notebookStateWithoutHistory),
    ])
    func goldenBytesDecode(state stateHex: String, delta deltaHex: String, library: [String], reencoded: String) throws {
        let state = try Notebook(decoding: bytesFromHex(stateHex), replica: ReplicaID(1))
        let delta = try NotebookDelta(decoding: bytesFromHex(deltaHex))
        var fresh = Notebook(replica: ReplicaID(2))
        try fresh.apply(delta)
        #expect(fresh.version == state.version)
        #expect(state.trash().count == 1)
        let trashed = try #require(state.trash().first)
        #expect(state.memo(trashed.id)?.text == "🛒 Groceries\noat milk")
        #expect(fresh.memo(trashed.id)?.text == "🛒 Groceries\noat milk")
        #expect(hexString(state.encoded()) == reencoded, "re-encoded in the current version")
        _ = try SyncHead(decoding: bytesFromHex(Self.head))
        // The library files open as a library holding the same notebook.
        let disk = MemoryDisk()
        for file in library {
            let parts = file.split(separator: "=", maxSplits: 1).map(String.init)
            try disk.perform(.write(file: parts[0], bytes: bytesFromHex(parts[1])))
        }
        let reopened = try Replica(disk: disk, environment: TestEnvironment(seed: 1).environment)
        #expect(reopened.notebook.version == state.version)
        #expect(reopened.notebook.memo(trashed.id)?.text == "🛒 Groceries\noat milk")
    }

    /// Libraries keep history (issue 27): the notebook state is version 4 (its history section
    /// keeps "milk", which "oat milk" replaced: one run of 4 deleted insertions retained), the
    /// delta carries "milk" as deleted content.
    static let notebookState = "6d7334820101dade9c9d279e00d00267d586a7dcc7e47017f09f9b922047726f6365726965730a6f6174206d696c6b02d8186d6d94379f4815ae982e5911e092021a0469010100320738000901000002d8186d6d94379f4815ae982e5911e09202010290e98ac5986802020002011a00020080b083c59868011ad00f010010010101046d696c6bfc6f2dc1"
    /// The same state in version 3 (history sections by counter ranges, 2026-11-29 before
    /// version 4): still decodes.
    static let notebookStateVersion3 = "6d7333830101dade9c9d279e00d00267d586a7dcc7e47017f09f9b922047726f6365726965730a6f6174206d696c6b02d8186d6d94379f4815ae982e5911e092021a0469010100320738000901000002d8186d6d94379f4815ae982e5911e09202010290e98ac5986802020002011a00020080b083c59868011ad00f01000901010115026d696c6beef6a2e8"
    /// The version 3 state encoded again before its memo is decoded: version 4, the memo's
    /// version 3 section written back as read, marked (byte count 9 << 1 | 1).
    static let notebookStateVersion3CarriedOver = "6d7334830101dade9c9d279e00d00267d586a7dcc7e47017f09f9b922047726f6365726965730a6f6174206d696c6b02d8186d6d94379f4815ae982e5911e092021a0469010100320738000901000002d8186d6d94379f4815ae982e5911e09202010290e98ac5986802020002011a00020080b083c59868011ad00f01001301010115026d696c6b172d236c"
    static let notebookDelta = "6d7341930102d8186d6d94379f4815ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e402000002010002008080a0d2958ab1d0010200020002011a010100020000808080e0868ab1d00101001a008080a01f01003f08d8186d6d94379f4815ae982e5911e09200360198010100000203800d1901088c070112f09f9b922047726f6365726965730a6d696c6b6f6174206d696c6b1cc13739"
    static let library: [String] = [
        "journal-0=6d6a87000000580f05336d73647f0200676d73415f0115ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e4010000020000808080e0868ab1d00101001a008080a01f01002b0415ae982e5911e092000203800d1900088c07001247726f6365726965730a6d696c6b6f6174206d696c6ba583857d011300000115ae982e5911e0920000000000000200348a10596d6a82000000139462956d73647a02000c6d73410400000000ca62f1d30169e8dfc1a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d396436363736326664393864333334622e73656700000000020022fcbfb56d6ada0000002f19e4216d7364d1010200636d73415b02d8186d6d94379f4815ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e401000002010002008080a0d2958ab1d0010200020002011a0101001d05d8186d6d94379f4815ae982e5911e09200360198010100f09f9b92203de0b5060169a889c9a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d396436363736326664393864333334622e736567000000000200fa538fbc",
        "state=6d736420010015ae982e5911e0920a000000000000000002000a6d733202000079afb8c41cd2a5b2",
    ]
    /// The library files before the reader generation went to 2 (2026-12-01, night): the
    /// sync state said generation 1. Still open.
    static let libraryGeneration1: [String] = [
        "journal-0=6d6a87000000580f05336d73647f0200676d73415f0115ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e4010000020000808080e0868ab1d00101001a008080a01f01002b0415ae982e5911e092000203800d1900088c07001247726f6365726965730a6d696c6b6f6174206d696c6ba583857d011300000115ae982e5911e0920000000000000100ad22f76d6d6a82000000139462956d73647a02000c6d73410400000000ca62f1d30169e8dfc1a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d396436363736326664393864333334622e736567000000000100bb5458816d6ada0000002f19e4216d7364d1010200636d73415b02d8186d6d94379f4815ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e401000002010002008080a0d2958ab1d0010200020002011a0101001d05d8186d6d94379f4815ae982e5911e09200360198010100f09f9b92203de0b5060169a889c9a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d396436363736326664393864333334622e73656700000000010063fb6888",
        "state=6d736420010015ae982e5911e0920a000000000000000001000a6d733202000079afb8c4b39ad3e3",
    ]
    /// Notebook state version 1 (before 2026-11-25 evening): still decodes.
    static let notebookStateVersion1 = "6d73318d0101dade9c9d279e00d00267d586a7dcc7e43e17f09f9b922047726f6365726965730a6f6174206d696c6b02d8186d6d94379f4815ae982e5911e092021a010036010002020103340019071c000001040002d8186d6d94379f4815ae982e5911e0920302010002008080a0d2958ab1d0010200020002011a011b020000808080e0868ab1d00101001a008080a01fae6a9e18"
    /// Notebook state version 2, from libraries before they kept history (issue 27, 2026-11-29):
    /// still decodes, and a notebook without history still encodes to it.
    static let notebookStateWithoutHistory = "6d73327701dade9c9d279e00d00267d586a7dcc7e47017f09f9b922047726f6365726965730a6f6174206d696c6b02d8186d6d94379f4815ae982e5911e092021a0469010100320738000901000002d8186d6d94379f4815ae982e5911e09202010290e98ac5986802020002011a00020080b083c59868011ad00f3b9ea25d"
    /// The delta of that history from a library without history (\"milk\" travels as a
    /// tombstone): still decodes.
    static let notebookDeltaWithoutHistory = "6d7341910102d8186d6d94379f4815ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e402000002010002008080a0d2958ab1d0010200020002011a010100020000808080e0868ab1d00101001a008080a01f01003d08d8186d6d94379f4815ae982e5911e092003601980101000002048009a2031901088c070112f09f9b922047726f6365726965730a6f6174206d696c6b648881f8"
    /// The library files of version 4 without history (before 2026-11-29): still open.
    static let libraryWithoutHistory: [String] = [
        "journal-0=6d6a85000000d92c628c6d73647d0200656d73415d0115ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e4010000020000808080e0868ab1d00101001a008080a01f0100290415ae982e5911e0920002048009a2031900088c07001247726f6365726965730a6f6174206d696c6bf7e8b4bd011300000115ae982e5911e092000000000000010079cfc8526d6a82000000139462956d73647a02000c6d73410400000000ca62f1d30169e8dfc1a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d636234323537373032663262633734632e736567000000000100aa0d99916d6ada0000002f19e4216d7364d1010200636d73415b02d8186d6d94379f4815ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e401000002010002008080a0d2958ab1d0010200020002011a0101001d05d8186d6d94379f4815ae982e5911e09200360198010100f09f9b92203de0b5060169a889c9a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d636234323537373032663262633734632e73656700000000010072a2a998",
        "state=6d736420010015ae982e5911e0920a000000000000000001000a6d733202000079afb8c4b39ad3e3",
    ]
    /// The library files of version 3 (bare journal records, before 2026-11-28): still open.
    static let libraryVersion3: [String] = [
        "journal-0=6d73637b0200656d73415d0115ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e4010000020000808080e0868ab1d00101001a008080a01f0100290415ae982e5911e0920002048009a2031900088c07001247726f6365726965730a6f6174206d696c6bf7e8b4bd011100000115ae982e5911e09200000000000071c75fe96d73637802000c6d73410400000000ca62f1d30167e8dfc1a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d636234323537373032663262633734632e736567000000000d08d2036d7363cf010200636d73415b02d8186d6d94379f4815ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e401000002010002008080a0d2958ab1d0010200020002011a0101001d05d8186d6d94379f4815ae982e5911e09200360198010100f09f9b92203de0b5060167a889c9a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d636234323537373032663262633734632e736567000000007a7980b8",
        "state=6d73631e010015ae982e5911e0920800000000000000000a6d733202000079afb8c40fb795f4",
    ]
    static let head = "6d73511502d8186d6d94379f480315ae982e5911e0921b00007705223f"
    /// The library files with a version 1 notebook state inside: still open.
    static let libraryVersion1: [String] = [
        "journal-0=6d73637b0200656d73415d0115ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e4010000020000808080e0868ab1d00101001a008080a01f0100290415ae982e5911e0920002048009a2031900088c07001247726f6365726965730a6f6174206d696c6bf7e8b4bd011100000115ae982e5911e09200000000000071c75fe96d73637802000c6d73410400000000ca62f1d30167e8dfc1a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d636234323537373032663262633734632e736567000000000d08d2036d7363cf010200636d73415b02d8186d6d94379f4815ae982e5911e09201dade9c9d279e00d00267d586a7dcc7e401000002010002008080a0d2958ab1d0010200020002011a0101001d05d8186d6d94379f4815ae982e5911e09200360198010100f09f9b92203de0b5060167a889c9a28c34000115ae982e5911e0921b01506d656d6f73796e632f76312f393265303131353932653938616531352f7365676d656e74732f303030303030303030302d303030303030303032372d636234323537373032663262633734632e736567000000007a7980b8",
        "state=6d73631e010015ae982e5911e0920800000000000000000a6d733102000040269aa60fb795f4",
    ]
    static let storeKeys: [String] = [
        "memosync/v1/489f37946d6d18d8/segments/0000000000-0000000003-bbe1bde77c675fa0.seg",
        "memosync/v1/92e011592e98ae15/segments/0000000000-0000000027-9d66762fd98d334b.seg",
    ]
}
