import MemoCRDT
import MemoSync
import Synchronization

// End-to-end encryption in the simulation (issue 16). Half the seeds (drawn from a stream of
// their own, so that no other draw of any seed changes) run every replica through one store
// keyring: what the simulated store holds is ciphertext, so its faults (torn and stale reads,
// conflicted copies, lost stores) hit ciphertext, and what cannot be opened is refused
// (`BlobStoreError.undecryptable`), skipped and reported by the sync, never applied.
//
// The keys and every nonce come from the seed (`SeededSimulationRandom`): a run stays a pure
// function of its seed. Keys keep their plain names here (the name mask is a pure function,
// tested on its own), so the simulator's ground-truth checks read the store as before.

extension Simulation {
    /// The run's blob cipher when the seed turned encryption on; nil otherwise.
    static func drawEncryption(seed: UInt64, engine: EngineLevel) -> BlobCipher? {
        guard encrypts(seed: seed, engine: engine) else { return nil }
        var draw = SimulationRandom(seed: seed, stream: 11)
        _ = draw.chance(0.5)
        let random = SeededSimulationRandom(seed: draw.next())
        guard let keyring = try? StoreKeyring.fresh(random: random) else { return nil }
        return BlobCipher(keyring: keyring, random: random)
    }

    /// Whether the run of `seed` encrypts what it stores (half the seeds of the replica engine).
    public static func encrypts(seed: UInt64, engine: EngineLevel) -> Bool {
        var draw = SimulationRandom(seed: seed, stream: 11)
        return engine == .replica && draw.chance(0.5)
    }

    /// Whether this run encrypts what it stores.
    public var isEncrypted: Bool { encryption != nil }

    /// Performs `action` of `reader` on the store, through the run's encryption when it has one.
    func performOnStore(_ store: SimulatedBlobStore, _ action: SyncAction, reader: Int) -> SyncResult {
        guard let cipher = encryption else { return store.perform(action, reader: reader, now: now) }
        switch action {
        case let .write(key, bytes):
            guard let sealed = try? cipher.seal(key: key, plain: bytes) else {
                return .failed(.io(reason: "simulated encryption failed"))
            }
            return store.perform(.write(key: key, bytes: sealed), reader: reader, now: now)
        case let .read(key):
            let result = store.perform(action, reader: reader, now: now)
            guard case let .read(bytes) = result else { return result }
            do throws(BlobRefusal) {
                return .read(try cipher.open(key: key, bytes: bytes))
            } catch {
                statistics.undecryptableReads += 1
                return .failed(.undecryptable(key: key, reason: error))
            }
        case .list, .delete:
            return store.perform(action, reader: reader, now: now)
        }
    }
}

/// Encryption's random bytes drawn from a seed (SplitMix64 through `SimulationRandom`).
final class SeededSimulationRandom: EncryptionRandomSource {
    private let state: Mutex<SimulationRandom>

    init(seed: UInt64) {
        state = Mutex(SimulationRandom(seed: seed, stream: 12))
    }

    func bytes(_ count: Int) throws(EncryptionError) -> [UInt8] {
        state.withLock { random in
            (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
    }
}
