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
        let (store, snapshot) = try publishSnapshot(of: built, under: root)

        let (bootstrap, devices) = try await bootstrapDevices(count: max(runs, 2), from: store, under: root, expecting: built)
        let writer = devices[0]
        let reader = devices[1]
        for device in devices.dropFirst(2) { await device.close() }

        let target = writer.notebook.list()[memoCount / 2].id
        let (publish, receive) = try await publishAndReceive(runs: runs, changing: target, writer: writer, reader: reader, store: store)

        var report = Report()
        report.add("benchmark", .string("sync"))
        report.add("memos", .integer(built.activeMemoCount))
        report.add("snapshot_bytes", .integer(snapshot.count))
        report.add("sync_one_change_ms", .milliseconds(Measure.median(publish.times)))
        report.add("blobs_read", .integer(publish.last.blobsRead))
        report.add("blobs_written", .integer(publish.last.blobsWritten))
        report.add("bytes_read", .integer(publish.last.bytesRead))
        report.add("bytes_written", .integer(publish.last.bytesWritten))
        report.add("receive_one_change_ms", .milliseconds(Measure.median(receive.times)))
        report.add("receive_blobs_read", .integer(receive.last.blobsRead))
        report.add("receive_bytes_read", .integer(receive.last.bytesRead))
        report.add("receive_blobs_written", .integer(receive.last.blobsWritten))
        report.add("bootstrap_ms", .milliseconds(Measure.median(bootstrap.times)))
        report.add("bootstrap_blobs_read", .integer(bootstrap.last.blobsRead))
        report.add("bootstrap_bytes_read", .integer(bootstrap.last.bytesRead))
        report.add("runs", .integer(runs))
        await writer.close()
        await reader.close()
        return report
    }

    /// The times of one measured sync over the runs, and the report of the last run.
    private struct Measured {
        var times: [Double] = []
        var last = SyncReport()

        mutating func record(_ timed: (result: SyncReport, milliseconds: Double)) {
            times.append(timed.milliseconds)
            last = timed.result
        }
    }

    /// A folder store under `root` holding the notebook as its writers would have published
    /// it: one snapshot. Returns the store and the snapshot's bytes.
    private static func publishSnapshot(of built: Notebook, under root: URL) throws -> (DirectoryBlobStore, [UInt8]) {
        let storePath = root.appendingPathComponent("store").path
        try FileManager.default.createDirectory(atPath: storePath, withIntermediateDirectories: true)
        let store = try DirectoryBlobStore(path: storePath)
        let snapshot = built.encoded()
        try store.write(
            key: StoreLayout.snapshotKey(replica: built.replica, totalOperations: UInt64(built.version.operationCount), bytes: snapshot),
            bytes: snapshot)
        return (store, snapshot)
    }

    /// Bootstrap: `count` new devices (libraries under `root`), each timed on its first sync,
    /// which must bring every memo of `built`. Returns the times and the devices, still open.
    private static func bootstrapDevices(
        count: Int, from store: DirectoryBlobStore, under root: URL, expecting built: Notebook
    ) async throws -> (Measured, [Replica]) {
        var bootstrap = Measured()
        var devices: [Replica] = []
        for number in 1...count {
            let device = try Replica(libraryPath: root.appendingPathComponent("device-\(number)").path)
            bootstrap.record(try await Measure.timed { () async throws(ReplicaError) in try await device.sync(with: store) })
            guard device.notebook.activeMemoCount == built.activeMemoCount else {
                throw BenchFailure.usage("bootstrap produced \(device.notebook.activeMemoCount) memos, not \(built.activeMemoCount)")
            }
            devices.append(device)
        }
        return (bootstrap, devices)
    }

    /// One change, `runs` times: `writer` edits memo `target` and syncs (publish), then
    /// `reader` syncs (receive), each timed. The reader must end with the writer's text.
    private static func publishAndReceive(
        runs: Int, changing target: MemoID, writer: Replica, reader: Replica, store: DirectoryBlobStore
    ) async throws -> (publish: Measured, receive: Measured) {
        var publish = Measured()
        var receive = Measured()
        for run in 0..<runs {
            try writer.edit(target, replacingUTF16: 0..<0, with: "edit \(run) ")
            publish.record(try await Measure.timed { () async throws(ReplicaError) in try await writer.sync(with: store) })
            receive.record(try await Measure.timed { () async throws(ReplicaError) in try await reader.sync(with: store) })
        }
        guard reader.notebook.memo(target)?.text == writer.notebook.memo(target)?.text else {
            throw BenchFailure.usage("the reader did not receive the change")
        }
        return (publish, receive)
    }
}
