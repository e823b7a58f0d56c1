// The hypothetical cloud SDK that "Writing a Blob Store" (MemoSync.docc/WritingABlobStore.md)
// writes its example store against: the shape of the Dropbox SDK's `files` routes. Not a doc block:
// only what the block calls, so that the block compiles.
import Foundation

/// One file of a folder listing.
struct CloudDriveFile: Sendable {
    var path: String
    var size: Int
    /// The SDK's revision id of the file (changes whenever the file does).
    var rev: String
}

/// One page of a folder listing.
struct CloudDriveListing: Sendable {
    var files: [CloudDriveFile]
    var hasMore: Bool
    var cursor: String
}

/// How an upload treats an existing file.
enum CloudDriveWriteMode: Sendable {
    /// Fail with `CloudDriveError.conflict` when the file exists.
    case add
    case overwrite
}

/// What the SDK throws.
enum CloudDriveError: Error {
    case conflict
    case notFound
    case unauthorized
    case insufficientSpace
    case rateLimited(retryAfterSeconds: Int)
}

/// The app's authorized SDK client (here it finds nothing and stores nothing).
final class CloudDriveClient: Sendable {
    func listFolder(_ path: String, recursive: Bool) async throws -> CloudDriveListing {
        CloudDriveListing(files: [], hasMore: false, cursor: "")
    }

    func listFolderContinue(_ cursor: String) async throws -> CloudDriveListing {
        CloudDriveListing(files: [], hasMore: false, cursor: cursor)
    }

    func download(_ path: String) async throws -> Data { throw CloudDriveError.notFound }

    func upload(_ path: String, data: Data, mode: CloudDriveWriteMode) async throws {}

    func delete(_ path: String) async throws {}
}
