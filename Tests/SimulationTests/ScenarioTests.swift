import Foundation
@testable import MemoSimulation
import Testing

/// Scenario files (issue 30): a schedule becomes exactly its events, a scenario runs and is
/// measured, and a bad file is refused with its line and the reason.
@Suite struct ScenarioTests {
    static let small = """
        {
          "memo-sim scenario": 1,
          "lengthMilliseconds": 600000,
          "replicas": [
            {"name": "late", "syncEveryMilliseconds": 100000, "editEveryMilliseconds": 600000, "joinAtMilliseconds": 300000},
            {"name": "phone", "syncEveryMilliseconds": 60000, "editEveryMilliseconds": 120000, "editLength": 3}
          ],
          "offline": [{"replica": "phone", "fromMilliseconds": 200000, "toMilliseconds": 260000}],
          "crashes": [{"replica": "late", "atMilliseconds": 450000}],
          "storeLosses": [{"atMilliseconds": 500000, "image": 2}]
        }
        """

    @Test func aScheduleBecomesExactlyItsEvents() throws {
        let scenario = try Scenario(parsing: Self.small)
        // Founders first: phone is r0, late (joining at 5 min) r1.
        #expect(scenario.replicas.map(\.name) == ["phone", "late"])
        let trace = scenario.trace(seed: 5)
        #expect(trace.parameters.replicaCount == 2 && trace.parameters.founderCount == 1)
        #expect(trace.parameters.faults.isEmpty)
        let phoneSyncs = trace.events.filter { $0.peer == 0 && $0.action == .sync }.map(\.time)
        #expect(phoneSyncs == [60_000, 120_000, 180_000, 240_000, 300_000, 360_000, 420_000, 480_000, 540_000])
        let phoneEdits = trace.events.filter { $0.peer == 0 && $0.action != .sync && $0.time != 200_000 && $0.time != 500_000 }.map(\.time)
        #expect(phoneEdits == [60_000, 180_000, 300_000, 420_000, 540_000])
        // r1 joins at 300,000, is staggered by 37 ms, syncs every 100 s, edits once (at 300 s + half 600 s: past the end, none).
        #expect(trace.events.contains(ScriptEvent(time: 300_000, peer: 1, action: .join(cloneOf: nil))))
        #expect(trace.events.filter { $0.peer == 1 && $0.action == .sync }.map(\.time) == [400_037, 500_037])
        #expect(trace.events.contains(ScriptEvent(time: 200_000, peer: 0, action: .offline(milliseconds: 60_000))))
        #expect(trace.events.contains(ScriptEvent(time: 450_000, peer: 1, action: .crash(point: .now, downMilliseconds: 60_000))))
        #expect(trace.events.contains(ScriptEvent(time: 500_000, peer: 0, action: .storeLoss(which: 2))))
        #expect(trace.events.count == 9 + 5 + 1 + 2 + 3)
        #expect(zip(trace.events, trace.events.dropFirst()).allSatisfy { $0.time <= $1.time })
        // The same seed, the same trace; a trace's text reads back.
        #expect(scenario.trace(seed: 5) == trace)
        #expect(try Trace(parsing: trace.text) == trace)
    }

    @Test func aScenarioRunsAndIsMeasured() throws {
        let trace = try Scenario(parsing: Self.small).trace(seed: 3)
        let simulation = Simulation(trace: trace)
        simulation.meter = Meter(peerCount: 2, sampleIntervalMilliseconds: 60_000)
        let result = simulation.run()
        #expect(result.violation == nil)
        let measured = simulation.meter!.measurements(for: result)
        #expect(measured.replicas[0].edits == 5)
        #expect(measured.replicas[1].crashes == 1)
        #expect(measured.replicas[0].timeline.contains(TimelineEntry(from: 200_000, to: 260_000, kind: "offline")))
        #expect(measured.neverArrived == 0)
    }

    /// A store restored from a backup (`restoredFromMilliseconds`, version 2): the operator's copy
    /// is taken at its time and put back at the loss's, so the store after the restore holds
    /// exactly what it held then (here: the blobs of the syncs before minute 3, none after), and
    /// every library publishes again what it lacks. The worked scenario restores a month-old
    /// copy; its image 3 once restored one a few hours old.
    @Test func aStoreRestoredFromABackupIsTheStoreAsItWasThen() throws {
        let text = """
            {
              "memo-sim scenario": 2,
              "lengthMilliseconds": 900000,
              "replicas": [
                {"name": "a", "syncEveryMilliseconds": 60000, "editEveryMilliseconds": 60000},
                {"name": "b", "syncEveryMilliseconds": 90000, "editEveryMilliseconds": 120000}
              ],
              "storeLosses": [{"atMilliseconds": 600000, "restoredFromMilliseconds": 180000}]
            }
            """
        let trace = try Scenario(parsing: text).trace(seed: 2)
        #expect(trace.events.contains(ScriptEvent(time: 180_000, peer: 0, action: .storeBackup(slot: 0))))
        #expect(trace.events.contains(ScriptEvent(time: 600_000, peer: 0, action: .storeRestore(slot: 0))))
        #expect(!trace.events.contains { if case .storeLoss = $0.action { true } else { false } })
        #expect(try Trace(parsing: trace.text) == trace)
        final class Lines { var all: [String] = [] }
        let kept = Lines()
        let result = Simulation(trace: trace, lineSink: { kept.all.append($0) }).run()
        #expect(result.violation == nil, "\(String(describing: result.violation))")
        let lines = kept.all
        let backup = try #require(lines.first { $0.contains("keeps a backup of it") }, "\(lines.suffix(20))")
        let restore = try #require(lines.first { $0.contains("the store is restored from the backup") }, "\(lines.suffix(20))")
        #expect(backup.hasPrefix("0d00:03:00.000") && restore.hasPrefix("0d00:10:00.000"), "\(backup) / \(restore)")
        #expect(restore.contains("backup of 0d00:03:00.000, 7.0min old"), "\(restore)")
        // The same number of blobs taken and put back.
        let taken = try #require(backup.firstMatch(of: /\((\d+) blobs\)/)?.1)
        let putBack = try #require(restore.firstMatch(of: /\((\d+) blobs\)/)?.1)
        #expect(taken == putBack && Int(taken)! > 0, "\(backup) / \(restore)")
        // A restore without its backup (a trace shrunk without it) does nothing, and says so.
        var shrunk = trace
        shrunk.events.removeAll { $0.action == .storeBackup(slot: 0) }
        let aloneLines = Lines()
        #expect(Simulation(trace: shrunk, lineSink: { aloneLines.all.append($0) }).run().violation == nil)
        #expect(aloneLines.all.contains { $0.contains("store restore: no backup was kept in slot 0") })
        #expect(!aloneLines.all.contains { $0.contains("the store is restored") })
    }

    /// Every worked scenario shipped in Simulations/Scenarios reads (CI's swarm runs them).
    @Test func theWorkedScenariosRead() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Simulations/Scenarios")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names == ["phone-offline-a-week.json", "store-restored-from-backup.json", "ten-devices.json"])
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(throws: Never.self, "\(name)") { _ = try Scenario(parsing: text) }
        }
    }

    @Test func aSweepVariesEveryReplicasInterval() throws {
        let scenario = try Scenario(parsing: Self.small)
        let variant = try #require(scenario.sweeping("sync-interval", to: 30_000))
        #expect(variant.replicas.map(\.syncEveryMilliseconds) == [30_000, 30_000])
        #expect(variant.replicas.map(\.editEveryMilliseconds) == scenario.replicas.map(\.editEveryMilliseconds))
        #expect(scenario.sweeping("edit-interval", to: 90_000)?.replicas.map(\.editEveryMilliseconds) == [90_000, 90_000])
        #expect(scenario.sweeping("sync-interval", to: 999) == nil && scenario.sweeping("sync-interval", to: 600_001) == nil)
        #expect(scenario.sweeping("colour", to: 5_000) == nil)
        #expect(["10s", "5min", "2h", "1d", "250ms", "42"].map { Scenario.milliseconds($0) } == [10_000, 300_000, 7_200_000, 86_400_000, 250, 42])
        #expect(Scenario.milliseconds("soon") == nil && Scenario.milliseconds("-5s") == nil)
    }

    /// Version 2: a partition of two replicas, a departure and clock skews, on three replicas
    /// that edit every 200 s and sync every 100 s (staggered by 37 ms each) for 10 minutes.
    static let version2 = """
        {
          "memo-sim scenario": 2,
          "lengthMilliseconds": 600000,
          "replicas": [
            {"name": "a", "syncEveryMilliseconds": 100000, "editEveryMilliseconds": 200000},
            {"name": "b", "syncEveryMilliseconds": 100000, "editEveryMilliseconds": 200000},
            {"name": "c", "syncEveryMilliseconds": 100000, "editEveryMilliseconds": 200000}
          ],
          "partitions": [{"replicas": ["a", "b"], "fromMilliseconds": 150000, "toMilliseconds": 250000}],
          "departures": [{"replica": "c", "atMilliseconds": 350000}],
          "clockSkews": [
            {"replica": "b", "fromMilliseconds": 120000, "skewMilliseconds": 5000},
            {"replica": "b", "fromMilliseconds": 400000, "skewMilliseconds": -2000},
            {"replica": "c", "fromMilliseconds": 500000, "skewMilliseconds": 1000}
          ]
        }
        """

    @Test func aVersion2ScheduleBecomesExactlyItsEvents() throws {
        let scenario = try Scenario(parsing: Self.version2)
        #expect(scenario.version == 2)
        let trace = scenario.trace(seed: 4)
        func times(_ peer: Int, _ isSync: Bool) -> [UInt64] {
            trace.events.filter { event in
                guard event.peer == peer else { return false }
                if case .type = event.action { return !isSync }
                if case .create = event.action { return !isSync }
                return isSync && event.action == .sync
            }.map(\.time)
        }
        // a and b: edits at 100 s, 300 s, 500 s and syncs every 100 s (b 37 ms later).
        #expect(times(0, false) == [100_000, 300_000, 500_000])
        #expect(times(0, true) == [100_000, 200_000, 300_000, 400_000, 500_000])
        #expect(times(1, false) == [100_037, 300_037, 500_037])
        #expect(times(1, true) == [100_037, 200_037, 300_037, 400_037, 500_037])
        // c leaves at 350 s: nothing of it after that, its skew at 500 s included.
        #expect(times(2, false) == [100_074, 300_074])
        #expect(times(2, true) == [100_074, 200_074, 300_074])
        #expect(trace.events.contains(ScriptEvent(time: 350_000, peer: 2, action: .leave(graceful: true))))
        // The partition: one offline window per replica it names.
        #expect(trace.events.filter { if case .offline = $0.action { true } else { false } }
            == [ScriptEvent(time: 150_000, peer: 0, action: .offline(milliseconds: 100_000)), ScriptEvent(time: 150_000, peer: 1, action: .offline(milliseconds: 100_000))])
        // Skews are jumps from the skew before: +5,000 ms, then -7,000 ms to -2,000.
        #expect(trace.events.filter { if case .clockJump = $0.action { true } else { false } }
            == [ScriptEvent(time: 120_000, peer: 1, action: .clockJump(milliseconds: 5_000)), ScriptEvent(time: 400_000, peer: 1, action: .clockJump(milliseconds: -7_000))])
        #expect(trace.events.count == 8 + 8 + 5 + 2 + 2 + 1)
        // Simulations/README.md shows this scenario.
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Simulations/README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```json\n{\n  \"memo-sim scenario\": 2"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        #expect(try Scenario(parsing: String(readme[readme.index(start.lowerBound, offsetBy: 8)..<end.lowerBound])) == scenario)
        #expect(zip(trace.events, trace.events.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(try Trace(parsing: trace.text) == trace)
    }

    /// The version-2 schedule, run and measured: the counts follow from it.
    @Test func aVersion2ScenarioRunsAndIsMeasured() throws {
        let trace = try Scenario(parsing: Self.version2).trace(seed: 4)
        let simulation = Simulation(trace: trace)
        simulation.meter = Meter(peerCount: 3, sampleIntervalMilliseconds: 60_000)
        let result = simulation.run()
        #expect(result.violation == nil)
        let m = simulation.meter!.measurements(for: result)
        #expect(m.replicas.map(\.edits) == [3, 3, 2])
        #expect(m.edits == 8 && m.editsLost == 0)
        // c synced three times and once more on its way out (graceful), then left.
        #expect(m.replicas[2].syncs == 4)
        #expect(m.replicas[2].timeline.filter { $0.kind == "leave" }.count == 1)
        #expect(m.replicas[2].timeline.filter { $0.kind == "leave" }.allSatisfy { $0.from >= 350_000 })
        #expect(m.replicas[2].timeline.filter { $0.kind != "leave" }.allSatisfy { $0.from <= m.replicas[2].timeline.first { $0.kind == "leave" }!.from })
        for replica in 0...1 {
            #expect(m.replicas[replica].timeline.contains(TimelineEntry(from: 150_000, to: 250_000, kind: "offline")))
        }
        #expect(m.replicas[1].timeline.filter { $0.kind == "clock-jump" }.map(\.from) == [120_000, 400_000])
        #expect(m.replicas[0].timeline.filter { $0.kind == "clock-jump" }.isEmpty)
        #expect(m.neverArrived == 0)
        // a's and b's six edits all reach each other (c has left by the end).
        #expect(m.replicas[0].arrivals + m.replicas[0].arrivedInFinalPhase >= 3)
        #expect(m.replicas[1].arrivals + m.replicas[1].arrivedInFinalPhase >= 3)
    }

    /// Exponential timing: waits drawn around the mean from the seed; the same seed gives the
    /// same schedule, another seed another; a fixed replica's schedule does not move.
    @Test func exponentialTimingDrawsWaitsAroundTheMean() throws {
        func text(_ timing: String) -> String {
            """
            {"memo-sim scenario": 2, "lengthMilliseconds": 8640000000, "replicas": [
              {"name": "a", "syncEveryMilliseconds": 3600000, "editEveryMilliseconds": 3600000, "editTiming": "\(timing)", "syncTiming": "\(timing)"},
              {"name": "b", "syncEveryMilliseconds": 86400000, "editEveryMilliseconds": 86400000}]}
            """
        }
        let drawn = try Scenario(parsing: text("exponential"))
        #expect(drawn.replicas[0].editTiming == .exponential && drawn.replicas[0].syncTiming == .exponential)
        #expect(drawn.replicas[1].editTiming == .fixed)
        let trace = drawn.trace(seed: 11)
        #expect(drawn.trace(seed: 11) == trace)
        #expect(drawn.trace(seed: 12) != trace)
        let edits = trace.events.filter { $0.peer == 0 && $0.action != .sync }.map(\.time)
        let syncs = trace.events.filter { $0.peer == 0 && $0.action == .sync }.map(\.time)
        for times in [edits, syncs] {
            let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
            let mean = Double(gaps.reduce(0, +)) / Double(gaps.count)
            // 100 days at a mean of 1 h: about 2,400 waits; their mean within 5 %, their
            // spread an exponential's (as many below half the mean as 1 - e^-0.5 = 39 %).
            #expect(abs(mean - 3_600_000) < 180_000, "mean \(mean) of \(gaps.count)")
            let short = Double(gaps.filter { $0 < 1_800_000 }.count) / Double(gaps.count)
            #expect(abs(short - 0.393) < 0.03, "\(short)")
            #expect(gaps.allSatisfy { $0 >= 1 } && Set(gaps).count > gaps.count / 2)
        }
        let fixed = try Scenario(parsing: text("fixed")).trace(seed: 11)
        // b's schedule stays (the texts typed come from one stream in schedule order, so they move).
        #expect(fixed.events.filter { $0.peer == 1 }.map(\.time) == trace.events.filter { $0.peer == 1 }.map(\.time))
        #expect(fixed.events.filter { $0.peer == 1 }.map(\.time).count == 199)
        #expect(zip(fixed.events.filter { $0.peer == 0 && $0.action == .sync }, fixed.events.filter { $0.peer == 0 && $0.action == .sync }.dropFirst())
            .allSatisfy { $1.time - $0.time == 3_600_000 })
        // The logarithm behind the waits.
        #expect(abs(naturalLogarithm(0.5) + 0.693_147_180_559_945_3) < 1e-15)
        #expect(naturalLogarithm(1) == 0)
        #expect(abs(naturalLogarithm(2.718_281_828_459_045) - 1) < 1e-15)
        #expect(abs(naturalLogarithm(0x1.0p-53) + 36.736_800_569_677_1) < 1e-12)
    }

    @Test func aSweepSetsEveryReplicasTiming() throws {
        let scenario = try Scenario(parsing: Self.small)
        let drawn = try #require(scenario.sweeping("edit-timing", value: "exponential"))
        #expect(drawn.replicas.map(\.editTiming) == [.exponential, .exponential] && drawn.replicas.map(\.syncTiming) == [.fixed, .fixed])
        #expect(scenario.sweeping("sync-timing", value: "exponential")?.replicas.map(\.syncTiming) == [.exponential, .exponential])
        #expect(scenario.sweeping("sync-timing", value: "poisson") == nil)
        #expect(scenario.sweeping("sync-interval", value: "30s")?.replicas.map(\.syncEveryMilliseconds) == [30_000, 30_000])
        #expect(scenario.sweeping("sync-interval", value: "exponential") == nil && scenario.sweeping("edit-timing", to: 5_000) == nil)
        #expect(Scenario.isSweepValue("edit-timing", "fixed") && !Scenario.isSweepValue("edit-timing", "10s") && Scenario.isSweepValue("edit-interval", "10s"))
    }

    @Test func badVersion2ScenariosAreRefusedWithTheLineAndTheReason() {
        let head = "{\"memo-sim scenario\": 2,\n\"lengthMilliseconds\": 600000,\n\"replicas\": [\n{\"name\": \"a\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000},\n{\"name\": \"b\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000, \"joinAtMilliseconds\": 100000}],\n"
        let cases: [(text: String, line: Int, reason: String)] = [
            (head.replacingOccurrences(of: "scenario\": 2", with: "scenario\": 1") + "\"departures\": []}", 6, "version 2 field"),
            (head.replacingOccurrences(of: "scenario\": 2", with: "scenario\": 1").replacingOccurrences(of: "60000}", with: "60000, \"editTiming\": \"fixed\"}") + "\"comment\": \"\"}", 4, "version 2 field"),
            (head.replacingOccurrences(of: "60000}", with: "60000, \"editTiming\": \"poisson\"}") + "\"comment\": \"\"}", 4, "editTiming must be \"fixed\" or \"exponential\""),
            (head + "\"partitions\": [\n{\"replicas\": [\"a\", \"c\"], \"fromMilliseconds\": 0, \"toMilliseconds\": 5}]}", 7, "no replica is named c"),
            (head + "\"partitions\": [\n{\"replicas\": [\"a\", \"a\"], \"fromMilliseconds\": 0, \"toMilliseconds\": 5}]}", 7, "a is named twice"),
            (head + "\"partitions\": [\n{\"replicas\": [], \"fromMilliseconds\": 0, \"toMilliseconds\": 5}]}", 7, "must be a list of replicas' names"),
            (head + "\"partitions\": [\n{\"replicas\": [\"a\"], \"fromMilliseconds\": 50,\n\"toMilliseconds\": 5}]}", 8, "must end after it begins"),
            (head + "\"departures\": [\n{\"replica\": \"b\",\n\"atMilliseconds\": 100000}]}", 8, "b leaves before it joins"),
            (head + "\"departures\": [\n{\"replica\": \"a\", \"atMilliseconds\": 200000},\n{\"replica\": \"a\", \"atMilliseconds\": 300000}]}", 8, "a leaves twice"),
            (head + "\"departures\": [\n{\"replica\": \"a\", \"atMilliseconds\": 200000},\n{\"replica\": \"b\", \"atMilliseconds\": 300000}]}", 6, "at least one must stay"),
            (head + "\"departures\": [\n{\"replica\": \"a\", \"atMilliseconds\": 200000, \"graceful\": 1}]}", 7, "graceful must be true or false"),
            (head + "\"clockSkews\": [\n{\"replica\": \"a\", \"fromMilliseconds\": 0,\n\"skewMilliseconds\": -2592000001}]}", 8, "skewMilliseconds must be from -2592000000 to 2592000000"),
            (head + "\"clockSkews\": [\n{\"replica\": \"a\", \"fromMilliseconds\": 5, \"skewMilliseconds\": 1},\n{\"replica\": \"a\", \"fromMilliseconds\": 5, \"skewMilliseconds\": 2}]}", 8, "two clock skews of a"),
            (head + "\"clockSkews\": [\n{\"replica\": \"a\", \"fromMilliseconds\": 5}]}", 7, "skewMilliseconds is missing"),
            (head + "\"storeLosses\": [\n{\"atMilliseconds\": 500000,\n\"restoredFromMilliseconds\": 500000}]}", 8, "taken before it is restored"),
            (head + "\"storeLosses\": [\n{\"atMilliseconds\": 500000, \"restoredFromMilliseconds\": 1000,\n\"image\": 2}]}", 8, "either an image or restoredFromMilliseconds"),
            (head.replacingOccurrences(of: "scenario\": 2", with: "scenario\": 1") + "\"storeLosses\": [\n{\"atMilliseconds\": 500000, \"restoredFromMilliseconds\": 1000}]}", 7, "version 2 field"),
        ]
        for (text, line, reason) in cases {
            do throws(ScenarioError) {
                _ = try Scenario(parsing: text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.line == line, "\(error) for \(text)")
                #expect(error.reason.contains(reason), "\(error) for \(text)")
            }
        }
        // A graceful-less departure and a version-1 file still read.
        #expect(throws: Never.self) { _ = try Scenario(parsing: head + "\"departures\": [{\"replica\": \"a\", \"atMilliseconds\": 5, \"graceful\": false}]}") }
        #expect(throws: Never.self) { _ = try Scenario(parsing: Self.small) }
    }

    @Test func badScenariosAreRefusedWithTheLineAndTheReason() {
        let cases: [(text: String, line: Int, reason: String)] = [
            ("{\n  \"memo-sim scenario\": 1,\n  \"lengthMilliseconds\": 1.5\n}", 3, "only integers"),
            ("{\"lengthMilliseconds\": 5}", 1, "\"memo-sim scenario\": 1 is missing"),
            ("{\"memo-sim scenario\": 3}", 1, "unknown scenario version"),
            ("{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000,\n\"replicaz\": []}", 3, "unknown field replicaz"),
            ("{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000,\n\"replicas\": [\n{\"name\": \"a\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000}]}", 3, "2 to 64 replicas"),
            (
                "{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000,\n\"replicas\": [\n{\"name\": \"a\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000},\n{\"name\": \"a\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000}]}",
                5, "two replicas are named a"
            ),
            (
                "{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000,\n\"replicas\": [\n{\"name\": \"a\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000},\n{\"name\": \"b\",\n \"syncEveryMilliseconds\": -5, \"editEveryMilliseconds\": 60000}]}",
                6, "syncEveryMilliseconds must be from"
            ),
            (
                "{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000,\n\"replicas\": [\n{\"name\": \"a\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000},\n{\"name\": \"b\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000}],\n\"offline\": [\n{\"replica\": \"c\", \"fromMilliseconds\": 0, \"toMilliseconds\": 5}]}",
                7, "no replica is named c"
            ),
            (
                "{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000,\n\"replicas\": [\n{\"name\": \"a\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000},\n{\"name\": \"b\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000}],\n\"offline\": [\n{\"replica\": \"a\", \"fromMilliseconds\": 50,\n\"toMilliseconds\": 5}]}",
                8, "must end after it begins"
            ),
            (
                "{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000,\n\"replicas\": [\n{\"name\": \"a\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000, \"joinAtMilliseconds\": 5},\n{\"name\": \"b\", \"syncEveryMilliseconds\": 60000, \"editEveryMilliseconds\": 60000, \"joinAtMilliseconds\": 9}]}",
                3, "from the start"
            ),
            ("{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000,\n\"replicas\": [\n\"a\", \"b\"]}", 4, "must be an object"),
            ("{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 600000", 2, "unexpected end"),
            // Simulations/README.md: "A schedule of more than two million events is refused."
            // Two replicas syncing and editing every second for six days: 2,073,600 events.
            (
                "{\"memo-sim scenario\": 1,\n\"lengthMilliseconds\": 518400000,\n\"replicas\": [\n{\"name\": \"a\", \"syncEveryMilliseconds\": 1000, \"editEveryMilliseconds\": 1000},\n{\"name\": \"b\", \"syncEveryMilliseconds\": 1000, \"editEveryMilliseconds\": 1000}]}",
                3, "more than 2000000"
            ),
        ]
        for (text, line, reason) in cases {
            do throws(ScenarioError) {
                _ = try Scenario(parsing: text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.line == line, "\(error) for \(text)")
                #expect(error.reason.contains(reason), "\(error) for \(text)")
            }
        }
    }
}
