import MemoSync

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
///     state-list-min-bytes 0
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
        generate(parameters: SimulationParameters.draw(seed: seed, options: options))
    }

    /// The trace of `parameters` as given (drawn by ``SimulationParameters/draw(seed:options:)``
    /// and then changed, say a fault's rate raised): its events drawn from its seed.
    public static func generate(parameters: SimulationParameters) -> Trace {
        Trace(parameters: parameters, events: ScriptGenerator(parameters: parameters).generate())
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
        if let limit = p.decodedTextLimitOverride { lines.append("decoded-texts \(limit)") }
        lines.append("state-list-min-bytes \(p.stateListMinimumBytes)")
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
        case let .storeBackup(slot): "store-backup slot=\(slot)"
        case let .storeRestore(slot): "store-restore slot=\(slot)"
        case let .keyBlob(which): "key-blob which=\(which)"
        }
    }

    // MARK: Reading

    /// Reads a trace written by ``text``.
    public init(parsing text: String) throws(TraceParseError) {
        let lines = try Self.readLines(text)
        let parameters = try Self.parameters(header: lines.header, faults: lines.faults)
        try Self.checkEvents(lines.events, replicaCount: parameters.replicaCount)
        self.init(parameters: parameters, events: lines.events, expectedFailure: lines.header["expect"])
    }

    /// The lines of a trace, read but not yet checked against each other.
    private struct TraceLines {
        /// The header's `NAME VALUE` lines.
        var header: [String: String] = [:]
        /// The `fault NAME RATE` lines.
        var faults: [FaultKind: Double] = [:]
        /// The lines after `events`.
        var events: [ScriptEvent] = []
    }

    /// Reads the magic line, the header lines up to `events`, then one event per line.
    private static func readLines(_ text: String) throws(TraceParseError) -> TraceLines {
        var lines = TraceLines()
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
                guard lines.events.count < 10_000_000 else { throw TraceParseError(line: lineNumber, reason: "too many events") }
                lines.events.append(try parseEvent(words, line: lineNumber))
                continue
            }
            switch words[0] {
            case "events":
                inEvents = true
            case "fault":
                guard words.count == 3, let kind = FaultKind(rawValue: words[1]), let rate = Double(words[2]), rate >= 0, rate.isFinite else {
                    throw TraceParseError(line: lineNumber, reason: "expected \"fault NAME RATE\"")
                }
                lines.faults[kind] = rate
            default:
                guard words.count == 2 else { throw TraceParseError(line: lineNumber, reason: "expected \"NAME VALUE\"") }
                lines.header[words[0]] = words[1]
            }
        }
        guard sawMagic else { throw TraceParseError(line: 1, reason: "empty trace") }
        return lines
    }

    /// The parameters the header and fault lines give.
    private static func parameters(header: [String: String], faults: [FaultKind: Double]) throws(TraceParseError) -> SimulationParameters {
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
        if header["decoded-texts"] != nil { parameters.decodedTextLimitOverride = try number("decoded-texts", 0...1_000_000_000) }
        // Traces written before state lists were in the simulator ran without them. (An
        // override only where the seed would give another value: a trace read back from its
        // text equals the trace written.)
        let stateListMinimumBytes =
            header["state-list-min-bytes"] == nil ? LibraryCore.stateListWorthBytes : try number("state-list-min-bytes", 0...Int.max)
        if stateListMinimumBytes != parameters.stateListMinimumBytes { parameters.stateListMinimumBytesOverride = stateListMinimumBytes }
        return parameters
    }

    /// Checks that every event names replicas of the run and that the events are in time order.
    private static func checkEvents(_ events: [ScriptEvent], replicaCount: Int) throws(TraceParseError) {
        for (index, event) in events.enumerated() {
            guard event.peers.allSatisfy({ $0 >= 0 && $0 < replicaCount }) else {
                throw TraceParseError(line: 0, reason: "event \(index + 1) names a replica outside 0..<\(replicaCount)")
            }
            if index > 0 && events[index - 1].time > event.time {
                throw TraceParseError(line: 0, reason: "event \(index + 1) is earlier than the one before it")
            }
        }
    }

    /// Reads one event line: `TIME rN ACTION key=value...`.
    static func parseEvent(_ words: [String], line: Int) throws(TraceParseError) -> ScriptEvent {
        guard words.count >= 3, let time = UInt64(words[0]), words[1].hasPrefix("r"), let peer = Int(words[1].dropFirst()), peer >= 0 else {
            throw TraceParseError(line: line, reason: "expected \"TIME rN ACTION key=value...\"")
        }
        let fields = try EventFields(words.dropFirst(3), line: line)
        return ScriptEvent(time: time, peer: peer, action: try action(words[2], fields: fields))
    }

    /// The `key=value` words of an event line, read as the values its action takes.
    private struct EventFields {
        var values: [String: String] = [:]
        /// The line, for errors.
        let line: Int

        init(_ words: ArraySlice<String>, line: Int) throws(TraceParseError) {
            self.line = line
            for word in words {
                let parts = word.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { throw fail("expected key=value, got \"\(word)\"") }
                values[String(parts[0])] = String(parts[1])
            }
        }

        func fail(_ reason: String) -> TraceParseError { TraceParseError(line: line, reason: reason) }

        subscript(_ key: String) -> String? { values[key] }

        func int(_ key: String, _ range: ClosedRange<Int> = 0...1_000_000) throws(TraceParseError) -> Int {
            guard let text = values[key], let value = Int(text), range.contains(value) else { throw fail("missing or invalid \(key)") }
            return value
        }

        /// A selector (`memo`, `at`, `which`...): resolved when the event runs.
        func selector(_ key: String) throws(TraceParseError) -> UInt32 {
            guard let text = values[key], let value = UInt32(text) else { throw fail("missing or invalid \(key)") }
            return value
        }

        func milliseconds(_ key: String) throws(TraceParseError) -> UInt64 {
            guard let text = values[key], let value = UInt64(text), value <= UInt64(1) << 45 else { throw fail("missing or invalid \(key)") }
            return value
        }

        func direction() throws(TraceParseError) -> TypingDirection {
            guard let direction = TypingDirection(rawValue: values["dir"] ?? "") else { throw fail("missing or invalid dir") }
            return direction
        }
    }

    /// The action `verb` names, with its fields `f`.
    private static func action(_ verb: String, fields f: EventFields) throws(TraceParseError) -> ScriptAction {
        switch verb {
        case "type": return .type(direction: try f.direction(), length: try f.int("len"), memo: try f.selector("memo"), at: try f.selector("at"))
        case "caret-type": return .caretType(length: try f.int("len"))
        case "concurrent":
            var peers: [Int] = []
            for part in (f["peers"] ?? "").split(separator: ",") {
                guard let value = Int(part), value >= 0 else { throw f.fail("invalid peers") }
                peers.append(value)
            }
            return .concurrentType(peers: peers, direction: try f.direction(), length: try f.int("len"), memo: try f.selector("memo"), at: try f.selector("at"))
        case "paste": return .paste(length: try f.int("len"), memo: try f.selector("memo"), at: try f.selector("at"))
        case "delete": return .deleteRange(length: try f.int("len"), memo: try f.selector("memo"), at: try f.selector("at"))
        case "backspace": return .backspace(count: try f.int("len"), memo: try f.selector("memo"), at: try f.selector("at"))
        case "replace":
            return .replaceRange(deleted: try f.int("del"), inserted: try f.int("len"), memo: try f.selector("memo"), at: try f.selector("at"))
        case "replace-all": return .replaceAll(mode: try f.int("mode", 0...2), memo: try f.selector("memo"), choice: try f.selector("choice"))
        case "create": return .create(length: try f.int("len"))
        case "trash": return .trash(memo: try f.selector("memo"))
        case "restore": return .restore(memo: try f.selector("memo"))
        case "purge": return .purge(memo: try f.selector("memo"))
        case "undo": return .undo(memo: try f.selector("memo"), count: try f.int("len", 1...1_000))
        case "redo": return .redo(memo: try f.selector("memo"))
        case "sync": return .sync
        case "save": return .save
        case "compact": return .compact
        case "crash":
            let down = try f.milliseconds("down")
            if f["disk-op"] != nil {
                return .crash(point: .disk(operations: try f.int("disk-op", 1...1_000), performs: try f.int("performs", 0...1) == 1), downMilliseconds: down)
            } else if f["store-op"] != nil {
                return .crash(point: .store(operations: try f.int("store-op", 1...1_000), performs: try f.int("performs", 0...1) == 1), downMilliseconds: down)
            }
            return .crash(point: .now, downMilliseconds: down)
        case "backup": return .backup
        case "restore-backup": return .restoreBackup(which: try f.selector("which"))
        case "join": return .join(cloneOf: f["clone"] == nil ? nil : try f.int("clone", 0...63))
        case "leave": return .leave(graceful: try f.int("graceful", 0...1) == 1)
        case "offline": return .offline(milliseconds: try f.milliseconds("ms"))
        case "clock-jump":
            guard let text = f["ms"], let value = Int64(text), value.magnitude <= UInt64(1) << 44 else { throw f.fail("missing or invalid ms") }
            return .clockJump(milliseconds: value)
        case "store-full": return .storeFull(milliseconds: try f.milliseconds("ms"))
        case "store-loss": return .storeLoss(which: try f.selector("which"))
        case "store-backup": return .storeBackup(slot: UInt32(try f.int("slot", 0...1_000_000)))
        case "store-restore": return .storeRestore(slot: UInt32(try f.int("slot", 0...1_000_000)))
        case "key-blob": return .keyBlob(which: try f.selector("which"))
        default: throw f.fail("unknown action \"\(verb)\"")
        }
    }
}
