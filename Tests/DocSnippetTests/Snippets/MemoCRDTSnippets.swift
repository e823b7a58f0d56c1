// Doc blocks: README.md ("Use it", the text CRDT on its own) and MemoCRDT.docc/MemoCRDT.md (the
// same block). Compiled as an app writes them (public API only); each ```swift block appears here
// verbatim (DocSnippetTests checks it), so a change to one goes in both places.
import MemoCRDT

func textCRDTOnItsOwn() throws {
    var alice = TextCRDT(replica: ReplicaID(0xA11CE))
    try alice.insert("Buy milk", atUTF16: 0)
    var bob = alice.fork(replica: ReplicaID(0xB0B))
    try alice.insert(" and eggs", atUTF16: 8)                 // both edit offline
    try bob.replace(utf16Range: 4..<8, with: "oat milk")
    try bob.apply(TextDelta(decoding: alice.changes(since: bob.version).encoded()))
    try alice.apply(TextDelta(decoding: bob.changes(since: alice.version).encoded()))
    assert(alice.string == "Buy oat milk and eggs" && alice.string == bob.string)
}
