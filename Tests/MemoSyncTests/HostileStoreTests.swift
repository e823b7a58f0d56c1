import Foundation
@testable import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// What the fuzzers cannot reach: a whole store full of hostile blobs. No sync stops; each bad
/// blob is skipped and reported once; everything else converges.
@Suite struct HostileStoreTests {
    private static func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    /// The blobs of issue 18 that stopped every device (arithmetic overflow in decoders).
    static let reproducers: [(key: String, hex: String)] = [
        (
            "memosync/v1/0000000000000001/segments/0000000000-0000000001-0123456789abcdef.seg",
            "6d73413801010000000000000001010000000000000001000000000000000100000100000101001404010000000000000001feffffffffffffffff018ac81dfb"
        ),
        (
            "memosync/v1/0000000000000001/snapshots/000000000003-0123456789abcdef.snap",
            "6d73314401010000000000000001000000000000001f016101010000000000000002010002010002000001feffffffffffffffff010101000000000000000302000001010002000177ae1dd3"
        ),
    ]

    /// Copies of honest blobs with random damage and the checksum made valid again, under the
    /// names of real blobs of another (made-up) replica, plus the reproducers: two devices sync
    /// through it, converge, and report every bad blob.
    @Test func aStoreFullOfHostileBlobsNeverStopsASync() async throws {
        let seedCount = ProcessInfo.processInfo.environment["MEMOSYNC_SEEDS"].flatMap(UInt64.init) ?? 8
        let only = ProcessInfo.processInfo.environment["MEMOSYNC_SEED"].flatMap(UInt64.init)
        for seed in only.map({ [$0] }) ?? Array(1...seedCount) {
            var random = SeededRandom(seed: seed)
            let environment = TestEnvironment(seed: seed)
            let store = InMemoryBlobStore()
            let alice = try Replica(disk: MemoryDisk(), environment: environment.environment)
            let bob = try Replica(disk: MemoryDisk(), environment: environment.environment)
            let memo = try alice.createMemo(text: "Groceries\nmilk")
            try await alice.sync(with: store)
            try await bob.sync(with: store)
            try bob.edit(memo, replacingUTF16: 14..<14, with: ", eggs")
            try await bob.sync(with: store)
            // The attacker copies every honest blob, damages it, seals it again and drops it
            // under another replica's prefix, keeping its kind of name.
            var planted: [String] = []
            for key in store.keys {
                guard var bytes = store.bytes(key: key), bytes.count > 8 else { continue }
                for _ in 0..<random.int(in: 1...4) {
                    let index = random.int(in: 3..<(bytes.count - 4))
                    switch random.int(in: 0...2) {
                    case 0: bytes[index] = 0xFF
                    case 1: bytes[index] ^= UInt8(1 << random.int(in: 0...7))
                    default: bytes.replaceSubrange(index..<min(bytes.count - 4, index + 10), with: [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
                    }
                }
                // A valid checksum again over the damaged bytes.
                let body = Array(bytes.dropLast(4))
                let crc = CRC32C.checksum(body, 0..<body.count)
                bytes = body + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
                let forged = key.replacingOccurrences(of: "/\(key.split(separator: "/")[2])/", with: "/00000000000000ab/")
                try store.put(key: forged, bytes: bytes)
                planted.append(forged)
            }
            for (key, hex) in Self.reproducers {
                try store.put(key: key, bytes: Self.bytes(hex: hex))
                planted.append(key)
            }
            try alice.edit(memo, replacingUTF16: 0..<9, with: "Shopping")
            let carol = try Replica(disk: MemoryDisk(), environment: environment.environment)
            var carolReported: [String] = []
            for _ in 0..<3 {
                for replica in [alice, bob, carol] {
                    let report = try await replica.sync(with: store)
                    if replica === carol { carolReported += report.skipped.map(\.key) }
                }
            }
            let report = try await carol.sync(with: store)
            carolReported += report.skipped.map(\.key)
            // Each bad blob is reported once (then counted in skippedAgainCount), and only those.
            #expect(Set(carolReported).count == carolReported.count, "seed \(seed): reported twice: \(carolReported)")
            #expect(Set(carolReported).isSubset(of: Set(planted)), "seed \(seed): an honest blob skipped")
            let unreported = Set(planted).subtracting(carolReported).sorted()
            #expect(unreported.isEmpty, "seed \(seed): bad blobs never reported: \(unreported)")
            #expect(carolReported.count == Set(planted).count, "seed \(seed)")
            #expect(report.skippedAgainCount > 0, "seed \(seed)")
            expectConverged([alice, bob, carol], seed: seed)
            #expect(carol.notebook.memo(memo)?.text == "Shopping\nmilk, eggs", "seed \(seed) (MEMOSYNC_SEED=\(seed))")
            // Whatever carol's sync read and could not use is reported, never applied.
            #expect(report.errors.isEmpty, "seed \(seed): \(report.errors)")
        }
    }
}
