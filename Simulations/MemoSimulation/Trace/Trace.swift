/// A complete description of a run: its parameters and its scheduled events. Running a trace
/// is deterministic; `memo-sim --seed S` generates the trace of seed S and runs it, `--shrink`
/// makes a failing trace smaller, and `--replay FILE` runs a trace written as text.
///
/// The text form (one item per line, `#` starts a comment):
///
///     memo-sim trace 1
///     seed 42
///     engine replica
///     replicas 8
///     founders 6
///     steps 2000
///     features backspace,create,paste,type-forward
///     fault crash 0.75
///     fault delay 0.2
///     delay-max-ms 172800000
///     snapshot-after-segments 8
///     snapshot-every-operations 500
///     grace-period-ms 3600000
///     memos-max 20
///     memo-scalars-max 800
///     intention-check 1
///     expect intention
///     events
///     1200 r3 type dir=fwd len=7 memo=2914 at=1932211
///     1890 r1 sync
///     ...
///
/// Times are simulated milliseconds; `memo` and `at` are selectors resolved when the event runs
/// (`at` as a fraction of 2^32 of the text length).
public struct Trace: Sendable, Equatable {
    /// Everything but the events.
    public var parameters: SimulationParameters
    /// The events, in time order.
    public var events: [ScriptEvent]
    /// The invariant a failing trace is expected to break (written by `--shrink`), if any.
    public var expectedFailure: String?

    /// A trace.
    public init(parameters: SimulationParameters, events: [ScriptEvent], expectedFailure: String? = nil) {
        self.parameters = parameters
        self.events = events
        self.expectedFailure = expectedFailure
    }

    /// The trace of seed `seed` with `options`: parameters drawn from the seed, then events.
    public static func generate(seed: UInt64, options: SimulationOptions) -> Trace {
        let parameters = SimulationParameters.draw(seed: seed, options: options)
        return Trace(parameters: parameters, events: ScriptGenerator(parameters: parameters).generate())
    }
}

/// Why a trace could not be read.
public struct TraceParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line.
    public var line: Int
    /// What is wrong.
    public var reason: String

    public var description: String { "trace line \(line): \(reason)" }
}

extension Trace {
    // MARK: Writing

    /// The trace as text (see the type's description).
    public var text: String {
        let p = parameters
        var lines: [String] = ["memo-sim trace 1"]
        lines.append("seed \(p.seed)")
        lines.append("engine \(p.engine.rawValue)")
        lines.append("replicas \(p.replicaCount)")
        lines.append("founders \(p.founderCount)")
        lines.append("steps \(p.steps)")
        lines.append("features \(p.features.map(\.rawValue).joined(separator: ","))")
        for kind in p.faults.keys.sorted() {
            lines.append("fault \(kind.rawValue) \(p.faults[kind]!)")
        }
        lines.append("delay-max-ms \(p.visibilityDelayMaxMilliseconds)")
        lines.append("snapshot-after-segments \(p.snapshotAfterSegments)")
        lines.append("snapshot-every-operations \(p.snapshotEveryOperations)")
        lines.append("grace-period-ms \(p.gracePeriodMilliseconds)")
        lines.append("memos-max \(p.memosMax)")
        lines.append("memo-scalars-max \(p.memoScalarsMax)")
        lines.append("intention-check \(p.intentionCheckProbability)")
        if let mutant = p.mutant { lines.append("mutant \(mutant)") }
        if let expectedFailure { lines.append("expect \(expectedFailure)") }
        lines.append("events")
        for event in events { lines.append(Self.line(for: event)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One event as a line.
    public static func line(for event: ScriptEvent) -> String {
        "\(event.time) r\(event.peer) \(describe(event.action))"
    }

    /// An action as words.
    public static func describe(_ action: ScriptAction) -> String {
        switch action {
        case let .type(direction, length, memo, at): "type dir=\(direction.rawValue) len=\(length) memo=\(memo) at=\(at)"
        case let .caretType(length): "caret-type len=\(length)"
        case let .concurrentType(peers, direction, length, memo, at):
            "concurrent peers=\(peers.map(String.init).joined(separator: ",")) dir=\(direction.rawValue) len=\(length) memo=\(memo) at=\(at)"
        case let .paste(length, memo, at): "paste len=\(length) memo=\(memo) at=\(at)"
        case let .deleteRange(length, memo, at): "delete len=\(length) memo=\(memo) at=\(at)"
        case let .backspace(count, memo, at): "backspace len=\(count) memo=\(memo) at=\(at)"
        case let .replaceRange(deleted, inserted, memo, at): "replace del=\(deleted) len=\(inserted) memo=\(memo) at=\(at)"
        case let .replaceAll(mode, memo, choice): "replace-all mode=\(mode) memo=\(memo) choice=\(choice)"
        case let .create(length): "create len=\(length)"
        case let .trash(memo): "trash memo=\(memo)"
        case let .restore(memo): "restore memo=\(memo)"
        case let .purge(memo): "purge memo=\(memo)"
        case let .undo(memo, count): "undo memo=\(memo) len=\(count)"
        case let .redo(memo): "redo memo=\(memo)"
        case .sync: "sync"
        case .save: "save"
        case .compact: "compact"
        case let .crash(point, down):
            switch point {
            case .now: "crash down=\(down)"
            case let .disk(operations, performs): "crash disk-op=\(operations) performs=\(performs ? 1 : 0) down=\(down)"
            case let .store(operations, performs): "crash store-op=\(operations) performs=\(performs ? 1 : 0) down=\(down)"
            }
        case .backup: "backup"
        case let .restoreBackup(which): "restore-backup which=\(which)"
        case let .join(cloneOf): cloneOf.map { "join clone=\($0)" } ?? "join"
        case let .leave(graceful): "leave graceful=\(graceful ? 1 : 0)"
        case let .offline(milliseconds): "offline ms=\(milliseconds)"
        case let .clockJump(milliseconds): "clock-jump ms=\(milliseconds)"
        case let .storeFull(milliseconds): "store-full ms=\(milliseconds)"
        case let .storeLoss(which): "store-loss which=\(which)"
        }
    }

    // MARK: Reading

    /// Reads a trace written by ``text``.
    public init(parsing text: String) throws(TraceParseError) {
        var header: [String: String] = [:]
        var faults: [FaultKind: Double] = [:]
        var events: [ScriptEvent] = []
        var inEvents = false
        var sawMagic = false
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let words = line.split(separator: " ").map(String.init)
            guard !words.isEmpty else { continue }
            if !sawMagic {
                guard words == ["memo-sim", "trace", "1"] else {
                    throw TraceParseError(line: lineNumber, reason: "not a memo-sim trace (expected \"memo-sim trace 1\")")
                }
                sawMagic = true
                continue
            }
            if inEvents {
                guard events.count < 10_000_000 else { throw TraceParseError(line: lineNumber, reason: "too many events") }
                events.append(try Self.parseEvent(words, line: lineNumber))
                continue
            }
            switch words[0] {
            case "events":
                inEvents = true
            case "fault":
                guard words.count == 3, let kind = FaultKind(rawValue: words[1]), let rate = Double(words[2]), rate >= 0, rate.isFinite else {
                    throw TraceParseError(line: lineNumber, reason: "expected \"fault NAME RATE\"")
                }
                faults[kind] = rate
            default:
                guard words.count == 2 else { throw TraceParseError(line: lineNumber, reason: "expected \"NAME VALUE\"") }
                header[words[0]] = words[1]
            }
        }
        guard sawMagic else { throw TraceParseError(line: 1, reason: "empty trace") }
        func number<T: FixedWidthInteger>(_ name: String, _ range: ClosedRange<T>) throws(TraceParseError) -> T {
            guard let text = header[name], let value = T(text), range.contains(value) else {
                throw TraceParseError(line: 0, reason: "missing or invalid \"\(name)\" (\(range.lowerBound)...\(range.upperBound))")
            }
            return value
        }
        let replicaCount: Int = try number("replicas", 1...64)
        var features: [WorkloadFeature] = []
        for name in (header["features"] ?? "").split(separator: ",") {
            guard let feature = WorkloadFeature(rawValue: String(name)) else {
                throw TraceParseError(line: 0, reason: "unknown feature \"\(name)\"")
            }
            features.append(feature)
        }
        var parameters = SimulationParameters(
            seed: try number("seed", 0...UInt64.max), replicaCount: replicaCount,
            founderCount: try number("founders", 1...replicaCount), steps: try number("steps", 0...100_000_000),
            features: features.sorted(), faults: faults)
        guard let engine = EngineLevel(rawValue: header["engine"] ?? "replica") else {
            throw TraceParseError(line: 0, reason: "unknown engine")
        }
        parameters.engine = engine
        parameters.visibilityDelayMaxMilliseconds = try number("delay-max-ms", 1...UInt64(1) << 40)
        parameters.snapshotAfterSegments = try number("snapshot-after-segments", 1...1_000_000)
        parameters.snapshotEveryOperations = try number("snapshot-every-operations", 1...100_000_000)
        parameters.gracePeriodMilliseconds = try number("grace-period-ms", 0...UInt64(1) << 40)
        parameters.memosMax = try number("memos-max", 1...10_000)
        parameters.memoScalarsMax = try number("memo-scalars-max", 1...1_000_000)
        guard let check = Double(header["intention-check"] ?? "1"), check >= 0, check <= 1 else {
            throw TraceParseError(line: 0, reason: "invalid \"intention-check\"")
        }
        parameters.intentionCheckProbability = check
        if let mutant = header["mutant"], let problem = SimulationParameters.mutantProblem(mutant) {
            throw TraceParseError(line: 0, reason: problem)
        }
        parameters.mutant = header["mutant"]
        for (index, event) in events.enumerated() {
            guard event.peers.allSatisfy({ $0 >= 0 && $0 < replicaCount }) else {
                throw TraceParseError(line: 0, reason: "event \(index + 1) names a replica outside 0..<\(replicaCount)")
            }
            if index > 0 && events[index - 1].time > event.time {
                throw TraceParseError(line: 0, reason: "event \(index + 1) is earlier than the one before it")
            }
        }
        self.init(parameters: parameters, events: events, expectedFailure: header["expect"])
    }

    static func parseEvent(_ words: [String], line: Int) throws(TraceParseError) -> ScriptEvent {
        func fail(_ reason: String) -> TraceParseError { TraceParseError(line: line, reason: reason) }
        guard words.count >= 3, let time = UInt64(words[0]), words[1].hasPrefix("r"), let peer = Int(words[1].dropFirst()), peer >= 0 else {
            throw fail("expected \"TIME rN ACTION key=value...\"")
        }
        var fields: [String: String] = [:]
        for word in words.dropFirst(3) {
            let parts = word.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw fail("expected key=value, got \"\(word)\"") }
            fields[String(parts[0])] = String(parts[1])
        }
        func int(_ key: String, _ range: ClosedRange<Int> = 0...1_000_000) throws(TraceParseError) -> Int {
            guard let text = fields[key], let value = Int(text), range.contains(value) else { throw fail("missing or invalid \(key)") }
            return value
        }
        func selector(_ key: String) throws(TraceParseError) -> UInt32 {
            guard let text = fields[key], let value = UInt32(text) else { throw fail("missing or invalid \(key)") }
            return value
        }
        func milliseconds(_ key: String) throws(TraceParseError) -> UInt64 {
            guard let text = fields[key], let value = UInt64(text), value <= UInt64(1) << 45 else { throw fail("missing or invalid \(key)") }
            return value
        }
        func direction() throws(TraceParseError) -> TypingDirection {
            guard let direction = TypingDirection(rawValue: fields["dir"] ?? "") else { throw fail("missing or invalid dir") }
            return direction
        }
        let action: ScriptAction
        switch words[2] {
        case "type": action = .type(direction: try direction(), length: try int("len"), memo: try selector("memo"), at: try selector("at"))
        case "caret-type": action = .caretType(length: try int("len"))
        case "concurrent":
            var peers: [Int] = []
            for part in (fields["peers"] ?? "").split(separator: ",") {
                guard let value = Int(part), value >= 0 else { throw fail("invalid peers") }
                peers.append(value)
            }
            action = .concurrentType(peers: peers, direction: try direction(), length: try int("len"), memo: try selector("memo"), at: try selector("at"))
        case "paste": action = .paste(length: try int("len"), memo: try selector("memo"), at: try selector("at"))
        case "delete": action = .deleteRange(length: try int("len"), memo: try selector("memo"), at: try selector("at"))
        case "backspace": action = .backspace(count: try int("len"), memo: try selector("memo"), at: try selector("at"))
        case "replace":
            action = .replaceRange(deleted: try int("del"), inserted: try int("len"), memo: try selector("memo"), at: try selector("at"))
        case "replace-all": action = .replaceAll(mode: try int("mode", 0...2), memo: try selector("memo"), choice: try selector("choice"))
        case "create": action = .create(length: try int("len"))
        case "trash": action = .trash(memo: try selector("memo"))
        case "restore": action = .restore(memo: try selector("memo"))
        case "purge": action = .purge(memo: try selector("memo"))
        case "undo": action = .undo(memo: try selector("memo"), count: try int("len", 1...1_000))
        case "redo": action = .redo(memo: try selector("memo"))
        case "sync": action = .sync
        case "save": action = .save
        case "compact": action = .compact
        case "crash":
            let down = try milliseconds("down")
            if fields["disk-op"] != nil {
                action = .crash(point: .disk(operations: try int("disk-op", 1...1_000), performs: try int("performs", 0...1) == 1), downMilliseconds: down)
            } else if fields["store-op"] != nil {
                action = .crash(point: .store(operations: try int("store-op", 1...1_000), performs: try int("performs", 0...1) == 1), downMilliseconds: down)
            } else {
                action = .crash(point: .now, downMilliseconds: down)
            }
        case "backup": action = .backup
        case "restore-backup": action = .restoreBackup(which: try selector("which"))
        case "join": action = .join(cloneOf: fields["clone"] == nil ? nil : try int("clone", 0...63))
        case "leave": action = .leave(graceful: try int("graceful", 0...1) == 1)
        case "offline": action = .offline(milliseconds: try milliseconds("ms"))
        case "clock-jump":
            guard let text = fields["ms"], let value = Int64(text), value.magnitude <= UInt64(1) << 44 else { throw fail("missing or invalid ms") }
            action = .clockJump(milliseconds: value)
        case "store-full": action = .storeFull(milliseconds: try milliseconds("ms"))
        case "store-loss": action = .storeLoss(which: try selector("which"))
        default: throw fail("unknown action \"\(words[2])\"")
        }
        return ScriptEvent(time: time, peer: peer, action: action)
    }
}
