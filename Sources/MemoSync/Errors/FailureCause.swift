// The innermost cause of a failure, as a person is told it: the reasons the lower layers give
// (`BlobStoreError.unavailable(reason:)`, `DiskError.io(reason:)`, a remote store's) are English
// texts for logs, written by this package (POSIX.swift, the stores, the HTTP client) or by the
// system (`strerror`). The causes a user can act on are recognised here, in one place, and told
// from the catalogs ("error.cause." keys) in the user's language; a reason not recognised is
// shown as it is in English, and left out of the other languages (the error's own sentence
// still says what happened and what to do).

/// A cause of a failure a person can be told in their language.
package enum FailureCause: String, CaseIterable, Sendable {
    /// The system refused access (EACCES, EPERM).
    case permissionDenied
    /// Something else has the name where a folder is needed (a file, EEXIST, ENOTDIR).
    case inTheWay
    /// The folder or file does not exist (ENOENT).
    case missing
    /// The disk or volume is full (ENOSPC, EDQUOT).
    case noSpace
    /// A read-only file system (EROFS), or a read-only view.
    case readOnly
    /// The device failed (EIO).
    case deviceFailed
    /// A file grew while it was read: it is still being written.
    case stillBeingWritten
    /// The library was closed, or its lock released.
    case closed
    /// The server cannot be reached: refused, not answering, timed out, a connection lost.
    case cannotConnect
    /// The server's host name was not found.
    case hostNotFound
    /// This device has no network.
    case offline
    /// The server is busy or throttling.
    case serverBusy
    /// The server's answer could not be read.
    case badAnswer
    /// The store's address is not usable (not a valid URL, bucket name, or folder path).
    case badAddress
    /// A password would be sent over plain http.
    case insecure

    /// The phrases that identify the cause in a reason (lowercased), most specific first.
    private var phrases: [String] {
        switch self {
        case .permissionDenied: ["permission denied", "operation not permitted", "access denied"]
        case .inTheWay: ["is in the way", "file exists", "not a directory", "is not a folder", "is a directory"]
        case .missing: ["no such file or directory", "does not exist"]
        case .noSpace: ["no space left", "disk quota exceeded"]
        case .readOnly: ["read-only"]
        case .deviceFailed: ["input/output error"]
        case .stillBeingWritten: ["grew while it was read"]
        case .closed: ["was closed", "is not locked by this process"]
        case .cannotConnect: [
            "cannot connect", "refused the connection", "did not answer", "timed out", "connection was lost", "connection refused",
        ]
        case .hostNotFound: ["host name was not found"]
        case .offline: ["not connected to a network"]
        case .serverBusy: ["server is busy"]
        case .badAnswer: ["answer could not be read", "listing could not be read", "cut short", "redirected the request"]
        case .badAddress: ["not a valid", "must be an http or https url", "not a file url", "no folder path given"]
        case .insecure: ["over plain http"]
        }
    }

    /// The order in which reasons are matched: a reason naming two causes ("the folder … does
    /// not exist or is not a folder") gets the first.
    private static let matchOrder: [FailureCause] = [
        .permissionDenied, .noSpace, .readOnly, .deviceFailed, .stillBeingWritten, .closed, .insecure, .badAddress, .offline,
        .hostNotFound, .serverBusy, .cannotConnect, .badAnswer, .missing, .inTheWay,
    ]

    /// The cause a reason names, nil when none is recognised. O(length of the reason).
    package init?(reason: String) {
        let lowered = reason.lowercased()
        guard let match = Self.matchOrder.first(where: { cause in cause.phrases.contains { lowered.contains($0) } }) else { return nil }
        self = match
    }

    /// The cause as a clause in ``MemoLanguage/current``, lowercase, without a final period:
    /// "permission was denied".
    package var localizedClause: String { MemoStrings.text("error.cause.\(rawValue)") }

    /// What to tell of `reason` after "what happened: ": the recognised cause in the current
    /// language; else, in English, the reason itself (its inner ": " made ", ", so the sentence
    /// stays one join deep); else nothing.
    package static func detail(of reason: String) -> String? {
        if let cause = FailureCause(reason: reason) { return cause.localizedClause }
        return englishDetail(reason)
    }

    /// `text` as a detail when the current language is English (its ": " made ", "), nil in the
    /// other languages: an English text of a lower layer is never shown inside a translation.
    package static func englishDetail(_ text: String) -> String? {
        guard MemoLanguage.current == .english, !text.isEmpty else { return nil }
        return text.replacing(": ", with: ", ")
    }
}
