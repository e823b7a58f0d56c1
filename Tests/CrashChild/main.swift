// A child process for the crash-safety test (Tests/MemoSyncTests/ProcessCrashTests.swift): it
// edits a library, saving after every edit, syncing and compacting now and then, until it is
// killed. It prints "opened" once the library is open, and after each save returns "saved N" (N:
// the number of the token just saved),
// so the parent knows which edits must survive the SIGKILL it sends at a random moment.
//
// usage: memo-crash-child LIBRARY STORE FIRST-TOKEN SEED

import Foundation
import MemoCRDT
import MemoSync

let arguments = CommandLine.arguments
guard arguments.count == 5, let firstToken = Int(arguments[3]), let seed = UInt64(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: memo-crash-child LIBRARY STORE FIRST-TOKEN SEED\n".utf8))
    exit(2)
}
/// xorshift64: the child's choices.
struct Choices {
    var state: UInt64
    mutating func callAsFunction(_ bound: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(bound))
    }
}
var random = Choices(state: seed | 1)
do {
    let replica = try Replica(libraryPath: arguments[1])
    let store = try DirectoryBlobStore(path: arguments[2])
    // The parent starts its kill timer here, so that kills land in saves, syncs and compactions
    // rather than in process start-up, however loaded the machine is.
    FileHandle.standardOutput.write(Data("opened\n".utf8))
    var token = firstToken
    while true {
        let memos = replica.notebook.list().map(\.id)
        if memos.isEmpty || random(20) == 0 {
            try replica.createMemo(text: "t\(token) ")
        } else {
            let memo = memos[random(memos.count)]
            let length = replica.notebook.memo(memo)!.text.utf16.count
            try replica.edit(memo, replacingUTF16: length..<length, with: "t\(token) ")
        }
        try await replica.save()
        // Unbuffered, so the parent sees it before any kill that follows.
        FileHandle.standardOutput.write(Data("saved \(token)\n".utf8))
        token += 1
        if random(7) == 0 { try await replica.sync(with: store) }
        if random(13) == 0 { try await replica.compact() }
    }
} catch {
    FileHandle.standardError.write(Data("memo-crash-child: \(error)\n".utf8))
    exit(1)
}
