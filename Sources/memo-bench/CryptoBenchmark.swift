// `memo-bench crypto` and `memo-bench sync --encrypt` (issue 16).
//
// crypto: the AEAD's throughput through the platform's library (libcrypto here), sealing and
// opening 16 MiB buffers; the same through `BlobCipher` (padding, envelope, checksum) on a
// snapshot-sized blob; the bytes an encrypted blob adds at several sizes; one scrypt derivation
// at the default cost.
// sync --encrypt: the bootstrap of the `sync` benchmark's notebook from a plain folder store and
// from an encrypted one, alternating in the same run, and their ratio (target: at most 1.2).

import Foundation
import MemoCRDT
import MemoSync
import MemoSyncTesting

enum CryptoBenchmark {
    static func run(runs: Int) throws -> Report {
        let key = [UInt8](repeating: 7, count: 32)
        let nonce = [UInt8](repeating: 9, count: 12)
        let buffer = (0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sealed = try PlatformCrypto.seal(key: key, nonce: nonce, plaintext: buffer, associatedData: [])
        let seal = try Measure.medianMilliseconds(runs: runs) { () throws(EncryptionError) in
            try PlatformCrypto.seal(key: key, nonce: nonce, plaintext: buffer, associatedData: [])
        }
        let open = try Measure.medianMilliseconds(runs: runs) { () throws(EncryptionError) in
            try PlatformCrypto.open(key: key, nonce: nonce, sealed: sealed, associatedData: [])
        }
        guard open.firstResult == buffer else { throw BenchFailure.usage("the AEAD did not open what it sealed") }

        let cipher = BlobCipher(keyring: try StoreKeyring.fresh(random: SystemEncryptionRandom()), random: SystemEncryptionRandom())
        let plainKey = "memosync/v1/0123456789abcdef/snapshots/000000000001-0123456789abcdef.snap"
        let blob = Array(buffer.prefix(1_600_000))
        let blobSealed = try cipher.seal(key: plainKey, plain: blob)
        let blobSeal = try Measure.medianMilliseconds(runs: runs) { () throws(EncryptionError) in try cipher.seal(key: plainKey, plain: blob) }
        let blobOpen = try Measure.medianMilliseconds(runs: runs) { () throws(BlobRefusal) in try cipher.open(key: plainKey, bytes: blobSealed) }

        var added: [Int] = []
        let sizes = [60, 400, 2_000, 20_000, 200_000, 1_600_000]
        for size in sizes { added.append(try cipher.seal(key: plainKey, plain: Array(buffer.prefix(size))).count - size) }
        let derivation = KeyDerivation(salt: [UInt8](repeating: 1, count: 16))
        let scrypt = try Measure.medianMilliseconds(runs: min(runs, 3)) { () throws(EncryptionError) in
            try derivation.deriveKey(passphrase: "correct horse battery staple")
        }

        var report = Report()
        report.add("benchmark", .string("crypto"))
        report.add("aead", .string(PlatformCrypto.aeadName))
        report.add("library", .string(PlatformCrypto.libraryName))
        report.add("seal_gb_per_s", .number(gigabytesPerSecond(buffer.count, seal.milliseconds)))
        report.add("open_gb_per_s", .number(gigabytesPerSecond(buffer.count, open.milliseconds)))
        report.add("target_gb_per_s", .number(1))
        report.add("blob_1_6mb_seal_gb_per_s", .number(gigabytesPerSecond(blob.count, blobSeal.milliseconds)))
        report.add("blob_1_6mb_open_gb_per_s", .number(gigabytesPerSecond(blob.count, blobOpen.milliseconds)))
        report.add("blob_sizes", .integers(sizes))
        report.add("bytes_added", .integers(added))
        report.add("bytes_added_without_padding", .integer(BlobCipher.fixedOverheadBytes))
        report.add("scrypt_default_ms", .milliseconds(scrypt.milliseconds))
        report.add("runs", .integer(runs))
        return report
    }

    private static func gigabytesPerSecond(_ bytes: Int, _ milliseconds: Double) -> Double {
        Double(bytes) / 1e9 / (milliseconds / 1_000)
    }
}

enum EncryptedSyncBenchmark {
    static func run(memoCount: Int, runs: Int) async throws -> Report {
        var random = BenchRandom(seed: 0x5_11C0)
        let built = try NotebookBenchmark.build(memoCount: memoCount, random: &random)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memo-bench-sync-encrypt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let plainStore = try folderStore(root.appendingPathComponent("plain").path)
        let rawEncrypted = try folderStore(root.appendingPathComponent("encrypted").path)
        let encryptedStore = try await StoreEncryption.enable(rawEncrypted, passphrase: "benchmark passphrase")
        let snapshot = built.encoded()
        let key = StoreLayout.snapshotKey(replica: built.replica, totalOperations: UInt64(built.version.operationCount), bytes: snapshot)
        try plainStore.write(key: key, bytes: snapshot)
        try await encryptedStore.write(key: key, bytes: snapshot)

        var plainTimes: [Double] = []
        var encryptedTimes: [Double] = []
        var unlockTimes: [Double] = []
        for number in 1...runs {
            for encrypted in [false, true] {
                let device = try Replica(libraryPath: root.appendingPathComponent("device-\(number)-\(encrypted)").path)
                var store: any BlobStore = plainStore
                if encrypted {
                    let unlocked = try await Measure.timed { () async throws(EncryptionError) in
                        try await StoreEncryption.unlock(rawEncrypted, passphrase: "benchmark passphrase")
                    }
                    unlockTimes.append(unlocked.milliseconds)
                    store = unlocked.result
                }
                let timed = try await Measure.timed { () async throws(ReplicaError) in try await device.sync(with: store) }
                guard device.notebook.activeMemoCount == built.activeMemoCount else {
                    throw BenchFailure.usage("an encrypted=\(encrypted) bootstrap produced \(device.notebook.activeMemoCount) memos")
                }
                if encrypted { encryptedTimes.append(timed.milliseconds) } else { plainTimes.append(timed.milliseconds) }
                await device.close()
            }
        }
        let plain = Measure.median(plainTimes)
        let encrypted = Measure.median(encryptedTimes)
        var report = Report()
        report.add("benchmark", .string("sync --encrypt"))
        report.add("memos", .integer(built.activeMemoCount))
        report.add("snapshot_bytes", .integer(snapshot.count))
        report.add("encrypted_snapshot_bytes", .integer(try rawEncrypted.list(prefix: "memosync/e1/").map(\.sizeBytes).reduce(0, +)))
        report.add("bootstrap_plain_ms", .milliseconds(plain))
        report.add("bootstrap_encrypted_ms", .milliseconds(encrypted))
        report.add("bootstrap_ratio", .number(encrypted / plain))
        report.add("target_ratio", .number(1.2))
        report.add("unlock_ms", .milliseconds(Measure.median(unlockTimes)))
        report.add("runs", .integer(runs))
        return report
    }

    private static func folderStore(_ path: String) throws -> DirectoryBlobStore {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return try DirectoryBlobStore(path: path)
    }
}
