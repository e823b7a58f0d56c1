// `memo sync --store …`: a folder path, an s3:// bucket or a WebDAV URL (MemoSyncRemote's
// StoreLocation), with credentials from the environment or the library's credentials file.
// Its messages come from the catalogs (cli.error.*); the reasons StoreLocationError gives stay
// English (they are technical: URLs, option and variable names) unless their cause is one the
// catalogs know. A remote store is named by `StoreLocation.description` in English, by the
// catalogs' words for its kind in Korean and Japanese ("cli.storeKind.").

import Foundation
import MemoSync
import MemoSyncRemote

/// The store options of `memo sync`, as given.
struct StoreOptions: Equatable {
    /// `--store`: a folder path or a store URL.
    var store: String?
    /// `--endpoint`: an S3-compatible service's URL.
    var endpoint: String?
    /// `--region`: an S3 region.
    var region: String?
}

extension Runner {
    /// The library's credentials file for remote stores (INI: `[s3]`, `[webdav]`).
    static func credentialsFile(library: String) -> String {
        library.hasSuffix("/") ? library + "store-credentials" : library + "/store-credentials"
    }

    /// The store location `given` names, with `--endpoint` and `--region`; a usage error when it
    /// names none. `memo sync` checks a given `--store` with it before it creates a library, so
    /// a mistyped URL creates nothing.
    static func parseStore(_ given: String, _ options: StoreOptions) throws(CLIError) -> StoreLocation {
        do throws(StoreLocationError) {
            return try StoreLocation(parsing: given, endpoint: options.endpoint, region: options.region)
        } catch {
            throw .usage("error.invalidStore", ["store": Format.terminalSafe(StoreLocation.redactingCredentials(given)), "error": Format.terminalSafe(error.description)])
        }
    }

    /// The store `memo sync` uses: the one given, or the remembered one (`remembered`, a
    /// location's text); and its location, to remember and show.
    func openStore(_ options: StoreOptions, remembered: String?, library: String) throws(CLIError) -> (store: any BlobStore, location: StoreLocation) {
        let given = options.store ?? remembered
        guard let given else {
            if options.endpoint != nil || options.region != nil { throw .usage("error.storeOptionsNeedS3") }
            throw .usage("error.noStoreYet")
        }
        let location = try Self.parseStore(given, options)
        if options.store == nil, case let .folder(path) = location {
            // A remembered folder is never created again: a missing folder is usually a drive
            // or network share that is not mounted, and a new empty folder there would hide it.
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                throw .runtime("error.storeMissing", ["path": Format.terminalSafe(path)])
            }
        }
        let credentialsFile = Self.credentialsFile(library: library)
        if Self.isReadableByOthers(credentialsFile) {
            note(t("note.credentialsReadableByOthers", ["path": credentialsFile]))
        }
        let sources = StoreCredentialSources(environment: environment, credentialsFile: credentialsFile)
        do throws(StoreLocationError) {
            // A folder named now is made when missing (a WebDAV one with MKCOL, as a folder store's
            // is); a remembered one that vanished is an error, never replaced by an empty folder.
            // A folder store's listing cache lives in the library (FORMAT.md, "Folder store
            // listing cache"): later syncs read only the store's folders that changed.
            let store = try sources.store(
                for: location, createsMissingFolder: options.store != nil,
                listingCachePath: library + "/" + DirectoryBlobStore.listingCacheFileName)
            // A folder is remembered by its absolute path.
            if let folder = store as? DirectoryBlobStore { return (store, .folder(path: folder.path)) }
            return (store, location)
        } catch {
            throw Self.cannotUse(location, given: given, error)
        }
    }

    /// The error for a store that cannot be opened (its credentials are missing or unreadable,
    /// say), naming it by its kind in the catalogs' words.
    private static func cannotUse(_ location: StoreLocation, given: String, _ error: StoreLocationError) -> CLIError {
        // In Korean and Japanese the cause in the catalogs' words when it is one they know
        // ("a file with this name is in the way"), else the reason as it is.
        let localizedCause = MemoLanguage.current == .english ? nil : FailureCause(reason: error.reason)?.localizedClause
        let reason = Format.terminalSafe(localizedCause ?? error.description)
        switch location {
        case .folder: return .runtime("error.cannotUseStore", ["path": Format.terminalSafe(StoreLocation.redactingCredentials(given)), "error": reason])
        case .s3: return .runtime("error.cannotUseBucket", ["location": Format.terminalSafe(location.text), "error": reason])
        case .webDAV: return .runtime("error.cannotUseWebDAVFolder", ["location": Format.terminalSafe(location.text), "error": reason])
        }
    }

    /// Whether the file at `path` exists and its permissions let users other than its owner
    /// read or change it (a credentials file should be mode 0600).
    static func isReadableByOthers(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let permissions = attributes[.posixPermissions] as? NSNumber
        else { return false }
        return permissions.intValue & 0o077 != 0
    }

    /// How sync messages name a store: a folder by its path, a remote store by its kind and
    /// location ("S3 bucket notes, prefix team/, at https://…"). Never a secret.
    static func storeDisplay(_ location: StoreLocation) -> String {
        switch location {
        case let .folder(path): return path
        case _ where MemoLanguage.current == .english: return location.description
        case let .webDAV(folder): return t("storeKind.webDAV", ["location": folder.absoluteString])
        case let .s3(bucket, prefix, endpoint, _):
            return t("storeKind.s3", ["location": bucket + "/" + prefix + (endpoint.map { " " + $0.absoluteString } ?? "")])
        }
    }

    /// What `memo status` shows of a remembered store: its kind and location, no secret.
    static func storeSummary(_ remembered: String?) -> String? {
        guard let remembered else { return nil }
        guard let location = try? StoreLocation(parsing: remembered) else { return remembered }
        if case .folder = location { return location.description }
        return storeDisplay(location)
    }
}
