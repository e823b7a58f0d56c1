// PLATFORM FILE: `lstat` for file identities (device, inode, size, change time). Glibc and Musl
// name the change time `st_ctim`, Darwin `st_ctimespec`.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum POSIXIdentity {
    /// The identity of `path` (not following a final symbolic link), or nil when it cannot be
    /// read (missing, or no permission).
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let change = info.st_ctimespec
        #else
        let change = info.st_ctim
        #endif
        return FileIdentity(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino),
            sizeBytes: UInt64(truncatingIfNeeded: info.st_size), changeSeconds: Int64(change.tv_sec),
            changeNanoseconds: UInt32(truncatingIfNeeded: change.tv_nsec))
    }
}
