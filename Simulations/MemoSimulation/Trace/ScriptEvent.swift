/// Which way a typing run goes: each keystroke after the previous one, or each before it
/// (the caret staying put, as when typing in front of a word).
public enum TypingDirection: String, Sendable, Equatable {
    case forward = "fwd"
    case backward = "back"
}

/// Where a crash hits a replica.
public enum CrashPoint: Sendable, Equatable {
    /// At once, between two operations: whatever was not saved is lost.
    case now
    /// At its `operations`-th next disk operation (a step of a save, a compaction, a sync's
    /// saves); `performs`: whether that operation happened before the power went.
    case disk(operations: Int, performs: Bool)
    /// At its `operations`-th next store operation during a sync (a publish, a deletion of the
    /// collection phase, a read); `performs`: whether the store got it.
    case store(operations: Int, performs: Bool)
}

/// One thing a script tells a replica to do. Memos and places are named by selector numbers
/// (`memo`, `at`: 32-bit values) that are resolved against the replica's state when the event
/// runs, so that removing other events (shrinking) leaves every event meaningful.
public enum ScriptAction: Sendable, Equatable {
    /// Types `length` characters one keystroke at a time at one place.
    case type(direction: TypingDirection, length: Int, memo: UInt32, at: UInt32)
    /// Types `length` characters at the replica's caret (where its last typing ended, moved by
    /// whatever arrived since), or at a random place when it has none.
    case caretType(length: Int)
    /// Several replicas type a run each right after the same character at the same moment.
    case concurrentType(peers: [Int], direction: TypingDirection, length: Int, memo: UInt32, at: UInt32)
    /// Inserts `length` characters in one edit.
    case paste(length: Int, memo: UInt32, at: UInt32)
    /// Deletes a range of `length` characters in one edit.
    case deleteRange(length: Int, memo: UInt32, at: UInt32)
    /// Deletes `count` characters before the caret one keystroke at a time.
    case backspace(count: Int, memo: UInt32, at: UInt32)
    /// Replaces a range of `deleted` characters with `inserted` new ones (a selection typed
    /// over).
    case replaceRange(deleted: Int, inserted: Int, memo: UInt32, at: UInt32)
    /// Sets the whole text: mode 0 all new, 1 the old text with some ranges deleted and some
    /// new text inserted, 2 unchanged.
    case replaceAll(mode: Int, memo: UInt32, choice: UInt32)
    /// Creates a memo with `length` characters.
    case create(length: Int)
    /// Moves a memo to the trash.
    case trash(memo: UInt32)
    /// Restores a memo from the trash.
    case restore(memo: UInt32)
    /// Purges a memo (from the trash or not).
    case purge(memo: UInt32)
    /// Undoes `count` steps in a memo.
    case undo(memo: UInt32, count: Int)
    /// Redoes a step in a memo.
    case redo(memo: UInt32)
    /// Starts a sync (replica level: step by step through the store; notebook level: sends
    /// deltas to a few others).
    case sync
    /// Saves (makes every edit durable).
    case save
    /// Compacts the library (a new state file, an empty journal).
    case compact
    /// Crashes the replica at `point`; it restarts `downMilliseconds` later.
    case crash(point: CrashPoint, downMilliseconds: UInt64)
    /// Copies the library's durable files aside (a backup).
    case backup
    /// Replaces the library with one of its backups (a restore of an old copy).
    case restoreBackup(which: UInt32)
    /// The replica starts: a new empty library, or a copy of another replica's library.
    case join(cloneOf: Int?)
    /// The replica goes away for good; `graceful`: it syncs once first.
    case leave(graceful: Bool)
    /// The replica cannot reach the store for a while.
    case offline(milliseconds: UInt64)
    /// The replica's wall clock jumps (backwards when negative).
    case clockJump(milliseconds: Int64)
    /// The store refuses writes for a while.
    case storeFull(milliseconds: UInt64)
    /// The store is wiped (`which` selects: none of the kept images) or replaced by one of the
    /// older images of itself the simulation kept.
    case storeLoss(which: UInt32)
    /// The store's operator keeps a copy of the store as it is now under `slot` (a backup; a
    /// scenario's `restoredFromMilliseconds`).
    case storeBackup(slot: UInt32)
    /// The store is replaced by the copy kept under `slot` (a folder restored from a backup);
    /// nothing when no copy was kept there.
    case storeRestore(slot: UInt32)
    /// The store's operator deletes the key blob (`which % 3 == 0`), replaces it with another
    /// library's (1), or puts the run's key blob back (2). Encrypted runs only.
    case keyBlob(which: UInt32)
}

/// A scheduled action: at simulated time `time`, replica `peer` does `action`.
public struct ScriptEvent: Sendable, Equatable {
    /// Simulated milliseconds since the start.
    public var time: UInt64
    /// The replica (0-based).
    public var peer: Int
    /// What it does.
    public var action: ScriptAction

    /// An event.
    public init(time: UInt64, peer: Int, action: ScriptAction) {
        self.time = time
        self.peer = peer
        self.action = action
    }

    /// Every replica the event involves.
    public var peers: [Int] {
        switch action {
        case let .concurrentType(peers, _, _, _, _): peers
        case let .join(cloneOf?): [peer, cloneOf]
        default: [peer]
        }
    }
}
