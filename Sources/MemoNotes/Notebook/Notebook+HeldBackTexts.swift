import MemoCRDT

// The text of held-back operations
// ================================
//
// A notebook holds back the operations of a replica that come after a gap in its counters until
// the gap is filled: a replica's operations apply in counter order. After damage took a journal
// record this library never published, nothing will fill that gap (unless another copy of the
// library published it), and everything typed after that record, in any memo, waits for good:
// saved, kept, and never shown. What those operations insert is text the user typed, and it is
// all in them: `heldBackTexts` reads it out, memo by memo, so that an app (and `memo recover`)
// can give it back to the user to keep, as new text, without touching the operations (which
// still apply by themselves if the missing ones ever arrive).
//
// What it reads: every held-back text operation, each once (copies of one operation carried by
// several records count once, by memo, replica and counter). The characters inserted, minus
// those a held-back deletion deletes, in operation order (replica, then counter); an insertion
// run that does not continue the character before it starts a new line. Where in the memo each
// character stood is not known for certain (it may sit next to a character the damage took),
// so none is placed: the order is the order typed.

/// What operations held back in one memo would insert: text typed on this device, or received,
/// that waits for operations it builds on (``Notebook/heldBackTexts``).
public struct HeldBackText: Sendable, Equatable {
    /// The memo the operations change (it may not exist here yet: its creation may be among
    /// them, or among the operations they wait for).
    public var memo: MemoID
    /// The characters the held-back insertions add and no held-back deletion removes, in the
    /// order they were typed; an insertion that does not continue the character before it
    /// starts a new line. Empty when the operations only delete, trash, restore or purge.
    public var text: String
    /// How many held-back operations change this memo (its creation, text operations, trash,
    /// restore and purge).
    public var operationCount: Int

    /// Creates a record of a memo's held-back text.
    public init(memo: MemoID, text: String, operationCount: Int) {
        self.memo = memo
        self.text = text
        self.operationCount = operationCount
    }
}

extension Notebook {
    /// The text of the operations held back, one entry per memo they change, by memo id: what
    /// the user would lose if those operations never apply. Empty when nothing is held back.
    ///
    /// Operations are held back until those they build on arrive (``pendingOperationCount``);
    /// after damage took a record of operations no store holds, they wait for good. Reading
    /// their text changes nothing: they still apply if what they wait for arrives.
    ///
    /// - Complexity: O(h log h) for h held-back operations.
    public var heldBackTexts: [HeldBackText] {
        struct Inserted {
            var scalar: Unicode.Scalar
            /// The item before it when it was inserted (nil: the start of the text).
            var originLeft: OperationID?
        }
        var operations: [MemoID: Int] = [:]
        var inserted: [MemoID: [OperationID: Inserted]] = [:]
        var deleted: [MemoID: Set<OperationID>] = [:]
        var counted: [ReplicaID: Set<UInt32>] = [:]
        for replica in pending.keys.sorted() {
            for item in pending[replica]! {
                let memo = item.run.memo
                for counter in item.run.counter..<item.run.end where counted[replica, default: []].insert(counter).inserted {
                    operations[memo, default: 0] += 1
                }
                for run in item.text.runs {
                    switch run.kind {
                    case let .insertion(originLeft, _, content):
                        guard let content else { continue }
                        var left = originLeft
                        for (offset, scalar) in String(decoding: content, as: UTF8.self).unicodeScalars.enumerated() {
                            let id = OperationID(replica: run.replica, counter: run.counter + UInt32(offset))
                            inserted[memo, default: [:]][id] = Inserted(scalar: scalar, originLeft: left)
                            left = id
                        }
                    case let .deletion(target, _):
                        for offset in 0..<run.length {
                            deleted[memo, default: []].insert(OperationID(replica: target.replica, counter: target.counter + offset))
                        }
                    }
                }
            }
        }
        return operations.keys.sorted().map { memo in
            var text = String.UnicodeScalarView()
            var previous: OperationID?
            let items = inserted[memo] ?? [:]
            let gone = deleted[memo] ?? []
            for id in items.keys.sorted() {
                let item = items[id]!
                defer { previous = id }
                if gone.contains(id) { continue }
                if !text.isEmpty && item.originLeft != previous { text.append("\n") }
                text.append(item.scalar)
            }
            return HeldBackText(memo: memo, text: String(text), operationCount: operations[memo] ?? 0)
        }
    }
}
