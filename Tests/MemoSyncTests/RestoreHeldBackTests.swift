import Foundation
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Held-back text put back into memos (`Replica.restoreHeldBackTexts`, `memo recover
/// --restore`): after a gap no sync fills, what the user typed after it is readable in memos
/// again, once, and nothing of the held-back operations is given up.
@Suite struct RestoreHeldBackTests {
    /// A library with two memos whose edits wait after damage: "Groceries" (here) and "Plans"
    /// (its creation lost with the damaged record, which `store` holds).
    static func damagedLibrary(
        store: InMemoryBlobStore, environment: TestEnvironment
    ) async throws -> (disk: MemoryDisk, groceries: MemoID, lost: MemoID) {
        let disk = MemoryDisk()
        let replica = try Replica(disk: disk, environment: environment.environment)
        let groceries = try replica.createMemo(text: "Groceries")
        try replica.saveNow()
        // The record damage takes (published before: a sync brings it back at the end).
        let lost = try replica.createMemo(text: "Plans")
        try replica.saveNow()
        _ = try await replica.sync(with: store)
        // Saved after it, never synced: more typed into that memo and into the other. A
        // library's operations apply in order, so both wait for the lost record.
        try replica.edit(lost, replacingUTF16: 5..<5, with: " for Sunday")
        try replica.edit(groceries, replacingUTF16: 9..<9, with: "\nmilk")
        try replica.saveNow()
        replica.closeNow()
        let name = LibraryCore.journalFileName(generation: replica.library.generation)
        _ = try JournalDamageTests.flipABit(in: name, on: disk) { _, delta in delta.memos.contains(lost) && !delta.memos.contains(groceries) }
        return (disk, groceries, lost)
    }

    @Test func heldBackTextBecomesNewMemosOnceAndTheOperationsStillApplyLater() async throws {
        let store = InMemoryBlobStore()
        let environment = TestEnvironment(seed: 2512)
        let (disk, groceries, lost) = try await Self.damagedLibrary(store: store, environment: environment)
        let reader = try Replica(disk: disk, environment: environment.environment)
        #expect(reader.openReport.damage.count == 1)
        #expect(reader.notebook.memo(groceries)?.text == "Groceries")
        #expect(reader.notebook.memo(lost) == nil)
        let heldBack = reader.notebook.pendingOperationCount
        #expect(heldBack > 0)

        var events = reader.events().makeAsyncIterator()
        let restored = try reader.restoreHeldBackTexts { title in "Recovered edits of \(title)" }
        // In `heldBackTexts` order (by memo id); the memo that is here gets the heading.
        let expected = [groceries, lost].sorted().map { memo in
            memo == groceries ? "Recovered edits of Groceries\n\nmilk" : " for Sunday"
        }
        #expect(restored.map(\.heldBackMemo) == [groceries, lost].sorted())
        #expect(restored.allSatisfy { $0.wasCreated })
        #expect(restored.map { reader.notebook.memo($0.memo)?.text } == expected)
        #expect(Set(restored.map(\.memo)).isDisjoint(with: [groceries, lost]))
        // Reported as any created memo is, and the held-back operations are untouched.
        var added: [MemoID] = []
        while added.count < restored.count, let event = await events.next() {
            if case let .added(id, _) = event { added.append(id) }
        }
        #expect(added == restored.map(\.memo))
        #expect(reader.notebook.pendingOperationCount == heldBack)

        // Again: nothing created, the same memos named.
        let again = try reader.restoreHeldBackTexts { title in "Recovered edits of \(title)" }
        #expect(again.map(\.memo) == restored.map(\.memo) && again.allSatisfy { !$0.wasCreated })
        #expect(reader.notebook.activeMemoCount == 3)

        // The lost record's operations come back from the store: the held-back operations
        // apply, and the restored memos stay beside the memos they build.
        _ = try await reader.sync(with: store)
        #expect(reader.notebook.pendingOperationCount == 0)
        #expect(reader.notebook.memo(lost)?.text == "Plans for Sunday")
        #expect(reader.notebook.memo(groceries)?.text == "Groceries\nmilk")
        #expect(restored.allSatisfy { reader.notebook.memo($0.memo)?.status == .active })
        #expect(try reader.restoreHeldBackTexts { $0 }.isEmpty)
        // And the restored memos went out like any other: another device has them.
        let other = try Replica(disk: MemoryDisk(), environment: environment.environment)
        _ = try await other.sync(with: store)
        #expect(restored.map { other.notebook.memo($0.memo)?.text } == expected)
    }

    /// The `@Observable` model's list shows the restored memos at once.
    @MainActor
    @Test func theModelListsRestoredMemosAtOnce() async throws {
        let environment = TestEnvironment(seed: 2514)
        let (disk, _, _) = try await Self.damagedLibrary(store: InMemoryBlobStore(), environment: environment)
        let model = ReplicaModel(replica: try Replica(disk: disk, environment: environment.environment))
        #expect(model.memos.count == 1)
        let restored = try model.restoreHeldBackTexts { "Recovered edits of \($0)" }
        #expect(restored.count == 2)
        #expect(model.memos.count == 3 && Set(restored.map(\.memo)).isSubset(of: Set(model.memos.map(\.id))))
    }

    @Test func nothingHeldBackRestoresNothing() throws {
        let environment = TestEnvironment(seed: 2513)
        let replica = try Replica(disk: MemoryDisk(), environment: environment.environment)
        _ = try replica.createMemo(text: "fine")
        #expect(try replica.restoreHeldBackTexts { $0 }.isEmpty)
        #expect(replica.notebook.activeMemoCount == 1)
    }
}
