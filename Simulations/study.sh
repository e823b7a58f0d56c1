#!/usr/bin/env bash
# A study over a long seed range on GNU parallel (issue 30): the range is cut into parts of
# PART seeds, each part runs `memo-sim --seeds A..B --report OUT/parts/A` as one job (on this
# machine, or over ssh on the hosts of an --sshloginfile), and `memo-sim merge` combines the
# parts into OUT/report: the same bytes as one `memo-sim --seeds FIRST..LAST --report` run.
#
#     Simulations/study.sh FIRST LAST PART OUT [memo-sim options...]
#     Simulations/study.sh 1 100000 500 /tmp/study --steps 3000 --replicas 8 --faults all
#     PARALLEL_OPTIONS="--sshloginfile hosts --jobs 2" Simulations/study.sh 1 100000 500 /tmp/study
#
# Over ssh, every host needs memo-sim at the same path (MEMO_SIM, default this checkout's
# release build) and OUT on a shared folder (or add --return/--cleanup to PARALLEL_OPTIONS).
# The parts do not depend on one another: a failed part can be run again alone.
set -euo pipefail
if [ $# -lt 4 ]; then
    sed -n '2,13p' "$0" >&2
    exit 2
fi
first=$1 last=$2 part=$3 out=$4
shift 4
here="$(cd "$(dirname "$0")/.." && pwd)"
memo_sim="${MEMO_SIM:-$here/.build/release/memo-sim}"
mkdir -p "$out/parts"
starts=$(seq "$first" "$part" "$last")
# A report left in OUT by an earlier study would pass for this one's.
for start in $starts; do rm -f "$out/parts/$start/measurements.json"; done
# parallel exits with the number of parts that failed (a broken invariant: their reports say which).
status=0
# shellcheck disable=SC2086
parallel ${PARALLEL_OPTIONS:---jobs 2} --halt never \
    "$memo_sim --seeds {}..\$(( {} + $part - 1 < $last ? {} + $part - 1 : $last )) --quiet --report $out/parts/{} $*" ::: $starts || status=$?
parts=()
missing=()
for start in $starts; do
    parts+=("$out/parts/$start")
    [ -e "$out/parts/$start/measurements.json" ] || missing+=("$start")
done
# A part that wrote no report did not run or did not finish (a host down, memo-sim missing or
# killed there, OUT not shared): merging the rest would report a shorter range than asked for.
if [ ${#missing[@]} -gt 0 ]; then
    echo "study.sh: no report from the parts starting at seed ${missing[*]} (in $out/parts): they wrote none; nothing merged" >&2
    exit 2
fi
"$memo_sim" merge "${parts[@]}" --report "$out/report"
exit "$status"
