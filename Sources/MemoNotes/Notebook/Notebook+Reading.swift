import MemoCRDT
// Reading a notebook: single memos, the list and the trash, search, cursors, sharing.

extension Notebook {
    /// Newest `modifiedAt` first, ties by id.
    static func listOrder(_ lhs: MemoSummary, _ rhs: MemoSummary) -> Bool {
        lhs.modifiedAt != rhs.modifiedAt ? lhs.modifiedAt > rhs.modifiedAt : lhs.id < rhs.id
    }

    /// The memo with `id`, active or in the trash; nil when there is none or it was purged.
    public func memo(_ id: MemoID) -> Memo? {
        // The record is read in place (not copied out of the table).
        guard let index = memos.index(of: id), memos[at: index].status != .purged else { return nil }
        return Memo(
            id: id, text: memos[at: index].text.string, createdAt: memos[at: index].createdAt,
            modifiedAt: memos[at: index].modifiedAt, status: memos[at: index].status)
    }

    /// The UTF-8 of the memo's text as the notebook holds it, and its status; nil for a memo
    /// purged or never heard of. For a caller that compares texts byte by byte (the simulator's
    /// model, after every change): no `String` is made.
    package func textUTF8(of id: MemoID) -> (utf8: ArraySlice<UInt8>, status: MemoStatus)? {
        guard let index = memos.index(of: id), memos[at: index].status != .purged else { return nil }
        return (memos[at: index].text.utf8, memos[at: index].status)
    }

    /// The memo's status, or nil when the notebook has never heard of it.
    public func status(of id: MemoID) -> MemoStatus? { memos.contains(id) ? memos[existing: id].status : nil }

    /// The active memos, newest `modifiedAt` first, ties broken by id.
    ///
    /// - Complexity: O(m log m) for m memos.
    public func list() -> [MemoSummary] {
        summaries(status: .active)
    }

    /// The memos in the trash, newest `modifiedAt` first, ties broken by id.
    public func trash() -> [MemoSummary] {
        summaries(status: .trashed)
    }

    /// Summaries of the memos with `status` (and matching `query`, if given), in list order.
    /// Scans the list keys, reads records in place (no copies), sorts small keys, then builds the
    /// summaries.
    func summaries(status: MemoStatus, matching query: SearchQuery? = nil) -> [MemoSummary] {
        let records = memos.records
        // The memos with the status, from the list keys (not the records: see `MemoTable`).
        var candidates: [(modifiedAt: UInt64, index: Int)] = []
        candidates.reserveCapacity(records.count)
        memos.forEachListKey { index, key in
            if key.status == status { candidates.append((key.modifiedAt, index)) }
        }
        var keys: [(modifiedAt: UInt64, index: Int)] = []
        // Search keys not current in their records come from the shared cache, else are folded
        // now and stored there for the next search (a decoded notebook folds each text once, on
        // its first search, not when it is opened). One pass: memos with a key are matched now;
        // the others are folded after it, all at once (on every core when there are many: the
        // first search after opening folds every text), then matched. The order of `keys` does
        // not matter: they are sorted below. The cache's snapshot ends with the pass, before the
        // new keys are stored: alive, it would make storing even one key copy the whole cache.
        var toFold: [Int] = []
        if let query {
            keys.reserveCapacity(candidates.count)
            let cached = searchKeyCache.snapshot()
            for candidate in candidates {
                let index = candidate.index
                // Keys are checked by the text's stamp, in the record, never by its version
                // (each version its own allocation, far apart: reading 100,000 of them was half
                // of a search whose keys were all folded).
                let stamp = records[index].textStamp
                let key: SearchKey
                if records[index].searchKeyStamp == stamp {
                    key = records[index].searchKey
                } else if index < cached.count, let entry = cached[index], entry.textStamp == stamp, entry.id == records[index].id {
                    key = entry.key
                } else {
                    toFold.append(index)
                    continue
                }
                if query.matches(defaultKey: key.bytes, text: { records[index].text.string }) { keys.append(candidate) }
            }
        } else {
            keys = candidates
        }
        var folded: [(index: Int, entry: SearchKeyCache.Entry)] = []
        if let query, !toFold.isEmpty {
            folded.reserveCapacity(toFold.count)
            for (index, key) in zip(toFold, Self.foldedSearchKeys(of: records, at: toFold)) {
                folded.append((index, SearchKeyCache.Entry(id: records[index].id, textStamp: records[index].textStamp, key: key)))
                if query.matches(defaultKey: key.bytes, text: { records[index].text.string }) {
                    keys.append((memos.listKeys[index].modifiedAt, index))
                }
            }
        }
        searchKeyCache.store(folded)
        keys.sort { $0.modifiedAt != $1.modifiedAt ? $0.modifiedAt > $1.modifiedAt : records[$0.index].id < records[$1.index].id }
        return keys.map { records[$0.index].summary }
    }

    /// Folds the search keys a search would fold now (the texts of memos not searched since they
    /// were decoded or changed) into the cache this notebook shares with its copies, so that the
    /// first search after opening a library answers as fast as later ones. Changes nothing a
    /// reader sees; safe to call on a copy from a background thread while the app goes on with
    /// the original (an app calls it once after opening; `memo serve` does).
    ///
    /// - Complexity: O(b) for b bytes of those texts.
    public func prepareSearch() {
        let records = memos.records
        let cached = searchKeyCache.snapshot()
        let toFold = records.indices.filter { records[$0].status != .purged && !Self.hasSearchKey(records, at: $0, cached: cached) }
        let keys = Self.foldedSearchKeys(of: records, at: toFold)
        searchKeyCache.store(zip(toFold, keys).map { index, key in
            (index, SearchKeyCache.Entry(id: records[index].id, textStamp: records[index].textStamp, key: key))
        })
    }

    /// Whether the record at `index` has a current search key: its own, or one in `cached`
    /// (the shared cache's entries by record position). Reads the record in place.
    private static func hasSearchKey(_ records: MemoTable.Records, at index: Int, cached: [SearchKeyCache.Entry?]) -> Bool {
        if records[index].hasCurrentSearchKey { return true }
        guard index < cached.count, let entry = cached[index] else { return false }
        return entry.textStamp == records[index].textStamp && entry.id == records[index].id
    }

    /// The first `count` active memos of ``list()``, without sorting the whole list: the same
    /// summaries as `list().prefix(count)`, in the same order.
    ///
    /// - Complexity: O(m log k) comparisons for m memos and k = `count` (plus at most O(m k)
    ///   moves of small keys), and k summaries built.
    public func list(first count: Int) -> [MemoSummary] {
        guard count > 0 else { return [] }
        let records = memos.records
        // The newest `count` so far, in list order (newest first, ties by id).
        var top: [(modifiedAt: UInt64, index: Int)] = []
        // (At most every memo: a caller may pass `.max` for "all"; `count + 1` trapped then.)
        top.reserveCapacity(min(count, memos.count) + 1)
        func precedes(_ lhs: (modifiedAt: UInt64, index: Int), _ rhs: (modifiedAt: UInt64, index: Int)) -> Bool {
            lhs.modifiedAt != rhs.modifiedAt ? lhs.modifiedAt > rhs.modifiedAt : records[lhs.index].id < records[rhs.index].id
        }
        // The list keys, not the records, are scanned (see `MemoTable`).
        memos.forEachListKey { index, listKey in
            guard listKey.status == .active else { return }
            let key = (modifiedAt: listKey.modifiedAt, index: index)
            if top.count == count, !precedes(key, top[count - 1]) { return }
            // The first position whose key the new one precedes.
            var low = 0
            var high = top.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(key, top[middle]) { high = middle } else { low = middle + 1 }
            }
            top.insert(key, at: low)
            if top.count > count { top.removeLast() }
        }
        return top.map { records[$0.index].summary }
    }

    /// How many notebook operations of `replica` this notebook holds: its entry in ``version``,
    /// without building the version.
    ///
    /// - Complexity: O(1).
    public func operationCount(of replica: ReplicaID) -> UInt32 { logs[replica]?.operationCount ?? 0 }

    /// Every memo id the notebook knows, purged ones included, in id order.
    public var memoIDs: [MemoID] { memos.ids.sorted() }

    /// The number of active memos.
    public var activeMemoCount: Int {
        var count = 0
        memos.forEachListKey { _, key in count += key.status == .active ? 1 : 0 }
        return count
    }

    /// The active memos whose title or body contains `query`, ignoring case (full case folding:
    /// "straße" finds "STRASSE"), diacritics, width ("ＡＢＣ" finds "abc", "ｶﾞ" finds "ガ"),
    /// Unicode normalization form ("cafe" finds "Café"; Hangul typed as separate jamo finds
    /// precomposed syllables) and, unless `options` says otherwise, hiragana versus katakana
    /// ("カタカナ" finds "かたかな"): the rules of ``SearchFolding``. Newest first. Reflects every
    /// change so far: a memo created a moment ago is found, a trashed one is not. An empty query
    /// finds nothing. ``SearchQuery/matchRanges(in:)`` gives the matches' ranges in a memo's text.
    ///
    /// - Parameters:
    ///   - query: The text to look for.
    ///   - options: What else to fold (by default, everything: kana too).
    /// - Complexity: O(b) for b bytes of folded text across active memos (kana kept distinct:
    ///   plus the text of the memos that match with kana folded, folded again).
    public func search(_ query: String, options: SearchOptions = SearchOptions()) -> [MemoSummary] {
        let compiled = SearchQuery(query, options: options)
        if compiled.isEmpty { return [] }
        return summaries(status: .active, matching: compiled)
    }

    /// Caches the search keys, titles and previews of memos edited since the last call, so
    /// searches stop folding their text and lists stop taking the beginning of it each time (edits
    /// leave both stale rather than paying for them on every keystroke). A front end calls it
    /// when idle; searching and listing are exact either way.
    ///
    /// - Complexity: O(b) for b bytes of text in the memos edited since.
    public mutating func refreshSearchKeys() {
        let cached = searchKeyCache.snapshot()
        // The records needing work found by reading them in place (a record read through the
        // table is a copy: three of them per memo for 100,000 memos at every idle call).
        var stale: [Int] = []
        memos.forEachRecord(in: 0..<memos.count) { index, record in
            if record.pointee.searchKeyStamp != record.pointee.textStamp || record.pointee.derivedTextIsStale { stale.append(index) }
        }
        for index in stale {
            let stamp = memos[at: index].textStamp
            if memos[at: index].searchKeyStamp != stamp {
                if index < cached.count, let entry = cached[index], entry.textStamp == stamp, entry.id == memos[at: index].id {
                    memos[at: index].searchKey = entry.key
                    memos[at: index].searchKeyStamp = stamp
                } else {
                    memos[at: index].refreshSearchKey()
                }
            }
            if memos[at: index].derivedTextIsStale { memos[at: index].refreshDerivedText() }
        }
    }

    // MARK: Cursors

    /// A stable caret position in the memo at UTF-16 offset `offsetUTF16` (see ``TextAnchor``).
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/text(_:_:)``.
    public func anchor(in id: MemoID, atUTF16 offsetUTF16: Int) throws(NotebookError) -> TextAnchor {
        guard let index = memos.index(of: id), memos[at: index].status != .purged else { throw .memoNotFound(id) }
        let text = try readableText(of: memos[at: index])
        do throws(TextError) {
            return try text.anchor(atUTF16: offsetUTF16)
        } catch {
            throw .text(id, error)
        }
    }

    /// Where `anchor`'s caret is now in the memo, as a UTF-16 offset.
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/text(_:_:)``.
    public func utf16Offset(of anchor: TextAnchor, in id: MemoID) throws(NotebookError) -> Int {
        guard let index = memos.index(of: id), memos[at: index].status != .purged else { throw .memoNotFound(id) }
        let text = try readableText(of: memos[at: index])
        do throws(TextError) {
            return try text.utf16Offset(of: anchor)
        } catch {
            throw .text(id, error)
        }
    }

    /// Decodes the memo's stored operations now (loading decodes them only on first need), so
    /// that cursors and edits on it are O(log n) from the start.
    ///
    /// - Throws: ``NotebookError/memoNotFound(_:)``, ``NotebookError/corruptMemo(_:_:)``.
    public mutating func prepareForEditing(_ id: MemoID) throws(NotebookError) {
        _ = try materializedText(of: id)
    }

    // MARK: Sharing

    /// Every active memo as plain text for sharing or export: its title (``MemoText/title(of:)``)
    /// and its text, oldest first (by creation, then id, so an export names them stably). A front
    /// end turns titles into file names (the `memo` command's `ExportNaming`).
    public func exportTexts() -> [(title: String, text: String)] {
        let active = memos.records.filter { $0.status == .active }
            .sorted { $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : $0.id < $1.id }
        return active.map { (MemoText.title(of: String(decoding: $0.textPrefix, as: UTF8.self)), MemoText.plainText(of: $0.text.string)) }
    }
}
