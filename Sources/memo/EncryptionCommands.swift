// End-to-end encryption in the command line (issue 16): `memo sync --encrypt`, syncing with an
// encrypted store, `memo store passphrase`, `memo store rotate-key` and `memo store decrypt`.
//
// Encryption is the library's (issue 25): a library that synced encrypted keeps the store's key
// blob (its `encryption` file) and syncs only through encryption from then on. A store without
// a key blob (wiped, its key blob deleted, a new folder) gets the library's back, never plain
// blobs; only `memo store decrypt` turns it off.
//
// Passphrases come from, in order: the key remembered in the library (`store-key`, mode 0600:
// the scrypt-derived key and its salt, never the passphrase), `--passphrase-file FILE` (its
// first line), `MEMO_PASSPHRASE`, or a prompt on the terminal without echo (a new passphrase is
// asked twice). A wrong passphrase, or none where one is needed, exits with status 3 before any
// memo blob of the store is read or written.

import Foundation
import MemoCRDT
import MemoSync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The encryption options of `sync` and `store`.
struct EncryptionOptions: Equatable {
    /// `--encrypt`: turn encryption on for a plain store.
    var encrypt = false
    /// `--passphrase-file FILE`: the passphrase (first line).
    var passphraseFile: String?
    /// `--new-passphrase-file FILE`: the new passphrase of `memo store passphrase`.
    var newPassphraseFile: String?
}

/// What `memo store` does.
enum StoreAction: String, Equatable, CaseIterable {
    /// Change the store's passphrase.
    case passphrase
    /// Add a fresh data key, used for new blobs.
    case rotateKey = "rotate-key"
    /// Turn encryption off, for the library and the store (issue 25).
    case decrypt
}

extension CLIError {
    /// A passphrase problem (wrong, missing, changed elsewhere), exit status 3: the text of
    /// `key` ("cli." is prepended) with `arguments`.
    static func passphrase(_ key: String, _ arguments: [String: String] = [:]) -> CLIError {
        CLIError(kind: .passphrase, message: t(key, arguments))
    }

    /// The CLI error for an encryption error.
    static func encryption(_ error: EncryptionError, store: String) -> CLIError {
        switch error {
        case .wrongPassphrase: .passphrase("error.wrongPassphrase", ["path": store])
        case .passphraseRequired: .passphrase("error.passphraseRequired", ["path": store])
        case .passphraseChanged: .passphrase("error.passphraseChanged", ["path": store])
        case .keyBlobMissing: .runtime("error.keyBlobMissing", ["path": store])
        case let .damagedKeyBlob(key, reason):
            .runtime("error.keyBlobDamaged", ["path": store, "key": Format.terminalSafe(key), "reason": Format.terminalSafe(reason)])
        default: .runtime("error.encryptionFailed", ["path": store, "error": explain(error)])
        }
    }
}

extension SyncReport {
    /// This report of a sync's last step, with what `earlier` (a step before it, in the same
    /// `memo sync`) read, received and skipped added, so that the summary counts the whole
    /// command. The store's listing is the earlier step's: the store as the command found it.
    func following(_ earlier: SyncReport) -> SyncReport {
        var whole = self
        whole.blobsListed = earlier.blobsListed
        whole.blobsRead += earlier.blobsRead
        whole.bytesRead += earlier.bytesRead
        whole.blobsWritten += earlier.blobsWritten
        whole.bytesWritten += earlier.bytesWritten
        whole.blobsDeleted += earlier.blobsDeleted
        whole.operationsApplied += earlier.operationsApplied
        let skippedNow = Set(skipped.map(\.key))
        whole.skipped = earlier.skipped.filter { !skippedNow.contains($0.key) } + skipped
        whole.skippedAgainCount += earlier.skippedAgainCount
        whole.blobsRemembered += earlier.blobsRemembered
        return whole
    }

    /// This report with the store's key blob counted as written: turning encryption on, or
    /// putting a lost key blob back, writes it before the sync proper.
    func countingKeyBlobWritten(_ encryption: LibraryEncryption?) -> SyncReport {
        guard let keyBlob = encryption?.keyBlob else { return self }
        var whole = self
        whole.blobsWritten += 1
        whole.bytesWritten += keyBlob.count
        return whole
    }
}

/// Parsing of `memo store ACTION`.
enum StoreCommandParser {
    static func parse(_ arguments: [String], store: String?) throws(CLIError) -> Command {
        guard arguments.count == 1, let action = StoreAction(rawValue: arguments[0]) else {
            throw .usage("error.storeNeedsAction", ["actions": StoreAction.allCases.map(\.rawValue).joined(separator: ", ")])
        }
        if let store, store.isEmpty { throw .usage("error.optionNeeds", ["option": "--store", "what": t("what.folderPath")]) }
        return .store(action: action, store: store)
    }
}

/// Opening a store's encryption for a library: remembered key, passphrase sources, prompts.
struct EncryptionSession {
    let environment: [String: String]
    let options: EncryptionOptions
    let libraryPath: String
    /// How messages name the store (a folder's path, or a remote store's kind and location).
    let storeName: String
    /// `--quiet`: notes are left out (errors and warnings of damage stay).
    let quiet: Bool

    /// Writes a note to standard error, unless `--quiet`.
    func note(_ text: String) {
        if !quiet { FileHandle.standardError.write(Data(("memo: " + text + "\n").utf8)) }
    }

    /// Writes a warning of damage to standard error, `--quiet` or not.
    func warn(_ text: String) {
        FileHandle.standardError.write(Data(("memo: " + text + "\n").utf8))
    }

    /// Where the derived key is remembered.
    var rememberedKeyPath: String { libraryPath + "/store-key" }

    // MARK: Sync

    /// The library's encryption: its `encryption` file, or, for a library that synced encrypted
    /// with a `memo` from before libraries kept their key blob, its `store-key` (encrypted, with
    /// no key blob to put back); nil for a plain library.
    func libraryEncryption(_ replica: Replica) -> LibraryEncryption? {
        if let encryption = replica.encryption { return encryption }
        return FileManager.default.fileExists(atPath: rememberedKeyPath) ? LibraryEncryption(keyBlobKey: nil, keyBlob: nil) : nil
    }

    /// Syncs `library` with `store`, through its encryption when it has a key blob, turning
    /// encryption on first when `--encrypt` is given on a plain store. An encrypted library
    /// syncs only through encryption: a store without a key blob gets the library's back first.
    func sync(replica: Replica, store: any BlobStore, progress: @escaping @Sendable (SyncProgress) -> Void) async throws(CLIError) -> SyncReport {
        let library = libraryEncryption(replica)
        // nil: a key blob that does not decode, which an encrypted library's unlocking replaces
        // with its own copy when it holds one (and otherwise says what to do).
        var status: StoreEncryptionStatus?
        do throws(EncryptionError) {
            status = try await StoreEncryption.status(of: store)
        } catch {
            if case let .store(storeError) = error {
                // As when the sync's own listing fails: nothing was read or written. The same
                // message as a plain store's failed listing (Commands+Sync.swift).
                throw .runtime("error.couldNotSync", ["path": storeName, "error": Format.terminalSafe(problemCause(SyncProblem(.list, storeError: storeError)))])
            }
            guard library != nil else { throw .encryption(error, store: storeName) }
            status = nil
        }
        switch status {
        case .plain? where library == nil && options.encrypt:
            return try await turnOn(replica: replica, store: store, progress: progress)
        case .plain? where library == nil:
            return try await plainSync(replica, store, progress)
        default:
            // Encrypted, or the store of an encrypted library: one that lost its key blob (wiped,
            // a new store), was rolled back, or holds a damaged copy of the library's gets the
            // library's back first.
            let encrypted = try await unlock(store, library: library)
            return try await encryptedSync(replica: replica, store: store, encrypted: encrypted, progress: progress)
                .countingKeyBlobWritten(encrypted.keyBlobWrittenBack == nil ? nil : encrypted.libraryEncryption)
        }
    }

    /// Says so when unlocking `encrypted` wrote the library's key blob back into the store: a
    /// note for a store without one, a warning (shown under `--quiet` too) for a store rolled
    /// back or holding a damaged copy.
    func noteKeyBlobWrittenBack(_ encrypted: EncryptedBlobStore) {
        switch encrypted.keyBlobWrittenBack {
        case .missing?: note(t("note.keyBlobRestored", ["path": storeName]))
        case .rolledBack?: warn(t("note.keyBlobRolledBack", ["path": storeName]))
        case .damaged?: warn(t("note.keyBlobRepaired", ["path": storeName, "key": Format.terminalSafe(encrypted.keyBlobKey)]))
        case nil: break
        }
    }

    /// Makes the key blob `store` uses (after a passphrase change or a rotation) the library's,
    /// durably, so that a store that loses it gets it back, never the one from before.
    func record(_ store: EncryptedBlobStore, in replica: Replica) async throws(CLIError) {
        do throws(ReplicaError) {
            try await replica.recordKeyBlob(of: store)
        } catch {
            throw .runtime("error.keyBlobNotRecorded", ["path": storeName, "error": explain(error)])
        }
    }

    /// A sync through `encrypted`, then the collection of the plain blobs it covers; plain blobs
    /// that stay (not covered: not from this store's history) are reported, never applied.
    private func encryptedSync(
        replica: Replica, store: any BlobStore, encrypted: EncryptedBlobStore, progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws(CLIError) -> SyncReport {
        var report = try await plainSync(replica, encrypted, progress)
        let collected = await collectIfCovered(replica: replica, store: store, encrypted: encrypted, report: report)
        report.plainBlobsIgnored.removeAll { collected.contains($0) }
        // The plain blobs collected are this sync's deletions too (issue 29, message 7).
        report.blobsDeleted += collected.count
        if !report.plainBlobsIgnored.isEmpty {
            // Blobs no library of this store wrote through its encryption: damage (or someone
            // else's writing), said under --quiet too.
            warn(t("note.plainBlobsIgnored", ["count": Format.count(report.plainBlobsIgnored.count, "blob"), "path": storeName]))
        }
        return report
    }

    /// Plain sync, enable, encrypted sync, collection (FORMAT.md, "Plain, encrypted, and the switch").
    private func turnOn(replica: Replica, store: any BlobStore, progress: @escaping @Sendable (SyncProgress) -> Void) async throws(CLIError) -> SyncReport {
        let passphrase = try newPassphrase(fileOption: options.passphraseFile, variable: "MEMO_PASSPHRASE")
        // First everything the plain store holds, so that this library's encrypted snapshot has
        // it; read-only, so that nothing of this library goes out in plain text (its writes fail).
        let plain = try await plainSync(replica, ReadOnlyBlobStore(store), progress)
        let failedReads = plain.errors.filter { $0.operation == .list || $0.operation == .read }
        guard plain.listedStore, failedReads.isEmpty else {
            let problems = failedReads.map { Format.terminalSafe($0.description) }.joined(separator: "; ")
            throw .runtime("error.plainReadBeforeEncryptFailed", ["error": problems.isEmpty ? t("storeNotListed") : problems])
        }
        let encrypted: EncryptedBlobStore
        do throws(EncryptionError) {
            encrypted = try await StoreEncryption.enable(store, passphrase: passphrase, log2N: scryptLog2NForNewStores())
        } catch {
            throw .encryption(error, store: storeName)
        }
        try remember(encrypted.rememberedKey)
        let encryptedReport = try await encryptedSync(replica: replica, store: store, encrypted: encrypted, progress: progress)
        // One summary of both steps: what the plain read received counts (issue 29, message 7:
        // it said "Read 0 blobs … Nothing new" after receiving another device's memo).
        return encryptedReport.following(plain).countingKeyBlobWritten(replica.encryption)
    }

    private func plainSync(_ replica: Replica, _ store: any BlobStore, _ progress: @escaping @Sendable (SyncProgress) -> Void) async throws(CLIError) -> SyncReport {
        do throws(ReplicaError) {
            return try await replica.sync(with: store, progress: progress)
        } catch {
            throw .runtime("error.syncFailed", ["error": explain(error)])
        }
    }

    /// After a complete encrypted sync that wrote a snapshot, the plain blobs it covers go.
    /// Returns the keys deleted.
    private func collectIfCovered(replica: Replica, store: any BlobStore, encrypted: EncryptedBlobStore, report: SyncReport) async -> Set<String> {
        guard report.isComplete, report.publishedSnapshot != nil, encrypted.plainBlobsListed > 0 else { return [] }
        let collected = await StoreEncryption.collectPlainBlobs(in: store, coveredBy: replica.notebook.version)
        if !collected.deleted.isEmpty {
            note(t("note.plainBlobsCollected", ["count": Format.count(collected.deleted.count, "blob"), "path": storeName]))
        }
        return Set(collected.deleted)
    }

    // MARK: Unlocking

    /// The store opened: with the remembered key, else a passphrase (remembered from then on).
    /// For an encrypted library (`library`), a store that lost its key blob gets the library's back.
    /// Says so when unlocking wrote the library's key blob back (``noteKeyBlobWrittenBack(_:)``).
    func unlock(_ store: any BlobStore, library: LibraryEncryption?) async throws(CLIError) -> EncryptedBlobStore {
        let encrypted = try await unlockQuietly(store, library: library)
        noteKeyBlobWrittenBack(encrypted)
        return encrypted
    }

    private func unlockQuietly(_ store: any BlobStore, library: LibraryEncryption?) async throws(CLIError) -> EncryptedBlobStore {
        // A passphrase given on purpose (--passphrase-file, MEMO_PASSPHRASE) is the one used,
        // remembered key or not: one that does not open the store is refused, never ignored.
        if options.passphraseFile != nil || !(environment["MEMO_PASSPHRASE"] ?? "").isEmpty,
            let passphrase = try givenPassphrase(prompt: "")
        {
            return try await unlock(store, passphrase: passphrase, library: library)
        }
        let rememberedFile = FileManager.default.contents(atPath: rememberedKeyPath)
        if let rememberedFile {
            let remembered = RememberedStoreKey(encoded: Array(rememberedFile))
            var damaged = remembered == nil
            if let remembered {
                do throws(EncryptionError) {
                    if let library { return try await StoreEncryption.unlock(store, remembered: remembered, library: library) }
                    return try await StoreEncryption.unlock(store, remembered: remembered)
                } catch {
                    guard error == .passphraseChanged || error == .wrongPassphrase else { throw .encryption(error, store: storeName) }
                    // The key opened the library's own copy of the key blob when it was last
                    // used: one that no longer does is damaged, not a passphrase changed elsewhere.
                    damaged = library.map { !StoreEncryption.remembered(remembered, opens: $0) } ?? false
                }
            }
            // Damaged, changed elsewhere (or another store's key): ask, as with none remembered;
            // the passphrase given is remembered again.
            guard let passphrase = try givenPassphrase(prompt: t(damaged ? "prompt.rememberedKeyDamaged" : "prompt.changedPassphrase")) else {
                if damaged { throw .passphrase("error.rememberedKeyDamaged", ["file": rememberedKeyPath, "path": storeName]) }
                throw .encryption(.passphraseChanged, store: storeName)
            }
            return try await unlock(store, passphrase: passphrase, library: library)
        }
        guard let passphrase = try givenPassphrase(prompt: t("prompt.passphrase", ["path": storeName])) else {
            throw .encryption(.passphraseRequired, store: storeName)
        }
        return try await unlock(store, passphrase: passphrase, library: library)
    }

    func unlock(_ store: any BlobStore, passphrase: String, library: LibraryEncryption?) async throws(CLIError) -> EncryptedBlobStore {
        let encrypted: EncryptedBlobStore
        do throws(EncryptionError) {
            if let library {
                encrypted = try await StoreEncryption.unlock(store, passphrase: passphrase, library: library)
            } else {
                encrypted = try await StoreEncryption.unlock(store, passphrase: passphrase)
            }
        } catch {
            throw .encryption(error, store: storeName)
        }
        try remember(encrypted.rememberedKey)
        return encrypted
    }

    // MARK: Passphrases

    /// The passphrase from `--passphrase-file`, `MEMO_PASSPHRASE` or the terminal; nil when none
    /// can be had (no file, no variable, no terminal).
    func givenPassphrase(prompt: String, fileOption: String? = nil, variable: String = "MEMO_PASSPHRASE") throws(CLIError) -> String? {
        if let file = fileOption ?? options.passphraseFile { return try Self.firstLine(ofFile: file) }
        if let value = environment[variable], !value.isEmpty { return value }
        return try Terminal.readSecret(prompt: prompt)
    }

    /// A new passphrase: from a file or variable, or typed twice on the terminal.
    func newPassphrase(fileOption: String?, variable: String) throws(CLIError) -> String {
        if let file = fileOption { return try Self.checkedNew(try Self.firstLine(ofFile: file)) }
        if let value = environment[variable], !value.isEmpty { return try Self.checkedNew(value) }
        guard let first = try Terminal.readSecret(prompt: t("prompt.newPassphrase")) else {
            throw .passphrase("error.newPassphraseNeeded", ["variable": variable])
        }
        guard try Terminal.readSecret(prompt: t("prompt.passphraseAgain")) == first else {
            throw .passphrase("error.passphrasesDiffer")
        }
        return try Self.checkedNew(first)
    }

    /// The fewest Unicode scalars a new passphrase may have.
    static let minimumPassphraseLength = 8

    private static func checkedNew(_ passphrase: String) throws(CLIError) -> String {
        guard passphrase.unicodeScalars.count >= minimumPassphraseLength else {
            throw .passphrase("error.passphraseTooShort", ["count": Format.number(minimumPassphraseLength)])
        }
        return passphrase
    }

    static func firstLine(ofFile path: String) throws(CLIError) -> String {
        let bytes: [UInt8]
        do throws(UserFileError) {
            bytes = try UserFile.bytes(at: path, limitBytes: 1 << 20)
        } catch {
            throw .runtime("error.cannotRead", ["path": path, "error": error.localizedReason])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .runtime("error.fileNotUTF8", ["path": path])
        }
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }

    // MARK: The remembered key

    /// Writes the derived key to `store-key` in the library, readable by the user only.
    func remember(_ key: RememberedStoreKey) throws(CLIError) {
        // Created readable by the user only (never briefly readable by others), made durable,
        // then renamed over the old one.
        let temporary = rememberedKeyPath + ".tmp"
        let bytes = key.encoded
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        var written = -1
        if descriptor >= 0 {
            written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if fsync(descriptor) != 0 { written = -1 }
            close(descriptor)
        }
        guard written == bytes.count, rename(temporary, rememberedKeyPath) == 0 else {
            unlink(temporary)
            throw .runtime("error.cannotRememberKey", ["path": rememberedKeyPath])
        }
    }
}

/// Reading a secret from the terminal without echo.
enum Terminal {
    /// A line typed on the controlling terminal with echo off; nil when there is no terminal.
    static func readSecret(prompt: String) throws(CLIError) -> String? {
        let descriptor = open("/dev/tty", O_RDWR)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // Echo off before the prompt shows: whatever is typed once it is there is never shown
        // (and never discarded by the flush, which drops only what came before it).
        var saved = termios()
        let hasAttributes = tcgetattr(descriptor, &saved) == 0
        if hasAttributes {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(descriptor, TCSAFLUSH, &silent)
        }
        _ = prompt.withCString { write(descriptor, $0, strlen($0)) }
        defer {
            if hasAttributes { _ = tcsetattr(descriptor, TCSAFLUSH, &saved) }
            _ = write(descriptor, "\n", 1)
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            bytes.append(byte)
            if bytes.count > 4096 { break }
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .passphrase("error.passphraseNotUTF8") }
        return text
    }
}

extension Runner {
    /// `memo store passphrase`, `memo store rotate-key` and `memo store decrypt`.
    mutating func storeCommand(action: StoreAction, storeOption: String?, library: Library, options: EncryptionOptions) async throws(CLIError) {
        let libraryPath = library.path
        let settings = try CLISettings.load(library: libraryPath)
        guard storeOption != nil || settings.store != nil else {
            throw .usage("error.storeCommandNoStore")
        }
        // A folder, an S3 bucket or a WebDAV folder, as `memo sync` opens it (StoreOption.swift).
        let (store, location) = try openStore(StoreOptions(store: storeOption), remembered: settings.store, library: libraryPath)
        let path = Self.storeDisplay(location)
        let session = EncryptionSession(environment: environment, options: options, libraryPath: libraryPath, storeName: path, quiet: quiet)
        if action == .decrypt { return try await decrypt(library: library, store: store, session: session, path: path) }
        // A plain store of a plain library has no passphrase to change and no key to rotate
        // (asking for "the store's passphrase" there would say it is encrypted). An encrypted
        // library whose store lost its key blob goes on: unlocking puts the key blob back.
        if session.libraryEncryption(library.writer) == nil, case .plain? = try? await StoreEncryption.status(of: store) {
            throw .runtime("error.storeNotEncrypted", ["path": path])
        }
        let unlocked = try await session.unlock(store, library: session.libraryEncryption(library.writer))
        let newPassphrase = action == .passphrase
            ? try session.newPassphrase(fileOption: options.newPassphraseFile, variable: "MEMO_NEW_PASSPHRASE") : ""
        let changed: EncryptedBlobStore
        do throws(EncryptionError) {
            if action == .passphrase {
                changed = try await StoreEncryption.changePassphrase(of: unlocked, to: newPassphrase)
            } else {
                changed = try await StoreEncryption.rotateDataKey(of: unlocked)
            }
        } catch {
            throw .encryption(error, store: path)
        }
        // The library's copy of the key blob first, durably, before success is said: a store
        // that loses its key blob before the next sync gets the new one back, never the old
        // (which would undo the change). The remembered key after it: one left from before
        // would not open the library's copy, and is removed (the next sync asks).
        try await session.record(changed, in: library.writer)
        if action == .passphrase {
            if (try? session.remember(changed.rememberedKey)) == nil { unlink(session.rememberedKeyPath) }
            console.print(t("store.passphraseChanged", ["path": path]))
        } else {
            console.print(t("store.dataKeyAdded", ["path": path, "key": changed.keyBlobKey]))
        }
    }

    /// `memo store decrypt`: says what it does, asks for the passphrase (a remembered key does
    /// not do), receives everything the store holds, deletes the store's key blobs, makes the
    /// library plain (its `store-key`, then its `encryption` file go), deletes the encrypted blobs, and
    /// publishes every memo again in plain text. Stopped by a crash after any step, the library
    /// is still encrypted (its next sync puts the key blob back, with only ciphertext beside it,
    /// and the command run again finishes the job), or it is plain with the store's key blob
    /// already gone (its next sync publishes every memo in plain text): never plain blobs from a
    /// library that says it is encrypted, and no memo lost. (`EncryptionDowngradeCLITests.decryptStoppedAfterEachStepLosesNothingAndLeaksNothing`
    /// stops it after each numbered step.)
    private mutating func decrypt(library: Library, store: any BlobStore, session: EncryptionSession, path: String) async throws(CLIError) {
        let replica = library.writer
        guard let encryption = session.libraryEncryption(replica) else { throw .runtime("error.libraryNotEncrypted") }
        session.note(t("store.decryptExplained", ["path": path]))
        guard let passphrase = try session.givenPassphrase(prompt: t("prompt.passphraseToDecrypt", ["path": path])) else {
            throw .encryption(.passphraseRequired, store: path)
        }
        // The passphrase must open the store (putting the library's key blob back if it lost it).
        let unlocked = try await session.unlock(store, passphrase: passphrase, library: encryption)
        // Everything the store holds first: its encrypted blobs are deleted below.
        let received: SyncReport
        do throws(ReplicaError) {
            received = try await replica.sync(with: unlocked)
        } catch {
            throw .runtime("error.syncFailed", ["error": explain(error)])
        }
        guard received.isComplete else {
            let reason = received.errors.first?.description ?? t("storeNotListed")
            throw .runtime("error.syncUnfinished", ["error": Format.terminalSafe(reason)])
        }
        decryptStepDone(1)
        do throws(BlobStoreError) {
            if decryptFailsForTests(at: 2) { throw .io(reason: "test failure") }
            for keyBlob in try await store.list(prefix: StoreLayout.root + "keys/") { try await store.delete(key: keyBlob.key) }
        } catch {
            // The library is still encrypted: a key blob deleted before the failure is put back
            // by its next sync.
            throw .runtime("error.decryptKeysNotDeleted", ["path": path, "error": Format.terminalSafe(explain(error))])
        }
        // The remembered key first: a library stopped between the two is still encrypted, with
        // its key blob to put back (a `store-key` without `encryption` would mean an encrypted
        // library with none).
        decryptStepDone(2)
        unlink(session.rememberedKeyPath)
        decryptStepDone(3)
        do throws(ReplicaError) {
            if decryptFailsForTests(at: 4) { throw .disk(.io(reason: "test failure")) }
            try await replica.turnEncryptionOff()
        } catch {
            throw .runtime("error.decryptLibraryStaysEncrypted", ["error": explain(error)])
        }
        decryptStepDone(4)
        // The ciphertext: unreadable without the key blob; deleted (what fails stays, harmless).
        if let encrypted = try? await store.list(prefix: "memosync/e1/") {
            for blob in encrypted { try? await store.delete(key: blob.key) }
        }
        decryptStepDone(5)
        let published: SyncReport
        do throws(ReplicaError) {
            if decryptFailsForTests(at: 6) { throw .disk(.io(reason: "test failure")) }
            published = try await replica.sync(with: store)
        } catch {
            throw .runtime("error.decryptNotPublished", ["path": path, "error": explain(error)])
        }
        decryptStepDone(6)
        console.print(t("store.decrypted", ["path": path]))
        if !published.isComplete {
            let reason = published.errors.first?.description ?? t("storeNotListed")
            throw .runtime("error.syncUnfinished", ["error": Format.terminalSafe(reason)])
        }
    }
}
