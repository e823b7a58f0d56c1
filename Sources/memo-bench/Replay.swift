// Replaying a trace: sequentially on one TextCRDT or on the baseline gap buffer, and
// concurrently with one TextCRDT per agent, merging exactly what each transaction's parents cover.

import MemoCRDT

/// Why a replay stopped. Rendered into the `error` key of the result line.
enum ReplayError: Error, CustomStringConvertible {
    /// The CRDT refused a patch (transaction -1: inserting the trace's `startContent`).
    case edit(transaction: Int, patch: Int, underlying: TextError)
    /// The baseline buffer refused a patch (transaction -1: inserting `startContent`).
    case baseline(transaction: Int, patch: Int, underlying: GapBufferError)
    /// Applying another agent's changes failed.
    case merge(transaction: Int, underlying: TextError)
    /// The agent's document could not be brought to exactly the version the parents name.
    case causality(transaction: Int, reason: String)

    var description: String {
        switch self {
        case let .edit(transaction, patch, underlying):
            transaction < 0 ? "startContent: \(underlying)" : "txn \(transaction) patch \(patch): \(underlying)"
        case let .baseline(transaction, patch, underlying):
            transaction < 0 ? "startContent: \(underlying)" : "txn \(transaction) patch \(patch): \(underlying)"
        case let .merge(transaction, underlying):
            "txn \(transaction): merging the parents' changes failed: \(underlying)"
        case let .causality(transaction, reason):
            "txn \(transaction): \(reason)"
        }
    }
}

/// The trace replays. Each builds its documents from scratch, so a call can be timed as a whole.
enum Replay {
    // MARK: Sequential

    /// Applies the first `transactionCount` transactions (all when nil) of a trace that has a
    /// sequential form to a fresh `TextCRDT`, each patch as a local edit by scalar offset.
    static func onTextCRDT(_ trace: Trace, transactionCount: Int? = nil, keepingDeletedContent: Bool = false) throws(ReplayError) -> TextCRDT {
        var document = TextCRDT(replica: ReplicaID(1))
        document.keepsDeletedContent = keepingDeletedContent
        if !trace.startContent.isEmpty {
            do throws(TextError) {
                try document.insert(trace.startContent, atScalar: 0)
            } catch {
                throw .edit(transaction: -1, patch: 0, underlying: error)
            }
        }
        let count = transactionCount ?? trace.transactions.count
        for transactionIndex in 0..<count {
            let patchIndexes = trace.transactions[transactionIndex].patchIndexes
            for patchIndex in patchIndexes {
                do throws(TextError) {
                    try document.applyLocally(trace.patches[patchIndex])
                } catch {
                    throw .edit(
                        transaction: transactionIndex, patch: patchIndex - patchIndexes.lowerBound, underlying: error)
                }
            }
        }
        return document
    }

    /// Applies the first `transactionCount` transactions (all when nil) of a trace that has a
    /// sequential form to a fresh baseline gap buffer.
    static func onGapBuffer(_ trace: Trace, transactionCount: Int? = nil) throws(ReplayError) -> ScalarGapBuffer {
        let buffer = ScalarGapBuffer()
        if !trace.startContent.isEmpty {
            let scalars = trace.startContent.unicodeScalars.map(\.value)
            do throws(GapBufferError) {
                try scalars.withUnsafeBufferPointer { (inserted) throws(GapBufferError) in
                    try buffer.replace(positionScalars: 0, deleteCountScalars: 0, with: inserted)
                }
            } catch {
                throw .baseline(transaction: -1, patch: 0, underlying: error)
            }
        }
        let count = transactionCount ?? trace.transactions.count
        let failure: ReplayError? = trace.insertedScalarPool.withUnsafeBufferPointer { pool in
            trace.patches.withUnsafeBufferPointer { patches in
                for transactionIndex in 0..<count {
                    let patchIndexes = trace.transactions[transactionIndex].patchIndexes
                    for patchIndex in patchIndexes {
                        let patch = patches[patchIndex]
                        let start = patch.insertedPoolStart
                        let inserted = UnsafeBufferPointer(rebasing: pool[start..<start + patch.insertedCountScalars])
                        do throws(GapBufferError) {
                            try buffer.replace(
                                positionScalars: patch.positionScalars,
                                deleteCountScalars: patch.deleteCountScalars, with: inserted)
                        } catch {
                            return .baseline(
                                transaction: transactionIndex, patch: patchIndex - patchIndexes.lowerBound,
                                underlying: error)
                        }
                    }
                }
                return nil
            }
        }
        if let failure { throw failure }
        return buffer
    }

    /// The first transaction after which the CRDT's text differs from the baseline's, found by
    /// bisection over replayed prefixes (O(t log t) edits for t transactions). Assumes that once
    /// the texts differ they keep differing; returns nil when the full replays agree.
    static func firstDivergentTransaction(_ trace: Trace) -> Int? {
        func diverges(after count: Int) -> Bool {
            guard let document = try? onTextCRDT(trace, transactionCount: count),
                let buffer = try? onGapBuffer(trace, transactionCount: count)
            else { return true }
            return document.string != buffer.string
        }
        var agreeing = 0
        var differing = trace.transactions.count
        guard diverges(after: differing) else { return nil }
        while differing - agreeing > 1 {
            let middle = agreeing + (differing - agreeing) / 2
            if diverges(after: middle) { differing = middle } else { agreeing = middle }
        }
        return differing - 1
    }

    // MARK: Concurrent

    /// The operations one transaction added to its agent's replica: counters `start ..< end`.
    fileprivate struct ProducedRange {
        var transaction: Int
        var start: UInt32
        var end: UInt32
    }

    /// Replays a concurrent trace with one `TextCRDT` per agent (replica id = agent index + 1).
    ///
    /// For every transaction it keeps the delta it produced (`changes(since:)` the version just
    /// before its patches) and the version reached after it. Before a transaction with parents P,
    /// the agent's document receives, in transaction order, the stored deltas of exactly the
    /// transactions inside the union of P's versions that it does not hold yet — so its version
    /// becomes exactly the parents' version, which is what the patch positions refer to. Then the
    /// patches are applied as local edits.
    ///
    /// With `verifyingVersions`, the document's version is checked against the expected one
    /// before and after every transaction (slower; used for the untimed build).
    ///
    /// - Returns: the agents' documents at the end, indexed by agent, and the stored deltas and
    ///   versions (returned so that a timed caller frees them outside the timed region).
    /// - Throws: ``ReplayError`` when a patch or merge fails, or when an agent's document holds
    ///   operations the parents do not cover (a trace whose agents are not totally ordered).
    static func concurrently(_ trace: Trace, verifyingVersions: Bool = false) throws(ReplayError) -> ConcurrentReplay {
        var history = ConcurrentHistory(agentCount: trace.agentCount, transactionCount: trace.transactions.count)
        let documents = try concurrently(trace, history: &history, verifyingVersions: verifyingVersions)
        return ConcurrentReplay(documents: documents, history: history)
    }

    /// The outcome of a concurrent replay.
    struct ConcurrentReplay {
        /// The agents' final documents, indexed by agent.
        var documents: [TextCRDT]
        /// What the replay remembered: every transaction's delta and version.
        fileprivate var history: ConcurrentHistory
    }

    /// Diagnoses a concurrent replay that does not converge: replays with version checks and,
    /// after each catch-up, compares the agent's text with the text any agent had at exactly
    /// the same version (by hash; O(n) per transaction).
    ///
    /// - Returns: the first transaction before which the caught-up text differs from an earlier
    ///   text at the same version, or nil (no such transaction, or the replay fails earlier).
    static func firstNonConvergentTransaction(_ trace: Trace) -> Int? {
        var history = ConcurrentHistory(agentCount: trace.agentCount, transactionCount: trace.transactions.count)
        history.textHashes = [:]
        _ = try? concurrently(trace, history: &history, verifyingVersions: true)
        return history.firstNonConvergentTransaction
    }

    /// Replays a concurrent trace, recording into `history`.
    private static func concurrently(
        _ trace: Trace, history: inout ConcurrentHistory, verifyingVersions: Bool
    ) throws(ReplayError) -> [TextCRDT] {
        let replicas = (0..<trace.agentCount).map { ReplicaID(UInt64($0) + 1) }
        var documents = replicas.map { TextCRDT(replica: $0) }
        for transactionIndex in trace.transactions.indices {
            let agent = trace.transactions[transactionIndex].agent
            // `inout` through the array's modify accessor: the document is edited in place,
            // never copied (a copy would make its next mutation copy all its storage).
            try replayTransaction(
                transactionIndex, of: trace, on: &documents[agent], replica: replicas[agent], history: &history,
                verifyingVersions: verifyingVersions)
        }
        return documents
    }

    /// What a concurrent replay remembers about the transactions done so far.
    fileprivate struct ConcurrentHistory {
        /// Per transaction, the operations it added (empty for a transaction without any).
        var deltas: [TextDelta] = []
        /// Per transaction, the version of its agent's document right after it.
        var versions: [VersionVector] = []
        /// Per agent, the transactions that added operations, in counter order.
        var produced: [[ProducedRange]]
        /// Per agent, the version of its document: the version after its latest transaction.
        var agentVersions: [VersionVector]
        /// Scratch space: the transactions to apply before the current one.
        var missing: [Int] = []
        /// When diagnosing: a hash of the text at each version reached after a transaction.
        var textHashes: [VersionVector: Int]?
        /// When diagnosing: the first transaction whose caught-up text differs from
        /// `textHashes` at the same version.
        var firstNonConvergentTransaction: Int?

        init(agentCount: Int, transactionCount: Int) {
            produced = Array(repeating: [], count: agentCount)
            agentVersions = Array(repeating: VersionVector(), count: agentCount)
            deltas.reserveCapacity(transactionCount)
            versions.reserveCapacity(transactionCount)
        }

        /// Sets `missing` to the transactions that produced operations inside `target` but not
        /// inside `held` (unsorted).
        mutating func collectMissing(from held: VersionVector, to target: VersionVector) {
            missing.removeAll(keepingCapacity: true)
            for entry in target.entries {
                let from = held[entry.replica]
                guard from < entry.operationCount else { continue }
                let agent = Int(entry.replica.rawValue) - 1
                guard produced.indices.contains(agent) else { continue }
                // The first range ending after `from`, by binary search, then every range up to the target.
                var index = 0
                var high = produced[agent].count
                while index < high {
                    let middle = (index + high) / 2
                    if produced[agent][middle].end <= from { index = middle + 1 } else { high = middle }
                }
                while index < produced[agent].count && produced[agent][index].end <= entry.operationCount {
                    missing.append(produced[agent][index].transaction)
                    index += 1
                }
            }
        }
    }

    /// Brings `document` to exactly the version of the transaction's parents, applies its
    /// patches, and records the delta and version it produced in `history`.
    ///
    /// The document's version is not read (`TextCRDT.version` builds a new vector each time, a
    /// harness cost rather than a replay cost): it is the version `history` recorded after the
    /// agent's previous transaction, the catch-up brings it to the parents' version (checked by
    /// nothing being held back), and the transaction adds the operations of its own delta. With
    /// `verifyingVersions`, each of these is checked against `document.version`.
    private static func replayTransaction(
        _ transactionIndex: Int, of trace: Trace, on document: inout TextCRDT, replica: ReplicaID,
        history: inout ConcurrentHistory, verifyingVersions: Bool
    ) throws(ReplayError) {
        let transaction = trace.transactions[transactionIndex]
        var target = VersionVector()
        for parent in transaction.parents { target.merge(history.versions[parent]) }
        try catchUp(
            &document, to: target, before: transactionIndex, agent: transaction.agent, history: &history,
            verifyingVersions: verifyingVersions)

        if history.textHashes != nil, history.firstNonConvergentTransaction == nil,
            let recorded = history.textHashes?[target], recorded != document.string.hashValue
        {
            history.firstNonConvergentTransaction = transactionIndex
        }

        // The transaction itself.
        let patchIndexes = transaction.patchIndexes
        for patchIndex in patchIndexes {
            do throws(TextError) {
                try document.applyLocally(trace.patches[patchIndex])
            } catch {
                throw .edit(
                    transaction: transactionIndex, patch: patchIndex - patchIndexes.lowerBound, underlying: error)
            }
        }
        try record(
            transactionIndex, agent: transaction.agent, of: document, since: target, replica: replica, history: &history,
            verifyingVersions: verifyingVersions)
    }

    /// Brings `document`, `agent`'s, from the version `history` recorded after its previous
    /// transaction to exactly `target`: applies, in transaction order, the stored deltas of the
    /// transactions inside `target` it lacks.
    private static func catchUp(
        _ document: inout TextCRDT, to target: VersionVector, before transactionIndex: Int, agent: Int,
        history: inout ConcurrentHistory, verifyingVersions: Bool
    ) throws(ReplayError) {
        let held = history.agentVersions[agent]
        if verifyingVersions && document.version != held {
            throw .causality(
                transaction: transactionIndex,
                reason: "agent \(agent) holds \(document.version), not the recorded \(held)")
        }
        guard held.isIncluded(in: target) else {
            throw .causality(
                transaction: transactionIndex,
                reason: "agent \(agent) holds \(held), more than its parents cover (\(target))")
        }
        history.collectMissing(from: held, to: target)
        if !history.missing.isEmpty {
            history.missing.sort()
            do throws(TextError) {
                for source in history.missing { try document.apply(history.deltas[source]) }
            } catch {
                throw .merge(transaction: transactionIndex, underlying: error)
            }
        }
        let before = verifyingVersions ? document.version : target
        guard before == target, document.pendingOperationCount == 0 else {
            throw .causality(
                transaction: transactionIndex,
                reason: "agent \(agent) reached \(before) with \(document.pendingOperationCount) "
                    + "operations held back, not its parents' version \(target)")
        }
    }

    /// Records what the transaction produced: its delta (the operations `document` made since
    /// `target`), the version it reached, and the counters it added to `replica`.
    private static func record(
        _ transactionIndex: Int, agent: Int, of document: TextCRDT, since target: VersionVector, replica: ReplicaID,
        history: inout ConcurrentHistory, verifyingVersions: Bool
    ) throws(ReplayError) {
        let delta = document.changes(since: target)
        var after = target
        let start = target[replica]
        let end = start + UInt32(delta.operationCount)
        after[replica] = end
        if verifyingVersions && document.version != after {
            throw .causality(
                transaction: transactionIndex,
                reason: "agent \(agent) reached \(document.version), expected \(after)")
        }
        if end > start {
            history.produced[agent].append(
                ProducedRange(transaction: transactionIndex, start: start, end: end))
        }
        history.deltas.append(delta)
        history.versions.append(after)
        history.agentVersions[agent] = after
        if history.textHashes != nil, history.textHashes?[after] == nil {
            history.textHashes?[after] = document.string.hashValue
        }
    }

    /// Merges `documents` one after the other into a fresh, empty text whose replica id is
    /// `replica`.
    static func mergeAll(_ documents: [TextCRDT], replica: ReplicaID) -> TextCRDT {
        var merged = TextCRDT(replica: replica)
        for document in documents {
            do {
                try merged.merge(document)
            } catch {
                // Documents replayed from one trace never reuse an operation id.
                fatalError("merging the trace's documents failed: \(error)")
            }
        }
        return merged
    }
}

extension TextCRDT {
    /// Applies one trace patch as a local edit by Unicode scalar offsets: a deletion, an
    /// insertion, or a replacement.
    mutating func applyLocally(_ patch: Patch) throws(TextError) {
        let position = patch.positionScalars
        if patch.deleteCountScalars == 0 {
            try insert(patch.inserted, atScalar: position)
        } else if patch.inserted.isEmpty {
            try delete(scalarRange: position..<position + patch.deleteCountScalars)
        } else {
            try replace(scalarRange: position..<position + patch.deleteCountScalars, with: patch.inserted)
        }
    }
}
