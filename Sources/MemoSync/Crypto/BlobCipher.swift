import MemoCRDT

/// The encryption of single blobs and of their names, with no I/O (FORMAT.md, "Encrypted blob,
/// version 1 (kind 7)" and "Encrypted store layout"). ``EncryptedBlobStore`` uses it around any
/// store; the simulator uses it around its simulated one.
package struct BlobCipher: Sendable {
    /// Where encrypted blobs live: `memosync/e1/` plus the rest of the plain key, with the content
    /// hash in the file name masked.
    package static let encryptedRoot = "memosync/e1/"
    /// Bytes every encrypted blob adds before padding: envelope (magic, kind and version, a body
    /// length of up to 5 bytes, checksum), key id, nonce and tag.
    package static let fixedOverheadBytes = 2 + 1 + 5 + 4 + 8 + PlatformCrypto.nonceBytes + PlatformCrypto.tagBytes

    package let keyring: StoreKeyring
    package let random: any EncryptionRandomSource

    package init(keyring: StoreKeyring, random: any EncryptionRandomSource) {
        self.keyring = keyring
        self.random = random
    }

    // MARK: Blobs

    /// The encrypted blob for the plain blob `plain` stored under the plain key `key`.
    package func seal(key: String, plain: [UInt8]) throws(EncryptionError) -> [UInt8] {
        let dataKey = keyring.current
        let nonce = try random.bytes(PlatformCrypto.nonceBytes)
        var padded = ByteWriter(capacity: Self.paddedLength(plain.count + 5))
        padded.varint(plain.count)
        padded.append(contentsOf: plain)
        let target = Self.paddedLength(padded.count)
        padded.zeros(count: target - padded.count)
        let sealed = try PlatformCrypto.seal(
            key: dataKey.key, nonce: nonce, plaintext: padded.bytes, associatedData: Self.associatedData(key: key, keyID: dataKey.id))
        return BlobEnvelope.seal(kind: .encryptedBlob, version: 1, body: dataKey.id + nonce + sealed)
    }

    /// The plain blob inside `bytes`, read from the plain key `key`; throws why it is refused.
    package func open(key: String, bytes: [UInt8]) throws(BlobRefusal) -> [UInt8] {
        let body: Range<Int>
        do throws(DecodingError) {
            body = try BlobEnvelope.open(bytes, kind: .encryptedBlob, versions: 1...1).body
        } catch {
            switch error {
            case .notMemoSync, .wrongKind: throw .notEncrypted
            case let .unsupportedVersion(_, version): throw .unknownVersion(version)
            default: throw .damaged(error.description)
            }
        }
        let overhead = 8 + PlatformCrypto.nonceBytes + PlatformCrypto.tagBytes
        guard body.count >= overhead else { throw .malformed("shorter than its key id, nonce and tag") }
        let id = bytes[body.lowerBound..<(body.lowerBound + 8)]
        guard let dataKey = keyring.dataKey(id: id) else { throw .unknownDataKey(keyID: Self.hex(id)) }
        let nonce = Array(bytes[(body.lowerBound + 8)..<(body.lowerBound + 8 + PlatformCrypto.nonceBytes)])
        let sealed = Array(bytes[(body.lowerBound + 8 + PlatformCrypto.nonceBytes)..<body.upperBound])
        let opened: [UInt8]?
        do throws(EncryptionError) {
            opened = try PlatformCrypto.open(
                key: dataKey.key, nonce: nonce, sealed: sealed, associatedData: Self.associatedData(key: key, keyID: dataKey.id))
        } catch {
            throw .malformed(error.description)
        }
        guard let padded = opened else { throw .authenticationFailed }
        return try Self.unpad(padded)
    }

    /// The plain blob inside a padded plaintext: a varint length, the blob, zeros.
    static func unpad(_ padded: [UInt8]) throws(BlobRefusal) -> [UInt8] {
        do throws(DecodingError) {
            var reader = ByteReader(padded)
            let count = try reader.count(max: padded.count, "blob length")
            let blob = try reader.range(count: count)
            guard padded[blob.upperBound...].allSatisfy({ $0 == 0 }) else { throw .malformed("padding is not zeros") }
            guard paddedLength(blob.upperBound) == padded.count else { throw .malformed("padding is not the size bucket's") }
            return Array(padded[blob])
        } catch let .malformed(reason) {
            throw .malformed(reason)
        } catch {
            throw .malformed(error.description)
        }
    }

    /// The size bucket of a plaintext of `count` bytes: a power of two from 512 bytes to 16 KiB,
    /// then a multiple of 16 KiB (FORMAT.md, "Padding").
    package static func paddedLength(_ count: Int) -> Int {
        let step = 16 * 1024
        if count > step { return (count + step - 1) / step * step }
        var bucket = 512
        while bucket < count { bucket *= 2 }
        return bucket
    }

    /// What the tag also covers: a context string, the key id and the blob's canonical plain key
    /// (so a blob moved to another name fails, while a sync client's conflicted copy of it,
    /// which only adds to the file name, still opens).
    private static func associatedData(key: String, keyID: [UInt8]) -> [UInt8] {
        Array("memosync encrypted blob v1".utf8) + [0] + keyID + Array(canonicalKey(key).utf8)
    }

    // MARK: Names

    /// The store key under which the blob with plain key `key` is kept: `memosync/e1/…`, with the
    /// content hash in its name masked. Keys outside `memosync/v1/` are returned unchanged.
    package func storedKey(forPlainKey key: String) -> String {
        guard let path = droppingPrefix(StoreLayout.root, of: key) else { return key }
        return Self.encryptedRoot + masked(path)
    }

    /// The plain key of the blob stored under `storedKey`; nil for a key outside `memosync/e1/`.
    package func plainKey(forStoredKey storedKey: String) -> String? {
        guard let path = droppingPrefix(Self.encryptedRoot, of: storedKey) else { return nil }
        return StoreLayout.root + masked(path)
    }

    /// `path` (below the root) with the 16 hex digits of its content hash XORed with 8 bytes of
    /// HMAC-SHA256(name key, the path up to the hash): its own inverse. Paths of another shape
    /// are unchanged.
    private func masked(_ path: String) -> String {
        guard let field = Self.hashField(path) else { return path }
        let utf8 = Array(path.utf8)
        guard let mask = try? PlatformCrypto.hmacSHA256(key: keyring.nameKey, message: Array(utf8[..<field.lowerBound])) else {
            return path
        }
        var result = utf8
        for index in 0..<8 {
            let offset = field.lowerBound + 2 * index
            guard let byte = UInt8(String(decoding: utf8[offset..<(offset + 2)], as: UTF8.self), radix: 16) else { return path }
            let hex = Array(String(byte ^ mask[index], radix: 16).leftPadded(2).utf8)
            result[offset] = hex[0]
            result[offset + 1] = hex[1]
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Where the 16 hex digit content hash sits in `path` ("<replica>/<kind>/<name>"), by kind:
    /// after "<start>-<end>-" (segments), "<total>-" (snapshots), at the start (heads).
    private static func hashField(_ path: String) -> Range<Int>? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 16 else { return nil }
        let offset: Int
        switch parts[1] {
        case "segments": offset = 22
        case "snapshots": offset = 13
        case "heads": offset = 0
        default: return nil
        }
        let name = Array(parts[2].utf8)
        guard name.count >= offset + 16,
            name[offset..<(offset + 16)].allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        let start = parts[0].utf8.count + 1 + parts[1].utf8.count + 1 + offset
        return start..<(start + 16)
    }

    /// `key` cut after its content hash, with its kind's extension: what a sync client's
    /// conflicted copy ("… (conflicted copy).seg") has in common with the original.
    package static func canonicalKey(_ key: String) -> String {
        guard let path = droppingPrefix(StoreLayout.root, of: key) else { return key }
        guard let field = hashField(path) else { return key }
        let kind = path.split(separator: "/")[1]
        let ext = kind == "segments" ? ".seg" : kind == "snapshots" ? ".snap" : ".head"
        return StoreLayout.root + String(decoding: Array(path.utf8)[..<field.upperBound], as: UTF8.self) + ext
    }

    package static func hex<C: Collection<UInt8>>(_ bytes: C) -> String {
        bytes.map { String($0, radix: 16).leftPadded(2) }.joined()
    }
}
