import MemoCRDT
// Every replica's notebook log, with the version they make kept up to date on every change, so
// that `Notebook.version` costs nothing to read.

/// The notebook logs of every replica, by replica, and the ``version`` they make.
///
/// Reads and writes like the dictionary it wraps (`logs[replica]`, `logs[replica, default:]`
/// changed in place, iteration in no particular order); every write also updates the one entry of
/// ``version`` it touches, in O(log r) for r replicas (O(r) when a replica is new, or when a copy
/// of the version is still held elsewhere and its storage must be copied). The version is thus
/// correct by construction; `Notebook.checkInvariants()` checks it against a recomputation.
@usableFromInline
struct NotebookLogs: Sendable, Sequence {
    private var byReplica: [ReplicaID: NotebookLog] = [:]
    /// For each replica whose log holds operations, how many: what `Notebook.version` returns.
    private(set) var version = VersionVector()

    /// No logs.
    init() {}

    /// True when no replica has a log.
    var isEmpty: Bool { byReplica.isEmpty }

    /// The replicas with a log, in no particular order.
    var keys: Dictionary<ReplicaID, NotebookLog>.Keys { byReplica.keys }

    /// The log of `replica`, if it has one. Setting a log replaces it and its version entry.
    subscript(replica: ReplicaID) -> NotebookLog? {
        get { byReplica[replica] }
        set {
            byReplica[replica] = newValue
            version[replica] = newValue?.operationCount ?? 0
        }
    }

    /// The log of `replica`, or `defaultValue`; changed in place, then its version entry taken.
    subscript(replica: ReplicaID, default defaultValue: @autoclosure () -> NotebookLog) -> NotebookLog {
        get { byReplica[replica] ?? defaultValue() }
        _modify {
            defer { version[replica] = byReplica[replica]?.operationCount ?? 0 }
            yield &byReplica[replica, default: defaultValue()]
        }
    }

    /// Appends `run` to the log of `replica` (created if needed): one lookup, and the version
    /// entry set to the run's end (what the log's count becomes).
    mutating func append(_ run: NotebookRun, for replica: ReplicaID) {
        byReplica[replica, default: NotebookLog()].append(run)
        version[replica] = run.end
    }

    /// The version recomputed from the logs (what ``version`` must equal).
    ///
    /// - Complexity: O(r log r) for r replicas.
    var recomputedVersion: VersionVector {
        VersionVector(entries: byReplica.map { VersionVector.Entry(replica: $0.key, operationCount: $0.value.operationCount) })
    }

    @usableFromInline func makeIterator() -> Dictionary<ReplicaID, NotebookLog>.Iterator { byReplica.makeIterator() }
}
