import Foundation
import MemoSimulation
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

    @Test func badScenariosAreRefusedWithTheLineAndTheReason() {
        let cases: [(text: String, line: Int, reason: String)] = [
            ("{\n  \"memo-sim scenario\": 1,\n  \"lengthMilliseconds\": 1.5\n}", 3, "only integers"),
            ("{\"lengthMilliseconds\": 5}", 1, "\"memo-sim scenario\": 1 is missing"),
            ("{\"memo-sim scenario\": 2}", 1, "unknown scenario version"),
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
