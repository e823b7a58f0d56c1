// The English catalog of MemoSync's texts: the engine's error descriptions ("error."),
// the `memo` command line's messages ("cli.") and help pages ("help."). Every key is in
// every catalog with the same {placeholders} (MemoCLITests/CatalogTests checks it); see
// MemoStrings.swift.

extension MemoStrings {
    /// The English texts.
    static let english: [String: String] = [
        // MARK: error
        "error.BlobStoreError.encrypted.suggestion": "Enter the store's passphrase.",
        "error.BlobStoreError.denied.suggestion": "Check the store's credentials and this device's date and time, then sync again.",
        "error.BlobStoreError.retryLater.suggestion": "Sync again in a moment.",
        "error.BlobStoreError.server.suggestion": "Check the store's address, bucket or folder, then sync again.",
        "error.BlobStoreError.full.suggestion": "Free space in the sync store, then sync again.",
        "error.BlobStoreError.notFound.suggestion": "Sync again.",
        "error.BlobStoreError.unavailable.suggestion": "Check the connection to the store, then sync again.",
        "error.DecodingError.checksumMismatch.reason": "It was damaged.",
        "error.DecodingError.notMemoSync.reason": "It is not the kind of MemoSync data expected here.",
        "error.DecodingError.tooLarge.reason": "It is larger than MemoSync reads.",
        "error.DecodingError.truncated.reason": "It is incomplete: it is still being written or downloaded, or the writer stopped.",
        "error.DecodingError.truncated.suggestion": "Sync again later.",
        "error.DecodingError.unsupportedVersion.reason": "It was written by a newer MemoSync.",
        "error.DecodingError.unsupportedVersion.suggestion": "Update the app.",
        "error.DiskError.full.suggestion": "Free space on the disk; unsaved edits are kept in memory until then.",
        "error.DiskError.io.suggestion": "Try again; if it keeps failing, check the disk.",
        "error.DiskError.locked.suggestion": "Close the other app or window using this library.",
        "error.DiskError.tooLarge.suggestion": "Keep a copy of the library folder and restore the file from a backup, since MemoSync never writes a file this large.",
        "error.DiskError.unavailable.suggestion": "Check that the folder exists and that the app may use it.",
        "error.EncryptionError.keyBlobMissing.suggestion": "Sync a device that still opens the store first, or turn this library's encryption off explicitly.",
        "error.EncryptionError.currentPassphrase.suggestion": "Enter the store's current passphrase.",
        "error.EncryptionError.unknownKeyBlobVersion.suggestion": "Update the app.",
        "error.EncryptionError.wrongPassphrase.suggestion": "Check the passphrase and try again.",
        "error.NotebookError.memoInTrash.reason": "A memo in the trash cannot be edited.",
        "error.NotebookError.memoInTrash.suggestion": "Restore it from the trash first.",
        "error.NotebookError.memoNotFound.suggestion": "Reload the list of memos.",
        "error.ReplicaModel.notListed.description": "The sync could not list the store.",
        "error.ReplicaError.closed.suggestion": "Open the library again.",
        "error.ReplicaError.invalidHistoryRetention.suggestion": "Give a number of days from 1 to {max}, or forever.",
        "error.ReplicaError.invalidHistoryRetention.what": "A history retention period of {days} days was refused, so nothing changed",
        "error.ReplicaError.encryptedLibrary.suggestion": "Open the store with its passphrase, or turn the library's encryption off explicitly.",
        "error.ReplicaError.corruptLibrary.suggestion": "Keep the library folder as it is and restore it from a backup, or sync a new library.",
        "error.ReplicaError.syncInProgress.suggestion": "Wait for the running sync to finish.",
        "error.ReplicaError.unknownLibraryVersion.reason": "The file \"{file}\" has kind {kind}, format version {version}, which this version cannot read.",
        "error.ReplicaError.unknownLibraryVersion.suggestion": "Update the app.",
        "error.SyncProblem.suggestion": "Sync again later.",
        "error.TextError.clockExhausted.reason": "Changes from another device carry a clock value at MemoSync's limit, which no device reaches by editing; no new edit can be ordered after them.",
        "error.TextError.clockExhausted.suggestion": "Copy the text you need into a new library. Only someone who can write to the store can send such changes; an encrypted store keeps others from writing to it.",
        "error.TextError.doesNotFit.suggestion": "Read the memo's text again and redo the edit.",
        "error.TextError.inconsistent.reason": "Another device sent changes no correct replica could make.",
        "error.TextError.offsetInsideSurrogatePair.reason": "A UTF-16 position splits a character made of two code units (an emoji, for example).",
        "error.TextError.outOfBounds.reason": "The text changed since the position was computed, or the position was computed on another text.",
        "error.TextError.tooLarge.reason": "The memo reached one of MemoSync's limits.",
        "error.TextError.tooLarge.suggestion": "Split the memo into smaller memos.",
        "error.TextError.unknownAnchor.reason": "The character the position referred to is not in this text.",
        "error.sentence": "{what}.",
        "error.sentenceWithDetail": "{what}: {detail}.",
        "error.cause.permissionDenied": "permission was denied",
        "error.cause.inTheWay": "a file with this name is in the way",
        "error.cause.missing": "the folder or file does not exist",
        "error.cause.noSpace": "there is no space left",
        "error.cause.readOnly": "it is read-only",
        "error.cause.deviceFailed": "the device failed to read or write",
        "error.cause.stillBeingWritten": "a file is still being written",
        "error.cause.closed": "the library is closed",
        "error.cause.cannotConnect": "the server cannot be reached",
        "error.cause.hostNotFound": "the server's name was not found",
        "error.cause.offline": "this device is not connected to a network",
        "error.cause.serverBusy": "the server is busy",
        "error.cause.badAnswer": "the server's answer could not be read",
        "error.cause.badAddress": "the store's address is not valid",
        "error.cause.insecure": "a password would be sent over plain http, so https is needed",
        "error.TextError.clockExhausted.what": "The memo can no longer be changed",
        "error.TextError.doesNotFit.what": "The edit does not fit the text",
        "error.TextError.inconsistent.what": "The memo's changes are inconsistent",
        "error.TextError.tooLarge.what": "The memo is too large to change",
        "error.TextError.range.detail": "range {lower}..<{upper} is not inside the text (length {length})",
        "error.TextError.offset.detail": "offset {offset} is outside the text (length {length})",
        "error.TextError.surrogate.detail": "UTF-16 offset {offset} falls inside a surrogate pair",
        "error.NotebookError.memoNotFound.what": "There is no such memo; it may have been deleted",
        "error.NotebookError.memoExists.what": "The memo exists already",
        "error.NotebookError.memoInTrash.what": "The memo is in the trash",
        "error.NotebookError.memoNotInTrash.what": "The memo is not in the trash",
        "error.NotebookError.text.what": "The memo could not be changed",
        "error.NotebookError.invalidDelta.what": "Changes from another device are inconsistent",
        "error.NotebookError.corruptMemo.what": "A memo cannot be read",
        "error.NotebookError.nothingToUndo.what": "There is nothing to undo or redo in this memo",
        "error.NotebookError.history.what": "The earlier version of the memo cannot be shown",
        "error.NotebookError.history.notRetained.detail": "part of it was deleted before the retention period",
        "error.NotebookError.history.notHeld.detail": "this device does not hold it yet",
        "error.NotebookError.history.notRetained.reason": "Deleted text is kept only for the retention period, and part of this version was deleted before it.",
        "error.NotebookError.history.notHeld.reason": "This device does not hold that version of the memo yet.",
        "error.DecodingError.any.what": "The data could not be read",
        "error.ReplicaError.closed.what": "The library is closed",
        "error.ReplicaError.encryptedLibrary.what": "This library is encrypted and syncs only through its store's encryption, so nothing was synced",
        "error.ReplicaError.corruptLibrary.what": "The library file \"{file}\" is damaged",
        "error.ReplicaError.noSyncInProgress.what": "No sync is in progress",
        "error.ReplicaError.syncInProgress.what": "A sync is already in progress",
        "error.ReplicaError.unknownLibraryVersion.what": "The library was written by a newer version of MemoSync",
        "error.ReplicaModel.save.what": "Could not save",
        "error.ReplicaModel.sync.what": "Could not sync",
        "error.ReplicaModel.unfinished.what": "The sync did not finish",
        "error.SyncProblem.list.what": "The sync store could not be listed",
        "error.SyncProblem.read.what": "A file could not be read from the sync store",
        "error.SyncProblem.write.what": "A file could not be written to the sync store",
        "error.SyncProblem.delete.what": "An old file could not be deleted from the sync store",
        "error.SyncProblem.local.what": "The sync could not prepare this device's changes",
        "error.BlobStoreError.notFound.what": "A file is no longer in the sync store",
        "error.BlobStoreError.invalidKey.what": "The sync store refused a file's name",
        "error.BlobStoreError.full.what": "The sync store is full",
        "error.BlobStoreError.unavailable.what": "The sync store cannot be reached",
        "error.BlobStoreError.io.what": "The sync store failed",
        "error.BlobStoreError.tooLarge.what": "A file in the sync store is too large",
        "error.BlobStoreError.size": "{size} bytes, more than the limit of {limit}",
        "error.BlobStoreError.cancelled.what": "The sync was cancelled",
        "error.BlobStoreError.undecryptable.what": "A file in the sync store was refused",
        "error.BlobStoreError.encrypted.what": "The sync store is encrypted, so it syncs only with its passphrase",
        "error.BlobStoreError.denied.what": "The sync store refused this device's credentials",
        "error.BlobStoreError.server.what": "The sync store answered with an error",
        "error.BlobStoreError.retryLater.what": "The sync store is busy",
        "error.BlobStoreError.notFound.detail": "a file is no longer in the store",
        "error.BlobStoreError.invalidKey.detail": "the store refused a file's name",
        "error.BlobStoreError.full.detail": "the store is full",
        "error.BlobStoreError.unavailable.detail": "the store cannot be reached",
        "error.BlobStoreError.io.detail": "the store failed",
        "error.BlobStoreError.tooLarge.detail": "the file is too large ({size} bytes, more than the limit of {limit})",
        "error.BlobStoreError.cancelled.detail": "the sync was cancelled",
        "error.BlobStoreError.undecryptable.detail": "the file cannot be decrypted",
        "error.BlobStoreError.encrypted.detail": "the store is encrypted",
        "error.BlobStoreError.denied.detail": "the server refused the credentials ({code})",
        "error.BlobStoreError.server.detail": "the server answered HTTP {status} {code}",
        "error.BlobStoreError.retryLater.detail": "it asked to be tried again in {seconds} s",
        "error.EncryptionError.wrongPassphrase.what": "The passphrase is not this store's passphrase",
        "error.EncryptionError.passphraseRequired.what": "The sync store is encrypted, so its passphrase is needed to sync",
        "error.EncryptionError.passphraseChanged.what": "The store's passphrase was changed on another device",
        "error.EncryptionError.notEncrypted.what": "The sync store is not encrypted",
        "error.EncryptionError.alreadyEncrypted.what": "The sync store is already encrypted",
        "error.EncryptionError.keyBlobMissing.what": "The sync store has no key blob and this encrypted library has none to put back, so nothing was synced",
        "error.EncryptionError.failed.what": "Encryption failed",
        "error.EncryptionError.damagedKeyBlob.detail": "the store's key blob is damaged",
        "error.EncryptionError.unknownKeyBlobVersion.detail": "the store's key blob has version {version}, which this app does not know",
        "error.EncryptionError.unacceptableParameters.detail": "the key derivation parameters are not acceptable",
        "error.EncryptionError.platform.detail": "the system's cryptography failed",
        "error.DiskError.unavailable.what": "The library folder cannot be used",
        "error.DiskError.locked.what": "The library is in use by another app",
        "error.DiskError.alreadyOpen.what": "The library is already open in this app",
        "error.DiskError.alreadyOpen.suggestion": "Use the library this app opened already, or close it first.",
        "error.DiskError.full.what": "The disk is full",
        "error.DiskError.io.what": "The library could not be written or read",
        "error.DiskError.tooLarge.what": "The library file {file} is too large to read, so nothing was changed",
        "error.DiskError.tooLarge.size": "{size} bytes, more than the {limit} bytes MemoSync reads",
        "error.DiskError.unavailable.detail": "the library folder cannot be used",
        "error.DiskError.locked.detail": "another app is using the library",
        "error.DiskError.alreadyOpen.detail": "the library is already open in this app",
        "error.DiskError.full.detail": "the disk is full",
        "error.DiskError.io.detail": "the disk failed",
        "error.DiskError.tooLarge.detail": "the library file {file} is too large",
        "error.StoreLocationError.what": "The sync store cannot be used",
        // MARK: cli
        "cli.storeKind.s3": "S3 bucket {location}",
        "cli.storeKind.webDAV": "WebDAV folder {location}",
        "cli.andMore": "and {count} more",
        "cli.count.blob.one": "{count} blob",
        "cli.count.blob.other": "{count} blobs",
        "cli.count.byte.one": "{count} byte",
        "cli.count.byte.other": "{count} bytes",
        "cli.count.character.one": "{count} character",
        "cli.count.character.other": "{count} characters",
        "cli.count.day.one": "{count} day",
        "cli.count.day.other": "{count} days",
        "cli.count.file.one": "{count} file",
        "cli.count.file.other": "{count} files",
        "cli.count.memo.one": "{count} memo",
        "cli.count.memo.other": "{count} memos",
        "cli.count.operation.one": "{count} operation",
        "cli.count.operation.other": "{count} operations",
        "cli.count.storeEntry.one": "{count} store entry",
        "cli.count.storeEntry.other": "{count} store entries",
        "cli.count.storeError.one": "{count} store error",
        "cli.count.storeError.other": "{count} store errors",
        "cli.count.storeOperation.one": "{count} store operation",
        "cli.count.storeOperation.other": "{count} store operations",
        "cli.deleted": "Moved {id} {title} to the trash ('memo restore {id}' brings it back).",
        "cli.demo.bobGets": "Bob syncs and gets it ({read} read, {applied} applied):",
        "cli.demo.byHand": "try it by hand:",
        "cli.demo.converged": "converged: yes",
        "cli.demo.diverged": "converged: NO",
        "cli.demo.failed": "demo failed: {error}",
        "cli.demo.folder": "the shared folder (any folder Dropbox, iCloud Drive or Syncthing keeps in step): {path}",
        "cli.demo.notAFolder": "{path} is a file, not a folder: give the demo a new or empty folder.",
        "cli.demo.notItsFolder": "{path} holds files the demo did not make: give it a new or empty folder (it replaces only what an earlier demo made there).",
        "cli.demo.unusableFolder": "the demo cannot use {path}: {error}",
        "cli.demo.missing": "(missing)",
        "cli.demo.published": "published {written}, read {read}",
        "cli.demo.publishedApplied": "published {written}, read {read}, applied {applied}",
        "cli.demo.readApplied": "read {read}, applied {applied}",
        "cli.demo.step1": "Two devices, each with its own library (and a fresh replica id for this session):",
        "cli.demo.step2": "Alice writes a memo and syncs, as these commands would:",
        "cli.demo.step3": "Both go offline and edit the same memo:",
        "cli.demo.step4": "They sync through the folder, in turn (any order gives the same result):",
        "cli.demo.step5": "Both hold the same memo, with both edits:",
        "cli.demo.title": "MemoSync demo in {path}",
        "cli.demo.usage": "usage: memo demo [--dir DIR]",
        "cli.editorExited": "exited with status {status}",
        "cli.editorSignalled": "was stopped by signal {signal}",
        "cli.error.alreadyInTrash": "memo {id} is already in the trash",
        "cli.error.ambiguousID": """
            the id '{id}' is ambiguous: {count} memos start with it; give more digits:
            {list}
            """,
        "cli.error.argumentNotUTF8": "argument {index} is not valid UTF-8; memo stores text exactly as given, so it refuses it",
        "cli.error.cannotCreateFolder": "cannot create the folder {path}: {error}",
        "cli.error.cannotCreateTemporary": "cannot create a temporary file in {path}: {error}",
        "cli.error.cannotOpenLibrary": "cannot open the library at {path}: {error}",
        "cli.error.cannotRead": "cannot read {path}: {error}",
        "cli.error.cannotReadInput": "cannot read standard input: {error}",
        "cli.error.cannotReadLibrary": "cannot read the library at {path}: {error}",
        "cli.error.cannotReadPassphraseFile": "cannot read the passphrase file {path}",
        "cli.error.cannotRememberKey": "cannot remember the store key in {path}",
        "cli.error.cannotSave": "cannot save the library at {path}: {error}. This command's change was not saved: run the command again once that is fixed",
        "cli.error.cannotUseBucket": "cannot use the S3 bucket {location}: {error}",
        "cli.error.cannotUseStore": "cannot use the store folder {path}: {error}",
        "cli.error.cannotUseWebDAVFolder": "cannot use the WebDAV folder {location}: {error}",
        "cli.error.cannotWrite": "cannot write {path}: {error}",
        "cli.error.cannotWriteOutput": "cannot write to standard output: {error}",
        "cli.error.completionNeedsShell": "'completion' needs a shell: bash, zsh or fish",
        "cli.error.couldNotSync": "could not sync with {path}: {error}; nothing was read or written",
        "cli.error.deleteDoesNotFit": "cannot delete {count} at offset {offset}{which}: the text has only {length} (Unicode scalars); nothing was changed",
        "cli.error.editedNotUTF8": "the edited text is not valid UTF-8; the memo is unchanged{kept}",
        "cli.error.editedUnreadable": "cannot read the edited file {path}: {error}; the memo is unchanged{kept}",
        "cli.error.editorEmpty": "the text is empty; no memo was created ('memo new \"\"' creates an empty memo)",
        "cli.error.editorFailed": "the editor '{command}' {how}; the memo is unchanged{kept}",
        "cli.error.editorNotStarted": "cannot start the editor '{command}': {error}",
        "cli.error.emptyPath": "an empty path was given",
        "cli.error.encryptionFailed": "encryption of the store {path} failed: {error}",
        "cli.error.decryptKeysNotDeleted": "could not turn encryption off for {path}: deleting its key blob failed: {error}. This library and the store stay encrypted, and nothing was lost; run 'memo store decrypt' again",
        "cli.error.decryptLibraryStaysEncrypted": "could not turn encryption off for this library: {error}. The store's key blob is deleted, but the library stays encrypted (its next sync puts the key blob back) and nothing was lost; run 'memo store decrypt' again",
        "cli.error.decryptNotPublished": "encryption is off for this library, but its memos could not be published in plain text to {path}: {error}; run 'memo sync' to publish them",
        "cli.error.exportAllNoID": "'export --all DIR' exports every memo; it takes no memo id",
        "cli.error.exportAllNoOutput": "--output names one file; with --all, give a folder only",
        "cli.error.exportFailed": "cannot write {path}: {error}; nothing was changed (files already there keep what they held, and no new file was left)",
        "cli.error.exportWouldReplace": """
            {count} in {path} would be replaced; nothing was written (add --force to replace them):
            {files}
            """,
        "cli.error.fileNotUTF8": "{path} is not UTF-8 text; nothing was changed",
        "cli.error.forceOnlyAll": "--force applies to 'export --all DIR' only",
        "cli.error.helpManAlone": "'help --man' takes no command name: the man page covers every command",
        "cli.error.helpOneCommand": "'help' takes at most one command name",
        "cli.error.historyUnreadable": "the undo history {path} cannot be read ({error}); delete it to start a new one",
        "cli.history.notKeptAside": "it is not valid JSON, and it could not be kept aside as {kept}: {error}",
        "cli.error.importNeedsPaths": "'import' needs the files or folders to import",
        "cli.error.importRefused": """
            {count} cannot be imported; nothing was imported:
            {files}
            """,
        "cli.error.inputEmpty": "standard input was empty; no memo was created ('memo new \"\"' creates an empty memo)",
        "cli.error.inputNotUTF8": "standard input is not UTF-8 text; nothing was changed",
        "cli.error.insertDoesNotFit": "cannot insert at offset {offset}{which}: the text has only {length} (Unicode scalars); nothing was changed",
        "cli.error.invalidStore": "cannot use the store {store}: {error}",
        "cli.error.json": "cannot write JSON: {error}",
        "cli.error.libraryBusy": "another memo command (a sync, or a change) has been using the library at {path} for {seconds} seconds; try again when it is done",
        "cli.error.memoInTrash": "memo {id} is in the trash; restore it first ('memo restore {id}')",
        "cli.error.needsID": "'{command}' needs a memo id (run 'memo list' to see them)",
        "cli.error.newPassphraseNeeded": "a new passphrase is needed: give it with {variable}, a passphrase file or on a terminal",
        "cli.error.noArguments": "'{command}' takes no arguments (got '{argument}'; run 'memo help {command}')",
        "cli.error.noCommand": "no command given (run 'memo help' for the list of commands)",
        "cli.error.noEditor": "no editor: set VISUAL or EDITOR, or give the text with --text TEXT, --text-file PATH (or --insert/--delete)",
        "cli.error.noHome": "cannot find your home folder; set HOME, or give the library folder with --library PATH or MEMO_LIBRARY",
        "cli.error.libraryIsAFile": "{path} is a file, not a library folder; give --library the folder of a library (or a new folder's path for 'memo new')",
        "cli.error.libraryNotPermitted": "the library folder {path} cannot be read: permission denied. Check its owner and permissions (ls -ld {path}), or run memo as the user who owns it",
        "cli.error.libraryReadOnly": "the library folder {path} cannot be written: it is on a read-only file system (it can be read, not changed). Mount it read-write, or give a library on a writable disk",
        "cli.error.libraryNotWritable": "the library folder {path} cannot be written: permission denied (it can be read, not changed). Check its owner and permissions (ls -ld {path}), or run memo as the user who owns it",
        "cli.error.noLibrary": "there is no library at {path}; 'memo new' creates one, 'memo sync --store PATH' gets one from a store",
        "cli.error.noMatchingID": "no memo has an id starting with '{id}' (run '{list}' to see the ids)",
        "cli.error.noStoreYet": "no store folder yet: run 'memo sync --store PATH' once (a folder your devices share, s3://BUCKET/PREFIX or a WebDAV https:// URL); later syncs remember it",
        "cli.error.noSuchMemo": "no memo {id}",
        "cli.error.notAFolder": "{path} exists and is not a folder",
        "cli.error.notAnID": "'{id}' is not a memo id: ids are up to 32 hexadecimal digits (0-9, a-f); run '{list}' to see them",
        "cli.error.notInTrash": "memo {id} is not in the trash",
        "cli.error.notWholeNumber": "{what} must be a whole number of characters, 0 or more (got '{value}')",
        "cli.error.badPort": "{what} needs a port number from 0 to 65535 (got '{value}')",
        "cli.error.badSyncInterval": "--sync-interval needs a whole number of seconds from 1 to 86400 (got '{value}')",
        "cli.error.listenIPv6": "memo serve listens on IPv4 addresses only, such as 127.0.0.1 (got '{value}')",
        "cli.error.nothingToRedo": "nothing to redo in memo {id}",
        "cli.error.nothingToUndo": "nothing to undo in memo {id}: 'memo undo' undoes the edits memo made on this device",
        "cli.error.atOrBefore": "memo show takes --at VERSION or --before TIME, not both",
        "cli.error.keepValue": "--keep takes a number of days from 1 to {max}, or forever, not \"{value}\"",
        "cli.historyKept": "Deleted text is kept {period}.",
        "cli.historyDropped": "Dropped {count} of deleted text older than that.",
        "cli.period.forever": "forever",
        "cli.period.days": "for {days}",
        "cli.error.notATime": "'{time}' is not a time: give it as memo prints them (2026-11-20 18:30, or 2026-11-20), or as ISO 8601 (2026-11-20T18:30:00Z)",
        "cli.error.noVersionBefore": "memo {id} has no version made before {time}: 'memo history {id}' lists them",
        "cli.error.diffArguments": "memo diff takes a memo id and at most two versions: memo diff ID [FROM [TO]]",
        "cli.error.revertArguments": "memo revert takes a memo id and one version: memo revert ID VERSION",
        "cli.error.notAVersion": "'{version}' is not a version of memo {id}: give 4 to 8 of the hexadecimal digits 'memo history {id}' prints",
        "cli.error.noSuchVersion": "memo {id} has no version {version}: 'memo history {id}' lists them",
        "cli.error.ambiguousVersion": "{version} names {count} versions of memo {id}: give more digits",
        "cli.error.cannotReadHistory": "cannot show the history of memo {id}: {error}",
        "cli.history.thisDevice": "this device",
        "cli.error.numberTooLarge": "{what} is too large (got {value})",
        "cli.error.oneID": "'{command}' takes one memo id (got also '{argument}')",
        "cli.error.optionNeeds": "option {option} needs {what}",
        "cli.error.optionNotForCommand": "option {option} does not apply to '{command}' (run 'memo help {command}')",
        "cli.error.optionTakesNoValue": "option {option} takes no value",
        "cli.error.optionTakesValues": "option {option} takes {count} values; give them as separate arguments",
        "cli.error.optionTwice": "option {option} is given twice",
        "cli.error.passphraseChanged": "the store's passphrase was changed on another device: the new passphrase is needed ({path}); give it with MEMO_PASSPHRASE, --passphrase-file FILE or on a terminal; nothing was read or written",
        "cli.error.passphraseNotUTF8": "the passphrase is not valid UTF-8",
        "cli.error.passphraseRequired": "the store is encrypted: a passphrase is needed ({path}); give it with MEMO_PASSPHRASE, --passphrase-file FILE or on a terminal; nothing was read or written",
        "cli.error.passphraseTooShort": "the passphrase is too short (at least {count} characters; a few words are best)",
        "cli.error.passphrasesDiffer": "the two passphrases differ; nothing was changed",
        "cli.error.plainReadBeforeEncryptFailed": "reading the plain store before turning encryption on failed: {error}; encryption is still off",
        "cli.error.purgeAllAlone": "'purge --all' empties the trash; it takes no memo id",
        "cli.error.purgeNeedsIDs": "'purge' needs the ids of memos in the trash, or --all to empty the trash",
        "cli.error.purgeNotInTrash": "memo {id} is not in the trash; only memos in the trash can be purged ('memo delete {id}' first); nothing was purged",
        "cli.error.readEmpty": "the text read was empty; no memo was created ('memo new \"\"' creates an empty memo)",
        "cli.error.searchNeedsQuery": "'search' needs something to search for",
        "cli.error.settingsUnreadable": "the settings file {path} cannot be read ({error}); fix it or delete it and run 'memo sync --store PATH' again",
        "cli.error.storeCommandNoStore": "no store folder yet: give --store PATH, or sync once with 'memo sync --store PATH'",
        "cli.error.storeMissing": "the store folder {path} is missing (is its drive or share mounted?); to create it again, run 'memo sync --store {path}'",
        "cli.error.storeNeedsAction": "'store' needs one of: {actions} (run 'memo help store')",
        "cli.error.keyBlobMissing": "the store {path} has no key blob, and this library, which is encrypted, has none to put back: nothing was synced, nothing written in plain text. Sync a device that still opens the store first, or turn encryption off with 'memo store decrypt'",
        "cli.error.keyBlobDamaged": "the key blob {key} of the store {path} is damaged ({reason}): nothing was synced. A device that synced with this store holds a copy of it: run 'memo sync' there, which writes its copy back, then sync here again",
        "cli.error.keyBlobNotRecorded": "the store {path} has its new key blob, but this library could not record it ({error}): run 'memo sync' now, which records it (until then, a store that loses its key blob would get the one from before back)",
        "cli.error.rememberedKeyDamaged": "the key this library remembered for the store {path} ({file}) is damaged: it does not open the library's own copy of the store's key blob. Give the passphrase with MEMO_PASSPHRASE, --passphrase-file FILE or on a terminal, and it is remembered again; nothing was read or written",
        "cli.error.libraryNotEncrypted": "this library is not encrypted: there is nothing to turn off",
        "cli.error.storeNotEncrypted": "the store {path} is not encrypted: it has no passphrase to change and no key to rotate ('memo sync --encrypt' turns encryption on)",
        "cli.note.keyBlobRestored": "{path} had no key blob (wiped, its key blob deleted, or a new store): this library's was put back, and the store stays encrypted",
        "cli.note.keyBlobRepaired": "the key blob {key} of {path} was damaged: this library's copy of it was written back, and the store stays encrypted",
        "cli.note.keyBlobRolledBack": "{path} held only an older key blob than this library's (restored from a backup, or rolled back): this library's was put back, so a changed passphrase or a rotated key stays changed",
        "cli.note.plainBlobsIgnored": "{count} in plain text in the encrypted store {path} were not applied (not written through its encryption; 'memo sync --json' lists them)",
        "cli.prompt.passphraseToDecrypt": "Passphrase of {path}, to turn its encryption off: ",
        "cli.status.encrypted": "on: this library syncs only encrypted, and its store holds ciphertext (the passphrase is asked)",
        "cli.status.encryptedRemembered": "on: this library syncs only encrypted, and its store holds ciphertext (the key is remembered)",
        "cli.status.encryption": "Encryption:",
        "cli.status.history": "History:",
        "cli.status.heldBack": "Held back:",
        "cli.status.heldBackValue": "{count} waiting for operations they build on (lost with a damaged file, or not received yet); they apply once a sync brings those from a device that published them ('memo recover' shows their text, 'memo recover --restore' puts it in new memos)",
        "cli.recover.none": "Nothing is held back: every edit saved in this library shows.",
        "cli.recover.intro": "{count} wait for operations they build on (lost with a damaged file, or not received yet). What they type, memo by memo, in the order typed (an insertion elsewhere starts a line); they still apply by themselves if a sync brings back what they wait for:",
        "cli.recover.memo": "Memo {id} ({count}): {title}",
        "cli.recover.notHere": "not in this library (its creation waits too)",
        "cli.recover.noText": "(no text: deletions, trash or restore only)",
        "cli.recover.restored": "Restored as memo {id}: {title}",
        "cli.recover.alreadyRestored": "Already restored, memo {id}: {title}",
        "cli.recover.nothingToRestore": "Nothing to restore: no held-back operation inserts text.",
        "cli.recover.heading": "Recovered edits of “{title}”",
        "cli.recover.stillWaiting": "The held-back operations still wait, and apply by themselves if a sync brings what they wait for; the restored memos then stay beside them.",
        "cli.status.keptAside": "Kept aside:",
        "cli.status.keptAsideValue": "{files} in the library folder (damaged or left-over copies, never read or deleted by memo)",
        "cli.status.historyValue": "deleted text kept {period} ('memo history --keep' changes it)",
        "cli.status.plain": "off: the store held plain text at the last sync ('memo sync --encrypt' turns it on)",
        "cli.status.plainNoStore": "off ('memo sync --encrypt' turns it on)",
        "cli.store.decryptExplained": "Turning encryption off for this library and {path}: the store's key blob and its encrypted blobs are deleted, and every memo is published again in plain text, readable by anyone who can read the store. Other devices that synced encrypted keep encrypting (and put the key blob back) until 'memo store decrypt' runs on each of them.",
        "cli.store.decrypted": "Encryption is off for this library and {path}: the store now holds plain text.",
        "cli.error.storeOptionsNeedS3": "--endpoint and --region go with --store s3://BUCKET/PREFIX",
        "cli.error.syncFailed": "the sync failed: {error}",
        "cli.error.syncUnfinished": "the sync did not finish: {error}",
        "cli.error.textNotCombined": "--text replaces the whole text; it cannot be combined with --insert or --delete",
        "cli.error.textOnce": "give the text once (--text or --text-file)",
        "cli.error.dashStandsAlone": "'-' (the text from standard input) stands alone; for a text that starts with '-', write: memo new -- '- your text'",
        "cli.error.textTwoWays": "give the text either as arguments or with --text-file, not both",
        "cli.error.unexpectedNumber": "unexpected number {number}; to give text that starts with a dash, put -- before it",
        "cli.error.unknownCommand": "unknown command '{command}' (run 'memo help' for the list of commands)",
        "cli.error.unknownOption": "unknown option {option} (run 'memo help')",
        "cli.error.wrongPassphrase": "the passphrase does not open the store {path}; nothing was read or written",
        "cli.exported": "Exported {count} to {path}.",
        "cli.file.diskFull": "the disk is full",
        "cli.file.exists": "something with that name is already there",
        "cli.file.readOnly": "the disk is read-only",
        "cli.file.unknownFailure": "the file operation failed",
        "cli.file.failed": "the system says: {reason}",
        "cli.file.isFolder": "it is a folder, not a file",
        "cli.file.missing": "there is no such file",
        "cli.file.permissionDenied": "you do not have permission to read it",
        "cli.file.tooLarge": "it holds more than {limit}",
        "cli.file.isSocket": "it is a socket, which memo does not write into",
        "cli.file.closed": "what it went to was closed (the reading end of a pipe, or a terminal)",
        "cli.file.ioError": "the disk failed (an input/output error)",
        "cli.file.writePermissionDenied": "you do not have permission to write it",
        "cli.import.linkOutside": "{path}: a symbolic link to a file outside the folder (not followed; name the file itself to import it)",
        "cli.import.notRegularFile": "{path}: not a regular file (a pipe, a socket or a device: not opened; name it on the command line to read it)",
        "cli.import.missing": "{path}: no such file or folder",
        "cli.import.notUTF8": "{path}: is not UTF-8 text (another encoding, or not text); save it as UTF-8 first",
        "cli.import.unreadable": "{path}: cannot be read ({error})",
        "cli.import.utf16": "{path}: is UTF-16 text; save it as UTF-8 first",
        "cli.importSkipped": "Skipped {count} whose text is already a memo's (add --again to import them anyway):",
        "cli.imported": "Imported {count}.",
        "cli.inTrashMark": "(in the trash)",
        "cli.listEmpty": "(no memos)",
        "cli.note.credentialsReadableByOthers": "{path} can be read by other users of this computer: it holds store credentials (chmod 600 {path})",
        "cli.note.createdLibrary": "created a new library at {path}",
        "cli.note.removedNewLibrary": "removed the new library at {path} again: nothing was synced into it",
        "cli.warning.libraryDamaged": "warning: the library file {file} is damaged: bytes {ranges} hold no intact record. {lost} saved record(s) lost; {recovered} intact record(s) recovered, {heldBack} of their operations wait for the lost ones, which a sync brings back if another device published them. The damaged file was kept, untouched, as {kept}; nothing was deleted (exit status 4)",
        "cli.warning.libraryCutShort": "warning: the library file {file} is {missing} bytes shorter than the library's last clean close left it: the edits saved in bytes {ranges} are lost, unless a sync brings them back from another device that published them; {recovered} intact record(s) recovered. The file was kept, untouched, as {kept}; nothing was deleted (exit status 4)",
        "cli.warning.libraryCutShortReadOnly": "warning: the library file {file} is {missing} bytes shorter than the library's last clean close left it: the edits saved in bytes {ranges} are lost, unless a sync brings them back from another device that published them; {recovered} intact record(s) recovered. Shown as read; the next command that changes the library keeps the file aside (exit status 4)",
        "cli.warning.libraryFileMissing": "warning: the library file {file} is missing, though the library's last clean close saved {missing} bytes of edits in it: those edits are lost, unless a sync brings them back from another device that published them (exit status 4)",
        "cli.warning.memoTextDamaged": "warning: the text of memo {id} cannot be read from the library file {file}: it was damaged after it was written. Shown is what the memo list holds of it (its title and preview); the library changes nothing in that file, and the other memos are intact (exit status 4)",
        "cli.warning.libraryDamagedReadOnly": "warning: the library file {file} is damaged: bytes {ranges} hold no intact record. {lost} saved record(s) lost; {recovered} intact record(s) recovered, {heldBack} of their operations wait for the lost ones, which a sync brings back if another device published them. Shown as read; the next command that changes the library keeps the damaged file aside (exit status 4)",
        "cli.warning.leftoverKept": "warning: {file} holds edits this library does not have (a compaction interrupted by a crash, or a file of another copy of the library): kept as {kept}, not deleted (exit status 4)",
        "cli.warning.editStepNotRecorded": "warning: the edit was saved; its undo step could not be recorded ({error}), so 'memo undo' cannot take this edit back",
        "cli.warning.historyDamaged": "warning: the undo history {path} is not valid JSON: kept it, untouched, as {kept}, and started a new one (the edits it listed can no longer be undone or redone; nothing else was lost) (exit status 4)",
        "cli.note.plainBlobsCollected": "deleted {count} held in plain text in {path}; the store now holds them encrypted",
        "cli.note.waitingForLibrary": "waiting for another memo command to finish with the library...",
        "cli.progress.export": "exporting",
        "cli.progress.line": "{task}: {done}/{planned}, {read} read, {written} written",
        "cli.progress.listing": "listing the store",
        "cli.progress.sync": "syncing",
        "cli.prompt.changedPassphrase": "The store's passphrase was changed. New passphrase: ",
        "cli.prompt.newPassphrase": "New passphrase for the store: ",
        "cli.prompt.passphrase": "Passphrase for {path}: ",
        "cli.prompt.passphraseAgain": "The same passphrase again: ",
        "cli.prompt.rememberedKeyDamaged": "The key remembered for the store is damaged. Passphrase: ",
        "cli.purged": "Deleted {count} for good.",
        "cli.quoted": "“{title}”",
        "cli.redone": "Redid the edit of {id} {title}.",
        "cli.restored": "Restored {id} {title}.",
        "cli.searchEmpty": "(no memo matches)",
        "cli.status.earlier": "Earlier ids:",
        "cli.status.earlierValue": "{ids}{more} (after crashes or copies)",
        "cli.status.lastSync": "Last sync:",
        "cli.status.library": "Library:",
        "cli.status.memos": "Memos:",
        "cli.status.memosValue": "{active}, {trashed} in the trash",
        "cli.status.never": "never",
        "cli.status.noStore": "none yet ('memo sync --store PATH' sets one)",
        "cli.status.none": "none",
        "cli.status.older": " and {count} older",
        "cli.status.replica": "Replica:",
        "cli.status.replicaValue": "{id} (kept while the library is closed cleanly; a new one after a crash or in a copy)",
        "cli.status.store": "Store:",
        "cli.status.unsynced": "Unsynced edits:",
        "cli.status.unsyncedValue": "{count} this library has not published yet",
        "cli.store.dataKeyAdded": "Added a new data key to {path} ({key}); new blobs use it, older ones stay readable.",
        "cli.store.passphraseChanged": "Changed the passphrase of {path}. Other devices ask for the new one at their next sync.",
        "cli.storeErrorsAbove": "{count} (listed above)",
        "cli.storeNotListed": "the store could not be listed",
        "cli.suggestionSeparator": ". ",
        "cli.sync.blobs": "Read {read} ({readBytes}), wrote {written} ({writtenBytes}), deleted {deleted}; {listed} listed at the start.",
        "cli.sync.done": "Synced with {store}.",
        "cli.sync.nothingNew": "Nothing new in the store.",
        "cli.sync.pending": "Holding {count} back until the changes they build on arrive.",
        "cli.sync.published": "Published {count} of this library (its unsynced edits).",
        "cli.sync.received": "Received {count} from the store (edits made on other devices).",
        "cli.sync.skipped": "Skipped {count} (each named once; read again when it changes, or when it may have been damaged on the way):",
        "cli.sync.skippedAgain": "{count} skipped as before (named by an earlier sync).",
        "cli.sync.skippedMore": "and {count} more ('memo sync --json' lists them all).",
        "cli.sync.snapshot": "Published a snapshot of the whole notebook (new devices start from it).",
        "cli.sync.storeErrors": "Store errors:",
        "cli.sync.unfinished": "The sync with {store} did not finish (store errors below; run 'memo sync' again).",
        "cli.trashEmpty": "(the trash is empty)",
        "cli.typedKeptIn": "; what was typed is kept in {path}",
        "cli.undone": "Undid the last edit of {id} {title}.",
        "cli.untitled": "(untitled)",
        "cli.version": "memo {version} (library format {library}, store layout {store})",
        "cli.what.deleteLength": "the length of --delete",
        "cli.what.deleteOffset": "the offset of --delete",
        "cli.what.filePath": "a file path",
        "cli.what.filePathOrDash": "a file path (- for standard input)",
        "cli.what.folderPathOrURL": "a folder path or a store URL",
        "cli.what.url": "a URL",
        "cli.what.regionName": "a region name",
        "cli.what.folderPath": "a folder path",
        "cli.what.daysOrForever": "a number of days, or forever",
        "cli.what.insertOffset": "the offset of --insert",
        "cli.what.offsetAndLength": "OFFSET and LENGTH",
        "cli.what.offsetAndText": "OFFSET and TEXT",
        "cli.what.value": "a value",
        "cli.whichChange": " (change {index} of {count})",
        // MARK: help
        "help.examplesLabel": "Examples:",
        "help.exitDamaged": "Exit status 4: it did its work but found the library damaged (its warnings\nsay what was lost).",
        "help.footer": """
            Memo ids: any beginning of a memo's id that no other memo shares works ('memo show
            3fa2'); 'memo list' shows ids shortened to 8 digits or more.

            Library: the folder holding your memos: --library PATH, else the environment
            variable MEMO_LIBRARY, else the per-user data folder ($XDG_DATA_HOME/memosync or
            ~/.local/share/memosync on Linux, ~/Library/Application Support/MemoSync on macOS).
            Commands that only show memos never wait: they work while another memo command
            (an editor, a sync) is running.

            Options of every command: --library PATH; --quiet (-q): nothing on standard error
            but errors and warnings of damage; --json: output for programs (the same in every
            language), on every command but help, store, serve, demo and completion; --help
            (-h). 'memo --version' prints the version.

            Exit status: 0 on success, 1 when a command fails, 2 for a wrong command line, 3 for
            a wrong, missing or outdated passphrase, 4 when it did its work but found the
            library damaged (its warnings say what was lost); 'search' exits 1 when nothing
            matched and 2 on errors, as grep does. Errors go to standard error as
            "memo: <message>"; a failed command changes nothing, except a sync, which
            keeps what it received before a store error ('memo help sync'), and 'memo store
            decrypt', whose error says where it stopped and what to run.

            Language: messages and help follow LC_ALL, LC_MESSAGES or LANG (English, Korean,
            Japanese); dates and numbers follow the locale. 'memo help COMMAND' shows examples.
            """,
        "help.group.files": "Export and import",
        "help.group.find": "Find",
        "help.group.more": "More",
        "help.group.sync": "Sync",
        "help.group.trash": "Trash",
        "help.group.write": "Write",
        "help.page.completion": """
            Prints a script that completes memo's commands, options and memo ids in bash,
            zsh or fish. Load it from your shell's startup file.

            Examples:
              echo 'source <(memo completion bash)' >> ~/.bashrc
              memo completion zsh > "${fpath[1]}/_memo"
              memo completion fish > ~/.config/fish/completions/memo.fish

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.delete": """
            Moves the memo to the trash ('memo restore ID' brings it back). On other devices
            it moves to the trash at their next sync, unless someone edits it meanwhile.

            --json  print the memo afterwards as an object

            Examples:
              memo delete 3fa2
              memo trash

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.summary.serve": "the notes app in your browser, synced in the background",
        "help.page.serve": """
            Serves the notes app to a browser on this computer: the memo list beside an
            editor, search as you type, the trash, light and dark, in English, Korean and
            Japanese. Prints the address to open (with an access token made anew at each start) and opens
            it, with a second token good for one visit (other users can read the opener's
            command line), with $BROWSER, else the desktop's opener (xdg-open when there is a
            display; open on macOS). The library is synced with its store in the
            background (the one memo sync remembers, or --store). Other memo commands keep
            working on the same library meanwhile. Stop with Ctrl-C.

            --port N                 the port on 127.0.0.1 (default: any free port)
            --listen ADDRESS[:PORT]  listen on another IPv4 address (the token is still
                                     required; anyone who can reach it can try)
            --no-open                print the address only
            --store PATH|URL         sync with this store (as memo sync)
            --sync-interval SECONDS  sync at least this often (default 30)

            Examples:
              memo serve
              memo serve --port 8080 --no-open

            Exit status: 0 when stopped, 1 when the command fails, 2 for a wrong command line.
            """,
        "cli.serve.address": "Open {url}",
        "cli.serve.syncing": "Syncing with {store} in the background (at least every {seconds} s).",
        "cli.serve.stop": "Press Ctrl-C to stop.",
        "cli.note.serveListening": "listening on {address}: anyone who can reach it needs the token in the address above, and the token crosses the network in clear text (plain HTTP, no encryption): anyone who can see the traffic can take it and read and change every memo",
        "cli.error.serveCannotListen": "cannot listen on {address}: {error}",
        "help.page.demo": """
            The main job in one command: two devices (two libraries in DIR) share a folder
            as their store, edit the same memo while offline, sync in turn, and converge.
            Each step prints what happened and the memo command that does the same by hand.

            --dir DIR  where the two libraries and the shared folder go: a new or empty
                       folder, or one an earlier demo made (its run is replaced); by
                       default memosync-demo-UID in the temporary folder

            Examples:
              memo demo
              memo demo --dir /tmp/memo-demo

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.edit": """
            Without options, opens $VISUAL (or $EDITOR; vi on a terminal when neither is set)
            on a temporary file holding the text, and saves what you write when the editor
            exits successfully. The library is not held while the editor is open: other
            commands and syncs go on, and your changes are merged with what changed meanwhile.
            If the editor fails, what you typed is kept in a file the message names. If the
            text did not end with a line break and the file now ends with one (as most
            editors add), that one line break is dropped.

            --text TEXT              replace the whole text (- reads standard input); only
                                     what differs changes, so edits made elsewhere survive
            --text-file PATH         replace the whole text with the file's (- for standard input)
            --insert OFFSET TEXT     insert TEXT at OFFSET
            --delete OFFSET LENGTH   remove LENGTH characters starting at OFFSET
            --json                   print the memo afterwards as an object

            OFFSET and LENGTH count Unicode scalars (code points), from 0: "é" written as one
            code point counts 1, "e" plus a combining accent counts 2, an emoji counts 1
            (a flag, 2). Several --insert and --delete options apply in order, each to the
            text as the previous ones left it. If any of them does not fit the text, nothing
            changes. Memos in the trash must be restored before editing. 'memo undo ID'
            undoes an edit.

            Examples:
              memo edit 3fa2
              memo edit 3fa2 --text "Buy oat milk"
              sed 's/milk/oat milk/' draft.txt | memo edit 3fa2 --text -
              memo edit 3fa2 --insert 0 "TODO: " --delete 20 5

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.export": """
            Writes a memo as plain text: to standard output (also with --output -), or to
            FILE. A file at FILE is replaced whole (the new text is written beside it and
            put in its place: a failed export leaves it as it was), unless you may not
            write it; a symbolic link is followed, and the file it points to replaced so;
            a pipe (FIFO) or a device (/dev/stdout, a terminal) is written into, never
            replaced. With --all, writes every memo not in the trash into the folder DIR
            (created if missing), one UTF-8 .txt file each, named after its title (made
            safe and unique for every common file system), dated with the memo's last
            change, so 'memo import --again DIR' gives the same memos back (--again keeps
            memos whose texts are the same; CR LF line breaks come back as LF, and a byte
            order mark at the start is dropped, as import does with any file). Existing
            files are not replaced unless --force is given: if any would be, nothing is
            written. An export that fails changes nothing: files already there keep what
            they held, and no new file is left. On a terminal, an export that takes more
            than a second shows its progress, unless --quiet.

            --output FILE, -o FILE  write to FILE
            --all DIR               write every memo into DIR
            --force                 replace existing files (with --all)
            --json                  with --all, an object: directory, files (objects: id,
                                    file); for one memo, the memo (or id and file)

            Examples:
              memo export 3fa2 > groceries.txt
              memo export --all ~/memos-backup
              memo export --all ~/memos-backup --force

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.help": """
            Shows the commands grouped by task, one command's page with examples, or with
            --man the whole manual as a man page (roff), made from the same text.

            Examples:
              memo help
              memo help sync
              memo help --man > memo.1 && man ./memo.1

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.import": """
            Creates one memo per text or Markdown file: each PATH is a file, or a folder
            whose .txt, .text, .md and .markdown files are imported (recursively; hidden
            files are left out). The memo's text is the file's: UTF-8, with or without a
            byte order mark (dropped), CR LF line breaks made LF; its title is the first
            line. The file's dates become the memo's (created, last changed), in date
            order; a date earlier than a change the library already holds becomes just
            after it, and a date in the future becomes the time of the import. Files in
            other encodings (UTF-16, Latin-1...) are refused with the reason: then nothing
            is imported.

            A file whose text is already a memo's (in the library or its trash, or another
            file of the same import) is skipped, so importing the same files twice creates
            no duplicates; --again imports them anyway (as when moving a library with
            'memo export --all': its memos whose texts are the same come back, each one).
            Creates the library if there is none.

            --again  import files whose text is already a memo's
            --json   an object: imported (objects: file, id), skipped (files)

            Examples:
              memo import notes/todo.md
              memo import ~/Documents/notes
              memo export --all backup && memo --library new-library import --again backup

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.list": """
            The memos (not those in the trash), most recently changed first: the short id,
            the time of the last change (local time, in the locale's format) and the title
            (the first line). Works while other memo commands run.

            --json  a JSON array of objects: id, title, preview, createdAt, modifiedAt (ISO
                    8601, UTC), status.

            Examples:
              memo list
              memo list --json | jq -r '.[].title'

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.new": """
            Creates a memo and prints its id (32 hexadecimal digits) alone on a line.

            The text is TEXT (several words are joined with single spaces); with - or
            --text-file -, standard input; with --text-file PATH, that file (UTF-8), kept
            exactly as read. Without any of them, standard input when it is not a terminal,
            else your editor ($VISUAL or $EDITOR) on an empty file. Empty input or an empty
            file creates nothing; 'memo new ""' creates an empty memo. To give text that
            starts with a dash, put -- before it. Creates the library if there is none.

            --text-file PATH  read the text from PATH (- for standard input)
            --json            print the new memo as an object (as 'memo show --json')

            Examples:
              memo new "Buy milk"
              echo "Call the plumber" | memo new
              memo new --text-file notes/meeting.md
              pbpaste | memo new -

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.purge": """
            Deletes memos in the trash for good: their text is gone from this library's
            files, and from other devices at their next sync. Every ID must name a memo in
            the trash; if one does not, nothing is deleted. --all empties the trash.

            After damage to the library, a memo whose text is in records kept for edits
            held back is not purged until a sync brings back what the damage took (nothing
            is deleted then). Copies of damaged files kept aside are never changed: a
            warning names them, as they may still hold the text.

            --all   every memo in the trash
            --json  an object: purged (the ids deleted), keptAside (the copies named).

            Examples:
              memo purge 3fa2 91c0
              memo purge --all

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.redo": """
            Redoes the edit the last 'memo undo' of the memo undid. A new edit of the memo
            clears what can be redone.

            --json  print the memo afterwards as an object

            Examples:
              memo undo 3fa2
              memo redo 3fa2

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.restore": """
            Brings a memo back from the trash. ID may be any unique beginning of the id of a
            memo in the trash ('memo trash' lists them).

            --json  print the memo afterwards as an object

            Examples:
              memo trash
              memo restore 3fa2

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.search": """
            The memos whose text contains QUERY, most recently changed first. Search
            ignores case, with full case folding ("strasse" finds "Straße"), accents and
            Unicode normalization ("cafe" finds "Café"), fullwidth and halfwidth forms
            ("abc" finds "ＡＢＣ", "ガ" finds "ｶﾞ"), and hiragana versus katakana ("かな"
            finds "カナ"). Several words are searched as one phrase, joined with single
            spaces. Memos in the trash are not searched.

            --kana-distinct  hiragana and katakana do not match each other.
            --json           as 'memo list --json'.

            Examples:
              memo search milk
              memo search "oat milk" --json
              memo search milk > /dev/null && echo "found"

            Exit status: 0 when some memo matched, 1 when none did (nothing is printed but
            on a terminal), 2 for an error or a wrong command line (as grep).
            """,
        "help.page.history": """
            Lists the memo's versions, newest first, one a line: the version's short name
            (what 'memo show --at', 'memo diff' and 'memo revert' take), when the device made it,
            how many characters it added (+) and removed (-), and the device. A version ends where
            another device's edits of the memo come in between, or where the device edited other
            memos and came back to this one 10 minutes or more later (edits of one memo with
            nothing in between are one version, however long the pauses; edits received
            meanwhile for other memos change nothing). Every device that holds the same edits lists the same
            versions with the same names.

            --json  an array: version, cut, device, thisDevice, time, inserted, deleted.

            Examples:
              memo history 3fa2
              memo show 3fa2 --at 9c41e07a
              memo history --keep 30

            With --keep DAYS (1 to 36500) or --keep forever, and no ID: how long the library
            keeps deleted text, so that earlier versions can be shown (90 days until set; 'memo
            status' shows it). Deleted text older than that is dropped at once, and from then
            on; the memos' text never changes. Each library (device) keeps its own period.

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.diff": """
            Shows what changed in the memo as a unified diff of lines: without versions, the
            newest version against the one before it; with FROM, that version against the newest;
            with FROM and TO, between the two. Deleted text can be shown only while the library keeps
            it (its retention period).

            --json  an object: id, from, to, changes (kind, text, and UTF-16 and scalar ranges in
                    each text), lines (changed line ranges).

            Examples:
              memo diff 3fa2
              memo diff 3fa2 9c41e07a

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.revert": """
            Makes the memo's text what it was at VERSION, as a new edit: only what differs is
            deleted or typed again, so edits made meanwhile on other devices are kept when they
            sync, and 'memo undo' takes the revert back.

            --json  the memo after the revert, as 'memo show --json' prints it.

            Examples:
              memo revert 3fa2 9c41e07a

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.show": """
            Prints the memo's text exactly as stored (on a terminal, a final line break is
            added if the text has none). Memos in the trash can be shown too.

            --at VERSION  the text as it was at that version ('memo history ID' lists them).
            --before TIME  the text of the newest version made before TIME (2026-11-20 18:30).
            --json  an object: id, title, text, preview, createdAt, modifiedAt, status.

            Examples:
              memo show 3fa2
              memo show 3fa2 > memo.txt

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.store": """
            Manages an encrypted store (turned on with 'memo sync --encrypt').

            passphrase   change the passphrase: the store's keys are wrapped again under the
                         new one (no memo blob is rewritten). The new passphrase is asked
                         twice on the terminal, or taken from MEMO_NEW_PASSPHRASE or
                         --new-passphrase-file. Other devices ask for it at their next sync.
            rotate-key   add a new data key: new blobs are encrypted under it, older ones
                         stay readable. The passphrase stays the same.
            decrypt      turn encryption off, for this library and the store: says what it
                         does, asks for the passphrase (always: a remembered key does not
                         do), receives everything, deletes the store's key blob and its
                         encrypted blobs, and publishes every memo again in plain text.
                         Other devices keep encrypting until it runs on each of them.

            Encryption belongs to the library: once it synced encrypted, it never writes
            plain text to any store again until 'memo store decrypt'. A store that lost its
            key blob (wiped, the key blob deleted, or a new store folder) gets the
            library's back at the next 'memo sync', under the same passphrase. The library
            keeps the newest key blob, also right after 'store passphrase' or 'store
            rotate-key': a store rolled back to an older one gets it back too (a changed
            passphrase stays changed), and a damaged key blob is replaced by the library's
            copy of it.

            The current passphrase is not asked when this library remembers the store's key
            (the file store-key in the library, readable by you only: the key derived from
            the passphrase, never the passphrase itself). Otherwise it comes from
            --passphrase-file FILE, MEMO_PASSPHRASE, or the terminal.

            --store PATH  the store folder (default: the one 'memo sync' remembers)

            Examples:
              memo store passphrase
              memo store rotate-key --store ~/Dropbox/memos
              memo store decrypt

            Exit status: 0 when done, 1 when the store could not be used, 2 for a wrong
            command line, 3 when the passphrase is wrong or missing (nothing was changed).
            """,
        "help.page.status": """
            Shows the library folder, the replica id of its last session (kept by the next
            session while the library was closed cleanly and is not a copy) and the earlier
            ids it still publishes under, how many memos it holds, how many of its
            operations it has not published to a store yet (unsynced edits, counted as
            'memo sync' counts them), when it last synced completely, the remembered
            store folder, and whether encryption is on (for the library, and so for its
            store). After damage it also shows the operations held back (waiting for ones
            a damaged file lost, until a sync brings them back) and the files kept aside
            in the library folder. Works while other memo commands run.

            --json  an object: library, replica, lineage (the newest 8 ids this library
                    made edits under), lineageCount, memos, trashedMemos, unsyncedEdits
                    (also as unpublishedOperations), lastSync (ISO 8601 or null), store
                    (or null), encrypted (the library syncs only encrypted), storeEncrypted
                    (its store, as of the last sync; null before one), passphraseRemembered,
                    historyKeepDays (null: forever), heldBackOperations, keptAside (file
                    names).

            Examples:
              memo status
              memo status --json | jq .unsyncedEdits

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.recover": """
            Shows the text of edits held back: operations saved in this library that wait
            for operations they build on, which a damaged file lost (or a sync has not
            brought yet). A library's operations apply in the order they were made, so after
            damage took a record this library never synced, everything saved after it waits,
            in every memo, until a sync brings the lost operations back from a device that
            has them. If none has them, nothing will: copy the text from here. For each memo
            the operations change: its id, how many wait, its title (or that the memo is not
            in this library), then the characters they insert and none of them deletes, in
            the order typed (an insertion at another place starts a new line). Without
            --restore nothing is changed (the operations still apply by themselves if what
            they wait for arrives), and it works while other memo commands run.

            --restore  puts the text back into memos instead: one new memo per memo whose
                       held-back operations type text (for a memo in this library, a first
                       line "Recovered edits of" its title), which syncs like any other. A text
                       a memo already holds exactly (restored before) is not created again.
                       The held-back operations still wait: should what they wait for
                       arrive, they apply, and the restored memo stays beside theirs.
            --json     an object: heldBackOperations, memos (each: id, operations, title or
                       null, text); with --restore: restored (each: heldBackMemo, memo,
                       created).

            Examples:
              memo recover
              memo recover > recovered.txt
              memo recover --restore

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.sync": """
            Exchanges changes with the store: a folder shared between your devices (a
            Dropbox, iCloud Drive or Syncthing folder, a network share, a USB stick). Each
            device writes only its own files there; every sync reads what the others wrote
            and publishes this library's new edits. --store PATH names the folder (created
            if missing) and is remembered in the library, so later syncs need no option.
            A sync works while an editor is open on a memo ('memo edit').

            The store may also be an S3-compatible bucket (--store s3://BUCKET/PREFIX, with
            --endpoint URL for a service other than AWS, and --region) or a WebDAV folder
            (--store https://HOST/PATH or webdav://HOST/PATH). Credentials come from
            AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (else the
            [s3] section of the library's store-credentials file, else the AWS shared
            credentials file, AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials, profile
            AWS_PROFILE or default); the region from --region, else AWS_REGION or
            AWS_DEFAULT_REGION, else us-east-1; the endpoint from --endpoint, else
            AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else AWS. For WebDAV they come from
            MEMOSYNC_WEBDAV_USER and MEMOSYNC_WEBDAV_PASSWORD (else the [webdav]
            section). Credentials are never printed, remembered or put in a URL.

            Prints what happened: blobs read and written, operations received and
            published, and blobs skipped and why (a file still being copied, a damaged
            file, one written by a newer version of MemoSync, one larger than any MemoSync
            blob, a folder that cannot be read, a symbolic link or special file, which are
            never followed). A blob that failed in passing (a read error, a file still being
            copied) is tried again at the next sync; one found bad for good (the same bad
            bytes read twice, a file that is no MemoSync blob at all, or refused from its
            listing) is not read again until the store
            lists it changed, and is counted as remembered. On a terminal, a sync that takes
            more than a second shows its progress on standard error (store operations, bytes
            read and written), unless --quiet.

            An operation is one character typed or deleted, or one memo created, trashed,
            restored or purged. "Published N operations" counts this library's operations
            the store did not have (what 'memo status' calls unsynced edits); another
            device that syncs then reports them as received.

            --store PATH  the store folder (remembered)
            --json  an object with the report's fields: complete (true when the sync did
                    everything), listedStore, blobsListed, blobsRead, bytesRead,
                    blobsWritten, bytesWritten, blobsDeleted, operationsApplied (operations
                    received), publishedOperations, pendingOperationCount,
                    publishedSegment (the last), publishedSegments, publishedSnapshot,
                    skipped (objects: key, kind, reason; blobs not named before),
                    skippedAgain (named by an earlier sync), blobsRemembered (of those,
                    not even read: found bad for good), errors (one line each),
                    problems (the same errors as objects: operation, key, error, reason),
                    store, replica (this session's id), encrypted (through the store's
                    encryption), plainBlobsIgnored (plain blobs in an encrypted store: never
                    applied). Printed even when the sync failed.

            --encrypt  turn end-to-end encryption on for the store (first time: a new
                    passphrase, asked twice without echo on a terminal, or taken from
                    MEMO_PASSPHRASE or --passphrase-file FILE). From then on the store holds
                    only ciphertext, and every device needs the passphrase once: it is asked
                    (or read from MEMO_PASSPHRASE / --passphrase-file) and the key derived
                    from it is remembered in the library (the file store-key). The library
                    is encrypted from then on: it never syncs in plain text again, and a
                    store without a key blob (wiped, or a new one) gets its key blob back.
                    See 'memo help store'.
            --passphrase-file FILE  the passphrase, from the first line of FILE; given
                    (or MEMO_PASSPHRASE), it must open the store even when a key is remembered

            Examples:
              memo sync --store ~/Dropbox/memos
              memo sync
              memo sync --json | jq .operationsApplied

            Exit status: 0 when the sync finished, 1 when the store could not be used: a
            sync that could not list the store prints only the error; one that met a store
            error later (a failed write) prints its summary and the errors, and keeps what
            it received before the error. Either way the last sync time ('memo status')
            stays as it was. 2 for a wrong command line. 3
            when an encrypted store's passphrase is wrong, missing or was changed on another
            device: nothing was read or written.
            """,
        "help.page.trash": """
            The memos in the trash, most recently changed first, as 'memo list' shows them.

            --json  as 'memo list --json'.

            Examples:
              memo trash
              memo purge --all

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.page.undo": """
            Undoes the last edit memo made of the memo on this device ('memo edit', or a
            'memo redo'), as a change of the text as it is now: edits made since, here or on
            other devices, stay. Each memo keeps its last 20 edits. Undoing a move to the
            trash is 'memo restore'.

            --json  print the memo afterwards as an object

            Examples:
              memo edit 3fa2 --text "oops"
              memo undo 3fa2

            Exit status: 0 on success, 1 when the command fails, 2 for a wrong command line.
            """,
        "help.summary.completion": "a completion script for bash, zsh or fish",
        "help.summary.delete": "move a memo to the trash",
        "help.summary.demo": "two devices converging through a shared folder, step by step",
        "help.summary.edit": "change a memo in your editor, or replace or change its text",
        "help.summary.export": "write a memo, or every memo, as plain-text files",
        "help.summary.help": "this help, a command's help, or the man page (--man)",
        "help.summary.import": "create memos from text and Markdown files or folders",
        "help.summary.list": "the memos, most recently changed first",
        "help.summary.new": "create a memo (text from arguments, a file, standard input or your editor)",
        "help.summary.purge": "delete memos in the trash for good, or empty the trash",
        "help.summary.redo": "redo what 'memo undo' undid",
        "help.summary.restore": "bring a memo back from the trash",
        "help.summary.search": "the memos containing QUERY (ignoring case, accents, width and kana)",
        "help.summary.show": "print a memo's text exactly",
        "help.summary.history": "list a memo's versions, newest first",
        "help.summary.diff": "show what changed between two versions of a memo",
        "help.summary.revert": "make a memo's text what it was at a version",
        "help.summary.store": "change an encrypted store's passphrase, or add a data key",
        "help.summary.status": "this library: its replica id, unsynced edits, last sync",
        "help.summary.recover": "the text of edits held back after damage, to copy or restore",
        "help.summary.sync": "exchange changes with the store folder (remembered)",
        "help.summary.trash": "the memos in the trash",
        "help.summary.undo": "undo the last edit memo made of a memo",
        "help.title": "memo: offline-first notes that sync through a shared folder",
        "help.usageLabel": "Usage:",
        "skip.incomplete": "incomplete",
        "skip.corrupt": "corrupt",
        "skip.unknownVersion": "unknown version (kind {kind}, version {version})",
        "skip.notMemoSync": "not a MemoSync blob",
        "skip.unreadable": "unreadable",
        "skip.tooLarge": "too large ({size} bytes; no MemoSync blob exceeds {limit})",
        "skip.notListed": "not listed: {problem}",
        "skip.problem.unreadable": "cannot be read",
        "skip.problem.symbolicLink": "a symbolic link (never followed)",
        "skip.problem.specialFile": "not a regular file or folder (a FIFO, socket or device)",
        "skip.problem.tooDeep": "a folder nested more than {levels} levels deep (not walked)",
        "skip.withDetail": "{what} ({detail})",
        "error.ReplicaError.purgeWaitsForHeldBackEdits.what": "This memo's text is also in records the library keeps for edits held back after damage, so it was not purged",
        "error.ReplicaError.purgeWaitsForHeldBackEdits.suggestion": "Sync to bring back what the damage took, then purge it again.",
        "cli.warning.keptAsideAfterPurge": "warning: copies of library files kept aside after damage may still hold the purged text: {files}. MemoSync never reads or deletes them (they are for recovering what the damage took); delete them yourself once you no longer need them",
    ]
}
