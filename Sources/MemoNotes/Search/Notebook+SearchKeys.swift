import Dispatch
import MemoCRDT

// Folding many search keys at once
// ================================
//
// The first search after a library opens folds the text of every memo (keys are folded when
// first searched, not when the library opens, and kept for the searches after). At 10,000 memos
// of about 2 KB that is 20 MB of text, most of the first search's time. Folding is a pure
// function of each text's bytes, so the memos are cut into chunks of about equal bytes and
// folded on every core, each chunk into one buffer of its own.
//
// The keys stay in those buffers: each memo's key is a part of its chunk's buffer, so a first
// search writes every key once and allocates 32 buffers, not one array per memo. Copying each key
// out into an array of its own (on the calling thread: keys allocated by the worker threads,
// which glibc gives arenas of their own, scattered the memory later searches scan and a warm
// search took twice as long; BENCHMARKS.md, "Lazy search keys and the first rows without a
// sort") was a third of the calling thread's time in a first search at 100,000 memos: 100,000
// allocations and 200 MB copied into fresh pages (BENCHMARKS.md, "The first search's keys left
// where they were folded"). A buffer of 8 MiB or more (a chunk at about 50,000 memos and up) is
// advised onto large pages (`LargePages`): writing the keys into fresh memory took a page fault
// per 4 KiB, a quarter of the folding. A buffer lives while any memo's key in it is kept (by the
// memo's record or the notebook's `SearchKeyCache`): a memo whose text changed gets a key of its
// own at its next search, and its old key's bytes are given back with the last of its chunk's
// keys. Below `parallelFoldBytesMin` bytes one thread folds; above, Dispatch runs the chunks on
// as many threads as there are processors (one, on a machine with one).

extension Notebook {
    /// The fewest bytes of text folded on more than one thread.
    static let parallelFoldBytesMin = 1 << 20

    /// How many chunks a parallel fold cuts its memos into.
    static let foldChunkCount = 32

    /// The search keys (default options) of the memos at `indices` of `records`, in that order:
    /// the same bytes as each storage's `foldedSearchKey`, folded on every core when there are
    /// many bytes, as parts of the buffers the folds wrote (see above).
    ///
    /// - Complexity: O(b) for b bytes of those texts, over the processors this process may use.
    /// `parallelFromBytes`: the fewest bytes folded on more than one thread (tests set it).
    static func foldedSearchKeys(
        of records: MemoTable.Records, at indices: [Int], parallelFromBytes: Int = parallelFoldBytesMin
    ) -> [SearchKey] {
        let estimates = indices.map { records[$0].text.foldBytesEstimate }
        let totalBytes = estimates.reduce(0, +)
        guard totalBytes >= parallelFromBytes, indices.count > 1 else {
            return indices.map { SearchKey(records[$0].text.foldedSearchKey) }
        }
        // Chunks of about equal bytes, several per processor of a small machine (texts differ
        // in length, and a thread that finishes early takes the next chunk); each with the
        // bytes it reads, so that its buffer is sized once.
        let chunkCount = min(indices.count, foldChunkCount)
        let bytesPerChunk = (totalBytes + chunkCount - 1) / chunkCount
        var chunkStarts = [0]
        var chunkBytes: [Int] = []
        var bytesInChunk = 0
        for position in indices.indices {
            bytesInChunk += estimates[position]
            if bytesInChunk >= bytesPerChunk, position + 1 < indices.count, chunkStarts.count < chunkCount {
                chunkStarts.append(position + 1)
                chunkBytes.append(bytesInChunk)
                bytesInChunk = 0
            }
        }
        chunkStarts.append(indices.count)
        chunkBytes.append(bytesInChunk)
        let starts = chunkStarts
        let sizes = chunkBytes
        let chunks = ChunkSlots<(buffer: [UInt8], ends: [Int])>(count: starts.count - 1)
        DispatchQueue.concurrentPerform(iterations: starts.count - 1) { chunk in
            var ends: [Int] = []
            ends.reserveCapacity(starts[chunk + 1] - starts[chunk])
            // Room for the keys without growing: most folds keep the length or shorten it, and
            // a Hangul syllable's key (4 or 6 bytes, `SearchFolding`) is at most twice its UTF-8.
            var buffer = LargePages.emptyBuffer(capacity: 2 * sizes[chunk] + 64)
            var position = starts[chunk]
            let end = starts[chunk + 1]
            while position < end {
                // Texts still in the state file, next to each other there (memos in id order
                // are in file order), read together: one read per megabyte, not one per memo.
                if case let .stored(first) = records[indices[position]].text {
                    var group = [first]
                    var next = position + 1
                    while next < end, case let .stored(stored) = records[indices[next]].text,
                        StoredTextBody.canReadWith(group, stored)
                    {
                        group.append(stored)
                        next += 1
                    }
                    for text in StoredTextBody.readTexts(group) {
                        SearchFolding.appendKey(forUTF8: text, to: &buffer)
                        ends.append(buffer.count)
                    }
                    position = next
                    continue
                }
                records[indices[position]].text.appendFoldedSearchKey(to: &buffer)
                ends.append(buffer.count)
                position += 1
            }
            chunks.store(chunk, (buffer, ends))
        }
        var keys: [SearchKey] = []
        keys.reserveCapacity(indices.count)
        for chunk in 0..<starts.count - 1 {
            let (buffer, ends) = chunks.take(chunk)
            var start = 0
            for end in ends {
                keys.append(SearchKey(buffer, start..<end))
                start = end
            }
        }
        return keys
    }
}

/// One result slot per chunk of work run with `concurrentPerform`, each written by the one
/// thread that runs the chunk (through a pointer: distinct slots, no shared array to mutate),
/// read after every thread is done (`concurrentPerform` returns only then). The parallel search
/// fold uses it, and so does a folder store's walk of a large folder (MemoSync).
package final class ChunkSlots<Slot>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Slot?>
    private let count: Int

    package init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Called once per chunk, from the thread running it.
    package func store(_ chunk: Int, _ slot: Slot) {
        precondition(chunk < count)
        slots[chunk] = slot
    }

    /// The chunk's result; once, after every chunk ran.
    package func take(_ chunk: Int) -> Slot {
        precondition(chunk < count)
        let taken = slots[chunk]!
        slots[chunk] = nil
        return taken
    }
}

/// A memo's search key: its bytes are `buffer[start..<end]`. Keys folded together share their
/// chunk's buffer (above), which lives while any of them is kept; a key folded alone has a
/// buffer of its own. Sixteen bytes, half an `ArraySlice`: every memo record holds one.
///
/// Offsets are 32 bits. A key whose range does not fit (one text may hold up to 4 GiB, and
/// folding can make it longer) is copied out into a buffer of its own, which `end` then names
/// whole (`wholeBuffer`), however long.
struct SearchKey: Sendable {
    private var buffer: [UInt8]
    private var start: UInt32
    private var end: UInt32

    /// An `end` meaning "to the end of `buffer`" (and `start` is 0).
    private static let wholeBuffer = UInt32.max

    /// The empty key.
    init() {
        buffer = []
        start = 0
        end = 0
    }

    /// A key that is all of `bytes`. `offsetLimit`: the first offset not stored as one (tests
    /// lower it to take the long path with short keys).
    init(_ bytes: [UInt8], offsetLimit: Int = Int(wholeBuffer)) {
        buffer = bytes
        start = 0
        end = bytes.count < offsetLimit ? UInt32(bytes.count) : Self.wholeBuffer
    }

    /// A key that is `range` of `buffer`.
    init(_ buffer: [UInt8], _ range: Range<Int>, offsetLimit: Int = Int(wholeBuffer)) {
        precondition(range.upperBound <= buffer.count && offsetLimit <= Int(Self.wholeBuffer))
        guard range.upperBound < offsetLimit else {
            self = SearchKey(Array(buffer[range]), offsetLimit: offsetLimit)
            return
        }
        self.buffer = buffer
        start = UInt32(range.lowerBound)
        end = UInt32(range.upperBound)
    }

    /// The key's bytes (no copy).
    var bytes: ArraySlice<UInt8> { end == Self.wholeBuffer ? buffer[...] : buffer[Int(start)..<Int(end)] }
}
