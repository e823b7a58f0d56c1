import MemoCRDT
import TestSupport
import Testing

@testable import MemoNotes
@testable import MemoSync

/// A state file is built in one buffer (`LibraryCore.encodeState`, `Notebook.encoded(headroom:wrap:)`):
/// the notebook state written after room for the headers, sealed where it is, and the file's
/// header, fields and checksum put around it. Its bytes must be those of the obvious way, each
/// envelope sealed around a copy of its body (`BlobEnvelope.seal`), for notebooks of every
/// shape; and the text bodies a save keeps must be where the buffer holds them.
@Suite struct StateFileEncodingTests {
    /// A notebook of `memoCount` memos in three scripts: some edited, trashed or purged, some
    /// left as their encoded bodies (read back from a state), some decoded again and edited,
    /// some keeping deleted text (so that the state has histories).
    static func randomNotebook(seed: UInt64, memoCount: Int) throws -> Notebook {
        var random = SeededRandom(seed: seed)
        var notebook = Notebook(replica: ReplicaID(0xE1))
        notebook.keepsHistory = random.chance(0.5)
        var ids: [MemoID] = []
        var clock: UInt64 = 1_000
        func tick() -> UInt64 {
            clock += 1
            return clock
        }
        /// The UTF-16 offsets of the memo's scalar boundaries (edits never split a scalar).
        func boundaries(_ id: MemoID) -> [Int] {
            var offsets = [0]
            for scalar in notebook.memo(id)!.text.unicodeScalars { offsets.append(offsets.last! + scalar.utf16.count) }
            return offsets
        }
        for index in 0..<memoCount {
            let id = MemoID(high: seed, low: UInt64(index))
            ids.append(id)
            try notebook.createMemo(id, text: RandomText.string(random.int(in: 0...300), using: &random), wallMilliseconds: tick())
            if random.chance(0.3) {
                let offsets = boundaries(id)
                let start = random.int(in: 0..<offsets.count)
                let end = random.int(in: start...min(offsets.count - 1, start + 20))
                try notebook.edit(
                    id, replacingUTF16: offsets[start]..<offsets[end], with: RandomText.string(random.int(in: 0...10), using: &random),
                    wallMilliseconds: tick())
            }
        }
        // Read back: the memos are encoded bodies now; edit some, which decodes them again.
        let keepsHistory = notebook.keepsHistory
        notebook = try Notebook(decoding: notebook.encoded(), replica: ReplicaID(0xE1))
        notebook.keepsHistory = keepsHistory
        for id in ids where random.chance(0.3) {
            let offsets = boundaries(id)
            let start = random.int(in: 0..<offsets.count)
            try notebook.edit(id, replacingUTF16: offsets[start]..<offsets[min(offsets.count - 1, start + 5)], with: "é", wallMilliseconds: tick())
        }
        for id in ids where random.chance(0.1) { try notebook.moveToTrash(id, wallMilliseconds: tick()) }
        for id in ids where random.chance(0.05) { try notebook.purge(id, wallMilliseconds: tick()) }
        return notebook
    }

    /// The state file the obvious way: the notebook state's body sealed, then the file's.
    static func reference(generation: UInt64, notebook: Notebook, syncState: SyncState) throws -> [UInt8] {
        let state = notebook.encoded()
        let (body, version) = try BlobEnvelope.open(state, kind: .notebookState, versions: 1...15)
        let sealedState = BlobEnvelope.seal(kind: .notebookState, version: version, body: Array(state[body]))
        #expect(sealedState == state, "the notebook state sealed in place is its body sealed")
        var file = ByteWriter()
        file.byte(LibraryCore.stateTag)
        file.varint(generation)
        file.uint64LittleEndian(notebook.replica.rawValue)
        file.lengthPrefixed(LibraryCore.encodeSyncState(syncState))
        file.lengthPrefixed(sealedState)
        return BlobEnvelope.seal(kind: .localFile, version: LibraryCore.formatVersion, body: file.bytes)
    }

    @Test(arguments: testSeeds(12, salt: 0x57A7_E0F1))
    func aStateFileBuiltInOneBufferIsTheObviousOne(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var notebook = try Self.randomNotebook(seed: seed, memoCount: random.int(in: 0...40))
        var syncState = SyncState()
        syncState.lastSyncMilliseconds = random.next() >> 20
        syncState.lineage = (0..<random.int(in: 0...3)).map { ReplicaID(0x100 + UInt64($0)) }
        // Generations whose varint takes 1 to 9 bytes, so the file's fields vary in length.
        let generation = random.next() >> (random.int(in: 2...63))
        let expected = try Self.reference(generation: generation, notebook: notebook, syncState: syncState)
        #expect((try LibraryCore.encodeState(generation: generation, notebook: notebook, syncState: syncState).state) == expected, "seed \(seed)")
        let kept = (try LibraryCore.encodeState(generation: generation, keepingTextBodiesOf: &notebook, syncState: syncState).state)
        #expect(kept == expected, "seed \(seed)")
        // The bodies kept are where the file holds them: encoding again copies them (and debug
        // builds check each copy against a fresh encoding of its text), to the same bytes.
        var keptCount = 0
        for record in notebook.memos.records {
            guard let body = record.encodedTextBody, case let .materialized(text) = record.text, text.version == body.version else { continue }
            keptCount += 1
            #expect(body.bytes == kept, "seed \(seed): memo \(record.id)'s kept body is in the file's buffer")
            #expect(body.bytes[body.range].elementsEqual(text.encodedBody()), "seed \(seed): memo \(record.id)'s kept body")
        }
        #expect(keptCount == notebook.memos.records.count { if case .materialized = $0.text { true } else { false } }, "seed \(seed)")
        #expect((try LibraryCore.encodeState(generation: generation, keepingTextBodiesOf: &notebook, syncState: syncState).state) == expected, "seed \(seed)")
        // And the file reads back to the notebook.
        let decoded = try LibraryCore.decodeState(kept)
        #expect(decoded.notebook.encoded() == notebook.encoded(), "seed \(seed)")
        #expect(decoded.generation == generation, "seed \(seed)")
    }
}
