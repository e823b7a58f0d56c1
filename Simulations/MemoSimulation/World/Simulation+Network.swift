import MemoCRDT
import MemoNotes
import MemoSync

// Syncs at the notebook level: a replica sends each of a few others the encoded delta of what
// it believes they lack; the network delays (by seconds, or by days with delayed visibility
// on), duplicates and reorders deltas; a receiver decodes and applies, and acknowledges what
// it holds.

extension Simulation {
    func sendDeltas(_ peer: Peer) {
        guard peer.status == .live, peer.core != nil else { return skip(peer, "sync: not running") }
        guard now >= peer.offlineUntil else { return skip(peer, "sync: offline") }
        statistics.syncsStarted += 1
        let others = livePeers.filter { $0 !== peer }
        guard !others.isEmpty else { return }
        var targets: [Peer] = []
        for _ in 0..<min(others.count, network.int(in: 1...3)) {
            let target = network.pick(others)
            if !targets.contains(where: { $0 === target }) { targets.append(target) }
        }
        for target in targets {
            let delta: NotebookDelta
            do throws(NotebookError) {
                delta = try peer.notebook.changes(since: peer.beliefs[target.index])
            } catch {
                return fail(.engine, [peer.index], "changes(since:) failed: \(error)")
            }
            guard !delta.isEmpty else { continue }
            let bytes = delta.encoded()
            let copies = network.chance(0.1) ? 2 : 1
            for _ in 0..<copies {
                queue.schedule(.deliver(from: peer.index, to: target.index, bytes: bytes), at: now + networkDelay())
            }
            record(peer, .syncStart, UInt64(target.index), UInt64(bytes.count), UInt64(copies)) {
                "sends r\(target.index) \(delta.operationCount) operations (\(bytes.count) bytes)\(copies > 1 ? ", twice" : "")"
            }
        }
    }

    func networkDelay() -> UInt64 {
        let rate = parameters.rate(.delayedVisibility)
        if rate > 0 && network.chance(rate) && !isFinalPhase {
            return network.logUniform(SimulatedTime.second, parameters.visibilityDelayMaxMilliseconds)
        }
        return network.uint64(in: 5...2_000)
    }

    func deliver(from sender: Int, to peer: Peer, bytes: [UInt8]) {
        guard peer.status == .live, peer.core != nil else { return }
        guard isFinalPhase || now >= peer.offlineUntil else {
            record(peer, .deliver, UInt64(sender), 0) { "a delta from r\(sender) is lost (offline)" }
            return
        }
        let delta: NotebookDelta
        do throws(DecodingError) {
            delta = try NotebookDelta(decoding: bytes)
        } catch {
            return fail(.engine, [sender, peer.index], "a delta does not decode: \(error)")
        }
        apply(delta, to: peer, from: sender)
        let version = peer.notebook.version
        queue.schedule(.acknowledge(peer: sender, holder: peer.index, version: version), at: now + networkDelay())
    }

    func apply(_ delta: NotebookDelta, to peer: Peer, from sender: Int) {
        setClock(peer)
        let report: NotebookApplyReport
        do throws(NotebookError) {
            report = try peer.core!.apply(delta)
        } catch {
            return fail(.engine, [sender, peer.index], "a delta from r\(sender) was refused: \(error)")
        }
        statistics.deltasDelivered += 1
        statistics.syncsFinished += 1
        meter?.syncFinished(peer: peer.index, at: now)
        statistics.operationsApplied += report.appliedOperationCount
        record(peer, .deliver, UInt64(sender), UInt64(report.appliedOperationCount), UInt64(report.pendingOperationCount)) {
            "applies a delta from r\(sender): \(report.appliedOperationCount) new, \(report.duplicateOperationCount) known, \(report.pendingOperationCount) held back"
        }
        applyRemoteEvents(peer, peer.takeEvents())
        if violation == nil { checkCaret(peer) }
        syncsSinceConvergenceCheck += 1
        if violation == nil && syncsSinceConvergenceCheck >= 32 {
            syncsSinceConvergenceCheck = 0
            checkConvergenceNow()
        }
    }

    /// Hands `target` everything `peer` holds that it lacks, at once.
    func deliverDirectly(from peer: Peer, to target: Peer) {
        do throws(NotebookError) {
            let delta = try peer.notebook.changes(since: target.notebook.version)
            guard !delta.isEmpty else { return }
            let decoded: NotebookDelta
            do throws(DecodingError) {
                decoded = try NotebookDelta(decoding: delta.encoded())
            } catch {
                return fail(.engine, [peer.index], "a delta does not decode: \(error)")
            }
            apply(decoded, to: target, from: peer.index)
        } catch {
            fail(.engine, [peer.index], "changes(since:) failed: \(error)")
        }
    }
}
