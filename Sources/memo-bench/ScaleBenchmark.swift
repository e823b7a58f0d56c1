// `memo-bench scale` (issue 28): notebooks of 10,000 and 100,000 memos of the notebook
// benchmark's mix, and what a notes app with a lifetime of notes lives by.
//
// For each size: the notebook is built (three replicas, `NotebookBenchmark.build`) and published
// to a folder store as one snapshot with its head. A writer device bootstraps from the folder; its library is
// closed and opened again in this process (`open_in_process_ms`, `rss_in_process_mb`: here
// the open reuses heap pages earlier phases freed, so its memory figure is not dependable) and
// searched (`search_first_ms` on the freshly opened
// library, `search_warm_ms` later). On a copy of its notebook every text is then decoded and all
// of them given back (`all_texts_decoded_rss_mb`, `after_release_rss_mb`: resident memory above
// the open library's after each, free heap pages returned to the system first; then every text
// decoded again, `all_texts_decoded_again_rss_mb`; issue 28's lazy texts). Then it makes `changes` single-memo edits, syncing after each
// (`sync_one_change_ms`: the median; `bytes_per_change_fraction`: the bytes those syncs wrote to
// the store, snapshots included, averaged over them, divided by the bytes of the library's
// snapshot). The library, closed, is then opened and listed by three new processes
// (`memo-bench open-library`: `open_ms`, `rss_mb`, the resident memory the open library and its
// list add, `list_first_50_ms`, each the median; what an app's launch pays, once the runtime's
// first uses are paid on a library of one memo). Last, a new device bootstraps through the folder with `latencyMilliseconds` added to
// every request (`bootstrap_list_ms`: until its notebook first lists every memo of the store's
// snapshot; `bootstrap_all_ms`: until its sync returns with every text readable).

import Foundation
import MemoCRDT
import MemoNotes
import MemoSync

enum ScaleBenchmark {
    /// The sizes measured when `--sizes` is not given.
    static let defaultSizes = [10_000, 100_000]
    /// The single-memo syncs measured when `--changes` is not given (the 1,000).
    static let defaultChanges = 1_000

    /// One JSON object: a member per size, each the figures of that size.
    static func run(sizes: [Int], changes: Int, latencyMilliseconds: Int, progress: (String) -> Void) async throws -> String {
        var members: [String] = []
        for size in sizes {
            let report = try await measure(memoCount: size, changes: changes, latencyMilliseconds: latencyMilliseconds, progress: progress)
            progress("\(size): \(report.json)")
            members.append(ReportValue.quoted(String(size)) + ": " + report.json)
        }
        var header = Report()
        header.add("benchmark", .string("scale"))
        header.add("changes", .integer(changes))
        header.add("latency_ms", .integer(latencyMilliseconds))
        let fields = header.json.dropLast()
        return fields + ", " + members.joined(separator: ", ") + "}"
    }

    /// The figures of one size.
    static func measure(memoCount: Int, changes: Int, latencyMilliseconds: Int, progress: (String) -> Void) async throws -> Report {
        let clock = ContinuousClock()
        var random = BenchRandom(seed: 0x5CA1_E28)
        let buildStart = clock.now
        let built = try NotebookBenchmark.build(memoCount: memoCount, random: &random)
        let buildSeconds = (clock.now - buildStart) / .seconds(1)
        progress("\(memoCount): built in \(Int(buildSeconds)) s")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memo-bench-scale-\(UUID().uuidString)")
        defer {
            // `MEMO_BENCH_KEEP_LIBRARY=PATH`: the writer's library is moved there first (for a
            // profile of `memo-bench open-library PATH`).
            if let keep = ProcessInfo.processInfo.environment["MEMO_BENCH_KEEP_LIBRARY"] {
                try? FileManager.default.moveItem(atPath: root.appendingPathComponent("writer").path, toPath: keep)
            }
            try? FileManager.default.removeItem(at: root)
        }
        let devices = try RemoteBenchmark.Devices(root: root)
        let snapshot = built.encoded()
        let snapshotKey = StoreLayout.snapshotKey(replica: built.replica, totalOperations: UInt64(built.version.operationCount), bytes: snapshot)
        try devices.folder.write(key: snapshotKey, bytes: snapshot)
        // And its head, naming the snapshot, as a replica publishing one writes: a new device
        // then knows what the snapshot holds without reading it (a snapshot nothing describes
        // is read once, in case it holds what nothing else shows).
        let head = SyncHead(
            holds: built.version, lacks: VersionVector(), newestSnapshot: SyncState.ReadSnapshot(key: snapshotKey, version: built.version)
        ).encoded()
        try devices.folder.write(key: StoreLayout.headKey(replica: built.replica, bytes: head), bytes: head)
        let memoIDs = built.list().map(\.id)
        let expected = built.activeMemoCount

        // The writer: bootstrapped from the folder, then closed and opened again.
        let writerPath = root.appendingPathComponent("writer").path
        do {
            let first = try Replica(libraryPath: writerPath)
            let report = try await first.sync(with: devices.folder)
            guard report.isComplete, first.notebook.activeMemoCount == expected else {
                throw BenchFailure.usage("the writer's bootstrap did not get every memo: \(report.errors)")
            }
            await first.close()
        }
        Measure.releaseFreeHeapMemory()
        let opened = Measure.documentResidentMebibytes { () -> (Replica, Double, Double, [MemoSummary])? in
            let start = clock.now
            guard let replica = try? Replica(libraryPath: writerPath) else { return nil }
            let openMilliseconds = Measure.milliseconds(clock.now - start)
            let listStart = clock.now
            let rows = replica.notebook.list(first: 50)
            return (replica, openMilliseconds, Measure.milliseconds(clock.now - listStart), rows)
        }
        guard let (writer, openMilliseconds, listMilliseconds, rows) = opened.document, rows.count == 50 || rows.count == expected else {
            throw BenchFailure.usage("the writer's library did not open")
        }
        progress("\(memoCount): opened in \(Int(openMilliseconds)) ms")

        // Search: the first query on the freshly opened library, then warm.
        let queries = [
            NotebookBenchmark.words[0][3], NotebookBenchmark.words[1][40], NotebookBenchmark.words[2][400],
            NotebookBenchmark.words[2][3].uppercased(), NotebookBenchmark.words[0][40], NotebookBenchmark.words[1][400],
        ]
        let searchFirst = Measure.timed { writer.notebook.search(queries[0]) }
        var warmTimes: [Double] = []
        for query in queries { warmTimes.append(Measure.medianMilliseconds(runs: 3) { writer.notebook.search(query) }.milliseconds) }

        // Decoded texts and what giving them back returns (issue 28): on a copy of the opened
        // notebook, every text decoded (as a long session touching every memo would), then every
        // one turned back into its body, resident memory read after each.
        func resident() -> Int? {
            Measure.releaseFreeHeapMemory()
            return Measure.currentResidentBytes()
        }
        let residentBefore = resident()
        var touched = writer.notebook
        func decodeEveryText() { for id in touched.memoIDs { try? touched.prepareForEditing(id) } }
        decodeEveryText()
        let residentDecoded = resident()
        let released = touched.releaseDecodedTexts(keepingMostRecent: 0)
        let residentReleased = resident()
        let decodedAfter = touched.decodedTextCount
        // Decoded again: the memory freed is what the second decode takes (growth is bounded).
        decodeEveryText()
        let residentDecodedAgain = resident()
        withExtendedLifetime(touched) {}
        func mebibytes(_ bytes: Int?) -> Double? {
            guard let bytes, let residentBefore else { return nil }
            return Double(bytes - residentBefore) / (1024 * 1024)
        }
        progress("\(memoCount): every text decoded \(mebibytes(residentDecoded) ?? -1) MiB, \(released) given back")

        // Single-memo changes, each synced.
        var changeTimes: [Double] = []
        var bytesWritten = 0
        var snapshotsWritten = 0
        var pick = BenchRandom(seed: 0xC4A_4E)
        for change in 0..<changes {
            let target = memoIDs[pick.int(0..<memoIDs.count)]
            try writer.edit(target, replacingUTF16: 0..<0, with: "change \(change) ")
            let timed = try await Measure.timed { () async throws(ReplicaError) in try await writer.sync(with: devices.folder) }
            guard timed.result.isComplete, timed.result.publishedSegment != nil else {
                throw BenchFailure.usage("a single-memo sync did not publish: \(timed.result.errors)")
            }
            changeTimes.append(timed.milliseconds)
            bytesWritten += timed.result.bytesWritten
            if timed.result.publishedSnapshot != nil { snapshotsWritten += 1 }
        }
        progress("\(memoCount): \(changes) changes synced, \(snapshotsWritten) snapshots")
        let everything = writer.notebook.version
        await writer.close()

        // The open as an app's launch has it: a new process opening the library (three, the
        // medians). In this process, what earlier phases freed and the allocator kept is reused
        // by the open, so its resident memory here ranged from 6 to 23 MB at 10,000 memos, one
        // build (BENCHMARKS.md, "The open measured in a process of its own"). After the searches
        // and changes, so that nothing measured in this process follows them but the bootstrap.
        var newProcessOpens: [(openMilliseconds: Double, residentMebibytes: Double, listMilliseconds: Double)] = []
        for _ in 0..<3 { newProcessOpens.append(try openInNewProcess(path: writerPath)) }

        // A new device through the store with latency: when the list shows, when everything is in.
        let store = LatencyStore(inner: devices.folder, latencyMilliseconds: latencyMilliseconds)
        let device = try devices.new()
        let start = clock.now
        let syncing = Task { try await device.sync(with: store) }
        var listMillisecondsBootstrap: Double?
        while listMillisecondsBootstrap == nil {
            if device.notebook.activeMemoCount >= expected { listMillisecondsBootstrap = Measure.milliseconds(clock.now - start) }
            if device.syncProgress == nil, Measure.milliseconds(clock.now - start) > 100 { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        let bootstrapReport = try await syncing.value
        let allMilliseconds = Measure.milliseconds(clock.now - start)
        guard bootstrapReport.isComplete, device.notebook.version == everything else {
            throw BenchFailure.usage("the new device's bootstrap did not get everything: \(bootstrapReport.errors)")
        }
        await device.close()

        var report = Report()
        report.add("memos", .integer(expected))
        report.add("snapshot_bytes", .integer(snapshot.count))
        report.add("open_ms", .milliseconds(Measure.median(newProcessOpens.map(\.openMilliseconds))))
        report.add("rss_mb", .number(Measure.median(newProcessOpens.map(\.residentMebibytes))))
        report.add("list_first_50_ms", .milliseconds(Measure.median(newProcessOpens.map(\.listMilliseconds))))
        report.add("open_in_process_ms", .milliseconds(openMilliseconds))
        report.add("rss_in_process_mb", opened.mebibytes.map { .number($0) })
        report.add("list_first_50_in_process_ms", .milliseconds(listMilliseconds))
        report.add("all_texts_decoded_rss_mb", mebibytes(residentDecoded).map { .number($0) })
        report.add("after_release_rss_mb", mebibytes(residentReleased).map { .number($0) })
        report.add("texts_decoded_after_release", .integer(decodedAfter))
        report.add("all_texts_decoded_again_rss_mb", mebibytes(residentDecodedAgain).map { .number($0) })
        report.add("search_warm_ms", .milliseconds(Measure.median(warmTimes)))
        report.add("search_first_ms", .milliseconds(searchFirst.milliseconds))
        report.add("bytes_per_change_fraction", .decimal(Double(bytesWritten) / Double(max(changes, 1)) / Double(snapshot.count), places: 6))
        report.add("bytes_per_change", .integer(bytesWritten / max(changes, 1)))
        report.add("snapshots_written", .integer(snapshotsWritten))
        report.add("sync_one_change_ms", .milliseconds(Measure.median(changeTimes)))
        report.add("bootstrap_list_ms", .milliseconds(listMillisecondsBootstrap ?? allMilliseconds))
        report.add("bootstrap_all_ms", .milliseconds(allMilliseconds))
        report.add("bootstrap_bytes_read", .integer(bootstrapReport.bytesRead))
        report.add("bootstrap_blobs_read", .integer(bootstrapReport.blobsRead))
        report.add("build_s", .number(buildSeconds))
        return report
    }

    /// `memo-bench open-library PATH`: opens the library and lists its first 50 rows in this
    /// process, which has done nothing else yet: the time, and the resident memory added (free
    /// heap pages returned to the system before each reading).
    static func openLibrary(path: String) async throws -> Report {
        // What any open costs once per process (the runtime's and Foundation's first uses, the
        // open's second thread and its heap) paid first, on a library of one memo.
        let warmUp = FileManager.default.temporaryDirectory.appendingPathComponent("memo-bench-open-\(getpid())").path
        do {
            let replica = try Replica(libraryPath: warmUp)
            _ = try replica.createMemo(text: "warm-up")
            await replica.close()
            let again = try Replica(libraryPath: warmUp)
            _ = again.notebook.list(first: 50)
            await again.close()
        }
        try? FileManager.default.removeItem(atPath: warmUp)
        Measure.releaseFreeHeapMemory()
        let before = Measure.currentResidentBytes()
        let clock = ContinuousClock()
        let start = clock.now
        let replica = try Replica(libraryPath: path)
        let openMilliseconds = Measure.milliseconds(clock.now - start)
        let listStart = clock.now
        let rows = replica.notebook.list(first: 50)
        let listMilliseconds = Measure.milliseconds(clock.now - listStart)
        Measure.releaseFreeHeapMemory()
        let after = Measure.currentResidentBytes()
        var report = Report()
        report.add("open_ms", .milliseconds(openMilliseconds))
        if let before, let after { report.add("rss_mb", .number(Double(after - before) / (1024 * 1024))) }
        report.add("list_first_50_ms", .milliseconds(listMilliseconds))
        report.add("rows", .integer(rows.count))
        withExtendedLifetime(rows) {}
        await replica.close()
        return report
    }

    /// Runs `memo-bench open-library path` (this executable) and reads what it printed.
    static func openInNewProcess(path: String) throws -> (openMilliseconds: Double, residentMebibytes: Double, listMilliseconds: Double) {
        guard let executable = Bundle.main.executablePath else { throw BenchFailure.usage("cannot find memo-bench's own executable") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["open-library", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any],
            let open = (object["open_ms"] as? NSNumber)?.doubleValue,
            let resident = (object["rss_mb"] as? NSNumber)?.doubleValue,
            let list = (object["list_first_50_ms"] as? NSNumber)?.doubleValue
        else {
            throw BenchFailure.usage("open-library \(path) failed (status \(process.terminationStatus)): \(String(decoding: bytes, as: UTF8.self))")
        }
        return (open, resident, list)
    }
}
