import Foundation
import MemoCRDT
import MemoNotes
import TestSupport
import Testing

@testable import MemoSync
import MemoSyncTesting

/// Errors an app can show (issue 14, item 8): the same edit mistake gives the same case and
/// payload from `TextCRDT`, `Notebook` and `Replica`, nested at most two levels; every error has
/// a `LocalizedError` description; a sync's problems are typed values.
@Suite struct ErrorConsistencyTests {
    /// "a😀b": 4 UTF-16 units (the emoji is a surrogate pair at 1 and 2), 3 scalars.
    static let string = "a😀b"
    let memo = MemoID(high: 7, low: 8)

    /// The texts these tests compare are the English ones, whatever the locale variables of the
    /// machine running them say (every test of the package expects English unless it asks for
    /// another language with `MemoLanguage.$taskLanguage`).
    init() {
        MemoLanguage.current = .english
    }

    // MARK: Capturing typed errors

    private func caught<E: Error>(_ body: () throws(E) -> Void) -> E? {
        do throws(E) {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// A range with `lower > upper`: Swift only builds one unchecked, which release builds allow.
    private func reversed(_ lower: Int, _ upper: Int) -> Range<Int> {
        unsafeBitCast((lower, upper), to: Range<Int>.self)
    }

    /// A UTF-16 or scalar range edit, at the three layers.
    private enum Unit { case utf16, scalars }

    /// The errors of the same replacement at the three layers: the text's, the notebook's, the
    /// replica's (each layer holding `string` in an active memo).
    private func errors(_ unit: Unit, _ range: Range<Int>) throws -> (TextError?, NotebookError?, ReplicaError?) {
        var text = TextCRDT(replica: ReplicaID(1))
        try text.insert(Self.string, atScalar: 0)
        let textError = caught { () throws(TextError) in
            switch unit {
            case .utf16: try text.replace(utf16Range: range, with: "x")
            case .scalars: try text.replace(scalarRange: range, with: "x")
            }
        }
        var notebook = Notebook(replica: ReplicaID(2))
        try notebook.createMemo(memo, text: Self.string, wallMilliseconds: 1_000)
        let notebookError = caught { () throws(NotebookError) in
            switch unit {
            case .utf16: try notebook.edit(memo, replacingUTF16: range, with: "x", wallMilliseconds: 2_000)
            case .scalars: try notebook.edit(memo, replacingScalars: range, with: "x", wallMilliseconds: 2_000)
            }
        }
        let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 3).environment)
        let id = try replica.createMemo(text: Self.string)
        let replicaError = caught { () throws(ReplicaError) in
            switch unit {
            case .utf16: try replica.edit(id, replacingUTF16: range, with: "x")
            case .scalars: try replica.edit(id, replacingScalars: range, with: "x")
            }
        }
        // The replica's memo has another id: compare as if it were `memo`.
        return (textError, notebookError, replicaError.map { error in
            if case let .text(other, inner) = error, other == id { return .text(memo, inner) }
            return error
        })
    }

    /// Checks that the three layers report `expected` for the same edit.
    private func expectSame(_ unit: Unit, _ range: Range<Int>, _ expected: TextError, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (text, notebook, replica) = try errors(unit, range)
        #expect(text == expected, "TextCRDT", sourceLocation: sourceLocation)
        #expect(notebook == .text(memo, expected), "Notebook", sourceLocation: sourceLocation)
        #expect(replica == .text(memo, expected), "Replica", sourceLocation: sourceLocation)
        #expect(notebook?.textError == expected && replica?.textError == expected, sourceLocation: sourceLocation)
        #expect(replica?.notebookError == notebook && replica?.memo == memo, sourceLocation: sourceLocation)
    }

    // MARK: The same case at every layer

    @Test func aRangePastTheEndIsRangeOutOfBoundsEverywhere() throws {
        try expectSame(.utf16, 3..<9, .rangeOutOfBounds(lowerBound: 3, upperBound: 9, length: 4))
        try expectSame(.utf16, 9..<9, .rangeOutOfBounds(lowerBound: 9, upperBound: 9, length: 4))
        try expectSame(.utf16, 0..<5, .rangeOutOfBounds(lowerBound: 0, upperBound: 5, length: 4))
        // The range is checked before its bounds are converted: not `.offsetInsideSurrogatePair`.
        try expectSame(.utf16, 2..<9, .rangeOutOfBounds(lowerBound: 2, upperBound: 9, length: 4))
        try expectSame(.scalars, 1..<7, .rangeOutOfBounds(lowerBound: 1, upperBound: 7, length: 3))
        try expectSame(.scalars, 4..<4, .rangeOutOfBounds(lowerBound: 4, upperBound: 4, length: 3))
    }

    @Test func negativeAndReversedRangesAreRangeOutOfBoundsEverywhere() throws {
        try expectSame(.utf16, -1..<2, .rangeOutOfBounds(lowerBound: -1, upperBound: 2, length: 4))
        try expectSame(.utf16, -3..<(-1), .rangeOutOfBounds(lowerBound: -3, upperBound: -1, length: 4))
        try expectSame(.scalars, -1..<1, .rangeOutOfBounds(lowerBound: -1, upperBound: 1, length: 3))
        try expectSame(.utf16, reversed(3, 1), .rangeOutOfBounds(lowerBound: 3, upperBound: 1, length: 4))
        try expectSame(.scalars, reversed(2, 0), .rangeOutOfBounds(lowerBound: 2, upperBound: 0, length: 3))
    }

    @Test func anOffsetInsideASurrogatePairIsTheSameEverywhere() throws {
        try expectSame(.utf16, 2..<3, .offsetInsideSurrogatePair(offsetUTF16: 2))
        try expectSame(.utf16, 0..<2, .offsetInsideSurrogatePair(offsetUTF16: 2))
        try expectSame(.utf16, 2..<2, .offsetInsideSurrogatePair(offsetUTF16: 2))
    }

    @Test func anUnknownOrTrashedMemoIsTheSameInTheNotebookAndTheReplica() throws {
        let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 4).environment)
        let trashed = try replica.createMemo(text: Self.string)
        try replica.moveToTrash(trashed)
        let unknown = MemoID(high: 1, low: 2)
        var notebook = Notebook(replica: ReplicaID(5))
        try notebook.createMemo(trashed, text: Self.string, wallMilliseconds: 1_000)
        try notebook.moveToTrash(trashed, wallMilliseconds: 1_001)

        // Each entry point, with a range that is fine and one that is not: the memo is checked first.
        for range in [0..<1, 3..<9] {
            for (id, expected) in [(unknown, NotebookError.memoNotFound(unknown)), (trashed, .memoInTrash(trashed))] {
                let byNotebook: [NotebookError?] = [
                    caught { () throws(NotebookError) in try notebook.edit(id, replacingUTF16: range, with: "x", wallMilliseconds: 2_000) },
                    caught { () throws(NotebookError) in try notebook.edit(id, replacingScalars: range, with: "x", wallMilliseconds: 2_000) },
                    caught { () throws(NotebookError) in try notebook.setText(id, to: "x", wallMilliseconds: 2_000) },
                ]
                let byReplica: [ReplicaError?] = [
                    caught { () throws(ReplicaError) in try replica.edit(id, replacingUTF16: range, with: "x") },
                    caught { () throws(ReplicaError) in try replica.edit(id, replacingScalars: range, with: "x") },
                    caught { () throws(ReplicaError) in try replica.setText(id, to: "x") },
                ]
                #expect(byNotebook.allSatisfy { $0 == expected }, "\(byNotebook)")
                #expect(byReplica.allSatisfy { $0 == .notebook(expected) && $0?.notebookError == expected && $0?.memo == id }, "\(byReplica)")
                #expect(byReplica.allSatisfy { $0?.textError == nil })
            }
        }
    }

    @Test func replicaErrorsNestAtMostTwoLevels() {
        let text = TextError.rangeOutOfBounds(lowerBound: 3, upperBound: 9, length: 4)
        #expect(ReplicaError(NotebookError.text(memo, text)) == .text(memo, text))
        #expect(ReplicaError(NotebookError.memoInTrash(memo)) == .notebook(.memoInTrash(memo)))
        #expect(ReplicaError.text(memo, text).description == NotebookError.text(memo, text).description)
        #expect(ReplicaError.closed.notebookError == nil && ReplicaError.closed.textError == nil && ReplicaError.closed.memo == nil)
    }

    // MARK: LocalizedError

    /// A sample of every public error type's cases, with a word each description must hold.
    static let samples: [(any Error, String)] = [
        (TextError.rangeOutOfBounds(lowerBound: 3, upperBound: 9, length: 4), "3..<9"),
        (TextError.offsetInsideSurrogatePair(offsetUTF16: 2), "surrogate"),
        (TextError.offsetOutOfBounds(offset: 7, length: 4), "7"),
        (TextError.contentTooLarge(bytes: 99), "large"),
        (TextError.invalidDelta(reason: "forged"), "forged"),
        (NotebookError.memoNotFound(MemoID(high: 1, low: 2)), "no such memo"),
        (NotebookError.memoInTrash(MemoID(high: 1, low: 2)), "trash"),
        (NotebookError.text(MemoID(high: 1, low: 2), .rangeOutOfBounds(lowerBound: 3, upperBound: 9, length: 4)), "3..<9"),
        (NotebookError.nothingToUndo(MemoID(high: 1, low: 2)), "undo"),
        (NotebookError.corruptMemo(MemoID(high: 1, low: 2), .notMemoSync), "cannot be read"),
        (MemoCRDT.DecodingError.truncated(neededBytes: 10, availableBytes: 4), "truncated"),
        (MemoCRDT.DecodingError.checksumMismatch(expected: 1, computed: 2), "checksum"),
        (ReplicaError.notebook(.memoInTrash(MemoID(high: 1, low: 2))), "trash"),
        (ReplicaError.text(MemoID(high: 1, low: 2), .offsetInsideSurrogatePair(offsetUTF16: 2)), "surrogate"),
        (ReplicaError.disk(.full), "disk is full"),
        (ReplicaError.corruptLibrary(file: "state", reason: "bad checksum"), "damaged"),
        (ReplicaError.closed, "closed"),
        (ReplicaError.syncInProgress, "sync"),
        (BlobStoreError.full, "full"),
        (BlobStoreError.notFound(key: "memosync/v1/x"), "no longer in the sync store"),
        (BlobStoreError.unavailable(reason: "offline"), "offline"),
        (BlobStoreError.io(reason: "EIO"), "EIO"),
        (BlobStoreError.denied(code: "SignatureDoesNotMatch", message: "no match"), "SignatureDoesNotMatch"),
        (BlobStoreError.server(status: 404, code: "NoSuchBucket", message: "no bucket"), "NoSuchBucket"),
        (BlobStoreError.retryLater(afterMilliseconds: 30_000, reason: "throttled"), "30 s"),
        (DiskError.locked(path: "/lib"), "/lib"),
        (DiskError.unavailable(reason: "no such folder"), "no such folder"),
        (DiskError.io(reason: "EIO"), "EIO"),
        (SyncProblem(.write, key: "memosync/v1/k", storeError: .full), "written to the sync store: the store is full"),
    ]

    @Test func everyErrorHasALocalizedDescriptionThatSaysWhatWentWrong() {
        for (error, word) in Self.samples {
            let localized = error as? any LocalizedError
            let description = localized?.errorDescription ?? ""
            #expect(!description.isEmpty, "\(error)")
            #expect(description.localizedCaseInsensitiveContains(word), "\(error): \(description)")
            // Foundation uses it: what `localizedDescription` shows is the same text.
            #expect(error.localizedDescription == description, "\(error)")
        }
    }

    @Test func aMemoInTheTrashSuggestsRestoringIt() throws {
        let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 6).environment)
        let id = try replica.createMemo(text: "note")
        try replica.moveToTrash(id)
        do {
            try replica.edit(id, replacingUTF16: 0..<0, with: "x")
            Issue.record("expected an error")
        } catch {
            #expect(error.recoverySuggestion == "Restore it from the trash first.")
            // The memo's id is not shown to a person (its description keeps it, for logs).
            #expect(error.errorDescription == "The memo is in the trash.")
            #expect(error.description.contains("\(id)"))
        }
    }

    /// The GettingStarted article's `catch` clauses, as written there.
    @Test func theGettingStartedCatchClausesMatch() throws {
        let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 9).environment)
        let groceries = try replica.createMemo(text: "Groceries")
        var caught = ""
        do throws(ReplicaError) {
            try replica.edit(groceries, replacingUTF16: 500..<500, with: "!")
        } catch .text(let memo, .rangeOutOfBounds(let lower, let upper, let length)) {
            caught = "\(lower)..<\(upper) is past the end of \(memo) (\(length) UTF-16 units)"
        } catch .notebook(.memoInTrash) {
            caught = "restore it from the trash first"
        } catch {
            caught = error.localizedDescription
        }
        #expect(caught == "500..<500 is past the end of \(groceries) (9 UTF-16 units)")
    }

    // MARK: Sync problems

    @Test func aFailedWriteIsASyncProblemWithTheKeyAndTheStoreError() async throws {
        let store = InMemoryBlobStore()
        let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 7).environment)
        try replica.createMemo(text: "one")
        store.failNext(with: .full, on: [.write])
        let report = try await replica.sync(with: store)
        #expect(report.listedStore && !report.isComplete)
        #expect(report.errors.count == 1, "\(report.errors)")
        let problem = try #require(report.errors.first)
        #expect(problem.operation == .write && problem.storeError == .full && problem.reason == nil)
        let key = try #require(problem.key)
        #expect(key.hasPrefix("memosync/") && !store.keys.contains(key))
        #expect(problem.description == "writing \(key) failed: the store is full")
        // Shown to a user: what failed, then the store's error, in the current language; the
        // key only in the description.
        #expect(problem.errorDescription == "A file could not be written to the sync store: the store is full.")

        let next = try await replica.sync(with: store)
        #expect(next.isComplete && next.errors.isEmpty)
    }

    @Test func aFailedListingIsASyncProblemWithoutAKey() async throws {
        let store = InMemoryBlobStore()
        let replica = try Replica(disk: MemoryDisk(), environment: TestEnvironment(seed: 8).environment)
        store.failNext(with: .unavailable(reason: "offline"), on: [.list])
        let report = try await replica.sync(with: store)
        #expect(!report.listedStore && !report.isComplete)
        #expect(report.errors == [SyncProblem(.list, storeError: .unavailable(reason: "offline"))])
        #expect(report.errors.first?.description == "listing the store failed: the store is unavailable: offline")
    }

    /// `ReplicaModel.Failure`, which a status bar shows, speaks the catalogs' language.
    @Test func replicaModelFailuresComeFromTheCatalogs() {
        let failure = ReplicaModel.Failure.save(.closed)
        #expect(failure.errorDescription == "Could not save: the library is closed.", "\(failure.errorDescription ?? "")")
        MemoLanguage.$taskLanguage.withValue(.korean) {
            #expect(failure.errorDescription == "저장하지 못했습니다: 라이브러리가 닫혀 있습니다.")
        }
        MemoLanguage.$taskLanguage.withValue(.japanese) {
            #expect(ReplicaModel.Failure.incompleteSync(SyncReport()).errorDescription == "同期でストアの一覧を取得できませんでした。")
        }
    }
}
