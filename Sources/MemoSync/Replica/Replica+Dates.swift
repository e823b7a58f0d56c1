// Times as an app's views take them: `Date` and `Duration` beside the engine's milliseconds.
// The engine keeps times as UInt64 milliseconds since 1970 (MemoCRDT and MemoNotes use the
// standard library only, and milliseconds are what the formats store); these read the same
// values as Foundation and standard library types, and never change them.

import Foundation

extension HybridTimestamp {
    /// The wall-clock part as a `Date` (milliseconds since 1970; the logical counter, which
    /// orders events of the same millisecond, is not part of it).
    public var date: Date { Date(timeIntervalSince1970: Double(wallMilliseconds) / 1_000) }
}

extension Memo {
    /// When the memo was created, as a `Date`.
    public var createdDate: Date { createdAt.date }
    /// The latest change to the memo, by any replica, as a `Date`.
    public var modifiedDate: Date { modifiedAt.date }
}

extension MemoSummary {
    /// When the memo was created, as a `Date`.
    public var createdDate: Date { createdAt.date }
    /// The latest change to the memo, by any replica, as a `Date`.
    public var modifiedDate: Date { modifiedAt.date }
}

extension Replica {
    /// The end of the last complete sync as a `Date`; nil before the first
    /// (``lastSyncMilliseconds`` is 0 then).
    public var lastSyncDate: Date? {
        let milliseconds = lastSyncMilliseconds
        return milliseconds == 0 ? nil : Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
    }
}

extension SyncConfiguration {
    /// ``gracePeriodMilliseconds`` as a `Duration`.
    public var gracePeriod: Duration {
        get { .milliseconds(Int64(clamping: gracePeriodMilliseconds)) }
        set {
            // Saturating: a period longer than `UInt64.max` milliseconds (half a billion years)
            // means "never", not a trap.
            let (seconds, attoseconds) = newValue.components
            let (whole, overflow) = UInt64(max(0, seconds)).multipliedReportingOverflow(by: 1_000)
            let part = UInt64(max(0, attoseconds) / 1_000_000_000_000_000)
            let (milliseconds, sumOverflow) = whole.addingReportingOverflow(part)
            gracePeriodMilliseconds = overflow || sumOverflow ? .max : milliseconds
        }
    }
}
