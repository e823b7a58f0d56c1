import MemoCRDT
import MemoNotes

/// What the simulated users did, as the ground truth the engine's final state is judged
/// against: every character typed (each a unique scalar, see ``TrackedAlphabet``), every
/// deletion of one, every memo created, trashed, restored and purged, and by whom.
///
/// Each effect has a state:
///
/// - pending: made on a replica and not yet saved there (a crash may lose it);
/// - committed: saved (the engine promised it survives);
/// - uncertain: the replica's library was replaced by an old copy, or the replica left for
///   good, before the effect was known published: it may survive or not;
/// - lost: not saved when the replica crashed, and gone when it reopened. A lost insertion's
///   character must never appear anywhere.
///
/// A crash resolves a replica's pending effects against what the reopened library holds (see
/// ``resolveAfterCrash(peer:presence:memoExists:)``), so the oracle stays exact through
/// crashes. The final checks (`Oracle+Checks.swift`) state what must hold for each character.
final class Oracle {
    enum State: UInt8 {
        case pending, committed, uncertain, lost
    }

    struct CharacterRecord {
        var memo: Int32
        var peer: Int16
        var insertion: State
        var committedDeletions: UInt16 = 0
        var uncertainDeletions: UInt16 = 0
        /// Insertions of the same character again (undo of a deletion, redo), committed or not.
        var reinsertions: UInt16 = 0
    }

    struct MemoRecord {
        var id: MemoID
        var creator: Int
        var creation: State
        var trashes = 0
        var restores = 0
        var purges = 0
        var uncertainLifecycle = 0
    }

    enum EffectKind: UInt8 {
        case insert, delete, reinsert, create, trash, restore, purge
    }

    /// One effect of a replica, on a character (pool and index) or a memo (index in `memos`).
    struct Effect {
        var kind: EffectKind
        var pool: UInt8
        var index: Int32
        /// For a deletion: the operation count of the deleting replica's id right after the
        /// edit (see ``OperationMark``).
        var mark: OperationMark? = nil
    }

    /// How far a replica's own operations went right after one of its edits: the edit survived
    /// a crash exactly when the reopened library holds that many operations of that id (a
    /// crash loses a suffix of what was not saved, never a middle part).
    struct OperationMark {
        var replica: ReplicaID
        var operationCount: UInt32

        /// The mark of the edit just made on `notebook`.
        init(after notebook: Notebook) {
            replica = notebook.replica
            operationCount = notebook.version[notebook.replica]
        }

        /// Whether `version` holds the edit.
        func isHeld(in version: VersionVector) -> Bool { version[replica] >= operationCount }
    }

    /// Characters per pool, in allocation order.
    var characters: [[CharacterRecord]] = [[], [], []]
    /// Memos by their dense index.
    private(set) var memos: [MemoRecord] = []
    private var memoIndexByID: [MemoID: Int] = [:]
    /// Effects not yet saved, per replica.
    private var pending: [[Effect]]
    /// Effects saved but maybe not yet in the store, per replica.
    private var unpublished: [[Effect]]
    /// Effects known to have reached the store, per replica: a store loss makes them
    /// unpublished again (each library holds them and must publish them again).
    private var publishedEffects: [[Effect]]
    /// Whether effects are committed as they are made (the notebook-level engine has no disk).
    let commitsImmediately: Bool

    init(peerCount: Int, commitsImmediately: Bool) {
        pending = Array(repeating: [], count: peerCount)
        unpublished = Array(repeating: [], count: peerCount)
        publishedEffects = Array(repeating: [], count: peerCount)
        self.commitsImmediately = commitsImmediately
    }

    var characterCount: Int { characters.reduce(0) { $0 + $1.count } }

    // MARK: Memos

    /// The dense index of `id`, registering it if new.
    func memoIndex(of id: MemoID) -> Int {
        if let index = memoIndexByID[id] { return index }
        memos.append(MemoRecord(id: id, creator: -1, creation: .uncertain))
        memoIndexByID[id] = memos.count - 1
        return memos.count - 1
    }

    /// The dense index of `id` if known.
    func existingMemoIndex(of id: MemoID) -> Int? { memoIndexByID[id] }

    // MARK: Recording effects

    /// A new character for `memo`, typed by `peer`; nil when every pool is used up.
    func allocate(pool preferred: Int, memo: Int, peer: Int) -> UInt32? {
        for offset in 0..<3 {
            let pool = (preferred + offset) % 3
            let index = characters[pool].count
            guard index < TrackedAlphabet.pools[pool].count else { continue }
            characters[pool].append(CharacterRecord(memo: Int32(memo), peer: Int16(peer), insertion: commitsImmediately ? .committed : .pending))
            if !commitsImmediately { pending[peer].append(Effect(kind: .insert, pool: UInt8(pool), index: Int32(index))) }
            return TrackedAlphabet.scalar(pool: pool, index: index)
        }
        return nil
    }

    /// Whether `scalar` is one this run typed (and so tracked).
    func isTracked(_ scalar: UInt32) -> Bool {
        guard let (pool, index) = TrackedAlphabet.locate(scalar) else { return false }
        return index < characters[pool].count
    }

    /// How many times `scalar` was inserted again (by undo or redo).
    func reinsertions(of scalar: UInt32) -> Int {
        guard let (pool, index) = TrackedAlphabet.locate(scalar), index < characters[pool].count else { return 0 }
        return Int(characters[pool][index].reinsertions)
    }

    /// `peer` deleted its copy of `scalar` in the edit that `mark` describes.
    func recordDeletion(of scalar: UInt32, by peer: Int, mark: OperationMark) {
        guard let (pool, index) = TrackedAlphabet.locate(scalar), index < characters[pool].count else { return }
        if commitsImmediately {
            characters[pool][index].committedDeletions &+= 1
        } else {
            pending[peer].append(Effect(kind: .delete, pool: UInt8(pool), index: Int32(index), mark: mark))
        }
    }

    /// `peer` inserted `scalar` again (undo, redo).
    func recordReinsertion(of scalar: UInt32, by peer: Int) {
        guard let (pool, index) = TrackedAlphabet.locate(scalar), index < characters[pool].count else { return }
        characters[pool][index].reinsertions &+= 1
        if !commitsImmediately { pending[peer].append(Effect(kind: .reinsert, pool: UInt8(pool), index: Int32(index))) }
    }

    /// `peer` created the memo `id`.
    func recordCreation(of id: MemoID, by peer: Int) -> Int {
        let index = memoIndex(of: id)
        memos[index].creator = peer
        memos[index].creation = commitsImmediately ? .committed : .pending
        if !commitsImmediately { pending[peer].append(Effect(kind: .create, pool: 0, index: Int32(index))) }
        return index
    }

    /// `peer` trashed, restored or purged memo `memo`.
    func recordLifecycle(_ kind: EffectKind, memo: Int, by peer: Int) {
        precondition(kind == .trash || kind == .restore || kind == .purge, "not a lifecycle effect")
        if commitsImmediately {
            apply(kind, toMemo: memo, sign: 1)
        } else {
            pending[peer].append(Effect(kind: kind, pool: 0, index: Int32(memo)))
        }
    }

    private func apply(_ kind: EffectKind, toMemo memo: Int, sign: Int) {
        switch kind {
        case .trash: memos[memo].trashes += sign
        case .restore: memos[memo].restores += sign
        case .purge: memos[memo].purges += sign
        default: break
        }
    }

    // MARK: Saving, publishing

    /// `peer` saved: its pending effects are committed.
    func commit(peer: Int) {
        guard !pending[peer].isEmpty else { return }
        for effect in pending[peer] { commit(effect) }
        unpublished[peer].append(contentsOf: pending[peer])
        pending[peer].removeAll(keepingCapacity: true)
    }

    private func commit(_ effect: Effect) {
        let pool = Int(effect.pool)
        let index = Int(effect.index)
        switch effect.kind {
        case .insert: characters[pool][index].insertion = .committed
        case .delete: characters[pool][index].committedDeletions &+= 1
        case .reinsert: break
        case .create: memos[index].creation = .committed
        case .trash, .restore, .purge: apply(effect.kind, toMemo: index, sign: 1)
        }
    }

    /// Everything `peer` saved is in the store.
    func published(peer: Int) {
        publishedEffects[peer].append(contentsOf: unpublished[peer])
        unpublished[peer].removeAll(keepingCapacity: true)
    }

    /// The store was wiped or replaced by an older copy of itself: nothing any replica
    /// published is known to be in it any more.
    func storeLost() {
        for peer in unpublished.indices {
            unpublished[peer] = publishedEffects[peer] + unpublished[peer]
            publishedEffects[peer].removeAll()
        }
    }

    /// The operations of `peer`'s saved deletions not yet known published (each deletion's
    /// ``OperationMark``), for the check of a library's claim that nothing is left to publish.
    func unpublishedDeletionMarks(peer: Int) -> [OperationMark] {
        unpublished[peer].compactMap { $0.kind == .delete ? $0.mark : nil }
    }

    /// Whether `peer` has effects not yet saved.
    func hasPending(peer: Int) -> Bool { !pending[peer].isEmpty }

    /// Pending effects of every replica (none may remain at the end of a run).
    var pendingCount: Int { pending.reduce(0) { $0 + $1.count } }

    // MARK: Crashes, restores, departures

    /// Which tracked characters a replica's texts hold, for resolving effects.
    struct Presence {
        var marks: [[Bool]]

        init(oracle: Oracle) {
            marks = oracle.characters.map { Array(repeating: false, count: $0.count) }
        }

        mutating func mark(_ scalar: UInt32) {
            guard let (pool, index) = TrackedAlphabet.locate(scalar), index < marks[pool].count else { return }
            marks[pool][index] = true
        }

        func contains(pool: Int, index: Int) -> Bool { marks[pool][index] }
    }

    /// After `peer` crashed and reopened (holding `reopened`): each pending effect happened if
    /// the reopened library shows it (an insertion whose character is there, a deletion whose
    /// operation it holds), and is lost otherwise. Lifecycle changes cannot be told apart from
    /// later ones, so they become uncertain.
    ///
    /// A deletion is judged by its operation, not by its character being gone: a replica that
    /// received a character in a sync and deleted it, both unsaved, reopens without the
    /// character and without the deletion; the character comes back from the store, and stays.
    ///
    /// After bit rot lost a saved (and published) record (`absentIsUncertain`), an effect not
    /// shown may be in that record, saved before the crash but not yet committed here: it comes
    /// back from the store, so it is uncertain rather than lost.
    func resolveAfterCrash(peer: Int, presence: Presence, reopened: VersionVector, absentIsUncertain: Bool = false, memoExists: (Int) -> Bool) {
        var survivors: [Effect] = []
        for effect in pending[peer] {
            let pool = Int(effect.pool)
            let index = Int(effect.index)
            let shown = Self.isShown(effect, presence: presence, reopened: reopened, memoExists: memoExists)
            if shown == true { survivors.append(effect) }
            switch effect.kind {
            case .insert:
                characters[pool][index].insertion = shown == true ? .committed : absentIsUncertain ? .uncertain : .lost
            case .delete:
                if shown == true {
                    characters[pool][index].committedDeletions &+= 1
                } else if absentIsUncertain {
                    characters[pool][index].uncertainDeletions &+= 1
                }
            case .reinsert:
                break
            case .create:
                memos[index].creation = shown == true ? .committed : absentIsUncertain ? .uncertain : .lost
            case .trash, .restore, .purge:
                memos[index].uncertainLifecycle += 1
            }
        }
        // What happened is saved now, and maybe not yet published.
        unpublished[peer].append(contentsOf: survivors)
        pending[peer].removeAll()
    }

    /// Whether a reopened library shows `effect`: an insertion whose character is there, a
    /// deletion whose operation it holds, a memo it has; nil for what cannot be told (a
    /// lifecycle change, from later ones; a reinsertion, which has no state of its own).
    private static func isShown(_ effect: Effect, presence: Presence, reopened: VersionVector, memoExists: (Int) -> Bool) -> Bool? {
        switch effect.kind {
        case .insert: presence.contains(pool: Int(effect.pool), index: Int(effect.index))
        case .delete: effect.mark!.isHeld(in: reopened)
        case .create: memoExists(Int(effect.index))
        case .reinsert, .trash, .restore, .purge: nil
        }
    }

    /// After bit rot took a saved record of `peer`'s own operations that no other library or
    /// the store held (and, with it, every later record of that id, held back for good): each
    /// saved effect not yet known published stays committed if the reopened library shows it
    /// (an insertion whose character is there, a deletion whose operation it holds, a memo it
    /// has) and becomes uncertain otherwise (it may be gone, or come back from a store write
    /// the library crashed before recording). Lifecycle changes cannot be told apart: uncertain.
    /// Effects already published are untouched (the store holds them).
    func resolveAfterRot(peer: Int, presence: Presence, reopened: VersionVector, memoExists: (Int) -> Bool) {
        var kept: [Effect] = []
        for effect in unpublished[peer] {
            let pool = Int(effect.pool)
            let index = Int(effect.index)
            switch (effect.kind, Self.isShown(effect, presence: presence, reopened: reopened, memoExists: memoExists)) {
            case (_, true?), (.reinsert, _):
                kept.append(effect)
            case (.insert, _):
                if characters[pool][index].insertion != .lost { characters[pool][index].insertion = .uncertain }
            case (.delete, _):
                characters[pool][index].committedDeletions &-= 1
                characters[pool][index].uncertainDeletions &+= 1
            case (.create, _):
                if memos[index].creation != .lost { memos[index].creation = .uncertain }
            case (.trash, _), (.restore, _), (.purge, _):
                apply(effect.kind, toMemo: index, sign: -1)
                memos[index].uncertainLifecycle += 1
            }
        }
        unpublished[peer] = kept
    }

    /// `peer`'s library was replaced by an old copy, or `peer` left: what it had not published
    /// may be gone (or may come back from the store), so it becomes uncertain.
    func makeUncertain(peer: Int) {
        for effect in unpublished[peer] + pending[peer] {
            let pool = Int(effect.pool)
            let index = Int(effect.index)
            switch effect.kind {
            case .insert:
                if characters[pool][index].insertion != .lost { characters[pool][index].insertion = .uncertain }
            case .delete:
                characters[pool][index].uncertainDeletions &+= 1
            case .reinsert:
                break
            case .create:
                if memos[index].creation != .lost { memos[index].creation = .uncertain }
            case .trash, .restore, .purge:
                memos[index].uncertainLifecycle += 1
            }
        }
        // Deletions that were committed move to uncertain: undo their committed count.
        for effect in unpublished[peer] where effect.kind == .delete {
            let pool = Int(effect.pool)
            let index = Int(effect.index)
            characters[pool][index].committedDeletions &-= 1
        }
        for effect in unpublished[peer] {
            switch effect.kind {
            case .trash, .restore, .purge: apply(effect.kind, toMemo: Int(effect.index), sign: -1)
            default: break
            }
        }
        unpublished[peer].removeAll()
        pending[peer].removeAll()
    }
}
