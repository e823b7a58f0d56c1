import MemoCRDT
import MemoNotes

// Reading a journal: telling intact records, a record torn by a crash and damage apart
// (FORMAT.md, "Local library", "Journal records and their frames").
//
// Since library version 4 each record is framed:
//
//     magic "mj" (0x6D 0x6A) | length (u32le, of the envelope) | CRC-32C of the 6 bytes before (u32le)
//     | the record's envelope (kind 6: its own length and CRC-32C)
//
// The length is stated twice, each copy under its own checksum, so one flipped bit never hides
// where the next record starts: a flip in the frame header leaves the envelope behind it
// intact (the record is recovered), a flip in the envelope leaves the frame's length to step
// over it. Where both are gone (a bad sector), the reader looks for the next place where an
// intact frame holding an intact record of this generation starts. Journals of versions 1 to 3
// hold bare envelopes; they are read the same way (a journal may hold both: the bare ones first).
//
// A torn tail is only what follows the last intact record and holds no intact record: a frame
// whose intact header says it is longer than what is left, a bare envelope whose length says so,
// fewer bytes than a frame header, or zeros (a file system that grew the file before writing
// it). Anything else is damage: a record whose frame is intact and complete but whose envelope
// fails, a record that does not belong (another generation) or does not apply, bytes that are
// no record, followed by an intact one or not.

/// One part of a journal, in order.
package enum JournalPart: Equatable {
    /// An intact record of the journal's generation: where it is, and whether its frame header
    /// was damaged (the envelope behind it intact, so nothing was lost).
    case record(Range<Int>, body: Range<Int>, version: UInt8, damagedHeader: Bool)
    /// Bytes that are damage: no intact record of this generation.
    case damaged(Range<Int>)
    /// The end of the journal, torn by a crash during the last save.
    case torn(Range<Int>)
}

package enum LibraryJournal {
    /// The frame magic, "mj".
    package static let magic: (UInt8, UInt8) = (0x6D, 0x6A)
    /// Bytes of a frame header: magic, length, checksum.
    package static let headerBytes = 10

    /// `envelope` in a frame.
    package static func frame(_ envelope: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: envelope.count + headerBytes)
        writer.byte(magic.0)
        writer.byte(magic.1)
        writer.uint32LittleEndian(UInt32(envelope.count))
        writer.uint32LittleEndian(CRC32C.checksum(writer.bytes, 0..<6))
        writer.append(contentsOf: envelope)
        return writer.bytes
    }

    /// The envelope length an intact frame header at `offset` states, or nil.
    package static func frameLength(_ journal: [UInt8], at offset: Int) -> Int? {
        guard journal.count - offset >= headerBytes, journal[offset] == magic.0, journal[offset + 1] == magic.1 else { return nil }
        let length = littleEndian32(journal, at: offset + 2)
        guard littleEndian32(journal, at: offset + 6) == CRC32C.checksum(journal, offset..<offset + 6) else { return nil }
        return Int(length)
    }

    /// An intact kind 6 envelope starting at `offset` (complete, its checksum right), ending at
    /// `end` when given: its end, body and version (any version, 0 to 15).
    package static func envelope(_ journal: [UInt8], at offset: Int, end requiredEnd: Int? = nil) -> (end: Int, body: Range<Int>, version: UInt8)? {
        guard journal.count - offset >= 8, journal[offset] == 0x6D, journal[offset + 1] == 0x73,
            journal[offset + 2] >> 4 == BlobKind.localFile.rawValue
        else { return nil }
        var reader = ByteReader(journal, from: offset + 3)
        guard let length = try? reader.varint(), length <= UInt64(journal.count - reader.position) else { return nil }
        let bodyEnd = reader.position + Int(length)
        let end = bodyEnd + 4
        guard end <= journal.count, requiredEnd.map({ $0 == end }) ?? true else { return nil }
        guard littleEndian32(journal, at: bodyEnd) == CRC32C.checksum(journal, offset..<bodyEnd) else { return nil }
        return (end, reader.position..<bodyEnd, journal[offset + 2] & 0x0F)
    }

    /// Whether the bytes from `offset` on are a record torn by a crash (see the file's comment).
    package static func isTornTail(_ journal: [UInt8], from offset: Int) -> Bool {
        let left = journal.count - offset
        if left < headerBytes { return true }
        if journal[offset...].allSatisfy({ $0 == 0 }) { return true }
        if let length = frameLength(journal, at: offset) { return offset + headerBytes + length > journal.count }
        // A bare envelope (versions 1 to 3) whose length runs past the end.
        if journal[offset] == 0x6D, journal[offset + 1] == 0x73, journal[offset + 2] >> 4 == BlobKind.localFile.rawValue {
            var reader = ByteReader(journal, from: offset + 3)
            if let length = try? reader.varint() { return length > UInt64(journal.count - reader.position) }
        }
        return false
    }

    /// The parts of `journal`. `belongs` tells whether an intact envelope (body range, version)
    /// is a record of this journal (decodes, of its generation); when it does not, the record is
    /// damage. Resynchronizing after damage, a candidate must belong.
    package static func parts(_ journal: [UInt8], belongs: (Range<Int>, UInt8) -> Bool) -> [JournalPart] {
        var parts: [JournalPart] = []
        var offset = 0
        /// The intact record starting at `start`, if one does.
        func record(at start: Int) -> JournalPart? {
            if let length = frameLength(journal, at: start) {
                let end = start + headerBytes + length
                guard end <= journal.count, let found = envelope(journal, at: start + headerBytes, end: end),
                    belongs(found.body, found.version)
                else { return nil }
                return .record(start..<end, body: found.body, version: found.version, damagedHeader: false)
            }
            if let found = envelope(journal, at: start), found.version <= 3, belongs(found.body, found.version) {
                return .record(start..<found.end, body: found.body, version: found.version, damagedHeader: false)
            }
            return nil
        }
        /// The first offset after `start` (and before `limit`) where an intact record starts
        /// (each candidate begins with "m"), or nil.
        func nextRecord(after start: Int, before limit: Int? = nil) -> Int? {
            var candidate = start + 1
            while candidate < (limit ?? journal.count) {
                if journal[candidate] == 0x6D, record(at: candidate) != nil { return candidate }
                candidate += 1
            }
            return nil
        }
        while offset < journal.count {
            if let found = record(at: offset), case let .record(range, _, _, _) = found {
                parts.append(found)
                offset = range.upperBound
                continue
            }
            // A frame header hit by damage, the record's envelope behind it intact.
            if journal.count - offset > headerBytes, frameLength(journal, at: offset) == nil,
                let found = envelope(journal, at: offset + headerBytes), found.version > 3, belongs(found.body, found.version)
            {
                parts.append(.damaged(offset..<offset + headerBytes))
                parts.append(.record(offset + headerBytes..<found.end, body: found.body, version: found.version, damagedHeader: true))
                offset = found.end
                continue
            }
            // An intact, complete frame whose record is damaged or does not belong: its frame
            // says where the next record starts (unless an intact one starts inside it: a torn
            // record followed by others).
            if let length = frameLength(journal, at: offset), offset + headerBytes + length <= journal.count {
                let end = nextRecord(after: offset, before: offset + headerBytes + length) ?? offset + headerBytes + length
                parts.append(.damaged(offset..<end))
                offset = end
                continue
            }
            if let next = nextRecord(after: offset) {
                parts.append(.damaged(offset..<next))
                offset = next
                continue
            }
            parts.append(isTornTail(journal, from: offset) ? .torn(offset..<journal.count) : .damaged(offset..<journal.count))
            break
        }
        return parts
    }

    private static func littleEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
