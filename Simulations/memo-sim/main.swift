#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

exit(MemoSimCommand.main(Array(CommandLine.arguments.dropFirst())))
