import Foundation
import TestSupport
import Testing

@testable import MemoSync

/// The small pieces a sync session's steps use to stay cheap in a store full of junk: actions
/// compared without building their identities, and replicas dropped from the fetch list by
/// position.
@Suite struct SyncActionTests {
    static let keys = ["", "a", "memosync/v1/a", "memosync/v1/b"]

    static var actions: [SyncAction] {
        keys.flatMap { key in
            [SyncAction.list(prefix: key), .read(key: key), .write(key: key, bytes: []), .write(key: key, bytes: [1]), .delete(key: key)]
        }
    }

    @Test func sameOperationMeansTheSameIdentity() {
        for first in Self.actions {
            for second in Self.actions {
                #expect(first.isSameOperation(as: second) == (first.identity == second.identity), "\(first) against \(second)")
            }
        }
    }

    @Test func removingAscendingPositionsKeepsTheRestInOrder() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        for _ in 0..<500 {
            let count = random.int(in: 0..<40)
            let elements = (0..<count).map { _ in random.int(in: 0..<1_000) }
            let positions = (0..<count).filter { _ in random.int(in: 0..<3) == 0 }
            var removed = elements
            removed.removeAscendingPositions(positions)
            let expected = elements.indices.filter { !positions.contains($0) }.map { elements[$0] }
            #expect(removed == expected, "seed \(seed): \(elements) without \(positions)")
        }
    }
}
