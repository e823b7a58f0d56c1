/// Makes a failing trace smaller while it still fails the same way: fewer replicas, fewer
/// events, fewer faults, shorter typing runs.
///
/// Greedy passes, repeated while any of them helps: drop each replica with all its events;
/// drop chunks of events (halves, quarters, ... single events, as delta debugging does); turn
/// each fault off; halve lengths and durations inside events. A candidate is kept when its run
/// still fails the same way (by default: breaks the same invariant; `memo-sim` also shrinks
/// runs that crash the process, running each candidate in a child process). Every candidate
/// run is deterministic, so the result replays.
public struct Shrinker {
    /// Whether a candidate still fails the way being shrunk.
    public let reproduces: (Trace) -> Bool
    /// The name of the failure, written into the trace (`expect ...`).
    public let failureName: String
    /// Stop after this many candidate runs, or this many real seconds.
    public var runsMax = 5_000
    public var secondsMax = 600.0
    /// Receives a line per improvement.
    public var progress: (String) -> Void = { _ in }

    /// A shrinker for traces that break `invariant`.
    public init(invariant: Invariant) {
        self.init(failureName: invariant.rawValue) { trace in
            Simulation(trace: trace).run().violation?.invariant == invariant
        }
    }

    /// A shrinker for traces that `reproduces` says fail.
    public init(failureName: String, reproduces: @escaping (Trace) -> Bool) {
        self.failureName = failureName
        self.reproduces = reproduces
    }

    /// The smallest failing trace found from `trace` (which must fail).
    public func shrink(_ trace: Trace) -> Trace? {
        guard reproduces(trace) else { return nil }
        var best = trace
        best.parameters.steps = best.events.count
        var runs = 0
        let clock = ContinuousClock()
        let start = clock.now
        func outOfBudget() -> Bool { runs >= runsMax || seconds(clock.now - start) >= secondsMax }
        func attempt(_ candidate: Trace) -> Bool {
            guard !outOfBudget() else { return false }
            runs += 1
            guard reproduces(candidate) else { return false }
            best = candidate
            return true
        }
        var improved = true
        while improved && !outOfBudget() {
            improved = false
            // Replicas, highest first.
            var peer = best.parameters.replicaCount - 1
            while peer >= 0 && best.parameters.replicaCount > 1 {
                if let candidate = Self.removing(peer: peer, from: best), attempt(candidate) {
                    improved = true
                    progress("\(best.parameters.replicaCount) replicas, \(best.events.count) events")
                }
                peer -= 1
            }
            // Chunks of events.
            var chunk = max(1, best.events.count / 2)
            while chunk >= 1 && !outOfBudget() {
                var index = 0
                var removedAny = false
                while index < best.events.count {
                    var candidate = best
                    candidate.events.removeSubrange(index..<min(best.events.count, index + chunk))
                    candidate.parameters.steps = candidate.events.count
                    if attempt(candidate) {
                        removedAny = true
                        improved = true
                    } else {
                        index += chunk
                    }
                }
                if removedAny { progress("\(best.parameters.replicaCount) replicas, \(best.events.count) events") }
                if chunk == 1 { break }
                chunk /= 2
            }
            // Faults.
            for kind in best.parameters.faults.keys.sorted() {
                var candidate = best
                candidate.parameters.faults[kind] = nil
                if attempt(candidate) {
                    improved = true
                    progress("without fault \(kind.rawValue)")
                }
            }
            // Smaller events.
            for index in best.events.indices.reversed() {
                guard index < best.events.count, let smaller = Self.simplified(best.events[index].action) else { continue }
                var candidate = best
                candidate.events[index].action = smaller
                if attempt(candidate) { improved = true }
            }
        }
        best.expectedFailure = failureName
        progress("done after \(runs) runs: \(best.parameters.replicaCount) replicas, \(best.events.count) events, faults \(best.parameters.faults.keys.sorted().map(\.rawValue))")
        return best
    }

    /// `trace` without replica `peer` and its events; replicas above it move down by one.
    static func removing(peer: Int, from trace: Trace) -> Trace? {
        var result = trace
        let p = trace.parameters
        guard p.replicaCount > 1 else { return nil }
        func renumber(_ index: Int) -> Int { index > peer ? index - 1 : index }
        result.events = trace.events.compactMap { event in
            guard event.peer != peer else { return nil }
            var event = event
            event.peer = renumber(event.peer)
            switch event.action {
            case let .concurrentType(peers, direction, length, memo, at):
                let others = peers.filter { $0 != peer }.map(renumber)
                event.action = .concurrentType(peers: others, direction: direction, length: length, memo: memo, at: at)
            case let .join(cloneOf?):
                event.action = .join(cloneOf: cloneOf == peer ? nil : renumber(cloneOf))
            default:
                break
            }
            return event
        }
        result.parameters.replicaCount = p.replicaCount - 1
        result.parameters.founderCount = max(1, p.founderCount - (peer < p.founderCount ? 1 : 0))
        result.parameters.steps = result.events.count
        return result
    }

    /// A smaller version of `action` (halved lengths and durations), or nil.
    static func simplified(_ action: ScriptAction) -> ScriptAction? {
        func half(_ value: Int) -> Int? { value > 1 ? value / 2 : nil }
        func halfTime(_ value: UInt64) -> UInt64? { value > 1 ? value / 2 : nil }
        switch action {
        case let .type(direction, length, memo, at):
            if direction == .backward { return .type(direction: .forward, length: length, memo: memo, at: at) }
            return half(length).map { .type(direction: direction, length: $0, memo: memo, at: at) }
        case let .caretType(length): return half(length).map { .caretType(length: $0) }
        case let .concurrentType(peers, direction, length, memo, at):
            if peers.count > 1 { return .concurrentType(peers: Array(peers.dropLast()), direction: direction, length: length, memo: memo, at: at) }
            return half(length).map { .concurrentType(peers: peers, direction: direction, length: $0, memo: memo, at: at) }
        case let .paste(length, memo, at): return half(length).map { .paste(length: $0, memo: memo, at: at) }
        case let .deleteRange(length, memo, at): return half(length).map { .deleteRange(length: $0, memo: memo, at: at) }
        case let .backspace(count, memo, at): return half(count).map { .backspace(count: $0, memo: memo, at: at) }
        case let .replaceRange(deleted, inserted, memo, at):
            if let smaller = half(inserted) { return .replaceRange(deleted: deleted, inserted: smaller, memo: memo, at: at) }
            return half(deleted).map { .replaceRange(deleted: $0, inserted: inserted, memo: memo, at: at) }
        case let .create(length): return half(length).map { .create(length: $0) }
        case let .undo(memo, count): return half(count).map { .undo(memo: memo, count: $0) }
        case let .crash(point, down): return halfTime(down).map { .crash(point: point, downMilliseconds: $0) }
        case let .offline(milliseconds): return halfTime(milliseconds).map { .offline(milliseconds: $0) }
        case let .storeFull(milliseconds): return halfTime(milliseconds).map { .storeFull(milliseconds: $0) }
        case let .leave(graceful): return graceful ? .leave(graceful: false) : nil
        case let .join(cloneOf?): _ = cloneOf; return .join(cloneOf: nil)
        default: return nil
        }
    }
}
