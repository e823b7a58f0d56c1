import Foundation
import MemoCRDT
import MemoNotes
import TestSupport
import Testing

@testable import MemoSync

/// A large state file is checked (checksums, and every text as UTF-8) on a thread of its own
/// while the calling thread decodes it (LibraryCore+OpenChecks.swift). What it accepts and what
/// it refuses, and the words of each refusal, must be those of a decoding on one thread.
@Suite struct OpenChecksBesideTests {
    /// A state file of about 1.3 MB (over the 1 MiB from which checks run beside): 500 memos of
    /// texts in three scripts, some edited twice.
    static let stateFile: [UInt8] = {
        var notebook = Notebook(replica: ReplicaID(0x5EED))
        let words = ["note", "메모", "ノート", "café", "naïve", "日本語", "한국어", "résumé"]
        for index in 0..<500 {
            let id = MemoID(high: 1, low: UInt64(index))
            let text = (0..<300).map { words[($0 * 7 + index) % words.count] }.joined(separator: " ")
            try! notebook.createMemo(id, text: "Memo \(index)\n" + text, wallMilliseconds: UInt64(1_000 + index))
            if index % 3 == 0 {
                try! notebook.edit(id, replacingUTF16: 0..<0, with: "Edited \(index) ", wallMilliseconds: UInt64(5_000 + index))
            }
        }
        return (try! LibraryCore.encodeState(generation: 2, notebook: notebook, syncState: SyncState()).state)
    }()

    /// Where the notebook state is in a state file, and its frame.
    static func notebookFrame(_ bytes: [UInt8]) throws -> (file: BlobEnvelope.Frame, notebook: BlobEnvelope.Frame) {
        let file = try BlobEnvelope.Frame(bytes, in: bytes.indices, kind: .localFile, versions: 1...LibraryCore.formatVersion)
        var reader = ByteReader(bytes, from: file.body.lowerBound, to: file.body.upperBound)
        _ = try reader.byte()
        _ = try reader.varint()
        _ = try reader.uint64LittleEndian()
        _ = try reader.lengthPrefixedRange()
        let notebookRange = try reader.lengthPrefixedRange()
        return (file, try Notebook.stateFrame(bytes, in: notebookRange))
    }

    /// Writes both checksums again (the notebook state's, then the file's), as a file damaged
    /// by a bug rather than by the disk would hold them.
    static func resealed(_ bytes: [UInt8]) throws -> [UInt8] {
        var bytes = bytes
        let (file, notebook) = try notebookFrame(bytes)
        func store(_ checksum: UInt32, at offset: Int) {
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt32(index))) }
        }
        store(CRC32C.checksum(bytes, notebook.checksummed), at: notebook.checksummed.upperBound)
        store(CRC32C.checksum(bytes, file.checksummed), at: file.checksummed.upperBound)
        return bytes
    }

    /// The outcome of decoding `bytes` checked beside (from 0 bytes) or on one thread (never
    /// beside): the notebook's encoding (its size and checksum, to keep a failure's message
    /// short), or the refusal's words.
    static func outcome(_ bytes: [UInt8], beside: Bool) -> Result<String, ReplicaError> {
        do throws(ReplicaError) {
            let encoded = try LibraryCore.decodeState(bytes, checksBesideFromBytes: beside ? 0 : .max).notebook.encoded()
            return .success("\(encoded.count) bytes, CRC-32C \(CRC32C.checksum(encoded, encoded.indices))")
        } catch {
            return .failure(error)
        }
    }

    @Test func aLargeStateDecodesAsOnOneThread() throws {
        let bytes = Self.stateFile
        #expect(bytes.count > LibraryCore.openChecksBesideBytesMin)
        let beside = try LibraryCore.decodeState(bytes)
        let alone = try LibraryCore.decodeState(bytes, checksBesideFromBytes: .max)
        #expect(beside.notebook.encoded() == alone.notebook.encoded())
        #expect(beside.notebook.activeMemoCount == 500)
        #expect(beside.generation == alone.generation && beside.version == alone.version)
    }

    /// Many opens at once, from every cooperative thread and more: each runs its checks beside
    /// it when a thread is free and after it when none is, and none waits for good.
    @Test func manyOpensAtOnceAllFinish() async throws {
        let expected = Self.outcome(Self.stateFile, beside: false)
        let outcomes = await withTaskGroup(of: Result<String, ReplicaError>.self) { group in
            for _ in 0..<12 { group.addTask { Self.outcome(Self.stateFile, beside: true) } }
            var all: [Result<String, ReplicaError>] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.count == 12)
        #expect(outcomes.allSatisfy { $0 == expected })
    }

    /// A text that is not UTF-8, in a file whose checksums are right: refused, in the words a
    /// decoding on one thread uses, naming the memo.
    @Test func aTextThatIsNotUTF8IsRefusedAsOnOneThread() throws {
        var bytes = Self.stateFile
        let (_, notebook) = try Self.notebookFrame(bytes)
        let texts = try #require(Notebook.textRanges(ofState: bytes, frame: notebook))
        #expect(texts.count == 500)
        for memo in [0, 250, 499] {
            bytes = Self.stateFile
            bytes[texts[memo].lowerBound + 3] = 0xFF
            bytes = try Self.resealed(bytes)
            let beside = Self.outcome(bytes, beside: true)
            #expect(beside == Self.outcome(bytes, beside: false))
            guard case let .failure(error) = beside else {
                Issue.record("memo \(memo): a text that is not UTF-8 was accepted")
                continue
            }
            #expect(error.localizedDescription.contains("not valid UTF-8"), "\(error)")
        }
    }

    /// Bytes changed at random inside the notebook state, both checksums written again:
    /// whatever decoding on one thread says, checking beside says too (randomized; the seed is
    /// printed on failure).
    @Test func randomDamageIsJudgedAsOnOneThread() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        let (_, notebook) = try Self.notebookFrame(Self.stateFile)
        var refused = 0
        for trial in 0..<60 {
            var bytes = Self.stateFile
            for _ in 0..<random.int(in: 1..<4) {
                let offset = random.int(in: notebook.body)
                bytes[offset] = trial % 2 == 0 ? UInt8.random(in: 0...255, using: &random) : bytes[offset] ^ (1 << UInt8(random.int(in: 0..<8)))
            }
            bytes = try Self.resealed(bytes)
            let beside = Self.outcome(bytes, beside: true)
            #expect(beside == Self.outcome(bytes, beside: false), "seed \(seed), trial \(trial)")
            if case .failure = beside { refused += 1 }
        }
        // Most damage is refused (a change inside a text that keeps it UTF-8 is not damage a
        // decoder can see).
        #expect(refused > 10, "seed \(seed): only \(refused) of 60 refused")
        // And a checksum left wrong is refused first, both ways, in the same words.
        var unsealed = Self.stateFile
        unsealed[notebook.body.lowerBound + 40] ^= 0x10
        #expect(Self.outcome(unsealed, beside: true) == Self.outcome(unsealed, beside: false))
    }
}
