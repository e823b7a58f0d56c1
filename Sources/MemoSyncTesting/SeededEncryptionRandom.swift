import MemoSync
import Synchronization

/// A deterministic random source for encryption in tests (SplitMix64 from a seed): the same
/// seed gives the same nonces and keys. Never for real data: its bytes are predictable.
public final class SeededEncryptionRandom: EncryptionRandomSource {
    private let state: Mutex<UInt64>

    /// A source starting from `seed`.
    public init(seed: UInt64) {
        state = Mutex(seed)
    }

    public func bytes(_ count: Int) throws(EncryptionError) -> [UInt8] {
        state.withLock { state in
            var result: [UInt8] = []
            result.reserveCapacity(count + 8)
            while result.count < count {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                for shift in stride(from: 0, to: 64, by: 8) { result.append(UInt8(truncatingIfNeeded: z >> UInt64(shift))) }
            }
            return Array(result.prefix(count))
        }
    }
}
