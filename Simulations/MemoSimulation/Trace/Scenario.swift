/// A scenario file (issue 30): a study's replicas and schedule written by hand, instead of a
/// random profile. `memo-sim --scenario FILE --seed S` turns it into a trace: the schedule is
/// the file's, the texts typed and the store's latencies come from the seed. The format
/// (JSON, integers only, every time in simulated milliseconds) is documented in
/// Simulations/README.md ("Scenario files"):
///
///     {
///       "memo-sim scenario": 1,
///       "lengthMilliseconds": 86400000,
///       "replicas": [
///         {"name": "phone", "syncEveryMilliseconds": 60000, "editEveryMilliseconds": 600000},
///         {"name": "laptop", "syncEveryMilliseconds": 600000, "editEveryMilliseconds": 3600000,
///          "joinAtMilliseconds": 3600000}
///       ],
///       "offline": [{"replica": "phone", "fromMilliseconds": 0, "toMilliseconds": 7200000}],
///       "crashes": [{"replica": "laptop", "atMilliseconds": 40000000, "downMilliseconds": 60000}],
///       "storeLosses": [{"atMilliseconds": 50000000, "image": 0}]
///     }
///
/// A bad file is refused with the line and the reason (``ScenarioError``).
public struct Scenario: Sendable, Equatable {
    public struct Replica: Sendable, Equatable {
        public var name: String
        public var syncEveryMilliseconds: UInt64
        public var editEveryMilliseconds: UInt64
        public var joinAtMilliseconds: UInt64
        /// Characters per edit (a typing run).
        public var editLength: Int
        /// Whether the edits come exactly every ``editEveryMilliseconds`` or at waits drawn
        /// around that mean (version 2).
        public var editTiming: Timing = .fixed
        /// The same for syncs and ``syncEveryMilliseconds``.
        public var syncTiming: Timing = .fixed
    }

    /// How a replica's edits or syncs are spaced.
    public enum Timing: String, Sendable, Equatable, CaseIterable {
        /// Exactly the interval apart.
        case fixed
        /// Waits drawn from the exponential distribution whose mean is the interval (a
        /// Poisson process), from a random stream of the run's seed.
        case exponential
    }

    /// A replica leaving for good (version 2).
    public struct Departure: Sendable, Equatable {
        public var replica: Int
        public var at: UInt64
        /// Whether it syncs once before it goes.
        public var graceful: Bool
    }

    /// From `from` on, the replica's clock reads `skewMilliseconds` away from the true time
    /// (negative: behind) (version 2).
    public struct ClockSkew: Sendable, Equatable {
        public var replica: Int
        public var from: UInt64
        public var skewMilliseconds: Int64
    }

    public struct Window: Sendable, Equatable {
        public var replica: Int
        public var from: UInt64
        public var to: UInt64
    }

    public struct Crash: Sendable, Equatable {
        public var replica: Int
        public var at: UInt64
        public var down: UInt64
    }

    public struct StoreLoss: Sendable, Equatable {
        public var at: UInt64
        /// 0: the store is wiped; 1 to 3: replaced by one of the older images the run kept.
        public var image: UInt32
        /// Version 2: the store is replaced by itself as it was at this time instead (a backup
        /// the operator took then, restored).
        public var restoredFrom: UInt64? = nil
    }

    /// The replicas, those present from the start first (in file order), then the late
    /// joiners (in file order): a trace's founders are its first replicas.
    public var replicas: [Replica]
    public var lengthMilliseconds: UInt64
    public var offline: [Window] = []
    public var crashes: [Crash] = []
    public var storeLosses: [StoreLoss] = []
    /// Version 2: departures and clock skews (a partition is read as one offline window per
    /// replica it names).
    public var departures: [Departure] = []
    public var clockSkews: [ClockSkew] = []
    /// The file's version: 1 or 2.
    public var version = 1

    /// The versions this memo-sim reads.
    public static let versions = 1...2
    /// The fields only version 2 knows, at the top and in a replica.
    static let laterTopFields = ["departures", "clockSkews", "partitions"]
    static let laterReplicaFields = ["editTiming", "syncTiming"]
    static let laterStoreLossFields = ["restoredFromMilliseconds"]
    /// The largest clock skew a scenario may set: 30 days either way.
    public static let skewMillisecondsMax: Int64 = 30 * 86_400_000

    /// The most events a scenario may make.
    public static let eventsMax = 2_000_000

    /// Reads a scenario file.
    public init(parsing text: String) throws(ScenarioError) {
        let json: JSONText
        let lines: [String: Int]
        do throws(JSONTextError) {
            (json, lines) = try JSONText.parseWithLines(text)
        } catch {
            throw ScenarioError(line: error.line, reason: error.reason)
        }
        func fail(_ path: String, _ reason: String) -> ScenarioError {
            ScenarioError(line: lines[path] ?? 1, reason: reason)
        }
        var fileVersion = 1
        func members(_ value: JSONText, _ path: String, allowed: [String], later: [String] = []) throws(ScenarioError) -> [String: JSONText] {
            guard case let .object(members) = value else { throw fail(path, "\(path.isEmpty ? "the file" : path) must be an object") }
            let known = fileVersion >= 2 ? allowed + later : allowed
            for key in members.keys.sorted() where !known.contains(key) {
                let at = path.isEmpty ? key : path + "." + key
                if later.contains(key) { throw fail(at, "\(key) is a version 2 field: the file must say \"memo-sim scenario\": 2") }
                throw fail(at, "unknown field \(key) (known: \(known.joined(separator: ", ")))")
            }
            return members
        }
        func signed(_ members: [String: JSONText], _ path: String, _ key: String, limit: Int64) throws(ScenarioError) -> Int64 {
            let full = path + "." + key
            guard let item = members[key] else { throw fail(path, "\(full) is missing") }
            guard let number = item.int else { throw fail(full, "\(key) must be a whole number of milliseconds") }
            guard (-limit...limit).contains(Int64(number)) else { throw fail(full, "\(key) must be from \(-limit) to \(limit)") }
            return Int64(number)
        }
        func timing(_ members: [String: JSONText], _ path: String, _ key: String) throws(ScenarioError) -> Timing {
            guard let item = members[key] else { return .fixed }
            guard let name = item.string, let timing = Timing(rawValue: name) else {
                throw fail(path + "." + key, "\(key) must be \(Timing.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or "))")
            }
            return timing
        }
        func number(_ members: [String: JSONText], _ path: String, _ key: String, default value: UInt64? = nil, range: ClosedRange<UInt64> = 0...UInt64(Int.max)) throws(ScenarioError) -> UInt64 {
            let full = path.isEmpty ? key : path + "." + key
            guard let item = members[key] else {
                if let value { return value }
                throw fail(path, "\(full) is missing")
            }
            guard let number = item.int else { throw fail(full, "\(key) must be a whole number of milliseconds") }
            guard number >= 0, range.contains(UInt64(number)) else { throw fail(full, "\(key) must be from \(range.lowerBound) to \(range.upperBound)") }
            return UInt64(number)
        }
        func list(_ members: [String: JSONText], _ key: String) throws(ScenarioError) -> [JSONText] {
            guard let item = members[key] else { return [] }
            guard let items = item.array else { throw fail(key, "\(key) must be a list") }
            return items
        }

        if case let .object(fields) = json, let declared = fields["memo-sim scenario"]?.int, Self.versions.contains(declared) { fileVersion = declared }
        let top = try members(
            json, "", allowed: ["memo-sim scenario", "lengthMilliseconds", "replicas", "offline", "crashes", "storeLosses", "comment"],
            later: Self.laterTopFields)
        guard let version = top["memo-sim scenario"] else { throw fail("", "not a scenario: the field \"memo-sim scenario\": 1 is missing") }
        guard let versionNumber = version.int, Self.versions.contains(versionNumber) else {
            throw fail("memo-sim scenario", "an unknown scenario version (this memo-sim reads 1 and 2)")
        }
        self.version = versionNumber
        let length = try number(top, "", "lengthMilliseconds", range: 1...(400 * SimulatedTime.day))
        let replicaItems = try list(top, "replicas")
        guard (2...64).contains(replicaItems.count) else { throw fail(top["replicas"] == nil ? "" : "replicas", "a scenario needs 2 to 64 replicas") }
        var read: [Replica] = []
        for (index, item) in replicaItems.enumerated() {
            let path = "replicas[\(index)]"
            let fields = try members(
                item, path, allowed: ["name", "syncEveryMilliseconds", "editEveryMilliseconds", "joinAtMilliseconds", "editLength"],
                later: Self.laterReplicaFields)
            guard let name = fields["name"]?.string, !name.isEmpty else { throw fail(fields["name"] == nil ? path : path + ".name", "each replica needs a name") }
            guard !read.contains(where: { $0.name == name }) else { throw fail(path + ".name", "two replicas are named \(name)") }
            let sync = try number(fields, path, "syncEveryMilliseconds", range: min(1_000, length)...length)
            let edit = try number(fields, path, "editEveryMilliseconds", range: min(1_000, length)...length)
            let join = try number(fields, path, "joinAtMilliseconds", default: 0, range: 0...(length - 1))
            let editLength = try number(fields, path, "editLength", default: 8, range: 1...200)
            read.append(
                Replica(
                    name: name, syncEveryMilliseconds: sync, editEveryMilliseconds: edit, joinAtMilliseconds: join, editLength: Int(editLength),
                    editTiming: try timing(fields, path, "editTiming"), syncTiming: try timing(fields, path, "syncTiming")))
        }
        guard read.contains(where: { $0.joinAtMilliseconds == 0 }) else { throw fail("replicas", "at least one replica must be there from the start (joinAtMilliseconds 0)") }
        replicas = read.filter { $0.joinAtMilliseconds == 0 } + read.filter { $0.joinAtMilliseconds > 0 }
        lengthMilliseconds = length
        let names = replicas.map(\.name)
        func replica(_ fields: [String: JSONText], _ path: String) throws(ScenarioError) -> Int {
            guard let name = fields["replica"]?.string else { throw fail(path, "\(path).replica (a replica's name) is missing") }
            guard let index = names.firstIndex(of: name) else { throw fail(path + ".replica", "no replica is named \(name)") }
            return index
        }
        for (index, item) in try list(top, "offline").enumerated() {
            let path = "offline[\(index)]"
            let fields = try members(item, path, allowed: ["replica", "fromMilliseconds", "toMilliseconds"])
            let who = try replica(fields, path)
            let from = try number(fields, path, "fromMilliseconds", range: 0...length)
            let to = try number(fields, path, "toMilliseconds", range: 0...length)
            guard to > from else { throw fail(path + ".toMilliseconds", "an offline window must end after it begins") }
            offline.append(Window(replica: who, from: from, to: to))
        }
        for (index, item) in try list(top, "crashes").enumerated() {
            let path = "crashes[\(index)]"
            let fields = try members(item, path, allowed: ["replica", "atMilliseconds", "downMilliseconds"])
            let who = try replica(fields, path)
            let at = try number(fields, path, "atMilliseconds", range: 0...length)
            let down = try number(fields, path, "downMilliseconds", default: 60_000, range: 1...(30 * SimulatedTime.day))
            crashes.append(Crash(replica: who, at: at, down: down))
        }
        for (index, item) in try list(top, "storeLosses").enumerated() {
            let path = "storeLosses[\(index)]"
            let fields = try members(item, path, allowed: ["atMilliseconds", "image"], later: Self.laterStoreLossFields)
            let at = try number(fields, path, "atMilliseconds", range: 0...length)
            let image = try number(fields, path, "image", default: 0, range: 0...3)
            var loss = StoreLoss(at: at, image: UInt32(image))
            if fields["restoredFromMilliseconds"] != nil {
                guard fields["image"] == nil else {
                    throw fail(path + ".image", "a store loss is either an image or restoredFromMilliseconds, not both")
                }
                let from = try number(fields, path, "restoredFromMilliseconds", range: 0...length)
                guard from < at else { throw fail(path + ".restoredFromMilliseconds", "a backup restored must be taken before it is restored") }
                loss.restoredFrom = from
            }
            storeLosses.append(loss)
        }
        for (index, item) in try list(top, "partitions").enumerated() {
            let path = "partitions[\(index)]"
            let fields = try members(item, path, allowed: ["replicas", "fromMilliseconds", "toMilliseconds"])
            guard let group = fields["replicas"]?.array, !group.isEmpty else {
                throw fail(fields["replicas"] == nil ? path : path + ".replicas", "\(path).replicas must be a list of replicas' names")
            }
            var who: [Int] = []
            for (position, entry) in group.enumerated() {
                let at = path + ".replicas[\(position)]"
                guard let name = entry.string else { throw fail(at, "\(path).replicas must be a list of replicas' names") }
                guard let member = names.firstIndex(of: name) else { throw fail(at, "no replica is named \(name)") }
                guard !who.contains(member) else { throw fail(at, "\(name) is named twice") }
                who.append(member)
            }
            let from = try number(fields, path, "fromMilliseconds", range: 0...length)
            let to = try number(fields, path, "toMilliseconds", range: 0...length)
            guard to > from else { throw fail(path + ".toMilliseconds", "a partition must end after it begins") }
            for member in who { offline.append(Window(replica: member, from: from, to: to)) }
        }
        for (index, item) in try list(top, "departures").enumerated() {
            let path = "departures[\(index)]"
            let fields = try members(item, path, allowed: ["replica", "atMilliseconds", "graceful"])
            let who = try replica(fields, path)
            let at = try number(fields, path, "atMilliseconds", range: 1...length)
            guard at > replicas[who].joinAtMilliseconds else { throw fail(path + ".atMilliseconds", "\(names[who]) leaves before it joins") }
            guard !departures.contains(where: { $0.replica == who }) else { throw fail(path + ".replica", "\(names[who]) leaves twice") }
            var graceful = true
            if let item = fields["graceful"] {
                guard case let .bool(value) = item else { throw fail(path + ".graceful", "graceful must be true or false") }
                graceful = value
            }
            departures.append(Departure(replica: who, at: at, graceful: graceful))
        }
        if !departures.isEmpty && departures.count == replicas.count {
            throw fail("departures", "every replica leaves: at least one must stay to the end")
        }
        for (index, item) in try list(top, "clockSkews").enumerated() {
            let path = "clockSkews[\(index)]"
            let fields = try members(item, path, allowed: ["replica", "fromMilliseconds", "skewMilliseconds"])
            let who = try replica(fields, path)
            let from = try number(fields, path, "fromMilliseconds", range: 0...length)
            let skew = try signed(fields, path, "skewMilliseconds", limit: Self.skewMillisecondsMax)
            guard !clockSkews.contains(where: { $0.replica == who && $0.from == from }) else {
                throw fail(path + ".fromMilliseconds", "two clock skews of \(names[who]) from \(from)")
            }
            clockSkews.append(ClockSkew(replica: who, from: from, skewMilliseconds: skew))
        }
        var events = 0
        for replica in replicas {
            let span = length - replica.joinAtMilliseconds
            events += Int(span / replica.syncEveryMilliseconds + span / replica.editEveryMilliseconds)
        }
        guard events <= Self.eventsMax else {
            throw fail("replicas", "the schedule makes \(events) events, more than \(Self.eventsMax): sync or edit less often")
        }
    }

    /// The trace of this scenario for `seed`: the schedule's events; the typed text's
    /// places and memos drawn from a random stream of the seed's own.
    public func trace(seed: UInt64) -> Trace {
        var parameters = SimulationParameters.draw(
            seed: seed, options: SimulationOptions(replicaCount: replicas.count, steps: 1, faults: .none))
        parameters.founderCount = replicas.filter { $0.joinAtMilliseconds == 0 }.count
        var random = SimulationRandom(seed: seed, stream: 0x5CE7)
        var events: [(order: Int, event: ScriptEvent)] = []
        func add(_ time: UInt64, _ peer: Int, _ action: ScriptAction) {
            events.append((events.count, ScriptEvent(time: time, peer: peer, action: action)))
        }
        // A replica that leaves does nothing from then on.
        func before(_ index: Int) -> UInt64 { departures.first { $0.replica == index }?.at ?? UInt64.max }
        for (index, replica) in replicas.enumerated() {
            let start = replica.joinAtMilliseconds
            let end = min(lengthMilliseconds, before(index))
            if start > 0 { add(start, index, .join(cloneOf: nil)) }
            // Replicas are staggered a little so that their schedules do not all fall on the
            // same millisecond. Drawn waits come from streams of their own (one per replica
            // and kind), so a fixed replica's schedule and the typed texts do not depend on them.
            let stagger = UInt64(index) * 37
            var editWaits = SimulationRandom(seed: seed, stream: 0x5CE7_0000 + UInt64(index) * 2)
            var syncWaits = SimulationRandom(seed: seed, stream: 0x5CE7_0001 + UInt64(index) * 2)
            func wait(_ timing: Timing, _ mean: UInt64, _ stream: inout SimulationRandom) -> UInt64 {
                timing == .fixed ? mean : stream.exponentialMilliseconds(mean: mean)
            }
            var time = start + stagger
                + (replica.editTiming == .fixed ? replica.editEveryMilliseconds / 2 : editWaits.exponentialMilliseconds(mean: replica.editEveryMilliseconds))
            while time < end {
                let action: ScriptAction = random.chance(0.05)
                    ? .create(length: replica.editLength)
                    : .type(direction: .forward, length: replica.editLength, memo: random.next32(), at: random.next32())
                add(time, index, action)
                time += wait(replica.editTiming, replica.editEveryMilliseconds, &editWaits)
            }
            time = start + stagger + wait(replica.syncTiming, replica.syncEveryMilliseconds, &syncWaits)
            while time < end {
                add(time, index, .sync)
                time += wait(replica.syncTiming, replica.syncEveryMilliseconds, &syncWaits)
            }
        }
        for window in offline where window.from < before(window.replica) {
            add(window.from, window.replica, .offline(milliseconds: window.to - window.from))
        }
        for crash in crashes where crash.at < before(crash.replica) {
            add(crash.at, crash.replica, .crash(point: .now, downMilliseconds: crash.down))
        }
        for (index, loss) in storeLosses.enumerated() {
            if let from = loss.restoredFrom {
                add(from, 0, .storeBackup(slot: UInt32(index)))
                add(loss.at, 0, .storeRestore(slot: UInt32(index)))
            } else {
                add(loss.at, 0, .storeLoss(which: loss.image))
            }
        }
        // A skew is a jump from the skew before it (none at the start).
        var skewNow = Array(repeating: Int64(0), count: replicas.count)
        for skew in clockSkews.sorted(by: { ($0.from, $0.replica) < ($1.from, $1.replica) }) where skew.from < before(skew.replica) {
            let jump = skew.skewMilliseconds - skewNow[skew.replica]
            skewNow[skew.replica] = skew.skewMilliseconds
            if jump != 0 { add(skew.from, skew.replica, .clockJump(milliseconds: jump)) }
        }
        for departure in departures { add(departure.at, departure.replica, .leave(graceful: departure.graceful)) }
        events.sort { ($0.event.time, $0.order) < ($1.event.time, $1.order) }
        parameters.steps = max(1, events.count)
        return Trace(parameters: parameters, events: events.map(\.event))
    }
}

/// Why a scenario file was refused: the line and the reason.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line.
    public var line: Int
    public var reason: String

    public var description: String { "scenario line \(line): \(reason)" }
}

// MARK: Sweeps

extension Scenario {
    /// What `--sweep KEY=V1,V2,...` can vary: every replica's sync interval or edit interval
    /// (durations), or how its edits or syncs are spaced (`fixed` or `exponential`).
    public static let sweepKeys = ["sync-interval", "edit-interval", "edit-timing", "sync-timing"]

    /// Whether `label` is a value `key` can take at all (a duration, or a timing's name),
    /// whatever the scenario.
    public static func isSweepValue(_ key: String, _ label: String) -> Bool {
        key.hasSuffix("-timing") ? Timing(rawValue: label) != nil : milliseconds(label) != nil
    }

    /// This scenario with every replica's `key` set to the value `label` names; nil when the
    /// key is unknown or the value is not one it can take here.
    public func sweeping(_ key: String, value label: String) -> Scenario? {
        switch key {
        case "edit-timing", "sync-timing":
            guard let timing = Timing(rawValue: label) else { return nil }
            var copy = self
            for index in copy.replicas.indices {
                if key == "edit-timing" { copy.replicas[index].editTiming = timing } else { copy.replicas[index].syncTiming = timing }
            }
            return copy
        default:
            guard let milliseconds = Self.milliseconds(label) else { return nil }
            return sweeping(key, to: milliseconds)
        }
    }

    /// This scenario with every replica's `key` (one of ``sweepKeys``) set to `milliseconds`;
    /// nil when the key is unknown or the value is not from 1,000 ms to the scenario's length.
    public func sweeping(_ key: String, to milliseconds: UInt64) -> Scenario? {
        guard key.hasSuffix("-interval"), Self.sweepKeys.contains(key), (min(1_000, lengthMilliseconds)...lengthMilliseconds).contains(milliseconds) else { return nil }
        var copy = self
        for index in copy.replicas.indices {
            if key == "sync-interval" { copy.replicas[index].syncEveryMilliseconds = milliseconds }
            if key == "edit-interval" { copy.replicas[index].editEveryMilliseconds = milliseconds }
        }
        return copy
    }

    /// Reads a duration: a whole number with `ms`, `s`, `min`, `h` or `d` (no unit: ms).
    public static func milliseconds(_ text: String) -> UInt64? {
        let units: [(String, UInt64)] = [("ms", 1), ("min", SimulatedTime.minute), ("s", SimulatedTime.second), ("h", SimulatedTime.hour), ("d", SimulatedTime.day)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let number = UInt64(text.dropLast(suffix.count)) else { return nil }
            let (product, overflow) = number.multipliedReportingOverflow(by: scale)
            return overflow ? nil : product
        }
        return UInt64(text)
    }
}
