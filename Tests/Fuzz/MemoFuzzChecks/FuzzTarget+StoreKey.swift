import MemoCRDT
import MemoSync

// Store key names: `StoreLayout.parse` reads every key a listing returns, hostile ones included.

extension FuzzTarget {
    /// A parsed key names what `StoreLayout` would write for it (the key it makes parses back
    /// the same), within the limits; the byte-level reading of ASCII keys agrees with the
    /// character-level reading of non-ASCII ones (the same key with "é" appended to its name).
    static func checkStoreKey(_ key: String) throws(FuzzFailure) {
        let parsed = StoreLayout.parse(key)
        switch parsed {
        case nil:
            break
        case let .segment(replica, start, end)?:
            try require(start < end && end <= Limits.operationsPerReplicaMax, "\(key.debugDescription) parses to segment \(start)..<\(end)")
            let made = StoreLayout.segmentKey(replica: replica, counters: start..<end, bytes: Array(key.utf8))
            try require(StoreLayout.parse(made) == parsed, "\(key.debugDescription): the segment key made from what it names parses otherwise")
        case let .snapshot(replica, totalOperations)?:
            let made = StoreLayout.snapshotKey(replica: replica, totalOperations: totalOperations, bytes: Array(key.utf8))
            try require(StoreLayout.parse(made) == parsed, "\(key.debugDescription): the snapshot key made from what it names parses otherwise")
        case let .head(replica)?:
            let made = StoreLayout.headKey(replica: replica, bytes: Array(key.utf8))
            try require(StoreLayout.parse(made) == parsed, "\(key.debugDescription): the head key made from what it names parses otherwise")
        }
        if key.utf8.allSatisfy({ $0 < 0x80 }) {
            let widened = key + "\u{E9}"
            let slow = StoreLayout.parse(widened)
            try require(
                slow == parsed,
                "\(key.debugDescription) parses to \(String(describing: parsed)), with \"é\" appended to \(String(describing: slow))")
        }
    }
}
