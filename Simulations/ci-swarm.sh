#!/usr/bin/env bash
# The simulation swarm CI runs: as many seeds as fit in about two minutes (after the build),
# every fault drawn per seed. Fails on any violated invariant. Add to .ci/run after `swift test`:
#
#     Simulations/ci-swarm.sh
#
# `clone` and `old-copy` stay off until the re-identification findings are fixed (see
# Simulations/README.md, "Findings").
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product memo-sim
.build/release/memo-sim --seeds 1..100000000 --time-limit "${MEMO_SIM_SECONDS:-110}" --quiet --without clone,old-copy
