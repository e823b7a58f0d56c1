import Foundation

/// Something a sync could not do, as a typed value: which operation, on which blob, and what
/// went wrong (the store's ``BlobStoreError``, or a reason for a step on this device). The sync
/// goes on where it can; the next sync tries again. ``SyncReport/errors`` lists them.
///
/// ```swift
/// for problem in report.errors {
///     if case .full? = problem.storeError { showStoreFullBanner() }
///     log(problem.description)          // "writing memosync/v1/…/segments/… failed: the store is full"
/// }
/// ```
public struct SyncProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the sync was doing.
    public enum Operation: String, Sendable, Equatable, Hashable, CustomStringConvertible {
        /// Listing the store (a failed listing ends the sync: nothing was read or written).
        case list
        /// Reading a blob. (A blob that cannot be read is usually skipped, see
        /// ``SyncReport/skipped``; it is a problem only when the store answers wrongly.)
        case read
        /// Writing a blob (a segment, a snapshot or this replica's head).
        case write
        /// Deleting one of this replica's blobs that a snapshot covers.
        case delete
        /// A step on this device, not a store request (collecting this library's operations).
        case local

        public var description: String { rawValue }
    }

    /// What the sync was doing.
    public var operation: Operation
    /// The blob's key, for a read, write or deletion.
    public var key: String?
    /// What the store answered, when the store failed.
    public var storeError: BlobStoreError?
    /// Why, when it is not a store error (an unexpected answer, a local step).
    public var reason: String?

    /// A store operation failed with `error`.
    public init(_ operation: Operation, key: String? = nil, storeError: BlobStoreError) {
        self.operation = operation
        self.key = key
        self.storeError = storeError
        self.reason = nil
    }

    /// An operation or a local step failed for `reason`.
    public init(_ operation: Operation, key: String? = nil, reason: String) {
        self.operation = operation
        self.key = key
        self.storeError = nil
        self.reason = reason
    }

    /// One line: "listing the store failed: …", "writing KEY failed: …", "deleting KEY failed: …".
    public var description: String {
        let what: String = switch operation {
        case .list: "listing the store"
        case .read: "reading \(key ?? "a blob")"
        case .write: "writing \(key ?? "a blob")"
        case .delete: "deleting \(key ?? "a blob")"
        case .local: "a step on this device"
        }
        if let storeError { return "\(what) failed: \(storeError)" }
        return "\(what) failed: \(reason ?? "unknown reason")"
    }
}
