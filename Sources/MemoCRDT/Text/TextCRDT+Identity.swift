// Comparing operations by identity, and renaming a replica's operations: what a replica needs
// when it finds that a copy of its library (a clone, or the original of a restored backup) has
// published different operations under the same ids.

extension TextCRDT {
    /// Whether this text holds every operation of `delta`, and holds the same operations: same
    /// ids, timestamps, origins and deletion targets, and the same content where both still
    /// have it (content of text deleted since is not compared).
    ///
    /// - Complexity: O(k log r) for k runs in the delta.
    public func holdsSameOperations(as delta: TextDelta) -> Bool {
        for run in delta.runs {
            guard let replicaIndex = replicaTable.index(of: run.replica),
                run.end <= logs[replicaIndex].operationCount,
                logs[replicaIndex].lamport(of: run.counter) == run.lamport,
                logs[replicaIndex].lamport(of: run.end - 1) == run.lamport + UInt64(run.length) - 1
            else { return false }
            switch run.kind {
            case let .insertion(originLeftID, originRightForm, content):
                // Each held span piece of the run must continue from the one before it.
                var counter = run.counter
                var expectedLeft = itemRef(originLeftID)
                var expectedRight: ItemRef?
                if case let .item(id) = originRightForm { expectedRight = itemRef(id) }
                if case .end = originRightForm { expectedRight = ItemRef.none }
                if case .inherited = originRightForm {
                    guard let left = expectedLeft, !left.isNone, let (slot, _) = lookup(left) else { return false }
                    expectedRight = spans[slot].originRight
                }
                var contentOffset = 0
                while counter < run.end {
                    guard let (slot, offset) = lookup(ItemRef(replica: replicaIndex, counter: counter)) else { return false }
                    let span = spans[slot]
                    let pieceLength = min(run.end - counter, span.lengthScalars - offset)
                    guard let left = expectedLeft, span.originLeft(at: offset) == left, let right = expectedRight,
                        span.originRight == right
                    else { return false }
                    if let content {
                        let pieceBytes = UTF8Scanning.advance(content, from: contentOffset, scalars: Int(pieceLength)).bytes
                        if !span.isDeleted {
                            let start = Int(span.contentOffset) + prefixLengths(of: span, scalars: offset).bytes
                            guard content[contentOffset..<contentOffset + pieceBytes].elementsEqual(self.content[start..<start + pieceBytes]) else {
                                return false
                            }
                        }
                        contentOffset += pieceBytes
                    }
                    counter += pieceLength
                    expectedLeft = ItemRef(replica: replicaIndex, counter: counter - 1)
                }
            case let .deletion(target, isReversed):
                guard let targetIndex = replicaTable.index(of: target.replica) else { return false }
                var counter = run.counter
                while counter < run.end {
                    guard let index = logs[replicaIndex].deletionRunIndex(of: counter) else { return false }
                    let held = logs[replicaIndex].deletionRuns[index]
                    let stop = min(run.end, held.end)
                    for op in counter..<stop {
                        let mine = held.target(at: op - held.counter)
                        let offset = op - run.counter
                        let theirs = isReversed ? target.counter + run.length - 1 - offset : target.counter + offset
                        guard mine == ItemRef(replica: targetIndex, counter: theirs) else { return false }
                    }
                    counter = stop
                }
            }
        }
        return true
    }
}

extension TextDelta {
    /// This delta with the operations of `replica` from counter `from` on renamed to
    /// `newReplica`, renumbered from 0 — including every reference to them (origins, deletion
    /// targets). Operations and references below `from` are unchanged.
    public func renaming(_ replica: ReplicaID, from: UInt32, to newReplica: ReplicaID) -> TextDelta {
        func rename(_ id: OperationID) -> OperationID {
            id.replica == replica && id.counter >= from ? OperationID(replica: newReplica, counter: id.counter - from) : id
        }
        var result: [Run] = []
        for var run in runs {
            // A run straddling `from` is cut there first.
            var pieces = [run]
            if run.replica == replica && run.counter < from && run.end > from {
                pieces = [run.prefix(from - run.counter), run.dropping(from - run.counter)]
            }
            for piece in pieces {
                run = piece
                switch run.kind {
                case let .insertion(originLeft, originRight, content):
                    var right = originRight
                    if case let .item(id) = originRight { right = .item(rename(id)) }
                    run.kind = .insertion(originLeft: originLeft.map(rename), originRight: right, content: content)
                case let .deletion(target, isReversed):
                    // A deletion of targets straddling `from` is cut so each part names one replica.
                    if target.replica == replica && target.counter < from && target.counter + run.length > from && run.length > 1 {
                        let below = from - target.counter
                        let first = isReversed ? run.length - below : below
                        for part in [run.prefix(first), run.dropping(first)] {
                            guard case let .deletion(partTarget, partReversed) = part.kind else { continue }
                            var renamed = part
                            renamed.kind = .deletion(target: rename(partTarget), isReversed: partReversed)
                            if renamed.replica == replica && renamed.counter >= from {
                                renamed.replica = newReplica
                                renamed.counter -= from
                            }
                            result.append(renamed)
                        }
                        continue
                    }
                    run.kind = .deletion(target: rename(target), isReversed: isReversed)
                }
                if run.replica == replica && run.counter >= from {
                    run.replica = newReplica
                    run.counter -= from
                }
                result.append(run)
            }
        }
        result.sort { ($0.replica, $0.counter) < ($1.replica, $1.counter) }
        return TextDelta(runs: result)
    }
}
