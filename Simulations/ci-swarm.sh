#!/usr/bin/env bash
# The simulation swarm CI runs (`.ci/run`, after `swift test`): as many seeds as fit in about
# two minutes after the release build, every workload feature and fault drawn per seed. Fails on
# any violated invariant, printing the seed and the command that replays it.
#
#     MEMO_SIM_SECONDS=600 Simulations/ci-swarm.sh     # a longer swarm
#     MEMO_SIM_FIRST_SEED=5000000 Simulations/ci-swarm.sh   # other seeds
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product memo-sim
first="${MEMO_SIM_FIRST_SEED:-1}"
.build/release/memo-sim --seeds "$first..$((first + 100000000))" --time-limit "${MEMO_SIM_SECONDS:-110}" --quiet
