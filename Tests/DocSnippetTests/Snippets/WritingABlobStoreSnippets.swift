// Doc blocks: MemoSync.docc/WritingABlobStore.md. Compiled as an app writes them (public API only);
// each ```swift block appears here verbatim (DocSnippetTests checks it), so a change to one goes in
// both places. `CloudDriveClient` and `CloudDriveError` are the hypothetical SDK of
// CloudDriveSDK.swift.

import Foundation
import MemoSync

struct CloudDriveBlobStore: BlobStore {
    let client: CloudDriveClient      // the app's authorized SDK client
    let root: String                  // "/Apps/MyNotes/"

    func list(prefix: String) async throws(BlobStoreError) -> [BlobInfo] {
        var blobs: [BlobInfo] = []
        do {
            var page = try await client.listFolder(root, recursive: true)
            while true {
                for file in page.files where file.path.hasPrefix(root + prefix) {
                    // The revision: anything that changes when the file does (a content hash,
                    // a revision id). A sync reads a blob it found bad again only when its size
                    // or revision changes.
                    blobs.append(BlobInfo(key: String(file.path.dropFirst(root.count)), sizeBytes: file.size, revision: file.rev))
                }
                guard page.hasMore else { break }
                page = try await client.listFolderContinue(page.cursor)
            }
        } catch { throw Self.storeError(error) }
        return blobs
    }

    func read(key: String) async throws(BlobStoreError) -> [UInt8] {
        do { return Array(try await client.download(root + key)) } catch { throw Self.storeError(error, key: key) }
    }

    func write(key: String, bytes: [UInt8]) async throws(BlobStoreError) {
        // The SDK's upload is atomic; "add" mode fails when the file exists, which for a
        // content-named blob means it is already there.
        do { try await client.upload(root + key, data: Data(bytes), mode: .add) }
        catch CloudDriveError.conflict { return }
        catch { throw Self.storeError(error, key: key) }
    }

    func delete(key: String) async throws(BlobStoreError) {
        do { try await client.delete(root + key) }
        catch CloudDriveError.notFound { return }
        catch { throw Self.storeError(error, key: key) }
    }

    static func storeError(_ error: any Error, key: String? = nil) -> BlobStoreError {
        switch error {
        case is CancellationError: .cancelled
        case CloudDriveError.notFound: key.map { .notFound(key: $0) } ?? .unavailable(reason: "the folder is missing")
        case CloudDriveError.unauthorized: .denied(code: "unauthorized", message: "sign in again")
        case CloudDriveError.insufficientSpace: .full
        case let CloudDriveError.rateLimited(retryAfterSeconds):
            .retryLater(afterMilliseconds: retryAfterSeconds * 1_000, reason: "rate limited")
        default: .unavailable(reason: "\(error)")
        }
    }
}

func syncThroughCloudDrive(replica: Replica, client: CloudDriveClient) async throws {
    let store = RetryingBlobStore(CloudDriveBlobStore(client: client, root: "/Apps/MyNotes/"))
    let report = try await replica.sync(with: store)
    _ = report
}
