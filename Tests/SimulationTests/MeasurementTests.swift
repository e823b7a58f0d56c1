import Foundation
import MemoCRDT
@testable import MemoSimulation
import Synchronization
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Measurements, reports and merging (issue 30): numbers that follow by arithmetic, runs that
/// are the same with and without measuring, canonical bytes, a report whose SVG parses and
/// shows the JSON's numbers, and merged parts equal to one run.
@Suite struct MeasurementTests {
    /// A small scripted run: two replicas, no faults; r0 creates a memo at 1 s, types at 3 s
    /// and syncs at 4 s; r1 syncs at 10 min.
    func scriptedTrace() -> Trace {
        var trace = Trace.generate(seed: 7, options: SimulationOptions(replicaCount: 2, steps: 1, faults: .none))
        trace.parameters.founderCount = 2
        trace.events = [
            ScriptEvent(time: 1_000, peer: 0, action: .create(length: 5)),
            ScriptEvent(time: 3_000, peer: 0, action: .type(direction: .forward, length: 4, memo: 0, at: 0)),
            ScriptEvent(time: 4_000, peer: 0, action: .sync),
            ScriptEvent(time: 600_000, peer: 1, action: .sync),
        ]
        return trace
    }

    func measure(_ trace: Trace, interval: UInt64 = Meter.defaultSampleIntervalMilliseconds, lines: ((String) -> Void)? = nil) -> (SimulationResult, SeedMeasurements) {
        let simulation = Simulation(trace: trace, keepsLines: false, lineSink: lines)
        simulation.meter = Meter(peerCount: trace.parameters.replicaCount, sampleIntervalMilliseconds: interval)
        let result = simulation.run()
        return (result, simulation.meter!.measurements(for: result))
    }

    @Test func aScriptedRunMeasuresByArithmetic() throws {
        var lines: [String] = []
        let (result, m) = measure(scriptedTrace(), interval: 60_000) { lines.append($0) }
        #expect(result.violation == nil)
        #expect(m.edits == 2 && m.editsLost == 0 && m.neverArrived == 0)
        #expect(m.replicas.map(\.edits) == [2, 0])
        // Both edits reach r1 in the same step of its sync, begun at 600,000 ms: the two
        // latencies are that moment minus 1,000 and minus 3,000, 2,000 ms apart.
        #expect(m.arrivalMilliseconds.map(\.count) == [1, 1], "\(m.arrivalMilliseconds)")
        let low = try #require(m.arrivalMilliseconds.first?.value)
        let high = try #require(m.arrivalMilliseconds.last?.value)
        #expect(high - low == 2_000)
        #expect((597_000...600_000 + 5_000 - 3_000).contains(low), "\(low)")
        let arrival = m.arrival
        #expect(arrival.count == 2 && arrival.p50 == low && arrival.p90 == high && arrival.p99 == high && arrival.max == high)
        #expect(m.replicas[1].arrivals == 2 && m.replicas[0].arrivals == 0)
        #expect(m.arrivedInFinalPhase == 0 && m.finalPhaseMilliseconds >= 600_000)
        // Syncs and crashes equal the event log's count of them; r0 wrote what it synced.
        for replica in 0..<2 {
            let tag = "r0\(replica) sync ends"
            #expect(m.replicas[replica].syncs == lines.filter { $0.contains(tag) }.count)
            #expect(m.replicas[replica].syncs >= 1)
        }
        #expect(m.replicas.map(\.crashes) == [0, 0])
        #expect(m.replicas[0].blobsWritten >= 1 && m.replicas[0].bytesWritten > 0)
        #expect(m.replicas[1].blobsRead >= 1 && m.replicas[1].bytesRead > 0)
        // One sample per minute from 0 to the end, the first of an empty store.
        #expect(m.storeSamples.count == m.simulatedMilliseconds / 60_000 + 1)
        #expect(m.storeSamples.enumerated().allSatisfy { $0.element.time == $0.offset * 60_000 })
        #expect(m.storeSamples.first == StoreSample(time: 0, blobs: 0, bytes: 0))
        #expect(m.storeSamples[1].blobs >= 1 && m.storeSamples[1].bytes > 0, "r0's sync at 4 s published")
        let published = m.storeSamples[1]
        let untouched = m.storeSamples[1...10].filter { $0.blobs == published.blobs && $0.bytes == published.bytes }.count
        #expect(untouched == 10, "nothing else touches the store until r1's sync at 10 min: \(m.storeSamples.prefix(12))")
        #expect(m.storeBlobs == result.storeBlobs && m.storeBytes == result.storeBytes)
        // Each replica is sampled with the store: nothing held back, a library on disk.
        for replica in m.replicas {
            #expect(replica.samples.map(\.time) == m.storeSamples.map(\.time))
            #expect(replica.samples.allSatisfy { $0.heldBack == 0 && $0.libraryBytes > 0 })
        }
        // The timeline: r0's two edits at 1 s and 3 s, its syncs; r1's sync.
        #expect(m.replicas[0].timeline.filter { $0.kind == "edit" }.map(\.from) == [1_000, 3_000])
        #expect(m.replicas[0].timeline.filter { $0.kind == "sync" }.count == m.replicas[0].syncs)
    }

    /// The meter's own arithmetic, from hand-made observations.
    @Test func theMeterCountsArrivalsLossesAndPercentiles() {
        let meter = Meter(peerCount: 3, sampleIntervalMilliseconds: 1_000)
        let a = ReplicaID(11)
        meter.started(peer: 0, at: 0)
        meter.started(peer: 1, at: 0)
        meter.edit(peer: 0, at: 1_000, replica: a, counter: 3)
        meter.edit(peer: 0, at: 2_000, replica: a, counter: 5)
        meter.observe(peer: 1, version: VersionVector([a: 3]), at: 1_500)  // edit 1: 500
        meter.observe(peer: 1, version: VersionVector([a: 5]), at: 2_600)  // edit 2: 600
        meter.started(peer: 2, at: 2_500)
        meter.observe(peer: 2, version: VersionVector([a: 5]), at: 3_000)  // both from its start: 500, 500
        meter.observe(peer: 2, version: VersionVector([a: 5]), at: 9_000)  // nothing new
        meter.edit(peer: 0, at: 4_000, replica: a, counter: 7)
        meter.lose(replica: a, keptOperations: 5)  // a crash lost it
        meter.edit(peer: 0, at: 5_000, replica: a, counter: 6)  // never reaches anyone
        meter.observeStore(at: 2_500, blobs: 4, bytes: 100)
        meter.finish(at: 6_000, live: [true, true, false], blobs: 5, bytes: 120)
        let m = meter.measurements(seed: 1, verdict: "ok", hash: "0", simulatedMilliseconds: 6_000)
        #expect(m.edits == 4 && m.editsLost == 1 && m.editsUncertain == 0)
        #expect(m.arrivalMilliseconds.map(\.value) == [500, 600] && m.arrivalMilliseconds.map(\.count) == [3, 1])
        #expect(m.neverArrived == 1, "the last edit never reached r1 (live); r2 is not live at the end")
        #expect(m.replicas.map(\.neverArrived) == [0, 1, 0])
        #expect(m.replicas.map(\.arrivals) == [0, 2, 2])
        #expect(m.arrivedInFinalPhase == 0 && m.finalPhaseMilliseconds == -1)
        let arrival = m.arrival
        #expect([arrival.count, arrival.p50, arrival.p90, arrival.p99, arrival.max] as [Int] == [4, 500, 600, 600, 600])
        #expect(arrival.histogram == [0, 4, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(m.storeSamples.map(\.time) == [0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000])
        #expect(m.storeSamples.map(\.blobs) == [4, 4, 4, 5, 5, 5, 5])
    }

    /// Measuring changes nothing in a run: the same hash, with every fault on.
    @Test func measuringLeavesRunsAlone() {
        let options = SimulationOptions(replicaCount: 4, steps: 120, faults: .all)
        for seed: UInt64 in 1...3 {
            let trace = Trace.generate(seed: seed, options: options)
            let plain = Simulation(trace: trace).run()
            let (measured, _) = measure(trace)
            #expect(plain.hash == measured.hash, "seed \(seed)")
        }
    }

    func swarmFile(_ seeds: ClosedRange<UInt64>, options: SimulationOptions) -> MeasurementFile {
        var runner = SwarmRunner(options: options) { _ in }
        runner.printsEveryRun = false
        runner.measureSampleIntervalMilliseconds = Meter.defaultSampleIntervalMilliseconds
        return MeasurementFile(options: "test", seeds: runner.run(seeds: seeds).measurements)
    }

    /// Seeds run three at once give what they give one after the other: the same lines in
    /// the same (seed) order, the same measurements' bytes, the same failures and totals.
    @Test func seedsRunAtOnceReportWhatTheyReportOneAfterTheOther() {
        let options = SimulationOptions(replicaCount: 3, steps: 90, faults: .all)
        func runLines(jobs: Int) -> (lines: [String], summary: SwarmRunner.Summary) {
            let lines = Mutex<[String]>([])
            var runner = SwarmRunner(options: options) { line in lines.withLock { $0.append(line) } }
            runner.jobs = jobs
            runner.measureSampleIntervalMilliseconds = Meter.defaultSampleIntervalMilliseconds
            let summary = runner.run(seeds: 11...17)
            // The seconds a run took are the only thing allowed to differ.
            let timeless = lines.withLock { $0 }.map { $0.replacing(#/\([0-9.]+s\)|real=[0-9.]+s|edits\/s=[0-9]+ chars\/s=[0-9]+ sim-time\/real-time=[0-9]+x/#, with: "") }
            return (timeless, summary)
        }
        let one = runLines(jobs: 1)
        let three = runLines(jobs: 3)
        #expect(one.lines.count == 8 && one.lines.first?.hasPrefix("seed=11 ") == true && one.lines[6].hasPrefix("seed=17 "))
        #expect(three.lines == one.lines)
        #expect(three.summary.seedsRun == 7 && three.summary.edits == one.summary.edits)
        #expect(MeasurementFile(options: "t", seeds: three.summary.measurements).json.text
            == MeasurementFile(options: "t", seeds: one.summary.measurements).json.text)
    }

    /// Under a time limit the seeds run are the first ones of the range, however many run at
    /// once, and at least the minimum.
    @Test func aTimeLimitWithJobsRunsTheFirstSeeds() {
        let seedsSeen = Mutex<[UInt64]>([])
        var runner = SwarmRunner(options: SimulationOptions(replicaCount: 2, steps: 40, faults: .none), timeLimitSeconds: 0.000_001) { line in
            if let seed = line.firstMatch(of: #/^seed=([0-9]+) /#).flatMap({ UInt64($0.1) }) { seedsSeen.withLock { $0.append(seed) } }
        }
        runner.jobs = 4
        runner.seedsMin = 5
        let summary = runner.run(seeds: 100...10_000)
        #expect(summary.stoppedAtTimeLimit)
        #expect(summary.seedsRun == 5, "claims are taken one at a time: the minimum, then the limit")
        #expect(seedsSeen.withLock { $0 } == Array(100..<(100 + UInt64(summary.seedsRun))))
    }

    @Test func measurementsAreTheSameBytesTwiceAndReadBack() throws {
        let options = SimulationOptions(replicaCount: 3, steps: 100, faults: .all)
        let first = swarmFile(1...2, options: options).json.text
        let second = swarmFile(1...2, options: options).json.text
        #expect(first == second)
        let read = try MeasurementFile(parsing: first)
        #expect(read.json.text == first)
        #expect(read.seeds.map(\.seed) == [1, 2])
    }

    /// Seeds 1..4 in one run, and 1..2 and 3..4 merged (in either order): the same bytes, of
    /// the measurements and of the page.
    @Test func mergedPartsEqualOneRun() throws {
        let options = SimulationOptions(replicaCount: 3, steps: 80, faults: .swarm)
        let whole = swarmFile(1...4, options: options)
        let low = try MeasurementFile(parsing: swarmFile(1...2, options: options).json.text)
        let high = try MeasurementFile(parsing: swarmFile(3...4, options: options).json.text)
        let merged = try MeasurementFile.merged([high, low])
        #expect(merged.json.text == whole.json.text)
        #expect(MeasurementReport.html(merged) == MeasurementReport.html(whole))
        #expect(throws: MeasurementFileError.self) { try MeasurementFile.merged([low, low]) }
        var other = high
        other.options = "other"
        #expect(throws: MeasurementFileError.self) { try MeasurementFile.merged([low, other]) }
    }

    /// The compact form (`--compact`): counters, store peaks and rounded latencies only; parts
    /// merge into the bytes of one compact run, and a full part merged with a compact one is
    /// compacted. Counts and the histogram are those of the full form.
    @Test func compactPartsMergeIntoOneCompactRun() throws {
        #expect([9_999, 10_000, 12_345, 601_200_249, 604_800_000, 604_799_999, 604_800_001].map(SeedMeasurements.roundedUp)
            == [9_999, 10_000, 12_350, 601_300_000, 604_800_000, 604_800_000, 604_900_000])
        let options = SimulationOptions(replicaCount: 3, steps: 120, faults: .swarm)
        let full = swarmFile(1...4, options: options)
        let whole = full.compacted()
        #expect(whole.isCompact && !full.isCompact)
        let text = whole.json.text
        #expect(!text.contains("\"timeline\"") && !text.contains("\"samples\"") && !text.contains("\"arrivalMilliseconds\""))
        #expect(text.contains("\"compact\": true") && text.contains("\"arrivalRoundedMilliseconds\""))
        #expect(text.utf8.count * 3 < full.json.text.utf8.count, "\(text.utf8.count) of \(full.json.text.utf8.count) bytes")
        #expect(whole.compacted().json.text == text)
        // Each seed keeps its own summary, exact; the latencies are written once, for the file.
        let read = try MeasurementFile(parsing: text)
        #expect(read.seeds.map(\.arrival) == full.seeds.map(\.arrival) && read.json.text == text)
        #expect(text.components(separatedBy: "\"arrivalRoundedMilliseconds\"").count == 2)
        #expect(throws: MeasurementFileError.self) {
            try MeasurementFile(parsing: text.replacingOccurrences(of: "\"arrivalRoundedMilliseconds\"", with: "\"elsewhere\""))
        }
        let low = try MeasurementFile(parsing: swarmFile(1...2, options: options).compacted().json.text)
        let high = try MeasurementFile(parsing: swarmFile(3...4, options: options).compacted().json.text)
        #expect(low.isCompact)
        #expect(try MeasurementFile.merged([high, low]).json.text == text)
        #expect(try MeasurementFile.merged([swarmFile(1...2, options: options), high]).json.text == text)
        #expect(MeasurementReport.html(try MeasurementFile.merged([high, low])) == MeasurementReport.html(whole))
        // What the compact totals keep exactly, and what rounding moves by less than 0.1 %.
        let (a, b) = (full.totals, whole.totals)
        #expect(a.seeds == b.seeds && a.failures == b.failures && a.edits == b.edits && a.editsUncertain == b.editsUncertain)
        #expect(a.replicaSums == b.replicaSums && a.storeBlobsMax == b.storeBlobsMax && a.storeBytesMax == b.storeBytesMax)
        #expect(a.arrival.count == b.arrival.count && a.arrival.histogram == b.arrival.histogram && a.arrival.neverArrived == b.arrival.neverArrived)
        #expect(a.arrival.count > 0)
        for (exact, rounded) in [(a.arrival.p50, b.arrival.p50), (a.arrival.p99, b.arrival.p99), (a.arrival.max, b.arrival.max)] {
            #expect(rounded == SeedMeasurements.roundedUp(exact), "\(exact) \(rounded)")
        }
        // The compact page draws the histogram and no timeline.
        let html = MeasurementReport.html(whole)
        #expect(html.contains("id=\"latency\"") && !html.contains("id=\"timeline\"") && html.contains("--compact"))
    }

    @Test func badMeasurementFilesAreRefusedWithTheLine() {
        #expect(throws: JSONTextError(line: 2, reason: "only integers are allowed")) { try JSONText(parsing: "{\n\"a\": 1.5}") }
        #expect(throws: JSONTextError(line: 1, reason: "key a twice")) { try JSONText(parsing: "{\"a\": 1, \"a\": 2}") }
        #expect(throws: MeasurementFileError.self) { try MeasurementFile(parsing: "{\"format\": \"something else\"}") }
        #expect(throws: MeasurementFileError.self) {
            try MeasurementFile(parsing: "{\"format\": \"memo-sim measurements\", \"version\": 1, \"options\": \"\", \"seeds\": [{\"seed\": 1}]}")
        }
    }

    /// Each SVG of the page parses as XML, and the numbers it draws are the JSON's.
    @Test func theReportsSVGParsesAndShowsTheJSONsNumbers() throws {
        let file = swarmFile(1...2, options: SimulationOptions(replicaCount: 3, steps: 100, faults: .all))
        let html = MeasurementReport.html(file)
        let json = file.json
        var svgs: [String] = []
        var rest = Substring(html)
        while let start = rest.range(of: "<svg"), let end = rest.range(of: "</svg>", range: start.upperBound..<rest.endIndex) {
            svgs.append(String(rest[start.lowerBound..<end.upperBound]))
            rest = rest[end.upperBound...]
        }
        #expect(svgs.count == 6)
        var found: [String: [String]] = [:]
        var lines: [String: [(replica: String, max: String, values: String, points: Int)]] = [:]
        for svg in svgs {
            let collector = SVGCollector()
            let parser = XMLParser(data: Data(svg.utf8))
            parser.delegate = collector
            #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
            for (key, values) in collector.values { found[key, default: []] += values }
            for (key, values) in collector.lines { lines[key, default: []] += values }
        }
        // The replicas' samples of the first seed: a line per replica in each chart, through
        // one point per sample, carrying the JSON's values; the axis ends at their maximum.
        let firstReplicas = try #require(json["seeds"]?.array?.first?["replicas"]?.array)
        for (chart, column) in [("replica-heldBack", 1), ("replica-libraryBytes", 2)] {
            let drawn = try #require(lines[chart], "\(chart)")
            #expect(drawn.map(\.replica) == firstReplicas.map { String($0["replica"]!.int!) })
            var highest = 0
            for (line, replica) in zip(drawn, firstReplicas) {
                let samples = try #require(replica["samples"]?.array).map { $0.array![column].int! }
                #expect(line.values == samples.map(String.init).joined(separator: " "), "\(chart)")
                #expect(line.points == samples.count && !samples.isEmpty)
                #expect(line.max == String(samples.max()!))
                highest = max(highest, samples.max()!)
            }
            #expect(found["\(chart)Max"] == [String(highest)])
        }
        #expect(lines["replica-libraryBytes"]!.allSatisfy { $0.max != "0" }, "every library has bytes on disk")
        let arrival = try #require(json["totals"]?["arrival"])
        for key in ["count", "p50Milliseconds", "p90Milliseconds", "p99Milliseconds", "maxMilliseconds", "neverArrived", "arrivedInFinalPhase"] {
            #expect(found[key] == [String(try #require(arrival[key]?.int))], "\(key)")
        }
        let histogram = try #require(arrival["histogram"]?.array).map { String($0["count"]!.int!) }
        #expect(found["bar"] == histogram)
        #expect(found["blobsMax"] == [String(try #require(json["totals"]?["store"]?["blobsMax"]?.int))])
        #expect(found["bytesMax"] == [String(try #require(json["totals"]?["store"]?["bytesMax"]?.int))])
        let first = try #require(json["seeds"]?.array?.first)
        #expect(found["simulatedMilliseconds"] == [String(try #require(first["simulatedMilliseconds"]?.int))])
        let replicas = try #require(first["replicas"]?.array)
        #expect(found["syncs"] == replicas.map { String($0["syncs"]!.int!) })
        #expect(found["edits"] == replicas.map { String($0["edits"]!.int!) })
        #expect(found["crashes"] == replicas.map { String($0["crashes"]!.int!) })
        #expect(!html.contains("<script") && !html.contains("src=") && !html.contains("@import"))
        // A sweep's page: its SVG parses, and its bars are each value's p50, p90 and p99.
        let other = swarmFile(3...3, options: SimulationOptions(replicaCount: 2, steps: 60, faults: .none))
        let sweep = MeasurementReport.sweepHTML(key: "sync-interval", runs: [("1min", file), ("10min", other)])
        let start = try #require(sweep.range(of: "<svg"))
        let end = try #require(sweep.range(of: "</svg>"))
        let collector = SVGCollector()
        let parser = XMLParser(data: Data(sweep[start.lowerBound..<end.upperBound].utf8))
        parser.delegate = collector
        #expect(parser.parse())
        let expected = [file, other].flatMap { [$0.totals.arrival.p50, $0.totals.arrival.p90, $0.totals.arrival.p99].map(String.init) }
        #expect(collector.values["value"] == expected)
    }
}

/// Collects what the report's SVG states: `data-key` tspans' text, bars' `data-count`, and the
/// timeline rows' `data-edits`, `data-syncs` and `data-crashes`.
final class SVGCollector: NSObject, XMLParserDelegate, @unchecked Sendable {
    var values: [String: [String]] = [:]
    /// The replica charts' lines by chart id: `data-replica`, `data-max`, `data-values` and
    /// how many points the line goes through.
    var lines: [String: [(replica: String, max: String, values: String, points: Int)]] = [:]
    private var chart: String?
    private var key: String?
    private var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "svg" { chart = attributes["id"] }
        if name == "polyline", attributes["class"] == "replica", let chart, let replica = attributes["data-replica"], let max = attributes["data-max"],
            let values = attributes["data-values"], let points = attributes["points"]
        {
            lines[chart, default: []].append((replica, max, values, points.split(separator: " ").count))
        }
        if name == "tspan", let key = attributes["data-key"] {
            self.key = key
            text = ""
        }
        if name == "rect", attributes["class"] == "bar", let count = attributes["data-count"] { values["bar", default: []].append(count) }
        if name == "rect", let value = attributes["data-value"] { values["value", default: []].append(value) }
        if name == "g" {
            for key in ["edits", "syncs", "crashes"] {
                if let value = attributes["data-\(key)"] { values[key, default: []].append(value) }
            }
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if key != nil { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "tspan", let key {
            values[key, default: []].append(text)
            self.key = nil
        }
    }
}
