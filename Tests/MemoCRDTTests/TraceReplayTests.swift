import Foundation
import MemoCRDT
import TestSupport
import Testing

/// A parsed editing trace (format: Tests/Fixtures/traces/README.md).
private struct EditingTrace {
    struct Transaction {
        var parents: [Int]
        var agent: Int
        var patches: [(position: Int, deleteCount: Int, inserted: String)]
    }

    var name: String
    var isConcurrent: Bool
    var agentCount: Int
    var startContent: String
    var endContent: String
    var transactions: [Transaction]

    init(contentsOf url: URL) throws {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let root = object as? [String: Any], let transactions = root["txns"] as? [[String: Any]],
            let endContent = root["endContent"] as? String
        else { throw TraceError.malformed(url.lastPathComponent) }
        name = url.deletingPathExtension().lastPathComponent
        isConcurrent = (root["kind"] as? String) == "concurrent"
        agentCount = (root["numAgents"] as? Int) ?? 1
        startContent = (root["startContent"] as? String) ?? ""
        self.endContent = endContent
        self.transactions = try transactions.map { transaction in
            guard let patches = transaction["patches"] as? [[Any]] else { throw TraceError.malformed("patches") }
            return Transaction(
                parents: (transaction["parents"] as? [Int]) ?? [],
                agent: (transaction["agent"] as? Int) ?? 0,
                patches: try patches.map { patch in
                    guard patch.count == 3, let position = patch[0] as? Int, let deleteCount = patch[1] as? Int,
                        let inserted = patch[2] as? String
                    else { throw TraceError.malformed("patch") }
                    return (position, deleteCount, inserted)
                })
        }
    }

    enum TraceError: Error { case malformed(String) }
}

extension TextCRDT {
    fileprivate mutating func apply(patch: (position: Int, deleteCount: Int, inserted: String)) throws {
        if patch.deleteCount > 0 { try delete(scalarRange: patch.position..<patch.position + patch.deleteCount) }
        if !patch.inserted.isEmpty { try insert(patch.inserted, atScalar: patch.position) }
    }
}

/// The trace files: the fixtures, plus every trace in `MEMOSYNC_TRACES` when it is set.
private func traceFiles() -> [URL] {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/traces")
    var folders = [fixtures]
    if let extra = environmentValue("MEMOSYNC_TRACES") { folders.append(URL(fileURLWithPath: extra)) }
    var files: [URL] = []
    for folder in folders {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        files += names.filter { $0.hasSuffix(".json") }.sorted().map { folder.appendingPathComponent($0) }
    }
    return files
}

@Suite struct TraceReplayTests {
    @Test func fixturesArePresent() {
        #expect(traceFiles().count >= 3)
    }

    /// Each trace replays to its `endContent`: sequential traces as local edits on one text;
    /// the concurrent trace with one text per agent, merging exactly what each transaction's
    /// parents cover (through encoded deltas) before applying its patches.
    @Test(arguments: traceFiles())
    func replayReachesEndContent(file: URL) throws {
        let trace = try EditingTrace(contentsOf: file)
        let result: TextCRDT
        if trace.isConcurrent {
            result = try replayConcurrently(trace)
        } else {
            var text = TextCRDT(replica: ReplicaID(1))
            try text.insert(trace.startContent, atScalar: 0)
            for transaction in trace.transactions {
                for patch in transaction.patches { try text.apply(patch: patch) }
            }
            result = text
        }
        #expect(result.string == trace.endContent, "\(trace.name)")
        try result.checkInvariants()
        let decoded = try TextCRDT(decoding: result.encoded(), replica: ReplicaID(99))
        #expect(decoded.string == trace.endContent, "\(trace.name) after encoding")
    }

    private func replayConcurrently(_ trace: EditingTrace) throws -> TextCRDT {
        let replicas = (0..<trace.agentCount).map { ReplicaID(UInt64($0) + 1) }
        var agents = replicas.map { TextCRDT(replica: $0) }
        var versions: [VersionVector] = []  // after each transaction
        // Each agent's transactions, in order: (index, the agent's operation count after it,
        // the transaction's operations encoded).
        var produced = [[(transaction: Int, end: UInt32, delta: [UInt8])]](repeating: [], count: trace.agentCount)
        // next[a][b]: the first transaction of agent b that agent a has not applied.
        var next = [[Int]](repeating: [Int](repeating: 0, count: trace.agentCount), count: trace.agentCount)
        for (index, transaction) in trace.transactions.enumerated() {
            let agent = transaction.agent
            var target = VersionVector()
            for parent in transaction.parents { target.merge(versions[parent]) }
            for other in 0..<trace.agentCount where other != agent {
                while next[agent][other] < produced[other].count
                    && produced[other][next[agent][other]].end <= target[replicas[other]]
                {
                    try agents[agent].apply(TextDelta(decoding: produced[other][next[agent][other]].delta))
                    next[agent][other] += 1
                }
            }
            #expect(agents[agent].version == target.merged(with: agents[agent].version), "\(trace.name) txn \(index)")
            #expect(agents[agent].pendingOperationCount == 0, "\(trace.name) txn \(index)")
            let before = agents[agent].version
            for patch in transaction.patches { try agents[agent].apply(patch: patch) }
            versions.append(target.merged(with: agents[agent].version))
            produced[agent].append((index, agents[agent].version[replicas[agent]], agents[agent].changes(since: before).encoded()))
            next[agent][agent] = produced[agent].count
        }
        var merged = TextCRDT(replica: ReplicaID(UInt64(trace.agentCount) + 1))
        for agent in agents { try merged.merge(agent) }
        return merged
    }
}
