import MemoCRDT
extension Notebook {
    /// Checks every internal invariant of the notebook, in O(n) (n: runs, memos and text).
    ///
    /// Checked: each replica's runs cover its operations without gaps, maximally merged, with
    /// non-decreasing timestamps; every run names a known memo that it created first; each memo's
    /// text runs of each replica cover that replica's text operations in the memo exactly and in
    /// order (the notebook-to-text mapping); lifecycle records match the log; status, dates and
    /// derived text match a recomputation; the clock is past every timestamp; decoded texts pass
    /// their own checks.
    ///
    /// - Throws: ``InvariantViolation`` naming the first broken invariant.
    package func checkInvariants() throws(InvariantViolation) {
        try checkInvariants(textsOf: nil, textInvariantsChecked: false)
    }

    /// ``checkInvariants()``, with what each memo derives from its text (title and preview
    /// prefix, search key, and the text's own invariants) checked only for the memos in
    /// `touched` when it is given, and the text's own invariants left out when
    /// `textInvariantsChecked` (the text's mutation ran its own self-check). Every memo's record
    /// is checked against the logs as always. After an edit of one memo only that memo's text
    /// changed; checking every text at every keystroke made the simulator's debug runs spend a
    /// third of their time here.
    func checkInvariants(textsOf touched: [MemoID]?, textInvariantsChecked: Bool) throws(InvariantViolation) {
        let tally = try checkLogs()
        try require(logs.version == logs.recomputedVersion, "the maintained version differs from the logs")
        try memos.checkIndex()
        // (A set: received operations may change thousands of texts of a large notebook.)
        let touchedSet = touched.map { Set($0) }
        for record in memos.records {
            let checkingText = touchedSet.map { $0.contains(record.id) } ?? true
            try checkMemo(record, against: tally, checkingText: checkingText, checkingTextInvariants: checkingText && !textInvariantsChecked)
        }
        for (replicaID, queue) in pending {
            for item in queue {
                try require(item.run.end > log(of: replicaID).operationCount, "a held-back run is already applied")
            }
        }
    }

    /// What the logs say of each memo, to check the memos against.
    private struct LogTally {
        /// Per memo and replica, the text operations its text runs cover.
        var textCoverage: [MemoID: [ReplicaID: UInt32]] = [:]
        var lifecycleCount: [MemoID: Int] = [:]
        var created: Set<MemoID> = []
        var newest: [MemoID: HybridTimestamp] = [:]
        var earliestCreate: [MemoID: HybridTimestamp] = [:]
    }

    /// Checks each replica's runs (no gaps, maximally merged, timestamps not going back and not
    /// past the clock, known memos, text runs in text counter order) and tallies them per memo.
    private func checkLogs() throws(InvariantViolation) -> LogTally {
        var tally = LogTally()
        for replicaID in logs.keys.sorted() {
            let log = logs[replicaID]!
            var counter: UInt32 = 0
            var previous: NotebookRun?
            for run in log.runs {
                try require(run.counter == counter && run.length > 0, "replica \(replicaID) runs leave a gap at \(counter)")
                try require(clock.latest >= run.timestamp, "clock behind a run's timestamp")
                if var last = previous {
                    try require(!last.append(run), "replica \(replicaID) runs not merged at \(run.counter)")
                    try require(run.timestamp >= previous!.timestamp, "replica \(replicaID) timestamps go back at \(run.counter)")
                }
                try require(memos.contains(run.memo), "run names unknown memo \(run.memo)")
                switch run.kind {
                case .create:
                    tally.created.insert(run.memo)
                    tally.earliestCreate[run.memo] = min(tally.earliestCreate[run.memo] ?? run.timestamp, run.timestamp)
                case let .text(textCounter):
                    let covered = tally.textCoverage[run.memo, default: [:]][replicaID, default: 0]
                    try require(textCounter == covered, "memo \(run.memo): replica \(replicaID) text runs skip from \(covered) to \(textCounter)")
                    tally.textCoverage[run.memo, default: [:]][replicaID] = textCounter + run.length
                case .trash, .restore, .purge:
                    tally.lifecycleCount[run.memo, default: 0] += 1
                }
                tally.newest[run.memo] = max(tally.newest[run.memo] ?? run.timestamp, run.timestamp)
                counter = run.end
                previous = run
            }
            try require(counter == log.operationCount, "replica \(replicaID) count \(log.operationCount) != runs \(counter)")
        }
        return tally
    }

    /// Checks one memo against the logs (`tally`) and against a recomputation of what it
    /// derives: text covered by its runs, lifecycle, dates, status, title, search key, and its
    /// decoded text's own invariants (those read from the text only when `checkingText`, the
    /// text's own only when `checkingTextInvariants`).
    private func checkMemo(
        _ record: MemoRecord, against tally: LogTally, checkingText: Bool, checkingTextInvariants: Bool
    ) throws(InvariantViolation) {
        let id = record.id
        try require(record.id == id, "memo key")
        try require(tally.created.contains(id), "memo \(id) was never created")
        let version = record.text.version
        let coverage = tally.textCoverage[id] ?? [:]
        for entry in version.entries {
            try require(coverage[entry.replica] == entry.operationCount, "memo \(id): text of \(entry.replica) has \(entry.operationCount) operations, runs cover \(coverage[entry.replica] ?? 0)")
        }
        try require(coverage.values.reduce(0, +) == UInt32(version.operationCount), "memo \(id): runs cover text not in the memo")
        try require(record.lifecycle.count == (tally.lifecycleCount[id] ?? 0), "memo \(id) lifecycle records")
        try require(record.createdAt == tally.earliestCreate[id], "memo \(id) createdAt")
        try require(record.modifiedAt == tally.newest[id], "memo \(id) modifiedAt \(record.modifiedAt) != \(String(describing: tally.newest[id]))")
        var recomputed = record
        recomputed.refreshStatus()
        try require(recomputed.status == record.status, "memo \(id) status \(record.status) != \(recomputed.status)")
        if case let .materialized(text) = record.text {
            try require(text.replica == replica, "memo \(id) text attributed to another replica")
            try require(text.pendingOperationCount == 0, "memo \(id) text holds back operations")
            try require(lamport >= text.lamport, "notebook Lamport clock behind memo \(id)")
        }
        guard checkingText else { return }
        if !record.derivedTextIsStale {
            try require(record.derivedVersion == version, "memo \(id) title and preview are stale")
            try require(
                MemoSummary.listsAlike(record.cachedTextPrefix, record.text.prefixUTF8(MemoRecord.derivedPrefixBytes)), "memo \(id) cached text prefix")
        }
        try require(MemoSummary.listsAlike(record.textPrefix, record.text.prefixUTF8(MemoRecord.derivedPrefixBytes)), "memo \(id) text prefix")
        if record.hasCurrentSearchKey {
            try require(ByteComparison.equal(SearchFolding.key(for: record.text.string), record.searchKey.bytes), "memo \(id) cached search key is wrong")
        }
        if checkingTextInvariants, case let .materialized(text) = record.text { try text.checkInvariants() }
    }

    /// What a mutation changed, for its self-check (``checkInvariantsIfEnabled(_:)``).
    enum SelfCheckScope {
        /// Anything: every memo's text is checked.
        case whole
        /// A local edit of this memo's text, which checked its own invariants (spaced out for
        /// large texts: see `TextCRDT.checkInvariantsIfEnabled`).
        case edited(MemoID)
        /// Received operations that changed these memos' texts.
        case applied([MemoID])
    }

    /// Runs ``checkInvariants()`` under `MEMOSYNC_INTERNAL_CHECKS`: after every mutation while
    /// the notebook is small, then after one mutation in 256.
    ///
    /// After a mutation that says which texts it changed (`scope`), every text is checked at one
    /// such check in ``wholeCheckInterval``, and at the others only those texts
    /// (``checkInvariants(textsOf:textInvariantsChecked:)``), without their own invariants after
    /// a local edit.
    mutating func checkInvariantsIfEnabled(_ scope: SelfCheckScope = .whole) {
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active != nil { return }  // as in a release build: the harness must find it
        #endif
        #if MEMOSYNC_INTERNAL_CHECKS
        debugMutationCount &+= 1
        if memos.count <= 64 || debugMutationCount % 256 == 0 {
            let texts = Self.selfCheckedTexts(after: scope, mutationCount: debugMutationCount)
            do {
                try checkInvariants(textsOf: texts.memos, textInvariantsChecked: texts.ownInvariantsChecked)
            } catch {
                preconditionFailure("Notebook invariant violated: \(error)")
            }
        }
        #endif
    }

    #if MEMOSYNC_INTERNAL_CHECKS
    /// Mutations that changed a few texts between two self-checks of every memo's text
    /// (``checkInvariantsIfEnabled(_:)``).
    static let wholeCheckInterval = 16

    /// Which texts the self-check after the `mutationCount`th mutation, of `scope`, checks (nil:
    /// every memo's), and whether their own invariants were just checked by their mutation.
    static func selfCheckedTexts(after scope: SelfCheckScope, mutationCount: Int) -> (memos: [MemoID]?, ownInvariantsChecked: Bool) {
        if mutationCount % wholeCheckInterval == 0 { return (nil, false) }
        switch scope {
        case .whole: return (nil, false)
        case let .edited(id): return ([id], true)
        case let .applied(ids): return (ids, false)
        }
    }
    #endif
}
