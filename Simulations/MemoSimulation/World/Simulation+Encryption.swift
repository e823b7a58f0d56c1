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

    /// Performs `action` of `reader` on the store, through the run's encryption when it has one
    /// and the reader's sync was begun through it. A write that is not, in an encrypted run,
    /// is plain text in the store: a violation.
    func performOnStore(_ store: SimulatedBlobStore, _ action: SyncAction, reader: Int) -> SyncResult {
        guard let meter else { return performOnStoreUnmetered(store, action, reader: reader) }
        meterStore(at: now)
        let result = performOnStoreUnmetered(store, action, reader: reader)
        meter.storeOperation(reader: reader, action, result)
        return result
    }

    private func performOnStoreUnmetered(_ store: SimulatedBlobStore, _ action: SyncAction, reader: Int) -> SyncResult {
        guard let cipher = encryption else { return store.perform(action, reader: reader, now: now) }
        guard peers[reader].syncThroughEncryption else {
            if case let .write(key, _) = action {
                fail(.plaintext, [reader], "a plain blob was written in an encrypted run: \(key)")
            }
            return store.perform(action, reader: reader, now: now)
        }
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

/// Which key blob an encrypted run's store holds.
enum StoreKeyBlob: Equatable {
    /// The run's: every library's key opens it.
    case own
    /// None: wiped, or deleted by the store's operator.
    case none
    /// Another library's, put there by the store's operator: no library's key opens it.
    case foreign
}

extension Simulation {
    // MARK: The key blob (issue 25)

    /// The run's key blob and another library's, for an encrypted run: real key blobs (kind 8),
    /// their keyrings sealed under keys drawn from the seed (no passphrase: scrypt is tested on
    /// its own), from a stream of their own so no other draw changes.
    static func drawKeyBlobs(seed: UInt64, engine: EngineLevel) -> (own: LibraryEncryption, foreign: LibraryEncryption)? {
        guard encrypts(seed: seed, engine: engine) else { return nil }
        var draw = SimulationRandom(seed: seed, stream: 11)
        _ = draw.chance(0.5)
        let keyringRandom = SeededSimulationRandom(seed: draw.next())
        let random = SeededSimulationRandom(seed: draw.next() ^ 0x6b65_7962_6c6f_6273)
        func sealed(_ keyring: StoreKeyring) -> LibraryEncryption? {
            guard let wrappingKey = try? random.bytes(32), let salt = try? random.bytes(16),
                let blob = try? KeyBlob.seal(keyring, generation: 1, derivation: KeyDerivation(log2N: 10, salt: salt), wrappingKey: wrappingKey, random: random),
                let key = try? KeyBlob.key(generation: 1, random: random)
            else { return nil }
            return LibraryEncryption(keyBlobKey: key, keyBlob: blob.encoded)
        }
        guard let keyring = try? StoreKeyring.fresh(random: keyringRandom), let own = sealed(keyring),
            let other = try? StoreKeyring.fresh(random: random), let foreign = sealed(other)
        else { return nil }
        return (own, foreign)
    }

    /// A new library of an encrypted run is encrypted from its start (as an app whose user set
    /// encryption up): it keeps the run's key blob.
    func markEncrypted(_ peer: Peer) -> Bool {
        guard let keyBlobs, let replica = peer.replica, replica.encryption == nil else { return true }
        do throws(ReplicaError) {
            try replica.markEncrypted(keyBlobs.own)
        } catch {
            replicaFailure(peer, error, "making the library encrypted")
            return false
        }
        return true
    }

    /// How `peer`'s sync goes, as an app decides it from the store's key blob and the library's
    /// encryption; begins it. False when it does not begin (refused, or the replica failed).
    ///
    /// - The store holds the run's key blob: through encryption.
    /// - It holds none: now and then the app tries the plain store first, which the engine must
    ///   refuse (``ReplicaError/encryptedLibrary``); then the library puts its key blob back
    ///   (``StoreEncryption/unlock(_:remembered:library:random:)`` does it in an app) and syncs
    ///   through encryption.
    /// - It holds another library's: the library's key does not open it; no sync.
    func beginSync(_ peer: Peer, _ replica: Replica, refusalsAllowed: Bool) -> Bool {
        guard let keyBlobs else {
            peer.syncThroughEncryption = true
            return begin(peer, replica, .plain)
        }
        if storeKeyBlob == .foreign {
            statistics.keyBlobRefusals += 1
            record(peer, .skip) { "sync: the store's key blob is another library's: it does not open, nothing is synced" }
            return false
        }
        if storeKeyBlob == .none {
            if refusalsAllowed && latency.chance(0.5) {
                // A careless app: a plain sync of an encrypted library must be refused.
                peer.syncThroughEncryption = false
                do throws(ReplicaError) {
                    try replica.beginSync(through: .plain)
                    record(peer, .syncStart) { "a plain sync of an encrypted library began" }
                    return true
                } catch .encryptedLibrary {
                    statistics.plainSyncsRefused += 1
                } catch {
                    replicaFailure(peer, error, "beginning a plain sync")
                    return false
                }
            }
            guard let library = replica.encryption, library.canRepublishKeyBlob else {
                fail(.plaintext, [peer.index], "an encrypted run's library does not know its key blob")
                return false
            }
            guard library == keyBlobs.own else {
                fail(.engine, [peer.index], "the library keeps another key blob than the run's")
                return false
            }
            storeKeyBlob = .own
            statistics.keyBlobsRepublished += 1
            sometimes.insert(.keyBlobRepublished)
            record(peer, .fault) { "the library puts its key blob back in the store" }
        }
        peer.syncThroughEncryption = true
        return begin(peer, replica, .encrypted(keyBlobs.own))
    }

    private func begin(_ peer: Peer, _ replica: Replica, _ through: SyncStoreEncryption) -> Bool {
        do throws(ReplicaError) {
            try replica.beginSync(through: through)
        } catch {
            replicaFailure(peer, error, "beginning a sync")
            return false
        }
        return true
    }

    /// The key-blob fault: the store's operator deletes the key blob, swaps in another
    /// library's, or puts the run's back.
    func operatorChangesKeyBlob(_ peer: Peer, which: UInt32) {
        guard keyBlobs != nil, !isFinalPhase else { return }
        let before = storeKeyBlob
        switch which % 3 {
        case 0: storeKeyBlob = .none
        case 1: storeKeyBlob = .foreign
        default: storeKeyBlob = .own
        }
        keyBlobChanges += 1
        record(peer, .fault, UInt64(which % 3)) { "the store's operator: key blob \(before) -> \(self.storeKeyBlob)" }
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
