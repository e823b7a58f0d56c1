import Foundation
import MemoCRDT
import MemoNotes
import Testing

@testable import MemoSync
import MemoSyncTesting

/// What an app's alert shows of an error (issue 29, item 12): in Korean and Japanese no English
/// sentence from a lower layer (a store's reason, a system's text, a description), no raw memo id
/// or blob key; in every language one sentence of what happened (with at most one detail after
/// ": ", the innermost cause) and one sentence of what to do.
@Suite struct LocalizedErrorTextTests {
    static let memo = MemoID(high: 0x0123_4567_89ab_cdef, low: 0x0fed_cba9_8765_4321)
    static let key = "memosync/v1/replicas/0123456789abcdef0123456789abcdef/segments/00000000000000000001"

    /// A representative value of every public error type's cases, with the lower layers' own
    /// reasons as they write them (a system's text, a remote store's, a folder store's).
    static var samples: [any Error] {
        let text: [TextError] = [
            .offsetOutOfBounds(offset: 7, length: 4), .offsetInsideSurrogatePair(offsetUTF16: 2),
            .rangeOutOfBounds(lowerBound: 3, upperBound: 9, length: 4), .counterOverflow(replica: ReplicaID(9)),
            .contentTooLarge(bytes: 99), .tooManyReplicas, .invalidDelta(reason: "the delta names an unknown anchor"),
            .tooManyPendingOperations(count: 5),
        ]
        let notebook: [NotebookError] = [
            .memoNotFound(memo), .memoExists(memo), .memoInTrash(memo), .memoNotInTrash(memo),
            .text(memo, .rangeOutOfBounds(lowerBound: 3, upperBound: 9, length: 4)),
            .invalidDelta(reason: "a memo is created twice"), .corruptMemo(memo, .notMemoSync), .nothingToUndo(memo),
        ]
        let decoding: [MemoCRDT.DecodingError] = [.truncated(neededBytes: 10, availableBytes: 4), .checksumMismatch(expected: 1, computed: 2)]
        let store: [BlobStoreError] = [
            .notFound(key: key), .invalidKey(key), .full,
            .unavailable(reason: "open /home/u/store: Permission denied"),
            .unavailable(reason: "the folder /home/u/store does not exist or is not a folder"),
            .unavailable(reason: "cannot connect (the server refused the connection or did not answer) (after 3 attempts)"),
            .unavailable(reason: "the server's host name was not found"),
            .io(reason: "mkdir /home/u/store/memosync: a file with this name is in the way"),
            .io(reason: "write /home/u/store/x: No space left on device"),
            .io(reason: "something no catalog knows went wrong here"),
            .tooLarge(key: key, sizeBytes: 10, limitBytes: 5), .cancelled,
            .undecryptable(key: key, reason: .authenticationFailed), .encrypted,
            .denied(code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match"),
            .server(status: 404, code: "NoSuchBucket", message: "The specified bucket does not exist"),
            .retryLater(afterMilliseconds: 30_000, reason: "the server is busy (HTTP 503 SlowDown)"),
        ]
        let disk: [DiskError] = [
            .unavailable(reason: "open /home/u/library: Permission denied"),
            .unavailable(reason: "mkdir /home/u/library: a file with this name is in the way"),
            .unavailable(reason: "the library folder /home/u/library does not exist or is not a folder"),
            .locked(path: "/home/u/library"), .full, .io(reason: "write /home/u/library/journal-1: Input/output error"),
            .tooLarge(file: "state", sizeBytes: 99, limitBytes: 9),
        ]
        let encryption: [EncryptionError] = [
            .wrongPassphrase, .passphraseRequired, .passphraseChanged, .notEncrypted, .alreadyEncrypted,
            .damagedKeyBlob(key: key, reason: "the wrapped key is too short"), .unknownKeyBlobVersion(key: key, version: 9),
            .unacceptableParameters("the work factor is too large"), .keyBlobMissing, .store(.unavailable(reason: "open /x: Permission denied")),
            .platform("the random number generator failed"),
        ]
        let replica: [ReplicaError] = [
            .disk(.full), .notebook(.memoInTrash(memo)), .text(memo, .offsetInsideSurrogatePair(offsetUTF16: 2)),
            .corruptLibrary(file: "state", reason: "the checksum does not match its bytes"),
            .unknownLibraryVersion(file: "state", kind: 2, version: 9), .syncInProgress, .closed, .encryptedLibrary, .noSyncInProgress,
        ]
        let problems: [SyncProblem] = [
            SyncProblem(.list, storeError: .unavailable(reason: "open /home/u/store: Permission denied")),
            SyncProblem(.list, storeError: .unavailable(reason: "cannot connect (the server refused the connection or did not answer)")),
            SyncProblem(.write, key: key, storeError: .full),
            SyncProblem(.write, key: key, storeError: .io(reason: "mkdir /s/memosync: a file with this name is in the way")),
            SyncProblem(.read, key: key, reason: "the store answered with a blob of another size"),
            SyncProblem(.delete, key: key, storeError: .notFound(key: key)),
            SyncProblem(.local, reason: "the journal could not be read"),
        ]
        var unfinished = SyncReport()
        unfinished.listedStore = true
        unfinished.errors = [problems[2], problems[3]]
        var notListed = SyncReport()
        notListed.errors = [problems[1]]
        let failures: [ReplicaModel.Failure] = [
            .save(.disk(.full)), .sync(.disk(.locked(path: "/home/u/library"))), .sync(.closed),
            .incompleteSync(SyncReport()), .incompleteSync(unfinished), .incompleteSync(notListed),
        ]
        let all: [[any Error]] = [text, notebook, decoding, store, disk, encryption, replica, problems, failures]
        return all.flatMap { $0 }
    }

    /// Three or more words of Latin letters in a row: an English phrase (a code such as
    /// "NoSuchBucket" or a name such as "MemoSync" is one word).
    static func englishPhrase(in text: String) -> String? {
        text.firstMatch(of: /[A-Za-z]{2,}(?:[ ,;'()-]+[A-Za-z]{2,}){2,}/).map { String($0.output) }
    }

    /// The number of sentences: ends of sentences (". ", "。", a final ".").
    static func sentenceCount(_ text: String) -> Int {
        text.matches(of: /[.。!?](?:\s|$)|。/).count
    }

    @Test(arguments: [MemoLanguage.korean, .japanese])
    func noEnglishAndNoRawIdentifiersInTranslations(language: MemoLanguage) {
        MemoLanguage.$taskLanguage.withValue(language) {
            for error in Self.samples {
                let localized = error as! any LocalizedError
                for (what, text) in [("description", localized.errorDescription), ("suggestion", localized.recoverySuggestion), ("reason", localized.failureReason)] {
                    guard let text else { continue }
                    #expect(Self.englishPhrase(in: text) == nil, "\(language) \(what) of \(error): \(text)")
                    #expect(text.firstMatch(of: /[0-9a-f]{32}/) == nil, "\(language) \(what) of \(error) shows a memo id: \(text)")
                    #expect(!text.contains("memosync/"), "\(language) \(what) of \(error) shows a blob key: \(text)")
                    #expect(!text.contains("error."), "\(language) \(what) of \(error) shows a catalog key: \(text)")
                }
            }
        }
    }

    @Test(arguments: MemoLanguage.allCases)
    func oneSentenceOfWhatHappenedAndOneOfWhatToDo(language: MemoLanguage) {
        MemoLanguage.$taskLanguage.withValue(language) {
            for error in Self.samples {
                let localized = error as! any LocalizedError
                let description = localized.errorDescription ?? ""
                #expect(!description.isEmpty, "\(error)")
                #expect(description.ranges(of: ": ").count <= 1, "\(language) nests: \(description)")
                #expect(Self.sentenceCount(description) == 1, "\(language) is not one sentence: \(description)")
                if language != .english {
                    #expect(description.firstMatch(of: /[0-9a-f]{32}/) == nil && !description.contains("memosync/"), "\(description)")
                }
                if let suggestion = localized.recoverySuggestion {
                    #expect(Self.sentenceCount(suggestion) == 1, "\(language) suggestion is not one sentence: \(suggestion)")
                    #expect(!suggestion.contains(": "), "\(language) suggestion nests: \(suggestion)")
                }
            }
        }
    }

    /// The innermost cause is the detail: a store that cannot be listed because of a
    /// permission says so, in the user's language, without the middle layers' prefixes.
    @Test func aFailedListingSaysWhatHappenedAndTheInnermostCause() {
        let problem = SyncProblem(.list, storeError: .unavailable(reason: "open /home/u/store: Permission denied"))
        let failure = ReplicaModel.Failure.incompleteSync({ var report = SyncReport(); report.errors = [problem]; return report }())
        MemoLanguage.$taskLanguage.withValue(.english) {
            #expect(problem.errorDescription == "The sync store could not be listed: permission was denied.")
            #expect(failure.errorDescription == problem.errorDescription)
            #expect(failure.recoverySuggestion == BlobStoreError.unavailable(reason: "x").recoverySuggestion)
        }
        MemoLanguage.$taskLanguage.withValue(.korean) {
            #expect(problem.errorDescription == "동기화 저장소의 목록을 가져올 수 없습니다: 권한이 없습니다.")
        }
        MemoLanguage.$taskLanguage.withValue(.japanese) {
            #expect(problem.errorDescription == "同期ストアの一覧を取得できませんでした: アクセス権がありません。")
        }
        // The description, for logs, keeps everything: the raw reason and the key.
        #expect(problem.description.contains("Permission denied"))
        let write = SyncProblem(.write, key: Self.key, storeError: .full)
        #expect(write.description.contains(Self.key))
    }

    /// Every reason a sync skips a blob for: in English the same text as its description (what
    /// `--json` and logs keep); in Korean and Japanese translated, with no English phrase (a
    /// lower layer's detail becomes its recognised cause or is left out).
    @Test func skipReasonsAreTranslated() {
        let reasons: [SkipReason] = [
            .incomplete, .corrupt("checksum mismatch"), .unknownVersion(kind: 4, version: 9), .notMemoSync,
            .unreadable("open memosync/v1/x: Permission denied"), .unreadable("the decoder gave up: no such layout"),
            .tooLarge(sizeBytes: 8_589_934_592, limitBytes: 1_073_741_824),
            .notListed(.unreadable(reason: "Permission denied")), .notListed(.symbolicLink), .notListed(.specialFile),
            .notListed(.tooDeep(levels: 32)),
        ]
        MemoLanguage.$taskLanguage.withValue(.english) {
            for reason in reasons { #expect(reason.localizedDescription == reason.description) }
        }
        for language in [MemoLanguage.korean, .japanese] {
            MemoLanguage.$taskLanguage.withValue(language) {
                var texts = Set<String>()
                for reason in reasons {
                    let text = reason.localizedDescription
                    texts.insert(text)
                    #expect(Self.englishPhrase(in: text) == nil && !text.contains("skip."), "\(language) \(reason): \(text)")
                    #expect(text != reason.description, "\(language) \(reason) is not translated")
                }
                // The recognised cause is told; an unrecognised English detail is left out.
                let denied = SkipReason.unreadable("open x: Permission denied").localizedDescription
                #expect(denied.contains(FailureCause.permissionDenied.localizedClause), "\(denied)")
                #expect(SkipReason.unreadable("no such layout").localizedDescription == MemoStrings.text("skip.unreadable"))
                // Distinct reasons read differently (the two bare "unreadable" ones aside).
                #expect(texts.count >= reasons.count - 2, "\(texts)")
            }
        }
    }

    @Test func replicaModelFailuresSuggestWhatTheUnderlyingErrorSuggests() {
        MemoLanguage.$taskLanguage.withValue(.english) {
            #expect(ReplicaModel.Failure.save(.disk(.full)).recoverySuggestion == DiskError.full.recoverySuggestion)
            #expect(ReplicaModel.Failure.sync(.closed).recoverySuggestion == ReplicaError.closed.recoverySuggestion)
            #expect(ReplicaModel.Failure.incompleteSync(SyncReport()).recoverySuggestion == SyncProblem(.list, reason: "x").recoverySuggestion)
        }
    }

    /// The causes are recognised in the texts the lower layers really write: the system's
    /// (`strerror` through `POSIXFailure`), a folder where a file is (POSIX.makeDirectories),
    /// the HTTP client's; every cause has a text in every catalog.
    @Test func theCausesAreRecognisedInTheLowerLayersTexts() throws {
        let system: [(Int32, FailureCause)] = [
            (EACCES, .permissionDenied), (EPERM, .permissionDenied), (ENOENT, .missing), (ENOTDIR, .inTheWay), (EEXIST, .inTheWay),
            (EISDIR, .inTheWay), (ENOSPC, .noSpace), (EROFS, .readOnly), (EIO, .deviceFailed),
        ]
        for (code, cause) in system {
            let reason = POSIXFailure(call: "open", path: "/x/y", code: code).description
            #expect(FailureCause(reason: reason) == cause, "\(reason)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("causes-\(UInt64.random(in: 0...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder))
        do {
            _ = try DirectoryBlobStore(path: folder)
            Issue.record("a file was used as a store folder")
        } catch {
            #expect(FailureCause(reason: "\(error)") == .inTheWay, "\(error)")
        }
        let remote: [(String, FailureCause)] = [
            ("cannot connect (the server refused the connection or did not answer) (after 8 attempts)", .cannotConnect),
            ("the request timed out", .cannotConnect), ("the server's host name was not found", .hostNotFound),
            ("this device is not connected to a network", .offline), ("the server is busy (HTTP 503); try later", .serverBusy),
            ("refusing to send a password over plain http to h; use https", .insecure), ("\"x y\" is not a valid bucket name", .badAddress),
        ]
        for (reason, cause) in remote { #expect(FailureCause(reason: reason) == cause, "\(reason)") }
        #expect(FailureCause(reason: "offline") == nil && FailureCause(reason: "EIO") == nil)
        for language in MemoLanguage.allCases {
            for cause in FailureCause.allCases {
                #expect(MemoStrings.catalog(language)["error.cause.\(cause.rawValue)"] != nil, "\(language) \(cause)")
            }
        }
    }
}
