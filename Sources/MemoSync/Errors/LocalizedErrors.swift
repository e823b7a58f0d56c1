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
// the user can do (when there is something). Technical details (a file name, a system
// message) are given as they are.

/// The text of `key` in the current language.
private func localized(_ key: String, _ arguments: [String: String] = [:]) -> String {
    MemoStrings.text(key, arguments)
}

extension TextError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .offsetOutOfBounds, .offsetInsideSurrogatePair, .rangeOutOfBounds, .unknownAnchor:
            localized("error.TextError.doesNotFit.description", ["description": description])
        case .counterOverflow, .contentTooLarge, .tooManyReplicas, .tooManyPendingOperations:
            localized("error.TextError.tooLarge.description", ["description": description])
        case .invalidDelta, .operationsNotHeld:
            localized("error.TextError.inconsistent.description", ["description": description])
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
        }
    }
}

extension NotebookError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case let .memoNotFound(id): localized("error.NotebookError.memoNotFound.description", ["id": "\(id)"])
        case let .memoExists(id): localized("error.NotebookError.memoExists.description", ["id": "\(id)"])
        case let .memoInTrash(id): localized("error.NotebookError.memoInTrash.description", ["id": "\(id)"])
        case let .memoNotInTrash(id): localized("error.NotebookError.memoNotInTrash.description", ["id": "\(id)"])
        case let .text(id, error): localized("error.NotebookError.text.description", ["id": "\(id)", "error": "\(error)"])
        case let .invalidDelta(reason): localized("error.NotebookError.invalidDelta.description", ["reason": "\(reason)"])
        case let .corruptMemo(id, error): localized("error.NotebookError.corruptMemo.description", ["id": "\(id)", "error": "\(error)"])
        case let .nothingToUndo(id): localized("error.NotebookError.nothingToUndo.description", ["id": "\(id)"])
        }
    }

    public var failureReason: String? {
        switch self {
        case .memoInTrash: localized("error.NotebookError.memoInTrash.reason")
        case let .text(_, error): error.failureReason
        case let .corruptMemo(_, error): error.failureReason
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
    public var errorDescription: String? { localized("error.DecodingError.any.description", ["description": "\(description)"]) }

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
    public var errorDescription: String? {
        switch self {
        case let .disk(error): error.errorDescription
        case let .notebook(error): error.errorDescription
        case let .text(id, error): NotebookError.text(id, error).errorDescription
        case let .corruptLibrary(file, reason): localized("error.ReplicaError.corruptLibrary.description", ["file": "\(file)", "reason": "\(reason)"])
        case .unknownLibraryVersion: localized("error.ReplicaError.unknownLibraryVersion.description")
        case .syncInProgress: localized("error.ReplicaError.syncInProgress.description")
        case .closed: localized("error.ReplicaError.closed.description")
        case .encryptedLibrary: localized("error.ReplicaError.encryptedLibrary.description")
        case .noSyncInProgress: localized("error.ReplicaError.noSyncInProgress.description")
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
        }
    }
}

extension BlobStoreError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case let .notFound(key): localized("error.BlobStoreError.notFound.description", ["key": "\(BlobKeyRules.abbreviated(key))"])
        case .invalidKey: localized("error.BlobStoreError.invalidKey.description", ["description": "\(description)"])
        case .full: localized("error.BlobStoreError.full.description")
        case .unavailable: localized("error.BlobStoreError.unavailable.description", ["description": "\(description)"])
        case .io: localized("error.BlobStoreError.io.description", ["description": "\(description)"])
        case .tooLarge: localized("error.BlobStoreError.tooLarge.description", ["description": "\(description)"])
        case .cancelled: localized("error.BlobStoreError.cancelled.description")
        case .undecryptable: localized("error.BlobStoreError.undecryptable.description", ["description": "\(description)"])
        case .encrypted: localized("error.BlobStoreError.encrypted.description")
        case .denied: localized("error.BlobStoreError.denied.description", ["description": "\(description)"])
        case .server: localized("error.BlobStoreError.server.description", ["description": "\(description)"])
        case .retryLater: localized("error.BlobStoreError.retryLater.description", ["description": "\(description)"])
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
        case .wrongPassphrase: localized("error.EncryptionError.wrongPassphrase.description")
        case .passphraseRequired: localized("error.EncryptionError.passphraseRequired.description")
        case .passphraseChanged: localized("error.EncryptionError.passphraseChanged.description")
        case .notEncrypted: localized("error.EncryptionError.notEncrypted.description")
        case .alreadyEncrypted: localized("error.EncryptionError.alreadyEncrypted.description")
        case .keyBlobMissing: localized("error.EncryptionError.keyBlobMissing.description")
        case .damagedKeyBlob, .unknownKeyBlobVersion, .unacceptableParameters, .platform:
            localized("error.EncryptionError.failed.description", ["description": "\(description)"])
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
    public var errorDescription: String? {
        switch self {
        case let .unavailable(reason): localized("error.DiskError.unavailable.description", ["reason": "\(reason)"])
        case .locked: localized("error.DiskError.locked.description", ["description": "\(description)"])
        case .full: localized("error.DiskError.full.description")
        case .io: localized("error.DiskError.io.description", ["description": "\(description)"])
        case let .tooLarge(file, size, limit):
            localized("error.DiskError.tooLarge.description", ["file": file, "size": "\(size)", "limit": "\(limit)"])
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .unavailable: localized("error.DiskError.unavailable.suggestion")
        case .locked: localized("error.DiskError.locked.suggestion")
        case .full: localized("error.DiskError.full.suggestion")
        case .io: localized("error.DiskError.io.suggestion")
        case .tooLarge: localized("error.DiskError.tooLarge.suggestion")
        }
    }
}

extension SyncProblem: LocalizedError {
    /// What the sync could not do, on which blob (its key, abbreviated past 200 bytes), and
    /// the store's error or the reason (given as it is).
    public var errorDescription: String? {
        let operationKey: String = switch operation {
        case .list: "list"
        case .read: "read"
        case .write: "write"
        case .delete: "delete"
        case .local: "local"
        }
        var what = localized("error.SyncProblem.\(operationKey).description")
        if let key { what = localized("error.SyncProblem.withKey", ["what": what, "key": BlobKeyRules.abbreviated(key)]) }
        let detail = storeError.map { $0.errorDescription ?? $0.description } ?? reason ?? localized("error.SyncProblem.unknownReason")
        return localized("error.SyncProblem.description", ["what": what, "detail": detail])
    }

    public var failureReason: String? { storeError?.failureReason }

    public var recoverySuggestion: String? { storeError?.recoverySuggestion ?? localized("error.SyncProblem.suggestion") }
}
