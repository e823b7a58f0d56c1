import Synchronization

// Why this exists
// ---------------
// Decoding a text state body from elsewhere ends with a second replay: the text is rebuilt
// from its own history on an empty replica and compared with what was decoded
// (`checkProducedByItsHistory`). It is the costliest part of a decode, and a process that
// holds several replicas decodes the same bodies many times: every replica of the simulator
// reads each snapshot of the store, and the oracle decodes every published blob once more.
// Whether a body passes depends only on its bytes (the rebuilt replica is one the text holds
// nothing of, whichever it is), so a body that passed once passes again.
//
// A `TextBodyChecks` remembers bodies that passed, byte for byte (never by a digest alone: a
// store that could forge a collision would otherwise get an unreachable state accepted), up to
// a byte limit, the oldest forgotten first. Every other check of a decode still runs on every
// decode; builds with internal checks (`MEMOSYNC_INTERNAL_CHECKS`) replay every time anyway.

/// Text state bodies that passed the check that a state is produced by its own history, kept
/// so that decoding the same bytes again skips that replay (and only that).
///
/// It is off unless a caller binds one for the work that decodes:
/// `TextBodyChecks.$current.withValue(TextBodyChecks()) { ... }`. The simulator binds one per
/// simulated world, shared by its replicas. What a decode gives is the same with or without it.
public final class TextBodyChecks: Sendable {
    /// The checks decodes on this task (or thread) consult; nil: none kept.
    @TaskLocal public static var current: TextBodyChecks?

    private struct State {
        /// Bodies that passed, by the hash of their bytes.
        var bodies: [Int: [[UInt8]]] = [:]
        /// Hashes in the order their bodies were added (the oldest first forgotten).
        var order: [Int] = []
        var orderStart = 0
        var bytesKept = 0
        var hits = 0
    }

    private let state = Mutex(State())
    /// At most this many bytes of bodies are kept.
    public let bytesMax: Int

    /// Keeps up to `bytesMax` bytes of bodies that passed.
    public init(bytesMax: Int = 32 << 20) {
        precondition(bytesMax >= 0)
        self.bytesMax = bytesMax
    }

    /// How many bodies are kept.
    public var count: Int { state.withLock { $0.order.count - $0.orderStart } }
    /// How many decodes found their body here.
    public var hits: Int { state.withLock { $0.hits } }

    private static func hash(_ body: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        body.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// Whether the body at `range` of `bytes` passed before.
    func passed(_ bytes: [UInt8], range: Range<Int>) -> Bool {
        let body = bytes[range]
        let key = Self.hash(body)
        return state.withLock { state in
            let found = state.bodies[key]?.contains { $0.elementsEqual(body) } ?? false
            if found { state.hits += 1 }
            return found
        }
    }

    /// Remembers that the body at `range` of `bytes` passed.
    func remember(_ bytes: [UInt8], range: Range<Int>) {
        guard range.count <= bytesMax else { return }
        let body = bytes[range]
        let key = Self.hash(body)
        state.withLock { state in
            if state.bodies[key]?.contains(where: { $0.elementsEqual(body) }) == true { return }
            state.bodies[key, default: []].append(Array(body))
            state.order.append(key)
            state.bytesKept += body.count
            while state.bytesKept > bytesMax, state.orderStart < state.order.count {
                let oldest = state.order[state.orderStart]
                state.orderStart += 1
                if var bucket = state.bodies[oldest], !bucket.isEmpty {
                    state.bytesKept -= bucket.removeFirst().count
                    state.bodies[oldest] = bucket.isEmpty ? nil : bucket
                }
            }
            if state.orderStart > 1_024 && state.orderStart * 2 > state.order.count {
                state.order.removeFirst(state.orderStart)
                state.orderStart = 0
            }
        }
    }
}
