import Foundation
import MemoCRDT
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Issue 27 through a replica (Replica+History.swift): the same versions on every device after
/// a sync, the text at a version, marked passages, revert and restore as local edits that
/// merge with concurrent edits and that undo takes back, and the typed errors.
@Suite struct ReplicaHistoryTests {
    /// More than the 10-minute pause that separates two versions of one device.
    static let pause: UInt64 = 11 * 60 * 1000

    /// Two replicas of one memo, "Groceries\nmilk" typed on the first, "\neggs" appended on the
    /// second, synced: two versions. `keepingHistory`: whether both keep deleted text's
    /// content this session (nil: as their libraries do).
    private func twoDevices(keepingHistory: Bool? = nil) async throws
        -> (alice: Replica, bob: Replica, clock: TestEnvironment, store: InMemoryBlobStore, memo: MemoID)
    {
        let clock = TestEnvironment(seed: 27)
        let store = InMemoryBlobStore()
        let alice = try Replica(disk: MemoryDisk(), environment: clock.environment)
        let bob = try Replica(disk: MemoryDisk(), environment: clock.environment)
        if let keepingHistory {
            try alice.setKeepsHistory(keepingHistory)
            try bob.setKeepsHistory(keepingHistory)
        }
        let memo = try alice.createMemo(text: "Groceries\nmilk")
        try await syncUntilQuiet([alice, bob], store: store)
        clock.advance(milliseconds: 60_000)
        try bob.edit(memo, replacingUTF16: 14..<14, with: "\neggs")
        try await syncUntilQuiet([bob, alice], store: store)
        return (alice, bob, clock, store, memo)
    }

    @Test func versionsAreTheSameOnBothReplicasAfterSync() async throws {
        let (alice, bob, clock, store, memo) = try await twoDevices()
        let versions = try alice.versions(of: memo)
        #expect(versions.count == 2)
        #expect(versions.map(\.device) == [alice.id, bob.id])
        #expect(versions.map(\.insertedCount) == [14, 5])
        #expect(try bob.versions(of: memo) == versions)
        // A pause of the same device makes a third, listed alike on both.
        clock.advance(milliseconds: Self.pause)
        try alice.edit(memo, replacingUTF16: 0..<0, with: "Today: ")
        try await syncUntilQuiet([alice, bob], store: store)
        let three = try bob.history(of: memo)
        #expect(three.versions.count == 3)
        #expect(try alice.history(of: memo).versions == three.versions)
        // Earlier versions keep their names (their cuts), devices and counts. (Not always their
        // wall time: a device's notebook run that continues over the pause shows its last
        // operation's time for the whole run; the same on every replica.)
        #expect(three.versions.prefix(2).map(\.cut) == versions.map(\.cut), "earlier versions keep their names")
        #expect(three.versions.prefix(2).map(\.shortName) == versions.map(\.shortName))
        #expect(three.versions.prefix(2).map(\.device) == versions.map(\.device))
        #expect(three.versions.prefix(2).map(\.insertedCount) == versions.map(\.insertedCount))
        #expect(try three.text(at: three.versions[0]) == "Groceries\nmilk")
        #expect(try alice.text(of: memo, at: three.versions[1].cut) == "Groceries\nmilk\neggs")
        #expect(three.currentText == "Today: Groceries\nmilk\neggs")
        #expect(three.version(named: three.versions[1].shortName) == three.versions[1])
        #expect(three.version(named: String(three.versions[1].shortName.prefix(3))) == nil, "fewer than 4 digits name nothing")
        #expect(three.index(of: three.versions[2]) == 2)
        // Who wrote what, the same on both.
        let attribution = try alice.attribution(of: memo)
        #expect(attribution == (try bob.attribution(of: memo)))
        #expect(attribution.map(\.replica) == [alice.id, bob.id])
        #expect(attribution.map(\.rangeUTF16) == [0..<21, 21..<26])
        // The second version against the current text: "Today: " was typed since.
        #expect(try three.marked(three.versions[1]) == [
            .init(mark: .baselineOnly, text: "Today: "), .init(mark: .unchanged, text: "Groceries\nmilk\neggs"),
        ])
        // Against the version before it: "\neggs" was its own.
        #expect(try three.marked(three.versions[1], comparedWith: .previousVersion) == [
            .init(mark: .unchanged, text: "Groceries\nmilk"), .init(mark: .versionOnly, text: "\neggs"),
        ])
        #expect(try three.marked(three.versions[0], comparedWith: .previousVersion) == [.init(mark: .versionOnly, text: "Groceries\nmilk")])
    }

    /// A revert is a local edit: a concurrent edit made on another device is kept when they
    /// merge, both replicas end with the same text and versions, and undo takes the revert
    /// back in one step (then redo makes it again).
    @Test func revertKeepsConcurrentEditsAndUndoTakesItBack() async throws {
        let (alice, bob, clock, store, memo) = try await twoDevices()
        let first = try alice.versions(of: memo)[0]
        clock.advance(milliseconds: 1_000)
        // Typing just before the revert: the revert is an undo step of its own.
        try alice.edit(memo, replacingUTF16: 19..<19, with: "!")
        _ = alice.takeEvents()
        try alice.revert(memo, to: first.cut)
        #expect(alice.notebook.memo(memo)?.text == "Groceries\nmilk")
        let events = alice.takeEvents()
        #expect(events.count == 1)
        if case let .changed(id, _, origin)? = events.first {
            #expect(id == memo && origin == .local)
        } else {
            Issue.record("no change event: \(events)")
        }
        // Meanwhile, on the other device:
        try bob.edit(memo, replacingUTF16: 0..<0, with: "Shopping: ")
        try await syncUntilQuiet([alice, bob], store: store)
        #expect(alice.notebook.memo(memo)?.text == "Shopping: Groceries\nmilk")
        expectConverged([alice, bob])
        #expect(try alice.versions(of: memo) == (try bob.versions(of: memo)))
        // Undo takes the whole revert back (not the "!" typed before it), and it syncs.
        try alice.undo(memo)
        #expect(alice.notebook.memo(memo)?.text == "Shopping: Groceries\nmilk\neggs!")
        try await syncUntilQuiet([alice, bob], store: store)
        #expect(bob.notebook.memo(memo)?.text == "Shopping: Groceries\nmilk\neggs!")
        try alice.redo(memo)
        #expect(alice.notebook.memo(memo)?.text == "Shopping: Groceries\nmilk")
        // Reverting to the text the memo has changes nothing and makes no undo step.
        let version = alice.notebook.version
        try alice.revert(memo, to: try alice.versions(of: memo).last!.cut)
        #expect(alice.notebook.version == version)
    }

    /// One deleted passage brought back where it was, after text was typed around it; undo
    /// takes it back. Needs deleted text's content (the library's retention).
    @Test func restoreBringsBackOnePassage() async throws {
        let (alice, bob, clock, store, memo) = try await twoDevices(keepingHistory: true)
        clock.advance(milliseconds: Self.pause)
        try alice.edit(memo, replacingUTF16: 9..<14, with: "")   // "\nmilk" deleted
        try await syncUntilQuiet([alice, bob], store: store)
        try bob.edit(memo, replacingUTF16: 0..<0, with: "Shopping ")
        try await syncUntilQuiet([alice, bob], store: store)
        let history = try bob.history(of: memo)
        #expect(history.currentText == "Shopping Groceries\neggs")
        let second = try #require(history.versions.first { $0.device == bob.id })
        #expect(try history.text(at: second) == "Groceries\nmilk\neggs")
        let changes = try history.changes(at: second)
        let deleted = try #require(changes.changes.first { $0.kind == .deleted })
        #expect(deleted.text == "\nmilk")
        #expect(try history.marked(second) == [
            .init(mark: .baselineOnly, text: "Shopping "), .init(mark: .unchanged, text: "Groceries"),
            .init(mark: .versionOnly, text: "\nmilk"), .init(mark: .unchanged, text: "\neggs"),
        ])
        _ = bob.takeEvents()
        let offset = try bob.restore(deleted, in: memo)
        #expect(offset == 18)
        #expect(bob.takeEvents() == [.changed(memo, edits: [TextEdit(rangeUTF16: 18..<18, replacement: "\nmilk")], origin: .local)])
        #expect(bob.notebook.memo(memo)?.text == "Shopping Groceries\nmilk\neggs")
        try await syncUntilQuiet([alice, bob], store: store)
        expectConverged([alice, bob])
        try bob.undo(memo)
        #expect(bob.notebook.memo(memo)?.text == "Shopping Groceries\neggs")
    }

    /// Without the content of deleted text, an earlier version is refused with the typed error
    /// (and its message in English, Korean and Japanese); so is a revert to it, changing nothing.
    @Test func aVersionWhoseTextIsNotRetainedIsATypedError() async throws {
        let (alice, _, clock, _, memo) = try await twoDevices(keepingHistory: false)
        clock.advance(milliseconds: Self.pause)
        try alice.edit(memo, replacingUTF16: 9..<14, with: "")
        let history = try alice.history(of: memo)
        #expect(history.versions.count == 3)
        #expect(throws: ReplicaError.notebook(.history(memo, .contentNotRetained(scalars: 5)))) { try history.text(at: history.versions[1]) }
        #expect(throws: ReplicaError.notebook(.history(memo, .contentNotRetained(scalars: 5)))) { try history.marked(history.versions[0]) }
        let version = alice.notebook.version
        #expect(throws: ReplicaError.notebook(.history(memo, .contentNotRetained(scalars: 5)))) { try alice.revert(memo, to: history.versions[1].cut) }
        #expect(alice.notebook.version == version)
        #expect(alice.notebook.memo(memo)?.text == "Groceries\neggs")
        let error = ReplicaError.notebook(.history(memo, .contentNotRetained(scalars: 5)))
        for (language, words) in [(MemoLanguage.english, "retention"), (.korean, "보존"), (.japanese, "保存期間")] {
            let reason = MemoLanguage.$taskLanguage.withValue(language) { error.failureReason ?? "" }
            #expect(reason.contains(words), "\(language): \(reason)")
            // ShowingAMemosHistory.md: "whose `localizedDescription` and `failureReason` say so".
            let description = MemoLanguage.$taskLanguage.withValue(language) { error.localizedDescription }
            #expect(description.contains(words), "\(language): \(description)")
            let notHeld = MemoLanguage.$taskLanguage.withValue(language) { ReplicaError.notebook(.history(memo, .versionNotHeld)).localizedDescription }
            #expect(!notHeld.contains(words) && notHeld != description, "\(language): \(notHeld)")
        }
        // Other mistakes: an unknown memo, a version of another memo, a memo in the trash.
        let unknown = MemoID(high: 1, low: 2)
        #expect(throws: ReplicaError.notebook(.memoNotFound(unknown))) { try alice.history(of: unknown) }
        let other = try alice.createMemo(text: "x")
        #expect(throws: ReplicaError.notebook(.history(other, .versionNotHeld))) { try alice.text(of: other, at: history.versions[1].cut) }
        try alice.moveToTrash(memo)
        #expect(try alice.versions(of: memo).count == 3, "a memo in the trash keeps its history")
        #expect(throws: ReplicaError.notebook(.memoInTrash(memo))) { try alice.revert(memo, to: history.versions[2].cut) }
    }

    /// Random editing on two replicas keeping history (inserts and deletions of text from
    /// several scripts, pauses, syncs between): both list the same versions; every version's
    /// marked passages give its text (unchanged + version-only) and the baseline's (unchanged +
    /// baseline-only), against the current text and the version before; a revert to a random
    /// version gives its text exactly, and undo gives the text before back. Prints the seed;
    /// `MEMOSYNC_SEED=N` reruns one.
    @Test func markedPassagesAndRevertHoldForRandomHistories() async throws {
        for seed in testSeeds(6, salt: 27) {
            var random = SeededRandom(seed: seed)
            let clock = TestEnvironment(seed: seed)
            let store = InMemoryBlobStore()
            let replicas = [try Replica(disk: MemoryDisk(), environment: clock.environment), try Replica(disk: MemoryDisk(), environment: clock.environment)]
            for replica in replicas { try replica.setKeepsHistory(true) }
            let memo = try replicas[0].createMemo(text: RandomText.string(random.int(in: 1...20), using: &random))
            try await syncUntilQuiet(replicas, store: store)
            for _ in 0..<random.int(in: 10...30) {
                let replica = random.pick(replicas)
                let scalars = Array(replica.notebook.memo(memo)!.text.unicodeScalars)
                let start = random.int(in: 0...scalars.count)
                let end = random.chance(0.5) ? min(scalars.count, start + random.int(in: 0...8)) : start
                let typed = random.chance(0.7) ? RandomText.string(random.int(in: 1...6), using: &random) : ""
                try replica.edit(memo, replacingScalars: start..<end, with: typed)
                clock.advance(milliseconds: random.chance(0.3) ? Self.pause : UInt64(random.int(in: 100...5_000)))
                if random.chance(0.3) { try await syncUntilQuiet(replicas, store: store) }
            }
            try await syncUntilQuiet(replicas, store: store)
            let history = try replicas[0].history(of: memo)
            #expect(try replicas[1].history(of: memo).versions == history.versions, "seed \(seed)")
            #expect(history.versions.count >= 2, "seed \(seed)")
            for (index, version) in history.versions.enumerated() {
                let text = try history.text(at: version)
                let previous = index > 0 ? try history.text(at: history.versions[index - 1]) : ""
                for (baseline, baselineText) in [(MemoHistory.Baseline.current, history.currentText), (.previousVersion, previous)] {
                    let passages = try history.marked(version, comparedWith: baseline)
                    let shown = passages.filter { $0.mark != .baselineOnly }.map(\.text).joined()
                    let compared = passages.filter { $0.mark != .versionOnly }.map(\.text).joined()
                    #expect(shown == text, "seed \(seed) version \(index) \(baseline)")
                    #expect(compared == baselineText, "seed \(seed) version \(index) \(baseline)")
                    #expect(zip(passages, passages.dropFirst()).allSatisfy { $0.mark != $1.mark }, "seed \(seed): passages merged")
                }
            }
            let target = random.pick(history.versions)
            let before = history.currentText
            let expected = try history.text(at: target)
            clock.advance(milliseconds: 1_000)
            try replicas[0].revert(memo, to: target.cut)
            #expect(replicas[0].notebook.memo(memo)?.text == expected, "seed \(seed)")
            if expected != before {
                try replicas[0].undo(memo)
                #expect(replicas[0].notebook.memo(memo)?.text == before, "seed \(seed)")
            }
        }
    }
}
