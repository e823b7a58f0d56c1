import MemoCRDT
import MemoNotes
import MemoSync

/// Why an engine call on a peer failed.
enum EngineFailure: Error {
    /// The notebook refused the change.
    case notebook(NotebookError)
    /// The replica failed (the disk, a sync in progress, a closed library...).
    case replica(ReplicaError)

    var description: String {
        switch self {
        case let .notebook(error): "\(error)"
        case let .replica(error): "\(error)"
        }
    }
}

// Local changes, the same for both engine levels: through the `Replica` when there is one,
// otherwise on the bare notebook with the simulated wall time passed in.
extension Peer {
    private func replicaCall<T>(_ body: (Replica) throws(ReplicaError) -> T) throws(EngineFailure) -> T {
        do throws(ReplicaError) {
            return try body(replica!)
        } catch {
            if let inner = error.notebookError { throw .notebook(inner) }
            throw .replica(error)
        }
    }

    private func coreCall<T>(_ body: (inout Notebook, UInt64) throws(NotebookError) -> T) throws(EngineFailure) -> T {
        do throws(NotebookError) {
            return try body(&core!, box.wallMilliseconds)
        } catch {
            throw .notebook(error)
        }
    }

    func createMemo(text: String) throws(EngineFailure) -> MemoID {
        if replica != nil { return try replicaCall { replica throws(ReplicaError) in try replica.createMemo(text: text) } }
        let id = MemoID(using: &box.random)
        try coreCall { notebook, now throws(NotebookError) in try notebook.createMemo(id, text: text, wallMilliseconds: now) }
        return id
    }

    func edit(_ id: MemoID, scalars range: Range<Int>, utf16 utf16Range: Range<Int>?, with text: String) throws(EngineFailure) {
        if replica != nil {
            try replicaCall { replica throws(ReplicaError) in
                if let utf16Range {
                    try replica.edit(id, replacingUTF16: utf16Range, with: text)
                } else {
                    try replica.edit(id, replacingScalars: range, with: text)
                }
            }
            return
        }
        try coreCall { notebook, now throws(NotebookError) in
            if let utf16Range {
                try notebook.edit(id, replacingUTF16: utf16Range, with: text, wallMilliseconds: now)
            } else {
                try notebook.edit(id, replacingScalars: range, with: text, wallMilliseconds: now)
            }
        }
    }

    func setText(_ id: MemoID, to text: String) throws(EngineFailure) {
        if replica != nil { return try replicaCall { replica throws(ReplicaError) in try replica.setText(id, to: text) } }
        try coreCall { notebook, now throws(NotebookError) in try notebook.setText(id, to: text, wallMilliseconds: now) }
    }

    func moveToTrash(_ id: MemoID) throws(EngineFailure) {
        if replica != nil { return try replicaCall { replica throws(ReplicaError) in try replica.moveToTrash(id) } }
        try coreCall { notebook, now throws(NotebookError) in try notebook.moveToTrash(id, wallMilliseconds: now) }
    }

    func restore(_ id: MemoID) throws(EngineFailure) {
        if replica != nil { return try replicaCall { replica throws(ReplicaError) in try replica.restore(id) } }
        try coreCall { notebook, now throws(NotebookError) in try notebook.restore(id, wallMilliseconds: now) }
    }

    func purge(_ id: MemoID) throws(EngineFailure) {
        // Active memos too: the simulator's purges race edits on memos in either state.
        if replica != nil { return try replicaCall { replica throws(ReplicaError) in try replica.purge(id, allowingActive: true) } }
        try coreCall { notebook, now throws(NotebookError) in try notebook.purge(id, wallMilliseconds: now) }
    }

    func undo(_ id: MemoID) throws(EngineFailure) {
        if replica != nil { return try replicaCall { replica throws(ReplicaError) in try replica.undo(id) } }
        try coreCall { notebook, now throws(NotebookError) in try notebook.undo(id, wallMilliseconds: now) }
    }

    func redo(_ id: MemoID) throws(EngineFailure) {
        if replica != nil { return try replicaCall { replica throws(ReplicaError) in try replica.redo(id) } }
        try coreCall { notebook, now throws(NotebookError) in try notebook.redo(id, wallMilliseconds: now) }
    }

    /// The events since the last call.
    func takeEvents() -> [NotebookEvent] {
        if let replica { return replica.takeEvents() }
        return core!.takeEvents()
    }
}
