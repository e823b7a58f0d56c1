// An app that embeds MemoSync writes `import MemoSync` and nothing else: a `Replica`'s API
// speaks in the types of the layers below it (`MemoID`, `Notebook`, `NotebookEvent`,
// `MemoSummary` from MemoNotes; `ReplicaID`, `VersionVector`, `TextAnchor`, `TextEdit` from
// MemoCRDT), so this module re-exports both. The layers stay separate modules (MemoCRDT <-
// MemoNotes <- MemoSync): code that needs only the text CRDT or the notes model imports that.
@_exported import MemoCRDT
@_exported import MemoNotes
