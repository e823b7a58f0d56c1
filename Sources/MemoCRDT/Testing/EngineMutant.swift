#if MEMOSYNC_MUTANTS
// Deliberately broken variants of the engine, compiled only into debug builds of the project's own
// test command (MEMOSYNC_SELF_CHECKS=1, Package.swift), to prove that the simulation harness finds
// bugs (issue 5, "proof that it can fail"). Each case names one
// realistic bug; the engine code holds a one-to-three-line hook for it:
//
//     #if MEMOSYNC_MUTANTS
//     if EngineMutant.active == .someMutant { ...the bug... }
//     #endif
//
// A mutant is switched on for one task (and what it runs synchronously) with
// `EngineMutant.$active.withValue(.someMutant) { ... }`: a task-local value, so tests running
// in parallel do not see each other's mutants. Release builds define no `MEMOSYNC_MUTANTS` and
// contain none of this. `Simulations/README.md` ("Proof that it can fail") lists which
// invariant catches each mutant and within how many seeds.

/// A deliberately broken variant of the engine (debug builds only).
///
/// While a mutant is active the engine's own debug self-checks (`MEMOSYNC_INTERNAL_CHECKS`) are
/// off, as in a release build: the point is that the simulation harness's invariants find the
/// bug, not that a precondition stops the process first.
package enum EngineMutant: String, CaseIterable, Sendable {
    /// The wrong FugueMax tie-break: sibling insertions with the same origins are ordered by
    /// the replica's index in this text's own replica table (the order in which this replica
    /// happened to meet them) instead of by replica id, so replicas that met their peers in
    /// different orders put concurrent insertions at one place in different orders. Caught by
    /// convergence.
    ///
    /// (Reversing the order by replica id, for remote insertions only, is not a bug: it is a
    /// total order every replica applies the same way, and the texts converge.)
    case tieBreakByLocalIndex = "tie-break-by-local-index"
    /// FugueMax without its right origins: a remote insertion skips siblings regardless of how
    /// far right they reach, as a plain RGA would, so concurrent runs typed backwards interleave
    /// and remote insertions land elsewhere than where their author put them. Caught by
    /// convergence or non-interleaving.
    case siblingsIgnoreRightOrigin = "siblings-ignore-right-origin"
    /// A local deletion that forgets its id: the characters disappear locally but no deletion
    /// operation is recorded, so it never travels. Caught by convergence (same version, different
    /// text) or deleted-stays-deleted.
    case deleteForgetsID = "delete-forgets-id"
    /// `Notebook.changes(since:)` omits the newest operation of each replica's last run (an
    /// off-by-one at the end of the range): published segments, journal records and merges
    /// miss it. Caught by the published-segment check (engine), durability or convergence.
    case deltaOmitsOperation = "delta-omits-operation"
    /// A remote operation's Lamport timestamp is not observed: the text's clock stays behind
    /// timestamps it holds. Caught by causality (`checkInvariants()` at quiescence and on
    /// published snapshots).
    case lamportNotObserved = "lamport-not-observed"
    /// Remote deletions change the text but are not reported as edits in the events. Caught by
    /// events (the model built from the events differs from the text).
    case eventsOmitRemoteDeletions = "events-omit-remote-deletions"
    /// A caret (`TextAnchor`) resolved as if the characters other replicas inserted before it
    /// were not there. Caught by cursor.
    case cursorIgnoresRemoteInserts = "cursor-ignores-remote-inserts"
    /// Garbage collection without a grace period: own segments and snapshots are deleted as soon
    /// as a newer own snapshot covers them, however recent it is. Caught by collection.
    case gcWithoutGracePeriod = "gc-without-grace-period"
    /// Garbage collection that never deletes anything: the store grows with every segment and
    /// snapshot written. Caught by bounded (the store's size after collection).
    case gcNeverCollects = "gc-never-collects"
    /// A save appends its journal record without fsyncing it: a crash can lose edits that were
    /// reported saved. Caught by durability.
    case skippedFsync = "skipped-fsync"
    /// Journal recovery drops the last intact record as if it were torn. Caught by durability
    /// (a reopened library lacks operations saved before the crash).
    case recoveryDropsLastRecord = "recovery-drops-last-record"
    /// Journal recovery takes a damaged record for a torn tail (issue 25's bug): the journal is
    /// cut at the damage, every record after it dropped, and nothing reported. Caught by
    /// durability (the simulator's bit rot of a synced record: "lost operations silently").
    case recoveryCutsAtDamage = "recovery-cuts-at-damage"
    /// A sync counts a segment write that failed as published, and trusts that: it neither
    /// checks the listing against what it believes it published nor writes a snapshot for a
    /// replica whose head lacks what it holds. The operations that write carried are never
    /// published again. Caught by convergence (other replicas never get them) or quiescence.
    case publishCountsFailedWrite = "publish-counts-failed-write"
    /// An encrypted library begins a sync on a plain store (the store's key blob was deleted)
    /// instead of refusing it: its segments and snapshots go out in plain text. Caught by
    /// plaintext (issue 25).
    case encryptedLibrarySyncsPlain = "encrypted-library-syncs-plain"
    /// A save that dropped deleted content for the retention period appends a journal record
    /// instead of compacting (issue 27): the state file still holds what the library dropped,
    /// and the library shows it again once reopened. Caught by durability (a library read from
    /// its files shows more of the past than the replica that saved them).
    case retentionSkipsCompaction = "retention-skips-compaction"
    /// A state list (issue 28) whose memo list texts are cut one byte short: a library opened
    /// from it lists other titles or previews than its state file holds, until each memo's text
    /// is read. Caught by durability (the simulator compares each open from a list with the
    /// state read whole).
    case stateListTextCut = "state-list-text-cut"

    /// The mutant active for the current task, if any (nil: the real engine).
    @TaskLocal package static var active: EngineMutant?
}

extension TextCRDT {
    /// `utf16Offset(of:)` as ``EngineMutant/cursorIgnoresRemoteInserts`` breaks it: the visible
    /// characters before the anchor that other replicas inserted are not counted.
    func mutantOffsetIgnoringRemoteInserts(of anchor: TextAnchor) throws(TextError) -> Int {
        let scalars = try scalarOffset(of: anchor)
        let runs = try characterRuns(inScalarRange: 0..<scalars)
        let remote = runs.reduce(0) { $0 + ($1.first.replica == replica ? 0 : $1.count) }
        return try utf16Offset(fromScalar: scalars - remote)
    }
}
#endif
