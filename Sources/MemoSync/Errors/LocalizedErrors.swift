import Foundation
import MemoCRDT
import MemoNotes

// Foundation's `LocalizedError` for every public error type, so that an app can show any error
// MemoSync throws or reports (`error.localizedDescription`, an alert's message and its
// suggestion) without a `switch`.
//
// MemoCRDT and MemoNotes use the standard library only, so their errors conform here
// (in another module of this package, so no `@retroactive` is needed). The texts are English
// sentences: `errorDescription` says what went wrong, `failureReason` why (when there is more
// to say), `recoverySuggestion` what the user can do (when there is something).

extension TextError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .offsetOutOfBounds, .offsetInsideSurrogatePair, .rangeOutOfBounds, .unknownAnchor:
            "The edit does not fit the text: \(description)."
        case .counterOverflow, .contentTooLarge, .tooManyReplicas, .tooManyPendingOperations:
            "The memo is too large to change: \(description)."
        case .invalidDelta, .operationsNotHeld:
            "The memo's changes are inconsistent: \(description)."
        }
    }

    public var failureReason: String? {
        switch self {
        case .offsetOutOfBounds, .rangeOutOfBounds:
            "The text changed since the position was computed, or the position was computed on another text."
        case .offsetInsideSurrogatePair:
            "A UTF-16 position splits a character made of two code units (an emoji, for example)."
        case .counterOverflow, .contentTooLarge, .tooManyReplicas, .tooManyPendingOperations:
            "The memo reached one of MemoSync's limits."
        case .invalidDelta, .operationsNotHeld:
            "Another device sent changes no correct replica could make."
        case .unknownAnchor:
            "The character the position referred to is not in this text."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .offsetOutOfBounds, .offsetInsideSurrogatePair, .rangeOutOfBounds, .unknownAnchor:
            "Read the memo's text again and redo the edit."
        case .counterOverflow, .contentTooLarge, .tooManyReplicas, .tooManyPendingOperations:
            "Split the memo into smaller memos."
        case .invalidDelta, .operationsNotHeld:
            nil
        }
    }
}

extension NotebookError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case let .memoNotFound(id): "There is no memo \(id): it may have been deleted."
        case let .memoExists(id): "A memo \(id) exists already."
        case let .memoInTrash(id): "Memo \(id) is in the trash."
        case let .memoNotInTrash(id): "Memo \(id) is not in the trash."
        case let .text(id, error): "Memo \(id) could not be changed: \(error)."
        case let .invalidDelta(reason): "Changes from another device are inconsistent: \(reason)."
        case let .corruptMemo(id, error): "Memo \(id) cannot be read: \(error)."
        case let .nothingToUndo(id): "There is nothing to undo or redo in memo \(id)."
        }
    }

    public var failureReason: String? {
        switch self {
        case .memoInTrash: "A memo in the trash cannot be edited."
        case let .text(_, error): error.failureReason
        case let .corruptMemo(_, error): error.failureReason
        default: nil
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .memoInTrash: "Restore it from the trash first."
        case .memoNotFound: "Reload the list of memos."
        case let .text(_, error): error.recoverySuggestion
        case let .corruptMemo(_, error): error.recoverySuggestion
        default: nil
        }
    }
}

extension MemoCRDT.DecodingError: LocalizedError {
    public var errorDescription: String? { "The data could not be read: \(description)." }

    public var failureReason: String? {
        switch self {
        case .truncated: "It is incomplete: it is still being written or downloaded, or the writer stopped."
        case .notMemoSync, .wrongKind: "It is not the kind of MemoSync data expected here."
        case .unsupportedVersion: "It was written by a newer MemoSync."
        case .checksumMismatch, .malformed, .trailingBytes: "It was damaged."
        case .tooLarge: "It is larger than MemoSync reads."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .truncated: "Sync again later."
        case .unsupportedVersion: "Update the app."
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
        case let .corruptLibrary(file, reason): "The library file \"\(file)\" is damaged: \(reason)."
        case .unknownLibraryVersion: "The library was written by a newer version of MemoSync."
        case .syncInProgress: "A sync is already in progress."
        case .closed: "The library is closed."
        case .noSyncInProgress: "No sync is in progress."
        }
    }

    public var failureReason: String? {
        switch self {
        case let .disk(error): error.failureReason
        case let .notebook(error): error.failureReason
        case let .text(_, error): error.failureReason
        case let .unknownLibraryVersion(file, kind, version):
            "The file \"\(file)\" has kind \(kind), format version \(version), which this version cannot read."
        default: nil
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case let .disk(error): error.recoverySuggestion
        case let .notebook(error): error.recoverySuggestion
        case let .text(_, error): error.recoverySuggestion
        case .corruptLibrary: "Keep the library folder as it is and restore it from a backup, or sync a new library."
        case .unknownLibraryVersion: "Update the app."
        case .syncInProgress: "Wait for the running sync to finish."
        case .closed: "Open the library again."
        case .noSyncInProgress: nil
        }
    }
}

extension BlobStoreError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case let .notFound(key): "The sync store has no blob \(BlobKeyRules.abbreviated(key))."
        case .invalidKey: "The sync store refused the name: \(description)."
        case .full: "The sync store is full."
        case .unavailable: "The sync store cannot be reached: \(description)."
        case .io: "The sync store failed: \(description)."
        case .tooLarge: "A file in the sync store is too large: \(description)."
        case .cancelled: "The sync was cancelled."
        case .denied: "The sync store refused this device's credentials: \(description)."
        case .server: "The sync store answered with an error: \(description)."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .full: "Free space in the sync store, then sync again."
        case .unavailable, .io: "Check the connection to the store, then sync again."
        case .notFound, .cancelled: "Sync again."
        case .denied: "Check the store's credentials and this device's date and time, then sync again."
        case .server: "Check the store's address, bucket or folder, then sync again."
        case .invalidKey, .tooLarge: nil
        }
    }
}

extension DiskError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case let .unavailable(reason): "The library folder cannot be used: \(reason)."
        case .locked: "The library is in use: \(description)."
        case .full: "The disk is full."
        case .io: "The library could not be written or read: \(description)."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .unavailable: "Check that the folder exists and that the app may use it."
        case .locked: "Close the other app or window using this library."
        case .full: "Free space on the disk; unsaved edits are kept in memory until then."
        case .io: "Try again; if it keeps failing, check the disk."
        }
    }
}
