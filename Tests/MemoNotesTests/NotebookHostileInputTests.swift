import Foundation
import MemoCRDT
@testable import MemoNotes
import TestSupport
import Testing

/// Notebook deltas and states mutated at random and sealed with a correct checksum: what a
/// hostile or buggy writer of a shared folder can produce. Each decodes to a value or throws a
/// typed error; a decoded delta, applied to a library at any of several versions, is either
/// refused with nothing changed or leaves a notebook whose invariants hold, which encodes and
/// decodes to the same bytes and still takes the honest history. Never a crash.
@Suite struct NotebookHostileInputTests {
    /// Three replicas editing two memos and exchanging deltas: their notebooks at several
    /// moments (the libraries deltas are applied to) and the deltas they sent (the material
    /// mutated).
    private static func histories(seed: UInt64) throws -> (libraries: [Notebook], deltas: [[UInt8]], states: [[UInt8]], complete: Notebook) {
        var random = SeededRandom(seed: seed)
        var replicas = (0..<3).map { Notebook(replica: ReplicaID(UInt64($0) * 11 + 5)) }
        let memos = [MemoID(high: 1, low: UInt64(seed)), MemoID(high: 2, low: UInt64(seed))]
        try replicas[0].createMemo(memos[0], text: "first memo\nbody", wallMilliseconds: 1_000)
        try replicas[1].createMemo(memos[1], text: "second", wallMilliseconds: 1_000)
        var libraries: [Notebook] = []
        var deltas: [[UInt8]] = []
        var now: UInt64 = 2_000
        for _ in 0..<40 {
            now += 1_000
            let index = random.int(in: 0..<3)
            let id = random.pick(memos)
            if replicas[index].memo(id) != nil {
                switch random.int(in: 0..<10) {
                case 0:
                    if replicas[index].status(of: id) == .active {
                        try replicas[index].moveToTrash(id, wallMilliseconds: now)
                    } else {
                        try replicas[index].restore(id, wallMilliseconds: now)
                    }
                default:
                    if replicas[index].status(of: id) != .active { try replicas[index].restore(id, wallMilliseconds: now) }
                    let length = replicas[index].memo(id)!.text.unicodeScalars.count
                    let start = random.int(in: 0...length)
                    let end = min(length, start + random.int(in: 0...4))
                    let replacement = random.pick(["", "x", "hé", "한국", "typed words ", "👍🏽"])
                    try replicas[index].edit(id, replacingScalars: start..<end, with: replacement, wallMilliseconds: now)
                }
            }
            if random.chance(0.3) {
                let target = random.int(in: 0..<3)
                let source = random.int(in: 0..<3)
                let delta = try replicas[source].changes(since: replicas[target].version)
                deltas.append(delta.encoded())
                try replicas[target].apply(delta)
                libraries.append(replicas[target])
            }
        }
        for target in 0..<3 {
            for source in 0..<3 { try replicas[target].apply(replicas[source].changes(since: replicas[target].version)) }
        }
        deltas.append(try replicas[0].changes(since: VersionVector()).encoded())
        libraries.append(Notebook(replica: ReplicaID(99)))
        let states = [replicas[0].encoded(), libraries[libraries.count / 2].encoded()]
        return (libraries, deltas, states, replicas[0])
    }

    /// One random change to a body: a byte replaced, removed, inserted or set to an edge value,
    /// a stretch duplicated, or a stretch of another body spliced in.
    private static func mutate(_ body: inout [UInt8], donor: [UInt8], random: inout SeededRandom) {
        switch random.int(in: 0..<6) {
        case 0 where !body.isEmpty:
            body[random.int(in: 0..<body.count)] = UInt8(truncatingIfNeeded: random.next())
        case 1 where !body.isEmpty:
            body.remove(at: random.int(in: 0..<body.count))
        case 2:
            body.insert(UInt8(truncatingIfNeeded: random.next()), at: random.int(in: 0...body.count))
        case 3 where !body.isEmpty:
            body[random.int(in: 0..<body.count)] = random.pick([0x00, 0x01, 0x7F, 0x80, 0xFF])
        case 4 where body.count > 2:
            let start = random.int(in: 0..<body.count - 1)
            let end = random.int(in: start + 1...min(body.count, start + 8))
            body.insert(contentsOf: body[start..<end], at: end)
        default:
            guard !donor.isEmpty, !body.isEmpty else { return }
            let start = random.int(in: 0..<donor.count)
            let stretch = donor[start..<min(donor.count, start + random.int(in: 1...6))]
            let at = random.int(in: 0..<body.count)
            body.replaceSubrange(at..<min(body.count, at + stretch.count), with: stretch)
        }
    }

    /// The bodies of version-1 blobs of `kind`.
    /// The bodies of `blobs` (all of one version) and that version.
    private static func bodies(of blobs: [[UInt8]], kind: BlobKind) throws -> (bodies: [[UInt8]], version: UInt8) {
        var version: UInt8 = 0
        let bodies = try blobs.map { bytes in
            let (range, blobVersion) = try BlobEnvelope.open(bytes, kind: kind, versions: 1...15)
            precondition(version == 0 || version == blobVersion, "blobs of one version")
            version = blobVersion
            return Array(bytes[range])
        }
        return (bodies, version)
    }

    /// One of `bodies` changed one to three times (another of them the donor of spliced
    /// stretches), sealed as a blob of `kind` and their version with a sound checksum.
    private static func mutatedBlob(
        of bodies: (bodies: [[UInt8]], version: UInt8), kind: BlobKind, random: inout SeededRandom
    ) -> [UInt8] {
        var body = random.pick(bodies.bodies)
        for _ in 0..<random.int(in: 1...3) { mutate(&body, donor: random.pick(bodies.bodies), random: &random) }
        return BlobEnvelope.seal(kind: kind, version: bodies.version, body: body)
    }

    @Test(arguments: testSeeds(8, salt: 0x4057))
    func hostileDeltasNeverBreakALibrary(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &+ 1)
        let (libraries, deltas, _, complete) = try Self.histories(seed: seed)
        let bodies = try Self.bodies(of: deltas, kind: .notebookDelta)
        var decodedCount = 0
        for attempt in 0..<400 {
            let sealed = Self.mutatedBlob(of: bodies, kind: .notebookDelta, random: &random)
            guard let delta = try? NotebookDelta(decoding: sealed) else { continue }
            decodedCount += 1
            var library = random.pick(libraries)
            let before = library.encoded()
            let pendingBefore = library.pendingOperationCount
            do {
                try library.apply(delta)
            } catch {
                #expect(library.encoded() == before, "seed \(seed), attempt \(attempt): a refused delta changed the notebook (\(error))")
                #expect(library.pendingOperationCount == pendingBefore, "seed \(seed), attempt \(attempt)")
            }
            try library.checkInvariants()
            let encoded = library.encoded()
            let decoded = try Notebook(decoding: encoded, replica: library.replica)
            #expect(decoded.encoded() == encoded, "seed \(seed), attempt \(attempt): the encoding does not round-trip")
            // The honest history still applies (or is refused whole), leaving a valid notebook.
            _ = try? library.apply(complete.changes(since: VersionVector()))
            try library.checkInvariants()
        }
        // Not a test of nothing: some mutated deltas must get past decoding.
        #expect(decodedCount >= 5, "seed \(seed): only \(decodedCount) mutated deltas decoded")
    }

    @Test(arguments: testSeeds(8, salt: 0x5747))
    func hostileStatesDecodeToValidNotebooks(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &+ 2)
        let (_, _, states, complete) = try Self.histories(seed: seed)
        let bodies = try Self.bodies(of: states, kind: .notebookState)
        // And a state written by the version 1 encoder (which readers still accept).
        let fixture = [UInt8](try Data(contentsOf: NotebookStateVersionTests.fixtures.appendingPathComponent("notebook-state-v1.bin")))
        let versionOne = try Self.bodies(of: [fixture], kind: .notebookState)
        var decodedCount = 0
        for attempt in 0..<300 {
            let sealed = Self.mutatedBlob(of: attempt % 3 == 2 ? versionOne : bodies, kind: .notebookState, random: &random)
            guard var notebook = try? Notebook(decoding: sealed, replica: ReplicaID(77)) else { continue }
            decodedCount += 1
            // Memos are decoded lazily: reading each one's text and merging into the notebook
            // must give a typed error or a valid notebook.
            for summary in notebook.list() + notebook.trash() { _ = notebook.memo(summary.id) }
            var merged = Notebook(replica: ReplicaID(78))
            _ = try? merged.merge(notebook)
            _ = try? notebook.apply(complete.changes(since: VersionVector()))
            do {
                try notebook.checkInvariants()
                try merged.checkInvariants()
            } catch {
                Issue.record("seed \(seed), attempt \(attempt): \(error)")
            }
        }
        #expect(decodedCount > 0, "seed \(seed): no mutated state decoded")
    }
}
