import MemoCRDT
import MemoNotes
import MemoSync

// Local actions: what the simulated users do to their memos, each applied to the engine and,
// as the plain string edit it stands for, to the replica's model (its shadows), with every
// character typed and deleted reported to the oracle.

extension Simulation {
    func performLocal(_ event: ScriptEvent) {
        let peer = peers[event.peer]
        if case let .concurrentType(others, direction, length, memo, at) = event.action {
            return concurrentType(peers: [event.peer] + others.filter { $0 != event.peer }, direction: direction, length: length, memo: memo, at: at)
        }
        guard peer.isEditable else { return skip(peer, "\(Trace.describe(event.action)): not editable now") }
        statistics.actions += 1
        setClock(peer)
        switch event.action {
        case let .type(direction, length, memo, at):
            guard let m = pickMemo(peer, memo, active: true) else { return create(peer, length: length) }
            let count = peer.shadows[m]!.scalars.count
            if count + length > parameters.memoScalarsMax { return deleteRange(peer, memo: m, length: length * 2, at: at) }
            typeRun(peer, memo: m, at: position(at, count), direction: direction, length: length)
        case let .caretType(length):
            caretType(peer, length: length)
        case let .paste(length, memo, at):
            guard let m = pickMemo(peer, memo, active: true) else { return create(peer, length: length) }
            let count = peer.shadows[m]!.scalars.count
            if count + length > parameters.memoScalarsMax { return deleteRange(peer, memo: m, length: length, at: at) }
            replace(peer, memo: m, range: position(at, count)..<position(at, count), inserting: length, label: "paste")
        case let .deleteRange(length, memo, at):
            guard let m = pickMemo(peer, memo, active: true) else { return skip(peer, "delete: no memo") }
            deleteRange(peer, memo: m, length: length, at: at)
        case let .backspace(count, memo, at):
            guard let m = pickMemo(peer, memo, active: true) else { return skip(peer, "backspace: no memo") }
            backspace(peer, memo: m, count: count, at: at)
        case let .replaceRange(deleted, inserted, memo, at):
            guard let m = pickMemo(peer, memo, active: true) else { return create(peer, length: inserted) }
            let count = peer.shadows[m]!.scalars.count
            let lower = position(at, count)
            let upper = min(count, lower + deleted)
            let grow = inserted - (upper - lower)
            replace(peer, memo: m, range: lower..<upper, inserting: count + grow > parameters.memoScalarsMax ? 0 : inserted, label: "replace")
        case let .replaceAll(mode, memo, choice):
            guard let m = pickMemo(peer, memo, active: true) else { return skip(peer, "replace-all: no memo") }
            replaceAll(peer, memo: m, mode: mode, choice: choice)
        case let .create(length):
            create(peer, length: length)
        case let .trash(memo):
            guard let m = pickMemo(peer, memo, active: true) else { return skip(peer, "trash: no memo") }
            lifecycle(peer, memo: m, .trash)
        case let .restore(memo):
            guard let m = pickMemo(peer, memo, where: { $0.status == .trashed }) else { return skip(peer, "restore: nothing in the trash") }
            lifecycle(peer, memo: m, .restore)
        case let .purge(memo):
            guard let m = pickMemo(peer, memo, where: { $0.status != .purged }) else { return skip(peer, "purge: no memo") }
            lifecycle(peer, memo: m, .purge)
        case let .undo(memo, count):
            guard let m = pickMemo(peer, memo, active: true) else { return skip(peer, "undo: no memo") }
            undoRedo(peer, memo: m, count: count, redo: false)
        case let .redo(memo):
            guard let m = pickMemo(peer, memo, active: true) else { return skip(peer, "redo: no memo") }
            undoRedo(peer, memo: m, count: 1, redo: true)
        default:
            preconditionFailure("not a local action")
        }
        if peer.session != nil { sometimes.insert(.editDuringSync) }
        _ = peer.takeEvents()
    }

    // MARK: Choosing

    /// The memo `selector` names among the replica's active (or any matching) memos.
    func pickMemo(_ peer: Peer, _ selector: UInt32, active: Bool) -> Int? {
        pickMemo(peer, selector) { $0.status == .active }
    }

    func pickMemo(_ peer: Peer, _ selector: UInt32, where predicate: (MemoShadow) -> Bool) -> Int? {
        let candidates = peer.memos(where: predicate)
        guard !candidates.isEmpty else { return nil }
        return candidates[Int(selector) % candidates.count]
    }

    /// A place in a text of `count` scalars: `at` as a fraction of 2^32.
    func position(_ at: UInt32, _ count: Int) -> Int {
        Int((UInt64(at) &* UInt64(count + 1)) >> 32)
    }

    /// A new character for `memo` typed by `peer`: tracked, or an ASCII letter.
    func nextScalar(memo: Int, peer: Int) -> UInt32 {
        if asciiShare > 0 && content.chance(asciiShare) { return content.pick(TrackedAlphabet.untracked) }
        let pool = content.weighted([45, 25, 30])
        return oracle.allocate(pool: pool, memo: memo, peer: peer) ?? content.pick(TrackedAlphabet.untracked)
    }

    func newText(memo: Int, peer: Int, length: Int, tracked: Bool = false) -> [UInt32] {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(length)
        for _ in 0..<length {
            if tracked, let scalar = oracle.allocate(pool: content.weighted([45, 25, 30]), memo: memo, peer: peer) {
                scalars.append(scalar)
            } else {
                scalars.append(nextScalar(memo: memo, peer: peer))
            }
        }
        return scalars
    }

    // MARK: Typing

    func typeRun(_ peer: Peer, memo m: Int, at start: Int, direction: TypingDirection, length: Int) {
        let id = oracle.memos[m].id
        let useUTF16 = content.chance(0.5)
        var position = start
        var utf16Position = useUTF16 ? utf16Count(peer.shadows[m]!.scalars, 0..<position) : 0
        var run = beginRun(peer, memo: m, at: position)
        for keystroke in 0..<length {
            let scalar = nextScalar(memo: m, peer: peer.index)
            setClock(peer, offset: UInt64(keystroke) * 120)
            do throws(EngineFailure) {
                try peer.edit(
                    id, scalars: position..<position, utf16: useUTF16 ? utf16Position..<utf16Position : nil,
                    with: String(Character(Unicode.Scalar(scalar)!)))
            } catch {
                return localFailure(peer, error, "typing at \(position) in memo \(m)")
            }
            statistics.edits += 1
            statistics.characters += 1
            peer.shadows[m]!.scalars.insert(scalar, at: position)
            if oracle.isTracked(scalar) { run?.scalars.append(scalar) }
            if direction == .forward {
                position += 1
                utf16Position += scalar >= 0x1_0000 ? 2 : 1
            }
        }
        endRun(run)
        record(peer, .action, UInt64(m), UInt64(start), UInt64(length)) {
            "type \(direction.rawValue) \(length) at \(start) in m\(m)"
        }
        afterLocalEdit(peer, memo: m, caretAt: position)
    }

    func caretType(_ peer: Peer, length: Int) {
        guard let caret = peer.caret, let shadow = peer.shadow(caret.memo), shadow.status == .active else {
            let memos = peer.memos { $0.status == .active }
            guard !memos.isEmpty else { return create(peer, length: length) }
            let m = memos[content.int(in: 0..<memos.count)]
            return typeRun(peer, memo: m, at: shadow(peer, m).scalars.count, direction: .forward, length: length)
        }
        guard checkCaret(peer) else { return }
        guard shadow.scalars.count + length <= parameters.memoScalarsMax else {
            return deleteRange(peer, memo: caret.memo, length: length, at: content.next32())
        }
        let offset: Int
        do throws(NotebookError) {
            offset = try peer.notebook.utf16Offset(of: caret.anchor, in: oracle.memos[caret.memo].id)
        } catch {
            return fail(.cursor, [peer.index], "the caret of memo \(caret.memo) cannot be placed: \(error)")
        }
        guard let position = scalarPosition(ofUTF16: offset, in: shadow.scalars) else {
            return fail(.cursor, [peer.index], "the caret's UTF-16 offset \(offset) is not at a character boundary of memo \(caret.memo)")
        }
        typeRun(peer, memo: caret.memo, at: position, direction: .forward, length: length)
    }

    func shadow(_ peer: Peer, _ memo: Int) -> MemoShadow { peer.shadows[memo]! }

    /// Several replicas type a run each after the same character, at the same moment.
    func concurrentType(peers indices: [Int], direction: TypingDirection, length: Int, memo: UInt32, at: UInt32) {
        let typists = indices.map { peers[$0] }.filter { $0.isEditable }
        guard let first = typists.first else { return skip(peers[indices[0]], "concurrent typing: nobody can type") }
        guard let m = pickMemo(first, memo, active: true) else { return skip(first, "concurrent typing: no memo") }
        let together = typists.filter { $0.shadow(m)?.status == .active }
        // The anchor: a tracked character every typist holds, else the start of the text.
        var anchor = RunRecord.startAnchor
        let text = first.shadows[m]!.scalars
        if !text.isEmpty {
            let candidate = text[min(text.count - 1, position(at, text.count - 1))]
            if oracle.isTracked(candidate) && together.allSatisfy({ $0.shadows[m]!.scalars.contains(candidate) }) { anchor = candidate }
        }
        record(first, .action, UInt64(m), UInt64(anchor), UInt64(together.count)) {
            "concurrent typing by \(together.map { "r\($0.index)" }.joined(separator: ",")) after \(anchor) in m\(m)"
        }
        for typist in together {
            statistics.actions += 1
            setClock(typist)
            let scalars = typist.shadows[m]!.scalars
            let start = anchor == RunRecord.startAnchor ? 0 : scalars.firstIndex(of: anchor)! + 1
            if scalars.count + length > parameters.memoScalarsMax { continue }
            typeRun(typist, memo: m, at: start, direction: direction, length: length)
            _ = typist.takeEvents()
            if violation != nil { return }
        }
    }

    // MARK: Deleting and replacing

    func deleteRange(_ peer: Peer, memo m: Int, length: Int, at: UInt32) {
        let count = peer.shadows[m]!.scalars.count
        guard count > 0 else { return skip(peer, "delete: empty memo") }
        let lower = min(position(at, count), count - 1)
        replace(peer, memo: m, range: lower..<min(count, lower + max(1, length)), inserting: 0, label: "delete")
    }

    func backspace(_ peer: Peer, memo m: Int, count: Int, at: UInt32) {
        let id = oracle.memos[m].id
        var position = self.position(at, peer.shadows[m]!.scalars.count)
        let start = position
        for keystroke in 0..<count where position > 0 {
            setClock(peer, offset: UInt64(keystroke) * 90)
            let useUTF16 = content.chance(0.5)
            let scalars = peer.shadows[m]!.scalars
            var utf16Range: Range<Int>?
            if useUTF16 {
                let upper = utf16Count(scalars, 0..<position)
                utf16Range = upper - (scalars[position - 1] >= 0x1_0000 ? 2 : 1)..<upper
            }
            do throws(EngineFailure) {
                try peer.edit(id, scalars: position - 1..<position, utf16: utf16Range, with: "")
            } catch {
                return localFailure(peer, error, "backspace at \(position) in memo \(m)")
            }
            statistics.edits += 1
            statistics.characters += 1
            oracle.recordDeletion(of: scalars[position - 1], by: peer.index, mark: Oracle.OperationMark(after: peer.notebook))
            peer.shadows[m]!.scalars.remove(at: position - 1)
            position -= 1
        }
        record(peer, .action, UInt64(m), UInt64(start), UInt64(start - position)) { "backspace \(start - position) at \(start) in m\(m)" }
        afterLocalEdit(peer, memo: m, caretAt: position)
    }

    /// Replaces `range` with `inserting` new characters, in one edit.
    func replace(_ peer: Peer, memo m: Int, range: Range<Int>, inserting: Int, label: String) {
        guard !range.isEmpty || inserting > 0 else { return skip(peer, "\(label): nothing to do") }
        let id = oracle.memos[m].id
        let scalars = peer.shadows[m]!.scalars
        var utf16Range: Range<Int>?
        if content.chance(0.5) {
            let lower = utf16Count(scalars, 0..<range.lowerBound)
            utf16Range = lower..<lower + utf16Count(scalars, range)
        }
        var run = inserting > 0 ? beginRun(peer, memo: m, at: range.lowerBound) : nil
        let inserted = newText(memo: m, peer: peer.index, length: inserting)
        do throws(EngineFailure) {
            try peer.edit(id, scalars: range, utf16: utf16Range, with: string(fromScalars: inserted))
        } catch {
            return localFailure(peer, error, "\(label) of \(range) in memo \(m)")
        }
        statistics.edits += 1
        statistics.characters += range.count + inserting
        let mark = Oracle.OperationMark(after: peer.notebook)
        for scalar in scalars[range] { oracle.recordDeletion(of: scalar, by: peer.index, mark: mark) }
        peer.shadows[m]!.scalars.replaceSubrange(range, with: inserted)
        run?.scalars = inserted.filter { oracle.isTracked($0) }
        endRun(run)
        record(peer, .action, UInt64(m), UInt64(range.lowerBound), UInt64(range.count) << 32 | UInt64(inserting)) {
            "\(label) \(range) with \(inserting) in m\(m)"
        }
        afterLocalEdit(peer, memo: m, caretAt: range.lowerBound + inserting)
    }

    func replaceAll(_ peer: Peer, memo m: Int, mode: Int, choice: UInt32) {
        let id = oracle.memos[m].id
        let old = peer.shadows[m]!.scalars
        var target: [UInt32]
        var keptCount = 0
        var choices = SimulationRandom(seed: UInt64(choice), stream: 9)
        // New pieces are tracked characters only: then the smallest edit is unique in what it
        // keeps (every tracked character kept is matched to itself), so the oracle knows it.
        switch mode {
        case 0:
            target = newText(memo: m, peer: peer.index, length: choices.int(in: 0...min(200, parameters.memoScalarsMax / 2)), tracked: true)
        case 1:
            // The old text with a few ranges cut and a few new pieces put in, order kept.
            target = []
            var index = 0
            while index < old.count {
                let piece = choices.int(in: 1...max(1, old.count / 4 + 1))
                let upper = min(old.count, index + piece)
                if !choices.chance(0.3) {
                    target.append(contentsOf: old[index..<upper])
                    keptCount += upper - index
                }
                if choices.chance(0.3) && target.count < parameters.memoScalarsMax - 20 {
                    target.append(contentsOf: newText(memo: m, peer: peer.index, length: choices.int(in: 1...10), tracked: true))
                }
                index = upper
            }
        default:
            target = old
            keptCount = old.count
        }
        let before = peer.notebook
        do throws(EngineFailure) {
            try peer.setText(id, to: string(fromScalars: target))
        } catch {
            return localFailure(peer, error, "replace-all of memo \(m)")
        }
        statistics.edits += 1
        statistics.characters += abs(target.count - old.count)
        let kept = Set(target)
        let mark = Oracle.OperationMark(after: peer.notebook)
        for scalar in old where !kept.contains(scalar) { oracle.recordDeletion(of: scalar, by: peer.index, mark: mark) }
        // The smallest edit: one operation per character deleted or inserted (at most), none
        // for a kept character (deleted and inserted again, it would lose concurrent edits
        // next to it, and come back after someone else deleted it).
        let after = peer.notebook
        let expected = (old.count - keptCount) + (target.count - keptCount)
        if after.replica == before.replica {
            let operations = Int(after.version[after.replica]) - Int(before.version[before.replica])
            if operations > expected {
                return fail(
                    .intention, [peer.index],
                    "replace-all of memo \(m) (\(old.count) -> \(target.count) scalars, \(keptCount) kept) made \(operations) operations where \(expected) suffice: kept characters were deleted and inserted again")
            }
        }
        peer.shadows[m]!.scalars = target
        record(peer, .action, UInt64(m), UInt64(mode), UInt64(target.count)) { "replace-all mode \(mode) of m\(m): \(old.count) -> \(target.count)" }
        afterLocalEdit(peer, memo: m, caretAt: nil)
    }

    // MARK: Memos

    func create(_ peer: Peer, length: Int) {
        let known = peer.memos { $0.status != .purged }.count
        guard known < parameters.memosMax else { return skip(peer, "create: enough memos") }
        let length = min(length, parameters.memoScalarsMax)
        // Characters are allocated before the memo has an id; their memo is set right after.
        let text = newText(memo: -1, peer: peer.index, length: length)
        let id: MemoID
        do throws(EngineFailure) {
            id = try peer.createMemo(text: string(fromScalars: text))
        } catch {
            return localFailure(peer, error, "creating a memo")
        }
        statistics.edits += 1
        statistics.characters += text.count
        let m = oracle.recordCreation(of: id, by: peer.index)
        for scalar in text {
            if let (pool, index) = TrackedAlphabet.locate(scalar), index < oracle.characters[pool].count {
                oracle.characters[pool][index].memo = Int32(m)
            }
        }
        peer.setShadow(m, MemoShadow(status: .active, scalars: text))
        record(peer, .action, id.low, UInt64(length)) { "create m\(m) (\(id)) with \(length)" }
        afterLocalEdit(peer, memo: m, caretAt: text.count)
    }

    func lifecycle(_ peer: Peer, memo m: Int, _ kind: Oracle.EffectKind) {
        let id = oracle.memos[m].id
        do throws(EngineFailure) {
            switch kind {
            case .trash: try peer.moveToTrash(id)
            case .restore: try peer.restore(id)
            default: try peer.purge(id)
            }
        } catch {
            return localFailure(peer, error, "\(kind) of memo \(m)")
        }
        statistics.edits += 1
        oracle.recordLifecycle(kind, memo: m, by: peer.index)
        switch kind {
        case .trash: peer.shadows[m]!.status = .trashed
        case .restore: peer.shadows[m]!.status = .active
        default:
            let mark = Oracle.OperationMark(after: peer.notebook)
            for scalar in peer.shadows[m]!.scalars { oracle.recordDeletion(of: scalar, by: peer.index, mark: mark) }
            peer.shadows[m] = MemoShadow(status: .purged, scalars: [])
        }
        if peer.caret?.memo == m && kind != .restore { peer.caret = nil }
        record(peer, .action, UInt64(m), UInt64(kind.rawValue)) { "\(kind) m\(m)" }
        afterLocalEdit(peer, memo: m, caretAt: nil)
    }

    func undoRedo(_ peer: Peer, memo m: Int, count: Int, redo: Bool) {
        let id = oracle.memos[m].id
        var done = 0
        for step in 0..<count {
            let possible = redo ? peer.notebook.canRedo(id) : peer.notebook.canUndo(id)
            guard possible else { break }
            setClock(peer, offset: UInt64(step) * 300)
            do throws(EngineFailure) {
                if redo { try peer.redo(id) } else { try peer.undo(id) }
            } catch {
                return localFailure(peer, error, "\(redo ? "redo" : "undo") in memo \(m)")
            }
            statistics.edits += 1
            done += 1
        }
        guard done > 0 else { return skip(peer, "\(redo ? "redo" : "undo"): nothing to do in m\(m)") }
        // What the undo did is read back from the text: characters gone were deleted,
        // characters back were inserted again.
        guard let memo = peer.notebook.memo(id) else {
            return fail(.intention, [peer.index], "memo \(m) vanished after an undo")
        }
        // Counted, not just seen: the text may already show a character again (another
        // replica's undo brought a copy back) when this undo brings back its own copy.
        let before = peer.shadows[m]!.scalars
        let after = memo.text.unicodeScalars.map(\.value)
        let mark = Oracle.OperationMark(after: peer.notebook)
        var change: [UInt32: Int] = [:]
        for scalar in before { change[scalar, default: 0] -= 1 }
        for scalar in after { change[scalar, default: 0] += 1 }
        // In text order, so the oracle's records do not depend on hashing.
        var seen = Set<UInt32>()
        for scalar in before + after where seen.insert(scalar).inserted {
            let delta = change[scalar]!
            if delta < 0 {
                for _ in 0 ..< -delta { oracle.recordDeletion(of: scalar, by: peer.index, mark: mark) }
            } else if delta > 0 {
                guard oracle.isTracked(scalar) else {
                    if TrackedAlphabet.locate(scalar) != nil {
                        return fail(.deletedStaysDeleted, [peer.index], "an undo in memo \(m) produced U+\(String(scalar, radix: 16)), never typed")
                    }
                    continue
                }
                for _ in 0..<delta { oracle.recordReinsertion(of: scalar, by: peer.index) }
            }
        }
        peer.shadows[m]!.scalars = after
        record(peer, .action, UInt64(m), UInt64(done), redo ? 1 : 0) { "\(redo ? "redo" : "undo") \(done) in m\(m)" }
        if peer.caret?.memo == m { peer.caret = nil }
    }

    // MARK: After an edit

    func afterLocalEdit(_ peer: Peer, memo m: Int, caretAt caretPosition: Int?) {
        if parameters.intentionCheckProbability >= 1 || checkRandom.chance(parameters.intentionCheckProbability) {
            verifyMemo(peer, m, as: .intention)
        }
        if let caretPosition, peer.shadows[m]?.status == .active { setCaret(peer, memo: m, at: caretPosition) }
    }

    /// A local change failed: a crash the disk was told to make, or an engine bug.
    func localFailure(_ peer: Peer, _ error: EngineFailure, _ what: String) {
        if peer.disk.isStopped { return crashNow(peer, reason: "disk stopped during \(what)") }
        switch error {
        case let .notebook(inner):
            fail(.intention, [peer.index], "the engine refused \(what), valid on the replica's text: \(inner)")
        case let .replica(inner):
            fail(.engine, [peer.index], "\(what) failed: \(inner)")
        }
    }

    // MARK: Runs

    func beginRun(_ peer: Peer, memo m: Int, at position: Int) -> RunRecord? {
        let scalars = peer.shadows[m]!.scalars
        let anchor = position == 0 ? RunRecord.startAnchor : scalars[position - 1]
        guard anchor == RunRecord.startAnchor || oracle.isTracked(anchor) else { return nil }
        let notebook = peer.notebook
        let version = notebook.version
        return RunRecord(
            peer: peer.index, memo: m, anchor: anchor, replica: notebook.replica, firstCounter: version[notebook.replica],
            seen: version)
    }

    func endRun(_ run: RunRecord?) {
        guard let run, run.scalars.count > 0 else { return }
        runs.append(run)
    }

    // MARK: Carets

    func setCaret(_ peer: Peer, memo m: Int, at position: Int) {
        let scalars = peer.shadows[m]!.scalars
        let offset = utf16Count(scalars, 0..<position)
        do throws(NotebookError) {
            let anchor = try peer.notebook.anchor(in: oracle.memos[m].id, atUTF16: offset)
            peer.caret = Caret(memo: m, anchor: anchor, left: position == 0 ? nil : scalars[position - 1])
        } catch {
            fail(.cursor, [peer.index], "no anchor at UTF-16 offset \(offset) of memo \(m): \(error)")
        }
    }

    /// Checks that the caret sits right after its character, if that character is still there.
    @discardableResult
    func checkCaret(_ peer: Peer) -> Bool {
        guard let caret = peer.caret else { return true }
        guard let shadow = peer.shadow(caret.memo), shadow.status == .active else {
            peer.caret = nil
            return true
        }
        // An undo inserts deleted text again as new characters with the same scalars: the caret
        // follows the original, so characters inserted again are not judged.
        guard let left = caret.left, oracle.isTracked(left), oracle.reinsertions(of: left) == 0,
            let index = shadow.scalars.firstIndex(of: left)
        else { return true }
        let expected = utf16Count(shadow.scalars, 0..<index + 1)
        do throws(NotebookError) {
            let offset = try peer.notebook.utf16Offset(of: caret.anchor, in: oracle.memos[caret.memo].id)
            if offset != expected {
                fail(.cursor, [peer.index], "the caret after U+\(String(left, radix: 16)) in memo \(caret.memo) is at UTF-16 \(offset), the character ends at \(expected)")
                return false
            }
        } catch {
            fail(.cursor, [peer.index], "the caret of memo \(caret.memo) cannot be placed: \(error)")
            return false
        }
        return true
    }
}

/// The scalar range of the UTF-16 range `range` in `scalars` (what ``scalarPosition(ofUTF16:in:)``
/// gives for each bound), or nil when a bound is inside a surrogate pair or past the end. One
/// pass up to the upper bound.
func scalarRange(ofUTF16 range: Range<Int>, in scalars: [UInt32]) -> Range<Int>? {
    var units = 0
    var index = 0
    while units < range.lowerBound && index < scalars.count {
        units += scalars[index] >= 0x1_0000 ? 2 : 1
        index += 1
    }
    guard units == range.lowerBound else { return nil }
    let lower = index
    while units < range.upperBound && index < scalars.count {
        units += scalars[index] >= 0x1_0000 ? 2 : 1
        index += 1
    }
    guard units == range.upperBound else { return nil }
    return lower..<index
}

/// The scalar offset of UTF-16 offset `offset` in `scalars`, or nil inside a surrogate pair
/// or past the end.
func scalarPosition(ofUTF16 offset: Int, in scalars: [UInt32]) -> Int? {
    var units = 0
    for (index, scalar) in scalars.enumerated() {
        if units == offset { return index }
        if units > offset { return nil }
        units += scalar >= 0x1_0000 ? 2 : 1
    }
    return units == offset ? scalars.count : nil
}

extension SimulationRandom {
    /// 32 random bits.
    mutating func next32() -> UInt32 { UInt32(truncatingIfNeeded: next() >> 32) }
}
