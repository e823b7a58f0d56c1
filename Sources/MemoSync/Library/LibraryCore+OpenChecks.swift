import Foundation
import MemoCRDT
import MemoNotes
import Synchronization

// Checks beside the decoding
// ==========================
//
// Opening a library reads its state file and decodes the notebook in it to a listable state.
// Two parts of that are pure checks of the bytes, needing nothing the decoding finds: the
// file's and the notebook state's CRC-32C checksums (over every byte), and the check that each
// memo's text is UTF-8 (over every text). At 10,000 memos of about 2 KB they were a third of
// an open (11 and 14 ms of 71; BENCHMARKS.md, "Checks beside the decoding"). So a large state
// is checked on a thread of its own while the calling thread decodes it, the texts left
// unchecked by the decoder (`UncheckedTexts`) and found by the checking thread on its own
// (`Notebook.textRanges(ofState:frame:)`).
//
// Nothing is accepted that a decoding on one thread would refuse, and every refusal is the
// same: the checksums are compared first, as before; the decoded notebook is taken only when
// the checking thread found exactly the texts the decoder listed, all valid. Any other outcome
// (a text that is not UTF-8, a memo section the checking thread could not read, a decoding
// that stopped early) decodes again on the calling thread, checking each text as it goes, and
// that throws what it throws. Only a damaged file pays for two decodings.
//
// The checking thread is a thread of its own (`Thread`), not a Dispatch or Swift concurrency
// worker: the open may run on one of the few cooperative threads, and waiting there for work
// queued to the same pool could wait for good.

extension LibraryCore {
    /// The smallest state file checked beside its decoding (a thread costs tens of
    /// microseconds; a 1 MiB file's checks take about a millisecond).
    static let openChecksBesideBytesMin = 1 << 20

    /// What the checking thread found: the checksums of the file and of the notebook state in
    /// it, and the memos' texts (nil: the memo section did not read) and whether all are UTF-8.
    struct OpenCheckResults: Sendable {
        var fileChecksum: UInt32
        var notebookChecksum: UInt32
        var textRanges: [Range<Int>]?
        var textsAreValid: Bool
    }

    /// Checks `bytes` (a state file whose envelope is `file`, holding the notebook state framed
    /// by `notebook`) on a thread of its own; `wait()` gives what it found.
    final class OpenChecks: Sendable {
        private let results = Mutex<OpenCheckResults?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(bytes: [UInt8], file: BlobEnvelope.Frame, notebook: BlobEnvelope.Frame) {
            let thread = Thread { [self] in
                let found = Self.check(bytes, file: file, notebook: notebook)
                results.withLock { $0 = found }
                done.signal()
            }
            thread.name = "memosync.open-checks"
            thread.start()
        }

        /// What the thread found, once it is done.
        func wait() -> OpenCheckResults {
            done.wait()
            return results.withLock { $0! }
        }

        /// The checks themselves, on any thread: the file's CRC combined from the pieces
        /// around the notebook state's (one pass over the bytes), then the texts.
        static func check(_ bytes: [UInt8], file: BlobEnvelope.Frame, notebook: BlobEnvelope.Frame) -> OpenCheckResults {
            let whole = file.checksummed
            let inner = notebook.checksummed
            let before = CRC32C.checksum(bytes, whole.lowerBound..<inner.lowerBound)
            let innerChecksum = CRC32C.checksum(bytes, inner)
            let after = CRC32C.checksum(bytes, inner.upperBound..<whole.upperBound)
            let fileChecksum = CRC32C.combine(
                CRC32C.combine(before, innerChecksum, secondLength: inner.count), after, secondLength: whole.upperBound - inner.upperBound)
            let ranges = Notebook.textRanges(ofState: bytes, frame: notebook)
            let valid = ranges.map { Notebook.areValidUTF8(bytes, at: $0) } ?? false
            return OpenCheckResults(fileChecksum: fileChecksum, notebookChecksum: innerChecksum, textRanges: ranges, textsAreValid: valid)
        }
    }
}
