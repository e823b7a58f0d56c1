import Synchronization

// Why this exists
// ---------------
// A state from elsewhere is accepted only if it is what its own history gives a replica that
// starts empty (FORMAT.md, "What a reader checks"): a text body is rebuilt from its history
// (`TextCRDT.checkProducedByItsHistory`), a notebook state's logs are scheduled against its
// memos' clocks (`Notebook.checkHistoryApplies`). Those are the costliest parts of a decode,
// and a process that holds several replicas decodes the same bytes many times: every replica
// of the simulator reads each snapshot of the store, and the oracle decodes every published
// blob once more. Whether bytes pass depends on those bytes only (the replica a check rebuilds
// on is one the state holds nothing of, whichever it is), so bytes that passed once pass again.
//
// A `HistoryChecks` remembers bytes that passed, byte for byte (never by a digest alone: a
// store that could forge a collision would otherwise get an unreachable state accepted), up to
// a byte limit, the oldest forgotten first. Every other check of a decode still runs on every
// decode; builds with internal checks (`MEMOSYNC_INTERNAL_CHECKS`) run these every time too.

/// States that passed the check that they are produced by their own history, kept so that
/// decoding the same bytes again skips that check (and only that).
///
/// It is off unless a caller binds one for the work that decodes:
/// `HistoryChecks.$current.withValue(HistoryChecks()) { ... }`. The simulator binds one per
/// simulated world, shared by its replicas. What a decode gives is the same with or without it.
public final class HistoryChecks: Sendable {
    /// The checks decodes on this task (or thread) consult; nil: none kept.
    @TaskLocal public static var current: HistoryChecks?

    /// What the remembered bytes are.
    package enum Kind: UInt8, Sendable {
        /// A text state body (version 2).
        case textBody = 1
        /// A notebook state, its envelope's checksummed bytes (version included).
        case notebookState = 2
    }

    private struct Entry {
        var kind: Kind
        var bytes: [UInt8]
    }

    private struct State {
        /// What passed, by the hash of its kind and bytes.
        var entries: [Int: [Entry]] = [:]
        /// Hashes in the order their entries were added (the oldest first forgotten).
        var order: [Int] = []
        var orderStart = 0
        var bytesKept = 0
        var hits = 0
    }

    private let state = Mutex(State())
    /// At most this many bytes are kept.
    public let bytesMax: Int

    /// Keeps up to `bytesMax` bytes of states that passed.
    public init(bytesMax: Int = 32 << 20) {
        precondition(bytesMax >= 0)
        self.bytesMax = bytesMax
    }

    /// How many states are kept.
    public var count: Int { state.withLock { $0.order.count - $0.orderStart } }
    /// How many decodes found their bytes here.
    public var hits: Int { state.withLock { $0.hits } }

    private static func hash(_ kind: Kind, _ bytes: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(kind.rawValue)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// Whether the `kind` at `range` of `bytes` passed before.
    package func passed(_ kind: Kind, _ bytes: [UInt8], range: Range<Int>) -> Bool {
        let slice = bytes[range]
        let key = Self.hash(kind, slice)
        return state.withLock { state in
            let found = state.entries[key]?.contains { $0.kind == kind && $0.bytes.elementsEqual(slice) } ?? false
            if found { state.hits += 1 }
            return found
        }
    }

    /// Remembers that the `kind` at `range` of `bytes` passed.
    package func remember(_ kind: Kind, _ bytes: [UInt8], range: Range<Int>) {
        guard range.count <= bytesMax else { return }
        let slice = bytes[range]
        let key = Self.hash(kind, slice)
        state.withLock { state in
            if state.entries[key]?.contains(where: { $0.kind == kind && $0.bytes.elementsEqual(slice) }) == true { return }
            state.entries[key, default: []].append(Entry(kind: kind, bytes: Array(slice)))
            state.order.append(key)
            state.bytesKept += slice.count
            while state.bytesKept > bytesMax, state.orderStart < state.order.count {
                let oldest = state.order[state.orderStart]
                state.orderStart += 1
                if var bucket = state.entries[oldest], !bucket.isEmpty {
                    state.bytesKept -= bucket.removeFirst().bytes.count
                    state.entries[oldest] = bucket.isEmpty ? nil : bucket
                }
            }
            if state.orderStart > 1_024 && state.orderStart * 2 > state.order.count {
                state.order.removeFirst(state.orderStart)
                state.orderStart = 0
            }
        }
    }
}
