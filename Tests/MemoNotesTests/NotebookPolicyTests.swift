import MemoCRDT
import MemoNotes
import TestSupport
import Testing

/// Sends what `target` lacks from `source` as encoded bytes, and drains `target`'s events.
private func sync(_ source: Notebook, into target: inout Notebook) throws {
    let bytes = try source.changes(since: target.version).encoded()
    try target.apply(NotebookDelta(decoding: bytes))
    _ = target.takeEvents()
}

private let alice = ReplicaID(0xA)
private let bob = ReplicaID(0xB)
private let carol = ReplicaID(0xC)
private let memoA = MemoID(high: 1, low: 1)

/// Every order of delivering `deltas` (indexes), one by one, to a copy of `base`.
private func everyOrder(_ count: Int) -> [[Int]] {
    if count <= 1 { return [Array(0..<count)] }
    var result: [[Int]] = []
    for first in 0..<count {
        for rest in everyOrder(count - 1) {
            result.append([first] + rest.map { $0 >= first ? $0 + 1 : $0 })
        }
    }
    return result
}

@Suite struct NotebookPolicyTests {
    /// Alice and Bob share a memo; what Alice and Bob then do offline is `aliceDoes` and
    /// `bobDoes`; their deltas reach a third replica, and each other, in every order.
    private func scenario(
        aliceDoes: (inout Notebook) throws -> Void, bobDoes: (inout Notebook) throws -> Void,
        check: (Notebook, String) throws -> Void
    ) throws {
        var a = Notebook(replica: alice)
        try a.createMemo(memoA, text: "Groceries\nmilk", wallMilliseconds: 1_000)
        var b = Notebook(replica: bob)
        try sync(a, into: &b)
        let base = a
        try aliceDoes(&a)
        try bobDoes(&b)
        let deltas = [try a.changes(since: base.version), try b.changes(since: base.version)]
        for order in everyOrder(2) {
            var c = Notebook(replica: carol)
            try sync(base, into: &c)
            for index in order { try c.apply(NotebookDelta(decoding: deltas[index].encoded())) }
            try c.checkInvariants()
            try check(c, "order \(order)")
        }
        // And the two of them, either way first.
        var a2 = a
        var b2 = b
        try sync(b, into: &a2)
        try sync(a, into: &b2)
        try check(a2, "alice")
        try check(b2, "bob")
        #expect(a2.encoded() == b2.encoded())
        try sync(b2, into: &a2)
        try sync(a2, into: &b2)
        #expect(a2.encoded() == b2.encoded())
    }

    @Test func editUnseenByTrasherWins() throws {
        try scenario(
            aliceDoes: { try $0.moveToTrash(memoA, wallMilliseconds: 2_000) },
            bobDoes: { try $0.edit(memoA, replacingUTF16: 14..<14, with: ", eggs", wallMilliseconds: 1_500) },
            check: { notebook, label in
                #expect(notebook.status(of: memoA) == .active, "\(label)")
                #expect(notebook.memo(memoA)?.text == "Groceries\nmilk, eggs", "\(label)")
                #expect(notebook.list().map(\.id) == [memoA], "\(label)")
            })
    }

    /// A new device that loads a snapshot holding a purged memo hears of it (added, then
    /// purged), so that an edit which later brings the memo back is about a memo it knows.
    /// (Simulation finding 4: the purged memo was not announced, and the later `.restored`
    /// and `.changed` named a memo the listener had never been told of.)
    @Test func aSnapshotAnnouncesPurgedMemosSoTheirReturnIsFollowed() throws {
        var a = Notebook(replica: alice)
        try a.createMemo(memoA, text: "milk", wallMilliseconds: 1_000)
        var b = Notebook(replica: bob)
        try sync(a, into: &b)
        try a.purge(memoA, wallMilliseconds: 2_000)
        try b.edit(memoA, replacingUTF16: 4..<4, with: ", eggs", wallMilliseconds: 1_500)
        // Carol starts from Alice's notebook (the memo purged), then gets Bob's edit.
        var c = Notebook(replica: carol)
        try c.merge(try Notebook(decoding: a.encoded(), replica: alice))
        var shown: [MemoID: String] = [:]
        func follow(_ events: [NotebookEvent]) {
            for event in events {
                switch event {
                case let .added(id, _): shown[id] = ""
                case let .changed(id, edits, _):
                    #expect(shown[id] != nil, "changed \(id) before it was added")
                    var utf16 = Array((shown[id] ?? "").utf16)
                    for edit in edits { edit.apply(to: &utf16) }
                    shown[id] = String(decoding: utf16, as: UTF16.self)
                case .trashed, .restored, .purged:
                    #expect(shown[event.memo] != nil, "\(event) before it was added")
                }
            }
        }
        follow(c.takeEvents())
        #expect(c.status(of: memoA) == .purged)
        try c.apply(b.changes(since: c.version))
        follow(c.takeEvents())
        #expect(c.status(of: memoA) == .active)
        #expect(shown[memoA] == c.memo(memoA)?.text)
    }

    @Test func trashAfterSeeingTheEditHolds() throws {
        var a = Notebook(replica: alice)
        try a.createMemo(memoA, text: "x", wallMilliseconds: 1_000)
        var b = Notebook(replica: bob)
        try sync(a, into: &b)
        try b.edit(memoA, replacingUTF16: 1..<1, with: "y", wallMilliseconds: 1_100)
        try sync(b, into: &a)
        try a.moveToTrash(memoA, wallMilliseconds: 1_200)
        try sync(a, into: &b)
        #expect(a.status(of: memoA) == .trashed && b.status(of: memoA) == .trashed)
        #expect(b.trash().map(\.id) == [memoA] && b.list().isEmpty)
    }

    @Test func purgeKeepsOnlyWhatThePurgerHadNotSeen() throws {
        try scenario(
            aliceDoes: { notebook in
                try notebook.moveToTrash(memoA, wallMilliseconds: 2_000)
                try notebook.purge(memoA, wallMilliseconds: 2_100)
            },
            bobDoes: { try $0.edit(memoA, replacingUTF16: 14..<14, with: ", eggs", wallMilliseconds: 1_500) },
            check: { notebook, label in
                // The memo comes back with Bob's words only: Alice deleted what she saw.
                #expect(notebook.status(of: memoA) == .active, "\(label)")
                #expect(notebook.memo(memoA)?.text == ", eggs", "\(label)")
            })
    }

    @Test func purgeWithoutConcurrentEditsRemovesEverywhere() throws {
        try scenario(
            aliceDoes: { try $0.purge(memoA, wallMilliseconds: 2_000) },
            bobDoes: { _ in },
            check: { notebook, label in
                #expect(notebook.status(of: memoA) == .purged, "\(label)")
                #expect(notebook.memo(memoA) == nil && notebook.list().isEmpty && notebook.trash().isEmpty, "\(label)")
                #expect(notebook.search("milk").isEmpty, "\(label)")
            })
    }

    @Test func laterOfTrashAndRestoreWins() throws {
        // Both start from a trashed memo; Bob restores at 3_000, Alice trashes again... she
        // cannot (it is in the trash), so Alice restores and trashes; the later wins.
        var a = Notebook(replica: alice)
        try a.createMemo(memoA, text: "x", wallMilliseconds: 1_000)
        try a.moveToTrash(memoA, wallMilliseconds: 1_100)
        var b = Notebook(replica: bob)
        try sync(a, into: &b)
        try b.restore(memoA, wallMilliseconds: 3_000)
        try a.restore(memoA, wallMilliseconds: 2_000)
        try a.moveToTrash(memoA, wallMilliseconds: 2_500)
        try sync(a, into: &b)
        try sync(b, into: &a)
        #expect(a.status(of: memoA) == .active && b.status(of: memoA) == .active)
        // Now a later trash.
        try a.moveToTrash(memoA, wallMilliseconds: 4_000)
        try sync(a, into: &b)
        #expect(b.status(of: memoA) == .trashed)
    }

    @Test func restoreBringsBackWithText() throws {
        try scenario(
            aliceDoes: { notebook in
                try notebook.moveToTrash(memoA, wallMilliseconds: 2_000)
                try notebook.restore(memoA, wallMilliseconds: 2_100)
            },
            bobDoes: { try $0.edit(memoA, replacingUTF16: 0..<9, with: "Shopping", wallMilliseconds: 1_500) },
            check: { notebook, label in
                #expect(notebook.status(of: memoA) == .active, "\(label)")
                #expect(notebook.memo(memoA)?.title == "Shopping", "\(label)")
            })
    }

    /// A delta that arrives before the one it depends on is held back, then applied.
    @Test func outOfOrderDeltasAreHeldBack() throws {
        var a = Notebook(replica: alice)
        try a.createMemo(memoA, text: "one", wallMilliseconds: 1_000)
        let first = try a.changes(since: VersionVector())
        let v1 = a.version
        try a.edit(memoA, replacingUTF16: 3..<3, with: " two", wallMilliseconds: 1_100)
        let second = try a.changes(since: v1)
        let v2 = a.version
        try a.moveToTrash(memoA, wallMilliseconds: 1_200)
        let third = try a.changes(since: v2)
        for order in everyOrder(3) {
            var b = Notebook(replica: bob)
            let deltas = [first, second, third]
            for (step, index) in order.enumerated() {
                try b.apply(deltas[index])
                try b.checkInvariants()
                // The trash saw the edit, so it waits for it.
                if step < 2 { #expect(b.status(of: memoA) != .trashed, "order \(order) step \(step)") }
            }
            #expect(b.pendingOperationCount == 0, "order \(order)")
            #expect(b.status(of: memoA) == .trashed, "order \(order)")
            #expect(b.memo(memoA)?.text == "one two", "order \(order)")
            #expect(b.encoded() == a.encoded(), "order \(order)")
            // Delivered twice: nothing changes.
            for index in order { try b.apply(deltas[index]) }
            #expect(b.encoded() == a.encoded(), "order \(order) again")
        }
    }
}
