/// Values kept by the bytes they were computed from, compared whole (a hash only finds the
/// candidates: bytes from a store could be made to collide with a hash, never with themselves),
/// up to a total of `bytesMax` key bytes, the oldest forgotten first.
///
/// The caches of decodes shared within a process (``SharedTextDecodes`` and the notebook's)
/// keep their entries here, under their own lock.
package struct BytesKeyedCache<Value> {
    private struct Entry {
        var key: [UInt8]
        var value: Value
    }

    /// Entries by the hash of their key bytes.
    private var entries: [Int: [Entry]] = [:]
    /// Hashes in the order their entries were added (the oldest first forgotten).
    private var order: [Int] = []
    private var orderStart = 0
    /// The key bytes kept, summed.
    package private(set) var bytesKept = 0
    /// At most this many key bytes are kept.
    package let bytesMax: Int
    /// How many lookups found their bytes.
    package private(set) var hits = 0

    package init(bytesMax: Int) {
        precondition(bytesMax >= 0)
        self.bytesMax = bytesMax
    }

    /// How many entries are kept.
    package var count: Int { order.count - orderStart }

    /// Whether `key` holds exactly `bytes`, compared eight bytes at a time (a byte at a time,
    /// the comparison of hits was a percent of a long simulation).
    static func same(_ key: [UInt8], _ bytes: ArraySlice<UInt8>) -> Bool {
        ByteComparison.equal(key, bytes)
    }

    /// The hash of `bytes` the cache files them under: their CRC-32C (the processor's
    /// instruction where there is one: hashing whole states with `Hasher` was another percent
    /// of a long simulation) and their count. Only finds candidates, which are compared whole.
    package static func hash(_ bytes: ArraySlice<UInt8>) -> Int {
        let checksum = bytes.withUnsafeBufferPointer { buffer in CRC32C.checksum(buffer) }
        return Int(bitPattern: UInt(checksum) | UInt(truncatingIfNeeded: bytes.count) << 32)
    }

    /// The value kept for exactly `bytes`, if any (counted as a hit when found).
    package mutating func value(for bytes: ArraySlice<UInt8>) -> Value? {
        let hash = Self.hash(bytes)
        guard let entry = entries[hash]?.first(where: { Self.same($0.key, bytes) }) else { return nil }
        hits += 1
        return entry.value
    }

    /// Keeps `value` for `bytes`, or, when `bytes` are kept already, gives their value to
    /// `merge` to update. Bytes longer than the limit are not kept.
    package mutating func keep(_ value: Value, for bytes: ArraySlice<UInt8>, merging merge: (inout Value) -> Void = { _ in }) {
        guard bytes.count <= bytesMax else { return }
        let hash = Self.hash(bytes)
        if let index = entries[hash]?.firstIndex(where: { Self.same($0.key, bytes) }) {
            merge(&entries[hash]![index].value)
            return
        }
        entries[hash, default: []].append(Entry(key: Array(bytes), value: value))
        order.append(hash)
        bytesKept += bytes.count
        while bytesKept > bytesMax, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            // Entries of one hash are added and forgotten in order: the first is the oldest.
            if var bucket = entries[oldest], !bucket.isEmpty {
                bytesKept -= bucket.removeFirst().key.count
                entries[oldest] = bucket.isEmpty ? nil : bucket
            }
        }
        if orderStart > 1_024 && orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}
