// `memo-bench sync`: replicas syncing a large notebook through a real local folder.
//
// A notebook of N memos (the `notebook` benchmark's, typed by three replicas) is published to a
// folder store as one snapshot. Then:
// - bootstrap: a new device's first sync (reads the snapshot, merges it, saves its library);
// - one change: a bootstrapped device edits one memo and syncs (publishes one segment);
// - receive: another bootstrapped device syncs and gets that change (reads one segment).
// Each is timed `runs` times (fresh devices for bootstrap, a new edit each time otherwise) and
// the median is reported, with the blobs and bytes the last run read and wrote.

import Foundation
import MemoCRDT
import MemoSync

enum SyncBenchmark {
    static func run(memoCount: Int, runs: Int) async throws -> Report {
        var random = BenchRandom(seed: 0x5_11C0)
        let built = try NotebookBenchmark.build(memoCount: memoCount, random: &random)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memo-bench-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let storePath = root.appendingPathComponent("store").path
        try FileManager.default.createDirectory(atPath: storePath, withIntermediateDirectories: true)
        let store = try DirectoryBlobStore(path: storePath)
        // The notebook as its writers would have published it: one snapshot.
        let snapshot = built.encoded()
        try store.write(
            key: StoreLayout.snapshotKey(replica: built.replica, totalOperations: UInt64(built.version.operationCount), bytes: snapshot),
            bytes: snapshot)

        var deviceNumber = 0
        func newDevice() throws -> Replica {
            deviceNumber += 1
            return try Replica(libraryPath: root.appendingPathComponent("device-\(deviceNumber)").path)
        }

        // Bootstrap: fresh devices.
        var bootstrapTimes: [Double] = []
        var bootstrapReport = SyncReport()
        var devices: [Replica] = []
        for _ in 0..<max(runs, 2) {
            let device = try newDevice()
            let timed = try await Measure.timed { () async throws(ReplicaError) in try await device.sync(with: store) }
            bootstrapTimes.append(timed.milliseconds)
            bootstrapReport = timed.result
            guard device.notebook.activeMemoCount == built.activeMemoCount else {
                throw BenchFailure.usage("bootstrap produced \(device.notebook.activeMemoCount) memos, not \(built.activeMemoCount)")
            }
            devices.append(device)
        }
        let writer = devices[0]
        let reader = devices[1]
        for device in devices.dropFirst(2) { await device.close() }

        // One change, published, then received.
        let target = writer.notebook.list()[memoCount / 2].id
        var publishTimes: [Double] = []
        var receiveTimes: [Double] = []
        var publishReport = SyncReport()
        var receiveReport = SyncReport()
        for run in 0..<runs {
            try writer.edit(target, replacingUTF16: 0..<0, with: "edit \(run) ")
            let published = try await Measure.timed { () async throws(ReplicaError) in try await writer.sync(with: store) }
            publishTimes.append(published.milliseconds)
            publishReport = published.result
            let received = try await Measure.timed { () async throws(ReplicaError) in try await reader.sync(with: store) }
            receiveTimes.append(received.milliseconds)
            receiveReport = received.result
        }
        guard reader.notebook.memo(target)?.text == writer.notebook.memo(target)?.text else {
            throw BenchFailure.usage("the reader did not receive the change")
        }

        var report = Report()
        report.add("benchmark", .string("sync"))
        report.add("memos", .integer(built.activeMemoCount))
        report.add("snapshot_bytes", .integer(snapshot.count))
        report.add("sync_one_change_ms", .milliseconds(Measure.median(publishTimes)))
        report.add("blobs_read", .integer(publishReport.blobsRead))
        report.add("blobs_written", .integer(publishReport.blobsWritten))
        report.add("bytes_read", .integer(publishReport.bytesRead))
        report.add("bytes_written", .integer(publishReport.bytesWritten))
        report.add("receive_one_change_ms", .milliseconds(Measure.median(receiveTimes)))
        report.add("receive_blobs_read", .integer(receiveReport.blobsRead))
        report.add("receive_bytes_read", .integer(receiveReport.bytesRead))
        report.add("receive_blobs_written", .integer(receiveReport.blobsWritten))
        report.add("bootstrap_ms", .milliseconds(Measure.median(bootstrapTimes)))
        report.add("bootstrap_blobs_read", .integer(bootstrapReport.blobsRead))
        report.add("bootstrap_bytes_read", .integer(bootstrapReport.bytesRead))
        report.add("runs", .integer(runs))
        await writer.close()
        await reader.close()
        return report
    }
}
