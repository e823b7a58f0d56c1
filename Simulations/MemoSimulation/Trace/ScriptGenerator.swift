/// Draws the events of a run from its parameters: who does what when.
///
/// Time advances between events by gaps that are mostly short (keystrokes and pauses), some
/// longer (minutes to an hour) and a few very long (a device unused for hours or days). Each
/// event picks a running replica (some more active than others) and an action with weights
/// from the features and faults that are on. Late joiners join at random points; some
/// replicas leave for good (never the last two).
struct ScriptGenerator {
    let parameters: SimulationParameters

    /// The weight of each kind of event.
    private enum Kind: CaseIterable {
        case type, typeBackward, caret, paste, delete, backspace, replace, replaceAll, concurrent, create, trash, restore, purge, undo, redo
        case sync, save, compact, crash, offline, clockJump, backup, restoreBackup, storeFull, storeLoss, keyBlob
    }

    private func weight(_ kind: Kind, liveCount: Int, syncWeight: Double) -> Double {
        let p = parameters
        func on(_ feature: WorkloadFeature, _ value: Double) -> Double { p.has(feature) ? value : 0 }
        let replica = p.engine == .replica
        switch kind {
        case .type: return 30
        case .typeBackward: return on(.typeBackward, 5)
        case .caret: return on(.caretTyping, 8)
        case .paste: return on(.paste, 5)
        case .delete: return on(.deleteRange, 5)
        case .backspace: return on(.backspace, 5)
        case .replace: return on(.replaceRange, 4)
        case .replaceAll: return on(.replaceAll, 1.5)
        case .concurrent: return liveCount >= 2 ? on(.concurrentTyping, 3) : 0
        case .create: return on(.createMemo, 3)
        case .trash: return on(.trash, 1.2)
        case .restore: return on(.restore, 1)
        case .purge: return on(.purge, 0.7)
        case .undo: return on(.undo, 3)
        case .redo: return on(.redo, 1)
        case .sync: return syncWeight
        case .save: return replica ? on(.save, 4) : 0
        case .compact: return replica ? on(.compact, 0.5) : 0
        case .crash: return replica ? p.rate(.crash) : 0
        case .offline: return p.rate(.offline)
        case .clockJump: return p.rate(.clockJumps)
        case .backup: return replica ? 2 * p.rate(.restoreOldCopy) : 0
        case .restoreBackup: return replica ? p.rate(.restoreOldCopy) : 0
        case .storeFull: return replica ? p.rate(.storeFull) * 0.5 : 0
        case .storeLoss: return replica ? p.rate(.storeLoss) * 0.3 : 0
        case .keyBlob: return replica ? p.rate(.keyBlob) : 0
        }
    }

    func generate() -> [ScriptEvent] {
        let p = parameters
        var random = SimulationRandom(seed: p.seed, stream: 2)
        let steps = p.steps
        var live = Array(0..<p.founderCount)
        // Join points for the others, leave points for a few.
        var joins: [(step: Int, peer: Int)] = []
        for peer in p.founderCount..<p.replicaCount {
            joins.append((random.int(in: 0...max(0, steps * 4 / 5)), peer))
        }
        joins.sort { ($0.step, $0.peer) < ($1.step, $1.peer) }
        var leaveSteps: [Int] = []
        if p.has(.leave) {
            for _ in 0..<random.int(in: 0...max(0, (p.replicaCount - 2) / 3)) { leaveSteps.append(random.int(in: 0..<max(1, steps))) }
            leaveSteps.sort()
        }
        var activity = (0..<p.replicaCount).map { _ in 0.2 + random.unit() }
        // How often replicas sync, relative to typing: from every few actions to rarely.
        let syncWeight = random.pick([3.0, 6, 14])
        var events: [ScriptEvent] = []
        events.reserveCapacity(steps + joins.count + leaveSteps.count)
        var time: UInt64 = 0
        var joinIndex = 0
        var leaveIndex = 0
        for step in 0..<steps {
            time += gap(&random)
            while joinIndex < joins.count && joins[joinIndex].step <= step {
                let peer = joins[joinIndex].peer
                var cloneOf: Int?
                if p.has(.clone) && random.chance(0.3), let source = live.isEmpty ? nil : random.pick(live) { cloneOf = source }
                events.append(ScriptEvent(time: time, peer: peer, action: .join(cloneOf: cloneOf)))
                live.append(peer)
                joinIndex += 1
            }
            while leaveIndex < leaveSteps.count && leaveSteps[leaveIndex] <= step {
                leaveIndex += 1
                guard live.count > 2 else { continue }
                let peer = live.remove(at: random.int(in: 0..<live.count))
                events.append(ScriptEvent(time: time, peer: peer, action: .leave(graceful: random.chance(0.5))))
                activity[peer] = 0
            }
            guard !live.isEmpty else { continue }
            let peer = live[random.weighted(live.map { activity[$0] })]
            let kinds = Kind.allCases
            let kind = kinds[random.weighted(kinds.map { weight($0, liveCount: live.count, syncWeight: syncWeight) })]
            events.append(ScriptEvent(time: time, peer: peer, action: action(kind, peer: peer, live: live, random: &random)))
        }
        return events
    }

    /// The time to the next event: mostly under ten seconds, sometimes minutes, rarely days.
    private func gap(_ random: inout SimulationRandom) -> UInt64 {
        switch random.weighted([90, 8, 2]) {
        case 0: random.logUniform(20, 10 * SimulatedTime.second)
        case 1: random.logUniform(10 * SimulatedTime.second, SimulatedTime.hour)
        default: random.logUniform(SimulatedTime.hour, 3 * SimulatedTime.day)
        }
    }

    private func action(_ kind: Kind, peer: Int, live: [Int], random: inout SimulationRandom) -> ScriptAction {
        func selector() -> UInt32 { UInt32(truncatingIfNeeded: random.next() >> 32) }
        func length(_ low: UInt64, _ high: UInt64) -> Int { Int(random.logUniform(low, high)) }
        switch kind {
        case .type: return .type(direction: .forward, length: length(1, 80), memo: selector(), at: selector())
        case .typeBackward: return .type(direction: .backward, length: length(1, 20), memo: selector(), at: selector())
        case .caret: return .caretType(length: length(1, 30))
        case .paste: return .paste(length: length(2, 300), memo: selector(), at: selector())
        case .delete: return .deleteRange(length: length(1, 80), memo: selector(), at: selector())
        case .backspace: return .backspace(count: length(1, 20), memo: selector(), at: selector())
        case .replace: return .replaceRange(deleted: length(1, 30), inserted: length(1, 30), memo: selector(), at: selector())
        case .replaceAll: return .replaceAll(mode: random.weighted([1, 3, 0.5]), memo: selector(), choice: selector())
        case .concurrent:
            var others = live.filter { $0 != peer }
            random.shuffle(&others)
            let count = random.int(in: 1...min(4, others.count))
            return .concurrentType(
                peers: Array(others.prefix(count)), direction: random.chance(0.75) ? .forward : .backward, length: length(1, 25),
                memo: selector(), at: selector())
        case .create: return .create(length: random.chance(0.3) ? 0 : length(1, 200))
        case .trash: return .trash(memo: selector())
        case .restore: return .restore(memo: selector())
        case .purge: return .purge(memo: selector())
        case .undo: return .undo(memo: selector(), count: random.int(in: 1...3))
        case .redo: return .redo(memo: selector())
        case .sync: return .sync
        case .save: return .save
        case .compact: return .compact
        case .crash:
            let down = random.logUniform(100, SimulatedTime.day)
            switch random.weighted([4, 3, 3]) {
            case 0: return .crash(point: .now, downMilliseconds: down)
            case 1: return .crash(point: .disk(operations: random.int(in: 1...8), performs: random.chance(0.5)), downMilliseconds: down)
            default: return .crash(point: .store(operations: random.int(in: 1...12), performs: random.chance(0.5)), downMilliseconds: down)
            }
        case .offline: return .offline(milliseconds: random.logUniform(SimulatedTime.minute, 3 * SimulatedTime.day))
        case .clockJump:
            let magnitude = Int64(random.logUniform(SimulatedTime.second, 30 * SimulatedTime.day))
            return .clockJump(milliseconds: random.chance(0.5) ? magnitude : -magnitude)
        case .backup: return .backup
        case .restoreBackup: return .restoreBackup(which: selector())
        case .storeFull: return .storeFull(milliseconds: random.logUniform(SimulatedTime.minute, SimulatedTime.day))
        case .storeLoss: return .storeLoss(which: selector())
        case .keyBlob: return .keyBlob(which: selector())
        }
    }
}
