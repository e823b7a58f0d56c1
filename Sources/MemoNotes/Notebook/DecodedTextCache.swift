import MemoCRDT
import Synchronization

/// The last few memo texts decoded for reading while their memo held them encoded: a caret
/// placed or read (``Notebook/anchor(in:atUTF16:)``, ``Notebook/utf16Offset(of:in:)``), a past
/// version shown, the changes of a decoded snapshot. A notebook that is not mutated (a front
/// end's copy, a snapshot from a store) cannot keep what such a read decodes in its memo
/// record, so without this every read of a text turned back into its body
/// (``Notebook/releaseDecodedTexts(keepingMostRecent:atMost:)``) decoded it again: a caret read
/// at every keystroke cost a decode of its memo each time.
///
/// How an entry is known to be right: decoding is a pure function of the body's bytes, its text
/// state version, the pending history section attached to it and the replica given to the
/// decoder. An entry keeps a copy of the body's bytes and the history section (a memo's body,
/// a few kilobytes, never the whole loaded notebook's buffer it may be a slice of, which the
/// entry would keep alive) and is used only when every one of them is equal, byte for byte, to
/// the record's. So it is exact whatever happened to the notebook or its copies in between, and
/// hash order, addresses and timing play no part.
///
/// Shared by a notebook and its copies (a reference), like ``SearchKeyCache``. At most
/// ``capacity`` texts, the oldest stored leaving first. A notebook taking a text to edit it
/// (`materializeText`) takes it out of here, so that it holds the only reference and edits in
/// place. Nothing in it affects state, encodings or events: self-check builds decode again at
/// one hit in ``debugRecheckInterval`` of every cache in the process, and compare.
final class DecodedTextCache: Sendable {
    /// A text decoded for reading, what it was decoded from.
    struct Entry: Sendable {
        var id: MemoID
        var replica: ReplicaID
        var bodyVersion: UInt8
        /// A copy of the body's bytes (the record's may be a range of a larger buffer).
        var body: [UInt8]
        var history: PendingHistory?
        var text: TextCRDT

        /// Whether `text` is what decoding the record's body (at `range` of `bytes`) gives.
        func matches(
            id: MemoID, replica: ReplicaID, bytes: [UInt8], range: Range<Int>, bodyVersion: UInt8, history: PendingHistory?
        ) -> Bool {
            guard self.id == id, self.replica == replica, self.bodyVersion == bodyVersion, body.count == range.count else {
                return false
            }
            switch (self.history, history) {
            case (nil, nil): break
            case let (kept?, given?):
                guard kept.sectionVersion == given.sectionVersion, ByteComparison.equal(kept.bytes, given.bytes[...]) else { return false }
            default: return false
            }
            return ByteComparison.equal(body, bytes[range])
        }
    }

    /// The most texts kept.
    static let capacity = 4

    #if MEMOSYNC_INTERNAL_CHECKS
    /// Self-check builds: a text found is decoded once more and compared at one hit in this
    /// many, counted over every cache of the process (every hit made the simulator's final checks
    /// decode every text twice; each entry's first hit, most of a simulation's hits, still made
    /// those checks 15 % of a debug simulation run).
    static let debugRecheckInterval = 8

    /// Self-check builds: hits in every cache of the process.
    private static let debugHits = Atomic<Int>(0)
    #endif

    /// Oldest first.
    private let entries = Mutex<[Entry]>([])

    init() {}

    /// The text decoded from the record's body, if one is kept; `taking` removes it.
    func text(
        id: MemoID, replica: ReplicaID, bytes: [UInt8], range: Range<Int>, bodyVersion: UInt8, history: PendingHistory?,
        taking: Bool
    ) -> TextCRDT? {
        found(id: id, replica: replica, bytes: bytes, range: range, bodyVersion: bodyVersion, history: history, taking: taking)?.text
    }

    #if MEMOSYNC_INTERNAL_CHECKS
    /// Self-check builds: ``text(id:replica:bytes:range:bodyVersion:history:taking:)``, with
    /// how many hits every cache of the process has had, this one included.
    func debugText(
        id: MemoID, replica: ReplicaID, bytes: [UInt8], range: Range<Int>, bodyVersion: UInt8, history: PendingHistory?,
        taking: Bool
    ) -> (text: TextCRDT, hitCount: Int)? {
        found(id: id, replica: replica, bytes: bytes, range: range, bodyVersion: bodyVersion, history: history, taking: taking)
    }
    #endif

    /// The entry matching the record's body, if one is kept (`taking` removes it), and the hits
    /// of every cache of the process, this one included (self-check builds; 0 in others).
    private func found(
        id: MemoID, replica: ReplicaID, bytes: [UInt8], range: Range<Int>, bodyVersion: UInt8, history: PendingHistory?,
        taking: Bool
    ) -> (text: TextCRDT, hitCount: Int)? {
        entries.withLock { entries in
            guard
                let index = entries.firstIndex(where: {
                    $0.matches(id: id, replica: replica, bytes: bytes, range: range, bodyVersion: bodyVersion, history: history)
                })
            else { return nil }
            #if MEMOSYNC_INTERNAL_CHECKS
            let hitCount = Self.debugHits.add(1, ordering: .relaxed).newValue
            #else
            let hitCount = 0
            #endif
            return (taking ? entries.remove(at: index).text : entries[index].text, hitCount)
        }
    }

    /// Keeps `entry`, letting the oldest go beyond ``capacity``.
    func store(_ entry: Entry) {
        entries.withLock { entries in
            entries.removeAll { $0.id == entry.id && $0.replica == entry.replica }
            entries.append(entry)
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
        }
    }

    /// Lets every text go (memory is low).
    func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// How many texts are kept.
    var count: Int { entries.withLock { $0.count } }

    #if MEMOSYNC_INTERNAL_CHECKS
    private let decodes = Mutex(0)

    /// Self-check builds: how many memo texts the notebooks sharing this cache decoded from
    /// their bodies (a test counts them).
    var debugDecodeCount: Int {
        get { decodes.withLock { $0 } }
        set { decodes.withLock { $0 = newValue } }
    }

    private let copiedBodies = Mutex(0)

    /// Self-check builds: how many texts the notebooks sharing this cache turned back into a
    /// copy of the body a save had just encoded, rather than encoding them (a test counts them).
    package var debugBodiesCopiedOnRelease: Int {
        get { copiedBodies.withLock { $0 } }
        set { copiedBodies.withLock { $0 = newValue } }
    }

    private let keptLoadedBodies = Mutex(0)

    /// Self-check builds: how many texts the notebooks sharing this cache turned back into the
    /// loaded body they were decoded from (found equal to a fresh encoding), rather than into a
    /// buffer of their own (a test counts them).
    package var debugLoadedBodiesKeptOnRelease: Int {
        get { keptLoadedBodies.withLock { $0 } }
        set { keptLoadedBodies.withLock { $0 = newValue } }
    }
    #endif
}
