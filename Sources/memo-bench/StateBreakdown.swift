// Where the bytes of an encoded notebook state go, field by field (FORMAT.md, "Notebook state"
// and "Text state"): `memo-bench longevity --explain` prints it for the final and the fresh
// state. Parses the layout only (no replay, no checks beyond what parsing needs).

import MemoCRDT
import MemoNotes

/// Bytes and counts per field of a notebook state.
struct StateBreakdown {
    /// The recent memos a version 2 run refers to by rank.
    let recentMemos = 16
    /// Bytes per field name.
    private(set) var bytes: [String: Int] = [:]
    /// Occurrences per field name (runs, stretches…).
    private(set) var counts: [String: Int] = [:]
    /// How many bytes each run timestamp took, by byte count.
    private(set) var timestampSizes: [Int: Int] = [:]

    init(_ state: [UInt8]) throws {
        let (body, version) = try BlobEnvelope.open(state, kind: .notebookState, versions: 1...15)
        bytes["envelope"] = state.count - body.count
        var reader = ByteReader(state, from: body.lowerBound, to: body.upperBound)
        try memoTable(&reader, state: state, body: body, version: version)
        try log(&reader, version: version)
    }

    /// The memo table: each memo's id and its text state (`text(_:version:)`), which leaves
    /// `reader` on the operation log.
    private mutating func memoTable(_ reader: inout ByteReader, state: [UInt8], body: Range<Int>, version: UInt8) throws {
        let memoCount = try field("memo table: counts, ids, body lengths", &reader) { reader in try reader.varint() }
        for _ in 0..<memoCount {
            _ = try field("memo table: counts, ids, body lengths", &reader) { reader in try reader.range(count: 16) }
            let textBody: Range<Int>
            var textVersion = 1
            if version == 1 {
                textBody = try field("memo table: counts, ids, body lengths", &reader) { reader in try reader.lengthPrefixedRange() }
                bytes["memo table: counts, ids, body lengths", default: 0] -= textBody.count
            } else {
                let length = try field("memo table: counts, ids, body lengths", &reader) { reader in try reader.varint() }
                textVersion = length & 1 == 1 ? 1 : 2
                textBody = try reader.range(count: Int(length >> 1))
            }
            var textReader = ByteReader(state, from: textBody.lowerBound, to: textBody.upperBound)
            try text(&textReader, version: textVersion)
            reader = ByteReader(state, from: textBody.upperBound, to: body.upperBound)
        }
    }

    /// The notebook's operation log: the replica table, then each replica's runs.
    private mutating func log(_ reader: inout ByteReader, version: UInt8) throws {
        let replicaCount = try field("log: replica table", &reader) { reader in try reader.varint() }
        for _ in 0..<replicaCount { _ = try field("log: replica table", &reader) { reader in try reader.uint64LittleEndian() } }
        for _ in 0..<replicaCount {
            if version == 1 { _ = try field("log: operation and run counts", &reader) { reader in try reader.varint() } }
            let runCount = try field("log: operation and run counts", &reader) { reader in try reader.varint() }
            var recent: [UInt64] = []
            for _ in 0..<runCount { try logRun(&reader, version: version, recent: &recent) }
        }
    }

    /// One run of the log: its kind and memo (in version 2, a reference to one of the `recent`
    /// memos or a new index), the fields of its kind, and its timestamp.
    private mutating func logRun(_ reader: inout ByteReader, version: UInt8, recent: inout [UInt64]) throws {
        counts["log runs", default: 0] += 1
        let kind: UInt64
        if version == 1 {
            kind = try field("log: run kind", &reader) { reader in UInt64(try reader.byte()) }
            _ = try field("log: run memo index", &reader) { reader in try reader.varint() }
        } else {
            let head = try field("log: run head (kind, memo reference)", &reader) { reader in try reader.varint() }
            kind = head & 7
            let reference = head >> 3
            if reference < UInt64(recent.count) {
                counts["log runs: memo by recent rank", default: 0] += 1
                recent.insert(recent.remove(at: Int(reference)), at: 0)
            } else {
                counts["log runs: memo by index", default: 0] += 1
                recent.insert(reference - UInt64(recent.count), at: 0)
                if recent.count > Int(recentMemos) { recent.removeLast() }
            }
        }
        counts["log runs of kind \(kind)", default: 0] += 1
        switch kind {
        case 1:
            _ = try field("log: text run length", &reader) { reader in try reader.varint() }
            if version == 1 { _ = try field("log: text run text counter", &reader) { reader in try reader.varint() } }
        case 2, 4:
            let entries = try field("log: seen versions", &reader) { reader in try reader.varint() }
            for _ in 0..<entries {
                _ = try field("log: seen versions", &reader) { reader in try reader.varint() }
                _ = try field("log: seen versions", &reader) { reader in try reader.varint() }
            }
        default: break
        }
        try runTimestamp(&reader, version: version)
    }

    /// A log run's timestamp, counted by its size.
    private mutating func runTimestamp(_ reader: inout ByteReader, version: UInt8) throws {
        let start = reader.position
        if version == 1 {
            _ = try reader.varint()
        } else {
            let head = try reader.varint()
            if head >> 1 == 0 {
                if head & 1 == 1 { _ = try reader.varint() }
            } else if head & 1 == 1 {
                _ = try reader.varint()
            }
        }
        bytes["log: run timestamp", default: 0] += reader.position - start
        timestampSizes[reader.position - start, default: 0] += 1
    }

    /// Reads one field, counting its bytes under `name`.
    private mutating func field<T>(_ name: String, _ reader: inout ByteReader, _ read: (inout ByteReader) throws -> T) throws -> T {
        let start = reader.position
        let value = try read(&reader)
        bytes[name, default: 0] += reader.position - start
        return value
    }

    /// A text state body (version 1 or 2).
    private mutating func text(_ reader: inout ByteReader, version: Int) throws {
        let start = reader.position
        let visible = try reader.lengthPrefixedRange()
        bytes["text: visible text", default: 0] += visible.count
        bytes["text: visible text length", default: 0] += visible.lowerBound - start
        let replicaCount = try field("text: replica table and counts", &reader) { reader in try reader.varint() }
        for _ in 0..<replicaCount { _ = try field("text: replica table and counts", &reader) { reader in try reader.uint64LittleEndian() } }
        for _ in 0..<replicaCount { _ = try field("text: replica table and counts", &reader) { reader in try reader.varint() } }
        if version >= 2 {
            let runCount = try field("text: run count", &reader) { reader in try reader.varint() }
            var replica: UInt64 = 0
            for _ in 0..<runCount {
                let headerAndFlag = try field("text: log run headers", &reader) { reader in try reader.varint() }
                let header = headerAndFlag >> 1
                let lamport = headerAndFlag & 1 == 0 ? 0 : try field("text: run Lamport steps", &reader) { reader in try reader.varint() }
                if lamport & 1 == 1 {
                    counts["text runs naming their replica", default: 0] += 1
                    replica = try field("text: run replicas", &reader) { reader in try reader.varint() }
                }
                try textRun(&reader, header: header, replica: replica)
            }
            return
        }
        for _ in 0..<replicaCount {
            let runs = try field("text: Lamport run counts", &reader) { reader in try reader.varint() }
            for _ in 0..<runs {
                counts["text Lamport runs", default: 0] += 1
                _ = try field("text: Lamport run counter steps", &reader) { reader in try reader.varint() }
                _ = try field("text: Lamport run offset steps", &reader) { reader in try reader.signedVarint() }
            }
        }
        let stretchCount = try field("text: stretch count", &reader) { reader in try reader.varint() }
        for _ in 0..<stretchCount {
            counts["text stretches", default: 0] += 1
            let replica = try field("text: stretch replica and run count", &reader) { reader in try reader.varint() }
            let runCount = try field("text: stretch replica and run count", &reader) { reader in try reader.varint() }
            for _ in 0..<runCount {
                let header = try field("text: log run headers", &reader) { reader in try reader.varint() }
                try textRun(&reader, header: header, replica: replica)
            }
        }
    }

    /// A text log run's fields after its header (and, in version 2, its Lamport step).
    private mutating func textRun(_ reader: inout ByteReader, header: UInt64, replica: UInt64) throws {
                let deletion = header & 1 == 1
                let idForm = header & 2 == 2
                let kind = (deletion ? "deletion" : "insertion") + (idForm ? ", id form" : ", position form")
                counts["text log runs: \(kind)", default: 0] += 1
                if !idForm {
                    _ = try field("text: position-form offsets", &reader) { reader in try reader.signedVarint() }
                } else if !deletion {
                    let modes = try field("text: id-form origins", &reader) { reader in try reader.byte() }
                    if modes & 3 == 2 { try reference(&reader, replica: replica) }
                    if (modes >> 2) & 3 == 3 { try reference(&reader, replica: replica) }
                } else {
                    try reference(&reader, replica: replica)
                }
    }

    private mutating func reference(_ reader: inout ByteReader, replica: UInt64) throws {
        let target = try field("text: id-form origins", &reader) { reader in try reader.varint() }
        if target == replica {
            _ = try field("text: id-form origins", &reader) { reader in try reader.signedVarint() }
        } else {
            _ = try field("text: id-form origins", &reader) { reader in try reader.varint() }
        }
    }

    /// Lines for `--explain`: each field's bytes, then the counts.
    func lines(title: String) -> [String] {
        var result = ["\(title): bytes per field"]
        for (name, count) in bytes.sorted(by: { $0.key < $1.key }) { result.append("  \(name): \(count)") }
        result.append("\(title): counts")
        for (name, count) in counts.sorted(by: { $0.key < $1.key }) { result.append("  \(name): \(count)") }
        result.append("  run timestamps by size (bytes: runs): " + timestampSizes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        return result
    }
}
