import MemoCRDT

/// The most bytes the library reads of each of its files (FORMAT.md, "Local library", "Size
/// limits"). A file over its limit is refused with ``DiskError/tooLarge(file:sizeBytes:limitBytes:)``
/// from its size before it is read (and a file that grows past it while it is read is refused
/// after at most limit + 1 bytes), so a damaged or foreign file never makes an open allocate more
/// than this. Each limit is above the largest file MemoSync writes.
package enum LibraryFileLimits {
    /// `state` and `state.tmp`: one envelope, and the largest envelope a reader decodes is
    /// `Limits.encodedBytesMax` (2^30) of body and 12 bytes of header and checksum:
    /// 1,073,741,836 bytes. A larger state file could not be decoded anyway. (The largest library
    /// a user may have, 100,000 memos, has a state file of about 221 MB: FORMAT.md, "Size limit".)
    package static let stateBytesMax = Limits.encodedBytesMax + 12

    /// `journal-<g>`: twice the state's limit, 2,147,483,672 bytes. A save compacts instead of
    /// appending when the journal would outgrow the state (and 1 MiB), so a journal is at most
    /// as large as its state.
    package static let journalBytesMax = 2 * stateBytesMax

    /// `seal`: 64 KiB. A seal is an id, three numbers and three file identities, under 100 bytes.
    package static let sealBytesMax = 1 << 16

    /// `encryption` and `encryption.tmp`: 1 MiB. It holds a store key name and a key blob, whose
    /// keyring has at most 255 data keys of 32 bytes with their ids: about 10 KiB at most.
    package static let encryptionBytesMax = 1 << 20

    /// The limit of the library file `name` (any other name: the state's).
    package static func limitBytes(ofFile name: String) -> Int {
        switch name {
        case LibrarySeal.fileName: sealBytesMax
        case LibraryEncryption.fileName, LibraryEncryption.temporaryFileName: encryptionBytesMax
        case LibraryHistoryFile.fileName, LibraryHistoryFile.temporaryFileName: LibraryHistoryFile.bytesMax
        default: LibraryCore.journalGeneration(name) != nil ? journalBytesMax : stateBytesMax
        }
    }
}
