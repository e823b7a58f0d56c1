import Foundation
import MemoCRDT
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Issue 29 (for app builders): undo grouping an app ends, what `purge` accepts, and the events
/// of `createMemo(text:)`.
@Suite struct ReplicaAppAPITests {
    private let environment = TestEnvironment(seed: 29)

    private func makeReplica() throws -> Replica {
        try Replica(disk: MemoryDisk(), environment: environment.environment)
    }

    /// Types `string` at UTF-16 offset `start`, one character every 100 ms (within the 2 s window).
    private func type(_ string: String, at start: Int, into memo: MemoID, of replica: Replica) throws {
        for (index, character) in string.enumerated() {
            environment.advance(milliseconds: 100)
            try replica.edit(memo, replacingUTF16: (start + index)..<(start + index), with: String(character))
        }
    }

    /// Two bursts of typing within the coalescing window undo separately when the app ended the
    /// grouping between them (a caret move), and together without it.
    @Test(arguments: [false, true]) func endingTheGroupingSplitsUndo(ended: Bool) throws {
        let replica = try makeReplica()
        let memo = try replica.createMemo(text: "")
        try type("ab", at: 0, into: memo, of: replica)
        if ended { replica.endUndoGrouping() }
        try type("cd", at: 2, into: memo, of: replica)
        #expect(replica.takeEvents().count == 5)   // added, then one change per character: grouping adds none
        environment.advance(milliseconds: 100)
        try replica.undo(memo)
        #expect(replica.notebook.memo(memo)?.text == (ended ? "ab" : ""))
        #expect(replica.notebook.canUndo(memo) == ended)
        if ended {
            try replica.undo(memo)
            #expect(replica.notebook.memo(memo)?.text == "")
        }
        #expect(throws: ReplicaError.notebook(.nothingToUndo(memo))) { try replica.undo(memo) }
    }
}
