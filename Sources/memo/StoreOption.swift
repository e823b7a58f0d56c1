// `memo sync --store …`: a folder path, an s3:// bucket or a WebDAV URL (MemoSyncRemote's
// StoreLocation), with credentials from the environment or the library's credentials file.

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

    /// The store `memo sync` uses: the one given, or the remembered one (`remembered`, a
    /// location's text); and its location, to remember and show.
    func openStore(_ options: StoreOptions, remembered: String?, library: String) throws(CLIError) -> (store: any BlobStore, location: StoreLocation) {
        let given = options.store ?? remembered
        guard let given else {
            if options.endpoint != nil || options.region != nil { throw .usage("--endpoint and --region go with --store s3://BUCKET/PREFIX") }
            throw .usage("no store folder yet: run 'memo sync --store PATH' once (a folder your devices share, s3://BUCKET/PREFIX or a WebDAV https:// URL); later syncs remember it")
        }
        let location: StoreLocation
        do throws(StoreLocationError) {
            location = try StoreLocation(parsing: given, endpoint: options.endpoint, region: options.region)
        } catch {
            throw .usage("cannot use the store \(Format.terminalSafe(given)): \(error)")
        }
        if options.store == nil, case let .folder(path) = location {
            // A remembered folder is never created again: a missing folder is usually a drive
            // or network share that is not mounted, and a new empty folder there would hide it.
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                throw .runtime("the store folder \(path) is missing (is its drive or share mounted?); to create it again, run 'memo sync --store \(path)'")
            }
        }
        let sources = StoreCredentialSources(environment: environment, credentialsFile: Self.credentialsFile(library: library))
        do throws(StoreLocationError) {
            let store = try sources.store(for: location)
            // A folder is remembered by its absolute path.
            if let folder = store as? DirectoryBlobStore { return (store, .folder(path: folder.path)) }
            return (store, location)
        } catch {
            if case .folder = location { throw .runtime("cannot use the store folder \(Format.terminalSafe(given)): \(error)") }
            throw .runtime("cannot use the \(location.kind) \(Format.terminalSafe(location.text)): \(error)")
        }
    }

    /// How sync messages name a store: a folder by its path, a remote store by its kind and
    /// location ("S3 bucket notes, prefix team/, at https://…"). Never a secret.
    static func storeDisplay(_ location: StoreLocation) -> String {
        if case let .folder(path) = location { return path }
        return location.description
    }

    /// What `memo status` shows of a remembered store: its kind and location, no secret.
    static func storeSummary(_ remembered: String?) -> String? {
        guard let remembered else { return nil }
        guard let location = try? StoreLocation(parsing: remembered) else { return remembered }
        return location.description
    }
}
