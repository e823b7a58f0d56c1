#!/usr/bin/env bash
# Builds a throwaway app package that depends on this one by path and imports only MemoSync, in
# Debug, as an app developer's Xcode or SwiftPM project would (without MEMOSYNC_SELF_CHECKS), runs
# it (a memo created, saved and synced through a folder), and checks that no test machinery was
# compiled in: no EngineMutant symbol, and the per-mutation self-check an empty function.
#
#     Tests/ClientCheck/check.sh        # about a minute; not part of Tests/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset MEMOSYNC_SELF_CHECKS
mkdir -p "$work/Sources/client"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "client",
    dependencies: [.package(path: "$root")],
    targets: [.executableTarget(name: "client", dependencies: [.product(name: "MemoSync", package: "$(basename "$root")")])],
    swiftLanguageModes: [.v6]
)
SWIFT
cat > "$work/Sources/client/main.swift" <<'SWIFT'
import Foundation
import MemoSync   // alone: it re-exports MemoNotes and MemoCRDT

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memosync-client-\(getpid())")
defer { try? FileManager.default.removeItem(at: folder) }
let replica = try Replica(libraryPath: folder.appendingPathComponent("library").path)
let id: MemoID = try replica.createMemo(text: "Groceries\nmilk")
try await replica.save()
let report = try await replica.sync(with: try DirectoryBlobStore(path: folder.appendingPathComponent("store").path))
await replica.close()
let version: VersionVector = replica.notebook.version
guard report.isComplete, replica.notebook.memo(id)?.text == "Groceries\nmilk", version.operationCount > 0 else {
    fatalError("the client did not sync its memo")
}
print("client: created, saved and synced a memo")
SWIFT
(cd "$work" && swift build -c debug 2>&1 | tail -1 && .build/debug/client)
binary="$work/.build/debug/client"
mutants=$(nm "$binary" | grep -c EngineMutant || true)
[[ "$mutants" == 0 ]] || { echo "FAIL: $mutants EngineMutant symbols in a client's Debug build" >&2; exit 1; }
objdump -d --no-show-raw-insn "$binary" > "$work/client.asm"
instructions=$(awk '/Notebook.*checkInvariantsIfEnabled.*>:$/ {on=1; next} on && /\tret/ {print n+1; exit} on {n++}' "$work/client.asm")
[[ -n "$instructions" && "$instructions" -le 8 ]] || { echo "FAIL: Notebook.checkInvariantsIfEnabled is not empty (${instructions:-?} instructions)" >&2; exit 1; }
echo "client: no EngineMutant symbol; Notebook.checkInvariantsIfEnabled is $instructions instructions (an empty function)"
