import Dispatch
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
// is checked on another thread while the calling thread decodes it, the texts left unchecked
// by the decoder (`UncheckedTexts`) and found by the checking thread on its own
// (`Notebook.textRanges(ofState:frame:)`).
//
// Nothing is accepted that a decoding on one thread would refuse, and every refusal is the
// same: the checksums are compared first, as before; the decoded notebook is taken only when
// the checking thread found exactly the texts the decoder listed, all valid. Any other outcome
// (a text that is not UTF-8, a memo section the checking thread could not read, a decoding
// that stopped early) decodes again on the calling thread, checking each text as it goes, and
// that throws what it throws. Only a damaged file pays for two decodings.
//
// The two run as the two iterations of a `concurrentPerform`, in which the calling thread
// takes part: the open may run on one of the few cooperative threads, and waiting there for
// work queued elsewhere (or for a thread that could not be started) could wait for good.

extension LibraryCore {
    /// The smallest state file checked beside its decoding (handing work to another thread
    /// costs microseconds; a 1 MiB file's checks take about a millisecond).
    static let openChecksBesideBytesMin = 1 << 20

    /// What the checking thread found: the checksums of the file and of the notebook state in
    /// it, and the memos' texts (nil: the memo section did not read) and whether all are UTF-8.
    struct OpenCheckResults: Sendable {
        var fileChecksum: UInt32
        var notebookChecksum: UInt32
        var textRanges: [Range<Int>]?
        var textsAreValid: Bool
    }

    /// Runs `decode` on the calling thread and `check` beside it, on another thread when
    /// Dispatch has one free, and gives both results. `concurrentPerform` runs two iterations
    /// and the calling thread takes part in them: the first iteration the calling thread runs
    /// decodes (so the decoded notebook is allocated where it will be used), and the other,
    /// on whichever thread runs it, checks. With no other thread free the calling thread runs
    /// both, one after the other, so nothing ever waits for a thread that cannot come. (Should
    /// two other threads take both iterations first, one of them decodes: the same result.)
    static func decodingWithChecksBeside<Decoded>(
        _ decode: () -> Decoded, check: @Sendable () -> OpenCheckResults
    ) -> (decoded: Decoded, found: OpenCheckResults) {
        // Run by one thread, once (the claims below), after which this function returns:
        // nothing else touches what it captures meanwhile.
        nonisolated(unsafe) let decode = decode
        let caller = pthread_self()
        let claims = Mutex((decode: false, check: false))
        nonisolated(unsafe) var decoded: Decoded?
        nonisolated(unsafe) var found: OpenCheckResults?
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let onCaller = pthread_equal(pthread_self(), caller) != 0
            let decodes = claims.withLock { claims -> Bool in
                if onCaller && !claims.decode {
                    claims.decode = true
                    return true
                }
                if !claims.check {
                    claims.check = true
                    return false
                }
                claims.decode = true
                return true
            }
            if decodes { decoded = decode() } else { found = check() }
        }
        return (decoded!, found!)
    }

    /// The checks themselves, on any thread: the checksums (``stateChecksums(_:file:notebook:)``),
    /// then the texts.
    static func openChecks(_ bytes: [UInt8], file: BlobEnvelope.Frame, notebook: BlobEnvelope.Frame) -> OpenCheckResults {
        let checksums = stateChecksums(bytes, file: file, notebook: notebook)
        let ranges = Notebook.textRanges(ofState: bytes, frame: notebook)
        let valid = ranges.map { Notebook.areValidUTF8(bytes, at: $0) } ?? false
        return OpenCheckResults(
            fileChecksum: checksums.file, notebookChecksum: checksums.notebook, textRanges: ranges, textsAreValid: valid)
    }

    /// The CRC-32C of a state file (its envelope `file`) and of the notebook state in it (its
    /// envelope `notebook`), in one pass over the bytes: the file's is combined from the
    /// pieces around the notebook state's (``CRC32C/combine(_:_:secondLength:)``).
    static func stateChecksums(_ bytes: [UInt8], file: BlobEnvelope.Frame, notebook: BlobEnvelope.Frame) -> (file: UInt32, notebook: UInt32) {
        let whole = file.checksummed
        let inner = notebook.checksummed
        let before = CRC32C.checksum(bytes, whole.lowerBound..<inner.lowerBound)
        let innerChecksum = CRC32C.checksum(bytes, inner)
        let after = CRC32C.checksum(bytes, inner.upperBound..<whole.upperBound)
        let fileChecksum = CRC32C.combine(
            CRC32C.combine(before, innerChecksum, secondLength: inner.count), after, secondLength: whole.upperBound - inner.upperBound)
        return (fileChecksum, innerChecksum)
    }
}
