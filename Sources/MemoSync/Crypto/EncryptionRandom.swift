/// Where encryption takes its random bytes (nonces, data keys, salts): injected, so that the
/// deterministic simulator can encrypt from its seed. Real use takes ``SystemEncryptionRandom``.
/// Never called inside the CRDT core: only encryption (``EncryptedBlobStore``, ``StoreEncryption``)
/// asks for bytes.
public protocol EncryptionRandomSource: Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) throws(EncryptionError) -> [UInt8]
}

/// The system's cryptographic random source (libcrypto's `RAND_bytes` on Linux, the system
/// generator on Apple platforms).
public struct SystemEncryptionRandom: EncryptionRandomSource {
    /// The system's random source.
    public init() {}

    public func bytes(_ count: Int) throws(EncryptionError) -> [UInt8] {
        try PlatformCrypto.randomBytes(count)
    }
}
