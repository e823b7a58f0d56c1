import MemoCRDT

// Decoded texts and their budget
// ==============================
//
// A memo's text lives in one of two forms (`MemoTextStorage`): encoded, the text state body as
// a notebook state holds it (what a decoded notebook starts with: its visible text, version and
// clock are read, its operations are not replayed), or materialized, a `TextCRDT` built by
// replaying that body on first edit, merge or read. A materialized text takes several times the
// memory of its body (a B-tree of spans, the operation logs, a cursor), so a long session that
// touches many memos (a sync that brings changes to thousands, a user scrolling through years of
// notes) would keep growing. `releaseDecodedTexts(keepingMostRecent:)` turns the texts used
// least recently back into bodies. The memory freed goes back to the allocator, which reuses it
// for the next texts decoded: growth stays bounded, though the process's resident size hardly
// drops at once (`memo-bench scale`, BENCHMARKS.md "Decoded texts given back"). A text given back
// unchanged refers again to the body it was decoded from (the loaded state's buffer, alive while
// any memo is still encoded in it) once a fresh encoding was found equal to it, instead of to a
// copy of its own, which grew the process by the whole state at each round of every text
// decoded and given back ("Texts given back into the bytes they came from").
//
// Turning a text back is what saving and reopening does, memo by memo: the body is the text's
// canonical encoding (the one a notebook state holds), its kept deleted content becomes the
// pending history section that decoding attaches again, and the text's replica and
// history-keeping flag come back from the notebook when it is decoded. Decoding such a body
// again checks every byte but does not rebuild the text a second time from its own history, as
// decoding bytes read from a file or a store does (issue 25's reachability check): the body is
// the canonical encoding of a text the engine built, never left memory, and builds with
// internal checks decode it back in full at each release and make the check anyway. So a notebook that drops
// a text behaves exactly as one that never did: the same texts, versions, encodings, deltas,
// histories and events (`NotebookRandomTests.releasingDecodedTextsChangesNothing` runs random
// collaborations both ways, `NotebookDecodedTextTests` undo and redo; the simulator runs with a
// budget of a few texts). Undo records and puts back maximal runs of characters, so what it
// does depends on the sequence only, not on how a text happens to be cut into spans. Nothing that is not part of the body is lost:
// a text holding operations back (never the case inside a notebook, which holds runs back
// itself) is kept decoded.
//
// Which texts stay: the ones decoded or changed last, by a counter the notebook ticks at each
// decode and each change (`MemoRecord.decodedUse`), never by wall time or hash order; ties
// (memos never used since they were created) go by memo table position.

extension Notebook {
    /// How many memos' texts are decoded (held as a text CRDT, not as their encoded body).
    ///
    /// - Complexity: O(m) for m memos.
    public var decodedTextCount: Int {
        var count = 0
        memos.forEachRecord(in: 0..<memos.count) { _, record in
            if case .materialized = record.pointee.text { count += 1 }
        }
        return count
    }

    /// Turns the decoded texts of all but the `count` memos used most recently back into their
    /// encoded bodies, as a freshly opened notebook holds them, to free their memory. What
    /// the notebook holds and does afterwards is the same: a text is decoded again when it is
    /// next edited, merged or read.
    ///
    /// For an app under memory pressure (`releaseDecodedTexts(keepingMostRecent: 0)`), or with a
    /// budget after each save (`Replica.decodedTextLimit`). With `count` 0, the few texts kept
    /// for reads of memos whose text was not decoded (a caret read, a past version shown: at
    /// most four, shared with the notebook's copies) go too.
    ///
    /// - Parameters:
    ///   - count: How many decoded texts to keep: those decoded or changed last.
    ///   - limit: The most texts to turn back in this call (the least recently used first): a
    ///     caller holding a lock others wait for releases a batch at a time.
    /// - Returns: How many texts were turned back.
    /// - Complexity: O(m log m) for m memos, plus the encoding of each text turned back.
    @discardableResult
    public mutating func releaseDecodedTexts(keepingMostRecent count: Int, atMost limit: Int = .max) -> Int {
        releaseDecodedTexts(keepingMostRecent: count, atMost: limit, keepingTextsDecodedForReading: count > 0)
    }

    /// ``releaseDecodedTexts(keepingMostRecent:atMost:)``, saying whether the texts kept for
    /// reads (``DecodedTextCache``) stay: a replica applying its budget after a save keeps them,
    /// an app told that memory is low does not.
    ///
    /// `copy`, when given, is a copy of this notebook that a save just encoded keeping its text
    /// bodies (``encodedKeepingTextBodies()``): a text still at the version of its body there is
    /// turned back into a copy of those bytes instead of being encoded again (a compaction
    /// followed by the budget's release encoded each such text twice).
    @discardableResult
    package mutating func releaseDecodedTexts(
        keepingMostRecent count: Int, atMost limit: Int, keepingTextsDecodedForReading keepsReads: Bool,
        bodiesEncodedIn copy: Notebook? = nil
    ) -> Int {
        guard let pass = beginReleasePass(keepingMostRecent: count, keepingTextsDecodedForReading: keepsReads) else { return 0 }
        let decoded = decodedTextUses(in: 0..<pass.memoCount)
        guard decoded.count > pass.keep else {
            finishReleasePass(pass, listed: decoded.count)
            return 0
        }
        let released = releaseDecodedTexts(Self.leastRecentlyUsed(decoded, beyond: pass.keep).prefix(max(0, limit)), bodiesEncodedIn: copy)
        if decoded.count - released <= pass.keep { releaseSettled = (decodedUseClock, memos.count, pass.keep) }
        return released
    }

    /// A pass listing the decoded texts a release may turn back, begun by
    /// ``beginReleasePass(keepingMostRecent:keepingTextsDecodedForReading:)``.
    package struct ReleasePass: Sendable {
        /// How many texts stay decoded.
        package var keep: Int
        /// The memos to list, positions `0..<memoCount` (``decodedTextUses(in:)``, in slices).
        package var memoCount: Int
        /// The use clock when the pass began: a pass that found no more than ``keep`` marks the
        /// notebook settled only if no text was decoded or used since.
        var useClock: UInt64
    }

    /// Begins a pass over the memos for a release keeping the `count` most recent, or nil when
    /// none is needed (no more memos than that, or nothing decoded or used and no memo added
    /// since a pass that found no more). Without `keepingTextsDecodedForReading`, the texts
    /// kept for reads go now.
    ///
    /// A release in steps, each a short hold of the caller's lock (`Replica`): begin; list the
    /// memos a slice at a time (``decodedTextUses(in:)``); order without the lock
    /// (``leastRecentlyUsed(_:beyond:)``), or finish (``finishReleasePass(_:listed:)``) when no
    /// more than `keep` were listed; turn back a few per hold
    /// (``releaseDecodedTexts(_:bodiesEncodedIn:)``).
    package mutating func beginReleasePass(keepingMostRecent count: Int, keepingTextsDecodedForReading keepsReads: Bool) -> ReleasePass? {
        if !keepsReads { decodedTextCache.removeAll() }
        let keep = max(0, count)
        // Nothing decoded and no memo added since a call that left at most `keep` decoded (a
        // replica calls this after every save): no pass over the memos.
        if memos.count <= keep { return nil }
        if let settled = releaseSettled, settled.useClock == decodedUseClock, settled.memoCount == memos.count,
            settled.keep <= keep
        {
            return nil
        }
        return ReleasePass(keep: keep, memoCount: memos.count, useClock: decodedUseClock)
    }

    /// Ends a pass that `listed` no more than its `keep` decoded texts: nothing is listed again
    /// until a text is decoded or used or a memo added (unless one was, during the pass).
    package mutating func finishReleasePass(_ pass: ReleasePass, listed: Int) {
        guard listed <= pass.keep, decodedUseClock == pass.useClock, memos.count == pass.memoCount else { return }
        releaseSettled = (decodedUseClock, memos.count, pass.keep)
    }

    /// A decoded text a release may turn back: its memo's table position and its last use.
    package struct DecodedTextUse: Sendable, Equatable {
        /// The memo's ``MemoRecord/decodedUse`` when it was listed.
        package var use: UInt64
        /// The memo's position in the table (positions never change: memos are not removed).
        package var index: Int
    }

    /// The decoded texts (each holding nothing back) of the memos at positions `range`, in
    /// table order: one slice of a release pass.
    ///
    /// - Complexity: O(r) for the r positions; no record is copied.
    package func decodedTextUses(in range: Range<Int>) -> [DecodedTextUse] {
        var decoded: [DecodedTextUse] = []
        // Room for every memo of the range at once: the caller holds a lock, and an array grown
        // step by step allocated a dozen times under it (an allocation can take milliseconds
        // when it follows a large free: glibc sorts the chunks freed before it serves one).
        let clamped = range.clamped(to: 0..<memos.count)
        decoded.reserveCapacity(min(clamped.count, 2_048))
        memos.forEachRecord(in: clamped) { index, record in
            guard case let .materialized(text) = record.pointee.text, text.pendingOperationCount == 0 else { return }
            decoded.append(DecodedTextUse(use: record.pointee.decodedUse, index: index))
        }
        return decoded
    }

    /// The texts of `decoded` to turn back so that `keep` stay: the least recently used first
    /// (equal ticks by table position, so the choice is deterministic). Pure.
    ///
    /// - Complexity: O(d log d) for d texts.
    package static func leastRecentlyUsed(_ decoded: [DecodedTextUse], beyond keep: Int) -> ArraySlice<DecodedTextUse> {
        guard decoded.count > keep else { return [] }
        let sorted = decoded.sorted { $0.use != $1.use ? $0.use < $1.use : $0.index < $1.index }
        return sorted.prefix(sorted.count - max(0, keep))
    }

    /// Turns back the texts of `texts` that are still decoded, hold nothing back, and were not
    /// used since they were listed (a text edited or read meanwhile is the most recent now, and
    /// stays); `copy` as in ``releaseDecodedTexts(keepingMostRecent:atMost:keepingTextsDecodedForReading:bodiesEncodedIn:)``.
    /// Returns how many were turned back.
    ///
    /// - Complexity: the encoding (or copy) of each text turned back.
    @discardableResult
    package mutating func releaseDecodedTexts(_ texts: some Collection<DecodedTextUse>, bodiesEncodedIn copy: Notebook?) -> Int {
        var released = 0
        for text in texts
        where text.index < memos.count && memos[at: text.index].decodedUse == text.use && memos[at: text.index].holdsDecodedTextHoldingNothingBack
            && releaseDecodedText(at: text.index, bodiesEncodedIn: copy)
        {
            released += 1
        }
        return released
    }

    /// Turns the decoded text of the memo at `index` back into its encoded body and pending
    /// history section; false (nothing changes) when it cannot be (its body does not read back,
    /// which would be a bug: builds with internal checks stop there).
    private mutating func releaseDecodedText(at index: Int, bodiesEncodedIn copy: Notebook?) -> Bool {
        guard case let .materialized(text) = memos[at: index].text else { return false }
        let version = text.version
        // The body the last save or snapshot kept for this version, else a fresh encoding.
        let bytes: [UInt8]
        let range: Range<Int>
        if let kept = memos[at: index].encodedTextBody, kept.version == version, memos[at: index].encodedTextBodyIsCanonical {
            bytes = kept.bytes
            range = kept.range
        } else if let copy, let position = copy.memos.index(of: memos[at: index].id),
            let encoded = copy.memos[at: position].encodedTextBody, encoded.version == version,
            copy.memos[at: position].encodedTextBodyIsCanonical
        {
            // The bytes alone: the copy's buffer (a whole state) is not kept alive by this memo.
            bytes = Array(encoded.bytes[encoded.range])
            range = bytes.indices
            #if MEMOSYNC_INTERNAL_CHECKS
            precondition(bytes == text.encodedBody(), "memo \(memos[at: index].id): the body a save encoded is not the text's encoding")
            decodedTextCache.debugBodiesCopiedOnRelease += 1
            #endif
        } else {
            let fresh = text.encodedBody()
            if let kept = memos[at: index].encodedTextBody, kept.version == version, ByteComparison.equal(fresh, kept.bytes[kept.range]) {
                // The body the text was decoded from (read from a file or a store), unchanged
                // since and now known canonical: the record goes on referring to the loaded
                // bytes and the fresh encoding is freed at once. Keeping a copy per memo grew
                // the process by the whole state at each round of every text decoded and given
                // back (BENCHMARKS.md, "Texts given back into the bytes they came from").
                bytes = kept.bytes
                range = kept.range
                memos[at: index].encodedTextBodyIsCanonical = true
                #if MEMOSYNC_INTERNAL_CHECKS
                decodedTextCache.debugLoadedBodiesKeptOnRelease += 1
                #endif
            } else {
                bytes = fresh
                range = bytes.indices
            }
        }
        let summary: (text: Range<Int>, version: VersionVector, insertionVersion: VersionVector, lamport: UInt64)
        do throws(DecodingError) {
            summary = try text.summary(ofOwnBody: bytes, range: range)
        } catch {
            assertionFailure("memo \(memos[at: index].id): its own body does not read back (\(error))")
            return false
        }
        let history = text.encodedHistorySection().map {
            PendingHistory(bytes: $0, sectionVersion: TextCRDT.stateFormatVersionWithHistory)
        }
        // Decoding these bytes again (this replica's next edit of the memo, or another replica
        // holding it at the same version) takes the text instead, while decodes are shared.
        SharedTextDecodes.current?.keepEncoding(of: text, bytes, range: range)
        #if MEMOSYNC_INTERNAL_CHECKS
        checkReleasedTextDecodesBack(text, bytes: bytes, body: range, history: history)
        #endif
        // The same text, turned back into a body: its stamp (and the keys folded from it) stay.
        memos[at: index].setTextForm(.encoded(
            bytes: bytes, body: range, text: summary.text, version: summary.version,
            insertionVersion: summary.insertionVersion, lamport: summary.lamport, bodyVersion: TextCRDT.stateFormatVersion))
        memos[at: index].pendingHistory = history
        memos[at: index].textIsOwnEncoding = true
        return true
    }

    #if MEMOSYNC_INTERNAL_CHECKS
    /// Self-check builds: the body and history a text is turned back into decode to the same
    /// text (items and their order, deletions, version, visible text, kept deleted content).
    private func checkReleasedTextDecodesBack(_ text: TextCRDT, bytes: [UInt8], body: Range<Int>, history: PendingHistory?) {
        #if MEMOSYNC_MUTANTS
        if EngineMutant.active != nil { return }  // as in a release build: the harness must find it
        #endif
        do throws(DecodingError) {
            var back = try TextCRDT(decodingBody: bytes, range: body, version: TextCRDT.stateFormatVersion, replica: replica)
            if let history { try back.attachHistory(history.bytes, range: history.bytes.indices, sectionVersion: history.sectionVersion) }
            precondition(back.version == text.version && back.string == text.string, "a released text reads back otherwise")
            precondition(TextCRDT.sameItemsInOrder(back, text), "a released text's items read back in another order")
            precondition(back.retainedDeletedScalars == text.retainedDeletedScalars, "a released text's history reads back otherwise")
            precondition(
                back.changes(since: VersionVector()).encodedBody() == text.changes(since: VersionVector()).encodedBody(),
                "a released text's operations read back otherwise")
        } catch {
            preconditionFailure("a released text does not decode back: \(error)")
        }
    }
    #endif
}
