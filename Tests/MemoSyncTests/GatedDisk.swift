import Foundation
import MemoSync
import MemoSyncTesting

/// A gate a test holds shut: a thread that reaches it (``pass()``) while it is shut waits there
/// until the test opens it. Nothing in a test that passes waits on a clock: the only time limit
/// is a hang detector. A thread still held after ``holdSecondsMax`` opens the gate itself and
/// the gate records ``timedOut`` (the test then fails), so a test whose code under test waits
/// for the gate's holder ends, failing, instead of hanging.
final class TestGate: @unchecked Sendable {
    /// How long a thread waits at the gate, and ``arrivals(atLeast:)`` for arrivals, before the
    /// test is taken to hang.
    let holdSecondsMax: Double

    private let condition = NSCondition()
    private var isShut = false
    private var arrivalCount = 0
    private var didTimeOut = false
    private var waiters: [(id: Int, count: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextWaiterID = 0

    init(holdSecondsMax: Double = 120) {
        self.holdSecondsMax = holdSecondsMax
    }

    /// Shuts the gate and counts arrivals from zero.
    func shut() {
        condition.withLock {
            isShut = true
            arrivalCount = 0
        }
    }

    /// Opens the gate: the threads held go on, and later ones pass.
    func open() {
        condition.withLock {
            isShut = false
            condition.broadcast()
        }
    }

    /// Whether a thread waited at the gate for longer than ``holdSecondsMax`` (or
    /// ``arrivals(atLeast:)`` waited that long): what the test checks would hang.
    var timedOut: Bool { condition.withLock { didTimeOut } }

    /// Threads that reached the gate since it was last shut.
    var arrivals: Int { condition.withLock { arrivalCount } }

    /// Called by the code the test holds: waits while the gate is shut.
    func pass() {
        condition.lock()
        defer { condition.unlock() }
        guard isShut else { return }
        arrivalCount += 1
        let reached = waiters.filter { $0.count <= arrivalCount }
        waiters.removeAll { $0.count <= arrivalCount }
        for waiter in reached { waiter.continuation.resume(returning: true) }
        let deadline = Date(timeIntervalSinceNow: holdSecondsMax)
        while isShut {
            if !condition.wait(until: deadline) {
                // A hang: open the gate so that the test ends (failing on `timedOut`).
                didTimeOut = true
                isShut = false
                condition.broadcast()
            }
        }
    }

    /// Returns true once `count` threads reached the shut gate (at once if they did), without
    /// holding the caller's thread; false, recording ``timedOut``, when they have not within
    /// ``holdSecondsMax`` (the hang detector: a test that passes never waits that long).
    func arrivals(atLeast count: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id: Int? = condition.withLock {
                if arrivalCount >= count { return nil }
                nextWaiterID += 1
                waiters.append((nextWaiterID, count, continuation))
                return nextWaiterID
            }
            guard let id else { return continuation.resume(returning: true) }
            // The detector's clock runs on a thread of its own, never the cooperative pool (which
            // the code under test may be starving) nor the caller's actor.
            let limit = holdSecondsMax
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: limit)
                let expired: CheckedContinuation<Bool, Never>? = self.condition.withLock {
                    guard let index = self.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    self.didTimeOut = true
                    return self.waiters.remove(at: index).continuation
                }
                expired?.resume(returning: false)
            }
        }
    }
}

/// A library folder in memory (``MemoryDisk``) whose operations (``perform(_:)``) pass a
/// ``TestGate`` first: a test shuts the gate to hold a save, a compaction or a close on the
/// disk for as long as it likes. Reads, listings and identities are not gated.
final class GatedDisk: LibraryDisk, @unchecked Sendable {
    let inner: MemoryDisk
    let gate: TestGate

    init(_ inner: MemoryDisk = MemoryDisk(device: 1), gate: TestGate = TestGate()) {
        self.inner = inner
        self.gate = gate
    }

    func listFiles() throws(DiskError) -> [String] { try inner.listFiles() }

    func read(file: String) throws(DiskError) -> [UInt8]? { try inner.read(file: file) }

    func identity(of file: String?) throws(DiskError) -> FileIdentity? { try inner.identity(of: file) }

    func perform(_ operation: DiskOperation) throws(DiskError) {
        gate.pass()
        try inner.perform(operation)
    }
}
