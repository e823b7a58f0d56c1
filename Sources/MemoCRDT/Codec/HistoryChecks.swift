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

    /// Per bytes that passed, the kinds they passed as (a bit per ``Kind``).
    private let state: Mutex<BytesKeyedCache<UInt8>>

    /// Keeps up to `bytesMax` bytes of states that passed.
    public init(bytesMax: Int = 32 << 20) {
        state = Mutex(BytesKeyedCache(bytesMax: bytesMax))
    }

    /// At most this many bytes are kept.
    public var bytesMax: Int { state.withLock { $0.bytesMax } }
    /// How many states are kept.
    public var count: Int { state.withLock { $0.count } }
    /// How many decodes found their bytes here.
    public var hits: Int { state.withLock { $0.hits } }

    private static func bit(_ kind: Kind) -> UInt8 { 1 << kind.rawValue }

    /// Whether the `kind` at `range` of `bytes` passed before.
    package func passed(_ kind: Kind, _ bytes: [UInt8], range: Range<Int>) -> Bool {
        state.withLock { cache in
            guard let kinds = cache.value(for: bytes[range]) else { return false }
            return kinds & Self.bit(kind) != 0
        }
    }

    /// Remembers that the `kind` at `range` of `bytes` passed.
    package func remember(_ kind: Kind, _ bytes: [UInt8], range: Range<Int>) {
        state.withLock { $0.keep(Self.bit(kind), for: bytes[range]) { $0 |= Self.bit(kind) } }
    }
}
