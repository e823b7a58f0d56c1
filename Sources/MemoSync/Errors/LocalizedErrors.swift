import Foundation
import MemoCRDT
import MemoNotes

// Foundation's `LocalizedError` for every public error type, so that an app can show any error
// MemoSync throws or reports (`error.localizedDescription`, an alert's message and its
// suggestion) without a `switch`.
//
// MemoCRDT and MemoNotes use the standard library only, so their errors conform here
// (in another module of this package, so no `@retroactive` is needed). The texts come from the
// catalogs (MemoStrings, "error." keys) in ``MemoLanguage/current``: `errorDescription` says
// what went wrong, `failureReason` why (when there is more to say), `recoverySuggestion` what
// the user can do (when there is something). An alert shows one sentence of what happened
// (with at most one detail after ": ", the innermost cause: FailureCause.swift) and one of
// what to do; never a memo id or a blob key (they stay in `description`, for logs), and in
// Korean and Japanese never a lower layer's English text.

/// The text of `key` in the current language.
private func localized(_ key: String, _ arguments: [String: String] = [:]) -> String {
    MemoStrings.text(key, arguments)
}

/// One sentence in the current language: the text of `key` (what happened, a clause without a
/// final period), then ": " and `detail` (the innermost cause) when there is one.
package func errorSentence(_ key: String, _ arguments: [String: String] = [:], detail: String?) -> String {
    let what = MemoStrings.text(key, arguments)
    guard let detail, !detail.isEmpty else { return MemoStrings.text("error.sentence", ["what": what]) }
    return MemoStrings.text("error.sentenceWithDetail", ["what": what, "detail": detail])
}

extension TextError: LocalizedError {
    /// The detail told after what happened: the positions, else (in English) the description.
    var localizedDetail: String? {
        switch self {
        case let .rangeOutOfBounds(lower, upper, length):
            localized("error.TextError.range.detail", ["lower": "\(lower)", "upper": "\(upper)", "length": "\(length)"])
        case let .offsetOutOfBounds(offset, length):
            localized("error.TextError.offset.detail", ["offset": "\(offset)", "length": "\(length)"])
        case let .offsetInsideSurrogatePair(offset):
            localized("error.TextError.surrogate.detail", ["offset": "\(offset)"])
        case let .invalidDelta(reason): FailureCause.englishDetail(reason)
        default: FailureCause.englishDetail(description)
        }
    }

    public var errorDescription: String? {
        switch self {
        case .offsetOutOfBounds, .offsetInsideSurrogatePair, .rangeOutOfBounds, .unknownAnchor:
            errorSentence("error.TextError.doesNotFit.what", detail: localizedDetail)
        case .counterOverflow, .contentTooLarge, .tooManyReplicas, .tooManyPendingOperations:
            errorSentence("error.TextError.tooLarge.what", detail: localizedDetail)
        case .invalidDelta, .operationsNotHeld:
            errorSentence("error.TextError.inconsistent.what", detail: localizedDetail)
        case .clockExhausted:
            errorSentence("error.TextError.clockExhausted.what", detail: nil)
        }
    }

    public var failureReason: String? {
        switch self {
        case .offsetOutOfBounds, .rangeOutOfBounds:
            localized("error.TextError.outOfBounds.reason")
        case .offsetInsideSurrogatePair:
            localized("error.TextError.offsetInsideSurrogatePair.reason")
        case .counterOverflow, .contentTooLarge, .tooManyReplicas, .tooManyPendingOperations:
            localized("error.TextError.tooLarge.reason")
        case .invalidDelta, .operationsNotHeld:
            localized("error.TextError.inconsistent.reason")
        case .unknownAnchor:
            localized("error.TextError.unknownAnchor.reason")
        case .clockExhausted:
            localized("error.TextError.clockExhausted.reason")
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .offsetOutOfBounds, .offsetInsideSurrogatePair, .rangeOutOfBounds, .unknownAnchor:
            localized("error.TextError.doesNotFit.suggestion")
        case .counterOverflow, .contentTooLarge, .tooManyReplicas, .tooManyPendingOperations:
            localized("error.TextError.tooLarge.suggestion")
        case .invalidDelta, .operationsNotHeld:
            nil
        case .clockExhausted:
            localized("error.TextError.clockExhausted.suggestion")
        }
    }
}

/// A memo is named "the memo" (its id, 32 hexadecimal digits, means nothing to a person; it
/// stays in `description`).
extension NotebookError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .memoNotFound: errorSentence("error.NotebookError.memoNotFound.what", detail: nil)
        case .memoExists: errorSentence("error.NotebookError.memoExists.what", detail: nil)
        case .memoInTrash: errorSentence("error.NotebookError.memoInTrash.what", detail: nil)
        case .memoNotInTrash: errorSentence("error.NotebookError.memoNotInTrash.what", detail: nil)
        case let .text(_, error): errorSentence("error.NotebookError.text.what", detail: error.localizedDetail)
        case let .invalidDelta(reason): errorSentence("error.NotebookError.invalidDelta.what", detail: FailureCause.englishDetail(reason))
        case let .corruptMemo(_, error): errorSentence("error.NotebookError.corruptMemo.what", detail: error.localizedDetail)
        case .nothingToUndo: errorSentence("error.NotebookError.nothingToUndo.what", detail: nil)
        case .history(_, .contentNotRetained): errorSentence("error.NotebookError.history.what", detail: localized("error.NotebookError.history.notRetained.detail"))
        case .history(_, .versionNotHeld): errorSentence("error.NotebookError.history.what", detail: localized("error.NotebookError.history.notHeld.detail"))
        }
    }

    public var failureReason: String? {
        switch self {
        case .memoInTrash: localized("error.NotebookError.memoInTrash.reason")
        case let .text(_, error): error.failureReason
        case let .corruptMemo(_, error): error.failureReason
        case .history(_, .contentNotRetained): localized("error.NotebookError.history.notRetained.reason")
        case .history(_, .versionNotHeld): localized("error.NotebookError.history.notHeld.reason")
        default: nil
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .memoInTrash: localized("error.NotebookError.memoInTrash.suggestion")
        case .memoNotFound: localized("error.NotebookError.memoNotFound.suggestion")
        case let .text(_, error): error.recoverySuggestion
        case let .corruptMemo(_, error): error.recoverySuggestion
        default: nil
        }
    }
}

extension MemoCRDT.DecodingError: LocalizedError {
    /// The description, in English only.
    var localizedDetail: String? { FailureCause.englishDetail(description) }

    public var errorDescription: String? { errorSentence("error.DecodingError.any.what", detail: localizedDetail) }

    public var failureReason: String? {
        switch self {
        case .truncated: localized("error.DecodingError.truncated.reason")
        case .notMemoSync, .wrongKind: localized("error.DecodingError.notMemoSync.reason")
        case .unsupportedVersion: localized("error.DecodingError.unsupportedVersion.reason")
        case .checksumMismatch, .malformed, .trailingBytes: localized("error.DecodingError.checksumMismatch.reason")
        case .tooLarge: localized("error.DecodingError.tooLarge.reason")
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .truncated: localized("error.DecodingError.truncated.suggestion")
        case .unsupportedVersion: localized("error.DecodingError.unsupportedVersion.suggestion")
        default: nil
        }
    }
}

extension ReplicaError: LocalizedError {
    /// The innermost cause as a clause, for a sentence that says what failed first
    /// (``ReplicaModel/Failure``): the disk's, or the library being closed; nil for the others,
    /// which are told by their own sentence.
    var localizedDetail: String? {
        switch self {
        case let .disk(error): error.localizedDetail
        case .closed: FailureCause.closed.localizedClause
        default: nil
        }
    }

    public var errorDescription: String? {
        switch self {
        case let .disk(error): error.errorDescription
        case let .notebook(error): error.errorDescription
        case let .text(id, error): NotebookError.text(id, error).errorDescription
        case let .corruptLibrary(file, reason):
            errorSentence("error.ReplicaError.corruptLibrary.what", ["file": file], detail: FailureCause.englishDetail(reason))
        case .unknownLibraryVersion: errorSentence("error.ReplicaError.unknownLibraryVersion.what", detail: nil)
        case .syncInProgress: errorSentence("error.ReplicaError.syncInProgress.what", detail: nil)
        case .closed: errorSentence("error.ReplicaError.closed.what", detail: nil)
        case .encryptedLibrary: errorSentence("error.ReplicaError.encryptedLibrary.what", detail: nil)
        case .noSyncInProgress: errorSentence("error.ReplicaError.noSyncInProgress.what", detail: nil)
        case .purgeWaitsForHeldBackEdits: errorSentence("error.ReplicaError.purgeWaitsForHeldBackEdits.what", detail: nil)
        case let .invalidHistoryRetention(days): errorSentence("error.ReplicaError.invalidHistoryRetention.what", ["days": "\(days)"], detail: nil)
        }
    }

    public var failureReason: String? {
        switch self {
        case let .disk(error): error.failureReason
        case let .notebook(error): error.failureReason
        case let .text(_, error): error.failureReason
        case let .unknownLibraryVersion(file, kind, version):
            localized("error.ReplicaError.unknownLibraryVersion.reason", ["file": "\(file)", "kind": "\(kind)", "version": "\(version)"])
        default: nil
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case let .disk(error): error.recoverySuggestion
        case let .notebook(error): error.recoverySuggestion
        case let .text(_, error): error.recoverySuggestion
        case .corruptLibrary: localized("error.ReplicaError.corruptLibrary.suggestion")
        case .unknownLibraryVersion: localized("error.ReplicaError.unknownLibraryVersion.suggestion")
        case .syncInProgress: localized("error.ReplicaError.syncInProgress.suggestion")
        case .closed: localized("error.ReplicaError.closed.suggestion")
        case .encryptedLibrary: localized("error.ReplicaError.encryptedLibrary.suggestion")
        case .noSyncInProgress: nil
        case .purgeWaitsForHeldBackEdits: localized("error.ReplicaError.purgeWaitsForHeldBackEdits.suggestion")
        case .invalidHistoryRetention: localized("error.ReplicaError.invalidHistoryRetention.suggestion", ["max": "\(HistoryRetention.daysMax)"])
        }
    }
}

/// A blob is "a file in the sync store" (its key stays in `description`, for logs).
extension BlobStoreError: LocalizedError {
    /// The store's failure as a clause, for a sentence that says what failed first
    /// (``SyncProblem``): the recognised cause of a reason, or the kind of failure.
    var localizedDetail: String {
        switch self {
        case .notFound: localized("error.BlobStoreError.notFound.detail")
        case .invalidKey: localized("error.BlobStoreError.invalidKey.detail")
        case .full: localized("error.BlobStoreError.full.detail")
        case let .unavailable(reason): FailureCause.detail(of: reason) ?? localized("error.BlobStoreError.unavailable.detail")
        case let .io(reason): FailureCause.detail(of: reason) ?? localized("error.BlobStoreError.io.detail")
        case let .tooLarge(_, size, limit): localized("error.BlobStoreError.tooLarge.detail", ["size": "\(size)", "limit": "\(limit)"])
        case .cancelled: localized("error.BlobStoreError.cancelled.detail")
        case .undecryptable: localized("error.BlobStoreError.undecryptable.detail")
        case .encrypted: localized("error.BlobStoreError.encrypted.detail")
        case let .denied(code, _): localized("error.BlobStoreError.denied.detail", ["code": code])
        case let .server(status, code, _): localized("error.BlobStoreError.server.detail", ["status": "\(status)", "code": code])
        case let .retryLater(milliseconds, _): localized("error.BlobStoreError.retryLater.detail", ["seconds": Self.seconds(milliseconds)])
        }
    }

    public var errorDescription: String? {
        switch self {
        case .notFound: errorSentence("error.BlobStoreError.notFound.what", detail: nil)
        case .invalidKey: errorSentence("error.BlobStoreError.invalidKey.what", detail: nil)
        case .full: errorSentence("error.BlobStoreError.full.what", detail: nil)
        case let .unavailable(reason): errorSentence("error.BlobStoreError.unavailable.what", detail: FailureCause.detail(of: reason))
        case let .io(reason): errorSentence("error.BlobStoreError.io.what", detail: FailureCause.detail(of: reason))
        case let .tooLarge(_, size, limit):
            errorSentence("error.BlobStoreError.tooLarge.what", detail: localized("error.BlobStoreError.size", ["size": "\(size)", "limit": "\(limit)"]))
        case .cancelled: errorSentence("error.BlobStoreError.cancelled.what", detail: nil)
        case let .undecryptable(_, refusal):
            errorSentence("error.BlobStoreError.undecryptable.what", detail: FailureCause.englishDetail(refusal.description))
        case .encrypted: errorSentence("error.BlobStoreError.encrypted.what", detail: nil)
        case let .denied(code, message):
            errorSentence("error.BlobStoreError.denied.what", detail: FailureCause.englishDetail(message.isEmpty ? code : "\(code) (\(message))") ?? code)
        case let .server(status, code, message):
            errorSentence("error.BlobStoreError.server.what", detail: FailureCause.englishDetail(message.isEmpty ? "HTTP \(status) \(code)" : "HTTP \(status) \(code) (\(message))") ?? "HTTP \(status) \(code)")
        case let .retryLater(milliseconds, _):
            errorSentence("error.BlobStoreError.retryLater.what", detail: localized("error.BlobStoreError.retryLater.detail", ["seconds": Self.seconds(milliseconds)]))
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .full: localized("error.BlobStoreError.full.suggestion")
        case .unavailable, .io: localized("error.BlobStoreError.unavailable.suggestion")
        case .notFound, .cancelled: localized("error.BlobStoreError.notFound.suggestion")
        case .invalidKey, .tooLarge, .undecryptable: nil
        case .encrypted: localized("error.BlobStoreError.encrypted.suggestion")
        case .denied: localized("error.BlobStoreError.denied.suggestion")
        case .server: localized("error.BlobStoreError.server.suggestion")
        case .retryLater: localized("error.BlobStoreError.retryLater.suggestion")
        }
    }
}

extension EncryptionError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .wrongPassphrase: errorSentence("error.EncryptionError.wrongPassphrase.what", detail: nil)
        case .passphraseRequired: errorSentence("error.EncryptionError.passphraseRequired.what", detail: nil)
        case .passphraseChanged: errorSentence("error.EncryptionError.passphraseChanged.what", detail: nil)
        case .notEncrypted: errorSentence("error.EncryptionError.notEncrypted.what", detail: nil)
        case .alreadyEncrypted: errorSentence("error.EncryptionError.alreadyEncrypted.what", detail: nil)
        case .keyBlobMissing: errorSentence("error.EncryptionError.keyBlobMissing.what", detail: nil)
        case .damagedKeyBlob: errorSentence("error.EncryptionError.failed.what", detail: localized("error.EncryptionError.damagedKeyBlob.detail"))
        case let .unknownKeyBlobVersion(_, version):
            errorSentence("error.EncryptionError.failed.what", detail: localized("error.EncryptionError.unknownKeyBlobVersion.detail", ["version": "\(version)"]))
        case .unacceptableParameters:
            errorSentence("error.EncryptionError.failed.what", detail: localized("error.EncryptionError.unacceptableParameters.detail"))
        case .platform: errorSentence("error.EncryptionError.failed.what", detail: localized("error.EncryptionError.platform.detail"))
        case let .store(error): error.errorDescription
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .wrongPassphrase: localized("error.EncryptionError.wrongPassphrase.suggestion")
        case .passphraseRequired, .passphraseChanged: localized("error.EncryptionError.currentPassphrase.suggestion")
        case .unknownKeyBlobVersion: localized("error.EncryptionError.unknownKeyBlobVersion.suggestion")
        case .keyBlobMissing: localized("error.EncryptionError.keyBlobMissing.suggestion")
        case let .store(error): error.recoverySuggestion
        case .notEncrypted, .alreadyEncrypted, .damagedKeyBlob, .unacceptableParameters, .platform: nil
        }
    }
}

extension DiskError: LocalizedError {
    /// The disk's failure as a clause, for a sentence that says what failed first
    /// (``ReplicaModel/Failure``): the recognised cause of a reason, or the kind of failure.
    var localizedDetail: String {
        switch self {
        case let .unavailable(reason): FailureCause.detail(of: reason) ?? localized("error.DiskError.unavailable.detail")
        case .locked: localized("error.DiskError.locked.detail")
        case .alreadyOpen: localized("error.DiskError.alreadyOpen.detail")
        case .full: localized("error.DiskError.full.detail")
        case let .io(reason): FailureCause.detail(of: reason) ?? localized("error.DiskError.io.detail")
        case let .tooLarge(file, _, _): localized("error.DiskError.tooLarge.detail", ["file": file])
        }
    }

    public var errorDescription: String? {
        switch self {
        case let .unavailable(reason): errorSentence("error.DiskError.unavailable.what", detail: FailureCause.detail(of: reason))
        case let .locked(path): errorSentence("error.DiskError.locked.what", detail: path)
        case let .alreadyOpen(path): errorSentence("error.DiskError.alreadyOpen.what", detail: path)
        case .full: errorSentence("error.DiskError.full.what", detail: nil)
        case let .io(reason): errorSentence("error.DiskError.io.what", detail: FailureCause.detail(of: reason))
        case let .tooLarge(file, size, limit):
            errorSentence("error.DiskError.tooLarge.what", ["file": file], detail: localized("error.DiskError.tooLarge.size", ["size": "\(size)", "limit": "\(limit)"]))
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .unavailable: localized("error.DiskError.unavailable.suggestion")
        case .locked: localized("error.DiskError.locked.suggestion")
        case .alreadyOpen: localized("error.DiskError.alreadyOpen.suggestion")
        case .full: localized("error.DiskError.full.suggestion")
        case .io: localized("error.DiskError.io.suggestion")
        case .tooLarge: localized("error.DiskError.tooLarge.suggestion")
        }
    }
}

extension SyncProblem: LocalizedError {
    /// The innermost cause as a clause: the store's failure, else the reason (in English only,
    /// unless recognised).
    package var localizedDetail: String? {
        if let storeError { return storeError.localizedDetail }
        return reason.flatMap(FailureCause.detail(of:))
    }

    /// One sentence: what the sync could not do ("A file could not be written to the sync
    /// store"), then the innermost cause ("the store is full"). The blob's key is in ``key``
    /// and ``description``, not here.
    public var errorDescription: String? {
        errorSentence("error.SyncProblem.\(operation.rawValue).what", detail: localizedDetail)
    }

    public var failureReason: String? { storeError?.failureReason }

    public var recoverySuggestion: String? { storeError?.recoverySuggestion ?? localized("error.SyncProblem.suggestion") }
}
