#!/usr/bin/env bash
# Builds a throwaway app package that depends on this one by path and imports only MemoSync, in
# Debug, as an app developer's Xcode or SwiftPM project would (without MEMOSYNC_SELF_CHECKS), runs
# it (a memo created, saved and synced through a folder), and checks that no test machinery was
# compiled in (no EngineMutant symbol, and the per-mutation self-check an empty function) and
# that it does not link FoundationNetworking (the remote stores are a module of their own).
#
# Given a binary of a build with the self-checks (Tests/run.sh gives it the test build's `memo`),
# it first checks that the same search finds the mutant symbols there: a check that can fail.
#
#     Tests/ClientCheck/check.sh [SELF-CHECK-BINARY]   # about a minute; Tests/run.sh runs it
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ $# -ge 1 ]]; then
    found=$(nm "$1" | grep -c EngineMutant || true)
    [[ "$found" -gt 0 ]] || { echo "FAIL: no EngineMutant symbol in $1, a build with the self-checks: the search below finds nothing" >&2; exit 1; }
    echo "client check: $found EngineMutant symbols in $1 (built with the self-checks)"
    # `memo` uses the remote stores, so it links FoundationNetworking: the search below can fail.
    readelf -d "$1" | grep -q 'NEEDED.*libFoundationNetworking' \
        || { echo "FAIL: $1 (which uses MemoSyncRemote) does not link FoundationNetworking: the check below finds nothing" >&2; exit 1; }
fi
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
# README: the remote stores are "a module of its own, so an app that does not use them does not
# link FoundationNetworking".
if readelf -d "$binary" | grep -q 'NEEDED.*libFoundationNetworking'; then
    echo "FAIL: a client that imports only MemoSync links FoundationNetworking" >&2
    exit 1
fi
echo "client: FoundationNetworking not linked"
