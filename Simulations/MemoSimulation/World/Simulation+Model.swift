import MemoCRDT
import MemoNotes
import MemoSync

// Keeping each replica's model in step with what arrives from others (through the events the
// replica reports), rebuilding it after a crash or a restore, and comparing it with the
// engine's texts.

extension Simulation {
    /// Applies the events of changes from others to `peer`'s shadows, then compares every memo
    /// they touched with the engine's text.
    func applyRemoteEvents(_ peer: Peer, _ events: [NotebookEvent]) {
        meter?.observe(peer: peer.index, version: peer.notebook.version, at: now)
        var touched: [Int] = []
        for event in events {
            guard case .remote = event.origin else { continue }
            let m = oracle.memoIndex(of: event.memo)
            if touched.last != m && !touched.contains(m) { touched.append(m) }
            switch event {
            case .added:
                if let existing = peer.shadow(m), existing.status != .purged {
                    return fail(.events, [peer.index], "memo \(m) reported added but the replica had it already")
                }
                peer.setShadow(m, MemoShadow(status: .active, scalars: peer.shadow(m)?.scalars ?? []))
            case let .changed(_, edits, _):
                if peer.shadow(m) == nil {
                    // A memo that arrived purged (in a snapshot) is not reported as added; an edit
                    // that brings it back then reports it changed (and restored).
                    engineNotes.insert("a memo that arrived purged is reported changed and restored, never added")
                    peer.setShadow(m, MemoShadow(status: .purged, scalars: []))
                }
                for edit in edits {
                    guard let range = scalarRange(ofUTF16: edit.rangeUTF16, in: peer.shadows[m]!.scalars) else {
                        let scalars = peer.shadows[m]!.scalars
                        return fail(.events, [peer.index], "memo \(m): an edit event's range \(edit.rangeUTF16) does not fit the text (\(utf16Count(scalars, 0..<scalars.count)) UTF-16 units)")
                    }
                    peer.shadows[m]!.scalars.replaceSubrange(range, with: edit.replacement.unicodeScalars.map(\.value))
                }
            case .trashed:
                peer.shadows[m]?.status = .trashed
            case .restored:
                peer.shadows[m]?.status = .active
            case .purged:
                peer.setShadow(m, MemoShadow(status: .purged, scalars: []))
            }
        }
        for m in touched where violation == nil { verifyMemo(peer, m, as: .events) }
    }

    /// Compares the engine's memo `m` on `peer` with the model: status and every scalar.
    func verifyMemo(_ peer: Peer, _ m: Int, as invariant: Invariant) {
        statistics.checks += 1
        let id = oracle.memos[m].id
        let memo = peer.notebook.textUTF8(of: id)
        guard let shadow = peer.shadow(m), shadow.status != .purged else {
            if let memo {
                fail(invariant, [peer.index], "memo \(m) is \(memo.status) on the replica but purged or unknown in the model")
            }
            return
        }
        guard let memo else {
            return fail(invariant, [peer.index], "memo \(m) is \(shadow.status) in the model but gone from the replica")
        }
        guard memo.status == shadow.status else {
            return fail(invariant, [peer.index], "memo \(m) is \(memo.status) on the replica, \(shadow.status) in the model")
        }
        // The text's bytes against the model's scalars in UTF-8 (no String made): equal bytes
        // are equal scalars, and bytes that are not UTF-8 never equal the model's. On a
        // difference, the scalars are compared to say where.
        let expected = shadow.scalars
        if Self.utf8(memo.utf8, encodes: expected) { return }
        var index = 0
        for scalar in String(decoding: memo.utf8, as: UTF8.self).unicodeScalars {
            guard index < expected.count, expected[index] == scalar.value else {
                return fail(invariant, [peer.index], "memo \(m) differs from the model at scalar \(index) of \(expected.count): replica \(describe(scalar.value)), model \(index < expected.count ? describe(expected[index]) : "end")")
            }
            index += 1
        }
        if index != expected.count {
            fail(invariant, [peer.index], "memo \(m) on the replica has \(index) scalars, the model \(expected.count)")
        } else {
            fail(invariant, [peer.index], "memo \(m) on the replica is not UTF-8")
        }
    }

    /// Whether `bytes` are exactly the UTF-8 encoding of `scalars`.
    static func utf8(_ bytes: ArraySlice<UInt8>, encodes scalars: [UInt32]) -> Bool {
        bytes.withUnsafeBufferPointer { bytes in scalars.withUnsafeBufferPointer { scalars in utf8(bytes, encodes: scalars) } }
    }

    /// ``utf8(_:encodes:)`` on memory: eight ASCII scalars at a time against eight bytes (the
    /// comparison after every edit was a percent of a long simulation), others one by one.
    private static func utf8(_ bytes: UnsafeBufferPointer<UInt8>, encodes scalars: UnsafeBufferPointer<UInt32>) -> Bool {
        var position = 0
        var next = 0
        while next < scalars.count {
            if scalars.count - next >= 8 && bytes.count - position >= 8 {
                let s = scalars.baseAddress! + next
                if (s[0] | s[1] | s[2] | s[3] | s[4] | s[5] | s[6] | s[7]) < 0x80 {
                    var packed = UInt64(s[0]) | UInt64(s[1]) << 8 | UInt64(s[2]) << 16 | UInt64(s[3]) << 24
                    packed |= UInt64(s[4]) << 32 | UInt64(s[5]) << 40 | UInt64(s[6]) << 48 | UInt64(s[7]) << 56
                    let word = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self))
                    guard word == packed else { return false }
                    position += 8
                    next += 8
                    continue
                }
            }
            let scalar = scalars[next]
            next += 1
            // (A surrogate or a value past U+10FFFF has no UTF-8.)
            guard Unicode.Scalar(scalar) != nil else { return false }
            let count = scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x1_0000 ? 3 : 4
            guard bytes.count - position >= count else { return false }
            if count == 1 {
                guard bytes[position] == UInt8(scalar) else { return false }
            } else {
                // The lead byte: the count's marker bits, then the scalar's highest bits.
                let lead = UInt8(truncatingIfNeeded: (0xF00 >> count) | Int(scalar >> (6 * UInt32(count - 1))))
                guard bytes[position] == lead else { return false }
                for continuation in 1..<count {
                    let bits = UInt8(truncatingIfNeeded: scalar >> (6 * UInt32(count - 1 - continuation))) & 0x3F
                    guard bytes[position + continuation] == 0x80 | bits else { return false }
                }
            }
            position += count
        }
        return position == bytes.count
    }

    func describe(_ scalar: UInt32) -> String {
        "U+\(String(scalar, radix: 16, uppercase: true))"
    }

    /// Rebuilds `peer`'s model from its notebook (after opening, a crash, a restore).
    func rebuildShadows(_ peer: Peer) {
        peer.shadows = []
        peer.caret = nil
        let notebook = peer.notebook
        meter?.observe(peer: peer.index, version: notebook.version, at: now)
        for id in notebook.memoIDs {
            let m = oracle.memoIndex(of: id)
            if let memo = notebook.memo(id) {
                peer.setShadow(m, MemoShadow(status: memo.status, scalars: memo.text.unicodeScalars.map(\.value)))
            } else {
                peer.setShadow(m, MemoShadow(status: .purged, scalars: []))
            }
        }
        _ = peer.takeEvents()
    }

    /// Which tracked characters `notebook`'s texts hold.
    func presence(in notebook: Notebook) -> Oracle.Presence {
        var presence = Oracle.Presence(oracle: oracle)
        for id in notebook.memoIDs {
            guard let memo = notebook.memo(id) else { continue }
            for scalar in memo.text.unicodeScalars { presence.mark(scalar.value) }
        }
        return presence
    }

    // MARK: Convergence during the run

    /// Replicas holding the same operations must have the same memos, texts and encoded bytes.
    /// Groups the live replicas by version and compares the encodings within each group (only
    /// groups of two or more are encoded, so the check costs little while versions differ).
    func checkConvergenceNow() {
        var groups: [(version: VersionVector, peers: [Peer])] = []
        for peer in peers where peer.status == .live && (peer.replica != nil || peer.core != nil) {
            let notebook = peer.notebook
            guard notebook.pendingOperationCount == 0 else { continue }
            let version = notebook.version
            if let index = groups.firstIndex(where: { $0.version == version }) {
                groups[index].peers.append(peer)
            } else {
                groups.append((version, [peer]))
            }
        }
        for group in groups where group.peers.count > 1 {
            // Encoded keeping the text bodies (the bytes of `encoded()`), so that the states
            // without history below copy those bodies instead of encoding every text again.
            var first = group.peers[0].notebook
            let bytes = first.encodedKeepingTextBodies()
            // The first replica's state without history, once per group (not per replica).
            var firstWithoutHistory: [UInt8]?
            for peer in group.peers.dropFirst() {
                var notebook = peer.notebook
                let other = notebook.encodedKeepingTextBodies()
                guard other != bytes else { continue }
                // Each library keeps deleted content for its own period (issue 27): only the
                // state without it must be the same.
                if firstWithoutHistory == nil { firstWithoutHistory = Self.withoutHistory(first) }
                guard Self.withoutHistory(notebook) != firstWithoutHistory else { continue }
                var detail = "same operations (\(group.version.operationCount)), different encoded states (\(bytes.count) and \(other.count) bytes)"
                for id in notebook.memoIDs where notebook.memo(id) != first.memo(id) {
                    let describe = { (memo: Memo?) in memo.map { "\($0.status) \($0.text.unicodeScalars.count) scalars" } ?? "gone" }
                    detail += "; memo \(oracle.memoIndex(of: id)) differs: \(describe(first.memo(id))) vs \(describe(notebook.memo(id)))"
                    break
                }
                return fail(.convergence, [group.peers[0].index, peer.index], detail)
            }
        }
    }
}

extension NotebookEvent {
    /// Who made the change.
    var origin: ChangeOrigin {
        switch self {
        case let .added(_, origin), let .changed(_, _, origin), let .trashed(_, origin), let .restored(_, origin), let .purged(_, origin):
            origin
        }
    }
}
