// Editing traces (the josephg/editing-traces formats, see /work/shared/traces/README.md), parsed
// once, up front and untimed, into the compact form the replays consume.

import Foundation

/// One edit of a trace: at `positionScalars`, delete `deleteCountScalars` Unicode scalars, then
/// insert `inserted` — `Array.splice` on the document's scalars.
struct Patch: Sendable {
    /// Where the edit happens, in Unicode scalars from the start of the document.
    var positionScalars: Int
    /// How many scalars the edit deletes, starting at `positionScalars`.
    var deleteCountScalars: Int
    /// The text inserted at `positionScalars` after the deletion (often empty).
    var inserted: String
    /// Where the scalars of `inserted` start in ``Trace/insertedScalarPool``, so the baseline
    /// buffer copies pre-decoded scalars instead of decoding `inserted` again.
    var insertedPoolStart: Int
    /// The length of `inserted` in Unicode scalars.
    var insertedCountScalars: Int
}

/// One transaction of a trace: a group of patches made at one time by one agent.
struct Transaction: Sendable {
    /// The transaction's patches: indexes into ``Trace/patches``, applied in that order.
    var patchIndexes: Range<Int>
    /// The agent that made the transaction (always 0 in a sequential trace).
    var agent: Int
    /// For a concurrent trace, the earlier transactions whose result the patches apply to
    /// (empty: the empty document). Always empty for a sequential trace, where each transaction
    /// follows the one before.
    var parents: [Int]
}

/// A parsed editing trace.
struct Trace: Sendable {
    /// How a trace's transactions relate.
    enum Kind: String, Sendable {
        /// Every transaction applies to the result of the one before.
        case sequential
        /// Transactions name their parents; replaying needs one document per agent and merges.
        case concurrent
    }

    /// The file name without its `.json` extension.
    var name: String
    /// The trace's format.
    var kind: Kind
    /// The text before the first transaction (always empty for a concurrent trace).
    var startContent: String
    /// The text every correct replay ends with.
    var endContent: String
    /// The number of agents (1 for a sequential trace).
    var agentCount: Int
    /// Every patch of every transaction, in transaction order.
    var patches: [Patch]
    /// The transactions, in file order (a causal order for concurrent traces).
    var transactions: [Transaction]
    /// The inserted text of every patch as Unicode scalar values, back to back.
    var insertedScalarPool: [UInt32]

    /// True when the patches, in order, can be applied one after the other to a single document:
    /// every sequential trace, and a concurrent trace whose every transaction has exactly the
    /// previous one as its only parent.
    var hasSequentialForm: Bool {
        if kind == .sequential { return true }
        for (index, transaction) in transactions.enumerated() {
            let linearParents = index == 0 ? [] : [index - 1]
            if transaction.parents != linearParents { return false }
        }
        return true
    }
}

/// Why a trace file could not be loaded. Each case renders as a one-line message for stderr.
enum TraceLoadError: Error, CustomStringConvertible {
    /// The file could not be read at all.
    case unreadable(path: String, reason: String)
    /// The file is not valid JSON, or not shaped like a trace.
    case malformed(path: String, reason: String)

    var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read trace \(path): \(reason)"
        case let .malformed(path, reason): "invalid trace \(path): \(reason)"
        }
    }
}

/// Reads trace files.
enum TraceLoader {
    /// Positions and delete counts above this are rejected as malformed, so that
    /// `position + deleteCount` can never overflow.
    static let offsetScalarsMax = 1 << 40

    /// Reads and parses the trace at `path`.
    ///
    /// - Throws: ``TraceLoadError`` when the file is missing or unreadable, is not JSON, or is
    ///   not a well-formed trace (wrong types, negative offsets, parents that are not earlier
    ///   transactions, agents outside `0..<numAgents`).
    static func load(path: String) throws(TraceLoadError) -> Trace {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "is a directory") }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        let raw: RawTrace
        do {
            raw = try JSONDecoder().decode(RawTrace.self, from: data)
        } catch let error as DecodingError {
            throw .malformed(path: path, reason: describe(error))
        } catch {
            throw .malformed(path: path, reason: "\(error)")
        }
        return try build(raw, name: url.deletingPathExtension().lastPathComponent, path: path)
    }

    /// Validates `raw` and converts it to the compact form.
    private static func build(_ raw: RawTrace, name: String, path: String) throws(TraceLoadError) -> Trace {
        let kind: Trace.Kind
        switch raw.kind {
        case nil, "sequential": kind = .sequential
        case "concurrent": kind = .concurrent
        case let other?: throw .malformed(path: path, reason: "unknown kind \"\(other)\"")
        }
        let agentCount: Int
        if kind == .concurrent {
            guard let numAgents = raw.numAgents else {
                throw .malformed(path: path, reason: "a concurrent trace needs \"numAgents\"")
            }
            guard numAgents >= 1 && numAgents < 1 << 20 else {
                throw .malformed(path: path, reason: "numAgents \(numAgents) is out of range")
            }
            agentCount = numAgents
        } else {
            agentCount = 1
        }

        var patches: [Patch] = []
        var transactions: [Transaction] = []
        var pool: [UInt32] = []
        transactions.reserveCapacity(raw.txns.count)
        for (index, rawTransaction) in raw.txns.enumerated() {
            let agent: Int
            let parents: [Int]
            if kind == .concurrent {
                guard let rawAgent = rawTransaction.agent, let rawParents = rawTransaction.parents else {
                    throw .malformed(path: path, reason: "txn \(index) lacks \"agent\" or \"parents\"")
                }
                guard rawAgent >= 0 && rawAgent < agentCount else {
                    throw .malformed(
                        path: path, reason: "txn \(index): agent \(rawAgent) is not below numAgents \(agentCount)")
                }
                for parent in rawParents where parent < 0 || parent >= index {
                    throw .malformed(path: path, reason: "txn \(index): parent \(parent) is not an earlier txn")
                }
                agent = rawAgent
                parents = rawParents
            } else {
                agent = 0
                parents = []
            }
            let first = patches.count
            for (patchIndex, rawPatch) in rawTransaction.patches.enumerated() {
                guard (0...offsetScalarsMax).contains(rawPatch.position),
                    (0...offsetScalarsMax).contains(rawPatch.deleteCount)
                else {
                    throw .malformed(
                        path: path,
                        reason: "txn \(index) patch \(patchIndex): position \(rawPatch.position) or delete count "
                            + "\(rawPatch.deleteCount) is negative or too large")
                }
                let poolStart = pool.count
                for scalar in rawPatch.inserted.unicodeScalars { pool.append(scalar.value) }
                patches.append(
                    Patch(
                        positionScalars: rawPatch.position, deleteCountScalars: rawPatch.deleteCount,
                        inserted: rawPatch.inserted, insertedPoolStart: poolStart,
                        insertedCountScalars: pool.count - poolStart))
            }
            transactions.append(Transaction(patchIndexes: first..<patches.count, agent: agent, parents: parents))
        }
        return Trace(
            name: name, kind: kind, startContent: raw.startContent ?? "", endContent: raw.endContent,
            agentCount: agentCount, patches: patches, transactions: transactions, insertedScalarPool: pool)
    }

    /// A one-line account of a decoding error: where in the document, and what was wrong.
    private static func describe(_ error: DecodingError) -> String {
        func location(_ path: [any CodingKey]) -> String {
            if path.isEmpty { return "at the top level" }
            return "at " + path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case let .dataCorrupted(context):
            if !context.codingPath.isEmpty { return "\(context.debugDescription) \(location(context.codingPath))" }
            var message = "not valid JSON (\(context.debugDescription))"
            if let underlying = context.underlyingError { message += ": \(underlying)" }
            return message
        case let .keyNotFound(key, context):
            return "missing key \"\(key.stringValue)\" \(location(context.codingPath))"
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return "\(context.debugDescription) \(location(context.codingPath))"
        @unknown default:
            return "\(error)"
        }
    }
}

/// The JSON shape of a trace file, as decoded.
private struct RawTrace: Decodable {
    var kind: String?
    var startContent: String?
    var endContent: String
    var numAgents: Int?
    var txns: [RawTransaction]
}

/// The JSON shape of one transaction.
private struct RawTransaction: Decodable {
    var patches: [RawPatch]
    var parents: [Int]?
    var agent: Int?
}

/// The JSON shape of one patch: the array `[position, deleteCount, insertedText]`.
private struct RawPatch: Decodable {
    var position: Int
    var deleteCount: Int
    var inserted: String

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        position = try container.decode(Int.self)
        deleteCount = try container.decode(Int.self)
        inserted = try container.decode(String.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "a patch has exactly three elements")
        }
    }
}
