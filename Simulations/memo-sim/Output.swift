#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Writes `line` and a newline to standard output at once (unbuffered, so a long swarm shows
/// each run as it ends), through `write(2)`: C's `stdout` is shared mutable state in Swift 6.
func out(_ line: String) {
    writeAll(1, line + "\n")
}

/// Writes `memo-sim: message` to standard error.
func err(_ message: String) {
    writeAll(2, "memo-sim: \(message)\n")
}

private func writeAll(_ descriptor: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count) }
        if written <= 0 {
            if written < 0 && errno == EINTR { continue }
            return
        }
        offset += written
    }
}
