#!/usr/bin/env bash
# Builds `memo-fuzz` with libFuzzer and AddressSanitizer and fuzzes one target.
#
#     Tests/Fuzz/fuzz.sh TARGET [SECONDS [libFuzzer options...]]
#     Tests/Fuzz/fuzz.sh --build                    build only
#
# TARGET: text-delta, text-state, notebook-delta, notebook-state, library-state, library-journal,
# store-key, encrypted-blob, key-blob, s3-listing, webdav-multistatus, listing-cache, state-list. SECONDS defaults to 60. The build lives in .build-fuzz (release, its own scratch
# path: the ordinary .build is untouched); each target keeps its corpus in
# .build-fuzz/fuzz/TARGET/corpus (seeded from the public API on every run) and the inputs that
# crash in .build-fuzz/fuzz/TARGET/artifacts. See Tests/Fuzz/README.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch="$root/.build-fuzz"
cd "$root"

# Swift's backtracer hangs under AddressSanitizer.
export SWIFT_BACKTRACE=enable=no

nice -n 19 swift build -c release --scratch-path "$scratch" --product memo-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xcc -DMEMOSYNC_LIBFUZZER=1 >&2
binary="$scratch/release/memo-fuzz"
if [[ "${1:-}" == "--build" ]]; then
    echo "$binary"
    exit 0
fi

target=${1:?usage: Tests/Fuzz/fuzz.sh TARGET [SECONDS [libFuzzer options...]]}
seconds=${2:-60}
shift $(( $# < 2 ? $# : 2 ))
work="$scratch/fuzz/$target"
mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"
"$binary" --seeds "$target" "$work/seeds" >&2

exec nice -n 19 "$binary" "$target" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -detect_leaks=1 \
    -artifact_prefix="$work/artifacts/" "$@" "$work/corpus" "$work/seeds"
