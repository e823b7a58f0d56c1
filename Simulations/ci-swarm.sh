#!/usr/bin/env bash
# The simulation swarm CI runs (`.ci/run`, after `swift test`): as many seeds as fit in about
# 35 seconds after the release build, every workload feature and fault drawn per seed, then
# seeds 796, 41, 168 and 5042 and about 15 seconds of long 8-replica runs with every fault on. Fails on
# any violated invariant, printing the seed and the command that replays it. However busy the
# machine, each part runs a minimum number of seeds (--min-seeds) past its time box: 30 and 8.
# memo-sim runs one seed per processor at once (`--jobs`): an idle 2-core machine runs two
# long seeds in about 1.2 s each, so the boxes hold far more than their minimums.
#
# The release build is optimized file by file (`-no-whole-module-optimization`, in a build folder
# of its own): faster to build on two cores (159 against 191 s), and the configuration in which
# Swift 6.3.1 miscompiled reads of the memo table (`MemoTable.subscript(at:)`: a heap use after
# free that crashed seeds 1, 9 and 20), so that such a build is run at every CI run too.
#
#     MEMO_SIM_SECONDS=600 Simulations/ci-swarm.sh     # a longer swarm
#     MEMO_SIM_FIRST_SEED=5000000 Simulations/ci-swarm.sh   # other seeds
set -euo pipefail
cd "$(dirname "$0")/.."
build=.build/swarm
swift build -c release --product memo-sim --scratch-path "$build" -Xswiftc -no-whole-module-optimization
# `--build-only`: the build alone (Tests/run.sh starts it at the lowest priority beside the test
# build and the tests, which leave the processors idle now and then, then runs this script again).
if [ "${1:-}" = "--build-only" ]; then exit 0; fi
sim="$build/release/memo-sim"
first="${MEMO_SIM_FIRST_SEED:-1}"
"$sim" --seeds "$first..$((first + 100000000))" --time-limit "${MEMO_SIM_SECONDS:-35}" \
    --min-seeds "${MEMO_SIM_MIN_SEEDS:-30}" --quiet
# Long runs with 8 replicas and every fault on, where stalls over time show (seed 796 stalled
# for good before heads and the store check): that seed, then as many others as fit.
"$sim" --seed 796 --steps 3000 --replicas 8 --faults all --quiet
# A seed whose snapshots are amortized (those with seed / 40 % 4 == 1; the first seeds are not):
# snapshots wait until the segments they spare weigh a quarter of them (issue 28).
"$sim" --seed 41 --steps 3000 --replicas 8 --faults all --quiet
# Seed 168: its libraries write state lists (seed / 7 % 2 == 0) and reopen from them after
# crashes, each open compared with the state read whole (issue 28); a crash hook that fired in
# the list's best-effort write once left a replica on a stopped disk (Simulations/README.md,
# "Seeds 168, 193, 340 and 346"). The run must reach an open from a list.
listed=$("$sim" --seed 168 --steps 3000 --replicas 8 --faults all --quiet)
if ! grep -q "reached=\[[^]]*a library opened from its state list" <<<"$listed"; then
    echo "seed 168 never opened a library from its state list: $listed" >&2
    exit 1
fi
# Seed 5042: a library whose saved edits were held back after damage said it had nothing left
# to publish, and a restored backup then lost a deletion (Simulations/README.md, "Seed 5042").
"$sim" --seed 5042 --steps 3000 --replicas 8 --faults all --quiet
"$sim" --seeds "$first..$((first + 100000000))" --steps 3000 --replicas 8 --faults all \
    --time-limit "${MEMO_SIM_LONG_SECONDS:-15}" --min-seeds "${MEMO_SIM_LONG_MIN_SEEDS:-8}" --quiet
# Texts turned back into their encoded form at every save change nothing a run does (issue 28):
# seed 38 with every text kept decoded and with none gives the same events, so the same hash.
# It differed before undo recorded maximal runs of characters (`TextCRDT.characterRuns`).
kept=$("$sim" --seed 38 --steps 1000 --replicas 5 --faults all --decoded-texts 1000000000 | grep -o 'hash=[0-9a-f]*')
released=$("$sim" --seed 38 --steps 1000 --replicas 5 --faults all --decoded-texts 0 | grep -o 'hash=[0-9a-f]*')
if [ -z "$kept" ] || [ "$kept" != "$released" ]; then
    echo "seed 38 ran otherwise with decoded texts turned back: $kept against $released" >&2
    exit 1
fi
# A release build holds no mutant: it refuses --mutant with exit status 2 and says why
# (Simulations/README.md, "Proof that it can fail").
set +e
refusal=$("$sim" --mutant skipped-fsync --seed 1 --steps 10 --replicas 2 2>&1)
status=$?
set -e
if [ "$status" -ne 2 ] || ! grep -q "only in debug builds with self-checks" <<<"$refusal"; then
    echo "a release memo-sim did not refuse --mutant (exit $status): $refusal" >&2
    exit 1
fi
# The worked scenarios (issue 30), two seeds each.
for scenario in Simulations/Scenarios/*.json; do
    "$sim" --scenario "$scenario" --seeds 1..2 --quiet
done
