/// Which faults a batch of runs may use.
public enum FaultSelection: Sendable, Equatable {
    /// Each seed draws which faults are on (swarm testing), each with probability 1/2.
    case swarm
    /// No faults.
    case none
    /// Every fault on (rates still drawn per seed).
    case all
    /// Exactly these faults on.
    case only([FaultKind])

    /// Parses "none", "all", "swarm" or a comma-separated list of fault names.
    public init?(parsing text: String) {
        switch text {
        case "none": self = .none
        case "all": self = .all
        case "swarm": self = .swarm
        default:
            var kinds: [FaultKind] = []
            for name in text.split(separator: ",") {
                guard let kind = FaultKind(rawValue: String(name)) else { return nil }
                if !kinds.contains(kind) { kinds.append(kind) }
            }
            guard !kinds.isEmpty else { return nil }
            self = .only(kinds.sorted())
        }
    }

    /// The form ``init(parsing:)`` reads.
    public var text: String {
        switch self {
        case .swarm: "swarm"
        case .none: "none"
        case .all: "all"
        case let .only(kinds): kinds.map(\.rawValue).joined(separator: ",")
        }
    }
}

/// What the user fixed for a batch of runs; everything else each seed draws.
public struct SimulationOptions: Sendable, Equatable {
    /// Replicas per run; nil: drawn per seed from 2 to 64.
    public var replicaCount: Int?
    /// Workload events per run.
    public var steps: Int
    /// Which faults.
    public var faults: FaultSelection
    /// Which engine.
    public var engine: EngineLevel
    /// Chance of a whole-text check after a local action; nil: drawn per seed.
    public var intentionCheckProbability: Double?
    /// A deliberately broken engine variant (testing builds only).
    public var mutant: String?
    /// Features never turned on (whatever the seed draws).
    public var withoutFeatures: [WorkloadFeature] = []
    /// Faults never turned on (whatever the seed draws or `faults` says).
    public var withoutFaults: [FaultKind] = []
    /// How many memo texts each replica keeps decoded after a save, instead of the seed's
    /// (`SimulationParameters.decodedTextLimit`).
    public var decodedTextLimit: Int?

    /// Options with the defaults of `memo-sim`.
    public init(
        replicaCount: Int? = nil, steps: Int = 2_000, faults: FaultSelection = .swarm, engine: EngineLevel = .replica,
        intentionCheckProbability: Double? = nil, mutant: String? = nil, withoutFeatures: [WorkloadFeature] = []
    ) {
        self.replicaCount = replicaCount
        self.steps = steps
        self.faults = faults
        self.engine = engine
        self.intentionCheckProbability = intentionCheckProbability
        self.mutant = mutant
        self.withoutFeatures = withoutFeatures
    }

    /// The `memo-sim` arguments that reproduce a run of `seed` with these options.
    public func commandLine(seed: UInt64) -> String {
        var parts = ["memo-sim", "--seed", "\(seed)", "--steps", "\(steps)"]
        if let replicaCount { parts += ["--replicas", "\(replicaCount)"] }
        if faults != .swarm { parts += ["--faults", faults.text] }
        if engine != .replica { parts += ["--engine", engine.rawValue] }
        if let intentionCheckProbability { parts += ["--check-every", "\(intentionCheckProbability)"] }
        if let mutant { parts += ["--mutant", mutant] }
        if let decodedTextLimit { parts += ["--decoded-texts", "\(decodedTextLimit)"] }
        let without = withoutFeatures.map(\.rawValue) + withoutFaults.map(\.rawValue)
        if !without.isEmpty { parts += ["--without", without.joined(separator: ",")] }
        return parts.joined(separator: " ")
    }
}

extension SimulationParameters {
    /// The parameters of the run of `seed`: what `options` fixes, and the rest drawn from the
    /// seed (replica count, which features and faults are on and how often, sync settings).
    public static func draw(seed: UInt64, options: SimulationOptions) -> SimulationParameters {
        var random = SimulationRandom(seed: seed, stream: 1)
        let replicaCount: Int
        if let fixed = options.replicaCount {
            replicaCount = max(2, min(64, fixed))
        } else {
            switch random.weighted([5, 3, 2]) {
            case 0: replicaCount = random.int(in: 2...4)
            case 1: replicaCount = random.int(in: 5...16)
            default: replicaCount = random.int(in: 17...64)
            }
        }
        // Swarm: each feature on with probability 3/4 (typing forwards always).
        var features: [WorkloadFeature] = [.typeForward]
        for feature in WorkloadFeature.allCases where feature != .typeForward && random.chance(0.75) {
            features.append(feature)
        }
        if options.engine == .notebook {
            features.removeAll { [.save, .compact, .clone].contains($0) }
        }
        features.removeAll { options.withoutFeatures.contains($0) }
        var founderCount = replicaCount
        if features.contains(.lateJoin) && replicaCount > 2 {
            founderCount = random.int(in: max(2, replicaCount / 2)...replicaCount - 1)
        }
        var faults: [FaultKind: Double] = [:]
        // The key-blob fault (issue 25) draws from a stream of its own, after the others, and
        // only for seeds that encrypt: no draw of any other fault, and no run of a plain seed,
        // changed when it came.
        for kind in FaultKind.allCases where kind != .keyBlob && kind != .junkNames {
            let on: Bool
            switch options.faults {
            case .swarm: on = random.chance(0.5)
            case .none: on = false
            case .all: on = true
            case let .only(kinds): on = kinds.contains(kind)
            }
            let rate = Self.drawRate(kind, using: &random)
            if on && (options.engine == .replica || kind.appliesToNotebookLevel) && !options.withoutFaults.contains(kind) {
                faults[kind] = rate
            }
        }
        if Simulation.encrypts(seed: seed, engine: options.engine) {
            var own = SimulationRandom(seed: seed, stream: 25)
            let on: Bool
            switch options.faults {
            case .swarm: on = own.chance(0.5)
            case .none: on = false
            case .all: on = true
            case let .only(kinds): on = kinds.contains(.keyBlob)
            }
            let rate = Self.drawRate(.keyBlob, using: &own)
            if on && !options.withoutFaults.contains(.keyBlob) { faults[.keyBlob] = rate }
        }
        // The junk-names fault (issue 25) too: a stream of its own, so no other draw changed.
        if options.engine == .replica {
            var own = SimulationRandom(seed: seed, stream: 251)
            let on: Bool
            switch options.faults {
            case .swarm: on = own.chance(0.5)
            case .none: on = false
            case .all: on = true
            case let .only(kinds): on = kinds.contains(.junkNames)
            }
            let rate = Self.drawRate(.junkNames, using: &own)
            if on && !options.withoutFaults.contains(.junkNames) { faults[.junkNames] = rate }
        }
        var parameters = SimulationParameters(
            seed: seed, replicaCount: replicaCount, founderCount: founderCount, steps: max(1, options.steps),
            features: features.sorted(), faults: faults)
        parameters.engine = options.engine
        parameters.visibilityDelayMaxMilliseconds = random.logUniform(SimulatedTime.minute, 3 * SimulatedTime.day)
        parameters.snapshotAfterSegments = random.pick([2, 4, 8, 16, 64])
        parameters.snapshotEveryOperations = random.pick([200, 2_000, 5_000, 20_000])
        parameters.gracePeriodMilliseconds = random.pick([SimulatedTime.minute, SimulatedTime.hour, SimulatedTime.day, 7 * SimulatedTime.day])
        parameters.memosMax = random.int(in: 3...40)
        parameters.memoScalarsMax = random.pick([200, 800, 2_000])
        parameters.intentionCheckProbability = options.intentionCheckProbability ?? 1.0
        parameters.mutant = options.mutant
        parameters.decodedTextLimitOverride = options.decodedTextLimit
        return parameters
    }

    /// A rate for `kind`: store faults as probabilities per event, replica faults as weights
    /// among the scheduled events.
    static func drawRate(_ kind: FaultKind, using random: inout SimulationRandom) -> Double {
        func between(_ low: Double, _ high: Double) -> Double {
            // Log-uniform, rounded to 4 significant digits so traces print it exactly.
            let value = Double(random.logUniform(UInt64(low * 1e6), UInt64(high * 1e6))) / 1e6
            return value
        }
        switch kind {
        case .delayedVisibility: return between(0.05, 0.8)
        case .staleListing: return between(0.02, 0.5)
        case .lossyListing: return between(0.02, 0.4)
        case .conflictedCopies: return between(0.01, 0.2)
        case .tornBlobs: return between(0.01, 0.3)
        case .bitFlips: return between(0.002, 0.05)
        case .bitRot: return between(0.002, 0.05)
        case .transientErrors: return between(0.005, 0.15)
        case .storeFull: return between(0.05, 1)
        case .storeLoss: return between(0.02, 0.2)
        case .keyBlob: return between(0.3, 2)
        case .junkNames: return between(0.01, 0.2)
        case .offline: return between(0.1, 2)
        case .crash: return between(0.2, 4)
        case .tornDisk: return 1
        case .restoreOldCopy: return between(0.05, 0.5)
        case .clockSkew: return between(1, 1)
        case .clockDrift: return between(1, 1)
        case .clockJumps: return between(0.05, 1)
        }
    }
}
